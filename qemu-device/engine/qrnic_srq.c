/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: shared receive queues, and where a QP's receive WQEs come
 * from (its own RQ or its SRQ).  An SRQ is a receive ring in queue memory;
 * QPs take its WQEs in ring order when a message starts, and each taken
 * WQE belongs to its QP until the completion.  Taking one that leaves
 * fewer WQEs than the armed limit posts QRNIC_EVENT_SRQ_LIMIT once.
 * MODIFY_SRQ RESIZE moves the WQEs not yet taken to a new ring.  An XRC
 * SRQ also names the CQ its receives complete on (qrnic_xrc.c).
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

struct qrnic_srqc *qrnic_srq_get(struct qrnic_engine *e, uint32_t srqn)
{
    return qrnic_table_get(&e->obj[QRNIC_OBJ_SRQ], srqn);
}

static uint32_t srq_owner(const struct qrnic_engine *e, uint32_t srqn)
{
    return e->obj[QRNIC_OBJ_QP].size + srqn;
}

enum qrnic_cmd_status qrnic_cmd_create_srq(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t uctx = qrnic_get32(&cmd->create_srq.uctx);
    uint32_t pdn = qrnic_get32(&cmd->create_srq.pdn);
    uint32_t off = qrnic_get32(&cmd->create_srq.offset);
    uint32_t limit = qrnic_get32(&cmd->create_srq.limit);
    uint8_t ld = cmd->create_srq.log_depth;
    uint8_t ls = cmd->create_srq.log_stride;
    uint32_t xrcd = qrnic_get32(&cmd->create_srq.xrcd);
    uint32_t cqn = qrnic_get32(&cmd->create_srq.cqn);
    struct qrnic_cqc *cq = qrnic_cq_get(e, cqn);
    struct qrnic_srqc *srq;
    enum qrnic_cmd_status st;

    if ((uctx != 0 && !qrnic_uctx_exists(e, uctx)) ||
        !qrnic_pd_of(e, pdn, uctx) ||
        (xrcd && (!cq || cq->uctx != uctx))) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (xrcd > QRNIC_XRCD_MASK || (!xrcd && cqn)) {
        return QRNIC_ST_BAD_PARAM;      /* only an XRC SRQ names a CQ */
    }
    if (ld > QRNIC_QP_MAX_LOG || ls < QRNIC_RQ_MIN_LOG_STRIDE ||
        ls > QRNIC_RQ_MAX_LOG_STRIDE || limit >= (1u << ld) ||
        !qrnic_field_zero(cmd->create_srq.rsvd) ||
        (uint64_t)qrnic_qmem_pages(ld, ls) * QRNIC_QMEM_PAGE_SIZE >
        QRNIC_ENG_MAX_QP_QMEM) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (!e->qmem) {
        return QRNIC_ST_NO_RESOURCES;
    }
    if (!qrnic_qmem_free_range(e, off, qrnic_qmem_pages(ld, ls))) {
        return QRNIC_ST_BAD_PARAM;
    }
    st = qrnic_ctx_charge_obj(e, uctx, QRNIC_CTX_SRQ, QRNIC_CTX_QMEM_PAGES,
                              qrnic_qmem_pages(ld, ls));
    if (st != QRNIC_ST_OK) {
        return st;
    }
    srq = calloc(1, sizeof(*srq));
    if (srq) {
        srq->srqn = qrnic_table_insert(&e->obj[QRNIC_OBJ_SRQ], srq);
    }
    if (!srq || !srq->srqn) {
        free(srq);
        qrnic_ctx_uncharge_obj(e, uctx, QRNIC_CTX_SRQ, QRNIC_CTX_QMEM_PAGES,
                               qrnic_qmem_pages(ld, ls));
        return QRNIC_ST_NO_RESOURCES;
    }
    qrnic_qmem_claim(e, off, qrnic_qmem_pages(ld, ls), srq_owner(e, srq->srqn));
    srq->uctx = uctx;
    srq->pdn = pdn;
    srq->off = off;
    srq->log_depth = ld;
    srq->log_stride = ls;
    srq->limit = limit;
    srq->xrcd = xrcd;
    srq->cq = xrcd ? cq : NULL;
    if (srq->cq) {
        srq->cq->nqp++;
    }
    qrnic_pd_get(e, pdn)->users++;
    req->result0 = srq->srqn;
    return QRNIC_ST_OK;
}

/*
 * MODIFY_SRQ RESIZE: move the SRQ to a ring of 1 << ld WQEs at off (same
 * stride).  The WQEs posted and not taken (ci..pi-1) are copied from slot
 * i % old depth to slot i % new depth; the indexes stay.
 */
static enum qrnic_cmd_status
srq_resize(struct qrnic_engine *e, struct qrnic_srqc *srq,
           uint32_t off, uint8_t ld)
{
    uint8_t w[1u << QRNIC_RQ_MAX_LOG_STRIDE];
    uint32_t stride = 1u << srq->log_stride;
    uint32_t pages = qrnic_qmem_pages(ld, srq->log_stride);
    uint16_t i;
    enum qrnic_cmd_status st;

    if ((uint64_t)pages * QRNIC_QMEM_PAGE_SIZE > QRNIC_ENG_MAX_QP_QMEM ||
        !qrnic_qmem_free_range(e, off, pages)) {
        return QRNIC_ST_BAD_PARAM;
    }
    /* Both rings are the context's until the old one goes. */
    st = qrnic_ctx_charge(e, srq->uctx, QRNIC_CTX_QMEM_PAGES, pages);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    qrnic_qmem_claim(e, off, pages, srq_owner(e, srq->srqn));
    for (i = srq->ci; i != srq->pi; i++) {
        uint32_t from = i & ((1u << srq->log_depth) - 1);
        uint32_t to = i & ((1u << ld) - 1);

        qrnic_qmem_read(e, srq->off + ((uint64_t)from << srq->log_stride), w,
                        stride);
        memcpy(e->qmem + off + ((uint64_t)to << srq->log_stride), w, stride);
    }
    qrnic_qmem_release(e, srq->off,
                       qrnic_qmem_pages(srq->log_depth, srq->log_stride));
    qrnic_ctx_uncharge(e, srq->uctx, QRNIC_CTX_QMEM_PAGES,
                       qrnic_qmem_pages(srq->log_depth, srq->log_stride));
    srq->off = off;
    srq->log_depth = ld;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_modify_srq(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t srqn = qrnic_get32(&cmd->modify_srq.srqn);
    struct qrnic_srqc *srq = qrnic_srq_get(e, srqn);
    uint32_t limit = qrnic_get32(&cmd->modify_srq.limit);
    uint32_t mask = qrnic_get32(&cmd->modify_srq.mask);
    uint8_t ld = srq ? srq->log_depth : 0;
    enum qrnic_cmd_status st;

    if (!srq) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (!mask || (mask & ~(QRNIC_SRQ_MOD_LIMIT | QRNIC_SRQ_MOD_RESIZE)) ||
        !qrnic_field_zero(cmd->modify_srq.rsvd)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (mask & QRNIC_SRQ_MOD_RESIZE) {
        ld = cmd->modify_srq.log_depth;
        /* Every WQE not yet taken must fit. */
        if (ld > QRNIC_QP_MAX_LOG ||
            (uint16_t)(srq->pi - srq->ci) > (1u << ld)) {
            return QRNIC_ST_BAD_PARAM;
        }
    }
    /* The limit armed afterwards, new or current, is below the depth. */
    if ((mask & QRNIC_SRQ_MOD_LIMIT ? limit : srq->limit) >= (1u << ld)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (mask & QRNIC_SRQ_MOD_RESIZE) {
        st = srq_resize(e, srq, qrnic_get32(&cmd->modify_srq.offset), ld);
        if (st != QRNIC_ST_OK) {
            return st;
        }
    }
    if (mask & QRNIC_SRQ_MOD_LIMIT) {
        srq->limit = limit;
    }
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_query_srq(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_srqc *srq =
        qrnic_srq_get(e, qrnic_get32(&cmd->query_srq.srqn));

    if (!srq) {
        return QRNIC_ST_BAD_HANDLE;
    }
    req->result0 = srq->limit;
    req->result1 = (uint16_t)(srq->pi - srq->ci);
    return QRNIC_ST_OK;
}

void qrnic_srq_release(struct qrnic_engine *e, void *obj)
{
    struct qrnic_srqc *srq = obj;

    if (srq->xrcd) {
        qrnic_xrc_srq_gone(e, srq);
        srq->cq->nqp--;
    }
    qrnic_qmem_release(e, srq->off,
                       qrnic_qmem_pages(srq->log_depth, srq->log_stride));
    qrnic_pd_get(e, srq->pdn)->users--;
    qrnic_ctx_uncharge_obj(e, srq->uctx, QRNIC_CTX_SRQ, QRNIC_CTX_QMEM_PAGES,
                           qrnic_qmem_pages(srq->log_depth, srq->log_stride));
    qrnic_table_remove(&e->obj[QRNIC_OBJ_SRQ], srq->srqn);
    free(srq);
}

enum qrnic_cmd_status qrnic_cmd_destroy_srq(struct qrnic_engine *e,
                                            struct qrnic_cmd_req *req)
{
    return qrnic_obj_destroy(e, QRNIC_OBJ_SRQ,
                             qrnic_get32(&req->cmd->destroy_srq.srqn));
}

enum qrnic_guest_err qrnic_srq_doorbell(struct qrnic_engine *e, uint32_t page,
                                        uint64_t val)
{
    struct qrnic_srqc *srq = qrnic_srq_get(e, (uint32_t)val & QRNIC_DB_QN_MASK);
    uint16_t pi = (uint16_t)(val >> 32);

    if (!srq || srq->uctx != page) {
        return QRNIC_GUEST_ERR_DB_QUEUE;
    }
    if (((uint32_t)val & ~QRNIC_DB_QN_MASK) || (val >> 48)) {
        return QRNIC_GUEST_ERR_DB_VALUE;
    }
    if (!qrnic_pi_ok(srq->log_depth, srq->pi, pi, srq->ci)) {
        return QRNIC_GUEST_ERR_DB_INDEX;
    }
    srq->pi = pi;
    return QRNIC_GUEST_OK;
}

/* ---- a QP's receive WQEs ------------------------------------------------- */

bool qrnic_recv_ready(const struct qrnic_qpc *qp)
{
    return qp->srq ? qp->srq->pi != qp->srq->ci :
                     qp->resp.rq_ci != qp->resp.rq_pi;
}

enum qrnic_vendor_err
qrnic_recv_take(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    struct qrnic_srqc *srq = qp->srq;
    uint8_t verr;

    qp->resp.recv_active = true;
    qp->resp.recv_off = 0;
    if (!srq) {
        qp->resp.recv_idx = qp->resp.rq_ci;
        qp->resp.recv_pdn = qp->pdn;
        return qrnic_rqe_read(e, qp->rq_off, qp->log_rq, qp->log_rq_stride,
                              qp->resp.rq_ci, &qp->resp.recv_wr_id,
                              &qp->resp.recv_sgl);
    }
    qp->resp.recv_idx = srq->ci;
    qp->resp.recv_pdn = srq->pdn;
    verr = qrnic_rqe_read(e, srq->off, srq->log_depth, srq->log_stride,
                          srq->ci, &qp->resp.recv_wr_id, &qp->resp.recv_sgl);
    srq->ci++;
    if (srq->limit && (uint16_t)(srq->pi - srq->ci) < srq->limit) {
        srq->limit = 0;
        if (e->async_eqn >= 0) {
            qrnic_eq_post(e, (uint32_t)e->async_eqn, QRNIC_EVENT_SRQ_LIMIT,
                          srq->srqn, 0);
        }
    }
    return verr;
}

void qrnic_srq_wc(const struct qrnic_qpc *qp, struct qrnic_wc *wc)
{
    if (!qp->srq) {
        return;
    }
    wc->flags |= QRNIC_CQE_F_SRQ;
    if (qp->srq->xrcd) {
        wc->flags |= QRNIC_CQE_F_XRC;
        wc->src_qp = qp->srq->srqn;
    }
}

void qrnic_recv_done(struct qrnic_qpc *qp)
{
    if (!qp->srq) {
        qp->resp.rq_ci++;
    }
    qp->resp.recv_active = false;
}

void qrnic_recv_complete(struct qrnic_engine *e, struct qrnic_qpc *qp,
                         uint8_t opcode, enum qrnic_wc_status status,
                         enum qrnic_vendor_err verr,
                         uint32_t len, const struct qrnic_rx *rx)
{
    struct qrnic_wc wc;

    memset(&wc, 0, sizeof(wc));
    wc.wr_id = qp->resp.recv_wr_id;
    wc.byte_len = len;
    wc.qpn = qp->qpn;
    wc.wqe_idx = qp->resp.recv_idx;
    wc.opcode = opcode;
    wc.status = status;
    qrnic_srq_wc(qp, &wc);
    if (status != QRNIC_WC_SUCCESS) {
        wc.vendor_err = verr;
    } else {
        if (rx->opf & QRNIC_OPF_IMM) {
            wc.imm = rx->imm;
            wc.flags |= QRNIC_CQE_F_IMM;
        }
        if (rx->opf & QRNIC_OPF_IETH) {
            /* The key it invalidated, little endian in the CQE. */
            qrnic_st32((uint8_t *)&wc.imm, rx->ieth);
            wc.flags |= QRNIC_CQE_F_INV;
        }
        if (rx->se) {
            wc.flags |= QRNIC_CQE_F_SOLICITED;
        }
        if (rx->opf & QRNIC_OPF_DETH) {
            wc.src_qp = rx->src_qp;
            wc.flags |= QRNIC_CQE_F_GRH |
                        (rx->pkt.ipv6 ? 0 : QRNIC_CQE_F_IPV4);
        }
    }
    qrnic_cq_post(e, qp->rcq, &wc);
    qrnic_recv_done(qp);
}
