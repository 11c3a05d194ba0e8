/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: fast registration and invalidation.  ALLOC_MR reserves a
 * region of up to max_pages pages for a kernel PD, invalid; a REG_MR WQE
 * on a kernel QP of the PD gives it pages (read from the WQE's page
 * list), bounds, rights and a key byte; LOCAL_INV or a received
 * SEND_WITH_INV makes it invalid again (or unbinds a type 2 window).
 * qrnic_local_op() runs the WQEs that move no data when the requester
 * reaches them.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define REG(field) (w->args + (offsetof(struct qrnic_sq_wqe, reg_mr.field) - \
                               QRNIC_WQE_ARGS_OFF))

enum qrnic_cmd_status qrnic_cmd_alloc_mr(struct qrnic_engine *e,
                                         struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t pdn = qrnic_get32(&cmd->alloc_mr.pdn);
    uint32_t max_pages = qrnic_get32(&cmd->alloc_mr.max_pages);
    struct qrnic_mrc *mr;

    if (!qrnic_pd_exists(e, pdn)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (qrnic_pd_uctx(e, pdn) || max_pages == 0 ||
        max_pages > QRNIC_MAX_FAST_REG_PAGES) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (max_pages > e->mtt_max - e->mtt_used) {
        return QRNIC_ST_NO_RESOURCES;
    }
    mr = calloc(1, sizeof(*mr) + (size_t)max_pages * sizeof(uint64_t));
    if (mr) {
        mr->kind = QRNIC_KEY_FRMR;
        mr->pdn = pdn;
        mr->page_shift = QRNIC_MIN_PAGE_SHIFT;
        mr->mtt = max_pages;
    }
    return qrnic_key_add(e, mr, req);
}

/* REG_MR's arguments against the region; the page count in *npages. */
static bool reg_ok(const struct qrnic_qpc *qp, const struct qrnic_mrc *mr,
                   const struct qrnic_wqe *w, uint32_t *npages)
{
    uint32_t access = qrnic_ld32(REG(access));
    uint64_t iova = qrnic_ld64(REG(iova));
    uint64_t length = qrnic_ld64(REG(length));
    uint8_t shift = *REG(page_shift);

    *npages = qrnic_ld32(REG(npages));
    if (!mr || mr->kind != QRNIC_KEY_FRMR || mr->valid ||
        mr->pdn != qp->pdn) {
        return false;
    }
    if (!qrnic_mr_rights_ok(access, QRNIC_ACCESS_ALL & ~QRNIC_ACCESS_MW_BIND,
                            iova, length)) {
        return false;
    }
    if (shift < QRNIC_MIN_PAGE_SHIFT || shift > QRNIC_MAX_PAGE_SHIFT ||
        *npages == 0 || *npages > mr->mtt) {
        return false;
    }
    return qrnic_mr_pages_cover(iova, length, shift, *npages);
}

/* A REG_MR WQE (kernel QPs'): the region stays invalid on failure. */
static enum qrnic_wc_status
reg_mr(struct qrnic_engine *e, struct qrnic_qpc *qp,
       const struct qrnic_wqe *w, enum qrnic_vendor_err *verr)
{
    uint32_t key = qrnic_ld32(REG(key));
    struct qrnic_mrc *mr = qrnic_key_slot(e, key);
    struct qrnic_pbl pbl;
    uint32_t npages;
    enum qrnic_cmd_status st;

    *verr = QRNIC_VERR_BAD_KEY_OP;
    if (!reg_ok(qp, mr, w, &npages)) {
        return QRNIC_WC_LOC_QP_OP_ERR;
    }
    memset(&pbl, 0, sizeof(pbl));
    qrnic_put64(&pbl.addr, qrnic_ld64(REG(pbl_addr)));
    qrnic_put32(&pbl.npages, npages);
    pbl.levels = QRNIC_PBL_LEVEL1;
    pbl.page_shift = *REG(page_shift);
    st = qrnic_pbl_read(e, &pbl, mr->pages, npages);
    if (st != QRNIC_ST_OK) {
        *verr = st == QRNIC_ST_DMA_ERROR ? QRNIC_VERR_DMA :
                QRNIC_VERR_BAD_KEY_OP;
        return QRNIC_WC_LOC_QP_OP_ERR;
    }
    mr->key = key;
    mr->access = qrnic_ld32(REG(access));
    mr->iova = qrnic_ld64(REG(iova));
    mr->length = qrnic_ld64(REG(length));
    mr->page_shift = *REG(page_shift);
    mr->npages = npages;
    mr->valid = true;
    *verr = QRNIC_VERR_NONE;
    return QRNIC_WC_SUCCESS;
}

bool qrnic_key_invalidate(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                          uint32_t key, bool remote)
{
    struct qrnic_mrc *mr = qrnic_key_slot(e, key);

    if (!mr || mr->key != key || !mr->valid || mr->pdn != qp->pdn) {
        return false;
    }
    switch (mr->kind) {
    case QRNIC_KEY_FRMR:
        if (mr->nmw) {
            return false;       /* windows are bound to it */
        }
        mr->valid = false;
        mr->npages = 0;
        return true;
    case QRNIC_KEY_MW2:
        /* A remote invalidation only through the QP it serves. */
        if (remote && mr->qpn != qp->qpn) {
            return false;
        }
        qrnic_mw_unbind(e, mr);
        return true;
    default:
        return false;           /* REG_MR regions, type 1 windows */
    }
}

enum qrnic_wc_status
qrnic_local_op(struct qrnic_engine *e, struct qrnic_qpc *qp,
               const struct qrnic_wqe *w, enum qrnic_vendor_err *verr)
{
    switch (w->opcode) {
    case QRNIC_WR_BIND_MW:
        return qrnic_mw_bind(e, qp, w, verr);
    case QRNIC_WR_REG_MR:
        return reg_mr(e, qp, w, verr);
    default:
        if (!qrnic_key_invalidate(e, qp, qrnic_ld32((const uint8_t *)&w->imm),
                                  false)) {
            *verr = QRNIC_VERR_BAD_KEY_OP;
            return QRNIC_WC_LOC_QP_OP_ERR;
        }
        *verr = QRNIC_VERR_NONE;
        return QRNIC_WC_SUCCESS;
    }
}
