/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UD and GSI queue pairs on two engines back to back: datagrams with the
 * GRH in front, the sender's QPN and the IP version in the completion,
 * Q_Key checks, drops without a receive WQE, the size limit, bad address
 * vectors and opcodes, QP 1, the UD state machine, and loopback.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MR_BYTES (256u << 10)
#define QKEY 0x11223344u
#define A(x) QRNIC_QP_ATTR_##x

static struct pair p;

static uint64_t stat(int n, enum qrnic_stat s)
{
    return nodes[n].d.e.stats.v[s];
}

/* RESET -> INIT -> RTR -> RTS with a Q_Key (no PORT for the GSI QP). */
static struct hqp *ud_qp(int n, uint8_t type)
{
    uint8_t st;

    return node_create_qp_type(&nodes[n], type, p.cq[n], p.cq[n], 6, 7, 6,
                               5, &st);
}

/* A UD SEND of len bytes at off in node 0's MR. */
static void ud_send(struct hqp *qp, const struct qrnic_ud_av *av,
                    uint64_t wr_id, uint8_t opcode, uint64_t off, uint32_t len)
{
    struct hwr wr = mkwr(wr_id, opcode, p.mr[0]->iova + off, len,
                         p.mr[0]->key);

    wr.ud = av;
    wr.imm = 0xa1b2c3d4;
    qp_post_send(qp, &wr, true);
}

static void ud_recv(int n, struct hqp *qp, uint64_t wr_id, uint64_t off,
                    uint32_t len)
{
    struct hsge s = { p.mr[n]->iova + off, len, p.mr[n]->key };

    qp_post_recv(qp, wr_id, &s, 1, true);
}

/* The next completion of node n's CQ, or status 0xff if none came. */
static struct hwc next_wc(int n)
{
    struct hwc wc;

    if (!harness_wait_cqe(p.cq[n], &wc, now_ns + 50 * MS)) {
        memset(&wc, 0xff, sizeof(wc));
    }
    return wc;
}

static bool no_wc(int n)
{
    struct hwc wc;

    harness_run(now_ns + 20 * MS);
    return !cq_poll(p.cq[n], &wc);
}

static void test_datagrams(void)
{
    struct hqp *a, *b;
    struct qrnic_ud_av av;
    struct qrnic_qp_attr qa;
    struct hwc wc;
    const uint8_t *grh;
    uint64_t bad;
    int i, ok;

    pair_setup(&p, 31, 3, 10, 3, 0, 1, MR_BYTES);
    a = ud_qp(0, QRNIC_QPT_UD);
    b = ud_qp(1, QRNIC_QPT_UD);
    CHECK(a && b && a->qpn != QRNIC_GSI_QPN, "CREATE_QP UD on both nodes");
    CHECK(!qp_up_ud(a, QKEY, false) && !qp_up_ud(b, QKEY, false),
          "UD: RESET->INIT (PKEY_INDEX, PORT, QKEY) ->RTR ->RTS (SQ_PSN)");
    CHECK(qp_query(b, &qa) == QRNIC_ST_OK && qa.qkey == QKEY &&
          qa.qp_state == QRNIC_QPS_RTS, "QUERY_QP returns the Q_Key");

    av = node_av(1, b->qpn, QKEY);
    mr_fill(p.mr[0], p.mr[0]->iova, 1024, 5);
    ud_recv(1, b, 77, 0, 4096);
    ud_send(a, &av, 7, QRNIC_WR_SEND, 0, 1024);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 7 &&
          wc.opcode == QRNIC_CQE_OP_SEND && wc.byte_len == 1024,
          "UD SEND of 1024 bytes completes on the sender (status %u)",
          wc.status);
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 77 &&
          wc.opcode == QRNIC_CQE_OP_RECV &&
          wc.byte_len == QRNIC_GRH_LEN + 1024 && wc.qpn == b->qpn &&
          wc.src_qp == a->qpn,
          "receive: byte_len %u = 40 + 1024, qpn, src_qp %#x (want %#x)",
          wc.byte_len, wc.src_qp, a->qpn);
    CHECK(wc.flags == (QRNIC_CQE_F_GRH | QRNIC_CQE_F_IPV4),
          "receive: GRH and IPv4 flags (%#x)", wc.flags);
    bad = mr_verify(p.mr[1], p.mr[1]->iova + QRNIC_GRH_LEN, 1024, 5);
    CHECK(!bad, "the payload follows the 40-byte GRH, intact");
    grh = mr_at(p.mr[1], p.mr[1]->iova);
    CHECK(grh[20] == 0x45 && !memcmp(grh + 20 + 12, nodes[0].gid + 12, 4) &&
          !memcmp(grh + 20 + 16, nodes[1].gid + 12, 4) &&
          grh[20 + 9] == 17,
          "the GRH area holds the IPv4 header at offset 20 (source, "
          "destination, UDP)");

    /* SEND with immediate, solicited, inline. */
    {
        struct hwr wr;
        static const char msg[] = "inline datagram";

        memset(&wr, 0, sizeof(wr));
        wr.raw_num_sge = -1;
        wr.wr_id = 8;
        wr.opcode = QRNIC_WR_SEND_IMM;
        wr.flags = QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_INLINE |
                   QRNIC_WQE_F_SOLICITED;
        wr.imm = 0x01020304;
        wr.num_sge = 1;
        wr.sge[0].addr = (uint64_t)(uintptr_t)msg;
        wr.sge[0].len = sizeof(msg);
        wr.ud = &av;
        ud_recv(1, b, 78, 8192, 256);
        qp_post_send(a, &wr, true);
        wc = next_wc(0);
        CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 8,
              "inline SEND_WITH_IMM completes");
        wc = next_wc(1);
        CHECK(wc.status == QRNIC_WC_SUCCESS && wc.imm == 0x01020304 &&
              (wc.flags & QRNIC_CQE_F_IMM) &&
              (wc.flags & QRNIC_CQE_F_SOLICITED) &&
              wc.byte_len == QRNIC_GRH_LEN + sizeof(msg) &&
              !memcmp(mr_at(p.mr[1], p.mr[1]->iova + 8192 + QRNIC_GRH_LEN),
                      msg, sizeof(msg)),
              "received with immediate, solicited, inline data intact");
    }

    /* A burst: every datagram arrives, in order, intact. */
    for (i = 0; i < 40; i++) {
        ud_recv(1, b, 1000 + i, 16384 + i * 2048ull, 2048);
    }
    for (i = 0; i < 40; i++) {
        mr_fill(p.mr[0], p.mr[0]->iova + 65536 + i * 1024ull, 1000, 100 + i);
        ud_send(a, &av, 2000 + i, QRNIC_WR_SEND, 65536 + i * 1024ull, 1000);
    }
    ok = 0;
    for (i = 0; i < 40; i++) {
        wc = next_wc(1);
        if (wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 1000u + i &&
            !mr_verify(p.mr[1], p.mr[1]->iova + 16384 + i * 2048ull +
                       QRNIC_GRH_LEN, 1000, 100 + i)) {
            ok++;
        }
    }
    CHECK(ok == 40, "a burst of 40 datagrams: %d received in order, intact",
          ok);
    for (i = 0; i < 40 && next_wc(0).status == QRNIC_WC_SUCCESS; i++) {
    }
    CHECK(i == 40, "the burst's 40 send completions");
    CHECK(wire.bad_icrc == 0, "every frame on the wire has a valid ICRC");
}

static void test_drops(void)
{
    struct hqp *a, *b;
    struct qrnic_ud_av av;
    struct hwc wc;
    uint64_t qkey_err, no_rqe;

    pair_setup(&p, 32, 3, 10, 3, 0, 1, MR_BYTES);
    a = ud_qp(0, QRNIC_QPT_UD);
    b = ud_qp(1, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    qp_up_ud(b, QKEY, false);
    ud_recv(1, b, 1, 0, 4096);

    qkey_err = stat(1, QRNIC_STAT_RX_QKEY_ERR);
    av = node_av(1, b->qpn, QKEY + 1);
    ud_send(a, &av, 10, QRNIC_WR_SEND, 0, 64);
    CHECK(next_wc(0).status == QRNIC_WC_SUCCESS && no_wc(1) &&
          stat(1, QRNIC_STAT_RX_QKEY_ERR) == qkey_err + 1,
          "a datagram with the wrong Q_Key is dropped and counted");

    av = node_av(1, b->qpn, QRNIC_UD_QKEY_USE_QP);
    ud_send(a, &av, 11, QRNIC_WR_SEND, 0, 64);
    next_wc(0);
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 1,
          "a Q_Key with bit 31 set sends the QP's own Q_Key: received");

    no_rqe = stat(1, QRNIC_STAT_RX_UD_NO_RQE);
    av = node_av(1, b->qpn, QKEY);
    ud_send(a, &av, 12, QRNIC_WR_SEND, 0, 64);
    CHECK(next_wc(0).status == QRNIC_WC_SUCCESS && no_wc(1) &&
          stat(1, QRNIC_STAT_RX_UD_NO_RQE) == no_rqe + 1 &&
          qp_state(b) == QRNIC_QPS_RTS,
          "with no receive WQE the datagram is dropped, counted, QP stays "
          "in RTS");
    ud_recv(1, b, 2, 0, 4096);
    ud_send(a, &av, 13, QRNIC_WR_SEND, 0, 64);
    next_wc(0);
    CHECK(next_wc(1).wr_id == 2, "the next datagram is received");

    /* To a QP number nobody has, to an RC QP: dropped as bad packets. */
    {
        uint64_t bad = stat(1, QRNIC_STAT_RX_BAD_PKT);

        av = node_av(1, p.qp[1]->qpn, QKEY);
        ud_send(a, &av, 14, QRNIC_WR_SEND, 0, 64);
        av = node_av(1, 0x7ffff0, QKEY);
        ud_send(a, &av, 15, QRNIC_WR_SEND, 0, 64);
        next_wc(0);
        next_wc(0);
        harness_run(now_ns + 20 * MS);
        CHECK(stat(1, QRNIC_STAT_RX_BAD_PKT) == bad + 2 &&
              qp_state(p.qp[1]) == QRNIC_QPS_RTS,
              "datagrams to an RC QP and to no QP: dropped as bad packets, "
              "the RC QP unaffected");
    }

    /* A receive buffer too small for GRH + payload: LOC_LEN_ERR. */
    ud_recv(1, b, 3, 0, QRNIC_GRH_LEN + 63);
    av = node_av(1, b->qpn, QKEY);
    ud_send(a, &av, 16, QRNIC_WR_SEND, 0, 64);
    next_wc(0);
    wc = next_wc(1);
    CHECK(wc.wr_id == 3 && wc.status == QRNIC_WC_LOC_LEN_ERR &&
          qp_state(b) == QRNIC_QPS_ERR,
          "a receive WQE without room for the GRH and payload: LOC_LEN_ERR, "
          "QP in error (status %u)", wc.status);
}

static void test_bad_wqes(void)
{
    struct hqp *a, *b;
    struct qrnic_ud_av av;
    struct hwc wc;
    uint32_t mtu;

    pair_setup(&p, 33, 3, 10, 3, 0, 1, MR_BYTES);
    b = ud_qp(1, QRNIC_QPT_UD);
    qp_up_ud(b, QKEY, false);

    mtu = qrnic_ud_mtu(&nodes[0].d.e);
    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    av = node_av(1, b->qpn, QKEY);
    ud_send(a, &av, 20, QRNIC_WR_SEND, 0, mtu + 1);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_LOC_LEN_ERR &&
          wc.vendor_err == QRNIC_VERR_MSG_TOO_LONG &&
          qp_state(a) == QRNIC_QPS_ERR,
          "a datagram longer than the UD MTU (%u): LOC_LEN_ERR, QP in error",
          mtu);

    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    ud_send(a, &av, 21, QRNIC_WR_RDMA_WRITE, 0, 64);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_OPCODE,
          "RDMA WRITE on a UD QP: LOC_QP_OP_ERR");

    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    av.sgid_index = 7;              /* no such GID */
    ud_send(a, &av, 22, QRNIC_WR_SEND, 0, 64);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_AV,
          "an address vector with an invalid GID index: LOC_QP_OP_ERR, "
          "BAD_AV");

    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    av = node_av(1, b->qpn, QKEY);
    av.dgid[10] = 0x12;             /* IPv6 destination from an IPv4 GID */
    ud_send(a, &av, 23, QRNIC_WR_SEND, 0, 64);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_AV,
          "an address vector mixing IPv4 and IPv6: BAD_AV");

    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    av = node_av(1, b->qpn, QKEY);
    ud_send(a, &av, 24, QRNIC_WR_SEND, 0, 64);
    p.mr[0]->key ^= 0x55;
    ud_send(a, &av, 25, QRNIC_WR_SEND, 0, 64);
    p.mr[0]->key ^= 0x55;
    CHECK(next_wc(0).status == QRNIC_WC_SUCCESS &&
          (wc = next_wc(0)).status == QRNIC_WC_LOC_PROT_ERR &&
          wc.wr_id == 25, "a bad lkey after a good WQE: success, then "
          "LOC_PROT_ERR");
    wc = next_wc(0);
    CHECK(qp_state(a) == QRNIC_QPS_ERR, "the QP is in error after it");
    (void)wc;
}

static void test_state_machine(void)
{
    struct qrnic_qp_attr a;
    struct hqp *qp;

    pair_setup(&p, 34, 3, 10, 3, 0, 1, MR_BYTES);
    qp = ud_qp(0, QRNIC_QPT_UD);
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    CHECK_EQ(qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT), &a),
             QRNIC_ST_BAD_PARAM, "UD RESET->INIT without QKEY: BAD_PARAM");
    CHECK_EQ(qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(QKEY) |
                       A(ACCESS_FLAGS), &a),
             QRNIC_ST_BAD_PARAM, "UD RESET->INIT with ACCESS_FLAGS: BAD_PARAM");
    CHECK_EQ(qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(QKEY), &a),
             QRNIC_ST_OK, "UD RESET->INIT");
    a.qp_state = QRNIC_QPS_RTR;
    CHECK_EQ(qp_modify(qp, A(STATE) | A(AV) | A(PATH_MTU), &a),
             QRNIC_ST_BAD_PARAM, "UD INIT->RTR with an AV: BAD_PARAM");
    CHECK_EQ(qp_modify(qp, A(STATE) | A(QKEY), &a), QRNIC_ST_OK,
             "UD INIT->RTR (QKEY optional)");
    a.qp_state = QRNIC_QPS_RTS;
    CHECK_EQ(qp_modify(qp, A(STATE), &a), QRNIC_ST_BAD_PARAM,
             "UD RTR->RTS without SQ_PSN: BAD_PARAM");
    CHECK_EQ(qp_modify(qp, A(STATE) | A(SQ_PSN) | A(RETRY_CNT), &a),
             QRNIC_ST_BAD_PARAM, "UD RTR->RTS with RETRY_CNT: BAD_PARAM");
    CHECK_EQ(qp_modify(qp, A(STATE) | A(SQ_PSN), &a), QRNIC_ST_OK,
             "UD RTR->RTS");
    a.qkey = 0x99;
    CHECK(qp_modify(qp, A(STATE) | A(QKEY), &a) == QRNIC_ST_OK &&
          qp_query(qp, &a) == QRNIC_ST_OK && a.qkey == 0x99,
          "UD RTS->RTS changes the Q_Key");
}

static void test_gsi(void)
{
    struct hqp *gsi, *again, *a;
    struct qrnic_ud_av av;
    struct qrnic_qp_attr at;
    struct hwc wc;
    uint8_t st;

    pair_setup(&p, 35, 3, 10, 3, 0, 1, MR_BYTES);
    gsi = ud_qp(1, QRNIC_QPT_GSI);
    CHECK(gsi && gsi->qpn == QRNIC_GSI_QPN, "CREATE_QP GSI gets QP 1");
    again = node_create_qp_type(&nodes[1], QRNIC_QPT_GSI, p.cq[1], p.cq[1],
                                4, 7, 4, 5, &st);
    CHECK(!again && st == QRNIC_ST_BAD_STATE,
          "a second GSI QP: BAD_STATE (%u)", st);
    memset(&at, 0, sizeof(at));
    at.qp_state = QRNIC_QPS_INIT;
    at.port_num = 1;
    at.qkey = 0x80010000u;
    CHECK_EQ(qp_modify(gsi, A(STATE) | A(PKEY_INDEX) | A(QKEY) | A(PORT), &at),
             QRNIC_ST_BAD_PARAM, "GSI RESET->INIT with PORT: BAD_PARAM");
    CHECK(!qp_up_ud(gsi, 0x80010000u, true),
          "GSI: RESET->INIT (PKEY_INDEX, QKEY) ->RTR ->RTS");

    /* QP 1's Q_Key is a controlled one: only a QP holding it sends it. */
    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    av = node_av(1, QRNIC_GSI_QPN, 0x80010000u);
    ud_send(a, &av, 29, QRNIC_WR_SEND, 0, 256);
    next_wc(0);
    CHECK(no_wc(1) && stat(1, QRNIC_STAT_RX_QKEY_ERR) == 1,
          "a QP without QP 1's Q_Key cannot send it (bit 31): dropped");
    a = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, 0x80010000u, false);
    ud_recv(1, gsi, 5, 0, QRNIC_GRH_LEN + 256);
    mr_fill(p.mr[0], p.mr[0]->iova, 256, 9);
    ud_send(a, &av, 30, QRNIC_WR_SEND, 0, 256);
    next_wc(0);
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.qpn == QRNIC_GSI_QPN &&
          wc.src_qp == a->qpn && wc.byte_len == QRNIC_GRH_LEN + 256 &&
          !mr_verify(p.mr[1], p.mr[1]->iova + QRNIC_GRH_LEN, 256, 9),
          "a 256-byte MAD to QP 1 reaches the GSI QP, src_qp in the CQE");

    /* QP 1 answers from QP 1. */
    {
        struct hqp *r = ud_qp(0, QRNIC_QPT_UD);
        struct qrnic_ud_av back = node_av(0, r->qpn, QKEY);
        struct hwr wr = mkwr(31, QRNIC_WR_SEND, p.mr[1]->iova, 256,
                             p.mr[1]->key);

        qp_up_ud(r, QKEY, false);
        ud_recv(0, r, 6, 4096, QRNIC_GRH_LEN + 256);
        wr.ud = &back;
        qp_post_send(gsi, &wr, true);
        CHECK(next_wc(1).status == QRNIC_WC_SUCCESS,
              "GSI send completes");
        wc = next_wc(0);
        CHECK(wc.status == QRNIC_WC_SUCCESS && wc.src_qp == QRNIC_GSI_QPN,
              "its datagram comes from QP 1");
    }
    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_QP);

        c.destroy_qp.qpn = QRNIC_GSI_QPN;
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
                 "DESTROY_QP of QP 1");
        gsi = ud_qp(1, QRNIC_QPT_GSI);
        CHECK(gsi && gsi->qpn == QRNIC_GSI_QPN,
              "and a new GSI QP is QP 1 again");
    }
}

/* Datagrams rung before DESTROY_QP still go out. */
static void test_destroy_sends(void)
{
    struct qrnic_ud_av av;
    struct qrnic_cmd c;
    struct hqp *a, *b;
    struct hwc wc;
    int i, got = 0;

    pair_setup(&p, 38, 3, 10, 3, 0, 1, MR_BYTES);
    a = ud_qp(0, QRNIC_QPT_UD);
    b = ud_qp(1, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    qp_up_ud(b, QKEY, false);
    av = node_av(1, b->qpn, QKEY);
    for (i = 0; i < 20; i++) {
        ud_recv(1, b, 900 + i, i * 2048ull, 2048);
    }
    for (i = 0; i < 20; i++) {
        struct hwr wr = mkwr(800 + i, QRNIC_WR_SEND, p.mr[0]->iova, 100,
                             p.mr[0]->key);

        wr.ud = &av;
        wr.flags = 0;               /* unsignalled, as mckey posts them */
        qp_post_send(a, &wr, true);
    }
    c = harness_cmd(QRNIC_CMD_DESTROY_QP);
    c.destroy_qp.qpn = a->qpn;
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_OK,
             "DESTROY_QP right after 20 UD sends were rung");
    harness_run(now_ns + 20 * MS);
    while (cq_poll(p.cq[1], &wc)) {
        got += wc.status == QRNIC_WC_SUCCESS;
    }
    CHECK(got == 20, "all 20 datagrams reached the peer (%d)", got);
}

static void test_loopback(void)
{
    struct hqp *a, *b;
    struct qrnic_ud_av av;
    struct hwc wc;
    int got = 0, i;

    pair_setup(&p, 36, 3, 10, 3, 0, 1, MR_BYTES);
    a = ud_qp(0, QRNIC_QPT_UD);
    b = ud_qp(0, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    qp_up_ud(b, QKEY, false);
    av = node_av(0, b->qpn, QKEY);
    mr_fill(p.mr[0], p.mr[0]->iova, 512, 3);
    ud_recv(0, b, 40, 8192, 1024);
    ud_send(a, &av, 41, QRNIC_WR_SEND, 0, 512);
    for (i = 0; i < 2; i++) {
        wc = next_wc(0);
        if (wc.status == QRNIC_WC_SUCCESS &&
            ((wc.wr_id == 41 && wc.opcode == QRNIC_CQE_OP_SEND) ||
             (wc.wr_id == 40 && wc.src_qp == a->qpn &&
              !mr_verify(p.mr[0], p.mr[0]->iova + 8192 + QRNIC_GRH_LEN,
                         512, 3)))) {
            got++;
        }
    }
    CHECK(got == 2 && wire.sent == 0,
          "loopback: a datagram to our own GID reaches our other QP without "
          "the wire");
}

static uint8_t mcast_cmd(int n, uint8_t op, uint32_t qpn, const uint8_t *gid)
{
    struct qrnic_cmd c = harness_cmd(op);

    c.mcast.qpn = qpn;
    memcpy(c.mcast.gid, gid, 16);
    return node_cmd(&nodes[n], &c, NULL);
}

static void test_multicast(void)
{
    static const uint8_t group[16] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3
    };
    struct hqp *a, *m0, *m1, *m2, *many[QRNIC_MAX_MCAST_QPS];
    struct qrnic_ud_av av;
    struct hwc wc;
    uint32_t got1 = 0, got0 = 0;
    int i;

    pair_setup(&p, 37, 3, 10, 3, 0, 1, MR_BYTES);
    a = ud_qp(0, QRNIC_QPT_UD);
    m0 = ud_qp(0, QRNIC_QPT_UD);
    m1 = ud_qp(1, QRNIC_QPT_UD);
    m2 = ud_qp(1, QRNIC_QPT_UD);
    qp_up_ud(a, QKEY, false);
    qp_up_ud(m0, QKEY, false);
    qp_up_ud(m1, QKEY, false);
    qp_up_ud(m2, QKEY, false);
    CHECK(!mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, m1->qpn, group) &&
          !mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, m2->qpn, group) &&
          !mcast_cmd(0, QRNIC_CMD_ATTACH_MCAST, m0->qpn, group) &&
          !mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, m1->qpn, group),
          "ATTACH_MCAST: two QPs of node 1, one of node 0 (twice is fine)");
    CHECK_EQ(mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, p.qp[1]->qpn, group),
             QRNIC_ST_BAD_PARAM, "ATTACH_MCAST of an RC QP: BAD_PARAM");
    CHECK_EQ(mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, m1->qpn, nodes[1].gid),
             QRNIC_ST_BAD_PARAM, "ATTACH_MCAST to a unicast GID: BAD_PARAM");
    CHECK_EQ(mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, 0x777, group),
             QRNIC_ST_BAD_HANDLE, "ATTACH_MCAST of no QP: BAD_HANDLE");

    memset(&av, 0, sizeof(av));
    av.dest_qpn = QRNIC_MCAST_QPN;
    av.qkey = QKEY;
    memcpy(av.dgid, group, 16);
    av.dmac[0] = 0x01;
    av.dmac[2] = 0x5e;
    av.dmac[3] = 1;
    av.dmac[4] = 2;
    av.dmac[5] = 3;
    ud_recv(1, m1, 71, 0, 2048);
    ud_recv(1, m2, 72, 4096, 2048);
    ud_recv(0, m0, 70, 8192, 2048);
    mr_fill(p.mr[0], p.mr[0]->iova, 500, 11);
    ud_send(a, &av, 73, QRNIC_WR_SEND, 0, 500);
    harness_run(now_ns + 20 * MS);
    while (cq_poll(p.cq[1], &wc)) {
        got1 += wc.status == QRNIC_WC_SUCCESS && wc.src_qp == a->qpn &&
                wc.byte_len == QRNIC_GRH_LEN + 500 &&
                (wc.wr_id == 71 || wc.wr_id == 72);
    }
    while (cq_poll(p.cq[0], &wc)) {
        got0 += wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 70 &&
                wc.src_qp == a->qpn;
    }
    CHECK(got1 == 2 && got0 == 1 &&
          !mr_verify(p.mr[1], p.mr[1]->iova + 4096 + QRNIC_GRH_LEN, 500, 11),
          "one multicast datagram reaches both QPs of node 1 (%u) and, "
          "looped back, node 0's attached QP (%u)", got1, got0);

    CHECK(!mcast_cmd(1, QRNIC_CMD_DETACH_MCAST, m2->qpn, group),
          "DETACH_MCAST");
    CHECK_EQ(mcast_cmd(1, QRNIC_CMD_DETACH_MCAST, m2->qpn, group),
             QRNIC_ST_BAD_PARAM, "DETACH_MCAST when not attached: BAD_PARAM");
    ud_recv(1, m1, 74, 0, 2048);
    ud_recv(1, m2, 75, 4096, 2048);
    ud_send(a, &av, 76, QRNIC_WR_SEND, 0, 500);
    harness_run(now_ns + 20 * MS);
    got1 = 0;
    while (cq_poll(p.cq[1], &wc)) {
        got1 += wc.wr_id == 74 ? 1 : wc.wr_id == 75 ? 100 : 0;
    }
    CHECK(got1 == 1, "after it only the attached QP receives (%u)", got1);

    for (i = 0; i < QRNIC_MAX_MCAST_QPS; i++) {
        many[i] = ud_qp(1, QRNIC_QPT_UD);
    }
    for (i = 0; i < QRNIC_MAX_MCAST_QPS - 1; i++) {
        mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST, many[i]->qpn, group);
    }
    CHECK_EQ(mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST,
                       many[QRNIC_MAX_MCAST_QPS - 1]->qpn, group),
             QRNIC_ST_NO_RESOURCES, "a group holds %d QPs: the next one gets "
             "NO_RESOURCES", QRNIC_MAX_MCAST_QPS);
    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_QP);

        c.destroy_qp.qpn = m1->qpn;
        CHECK(node_cmd(&nodes[1], &c, NULL) == QRNIC_ST_OK &&
              !mcast_cmd(1, QRNIC_CMD_ATTACH_MCAST,
                         many[QRNIC_MAX_MCAST_QPS - 1]->qpn, group),
              "destroying an attached QP takes it out of its group");
    }
}

int main(void)
{
    test_datagrams();
    test_drops();
    test_bad_wqes();
    test_state_machine();
    test_gsi();
    test_loopback();
    test_destroy_sends();
    test_multicast();
    harness_fini();
    return tap_failures ? 1 : 0;
}
