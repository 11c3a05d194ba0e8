/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: when transport work runs.  Doorbells, arriving ACKs and
 * timers only put a QP on the ready list and ask the glue for a call to
 * qrnic_engine_work(), which gives every ready QP a bounded turn (replies
 * first, then new requests), so no QP or direction starves another.
 * Deadlines (retransmission, tail-loss probe, RNR wait) of all QPs share
 * one device timer; how many packets they may have in flight is
 * qrnic_cc.c's.  Frames to the device's own MAC are looped back from the
 * work call.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_qp_list.h"
#include "qrnic_rdma.h"

QRNIC_QP_LIST_FNS(ready, ready_queued, ready_prev, ready_next)
QRNIC_QP_LIST_FNS(timed, timed_queued, timed_prev, timed_next)

void qrnic_sched_qp(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    if (!qp->ready_queued) {
        ready_add(&e->ready_qps, qp);
        qrnic_engine_schedule(e);
    }
}

static uint64_t qp_deadline(const struct qrnic_qpc *qp)
{
    uint64_t d = UINT64_MAX;

    if (qp->comp.rto_deadline && qp->comp.rto_deadline < d) {
        d = qp->comp.rto_deadline;
    }
    if (qp->comp.rnr_deadline && qp->comp.rnr_deadline < d) {
        d = qp->comp.rnr_deadline;
    }
    if (qp->comp.probe_deadline && qp->comp.probe_deadline < d) {
        d = qp->comp.probe_deadline;
    }
    return d;
}

void qrnic_sched_timer(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    uint64_t d = qp_deadline(qp);

    if (d == UINT64_MAX) {
        if (qp->timed_queued) {
            timed_del(&e->timed_qps, qp);
        }
        return;
    }
    if (!qp->timed_queued) {
        timed_add(&e->timed_qps, qp);
    }
    if (d < e->timer_armed) {
        e->timer_armed = d;
        e->ops->timer_mod(e->opaque, d);
    }
}

void qrnic_sched_unlink(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    qrnic_cc_unlink(e, qp);
    if (qp->ready_queued) {
        ready_del(&e->ready_qps, qp);
    }
    if (qp->timed_queued) {
        timed_del(&e->timed_qps, qp);
    }
}

void qrnic_sched_reset(struct qrnic_engine *e)
{
    memset(&e->ready_qps, 0, sizeof(e->ready_qps));
    memset(&e->timed_qps, 0, sizeof(e->timed_qps));
    e->timer_armed = UINT64_MAX;
    e->ops->timer_mod(e->opaque, UINT64_MAX);
    qrnic_cc_reset(e);
    e->backlog_head = 0;
    e->backlog_count = 0;
}

void qrnic_sched_expire(struct qrnic_engine *e)
{
    uint64_t now = e->ops->now_ns(e->opaque), next;
    struct qrnic_qpc *qp, *n;

    e->timer_armed = UINT64_MAX;
    qrnic_fault_expire(e, now);
    for (qp = e->timed_qps.head; qp; qp = n) {
        n = qp->timed_next;
        if (qp_deadline(qp) <= now) {
            qrnic_req_timer(e, qp, now);
        }
    }
    /* Handlers may have moved deadlines: ask for the earliest one. */
    next = qrnic_fault_deadline(e);
    for (qp = e->timed_qps.head; qp; qp = qp->timed_next) {
        uint64_t d = qp_deadline(qp);

        next = d < next ? d : next;
    }
    e->timer_armed = next;
    e->ops->timer_mod(e->opaque, next);
}

bool qrnic_loopback_busy(const struct qrnic_engine *e, const uint8_t *dmac)
{
    return e->backlog_count >= QRNIC_ENG_LOOPBACK_HOLD &&
           !memcmp(dmac, e->mac, 6);
}

bool qrnic_backlog_push(struct qrnic_engine *e, const uint8_t *frame,
                        size_t len)
{
    uint32_t slot;

    if (!e->backlog) {
        e->backlog = malloc((size_t)QRNIC_ENG_BACKLOG * QRNIC_ETH_MAX_FRAME);
    }
    if (!e->backlog || e->backlog_count == QRNIC_ENG_BACKLOG ||
        len > QRNIC_ETH_MAX_FRAME) {
        return false;           /* dropped, as a full wire would */
    }
    slot = (e->backlog_head + e->backlog_count) % QRNIC_ENG_BACKLOG;
    memcpy(e->backlog + (size_t)slot * QRNIC_ETH_MAX_FRAME, frame, len);
    e->backlog_len[slot] = (uint16_t)len;
    e->backlog_count++;
    qrnic_engine_schedule(e);
    return true;
}

void qrnic_tx(struct qrnic_engine *e, const uint8_t *frame, size_t len)
{
    bool ours = !memcmp(frame, e->mac, 6);

    qrnic_stat(e, QRNIC_STAT_TX_ROCE_PKTS);
    if (!ours) {
        qrnic_fault_tx(e, frame, len);
    }
    /*
     * To ourselves (a QP of this device), or multicast: our own QPs in
     * the group get it too.
     */
    if ((ours || (frame[0] & 1)) && !qrnic_backlog_push(e, frame, len)) {
        qrnic_stat(e, QRNIC_STAT_BACKLOG_DROP);
    }
}

static bool qp_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint32_t budget, uint32_t req_budget)
{
    bool more;

    if (qp->state == QRNIC_QPS_ERR) {
        qrnic_resp_work(e, qp, budget);
        qrnic_qp_flush(e, qp);
        return false;
    }
    if (qrnic_qp_is_ud(qp)) {
        return qrnic_ud_work(e, qp, budget);
    }
    more = qrnic_resp_work(e, qp, budget);
    more |= qrnic_req_work(e, qp, req_budget);
    return more;
}

/* Frames that waited; answers they draw go behind them. */
static void backlog_work(struct qrnic_engine *e)
{
    uint32_t n = e->backlog_count;

    while (n-- && e->backlog_count) {
        uint32_t slot = e->backlog_head;

        /* The slot stays ours while it is processed. */
        if (!qrnic_eth_rx(e, e->backlog + (size_t)slot * QRNIC_ETH_MAX_FRAME,
                          e->backlog_len[slot])) {
            e->stats.rx_drop++;         /* no Ethernet RX buffer */
        }
        e->backlog_head = (slot + 1) % QRNIC_ENG_BACKLOG;
        e->backlog_count--;
    }
}

void qrnic_sched_work(struct qrnic_engine *e)
{
    uint32_t turns = 0;
    struct qrnic_qpc *qp;

    if (e->eth_tx_kick) {
        e->eth_tx_kick = false;
        qrnic_eth_tx_process(e);
    }
    backlog_work(e);
    /* One turn for each QP that was ready when we started. */
    for (qp = e->ready_qps.head; qp; qp = qp->ready_next) {
        turns++;
    }
    while (turns-- && (qp = e->ready_qps.head)) {
        ready_del(&e->ready_qps, qp);
        if (qp_work(e, qp, QRNIC_BUDGET, QRNIC_REQ_BURST)) {
            qrnic_sched_qp(e, qp);
        }
    }
    if (e->ready_qps.head || e->backlog_count) {
        qrnic_engine_schedule(e);
    }
}

/*
 * After an SQ doorbell (qrnic_engine_db_write, engine entered): if the
 * doorbell made the QP ready, the QP sends (RTS, SQD), has nothing else
 * to send and its new WQEs take at most db_work packets, its turn comes
 * now, as the work call would give it (a packet more of budget, so the
 * turn ends by finding nothing left rather than by running out).  A QP
 * in ERR (whose flush may be long), one still sending, resending or
 * waiting for the window, and larger work wait for the work call: a
 * burst sent from the guest's vCPU thread, holding the BQL, is outrun by
 * the peer it wakes frame by frame on a busy host (docs/performance.md).
 * Then the work call held meanwhile is asked for only if work is left:
 * other QPs, held frames, admin commands, Ethernet descriptors, or this
 * QP's next turn.
 */
void qrnic_sched_doorbell(struct qrnic_engine *e, uint32_t qpn)
{
    struct qrnic_qpc *qp = qpn ? qrnic_qp_get(e, qpn) : NULL;
    uint32_t n = e->db_work < QRNIC_DB_WORK_MAX ? e->db_work :
                                                   QRNIC_DB_WORK_MAX;

    if (n && qp && qp->ready_queued &&
        (qp->state == QRNIC_QPS_RTS || qp->state == QRNIC_QPS_SQD) &&
        qrnic_req_new_pkts(e, qp, n) <= n) {
        ready_del(&e->ready_qps, qp);
        if (qp_work(e, qp, n + 1, n + 1)) {
            qrnic_sched_qp(e, qp);
        }
    }
    e->sched_hold = false;
    if (e->sched_held) {
        e->sched_held = false;
        if (e->ready_qps.head || e->backlog_count || e->eth_tx_kick) {
            e->ops->schedule(e->opaque);
        }
    }
}
