/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared receive queues: two RC QPs and a UD QP receiving from one SRQ,
 * completions naming the QP and the SRQ slot, interleaved multi-packet
 * messages, RNR when the SRQ is empty, the limit event, a QP's error
 * flushing only the WQE it holds, and the commands' bad arguments.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MR_BYTES (512u << 10)
#define BUF 8192u
#define UD_INIT_MASK (QRNIC_QP_ATTR_STATE | QRNIC_QP_ATTR_PKEY_INDEX | \
                      QRNIC_QP_ATTR_PORT | QRNIC_QP_ATTR_QKEY)

static struct pair p;
static struct hsrq *srq;
static struct hqp *snd[2];      /* node 0 */
static struct hqp *rcv[2];      /* node 1, on the SRQ */

static uint8_t srq_cmd(uint8_t op, uint32_t srqn, uint32_t limit,
                       uint32_t *r0)
{
    struct qrnic_cmd c = harness_cmd(op);

    c.modify_srq.srqn = srqn;   /* srqn comes first in every SRQ command */
    if (op == QRNIC_CMD_MODIFY_SRQ) {
        c.modify_srq.limit = limit;
        c.modify_srq.mask = QRNIC_SRQ_MOD_LIMIT;
    }
    return node_cmd(&nodes[1], &c, r0);
}

static void srq_post(uint64_t wr_id, uint32_t slot_buf)
{
    struct hsge s = { p.mr[1]->iova + (uint64_t)slot_buf * BUF, BUF,
                      p.mr[1]->key };

    srq_post_recv(srq, wr_id, &s, 1, true);
}

static void send_from(int q, uint64_t wr_id, uint32_t len, uint32_t seed)
{
    uint64_t off = (uint64_t)(q * 16 + (wr_id % 16)) * BUF;
    struct hwr wr = mkwr(wr_id, QRNIC_WR_SEND, p.mr[0]->iova + off, len,
                         p.mr[0]->key);

    mr_fill(p.mr[0], p.mr[0]->iova + off, len, seed);
    qp_post_send(snd[q], &wr, true);
}

static void setup(uint64_t seed, uint8_t rnr_retry)
{
    uint8_t st;
    int i;

    pair_setup(&p, seed, 3, 10, 3, rnr_retry, 1, MR_BYTES);
    srq = node_create_srq(&nodes[1], 5, 5, 0, &st);
    for (i = 0; i < 2; i++) {
        snd[i] = node_create_qp(&nodes[0], p.cq[0], p.cq[0], 6, 7, 4, 5);
        rcv[i] = node_create_qp_srq(&nodes[1], QRNIC_QPT_RC, p.cq[1],
                                    p.cq[1], 6, 7, srq, &st);
        qp_connect(snd[i], rcv[i], 3, 10, 3, rnr_retry, 1);
        qp_connect(rcv[i], snd[i], 3, 10, 3, rnr_retry, 1);
    }
}

static void test_shared(void)
{
    struct hwc wc;
    int i, got = 0, byqp[2] = { 0, 0 }, slots_ok = 1;
    uint8_t st;

    setup(41, 7);
    CHECK(srq && rcv[0] && rcv[1], "CREATE_SRQ, two RC QPs on it");
    for (i = 0; i < 8; i++) {
        srq_post(100 + i, i);
    }
    /* Interleaved: 4 KiB messages (4 packets at MTU 1024) from both. */
    for (i = 0; i < 8; i++) {
        send_from(i % 2, i, 4096, 500 + i);
    }
    for (i = 0; i < 8; i++) {
        if (!harness_wait_cqe(p.cq[1], &wc, now_ns + 100 * MS)) {
            break;
        }
        if (wc.status == QRNIC_WC_SUCCESS && wc.byte_len == 4096 &&
            (wc.flags & QRNIC_CQE_F_SRQ) && wc.wr_id >= 100 &&
            wc.wr_id < 108) {
            int q = wc.qpn == rcv[0]->qpn ? 0 : wc.qpn == rcv[1]->qpn ? 1 : -1;

            if (q >= 0) {
                byqp[q]++;
                got++;
            }
            slots_ok &= wc.wqe_idx == wc.wr_id - 100;
        }
    }
    CHECK(got == 8 && byqp[0] == 4 && byqp[1] == 4,
          "8 messages of two QPs land in SRQ WQEs, each CQE names its QP "
          "(%d, %d) and has F_SRQ", byqp[0], byqp[1]);
    CHECK(slots_ok, "wqe_idx is the SRQ slot of the WQE");
    for (i = 0; i < 8 && harness_wait_cqe(p.cq[0], &wc, now_ns + 50 * MS) &&
                wc.status == QRNIC_WC_SUCCESS; i++) {
    }
    CHECK(i == 8, "the senders' 8 completions");

    /* Empty SRQ: RNR to the sender; a posted WQE lets it through. */
    send_from(0, 20, 100, 9);
    harness_run(now_ns + 5 * MS);
    CHECK(nodes[1].d.e.stats.v[QRNIC_STAT_RNR_NAKS_TX] >= 1 &&
          !cq_poll(p.cq[1], &wc),
          "a SEND to an empty SRQ gets an RNR NAK");
    srq_post(200, 0);
    CHECK(harness_wait_cqe(p.cq[1], &wc, now_ns + 100 * MS) &&
          wc.wr_id == 200 && wc.status == QRNIC_WC_SUCCESS &&
          !mr_verify(p.mr[1], p.mr[1]->iova, 100, 9),
          "after a WQE is posted the resent SEND lands in it");
    harness_wait_cqe(p.cq[0], &wc, now_ns + 50 * MS);

    CHECK_EQ(srq_cmd(QRNIC_CMD_DESTROY_SRQ, srq->srqn, 0, NULL),
             QRNIC_ST_BAD_STATE, "DESTROY_SRQ while QPs use it: BAD_STATE");
    (void)st;
}

static void test_limit(void)
{
    struct hwc wc;
    uint32_t limit = 99;
    int i;

    setup(42, 7);
    for (i = 0; i < 6; i++) {
        srq_post(300 + i, i);
    }
    CHECK_EQ(srq_cmd(QRNIC_CMD_MODIFY_SRQ, srq->srqn, 4, NULL), QRNIC_ST_OK,
             "MODIFY_SRQ arms limit 4 (6 posted)");
    node_async_events(&nodes[1], 0, 0);
    for (i = 0; i < 2; i++) {
        send_from(0, 30 + i, 64, 1);
        harness_wait_cqe(p.cq[1], &wc, now_ns + 50 * MS);
    }
    CHECK(node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 0 &&
          srq_cmd(QRNIC_CMD_QUERY_SRQ, srq->srqn, 0, &limit) == QRNIC_ST_OK &&
          limit == 4, "4 left: not below the limit, no event, still armed");
    send_from(1, 40, 64, 1);
    harness_wait_cqe(p.cq[1], &wc, now_ns + 50 * MS);
    CHECK(node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 1 &&
          srq_cmd(QRNIC_CMD_QUERY_SRQ, srq->srqn, 0, &limit) == QRNIC_ST_OK &&
          limit == 0, "3 left: one SRQ_LIMIT event, the limit disarmed");
    send_from(1, 41, 64, 1);
    harness_wait_cqe(p.cq[1], &wc, now_ns + 50 * MS);
    CHECK(node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 0,
          "no second event until armed again");
    CHECK_EQ(srq_cmd(QRNIC_CMD_MODIFY_SRQ, srq->srqn, 32, NULL),
             QRNIC_ST_BAD_PARAM, "MODIFY_SRQ with a limit >= depth: BAD_PARAM");
}

static void test_error_flush(void)
{
    struct qrnic_qp_attr a;
    struct hwc wc;
    int i, flushed = 0, other = 0;

    setup(43, 7);
    for (i = 0; i < 4; i++) {
        srq_post(400 + i, i);
    }
    /* QP 0's message is cut after its first packet, then QP 0 fails. */
    send_from(0, 50, 4096, 3);
    qf_run_bh(&nodes[0].d);
    CHECK(harness_deliver_one(), "the first packet of a 4 KiB SEND arrives");
    wire.count = 0;             /* the rest is lost */
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_ERR;
    qp_modify(rcv[0], QRNIC_QP_ATTR_STATE, &a);
    harness_run(now_ns + 5 * MS);
    while (cq_poll(p.cq[1], &wc)) {
        if (wc.qpn == rcv[0]->qpn && wc.status == QRNIC_WC_WR_FLUSH_ERR &&
            wc.wr_id == 400 && (wc.flags & QRNIC_CQE_F_SRQ)) {
            flushed++;
        }
    }
    CHECK(flushed == 1, "the QP in error flushes the one SRQ WQE it held");
    send_from(1, 51, 256, 4);
    while (harness_wait_cqe(p.cq[1], &wc, now_ns + 50 * MS)) {
        if (wc.qpn == rcv[1]->qpn && wc.wr_id == 401 &&
            wc.status == QRNIC_WC_SUCCESS) {
            other++;
            break;
        }
    }
    CHECK(other == 1 && qp_state(rcv[1]) == QRNIC_QPS_RTS,
          "the other QP still receives into the SRQ's next WQE");
}

static void test_ud_on_srq(void)
{
    struct qrnic_qp_attr a;
    struct qrnic_ud_av av;
    struct hqp *u, *s;
    struct hwr wr;
    struct hwc wc;
    uint8_t st;

    setup(44, 7);
    u = node_create_qp_srq(&nodes[1], QRNIC_QPT_UD, p.cq[1], p.cq[1], 4, 7,
                           srq, &st);
    s = node_create_qp_type(&nodes[0], QRNIC_QPT_UD, p.cq[0], p.cq[0], 4, 7,
                            4, 5, &st);
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.qkey = 7;
    qp_modify(u, UD_INIT_MASK, &a);
    qp_modify(s, UD_INIT_MASK, &a);
    a.qp_state = QRNIC_QPS_RTR;
    qp_modify(u, 1, &a);
    qp_modify(s, 1, &a);
    a.qp_state = QRNIC_QPS_RTS;
    qp_modify(u, 1 | QRNIC_QP_ATTR_SQ_PSN, &a);
    qp_modify(s, 1 | QRNIC_QP_ATTR_SQ_PSN, &a);
    memset(&av, 0, sizeof(av));
    av.dest_qpn = u->qpn;
    av.qkey = 7;
    memcpy(av.dgid, nodes[1].gid, 16);
    memcpy(av.dmac, nodes[1].mac, 6);
    srq_post(600, 0);
    wr = mkwr(60, QRNIC_WR_SEND, p.mr[0]->iova, 300, p.mr[0]->key);
    wr.ud = &av;
    mr_fill(p.mr[0], p.mr[0]->iova, 300, 6);
    qp_post_send(s, &wr, true);
    CHECK(harness_wait_cqe(p.cq[1], &wc, now_ns + 50 * MS) &&
          wc.status == QRNIC_WC_SUCCESS && wc.qpn == u->qpn &&
          wc.src_qp == s->qpn && wc.wr_id == 600 &&
          (wc.flags & QRNIC_CQE_F_SRQ) && (wc.flags & QRNIC_CQE_F_GRH) &&
          !mr_verify(p.mr[1], p.mr[1]->iova + QRNIC_GRH_LEN, 300, 6),
          "a UD QP on the SRQ receives a datagram into it");
}

static void test_bad_args(void)
{
    struct qrnic_cmd c;
    uint8_t st;
    struct hsrq *x;
    struct hqp *q;
    uint64_t bad_db;

    setup(45, 7);
    x = node_create_srq(&nodes[1], 4, 5, 16, &st);
    CHECK(!x && st == QRNIC_ST_BAD_PARAM, "CREATE_SRQ limit >= depth: BAD_PARAM");
    x = node_create_srq(&nodes[1], 4, 3, 0, &st);
    CHECK(!x && st == QRNIC_ST_BAD_PARAM, "CREATE_SRQ stride below 16 B: BAD_PARAM");
    x = node_create_srq(&nodes[1], 15, 5, 0, &st);
    CHECK(!x && st == QRNIC_ST_BAD_PARAM, "CREATE_SRQ depth 1 << 15: BAD_PARAM");
    c = harness_cmd(QRNIC_CMD_CREATE_SRQ);
    c.create_srq.pdn = 999;
    c.create_srq.log_depth = 4;
    c.create_srq.log_stride = 5;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "CREATE_SRQ in no such PD: BAD_HANDLE");
    c.create_srq.pdn = nodes[1].pd;
    c.create_srq.offset = srq->off;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_SRQ on queue memory another SRQ owns: BAD_PARAM");
    c.create_srq.offset = rcv[0]->sq_off;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_SRQ on a QP's queue memory: BAD_PARAM");
    CHECK_EQ(srq_cmd(QRNIC_CMD_QUERY_SRQ, 77, 0, NULL), QRNIC_ST_BAD_HANDLE,
             "QUERY_SRQ of no SRQ: BAD_HANDLE");
    CHECK_EQ(srq_cmd(QRNIC_CMD_MODIFY_SRQ, 0, 0, NULL), QRNIC_ST_BAD_HANDLE,
             "MODIFY_SRQ of SRQ 0: BAD_HANDLE");

    c = harness_cmd(QRNIC_CMD_CREATE_QP);
    c.create_qp.pdn = nodes[1].pd;
    c.create_qp.send_cqn = p.cq[1]->cqn;
    c.create_qp.recv_cqn = p.cq[1]->cqn;
    c.create_qp.qp_type = QRNIC_QPT_RC;
    c.create_qp.log_sq_stride = 7;
    c.create_qp.log_rq_stride = 5;
    c.create_qp.sq_offset = QMEM_SIZE - 4096;
    c.create_qp.srqn = 55;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "CREATE_QP on no such SRQ: BAD_HANDLE");
    c.create_qp.srqn = srq->srqn;
    c.create_qp.log_rq_depth = 2;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "CREATE_QP with an SRQ and an RQ as well: BAD_PARAM");
    c.create_qp.log_rq_depth = 0;
    c.create_qp.qp_type = QRNIC_QPT_GSI;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "a GSI QP on an SRQ: BAD_PARAM");

    bad_db = nodes[1].d.e.stats.bad_db;
    qf_doorbell(&nodes[1].d, 0, QRNIC_DB_RQ, rcv[0]->qpn | 1ull << 32);
    qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SRQ, srq->srqn | 33ull << 32);
    qf_doorbell(&nodes[1].d, 1, QRNIC_DB_SRQ, srq->srqn | 1ull << 32);
    CHECK(nodes[1].d.e.stats.bad_db == bad_db + 3,
          "refused doorbells: RQ of a QP on an SRQ, SRQ past its depth, "
          "SRQ on another context's page");

    q = node_create_qp_srq(&nodes[1], QRNIC_QPT_RC, p.cq[1], p.cq[1], 4, 7,
                           srq, &st);
    CHECK(q != NULL, "a third QP on the SRQ");
    c = harness_cmd(QRNIC_CMD_DESTROY_QP);
    c.destroy_qp.qpn = q->qpn;
    node_cmd(&nodes[1], &c, NULL);
    c.destroy_qp.qpn = rcv[0]->qpn;
    node_cmd(&nodes[1], &c, NULL);
    c.destroy_qp.qpn = rcv[1]->qpn;
    node_cmd(&nodes[1], &c, NULL);
    CHECK_EQ(srq_cmd(QRNIC_CMD_DESTROY_SRQ, srq->srqn, 0, NULL), QRNIC_ST_OK,
             "DESTROY_SRQ once its QPs are gone");
    x = node_create_srq(&nodes[1], 4, 5, 0, &st);
    CHECK(x != NULL, "its queue memory and number can be used again");
}

/* RESET and DESTROY_QP also complete the SRQ WQE a QP holds. */
static void test_reset_destroy_flush(void)
{
    struct qrnic_qp_attr a;
    struct qrnic_cmd c;
    struct hwc wc;
    int k, flushed = 0;

    setup(46, 7);
    for (k = 0; k < 4; k++) {
        srq_post(700 + k, k);
    }
    for (k = 0; k < 2; k++) {
        send_from(k, 70 + k, 4096, 3);
        qf_run_bh(&nodes[0].d);
        harness_deliver_one();      /* the first packet: a WQE is taken */
        wire.count = 0;
    }
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_RESET;
    qp_modify(rcv[0], QRNIC_QP_ATTR_STATE, &a);
    c = harness_cmd(QRNIC_CMD_DESTROY_QP);
    c.destroy_qp.qpn = rcv[1]->qpn;
    node_cmd(&nodes[1], &c, NULL);
    while (cq_poll(p.cq[1], &wc)) {
        flushed += wc.status == QRNIC_WC_WR_FLUSH_ERR &&
                   (wc.flags & QRNIC_CQE_F_SRQ) &&
                   (wc.wr_id == 700 || wc.wr_id == 701);
    }
    CHECK(flushed == 2, "an RTS->RESET QP and a destroyed QP each complete "
          "the SRQ WQE they held with WR_FLUSH_ERR (%d)", flushed);
}

int main(void)
{
    test_shared();
    test_limit();
    test_error_flush();
    test_ud_on_srq();
    test_bad_args();
    test_reset_destroy_flush();
    harness_fini();
    return tap_failures ? 1 : 0;
}
