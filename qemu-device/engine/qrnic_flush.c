/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: RDMA FLUSH and RDMA ATOMIC WRITE (IBA 1.5 annex A19), RC
 * only, on the wire as Linux rxe sends and answers them.
 *
 * FLUSH (opcode 0x1c) carries a FETH (placement type, selectivity level)
 * and a RETH; ATOMIC WRITE (0x1d) a RETH and 8 bytes of payload.  Both
 * are answered by a zero-length RDMA READ RESPONSE ONLY with an ACK
 * syndrome at the request's PSN, and both take a responder resource
 * (max_dest_rd_atomic) like READ and atomics: a duplicate replays the
 * reply without executing again.  The requester counts both against
 * max_rd_atomic (rxe counts ATOMIC WRITE only).
 *
 * The responder executes requests in PSN order and its RDMA WRITEs are
 * synchronous DMA, so everything before a FLUSH is in guest memory when
 * the FLUSH arrives: it only checks rights and bounds.  Persistence is
 * not offered: a PERSISTENT FLUSH gets a remote access NAK.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

/* ---- requester ----------------------------------------------------------- */

enum qrnic_vendor_err qrnic_flush_wqe(const uint8_t *w, struct qrnic_wqe *q,
                                      enum qrnic_wc_status *status)
{
    uint64_t len;

    *status = QRNIC_WC_LOC_LEN_ERR;
    if (q->flags & QRNIC_WQE_F_INLINE) {
        return QRNIC_VERR_BAD_SGE;
    }
    /* No SGEs: num_sge is ignored. */
    q->sgl.num = 0;
    q->sgl.total = 0;
    if (q->opcode == QRNIC_WR_ATOMIC_WRITE) {
        q->length = 8;              /* compare_add, as the bytes it holds */
        return QRNIC_VERR_NONE;
    }
    q->remote_addr = qrnic_ld64(qrnic_wqe_at(w, flush.remote_addr));
    q->rkey = qrnic_ld32(qrnic_wqe_at(w, flush.rkey));
    q->flush_type = *qrnic_wqe_at(w, flush.type);
    q->flush_level = *qrnic_wqe_at(w, flush.level);
    len = qrnic_ld64(qrnic_wqe_at(w, flush.length));
    if (!q->flush_type ||
        (q->flush_type & ~(QRNIC_FLUSH_GLOBAL | QRNIC_FLUSH_PERSISTENT)) ||
        q->flush_level > QRNIC_FLUSH_MR) {
        *status = QRNIC_WC_LOC_QP_OP_ERR;
        return QRNIC_VERR_BAD_OPCODE;
    }
    if (q->flush_level == QRNIC_FLUSH_MR) {
        len = 0;                    /* the whole region: no range */
    } else if (len > QRNIC_MAX_MSG_SIZE) {
        return QRNIC_VERR_MSG_TOO_LONG;
    }
    q->length = (uint32_t)len;
    return QRNIC_VERR_NONE;
}

size_t qrnic_flush_request(struct qrnic_engine *e, struct qrnic_qpc *qp,
                           const struct qrnic_wqe *w, uint8_t *f,
                           uint32_t psn)
{
    size_t pos;

    if (w->opcode == QRNIC_WR_FLUSH) {
        pos = qrnic_wire_begin(e, qp, f, QRNIC_OP_FLUSH, psn, false, true);
        pos += qrnic_put_feth(f + pos, w->flush_type, w->flush_level);
        return pos + qrnic_put_reth(f + pos, w->remote_addr, w->rkey,
                                    w->length);
    }
    pos = qrnic_wire_begin(e, qp, f, QRNIC_OP_ATOMIC_WRITE, psn, false, true);
    pos += qrnic_put_reth(f + pos, w->remote_addr, w->rkey, 8);
    qrnic_st64(f + pos, w->compare_add);    /* the WQE's bytes, in order */
    return pos + 8;
}

/* ---- responder ----------------------------------------------------------- */

/* FLUSH: rights, bounds and a reply slot; nothing to write back. */
static bool do_flush(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     const struct qrnic_rx *rx)
{
    uint8_t level = rx->flush_level;
    struct qrnic_mrc *mr;
    uint8_t verr;

    /* No region is persistent memory: that right is never granted. */
    if (rx->flush_type & QRNIC_FLUSH_PERSISTENT) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    if (rx->flush_type != QRNIC_FLUSH_GLOBAL || level > QRNIC_FLUSH_MR ||
        (level == QRNIC_FLUSH_RANGE && rx->dma_len > QRNIC_MAX_MSG_SIZE)) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    /*
     * The QP must allow it as well as the region (rxe's
     * check_qp_attr_access()).  The MR level names the whole region: its
     * address and length are not looked at, only key, PD and right.
     */
    verr = qrnic_mr_check(e, rx->rkey, qp->pdn, QRNIC_ACCESS_FLUSH_GLOBAL,
                          rx->va, level == QRNIC_FLUSH_MR ? 0 : rx->dma_len,
                          &mr);
    if (!(qp->attr.access & QRNIC_ACCESS_FLUSH_GLOBAL) ||
        (verr && !(level == QRNIC_FLUSH_MR &&
                   verr == QRNIC_VERR_LKEY_BOUNDS))) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    return true;
}

/* ATOMIC WRITE: 8 bytes to an aligned address, in one DMA write. */
static bool do_atomic_write(struct qrnic_engine *e, struct qrnic_qpc *qp,
                            const struct qrnic_rx *rx, struct qrnic_mrc **mr)
{
    if (!(qp->attr.access & QRNIC_ACCESS_REMOTE_WRITE)) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    if (rx->dma_len != 8 || rx->paylen != 8) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    if (qrnic_mr_check(e, rx->rkey, qp->pdn, QRNIC_ACCESS_REMOTE_WRITE,
                       rx->va, 8, mr)) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    /* rxe: RESPST_ERR_MISALIGNED_ATOMIC, an invalid request NAK. */
    if (rx->va & 7) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    return true;
}

bool qrnic_resp_flush_aw(struct qrnic_engine *e, struct qrnic_qpc *qp,
                         const struct qrnic_rx *rx)
{
    bool flush = rx->opf & QRNIC_OPF_FLUSH;
    struct qrnic_mrc *mr = NULL;
    struct qrnic_rd_res *r;

    if (flush ? !do_flush(e, qp, rx) : !do_atomic_write(e, qp, rx, &mr)) {
        return false;
    }
    /* Its PSN is kept for a duplicate, which gets the reply again. */
    r = qrnic_resp_rd_slot(qp);
    if (!r) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    if (!flush && !qrnic_mr_write(e, mr, rx->va, rx->payload, 8)) {
        qrnic_resp_fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_OP);
        return false;
    }
    r->valid = true;
    r->empty = true;
    r->pending = true;
    r->psn = rx->psn;
    r->out_psn = rx->psn;
    r->npkts = 1;
    qrnic_sched_qp(e, qp);
    return true;
}

void qrnic_flush_reply(struct qrnic_engine *e, struct qrnic_qpc *qp,
                       struct qrnic_rd_res *r)
{
    uint8_t *f = e->roce_frame;
    size_t pos;

    pos = qrnic_wire_begin(e, qp, f, QRNIC_OP_READ_RESP_ONLY, r->out_psn,
                           false, false);
    pos += qrnic_put_aeth(f + pos, QRNIC_AETH_ACK |
                          QRNIC_AETH_CREDITS_INVALID, qp->resp.msn);
    qrnic_tx(e, f, qrnic_wire_finish(qp, f, pos));
    r->pending = false;
}
