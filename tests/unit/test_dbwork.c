/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A send queue doorbell does its QP's transmit work at once, inside the
 * doorbell write (qrnic_engine_db_write with db_work): the frames are on
 * the wire when the write returns and, if nothing is left, no work call
 * (bottom half) was asked for.  The work is bounded (QRNIC_DB_BUDGET
 * packets, the rest from the work call), a QP in ERR is flushed from the
 * work call only, a hub peer answering inside the doorbell's transmit is
 * held for the work call, and with db_work off a doorbell only records
 * the index, as before.
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

static bool bh(int n)
{
    return nodes[n].d.bh_scheduled;
}

static struct hwr write_wr(uint64_t wr_id, uint64_t off, uint32_t len)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova + off, len,
                         p.mr[0]->key);

    mr_fill(p.mr[0], p.mr[0]->iova + off, len, (uint32_t)wr_id);
    wr.remote_addr = p.mr[1]->iova + off;
    wr.rkey = p.mr[1]->key;
    return wr;
}

static bool completes(int n, uint64_t wr_id, uint8_t status)
{
    struct hwc wc;

    return harness_wait_cqe(p.cq[n], &wc, now_ns + 100 * MS) &&
           wc.wr_id == wr_id && wc.status == status;
}

/* 4 KiB at path MTU 1024: four packets, all sent by the doorbell. */
static void test_at_once(void)
{
    struct hsge s;
    struct hwr wr;
    uint64_t sent;

    CHECK(pair_setup(&p, 21, 3, 10, 3, 0, 1, MR_BYTES), "pair set up");
    CHECK(nodes[0].d.e.db_work, "doorbell work is on by default");
    harness_run(now_ns + 10 * MS);
    CHECK(!bh(0) && !bh(1), "idle: no work call pending");
    s.addr = p.mr[1]->iova;
    s.len = 8192;
    s.lkey = p.mr[1]->key;
    qp_post_recv(p.qp[1], 7, &s, 1, true);
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    wr = mkwr(8, QRNIC_WR_SEND, p.mr[0]->iova, 4096, p.mr[0]->key);
    mr_fill(p.mr[0], p.mr[0]->iova, 4096, 8);
    qp_post_send(p.qp[0], &wr, true);
    CHECK_EQ(wire.sent - sent, 4,
             "a 4 KiB SEND's four packets are on the wire when the "
             "doorbell write returns");
    CHECK(!bh(0), "nothing left: the doorbell asked for no work call");
    CHECK(completes(1, 7, QRNIC_WC_SUCCESS) && completes(0, 8, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 4096, 8),
          "both completions, the data intact");

    /* A WRITE larger than the budget: the rest comes from the work call. */
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    wr = write_wr(9, 0, 64 * 1024);
    qp_post_send(p.qp[0], &wr, true);
    CHECK(wire.sent - sent >= 1 && wire.sent - sent <= QRNIC_DB_BUDGET,
          "a 64-packet WRITE: the doorbell sent %llu packets (at most %u)",
          (unsigned long long)(wire.sent - sent), QRNIC_DB_BUDGET);
    CHECK(completes(0, 9, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 64 * 1024, 9),
          "the rest follows; the WRITE completes, the data intact");
    harness_fini();
}

/* UC has no window: only the budget bounds a doorbell's work. */
static void test_budget(void)
{
    struct hqp *uc[2];
    struct qrnic_qp_attr a;
    uint8_t st;
    uint64_t sent;
    int i, n = 40;

    CHECK(pair_setup(&p, 22, 3, 10, 3, 0, 1, MR_BYTES), "UC: pair set up");
    for (i = 0; i < 2; i++) {
        uc[i] = node_create_qp_type(&nodes[i], QRNIC_QPT_UC, p.cq[i], p.cq[i],
                                    6, 7, 6, 5, &st);
    }
    for (i = 0; i < 2 && uc[0] && uc[1]; i++) {
        struct hqp *qp = uc[i], *peer = uc[1 - i];

        memset(&a, 0, sizeof(a));
        a.qp_state = QRNIC_QPS_INIT;
        a.port_num = 1;
        a.access_flags = QRNIC_ACCESS_REMOTE_WRITE;
        st = qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT) |
                       A(ACCESS_FLAGS), &a);
        a.qp_state = QRNIC_QPS_RTR;
        a.path_mtu = 3;
        a.dest_qpn = peer->qpn;
        a.hop_limit = 64;
        memcpy(a.dgid, peer->n->gid, 16);
        memcpy(a.dmac, peer->n->mac, 6);
        st |= qp_modify(qp, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                        A(RQ_PSN), &a);
        a.qp_state = QRNIC_QPS_RTS;
        st |= qp_modify(qp, A(STATE) | A(SQ_PSN), &a);
        CHECK(!st, "UC QP %d to RTS", i);
    }
    if (!uc[0] || !uc[1]) {
        return;
    }
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    for (i = 0; i < n; i++) {
        struct hwr wr = write_wr(100 + i, (uint64_t)i * 64, 64);

        qp_post_send(uc[0], &wr, i == n - 1);
    }
    CHECK_EQ(wire.sent - sent, QRNIC_DB_BUDGET,
             "40 one-packet WRITEs under one doorbell: the doorbell sends "
             "QRNIC_DB_BUDGET of them");
    CHECK(bh(0), "and asks for a work call for the rest");
    qf_run_bh(&nodes[0].d);
    CHECK_EQ(wire.sent - sent, n, "the work call sends the other %d",
             n - QRNIC_DB_BUDGET);
    for (i = 0; i < n; i++) {
        if (!completes(0, 100 + i, QRNIC_WC_SUCCESS)) {
            break;
        }
    }
    CHECK_EQ(i, n, "all 40 complete in order");
    harness_run(now_ns + 10 * MS);
    for (i = 0; i < n; i++) {
        if (mr_verify(p.mr[1], p.mr[1]->iova + (uint64_t)i * 64, 64,
                      100 + i)) {
            break;
        }
    }
    CHECK_EQ(i, n, "all 40 arrived intact");
    harness_fini();
}

/* db_work off: the doorbell records the index, the work call sends. */
static void test_off(void)
{
    struct hwr wr;
    uint64_t sent;

    CHECK(pair_setup(&p, 23, 3, 10, 3, 0, 1, MR_BYTES), "off: pair set up");
    nodes[0].d.e.db_work = false;
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    wr = write_wr(1, 0, 4096);
    qp_post_send(p.qp[0], &wr, true);
    CHECK(wire.sent == sent && bh(0),
          "db_work off: nothing sent by the doorbell, a work call asked for");
    qf_run_bh(&nodes[0].d);
    CHECK_EQ(wire.sent - sent, 4, "the work call sends the four packets");
    CHECK(completes(0, 1, QRNIC_WC_SUCCESS), "the WRITE completes");
    harness_fini();
}

/* A QP in ERR: its flush is the work call's, not the doorbell's. */
static void test_err(void)
{
    struct qrnic_qp_attr a;
    struct hwr wr;
    struct hwc wc;
    int i;

    CHECK(pair_setup(&p, 24, 3, 10, 3, 0, 1, MR_BYTES), "err: pair set up");
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_ERR;
    CHECK(!qp_modify(p.qp[0], A(STATE), &a), "QP to ERR");
    harness_run(now_ns + 10 * MS);
    for (i = 0; i < 3; i++) {
        wr = write_wr(40 + i, 0, 100);
        qp_post_send(p.qp[0], &wr, i == 2);
    }
    CHECK(!cq_poll(p.cq[0], &wc) && bh(0),
          "SQ doorbell on a QP in ERR: no flush in the doorbell, a work "
          "call asked for");
    for (i = 0; i < 3; i++) {
        if (!completes(0, 40 + i, QRNIC_WC_WR_FLUSH_ERR)) {
            break;
        }
    }
    CHECK_EQ(i, 3, "the work call flushes the three WRs");
    harness_fini();
}

/*
 * Hub: the peer gets each frame inside our transmit and its ACK comes
 * straight back while the doorbell's work is running; it waits in the
 * backlog for the work call.
 */
static void test_hub(void)
{
    struct hwr wr;

    CHECK(pair_setup(&p, 25, 3, 10, 3, 0, 1, MR_BYTES), "hub: pair set up");
    harness_hub(true);
    harness_run(now_ns + 10 * MS);
    wr = write_wr(5, 0, 4096);
    qp_post_send(p.qp[0], &wr, true);
    CHECK(nodes[0].d.e.backlog_count >= 1 && bh(0),
          "hub: the ACK that came back inside the doorbell is held, a work "
          "call asked for");
    CHECK(completes(0, 5, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 4096, 5),
          "hub: the WRITE completes, the data intact");
    harness_hub(false);
    harness_fini();
}

int main(void)
{
    test_at_once();
    test_budget();
    test_off();
    test_err();
    test_hub();
    return tap_failures ? 1 : 0;
}
