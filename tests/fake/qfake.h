/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake platform for the qrnic engine that behaves like QEMU 10.0 does
 * for a PCI NIC, shared by the unit tests and the fuzz targets:
 *
 * - guest RAM at QF_RAM_BASE; BAR0 (registers), BAR2 (doorbells) and
 *   BAR4 (queue memory, RAM backed) at their own guest addresses.  Device
 *   DMA that lands on BAR0/BAR2 is dispatched to the register and
 *   doorbell handlers, as QEMU's memory core does (BAR0 in 4-byte pieces);
 *   DMA anywhere else outside RAM and BAR4 fails.
 * - the device's re-entrancy guard (MemReentrancyGuard): engaged by MMIO
 *   dispatch, by the device's bottom half and while a frame is delivered
 *   to the device; an MMIO access (or DMA onto the BARs) that finds it
 *   engaged is refused.  Timer callbacks run without it.
 * - one bottom half (ops->schedule) and one timer (ops->timer_mod), run
 *   by the test's loop; frames a receive refused (returned 0) wait in the
 *   backend's queue until ops->rx_ready flushes it.
 * - hub mode: a transmitted frame is delivered synchronously to the peer
 *   device, whose answer comes straight back, as QEMU's hub does.
 * - hostile mode: before each engine read of queue memory, the guest may
 *   rewrite the bytes about to be read.
 * - after every step the engine's invariants are checked (abort on error).
 */
#ifndef QRNIC_QFAKE_H
#define QRNIC_QFAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qrnic_engine.h"

#define QF_RAM_BASE     0x40000000ull
#define QF_BAR0_BASE    0xfe000000ull
#define QF_BAR2_BASE    0xfd000000ull
#define QF_BAR4_BASE    0xe0000000ull
#define QF_QUEUED_MAX   64

struct qf_frame {
    uint16_t len;
    uint8_t data[QRNIC_ETH_MAX_FRAME];
};

struct qf_dev {
    struct qrnic_engine e;
    uint8_t *ram;
    uint64_t ram_size;
    uint8_t *qmem;
    uint64_t qmem_size;
    uint32_t db_pages;
    const uint64_t *clock;      /* virtual time, shared by all devices */

    bool guard;                 /* mem_reentrancy_guard.engaged_in_io */
    bool bh_scheduled;
    uint64_t deadline;          /* timer; UINT64_MAX: none */
    bool link_down;

    /* The netdev: where transmitted frames go unless hub_peer is set. */
    void (*wire)(void *opaque, struct qf_dev *from, const uint8_t *frame,
                 size_t len);
    void *wire_opaque;
    struct qf_dev *hub_peer;

    /*
     * The backend queue of frames the device refused, as QEMU's
     * net/queue.c keeps it: receive_disabled after a receive returned 0,
     * delivering while the queue hands a frame over.
     */
    bool receive_disabled;
    bool delivering;
    struct qf_frame *queued;    /* QF_QUEUED_MAX */
    uint32_t nqueued;
    uint64_t queued_total;      /* frames the queue took */
    uint64_t queue_drops;       /* refused frames the full queue lost */

    uint64_t hostile_rng;       /* 0: not hostile */
    unsigned int hostile_pct;

    unsigned int irqs[QRNIC_NUM_MSIX];
    uint64_t dma_errors;
    uint64_t blocked_reentry;   /* accesses the guard refused */
    uint64_t reg_dma;           /* DMA dispatched to our own BARs */
    uint64_t tx_frames;
    uint64_t writes_placed;     /* ops->write_placed calls */
    uint32_t placed_qpn;        /* ... the last one's QP */
    uint64_t replies_sent;      /* ops->reply_sent calls */
    /* ops->guest_error calls by cause, and the last one's values. */
    uint64_t guest_errs[QRNIC_GUEST_ERR_MAX];
    enum qrnic_guest_err last_guest_err;
    uint64_t guest_err_a;
    uint64_t guest_err_b;
    uint32_t replied_qpn;       /* ... the last one's QP */
    size_t tx_len;              /* the last frame transmitted */
    uint8_t tx_last[QRNIC_ETH_MAX_FRAME];
};

void qf_init(struct qf_dev *d, uint64_t ram_size, uint64_t qmem_size,
             uint32_t db_pages, const uint8_t *mac, const uint64_t *clock);
void qf_fini(struct qf_dev *d);
uint8_t *qf_ram(struct qf_dev *d, uint64_t gpa, size_t len);

/* What the vCPU does: MMIO on BAR0/BAR2/BAR4 (guest physical address). */
uint64_t qf_mmio_read(struct qf_dev *d, uint64_t gpa, unsigned int size);
void qf_mmio_write(struct qf_dev *d, uint64_t gpa, uint64_t val,
                   unsigned int size);
/* Convenience: a BAR0 register, a doorbell on page/offset. */
uint32_t qf_reg_read(struct qf_dev *d, uint32_t reg);
void qf_reg_write(struct qf_dev *d, uint32_t reg, uint32_t val);
void qf_doorbell(struct qf_dev *d, uint32_t page, uint32_t off, uint64_t val);

/* What the netdev does: deliver a frame to the device. */
void qf_receive(struct qf_dev *d, const uint8_t *frame, size_t len);
void qf_set_link(struct qf_dev *d, bool up);
/* QEMU's device reset. */
void qf_reset(struct qf_dev *d);

/* The main loop: run the bottom half if scheduled (true if it ran). */
bool qf_run_bh(struct qf_dev *d);
/* Fire the timer if its deadline has passed (true if it fired). */
bool qf_run_timer(struct qf_dev *d);
/* Bottom halves until none is scheduled (bounded); false if it hit the bound. */
bool qf_settle(struct qf_dev *d, unsigned int max_rounds);

/* Abort with a message if the engine's invariants do not hold. */
void qf_check(struct qf_dev *d, const char *where);

#endif
