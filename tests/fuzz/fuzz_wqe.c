/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_wqe: work requests from a guest that writes anything into its
 * queues, between two engines exchanging traffic.
 *
 * Both nodes of the rc harness have a CQ, MR A (all rights), MR B (local
 * write only) and one QP, connected to each other.  The input writes send
 * and receive WQEs into the queue slots (fields from the input, mostly
 * sensible: a valid opcode, a few SGEs of a real key in or near its
 * region; or raw bytes), rings doorbells (the producer index it keeps, or
 * any), changes the wire (drop, duplicate, reorder, cut), switches hub mode
 * and a hostile guest that rewrites queue memory under the engine's reads,
 * runs the nodes for a while and moves QPs to ERR or changes their rights.
 * Then the wire is made clean and both nodes run until idle, within a
 * bound of virtual time and steps.  Beyond the invariants the fake
 * platform checks after every step, this target checks that the engines
 * got idle, that every send WQE a doorbell posted completed (or was
 * flushed: the QP is in ERR), that a QP in ERR flushed its receive queue
 * too, and that completions come in order, each receive once.
 *
 * Input: mtu, flags (1: hub, 2: hostile guest), retry (retry_cnt |
 * rnr_retry << 3, rnr_retry kept below 7: "forever" never ends), timeout,
 * then operations (OP_*).
 */
#include <string.h>
#include "fuzz_common.h"
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"

const char fuzz_target_name[] = "fuzz_wqe";

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define MR_A_BYTES (64u << 10)
#define MR_B_BYTES (8u << 10)
#define MAX_OPS 200
#define LOG_SQ 6
#define LOG_SS 8                /* 256 B: 12 SGEs or 192 inline bytes */
#define LOG_RQ 6
#define LOG_RS 6                /* 64 B: 3 SGEs */
#define DRAIN_NS (60 * SEC)
#define DRAIN_STEPS 2000000u
#define ALL_ACCESS (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                    QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC)
#define A(x) QRNIC_QP_ATTR_##x

enum {
    OP_SQ = 0,                  /* 0, 1 */
    OP_RQ = 2,
    OP_DOORBELL,
    OP_WIRE,
    OP_RUN,
    OP_TIME,
    OP_QPCTL,
    OP_COUNT
};

#define F_HUB           1
#define F_HOSTILE       2

/* WQE control byte: node, ring now, raw bytes. */
#define W_NODE1         1
#define W_RING          2
#define W_RAW           4

struct side {
    struct hcq *cq;
    struct hqp *qp;
    struct hmr *mra, *mrb;
    uint16_t send_done;         /* SQ index after the last send CQE */
    uint16_t recv_next;         /* RQ index the next receive CQE must have */
    bool sqd;
};

static struct {
    struct side s[2];
    uint64_t wr_id;
} fx;

static void setup(struct fz *f)
{
    uint8_t mtu = fz_u8(f), flags = fz_u8(f), retry = fz_u8(f);
    uint8_t timeout = (uint8_t)(1 + fz_u8(f) % 14);
    uint8_t path_mtu = (uint8_t)(1 + mtu % 5), rnr = (retry >> 3) % 7;
    int i;

    harness_restart(2);
    memset(&fx, 0, sizeof(fx));
    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i];

        s->cq = node_create_cq(&nodes[i], 10);
        s->mra = node_mr(&nodes[i], MR_A_BYTES, ALL_ACCESS);
        s->mrb = node_mr(&nodes[i], MR_B_BYTES, QRNIC_ACCESS_LOCAL_WRITE);
        s->qp = s->cq ? node_create_qp(&nodes[i], s->cq, s->cq, LOG_SQ,
                                       LOG_SS, LOG_RQ, LOG_RS) : NULL;
        if (!s->qp || s->mra->status || s->mrb->status) {
            fz_fail("fixture");
        }
    }
    if (!qp_connect(fx.s[0].qp, fx.s[1].qp, path_mtu, timeout, retry & 7,
                    rnr, 1) ||
        !qp_connect(fx.s[1].qp, fx.s[0].qp, path_mtu, timeout, retry & 7,
                    rnr, 1)) {
        fz_fail("fixture: connect");
    }
    harness_hub(flags & F_HUB);
    if (flags & F_HOSTILE) {
        nodes[0].d.hostile_rng = 0x1234567;
        nodes[0].d.hostile_pct = 5;
    }
}

/*
 * An SGE: MR A's key (ksel % 4 == 0), MR B's (1), MR B's with an address
 * of MR A (2), MR A's with a stale tag (3), or a raw key; the address near
 * the start of the region (or of its end with bit 7).
 */
static void sge_at(uint8_t *p, int node, uint8_t ksel, uint16_t off,
                   uint16_t len)
{
    struct side *s = &fx.s[node];
    struct hmr *mr = ksel % 4 == 1 ? s->mrb : s->mra;
    uint32_t key = ksel >= FZ_RAW ? (uint32_t)ksel << 8 | 1 :
                   ksel % 4 == 3 ? mr->key ^ 1 :
                   ksel % 4 == 2 ? s->mrb->key : mr->key;

    qrnic_st64(p, (ksel & 0x80 ? mr->iova + mr->len - off : mr->iova + off));
    qrnic_st32(p + 8, len);
    qrnic_st32(p + 12, key);
}

static void op_sq(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    int node = ctl & W_NODE1, i;
    struct hqp *qp = fx.s[node].qp;
    uint8_t *slot = nodes[node].d.qmem + qp->sq_off +
                    ((uint32_t)(qp->sq_pi & ((1u << LOG_SQ) - 1)) << LOG_SS);

    memset(slot, 0, 1u << LOG_SS);
    if (ctl & W_RAW) {
        fz_bytes(f, slot, 1u << LOG_SS);
    } else {
        uint8_t opsel = fz_u8(f), flags = fz_u8(f), nsge = fz_u8(f);
        uint16_t ilen = fz_u16(f);
        uint8_t rksel = fz_u8(f);
        uint16_t roff = fz_u16(f);
        uint8_t cmp = fz_u8(f), swp = fz_u8(f);
        uint8_t opcode = opsel < FZ_RAW ? opsel % 7 : opsel;
        struct hmr *rmr = rksel % 2 ? fx.s[!node].mrb : fx.s[!node].mra;

        qrnic_st64(slot, fx.wr_id++);
        slot[8] = opcode;
        slot[9] = flags < FZ_RAW ? flags & 0x0f : flags;
        slot[10] = nsge < FZ_RAW ? nsge % 5 : nsge;
        qrnic_st32(slot + 12, 0x01020304);
        qrnic_st32(slot + 16, ilen);
        if (opcode >= QRNIC_WR_ATOMIC_CMP_AND_SWP) {
            roff &= ~7u;
        }
        qrnic_st64(slot + 24, rksel & 0x80 ? rmr->iova + rmr->len - roff :
                                             rmr->iova + roff);
        qrnic_st32(slot + 32, rksel >= FZ_RAW ? 0xdead01 : rmr->key);
        qrnic_st64(slot + 40, cmp);
        qrnic_st64(slot + 48, swp);
        for (i = 0; i < 4; i++) {
            uint8_t ksel = fz_u8(f);
            uint16_t off = fz_u16(f), len = fz_u16(f);

            if (opcode >= QRNIC_WR_ATOMIC_CMP_AND_SWP && i == 0) {
                off &= ~7u;
            }
            if (slot[9] & QRNIC_WQE_F_INLINE) {
                memset(slot + 64 + i * 16, (uint8_t)(ksel ^ off), 16);
            } else {
                sge_at(slot + 64 + i * 16, node, ksel, off, len);
            }
        }
    }
    qp->sq_pi++;
    if (ctl & W_RING) {
        qp_ring_sq(qp);
    }
}

static void op_rq(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    int node = ctl & W_NODE1, i;
    struct hqp *qp = fx.s[node].qp;
    uint8_t *slot = nodes[node].d.qmem + qp->rq_off +
                    ((uint32_t)(qp->rq_pi & ((1u << LOG_RQ) - 1)) << LOG_RS);

    memset(slot, 0, 1u << LOG_RS);
    if (ctl & W_RAW) {
        fz_bytes(f, slot, 1u << LOG_RS);
    } else {
        uint8_t nsge = fz_u8(f);

        qrnic_st64(slot, fx.wr_id++);
        slot[8] = nsge < FZ_RAW ? nsge % 4 : nsge;
        for (i = 0; i < 3; i++) {
            uint8_t ksel = fz_u8(f);
            uint16_t off = fz_u16(f), len = fz_u16(f);

            sge_at(slot + 16 + i * 16, node, ksel, off, len);
        }
    }
    qp->rq_pi++;
    if (ctl & W_RING) {
        qf_doorbell(&nodes[node].d, 0, QRNIC_DB_RQ,
                    qp->qpn | (uint64_t)qp->rq_pi << 32);
    }
}

static void op_doorbell(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    uint16_t v = fz_u16(f);
    int node = ctl & 1;
    bool rq = ctl & 2;
    struct hqp *qp = fx.s[node].qp;
    uint16_t pi = rq ? qp->rq_pi : qp->sq_pi;
    uint64_t val;

    switch ((ctl >> 2) & 3) {
    case 0:
        val = qp->qpn | (uint64_t)pi << 32;
        break;
    case 1:                         /* any producer index */
        val = qp->qpn | (uint64_t)v << 32;
        break;
    case 2:                         /* a page that does not own the QP */
        qf_doorbell(&nodes[node].d, 1 + v % 3, rq ? QRNIC_DB_RQ : QRNIC_DB_SQ,
                    qp->qpn | (uint64_t)pi << 32);
        return;
    default:                        /* bits beyond the fields */
        val = qp->qpn | (uint64_t)v << 48 | (uint64_t)pi << 32;
        break;
    }
    qf_doorbell(&nodes[node].d, 0, rq ? QRNIC_DB_RQ : QRNIC_DB_SQ, val);
}

static void op_wire(struct fz *f)
{
    uint8_t sel = fz_u8(f), v = fz_u8(f);

    switch (sel % 6) {
    case 0:
        wire.drop_pct = v % 40;
        break;
    case 1:
        wire.dup_pct = v % 40;
        break;
    case 2:
        wire.reorder_pct = v % 40;
        break;
    case 3:
        harness_hub(v & 1);
        break;
    case 4:
        nodes[v & 1].d.hostile_rng = v | 1;
        nodes[v & 1].d.hostile_pct = (v >> 1) % 30;
        break;
    default:
        wire.cut = v & 1;
        break;
    }
}

/* Take every completion; they must come in order. */
static void poll_side(int node)
{
    struct side *s = &fx.s[node];
    const struct qrnic_qp *q = qrnic_qp_get(&nodes[node].d.e, s->qp->qpn);
    struct hwc wc;

    while (cq_poll(s->cq, &wc)) {
        if (wc.qpn != s->qp->qpn) {
            fz_fail("node %d: CQE for QP 0x%x, not 0x%x", node, wc.qpn,
                    s->qp->qpn);
        }
        if (wc.flags & QRNIC_CQE_F_SEND) {
            uint16_t ahead = (uint16_t)(wc.wqe_idx - s->send_done);

            if (ahead >= (uint16_t)(q->sq_pi - s->send_done)) {
                fz_fail("node %d: send CQE for SQ index %u, completed up "
                        "to %u, posted up to %u", node, wc.wqe_idx,
                        s->send_done, q->sq_pi);
            }
            s->send_done = (uint16_t)(wc.wqe_idx + 1);
        } else {
            if (wc.wqe_idx != s->recv_next) {
                fz_fail("node %d: receive CQE for RQ index %u, expected %u",
                        node, wc.wqe_idx, s->recv_next);
            }
            s->recv_next++;
        }
    }
}

static void op_qpctl(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    struct side *s = &fx.s[arg & 1];
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    switch (sel % 4) {
    case 0:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(s->qp, A(STATE), &a);
        break;
    case 1:                         /* rights change under traffic */
        a.qp_state = QRNIC_QPS_RTS;
        a.access_flags = arg & 0x0e;
        qp_modify(s->qp, A(STATE) | A(ACCESS_FLAGS), &a);
        s->sqd = false;
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        if (qp_modify(s->qp, A(STATE) | A(EN_SQD_ASYNC), &a) ==
            QRNIC_ST_OK) {
            s->sqd = true;
        }
        break;
    default:
        a.qp_state = QRNIC_QPS_RTS;
        if (qp_modify(s->qp, A(STATE), &a) == QRNIC_ST_OK) {
            s->sqd = false;
        }
        break;
    }
}

/* Clean wire, SQD back to RTS, run until idle, then the checks. */
static void drain_and_check(void)
{
    struct qrnic_qp_attr a;
    int i;

    wire.drop_pct = wire.dup_pct = wire.reorder_pct = 0;
    wire.cut = false;
    for (i = 0; i < 2; i++) {
        nodes[i].d.hostile_rng = 0;
        if (fx.s[i].sqd) {
            memset(&a, 0, sizeof(a));
            a.qp_state = QRNIC_QPS_RTS;
            qp_modify(fx.s[i].qp, A(STATE), &a);
        }
    }
    if (!harness_run_steps(now_ns + DRAIN_NS, DRAIN_STEPS)) {
        fz_fail("not idle after %llu s of virtual time or %u steps",
                (unsigned long long)(DRAIN_NS / SEC), DRAIN_STEPS);
    }
    poll_side(0);
    poll_side(1);
    for (i = 0; i < 2; i++) {
        const struct qrnic_qp *q = qrnic_qp_get(&nodes[i].d.e,
                                                fx.s[i].qp->qpn);

        if (q->sq_tail != q->sq_pi) {
            fz_fail("a QP in state %u is idle with posted send WQEs not "
                    "completed (req_error %d, rnr_wait %d, timers %s, peer "
                    "QP in state %u) -- node %d, WQEs %u..%u, head %u, PSN "
                    "una %06x next %06x", q->state, q->req_error,
                    q->rnr_wait, q->rto_deadline || q->probe_deadline ||
                    q->rnr_deadline ? "armed" : "none",
                    qrnic_qp_get(&nodes[!i].d.e, fx.s[!i].qp->qpn)->state,
                    i, q->sq_tail, q->sq_pi, q->sq_head, q->una_psn,
                    q->next_psn);
        }
        if (q->state == QRNIC_QPS_ERR && q->rq_ci != q->rq_pi) {
            fz_fail("node %d: QP in ERR with receive WQEs %u..%u not "
                    "flushed", i, q->rq_ci, q->rq_pi);
        }
        if (q->state == QRNIC_QPS_ERR && fx.s[i].recv_next != q->rq_pi) {
            fz_fail("node %d: receive completions up to %u, %u posted",
                    i, fx.s[i].recv_next, q->rq_pi);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = { data, size };
    unsigned int ops = 0;

    setup(&f);
    while (fz_more(&f) && ops++ < MAX_OPS) {
        uint8_t a;

        switch (fz_u8(&f) % OP_COUNT) {
        case OP_RQ:
            op_rq(&f);
            break;
        case OP_DOORBELL:
            op_doorbell(&f);
            break;
        case OP_WIRE:
            op_wire(&f);
            break;
        case OP_RUN:
            a = fz_u8(&f);
            harness_run_steps(now_ns + (fz_u8(&f) + 1ull) * 100 * US,
                              a * 4u + 1);
            break;
        case OP_TIME:               /* timers fire, nothing delivered */
            a = fz_u8(&f);
            now_ns += (uint64_t)(a + 1) * (a + 1) * US;
            qf_run_timer(&nodes[0].d);
            qf_run_timer(&nodes[1].d);
            break;
        case OP_QPCTL:
            op_qpctl(&f);
            break;
        default:
            op_sq(&f);
            break;
        }
        poll_side(0);           /* never let a CQ overflow */
        poll_side(1);
    }
    drain_and_check();
    return 0;
}

/* ---- seeds --------------------------------------------------------------- */

struct wsge {
    uint8_t k;
    uint16_t off, len;
};

struct wsq {
    uint8_t ctl, op, flags, nsge;
    uint16_t ilen;
    uint8_t rk;
    uint16_t roff;
    uint8_t cmp, swp;
    struct wsge sge[4];
};

static void w_head(struct fzw *w, uint8_t mtu, uint8_t flags, uint8_t retry,
                   uint8_t timeout)
{
    w->n = 0;
    fzw_u8(w, mtu);
    fzw_u8(w, flags);
    fzw_u8(w, retry);
    fzw_u8(w, timeout);
}

static void w_sq(struct fzw *w, struct wsq s)
{
    int i;

    fzw_u8(w, OP_SQ);
    fzw_u8(w, s.ctl);
    fzw_u8(w, s.op);
    fzw_u8(w, s.flags);
    fzw_u8(w, s.nsge);
    fzw_u16(w, s.ilen);
    fzw_u8(w, s.rk);
    fzw_u16(w, s.roff);
    fzw_u8(w, s.cmp);
    fzw_u8(w, s.swp);
    for (i = 0; i < 4; i++) {
        fzw_u8(w, s.sge[i].k);
        fzw_u16(w, s.sge[i].off);
        fzw_u16(w, s.sge[i].len);
    }
}

static void w_rq(struct fzw *w, uint8_t ctl, uint8_t nsge, uint16_t len)
{
    int i;

    fzw_u8(w, OP_RQ);
    fzw_u8(w, ctl);
    fzw_u8(w, nsge);
    for (i = 0; i < 3; i++) {
        fzw_u8(w, 0);
        fzw_u16(w, (uint16_t)(8192 + i * len));
        fzw_u16(w, len);
    }
}

static void w_op1(struct fzw *w, uint8_t op, uint8_t a)
{
    fzw_u8(w, op);
    fzw_u8(w, a);
}

static void w_op2(struct fzw *w, uint8_t op, uint8_t a, uint8_t b)
{
    fzw_u8(w, op);
    fzw_u8(w, a);
    fzw_u8(w, b);
}

#define SQ(...)         ((struct wsq){ __VA_ARGS__ })
#define SG(k, o, l)     { k, o, l }
#define SIG             QRNIC_WQE_F_SIGNALED
#define RUN(w, s, t)    w_op2(w, OP_RUN, s, t)
#define WIRE(w, s, v)   w_op2(w, OP_WIRE, s, v)
#define QPCTL(w, s, a)  w_op2(w, OP_QPCTL, s, a)
#define TIME(w, t)      w_op1(w, OP_TIME, t)

static void w_db(struct fzw *w, uint8_t ctl, uint16_t v)
{
    fzw_u8(w, OP_DOORBELL);
    fzw_u8(w, ctl);
    fzw_u16(w, v);
}

void fuzz_make_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /* Every opcode, each with a receive where it needs one. */
    w_head(&w, 2, 0, 0x37, 8);
    w_rq(&w, W_NODE1 | W_RING, 1, 4096);
    w_rq(&w, W_NODE1 | W_RING, 2, 2048);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
                .sge = { SG(0, 0, 3000) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND_IMM,
                .flags = SIG | QRNIC_WQE_F_SOLICITED, .nsge = 2,
                .sge = { SG(0, 0, 100), SG(0, 4096, 100) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .roff = 16, .sge = { SG(0, 0, 5000) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                .nsge = 1, .roff = 32, .sge = { SG(0, 20000, 20000) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_ATOMIC_CMP_AND_SWP,
                .flags = SIG, .nsge = 1, .roff = 64, .swp = 9,
                .sge = { SG(0, 128, 8) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_ATOMIC_FETCH_AND_ADD,
                .flags = SIG | QRNIC_WQE_F_FENCE, .nsge = 1, .roff = 64,
                .cmp = 3, .sge = { SG(0, 136, 8) }));
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE_IMM, .flags = SIG,
                .nsge = 1, .roff = 16, .sge = { SG(0, 0, 64) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE,
                .flags = QRNIC_WQE_F_INLINE, .ilen = 150, .roff = 4096));
    TIME(&w, 30);
    RUN(&w, 255, 255);
    emit("every-opcode", &w);

    /* Both directions at once under loss, duplicates and reordering. */
    for (i = 0; i < 3; i++) {
        static const char *names[3] = { "lossy-both-ways", "lossy-hub",
                                        "lossy-hostile" };

        w_head(&w, (uint8_t)(i + 1), i == 1 ? F_HUB : i == 2 ? F_HOSTILE : 0,
               0x37, 10);
        WIRE(&w, 0, 10);
        WIRE(&w, 1, 10);
        WIRE(&w, 2, 20);
        w_rq(&w, W_RING, 1, 8192);
        w_rq(&w, W_NODE1 | W_RING, 1, 8192);
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, 0, 8000) }));
        w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_SEND,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 8000) }));
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, 0, 30000) }));
        w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_RDMA_WRITE,
                    .nsge = 1, .sge = { SG(0, 0, 30000) }));
        w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_ATOMIC_FETCH_AND_ADD,
                    .flags = SIG, .nsge = 1, .cmp = 1,
                    .sge = { SG(0, 64, 8) }));
        RUN(&w, 100, 50);
        WIRE(&w, 4, 0x0b);
        RUN(&w, 255, 255);
        emit(names[i], &w);
    }

    /* Bad WQEs: each completes in error and flushes what follows. */
    for (i = 0; i < 10; i++) {
        static const struct wsq bad[10] = {
            { .op = 9, .flags = SIG, .nsge = 1, .sge = { { 0, 0, 8 } } },
            { .op = QRNIC_WR_SEND, .flags = 0x81, .nsge = 1 },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 0xf3 },
            { .op = QRNIC_WR_SEND, .flags = SIG | QRNIC_WQE_F_INLINE,
              .ilen = 300 },
            { .op = QRNIC_WR_RDMA_READ, .flags = SIG | QRNIC_WQE_F_INLINE,
              .ilen = 8 },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
              .sge = { { 3, 0, 8 } } },
            { .op = QRNIC_WR_RDMA_READ, .flags = SIG, .nsge = 1,
              .sge = { { 2, 0, 8 } } },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
              .sge = { { 0x80, 4, 8 } } },
            { .op = QRNIC_WR_ATOMIC_CMP_AND_SWP, .flags = SIG, .nsge = 1,
              .sge = { { 0, 0, 4 } } },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 4,
              .sge = { { 0, 0, 0xffff }, { 0, 0, 0xffff } } },
        };
        static const char *names[10] = {
            "bad-opcode", "bad-flags", "bad-num-sge", "inline-too-long",
            "inline-read", "stale-lkey", "read-into-foreign-key",
            "sge-out-of-bounds", "atomic-short", "send-longer-than-recv",
        };

        w_head(&w, 2, 0, 0x37, 8);
        w_rq(&w, W_NODE1 | W_RING, 1, 1024);
        w_sq(&w, SQ(.op = QRNIC_WR_SEND, .nsge = 1,
                    .sge = { SG(0, 0, 16) }));
        w_sq(&w, bad[i]);
        w_sq(&w, SQ(.op = QRNIC_WR_SEND, .nsge = 1,
                    .sge = { SG(0, 0, 16) }));
        w_db(&w, 0, 0);
        RUN(&w, 255, 255);
        emit(names[i], &w);
    }

    /* The responder refuses: no right, bounds, RNR, bad receive WQEs. */
    w_head(&w, 2, 0, 0x07, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .rk = 1, .sge = { SG(0, 0, 16) }));
    emit("remote-no-right", &w);
    w_head(&w, 2, 0, 0x07, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                .nsge = 1, .rk = 0x80, .roff = 8, .sge = { SG(0, 0, 16) }));
    emit("remote-out-of-bounds", &w);
    w_head(&w, 2, 0, 0x17, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    RUN(&w, 10, 10);
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    RUN(&w, 255, 255);
    emit("rnr-then-receive", &w);
    w_head(&w, 2, 0, 0x07, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    emit("rnr-exhausted", &w);
    w_head(&w, 2, 0, 0x37, 8);
    fzw_u8(&w, OP_RQ);
    fzw_u8(&w, W_NODE1 | W_RING);
    fzw_u8(&w, 1);
    fzw_u8(&w, 3);                  /* a stale key */
    fzw_u16(&w, 0);
    fzw_u16(&w, 64);
    fzw_fill(&w, 0, 10);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    emit("recv-stale-lkey", &w);

    /* Doorbells: raw indices, foreign pages, reserved bits; raw WQEs. */
    w_head(&w, 2, 0, 0x37, 8);
    w_sq(&w, SQ(.op = QRNIC_WR_RDMA_WRITE, .flags = SIG, .nsge = 1,
                .sge = { SG(0, 0, 16) }));
    w_db(&w, 0x04, 200);
    w_db(&w, 0x08, 1);
    w_db(&w, 0x0c, 1);
    w_db(&w, 0x06, 3);
    w_db(&w, 0x00, 0);
    fzw_u8(&w, OP_SQ);
    fzw_u8(&w, W_RAW | W_RING);
    for (i = 0; i < 256; i++) {
        fzw_u8(&w, (uint8_t)(i * 37 + 11));
    }
    fzw_u8(&w, OP_RQ);
    fzw_u8(&w, W_RAW | W_NODE1 | W_RING);
    fzw_fill(&w, 0x21, 64);
    RUN(&w, 255, 255);
    emit("doorbells-raw-wqes", &w);

    /* QP states under traffic: ERR, rights revoked, SQD and back. */
    w_head(&w, 2, 0, 0x37, 8);
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 9000) }));
    QPCTL(&w, 2, 0);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    RUN(&w, 50, 20);
    QPCTL(&w, 3, 0);
    QPCTL(&w, 1, 0x03);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 9000) }));
    RUN(&w, 3, 1);
    QPCTL(&w, 0, 1);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    emit("qp-states", &w);

    /* A cut wire: retries run out; the hostile guest under big READs. */
    w_head(&w, 4, 0, 0x32, 2);
    WIRE(&w, 5, 1);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                .nsge = 2, .sge = { SG(0, 0, 20000), SG(0, 30000, 20000) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .nsge = 1,
                .sge = { SG(0, 0, 16) }));
    RUN(&w, 255, 255);
    RUN(&w, 255, 255);
    emit("cut-wire", &w);
    w_head(&w, 5, F_HOSTILE | F_HUB, 0x37, 8);
    for (i = 0; i < 4; i++) {
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                    .nsge = 3, .sge = { SG(0, 0, 10000), SG(0, 10000, 10000),
                                        SG(0, 20000, 10000) }));
    }
    RUN(&w, 255, 255);
    emit("hostile-reads", &w);

    /* Many small WQEs: the SQ wraps, window and completion moderation. */
    w_head(&w, 1, 0, 0x37, 8);
    WIRE(&w, 0, 3);
    for (i = 0; i < 70; i++) {
        w_sq(&w, SQ(.ctl = (uint8_t)(i % 10 == 9 ? W_RING : 0),
                    .op = QRNIC_WR_RDMA_WRITE,
                    .flags = (uint8_t)(i % 7 ? 0 : SIG), .nsge = 1,
                    .roff = (uint16_t)(i * 64), .sge = { SG(0, 0, 300) }));
        if (i % 20 == 19) {
            RUN(&w, 255, 255);
            TIME(&w, 50);
        }
    }
    emit("many-small", &w);
}
