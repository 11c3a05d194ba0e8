/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two qrnic engines back to back: each node has its own guest RAM, queue
 * memory and admin queue; the wire between them can drop, duplicate and
 * reorder frames from a seeded generator; time is virtual and advances
 * only when nothing else can happen, to the earliest engine deadline.
 * The harness plays driver and provider: it creates objects with admin
 * commands, writes WQEs into queue memory, rings doorbells and polls CQs.
 */
#ifndef QRNIC_RC_HARNESS_H
#define QRNIC_RC_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include "qrnic_engine.h"
#include "qfake.h"

#define RAM_BASE        QF_RAM_BASE
#define RAM_SIZE        (48u << 20)
#define QMEM_SIZE       (2u << 20)
#define MAX_FRAMES      4096

struct wire {
    uint64_t rng;
    unsigned int drop_pct;
    unsigned int dup_pct;
    unsigned int reorder_pct;
    bool cut;                       /* everything is dropped */
    bool hub;                       /* delivered at once, as a QEMU hub */
    uint32_t head;                  /* ring of frames in flight */
    uint32_t count;
    struct frame {
        int to;                     /* node index */
        uint16_t len;
        uint8_t data[QRNIC_ETH_MAX_FRAME];
    } *q;                           /* MAX_FRAMES in flight */
    uint64_t sent;
    uint64_t dropped;
    uint64_t bad_icrc;              /* frames failing the reference ICRC */
};

struct node {
    int idx;
    struct qf_dev d;            /* the device on the fake platform */
    uint64_t brk;                   /* guest RAM bump allocator */
    uint32_t qmem_brk;              /* queue memory bump allocator */
    uint32_t aq_pi;
    uint32_t aq_ci;
    uint32_t ceq;                   /* completion EQ */
    uint64_t ceq_base;
    uint32_t ceq_ci;
    uint32_t aeq;                   /* async EQ */
    uint64_t aeq_base;
    uint32_t aeq_ci;
    uint32_t uctx;                  /* objects are created in this context */
    uint32_t pd;                    /* ... and this PD (node_use_uctx) */
    uint32_t kernel_pd;
    uint8_t mac[6];
    uint8_t gid[16];
};

struct hcq {
    struct node *n;
    uint32_t uctx;                  /* its doorbell page */
    uint32_t cqn;
    uint8_t log;
    uint64_t base;
    uint32_t ci;
};

struct hqp {
    struct node *n;
    uint32_t uctx;                  /* its doorbell page */
    uint32_t qpn;
    struct hcq *scq;
    struct hcq *rcq;
    uint32_t sq_off;
    uint32_t rq_off;
    uint8_t log_sq, log_ss, log_rq, log_rs;
    uint16_t sq_pi;
    uint16_t rq_pi;
};

/* A received completion, decoded. */
struct hwc {
    uint64_t wr_id;
    uint32_t byte_len;
    uint32_t imm;
    uint32_t qpn;
    uint16_t wqe_idx;
    uint8_t opcode;
    uint8_t status;
    uint8_t flags;
    uint8_t vendor_err;
    uint32_t src_qp;                /* UD receives */
};

struct hsge {
    uint64_t addr;
    uint32_t len;
    uint32_t lkey;
};

/* A send work request; with QRNIC_WQE_F_INLINE sge[].addr are host pointers. */
struct hwr {
    uint64_t wr_id;
    uint8_t opcode;
    uint8_t flags;
    uint32_t imm;
    uint64_t remote_addr;
    uint32_t rkey;
    uint64_t compare_add;
    uint64_t swap;
    int num_sge;
    struct hsge sge[QRNIC_MAX_SGE];
    int raw_num_sge;                /* >= 0: write this num_sge instead */
    const struct qrnic_ud_av *ud;   /* UD/GSI: the address vector */
    uint32_t xrc_srqn;              /* XRC_INI: the target's XRC SRQ */
};

extern struct node nodes[2];
extern struct wire wire;
extern uint64_t now_ns;

/*
 * How many objects of each kind the next harness_init's devices hold
 * (0: the engine's default), and how many page addresses their regions
 * may hold.  harness_small_tables() sets the numbers the
 * device had before its limits became properties, for tests that fill a
 * table.
 */
extern uint32_t harness_limits[QRNIC_OBJ_COUNT];
extern uint32_t harness_mtt_max;        /* page addresses of all regions */
void harness_small_tables(void);
void harness_init(uint64_t seed);
void harness_fini(void);
/* Run until nothing is pending or the virtual clock passes limit_ns. */
void harness_run(uint64_t limit_ns);
/* Deliver the oldest frame on the wire, nothing else; false if none. */
bool harness_deliver_one(void);
/* Hub mode: a transmitted frame reaches the peer at once (QEMU's hub). */
void harness_hub(bool on);
/*
 * Ring the SQ of each of n QPs, run until idle or limit_ns, then poll cq
 * dry: the completions it held; *failed counts those that did not succeed
 * (the first is printed as a TAP comment).
 */
int harness_ring_and_drain(struct hqp **qps, int n, struct hcq *cq,
                           uint64_t limit_ns, int *failed);
/* Run until cq has a completion (true) or time runs out (false). */
bool harness_wait_cqe(struct hcq *cq, struct hwc *wc, uint64_t limit_ns);
/*
 * harness_init without new memory, as fast as a reset can be: for callers
 * that start over thousands of times (fuzz targets; under ASan, freeing
 * and allocating the nodes' RAM costs more than everything else).  The
 * same state as harness_init(seed) gives, as long as the devices touched
 * no guest RAM the harness did not hand out.
 */
void harness_restart(uint64_t seed);
/*
 * harness_run with at most max_steps steps: true once nothing is left to
 * do before limit_ns, false if the clock passed limit_ns or the steps ran
 * out while there still was.
 */
bool harness_run_steps(uint64_t limit_ns, uint64_t max_steps);

/*
 * A new user context with a PD of its own: the node's objects are created
 * in it from now on (its doorbell page rings theirs).  ST_OK or the
 * status; node_use_kernel() goes back to the kernel's context and PD.
 */
uint8_t node_use_uctx(struct node *n);
void node_use_kernel(struct node *n);

/* A zeroed admin command with its opcode set. */
struct qrnic_cmd harness_cmd(uint8_t opcode);
uint8_t node_cmd(struct node *n, struct qrnic_cmd *cmd, uint32_t *r0);
uint64_t node_alloc(struct node *n, uint64_t len, uint64_t align);
uint8_t *node_ptr(struct node *n, uint64_t gpa);

/*
 * A registered buffer: len bytes at virtual address iova (not a multiple
 * of the page size), on 4 KiB guest pages in shuffled order, so the
 * device's translation is exercised.  LEVEL1 page list, LEVEL2 when big.
 */
struct hmr {
    struct node *n;
    uint32_t key;
    uint8_t status;                 /* of REG_MR */
    uint64_t iova;
    uint64_t len;
    uint32_t npages;
    uint64_t *pages;
};

struct hmr *node_mr(struct node *n, uint64_t len, uint32_t access);
uint8_t node_dereg_mr(struct hmr *mr);
uint8_t *mr_at(struct hmr *mr, uint64_t va);
void mr_fill(struct hmr *mr, uint64_t va, uint64_t len, uint32_t seed);
/* First va in [va, va + len) whose byte differs from the pattern, or 0. */
uint64_t mr_verify(struct hmr *mr, uint64_t va, uint64_t len, uint32_t seed);
uint8_t pattern_byte(uint32_t seed, uint64_t i);
struct hcq *node_create_cq(struct node *n, uint8_t log);
struct hqp *node_create_qp(struct node *n, struct hcq *scq, struct hcq *rcq,
                           uint8_t log_sq, uint8_t log_ss, uint8_t log_rq,
                           uint8_t log_rs);
/* A shared receive queue: 1 << log WQEs of 1 << log_stride bytes. */
struct hsrq {
    struct node *n;
    uint32_t uctx;                  /* its doorbell page */
    uint32_t srqn;
    uint32_t off;
    uint8_t log, log_stride;
    uint16_t pi;
};

struct hsrq *node_create_srq(struct node *n, uint8_t log, uint8_t log_stride,
                             uint32_t limit, uint8_t *st);
void srq_post_recv(struct hsrq *srq, uint64_t wr_id, const struct hsge *sge,
                   int num_sge, bool ring);
/* A QP of the type receiving from srq (no RQ of its own). */
struct hqp *node_create_qp_srq(struct node *n, uint8_t type, struct hcq *scq,
                               struct hcq *rcq, uint8_t log_sq,
                               uint8_t log_ss, struct hsrq *srq, uint8_t *st);
/* The same for any QP type (QRNIC_QPT_*); NULL with *st on failure. */
struct hqp *node_create_qp_type(struct node *n, uint8_t type,
                                struct hcq *scq, struct hcq *rcq,
                                uint8_t log_sq, uint8_t log_ss, uint8_t log_rq,
                                uint8_t log_rs, uint8_t *st);
/*
 * XRC: an SRQ of domain xrcd completing on cq, an XRC_INI QP (SQ only), an
 * XRC_TGT QP of domain xrcd (no queues, counted against the node's
 * context, n->uctx); NULL with *st on
 * failure.  qp_connect_xrc() takes either to RTS with the attributes its
 * type requires, as qp_connect() does for RC.
 */
struct hsrq *node_create_xrc_srq(struct node *n, uint32_t xrcd,
                                 struct hcq *cq, uint8_t log, uint8_t *st);
struct hqp *node_create_xrc_ini(struct node *n, struct hcq *scq,
                                uint8_t log_sq, uint8_t *st);
struct hqp *node_create_xrc_tgt(struct node *n, uint32_t xrcd, uint8_t *st);
bool qp_connect_xrc(struct hqp *qp, const struct hqp *peer, uint8_t path_mtu);
/* The same with the requester's timers given; the first failing status. */
uint8_t qp_connect_xrc_to(struct hqp *qp, const struct hqp *peer,
                          uint8_t path_mtu, uint8_t timeout, uint8_t retry,
                          uint8_t rnr_retry);
uint8_t qp_modify(struct hqp *qp, uint32_t mask,
                  const struct qrnic_qp_attr *attr);
uint8_t qp_query(struct hqp *qp, struct qrnic_qp_attr *attr);
/* The QP's state as QUERY_QP reports it; 0xff if the query fails. */
uint8_t qp_state(struct hqp *qp);
/*
 * What qp_connect sets besides its arguments: READ/atomic requests each
 * side may have outstanding (both directions; default 8), and the path's
 * flow label (default 0).
 */
extern uint8_t harness_rd_atomic;
extern uint32_t harness_flow_label;
/*
 * RESET -> INIT -> RTR -> RTS towards peer, with these transport values;
 * remote write, read, atomic and FLUSH_GLOBAL rights.
 */
bool qp_connect(struct hqp *qp, const struct hqp *peer, uint8_t path_mtu,
                uint8_t timeout, uint8_t retry, uint8_t rnr_retry,
                uint8_t min_rnr);
/*
 * RESET -> INIT -> RTR -> RTS of a UC QP towards peer with this path MTU
 * and PSNs; ST_OK or the failing MODIFY_QP's status.  qp_connect_uc: MTU
 * 1024, PSNs that wrap soon.
 */
uint8_t qp_connect_uc_psn(struct hqp *qp, const struct hqp *peer,
                          uint8_t path_mtu, uint32_t rq_psn, uint32_t sq_psn);
uint8_t qp_connect_uc(struct hqp *qp, const struct hqp *peer);
/*
 * A UD or (gsi) the GSI QP with this Q_Key from RESET up to state (INIT,
 * RTR or RTS, sending from sq_psn); qp_up_ud: to RTS from PSN 100.
 */
uint8_t qp_up_ud_to(struct hqp *qp, uint32_t qkey, bool gsi, uint8_t state,
                    uint32_t sq_psn);
uint8_t qp_up_ud(struct hqp *qp, uint32_t qkey, bool gsi);
/* An address vector to QP qpn of node n. */
struct qrnic_ud_av node_av(int n, uint32_t qpn, uint32_t qkey);
void qp_post_send(struct hqp *qp, const struct hwr *wr, bool ring);
void qp_post_recv(struct hqp *qp, uint64_t wr_id, const struct hsge *sge,
                  int num_sge, bool ring);
void qp_ring_sq(struct hqp *qp);
bool cq_poll(struct hcq *cq, struct hwc *wc);
void cq_arm(struct hcq *cq, bool solicited);
/* Completion events on the node's EQ since the last call. */
uint32_t node_cq_events(struct node *n, uint32_t cqn);
/* Async events of this type for data0 since the last call (others too). */
uint32_t node_async_events(struct node *n, uint8_t type, uint32_t data0);

/* The usual fixture: per node one CQ, one MR of mr_bytes, connected QPs. */
struct pair {
    struct hcq *cq[2];
    struct hqp *qp[2];
    struct hmr *mr[2];
};

bool pair_setup(struct pair *p, uint64_t seed, uint8_t path_mtu,
                uint8_t timeout, uint8_t retry, uint8_t rnr_retry,
                uint8_t min_rnr, uint64_t mr_bytes);
/* A send WR with one SGE, signalled. */
struct hwr mkwr(uint64_t wr_id, uint8_t opcode, uint64_t addr, uint32_t len,
                uint32_t lkey);
/*
 * An RDMA WRITE (with immediate imm) or READ on QP 0 between offset off of
 * node 0's MR and of node 1's (rkey), len bytes, signalled; node 0's work
 * is run, so its frames are on the wire.
 */
void pair_post_rdma(struct pair *p, uint64_t wr_id, uint8_t opcode,
                    uint32_t off, uint32_t len, uint32_t rkey, uint32_t imm);
/* cq's next completion, before limit_ns, is wr_id's with this status. */
bool harness_completes(struct hcq *cq, uint64_t wr_id, uint8_t status,
                       uint64_t limit_ns);

#endif
