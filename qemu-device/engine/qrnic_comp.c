/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the RC completer - what a requester does with responses.
 * ACKs acknowledge PSNs up to theirs, READ responses and atomic ACKs carry
 * data back, NAKs ask for retransmission (PSN sequence error), a wait
 * (RNR) or end the QP with an error.  Every response also acknowledges all
 * SEND/WRITE packets before it.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

static uint32_t last_psn(const struct qrnic_swqe *s)
{
    return psn_add(s->first_psn, s->npkts - 1);
}

/*
 * Answers to a READ/atomic went missing (a later PSN arrived): ask again
 * from the first missing one, once per gap - every later response would
 * otherwise restart the responder's reply.
 */
static void resend_gap(struct qrnic_engine *e, struct qrnic_qpc *qp,
                       uint32_t psn)
{
    if (qp->comp.gap_resent && qp->comp.gap_psn == psn) {
        return;
    }
    qp->comp.gap_resent = true;
    qp->comp.gap_psn = psn;
    qrnic_req_loss(e, qp, false);
    qrnic_req_rewind(e, qp, psn);
}

/*
 * Bring the WQEs in flight in line with the ACK watermark: SEND/WRITE
 * WQEs it covers are done; a READ/atomic it covers without an answer lost
 * its responses and is asked again.  Then the oldest PSN still owed an
 * answer moves forward and finished WQEs complete in order.
 */
static void settle(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    uint32_t una = qp->req.next_psn;
    bool found = false;
    uint16_t i;

    for (i = qp->req.sq_tail; i != qp->req.sq_head; i++) {
        struct qrnic_swqe *s = qrnic_swqe(qp, i);

        if (s->status != QRNIC_WC_SUCCESS) {
            if (!found) {
                una = s->first_psn;
            }
            break;
        }
        if (!s->done) {
            if (!qrnic_wr_is_rd_atomic(s->opcode)) {
                s->done = psn_diff(last_psn(s), qp->comp.ack_next) < 0;
            } else if (psn_diff(last_psn(s), qp->comp.ack_next) < 0 && !found) {
                resend_gap(e, qp, s->resp_psn);
            }
        }
        if (!s->done && !found) {
            found = true;
            uint32_t acked = qp->comp.ack_next;

            una = qrnic_wr_is_rd_atomic(s->opcode) ? s->resp_psn :
                  psn_diff(acked, s->first_psn) > 0 ? acked : s->first_psn;
        }
    }
    qrnic_req_advanced(e, qp, una);
    qrnic_req_progress(e, qp);
}

/* Everything up to psn (inclusive) is acknowledged. */
static void ack_upto(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint32_t psn)
{
    uint32_t next = psn_add(psn, 1);

    if (psn_diff(next, qp->comp.ack_next) > 0) {
        qp->comp.ack_next = next;
    }
    settle(e, qp);
}

/*
 * Acknowledge up to psn - 1, then find the started WQE holding psn; false
 * if there is none still waiting for an answer.
 */
static bool target(struct qrnic_engine *e, struct qrnic_qpc *qp, uint32_t psn,
                   uint16_t *idx)
{
    uint16_t i;

    ack_upto(e, qp, psn_add(psn, QRNIC_PSN_MASK));
    if (qp->state != QRNIC_QPS_RTS && qp->state != QRNIC_QPS_SQD) {
        return false;
    }
    for (i = qp->req.sq_tail; i != qp->req.sq_head; i++) {
        struct qrnic_swqe *s = qrnic_swqe(qp, i);

        if (psn_diff(psn, s->first_psn) >= 0 &&
            psn_diff(psn, psn_add(s->first_psn, s->npkts)) < 0) {
            *idx = i;
            return s->status == QRNIC_WC_SUCCESS && !s->done;
        }
    }
    return false;
}

static void nak(struct qrnic_engine *e, struct qrnic_qpc *qp,
                const struct qrnic_rx *rx)
{
    uint8_t kind = rx->syndrome & QRNIC_AETH_KIND_MASK;
    uint8_t code = rx->syndrome & QRNIC_AETH_VALUE_MASK;
    uint16_t idx;
    uint8_t status;

    if ((kind != QRNIC_AETH_RNR_NAK && kind != QRNIC_AETH_NAK) ||
        !target(e, qp, rx->psn, &idx)) {
        return;
    }
    if (kind == QRNIC_AETH_RNR_NAK) {
        qrnic_stat(e, QRNIC_STAT_RNR_NAKS_RX);
        if (idx == qp->req.sq_tail && !qp->comp.rnr_wait) {
            qrnic_req_rnr(e, qp, rx->psn, code);
        }
        return;
    }
    switch (code) {
    case QRNIC_NAK_PSN_SEQ:
        qrnic_stat(e, QRNIC_STAT_SEQ_NAKS_RX);
        qrnic_req_loss(e, qp, false);
        qrnic_req_rewind(e, qp, rx->psn);
        return;
    case QRNIC_NAK_INVALID_REQ:
        status = QRNIC_WC_REM_INV_REQ_ERR;
        break;
    case QRNIC_NAK_REM_ACCESS:
        status = QRNIC_WC_REM_ACCESS_ERR;
        break;
    case QRNIC_NAK_REM_OP:
        status = QRNIC_WC_REM_OP_ERR;
        break;
    default:
        return;                 /* reserved codes are ignored */
    }
    qrnic_req_fail(e, qp, idx, status, QRNIC_VERR_NAK);
}

/* Place returned bytes (READ data, atomic original value) locally. */
static bool deliver(struct qrnic_engine *e, struct qrnic_qpc *qp, uint16_t idx,
                    uint32_t off, const void *data, uint32_t len)
{
    struct qrnic_wqe w;
    uint8_t verr;

    verr = qrnic_req_wqe(e, qp, idx, &w);
    if (!verr && len) {
        verr = qrnic_sgl_copy(e, qp->pdn, &w.sgl, off, (void *)data, len,
                              true);
    }
    if (verr) {
        qrnic_req_fail(e, qp, idx, verr == QRNIC_VERR_BAD_OPCODE ?
                       QRNIC_WC_LOC_QP_OP_ERR : QRNIC_WC_LOC_PROT_ERR, verr);
        return false;
    }
    return true;
}

static void answered(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     struct qrnic_swqe *s)
{
    s->done = true;
    settle(e, qp);
    qrnic_sched_qp(e, qp);      /* a READ/atomic slot may be free */
}

static void read_response(struct qrnic_engine *e, struct qrnic_qpc *qp,
                          const struct qrnic_rx *rx)
{
    struct qrnic_swqe *s;
    uint32_t off, want;
    uint16_t idx;

    if (!target(e, qp, rx->psn, &idx)) {
        return;
    }
    s = qrnic_swqe(qp, idx);
    if (qrnic_wr_is_flush_aw(s->opcode)) {
        /* FLUSH, ATOMIC WRITE: answered by an empty RESPONSE ONLY. */
        if (rx->opcode != QRNIC_OP_READ_RESP_ONLY ||
            (rx->syndrome & QRNIC_AETH_KIND_MASK) != QRNIC_AETH_ACK) {
            return;
        }
        if (rx->paylen) {
            qrnic_req_fail(e, qp, idx, QRNIC_WC_BAD_RESP_ERR, QRNIC_VERR_NAK);
            return;
        }
        s->resp_psn = psn_add(s->resp_psn, 1);
        answered(e, qp, s);
        return;
    }
    if (s->opcode != QRNIC_WR_RDMA_READ) {
        return;                 /* not a READ's PSN: stale or bogus */
    }
    if (rx->psn != s->resp_psn) {
        if (psn_diff(rx->psn, s->resp_psn) > 0) {
            resend_gap(e, qp, s->resp_psn);         /* some went missing */
        }
        return;
    }
    off = (uint32_t)psn_diff(rx->psn, s->first_psn) * qp->attr.mtu;
    want = s->length - off < qp->attr.mtu ? s->length - off : qp->attr.mtu;
    if (rx->paylen != want) {
        qrnic_req_fail(e, qp, idx, QRNIC_WC_BAD_RESP_ERR, QRNIC_VERR_NAK);
        return;
    }
    if (!deliver(e, qp, idx, off, rx->payload, want)) {
        return;
    }
    s->resp_psn = psn_add(s->resp_psn, 1);
    if (s->resp_psn == psn_add(s->first_psn, s->npkts)) {
        answered(e, qp, s);
    } else {
        settle(e, qp);
    }
}

static void atomic_ack(struct qrnic_engine *e, struct qrnic_qpc *qp,
                       const struct qrnic_rx *rx)
{
    struct qrnic_swqe *s;
    uint8_t orig[8];
    uint16_t idx;

    if (!target(e, qp, rx->psn, &idx)) {
        return;
    }
    s = qrnic_swqe(qp, idx);
    if (s->opcode != QRNIC_WR_ATOMIC_CMP_AND_SWP &&
        s->opcode != QRNIC_WR_ATOMIC_FETCH_AND_ADD) {
        return;
    }
    qrnic_st64(orig, rx->orig);     /* to the guest's little endian */
    if (!deliver(e, qp, idx, 0, orig, sizeof(orig))) {
        return;
    }
    s->resp_psn = psn_add(s->resp_psn, 1);
    answered(e, qp, s);
}

void qrnic_comp_rx(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   const struct qrnic_rx *rx)
{
    /* Only PSNs this requester has used can be answered. */
    if (psn_diff(rx->psn, qp->req.next_psn) >= 0) {
        return;
    }
    switch (rx->opcode) {
    case QRNIC_OP_ACK:
        if ((rx->syndrome & QRNIC_AETH_KIND_MASK) == QRNIC_AETH_ACK) {
            ack_upto(e, qp, rx->psn);
        } else {
            nak(e, qp, rx);
        }
        break;
    case QRNIC_OP_ATOMIC_ACK:
        atomic_ack(e, qp, rx);
        break;
    default:
        read_response(e, qp, rx);
        break;
    }
}
