/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the RC requester.  It starts send WQEs in order, gives each
 * its PSNs, cuts messages into path-MTU packets and keeps within the
 * device's congestion window (qrnic_sched.c) of unacknowledged PSNs.  The
 * completer (qrnic_comp.c) marks WQEs done or failed; qrnic_req_progress()
 * completes them in order.  Retransmission rewinds a cursor (sq_cur,
 * tx_psn) and re-reads the WQE from queue memory, so nothing but a small
 * per-slot record is kept per WQE.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define READ_CHUNK_PKTS (QRNIC_INIT_CWND)

uint32_t qrnic_pkt_cost(uint32_t mtu)
{
    uint32_t c = 1024;

    while (c < mtu + QRNIC_PKT_OVERHEAD) {
        c <<= 1;
    }
    return c;
}

/*
 * Packets in flight: the QP's congestion window (qrnic_sched.c), within
 * the device's byte and packet caps.
 */
static uint32_t qrnic_req_window(const struct qrnic_engine *e,
                                 const struct qrnic_qpc *qp)
{
    return qrnic_cc_window(e, qp);
}

/* A loss shrinks the QP's own window. */
void qrnic_req_loss(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    bool timeout)
{
    qrnic_cc_loss(e, qp, timeout);
}

/*
 * Packets sent and not yet answered: only then do the timers run.  A QP
 * whose message waits for room in the window has none, and loses no
 * retry meanwhile.
 */
static bool in_flight(const struct qrnic_qpc *qp)
{
    return psn_diff(qp->req.sent_psn, qp->comp.una_psn) > 0;
}

static uint64_t rto_ns(const struct qrnic_qpc *qp)
{
    uint64_t t = 4096ull << qp->attr.timeout;

    return t > QRNIC_MIN_RTO_NS ? t : QRNIC_MIN_RTO_NS;
}

/*
 * The probe time: a multiple of the round trip (qrnic_cc_probe_ns), but a
 * quarter of the retransmission timeout at most, so starvation is found
 * before the retries run out whatever the estimate says.
 */
static uint64_t probe_ns(const struct qrnic_engine *e,
                         const struct qrnic_qpc *qp)
{
    uint64_t pto = qrnic_cc_probe_ns(e, qp);
    uint64_t cap = qp->attr.timeout ? rto_ns(qp) / 4 : UINT64_MAX;

    cap = cap > QRNIC_PROBE_NS ? cap : QRNIC_PROBE_NS;
    return pto < cap ? pto : cap;
}

/*
 * (Re)start the retransmission timer from now, with a tail loss probe
 * before it when that comes sooner.  Timeout 0 is an infinite timeout:
 * no retransmission timer, but the probes run (they spend no retry).  UC
 * resends nothing, so it has neither.
 */
static void arm_timers(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    uint64_t now = e->ops->now_ns(e->opaque), rto = rto_ns(qp);
    uint64_t pto = probe_ns(e, qp);

    if (qp->type == QRNIC_QPT_UC) {
        return;
    }
    qp->comp.wait_since = now;
    qp->comp.rto_deadline = qp->attr.timeout ? now + rto : 0;
    qp->comp.probe_deadline = !qp->attr.timeout || rto > 2 * pto ?
                              now + pto : 0;
    qrnic_sched_timer(e, qp);
}

/* Nothing is outstanding: no retransmission timer, no probe. */
static void disarm_timers(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    qp->comp.rto_deadline = qp->comp.probe_deadline = 0;
    qrnic_sched_timer(e, qp);
}

/*
 * Nothing came back for a probe time.  If other QPs progressed meanwhile,
 * the peer is working, just not on this QP: it is starved, and the others
 * hold back (qrnic_cc_starved); nothing is resent.  Otherwise, or at the
 * next expiry, the last packets may be lost with nothing behind them to
 * draw a NAK, or the answer is just late: first resend only the last
 * packet sent, asking for an ACK (a duplicate draws an ACK, a gap before
 * it a NAK); if that changes nothing, resend from the oldest
 * unacknowledged PSN, and again at each further expiry, the probe time
 * doubling each time.  None spends the retry counter (like adaptive
 * retransmission on real NICs): with 10% drop at each end, each way, a
 * resent READ request and the first answer to it both arrive only about
 * 6 times in 10, too few for one try per retransmission timeout.
 * READ/atomic requests in flight go straight to the full resend.  The
 * timer runs on until the retransmission timer, for the starvation check.
 */
static void probe_expired(struct qrnic_engine *e, struct qrnic_qpc *qp,
                          uint64_t now)
{
    uint64_t pto = probe_ns(e, qp);

    if (qrnic_cc_starved(e, qp)) {
        /* not lost, only waiting */
    } else if (!qp->comp.probe_stage && !qp->req.rd_inflight) {
        bool timing = qp->comp.rtt_timing;

        qp->comp.probe_stage = 1;
        qp->req.ack_now = true;     /* the copy must draw an answer */
        qrnic_req_rewind(e, qp, psn_add(qp->req.sent_psn, QRNIC_PSN_MASK));
        /*
         * The round trip being timed still counts: the peer takes a QP's
         * packets in order, so the original's answer comes first.  Were
         * it dropped, the estimate would keep only the quick answers and
         * miss exactly the slow ones that let the probe fire.
         */
        qp->comp.rtt_timing = timing;
    } else {
        uint8_t stage = qp->comp.probe_stage;

        qp->comp.probe_stage = stage < 2 ? 2 : stage < 18 ? stage + 1 : 18;
        qrnic_req_loss(e, qp, false);
        qrnic_req_rewind(e, qp, qp->comp.una_psn);
        qrnic_cc_lost(e, qp);
        qp->comp.gap_resent = false;     /* a gap in its answer asks again */
    }
    /* Each further resend waits twice as long, until the timeout. */
    if (qp->comp.probe_stage > 2) {
        pto <<= qp->comp.probe_stage - 2 < 16 ? qp->comp.probe_stage - 2 : 16;
    }
    if (!qp->comp.rto_deadline || qp->comp.rto_deadline > now + pto) {
        qp->comp.probe_deadline = now + pto;
    }
}

static uint32_t msg_pkts(const struct qrnic_qpc *qp, uint32_t length)
{
    return length ? (length + qp->attr.mtu - 1) / qp->attr.mtu : 1;
}

/* Opcodes a connected QP of this type (and owner) takes. */
static bool opcode_ok(const struct qrnic_qpc *qp,
                      const struct qrnic_wr_info *info)
{
    return (info->qp_types & QRNIC_WR_QPT(qp->type)) &&
           !(qp->uctx && (info->props & QRNIC_WR_P_KERNEL));
}

/*
 * Decode and check the send WQE in slot idx.  Returns QRNIC_VERR_* and
 * the completion status it calls for.
 */
static enum qrnic_vendor_err
fetch_wqe(struct qrnic_engine *e, struct qrnic_qpc *qp,
          uint16_t idx, struct qrnic_wqe *q, enum qrnic_wc_status *status)
{
    uint8_t w[1u << QRNIC_SQ_MAX_LOG_STRIDE];
    uint32_t stride = 1u << qp->log_sq_stride;
    uint32_t room = stride - sizeof(struct qrnic_sq_wqe);
    uint32_t max_sge = room / sizeof(struct qrnic_sge);
    struct qrnic_wr_info info;
    uint8_t num_sge, verr;

    qrnic_qp_sq_read(e, qp, idx, w, stride);
    q->wr_id = qrnic_ld64(qrnic_wqe_at(w, wr_id));
    q->opcode = *qrnic_wqe_at(w, opcode);
    info = qrnic_wr_info(q->opcode);
    q->props = info.props;
    q->flags = *qrnic_wqe_at(w, flags);
    memcpy(&q->imm, qrnic_wqe_at(w, imm_data), 4);
    q->remote_addr = qrnic_ld64(qrnic_wqe_at(w, remote_addr));
    q->rkey = qrnic_ld32(qrnic_wqe_at(w, rkey));
    q->compare_add = qrnic_ld64(qrnic_wqe_at(w, compare_add));
    q->swap = qrnic_ld64(qrnic_wqe_at(w, swap));
    q->xrc_srqn = qrnic_ld32(qrnic_wqe_at(w, xrc_srqn));
    q->sgl.num = 0;
    q->sgl.total = 0;
    q->inline_len = 0;
    num_sge = *qrnic_wqe_at(w, num_sge);

    *status = QRNIC_WC_LOC_QP_OP_ERR;
    if (!opcode_ok(qp, &info) ||
        (q->flags & ~(QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_SOLICITED |
                      QRNIC_WQE_F_INLINE | QRNIC_WQE_F_FENCE))) {
        return QRNIC_VERR_BAD_OPCODE;
    }
    if (qp->type == QRNIC_QPT_XRC_INI && q->xrc_srqn > QRNIC_PSN_MASK) {
        return QRNIC_VERR_BAD_AV;       /* XRCETH holds 24 bits */
    }
    if (qrnic_wr_props_flush_aw(q->props)) {
        return qrnic_flush_wqe(w, q, status);
    }
    if (q->props & QRNIC_WR_P_LOCAL) {
        /* No data: their own fields, no SGEs. */
        memcpy(q->args, w + QRNIC_WQE_ARGS_OFF, QRNIC_WQE_ARGS);
        q->length = 0;
        return QRNIC_VERR_NONE;
    }
    *status = QRNIC_WC_LOC_LEN_ERR;
    if (q->flags & QRNIC_WQE_F_INLINE) {
        q->inline_len = qrnic_ld32(qrnic_wqe_at(w, inline_len));
        if ((q->props & QRNIC_WR_P_RESPONSE) || q->inline_len > room ||
            q->inline_len > QRNIC_MAX_INLINE) {
            return QRNIC_VERR_BAD_SGE;
        }
        memcpy(q->inline_data, w + sizeof(struct qrnic_sq_wqe),
               q->inline_len);
        q->length = q->inline_len;
        return QRNIC_VERR_NONE;
    }
    if (num_sge > max_sge || num_sge > QRNIC_MAX_SGE) {
        return QRNIC_VERR_BAD_SGE;
    }
    qrnic_sgl_decode(&q->sgl, w + sizeof(struct qrnic_sq_wqe), num_sge);
    if (q->sgl.total > QRNIC_MAX_MSG_SIZE) {
        return QRNIC_VERR_MSG_TOO_LONG;
    }
    q->length = (uint32_t)q->sgl.total;
    if ((q->props & QRNIC_WR_P_ATOMIC) && q->length != 8) {
        return QRNIC_VERR_BAD_SGE;
    }
    /* Data the device writes locally (READ, atomic result) needs it. */
    verr = qrnic_sgl_check(e, qp->pdn, &q->sgl,
                           q->props & QRNIC_WR_P_RESPONSE ?
                           QRNIC_ACCESS_LOCAL_WRITE : 0);
    *status = QRNIC_WC_LOC_PROT_ERR;
    return verr;
}

/* ---- completion, in order ------------------------------------------------ */

static void complete(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint16_t idx, struct qrnic_swqe *s,
                     enum qrnic_wc_status status, enum qrnic_vendor_err verr)
{
    struct qrnic_wc wc;

    if (status == QRNIC_WC_SUCCESS && !qp->sig_all &&
        !(s->flags & QRNIC_WQE_F_SIGNALED)) {
        return;
    }
    memset(&wc, 0, sizeof(wc));
    wc.wr_id = s->wr_id;
    wc.byte_len = s->length;
    wc.qpn = qp->qpn;
    wc.wqe_idx = idx;
    wc.opcode = qrnic_cqe_opcode(s->opcode);
    wc.status = status;
    wc.flags = QRNIC_CQE_F_SEND;
    wc.vendor_err = verr;
    qrnic_cq_post(e, qp->scq, &wc);
}

void qrnic_req_progress(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    while (qp->req.sq_tail != qp->req.sq_head) {
        struct qrnic_swqe *s = qrnic_swqe(qp, qp->req.sq_tail);

        if (s->status == QRNIC_WC_SUCCESS && !s->done) {
            break;
        }
        /*
         * A READ/atomic counts against max_rd_atomic until it completes:
         * the peer keeps only that many for duplicates, and answers to
         * later ones may come before an earlier one is resent.
         */
        if (s->rd_counted) {
            s->rd_counted = false;
            qp->req.rd_inflight--;
        }
        qp->req.sq_tail++;
        if (s->status != QRNIC_WC_SUCCESS &&
            qp->req.sq_cur == (uint16_t)(qp->req.sq_tail - 1)) {
            /* The cursor was on it (a failed WQE): nothing left to send. */
            qp->req.sq_cur = qp->req.sq_head;
            qp->req.tx_psn = qp->req.next_psn;
            qp->req.cur_valid = false;
        }
        complete(e, qp, qp->req.sq_tail - 1, s, s->status, s->verr);
        if (s->status != QRNIC_WC_SUCCESS) {
            qrnic_qp_error(e, qp, false);
            return;
        }
    }
    if (qp->req.sq_tail == qp->req.sq_head) {
        disarm_timers(e, qp);
        if (qp->state == QRNIC_QPS_SQD && qp->sqd_notify &&
            !qp->sqd_event_sent && e->async_eqn >= 0) {
            qp->sqd_event_sent = true;
            qrnic_eq_post(e, (uint32_t)e->async_eqn, QRNIC_EVENT_SQ_DRAINED,
                          qp->qpn, 0);
        }
    }
}

void qrnic_req_fail(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint16_t idx, enum qrnic_wc_status status,
                    enum qrnic_vendor_err verr)
{
    struct qrnic_swqe *s = qrnic_swqe(qp, idx);

    if (s->status == QRNIC_WC_SUCCESS) {
        s->status = status;
        s->verr = verr;
    }
    qp->req.req_error = true;
    /* Nothing more goes out; the failure completes in its turn. */
    qp->req.sq_cur = qp->req.sq_head;
    qp->req.tx_psn = qp->req.next_psn;
    qp->req.cur_valid = false;
    qrnic_req_progress(e, qp);
}

void qrnic_req_advanced(struct qrnic_engine *e, struct qrnic_qpc *qp,
                        uint32_t una)
{
    int32_t acked = psn_diff(una, qp->comp.una_psn);
    uint64_t rtt = 0;

    if (acked <= 0) {
        return;
    }
    qp->comp.una_psn = una;
    qp->comp.probe_stage = 0;
    qp->comp.probe_next = false;
    qp->cc_recovering = false;      /* answered: what it resends counts */
    if (qp->comp.rtt_timing && psn_diff(una, qp->comp.rtt_psn) > 0) {
        qp->comp.rtt_timing = false;
        rtt = e->ops->now_ns(e->opaque) - qp->comp.rtt_sent;
    }
    qrnic_cc_update(e, qp);
    qrnic_cc_acked(e, qp, (uint32_t)acked, rtt);
    qp->comp.gap_resent = false;
    qp->comp.retry_left = qp->attr.retry_cnt;
    qp->comp.rnr_left = qp->attr.rnr_retry;
    if (!in_flight(qp)) {
        disarm_timers(e, qp);
    } else {
        arm_timers(e, qp);
    }
    /* What a resend was about to repeat is acknowledged meanwhile. */
    if (psn_diff(qp->req.tx_psn, una) < 0) {
        qrnic_req_rewind(e, qp, una);
    }
    qrnic_sched_qp(e, qp);
}

/* ---- retransmission ------------------------------------------------------ */

void qrnic_req_rewind(struct qrnic_engine *e, struct qrnic_qpc *qp,
                      uint32_t psn)
{
    uint16_t i;

    qp->comp.rtt_timing = false;     /* an answer may be to either copy */
    /*
     * With a failed WQE waiting, WQEs before it are still resent (they
     * must complete first); the walk stops at the failed one.
     */
    for (i = qp->req.sq_tail; i != qp->req.sq_head; i++) {
        struct qrnic_swqe *s = qrnic_swqe(qp, i);

        if (s->status != QRNIC_WC_SUCCESS) {
            break;
        }
        if (psn_diff(psn, s->first_psn) >= 0 &&
            psn_diff(psn, psn_add(s->first_psn, s->npkts)) < 0) {
            if (s->opcode == QRNIC_WR_RDMA_READ &&
                psn_diff(psn, s->resp_psn) < 0) {
                psn = s->resp_psn;  /* what arrived stays */
            }
            break;
        }
    }
    if (i == qp->req.sq_head ||
        qrnic_swqe(qp, i)->status != QRNIC_WC_SUCCESS) {
        i = qp->req.sq_head;        /* nothing to send from a failed WQE */
        psn = qp->req.next_psn;
    }
    qp->req.sq_cur = i;
    qp->req.tx_psn = psn;
    qp->req.cur_valid = false;
    qrnic_sched_qp(e, qp);
}

/* Table 45 of the IBTA spec: RNR NAK timer field -> 10 us units. */
static uint64_t rnr_ns(uint8_t code)
{
    static const uint32_t t10us[32] = {
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
        256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
        12288, 16384, 24576, 32768, 49152,
    };

    return (uint64_t)t10us[code & 31] * 10000;
}

void qrnic_req_rnr(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   uint32_t psn, uint8_t code)
{
    if (qp->attr.rnr_retry != 7) {
        if (!qp->comp.rnr_left) {
            qrnic_req_fail(e, qp, qp->req.sq_tail, QRNIC_WC_RNR_RETRY_EXC_ERR,
                           QRNIC_VERR_RETRIES);
            return;
        }
        qp->comp.rnr_left--;
    }
    qp->comp.rnr_wait = true;
    qp->comp.rnr_psn = psn;
    qp->comp.rnr_deadline = e->ops->now_ns(e->opaque) + rnr_ns(code);
    qrnic_sched_timer(e, qp);
}

void qrnic_req_timer(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint64_t now)
{
    if (qp->comp.rnr_deadline && now >= qp->comp.rnr_deadline) {
        qp->comp.rnr_deadline = 0;
        qp->comp.rnr_wait = false;
        qrnic_req_rewind(e, qp, qp->comp.rnr_psn);
    }
    if (qp->comp.probe_deadline && now >= qp->comp.probe_deadline) {
        qp->comp.probe_deadline = 0;
        if (in_flight(qp) && !qp->req.req_error && !qp->comp.rnr_wait) {
            probe_expired(e, qp, now);
        }
    }
    if (qp->comp.rto_deadline && now >= qp->comp.rto_deadline) {
        qp->comp.rto_deadline = 0;
        if (in_flight(qp)) {
            qrnic_stat(e, QRNIC_STAT_ACK_TIMEOUTS);
            qrnic_cc_unstarve(e, qp);
            /*
             * The window goes to its floor only when the peer answered
             * nobody meanwhile; if other QPs progressed, the peer is alive
             * and only this QP waited (rxe's per-QP tasks): halve it, as
             * for a loss.
             */
            qrnic_req_loss(e, qp, !qrnic_cc_others_progressed(e, qp));
            if (!qp->comp.retry_left) {
                qrnic_req_fail(e, qp, qp->req.sq_tail, QRNIC_WC_RETRY_EXC_ERR,
                               QRNIC_VERR_RETRIES);
            } else {
                qp->comp.retry_left--;
                qp->comp.rnr_wait = false;
                qp->comp.rnr_deadline = 0;
                qrnic_req_rewind(e, qp, qp->comp.una_psn);
                qrnic_cc_lost(e, qp);
                qp->comp.gap_resent = false;
                qp->comp.probe_stage = 2;    /* the probes start over */
                arm_timers(e, qp);
            }
        }
    }
    qrnic_sched_timer(e, qp);
}

/* ---- transmit ------------------------------------------------------------ */

static uint8_t send_opcode(uint8_t wr, bool first, bool last)
{
    uint16_t props = qrnic_wr_info(wr).props;
    bool imm = props & QRNIC_WR_P_IMM;
    uint8_t base = props & QRNIC_WR_P_SEND ? QRNIC_OP_SEND_FIRST :
                                             QRNIC_OP_WRITE_FIRST;

    if ((props & QRNIC_WR_P_INV) && last) {
        return first ? QRNIC_OP_SEND_ONLY_INV : QRNIC_OP_SEND_LAST_INV;
    }
    if (first && last) {
        return base + (imm ? 5 : 4);
    }
    if (first) {
        return base;
    }
    return last ? base + (imm ? 3 : 2) : base + 1;
}

/* Build and send the packet at tx_psn of WQE sq_cur; false on local error. */
static bool send_packet(struct qrnic_engine *e, struct qrnic_qpc *qp,
                        struct qrnic_swqe *s)
{
    struct qrnic_wqe *w = &qp->req.cur;
    uint8_t *f = e->roce_frame;
    uint32_t k = (uint32_t)psn_diff(qp->req.tx_psn, s->first_psn);
    uint32_t off = k * qp->attr.mtu;
    uint32_t window = qrnic_req_window(e, qp);
    uint32_t n = 0, pkts = 1;
    bool last = true, ackreq;
    uint8_t opcode;
    size_t pos;

    /* Only PSNs of this message, only bytes the WQE holds. */
    if (psn_diff(qp->req.tx_psn, s->first_psn) < 0 || k >= s->npkts ||
        off > w->length) {
        qrnic_req_fail(e, qp, qp->req.sq_cur, QRNIC_WC_LOC_QP_OP_ERR,
                       QRNIC_VERR_BAD_OPCODE);
        return false;
    }
    switch (w->opcode) {
    case QRNIC_WR_RDMA_READ:
        /*
         * Large READs go as several requests of READ_CHUNK_PKTS responses;
         * a resend from a PSN inside one stays inside it, as the peer
         * only answers PSNs it accepted as requests.
         */
        pkts = READ_CHUNK_PKTS - k % READ_CHUNK_PKTS;
        if (pkts > s->npkts - k) {
            pkts = s->npkts - k;
        }
        n = pkts * qp->attr.mtu < w->length - off ? pkts * qp->attr.mtu :
            w->length - off;
        pos = qrnic_wire_begin(e, qp, f, QRNIC_OP_READ_REQ, qp->req.tx_psn,
                               false, false);
        qp->req.ackreq_psn = psn_add(qp->req.tx_psn, pkts - 1);   /* answered */
        pos += qrnic_put_reth(f + pos, w->remote_addr + off, w->rkey, n);
        n = 0;
        break;
    case QRNIC_WR_ATOMIC_CMP_AND_SWP:
    case QRNIC_WR_ATOMIC_FETCH_AND_ADD:
        opcode = w->opcode == QRNIC_WR_ATOMIC_CMP_AND_SWP ?
                 QRNIC_OP_CMP_SWAP : QRNIC_OP_FETCH_ADD;
        pos = qrnic_wire_begin(e, qp, f, opcode, qp->req.tx_psn, false, false);
        qp->req.ackreq_psn = qp->req.tx_psn;
        pos += qrnic_put_atomic_eth(f + pos, w->remote_addr, w->rkey,
                                    w->opcode == QRNIC_WR_ATOMIC_CMP_AND_SWP ?
                                    w->swap : w->compare_add,
                                    w->compare_add);
        break;
    case QRNIC_WR_FLUSH:
    case QRNIC_WR_ATOMIC_WRITE:
        pos = qrnic_flush_request(e, qp, w, f, qp->req.tx_psn);
        break;
    default:
        n = w->length - off < qp->attr.mtu ? w->length - off : qp->attr.mtu;
        last = k + 1 == s->npkts;
        ackreq = last || qp->req.ack_now ||
                 ++qp->req.pkts_since_ackreq >= window ||
                 psn_diff(psn_add(qp->req.tx_psn, 1), qp->comp.una_psn) >=
                 (int32_t)window;
        opcode = send_opcode(w->opcode, k == 0, last);
        if (qp->type == QRNIC_QPT_UC) {
            opcode += QRNIC_OP_UC_BASE;     /* nothing is acknowledged */
            ackreq = false;
        }
        pos = qrnic_wire_begin(e, qp, f, opcode, qp->req.tx_psn,
                               last && (w->flags & QRNIC_WQE_F_SOLICITED),
                               ackreq);
        if (ackreq) {
            qp->req.pkts_since_ackreq = 0;
            qp->req.ackreq_psn = qp->req.tx_psn;
        }
        if (k == 0 && (qrnic_op_flags(opcode) & QRNIC_OPF_RETH)) {
            pos += qrnic_put_reth(f + pos, w->remote_addr, w->rkey,
                                  w->length);
        }
        if (qrnic_op_flags(opcode) & QRNIC_OPF_IETH) {
            pos += qrnic_put_ieth(f + pos,
                                  qrnic_ld32((const uint8_t *)&w->imm));
        }
        if (last && (qrnic_op_flags(opcode) & QRNIC_OPF_IMM)) {
            pos += qrnic_put_imm(f + pos, w->imm);
        }
        if (w->flags & QRNIC_WQE_F_INLINE) {
            if (off + n > w->inline_len) {
                qrnic_req_fail(e, qp, qp->req.sq_cur, QRNIC_WC_LOC_LEN_ERR,
                               QRNIC_VERR_BAD_SGE);
                return false;
            }
            memcpy(f + pos, w->inline_data + off, n);
        } else if (n) {
            uint8_t verr = qrnic_sgl_copy(e, qp->pdn, &w->sgl, off, f + pos,
                                          n, false);

            if (verr) {
                qrnic_req_fail(e, qp, qp->req.sq_cur, QRNIC_WC_LOC_PROT_ERR,
                               verr);
                return false;
            }
        }
        break;
    }
    pos = qrnic_wire_finish(qp, f, pos + n);
    qp->req.ack_now = false;
    if (psn_diff(qp->req.tx_psn, qp->req.sent_psn) < 0) {
        qrnic_stat(e, QRNIC_STAT_RETRANS_PKTS);
    }
    if (!qp->comp.rtt_timing && qp->req.tx_psn == qp->req.sent_psn &&
        qrnic_qp_is_rc(qp)) {
        qp->comp.rtt_timing = true;  /* time this one's answer (first copy) */
        qp->comp.rtt_psn = qp->req.tx_psn;
        qp->comp.rtt_sent = e->ops->now_ns(e->opaque);
    }
    qrnic_tx(e, f, pos);
    qp->req.tx_psn = psn_add(qp->req.tx_psn, pkts);
    if (psn_diff(qp->req.tx_psn, qp->req.sent_psn) > 0) {
        qp->req.sent_psn = qp->req.tx_psn;
        qrnic_cc_update(e, qp);
    }
    if (!qp->comp.rto_deadline && !qp->comp.probe_deadline) {
        arm_timers(e, qp);
    }
    return true;
}

enum start_result { STARTED, BLOCKED, LOCAL };

/*
 * A WQE that moves no data runs now, in its turn: every WQE before it
 * has been sent, so a later one sees its effect.  LOCAL_INV waits until
 * those before it have completed too: a resend of one of them may still
 * read through the key it invalidates.
 */
static enum start_result start_local(struct qrnic_engine *e,
                                     struct qrnic_qpc *qp)
{
    struct qrnic_swqe *s = qrnic_swqe(qp, qp->req.sq_head);
    struct qrnic_wqe *w = &qp->req.cur;
    enum qrnic_wc_status status;
    enum qrnic_vendor_err verr;

    if (w->opcode == QRNIC_WR_LOCAL_INV && qp->req.sq_tail != qp->req.sq_head) {
        qp->req.cur_valid = false;
        return BLOCKED;
    }
    memset(s, 0, sizeof(*s));
    s->wr_id = w->wr_id;
    s->opcode = w->opcode;
    s->flags = w->flags;
    s->first_psn = qp->req.next_psn;        /* no PSNs: npkts 0 */
    qp->req.sq_head++;
    qp->req.sq_cur = qp->req.sq_head;
    qp->req.tx_psn = qp->req.next_psn;
    qp->req.cur_valid = false;
    status = qrnic_local_op(e, qp, w, &verr);
    if (status != QRNIC_WC_SUCCESS) {
        qrnic_req_fail(e, qp, qp->req.sq_head - 1, status, verr);
        return BLOCKED;
    }
    s->done = true;
    qrnic_req_progress(e, qp);
    return LOCAL;
}

static enum start_result start_next(struct qrnic_engine *e,
                                    struct qrnic_qpc *qp)
{
    uint32_t max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
    struct qrnic_swqe *s = qrnic_swqe(qp, qp->req.sq_head);
    struct qrnic_wqe *w = &qp->req.cur;
    enum qrnic_wc_status status;
    enum qrnic_vendor_err verr;
    bool rd;

    if (qp->req.sq_head == qp->req.sq_pi || qp->state != QRNIC_QPS_RTS ||
        qp->req.req_error ||
        psn_diff(qp->req.next_psn, qp->comp.una_psn) >=
        (int32_t)qrnic_req_window(e, qp)) {
        return BLOCKED;
    }
    /*
     * One copy of the slot, and every decision from it: the guest may
     * rewrite queue memory at any time.
     */
    verr = fetch_wqe(e, qp, qp->req.sq_head, w, &status);
    rd = !verr && (w->props & QRNIC_WR_P_RESPONSE);
    if (!verr && ((rd && qp->req.rd_inflight >= max_rd) ||
                  ((w->flags & QRNIC_WQE_F_FENCE) && qp->req.rd_inflight))) {
        qp->req.cur_valid = false;
        return BLOCKED;
    }
    if (!verr && (w->props & QRNIC_WR_P_LOCAL)) {
        return start_local(e, qp);
    }
    memset(s, 0, sizeof(*s));
    s->wr_id = w->wr_id;
    s->opcode = w->opcode;
    s->flags = w->flags;
    s->first_psn = qp->req.next_psn;
    qp->req.sq_head++;
    if (verr) {
        qrnic_req_fail(e, qp, qp->req.sq_head - 1, status, verr);
        return BLOCKED;
    }
    s->length = w->length;
    s->npkts = rd && s->opcode != QRNIC_WR_RDMA_READ ? 1 :
               msg_pkts(qp, s->length);
    s->resp_psn = s->first_psn;
    qp->req.next_psn = psn_add(qp->req.next_psn, s->npkts);
    qp->req.tx_psn = s->first_psn;
    qp->req.cur_valid = true;
    if (rd) {
        s->rd_counted = true;
        qp->req.rd_inflight++;
    }
    return STARTED;
}

enum qrnic_vendor_err
qrnic_req_wqe(struct qrnic_engine *e, struct qrnic_qpc *qp,
              uint16_t idx, struct qrnic_wqe *w)
{
    struct qrnic_swqe *s = qrnic_swqe(qp, idx);
    enum qrnic_wc_status status;
    enum qrnic_vendor_err verr;

    verr = fetch_wqe(e, qp, idx, w, &status);
    if (!verr && (w->opcode != s->opcode || w->length != s->length)) {
        verr = QRNIC_VERR_BAD_OPCODE;   /* rewritten while in flight */
    }
    return verr;
}

/* Re-read the WQE at the cursor; it must still be the one started. */
static bool refetch(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    struct qrnic_swqe *s)
{
    enum qrnic_wc_status status;
    enum qrnic_vendor_err verr;

    verr = fetch_wqe(e, qp, qp->req.sq_cur, &qp->req.cur, &status);
    if (!verr && (qp->req.cur.opcode != s->opcode ||
                  qp->req.cur.length != s->length)) {
        status = QRNIC_WC_LOC_QP_OP_ERR;
        verr = QRNIC_VERR_BAD_OPCODE;
    }
    if (verr) {
        qrnic_req_fail(e, qp, qp->req.sq_cur, status, verr);
        return false;
    }
    qp->req.cur_valid = true;
    return true;
}

/*
 * May the packet at tx_psn go now?  Within the window and, if it is a new
 * one, when the device's window has room and no starved QP holds it back.
 * A QP that stops must have asked for an ACK, or nothing answers its
 * packets in flight until the probe timer: if none of them asked (it
 * stopped for the device's window: other QPs filled it), one more packet
 * goes, asking.
 */
static bool may_send(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint32_t window)
{
    bool fresh = psn_diff(qp->req.tx_psn, qp->req.sent_psn) >= 0;

    if (psn_diff(qp->req.tx_psn, qp->comp.una_psn) < (int32_t)window &&
        (!fresh || qrnic_cc_may_send(e, qp))) {
        return true;
    }
    if (!fresh || !in_flight(qp) ||
        psn_diff(qp->req.ackreq_psn, qp->comp.una_psn) >= 0) {
        return false;
    }
    qp->req.ack_now = true;
    return true;
}

/*
 * The cursor leaves a WQE it has sent for the next one with packets.
 * WQEs that moved no data are done from the start: were the cursor to
 * rest on one, the completer could retire it from under the cursor.
 */
static void cursor_next(struct qrnic_qpc *qp)
{
    do {
        qp->req.sq_cur++;
    } while (qp->req.sq_cur != qp->req.sq_head &&
             !qrnic_swqe(qp, qp->req.sq_cur)->npkts);
    qp->req.cur_valid = false;
    if (qp->req.sq_cur != qp->req.sq_head) {
        qp->req.tx_psn = qrnic_swqe(qp, qp->req.sq_cur)->first_psn;
    }
}

/*
 * From the slots as they are now, cheaply (no key checks): the work that
 * follows reads and checks them again, so a guest rewriting them in
 * between changes only how much is done at once, never what is done.
 * A WQE that moves no data counts nothing, a READ or atomic one packet,
 * anything unreadable one; at most limit + 1 WQEs are looked at.
 */
uint32_t qrnic_req_new_pkts(const struct qrnic_engine *e,
                            const struct qrnic_qpc *qp, uint32_t limit)
{
    uint8_t w[sizeof(struct qrnic_sq_wqe) +
              QRNIC_MAX_SGE * sizeof(struct qrnic_sge)];
    uint32_t stride = 1u << qp->log_sq_stride, seen = 0;
    uint32_t len = stride < sizeof(w) ? stride : sizeof(w);
    uint64_t n = 0;
    uint16_t i;

    if (qrnic_qp_is_ud(qp)) {
        n = (uint16_t)(qp->req.sq_pi - qp->req.sq_head);
        return n <= limit ? (uint32_t)n : limit + 1;
    }
    if (qp->req.sq_cur != qp->req.sq_head) {
        return limit + 1;       /* a started WQE still sends or resends */
    }
    for (i = qp->req.sq_head; i != qp->req.sq_pi; i++) {
        uint64_t bytes = 0;
        uint32_t k, nsge;

        if (n > limit || ++seen > limit + 1) {
            return limit + 1;
        }
        qrnic_qp_sq_read(e, qp, i, w, len);
        if (qrnic_wr_is_local(*qrnic_wqe_at(w, opcode))) {
            continue;
        }
        if (qrnic_wr_is_rd_atomic(*qrnic_wqe_at(w, opcode))) {
            n++;
            continue;
        }
        if (*qrnic_wqe_at(w, flags) & QRNIC_WQE_F_INLINE) {
            bytes = qrnic_ld32(qrnic_wqe_at(w, inline_len));
        } else {
            nsge = (len - sizeof(struct qrnic_sq_wqe)) /
                   sizeof(struct qrnic_sge);
            if (*qrnic_wqe_at(w, num_sge) < nsge) {
                nsge = *qrnic_wqe_at(w, num_sge);
            }
            for (k = 0; k < nsge; k++) {
                bytes += qrnic_ld32(w + sizeof(struct qrnic_sq_wqe) +
                                    k * sizeof(struct qrnic_sge) +
                                    offsetof(struct qrnic_sge, length));
            }
        }
        n += bytes > UINT32_MAX ? (uint64_t)limit + 1 :
             msg_pkts(qp, (uint32_t)bytes);
    }
    return n <= limit ? (uint32_t)n : limit + 1;
}

bool qrnic_req_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint32_t budget)
{
    uint32_t window = qrnic_req_window(e, qp);

    if ((qp->state != QRNIC_QPS_RTS && qp->state != QRNIC_QPS_SQD) ||
        qp->comp.rnr_wait) {
        return false;
    }
    while (budget) {
        struct qrnic_swqe *s;

        if (qp->req.sq_cur == qp->req.sq_head) {
            enum start_result r = start_next(e, qp);

            if (r == LOCAL) {
                budget--;
                continue;
            }
            if (r != STARTED) {
                return false;
            }
        }
        s = qrnic_swqe(qp, qp->req.sq_cur);
        if (s->status != QRNIC_WC_SUCCESS || !may_send(e, qp, window)) {
            return false;
        }
        if (qrnic_loopback_busy(e, qp->attr.dmac)) {
            return true;        /* again after the backlog's turn */
        }
        /*
         * A READ asks for its next chunk only when the last one is all
         * here, so requests in flight never exceed max_rd_atomic.
         */
        if (s->opcode == QRNIC_WR_RDMA_READ && qp->req.tx_psn != s->first_psn &&
            s->resp_psn != qp->req.tx_psn) {
            return false;
        }
        if (!qp->req.cur_valid && !refetch(e, qp, s)) {
            return false;
        }
        if (!send_packet(e, qp, s)) {
            return false;
        }
        budget--;
        if (qp->type == QRNIC_QPT_UC) {
            /* Nothing is acknowledged: no window to wait for. */
            qp->comp.una_psn = qp->req.tx_psn;
        }
        if (psn_diff(qp->req.tx_psn, psn_add(s->first_psn, s->npkts)) >= 0) {
            cursor_next(qp);
            if (qp->type == QRNIC_QPT_UC) {
                /* UC: done once on the wire, never resent. */
                s->done = true;
                qrnic_req_progress(e, qp);
            }
        }
    }
    return true;
}
