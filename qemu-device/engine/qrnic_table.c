/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: handle tables (qrnic_table.h).
 *
 * A table that does not rotate keeps every index in [first, next) taken,
 * so the search for the lowest free one starts at next.  A rotating one
 * starts after the last insert and wraps, so a freed index is handed out
 * again only after the others.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_table.h"

static uint32_t nchunks(const struct qrnic_table *t)
{
    return (t->size + QRNIC_TABLE_CHUNK - 1) / QRNIC_TABLE_CHUNK;
}

void qrnic_table_setup(struct qrnic_table *t, const char *kind,
                       uint32_t first, uint32_t size, bool rotate)
{
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    t->first = first;
    t->size = size;
    t->rotate = rotate;
    t->next = first;
}

void qrnic_table_fini(struct qrnic_table *t)
{
    uint32_t c;

    if (t->chunk) {
        for (c = 0; c < nchunks(t); c++) {
            free(t->chunk[c]);
        }
    }
    free(t->chunk);
    t->chunk = NULL;
    t->used = 0;
    t->top = 0;
    t->next = t->first;
}

/* The slot of idx, its chunk allocated if need be; NULL without memory. */
static struct qrnic_table_slot *slot_alloc(struct qrnic_table *t,
                                           uint32_t idx)
{
    struct qrnic_table_slot **c;

    if (!t->chunk) {
        t->chunk = calloc(nchunks(t), sizeof(*t->chunk));
        if (!t->chunk) {
            return NULL;
        }
    }
    c = &t->chunk[idx / QRNIC_TABLE_CHUNK];
    if (!*c) {
        *c = calloc(QRNIC_TABLE_CHUNK, sizeof(**c));
        if (!*c) {
            return NULL;
        }
    }
    return &(*c)[idx % QRNIC_TABLE_CHUNK];
}

static uint32_t find_free(const struct qrnic_table *t)
{
    uint32_t span = t->size - t->first;
    uint32_t start = t->next;
    uint32_t i;

    if (!span) {
        return 0;
    }
    if (!t->rotate) {
        for (i = start; i < t->size && qrnic_table_get(t, i); i++) {
            continue;
        }
        return i < t->size ? i : 0;
    }
    for (i = 0; i < span; i++) {
        uint32_t n = t->first + (start - t->first + i) % span;

        if (!qrnic_table_get(t, n)) {
            return n;
        }
    }
    return 0;
}

static bool put(struct qrnic_table *t, uint32_t idx, void *obj)
{
    struct qrnic_table_slot *s = slot_alloc(t, idx);

    if (!s) {
        return false;
    }
    s->obj = obj;
    s->gen++;
    t->used++;
    if (idx >= t->top) {
        t->top = idx + 1;
    }
    return true;
}

uint32_t qrnic_table_insert(struct qrnic_table *t, void *obj)
{
    uint32_t idx = find_free(t);

    if (!idx || !put(t, idx, obj)) {
        return 0;
    }
    t->next = idx + 1;
    return idx;
}

bool qrnic_table_insert_at(struct qrnic_table *t, uint32_t idx, void *obj)
{
    return idx < t->size && !qrnic_table_get(t, idx) && put(t, idx, obj);
}

void qrnic_table_replace(struct qrnic_table *t, uint32_t idx, void *obj)
{
    struct qrnic_table_slot *s = qrnic_table_slot(t, idx);

    if (s && s->obj) {
        s->obj = obj;
    }
}

void qrnic_table_remove(struct qrnic_table *t, uint32_t idx)
{
    struct qrnic_table_slot *s = qrnic_table_slot(t, idx);

    if (!s || !s->obj) {
        return;
    }
    s->obj = NULL;
    t->used--;
    if (!t->rotate && idx >= t->first && idx < t->next) {
        t->next = idx;
    }
}

uint16_t qrnic_table_gen(const struct qrnic_table *t, uint32_t idx)
{
    const struct qrnic_table_slot *s = qrnic_table_slot(t, idx);

    return s ? s->gen : 0;
}

void qrnic_table_set_gen(struct qrnic_table *t, uint32_t idx, uint16_t gen)
{
    struct qrnic_table_slot *s = qrnic_table_slot(t, idx);

    if (s) {
        s->gen = gen;
    }
}

uint32_t qrnic_table_next(const struct qrnic_table *t, uint32_t from)
{
    uint32_t i = from;

    if (!t->used || !t->chunk) {
        return t->size;
    }
    while (i < t->top) {
        const struct qrnic_table_slot *c = t->chunk[i / QRNIC_TABLE_CHUNK];

        if (!c) {
            i = (i / QRNIC_TABLE_CHUNK + 1) * QRNIC_TABLE_CHUNK;
            continue;
        }
        if (c[i % QRNIC_TABLE_CHUNK].obj) {
            return i;
        }
        i++;
    }
    return t->size;
}
