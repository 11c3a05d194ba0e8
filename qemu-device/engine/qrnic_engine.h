/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the parts of the device model that need no QEMU headers
 * (admin command processor, object tables, event queues, Ethernet rings,
 * the RDMA objects and the RoCEv2 RC transport).  Plain C99; it reaches
 * the outside world only through struct qrnic_engine_ops, so the same code
 * runs inside QEMU and in the host unit tests.
 *
 * Nothing the guest supplies is trusted: every index, address, length and
 * handle is range checked before use, and every guest memory access goes
 * through ops->dma_read/dma_write, which may fail.
 */
#ifndef QRNIC_ENGINE_H
#define QRNIC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qrnic_hw.h"
#include "qrnic_le.h"
#include "qrnic_fault.h"
#include "qrnic_table.h"

#define QRNIC_ENG_MAX_EQ            QRNIC_NUM_MSIX
#define QRNIC_ENG_GID_TBL_LEN       128
#define QRNIC_ENG_MIN_DB_PAGES      2
#define QRNIC_ENG_MAX_DB_PAGES      1024
#define QRNIC_ENG_DEFAULT_MTU       1500
#define QRNIC_ENG_MIN_MTU           68
/*
 * How many objects of each kind the device holds unless its platform sets
 * another number (qrnic_objects_set_limit), and the most it may set: a
 * QPN keeps at least 3 generation bits above its index, a CQN or SRQN
 * fits a doorbell's 24 bits, a key index the key's upper 24 bits.
 */
#define QRNIC_ENG_DEFAULT_QPS       65536
#define QRNIC_ENG_DEFAULT_CQS       65536
#define QRNIC_ENG_DEFAULT_SRQS      65536
#define QRNIC_ENG_DEFAULT_KEYS      262144  /* regions and windows */
#define QRNIC_ENG_DEFAULT_PDS       65536
#define QRNIC_ENG_MAX_OBJECTS       (1u << 20)
#define QRNIC_ENG_MIN_QPN_IDX_BITS  10
#define QRNIC_ENG_MR_MAX_PAGES      (1u << 20)  /* page addresses, one MR */
/*
 * Page addresses all regions together may hold (struct qrnic_engine's
 * mtt_max): the default, enough for an NVMe/RDMA host with 8 controllers
 * of 8 I/O queues (each queue's fast-registration pool takes 128 regions
 * of 257 pages), and the most a platform may set.
 */
#define QRNIC_ENG_DEFAULT_MTT       (1u << 23)
#define QRNIC_ENG_MAX_MTT           (1u << 28)
#define QRNIC_ENG_MAX_QP_QMEM       (4u << 20)  /* queue memory per QP */

/* Register and doorbell writes that arrive while the engine is busy. */
#define QRNIC_ENG_DEFER_MAX         64
/*
 * Received frames held while the engine is busy, and frames to ourselves;
 * QPs sending to ourselves wait while half of it is taken, so the frames
 * they draw (ACKs, READ responses) find room too.
 */
#define QRNIC_ENG_BACKLOG           32
#define QRNIC_ENG_LOOPBACK_HOLD     (QRNIC_ENG_BACKLOG / 2)
/*
 * Packets an SQ doorbell may send at once (struct qrnic_engine.db_work):
 * the default, four (a 4 KiB message at MTU 1024), and the most.  A longer
 * burst from the vCPU thread is outrun, frame by frame, by the peer it
 * wakes when both share a host core (docs/performance.md).
 */
#define QRNIC_DB_WORK_DEFAULT       4
#define QRNIC_DB_WORK_MAX           16
/*
 * The byte cap unless the platform sets another: what a host socket under
 * a lossy link (a dgram netdev) takes without dropping; a link that drops
 * nothing can allow more (docs/performance.md).
 */
#define QRNIC_ENG_WINDOW_BYTES      (256 * 1024)
/*
 * The packet cap binds only where the byte cap allows more: at MTU 1024
 * or 2048 on a lossless link.  There it lets 8 QPs carry what one does to
 * rdma_rxe in a TCG guest (docs/performance.md).
 */
#define QRNIC_ENG_WINDOW_PKTS       256
#define QRNIC_ENG_WINDOW_MAX_BYTES  (4096 * 1024)
#define QRNIC_ENG_WINDOW_MAX_PKTS   1024

struct qrnic_srqc;

/* What the engine tells its platform through ops->event. */
enum qrnic_event_kind {
    QRNIC_EV_CMD_DONE,          /* an admin command completed: cmd */
    QRNIC_EV_CQE,               /* a CQE was written: cqe */
    /*
     * An inbound RDMA WRITE without immediate was placed in full (its last
     * packet accepted): qpn.  No CQE tells the guest of it; a guest waiting
     * for it watches the memory.
     */
    QRNIC_EV_WRITE_PLACED,
    /*
     * The responder sent the last packet of its reply to a READ, atomic or
     * FLUSH request: qpn.  The requester may soon send its next one.
     */
    QRNIC_EV_REPLY_SENT,
    QRNIC_EV_GUEST_ERROR,       /* the guest did what was refused */
    /*
     * The engine is about to copy [off, off + len) of queue memory: lets a
     * test play a guest that rewrites queue memory between the reads.
     */
    QRNIC_EV_QMEM_READ,
};

struct qrnic_event {
    enum qrnic_event_kind kind;
    union {
        struct {
            uint8_t opcode;
            uint8_t status;
            uint16_t cookie;
            uint32_t result0;
            uint32_t result1;
        } cmd;
        struct {
            uint32_t cqn;
            uint32_t qpn;
            uint8_t opcode;     /* as in the CQE */
            uint8_t status;
            uint8_t flags;
        } cqe;
        uint32_t qpn;
        struct {
            enum qrnic_guest_err cause;
            const char *name;   /* its row's NAME in QRNIC_GUEST_ERR_LIST */
            const char *what;   /* what it says, with the values' names */
            uint64_t a;
            uint64_t b;
        } guest_error;
        struct {
            uint64_t off;
            size_t len;
        } qmem;
    };
};

struct qrnic_engine_ops {
    /* 0 on success, -1 if [addr, addr + len) is not guest memory. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     size_t len);
    /* Vector is always < QRNIC_NUM_MSIX. */
    void (*raise_irq)(void *opaque, unsigned int vector);
    void (*tx_frame)(void *opaque, const uint8_t *frame, size_t len);
    /* Optional (may be NULL): the NIC's MAC changed. */
    void (*mac_changed)(void *opaque, const uint8_t *mac);
    /* The device's monotonic clock, in nanoseconds. */
    uint64_t (*now_ns)(void *opaque);
    /*
     * Call qrnic_engine_timer() once the clock reaches deadline_ns
     * (UINT64_MAX: no timer needed).  Replaces any earlier request.
     */
    void (*timer_mod)(void *opaque, uint64_t deadline_ns);
    /* Call qrnic_engine_work() soon, from a fresh call stack. */
    void (*schedule)(void *opaque);
    /*
     * Optional: the device can take frames again (RX buffers posted, rings
     * set up); deliver what the backend queued.  Called with the engine
     * idle, so the frames may be delivered from inside the call.
     */
    void (*rx_ready)(void *opaque);
    /* Optional: the engine's one trace hook, see struct qrnic_event. */
    void (*event)(void *opaque, const struct qrnic_event *ev);
    /*
     * Optional: queue memory [off, off + len) reads as zero from now on
     * and its host pages go back; false if that cannot be done (the
     * engine then writes the zeros where it needs them).
     */
    bool (*qmem_discard)(void *opaque, uint64_t off, uint64_t len);
};

/* A ring with free running 16-bit producer/consumer indices. */
struct qrnic_ring {
    uint64_t base;
    uint8_t log_depth;
    uint16_t pi;
    uint16_t ci;
};

struct qrnic_eq {
    bool valid;
    bool async;
    uint16_t vector;
    uint32_t ncq;               /* CQs delivering events here */
    struct qrnic_ring ring;     /* pi: device, ci: driver */
};

/*
 * The kinds of object the device keeps in handle tables (qrnic_objects.c
 * describes each: its handles, how many, how one is freed), in the order
 * a reset frees them: QPs hold CQs, SRQs, PDs and type 2 windows; keys
 * and SRQs hold PDs.
 */
enum qrnic_obj_kind {
    QRNIC_OBJ_QP,
    QRNIC_OBJ_SRQ,
    QRNIC_OBJ_KEY,      /* regions and windows: one key space */
    QRNIC_OBJ_CQ,
    QRNIC_OBJ_PD,
    QRNIC_OBJ_COUNT
};

/* A protection domain: its context, and the keys, QPs and SRQs in it. */
struct qrnic_pdc {
    uint32_t pdn;
    uint32_t uctx;
    uint32_t users;
};

/*
 * A user context (index 0: the kernel's objects): allocated, what it
 * holds of each kind, and its RC requesters' congestion window
 * (qrnic_sched.c).
 */
struct qrnic_uctx {
    bool valid;
    uint32_t used[QRNIC_CTX_RES_COUNT];
    uint32_t cwnd;              /* packets, QRNIC_CWND_ONE units */
    uint64_t hold_until;        /* after a cut: no other cut, no growth */
    uint32_t cc_inflight;       /* PSNs its QPs have counted in flight */
    uint32_t cc_active;         /* its QPs with PSNs counted */
    uint32_t cc_starved;        /* its QPs its others hold back for */
    uint64_t progress_ns;       /* when one of its QPs' oldest PSN moved */
    uint64_t srtt;              /* its smoothed round trip, ns (0: none) */
    uint64_t rttvar;            /* its mean deviation */
    uint32_t cc_woken;          /* cc_wake()'s tally, 0 outside it */
};

struct qrnic_gid_entry {
    bool valid;
    uint32_t type;
    uint8_t gid[16];
};

/* A multicast group and the UD QPs attached to it. */
struct qrnic_mcast_group {
    uint8_t gid[16];
    uint32_t nqp;               /* 0: free slot */
    uint32_t qpn[QRNIC_MAX_MCAST_QPS];
};

struct qrnic_eth_state {
    bool active;
    uint16_t vector;
    struct qrnic_ring tx;       /* pi: driver doorbell, ci: device */
    struct qrnic_ring rx;
};

struct qrnic_admin_queue {
    uint64_t sq_base;
    uint64_t cq_base;
    uint8_t log_depth;
    uint16_t sq_pi;             /* last accepted doorbell */
    uint16_t sq_ci;             /* next command to execute */
    uint16_t cq_pi;             /* next completion slot */
    uint16_t cq_ci;             /* driver's consumer index */
};

struct qrnic_stats {
    uint32_t rx_drop;           /* STAT_RX_DROP: RoCE frames dropped */
    uint32_t bad_db;            /* STAT_BAD_DB */
    uint64_t defer_drop;        /* writes that found the defer queue full */
    uint64_t rx_roce;
    uint64_t rx_icrc_err;
    uint64_t rx_frames;
    uint64_t rx_filtered;
    uint64_t rx_too_big;
    uint64_t tx_frames;
    uint64_t tx_err;
    uint64_t guest_err[QRNIC_GUEST_ERR_MAX];    /* by cause */
    uint64_t eq_overflow;
    uint64_t admin_cmds;
    uint64_t v[QRNIC_STAT_COUNT];   /* QUERY_STATS, enum qrnic_stat */
};

struct qrnic_cqc;
struct qrnic_mrc;
struct qrnic_qpc;

/* A doubly linked list of QPs (work to do, timers running). */
struct qrnic_qpc_list {
    struct qrnic_qpc *head;
    struct qrnic_qpc *tail;
};

/* The BAR0 register file (qrnic_regfile.c). */
struct qrnic_regs {
    uint32_t ctrl;
    bool fatal;
    uint32_t init_err;
    uint32_t intr_mask;
    uint32_t intr_pending;
    uint64_t aq_sq_base;
    uint64_t aq_cq_base;
    uint32_t aq_log_depth;
};

/* A register or doorbell write that came in while the engine was busy. */
struct qrnic_deferred {
    bool doorbell;              /* BAR2, else BAR0 */
    uint8_t size;
    uint32_t addr;
    uint64_t val;
};

struct qrnic_engine {
    const struct qrnic_engine_ops *ops;
    void *opaque;
    uint32_t db_pages;          /* fixed at init: 2..1024 */
    uint8_t perm_mac[6];

    /*
     * Re-entrancy: an entry point that finds the engine busy (a DMA that
     * landed on our own BARs, a hub delivering our peer's answer while we
     * transmit) only records what it was asked; the outermost entry point
     * applies it when the operation in progress has finished.
     */
    uint32_t depth;
    struct qrnic_deferred defer[QRNIC_ENG_DEFER_MAX];
    uint32_t defer_head;
    uint32_t defer_count;
    bool reset_deferred;
    bool timer_deferred;
    bool link_deferred;
    bool link_want;
    bool rx_ready_wanted;
    /*
     * The platform holds frames we did not take: take none directly
     * until rx_ready has had them delivered, in their order.
     */
    bool rx_held;
    bool eth_tx_kick;           /* Ethernet TX descriptors to process */

    /*
     * A send queue doorbell whose QP has nothing else to send and whose
     * new WQEs take at most db_work packets gets the QP's turn at once,
     * inside the doorbell write (qrnic_sched_doorbell); anything larger
     * waits for the work call as before.  0: never.  qrnic_engine_init
     * sets QRNIC_DB_WORK_DEFAULT; the platform may change it (at most
     * QRNIC_DB_WORK_MAX).  While a doorbell runs, requests for a work
     * call are only noted (sched_held) and made afterwards if work is
     * left, so a doorbell whose work is all done wakes nobody.
     */
    uint32_t db_work;
    /*
     * The caps of the congestion window (qrnic_sched.c): bytes in flight
     * as a host socket counts them, and packets.  qrnic_engine_init sets
     * QRNIC_ENG_WINDOW_BYTES and QRNIC_ENG_WINDOW_PKTS; the platform may
     * change them (at most QRNIC_ENG_WINDOW_MAX_*) at any time.
     */
    uint32_t win_bytes;
    uint32_t win_pkts;
    bool sched_hold;
    bool sched_held;
    uint32_t db_qpn;            /* QP of the SQ doorbell being handled */

    struct qrnic_regs regs;
    bool ready;
    bool link_up;
    uint8_t mac[6];
    uint32_t mtu;

    struct qrnic_admin_queue aq;
    struct qrnic_eq eq[QRNIC_ENG_MAX_EQ];
    int async_eqn;              /* -1: none */
    struct qrnic_gid_entry gid[QRNIC_ENG_GID_TBL_LEN];
    struct qrnic_uctx uctx[QRNIC_ENG_MAX_DB_PAGES];    /* qrnic_uctx.c */
    /* One context's limits (enum qrnic_ctx_res); 0: qrnic_ctx_limit's. */
    uint32_t ctx_max[QRNIC_CTX_RES_COUNT];
    struct qrnic_eth_state eth;
    struct qrnic_stats stats;

    /* RDMA objects (qrnic_objects.c); the handle's index selects the slot. */
    struct qrnic_table obj[QRNIC_OBJ_COUNT];
    uint8_t qpn_idx_bits;                   /* a QPN's index, below its gen */
    uint32_t mtt_used;                      /* page addresses held */
    uint32_t mtt_max;                       /* ... at most: the platform's */
    struct qrnic_mcast_group mcast[QRNIC_MAX_MCAST_GROUPS];

    /* Queue memory (BAR4): the device reads WQEs straight from it. */
    uint8_t *qmem;
    uint64_t qmem_size;
    /* Per page: QP index, QP table size + srqn, 0: free. */
    uint32_t *qmem_owner;

    struct qrnic_qpc_list ready_qps;            /* QPs with transmit work */
    struct qrnic_qpc_list timed_qps;            /* QPs with a deadline */
    uint64_t timer_armed;                   /* deadline asked of the glue */

    /*
     * Congestion control of the RC requesters (qrnic_sched.c): a window,
     * a round-trip estimate and starvation verdicts for each context's
     * QPs (struct qrnic_uctx; the kernel is a context too); the packets of
     * all contexts share the caps (win_bytes, win_pkts), each context
     * always at least its fair share of them.
     */
    struct qrnic_cc {
        uint32_t cwnd;          /* a new context's window starts here */
        uint64_t srtt;          /* and its round-trip estimate (0: none) */
        uint64_t rttvar;
        uint32_t inflight;      /* PSNs counted in flight, all QPs */
        uint32_t active_ctx;    /* contexts (kernel too) with PSNs counted */
        struct qrnic_qpc_list waiting;   /* for room in the caps, FIFO */
    } cc;
    /* What user contexts hold together (qrnic_uctx.c). */
    uint32_t ctx_users_used[QRNIC_CTX_RES_COUNT];
    uint16_t ip_id;

    /*
     * Received frames to handle from qrnic_engine_work(): those that came
     * while the engine was busy, and frames to our own MAC.
     */
    uint8_t *backlog;
    uint16_t backlog_len[QRNIC_ENG_BACKLOG];
    uint32_t backlog_head;
    uint32_t backlog_count;

    struct qrnic_fault fault;               /* qrnic_fault.c */

    uint8_t frame[QRNIC_ETH_MAX_FRAME];     /* TX bounce buffer */
    uint8_t roce_frame[QRNIC_ETH_MAX_FRAME];
};

/*
 * qrnic_engine.c: life cycle and the device's entry points, one for each
 * way the platform calls the device.  Each may be called while another
 * is in progress (QEMU re-enters devices); see struct qrnic_engine.
 */
void qrnic_engine_init(struct qrnic_engine *e,
                       const struct qrnic_engine_ops *ops, void *opaque,
                       uint32_t db_pages, const uint8_t *mac);
/* Queue memory (BAR4); without it no QP can be created.  0 or -1. */
int qrnic_engine_set_qmem(struct qrnic_engine *e, uint8_t *qmem,
                          uint64_t size);
void qrnic_engine_fini(struct qrnic_engine *e);
/* Device reset: every object and register back to power-on values. */
void qrnic_engine_reset(struct qrnic_engine *e);
/* BAR0 registers below the MSI-X table: aligned 32-bit accesses. */
uint32_t qrnic_engine_reg_read(struct qrnic_engine *e, uint32_t addr);
void qrnic_engine_reg_write(struct qrnic_engine *e, uint32_t addr,
                            uint32_t val);
/* BAR2 doorbell pages: a doorbell is one aligned 64-bit write. */
void qrnic_engine_db_write(struct qrnic_engine *e, uint64_t addr,
                           uint64_t val, unsigned int size);
/*
 * The netdev side.  While the engine is busy a frame waits in the backlog;
 * when that is full, can_receive is false and receive returns 0 (the frame
 * is not taken): the platform keeps it and delivers it after rx_ready.
 */
bool qrnic_engine_can_receive(struct qrnic_engine *e);
size_t qrnic_engine_receive(struct qrnic_engine *e, const uint8_t *frame,
                            size_t len);
void qrnic_engine_set_link(struct qrnic_engine *e, bool up);
/* ops->event, if the platform has one. */
void qrnic_event(const struct qrnic_engine *e, const struct qrnic_event *ev);
/* A refused guest action: counted, then QRNIC_EV_GUEST_ERROR. */
void qrnic_guest_error(struct qrnic_engine *e, enum qrnic_guest_err cause,
                       uint64_t a, uint64_t b);
/* NAME and what of a row of QRNIC_GUEST_ERR_LIST; NULL outside it. */
const char *qrnic_guest_err_name(enum qrnic_guest_err cause);
const char *qrnic_guest_err_what(enum qrnic_guest_err cause);
/* Guest memory through ops, a failure reported as GUEST_ERR_DMA; 0 or -1. */
int qrnic_dma_read(struct qrnic_engine *e, uint64_t addr, void *buf,
                   size_t len);
int qrnic_dma_write(struct qrnic_engine *e, uint64_t addr, const void *buf,
                    size_t len);

/* What ops->schedule and ops->timer_mod asked for. */
void qrnic_engine_work(struct qrnic_engine *e);
void qrnic_engine_timer(struct qrnic_engine *e);

/* Inside the engine. */
void qrnic_engine_clear(struct qrnic_engine *e);
uint32_t qrnic_engine_enable(struct qrnic_engine *e, uint64_t sq_base,
                             uint64_t cq_base, uint32_t log_depth);
bool qrnic_engine_doorbell(struct qrnic_engine *e, uint32_t page,
                           uint32_t offset, uint64_t val);
bool qrnic_eq_post(struct qrnic_engine *e, uint32_t eqn, uint8_t type,
                   uint32_t data0, uint32_t data1);
/* Raise a vector unless INTR_MASK masks it (then it is kept pending). */
void qrnic_engine_raise(struct qrnic_engine *e, unsigned int vector);
void qrnic_engine_kick(struct qrnic_engine *e, bool *what);
/* Ask the platform for a work call (ops->schedule), or note it if held. */
void qrnic_engine_schedule(struct qrnic_engine *e);
/* Copy queue memory (BAR4) at off: the one way the engine reads it. */
/* Queue memory [off, off + len) reads as zero, its pages given back if can. */
void qrnic_qmem_zero(struct qrnic_engine *e, uint64_t off, uint64_t len);
void qrnic_qmem_read(const struct qrnic_engine *e, uint64_t off, void *buf,
                     size_t len);

/* qrnic_regfile.c: BAR0 */
uint32_t qrnic_regs_read(struct qrnic_engine *e, uint32_t addr);
void qrnic_regs_write(struct qrnic_engine *e, uint32_t addr, uint32_t val);
void qrnic_regs_reset(struct qrnic_engine *e);

/*
 * Free-running 16-bit ring indices: a producer may move at most a ring
 * ahead of its consumer and never backwards; a consumer may not pass its
 * producer or move backwards.
 */
static inline bool qrnic_pi_ok(uint8_t log_depth, uint16_t pi,
                               uint16_t new_pi, uint16_t ci)
{
    uint16_t ahead = (uint16_t)(new_pi - ci);

    return ahead <= (1u << log_depth) && ahead >= (uint16_t)(pi - ci);
}

static inline bool qrnic_ci_ok(uint16_t pi, uint16_t ci, uint16_t new_ci)
{
    return (uint16_t)(pi - new_ci) <= (uint16_t)(pi - ci);
}

/* Handles software passes in: is this user context / PD allocated? */
static inline bool qrnic_uctx_exists(const struct qrnic_engine *e,
                                     uint32_t uctx)
{
    return uctx >= 1 && uctx < e->db_pages && e->uctx[uctx].valid;
}

static inline struct qrnic_pdc *qrnic_pd_get(const struct qrnic_engine *e,
                                             uint32_t pdn)
{
    return qrnic_table_get(&e->obj[QRNIC_OBJ_PD], pdn);
}

static inline bool qrnic_pd_exists(const struct qrnic_engine *e, uint32_t pdn)
{
    return qrnic_pd_get(e, pdn) != NULL;
}

/* The PD, if it exists and belongs to the context. */
static inline struct qrnic_pdc *qrnic_pd_of(const struct qrnic_engine *e,
                                            uint32_t pdn, uint32_t uctx)
{
    struct qrnic_pdc *pd = qrnic_pd_get(e, pdn);

    return pd && pd->uctx == uctx ? pd : NULL;
}

/*
 * The context a PD belongs to; the PD must exist (its user, a key, QP or
 * SRQ, keeps it).
 */
static inline uint32_t qrnic_pd_uctx(const struct qrnic_engine *e,
                                     uint32_t pdn)
{
    return qrnic_pd_get(e, pdn)->uctx;
}

/* qrnic_objects.c: the handle tables of every kind */
void qrnic_objects_setup(struct qrnic_engine *e);
/*
 * How many objects of a kind the device holds: 1..QRNIC_ENG_MAX_OBJECTS,
 * set while the kind has none (before the device is used).  0 or -1.
 */
int qrnic_objects_set_limit(struct qrnic_engine *e, enum qrnic_obj_kind kind,
                            uint32_t count);
/* Frees every object, kind by kind in enum qrnic_obj_kind's order. */
void qrnic_objects_free(struct qrnic_engine *e);
void qrnic_objects_fini(struct qrnic_engine *e);
/*
 * A destroy command for a kind whose handle is its index: BAD_HANDLE if
 * there is no such object, BAD_STATE while other objects use it.
 */
enum qrnic_cmd_status qrnic_obj_destroy(struct qrnic_engine *e,
                                        enum qrnic_obj_kind kind,
                                        uint32_t idx);
/* How many objects of the kind the device can hold. */
uint32_t qrnic_obj_capacity(const struct qrnic_engine *e,
                            enum qrnic_obj_kind kind);

/* qrnic_aq.c: admin queue ring */
bool qrnic_aq_doorbell(struct qrnic_engine *e, uint32_t pi);
bool qrnic_aq_cq_doorbell(struct qrnic_engine *e, uint32_t ci);
bool qrnic_aq_pending(const struct qrnic_engine *e);
/*
 * Runs every posted command the completion ring has room for, at the
 * doorbell (AQ_DB, or AQ_CQ_CI freeing room for a stalled one).
 */
void qrnic_aq_run(struct qrnic_engine *e);

/*
 * qrnic_cmd.c: admin commands, qrnic_cmds[] built from QRNIC_CMD_LIST.  The
 * handler of the row (NAME, opcode, name, ...) is qrnic_cmd_<name>; it reads
 * its arguments from req->cmd (the command as the device copied it from the
 * admin queue) and may set the completion's results.
 */
/*
 * A little-endian field of a command or response, read or written with its
 * own width: qrnic_get32(&cmd->create_qp.uctx).  A field of another width
 * does not build.
 */
#define QRNIC_FIELD_WIDTH_IS(field, bytes) \
    ((void)sizeof(char[sizeof(*(field)) == (bytes) ? 1 : -1]))
#define qrnic_get16(field) \
    (QRNIC_FIELD_WIDTH_IS(field, 2), qrnic_ld16((const uint8_t *)(field)))
#define qrnic_get32(field) \
    (QRNIC_FIELD_WIDTH_IS(field, 4), qrnic_ld32((const uint8_t *)(field)))
#define qrnic_get64(field) \
    (QRNIC_FIELD_WIDTH_IS(field, 8), qrnic_ld64((const uint8_t *)(field)))
#define qrnic_put16(field, v) \
    (QRNIC_FIELD_WIDTH_IS(field, 2), qrnic_st16((uint8_t *)(field), (v)))
#define qrnic_put32(field, v) \
    (QRNIC_FIELD_WIDTH_IS(field, 4), qrnic_st32((uint8_t *)(field), (v)))
#define qrnic_put64(field, v) \
    (QRNIC_FIELD_WIDTH_IS(field, 8), qrnic_st64((uint8_t *)(field), (v)))

/* Is a field all zero bytes (reserved fields)? */
#define qrnic_field_zero(field) \
    qrnic_bytes_zero((const uint8_t *)&(field), sizeof(field))

static inline bool qrnic_bytes_zero(const uint8_t *p, size_t n)
{
    while (n--) {
        if (*p++) {
            return false;
        }
    }
    return true;
}

struct qrnic_cmd_req {
    const struct qrnic_cmd *cmd;
    uint32_t result0;           /* 0 unless the handler sets it */
    uint32_t result1;
};
struct qrnic_cmd_desc {
    const char *name;           /* "NAME" */
    enum qrnic_cmd_status (*exec)(struct qrnic_engine *e,
                                  struct qrnic_cmd_req *req);
};
/* Every row's handler, declared from the list (defined beside its object). */
#define QRNIC_CMD_HANDLER(cmd, opcode, lname, ...)                        \
    enum qrnic_cmd_status qrnic_cmd_##lname(struct qrnic_engine *e,     \
                                            struct qrnic_cmd_req *req);
QRNIC_CMD_LIST(QRNIC_CMD_HANDLER)
#undef QRNIC_CMD_HANDLER
/* Indexed by opcode; all NULL where QRNIC_CMD_LIST has no row. */
extern const struct qrnic_cmd_desc qrnic_cmds[QRNIC_CMD_MAX];
enum qrnic_cmd_status qrnic_cmd_exec(struct qrnic_engine *e,
                                     const struct qrnic_cmd *cmd,
                                     uint32_t *result0, uint32_t *result1);
void qrnic_cmd_reset_objects(struct qrnic_engine *e);

/* qrnic_sched.c: transport work off the caller's stack, timers */
void qrnic_sched_work(struct qrnic_engine *e);
void qrnic_sched_expire(struct qrnic_engine *e);
/* The QP of an SQ doorbell: its turn now; then the held work call. */
void qrnic_sched_doorbell(struct qrnic_engine *e, uint32_t qpn);
/* Must a QP sending to dmac wait for our backlog to drain? */
bool qrnic_loopback_busy(const struct qrnic_engine *e, const uint8_t *dmac);
/* Hold a received frame for qrnic_engine_work(); false if full. */
bool qrnic_backlog_push(struct qrnic_engine *e, const uint8_t *frame,
                        size_t len);

/* qrnic_eth.c: Ethernet rings */
void qrnic_eth_tx_process(struct qrnic_engine *e);
bool qrnic_eth_can_rx(const struct qrnic_engine *e);
/* Bytes consumed, or 0: no RX buffer, ask again after rx_ready. */
size_t qrnic_eth_rx(struct qrnic_engine *e, const uint8_t *frame,
                    size_t len);

#endif /* QRNIC_ENGINE_H */
