/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * UC queue pairs: SEND and RDMA WRITE (with immediate) over the wire with
 * UC opcodes and no acknowledgements; a lost packet drops its message
 * (the receive WQE serves the next one), nothing is resent; no receive
 * WQE or a remote access violation drops the message and the QP stays up;
 * READ and atomics are refused; UC and RC opcodes never cross.
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
#define A(x) QRNIC_QP_ATTR_##x

static struct pair p;
static struct hqp *uc[2];

static uint64_t stat(int n, enum qrnic_stat s)
{
    return nodes[n].d.e.stats.v[s];
}

static void setup(uint64_t seed)
{
    uint8_t st;
    int i;

    pair_setup(&p, seed, 3, 10, 3, 0, 1, MR_BYTES);
    for (i = 0; i < 2; i++) {
        uc[i] = node_create_qp_type(&nodes[i], QRNIC_QPT_UC, p.cq[i], p.cq[i],
                                    6, 7, 6, 5, &st);
    }
}

static void post_recv(uint64_t wr_id, uint64_t off, uint32_t len)
{
    struct hsge s = { p.mr[1]->iova + off, len, p.mr[1]->key };

    qp_post_recv(uc[1], wr_id, &s, 1, true);
}

static void post(uint64_t wr_id, uint8_t opcode, uint64_t off, uint32_t len,
                 uint32_t seed)
{
    struct hwr wr = mkwr(wr_id, opcode, p.mr[0]->iova + off, len,
                         p.mr[0]->key);

    mr_fill(p.mr[0], p.mr[0]->iova + off, len, seed);
    wr.remote_addr = p.mr[1]->iova + 128 * 1024 + off;
    wr.rkey = p.mr[1]->key;
    wr.imm = 0x55667788;
    qp_post_send(uc[0], &wr, true);
}

static struct hwc next_wc(int n)
{
    struct hwc wc;

    if (!harness_wait_cqe(p.cq[n], &wc, now_ns + 50 * MS)) {
        memset(&wc, 0xff, sizeof(wc));
    }
    return wc;
}

static void test_transfers(void)
{
    struct qrnic_qp_attr a;
    struct hwc wc;

    setup(51);
    CHECK(uc[0] && uc[1], "CREATE_QP UC on both nodes");
    CHECK(!qp_connect_uc(uc[0], uc[1]) && !qp_connect_uc(uc[1], uc[0]),
          "UC: RESET->INIT->RTR (AV, PATH_MTU, DEST_QPN, RQ_PSN)->RTS (SQ_PSN)");
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_RTS;
    a.timeout = 5;
    CHECK_EQ(qp_modify(uc[0], A(STATE) | A(TIMEOUT), &a), QRNIC_ST_BAD_PARAM,
             "UC has no TIMEOUT: BAD_PARAM");

    post_recv(1, 0, 8192);
    post(10, QRNIC_WR_SEND, 0, 5000, 1);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 10,
          "a 5000-byte SEND completes on the sender without an ACK");
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 1 &&
          wc.byte_len == 5000 && !mr_verify(p.mr[1], p.mr[1]->iova, 5000, 1),
          "received: 5000 bytes intact (5 packets, PSNs wrapping)");
    CHECK(stat(0, QRNIC_STAT_RX_ROCE_PKTS) == 0 &&
          stat(1, QRNIC_STAT_TX_ROCE_PKTS) == 0,
          "nothing came back: no ACKs on UC");

    post_recv(3, 0, 65536);
    post(14, QRNIC_WR_SEND, 0, 65536, 12);
    CHECK(next_wc(0).status == QRNIC_WC_SUCCESS &&
          (wc = next_wc(1)).wr_id == 3 && wc.byte_len == 65536 &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 65536, 12),
          "a 64 KiB SEND (64 packets, more than a window) completes and "
          "arrives intact");

    post(11, QRNIC_WR_RDMA_WRITE, 0, 3000, 2);
    wc = next_wc(0);
    harness_run(now_ns + 20 * MS);      /* done on the sender: on the wire */
    CHECK(wc.status == QRNIC_WC_SUCCESS &&
          !mr_verify(p.mr[1], p.mr[1]->iova + 128 * 1024, 3000, 2),
          "RDMA WRITE of 3000 bytes lands in the peer's memory");
    post_recv(2, 8192, 64);
    post(12, QRNIC_WR_RDMA_WRITE_IMM, 0, 2048, 3);
    next_wc(0);
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 2 &&
          wc.opcode == QRNIC_CQE_OP_RECV_RDMA_IMM && wc.imm == 0x55667788 &&
          wc.byte_len == 2048 &&
          !mr_verify(p.mr[1], p.mr[1]->iova + 128 * 1024, 2048, 3),
          "RDMA WRITE with immediate: data and the receive completion");

    post(13, QRNIC_WR_RDMA_READ, 0, 64, 4);
    wc = next_wc(0);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR && wc.wr_id == 13 &&
          qp_state(uc[0]) == QRNIC_QPS_ERR,
          "RDMA READ on a UC QP: LOC_QP_OP_ERR");
    CHECK(wire.bad_icrc == 0, "every UC frame has a valid ICRC");
}

static void test_loss(void)
{
    struct hwc wc;
    uint32_t i, n;

    setup(52);
    qp_connect_uc(uc[0], uc[1]);
    qp_connect_uc(uc[1], uc[0]);
    post_recv(1, 0, 8192);
    post(20, QRNIC_WR_SEND, 0, 4096, 5);
    qf_run_bh(&nodes[0].d);
    n = wire.count;
    for (i = 0; i < n; i++) {
        if (i == 1) {           /* the second packet is lost */
            wire.head = (wire.head + 1) % MAX_FRAMES;
            wire.count--;
            continue;
        }
        harness_deliver_one();
    }
    harness_run(now_ns + 20 * MS);
    CHECK(next_wc(0).status == QRNIC_WC_SUCCESS && !cq_poll(p.cq[1], &wc) &&
          stat(0, QRNIC_STAT_RETRANS_PKTS) == 0,
          "a SEND missing one of its %u packets: completed on the sender, "
          "dropped by the receiver, nothing resent", n);
    post(21, QRNIC_WR_SEND, 8192, 1500, 6);
    next_wc(0);
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 1 &&
          wc.byte_len == 1500 && !mr_verify(p.mr[1], p.mr[1]->iova, 1500, 6),
          "the next message lands in the same receive WQE");

    /* No receive WQE: the message is dropped, the QP stays up. */
    post(22, QRNIC_WR_SEND, 0, 100, 7);
    next_wc(0);
    harness_run(now_ns + 20 * MS);
    CHECK(!cq_poll(p.cq[1], &wc) && qp_state(uc[1]) == QRNIC_QPS_RTS &&
          stat(1, QRNIC_STAT_RNR_NAKS_TX) == 0,
          "a SEND with no receive WQE is dropped, no RNR NAK, QP in RTS");

    /* A bad rkey: the WRITE is dropped, the QP stays up. */
    {
        struct hwr wr = mkwr(23, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova, 100,
                             p.mr[0]->key);

        wr.remote_addr = p.mr[1]->iova;
        wr.rkey = p.mr[1]->key ^ 0x10;
        qp_post_send(uc[0], &wr, true);
        next_wc(0);
        harness_run(now_ns + 20 * MS);
        CHECK(qp_state(uc[1]) == QRNIC_QPS_RTS &&
              stat(1, QRNIC_STAT_REM_ACCESS_ERRS) == 1,
              "a WRITE with a bad rkey is dropped and counted, QP in RTS");
    }
    post_recv(2, 0, 8192);
    post(24, QRNIC_WR_SEND, 0, 700, 8);
    next_wc(0);
    wc = next_wc(1);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.wr_id == 2,
          "and the next SEND is received");
}

static void test_crossing(void)
{
    uint64_t bad;
    struct hqp *rc;

    setup(53);
    qp_connect_uc(uc[0], uc[1]);
    /* Node 1's RC QP believes node 0's UC QP is its peer. */
    rc = p.qp[1];
    {
        struct qrnic_qp_attr a;

        memset(&a, 0, sizeof(a));
        a.qp_state = QRNIC_QPS_RESET;
        qp_modify(rc, A(STATE), &a);
        qp_connect(rc, uc[0], 3, 10, 3, 0, 1);
    }
    /* uc[0] sends to rc's number: UC opcodes to an RC QP. */
    {
        struct qrnic_qp_attr a;

        memset(&a, 0, sizeof(a));
        a.qp_state = QRNIC_QPS_RESET;
        qp_modify(uc[0], A(STATE), &a);
        qp_connect_uc(uc[0], rc);
    }
    bad = stat(1, QRNIC_STAT_RX_BAD_PKT);
    post(30, QRNIC_WR_RDMA_WRITE, 0, 64, 9);
    next_wc(0);
    harness_run(now_ns + 20 * MS);
    CHECK(stat(1, QRNIC_STAT_RX_BAD_PKT) == bad + 1 &&
          qp_state(rc) == QRNIC_QPS_RTS,
          "UC opcodes to an RC QP are dropped as bad packets");
}

int main(void)
{
    test_transfers();
    test_loss();
    test_crossing();
    harness_fini();
    return tap_failures ? 1 : 0;
}
