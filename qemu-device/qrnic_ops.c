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

static int qrnic_pci_dma(QrnicState *s, uint64_t addr, void *buf, size_t len,
                         DMADirection dir)
{
    if (addr + len < addr ||
        pci_dma_rw(PCI_DEVICE(s), addr, buf, len, dir,
                   MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        trace_qrnic_dma_error(dir == DMA_DIRECTION_FROM_DEVICE, addr, len);
        return -1;
    }
    return 0;
}

static int qrnic_pci_dma_read(void *opaque, uint64_t addr, void *buf,
                              size_t len)
{
    return qrnic_pci_dma(opaque, addr, buf, len, DMA_DIRECTION_TO_DEVICE);
}

static int qrnic_pci_dma_write(void *opaque, uint64_t addr, const void *buf,
                               size_t len)
{
    return qrnic_pci_dma(opaque, addr, (void *)buf, len,
                         DMA_DIRECTION_FROM_DEVICE);
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

/* The engine's events: trace events; LOG_GUEST_ERROR for refused actions. */
static void qrnic_event_cb(void *opaque, const struct qrnic_event *ev)
{
    switch (ev->kind) {
    case QRNIC_EV_CMD_DONE:
        trace_qrnic_admin_cmd(ev->cmd.opcode, ev->cmd.cookie, ev->cmd.status,
                              ev->cmd.result0, ev->cmd.result1);
        break;
    case QRNIC_EV_CQE:
        trace_qrnic_cqe(ev->cqe.cqn, ev->cqe.qpn, ev->cqe.opcode,
                        ev->cqe.status, ev->cqe.flags);
        break;
    case QRNIC_EV_WRITE_PLACED:
        trace_qrnic_write_placed(ev->qpn);
        break;
    case QRNIC_EV_REPLY_SENT:
        trace_qrnic_reply_sent(ev->qpn);
        break;
    case QRNIC_EV_GUEST_ERROR:
        trace_qrnic_guest_error(ev->guest_error.name, ev->guest_error.a,
                                ev->guest_error.b);
        qemu_log_mask(LOG_GUEST_ERROR, "qrnic: %s: %s: 0x%" PRIx64 ", 0x%"
                      PRIx64 "\n", ev->guest_error.name, ev->guest_error.what,
                      ev->guest_error.a, ev->guest_error.b);
        break;
    case QRNIC_EV_QMEM_READ:
        break;
    }
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

/*
 * Not while something (VFIO) relies on guest memory staying put, and
 * after one failure (e.g. locked memory) never again: each failure is
 * reported, and a guest could have one made per queue it destroys.
 */
static bool qrnic_qmem_discard(void *opaque, uint64_t off, uint64_t len)
{
    QrnicState *s = opaque;
    RAMBlock *rb = s->qmem.ram_block;
    uint64_t page = qemu_ram_pagesize(rb);

    if (s->qmem_discard_failed || ram_block_discard_is_disabled() ||
        ((off | len) & (page - 1))) {
        return false;
    }
    if (ram_block_discard_range(rb, off, len)) {
        s->qmem_discard_failed = true;
        return false;
    }
    return true;
}

const struct qrnic_engine_ops qrnic_engine_glue_ops = {
    .dma_read = qrnic_pci_dma_read,
    .dma_write = qrnic_pci_dma_write,
    .raise_irq = qrnic_raise_irq,
    .tx_frame = qrnic_tx_frame,
    .mac_changed = qrnic_mac_changed,
    .now_ns = qrnic_now_ns,
    .timer_mod = qrnic_timer_mod,
    .schedule = qrnic_schedule,
    .rx_ready = qrnic_rx_ready,
    .event = qrnic_event_cb,
    .qmem_discard = qrnic_qmem_discard,
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
