/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the object kinds, one row each: the handles a kind's table
 * hands out and how one of its objects is freed.  Every kind's objects are
 * created through qrnic_table_insert and freed by its release function,
 * on a destroy command and on a reset alike.
 *
 * Handles: QP indices 2.. (0 and 1 are the special QPs; the GSI QP takes
 * index 1), the others 1..; a PD's handle is its index.  QPs and keys
 * rotate through their indices, so a handle software has just released
 * is not the next one handed out.
 */
#include "qrnic_rdma.h"

struct qrnic_obj_type {
    const char *name;
    uint32_t first;
    uint32_t count;     /* objects unless the platform sets another limit */
    bool rotate;
    /* Frees one object, taking it out of its table. */
    void (*release)(struct qrnic_engine *e, void *obj);
    /* Whether other objects still use it (NULL: never refused). */
    bool (*busy)(const void *obj);
};

static bool cq_busy(const void *obj)
{
    return ((const struct qrnic_cqc *)obj)->nqp != 0;
}

static bool srq_busy(const void *obj)
{
    return ((const struct qrnic_srqc *)obj)->nqp != 0;
}

/* Keys, QPs and SRQs in the PD. */
static bool pd_busy(const void *obj)
{
    return ((const struct qrnic_pdc *)obj)->users != 0;
}

static const struct qrnic_obj_type obj_types[QRNIC_OBJ_COUNT] = {
    [QRNIC_OBJ_QP] = { "qp", 2, QRNIC_ENG_DEFAULT_QPS, true,
                       qrnic_qp_release, NULL },
    [QRNIC_OBJ_SRQ] = { "srq", 1, QRNIC_ENG_DEFAULT_SRQS, false,
                        qrnic_srq_release, srq_busy },
    [QRNIC_OBJ_KEY] = { "key", 1, QRNIC_ENG_DEFAULT_KEYS, true,
                        qrnic_key_release, NULL },
    [QRNIC_OBJ_CQ] = { "cq", 1, QRNIC_ENG_DEFAULT_CQS, false,
                       qrnic_cq_release, cq_busy },
    [QRNIC_OBJ_PD] = { "pd", 1, QRNIC_ENG_DEFAULT_PDS, false,
                       qrnic_pd_release, pd_busy },
};

static void objects_setup_kind(struct qrnic_engine *e,
                               enum qrnic_obj_kind kind, uint32_t count)
{
    const struct qrnic_obj_type *t = &obj_types[kind];
    uint32_t size = t->first + count;

    qrnic_table_setup(&e->obj[kind], t->name, t->first, size, t->rotate);
    if (kind == QRNIC_OBJ_QP) {
        e->qpn_idx_bits = QRNIC_ENG_MIN_QPN_IDX_BITS;
        while ((size - 1) >> e->qpn_idx_bits) {
            e->qpn_idx_bits++;
        }
    }
}

void qrnic_objects_setup(struct qrnic_engine *e)
{
    uint32_t k;

    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        objects_setup_kind(e, (enum qrnic_obj_kind)k, obj_types[k].count);
    }
}

int qrnic_objects_set_limit(struct qrnic_engine *e, enum qrnic_obj_kind kind,
                            uint32_t count)
{
    if (count < 1 || count > QRNIC_ENG_MAX_OBJECTS || e->obj[kind].used) {
        return -1;
    }
    qrnic_table_fini(&e->obj[kind]);
    objects_setup_kind(e, kind, count);
    return 0;
}

void qrnic_objects_free(struct qrnic_engine *e)
{
    uint32_t k, i;
    void *obj;

    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        QRNIC_TABLE_FOR_EACH(&e->obj[k], i, obj) {
            obj_types[k].release(e, obj);
        }
    }
}

void qrnic_objects_fini(struct qrnic_engine *e)
{
    uint32_t k;

    qrnic_objects_free(e);
    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        qrnic_table_fini(&e->obj[k]);
    }
}

enum qrnic_cmd_status qrnic_obj_destroy(struct qrnic_engine *e,
                                        enum qrnic_obj_kind kind,
                                        uint32_t idx)
{
    const struct qrnic_obj_type *t = &obj_types[kind];
    void *obj = qrnic_table_get(&e->obj[kind], idx);

    if (!obj) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (t->busy && t->busy(obj)) {
        return QRNIC_ST_BAD_STATE;
    }
    t->release(e, obj);
    return QRNIC_ST_OK;
}

uint32_t qrnic_obj_capacity(const struct qrnic_engine *e,
                            enum qrnic_obj_kind kind)
{
    return e->obj[kind].size - e->obj[kind].first;
}
