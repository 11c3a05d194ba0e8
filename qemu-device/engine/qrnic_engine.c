/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: life cycle, enable handshake, event queues, doorbells.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

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
    e->db_work = QRNIC_DB_WORK_DEFAULT;
    e->win_bytes = QRNIC_ENG_WINDOW_BYTES;
    e->win_pkts = QRNIC_ENG_WINDOW_PKTS;
    e->mtt_max = QRNIC_ENG_DEFAULT_MTT;
    qrnic_objects_setup(e);
    qrnic_engine_clear(e);
}

int qrnic_engine_set_qmem(struct qrnic_engine *e, uint8_t *qmem,
                          uint64_t size)
{
    uint64_t pages = size / QRNIC_QMEM_PAGE_SIZE;

    free(e->qmem_owner);
    e->qmem = NULL;
    e->qmem_size = 0;
    /* Offsets are 32 bit. */
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
    qrnic_objects_fini(e);
    free(e->qmem_owner);
    free(e->backlog);
    e->qmem_owner = NULL;
    e->backlog = NULL;
    e->qmem = NULL;
}

/* Drop every object, register and ring state; the link state is kept. */
void qrnic_engine_clear(struct qrnic_engine *e)
{
    bool mac_changed = memcmp(e->mac, e->perm_mac, 6) != 0;

    e->ready = false;
    qrnic_regs_reset(e);
    e->eth_tx_kick = false;
    e->rx_held = false;
    memcpy(e->mac, e->perm_mac, 6);
    e->mtu = QRNIC_ENG_DEFAULT_MTU;
    memset(&e->aq, 0, sizeof(e->aq));
    memset(&e->eth, 0, sizeof(e->eth));
    memset(&e->stats, 0, sizeof(e->stats));
    qrnic_cmd_reset_objects(e);
    if (e->qmem) {
        qrnic_qmem_zero(e, 0, e->qmem_size);
    }
    if (mac_changed && e->ops->mac_changed) {
        e->ops->mac_changed(e->opaque, e->mac);
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
    if (qrnic_dma_write(e, addr, eqe, sizeof(eqe))) {
        return false;
    }
    eq->ring.pi++;
    qrnic_engine_raise(e, eq->vector);
    return true;
}

static void set_link(struct qrnic_engine *e, bool up)
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

static enum qrnic_guest_err eq_doorbell(struct qrnic_engine *e, uint64_t val)
{
    uint32_t eqn = (uint32_t)val & QRNIC_DB_QN_MASK;
    uint32_t flags = (uint32_t)val & ~QRNIC_DB_QN_MASK;
    uint16_t ci = (uint16_t)(val >> 32);
    struct qrnic_eq *eq;

    if (eqn >= QRNIC_ENG_MAX_EQ || !e->eq[eqn].valid) {
        return QRNIC_GUEST_ERR_DB_QUEUE;
    }
    if ((val >> 48) != 0 || flags != 0) {
        return QRNIC_GUEST_ERR_DB_VALUE;
    }
    eq = &e->eq[eqn];
    if (!qrnic_ci_ok(eq->ring.pi, eq->ring.ci, ci)) {
        return QRNIC_GUEST_ERR_DB_INDEX;
    }
    eq->ring.ci = ci;
    return QRNIC_GUEST_OK;
}

static enum qrnic_guest_err eth_doorbell(struct qrnic_engine *e,
                                         struct qrnic_ring *r, uint64_t val)
{
    uint16_t pi = (uint16_t)val;

    if (!e->eth.active) {
        return QRNIC_GUEST_ERR_DB_QUEUE;
    }
    if (val > 0xffff) {
        return QRNIC_GUEST_ERR_DB_VALUE;
    }
    if (!qrnic_pi_ok(r->log_depth, r->pi, pi, r->ci)) {
        return QRNIC_GUEST_ERR_DB_INDEX;
    }
    r->pi = pi;
    return QRNIC_GUEST_OK;
}

/* Doorbells only the kernel's page has (EQ, Ethernet rings). */
static bool kernel_doorbell(uint32_t offset)
{
    return offset == QRNIC_DB_EQ || offset == QRNIC_DB_ETH_TX ||
           offset == QRNIC_DB_ETH_RX;
}

static enum qrnic_guest_err doorbell(struct qrnic_engine *e, uint32_t page,
                                     uint32_t offset, uint64_t val)
{
    enum qrnic_guest_err err;

    if (!e->ready || page >= e->db_pages ||
        (page != 0 && !e->uctx[page].valid)) {
        return QRNIC_GUEST_ERR_DB_PAGE;
    }
    if (page != 0 && kernel_doorbell(offset)) {
        return QRNIC_GUEST_ERR_DB_OFFSET;
    }
    switch (offset) {
    case QRNIC_DB_SQ:
    case QRNIC_DB_RQ:
        /*
         * Records the index; the QP's turn comes at once (an SQ doorbell
         * from qrnic_engine_db_write) or from the work call.
         */
        err = qrnic_qp_doorbell(e, page, offset == QRNIC_DB_SQ, val);
        if (!err && offset == QRNIC_DB_SQ) {
            e->db_qpn = (uint32_t)val & QRNIC_DB_QN_MASK;
        }
        return err;
    case QRNIC_DB_CQ:
        return qrnic_cq_doorbell(e, page, val);
    case QRNIC_DB_SRQ:
        return qrnic_srq_doorbell(e, page, val);
    case QRNIC_DB_EQ:
        return eq_doorbell(e, val);
    case QRNIC_DB_ETH_TX:
        err = eth_doorbell(e, &e->eth.tx, val);
        if (!err) {
            qrnic_engine_kick(e, &e->eth_tx_kick);
        }
        return err;
    case QRNIC_DB_ETH_RX:
        err = eth_doorbell(e, &e->eth.rx, val);
        if (!err) {
            e->rx_ready_wanted = true;
        }
        return err;
    default:
        return QRNIC_GUEST_ERR_DB_OFFSET;
    }
}

bool qrnic_engine_doorbell(struct qrnic_engine *e, uint32_t page,
                           uint32_t offset, uint64_t val)
{
    enum qrnic_guest_err err = doorbell(e, page, offset, val);

    if (err) {
        e->stats.bad_db++;
        qrnic_guest_error(e, err, page,
                          err == QRNIC_GUEST_ERR_DB_PAGE ||
                          err == QRNIC_GUEST_ERR_DB_OFFSET ? offset : val);
        return false;
    }
    return true;
}

/* A row's NAME: its identifier past the prefix. */
#define QRNIC_GUEST_ERR_ROW(id, what, values) \
    [id] = { &#id[sizeof("QRNIC_GUEST_ERR_") - 1], what " (" values ")" },
static const struct {
    const char *name;
    const char *what;
} guest_errs[QRNIC_GUEST_ERR_MAX] = {
    QRNIC_GUEST_ERR_LIST(QRNIC_GUEST_ERR_ROW)
};
#undef QRNIC_GUEST_ERR_ROW

const char *qrnic_guest_err_name(enum qrnic_guest_err cause)
{
    return cause < QRNIC_GUEST_ERR_MAX ? guest_errs[cause].name : NULL;
}

const char *qrnic_guest_err_what(enum qrnic_guest_err cause)
{
    return cause < QRNIC_GUEST_ERR_MAX ? guest_errs[cause].what : NULL;
}

void qrnic_guest_error(struct qrnic_engine *e, enum qrnic_guest_err cause,
                       uint64_t a, uint64_t b)
{
    if (cause == QRNIC_GUEST_OK || cause >= QRNIC_GUEST_ERR_MAX) {
        return;
    }
    e->stats.guest_err[cause]++;
    qrnic_event(e, &(struct qrnic_event){
        .kind = QRNIC_EV_GUEST_ERROR,
        .guest_error = { .cause = cause, .name = guest_errs[cause].name,
                         .what = guest_errs[cause].what, .a = a, .b = b },
    });
}

void qrnic_event(const struct qrnic_engine *e, const struct qrnic_event *ev)
{
    if (e->ops->event) {
        e->ops->event(e->opaque, ev);
    }
}

int qrnic_dma_read(struct qrnic_engine *e, uint64_t addr, void *buf,
                   size_t len)
{
    if (e->ops->dma_read(e->opaque, addr, buf, len)) {
        qrnic_guest_error(e, QRNIC_GUEST_ERR_DMA, addr, len);
        return -1;
    }
    return 0;
}

int qrnic_dma_write(struct qrnic_engine *e, uint64_t addr, const void *buf,
                    size_t len)
{
    if (e->ops->dma_write(e->opaque, addr, buf, len)) {
        qrnic_guest_error(e, QRNIC_GUEST_ERR_DMA, addr, len);
        return -1;
    }
    return 0;
}

void qrnic_engine_kick(struct qrnic_engine *e, bool *what)
{
    *what = true;
    qrnic_engine_schedule(e);
}

void qrnic_engine_schedule(struct qrnic_engine *e)
{
    if (e->sched_hold) {
        e->sched_held = true;
        return;
    }
    e->ops->schedule(e->opaque);
}

void qrnic_qmem_zero(struct qrnic_engine *e, uint64_t off, uint64_t len)
{
    if (!e->ops->qmem_discard || !e->ops->qmem_discard(e->opaque, off, len)) {
        memset(e->qmem + off, 0, len);
    }
}

void qrnic_qmem_read(const struct qrnic_engine *e, uint64_t off, void *buf,
                     size_t len)
{
    qrnic_event(e, &(struct qrnic_event){
        .kind = QRNIC_EV_QMEM_READ, .qmem = { .off = off, .len = len },
    });
    memcpy(buf, e->qmem + off, len);
}

/* ---- entry points -------------------------------------------------------- */

/*
 * Every entry point runs its operation only when the engine is idle
 * (depth 0).  Called while busy, it records the request (in the defer
 * queue, the backlog or a flag) and returns; leave() applies what was
 * recorded once the outermost operation is complete, so no state changes
 * under code that is using it.  A request whose work records yet another
 * (a DMA that lands on our own registers again) is applied in the same
 * loop, up to a bound that ends any cycle a guest can build.
 */
#define DEFER_ROUNDS (4 * QRNIC_ENG_DEFER_MAX)

static void defer_write(struct qrnic_engine *e, bool doorbell, uint64_t addr,
                        uint64_t val, unsigned int size)
{
    struct qrnic_deferred *d;

    if (e->defer_count == QRNIC_ENG_DEFER_MAX) {
        e->stats.defer_drop++;
        return;
    }
    d = &e->defer[(e->defer_head + e->defer_count) % QRNIC_ENG_DEFER_MAX];
    d->doorbell = doorbell;
    d->addr = (uint32_t)addr;
    d->val = val;
    d->size = (uint8_t)size;
    e->defer_count++;
}

static void db_write(struct qrnic_engine *e, uint64_t addr, uint64_t val,
                     unsigned int size)
{
    if (size != 8 || (addr & 7)) {
        e->stats.bad_db++;
        qrnic_guest_error(e, QRNIC_GUEST_ERR_DB_ACCESS, addr, size);
        return;
    }
    qrnic_engine_doorbell(e, (uint32_t)(addr / QRNIC_DB_PAGE_SIZE),
                          (uint32_t)(addr % QRNIC_DB_PAGE_SIZE), val);
}

static void reg_write(struct qrnic_engine *e, uint32_t addr, uint32_t val)
{
    if (!(addr & 3)) {
        qrnic_regs_write(e, addr, val);
    }
}

static bool run_deferred(struct qrnic_engine *e)
{
    if (e->reset_deferred) {
        e->reset_deferred = false;
        qrnic_engine_clear(e);
    } else if (e->defer_count) {
        struct qrnic_deferred d = e->defer[e->defer_head];

        e->defer_head = (e->defer_head + 1) % QRNIC_ENG_DEFER_MAX;
        e->defer_count--;
        if (d.doorbell) {
            db_write(e, d.addr, d.val, d.size);
        } else {
            reg_write(e, d.addr, (uint32_t)d.val);
        }
    } else if (e->link_deferred) {
        e->link_deferred = false;
        set_link(e, e->link_want);
    } else if (e->timer_deferred) {
        e->timer_deferred = false;
        qrnic_sched_expire(e);
    } else {
        return false;
    }
    return true;
}

/*
 * Whether a frame offered now would be taken: into the backlog while
 * busy or while it holds any (so frames keep their order), else straight
 * to the Ethernet rings or the RDMA engine.
 */
static bool rx_room(const struct qrnic_engine *e)
{
    if (e->backlog_count >= QRNIC_ENG_BACKLOG) {
        return false;
    }
    return e->depth || e->backlog_count || qrnic_eth_can_rx(e);
}

/* The platform keeps what we do not take; rx_ready hands it back. */
static void rx_hold(struct qrnic_engine *e)
{
    e->rx_held = true;
    e->rx_ready_wanted = true;
}

static bool enter(struct qrnic_engine *e)
{
    if (e->depth) {
        return false;
    }
    e->depth = 1;
    return true;
}

static void leave(struct qrnic_engine *e)
{
    uint32_t rounds = DEFER_ROUNDS;

    while (rounds-- && run_deferred(e)) {
        ;
    }
    if (e->defer_count) {
        e->stats.defer_drop += e->defer_count;
        e->defer_count = 0;
    }
    e->timer_deferred = e->link_deferred = e->reset_deferred = false;
    e->depth = 0;
    if (e->rx_ready_wanted && rx_room(e)) {
        e->rx_ready_wanted = false;
        e->rx_held = false;
        if (e->ops->rx_ready) {
            e->ops->rx_ready(e->opaque);
        }
    }
}

void qrnic_engine_reset(struct qrnic_engine *e)
{
    if (!enter(e)) {
        e->reset_deferred = true;
        return;
    }
    qrnic_engine_clear(e);
    leave(e);
}

uint32_t qrnic_engine_reg_read(struct qrnic_engine *e, uint32_t addr)
{
    /* Reads change nothing, so they are answered even while busy. */
    return addr & 3 ? 0 : qrnic_regs_read(e, addr);
}

void qrnic_engine_reg_write(struct qrnic_engine *e, uint32_t addr,
                            uint32_t val)
{
    if (!enter(e)) {
        defer_write(e, false, addr, val, 4);
        return;
    }
    reg_write(e, addr, val);
    leave(e);
}

/*
 * A doorbell write from the guest.  With db_work, a small SQ doorbell's
 * transmit work is done here, at once, rather than after a hop to the
 * thread that runs the work call (qrnic_sched_doorbell: at most db_work
 * packets, else the work call does it all), only when the engine is idle
 * (a doorbell that re-enters is deferred as any other), and never for
 * deferred doorbells (leave() applies those without it).
 */
void qrnic_engine_db_write(struct qrnic_engine *e, uint64_t addr,
                           uint64_t val, unsigned int size)
{
    bool hold = e->db_work != 0;    /* what db_work said on the way in */

    if (!enter(e)) {
        defer_write(e, true, addr, val, size);
        return;
    }
    if (hold) {
        e->sched_hold = true;
        e->db_qpn = 0;
    }
    db_write(e, addr, val, size);
    if (hold) {
        qrnic_sched_doorbell(e, e->db_qpn);     /* releases the hold */
    }
    leave(e);
}

/* Into the backlog; 0 (not taken: the platform holds it) if it is full. */
static size_t backlog_take(struct qrnic_engine *e, const uint8_t *frame,
                           size_t len)
{
    if (len > QRNIC_ETH_MAX_FRAME) {
        qrnic_stat(e, QRNIC_STAT_BACKLOG_DROP);
        return len;
    }
    if (!qrnic_backlog_push(e, frame, len)) {
        rx_hold(e);
        return 0;
    }
    return len;
}

bool qrnic_engine_can_receive(struct qrnic_engine *e)
{
    if (!e->rx_held && rx_room(e)) {
        return true;
    }
    rx_hold(e);
    return false;
}

size_t qrnic_engine_receive(struct qrnic_engine *e, const uint8_t *frame,
                            size_t len)
{
    size_t ret;

    if (!enter(e)) {
        /* Our peer answering from inside our own transmit. */
        return backlog_take(e, frame, len);
    }
    if (e->backlog_count) {
        /* Behind the frames that came while we were busy, in order. */
        ret = backlog_take(e, frame, len);
    } else {
        ret = qrnic_eth_rx(e, frame, len);
        if (!ret) {
            e->rx_held = true;  /* the Ethernet ring's doorbell asks again */
        }
    }
    leave(e);
    return ret;
}

void qrnic_engine_set_link(struct qrnic_engine *e, bool up)
{
    if (!enter(e)) {
        e->link_deferred = true;
        e->link_want = up;
        return;
    }
    set_link(e, up);
    leave(e);
}

void qrnic_engine_work(struct qrnic_engine *e)
{
    if (!enter(e)) {
        qrnic_engine_schedule(e);       /* again, from a fresh stack */
        return;
    }
    qrnic_sched_work(e);
    leave(e);
}

void qrnic_engine_timer(struct qrnic_engine *e)
{
    if (!enter(e)) {
        e->timer_deferred = true;
        return;
    }
    qrnic_sched_expire(e);
    leave(e);
}
