/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the BAR0 register file - identity and capabilities, the
 * CTRL/STATUS reset and enable handshake, INTR_MASK with pending vectors,
 * the admin queue registers and two drop counters.  Accesses are aligned
 * 32-bit; unassigned registers read 0 and ignore writes.
 */
#include "qrnic_engine.h"

#define INTR_MASK_ALL ((uint32_t)((1ull << QRNIC_NUM_MSIX) - 1))

static uint64_t set_half(uint64_t reg, bool high, uint32_t val)
{
    return high ? (reg & 0xffffffffull) | (uint64_t)val << 32 :
                  (reg & ~0xffffffffull) | val;
}

void qrnic_regs_reset(struct qrnic_engine *e)
{
    struct qrnic_regs *r = &e->regs;

    r->ctrl = 0;
    r->fatal = false;
    r->init_err = QRNIC_INIT_ERR_NONE;
    r->intr_mask = 0;
    r->intr_pending = 0;
    r->aq_sq_base = 0;
    r->aq_cq_base = 0;
    r->aq_log_depth = 0;
}

void qrnic_engine_raise(struct qrnic_engine *e, unsigned int vector)
{
    if (vector >= QRNIC_NUM_MSIX) {
        return;
    }
    if (e->regs.intr_mask & (1u << vector)) {
        e->regs.intr_pending |= 1u << vector;   /* fires when unmasked */
        return;
    }
    e->ops->raise_irq(e->opaque, vector);
}

static void set_intr_mask(struct qrnic_engine *e, uint32_t val)
{
    struct qrnic_regs *r = &e->regs;
    uint32_t unmasked, i;

    r->intr_mask = val & INTR_MASK_ALL;
    unmasked = r->intr_pending & ~r->intr_mask;
    r->intr_pending &= r->intr_mask;
    for (i = 0; i < QRNIC_NUM_MSIX; i++) {
        if (unmasked & (1u << i)) {
            e->ops->raise_irq(e->opaque, i);
        }
    }
}

static void write_ctrl(struct qrnic_engine *e, uint32_t val)
{
    struct qrnic_regs *r = &e->regs;

    if (val & QRNIC_CTRL_RESET) {
        qrnic_engine_clear(e);          /* RESET reads back clear at once */
        return;
    }
    if (!(val & QRNIC_CTRL_ENABLE)) {
        if (r->ctrl & QRNIC_CTRL_ENABLE) {
            qrnic_engine_clear(e);
        }
        return;
    }
    if (r->ctrl & QRNIC_CTRL_ENABLE) {
        return;
    }
    r->ctrl = QRNIC_CTRL_ENABLE;
    r->init_err = qrnic_engine_enable(e, r->aq_sq_base, r->aq_cq_base,
                                      r->aq_log_depth);
    r->fatal = r->init_err != QRNIC_INIT_ERR_NONE;
    if (r->fatal) {
        qrnic_guest_error(e, QRNIC_GUEST_ERR_AQ_INIT, r->init_err,
                          r->aq_log_depth);
    } else {
        e->rx_ready_wanted = true;
    }
}

static uint32_t status(const struct qrnic_engine *e)
{
    return (e->ready ? QRNIC_STATUS_READY : 0) |
           (e->regs.fatal ? QRNIC_STATUS_FATAL : 0) |
           (e->link_up ? QRNIC_STATUS_LINK_UP : 0);
}

uint32_t qrnic_regs_read(struct qrnic_engine *e, uint32_t addr)
{
    const struct qrnic_regs *r = &e->regs;
    const uint8_t *mac = e->mac;

    switch (addr) {
    case QRNIC_REG_ID:
        return QRNIC_ID_MAGIC;
    case QRNIC_REG_VERSION:
        return QRNIC_VERSION_MAJOR << 16 | QRNIC_VERSION_MINOR;
    case QRNIC_REG_CAP0:
        return QRNIC_CAP0_ETH | QRNIC_CAP0_ROCE_V2 | QRNIC_CAP0_RC |
               QRNIC_CAP0_ATOMIC | QRNIC_CAP0_UD | QRNIC_CAP0_SRQ |
               QRNIC_CAP0_UC | QRNIC_CAP0_MCAST | QRNIC_CAP0_RESIZE_CQ |
               QRNIC_CAP0_FLUSH | QRNIC_CAP0_ATOMIC_WRITE |
               QRNIC_CAP0_SRQ_RESIZE |
               QRNIC_CAP0_MW | QRNIC_CAP0_FAST_REG | QRNIC_CAP0_REREG_MR |
               QRNIC_CAP0_XRC;
    case QRNIC_REG_NUM_MSIX:
        return QRNIC_NUM_MSIX;
    case QRNIC_REG_DB_PAGES:
        return e->db_pages;
    case QRNIC_REG_QMEM_PAGES:
        return (uint32_t)(e->qmem_size / QRNIC_QMEM_PAGE_SIZE);
    case QRNIC_REG_AQ_MAX_LOG:
        return QRNIC_AQ_MAX_LOG;
    case QRNIC_REG_CTRL:
        return r->ctrl;
    case QRNIC_REG_STATUS:
        return status(e);
    case QRNIC_REG_INIT_ERR:
        return r->init_err;
    case QRNIC_REG_INTR_MASK:
        return r->intr_mask;
    case QRNIC_REG_MAC_LO:
        return mac[0] | mac[1] << 8 | mac[2] << 16 | (uint32_t)mac[3] << 24;
    case QRNIC_REG_MAC_HI:
        return mac[4] | mac[5] << 8;
    case QRNIC_REG_AQ_SQ_BASE_LO:
        return (uint32_t)r->aq_sq_base;
    case QRNIC_REG_AQ_SQ_BASE_HI:
        return (uint32_t)(r->aq_sq_base >> 32);
    case QRNIC_REG_AQ_CQ_BASE_LO:
        return (uint32_t)r->aq_cq_base;
    case QRNIC_REG_AQ_CQ_BASE_HI:
        return (uint32_t)(r->aq_cq_base >> 32);
    case QRNIC_REG_AQ_LOG_DEPTH:
        return r->aq_log_depth;
    case QRNIC_REG_STAT_RX_DROP:
        return e->stats.rx_drop;
    case QRNIC_REG_STAT_BAD_DB:
        return e->stats.bad_db;
    default:
        return 0;       /* CAP1, write-only and unassigned registers */
    }
}

void qrnic_regs_write(struct qrnic_engine *e, uint32_t addr, uint32_t val)
{
    struct qrnic_regs *r = &e->regs;

    switch (addr) {
    case QRNIC_REG_CTRL:
        write_ctrl(e, val);
        break;
    case QRNIC_REG_INTR_MASK:
        set_intr_mask(e, val);
        break;
    case QRNIC_REG_AQ_SQ_BASE_LO:
    case QRNIC_REG_AQ_SQ_BASE_HI:
        r->aq_sq_base = set_half(r->aq_sq_base,
                                 addr == QRNIC_REG_AQ_SQ_BASE_HI, val);
        break;
    case QRNIC_REG_AQ_CQ_BASE_LO:
    case QRNIC_REG_AQ_CQ_BASE_HI:
        r->aq_cq_base = set_half(r->aq_cq_base,
                                 addr == QRNIC_REG_AQ_CQ_BASE_HI, val);
        break;
    case QRNIC_REG_AQ_LOG_DEPTH:
        r->aq_log_depth = val;
        break;
    case QRNIC_REG_AQ_DB:
        /*
         * The commands run now, so their completions and interrupt come
         * before the write returns: a driver that waits for each command
         * finds it done instead of sleeping (docs/hardware.md).
         */
        if (qrnic_aq_doorbell(e, val)) {
            qrnic_aq_run(e);
        }
        break;
    case QRNIC_REG_AQ_CQ_CI:
        if (qrnic_aq_cq_doorbell(e, val) && qrnic_aq_pending(e)) {
            qrnic_aq_run(e);
        }
        break;
    default:
        break;          /* read-only and unassigned registers */
    }
}
