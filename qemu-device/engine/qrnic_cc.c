/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: congestion control.  How many packets the QPs of a
 * context may have in flight, how the window grows and shrinks with ACKs
 * and losses, which QPs wait for room, and when a silent QP's probe is
 * due; the requester asks before each packet (qrnic_req.c).
 */
#include <string.h>
#include "qrnic_qp_list.h"
#include "qrnic_rdma.h"

QRNIC_QP_LIST_FNS(waiter, cc_waiting, cc_prev, cc_next)

/*
 * Why one window for all QPs of a context rather than one per QP, and the
 * rest: the packets of all QPs queue at the same places - the host socket
 * under the netdev, the peer's receive path and, for a software peer such
 * as rdma_rxe under TCG, the one emulated CPU that runs every QP's
 * responder.  With a window per QP, N QPs put N windows (up to 128
 * packets each) into that queue, and each QP's timers still expected one
 * window's worth.  rxe makes it worse: it runs a task per QP that takes
 * that QP's packets until none is left (up to 1024), so a QP whose ACKs
 * keep coming is kept fed and keeps the CPU while the others' packets
 * wait - hundreds of milliseconds with 8 QPs.  Their tail loss probe (a
 * constant 2 ms) and then their retransmission timer resent whole windows
 * that were only waiting, rxe answered every duplicate, the queue grew,
 * and a QP without an ACK for retry_cnt + 1 timeouts failed with
 * RETRY_EXC_ERR.  But a device's QPs belong to many users, and a QP's
 * peer may be gone, silent, in RESET or another user's own responder:
 * what one user's QPs see must cost the others nothing beyond their
 * share.  So:
 *
 * - one AIMD window for the packets a context's QPs have in flight (the
 *   kernel's QPs are one context), within the caps (win_bytes, win_pkts:
 *   what a host socket takes, or rxe's responder answers in time); a new
 *   packet that finds it full waits, and the QPs waiting take their turns
 *   (FIFO) as ACKs make room.  A QP may fill the whole window, in runs of
 *   up to QRNIC_REQ_BURST packets a turn, asking for an ACK once per
 *   window: rxe pays for each task run and each ACK about as much as for
 *   several packets, and even shares (an ACK per share) left 8 QPs well
 *   short of one QP's goodput to rxe in a TCG guest (docs/performance.md);
 * - a loss on any of the context's QPs (sequence NAK, missing READ
 *   answer, probe) halves its window, once per round trip; a
 *   retransmission timeout shrinks it to two packets when no QP
 *   progressed meanwhile, else halves it (qrnic_req.c).  No other
 *   context's window moves.  A new context starts with the window a
 *   context last grew to;
 * - the contexts' packets together stay within the caps, but whatever
 *   the others hold, a context may always have its fair share of them in
 *   flight, cap / (contexts with packets counted), two packets at least,
 *   so a user with many QPs gets no more than one with few;
 * - packets a QP's timer found lost (its probe's full resend, its
 *   retransmission timeout) stop counting at once, and it resends one
 *   packet at a time until an answer comes; then they count again.
 *   Whatever its timeout and retry count (timeout 0 still probes,
 *   qrnic_req.c), a QP without answers holds room for four probe times
 *   after its last answer at most (a verdict, a probe of its last packet,
 *   a verdict, the full resend), and one packet after;
 * - a QP whose probe timer runs out while others of its context
 *   progressed is starved, not lost: the context's others send nothing
 *   new until it progresses, their own packets are all answered, or its
 *   probe timer runs out once more, so the peer runs dry of theirs and
 *   turns to it.  The window stays: with rxe in a TCG guest most verdicts
 *   come from the guest stopping for a few milliseconds (its vCPU thread
 *   loses the host's CPU), not from a queue, and halving at each stop held
 *   8 QPs at one packet each, every packet asking for an ACK.  Other
 *   contexts are never held: their progress judges no verdict, and a new
 *   QP every probe time towards a peer in RESET held a victim's traffic
 *   for a quarter of the time while verdicts held every context
 *   (tests/unit/test_dead_peer.c);
 * - the probe waits for a multiple of the context's measured round trip
 *   (RFC 6298's estimator), so a peer that is slow but answers draws no
 *   resends.  A new context starts from the estimate a context last
 *   measured; with none yet on the device, from RFC 6298's one second
 *   (within a quarter of the QP's timeout).  A probe at the floor (2 ms)
 *   before any answer resent each READ of 32 QPs to rxe in a TCG guest
 *   every few milliseconds: its duplicates buried the originals until the
 *   retries ran out.
 *
 * One window for a context also means a slow peer slows its QPs to faster
 * ones; a context talks to few peers at a time.
 */

static uint32_t cc_cap(const struct qrnic_engine *e,
                       const struct qrnic_qpc *qp)
{
    uint32_t cap = e->win_bytes / qrnic_pkt_cost(qp->attr.mtu);

    cap = cap < e->win_pkts ? cap : e->win_pkts;
    return cap ? cap : 1;
}

static struct qrnic_uctx *cc_ctx(struct qrnic_engine *e,
                                 const struct qrnic_qpc *qp)
{
    return &e->uctx[qp->uctx];
}

/* A context's window, from its first QP on. */
static uint32_t ctx_cwnd(const struct qrnic_engine *e,
                         const struct qrnic_qpc *qp)
{
    uint32_t w = e->uctx[qp->uctx].cwnd;

    return w ? w : e->cc.cwnd;
}

/* The QP no longer waits: when none does, its context's others may send. */
void qrnic_cc_unstarve(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    struct qrnic_qpc *q;
    uint32_t i;

    if (!qp->starved) {
        return;
    }
    qp->starved = false;
    if (--cc_ctx(e, qp)->cc_starved) {
        return;
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_QP], i, q) {
        if (q->uctx == qp->uctx && qrnic_qp_is_rc(q) &&
            (q->state == QRNIC_QPS_RTS || q->state == QRNIC_QPS_SQD)) {
            qrnic_sched_qp(e, q);
        }
    }
}

/* Packets the QP's context may have in flight (by the QP's MTU). */
static uint32_t cc_total(const struct qrnic_engine *e,
                         const struct qrnic_qpc *qp)
{
    uint32_t w = ctx_cwnd(e, qp) / QRNIC_CWND_ONE, cap = cc_cap(e, qp);

    return w < cap ? w : cap;
}

/*
 * May the QP's context put n more new packets in flight?  Within its
 * window and the caps; or, whatever the other contexts hold, within its
 * fair share of the caps (an equal one, two packets at least).
 */
static bool cc_room(const struct qrnic_engine *e, const struct qrnic_qpc *qp,
                    uint32_t n, uint32_t n_all)
{
    uint32_t held = e->uctx[qp->uctx].cc_inflight;
    uint32_t ctxs = e->cc.active_ctx + (held ? 0 : 1);
    uint32_t cap = cc_cap(e, qp), fair = cap / ctxs;

    fair = fair > QRNIC_MIN_CWND ? fair : QRNIC_MIN_CWND;
    held += n;
    return held < cc_total(e, qp) &&
           (e->cc.inflight + n_all < cap || held < fair);
}

/*
 * Room in a window or the caps: the QPs waiting for it go on, as many as
 * there is room for (each packet's worth), in their order.
 */
static void cc_wake(struct qrnic_engine *e)
{
    struct qrnic_qpc *qp, *next;
    uint32_t woken = 0;

    for (qp = e->cc.waiting.head; qp; qp = next) {
        struct qrnic_uctx *u = cc_ctx(e, qp);

        next = qp->cc_next;
        if (cc_room(e, qp, u->cc_woken, woken)) {
            waiter_del(&e->cc.waiting, qp);
            qrnic_sched_qp(e, qp);
            u->cc_woken++;
            woken++;
        }
    }
    for (qp = e->ready_qps.head; woken && qp; qp = qp->ready_next) {
        cc_ctx(e, qp)->cc_woken = 0;
    }
}

static void cc_count(struct qrnic_engine *e, struct qrnic_qpc *qp, uint32_t n)
{
    struct qrnic_uctx *u = cc_ctx(e, qp);
    bool fewer = n < qp->cc_counted;
    uint32_t was = u->cc_inflight;

    e->cc.inflight = e->cc.inflight - qp->cc_counted + n;
    u->cc_inflight = u->cc_inflight - qp->cc_counted + n;
    if (!qp->cc_counted != !n) {
        u->cc_active += n ? 1 : -1;
    }
    if (!was != !u->cc_inflight) {
        e->cc.active_ctx += u->cc_inflight ? 1 : -1;
    }
    qp->cc_counted = n;
    if (!n) {
        qrnic_cc_unstarve(e, qp);     /* nothing left to wait for */
    }
    if (u->cc_starved && u->cc_starved == u->cc_active) {
        /*
         * The context's QPs held back have nothing in flight any more:
         * the peer has answered all of theirs, holding them longer gains
         * nothing.  The starved ones probe at their next expiry.
         */
        struct qrnic_qpc *q;
        uint32_t i;

        QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_QP], i, q) {
            if (!u->cc_starved) {
                break;
            }
            if (q->uctx == qp->uctx) {
                qrnic_cc_unstarve(e, q);
            }
        }
    }
    if (fewer) {
        cc_wake(e);
    }
}

bool qrnic_cc_may_send(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    if (!qrnic_qp_is_rc(qp)) {
        return true;            /* nothing is acknowledged: no window */
    }
    if (cc_ctx(e, qp)->cc_starved && !qp->starved) {
        return false;           /* held back; qrnic_cc_unstarve wakes it */
    }
    if (cc_room(e, qp, 0, 0)) {
        return true;
    }
    if (!qp->cc_waiting) {
        waiter_add(&e->cc.waiting, qp);
    }
    return false;
}

void qrnic_cc_update(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    int32_t n = 0;

    if (qrnic_qp_is_rc(qp) &&
        (qp->state == QRNIC_QPS_RTS || qp->state == QRNIC_QPS_SQD)) {
        if (!cc_ctx(e, qp)->cwnd) {
            cc_ctx(e, qp)->cwnd = e->cc.cwnd;
        }
        /* An ACK may name a PSN started but not yet sent. */
        n = qp->cc_recovering ? 0 :
            psn_diff(qp->req.sent_psn, qp->comp.una_psn);
    } else if (qp->cc_waiting) {
        waiter_del(&e->cc.waiting, qp);
    }
    cc_count(e, qp, n > 0 ? (uint32_t)n : 0);
}

/*
 * Starved or lost?  See above.  At most every other expiry of a QP's probe
 * timer finds it starved; the one after that probes (and ends the hold).
 */
bool qrnic_cc_starved(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    if (qp->comp.probe_next) {
        /* Held the others for a probe time (or they ran dry): now probe. */
        qp->comp.probe_next = false;
        qrnic_cc_unstarve(e, qp);
        return false;
    }
    if (!qp->cc_counted || !qrnic_cc_others_progressed(e, qp)) {
        return false;           /* nobody progressed: a loss, probe for it */
    }
    qp->starved = true;
    qp->comp.probe_next = true;
    qp->comp.rtt_timing = false;     /* its round trip is the others' doing */
    cc_ctx(e, qp)->cc_starved++;
    /* No cut: a verdict is no loss (see above). */
    return true;
}

bool qrnic_cc_others_progressed(const struct qrnic_engine *e,
                                const struct qrnic_qpc *qp)
{
    return e->uctx[qp->uctx].progress_ns > qp->comp.wait_since;
}

uint32_t qrnic_cc_window(const struct qrnic_engine *e,
                         const struct qrnic_qpc *qp)
{
    uint32_t w = cc_total(e, qp);

    /* Resending what its timer found lost: one packet, until answered. */
    return w && !qp->cc_recovering ? w : 1;
}

/*
 * The context's round-trip estimate; before its first sample, the one a
 * context last measured (as for the window).  False when the device has
 * none yet.
 */
static bool ctx_rtt(const struct qrnic_engine *e, const struct qrnic_uctx *u,
                    uint64_t *srtt, uint64_t *rttvar)
{
    *srtt = u->srtt ? u->srtt : e->cc.srtt;
    *rttvar = u->srtt ? u->rttvar : e->cc.rttvar;
    return *srtt != 0;
}

uint64_t qrnic_cc_probe_ns(const struct qrnic_engine *e,
                           const struct qrnic_qpc *qp)
{
    uint64_t srtt, rttvar, t;

    if (!ctx_rtt(e, &e->uctx[qp->uctx], &srtt, &rttvar)) {
        return QRNIC_PROBE_INIT_NS;
    }
    t = 2 * srtt + 4 * rttvar;
    return t > QRNIC_PROBE_NS ? t : QRNIC_PROBE_NS;
}

/*
 * AIMD on the QP's context's window: halved once per loss event (losses
 * within about a round trip of the first are the same event), back to
 * the floor on a timeout, one packet more per window acknowledged.  Slow
 * start was measured: its overshoot costs more drops than it saves.
 */
void qrnic_cc_loss(struct qrnic_engine *e, struct qrnic_qpc *qp, bool timeout)
{
    uint64_t now = e->ops->now_ns(e->opaque);
    struct qrnic_uctx *u = cc_ctx(e, qp);
    uint32_t w = cc_total(e, qp);
    uint64_t srtt, rttvar;

    if (!timeout && now < u->hold_until) {
        return;
    }
    w = timeout ? QRNIC_MIN_CWND : w / 2;
    u->cwnd = (w > QRNIC_MIN_CWND ? w : QRNIC_MIN_CWND) * QRNIC_CWND_ONE;
    u->hold_until = now + (ctx_rtt(e, u, &srtt, &rttvar) ?
                           srtt + 4 * rttvar : QRNIC_PROBE_NS);
}

void qrnic_cc_lost(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    qp->cc_recovering = true;
    qrnic_cc_update(e, qp);
}

void qrnic_cc_acked(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint32_t acked, uint64_t rtt_ns)
{
    uint32_t max = e->win_pkts * QRNIC_CWND_ONE;
    struct qrnic_uctx *u = cc_ctx(e, qp);

    u->progress_ns = e->ops->now_ns(e->opaque);
    qrnic_cc_unstarve(e, qp);
    if (rtt_ns) {
        /* RFC 6298's estimator. */
        if (!u->srtt) {
            u->srtt = rtt_ns;
            u->rttvar = rtt_ns / 2;
        } else {
            uint64_t d = rtt_ns > u->srtt ? rtt_ns - u->srtt :
                                            u->srtt - rtt_ns;

            u->rttvar = (3 * u->rttvar + d) / 4;
            u->srtt = (7 * u->srtt + rtt_ns) / 8;
        }
        e->cc.srtt = u->srtt;
        e->cc.rttvar = u->rttvar;
    }
    if (u->progress_ns >= u->hold_until && u->cwnd) {
        if (acked > e->win_pkts) {
            acked = e->win_pkts;
        }
        u->cwnd += acked * QRNIC_CWND_ONE * QRNIC_CWND_ONE / u->cwnd;
        u->cwnd = u->cwnd < max ? u->cwnd : max;
        e->cc.cwnd = u->cwnd;
    }
    cc_wake(e);
}

void qrnic_cc_unlink(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    if (qp->cc_waiting) {
        waiter_del(&e->cc.waiting, qp);
    }
    cc_count(e, qp, 0);
}

void qrnic_cc_reset(struct qrnic_engine *e)
{
    memset(&e->cc, 0, sizeof(e->cc));
    e->cc.cwnd = QRNIC_INIT_CWND * QRNIC_CWND_ONE;
}
