/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_rx: received RoCEv2 frames, into an engine with something to lose.
 *
 * Node 1 of the rc harness is the target: QP A connected (RTS) to node 0's
 * QP, QP B only in RTR (remote read only, max_dest_rd_atomic 0 or 1, a
 * two-entry CQ), MR A (all rights) and MR B (remote read only).  The
 * input is a program: frames built from a template of the header fields
 * (an RC opcode mostly, a real QP mostly, a PSN a small signed step from
 * the one the QP expects - for responses, from its next PSN -, a real
 * rkey and an address in or near the region mostly, lengths, payload,
 * AckReq, a few raw byte changes), sent as node 0 would with the ICRC
 * fixed up unless asked not to; between them bottom halves, time and
 * timer expiries, wire deliveries to and from node 0 (when the peer is
 * live), receive and send WQEs posted on node 1, and QP state changes.
 * The fake platform checks the engine's invariants after every step.
 *
 * Input: mtu, flags (1: peer live, 2: hub, 4: QP B max_dest_rd_atomic
 * 1), retry (retry_cnt | rnr_retry << 3), then operations (OP_*).
 */
#include <stdio.h>
#include <string.h>
#include "fuzz_common.h"
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"

const char fuzz_target_name[] = "fuzz_rx";

#define US 1000ull
#define MS 1000000ull
#define MR_A_BYTES (64u << 10)
#define MR_B_BYTES (8u << 10)
#define MAX_OPS 160
#define ALL_ACCESS (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                    QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC)
#define A(x) QRNIC_QP_ATTR_##x

enum {
    OP_FRAME = 0,               /* 0..5 */
    OP_BH = 6,
    OP_TIME,
    OP_RUN,
    OP_RECV,
    OP_SEND,
    OP_QPCTL,
    OP_COUNT
};

#define F_PEER_LIVE     1
#define F_HUB           2
#define F_QPB_RD        4

/* Frame template flags (fl) */
#define FL_ACKREQ       0x01
#define FL_SE           0x02
#define FL_VLAN         0x04
#define FL_IPV6         0x08
#define FL_BAD_PKEY     0x10
#define FL_TVER         0x20
#define FL_BAD_ICRC     0x40
#define FL_BCAST        0x80

/* Payload length selector (psel) */
#define PAY_MTU                 0x00
#define PAY_N(n)                (0x40 | (n))        /* n < 64 */
#define PAY_MTU_MINUS(n)        (0x80 | (n))        /* mtu - 1 - n */
#define PAY_BIG(k)              (0xc0 | (k))        /* k * 160 */

static struct {
    uint8_t path_mtu;
    uint32_t mtu;
    uint8_t retry;
    struct hcq *cq0, *cqa, *cqb;
    struct hqp *qp0, *qpa, *qpb;
    struct hmr *mr0, *mra, *mrb;
    uint64_t wr_id;
} fx;

static void connect_b(bool rd)
{
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.access_flags = QRNIC_ACCESS_REMOTE_READ;
    if (qp_modify(fx.qpb, A(STATE) | A(PKEY_INDEX) | A(PORT) |
                  A(ACCESS_FLAGS), &a)) {
        fz_fail("QP B to INIT");
    }
    a.qp_state = QRNIC_QPS_RTR;
    a.path_mtu = fx.path_mtu;
    a.dest_qpn = fx.qp0->qpn;
    a.rq_psn = 0xfffffe;            /* wraps after two packets */
    a.max_dest_rd_atomic = rd ? 1 : 0;
    a.hop_limit = 64;
    memcpy(a.dgid, nodes[0].gid, 16);
    memcpy(a.dmac, nodes[0].mac, 6);
    if (qp_modify(fx.qpb, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                  A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER), &a)) {
        fz_fail("QP B to RTR");
    }
}

static bool connect_a(void)
{
    return qp_connect(fx.qpa, fx.qp0, fx.path_mtu, 8, fx.retry & 7,
                      (fx.retry >> 3) & 7, 1);
}

static void setup(struct fz *f)
{
    struct node *n0 = &nodes[0], *n1 = &nodes[1];
    uint8_t mtu = fz_u8(f), flags = fz_u8(f);

    fx.retry = fz_u8(f);
    fx.path_mtu = (uint8_t)(1 + mtu % 5);
    fx.mtu = 128u << fx.path_mtu;
    fx.wr_id = 1;
    harness_restart(1);
    fx.cq0 = node_create_cq(n0, 10);
    fx.cqa = node_create_cq(n1, 10);
    fx.cqb = node_create_cq(n1, 1);
    fx.mr0 = node_mr(n0, MR_A_BYTES, ALL_ACCESS);
    fx.mra = node_mr(n1, MR_A_BYTES, ALL_ACCESS);
    fx.mrb = node_mr(n1, MR_B_BYTES, QRNIC_ACCESS_LOCAL_WRITE |
                     QRNIC_ACCESS_REMOTE_READ);
    if (!fx.cq0 || !fx.cqa || !fx.cqb) {
        fz_fail("fixture CQs");
    }
    fx.qp0 = node_create_qp(n0, fx.cq0, fx.cq0, 6, 8, 6, 6);
    fx.qpa = node_create_qp(n1, fx.cqa, fx.cqa, 6, 8, 6, 6);
    fx.qpb = node_create_qp(n1, fx.cqb, fx.cqb, 3, 6, 3, 4);
    if (!fx.qp0 || !fx.qpa || !fx.qpb ||
        !qp_connect(fx.qp0, fx.qpa, fx.path_mtu, 8, 7, 6, 1) ||
        !connect_a()) {
        fz_fail("fixture QPs");
    }
    connect_b(flags & F_QPB_RD);
    wire.cut = !(flags & F_PEER_LIVE);
    harness_hub(flags & F_HUB);
}

/*
 * The PSN node 1's QP expects (requests) or sends next (responses), read
 * from the engine: QUERY_QP would run the device's bottom half, and when
 * that runs is the input's business.
 */
static uint32_t psn_base(struct hqp *qp, bool request)
{
    const struct qrnic_qp *q = qrnic_qp_get(&nodes[1].d.e, qp->qpn);

    return !q ? 0 : request ? q->epsn : q->next_psn;
}

static struct hmr *key_mr(uint8_t ksel)
{
    return ksel < FZ_RAW && ksel % 4 == 1 ? fx.mrb : fx.mra;
}

static uint32_t key_of(uint8_t ksel, uint32_t raw)
{
    if (ksel >= FZ_RAW) {
        return raw;
    }
    switch (ksel % 4) {
    case 0:
        return fx.mra->key;
    case 1:
        return fx.mrb->key;
    case 2:
        return fx.mra->key ^ 1;     /* a stale tag */
    default:
        return raw;
    }
}

static uint32_t pay_len(uint8_t psel, uint32_t opf)
{
    uint32_t v = psel & 0x3f;

    if (!(opf & QRNIC_OPF_PAYLOAD) && (opf & QRNIC_OPF_VALID)) {
        return (psel >> 6) == 3 ? v : 0;   /* junk after the headers */
    }
    switch (psel >> 6) {
    case 0:
        return fx.mtu;
    case 1:
        return v;
    case 2:
        return fx.mtu - 1 - v;
    default:
        return v * 160;
    }
}

static void op_frame(struct fz *f)
{
    static uint8_t fr[QRNIC_ETH_MAX_FRAME + 64];
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t opsel = fz_u8(f), rawop = fz_u8(f), qsel = fz_u8(f);
    uint32_t rawqpn = fz_u16(f) | (uint32_t)fz_u8(f) << 16;
    int8_t dpsn = (int8_t)fz_u8(f);
    uint8_t fl = fz_u8(f), ksel = fz_u8(f);
    uint32_t rawkey = fz_u32(f);
    uint8_t vsel = fz_u8(f);
    uint16_t off = fz_u16(f), len16 = fz_u16(f);
    uint8_t lsel = fz_u8(f), syn = fz_u8(f);
    uint16_t msn = fz_u16(f);
    uint8_t psel = fz_u8(f), pfill = fz_u8(f), mut = fz_u8(f);
    uint8_t opcode = opsel < FZ_RAW ? opsel % 21 : rawop;
    uint32_t opf = qrnic_op_flags(opcode);
    struct hqp *qp = qsel >= FZ_RAW || qsel % 4 == 3 ? NULL :
                     qsel % 4 == 2 ? fx.qpb : fx.qpa;
    struct hmr *mr = key_mr(ksel);
    struct fz_l3 l3 = { fl & FL_IPV6, fl & FL_VLAN, nodes[0].gid,
                        nodes[1].gid };
    uint32_t psn, paylen, i, dma_len, pad;
    uint64_t va;
    size_t pos, bth, len;

    psn = qp ? psn_base(qp, !(opf & QRNIC_OPF_VALID) ||
                            (opf & QRNIC_OPF_REQ)) : 0;
    psn = (psn + (uint32_t)(int32_t)dpsn) & 0xffffff;
    switch (vsel >> 6) {
    case 0:
        va = mr->iova + off;
        break;
    case 1:
        va = mr->iova + mr->len - off;
        break;
    case 2:
        va = mr->iova - off;
        break;
    default:
        va = (uint64_t)rawkey << 16 ^ off;
        break;
    }
    dma_len = len16 | (lsel & 0x80 ? (uint32_t)(lsel & 0x7f) << 25 : 0);

    pos = bth = fz_roce_begin(fr, fl & FL_BCAST ? bcast : nodes[1].mac,
                              nodes[0].mac, &l3);
    fr[pos] = opcode;
    fr[pos + 1] = (fl & FL_SE ? QRNIC_BTH_SE : 0) | (fl & FL_TVER ? 1 : 0);
    qrnic_st16_be(fr + pos + 2, fl & FL_BAD_PKEY ? 0x1234 : 0xffff);
    qrnic_st32_be(fr + pos + 4, (qp ? qp->qpn : rawqpn) & 0xffffff);
    qrnic_st32_be(fr + pos + 8, psn | (fl & FL_ACKREQ ? QRNIC_BTH_ACKREQ : 0));
    pos += QRNIC_BTH_LEN;
    if (opf & QRNIC_OPF_RETH) {
        pos += qrnic_put_reth(fr + pos, va, key_of(ksel, rawkey), dma_len);
    }
    if (opf & QRNIC_OPF_ATOMIC) {
        pos += qrnic_put_atomic_eth(fr + pos, va, key_of(ksel, rawkey),
                                    rawkey, pfill & 1 ? rawkey : 0);
    }
    if (opf & QRNIC_OPF_AETH) {
        pos += qrnic_put_aeth(fr + pos, syn, msn);
    }
    if (opf & QRNIC_OPF_ATOMIC_ACK) {
        qrnic_st64_be(fr + pos, (uint64_t)rawkey * 3);
        pos += QRNIC_ATOMIC_ACK_LEN;
    }
    if (opf & QRNIC_OPF_IMM) {
        pos += qrnic_put_imm(fr + pos, 0x12345678);
    }
    paylen = pay_len(psel, opf);
    if (paylen > QRNIC_ETH_MAX_FRAME - 8 - pos) {
        paylen = (uint32_t)(QRNIC_ETH_MAX_FRAME - 8 - pos);
    }
    for (i = 0; i < paylen; i++) {
        fr[pos + i] = (uint8_t)(pfill + i);
    }
    pos += paylen;
    pad = (4 - ((pos - bth) & 3)) & 3;
    memset(fr + pos, 0, pad);
    pos += pad;
    fr[bth + 1] |= (uint8_t)((lsel & 0x40 ? (lsel >> 4) & 3 : pad) << 4);
    len = fz_roce_finish(fr, pos, &l3, false);
    for (i = 0; i < (mut & 3u); i++) {
        uint16_t at = fz_u16(f);

        fr[at % len] ^= fz_u8(f);
    }
    if (!(fl & FL_BAD_ICRC)) {
        fz_icrc_fix(fr, len);
    }
    len -= (mut >> 4) < len ? (mut >> 4) : 0;
    qf_receive(&nodes[1].d, fr, len);
}

static void op_recv(struct fz *f)
{
    uint8_t qsel = fz_u8(f), nsge = fz_u8(f);
    struct hqp *qp = qsel & 1 ? fx.qpb : fx.qpa;
    struct hsge s[3];
    uint8_t *slot;
    int i;

    for (i = 0; i < 3; i++) {
        uint8_t ksel = fz_u8(f);
        uint16_t off = fz_u16(f);

        s[i].lkey = key_of(ksel, (uint32_t)ksel << 8 | ksel);
        s[i].addr = key_mr(ksel)->iova + off;
        s[i].len = fz_u16(f);
    }
    slot = qp->n->d.qmem + qp->rq_off +
           ((uint32_t)(qp->rq_pi & ((1u << qp->log_rq) - 1)) << qp->log_rs);
    qp_post_recv(qp, fx.wr_id++, s, nsge < FZ_RAW ? nsge % 4 : 0, false);
    if (nsge >= FZ_RAW) {
        slot[offsetof(struct qrnic_rq_wqe, num_sge)] = nsge;
    }
    qf_doorbell(&nodes[1].d, 0, QRNIC_DB_RQ,
                qp->qpn | (uint64_t)qp->rq_pi << 32);
}

static void op_send(struct fz *f)
{
    uint8_t opcode = fz_u8(f) % 7, flags = fz_u8(f);
    uint16_t len = fz_u16(f), loff = fz_u16(f), roff = fz_u16(f);
    struct hwr wr;

    if (opcode >= QRNIC_WR_ATOMIC_CMP_AND_SWP) {
        len = 8;
        roff &= ~7u;
        loff &= ~7u;
    }
    wr = mkwr(fx.wr_id++, opcode, fx.mra->iova + loff, len, fx.mra->key);
    /* Inline data would be read from host pointers: never here. */
    wr.flags = (flags | QRNIC_WQE_F_SIGNALED) & ~QRNIC_WQE_F_INLINE & 0x0f;
    wr.remote_addr = fx.mr0->iova + roff;
    wr.rkey = fx.mr0->key;
    wr.compare_add = flags;
    wr.swap = len;
    qp_post_send(fx.qpa, &wr, true);
}

static void op_qpctl(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    switch (sel % 4) {
    case 0:                         /* start over: RESET, then RTS */
        a.qp_state = QRNIC_QPS_RESET;
        qp_modify(fx.qpa, A(STATE), &a);
        fx.qpa->sq_pi = fx.qpa->rq_pi = 0;
        connect_a();
        break;
    case 1:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(arg & 1 ? fx.qpb : fx.qpa, A(STATE), &a);
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        qp_modify(fx.qpa, A(STATE) | (arg & 1 ? A(EN_SQD_ASYNC) : 0), &a);
        break;
    default:                        /* RTS again, rights changed */
        a.qp_state = QRNIC_QPS_RTS;
        a.access_flags = arg & 0x0e;
        a.min_rnr_timer = (uint8_t)(arg >> 4);
        qp_modify(fx.qpa, A(STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), &a);
        break;
    }
}

static void drain_cqs(void)
{
    struct hcq *cqs[] = { fx.cq0, fx.cqa, fx.cqb };
    struct hwc wc;
    unsigned int i;

    for (i = 0; i < sizeof(cqs) / sizeof(cqs[0]); i++) {
        while (cq_poll(cqs[i], &wc)) {
            continue;
        }
    }
    node_cq_events(&nodes[0], fx.cq0->cqn);
    node_cq_events(&nodes[1], fx.cqa->cqn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = { data, size };
    unsigned int ops = 0;

    setup(&f);
    while (fz_more(&f) && ops++ < MAX_OPS) {
        uint8_t op = fz_u8(&f) % OP_COUNT;
        uint8_t a;

        switch (op) {
        case OP_BH:
            qf_run_bh(&nodes[1].d);
            qf_run_bh(&nodes[0].d);
            break;
        case OP_TIME:
            a = fz_u8(&f);
            now_ns += (uint64_t)(a + 1) * (a + 1) * US;
            qf_run_timer(&nodes[1].d);
            qf_run_timer(&nodes[0].d);
            break;
        case OP_RUN:
            a = fz_u8(&f);
            harness_run_steps(now_ns + (fz_u8(&f) + 1ull) * 10 * US,
                              a % 32 + 1u);
            break;
        case OP_RECV:
            op_recv(&f);
            break;
        case OP_SEND:
            op_send(&f);
            break;
        case OP_QPCTL:
            op_qpctl(&f);
            break;
        default:
            op_frame(&f);
            break;
        }
        drain_cqs();
    }
    harness_run_steps(now_ns + 200 * MS, 200000);
    drain_cqs();
    qf_check(&nodes[0].d, "fuzz_rx end");
    qf_check(&nodes[1].d, "fuzz_rx end");
    return 0;
}

/* ---- seeds --------------------------------------------------------------- */

struct rxf {
    uint8_t op, q;
    int8_t dpsn;
    uint8_t fl, k;
    uint32_t key;
    uint8_t v;
    uint16_t off, len;
    uint8_t lsel, syn;
    uint16_t msn;
    uint8_t pay, fill, mut;
    uint8_t mutv[6];            /* (offset low, offset high, xor) pairs */
};

static void w_frame(struct fzw *w, struct rxf r)
{
    fzw_u8(w, OP_FRAME);
    fzw_u8(w, r.op);
    fzw_u8(w, r.op);
    fzw_u8(w, r.q);
    fzw_u16(w, 0x0abc);
    fzw_u8(w, 0);
    fzw_u8(w, (uint8_t)r.dpsn);
    fzw_u8(w, r.fl);
    fzw_u8(w, r.k);
    fzw_u32(w, r.key);
    fzw_u8(w, r.v);
    fzw_u16(w, r.off);
    fzw_u16(w, r.len);
    fzw_u8(w, r.lsel);
    fzw_u8(w, r.syn);
    fzw_u16(w, r.msn);
    fzw_u8(w, r.pay);
    fzw_u8(w, r.fill);
    fzw_u8(w, r.mut);
    fzw_bytes(w, r.mutv, 3u * (r.mut & 3));
}

static void w_head(struct fzw *w, uint8_t mtu, uint8_t flags, uint8_t retry)
{
    w->n = 0;
    fzw_u8(w, mtu);
    fzw_u8(w, flags);
    fzw_u8(w, retry);
}

/* A receive WQE on QP A (q 0) or B (q 1): one SGE of MR A at off. */
static void w_recv(struct fzw *w, uint8_t q, uint8_t nsge, uint8_t ksel,
                   uint16_t off, uint16_t len)
{
    int i;

    fzw_u8(w, OP_RECV);
    fzw_u8(w, q);
    fzw_u8(w, nsge);
    for (i = 0; i < 3; i++) {
        fzw_u8(w, ksel);
        fzw_u16(w, (uint16_t)(off + i * len));
        fzw_u16(w, len);
    }
}

static void w_send(struct fzw *w, uint8_t opcode, uint8_t flags, uint16_t len,
                   uint16_t loff, uint16_t roff)
{
    fzw_u8(w, OP_SEND);
    fzw_u8(w, opcode);
    fzw_u8(w, flags);
    fzw_u16(w, len);
    fzw_u16(w, loff);
    fzw_u16(w, roff);
}

static void w_op(struct fzw *w, uint8_t op, int nargs, uint8_t a0, uint8_t a1)
{
    fzw_u8(w, op);
    if (nargs > 0) {
        fzw_u8(w, a0);
    }
    if (nargs > 1) {
        fzw_u8(w, a1);
    }
}

#define BH(w)           w_op(w, OP_BH, 0, 0, 0)
#define TIME(w, a)      w_op(w, OP_TIME, 1, a, 0)
#define RUN(w, s, t)    w_op(w, OP_RUN, 2, s, t)
#define QPCTL(w, s, a)  w_op(w, OP_QPCTL, 2, s, a)
#define F(...)          ((struct rxf){ __VA_ARGS__ })

/* Seeds assume path MTU 1024 (mtu byte 2) unless they say otherwise. */
void fuzz_make_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /* SEND: one packet, several, with immediate data; duplicates. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .pay = PAY_N(32)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .dpsn = -1,
                  .pay = PAY_N(32)));
    emit("send-only-dup", &w);

    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 3, 0, 0, 1000);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_IMM, .fl = FL_ACKREQ | FL_SE,
                  .pay = PAY_N(10)));
    w_recv(&w, 0, 1, 0, 8192, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_IMM, .fl = FL_SE, .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_N(4)));
    emit("send-multi-imm", &w);

    /* RDMA WRITE: one packet, several, with immediate, zero length. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .fl = FL_ACKREQ, .off = 64,
                  .len = 40, .pay = PAY_N(40)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .off = 0, .len = 0,
                  .pay = PAY_N(0), .fl = FL_ACKREQ));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .dpsn = -2, .len = 40,
                  .pay = PAY_N(40)));
    w_recv(&w, 0, 1, 0, 0, 16);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .off = 100, .len = 2055,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST_IMM, .fl = FL_ACKREQ,
                  .pay = PAY_N(7)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .len = 8, .pay = PAY_N(8)));
    emit("write-only-multi-imm", &w);

    /* WRITE refused: stale key, out of bounds, no right, bad lengths. */
    for (i = 0; i < 6; i++) {
        static const struct rxf bad[6] = {
            { .op = QRNIC_OP_WRITE_ONLY, .k = 2, .len = 8, .pay = PAY_N(8) },
            { .op = QRNIC_OP_WRITE_ONLY, .v = 0x40, .off = 4, .len = 8,
              .pay = PAY_N(8) },
            { .op = QRNIC_OP_WRITE_ONLY, .k = 1, .len = 8, .pay = PAY_N(8) },
            { .op = QRNIC_OP_WRITE_ONLY, .len = 8, .pay = PAY_N(12) },
            { .op = QRNIC_OP_WRITE_FIRST, .len = 100, .pay = PAY_MTU },
            { .op = QRNIC_OP_WRITE_ONLY, .k = 0xf3, .key = 0x7fff01,
              .len = 8, .pay = PAY_N(8) },
        };
        static const char *names[6] = {
            "write-stale-key", "write-out-of-bounds", "write-no-right",
            "write-longer-than-reth", "write-first-short-reth",
            "write-raw-key",
        };

        w_head(&w, 2, 0, 0x3f);
        w_frame(&w, bad[i]);
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(4)));
        emit(names[i], &w);
    }

    /* RDMA READ: multi-packet replies, a duplicate, then a repeat. */
    w_head(&w, 2, F_PEER_LIVE, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = 8, .len = 3000));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -3, .off = 8, .len = 3000));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -2, .off = 1032,
                  .len = 1968));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = 0, .len = 0));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .pay = PAY_N(4)));
    RUN(&w, 31, 255);
    emit("read-dup", &w);

    /* READ refused: bounds, key, too long, junk after the RETH. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .v = 0x40, .off = 10, .len = 20));
    emit("read-out-of-bounds", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 0, .lsel = 0xc0));
    emit("read-over-2g", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 16, .pay = PAY_BIG(1)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 16, .lsel = 0x50));
    emit("read-junk-bad-pad", &w);

    /* Nine READs at once: more than max_dest_rd_atomic slots. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 9; i++) {
        w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = (uint16_t)(i * 64),
                      .len = 64));
    }
    emit("read-too-many", &w);

    /* Atomics: swap, add, a duplicate replayed, misaligned, no right. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .off = 0, .key = 7));
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .off = 0, .key = 9, .fill = 1));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .off = 8, .key = 5));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .dpsn = -1, .off = 8, .key = 5));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .dpsn = -2, .off = 8, .key = 5));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .off = 12));
    emit("atomic-dup-misaligned", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .k = 1, .off = 0));
    emit("atomic-no-right", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .v = 0x40, .off = 4));
    emit("atomic-out-of-bounds", &w);

    /* PSN ahead: one sequence NAK, then the expected PSN. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .dpsn = 5, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .dpsn = 6, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    emit("psn-ahead", &w);

    /* Opcodes out of sequence and lengths off the path MTU. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .pay = PAY_MTU));
    emit("send-middle-first", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .pay = PAY_MTU));
    emit("send-then-write", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .len = 3000, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_N(4)));
    emit("write-then-send", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU_MINUS(3)));
    emit("send-first-short", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_BIG(8)));
    emit("send-over-mtu", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_N(0)));
    emit("send-last-empty", &w);

    /* Receive problems: none posted (RNR), too small, bad lkey, num_sge. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .len = 4, .pay = PAY_N(4)));
    w_recv(&w, 0, 1, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .len = 2048, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST_IMM, .pay = PAY_MTU));
    emit("rnr", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 16);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-too-small", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0xf1, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-bad-lkey", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 0xf7, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-bad-num-sge", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 1, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-no-local-write", &w);

    /* QP B: RTR only, remote read only, a CQ of two entries. */
    w_head(&w, 2, F_QPB_RD, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = 2, .syn = 0x1f));
    for (i = 0; i < 3; i++) {
        w_recv(&w, 1, 0, 0, 0, 0);
    }
    for (i = 0; i < 3; i++) {
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = 2, .pay = PAY_N(0)));
    }
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = 2, .len = 4,
                  .pay = PAY_N(4)));
    emit("qpb-read-overflow-write", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    emit("qpb-no-rd-slot", &w);
    w_head(&w, 2, F_QPB_RD, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .q = 2, .k = 1));
    emit("qpb-atomic", &w);

    /* The completer: node 1 sends, the answers are made up here. */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, QRNIC_WR_SEND, 0, 100, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_WRITE, 0, 3000, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 5000, 0, 0);
    w_send(&w, QRNIC_WR_ATOMIC_CMP_AND_SWP, 0, 8, 8192, 0);
    w_send(&w, QRNIC_WR_ATOMIC_FETCH_AND_ADD, 0, 8, 8200, 8);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -8, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_FIRST, .dpsn = -7, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -6));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -5));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -4));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_LAST, .dpsn = -3, .syn = 0x1f,
                  .pay = PAY_MTU_MINUS(119)));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .dpsn = -2, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .dpsn = -1, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    emit("completer-all-answered", &w);

    /* Responses out of order: a gap, a resend, a bad length. */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 3000, 0, 0);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -3));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_LAST, .dpsn = -2, .syn = 0x1f,
                  .pay = PAY_MTU_MINUS(71)));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_FIRST, .dpsn = -4, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -3,
                  .pay = PAY_N(3)));
    emit("completer-gap-bad-length", &w);

    /* NAKs: sequence (resend), RNR (wait), then the fatal ones. */
    for (i = 0; i < 6; i++) {
        static const uint8_t syn[6] = { 0x60, 0x21, 0x61, 0x62, 0x63, 0x7f };
        static const char *names[6] = {
            "nak-psn-seq", "nak-rnr", "nak-invalid", "nak-access",
            "nak-rem-op", "nak-reserved",
        };

        w_head(&w, 2, 0, 0x09);
        w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
        w_send(&w, QRNIC_WR_RDMA_WRITE, 0, 2000, 0, 0);
        BH(&w);
        w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -2, .syn = syn[i]));
        w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -2, .syn = syn[i]));
        BH(&w);
        TIME(&w, 40);
        BH(&w);
        w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
        TIME(&w, 40);
        emit(names[i], &w);
    }

    /* Retransmission: nothing comes back until the retries run out. */
    w_head(&w, 2, 0, 0x01);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 10, 0, 0);
    BH(&w);
    for (i = 0; i < 6; i++) {
        TIME(&w, 60);
        BH(&w);
    }
    emit("retry-exhausted", &w);

    /* The peer is live: real traffic with made-up frames in between. */
    w_head(&w, 3, F_PEER_LIVE, 0x3f);
    w_send(&w, QRNIC_WR_RDMA_WRITE, QRNIC_WQE_F_FENCE, 6000, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 6000, 0, 8192);
    w_send(&w, QRNIC_WR_ATOMIC_FETCH_AND_ADD, QRNIC_WQE_F_FENCE, 8, 0, 0);
    RUN(&w, 6, 20);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    RUN(&w, 31, 255);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("peer-live", &w);

    /* Hub: the peer answers from inside the transmit. */
    w_head(&w, 2, F_PEER_LIVE | F_HUB, 0x3f);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 3000, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 3000));
    BH(&w);
    emit("hub", &w);

    /* QP states: SQD with its event, rights revoked, ERR, a fresh start. */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    QPCTL(&w, 2, 1);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    QPCTL(&w, 3, 0x04);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .len = 4, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = 0, .len = 4));
    QPCTL(&w, 0, 0);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .len = 3000, .pay = PAY_MTU));
    QPCTL(&w, 3, 0x02);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .pay = PAY_MTU));
    QPCTL(&w, 3, 0x0e);
    QPCTL(&w, 1, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    QPCTL(&w, 1, 1);
    emit("qp-states", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 3000));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -3, .len = 3000));
    QPCTL(&w, 3, 0x02);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -3, .len = 3000));
    BH(&w);
    emit("read-rights-revoked", &w);

    /* Frames the parser or the QP lookup must drop. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_BAD_PKEY, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_TVER, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_BAD_ICRC,
                  .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 0x50, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = 3, .pay = PAY_N(4)));
    w_frame(&w, F(.op = 0xf4, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_BCAST, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_VLAN, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_IPV6, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .lsel = 0x70, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .pay = PAY_BIG(2), .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 2, .pay = PAY_N(4),
                  .mutv = { 23, 0, 0x01, 14, 0, 0x10 }));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 1, .pay = PAY_N(4),
                  .mutv = { 36, 0, 0x11 }));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 1, .pay = PAY_N(4),
                  .mutv = { 20, 0, 0x20 }));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 0xf0, .pay = PAY_N(4)));
    emit("malformed", &w);

    /* Every MTU, big frames. */
    for (i = 1; i <= 5; i++) {
        char name[32];

        w_head(&w, (uint8_t)(i - 1), 0, 0x3f);
        w_recv(&w, 0, 3, 0, 0, 8192);
        w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .len = 60000,
                      .pay = PAY_BIG(63)));
        snprintf(name, sizeof(name), "mtu-%u", 128u << i);
        emit(name, &w);
    }
}
