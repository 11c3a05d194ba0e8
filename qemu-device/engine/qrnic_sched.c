/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: when transport work runs.  Doorbells, arriving ACKs and
 * timers only put a QP on the ready list and ask the glue for a call to
 * qrnic_engine_work(), which gives every ready QP a bounded turn (replies
 * first, then new requests), so no QP or direction starves another.
 * Deadlines (retransmission, tail-loss probe, RNR wait) of all QPs share
 * one device timer.
 * Frames to the device's own MAC are looped back from the work call.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"

#define LOOP_SLOTS (sizeof(((struct qrnic_engine *)0)->loop_len) / \
                    sizeof(uint16_t))

#define LIST_FNS(name, queued, prev, next)                                  \
static void name##_add(struct qrnic_qp_list *l, struct qrnic_qp *qp)       \
{                                                                           \
    qp->queued = true;                                                      \
    qp->next = NULL;                                                        \
    qp->prev = l->tail;                                                     \
    if (l->tail) {                                                          \
        l->tail->next = qp;                                                 \
    } else {                                                                \
        l->head = qp;                                                       \
    }                                                                       \
    l->tail = qp;                                                           \
}                                                                           \
static void name##_del(struct qrnic_qp_list *l, struct qrnic_qp *qp)       \
{                                                                           \
    if (qp->prev) {                                                         \
        qp->prev->next = qp->next;                                          \
    } else {                                                                \
        l->head = qp->next;                                                 \
    }                                                                       \
    if (qp->next) {                                                         \
        qp->next->prev = qp->prev;                                          \
    } else {                                                                \
        l->tail = qp->prev;                                                 \
    }                                                                       \
    qp->queued = false;                                                     \
    qp->prev = qp->next = NULL;                                             \
}

LIST_FNS(ready, ready_queued, ready_prev, ready_next)
LIST_FNS(timed, timed_queued, timed_prev, timed_next)

void qrnic_sched_qp(struct qrnic_engine *e, struct qrnic_qp *qp)
{
    if (!qp->ready_queued) {
        ready_add(&e->ready_qps, qp);
        e->ops->schedule(e->opaque);
    }
}

static uint64_t qp_deadline(const struct qrnic_qp *qp)
{
    uint64_t d = UINT64_MAX;

    if (qp->rto_deadline && qp->rto_deadline < d) {
        d = qp->rto_deadline;
    }
    if (qp->rnr_deadline && qp->rnr_deadline < d) {
        d = qp->rnr_deadline;
    }
    if (qp->probe_deadline && qp->probe_deadline < d) {
        d = qp->probe_deadline;
    }
    return d;
}

void qrnic_sched_timer(struct qrnic_engine *e, struct qrnic_qp *qp)
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

void qrnic_sched_unlink(struct qrnic_engine *e, struct qrnic_qp *qp)
{
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
    e->loop_head = 0;
    e->loop_count = 0;
}

void qrnic_engine_timer(struct qrnic_engine *e)
{
    uint64_t now = e->ops->now_ns(e->opaque), next = UINT64_MAX;
    struct qrnic_qp *qp, *n;

    e->timer_armed = UINT64_MAX;
    for (qp = e->timed_qps.head; qp; qp = n) {
        n = qp->timed_next;
        if (qp_deadline(qp) <= now) {
            qrnic_req_timer(e, qp, now);
        }
    }
    /* Handlers may have moved deadlines: ask for the earliest one. */
    for (qp = e->timed_qps.head; qp; qp = qp->timed_next) {
        uint64_t d = qp_deadline(qp);

        next = d < next ? d : next;
    }
    e->timer_armed = next;
    e->ops->timer_mod(e->opaque, next);
}

void qrnic_tx(struct qrnic_engine *e, const uint8_t *frame, size_t len)
{
    qrnic_stat(e, QRNIC_STAT_TX_ROCE_PKTS);
    if (memcmp(frame, e->mac, 6)) {
        e->ops->tx_frame(e->opaque, frame, len);
        return;
    }
    /* To ourselves (a QP talking to a QP of this device). */
    if (!e->loop_buf) {
        e->loop_buf = malloc(LOOP_SLOTS * QRNIC_ETH_MAX_FRAME);
    }
    if (!e->loop_buf || e->loop_count == LOOP_SLOTS ||
        len > QRNIC_ETH_MAX_FRAME) {
        return;                 /* dropped, as a full wire would */
    }
    {
        uint32_t slot = (e->loop_head + e->loop_count) % LOOP_SLOTS;

        memcpy(e->loop_buf + (size_t)slot * QRNIC_ETH_MAX_FRAME, frame, len);
        e->loop_len[slot] = (uint16_t)len;
        e->loop_count++;
    }
    e->ops->schedule(e->opaque);
}

static bool qp_work(struct qrnic_engine *e, struct qrnic_qp *qp)
{
    bool more;

    if (qp->state == QRNIC_QPS_ERR) {
        qrnic_resp_work(e, qp, QRNIC_BUDGET);
        qrnic_qp_flush(e, qp);
        return false;
    }
    more = qrnic_resp_work(e, qp, QRNIC_BUDGET);
    more |= qrnic_req_work(e, qp, QRNIC_BUDGET);
    return more;
}

void qrnic_engine_work(struct qrnic_engine *e)
{
    uint32_t n = e->loop_count, turns = 0;
    struct qrnic_qp *qp;

    while (n--) {
        uint32_t slot = e->loop_head;

        /* The slot stays ours while it is processed; replies go behind. */
        qrnic_roce_rx(e, e->loop_buf + (size_t)slot * QRNIC_ETH_MAX_FRAME,
                      e->loop_len[slot]);
        e->loop_head = (slot + 1) % LOOP_SLOTS;
        e->loop_count--;
    }
    /* One turn for each QP that was ready when we started. */
    for (qp = e->ready_qps.head; qp; qp = qp->ready_next) {
        turns++;
    }
    while (turns-- && (qp = e->ready_qps.head)) {
        ready_del(&e->ready_qps, qp);
        if (qp_work(e, qp)) {
            qrnic_sched_qp(e, qp);
        }
    }
    if (e->ready_qps.head || e->loop_count) {
        e->ops->schedule(e->opaque);
    }
}
