/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A send queue doorbell whose new work is small does it at once, inside
 * the doorbell write (qrnic_engine_db_write, db_work packets at most):
 * the frames are on the wire when the write returns and no work call
 * (bottom half) was asked for.  Larger work, a QP still sending or
 * waiting for the window, and a QP in ERR (its flush) are left to the
 * work call; a hub peer answering inside the doorbell's transmit is held
 * for the work call; with db_work 0 a doorbell only records the index.
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

static void post_recv(int n, uint64_t wr_id, uint32_t len)
{
    struct hsge sg;

    sg.addr = p.mr[n]->iova;
    sg.len = len;
    sg.lkey = p.mr[n]->key;
    qp_post_recv(p.qp[n], wr_id, &sg, 1, true);
}

/* A SEND of len bytes from QP 0; the frames its doorbell write sent. */
static uint64_t send_from_doorbell(uint64_t wr_id, uint32_t len)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_SEND, p.mr[0]->iova, len,
                         p.mr[0]->key);
    uint64_t sent = wire.sent;

    mr_fill(p.mr[0], p.mr[0]->iova, len, (uint32_t)wr_id);
    qp_post_send(p.qp[0], &wr, true);
    return wire.sent - sent;
}

/* Path MTU 1024: a 1 KiB SEND is one packet, 4 KiB four. */
static void test_at_once(void)
{
    struct hwr wr;
    uint64_t sent;

    CHECK(pair_setup(&p, 21, 3, 10, 3, 0, 1, MR_BYTES), "pair set up");
    CHECK_EQ(nodes[0].d.e.db_work, QRNIC_DB_WORK_DEFAULT,
             "doorbell work: %u packet(s) by default", QRNIC_DB_WORK_DEFAULT);
    post_recv(1, 7, 8192);
    harness_run(now_ns + 10 * MS);
    CHECK(!bh(0) && !bh(1), "idle: no work call pending");
    CHECK_EQ(send_from_doorbell(8, 1000), 1,
             "a one-packet SEND is on the wire when the doorbell write "
             "returns");
    CHECK(!bh(0), "nothing left: the doorbell asked for no work call");
    CHECK(completes(1, 7, QRNIC_WC_SUCCESS) && completes(0, 8, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 1000, 8),
          "both completions, the data intact");

    /* Four packets, db_work 1: the work call sends them. */
    nodes[0].d.e.db_work = 1;
    post_recv(1, 9, 8192);
    harness_run(now_ns + 10 * MS);
    CHECK(send_from_doorbell(10, 4096) == 0 && bh(0),
          "db_work 1, a four-packet SEND: nothing sent by the doorbell, a "
          "work call asked for");
    CHECK(completes(1, 9, QRNIC_WC_SUCCESS) && completes(0, 10, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 4096, 10),
          "the work call sends it; both completions, the data intact");

    /* With db_work 4 the same SEND goes at once. */
    nodes[0].d.e.db_work = 4;
    post_recv(1, 11, 8192);
    harness_run(now_ns + 10 * MS);
    CHECK(send_from_doorbell(12, 4096) == 4 && !bh(0),
          "db_work 4: the four packets at once, no work call");
    CHECK(completes(1, 11, QRNIC_WC_SUCCESS) && completes(0, 12, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 4096, 12),
          "both completions, the data intact");

    /* Two WQEs of two packets each: four in all, at once. */
    post_recv(1, 13, 8192);
    post_recv(1, 14, 8192);
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    wr = mkwr(15, QRNIC_WR_SEND, p.mr[0]->iova, 2048, p.mr[0]->key);
    qp_post_send(p.qp[0], &wr, false);
    wr.wr_id = 16;
    qp_post_send(p.qp[0], &wr, true);
    CHECK(wire.sent - sent == 4 && !bh(0),
          "db_work 4: two two-packet SENDs under one doorbell at once");
    CHECK(completes(0, 15, QRNIC_WC_SUCCESS) && completes(0, 16, QRNIC_WC_SUCCESS),
          "both complete");

    /* Larger than QRNIC_DB_WORK_MAX whatever db_work says. */
    nodes[0].d.e.db_work = 1000;
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    wr = write_wr(17, 0, 64 * 1024);
    qp_post_send(p.qp[0], &wr, true);
    CHECK(wire.sent == sent && bh(0),
          "db_work 1000: a 64-packet WRITE is still the work call's "
          "(at most %u at once)", QRNIC_DB_WORK_MAX);
    CHECK(completes(0, 17, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 64 * 1024, 17),
          "the WRITE completes, the data intact");

    /* A QP still sending (64 packets, window 16) is left to the work call. */
    nodes[0].d.e.db_work = 16;
    harness_run(now_ns + 10 * MS);
    wr = write_wr(18, 0, 64 * 1024);
    qp_post_send(p.qp[0], &wr, true);
    qf_run_bh(&nodes[0].d);
    sent = wire.sent;
    wr = write_wr(19, 0, 100);
    qp_post_send(p.qp[0], &wr, true);
    CHECK(wire.sent == sent,
          "a one-packet WRITE behind a WRITE still in progress waits its "
          "turn");
    CHECK(completes(0, 18, QRNIC_WC_SUCCESS) && completes(0, 19, QRNIC_WC_SUCCESS),
          "both complete, in order");
    harness_fini();
}

/* UC has no window: only db_work bounds a doorbell's work. */
static void test_many(void)
{
    struct hqp *uc[2];
    struct qrnic_qp_attr a;
    uint8_t st;
    uint64_t sent;
    int i, n;

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
    nodes[0].d.e.db_work = QRNIC_DB_WORK_MAX;
    for (n = QRNIC_DB_WORK_MAX; n <= QRNIC_DB_WORK_MAX + 1; n++) {
        harness_run(now_ns + 10 * MS);
        sent = wire.sent;
        for (i = 0; i < n; i++) {
            struct hwr wr = write_wr(100 + i, (uint64_t)i * 64, 64);

            qp_post_send(uc[0], &wr, i == n - 1);
        }
        if (n == QRNIC_DB_WORK_MAX) {
            CHECK(wire.sent - sent == (uint64_t)n && !bh(0),
                  "%d one-packet WRITEs under one doorbell: all at once, no "
                  "work call", n);
        } else {
            CHECK(wire.sent == sent && bh(0),
                  "%d: more than db_work, all left to the work call", n);
        }
        for (i = 0; i < n; i++) {
            if (!completes(0, 100 + i, QRNIC_WC_SUCCESS)) {
                break;
            }
        }
        CHECK_EQ(i, n, "all %d complete in order", n);
        harness_run(now_ns + 10 * MS);
        for (i = 0; i < n; i++) {
            if (mr_verify(p.mr[1], p.mr[1]->iova + (uint64_t)i * 64, 64,
                          100 + i)) {
                break;
            }
        }
        CHECK_EQ(i, n, "all %d arrived intact", n);
    }
    harness_fini();
}

/* db_work 0: the doorbell records the index, the work call sends. */
static void test_off(void)
{
    struct hwr wr;
    uint64_t sent;

    CHECK(pair_setup(&p, 23, 3, 10, 3, 0, 1, MR_BYTES), "off: pair set up");
    nodes[0].d.e.db_work = 0;
    harness_run(now_ns + 10 * MS);
    sent = wire.sent;
    wr = write_wr(1, 0, 100);
    qp_post_send(p.qp[0], &wr, true);
    CHECK(wire.sent == sent && bh(0),
          "db_work 0: nothing sent by the doorbell, a work call asked for");
    qf_run_bh(&nodes[0].d);
    CHECK_EQ(wire.sent - sent, 1, "the work call sends the packet");
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
    nodes[0].d.e.db_work = 4;
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
    test_many();
    test_off();
    test_err();
    test_hub();
    return tap_failures ? 1 : 0;
}
