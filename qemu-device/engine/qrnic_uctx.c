/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: user contexts and protection domains, and what each
 * context may hold.  A context id is its doorbell page (1..db_pages-1);
 * pdn from 1.  Every object a context creates is charged to
 * it by kind (enum qrnic_ctx_res) and refused with OVER_QUOTA beyond the
 * context's limit, so one context cannot take a table, the key space or
 * queue memory from the others or from the kernel (context 0, which has
 * no limit; user contexts together hold at most three quarters of each
 * table).  The limits are the platform's (ctx_max[], 0: the default, a
 * quarter of the device's table).
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

/* How many of a kind the device has in all. */
static uint32_t ctx_res_total(const struct qrnic_engine *e,
                              enum qrnic_ctx_res kind)
{
    switch (kind) {
    case QRNIC_CTX_PD:
        return qrnic_obj_capacity(e, QRNIC_OBJ_PD);
    case QRNIC_CTX_CQ:
        return qrnic_obj_capacity(e, QRNIC_OBJ_CQ);
    case QRNIC_CTX_QP:
        return qrnic_obj_capacity(e, QRNIC_OBJ_QP);
    case QRNIC_CTX_SRQ:
        return qrnic_obj_capacity(e, QRNIC_OBJ_SRQ);
    case QRNIC_CTX_MR:
    case QRNIC_CTX_MW:
        return qrnic_obj_capacity(e, QRNIC_OBJ_KEY);
    case QRNIC_CTX_QMEM_PAGES:
        return (uint32_t)(e->qmem_size / QRNIC_QMEM_PAGE_SIZE);
    case QRNIC_CTX_MR_PAGES:
        return e->mtt_max;
    case QRNIC_CTX_RES_COUNT:
        break;
    }
    return 0;
}

uint32_t qrnic_ctx_limit(const struct qrnic_engine *e, enum qrnic_ctx_res kind)
{
    return e->ctx_max[kind] ? e->ctx_max[kind] : ctx_res_total(e, kind) / 4;
}

/* All user contexts together: three quarters, the rest is the kernel's. */
static uint32_t users_limit(const struct qrnic_engine *e,
                            enum qrnic_ctx_res kind)
{
    uint32_t total = ctx_res_total(e, kind);

    return total - total / 4;
}

static bool fits(uint32_t used, uint32_t n, uint32_t limit)
{
    return used <= limit && n <= limit - used;
}

/* What user contexts hold of a kind's table (regions and windows: keys). */
static uint32_t users_used(const struct qrnic_engine *e,
                           enum qrnic_ctx_res kind)
{
    if (kind == QRNIC_CTX_MR || kind == QRNIC_CTX_MW) {
        return e->ctx_users_used[QRNIC_CTX_MR] +
               e->ctx_users_used[QRNIC_CTX_MW];
    }
    return e->ctx_users_used[kind];
}

enum qrnic_cmd_status qrnic_ctx_charge(struct qrnic_engine *e, uint32_t uctx,
                                       enum qrnic_ctx_res kind, uint32_t n)
{
    if (!uctx) {
        return QRNIC_ST_OK;
    }
    if (!fits(e->uctx[uctx].used[kind], n, qrnic_ctx_limit(e, kind)) ||
        !fits(users_used(e, kind), n, users_limit(e, kind))) {
        qrnic_stat(e, QRNIC_STAT_CTX_OVER_QUOTA);
        return QRNIC_ST_OVER_QUOTA;
    }
    qrnic_ctx_restore(e, uctx, kind, n);
    return QRNIC_ST_OK;
}

void qrnic_ctx_restore(struct qrnic_engine *e, uint32_t uctx,
                       enum qrnic_ctx_res kind, uint32_t n)
{
    if (uctx) {
        e->uctx[uctx].used[kind] += n;
        e->ctx_users_used[kind] += n;
    }
}

void qrnic_ctx_uncharge(struct qrnic_engine *e, uint32_t uctx,
                        enum qrnic_ctx_res kind, uint32_t n)
{
    if (uctx) {
        e->uctx[uctx].used[kind] -= n;
        e->ctx_users_used[kind] -= n;
    }
}

enum qrnic_cmd_status
qrnic_ctx_charge_obj(struct qrnic_engine *e, uint32_t uctx,
                     enum qrnic_ctx_res kind,
                     enum qrnic_ctx_res pages_kind, uint32_t pages)
{
    enum qrnic_cmd_status st = qrnic_ctx_charge(e, uctx, kind, 1);

    if (st == QRNIC_ST_OK) {
        st = qrnic_ctx_charge(e, uctx, pages_kind, pages);
        if (st != QRNIC_ST_OK) {
            qrnic_ctx_uncharge(e, uctx, kind, 1);
        }
    }
    return st;
}

void qrnic_ctx_uncharge_obj(struct qrnic_engine *e, uint32_t uctx,
                            enum qrnic_ctx_res kind,
                            enum qrnic_ctx_res pages_kind, uint32_t pages)
{
    qrnic_ctx_uncharge(e, uctx, kind, 1);
    qrnic_ctx_uncharge(e, uctx, pages_kind, pages);
}

enum qrnic_cmd_status qrnic_cmd_alloc_uctx(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    uint32_t i;

    for (i = 1; i < e->db_pages; i++) {
        if (!e->uctx[i].valid) {
            memset(&e->uctx[i], 0, sizeof(e->uctx[i]));
            e->uctx[i].valid = true;
            req->result0 = i;
            req->result1 = i;
            return QRNIC_ST_OK;
        }
    }
    return QRNIC_ST_NO_RESOURCES;
}

enum qrnic_cmd_status qrnic_cmd_dealloc_uctx(struct qrnic_engine *e,
                                             struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t uctx = qrnic_get32(&cmd->dealloc_uctx.uctx);
    uint32_t k;

    if (!qrnic_uctx_exists(e, uctx)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    for (k = 0; k < QRNIC_CTX_RES_COUNT; k++) {
        if (e->uctx[uctx].used[k]) {
            return QRNIC_ST_BAD_STATE;  /* it still owns objects */
        }
    }
    e->uctx[uctx].valid = false;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_alloc_pd(struct qrnic_engine *e,
                                         struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t uctx = qrnic_get32(&cmd->alloc_pd.uctx);
    struct qrnic_pdc *pd;
    enum qrnic_cmd_status st;

    if (uctx != 0 && !qrnic_uctx_exists(e, uctx)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    st = qrnic_ctx_charge(e, uctx, QRNIC_CTX_PD, 1);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    pd = calloc(1, sizeof(*pd));
    if (pd) {
        pd->uctx = uctx;
        pd->pdn = qrnic_table_insert(&e->obj[QRNIC_OBJ_PD], pd);
    }
    if (!pd || !pd->pdn) {
        free(pd);
        qrnic_ctx_uncharge(e, uctx, QRNIC_CTX_PD, 1);
        return QRNIC_ST_NO_RESOURCES;
    }
    req->result0 = pd->pdn;
    return QRNIC_ST_OK;
}

void qrnic_pd_release(struct qrnic_engine *e, void *obj)
{
    struct qrnic_pdc *pd = obj;

    qrnic_ctx_uncharge(e, pd->uctx, QRNIC_CTX_PD, 1);
    qrnic_table_remove(&e->obj[QRNIC_OBJ_PD], pd->pdn);
    free(pd);
}

enum qrnic_cmd_status qrnic_cmd_dealloc_pd(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    return qrnic_obj_destroy(e, QRNIC_OBJ_PD,
                             qrnic_get32(&req->cmd->dealloc_pd.pdn));
}

/* Every object is gone (qrnic_sched_unlink took QPs' packets off the count). */
void qrnic_uctx_reset(struct qrnic_engine *e)
{
    memset(e->uctx, 0, sizeof(e->uctx));
    memset(e->ctx_users_used, 0, sizeof(e->ctx_users_used));
}
