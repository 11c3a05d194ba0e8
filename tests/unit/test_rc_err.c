/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RC error handling: bad WQEs complete with the right status and flush
 * what follows, remote violations are NAKed with nothing written, RNR and
 * retry counters run out, the state machine refuses what the IBTA rules
 * refuse, doorbells and admin commands are checked, and garbage in queue
 * memory or on the wire neither crashes the engine nor stops other QPs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_roce.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define SEC 1000000000ull
#define MR_BYTES (256u << 10)
#define A(x) QRNIC_QP_ATTR_##x

static struct pair p;

static bool fresh(uint8_t timeout, uint8_t retry, uint8_t rnr_retry)
{
    return pair_setup(&p, 7, 3, timeout, retry, rnr_retry, 1, MR_BYTES);
}

/* Post a signalled SEND of len bytes from node 0's MR and a receive. */
static void send_ok(uint64_t wr_id, uint32_t len)
{
    struct hsge r = { p.mr[1]->iova, len, p.mr[1]->key };
    struct hwr wr = mkwr(wr_id, QRNIC_WR_SEND, p.mr[0]->iova, len,
                         p.mr[0]->key);

    qp_post_recv(p.qp[1], wr_id | 0x8000, &r, 1, true);
    qp_post_send(p.qp[0], &wr, true);
}

/* After a failure, a new QP pair between the same nodes still works. */
static bool others_still_work(void)
{
    struct hqp *a = node_create_qp(&nodes[0], p.cq[0], p.cq[0], 4, 7, 4, 6);
    struct hqp *b = node_create_qp(&nodes[1], p.cq[1], p.cq[1], 4, 7, 4, 6);
    struct hsge r = { p.mr[1]->iova + 4096, 100, p.mr[1]->key };
    struct hwr wr = mkwr(0x5150, QRNIC_WR_SEND, p.mr[0]->iova + 4096, 100,
                         p.mr[0]->key);
    struct hwc wc;
    bool sent = false, got = false;

    if (!a || !b || !qp_connect(a, b, 3, 14, 7, 7, 1) ||
        !qp_connect(b, a, 3, 14, 7, 7, 1)) {
        return false;
    }
    mr_fill(p.mr[0], wr.sge[0].addr, 100, 99);
    qp_post_recv(b, 0x5151, &r, 1, true);
    qp_post_send(a, &wr, true);
    harness_run(now_ns + SEC);
    while (cq_poll(p.cq[0], &wc)) {
        sent |= wc.wr_id == 0x5150 && wc.status == QRNIC_WC_SUCCESS;
    }
    while (cq_poll(p.cq[1], &wc)) {
        got |= wc.wr_id == 0x5151 && wc.status == QRNIC_WC_SUCCESS;
    }
    return sent && got && !mr_verify(p.mr[1], r.addr, 100, 99);
}

static void test_bad_lkey(void)
{
    struct hwr wr;
    struct hwc wc[3];
    int i;

    fresh(14, 7, 7);
    wr = mkwr(1, QRNIC_WR_SEND, p.mr[0]->iova, 64, p.mr[0]->key ^ 0x100);
    qp_post_send(p.qp[0], &wr, false);
    wr = mkwr(2, QRNIC_WR_SEND, p.mr[0]->iova, 64, p.mr[0]->key);
    qp_post_send(p.qp[0], &wr, false);
    wr.flags = 0;
    wr.wr_id = 3;
    qp_post_send(p.qp[0], &wr, true);
    harness_run(now_ns + SEC);
    for (i = 0; i < 3; i++) {
        if (!cq_poll(p.cq[0], &wc[i])) {
            memset(&wc[i], 0xff, sizeof(wc[i]));
        }
    }
    CHECK(wc[0].wr_id == 1 && wc[0].status == QRNIC_WC_LOC_PROT_ERR &&
          wc[0].vendor_err == QRNIC_VERR_BAD_LKEY,
          "bad lkey -> LOC_PROT_ERR (vendor_err BAD_LKEY)");
    CHECK(wc[1].wr_id == 2 && wc[1].status == QRNIC_WC_WR_FLUSH_ERR &&
          wc[2].wr_id == 3 && wc[2].status == QRNIC_WC_WR_FLUSH_ERR,
          "later WQEs flushed in order, unsignalled ones too");
    CHECK_EQ(qp_state(p.qp[0]), QRNIC_QPS_ERR, "bad lkey: QP in ERR");
    CHECK_EQ(wire.sent, 0, "bad lkey: nothing went on the wire");
    CHECK(others_still_work(), "bad lkey: a new QP pair still works");
}

static void test_bad_wqes(void)
{
    static const struct {
        const char *what;
        uint8_t opcode;
        uint8_t flags;
        int num_sge;
        uint8_t status;
    } cases[] = {
        { "unknown opcode 12", 12, QRNIC_WQE_F_SIGNALED, 1,
          QRNIC_WC_LOC_QP_OP_ERR },
        { "unknown flag bits", QRNIC_WR_SEND, 0x81, 1,
          QRNIC_WC_LOC_QP_OP_ERR },
        { "num_sge beyond the stride", QRNIC_WR_SEND, QRNIC_WQE_F_SIGNALED,
          29, QRNIC_WC_LOC_LEN_ERR },
        { "atomic of 4 bytes", QRNIC_WR_ATOMIC_FETCH_AND_ADD,
          QRNIC_WQE_F_SIGNALED, -4, QRNIC_WC_LOC_LEN_ERR },
        { "inline READ", QRNIC_WR_RDMA_READ,
          QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_INLINE, 1,
          QRNIC_WC_LOC_LEN_ERR },
    };
    unsigned int i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hwr wr = mkwr(40 + i, cases[i].opcode, p.mr[0]->iova,
                             cases[i].num_sge < 0 ? 4 : 8, p.mr[0]->key);
        struct hwc wc;
        bool got;

        fresh(14, 7, 7);
        wr.flags = cases[i].flags;
        if (cases[i].num_sge > 1) {
            wr.raw_num_sge = cases[i].num_sge;
        }
        if (cases[i].flags & QRNIC_WQE_F_INLINE) {
            wr.sge[0].addr = (uint64_t)(uintptr_t)&wr;
        }
        qp_post_send(p.qp[0], &wr, true);
        harness_run(now_ns + SEC);
        got = cq_poll(p.cq[0], &wc);
        CHECK(got && wc.wr_id == 40 + i && wc.status == cases[i].status,
              "bad WQE (%s) completes with status %u (got %u)",
              cases[i].what, cases[i].status, got ? wc.status : 0xff);
    }
    CHECK(others_still_work(), "bad WQEs: a new QP pair still works");
}

/* RDMA WRITE/READ with a bad rkey or outside the region. */
static void test_remote_access(void)
{
    static const struct {
        const char *what;
        uint8_t opcode;
        uint32_t key_xor;
        uint64_t offset;
        uint32_t len;
    } cases[] = {
        { "WRITE, bad rkey", QRNIC_WR_RDMA_WRITE, 0x100, 0, 4096 },
        { "WRITE, past the end", QRNIC_WR_RDMA_WRITE, 0, MR_BYTES - 100, 200 },
        { "WRITE, before the start", QRNIC_WR_RDMA_WRITE, 0, -64ull, 128 },
        { "READ, bad rkey", QRNIC_WR_RDMA_READ, 0x200, 0, 4096 },
        { "READ, past the end", QRNIC_WR_RDMA_READ, 0, MR_BYTES - 8, 16 },
        { "FETCH_ADD, bad rkey", QRNIC_WR_ATOMIC_FETCH_AND_ADD, 0x300, 0, 8 },
    };
    unsigned int i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct hwr wr;
        struct hwc wc;
        bool got, flushed = false;
        struct hsge r = { p.mr[1]->iova, 16, p.mr[1]->key };

        fresh(14, 7, 7);
        mr_fill(p.mr[1], p.mr[1]->iova, MR_BYTES, 5);
        qp_post_recv(p.qp[1], 0x77, &r, 1, true);
        wr = mkwr(60 + i, cases[i].opcode, p.mr[0]->iova, cases[i].len,
                  p.mr[0]->key);
        wr.remote_addr = p.mr[1]->iova + cases[i].offset;
        wr.rkey = p.mr[1]->key ^ cases[i].key_xor;
        qp_post_send(p.qp[0], &wr, true);
        harness_run(now_ns + SEC);
        got = cq_poll(p.cq[0], &wc);
        CHECK(got && wc.wr_id == 60 + i &&
              wc.status == QRNIC_WC_REM_ACCESS_ERR,
              "%s -> REM_ACCESS_ERR on the requester (got %u)",
              cases[i].what, got ? wc.status : 0xff);
        CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, MR_BYTES, 5),
              "%s: not a byte written on the responder", cases[i].what);
        while (cq_poll(p.cq[1], &wc)) {
            flushed |= wc.wr_id == 0x77 && wc.status == QRNIC_WC_WR_FLUSH_ERR;
        }
        CHECK(qp_state(p.qp[1]) == QRNIC_QPS_ERR && flushed &&
              nodes[1].d.e.stats.v[QRNIC_STAT_REM_ACCESS_ERRS] == 1,
              "%s: the responder QP is in ERR, its receive flushed, the "
              "violation counted", cases[i].what);
    }
    CHECK(others_still_work(), "remote access errors: new QPs still work");
}

static void test_rnr(void)
{
    struct hwr wr;
    struct hwc wc;
    struct hsge r;
    bool got;

    fresh(14, 7, 0);
    wr = mkwr(80, QRNIC_WR_SEND, p.mr[0]->iova, 100, p.mr[0]->key);
    qp_post_send(p.qp[0], &wr, true);
    harness_run(now_ns + 5 * SEC);
    got = cq_poll(p.cq[0], &wc);
    CHECK(got && wc.wr_id == 80 && wc.status == QRNIC_WC_RNR_RETRY_EXC_ERR,
          "no receive posted, rnr_retry 0 -> RNR_RETRY_EXC_ERR");
    CHECK(nodes[1].d.e.stats.v[QRNIC_STAT_RNR_NAKS_TX] == 1 &&
          qp_state(p.qp[1]) == QRNIC_QPS_RTS,
          "one RNR NAK; the responder QP stays usable (RTS)");

    /* rnr_retry 7 waits as long as it takes; a late receive completes it. */
    fresh(14, 7, 7);
    mr_fill(p.mr[0], p.mr[0]->iova, 3000, 8);
    wr = mkwr(81, QRNIC_WR_SEND, p.mr[0]->iova, 3000, p.mr[0]->key);
    qp_post_send(p.qp[0], &wr, true);
    harness_run(now_ns + 50 * MS);
    CHECK(!cq_poll(p.cq[0], &wc) &&
          nodes[0].d.e.stats.v[QRNIC_STAT_RNR_NAKS_RX] >= 2,
          "rnr_retry 7: still waiting after several RNR NAKs (%llu)",
          (unsigned long long)nodes[0].d.e.stats.v[QRNIC_STAT_RNR_NAKS_RX]);
    r.addr = p.mr[1]->iova;
    r.len = 4096;
    r.lkey = p.mr[1]->key;
    qp_post_recv(p.qp[1], 82, &r, 1, true);
    harness_run(now_ns + SEC);
    got = cq_poll(p.cq[0], &wc);
    CHECK(got && wc.wr_id == 81 && wc.status == QRNIC_WC_SUCCESS &&
          cq_poll(p.cq[1], &wc) && wc.wr_id == 82 && wc.byte_len == 3000 &&
          !mr_verify(p.mr[1], r.addr, 3000, 8),
          "rnr_retry 7: the SEND lands once a receive is posted");
}

static void test_peer_gone(void)
{
    struct hwr wr;
    struct hwc wc;
    uint64_t start;
    bool got;

    fresh(14, 7, 7);
    wire.cut = true;
    start = now_ns;
    wr = mkwr(90, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova, 5000, p.mr[0]->key);
    wr.remote_addr = p.mr[1]->iova;
    wr.rkey = p.mr[1]->key;
    qp_post_send(p.qp[0], &wr, true);
    wr.wr_id = 91;
    qp_post_send(p.qp[0], &wr, true);
    got = harness_wait_cqe(p.cq[0], &wc, now_ns + 10 * SEC);
    /* 8 tries of 4.096 us << 14 = 67 ms each. */
    CHECK(got && wc.wr_id == 90 && wc.status == QRNIC_WC_RETRY_EXC_ERR &&
          now_ns - start >= 7 * 67 * MS && now_ns - start <= 9 * 68 * MS,
          "peer gone: RETRY_EXC_ERR after %llu ms (timeout 14, retry_cnt 7)",
          (unsigned long long)((now_ns - start) / MS));
    CHECK(cq_poll(p.cq[0], &wc) && wc.wr_id == 91 &&
          wc.status == QRNIC_WC_WR_FLUSH_ERR, "the next WQE is flushed");
    CHECK_EQ(nodes[0].d.e.stats.v[QRNIC_STAT_ACK_TIMEOUTS], 8,
             "eight retransmission timeouts counted");
    wire.cut = false;
}

static void test_recv_too_small(void)
{
    struct hsge r;
    struct hwr wr;
    struct hwc wc;
    bool got;

    fresh(14, 7, 7);
    r.addr = p.mr[1]->iova;
    r.len = 100;
    r.lkey = p.mr[1]->key;
    qp_post_recv(p.qp[1], 0xa1, &r, 1, true);
    wr = mkwr(0xa0, QRNIC_WR_SEND, p.mr[0]->iova, 3000, p.mr[0]->key);
    qp_post_send(p.qp[0], &wr, true);
    harness_run(now_ns + SEC);
    got = cq_poll(p.cq[1], &wc);
    CHECK(got && wc.wr_id == 0xa1 && wc.status == QRNIC_WC_LOC_LEN_ERR &&
          wc.vendor_err == QRNIC_VERR_MSG_TOO_LONG,
          "SEND larger than the receive: LOC_LEN_ERR on the responder, "
          "vendor_err MSG_TOO_LONG (%u)", wc.vendor_err);
    got = cq_poll(p.cq[0], &wc);
    CHECK(got && wc.wr_id == 0xa0 && wc.status == QRNIC_WC_REM_INV_REQ_ERR,
          "... and REM_INV_REQ_ERR on the requester");

    /* A receive whose SGE has a bad lkey: remote operational error. */
    fresh(14, 7, 7);
    r.lkey ^= 0x100;
    qp_post_recv(p.qp[1], 0xa3, &r, 1, true);
    wr = mkwr(0xa2, QRNIC_WR_SEND, p.mr[0]->iova, 10, p.mr[0]->key);
    qp_post_send(p.qp[0], &wr, true);
    harness_run(now_ns + SEC);
    CHECK(cq_poll(p.cq[1], &wc) && wc.wr_id == 0xa3 &&
          wc.status == QRNIC_WC_LOC_PROT_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_LKEY && cq_poll(p.cq[0], &wc) &&
          wc.wr_id == 0xa2 && wc.status == QRNIC_WC_REM_OP_ERR,
          "receive with a bad lkey: LOC_PROT_ERR (vendor_err BAD_LKEY) "
          "there, REM_OP_ERR here");
}

static void test_atomic_misaligned(void)
{
    struct hwr wr;
    struct hwc wc;

    fresh(14, 7, 7);
    wr = mkwr(0xb0, QRNIC_WR_ATOMIC_FETCH_AND_ADD, p.mr[0]->iova, 8,
              p.mr[0]->key);
    wr.remote_addr = ((p.mr[1]->iova + 64) & ~7ull) + 4;
    wr.rkey = p.mr[1]->key;
    qp_post_send(p.qp[0], &wr, true);
    harness_run(now_ns + SEC);
    CHECK(cq_poll(p.cq[0], &wc) && wc.status == QRNIC_WC_REM_INV_REQ_ERR,
          "atomic on a misaligned address -> REM_INV_REQ_ERR");
}

static void test_state_machine(void)
{
    struct hqp *q;
    struct qrnic_qp_attr a;
    struct hwc wc;
    int i, flushed = 0;

    fresh(14, 7, 7);
    q = node_create_qp(&nodes[0], p.cq[0], p.cq[0], 3, 7, 3, 5);
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_RTS;
    CHECK_EQ(qp_modify(q, A(STATE), &a), QRNIC_ST_BAD_STATE,
             "RESET -> RTS refused (BAD_STATE)");
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    CHECK_EQ(qp_modify(q, A(STATE) | A(PORT), &a), QRNIC_ST_BAD_PARAM,
             "RESET -> INIT without PKEY_INDEX/ACCESS_FLAGS refused");
    CHECK_EQ(qp_modify(q, A(STATE) | A(PORT) | A(PKEY_INDEX) |
                       A(ACCESS_FLAGS) | A(SQ_PSN), &a), QRNIC_ST_BAD_PARAM,
             "RESET -> INIT with an attribute it does not take refused");
    a.port_num = 2;
    CHECK_EQ(qp_modify(q, A(STATE) | A(PORT) | A(PKEY_INDEX) |
                       A(ACCESS_FLAGS), &a), QRNIC_ST_BAD_PARAM,
             "port 2 refused");
    a.port_num = 1;
    CHECK_EQ(qp_modify(q, A(STATE) | A(PORT) | A(PKEY_INDEX) |
                       A(ACCESS_FLAGS), &a), QRNIC_ST_OK, "RESET -> INIT");
    a.qp_state = QRNIC_QPS_RTR;
    a.path_mtu = 6;
    a.dest_qpn = p.qp[1]->qpn;
    memcpy(a.dgid, nodes[1].gid, 16);
    CHECK_EQ(qp_modify(q, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                       A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
                       &a), QRNIC_ST_BAD_PARAM, "path MTU 8192 refused");
    a.path_mtu = 3;
    a.sgid_index = 5;
    CHECK_EQ(qp_modify(q, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                       A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
                       &a), QRNIC_ST_BAD_PARAM, "an empty source GID slot refused");
    a.sgid_index = 0;
    a.cur_state = QRNIC_QPS_RTS;
    CHECK_EQ(qp_modify(q, A(STATE) | A(CUR_STATE) | A(AV) | A(PATH_MTU) |
                       A(DEST_QPN) | A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) |
                       A(MIN_RNR_TIMER), &a), QRNIC_ST_BAD_PARAM,
             "a wrong current state refused");
    CHECK_EQ(qp_modify(q, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                       A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER),
                       &a), QRNIC_ST_OK, "INIT -> RTR");
    a.qp_state = QRNIC_QPS_RTS;
    a.retry_cnt = 8;
    CHECK_EQ(qp_modify(q, A(STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) |
                       A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC), &a),
             QRNIC_ST_BAD_PARAM, "retry_cnt 8 refused");
    a.retry_cnt = 7;
    a.max_rd_atomic = QRNIC_MAX_RD_ATOMIC + 1;
    CHECK_EQ(qp_modify(q, A(STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) |
                       A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC), &a),
             QRNIC_ST_BAD_PARAM, "max_rd_atomic 129 refused");
    a.max_rd_atomic = 4;
    CHECK_EQ(qp_modify(q, A(STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) |
                       A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC), &a), QRNIC_ST_OK,
             "RTR -> RTS");
    CHECK(qp_query(q, &a) == QRNIC_ST_OK && a.qp_state == QRNIC_QPS_RTS &&
          a.path_mtu == 3 && a.retry_cnt == 7 && a.max_rd_atomic == 4 &&
          a.dest_qpn == p.qp[1]->qpn, "QUERY_QP reports the attributes");
    a.qp_state = QRNIC_QPS_SQD;
    CHECK_EQ(qp_modify(q, A(STATE), &a), QRNIC_ST_OK, "RTS -> SQD");
    CHECK(qp_query(q, &a) == QRNIC_ST_OK && a.qp_state == QRNIC_QPS_SQD &&
          !a.sq_draining, "SQD with nothing in flight is drained");
    a.qp_state = QRNIC_QPS_RTS;
    CHECK_EQ(qp_modify(q, A(STATE), &a), QRNIC_ST_OK, "SQD -> RTS");
    a.qp_state = QRNIC_QPS_INIT;
    CHECK_EQ(qp_modify(q, A(STATE), &a), QRNIC_ST_BAD_STATE,
             "RTS -> INIT refused (BAD_STATE)");

    /* Moving to ERR flushes every posted WQE of both queues, in order. */
    wire.cut = true;
    for (i = 0; i < 5; i++) {
        struct hwr wr = mkwr(0xc0 + i, QRNIC_WR_SEND, p.mr[0]->iova, 10,
                             p.mr[0]->key);
        struct hsge r = { p.mr[0]->iova, 10, p.mr[0]->key };

        qp_post_send(q, &wr, true);
        qp_post_recv(q, 0xd0 + i, &r, 1, true);
    }
    a.qp_state = QRNIC_QPS_ERR;
    CHECK_EQ(qp_modify(q, A(STATE), &a), QRNIC_ST_OK, "RTS -> ERR");
    harness_run(now_ns + SEC);
    while (cq_poll(p.cq[0], &wc)) {
        bool send = wc.flags & QRNIC_CQE_F_SEND;

        if (wc.status == QRNIC_WC_WR_FLUSH_ERR &&
            wc.wr_id == (send ? 0xc0u : 0xd0u) + (flushed % 5)) {
            flushed++;
        }
    }
    CHECK_EQ(flushed, 10, "ERR: 5 sends and 5 receives flushed in order");
    a.qp_state = QRNIC_QPS_RESET;
    CHECK(qp_modify(q, A(STATE), &a) == QRNIC_ST_OK &&
          qp_state(q) == QRNIC_QPS_RESET, "ERR -> RESET");
    wire.cut = false;
}

static void test_admin_checks(void)
{
    struct qrnic_cmd c;
    struct hmr *m;
    struct hqp *q;

    fresh(14, 7, 7);
    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_CREATE_QP;
    c.create_qp.pdn = nodes[0].pd;
    c.create_qp.send_cqn = p.cq[0]->cqn;
    c.create_qp.recv_cqn = p.cq[0]->cqn;
    c.create_qp.qp_type = QRNIC_QPT_RC;
    c.create_qp.log_sq_stride = 7;
    c.create_qp.log_rq_stride = 5;
    c.create_qp.sq_offset = p.qp[0]->sq_off;
    c.create_qp.rq_offset = QMEM_SIZE - 4096;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_QP on queue memory another QP owns: BAD_PARAM");
    c.create_qp.sq_offset = QMEM_SIZE - 8192;
    c.create_qp.rq_offset = QMEM_SIZE;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_QP past the end of queue memory: BAD_PARAM");
    c.create_qp.rq_offset = QMEM_SIZE - 4096 + 64;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_QP with an unaligned queue: BAD_PARAM");
    c.create_qp.rq_offset = QMEM_SIZE - 4096;
    c.create_qp.qp_type = 9;        /* IB_QPT_XRC_INI */
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_QP of a type other than RC, UC, UD, GSI (XRC): BAD_PARAM");
    c.create_qp.qp_type = 0xff;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_QP of an unknown type: BAD_PARAM");
    c.create_qp.qp_type = QRNIC_QPT_RC;
    c.create_qp.send_cqn = 999;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "CREATE_QP with no such CQ: BAD_HANDLE");

    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_DESTROY_CQ;
    c.destroy_cq.cqn = p.cq[0]->cqn;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_STATE,
             "DESTROY_CQ while a QP uses it: BAD_STATE");
    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_DEALLOC_PD;
    c.dealloc_pd.pdn = nodes[0].pd;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_STATE,
             "DEALLOC_PD while MRs and QPs use it: BAD_STATE");
    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_DESTROY_EQ;
    c.destroy_eq.eqn = nodes[0].ceq;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_STATE,
             "DESTROY_EQ while CQs report to it: BAD_STATE");

    m = node_mr(&nodes[0], 5000, QRNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(m->status, QRNIC_ST_BAD_PARAM,
             "REG_MR with remote write but no local write: BAD_PARAM");
    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_REG_MR;
    c.reg_mr.pdn = nodes[0].pd;
    c.reg_mr.access = QRNIC_ACCESS_LOCAL_WRITE;
    c.reg_mr.iova = 0x10000;
    c.reg_mr.length = 8192;
    c.reg_mr.pbl.npages = 2;
    c.reg_mr.pbl.page_shift = 12;
    c.reg_mr.pbl.levels = QRNIC_PBL_LEVEL1;
    c.reg_mr.pbl.addr = 0x10;       /* not guest memory */
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_DMA_ERROR,
             "REG_MR whose page list cannot be read: DMA_ERROR");
    c.reg_mr.pbl.npages = 3;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "REG_MR with more pages than the region needs: BAD_PARAM");
    c.reg_mr.pbl.npages = 2;
    c.reg_mr.pbl.addr = node_alloc(&nodes[0], 16, 8);
    memcpy(node_ptr(&nodes[0], c.reg_mr.pbl.addr), "\x08\x00\x00\x40\0\0\0\0",
           8);
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_BAD_PARAM,
             "REG_MR with a misaligned page address: BAD_PARAM");
    c.reg_mr.pbl.levels = QRNIC_PBL_PHYS;
    c.reg_mr.pbl.npages = 0;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_OK,
             "REG_MR of the DMA space itself for a kernel PD");

    /* A stale key: deregistered, the index reused with another tag. */
    {
        uint32_t old = p.mr[0]->key;
        struct hwr wr;
        struct hwc wc;

        CHECK_EQ(node_dereg_mr(p.mr[0]), QRNIC_ST_OK, "DEREG_MR");
        CHECK_EQ(node_dereg_mr(p.mr[0]), QRNIC_ST_BAD_HANDLE,
                 "DEREG_MR twice: BAD_HANDLE");
        m = node_mr(&nodes[0], 4096, QRNIC_ACCESS_LOCAL_WRITE);
        CHECK(m->status == QRNIC_ST_OK && m->key != old,
              "a new registration gets another key (0x%x, was 0x%x)",
              m->key, old);
        wr = mkwr(0xe0, QRNIC_WR_SEND, p.mr[0]->iova, 16, old);
        qp_post_send(p.qp[0], &wr, true);
        harness_run(now_ns + SEC);
        CHECK(cq_poll(p.cq[0], &wc) && wc.status == QRNIC_WC_LOC_PROT_ERR,
              "the old key no longer works: LOC_PROT_ERR");
    }

    /* Doorbells: another page, too far ahead, unknown QP. */
    {
        uint32_t bad = qf_reg_read(&nodes[1].d, QRNIC_REG_STAT_BAD_DB);

        q = p.qp[1];
        qf_doorbell(&nodes[1].d, 1, QRNIC_DB_SQ, q->qpn | 1ull << 32);
        qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SQ, q->qpn | 200ull << 32);
        qf_doorbell(&nodes[1].d, 0, QRNIC_DB_RQ, (q->qpn + 1) | 1ull << 32);
        CHECK_EQ(qf_reg_read(&nodes[1].d, QRNIC_REG_STAT_BAD_DB), bad + 3,
                 "doorbells on a foreign page, past the ring, or for no QP "
                 "are refused and counted");
    }
}

static void test_cq_events(void)
{
    struct hwc wc;
    uint32_t ev;

    fresh(14, 7, 7);
    cq_arm(p.cq[1], false);
    send_ok(1, 10);
    harness_run(now_ns + SEC);
    ev = node_cq_events(&nodes[1], p.cq[1]->cqn);
    CHECK_EQ(ev, 1, "armed CQ: one completion event for a receive");
    send_ok(2, 10);
    harness_run(now_ns + SEC);
    CHECK_EQ(node_cq_events(&nodes[1], p.cq[1]->cqn), 0,
             "not re-armed: no second event");
    cq_arm(p.cq[1], false);
    CHECK_EQ(node_cq_events(&nodes[1], p.cq[1]->cqn), 1,
             "arming with unread CQEs fires at once");
    while (cq_poll(p.cq[1], &wc)) {
        continue;
    }
    cq_arm(p.cq[1], true);
    send_ok(3, 10);
    harness_run(now_ns + SEC);
    CHECK_EQ(node_cq_events(&nodes[1], p.cq[1]->cqn), 0,
             "solicited-only arm: an unsolicited receive makes no event");
    {
        struct hsge r = { p.mr[1]->iova, 10, p.mr[1]->key };
        struct hwr wr = mkwr(4, QRNIC_WR_SEND, p.mr[0]->iova, 10,
                             p.mr[0]->key);

        wr.flags |= QRNIC_WQE_F_SOLICITED;
        qp_post_recv(p.qp[1], 5, &r, 1, true);
        qp_post_send(p.qp[0], &wr, true);
        harness_run(now_ns + SEC);
    }
    CHECK_EQ(node_cq_events(&nodes[1], p.cq[1]->cqn), 1,
             "solicited-only arm: a solicited receive makes one");
    CHECK(nodes[1].d.irqs[2] >= 3, "events raise the EQ's vector");
}

static void test_cq_overflow(void)
{
    struct hcq *small;
    struct hqp *a, *b;
    int i;

    fresh(14, 7, 7);
    small = node_create_cq(&nodes[0], 1);
    a = node_create_qp(&nodes[0], small, small, 3, 7, 3, 5);
    b = node_create_qp(&nodes[1], p.cq[1], p.cq[1], 3, 7, 3, 5);
    qp_connect(a, b, 3, 14, 7, 7, 1);
    qp_connect(b, a, 3, 14, 7, 7, 1);
    for (i = 0; i < 4; i++) {
        struct hwr wr = mkwr(i, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova, 10,
                             p.mr[0]->key);

        wr.remote_addr = p.mr[1]->iova;
        wr.rkey = p.mr[1]->key;
        qp_post_send(a, &wr, true);
    }
    harness_run(now_ns + SEC);
    CHECK(nodes[0].d.e.stats.v[QRNIC_STAT_CQ_OVERFLOWS] == 2,
          "a 2-entry CQ given 4 completions: 2 dropped and counted");
}

/* Garbage WQEs and mangled frames: no crash, and the engine goes on. */
static void test_garbage(void)
{
    uint64_t seed = 0x1234567;
    int i, k;

    fresh(10, 7, 7);
    for (i = 0; i < 300; i++) {
        uint8_t *slot = nodes[0].d.qmem + p.qp[0]->sq_off +
                        (p.qp[0]->sq_pi & 127) * 512u;

        for (k = 0; k < 512; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            slot[k] = (uint8_t)(seed >> 56);
        }
        p.qp[0]->sq_pi++;
        qp_ring_sq(p.qp[0]);
        harness_run(now_ns + 10 * MS);
        if (qp_state(p.qp[0]) != QRNIC_QPS_RTS) {
            fresh(10, 7, 7);
        }
    }
    CHECK(1, "300 random WQEs: every one completed or refused, no crash");

    /* Valid frames with random bytes changed, ICRC recomputed. */
    fresh(10, 7, 7);
    for (i = 0; i < 2000; i++) {
        uint8_t f[1200];
        struct qrnic_roce_pkt pkt;
        size_t len;

        send_ok((uint64_t)i, (uint32_t)(i % 1000));
        harness_run(now_ns + 10 * MS);
        /* The last frame node 0 sent, mangled, is replayed to node 1. */
        len = wire.q[(wire.head + MAX_FRAMES - 1) % MAX_FRAMES].len;
        if (len < 60 || len > sizeof(f)) {
            continue;
        }
        memcpy(f, wire.q[(wire.head + MAX_FRAMES - 1) % MAX_FRAMES].data,
               len);
        for (k = 0; k < 3; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            f[34 + (seed >> 33) % (len - 38)] ^= (uint8_t)(seed >> 24);
        }
        if (qrnic_roce_parse(f, len, &pkt)) {
            qrnic_st32(f + pkt.end - 4, qrnic_icrc_compute(f, &pkt));
        }
        qf_receive(&nodes[i & 1].d, f, len);
        harness_run(now_ns + 10 * MS);
        {
            struct hwc wc;

            while (cq_poll(p.cq[0], &wc) || cq_poll(p.cq[1], &wc)) {
                continue;
            }
        }
        if (qp_state(p.qp[0]) != QRNIC_QPS_RTS ||
            qp_state(p.qp[1]) != QRNIC_QPS_RTS) {
            fresh(10, 7, 7);
        }
    }
    CHECK(others_still_work(),
          "2000 mangled frames with valid ICRC: no crash, new QPs work");
}

int main(void)
{
    test_bad_lkey();
    test_bad_wqes();
    test_remote_access();
    test_rnr();
    test_peer_gone();
    test_recv_too_small();
    test_atomic_misaligned();
    test_state_machine();
    test_admin_checks();
    test_cq_events();
    test_cq_overflow();
    test_garbage();
    harness_fini();
    return TAP_DONE();
}
