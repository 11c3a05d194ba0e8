/*
 * QEMU qrnic: BAR0 register file, reset/enable handshake, interrupt mask
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "hw/pci/msix.h"
#include "qrnic.h"
#include "trace.h"

#define QRNIC_INTR_MASK_ALL ((1u << QRNIC_NUM_MSIX) - 1)

/*
 * Raise a vector unless INTR_MASK masks it; a masked event is remembered
 * and fires when the bit is cleared.
 */
void qrnic_irq_raise(QrnicState *s, unsigned int vector)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    bool masked;

    if (vector >= QRNIC_NUM_MSIX) {
        return;
    }
    masked = s->intr_mask & (1u << vector);
    trace_qrnic_irq(vector, masked);
    if (masked) {
        s->intr_pending |= 1u << vector;
        return;
    }
    if (msix_enabled(pdev)) {
        msix_notify(pdev, vector);
    }
}

static void qrnic_set_intr_mask(QrnicState *s, uint32_t val)
{
    uint32_t unmasked, i;

    s->intr_mask = val & QRNIC_INTR_MASK_ALL;
    unmasked = s->intr_pending & ~s->intr_mask;
    s->intr_pending &= s->intr_mask;
    for (i = 0; i < QRNIC_NUM_MSIX; i++) {
        if (unmasked & (1u << i)) {
            qrnic_irq_raise(s, i);
        }
    }
}

/* Drop all state: objects, rings, pending work, queue memory contents. */
void qrnic_soft_reset(QrnicState *s)
{
    if (s->aq_bh) {
        qemu_bh_cancel(s->aq_bh);
    }
    if (s->tx_bh) {
        qemu_bh_cancel(s->tx_bh);
    }
    if (s->rdma_bh) {
        qemu_bh_cancel(s->rdma_bh);
    }
    qrnic_engine_reset(&s->eng);
    if (s->nic) {
        qemu_format_nic_info_str(qemu_get_queue(s->nic), s->eng.mac);
    }
    s->ctrl = 0;
    s->fatal = false;
    s->init_err = QRNIC_INIT_ERR_NONE;
    s->intr_mask = 0;
    s->intr_pending = 0;
    s->aq_sq_base = 0;
    s->aq_cq_base = 0;
    s->aq_log_depth = 0;
    /* The engine reset cleared the queue memory it was given. */
}

static void qrnic_write_ctrl(QrnicState *s, uint32_t val)
{
    if (val & QRNIC_CTRL_RESET) {
        /* Done synchronously, so the bit reads back clear at once. */
        qrnic_soft_reset(s);
        trace_qrnic_reset("CTRL.RESET");
        return;
    }
    if (!(val & QRNIC_CTRL_ENABLE)) {
        if (s->ctrl & QRNIC_CTRL_ENABLE) {
            qrnic_soft_reset(s);
            trace_qrnic_reset("CTRL.ENABLE cleared");
        }
        return;
    }
    if (s->ctrl & QRNIC_CTRL_ENABLE) {
        return;
    }
    s->ctrl = QRNIC_CTRL_ENABLE;
    s->init_err = qrnic_engine_enable(&s->eng, s->aq_sq_base, s->aq_cq_base,
                                      s->aq_log_depth);
    s->fatal = s->init_err != QRNIC_INIT_ERR_NONE;
    trace_qrnic_enable(s->init_err);
    if (!s->fatal) {
        qrnic_rx_flush(s);
    }
}

static uint32_t qrnic_status(QrnicState *s)
{
    return (s->eng.ready ? QRNIC_STATUS_READY : 0) |
           (s->fatal ? QRNIC_STATUS_FATAL : 0) |
           (s->eng.link_up ? QRNIC_STATUS_LINK_UP : 0);
}

static uint64_t qrnic_regs_read(void *opaque, hwaddr addr, unsigned size)
{
    QrnicState *s = opaque;
    const uint8_t *mac = s->eng.mac;
    uint32_t val;

    switch (addr) {
    case QRNIC_REG_ID:
        val = QRNIC_ID_MAGIC;
        break;
    case QRNIC_REG_VERSION:
        val = QRNIC_VERSION_MAJOR << 16 | QRNIC_VERSION_MINOR;
        break;
    case QRNIC_REG_CAP0:
        val = QRNIC_CAP0_ETH | QRNIC_CAP0_ROCE_V2 | QRNIC_CAP0_RC |
              QRNIC_CAP0_ATOMIC;
        break;
    case QRNIC_REG_NUM_MSIX:
        val = QRNIC_NUM_MSIX;
        break;
    case QRNIC_REG_DB_PAGES:
        val = s->db_pages;
        break;
    case QRNIC_REG_QMEM_PAGES:
        val = s->qmem_size / QRNIC_QMEM_PAGE_SIZE;
        break;
    case QRNIC_REG_AQ_MAX_LOG:
        val = QRNIC_AQ_MAX_LOG;
        break;
    case QRNIC_REG_CTRL:
        val = s->ctrl;
        break;
    case QRNIC_REG_STATUS:
        val = qrnic_status(s);
        break;
    case QRNIC_REG_INIT_ERR:
        val = s->init_err;
        break;
    case QRNIC_REG_INTR_MASK:
        val = s->intr_mask;
        break;
    case QRNIC_REG_MAC_LO:
        val = mac[0] | mac[1] << 8 | mac[2] << 16 | (uint32_t)mac[3] << 24;
        break;
    case QRNIC_REG_MAC_HI:
        val = mac[4] | mac[5] << 8;
        break;
    case QRNIC_REG_AQ_SQ_BASE_LO:
        val = (uint32_t)s->aq_sq_base;
        break;
    case QRNIC_REG_AQ_SQ_BASE_HI:
        val = s->aq_sq_base >> 32;
        break;
    case QRNIC_REG_AQ_CQ_BASE_LO:
        val = (uint32_t)s->aq_cq_base;
        break;
    case QRNIC_REG_AQ_CQ_BASE_HI:
        val = s->aq_cq_base >> 32;
        break;
    case QRNIC_REG_AQ_LOG_DEPTH:
        val = s->aq_log_depth;
        break;
    case QRNIC_REG_STAT_RX_DROP:
        val = s->eng.stats.rx_drop;
        break;
    case QRNIC_REG_STAT_BAD_DB:
        val = s->eng.stats.bad_db;
        break;
    default:
        val = 0;        /* CAP1, write-only and unassigned registers */
        break;
    }
    trace_qrnic_reg_read(addr, val);
    return val;
}

static void qrnic_regs_write(void *opaque, hwaddr addr, uint64_t data,
                             unsigned size)
{
    QrnicState *s = opaque;
    uint32_t val = data;

    trace_qrnic_reg_write(addr, val);
    switch (addr) {
    case QRNIC_REG_CTRL:
        qrnic_write_ctrl(s, val);
        break;
    case QRNIC_REG_INTR_MASK:
        qrnic_set_intr_mask(s, val);
        break;
    case QRNIC_REG_AQ_SQ_BASE_LO:
        s->aq_sq_base = deposit64(s->aq_sq_base, 0, 32, val);
        break;
    case QRNIC_REG_AQ_SQ_BASE_HI:
        s->aq_sq_base = deposit64(s->aq_sq_base, 32, 32, val);
        break;
    case QRNIC_REG_AQ_CQ_BASE_LO:
        s->aq_cq_base = deposit64(s->aq_cq_base, 0, 32, val);
        break;
    case QRNIC_REG_AQ_CQ_BASE_HI:
        s->aq_cq_base = deposit64(s->aq_cq_base, 32, 32, val);
        break;
    case QRNIC_REG_AQ_LOG_DEPTH:
        s->aq_log_depth = val;
        break;
    case QRNIC_REG_AQ_DB:
        /* Only record the index; the bottom half does the work. */
        if (qrnic_aq_doorbell(&s->eng, val)) {
            qemu_bh_schedule(s->aq_bh);
        }
        break;
    case QRNIC_REG_AQ_CQ_CI:
        if (qrnic_aq_cq_doorbell(&s->eng, val) && qrnic_aq_pending(&s->eng)) {
            qemu_bh_schedule(s->aq_bh);
        }
        break;
    default:
        break;          /* read-only and unassigned registers */
    }
}

const MemoryRegionOps qrnic_regs_ops = {
    .read = qrnic_regs_read,
    .write = qrnic_regs_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};
