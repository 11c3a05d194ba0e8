/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: memory windows (type 1 and type 2B).  ALLOC_MW puts an
 * unbound window into the key table; a BIND_MW WQE, in its turn on the
 * send queue, binds it to a range of a region with remote rights of its
 * own.  An rkey naming a bound window reaches the region through it
 * (qrnic_rkey_check); a type 2 window only for requests arriving at the QP
 * that bound it.  Unbinding: a type 1 bind of length 0, LOCAL_INV or
 * SEND_WITH_INV of a type 2 window (qrnic_fastreg.c), DEALLOC_MW, and
 * DESTROY_QP for the type 2 windows the QP bound.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define BIND(field) (w->args + (offsetof(struct qrnic_sq_wqe, bind_mw.field) - \
                                QRNIC_WQE_ARGS_OFF))

enum qrnic_cmd_status qrnic_cmd_alloc_mw(struct qrnic_engine *e,
                                         struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t pdn = qrnic_get32(&cmd->alloc_mw.pdn);
    uint8_t type = cmd->alloc_mw.type;
    struct qrnic_mrc *mw;

    if (!qrnic_pd_exists(e, pdn)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (type != QRNIC_MW_TYPE_1 && type != QRNIC_MW_TYPE_2) {
        return QRNIC_ST_BAD_PARAM;
    }
    mw = calloc(1, sizeof(*mw));
    if (mw) {
        mw->kind = type == QRNIC_MW_TYPE_1 ? QRNIC_KEY_MW1 : QRNIC_KEY_MW2;
        mw->pdn = pdn;
    }
    return qrnic_key_add(e, mw, req);
}

enum qrnic_cmd_status qrnic_cmd_dealloc_mw(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t key = qrnic_get32(&cmd->dealloc_mw.key);
    struct qrnic_mrc *mw = qrnic_key_slot(e, key);

    if (!mw || !qrnic_key_is_mw(mw)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    qrnic_key_release(e, mw);     /* unbinds it first */
    return QRNIC_ST_OK;
}

void qrnic_mw_unbind(struct qrnic_engine *e, struct qrnic_mrc *mw)
{
    struct qrnic_mrc *mr;

    if (!mw->valid) {
        return;
    }
    /* Only a reset frees a region before the windows bound to it. */
    mr = qrnic_table_get(&e->obj[QRNIC_OBJ_KEY], mw->mr_idx);
    if (mr) {
        mr->nmw--;
    }
    if (mw->kind == QRNIC_KEY_MW2) {
        struct qrnic_qpc *qp = qrnic_qp_get(e, mw->qpn);

        if (qp) {
            qp->nmw2--;
        }
    }
    mw->valid = false;
    mw->access = 0;
    mw->iova = 0;
    mw->length = 0;
    mw->mr_idx = 0;
    mw->qpn = 0;
}

void qrnic_mw_qp_gone(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    struct qrnic_mrc *mw;
    uint32_t i;

    if (!qp->nmw2) {
        return;
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_KEY], i, mw) {
        if (mw->kind == QRNIC_KEY_MW2 && mw->valid && mw->qpn == qp->qpn) {
            qrnic_mw_unbind(e, mw);
        }
    }
}

/*
 * May the window be bound as the WQE asks?  The region (NULL for a type 1
 * unbind) is returned in *out.
 */
static bool bind_ok(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                    const struct qrnic_mrc *mw, const struct qrnic_wqe *w,
                    struct qrnic_mrc **out)
{
    uint32_t new_key = qrnic_ld32(BIND(new_key));
    uint64_t addr = qrnic_ld64(BIND(addr));
    uint64_t length = qrnic_ld64(BIND(length));
    uint32_t mr_key = qrnic_ld32(BIND(mr_key));
    uint32_t access = qrnic_ld32(BIND(access));
    struct qrnic_mrc *mr;

    *out = NULL;
    if (!mw || !qrnic_key_is_mw(mw) || mw->pdn != qp->pdn ||
        QRNIC_KEY_INDEX(new_key) != QRNIC_KEY_INDEX(mw->key) ||
        (access & ~QRNIC_ACCESS_REMOTE)) {
        return false;
    }
    if (mw->kind == QRNIC_KEY_MW2) {
        /* Only an unbound one, and never to nothing. */
        if (mw->valid || !length) {
            return false;
        }
    } else if (!length) {
        return true;            /* type 1: unbinds */
    }
    mr = qrnic_key_slot(e, mr_key);
    if (!mr || mr->key != mr_key || qrnic_key_is_mw(mr) || !mr->valid ||
        mr->pdn != qp->pdn || !(mr->access & QRNIC_ACCESS_MW_BIND)) {
        return false;
    }
    /* Writing through a window writes the region: it must allow that. */
    if ((access & (QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_ATOMIC)) &&
        !(mr->access & QRNIC_ACCESS_LOCAL_WRITE)) {
        return false;
    }
    if (!qrnic_mr_covers(mr, addr, length)) {
        return false;
    }
    *out = mr;
    return true;
}

enum qrnic_wc_status
qrnic_mw_bind(struct qrnic_engine *e, struct qrnic_qpc *qp,
              const struct qrnic_wqe *w, enum qrnic_vendor_err *verr)
{
    struct qrnic_mrc *mw = qrnic_key_slot(e, qrnic_ld32(BIND(mw_key)));
    struct qrnic_mrc *mr;

    if (mw && mw->key != qrnic_ld32(BIND(mw_key))) {
        mw = NULL;              /* the index, not the window's current key */
    }
    if (!bind_ok(e, qp, mw, w, &mr)) {
        *verr = QRNIC_VERR_BAD_KEY_OP;
        return QRNIC_WC_MW_BIND_ERR;
    }
    qrnic_mw_unbind(e, mw);     /* type 1: a rebind replaces the binding */
    mw->key = qrnic_ld32(BIND(new_key));
    if (mr) {
        mw->valid = true;
        mw->access = qrnic_ld32(BIND(access));
        mw->iova = qrnic_ld64(BIND(addr));
        mw->length = qrnic_ld64(BIND(length));
        mw->mr_idx = QRNIC_KEY_INDEX(mr->key);
        mr->nmw++;
        if (mw->kind == QRNIC_KEY_MW2) {
            mw->qpn = qp->qpn;
            qp->nmw2++;
        }
    }
    *verr = QRNIC_VERR_NONE;
    return QRNIC_WC_SUCCESS;
}
