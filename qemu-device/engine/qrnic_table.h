/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the handle table every object kind lives in.  A handle's
 * index selects a slot; each slot keeps a generation that changes when
 * an object is put in it, so a handle kept after its object was destroyed
 * does not name the next one (the kinds fold it into their handles: a
 * QPN's upper bits, a key's low byte).
 *
 * Slots come in chunks allocated when an object first lands in one, so
 * the memory a table takes follows the objects in use, not its size.
 */
#ifndef QRNIC_TABLE_H
#define QRNIC_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#define QRNIC_TABLE_CHUNK   256

struct qrnic_table_slot {
    void *obj;
    uint16_t gen;
};

struct qrnic_table {
    const char *kind;       /* what it holds, for messages */
    uint32_t first;         /* lowest index handed out */
    uint32_t size;          /* one above the highest index */
    bool rotate;            /* hand out indices in turn, not lowest first */
    uint32_t next;          /* where the search for a free slot starts */
    uint32_t used;          /* objects in the table */
    uint32_t top;           /* one above the highest index ever used */
    struct qrnic_table_slot **chunk;    /* size / CHUNK, rounded up */
};

/*
 * An empty table of indices first..size-1 (first at least 1: insert
 * answers 0 for a full table); allocates nothing yet.
 */
void qrnic_table_setup(struct qrnic_table *t, const char *kind,
                       uint32_t first, uint32_t size, bool rotate);
/* Frees the table's own memory; its objects must be gone. */
void qrnic_table_fini(struct qrnic_table *t);

/* The slot of idx; NULL if out of range or its chunk is not allocated. */
static inline struct qrnic_table_slot *
qrnic_table_slot(const struct qrnic_table *t, uint32_t idx)
{
    struct qrnic_table_slot *c;

    if (idx >= t->size || !t->chunk) {
        return NULL;
    }
    c = t->chunk[idx / QRNIC_TABLE_CHUNK];
    return c ? &c[idx % QRNIC_TABLE_CHUNK] : NULL;
}

static inline void *qrnic_table_get(const struct qrnic_table *t, uint32_t idx)
{
    const struct qrnic_table_slot *s = qrnic_table_slot(t, idx);

    return s ? s->obj : NULL;
}

/*
 * Puts obj in a free slot and bumps that slot's generation; returns the
 * index, 0 when every slot is taken or memory ran out.
 */
uint32_t qrnic_table_insert(struct qrnic_table *t, void *obj);
/* Puts obj at idx (below first too), which must be free; false if not. */
bool qrnic_table_insert_at(struct qrnic_table *t, uint32_t idx, void *obj);
/* Puts obj in place of the object at idx, keeping the generation. */
void qrnic_table_replace(struct qrnic_table *t, uint32_t idx, void *obj);
/* Empties the slot at idx. */
void qrnic_table_remove(struct qrnic_table *t, uint32_t idx);

/* The slot's generation: bumped by insert, set by its kind. */
uint16_t qrnic_table_gen(const struct qrnic_table *t, uint32_t idx);
void qrnic_table_set_gen(struct qrnic_table *t, uint32_t idx, uint16_t gen);

/* The lowest index from `from` on that holds an object; t->size if none. */
uint32_t qrnic_table_next(const struct qrnic_table *t, uint32_t from);

/* Each object in index order; the body may remove the current one. */
#define QRNIC_TABLE_FOR_EACH(t, i, obj)                                 \
    for ((i) = qrnic_table_next((t), 0);                                \
         (i) < (t)->size && ((obj) = qrnic_table_get((t), (i)), 1);     \
         (i) = qrnic_table_next((t), (i) + 1))

#endif
