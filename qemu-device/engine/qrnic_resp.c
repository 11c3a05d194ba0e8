/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the RC and UC responder.  Requests are executed in PSN order as
 * they arrive (SEND into receive WQEs, RDMA WRITE into registered memory,
 * atomics at once).  READ responses and atomic ACKs are sent from
 * qrnic_resp_work() in PSN order from rd_res[]; an ACK or NAK goes out from
 * the packet path at once, unless replies are queued ahead of it, in which
 * case it follows them, so it never overtakes a reply before it.
 * UC requests take the same path without ACKs or NAKs: a lost packet, a
 * request that breaks the rules or finds no receive WQE drops the message,
 * and the responder resumes at the next message's first packet.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

/* max_dest_rd_atomic 0 grants none: every READ/atomic is then refused. */
static uint32_t rd_slots(const struct qrnic_qpc *qp)
{
    return qp->attr.max_dest_rd_atomic;
}

static void send_ack(struct qrnic_engine *e, struct qrnic_qpc *qp);
static struct qrnic_rd_res *next_reply(struct qrnic_qpc *qp);

/* The PD a READ reply's key belongs to: an XRC target's is the request's. */
static uint32_t reply_pdn(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                          const struct qrnic_rd_res *r)
{
    return qp->type == QRNIC_QPT_XRC_TGT ?
           qrnic_xrc_reply_pdn(e, qp, r->xrc_srqn) : qp->pdn;
}

/*
 * ACK or NAK psn.  With no READ/atomic reply queued before it, it goes out
 * from the packet path at once; otherwise it waits its turn behind them.
 */
static void queue_ack(struct qrnic_engine *e, struct qrnic_qpc *qp,
                      uint8_t syndrome, uint32_t psn)
{
    if (qp->type == QRNIC_QPT_UC) {
        return;                 /* UC acknowledges nothing */
    }
    qp->resp.ack_pending = true;
    qp->resp.ack_syndrome = syndrome;
    qp->resp.ack_psn = psn;
    if (qp->state != QRNIC_QPS_ERR && !next_reply(qp)) {
        send_ack(e, qp);
    } else {
        qrnic_sched_qp(e, qp);
    }
}

/* UC: forget the message in progress; its receive WQE serves the next. */
static void uc_drop_message(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    qp->resp.uc_drop = true;
    qp->resp.resp_msg = QRNIC_RESP_NONE;
    if (!qp->srq) {
        qp->resp.recv_active = false;    /* taken again from rq_ci */
    }
    e->stats.rx_drop++;
}

/*
 * NAK the request and end the QP (IBTA responder class B/C errors).  On a
 * UC QP a remote error drops the message; a local one (REM_OP: the
 * receive WQE or memory failed) still ends the QP.
 */
static void fatal_nak(struct qrnic_engine *e, struct qrnic_qpc *qp,
                      uint32_t psn, uint8_t code)
{
    if (code == QRNIC_NAK_REM_ACCESS) {
        qrnic_stat(e, QRNIC_STAT_REM_ACCESS_ERRS);
    }
    if (qp->type == QRNIC_QPT_UC && code != QRNIC_NAK_REM_OP) {
        uc_drop_message(e, qp);
        return;
    }
    queue_ack(e, qp, QRNIC_AETH_NAK | code, psn);
    qrnic_qp_error(e, qp, true);
}

/* A receive WQE it cannot use: complete it with status, NAK, error. */
static void recv_error(struct qrnic_engine *e, struct qrnic_qpc *qp,
                       const struct qrnic_rx *rx, enum qrnic_wc_status status,
                       enum qrnic_vendor_err verr, uint8_t nak_code)
{
    qrnic_recv_complete(e, qp, QRNIC_CQE_OP_RECV, status, verr, 0, rx);
    if (qp->type == QRNIC_QPT_UC) {
        qrnic_qp_error(e, qp, true);    /* no NAK to tell the requester */
        return;
    }
    fatal_nak(e, qp, rx->psn, nak_code);
}

static bool rnr(struct qrnic_engine *e, struct qrnic_qpc *qp,
                const struct qrnic_rx *rx)
{
    if (qp->resp.recv_active || qrnic_recv_ready(qp)) {
        return false;
    }
    if (qp->type == QRNIC_QPT_UC) {
        uc_drop_message(e, qp);     /* no receive WQE: the message is lost */
        return true;
    }
    qrnic_stat(e, QRNIC_STAT_RNR_NAKS_TX);
    qp->resp.nak_sent = true;
    queue_ack(e, qp, QRNIC_AETH_RNR_NAK | qp->attr.min_rnr_timer, rx->psn);
    return true;
}

static bool do_send(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    const struct qrnic_rx *rx)
{
    uint8_t verr;

    if (rx->opf & QRNIC_OPF_FIRST) {
        if (qp->resp.recv_active) {
            /* UC: the WQE a dropped message had taken, used again. */
            qp->resp.recv_off = 0;
        } else if (rnr(e, qp, rx)) {
            return false;
        } else {
            verr = qrnic_recv_take(e, qp);
            if (verr) {
                recv_error(e, qp, rx, QRNIC_WC_LOC_LEN_ERR, verr,
                           QRNIC_NAK_REM_OP);
                return false;
            }
        }
    }
    /* No message is longer than 2 GiB, so the offset cannot wrap. */
    if ((uint64_t)qp->resp.recv_off + rx->paylen > qp->resp.recv_sgl.total ||
        (uint64_t)qp->resp.recv_off + rx->paylen > QRNIC_MAX_MSG_SIZE) {
        recv_error(e, qp, rx, QRNIC_WC_LOC_LEN_ERR, QRNIC_VERR_MSG_TOO_LONG,
                   QRNIC_NAK_INVALID_REQ);
        return false;
    }
    verr = qrnic_sgl_copy(e, qp->resp.recv_pdn, &qp->resp.recv_sgl,
                          qp->resp.recv_off, (void *)rx->payload, rx->paylen,
                          true);
    if (verr) {
        recv_error(e, qp, rx, QRNIC_WC_LOC_PROT_ERR, verr, QRNIC_NAK_REM_OP);
        return false;
    }
    qp->resp.recv_off += rx->paylen;
    if ((rx->opf & QRNIC_OPF_IETH) &&
        !qrnic_key_invalidate(e, qp, rx->ieth, true)) {
        /*
         * As rxe (its class J): the data is placed, the receive completes
         * with REM_INV_REQ_ERR, the request is acknowledged as usual and
         * then the QP goes to ERR.
         */
        qrnic_recv_complete(e, qp, QRNIC_CQE_OP_RECV, QRNIC_WC_REM_INV_REQ_ERR,
                            QRNIC_VERR_BAD_KEY_OP, qp->resp.recv_off, rx);
        qp->resp.inv_failed = true;
    } else if (rx->opf & QRNIC_OPF_LAST) {
        qrnic_recv_complete(e, qp, QRNIC_CQE_OP_RECV, QRNIC_WC_SUCCESS,
                            QRNIC_VERR_NONE, qp->resp.recv_off, rx);
    }
    return true;
}

static bool do_write(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     const struct qrnic_rx *rx)
{
    bool imm = rx->opf & QRNIC_OPF_IMM;
    struct qrnic_mrc *mr;

    /* Every packet: an RTS->RTS modify may have revoked the right. */
    if (!(qp->attr.access & QRNIC_ACCESS_REMOTE_WRITE)) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    if (rx->opf & QRNIC_OPF_FIRST) {
        if (rx->dma_len &&
            qrnic_rkey_check(e, qp, rx->rkey, QRNIC_ACCESS_REMOTE_WRITE,
                             rx->va, rx->dma_len, &mr)) {
            fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
            return false;
        }
        if (imm && rnr(e, qp, rx)) {
            return false;
        }
        qp->resp.write_va = rx->va;
        qp->resp.write_rkey = rx->rkey;
        qp->resp.write_len = rx->dma_len;
        qp->resp.write_off = 0;
    } else if (imm && rnr(e, qp, rx)) {
        return false;
    }
    if ((uint64_t)qp->resp.write_off + rx->paylen > qp->resp.write_len ||
        ((rx->opf & QRNIC_OPF_LAST) &&
         qp->resp.write_off + rx->paylen != qp->resp.write_len)) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    if (rx->paylen) {
        uint64_t va = qp->resp.write_va + qp->resp.write_off;

        /* Checked again: the region may be gone since the first packet. */
        if (qrnic_rkey_check(e, qp, qp->resp.write_rkey,
                             QRNIC_ACCESS_REMOTE_WRITE, va, rx->paylen, &mr)) {
            fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
            return false;
        }
        if (!qrnic_mr_write(e, mr, va, rx->payload, rx->paylen)) {
            fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_OP);
            return false;
        }
    }
    qp->resp.write_off += rx->paylen;
    if (!(rx->opf & QRNIC_OPF_LAST)) {
        return true;
    }
    if (imm) {
        /* Only the WQE's wr_id is used: its SGEs do not matter. */
        if (!qp->resp.recv_active) {
            qrnic_recv_take(e, qp);
        }
        qrnic_recv_complete(e, qp, QRNIC_CQE_OP_RECV_RDMA_IMM,
                            QRNIC_WC_SUCCESS, QRNIC_VERR_NONE,
                            qp->resp.write_len, rx);
    } else {
        qrnic_event(e, &(struct qrnic_event){
            .kind = QRNIC_EV_WRITE_PLACED, .qpn = qp->qpn,
        });
    }
    return true;
}

/*
 * A slot for a READ/atomic reply; NULL if the oldest one's first reply is
 * still being sent: the requester then has more requests outstanding than
 * it was granted.  A replay for a duplicate gives way: a requester may
 * send request k + max_dest_rd_atomic once request k's reply reached it,
 * even if it had resent request k meanwhile.
 */
static struct qrnic_rd_res *rd_slot(struct qrnic_qpc *qp)
{
    struct qrnic_rd_res *r;

    if (!rd_slots(qp)) {
        return NULL;
    }
    r = &qp->resp.rd_res[qp->resp.rd_res_next % rd_slots(qp)];
    if (r->pending && !r->replay) {
        return NULL;
    }
    qp->resp.rd_res_next++;
    memset(r, 0, sizeof(*r));
    return r;
}

static bool do_read(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    const struct qrnic_rx *rx)
{
    struct qrnic_rd_res *r;
    struct qrnic_mrc *mr;

    if (!(qp->attr.access & QRNIC_ACCESS_REMOTE_READ) ||
        (rx->dma_len &&
         qrnic_rkey_check(e, qp, rx->rkey, QRNIC_ACCESS_REMOTE_READ,
                          rx->va, rx->dma_len, &mr))) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    r = rd_slot(qp);
    if (!r || rx->dma_len > QRNIC_MAX_MSG_SIZE) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    r->valid = true;
    r->pending = true;
    r->psn = rx->psn;
    r->xrc_srqn = rx->xrc_srqn;
    r->npkts = rx->dma_len ?
               (rx->dma_len + qp->attr.mtu - 1) / qp->attr.mtu : 1;
    r->rkey = rx->rkey;
    r->out_psn = rx->psn;
    r->out_va = rx->va;
    r->out_left = rx->dma_len;
    r->out_first = true;
    /* The caller adds one. */
    qp->resp.epsn = psn_add(qp->resp.epsn, r->npkts - 1);
    qrnic_sched_qp(e, qp);
    return true;
}

static bool do_atomic(struct qrnic_engine *e, struct qrnic_qpc *qp,
                      const struct qrnic_rx *rx)
{
    struct qrnic_rd_res *r;
    struct qrnic_mrc *mr;
    uint8_t v[8];
    uint64_t orig;

    if (!(qp->attr.access & QRNIC_ACCESS_REMOTE_ATOMIC) ||
        qrnic_rkey_check(e, qp, rx->rkey, QRNIC_ACCESS_REMOTE_ATOMIC,
                         rx->va, 8, &mr)) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    r = rd_slot(qp);
    if (!r || (rx->va & 7)) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return false;
    }
    if (!qrnic_mr_read(e, mr, rx->va, v, 8)) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_OP);
        return false;
    }
    orig = qrnic_ld64(v);
    if (rx->opcode == QRNIC_OP_FETCH_ADD) {
        qrnic_st64(v, orig + rx->swap_add);
    } else if (orig == rx->compare) {
        qrnic_st64(v, rx->swap_add);
    }
    if (!qrnic_mr_write(e, mr, rx->va, v, 8)) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_REM_OP);
        return false;
    }
    r->valid = true;
    r->atomic = true;
    r->pending = true;
    r->psn = rx->psn;
    r->out_psn = rx->psn;
    r->npkts = 1;
    r->orig = orig;
    qrnic_sched_qp(e, qp);
    return true;
}

/* A request with a PSN already executed. */
static void duplicate(struct qrnic_engine *e, struct qrnic_qpc *qp,
                      const struct qrnic_rx *rx)
{
    uint32_t i, n = rd_slots(qp);
    struct qrnic_mrc *mr;

    qrnic_stat(e, QRNIC_STAT_DUP_REQS);
    if (!(rx->opf & (QRNIC_OPF_READ | QRNIC_OPF_ATOMIC | QRNIC_OPF_FLUSH |
                     QRNIC_OPF_ATOMIC_WRITE))) {
        /*
         * SEND/WRITE: not executed again; acknowledged again where the
         * requester asks (AckReq, or a message's end), with the
         * duplicate's own PSN.  An ACK of the last PSN executed reaches a
         * requester that resends from an older one while it is still
         * resending: rdma_rxe then takes the message it is in the middle
         * of as acknowledged without completing it, stops its
         * retransmission timer, and never sends on that QP again.
         */
        if (rx->ackreq || (rx->opf & QRNIC_OPF_LAST)) {
            queue_ack(e, qp, QRNIC_AETH_ACK | QRNIC_AETH_CREDITS_INVALID,
                      rx->psn);
        }
        return;
    }
    for (i = 0; i < n; i++) {
        struct qrnic_rd_res *r = &qp->resp.rd_res[i];

        if (!r->valid || r->atomic != !!(rx->opf & QRNIC_OPF_ATOMIC) ||
            r->empty != !!(rx->opf & (QRNIC_OPF_FLUSH |
                                      QRNIC_OPF_ATOMIC_WRITE)) ||
            psn_diff(rx->psn, r->psn) < 0 ||
            psn_diff(rx->psn, psn_add(r->psn, r->npkts)) >= 0) {
            continue;
        }
        r->replay |= !r->pending;
        if (r->atomic || r->empty) {
            r->pending = true;      /* replay the saved result */
        } else {
            /* Executed again, so checked again, QP rights included. */
            if (!(qp->attr.access & QRNIC_ACCESS_REMOTE_READ) ||
                (rx->dma_len &&
                 qrnic_rkey_check_pd(e, qp, reply_pdn(e, qp, r), rx->rkey,
                                     QRNIC_ACCESS_REMOTE_READ, rx->va,
                                     rx->dma_len, &mr))) {
                return;
            }
            /*
             * Execute again from the duplicate's PSN and address, but
             * never past the PSNs the original request covered.
             */
            uint64_t room = (uint64_t)psn_diff(psn_add(r->psn, r->npkts),
                                               rx->psn) * qp->attr.mtu;

            r->pending = true;
            r->rkey = rx->rkey;
            r->out_psn = rx->psn;
            r->out_va = rx->va;
            r->out_left = rx->dma_len < room ? rx->dma_len : (uint32_t)room;
            r->out_first = true;
        }
        qrnic_sched_qp(e, qp);
        return;
    }
}

/* Does the packet fit the message in progress and the path MTU? */
static bool in_sequence(const struct qrnic_qpc *qp, const struct qrnic_rx *rx)
{
    uint32_t opf = rx->opf;

    switch (qp->resp.resp_msg) {
    case QRNIC_RESP_SEND:
        if (!(opf & QRNIC_OPF_SEND) || (opf & QRNIC_OPF_FIRST)) {
            return false;
        }
        break;
    case QRNIC_RESP_WRITE:
        if (!(opf & QRNIC_OPF_WRITE) || (opf & QRNIC_OPF_FIRST)) {
            return false;
        }
        break;
    default:
        if (!(opf & QRNIC_OPF_FIRST)) {
            return false;
        }
        break;
    }
    if (!(opf & QRNIC_OPF_PAYLOAD)) {
        return true;
    }
    if (!(opf & QRNIC_OPF_LAST)) {
        return rx->paylen == qp->attr.mtu;
    }
    return rx->paylen <= qp->attr.mtu &&
           (rx->paylen > 0 || (opf & QRNIC_OPF_FIRST));
}

/*
 * UC: nothing is resent, so a gap in the PSNs means lost packets.  The
 * message they belonged to is dropped; the responder takes up again at
 * the first packet of a message, whatever its PSN.  False: drop this one.
 */
static bool uc_sequence(struct qrnic_engine *e, struct qrnic_qpc *qp,
                        const struct qrnic_rx *rx)
{
    if (rx->psn != qp->resp.epsn && qp->resp.resp_msg != QRNIC_RESP_NONE) {
        uc_drop_message(e, qp);
    }
    if (rx->psn != qp->resp.epsn || qp->resp.uc_drop) {
        if (!(rx->opf & QRNIC_OPF_FIRST)) {
            qp->resp.uc_drop = true;
            qp->resp.epsn = psn_add(rx->psn, 1);
            e->stats.rx_drop++;
            return false;
        }
        qp->resp.uc_drop = false;
        qp->resp.epsn = rx->psn;
    }
    return true;
}

void qrnic_resp_rx(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   const struct qrnic_rx *rx)
{
    int32_t d;
    bool ok;

    if (qp->state != QRNIC_QPS_RTR && qp->state != QRNIC_QPS_RTS &&
        qp->state != QRNIC_QPS_SQD) {
        return;
    }
    if (qp->type == QRNIC_QPT_UC && !uc_sequence(e, qp, rx)) {
        return;
    }
    d = psn_diff(rx->psn, qp->resp.epsn);
    if (d < 0) {
        duplicate(e, qp, rx);
        return;
    }
    if (d > 0) {
        if (!qp->resp.nak_sent) {
            qp->resp.nak_sent = true;
            qrnic_stat(e, QRNIC_STAT_SEQ_NAKS_TX);
            queue_ack(e, qp, QRNIC_AETH_NAK | QRNIC_NAK_PSN_SEQ, qp->resp.epsn);
        }
        return;
    }
    qp->resp.nak_sent = false;
    if (!in_sequence(qp, rx) ||
        (qp->type == QRNIC_QPT_XRC_TGT && !qrnic_xrc_bind(e, qp, rx))) {
        fatal_nak(e, qp, rx->psn, QRNIC_NAK_INVALID_REQ);
        return;
    }
    if (rx->opf & QRNIC_OPF_SEND) {
        ok = do_send(e, qp, rx);
    } else if (rx->opf & QRNIC_OPF_WRITE) {
        ok = do_write(e, qp, rx);
    } else if (rx->opf & QRNIC_OPF_READ) {
        ok = do_read(e, qp, rx);
    } else if (rx->opf & (QRNIC_OPF_FLUSH | QRNIC_OPF_ATOMIC_WRITE)) {
        ok = qrnic_resp_flush_aw(e, qp, rx);
    } else {
        ok = do_atomic(e, qp, rx);
    }
    if (!ok) {
        return;
    }
    qp->resp.epsn = psn_add(qp->resp.epsn, 1);
    if (rx->opf & QRNIC_OPF_LAST) {
        qp->resp.msn = psn_add(qp->resp.msn, 1);
        qp->resp.resp_msg = QRNIC_RESP_NONE;
    } else {
        qp->resp.resp_msg = (rx->opf & QRNIC_OPF_SEND) ? QRNIC_RESP_SEND :
                       QRNIC_RESP_WRITE;
    }
    if (rx->ackreq && (rx->opf & (QRNIC_OPF_SEND | QRNIC_OPF_WRITE))) {
        queue_ack(e, qp, QRNIC_AETH_ACK | QRNIC_AETH_CREDITS_INVALID,
                  rx->psn);
    }
    if (qp->resp.inv_failed) {
        qp->resp.inv_failed = false;
        qrnic_qp_error(e, qp, true);
    }
}

/* ---- replies ------------------------------------------------------------- */

static void send_ack(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    uint8_t *f = e->roce_frame;
    size_t pos;

    pos = qrnic_wire_begin(e, qp, f, QRNIC_OP_ACK, qp->resp.ack_psn, false,
                           false);
    pos += qrnic_put_aeth(f + pos, qp->resp.ack_syndrome, qp->resp.msn);
    qrnic_tx(e, f, qrnic_wire_finish(qp, f, pos));
    qp->resp.ack_pending = false;
}

static void send_atomic_ack(struct qrnic_engine *e, struct qrnic_qpc *qp,
                            struct qrnic_rd_res *r)
{
    uint8_t *f = e->roce_frame;
    size_t pos;

    pos = qrnic_wire_begin(e, qp, f, QRNIC_OP_ATOMIC_ACK, r->psn, false,
                           false);
    pos += qrnic_put_aeth(f + pos, QRNIC_AETH_ACK |
                          QRNIC_AETH_CREDITS_INVALID, qp->resp.msn);
    qrnic_st64_be(f + pos, r->orig);
    pos += QRNIC_ATOMIC_ACK_LEN;
    qrnic_tx(e, f, qrnic_wire_finish(qp, f, pos));
    r->pending = false;
}

/* One READ response packet; false if the region went away meanwhile. */
static bool send_read_response(struct qrnic_engine *e, struct qrnic_qpc *qp,
                               struct qrnic_rd_res *r)
{
    uint32_t n = r->out_left < qp->attr.mtu ? r->out_left : qp->attr.mtu;
    bool first = r->out_first, last = n == r->out_left;
    uint8_t *f = e->roce_frame;
    struct qrnic_mrc *mr;
    uint8_t opcode;
    size_t pos;

    if (first && last) {
        opcode = QRNIC_OP_READ_RESP_ONLY;
    } else if (first) {
        opcode = QRNIC_OP_READ_RESP_FIRST;
    } else {
        opcode = last ? QRNIC_OP_READ_RESP_LAST : QRNIC_OP_READ_RESP_MIDDLE;
    }
    pos = qrnic_wire_begin(e, qp, f, opcode, r->out_psn, false, false);
    if (qrnic_op_flags(opcode) & QRNIC_OPF_AETH) {
        pos += qrnic_put_aeth(f + pos, QRNIC_AETH_ACK |
                              QRNIC_AETH_CREDITS_INVALID, qp->resp.msn);
    }
    if (!(qp->attr.access & QRNIC_ACCESS_REMOTE_READ) ||
        (n && (qrnic_rkey_check_pd(e, qp, reply_pdn(e, qp, r), r->rkey,
                                   QRNIC_ACCESS_REMOTE_READ, r->out_va, n,
                                   &mr) ||
               !qrnic_mr_read(e, mr, r->out_va, f + pos, n)))) {
        r->pending = false;
        fatal_nak(e, qp, r->out_psn, QRNIC_NAK_REM_ACCESS);
        return false;
    }
    qrnic_tx(e, f, qrnic_wire_finish(qp, f, pos + n));
    r->out_psn = psn_add(r->out_psn, 1);
    r->out_va += n;
    r->out_left -= n;
    r->out_first = false;
    if (last) {
        r->pending = false;
    }
    return true;
}

/* The oldest reply still to send (slots are taken in PSN order). */
static struct qrnic_rd_res *next_reply(struct qrnic_qpc *qp)
{
    uint32_t n = rd_slots(qp), i;
    struct qrnic_rd_res *best = NULL;

    for (i = 0; i < n; i++) {
        struct qrnic_rd_res *r = &qp->resp.rd_res[i];

        if (r->pending && (!best || psn_diff(r->out_psn, best->out_psn) < 0)) {
            best = r;
        }
    }
    return best;
}

bool qrnic_resp_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint32_t budget)
{
    struct qrnic_rd_res *r;

    if (qp->state == QRNIC_QPS_ERR) {
        if (qp->resp.ack_pending) {
            send_ack(e, qp);    /* the NAK that ended the QP */
        }
        return false;
    }
    if (qp->state != QRNIC_QPS_RTR && qp->state != QRNIC_QPS_RTS &&
        qp->state != QRNIC_QPS_SQD) {
        return false;
    }
    while (budget && (r = next_reply(qp))) {
        if (qrnic_loopback_busy(e, qp->attr.dmac)) {
            return true;        /* again after the backlog's turn */
        }
        if (r->atomic) {
            send_atomic_ack(e, qp, r);
        } else if (r->empty) {
            qrnic_flush_reply(e, qp, r);
        } else if (!send_read_response(e, qp, r)) {
            return false;
        }
        if (!r->pending) {
            qrnic_event(e, &(struct qrnic_event){
                .kind = QRNIC_EV_REPLY_SENT, .qpn = qp->qpn,
            });
        }
        budget--;
    }
    if (!budget) {
        return true;
    }
    if (qp->resp.ack_pending) {
        send_ack(e, qp);
    }
    return false;
}

void qrnic_resp_fatal_nak(struct qrnic_engine *e, struct qrnic_qpc *qp,
                          uint32_t psn, uint8_t code)
{
    fatal_nak(e, qp, psn, code);
}

struct qrnic_rd_res *qrnic_resp_rd_slot(struct qrnic_qpc *qp)
{
    return rd_slot(qp);
}
