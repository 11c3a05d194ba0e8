/*
 * QEMU qrnic: the main loop keeps polling the netdev for a while after a
 * doorbell has sent frames, instead of sleeping until the answer comes.
 *
 * A doorbell's frames go out from the guest's vCPU thread (x-db-work); the
 * answer is received by the main loop.  On a host where that loop sleeps
 * and must be woken on another core, the wakeup costs its writer and the
 * wait more than the device's own work; while the loop polls, a frame
 * written to it is taken at once (docs/performance.md).
 *
 * It runs only while QEMU's main loop is bound to one host CPU (taskset),
 * as when each guest's QEMU has a core of its own: there the poll can only
 * take time from this QEMU's own vCPUs, which are waiting for the answer.
 * On shared cores it would take it from the peer that is to answer (a
 * second polling thread beside two busy vCPUs on two cores), and the
 * round trip grew by two thirds when it was tried.
 *
 * The poll is a bottom half that schedules itself until the deadline, so
 * the main loop goes on serving everything else between its turns.  It
 * stops as soon as an answer arrives (a receive, READ or atomic completion
 * is written, or an inbound RDMA WRITE is placed: the guest has work, and
 * its vCPU may share the loop's core) or after the current linger time.
 * A responder's reply to a READ, atomic or FLUSH starts a poll too, ended
 * by the next frame, as the requester's next request follows the reply.
 * That time adapts: a poll that ends without an answer halves it,
 * down to nothing, and an answer that comes within
 * QRNIC_LINGER_ANSWER_FACTOR times x-linger-us of a doorbell's frames (or
 * a reply) sets it back to x-linger-us.  So a guest that only sends stops the
 * polling after a few doorbells, and a request/answer exchange keeps it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "qrnic.h"
#include "trace.h"

#define QRNIC_LINGER_ANSWER_FACTOR  4
#define QRNIC_LINGER_MIN_NS         1000
#define QRNIC_LINGER_RECHECK_NS     (100 * 1000 * 1000)

static int64_t linger_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

static int64_t linger_max_ns(const QrnicState *s)
{
    return (int64_t)s->linger_us * 1000;
}

/* Is the main loop's thread allowed on exactly one host CPU? */
static bool main_loop_bound(QrnicState *s, int64_t now)
{
    if (s->linger_checked_ns &&
        now - s->linger_checked_ns < QRNIC_LINGER_RECHECK_NS) {
        return s->linger_bound;
    }
    s->linger_checked_ns = now;
#ifdef CONFIG_LINUX
    {
        cpu_set_t set;

        s->linger_bound = !sched_getaffinity(s->main_tid, sizeof(set), &set) &&
                          CPU_COUNT(&set) == 1;
    }
#else
    s->linger_bound = false;
#endif
    return s->linger_bound;
}

void qrnic_linger_reset(QrnicState *s)
{
    s->linger_ns = linger_max_ns(s);
    s->linger_until = 0;
    s->linger_tx_ns = 0;
    s->linger_any_frame = false;
    s->linger_checked_ns = 0;
}

static void linger_start(QrnicState *s, bool any_frame)
{
    int64_t now;

    if (!s->linger_us) {
        return;
    }
    now = linger_now();
    s->linger_tx_ns = now;
    s->linger_any_frame = any_frame;
    if (s->linger_ns && main_loop_bound(s, now)) {
        s->linger_until = now + s->linger_ns;
        trace_qrnic_linger(s->linger_ns / 1000);
        qemu_bh_schedule(s->linger_bh);
    }
}

/* A doorbell sent frames: poll until an answer (qrnic_ops.c) comes. */
void qrnic_linger_after_tx(QrnicState *s)
{
    linger_start(s, false);
}

/*
 * A reply to a READ, atomic or FLUSH went out: poll until the next frame
 * comes, since a requester that waited for the reply sends its next
 * request once it has it (ib_read_lat's responder never rings a doorbell).
 */
void qrnic_linger_after_reply(QrnicState *s)
{
    linger_start(s, true);
}

void qrnic_linger_answered(QrnicState *s)
{
    if (!s->linger_us) {
        return;
    }
    s->linger_until = 0;
    if (s->linger_tx_ns &&
        linger_now() - s->linger_tx_ns <=
        QRNIC_LINGER_ANSWER_FACTOR * linger_max_ns(s)) {
        s->linger_ns = linger_max_ns(s);
    }
}

static void qrnic_linger_bh(void *opaque)
{
    QrnicState *s = opaque;

    if (!s->linger_until) {
        return;                 /* answered, or switched off */
    }
    if (linger_now() < s->linger_until) {
        qemu_bh_schedule(s->linger_bh);
        return;
    }
    s->linger_until = 0;
    s->linger_ns /= 2;
    if (s->linger_ns < QRNIC_LINGER_MIN_NS) {
        s->linger_ns = 0;
    }
}

/* From realize, in the main loop's thread. */
void qrnic_linger_init(QrnicState *s)
{
    s->main_tid = qemu_get_thread_id();
    s->linger_bh = qemu_bh_new(qrnic_linger_bh, s);
    qrnic_linger_reset(s);
}
