/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: fault injection on RoCE frames; see qrnic_fault.h and the
 * "Fault injection" section of docs/hardware.md.
 *
 * Every frame draws all four decisions, whatever it is and whatever is
 * held, so the n-th frame of a direction meets the same fate for a seed.
 * A held frame is owned by nobody else: it is taken off its slot before
 * it is delivered, so nothing a delivery sets off can see it twice.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_roce.h"

/* splitmix64: any seed, 0 included, gives a good sequence. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* True with probability ppm / 1000000. */
static bool draw(struct qrnic_fault *f, int dir, uint32_t ppm)
{
    uint64_t r = next(&f->rng[dir]) >> 32;

    return (r * QRNIC_FAULT_PPM_MAX) >> 32 < ppm;
}

static void reseed(struct qrnic_fault *f)
{
    int dir;

    for (dir = 0; dir < QRNIC_FAULT_NDIR; dir++) {
        f->rng[dir] = f->cfg.seed ^ (0x51a7e5eedull * (uint64_t)(dir + 1));
    }
}

int qrnic_engine_set_fault(struct qrnic_engine *e,
                           const struct qrnic_fault_cfg *cfg)
{
    if (cfg->drop_ppm > QRNIC_FAULT_PPM_MAX ||
        cfg->dup_ppm > QRNIC_FAULT_PPM_MAX ||
        cfg->reorder_ppm > QRNIC_FAULT_PPM_MAX ||
        cfg->corrupt_ppm > QRNIC_FAULT_PPM_MAX) {
        return -1;
    }
    e->fault.cfg = *cfg;
    reseed(&e->fault);
    return 0;
}

static void deliver(struct qrnic_engine *e, int dir, const uint8_t *frame,
                    size_t len)
{
    if (dir == QRNIC_FAULT_TX) {
        e->ops->tx_frame(e->opaque, frame, len);
    } else {
        qrnic_roce_rx(e, frame, len);
    }
}

static void count(struct qrnic_engine *e, enum qrnic_stat tx_stat, int dir)
{
    qrnic_stat(e, (enum qrnic_stat)(tx_stat + dir));
}

/* Flip one byte after the BTH (headers, payload or the ICRC itself). */
static void corrupt(struct qrnic_fault *f, int dir, uint8_t *p, size_t len)
{
    struct qrnic_roce_pkt pkt;
    uint64_t r = next(&f->rng[dir]);
    size_t from = len - 1, span = 1;

    if (qrnic_roce_parse(p, len, &pkt)) {
        from = pkt.bth + sizeof(struct qrnic_bth);
        span = pkt.end - from;
    }
    p[from + (size_t)(r % span)] ^= (uint8_t)(1 + (r >> 32) % 255);
}

static bool hold(struct qrnic_engine *e, int dir, const uint8_t *frame,
                 size_t len)
{
    struct qrnic_fault *f = &e->fault;
    uint64_t until = e->ops->now_ns(e->opaque) + QRNIC_FAULT_HOLD_NS;

    if (len > QRNIC_ETH_MAX_FRAME) {
        return false;
    }
    f->held[dir] = malloc(len);
    if (!f->held[dir]) {
        return false;
    }
    memcpy(f->held[dir], frame, len);
    f->held_len[dir] = (uint16_t)len;
    f->held_until[dir] = until;
    if (until < e->timer_armed) {
        e->timer_armed = until;
        e->ops->timer_mod(e->opaque, until);
    }
    return true;
}

static void release(struct qrnic_engine *e, int dir)
{
    struct qrnic_fault *f = &e->fault;
    uint8_t *p = f->held[dir];

    if (!p) {
        return;
    }
    f->held[dir] = NULL;
    deliver(e, dir, p, f->held_len[dir]);
    free(p);
}

static void impair(struct qrnic_engine *e, int dir, const uint8_t *frame,
                   size_t len)
{
    struct qrnic_fault *f = &e->fault;
    bool drop = draw(f, dir, f->cfg.drop_ppm);
    bool bad = draw(f, dir, f->cfg.corrupt_ppm);
    bool dup = draw(f, dir, f->cfg.dup_ppm);
    bool late = draw(f, dir, f->cfg.reorder_ppm);
    bool was_held = f->held[dir] != NULL;
    uint8_t *copy = NULL;
    int n = dup ? 2 : 1;

    if (drop) {
        count(e, QRNIC_STAT_FAULT_DROP_TX, dir);
        n = 0;
    } else {
        copy = bad ? malloc(len) : NULL;
        if (copy) {
            memcpy(copy, frame, len);
            corrupt(f, dir, copy, len);
            frame = copy;
            count(e, QRNIC_STAT_FAULT_CORRUPT_TX, dir);
        }
        if (dup) {
            count(e, QRNIC_STAT_FAULT_DUP_TX, dir);
        }
        /* One slot: a frame goes after the one held, not in its place. */
        if (late && !was_held && hold(e, dir, frame, len)) {
            count(e, QRNIC_STAT_FAULT_REORDER_TX, dir);
            n--;
        }
    }
    while (n-- > 0) {
        deliver(e, dir, frame, len);
    }
    free(copy);
    if (was_held) {
        release(e, dir);
    }
}

void qrnic_fault_tx(struct qrnic_engine *e, const uint8_t *frame, size_t len)
{
    const struct qrnic_fault_cfg *c = &e->fault.cfg;

    if (!(c->drop_ppm | c->dup_ppm | c->reorder_ppm | c->corrupt_ppm) &&
        !e->fault.held[QRNIC_FAULT_TX]) {
        e->ops->tx_frame(e->opaque, frame, len);
        return;
    }
    impair(e, QRNIC_FAULT_TX, frame, len);
}

void qrnic_fault_rx(struct qrnic_engine *e, const uint8_t *frame, size_t len)
{
    const struct qrnic_fault_cfg *c = &e->fault.cfg;

    if (!(c->drop_ppm | c->dup_ppm | c->reorder_ppm | c->corrupt_ppm) &&
        !e->fault.held[QRNIC_FAULT_RX]) {
        qrnic_roce_rx(e, frame, len);
        return;
    }
    impair(e, QRNIC_FAULT_RX, frame, len);
}

void qrnic_fault_expire(struct qrnic_engine *e, uint64_t now)
{
    int dir;

    for (dir = 0; dir < QRNIC_FAULT_NDIR; dir++) {
        if (e->fault.held[dir] && e->fault.held_until[dir] <= now) {
            release(e, dir);
        }
    }
}

uint64_t qrnic_fault_deadline(const struct qrnic_engine *e)
{
    uint64_t d = UINT64_MAX;
    int dir;

    for (dir = 0; dir < QRNIC_FAULT_NDIR; dir++) {
        if (e->fault.held[dir] && e->fault.held_until[dir] < d) {
            d = e->fault.held_until[dir];
        }
    }
    return d;
}

void qrnic_fault_reset(struct qrnic_engine *e)
{
    int dir;

    for (dir = 0; dir < QRNIC_FAULT_NDIR; dir++) {
        free(e->fault.held[dir]);
        e->fault.held[dir] = NULL;
        e->fault.held_len[dir] = 0;
        e->fault.held_until[dir] = 0;
    }
    reseed(&e->fault);
}
