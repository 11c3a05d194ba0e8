/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine internals: RDMA objects (CQs, MRs, QPs) and the interfaces
 * between the transport's parts.  Not seen outside the engine.
 */
#ifndef QRNIC_RDMA_H
#define QRNIC_RDMA_H

#include "qrnic_engine.h"
#include "qrnic_wire.h"

#define QRNIC_PSN_MASK          0xffffffu
/*
 * In-flight bytes as a host socket under the netdev counts them: a packet
 * costs the frame plus skb overhead rounded up to a power of two.  The cap
 * (struct qrnic_engine.win_bytes, QRNIC_ENG_WINDOW_BYTES by default)
 * bounds the burst a UDP link can drop at large MTUs (a 4096-byte MTU
 * allows 32 packets); at MTU 1024 the packet cap (win_pkts) binds, which
 * a lossless stream link needs to fill its pipe.
 */
#define QRNIC_PKT_OVERHEAD      512
#define QRNIC_MIN_CWND          2           /* congestion window floor */
#define QRNIC_INIT_CWND         16
#define QRNIC_CWND_ONE          256         /* cwnd fixed point: 1 packet */
#define QRNIC_BUDGET            32          /* packets per QP per turn */
#define QRNIC_REQ_BURST         128         /* request packets per turn */
#define QRNIC_MIN_RTO_NS        1000000ull  /* 1 ms */
#define QRNIC_PROBE_NS          2000000ull  /* tail loss probe after 2 ms */
#define QRNIC_PROBE_INIT_NS     1000000000ull /* no round trip measured yet */

static inline uint32_t psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & QRNIC_PSN_MASK;
}

/* a - b in the 24-bit PSN circle: negative if a is before b. */
static inline int32_t psn_diff(uint32_t a, uint32_t b)
{
    uint32_t d = (a - b) & QRNIC_PSN_MASK;

    return (d & 0x800000u) ? (int32_t)d - 0x1000000 : (int32_t)d;
}

/* ---- user contexts and PDs (qrnic_uctx.c) -------------------------------- */

/* One context's limit for a kind (ctx_max[], else a quarter of the total). */
uint32_t qrnic_ctx_limit(const struct qrnic_engine *e, enum qrnic_ctx_res kind);
/*
 * Count n more of a kind against context uctx (0: the kernel, unlimited)
 * and against all user contexts together; OVER_QUOTA if either is full.
 */
enum qrnic_cmd_status qrnic_ctx_charge(struct qrnic_engine *e, uint32_t uctx,
                                       enum qrnic_ctx_res kind, uint32_t n);
void qrnic_ctx_uncharge(struct qrnic_engine *e, uint32_t uctx,
                        enum qrnic_ctx_res kind, uint32_t n);
/* Give back what an uncharge just took, unchecked (to undo a change). */
void qrnic_ctx_restore(struct qrnic_engine *e, uint32_t uctx,
                       enum qrnic_ctx_res kind, uint32_t n);
/* One object of kind and the pages it holds (queue memory, MR pages). */
enum qrnic_cmd_status
qrnic_ctx_charge_obj(struct qrnic_engine *e, uint32_t uctx,
                     enum qrnic_ctx_res kind,
                     enum qrnic_ctx_res pages_kind, uint32_t pages);
void qrnic_ctx_uncharge_obj(struct qrnic_engine *e, uint32_t uctx,
                            enum qrnic_ctx_res kind,
                            enum qrnic_ctx_res pages_kind, uint32_t pages);
void qrnic_uctx_reset(struct qrnic_engine *e);
/* Release functions of the object kinds (qrnic_objects.c). */
void qrnic_pd_release(struct qrnic_engine *e, void *obj);

/* ---- completion queues --------------------------------------------------- */

/* A CQ's context: what the device keeps of a completion queue. */
struct qrnic_cqc {
    uint32_t cqn;
    uint32_t uctx;
    uint32_t eqn;
    uint8_t log_depth;
    uint8_t arm;                /* 0, QRNIC_DB_ARM [| ARM_SOLICITED] >> 24 */
    bool overflowed;            /* CQ_ERR event sent */
    uint32_t pi;                /* free running, as software counts */
    uint32_t ci;                /* last consumer index software reported */
    uint32_t nqp;               /* QPs completing here */
    uint32_t npages;            /* page addresses held (e->mtt_used) */
    uint64_t *pages;            /* 4 KiB pages: CQEs, then the record */
};

/* A completion as the engine produces it (qrnic_cq_post writes the CQE). */
struct qrnic_wc {
    uint64_t wr_id;
    uint32_t byte_len;
    uint32_t imm;               /* network order bytes as a u32 (raw) */
    uint32_t qpn;
    uint16_t wqe_idx;
    uint8_t opcode;
    uint8_t status;
    uint8_t flags;
    uint8_t vendor_err;
    uint32_t src_qp;            /* UD receives */
};

struct qrnic_cqc *qrnic_cq_get(struct qrnic_engine *e, uint32_t cqn);
/* Write a CQE and raise its event; false if the CQ overflowed. */
bool qrnic_cq_post(struct qrnic_engine *e, struct qrnic_cqc *cq,
                   const struct qrnic_wc *wc);
enum qrnic_guest_err qrnic_cq_doorbell(struct qrnic_engine *e, uint32_t page,
                                       uint64_t val);
void qrnic_cq_release(struct qrnic_engine *e, void *obj);

/* ---- page lists ---------------------------------------------------------- */

/*
 * Read a command's page list into pages[] (npages entries of 1 << shift
 * bytes).  QRNIC_ST_OK, DMA_ERROR or BAD_PARAM.
 */
enum qrnic_cmd_status qrnic_pbl_read(struct qrnic_engine *e,
                                     const struct qrnic_pbl *pbl,
                                     uint64_t *pages, uint32_t npages);

/* ---- memory regions and windows ------------------------------------------ */

/*
 * One table (e->obj[QRNIC_OBJ_KEY], indexed by the key's upper 24 bits)
 * holds regions and windows; QRNIC_KEY_* says which an entry is.
 */
enum qrnic_key_kind {
    QRNIC_KEY_MR,               /* REG_MR command: always valid */
    QRNIC_KEY_FRMR,             /* ALLOC_MR: valid once a REG_MR WQE ran */
    QRNIC_KEY_MW1,              /* ALLOC_MW type 1 */
    QRNIC_KEY_MW2,              /* ALLOC_MW type 2B */
};

/* A key's context: what the device keeps of a region or a window. */
struct qrnic_mrc {
    uint32_t key;
    uint32_t pdn;
    uint32_t access;
    uint8_t kind;               /* enum qrnic_key_kind */
    bool valid;                 /* region usable / window bound */
    bool phys;
    uint8_t page_shift;
    uint64_t iova;              /* window: its range in the region's */
    uint64_t length;
    uint32_t npages;            /* page addresses in use */
    uint32_t mtt;               /* page addresses reserved (e->mtt_used) */
    uint32_t nmw;               /* region: windows bound to it */
    uint32_t mr_idx;            /* bound window: its region's index */
    uint32_t qpn;               /* bound type 2 window: the QP that bound it */
    uint64_t pages[];
};

static inline bool qrnic_key_is_mw(const struct qrnic_mrc *mr)
{
    return mr->kind == QRNIC_KEY_MW1 || mr->kind == QRNIC_KEY_MW2;
}

/*
 * A registration's rights (within allowed; remote write or atomic need
 * local write) and a non-empty range that does not wrap.
 */
bool qrnic_mr_rights_ok(uint32_t access, uint32_t allowed, uint64_t iova,
                        uint64_t length);
/* Do npages pages of 1 << shift bytes cover [iova, iova + length) exactly? */
bool qrnic_mr_pages_cover(uint64_t iova, uint64_t length, uint8_t shift,
                          uint32_t npages);
/* Why an MR check failed; QRNIC_VERR_* values. */
enum qrnic_vendor_err
qrnic_mr_check(struct qrnic_engine *e, uint32_t key, uint32_t pdn,
               uint32_t access, uint64_t va, uint64_t len,
               struct qrnic_mrc **out);
/*
 * The same for an rkey arriving at qp: a valid region of its PD, or a
 * bound window of its PD (type 2: bound by qp) whose rights and range
 * allow it, then the window's (valid) region; *out is the region.
 */
enum qrnic_vendor_err
qrnic_rkey_check(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                 uint32_t key, uint32_t access, uint64_t va,
                 uint64_t len, struct qrnic_mrc **out);
/* The same in PD pdn: a reply to a request accepted earlier. */
enum qrnic_vendor_err
qrnic_rkey_check_pd(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                    uint32_t pdn, uint32_t key, uint32_t access, uint64_t va,
                    uint64_t len, struct qrnic_mrc **out);
/* Copy between the MR's memory at va and buf; false on a DMA failure. */
bool qrnic_mr_read(struct qrnic_engine *e, const struct qrnic_mrc *mr,
                   uint64_t va, void *buf, uint64_t len);
bool qrnic_mr_write(struct qrnic_engine *e, const struct qrnic_mrc *mr,
                    uint64_t va, const void *buf, uint64_t len);
/*
 * The key table: put mr (pdn set, its pages reserved in mr->mtt) at a
 * free index with a new key byte, charged to its PD's context, and answer
 * the command with its key; else NO_RESOURCES (no mr, table full) or
 * OVER_QUOTA, and mr is freed.  qrnic_key_release() frees an entry (a
 * bound window first unbinds).
 */
enum qrnic_cmd_status qrnic_key_add(struct qrnic_engine *e,
                                    struct qrnic_mrc *mr,
                                    struct qrnic_cmd_req *req);
void qrnic_key_release(struct qrnic_engine *e, void *obj);
/* The entry the key's index names, whatever its key byte; or NULL. */
struct qrnic_mrc *qrnic_key_slot(struct qrnic_engine *e, uint32_t key);
/* Check a region's bounds; it must cover [va, va + len). */
static inline bool qrnic_mr_covers(const struct qrnic_mrc *mr, uint64_t va,
                                   uint64_t len)
{
    return va >= mr->iova && len <= mr->length &&
           va - mr->iova <= mr->length - len;
}

/* qrnic_mw.c: memory windows */
/* A window's binding ends: its region and QP forget it. */
void qrnic_mw_unbind(struct qrnic_engine *e, struct qrnic_mrc *mw);
/* DESTROY_QP: the type 2 windows the QP bound are unbound. */
void qrnic_mw_qp_gone(struct qrnic_engine *e, struct qrnic_qpc *qp);

/* qrnic_fastreg.c: fast-registration regions, invalidation */
/*
 * Make key invalid for qp: LOCAL_INV (remote false) or a received
 * SEND_WITH_INV; false if the key names nothing it may invalidate.
 */
bool qrnic_key_invalidate(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                          uint32_t key, bool remote);

/* A host copy of a WQE's scatter/gather list. */
struct qrnic_sgl {
    uint32_t num;
    uint64_t total;
    struct {
        uint64_t addr;
        uint32_t length;
        uint32_t lkey;
    } sge[QRNIC_MAX_SGE];
};

/* Decode num struct qrnic_sge entries at p (num <= QRNIC_MAX_SGE). */
void qrnic_sgl_decode(struct qrnic_sgl *sgl, const uint8_t *p, uint32_t num);
/* Check every SGE for the access; QRNIC_VERR_*. */
enum qrnic_vendor_err
qrnic_sgl_check(struct qrnic_engine *e, uint32_t pdn,
                const struct qrnic_sgl *sgl, uint32_t access);
/* Copy len bytes at byte offset off of the list; QRNIC_VERR_*. */
enum qrnic_vendor_err qrnic_sgl_copy(struct qrnic_engine *e, uint32_t pdn,
                                     const struct qrnic_sgl *sgl, uint64_t off,
                                     void *buf, uint32_t len, bool to_guest);

/* ---- queue pairs --------------------------------------------------------- */

/* The requester's record of a send WQE it has started. */
struct qrnic_swqe {
    uint64_t wr_id;
    uint32_t first_psn;
    uint32_t npkts;             /* PSNs it uses */
    uint32_t length;
    uint32_t resp_psn;          /* READ/atomic: next response PSN expected */
    uint8_t opcode;             /* QRNIC_WR_* */
    uint8_t flags;              /* QRNIC_WQE_F_* */
    bool done;                  /* acknowledged / answered */
    bool rd_counted;            /* holds a max_rd_atomic slot */
    uint8_t status;             /* failed: QRNIC_WC_*, completes so */
    uint8_t verr;
};

/* The bytes of struct qrnic_sq_wqe from the RDMA fields to the end. */
#define QRNIC_WQE_ARGS_OFF      offsetof(struct qrnic_sq_wqe, remote_addr)
#define QRNIC_WQE_ARGS          (sizeof(struct qrnic_sq_wqe) - \
                                 QRNIC_WQE_ARGS_OFF)

/* A send WQE read from queue memory and checked. */
struct qrnic_wqe {
    uint64_t wr_id;
    uint8_t opcode;
    uint16_t props;             /* the opcode's QRNIC_WR_P_* */
    uint8_t flags;
    uint32_t imm;
    uint64_t remote_addr;
    uint32_t rkey;
    uint64_t compare_add;
    uint64_t swap;
    uint8_t flush_type;         /* FLUSH: QRNIC_FLUSH_GLOBAL etc. */
    uint8_t flush_level;        /* FLUSH: QRNIC_FLUSH_RANGE, _MR */
    uint32_t xrc_srqn;          /* XRC_INI: the target's XRC SRQ */
    uint32_t length;
    struct qrnic_sgl sgl;
    uint32_t inline_len;
    uint8_t inline_data[QRNIC_MAX_INLINE];
    /* BIND_MW, REG_MR: the header's last 40 bytes (their own layouts) */
    uint8_t args[QRNIC_WQE_ARGS];
};

/* Responder: a READ or atomic request kept for replies and duplicates. */
struct qrnic_rd_res {
    bool valid;
    bool atomic;
    /* FLUSH, ATOMIC WRITE: an empty READ RESPONSE ONLY answers it */
    bool empty;
    bool pending;               /* reply (still) to be sent */
    /*
     * The reply went out in full once and a duplicate asked for it again:
     * a new request may take the slot (the requester that sends it has
     * the first reply).
     */
    bool replay;
    uint32_t psn;               /* request PSN */
    uint32_t npkts;
    uint32_t rkey;
    uint64_t orig;              /* atomic: the value before */
    uint32_t out_psn;           /* READ/atomic: next response PSN to send */
    uint64_t out_va;            /* READ: where it reads from */
    uint32_t out_left;          /* READ: bytes still to send */
    bool out_first;             /* READ: next response starts a reply */
    uint32_t xrc_srqn;          /* XRC_TGT: the SRQ it named (its PD) */
};

enum qrnic_resp_msg {
    QRNIC_RESP_NONE,
    QRNIC_RESP_SEND,            /* in a multi-packet SEND */
    QRNIC_RESP_WRITE,           /* in a multi-packet RDMA WRITE */
};

/* The requester's part of a QP's context: the SQ, the PSNs it sends. */
struct qrnic_qp_req {
    uint16_t sq_pi;             /* software's producer index */
    uint16_t sq_tail;           /* oldest WQE not completed */
    uint16_t sq_head;           /* next WQE to start */
    uint16_t sq_cur;            /* WQE holding tx_psn (tail..head) */
    uint32_t next_psn;          /* first PSN of the next new WQE */
    uint32_t tx_psn;            /* next PSN to (re)transmit */
    uint32_t sent_psn;          /* one past the highest PSN ever sent */
    bool req_error;             /* a failed WQE waits: start nothing new */
    uint32_t pkts_since_ackreq;
    uint32_t ackreq_psn;        /* the last PSN sent that draws an answer */
    bool ack_now;               /* the next packet asks for an ACK */
    uint32_t rd_inflight;       /* READ/atomic WQEs started, not done */
    struct qrnic_swqe *swq;     /* one per SQ slot */
    bool cur_valid;             /* cur caches WQE sq_cur */
    struct qrnic_wqe cur;
};

/* The responder's part of a QP's context. */
struct qrnic_qp_resp {
    uint32_t epsn;
    uint32_t msn;
    uint16_t rq_pi;
    uint16_t rq_ci;
    bool nak_sent;              /* drop later PSNs until the expected one */
    bool uc_drop;               /* UC: drop packets until a new message */
    uint8_t resp_msg;           /* enum qrnic_resp_msg */
    bool recv_active;           /* recv_* describe a taken receive WQE */
    uint16_t recv_idx;          /* its slot (RQ: rq_ci) */
    uint32_t recv_pdn;          /* its SGEs' PD (the SRQ's, or the QP's) */
    uint64_t recv_wr_id;
    uint32_t recv_off;
    struct qrnic_sgl recv_sgl;
    uint64_t write_va;
    uint32_t write_rkey;
    uint32_t write_len;
    uint32_t write_off;
    bool inv_failed;            /* a SEND_WITH_INV could not invalidate */
    struct qrnic_rd_res *rd_res;    /* QRNIC_MAX_RD_ATOMIC entries */
    uint32_t rd_res_next;       /* slot the next request takes */
    bool ack_pending;           /* ack_* to be sent */
    uint8_t ack_syndrome;
    uint32_t ack_psn;
};

/* A QP's attributes, as MODIFY_QP sets them and QUERY_QP reports them. */
struct qrnic_qp_attrs {
    uint32_t access;
    uint32_t qkey;              /* UD, GSI */
    uint8_t path_mtu;
    uint32_t mtu;
    uint8_t timeout;
    uint8_t retry_cnt;
    uint8_t rnr_retry;
    uint8_t min_rnr_timer;
    uint8_t max_rd_atomic;
    uint8_t max_dest_rd_atomic;
    uint32_t dest_qpn;
    uint32_t rq_psn;
    uint32_t sq_psn;
    uint16_t pkey_index;
    uint8_t port;
    uint8_t sgid_index;
    uint8_t hop_limit;
    uint8_t tclass;
    uint32_t flow_label;
    uint8_t dgid[16];
    uint8_t sgid[16];
    uint8_t dmac[6];
    bool ipv4;
    uint16_t sport;
};

/*
 * A QP's completer: what the peer has acknowledged or answered, and the
 * retransmission, RNR and tail-loss-probe timers and retry counts that
 * act when it has not.
 */
struct qrnic_qp_comp {
    uint32_t una_psn;           /* oldest PSN not acknowledged/answered */
    uint32_t ack_next;          /* one past the highest PSN ACKed */
    uint32_t rnr_psn;           /* resend from here when the RNR wait ends */
    bool gap_resent;            /* a READ gap at gap_psn was asked again */
    uint64_t wait_since;        /* timers (re)armed: sent or progressed */
    bool rtt_timing;            /* rtt_psn's round trip is being timed */
    uint32_t rtt_psn;
    uint64_t rtt_sent;
    uint32_t gap_psn;
    uint8_t retry_left;
    uint8_t rnr_left;
    bool rnr_wait;
    uint64_t rto_deadline;      /* 0: no retransmission timer */
    uint64_t probe_deadline;    /* 0: no tail loss probe pending */
    /*
     * since progress: 1 last packet resent, 2.. all unacknowledged ones
     * (again)
     */
    uint8_t probe_stage;
    bool probe_next;            /* was starved: the next expiry probes */
    uint64_t rnr_deadline;      /* 0: not waiting */
};

/*
 * A QP's context: what the device keeps of a queue pair (the driver's and
 * the provider's struct qrnic_qp are their own views of it).
 */
struct qrnic_qpc {
    uint32_t qpn;
    uint32_t idx;
    uint32_t uctx;
    uint32_t pdn;
    uint32_t nmw2;              /* type 2 windows it bound (kept in RESET) */
    struct qrnic_cqc *scq;
    struct qrnic_cqc *rcq;
    /*
     * Receives come from it; NULL: own RQ.  XRC_TGT: the XRC SRQ of the
     * message in progress or the last one (rcq and pdn are then its),
     * held without a count: qrnic_xrc_srq_gone() lets go.
     */
    struct qrnic_srqc *srq;
    uint32_t xrcd;              /* XRC_TGT: its domain */
    uint8_t type;               /* QRNIC_QPT_*, kept across RESET */
    uint32_t resets;            /* RESETs so far (QP_FATAL's data1) */
    uint8_t state;
    bool sig_all;
    bool sqd_notify;
    bool sqd_event_sent;

    /* Work queues in queue memory. */
    uint32_t sq_off;
    uint32_t rq_off;
    uint8_t log_sq;
    uint8_t log_sq_stride;
    uint8_t log_rq;
    uint8_t log_rq_stride;

    struct qrnic_qp_attrs attr;
    struct qrnic_qp_req req;
    struct qrnic_qp_comp comp;
    struct qrnic_qp_resp resp;

    /* Lists, and what the device's congestion control counts for it. */
    bool cc_recovering;         /* resending what was lost: counts none */
    uint32_t cc_counted;        /* its PSNs in e->cc.inflight */
    bool starved;               /* counted in e->cc.starved */
    bool cc_waiting;            /* on e->cc.waiting */
    struct qrnic_qpc *cc_prev;
    struct qrnic_qpc *cc_next;
    bool ready_queued;
    struct qrnic_qpc *ready_prev;
    struct qrnic_qpc *ready_next;
    bool timed_queued;
    struct qrnic_qpc *timed_prev;
    struct qrnic_qpc *timed_next;
};

struct qrnic_qpc *qrnic_qp_get(struct qrnic_engine *e, uint32_t qpn);
/* Queue memory pages of the QP's own queues. */
uint32_t qrnic_qp_qmem_pages(const struct qrnic_qpc *qp);
void qrnic_qp_release(struct qrnic_engine *e, void *obj);
/* Queue doorbells: QRNIC_GUEST_OK, or why the value was refused. */
enum qrnic_guest_err qrnic_qp_doorbell(struct qrnic_engine *e, uint32_t page,
                                       bool sq, uint64_t val);
/* Move to ERR on the device's own account; flushes through the work loop. */
void qrnic_qp_error(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    bool async_event);
/* The CQE opcode (ibv_wc_opcode) for a send WQE opcode. */
uint8_t qrnic_cqe_opcode(uint8_t wr_opcode);
/* Complete the SRQ WQE the QP holds (if any) with WR_FLUSH_ERR. */
void qrnic_qp_flush_srq_wqe(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* Complete WQEs of a QP in ERR with WR_FLUSH_ERR. */
void qrnic_qp_flush(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* Copy the first len bytes of send WQE idx (mod depth) from queue memory. */
void qrnic_qp_sq_read(const struct qrnic_engine *e, const struct qrnic_qpc *qp,
                      uint16_t idx, void *buf, size_t len);
uint64_t qrnic_qp_rqe_wr_id(const struct qrnic_engine *e,
                            const struct qrnic_qpc *qp, uint16_t idx);

/* ---- queue memory -------------------------------------------------------- */

/* Pages a ring of 1 << log_depth WQEs of 1 << log_stride bytes occupies. */
uint32_t qrnic_qmem_pages(uint8_t log_depth, uint8_t log_stride);
/* Page aligned, inside queue memory and nobody's? */
bool qrnic_qmem_free_range(const struct qrnic_engine *e, uint32_t off,
                           uint32_t pages);
/*
 * Page aligned, inside queue memory, nobody's: claim it for owner and
 * clear it, so no byte of an earlier owner (another context, the kernel)
 * reaches the new one.
 */
bool qrnic_qmem_claim(struct qrnic_engine *e, uint32_t off, uint32_t pages,
                      uint32_t owner);
void qrnic_qmem_release(struct qrnic_engine *e, uint32_t off,
                        uint32_t pages);
/* Decode the receive WQE at idx of a ring (RQ or SRQ); QRNIC_VERR_*. */
enum qrnic_vendor_err
qrnic_rqe_read(const struct qrnic_engine *e, uint32_t off,
               uint8_t log_depth, uint8_t log_stride, uint16_t idx,
               uint64_t *wr_id, struct qrnic_sgl *sgl);

/* ---- shared receive queues ---------------------------------------------- */

/* An SRQ's context: what the device keeps of a shared receive queue. */
struct qrnic_srqc {
    uint32_t srqn;
    uint32_t uctx;
    uint32_t pdn;
    uint32_t off;
    uint8_t log_depth;
    uint8_t log_stride;
    uint16_t pi;
    uint16_t ci;                /* next WQE to take */
    uint32_t limit;             /* armed limit, 0: none */
    uint32_t nqp;               /* QPs receiving from it */
    uint32_t xrcd;              /* XRC domain, 0: a basic SRQ */
    struct qrnic_cqc *cq;       /* XRC: its receives complete here */
};

struct qrnic_srqc *qrnic_srq_get(struct qrnic_engine *e, uint32_t srqn);
enum qrnic_guest_err qrnic_srq_doorbell(struct qrnic_engine *e, uint32_t page,
                                        uint64_t val);
void qrnic_srq_release(struct qrnic_engine *e, void *obj);

/*
 * Receive WQEs for a QP, from its RQ or its SRQ.  qrnic_recv_take() makes
 * the next one the QP's active WQE (recv_idx, recv_pdn, recv_wr_id,
 * recv_sgl; an SRQ's is taken from it at once) and returns QRNIC_VERR_*;
 * qrnic_recv_done() is called when its completion is written.
 */
bool qrnic_recv_ready(const struct qrnic_qpc *qp);
enum qrnic_vendor_err
qrnic_recv_take(struct qrnic_engine *e, struct qrnic_qpc *qp);
void qrnic_recv_done(struct qrnic_qpc *qp);
/* A receive completion of the QP's SRQ: QRNIC_CQE_F_SRQ, XRC's srqn. */
void qrnic_srq_wc(const struct qrnic_qpc *qp, struct qrnic_wc *wc);
/*
 * Complete the active receive WQE for the packet rx (the message's last)
 * with len bytes; verr goes into the CQE of a failure.
 */
void qrnic_recv_complete(struct qrnic_engine *e, struct qrnic_qpc *qp,
                         uint8_t opcode, enum qrnic_wc_status status,
                         enum qrnic_vendor_err verr,
                         uint32_t len, const struct qrnic_rx *rx);

/* ---- transport: requester, completer, responder -------------------------- */

/* Send up to budget packets; true if it stopped only for the budget. */
/*
 * About how many packets the QP's requester would send now for the WQEs
 * posted and not yet started; more than limit: limit + 1.
 */
uint32_t qrnic_req_new_pkts(const struct qrnic_engine *e,
                            const struct qrnic_qpc *qp, uint32_t limit);
bool qrnic_req_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint32_t budget);
/* Retransmit from psn (an unacknowledged PSN) on the next turn. */
void qrnic_req_rewind(struct qrnic_engine *e, struct qrnic_qpc *qp,
                      uint32_t psn);
void qrnic_req_timer(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint64_t now);
/* An RNR NAK for psn: wait the timer the code names, then resend. */
void qrnic_req_rnr(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   uint32_t psn, uint8_t code);
/* Re-read started WQE idx; QRNIC_VERR_* (also if it changed meanwhile). */
enum qrnic_vendor_err
qrnic_req_wqe(struct qrnic_engine *e, struct qrnic_qpc *qp,
              uint16_t idx, struct qrnic_wqe *w);
/* Complete the finished WQEs at the SQ tail, in order. */
void qrnic_req_progress(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* The WQE holding psn (or the tail's) fails with a status. */
void qrnic_req_fail(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint16_t idx, enum qrnic_wc_status status,
                    enum qrnic_vendor_err verr);
/* A PSN moved from unacknowledged to acknowledged: reload retries etc. */
void qrnic_req_advanced(struct qrnic_engine *e, struct qrnic_qpc *qp,
                        uint32_t una);
/* A packet was lost (NAK, missing response, timeout): shrink the window. */
void qrnic_req_loss(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    bool timeout);
static inline struct qrnic_swqe *qrnic_swqe(struct qrnic_qpc *qp, uint16_t i)
{
    return &qp->req.swq[i & ((1u << qp->log_sq) - 1)];
}

/* A field of the send WQE copied to the bytes at w. */
#define qrnic_wqe_at(w, field) ((w) + offsetof(struct qrnic_sq_wqe, field))

/* Send WQEs that move no data; the requester runs them in its turn. */
static inline bool qrnic_wr_is_local(uint8_t opcode)
{
    return qrnic_wr_info(opcode).props & QRNIC_WR_P_LOCAL;
}

/* Execute one for qp; QRNIC_WC_* status, *verr the reason of a failure. */
enum qrnic_wc_status
qrnic_local_op(struct qrnic_engine *e, struct qrnic_qpc *qp,
               const struct qrnic_wqe *w, enum qrnic_vendor_err *verr);
/* qrnic_mw.c: BIND_MW; QRNIC_WC_* status. */
enum qrnic_wc_status
qrnic_mw_bind(struct qrnic_engine *e, struct qrnic_qpc *qp,
              const struct qrnic_wqe *w, enum qrnic_vendor_err *verr);

/*
 * A request answered by a response, not an ACK (READ, atomics, FLUSH,
 * ATOMIC WRITE): it holds a max_rd_atomic slot until it completes.
 */
static inline bool qrnic_wr_is_rd_atomic(uint8_t opcode)
{
    return qrnic_wr_info(opcode).props & QRNIC_WR_P_RESPONSE;
}

/* One answered by a response with no SGEs (FLUSH, ATOMIC WRITE). */
static inline bool qrnic_wr_props_flush_aw(uint16_t props)
{
    return (props & (QRNIC_WR_P_RESPONSE | QRNIC_WR_P_SGL)) ==
           QRNIC_WR_P_RESPONSE;
}

static inline bool qrnic_wr_is_flush_aw(uint8_t opcode)
{
    return qrnic_wr_props_flush_aw(qrnic_wr_info(opcode).props);
}

void qrnic_comp_rx(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   const struct qrnic_rx *rx);

void qrnic_resp_rx(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   const struct qrnic_rx *rx);
bool qrnic_resp_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                     uint32_t budget);
/* For qrnic_flush.c: NAK a request and end the QP; a reply slot. */
void qrnic_resp_fatal_nak(struct qrnic_engine *e, struct qrnic_qpc *qp,
                          uint32_t psn, uint8_t code);
struct qrnic_rd_res *qrnic_resp_rd_slot(struct qrnic_qpc *qp);

/* ---- RDMA FLUSH and ATOMIC WRITE (qrnic_flush.c) ------------------------ */

/*
 * Requester: decode the FLUSH / ATOMIC WRITE part of send WQE w (flags
 * already checked) into q; QRNIC_VERR_* and the completion status.
 */
enum qrnic_vendor_err qrnic_flush_wqe(const uint8_t *w, struct qrnic_wqe *q,
                                      enum qrnic_wc_status *status);
/* Requester: the request packet of w at psn; the frame's length so far. */
size_t qrnic_flush_request(struct qrnic_engine *e, struct qrnic_qpc *qp,
                           const struct qrnic_wqe *w, uint8_t *f,
                           uint32_t psn);
/* Responder: check and execute a FLUSH or ATOMIC WRITE; false if NAKed. */
bool qrnic_resp_flush_aw(struct qrnic_engine *e, struct qrnic_qpc *qp,
                         const struct qrnic_rx *rx);
/* Responder: the reply of r, a zero-length RDMA READ RESPONSE ONLY. */
void qrnic_flush_reply(struct qrnic_engine *e, struct qrnic_qpc *qp,
                       struct qrnic_rd_res *r);

/* ---- UD and GSI: datagrams, no transport state --------------------------- */

static inline bool qrnic_qp_is_ud(const struct qrnic_qpc *qp)
{
    return qp->type == QRNIC_QPT_UD || qp->type == QRNIC_QPT_GSI;
}

/* ---- XRC: RC requesters and responders around XRC SRQs ------------------ */

static inline bool qrnic_qp_is_xrc(const struct qrnic_qpc *qp)
{
    return qp->type == QRNIC_QPT_XRC_INI || qp->type == QRNIC_QPT_XRC_TGT;
}

/* RC or XRC: a reliable connection, acknowledged and resent. */
static inline bool qrnic_qp_is_rc(const struct qrnic_qpc *qp)
{
    return qp->type == QRNIC_QPT_RC || qrnic_qp_is_xrc(qp);
}

/*
 * XRC_TGT: take the XRC SRQ a request names for the message it starts
 * (its receive WQE, CQ and PD), or check that a packet within a message
 * names the same one.  False: the responder NAKs it as invalid.
 */
bool qrnic_xrc_bind(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    const struct qrnic_rx *rx);
/*
 * The PD whose keys a READ reply of an XRC_TGT QP reads through: that of
 * the XRC SRQ its request named, which later messages do not change; 0
 * (no PD) if that SRQ is gone or no longer of the QP's domain.
 */
uint32_t qrnic_xrc_reply_pdn(struct qrnic_engine *e,
                             const struct qrnic_qpc *qp, uint32_t srqn);
/* An XRC SRQ goes: no XRC_TGT QP keeps it. */
void qrnic_xrc_srq_gone(struct qrnic_engine *e, struct qrnic_srqc *srq);

/* Send up to budget datagrams; true if it stopped only for the budget. */
bool qrnic_ud_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   uint32_t budget);
/* A UD SEND for the QP (its destination GID is one of ours). */
void qrnic_ud_rx(struct qrnic_engine *e, struct qrnic_qpc *qp,
                 const struct qrnic_rx *rx);
/* The largest datagram: the IB MTU the port's Ethernet MTU allows. */
uint32_t qrnic_ud_mtu(const struct qrnic_engine *e);
/* Is the GID a valid entry of our GID table? */
bool qrnic_gid_is_local(const struct qrnic_engine *e, const uint8_t *gid);

/* ---- UD multicast -------------------------------------------------------- */

bool qrnic_gid_is_mcast(const uint8_t *gid);
/* The QP leaves every group (it is being destroyed). */
void qrnic_mcast_detach_qp(struct qrnic_engine *e, uint32_t qpn);
/* A datagram to QPN 0xffffff: one copy for each QP attached to its group. */
void qrnic_mcast_rx(struct qrnic_engine *e, const struct qrnic_rx *rx);

/* ---- scheduling ---------------------------------------------------------- */

void qrnic_sched_qp(struct qrnic_engine *e, struct qrnic_qpc *qp);
void qrnic_sched_unlink(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* (Re)compute the QP's place on the timer list after deadlines changed. */
void qrnic_sched_timer(struct qrnic_engine *e, struct qrnic_qpc *qp);
void qrnic_sched_reset(struct qrnic_engine *e);

/*
 * Congestion control of the RC requesters (see struct qrnic_cc).
 * qrnic_cc_update() recounts the QP's PSNs in flight after it sent, was
 * acknowledged, lost packets or left RTS/SQD.
 */
void qrnic_cc_update(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* Off the waiting list and counted out (a QP going away); all to start. */
void qrnic_cc_unlink(struct qrnic_engine *e, struct qrnic_qpc *qp);
void qrnic_cc_reset(struct qrnic_engine *e);
/*
 * Packets the QP may have in flight: its context's window, within the
 * caps; one while it resends what its timer found lost.
 */
uint32_t qrnic_cc_window(const struct qrnic_engine *e,
                         const struct qrnic_qpc *qp);
/*
 * The probe timer found the QP without progress: true if others of its
 * context made progress meanwhile, so the peer is answering, just not
 * this QP - then the context's others hold back
 * new packets until it progresses, they have none in flight, or its
 * probe timer runs out once more.
 */
bool qrnic_cc_starved(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* It waits no more (progress, timeout, no packets in flight). */
void qrnic_cc_unstarve(struct qrnic_engine *e, struct qrnic_qpc *qp);
/*
 * May the QP send a packet it has not sent before?  If the caps are full
 * and it has its fair share, it waits its turn (it is scheduled when
 * there is room).
 */
bool qrnic_cc_may_send(struct qrnic_engine *e, struct qrnic_qpc *qp);
/*
 * A loss on qp's path (NAK, probe, missing answer) or a timeout: its
 * context's window shrinks.  qrnic_cc_lost(): its timer found its packets
 * lost; they count no more until an answer comes.
 */
void qrnic_cc_loss(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   bool timeout);
void qrnic_cc_lost(struct qrnic_engine *e, struct qrnic_qpc *qp);
/* acked PSNs of qp were acknowledged; rtt_ns: a round trip, or 0. */
void qrnic_cc_acked(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    uint32_t acked, uint64_t rtt_ns);
/* How long a QP waits without progress before a tail loss probe. */
uint64_t qrnic_cc_probe_ns(const struct qrnic_engine *e,
                           const struct qrnic_qpc *qp);
/* Did another QP of its context progress since its timers were armed? */
bool qrnic_cc_others_progressed(const struct qrnic_engine *e,
                                const struct qrnic_qpc *qp);
/* What a packet of the path MTU costs a host socket's receive buffer. */
uint32_t qrnic_pkt_cost(uint32_t mtu);

/* Transmit a finished frame (to the wire or our own receive path). */
void qrnic_tx(struct qrnic_engine *e, const uint8_t *frame, size_t len);

static inline void qrnic_stat(struct qrnic_engine *e, enum qrnic_stat s)
{
    e->stats.v[s]++;
}

#endif /* QRNIC_RDMA_H */
