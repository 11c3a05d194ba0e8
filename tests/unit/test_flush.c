/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA FLUSH and RDMA ATOMIC WRITE between two engines: the frames as rxe
 * sends them (FLUSH 0x1c with FETH and RETH, ATOMIC WRITE 0x1d with RETH
 * and 8 bytes, each answered by a zero-length READ RESPONSE ONLY); FLUSH
 * of a range and of a whole region after WRITEs; the rights and bounds
 * (region and QP FLUSH_GLOBAL, PERSISTENT never granted, a range outside
 * the region, remote write for ATOMIC WRITE, an unaligned address); WQE
 * errors; neither on UC; a lost reply: the retransmitted request is
 * answered from the responder's record, not executed again; a mix of
 * everything over a lossy wire.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define SEC 1000000000ull
#define MR_BYTES (256u << 10)
#define A(x) QRNIC_QP_ATTR_##x
#define FL_ACCESS (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_FLUSH_GLOBAL)

static struct pair p;
static struct hmr *fmr;         /* node 1: a region that can be flushed */

static uint64_t stat(int n, enum qrnic_stat s)
{
    return nodes[n].d.e.stats.v[s];
}

static uint8_t set_access(struct hqp *qp, uint32_t access)
{
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_RTS;
    a.access_flags = access;
    return qp_modify(qp, A(STATE) | A(ACCESS_FLAGS), &a);
}

static uint8_t *sq_slot(struct hqp *qp)
{
    return qp->n->d.qmem + qp->sq_off +
           ((uint32_t)(qp->sq_pi & ((1u << qp->log_sq) - 1)) << qp->log_ss);
}

static void post_flush(struct hqp *qp, uint64_t wr_id, uint32_t rkey,
                       uint64_t va, uint64_t len, uint8_t type, uint8_t level,
                       bool ring)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_FLUSH, 0, 0, 0);
    uint8_t *slot = sq_slot(qp);

    wr.num_sge = 0;
    wr.remote_addr = va;
    wr.rkey = rkey;
    qp_post_send(qp, &wr, false);
    slot[offsetof(struct qrnic_sq_wqe, flush.type)] = type;
    slot[offsetof(struct qrnic_sq_wqe, flush.level)] = level;
    qrnic_st64(slot + offsetof(struct qrnic_sq_wqe, flush.length), len);
    if (ring) {
        qp_ring_sq(qp);
    }
}

static void post_aw(struct hqp *qp, uint64_t wr_id, uint32_t rkey,
                    uint64_t va, uint64_t value, bool ring)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_ATOMIC_WRITE, 0, 0, 0);

    wr.num_sge = 0;
    wr.remote_addr = va;
    wr.rkey = rkey;
    wr.compare_add = value;
    qp_post_send(qp, &wr, ring);
}

/* The oldest frame on the wire, decoded; false if none or malformed. */
static bool peek(struct qrnic_rx *rx)
{
    const uint8_t *f;
    struct qrnic_roce_pkt pkt;

    if (!wire.count) {
        return false;
    }
    f = wire.q[wire.head].data;
    return qrnic_roce_parse(f, wire.q[wire.head].len, &pkt) &&
           qrnic_wire_parse(f, &pkt, rx);
}

/* Node 1's flushable region, the pair connected. */
static void setup(uint64_t seed)
{
    pair_setup(&p, seed, 3, 10, 3, 0, 1, MR_BYTES);
    fmr = node_mr(&nodes[1], MR_BYTES, FL_ACCESS);
}

/* Wait for node 0's next completion; its status (0xff: none). */
static uint8_t wait0(struct hwc *wc)
{
    return harness_wait_cqe(p.cq[0], wc, now_ns + 5 * SEC) ? wc->status :
           0xff;
}

static void test_wire(void)
{
    struct qrnic_rx rx;
    struct hwc wc;
    uint64_t v = 0x1122334455667788ull;
    bool ok;

    setup(51);
    CHECK(fmr->status == QRNIC_ST_OK,
          "REG_MR with FLUSH_GLOBAL (and remote write, read)");
    post_flush(p.qp[0], 1, fmr->key, fmr->iova + 64, 4096,
               QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, true);
    qf_run_bh(&nodes[0].d);
    ok = peek(&rx);
    CHECK(ok && rx.opcode == 0x1c && (rx.opf & QRNIC_OPF_REQ) &&
          rx.flush_type == QRNIC_FLUSH_GLOBAL &&
          rx.flush_level == QRNIC_FLUSH_RANGE && rx.va == fmr->iova + 64 &&
          rx.rkey == fmr->key && rx.dma_len == 4096 && rx.paylen == 0 &&
          rx.ackreq,
          "FLUSH on the wire: opcode 0x1c, FETH (global, range), RETH "
          "(va, rkey, length), no payload, AckReq");
    CHECK(ok && qrnic_ld32_be(wire.q[wire.head].data + rx.pkt.bth + 12) ==
          0x00000001u, "FETH: placement type in bits 3..0, level 5..4");
    harness_deliver_one();
    qf_run_bh(&nodes[1].d);
    ok = peek(&rx);
    CHECK(ok && rx.opcode == QRNIC_OP_READ_RESP_ONLY && rx.paylen == 0 &&
          rx.syndrome == (QRNIC_AETH_ACK | QRNIC_AETH_CREDITS_INVALID) &&
          rx.psn == (0x123456 + p.qp[0]->qpn * 1000) % 0x1000000,
          "its answer: an RDMA READ RESPONSE ONLY of no data, ACK syndrome, "
          "the request's PSN (rxe's send_read_response_ack)");
    harness_deliver_one();
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_FLUSH &&
          wc.wr_id == 1 && (wc.flags & QRNIC_CQE_F_SEND),
          "FLUSH completes: CQE opcode FLUSH, success");

    post_aw(p.qp[0], 2, fmr->key, fmr->iova + 8, v, true);
    qf_run_bh(&nodes[0].d);
    ok = peek(&rx);
    CHECK(ok && rx.opcode == 0x1d && rx.va == fmr->iova + 8 &&
          rx.rkey == fmr->key && rx.dma_len == 8 && rx.paylen == 8 &&
          !memcmp(rx.payload, &v, 8),
          "ATOMIC WRITE on the wire: opcode 0x1d, RETH of 8 bytes, the "
          "WQE's compare_add bytes as payload");
    harness_deliver_one();
    qf_run_bh(&nodes[1].d);
    ok = peek(&rx);
    CHECK(ok && rx.opcode == QRNIC_OP_READ_RESP_ONLY && rx.paylen == 0,
          "its answer: an empty RDMA READ RESPONSE ONLY");
    harness_deliver_one();
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS &&
          wc.opcode == QRNIC_CQE_OP_ATOMIC_WRITE && wc.wr_id == 2,
          "ATOMIC WRITE completes: CQE opcode ATOMIC_WRITE, success");
    CHECK(!memcmp(mr_at(fmr, fmr->iova + 8), &v, 8),
          "the 8 bytes are in the region, in the WQE's byte order");
    CHECK_EQ(wire.bad_icrc, 0, "every frame's ICRC is right");
    harness_fini();
}

static void test_flush_after_writes(void)
{
    struct hwr wr;
    struct hwc wc;
    int i, ok = 0;

    setup(52);
    /* WRITEs, then FLUSH of their range and of the whole region. */
    for (i = 0; i < 4; i++) {
        wr = mkwr(10 + i, QRNIC_WR_RDMA_WRITE,
                  p.mr[0]->iova + i * 8192u, 8192, p.mr[0]->key);
        wr.flags = 0;
        mr_fill(p.mr[0], p.mr[0]->iova + i * 8192u, 8192, 70 + i);
        wr.remote_addr = fmr->iova + 1000 + i * 8192u;
        wr.rkey = fmr->key;
        qp_post_send(p.qp[0], &wr, false);
    }
    post_flush(p.qp[0], 20, fmr->key, fmr->iova + 1000, 4 * 8192,
               QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, false);
    /* The MR level looks at neither address nor length. */
    post_flush(p.qp[0], 21, fmr->key, 0xdead0000beefull, 1ull << 40,
               QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_MR, true);
    for (i = 0; i < 2; i++) {
        ok += wait0(&wc) == QRNIC_WC_SUCCESS && wc.wr_id == 20u + i &&
              wc.opcode == QRNIC_CQE_OP_FLUSH;
    }
    CHECK(ok == 2, "FLUSH of the range written and of the whole region "
          "(level MR: any address and length) succeed, in order");
    for (i = 0, ok = 0; i < 4; i++) {
        ok += !mr_verify(fmr, fmr->iova + 1000 + i * 8192u, 8192, 70 + i);
    }
    CHECK(ok == 4 && !cq_poll(p.cq[0], &wc),
          "the WRITEs before them are in place; the unsignalled WRITEs "
          "complete nothing");
    post_flush(p.qp[0], 22, fmr->key, fmr->iova, MR_BYTES,
               QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, true);
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS,
          "FLUSH of exactly the whole region as a range");
    post_flush(p.qp[0], 23, fmr->key, fmr->iova + MR_BYTES, 0,
               QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, true);
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS && qp_state(p.qp[1]) ==
          QRNIC_QPS_RTS, "FLUSH of no bytes at the region's end");
    harness_fini();
}

/* A FLUSH refused by the responder: REM_ACCESS_ERR, its QP in ERR. */
static void flush_refused(uint64_t seed, const char *what, bool own_mr,
                          uint64_t off, uint64_t len, uint8_t type,
                          uint8_t level, uint32_t qp_access,
                          uint8_t want)
{
    struct hwc wc;
    struct hmr *mr;
    uint64_t nak = 0;
    uint8_t st;

    setup(seed);
    mr = own_mr ? fmr : p.mr[1];
    if (qp_access) {
        set_access(p.qp[1], qp_access);
    }
    nak = stat(1, QRNIC_STAT_REM_ACCESS_ERRS);
    post_flush(p.qp[0], 30, mr->key, mr->iova + off, len, type, level, true);
    st = wait0(&wc);
    CHECK(st == want && wc.vendor_err == QRNIC_VERR_NAK &&
          wc.opcode == QRNIC_CQE_OP_FLUSH,
          "%s: status %u (want %u)", what, st, want);
    CHECK(qp_state(p.qp[1]) == QRNIC_QPS_ERR &&
          (want != QRNIC_WC_REM_ACCESS_ERR ||
           stat(1, QRNIC_STAT_REM_ACCESS_ERRS) == nak + 1),
          "%s: the responder NAKed and is in ERR", what);
    harness_fini();
}

static void test_flush_refused(void)
{
    flush_refused(53, "FLUSH of a region without FLUSH_GLOBAL", false, 0,
                  64, QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, 0,
                  QRNIC_WC_REM_ACCESS_ERR);
    flush_refused(54, "FLUSH of the MR level, region without FLUSH_GLOBAL",
                  false, 0, 0, QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_MR, 0,
                  QRNIC_WC_REM_ACCESS_ERR);
    flush_refused(55, "FLUSH PERSISTENT (never granted)", true, 0, 64,
                  QRNIC_FLUSH_PERSISTENT, QRNIC_FLUSH_RANGE, 0,
                  QRNIC_WC_REM_ACCESS_ERR);
    flush_refused(56, "FLUSH GLOBAL | PERSISTENT", true, 0, 64,
                  QRNIC_FLUSH_GLOBAL | QRNIC_FLUSH_PERSISTENT,
                  QRNIC_FLUSH_MR, 0, QRNIC_WC_REM_ACCESS_ERR);
    flush_refused(57, "FLUSH of a range past the region's end", true,
                  MR_BYTES - 64, 65, QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE,
                  0, QRNIC_WC_REM_ACCESS_ERR);
    flush_refused(58, "FLUSH of a range before the region", true,
                  (uint64_t)-8, 16, QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, 0,
                  QRNIC_WC_REM_ACCESS_ERR);
    flush_refused(59, "FLUSH to a QP without FLUSH_GLOBAL", true, 0, 64,
                  QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE,
                  QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ,
                  QRNIC_WC_REM_ACCESS_ERR);
}

static void test_flush_bad_wqe(void)
{
    static const struct {
        uint8_t type, level;
        uint64_t len;
        uint8_t status, verr;
        const char *what;
    } bad[] = {
        { 0, 0, 64, QRNIC_WC_LOC_QP_OP_ERR, QRNIC_VERR_BAD_OPCODE,
          "placement type 0" },
        { 4, 0, 64, QRNIC_WC_LOC_QP_OP_ERR, QRNIC_VERR_BAD_OPCODE,
          "placement type 4" },
        { QRNIC_FLUSH_GLOBAL, 2, 64, QRNIC_WC_LOC_QP_OP_ERR,
          QRNIC_VERR_BAD_OPCODE, "selectivity level 2" },
        { QRNIC_FLUSH_GLOBAL, 0, QRNIC_MAX_MSG_SIZE + 1ull,
          QRNIC_WC_LOC_LEN_ERR, QRNIC_VERR_MSG_TOO_LONG,
          "a range over 2 GiB" },
    };
    struct hwc wc;
    unsigned int i;
    uint8_t *slot;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        setup(60 + i);
        post_flush(p.qp[0], 40, fmr->key, fmr->iova, bad[i].len,
                   bad[i].type, bad[i].level, true);
        CHECK(wait0(&wc) == bad[i].status && wc.vendor_err == bad[i].verr &&
              stat(0, QRNIC_STAT_TX_ROCE_PKTS) == 0,
              "FLUSH WQE with %s: status %u, vendor_err %u, nothing sent",
              bad[i].what, wc.status, wc.vendor_err);
        harness_fini();
    }
    setup(65);
    post_flush(p.qp[0], 41, fmr->key, fmr->iova, QRNIC_MAX_MSG_SIZE + 1ull,
               QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_MR, true);
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS,
          "the MR level ignores the WQE's length too");
    slot = sq_slot(p.qp[0]);
    post_aw(p.qp[0], 42, fmr->key, fmr->iova, 1, false);
    slot[offsetof(struct qrnic_sq_wqe, flags)] |= QRNIC_WQE_F_INLINE;
    qp_ring_sq(p.qp[0]);
    CHECK(wait0(&wc) == QRNIC_WC_LOC_LEN_ERR &&
          wc.opcode == QRNIC_CQE_OP_ATOMIC_WRITE,
          "ATOMIC WRITE with F_INLINE: LOC_LEN_ERR, as atomics");
    harness_fini();
}

/* len bytes of the region from va, as the host sees them. */
static void snap(struct hmr *mr, uint64_t va, uint32_t len, uint8_t *buf)
{
    uint32_t i;

    for (i = 0; i < len; i++) {
        buf[i] = *mr_at(mr, va + i);
    }
}

static void test_atomic_write(void)
{
    static uint8_t before[4096], after[4096];
    uint64_t v = 0x0102030405060708ull;
    struct hmr *ro;
    struct hwc wc;
    uint8_t st;

    setup(66);
    mr_fill(fmr, fmr->iova, 4096, 5);
    snap(fmr, fmr->iova, 4096, before);
    post_aw(p.qp[0], 50, fmr->key, fmr->iova + 1024, v, true);
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS && wc.byte_len == 8,
          "ATOMIC WRITE: success, byte_len 8");
    snap(fmr, fmr->iova, 4096, after);
    memcpy(before + 1024, &v, 8);
    CHECK(!memcmp(before, after, 4096),
          "exactly the 8 bytes at the address change, to the WQE's bytes");

    /* Unaligned: an invalid request NAK, nothing written. */
    post_aw(p.qp[0], 51, fmr->key, fmr->iova + 2044, v, true);
    st = wait0(&wc);
    CHECK(st == QRNIC_WC_REM_INV_REQ_ERR && wc.vendor_err == QRNIC_VERR_NAK,
          "ATOMIC WRITE to an address not 8-byte aligned: "
          "REM_INV_REQ_ERR (status %u), as rxe's MISALIGNED_ATOMIC", st);
    snap(fmr, fmr->iova, 4096, after);
    CHECK(!memcmp(before, after, 4096), "nothing was written");
    CHECK_EQ(qp_state(p.qp[1]), QRNIC_QPS_ERR, "the responder is in ERR");
    harness_fini();

    /* A region without remote write. */
    setup(67);
    ro = node_mr(&nodes[1], 8192, QRNIC_ACCESS_LOCAL_WRITE |
                 QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_FLUSH_GLOBAL);
    post_aw(p.qp[0], 52, ro->key, ro->iova, v, true);
    CHECK(wait0(&wc) == QRNIC_WC_REM_ACCESS_ERR &&
          !memcmp(mr_at(ro, ro->iova), "\0\0\0\0\0\0\0", 8),
          "ATOMIC WRITE to a region without REMOTE_WRITE: REM_ACCESS_ERR, "
          "nothing written");
    harness_fini();

    /* A QP without remote write. */
    setup(68);
    set_access(p.qp[1], QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_FLUSH_GLOBAL);
    post_aw(p.qp[0], 53, fmr->key, fmr->iova, v, true);
    CHECK(wait0(&wc) == QRNIC_WC_REM_ACCESS_ERR &&
          !memcmp(mr_at(fmr, fmr->iova), "\0\0\0\0\0\0\0", 8),
          "ATOMIC WRITE to a QP without REMOTE_WRITE: REM_ACCESS_ERR");
    harness_fini();

    /* Past the region's end. */
    setup(69);
    post_aw(p.qp[0], 54, fmr->key, fmr->iova + MR_BYTES - 4, v, true);
    CHECK(wait0(&wc) == QRNIC_WC_REM_ACCESS_ERR,
          "ATOMIC WRITE across the region's end: REM_ACCESS_ERR");
    harness_fini();
}

/* A hand-made ATOMIC WRITE frame from node 0 to node 1's QP. */
static void raw_aw(uint32_t dma_len, uint32_t paylen)
{
    const struct qrnic_qpc *q1 = qrnic_qp_get(&nodes[1].d.e, p.qp[1]->qpn);
    struct qrnic_engine *e0 = &nodes[0].d.e;
    const struct qrnic_qpc *q0 = qrnic_qp_get(e0, p.qp[0]->qpn);
    static uint8_t f[QRNIC_ETH_MAX_FRAME];
    size_t pos;

    pos = qrnic_wire_begin(e0, q0, f, QRNIC_OP_ATOMIC_WRITE, q1->resp.epsn,
                           false, true);
    pos += qrnic_put_reth(f + pos, fmr->iova, fmr->key, dma_len);
    memset(f + pos, 0x5a, paylen);
    qf_receive(&nodes[1].d, f, qrnic_wire_finish(q0, f, pos + paylen));
}

static void test_aw_lengths(void)
{
    static const uint32_t lens[][2] = { { 4, 4 }, { 8, 4 }, { 16, 16 },
                                        { 8, 12 }, { 16, 8 }, { 0, 8 } };
    unsigned int i;

    for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
        setup(70 + i);
        raw_aw(lens[i][0], lens[i][1]);
        harness_run(now_ns + 10 * MS);
        CHECK(qp_state(p.qp[1]) == QRNIC_QPS_ERR &&
              !memcmp(mr_at(fmr, fmr->iova), "\0\0\0\0\0\0\0", 8),
              "an ATOMIC WRITE frame of RETH length %u, %u bytes: invalid, "
              "nothing written", lens[i][0], lens[i][1]);
        harness_fini();
    }
    setup(79);
    raw_aw(8, 8);
    harness_run(now_ns + 10 * MS);
    CHECK(qp_state(p.qp[1]) == QRNIC_QPS_RTS &&
          !memcmp(mr_at(fmr, fmr->iova), "ZZZZZZZZ", 8),
          "one of RETH length 8 and 8 bytes is executed");
    harness_fini();
}

static void test_uc(void)
{
    struct qrnic_qp_attr a;
    struct hqp *uc[2];
    struct hwc wc;
    uint8_t st;
    int i, k;

    for (k = 0; k < 2; k++) {
        setup(75 + k);
        for (i = 0; i < 2; i++) {
            uc[i] = node_create_qp_type(&nodes[i], QRNIC_QPT_UC, p.cq[i],
                                        p.cq[i], 6, 7, 6, 5, &st);
        }
        for (i = 0; i < 2; i++) {
            memset(&a, 0, sizeof(a));
            a.qp_state = QRNIC_QPS_INIT;
            a.port_num = 1;
            a.access_flags = QRNIC_ACCESS_REMOTE_WRITE |
                             QRNIC_ACCESS_FLUSH_GLOBAL;
            qp_modify(uc[i], A(STATE) | A(PKEY_INDEX) | A(PORT) |
                      A(ACCESS_FLAGS), &a);
            a.qp_state = QRNIC_QPS_RTR;
            a.path_mtu = 3;
            a.dest_qpn = uc[!i]->qpn;
            a.hop_limit = 64;
            memcpy(a.dgid, nodes[!i].gid, 16);
            memcpy(a.dmac, nodes[!i].mac, 6);
            qp_modify(uc[i], A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                      A(RQ_PSN), &a);
            a.qp_state = QRNIC_QPS_RTS;
            qp_modify(uc[i], A(STATE) | A(SQ_PSN), &a);
        }
        if (k) {
            post_aw(uc[0], 80, fmr->key, fmr->iova, 7, true);
        } else {
            post_flush(uc[0], 80, fmr->key, fmr->iova, 64,
                       QRNIC_FLUSH_GLOBAL, QRNIC_FLUSH_RANGE, true);
        }
        CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + SEC) &&
              wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
              wc.vendor_err == QRNIC_VERR_BAD_OPCODE &&
              wc.opcode == (k ? QRNIC_CQE_OP_ATOMIC_WRITE :
                            QRNIC_CQE_OP_FLUSH) &&
              stat(0, QRNIC_STAT_TX_ROCE_PKTS) == 0 &&
              qp_state(uc[0]) == QRNIC_QPS_ERR,
              "%s on a UC QP: LOC_QP_OP_ERR (bad opcode), nothing sent",
              k ? "ATOMIC WRITE" : "FLUSH");
        harness_fini();
    }
}

/*
 * The reply to a FLUSH or ATOMIC WRITE is lost; the requester resends it
 * and the responder answers the duplicate from its record: not executed
 * again (the ATOMIC WRITE's target changed since keeps its new value; the
 * FLUSH succeeds although its right was revoked meanwhile).
 */
static void test_lost_reply(void)
{
    uint64_t v = 0xaaaaaaaaaaaaaaaaull, later = 0x5555555555555555ull, dups;
    struct hwc wc;

    setup(77);
    post_aw(p.qp[0], 90, fmr->key, fmr->iova + 64, v, true);
    qf_run_bh(&nodes[0].d);
    CHECK(harness_deliver_one(), "lost reply: the ATOMIC WRITE arrives");
    wire.cut = true;
    qf_run_bh(&nodes[1].d);             /* its reply is lost */
    wire.cut = false;
    CHECK(!memcmp(mr_at(fmr, fmr->iova + 64), &v, 8),
          "lost reply: the ATOMIC WRITE was executed");
    memcpy(mr_at(fmr, fmr->iova + 64), &later, 8);
    dups = stat(1, QRNIC_STAT_DUP_REQS);
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS && wc.wr_id == 90 &&
          stat(0, QRNIC_STAT_RETRANS_PKTS) >= 1 &&
          stat(1, QRNIC_STAT_DUP_REQS) > dups,
          "lost reply: the resent ATOMIC WRITE is a duplicate, answered, "
          "success");
    CHECK(!memcmp(mr_at(fmr, fmr->iova + 64), &later, 8),
          "lost reply: the duplicate was not executed again");

    post_flush(p.qp[0], 91, fmr->key, fmr->iova, 4096, QRNIC_FLUSH_GLOBAL,
               QRNIC_FLUSH_RANGE, true);
    qf_run_bh(&nodes[0].d);
    harness_deliver_one();
    wire.cut = true;
    qf_run_bh(&nodes[1].d);
    wire.cut = false;
    set_access(p.qp[1], QRNIC_ACCESS_REMOTE_WRITE);
    dups = stat(1, QRNIC_STAT_DUP_REQS);
    CHECK(wait0(&wc) == QRNIC_WC_SUCCESS && wc.wr_id == 91 &&
          stat(1, QRNIC_STAT_DUP_REQS) > dups &&
          qp_state(p.qp[1]) == QRNIC_QPS_RTS,
          "lost reply: the resent FLUSH is answered from the record "
          "(FLUSH_GLOBAL revoked since: not checked again, as rxe)");
    harness_fini();
}

static void test_no_resources(void)
{
    struct qrnic_qp_attr a;
    struct hwc wc;

    setup(78);
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_SQD;
    qp_modify(p.qp[1], A(STATE), &a);
    a.max_dest_rd_atomic = 0;
    qp_modify(p.qp[1], A(STATE) | A(MAX_DEST_RD_ATOMIC), &a);
    a.qp_state = QRNIC_QPS_RTS;
    qp_modify(p.qp[1], A(STATE), &a);
    post_flush(p.qp[0], 95, fmr->key, fmr->iova, 64, QRNIC_FLUSH_GLOBAL,
               QRNIC_FLUSH_RANGE, true);
    CHECK(wait0(&wc) == QRNIC_WC_REM_INV_REQ_ERR,
          "FLUSH to a QP with max_dest_rd_atomic 0: REM_INV_REQ_ERR "
          "(status %u)", wc.status);
    harness_fini();
}

/*
 * WRITEs, FLUSHes, ATOMIC WRITEs and READs over a wire that drops,
 * duplicates and reorders: everything completes, in order, once.
 */
static void test_lossy_mix(void)
{
    uint64_t vals[64];
    struct hwr wr;
    struct hwc wc;
    int i, n = 0, bad = 0;

    setup(80);
    wire.drop_pct = 10;
    wire.dup_pct = 5;
    wire.reorder_pct = 5;
    for (i = 0; i < 64; i++) {
        uint64_t off = (uint64_t)(i / 4) * 4096;

        switch (i % 4) {
        case 0:
            wr = mkwr(100 + i, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova + off,
                      3000, p.mr[0]->key);
            mr_fill(p.mr[0], p.mr[0]->iova + off, 3000, 200 + i);
            wr.remote_addr = fmr->iova + off;
            wr.rkey = fmr->key;
            qp_post_send(p.qp[0], &wr, false);
            break;
        case 1:
            post_flush(p.qp[0], 100 + i, fmr->key, fmr->iova + off, 3000,
                       QRNIC_FLUSH_GLOBAL, i % 8 == 1 ? QRNIC_FLUSH_RANGE :
                       QRNIC_FLUSH_MR, false);
            break;
        case 2:
            vals[i] = 0x0101010101010101ull * (uint64_t)i;
            post_aw(p.qp[0], 100 + i, fmr->key, fmr->iova + off + 3000,
                    vals[i], false);
            break;
        default:
            wr = mkwr(100 + i, QRNIC_WR_RDMA_READ,
                      p.mr[0]->iova + 128 * 1024 + off, 3008, p.mr[0]->key);
            wr.remote_addr = fmr->iova + off;
            wr.rkey = fmr->key;
            qp_post_send(p.qp[0], &wr, false);
            break;
        }
    }
    qp_ring_sq(p.qp[0]);
    while (n < 64 && harness_wait_cqe(p.cq[0], &wc, now_ns + 30 * SEC)) {
        bad += wc.status != QRNIC_WC_SUCCESS || wc.wr_id != 100u + n;
        n++;
    }
    CHECK(n == 64 && !bad, "64 WRITE/FLUSH/ATOMIC WRITE/READ over a lossy "
          "wire: all complete once, in order, with success (%d, %d bad)",
          n, bad);
    for (i = 0; i < 64; i++) {
        uint64_t off = (uint64_t)(i / 4) * 4096;

        if (i % 4 == 3) {
            /* What the READ saw: the WRITE and ATOMIC WRITE before it. */
            bad += mr_verify(p.mr[0], p.mr[0]->iova + 128 * 1024 + off,
                             3000, 200 + i - 3) != 0;
            bad += memcmp(mr_at(p.mr[0], p.mr[0]->iova + 128 * 1024 + off +
                                3000), &vals[i - 1], 8) != 0;
        }
    }
    CHECK(!bad, "every READ returns the WRITE and ATOMIC WRITE before it "
          "(a FLUSH between them)");
    CHECK(wire.dropped > 0 && stat(1, QRNIC_STAT_DUP_REQS) > 0,
          "frames were lost (%llu) and duplicates seen (%llu)",
          (unsigned long long)wire.dropped,
          (unsigned long long)stat(1, QRNIC_STAT_DUP_REQS));
    harness_fini();
}

int main(void)
{
    test_wire();
    test_flush_after_writes();
    test_flush_refused();
    test_flush_bad_wqe();
    test_atomic_write();
    test_aw_lengths();
    test_uc();
    test_lost_reply();
    test_no_resources();
    test_lossy_mix();
    return TAP_DONE();
}
