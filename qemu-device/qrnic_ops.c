/*
 * QEMU qrnic: the engine's ops table implemented with QEMU services
 * (PCI DMA, MSI-X, the NIC backend) and the admin queue bottom half.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/log.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci_device.h"
#include "net/net.h"
#include "qrnic.h"
#include "engine/qrnic_roce.h"
#include "trace.h"

static int qrnic_pci_dma_read(void *opaque, uint64_t addr, void *buf,
                              size_t len)
{
    QrnicState *s = opaque;

    if (addr + len < addr ||
        pci_dma_read(PCI_DEVICE(s), addr, buf, len) != MEMTX_OK) {
        trace_qrnic_dma_error(0, addr, len);
        return -1;
    }
    return 0;
}

static int qrnic_pci_dma_write(void *opaque, uint64_t addr, const void *buf,
                               size_t len)
{
    QrnicState *s = opaque;

    if (addr + len < addr ||
        pci_dma_write(PCI_DEVICE(s), addr, buf, len) != MEMTX_OK) {
        trace_qrnic_dma_error(1, addr, len);
        return -1;
    }
    return 0;
}

static void qrnic_raise_irq(void *opaque, unsigned int vector)
{
    PCIDevice *pdev = PCI_DEVICE(opaque);

    trace_qrnic_irq(vector);
    if (msix_enabled(pdev)) {
        msix_notify(pdev, vector);
    }
}

void qrnic_trace_frame(bool rx, const uint8_t *frame, size_t len)
{
    uint32_t qpn = 0, psn = 0;
    uint8_t op;
    int opcode = -1;

    if (qrnic_roce_peek(frame, len, &op, &qpn, &psn)) {
        opcode = op;
    }
    if (rx) {
        trace_qrnic_rx_frame(len, opcode, qpn, psn);
    } else {
        trace_qrnic_tx_frame(len, opcode, qpn, psn);
    }
}

static void qrnic_tx_frame(void *opaque, const uint8_t *frame, size_t len)
{
    QrnicState *s = opaque;

    s->tx_count++;
    if (trace_event_get_state_backends(TRACE_QRNIC_TX_FRAME)) {
        qrnic_trace_frame(false, frame, len);
    }
    qemu_send_packet(qemu_get_queue(s->nic), frame, len);
    trace_qrnic_tx_done();
}

static void qrnic_cmd_done(void *opaque, uint8_t opcode, uint16_t cookie,
                           uint8_t status, uint32_t result0, uint32_t result1)
{
    trace_qrnic_admin_cmd(opcode, cookie, status, result0, result1);
}

/*
 * Does this completion bring what a guest that rang a doorbell waits for
 * (qrnic_linger.c)?  A receive, a READ's or an atomic's data do; a SEND's
 * or WRITE's own completion only says that the peer has it.
 */
static bool qrnic_cqe_answers(uint8_t opcode)
{
    switch (opcode) {
    case QRNIC_CQE_OP_RDMA_READ:
    case QRNIC_CQE_OP_COMP_SWAP:
    case QRNIC_CQE_OP_FETCH_ADD:
        return true;
    default:
        return opcode >= QRNIC_CQE_OP_RECV;
    }
}

static void qrnic_cqe_posted(void *opaque, uint32_t cqn, uint32_t qpn,
                             uint8_t opcode, uint8_t status, uint8_t flags)
{
    QrnicState *s = opaque;

    trace_qrnic_cqe(cqn, qpn, opcode, status, flags);
    if (qrnic_cqe_answers(opcode)) {
        s->rx_answered = true;
    }
}

/* A guest waiting for this WRITE watches its memory: an answer too. */
static void qrnic_write_placed(void *opaque, uint32_t qpn)
{
    QrnicState *s = opaque;

    trace_qrnic_write_placed(qpn);
    s->rx_answered = true;
}

/* A requester waiting for this reply sends its next request once in. */
static void qrnic_reply_sent(void *opaque, uint32_t qpn)
{
    QrnicState *s = opaque;

    trace_qrnic_reply_sent(qpn);
    qrnic_linger_after_reply(s);
}

static void qrnic_guest_error_log(void *opaque, enum qrnic_guest_err cause,
                                  const char *name, const char *what,
                                  uint64_t a, uint64_t b)
{
    trace_qrnic_guest_error(name, a, b);
    qemu_log_mask(LOG_GUEST_ERROR, "qrnic: %s: %s: 0x%" PRIx64 ", 0x%" PRIx64
                  "\n", name, what, a, b);
}

static void qrnic_mac_changed(void *opaque, const uint8_t *mac)
{
    QrnicState *s = opaque;
    uint8_t copy[6];

    /* Realize resets the engine before it has made the NIC. */
    if (s->nic) {
        memcpy(copy, mac, sizeof(copy));    /* the helper takes non-const */
        qemu_format_nic_info_str(qemu_get_queue(s->nic), copy);
    }
}

static uint64_t qrnic_now_ns(void *opaque)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

/* The engine may ask before realize has made the timer and bottom half. */
static void qrnic_timer_mod(void *opaque, uint64_t deadline_ns)
{
    QrnicState *s = opaque;

    if (!s->rdma_timer) {
        return;
    }
    if (deadline_ns >= INT64_MAX) {
        timer_del(s->rdma_timer);
    } else {
        timer_mod_ns(s->rdma_timer, deadline_ns);
    }
}

static void qrnic_schedule(void *opaque)
{
    QrnicState *s = opaque;

    if (s->work_bh) {
        trace_qrnic_work_sched();
        qemu_bh_schedule(s->work_bh);
    }
}

static void qrnic_rx_ready(void *opaque)
{
    qrnic_rx_flush(opaque);
}

const struct qrnic_engine_ops qrnic_engine_glue_ops = {
    .dma_read = qrnic_pci_dma_read,
    .dma_write = qrnic_pci_dma_write,
    .raise_irq = qrnic_raise_irq,
    .tx_frame = qrnic_tx_frame,
    .cmd_done = qrnic_cmd_done,
    .mac_changed = qrnic_mac_changed,
    .now_ns = qrnic_now_ns,
    .timer_mod = qrnic_timer_mod,
    .schedule = qrnic_schedule,
    .rx_ready = qrnic_rx_ready,
    .cqe_posted = qrnic_cqe_posted,
    .write_placed = qrnic_write_placed,
    .reply_sent = qrnic_reply_sent,
    .guest_error = qrnic_guest_error_log,
};

void qrnic_work_bh(void *opaque)
{
    QrnicState *s = opaque;
    uint64_t tx = s->tx_count, rx = s->rx_count;

    trace_qrnic_work_start();
    qrnic_engine_work(&s->eng);
    trace_qrnic_work_end(s->tx_count - tx, s->rx_count - rx);
}

/*
 * QEMU runs timer callbacks without the device's re-entrancy guard, so a
 * DMA the engine does from one could reach our own registers: the expiry
 * is handled by a guarded bottom half instead.
 */
void qrnic_timer_cb(void *opaque)
{
    QrnicState *s = opaque;

    qemu_bh_schedule(s->timer_bh);
}

void qrnic_timer_bh(void *opaque)
{
    QrnicState *s = opaque;

    trace_qrnic_timer_fire();
    qrnic_engine_timer(&s->eng);
}
