/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The QEMU 10.0-like fake platform; see qfake.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qfake.h"
#include "qrnic_check.h"

#define BAR0_REGS_SIZE  QRNIC_MSIX_TABLE_OFF

void qf_check(struct qf_dev *d, const char *where)
{
    const char *why = qrnic_engine_check(&d->e);

    if (!why && !d->bh_scheduled &&
        (d->e.ready_qps.head || d->e.backlog_count || d->e.eth_tx_kick)) {
        why = "work left and no work call asked for";
    }
    if (why) {
        fflush(stdout);
        fprintf(stderr, "qfake: engine invariant broken after %s: %s\n",
                where, why);
        abort();
    }
}

static bool in(uint64_t addr, size_t len, uint64_t base, uint64_t size)
{
    return addr >= base && len <= size && addr - base <= size - len;
}

uint8_t *qf_ram(struct qf_dev *d, uint64_t gpa, size_t len)
{
    if (!in(gpa, len, QF_RAM_BASE, d->ram_size)) {
        fprintf(stderr, "qfake: 0x%llx+%zu is not guest RAM\n",
                (unsigned long long)gpa, len);
        abort();
    }
    return d->ram + (gpa - QF_RAM_BASE);
}

/* ---- MMIO dispatch, as memory_region_dispatch_read/write ------------------ */

static bool is_mmio(struct qf_dev *d, uint64_t gpa, size_t len)
{
    return in(gpa, len, QF_BAR0_BASE, BAR0_REGS_SIZE) ||
           in(gpa, len, QF_BAR2_BASE,
              (uint64_t)d->db_pages * QRNIC_DB_PAGE_SIZE);
}

/* One access of 1..8 bytes to BAR0 or BAR2; false if refused or invalid. */
static bool mmio_access(struct qf_dev *d, uint64_t gpa, uint64_t *val,
                        unsigned int size, bool write)
{
    bool bar0 = gpa < QF_BAR0_BASE + BAR0_REGS_SIZE && gpa >= QF_BAR0_BASE;
    uint64_t off = gpa - (bar0 ? QF_BAR0_BASE : QF_BAR2_BASE);
    unsigned int i;

    /* .valid: 4 or 8 bytes, naturally aligned (else MEMTX_DECODE_ERROR). */
    if ((size != 4 && size != 8) || (gpa & (size - 1))) {
        return false;
    }
    if (d->guard) {
        d->blocked_reentry++;           /* "Blocked re-entrant IO" */
        return false;
    }
    d->guard = true;
    if (bar0) {
        /* .impl.max_access_size 4: an 8-byte access is two 4-byte ones. */
        for (i = 0; i < size; i += 4) {
            if (write) {
                qrnic_engine_reg_write(&d->e, (uint32_t)(off + i),
                                       (uint32_t)(*val >> (8 * i)));
            } else {
                uint64_t v = qrnic_engine_reg_read(&d->e, (uint32_t)(off + i));

                *val = i ? *val | v << 32 : v;
            }
        }
    } else if (write) {
        qrnic_engine_db_write(&d->e, off, *val, size);
    } else {
        *val = 0;
    }
    d->guard = false;
    return true;
}

uint64_t qf_mmio_read(struct qf_dev *d, uint64_t gpa, unsigned int size)
{
    uint64_t val = 0;

    if (in(gpa, size, QF_BAR4_BASE, d->qmem_size)) {
        memcpy(&val, d->qmem + (gpa - QF_BAR4_BASE), size);
    } else if (!mmio_access(d, gpa, &val, size, false)) {
        val = ~0ull;
    }
    qf_check(d, "MMIO read");
    return val;
}

void qf_mmio_write(struct qf_dev *d, uint64_t gpa, uint64_t val,
                   unsigned int size)
{
    if (in(gpa, size, QF_BAR4_BASE, d->qmem_size)) {
        memcpy(d->qmem + (gpa - QF_BAR4_BASE), &val, size);
    } else {
        mmio_access(d, gpa, &val, size, true);
    }
    qf_check(d, "MMIO write");
}

uint32_t qf_reg_read(struct qf_dev *d, uint32_t reg)
{
    return (uint32_t)qf_mmio_read(d, QF_BAR0_BASE + reg, 4);
}

void qf_reg_write(struct qf_dev *d, uint32_t reg, uint32_t val)
{
    qf_mmio_write(d, QF_BAR0_BASE + reg, val, 4);
}

void qf_doorbell(struct qf_dev *d, uint32_t page, uint32_t off, uint64_t val)
{
    qf_mmio_write(d, QF_BAR2_BASE + (uint64_t)page * QRNIC_DB_PAGE_SIZE + off,
                  val, 8);
}

/* ---- device DMA, as pci_dma_read/write --------------------------------------- */

/* DMA that lands on MMIO goes through dispatch, 8 bytes at most a piece. */
static int dma_mmio(struct qf_dev *d, uint64_t addr, uint8_t *buf, size_t len,
                    bool write)
{
    size_t done = 0;

    d->reg_dma++;
    while (done < len) {
        unsigned int n = len - done >= 8 && !((addr + done) & 7) ? 8 : 4;
        uint64_t v = 0;

        if (len - done < n) {
            return -1;
        }
        if (write) {
            memcpy(&v, buf + done, n);
        }
        if (!mmio_access(d, addr + done, &v, n, write)) {
            return -1;
        }
        if (!write) {
            memcpy(buf + done, &v, n);
        }
        done += n;
    }
    return 0;
}

static int dma(struct qf_dev *d, uint64_t addr, uint8_t *buf, size_t len,
               bool write)
{
    uint8_t *p = NULL;

    if (in(addr, len, QF_RAM_BASE, d->ram_size)) {
        p = d->ram + (addr - QF_RAM_BASE);
    } else if (in(addr, len, QF_BAR4_BASE, d->qmem_size)) {
        p = d->qmem + (addr - QF_BAR4_BASE);
    } else if (is_mmio(d, addr, len)) {
        return dma_mmio(d, addr, buf, len, write);
    } else {
        d->dma_errors++;
        return -1;
    }
    if (write) {
        memmove(p, buf, len);
    } else {
        memmove(buf, p, len);
    }
    return 0;
}

static int op_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    return dma(opaque, addr, buf, len, false);
}

static int op_dma_write(void *opaque, uint64_t addr, const void *buf,
                        size_t len)
{
    return dma(opaque, addr, (uint8_t *)buf, len, true);
}

static void op_raise_irq(void *opaque, unsigned int vector)
{
    struct qf_dev *d = opaque;

    if (vector >= QRNIC_NUM_MSIX) {
        fprintf(stderr, "qfake: vector %u out of range\n", vector);
        abort();
    }
    d->irqs[vector]++;
}

/* qemu_send_packet from the NIC: the hub delivers at once, else the wire. */
static void op_tx_frame(void *opaque, const uint8_t *frame, size_t len)
{
    struct qf_dev *d = opaque;

    if (len > QRNIC_ETH_MAX_FRAME) {
        fprintf(stderr, "qfake: frame of %zu bytes\n", len);
        abort();
    }
    d->tx_frames++;
    d->tx_len = len;
    memcpy(d->tx_last, frame, len);
    if (d->link_down) {
        return;                     /* qemu_send_packet drops it */
    }
    if (d->hub_peer) {
        qf_receive(d->hub_peer, frame, len);
    } else if (d->wire) {
        d->wire(d->wire_opaque, d, frame, len);
    }
}

static uint64_t op_now_ns(void *opaque)
{
    struct qf_dev *d = opaque;

    return d->clock ? *d->clock : 0;
}

static void op_timer_mod(void *opaque, uint64_t deadline)
{
    struct qf_dev *d = opaque;

    d->deadline = deadline;
}

static void op_schedule(void *opaque)
{
    struct qf_dev *d = opaque;

    d->bh_scheduled = true;
}

static void flush_queued(struct qf_dev *d);

static void op_rx_ready(void *opaque)
{
    flush_queued(opaque);
}

static uint64_t rng(struct qf_dev *d)
{
    d->hostile_rng ^= d->hostile_rng >> 12;
    d->hostile_rng ^= d->hostile_rng << 25;
    d->hostile_rng ^= d->hostile_rng >> 27;
    return d->hostile_rng * 0x2545f4914f6cdd1dull;
}

/* A guest vCPU storing into the bytes the engine is about to copy. */
static void qmem_read(struct qf_dev *d, uint64_t off, size_t len)
{
    if (!d->hostile_rng || !len || rng(d) % 100 >= d->hostile_pct) {
        return;
    }
    d->qmem[off + rng(d) % len] = (uint8_t)rng(d);
}

static void guest_error(struct qf_dev *d, const struct qrnic_event *ev)
{
    enum qrnic_guest_err cause = ev->guest_error.cause;

    if (!ev->guest_error.name || !ev->guest_error.what ||
        cause >= QRNIC_GUEST_ERR_MAX) {
        fprintf(stderr, "qfake: guest error %d without a row\n", cause);
        abort();
    }
    d->guest_errs[cause]++;
    d->last_guest_err = cause;
    d->guest_err_a = ev->guest_error.a;
    d->guest_err_b = ev->guest_error.b;
}

static void op_event(void *opaque, const struct qrnic_event *ev)
{
    struct qf_dev *d = opaque;

    switch (ev->kind) {
    case QRNIC_EV_WRITE_PLACED:
        d->placed_qpn = ev->qpn;
        d->writes_placed++;
        break;
    case QRNIC_EV_REPLY_SENT:
        d->replied_qpn = ev->qpn;
        d->replies_sent++;
        break;
    case QRNIC_EV_GUEST_ERROR:
        guest_error(d, ev);
        break;
    case QRNIC_EV_QMEM_READ:
        qmem_read(d, ev->qmem.off, ev->qmem.len);
        break;
    case QRNIC_EV_CMD_DONE:
    case QRNIC_EV_CQE:
        break;
    }
}

static const struct qrnic_engine_ops qf_ops = {
    .dma_read = op_dma_read,
    .dma_write = op_dma_write,
    .raise_irq = op_raise_irq,
    .tx_frame = op_tx_frame,
    .now_ns = op_now_ns,
    .timer_mod = op_timer_mod,
    .schedule = op_schedule,
    .rx_ready = op_rx_ready,
    .event = op_event,
};

/* ---- the netdev, as qemu_deliver_packet_iov and the net queue ---------------- */

/*
 * Deliver one frame (qemu_deliver_packet_iov); false if it was not taken:
 * receive disabled, or the device returned 0, which disables receive.
 */
static bool deliver(struct qf_dev *d, const uint8_t *frame, size_t len)
{
    bool owned = !d->guard;
    size_t ret;

    if (d->link_down) {
        return true;                /* dropped */
    }
    if (d->receive_disabled) {
        return false;
    }
    if (owned) {
        d->guard = true;
    }
    d->delivering = true;
    ret = qrnic_engine_receive(&d->e, frame, len);
    d->delivering = false;
    if (owned) {
        d->guard = false;
    }
    if (!ret) {
        d->receive_disabled = true;
    }
    return ret != 0;
}

static void enqueue(struct qf_dev *d, const uint8_t *frame, size_t len)
{
    if (d->nqueued == QF_QUEUED_MAX) {
        d->queue_drops++;           /* the sender's queue is full */
        return;
    }
    d->queued_total++;
    d->queued[d->nqueued].len = (uint16_t)len;
    memcpy(d->queued[d->nqueued].data, frame, len);
    d->nqueued++;
}

/*
 * qemu_net_queue_flush: the held frames in order, without asking
 * can_receive, until one is not taken (it stays first); nothing while a
 * frame is being delivered.
 */
static void queue_flush(struct qf_dev *d)
{
    if (d->delivering) {
        return;
    }
    while (d->nqueued) {
        struct qf_frame *f = &d->queued[0];

        if (!deliver(d, f->data, f->len)) {
            break;
        }
        d->nqueued--;
        memmove(d->queued, d->queued + 1, d->nqueued * sizeof(*d->queued));
    }
}

/* qemu_flush_queued_packets, the device's rx_ready. */
static void flush_queued(struct qf_dev *d)
{
    d->receive_disabled = false;
    queue_flush(d);
}

/*
 * qemu_net_queue_send: held if a frame is being delivered or the device
 * cannot receive (receive disabled, can_receive false); otherwise handed
 * over at once, even with older frames still held, then the held ones
 * follow.
 */
void qf_receive(struct qf_dev *d, const uint8_t *frame, size_t len)
{
    if (d->delivering || d->receive_disabled ||
        !qrnic_engine_can_receive(&d->e)) {
        enqueue(d, frame, len);
    } else if (!deliver(d, frame, len)) {
        enqueue(d, frame, len);
    } else {
        queue_flush(d);
    }
    if (!d->e.depth) {              /* not a hub delivering into our send */
        qf_check(d, "receive");
    }
}

void qf_set_link(struct qf_dev *d, bool up)
{
    /* The monitor's set_link: no guard engaged. */
    d->link_down = !up;
    qrnic_engine_set_link(&d->e, up);
    qf_check(d, "set_link");
}

void qf_reset(struct qf_dev *d)
{
    qrnic_engine_reset(&d->e);
    qf_check(d, "reset");
}

/* ---- main loop ------------------------------------------------------------- */

bool qf_run_bh(struct qf_dev *d)
{
    bool was;

    if (!d->bh_scheduled) {
        return false;
    }
    d->bh_scheduled = false;
    was = d->guard;                 /* aio_bh_call with a guard */
    d->guard = true;
    qrnic_engine_work(&d->e);
    d->guard = was;
    qf_check(d, "bottom half");
    return true;
}

bool qf_run_timer(struct qf_dev *d)
{
    if (d->deadline == UINT64_MAX || !d->clock || *d->clock < d->deadline) {
        return false;
    }
    d->deadline = UINT64_MAX;
    qrnic_engine_timer(&d->e);      /* timers run unguarded */
    qf_check(d, "timer");
    return true;
}

bool qf_settle(struct qf_dev *d, unsigned int max_rounds)
{
    while (d->bh_scheduled) {
        if (!max_rounds--) {
            return false;
        }
        qf_run_bh(d);
    }
    return true;
}

void qf_init(struct qf_dev *d, uint64_t ram_size, uint64_t qmem_size,
             uint32_t db_pages, const uint8_t *mac, const uint64_t *clock)
{
    memset(d, 0, sizeof(*d));
    d->ram = calloc(1, ram_size);
    d->qmem = qmem_size ? calloc(1, qmem_size) : NULL;
    d->queued = calloc(QF_QUEUED_MAX, sizeof(*d->queued));
    if (!d->ram || (qmem_size && !d->qmem) || !d->queued) {
        abort();
    }
    d->ram_size = ram_size;
    d->qmem_size = qmem_size;
    d->clock = clock;
    d->deadline = UINT64_MAX;
    qrnic_engine_init(&d->e, &qf_ops, d, db_pages, mac);
    d->db_pages = d->e.db_pages;
    if (qmem_size && qrnic_engine_set_qmem(&d->e, d->qmem, qmem_size)) {
        abort();
    }
}

void qf_fini(struct qf_dev *d)
{
    qrnic_engine_fini(&d->e);
    free(d->ram);
    free(d->qmem);
    free(d->queued);
    d->ram = d->qmem = NULL;
    d->queued = NULL;
}
