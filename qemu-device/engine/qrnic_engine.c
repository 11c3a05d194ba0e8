/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: life cycle, enable handshake, event queues, doorbells.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

/* Compile-time checks that the shared header has the sizes we decode. */
typedef char qrnic_chk_cmd[sizeof(struct qrnic_cmd) == QRNIC_CMD_SIZE ? 1 : -1];
typedef char qrnic_chk_acqe[sizeof(struct qrnic_cqe_admin) == QRNIC_ACQE_SIZE ?
                            1 : -1];
typedef char qrnic_chk_eqe[sizeof(struct qrnic_eqe) == QRNIC_EQE_SIZE ? 1 : -1];
typedef char qrnic_chk_desc[sizeof(struct qrnic_eth_desc) ==
                            QRNIC_ETH_DESC_SIZE ? 1 : -1];
typedef char qrnic_chk_cqe[sizeof(struct qrnic_cqe) == QRNIC_CQE_SIZE ? 1 : -1];
typedef char qrnic_chk_rec[sizeof(struct qrnic_cq_rec) == QRNIC_CQ_REC_SIZE ?
                           1 : -1];
typedef char qrnic_chk_swqe[sizeof(struct qrnic_sq_wqe) == 64 ? 1 : -1];
typedef char qrnic_chk_rwqe[sizeof(struct qrnic_rq_wqe) == 16 ? 1 : -1];
typedef char qrnic_chk_attr[sizeof(struct qrnic_qp_attr) == 128 ? 1 : -1];
typedef char qrnic_chk_pbl[sizeof(struct qrnic_pbl) == 16 ? 1 : -1];

void qrnic_engine_init(struct qrnic_engine *e,
                       const struct qrnic_engine_ops *ops, void *opaque,
                       uint32_t db_pages, const uint8_t *mac)
{
    memset(e, 0, sizeof(*e));
    e->ops = ops;
    e->opaque = opaque;
    if (db_pages < QRNIC_ENG_MIN_DB_PAGES) {
        db_pages = QRNIC_ENG_MIN_DB_PAGES;
    } else if (db_pages > QRNIC_ENG_MAX_DB_PAGES) {
        db_pages = QRNIC_ENG_MAX_DB_PAGES;
    }
    e->db_pages = db_pages;
    memcpy(e->perm_mac, mac, 6);
    e->timer_armed = UINT64_MAX;
    qrnic_engine_reset(e);
}

int qrnic_engine_set_qmem(struct qrnic_engine *e, uint8_t *qmem,
                          uint64_t size)
{
    uint64_t pages = size / QRNIC_QMEM_PAGE_SIZE;

    free(e->qmem_owner);
    e->qmem = NULL;
    e->qmem_size = 0;
    /* Page owners are QP indexes in 16 bits; offsets are 32 bit. */
    e->qmem_owner = pages && size <= UINT32_MAX ?
                    calloc(pages, sizeof(*e->qmem_owner)) : NULL;
    if (!e->qmem_owner) {
        return -1;
    }
    e->qmem = qmem;
    e->qmem_size = pages * QRNIC_QMEM_PAGE_SIZE;
    return 0;
}

void qrnic_engine_fini(struct qrnic_engine *e)
{
    qrnic_cmd_reset_objects(e);
    free(e->qmem_owner);
    free(e->loop_buf);
    e->qmem_owner = NULL;
    e->loop_buf = NULL;
    e->qmem = NULL;
}

/* Drop every object and all ring state; the link state is kept. */
void qrnic_engine_reset(struct qrnic_engine *e)
{
    e->ready = false;
    memcpy(e->mac, e->perm_mac, 6);
    e->mtu = QRNIC_ENG_DEFAULT_MTU;
    memset(&e->aq, 0, sizeof(e->aq));
    memset(&e->eth, 0, sizeof(e->eth));
    memset(&e->stats, 0, sizeof(e->stats));
    qrnic_cmd_reset_objects(e);
    if (e->qmem) {
        memset(e->qmem, 0, e->qmem_size);
    }
}

uint32_t qrnic_engine_enable(struct qrnic_engine *e, uint64_t sq_base,
                             uint64_t cq_base, uint32_t log_depth)
{
    if (log_depth < 1 || log_depth > QRNIC_AQ_MAX_LOG) {
        return QRNIC_INIT_ERR_AQ_DEPTH;
    }
    if ((sq_base | cq_base) & 63) {
        return QRNIC_INIT_ERR_AQ_ALIGN;
    }
    memset(&e->aq, 0, sizeof(e->aq));
    e->aq.sq_base = sq_base;
    e->aq.cq_base = cq_base;
    e->aq.log_depth = (uint8_t)log_depth;
    e->ready = true;
    return QRNIC_INIT_ERR_NONE;
}

void qrnic_engine_raise(struct qrnic_engine *e, unsigned int vector)
{
    if (vector < QRNIC_NUM_MSIX) {
        e->ops->raise_irq(e->opaque, vector);
    }
}

/* Write one EQE; a full queue drops the event. */
bool qrnic_eq_post(struct qrnic_engine *e, uint32_t eqn, uint8_t type,
                   uint32_t data0, uint32_t data1)
{
    struct qrnic_eq *eq;
    uint8_t eqe[QRNIC_EQE_SIZE];
    uint32_t depth, slot;
    uint64_t addr;

    if (!e->ready || eqn >= QRNIC_ENG_MAX_EQ || !e->eq[eqn].valid) {
        return false;
    }
    eq = &e->eq[eqn];
    depth = 1u << eq->ring.log_depth;
    if ((uint16_t)(eq->ring.pi - eq->ring.ci) >= depth) {
        e->stats.eq_overflow++;
        return false;
    }
    slot = eq->ring.pi & (depth - 1);
    memset(eqe, 0, sizeof(eqe));
    eqe[offsetof(struct qrnic_eqe, type)] = type;
    qrnic_st32(eqe + offsetof(struct qrnic_eqe, data0), data0);
    qrnic_st32(eqe + offsetof(struct qrnic_eqe, data1), data1);
    qrnic_st32(eqe + offsetof(struct qrnic_eqe, flags),
               ((eq->ring.pi >> eq->ring.log_depth) & 1) ? 0 : QRNIC_EQE_PHASE);
    addr = eq->ring.base + (uint64_t)slot * QRNIC_EQE_SIZE;
    if (e->ops->dma_write(e->opaque, addr, eqe, sizeof(eqe))) {
        e->stats.dma_err++;
        return false;
    }
    eq->ring.pi++;
    qrnic_engine_raise(e, eq->vector);
    return true;
}

void qrnic_engine_set_link(struct qrnic_engine *e, bool up)
{
    if (e->link_up == up) {
        return;
    }
    e->link_up = up;
    if (e->async_eqn >= 0) {
        qrnic_eq_post(e, (uint32_t)e->async_eqn, QRNIC_EVENT_LINK, up ? 1 : 0,
                      0);
    }
}

static bool eq_doorbell(struct qrnic_engine *e, uint64_t val)
{
    uint32_t eqn = (uint32_t)val & QRNIC_DB_QN_MASK;
    uint32_t flags = (uint32_t)val & ~QRNIC_DB_QN_MASK;
    uint16_t ci = (uint16_t)(val >> 32);
    struct qrnic_eq *eq;

    if ((val >> 48) != 0 || (flags & ~QRNIC_DB_ARM) != 0 ||
        eqn >= QRNIC_ENG_MAX_EQ || !e->eq[eqn].valid) {
        return false;
    }
    eq = &e->eq[eqn];
    if (!qrnic_ci_ok(eq->ring.pi, eq->ring.ci, ci)) {
        return false;
    }
    eq->ring.ci = ci;
    return true;
}

static bool eth_doorbell(struct qrnic_engine *e, struct qrnic_ring *r,
                         uint64_t val)
{
    uint16_t pi = (uint16_t)val;

    if (!e->eth.active || val > 0xffff ||
        !qrnic_pi_ok(r->log_depth, r->pi, pi, r->ci)) {
        return false;
    }
    r->pi = pi;
    return true;
}

bool qrnic_engine_doorbell(struct qrnic_engine *e, uint32_t page,
                           uint32_t offset, uint64_t val,
                           enum qrnic_db_work *work)
{
    bool ok = false;

    *work = QRNIC_DB_WORK_NONE;
    if (!e->ready || page >= e->db_pages ||
        (page != 0 && !e->uctx_valid[page])) {
        goto out;
    }
    switch (offset) {
    case QRNIC_DB_SQ:
    case QRNIC_DB_RQ:
        /* Only records the index; the transport runs from the work call. */
        ok = qrnic_qp_doorbell(e, page, offset == QRNIC_DB_SQ, val);
        break;
    case QRNIC_DB_CQ:
        ok = qrnic_cq_doorbell(e, page, val);
        break;
    case QRNIC_DB_EQ:
        ok = page == 0 && eq_doorbell(e, val);
        break;
    case QRNIC_DB_ETH_TX:
        ok = page == 0 && eth_doorbell(e, &e->eth.tx, val);
        if (ok) {
            *work = QRNIC_DB_WORK_ETH_TX;
        }
        break;
    case QRNIC_DB_ETH_RX:
        ok = page == 0 && eth_doorbell(e, &e->eth.rx, val);
        if (ok) {
            *work = QRNIC_DB_WORK_ETH_RX;
        }
        break;
    default:
        break;
    }
out:
    if (!ok) {
        e->stats.bad_db++;
    }
    return ok;
}
