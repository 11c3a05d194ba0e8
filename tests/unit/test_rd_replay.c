/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The responder's READ/atomic resources under duplicates (qrnic_resp.c,
 * rd_slot() and duplicate()), with one resource each way, the sequence
 * qperf's rc_fetch_add_mr met under TCG: the reply to atomic 1 is late,
 * the requester resends atomic 1, the late reply then completes it, and
 * the requester legally sends atomic 2 while the responder still holds
 * the replay of atomic 1.  Atomic 2 must execute (once) and complete, not
 * draw an invalid-request NAK; each atomic executes exactly once.  The
 * same for READs, and a requester that really exceeds its grant is still
 * refused.  Also: a flow label wider than 20 bits (UCX sets ~0 on RoCE) is
 * taken and masked on an RC path and in a UD address vector.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qrnic_le.h"
#include "qrnic_roce.h"
#include "qrnic_wire.h"
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define MS 1000000ull
#define ETH_IP (14 + 20)        /* IPv4-mapped GIDs: Ethernet, IPv4 */
#define BTH (ETH_IP + 8)
#define A(x) QRNIC_QP_ATTR_##x

static struct pair p;

static uint64_t dups(void)
{
    return nodes[1].d.e.stats.v[QRNIC_STAT_DUP_REQS];
}

static uint64_t value_at(uint64_t off)
{
    uint64_t v;

    memcpy(&v, mr_at(p.mr[1], p.mr[1]->iova + off), 8);
    return v;
}

/* Node 0 posts a fetch-and-add of add on node 1's word at off. */
static void post_fadd(uint64_t wr_id, uint64_t off, uint64_t add)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_ATOMIC_FETCH_AND_ADD,
                         p.mr[0]->iova + off, 8, p.mr[0]->key);

    wr.remote_addr = p.mr[1]->iova + off;
    wr.rkey = p.mr[1]->key;
    wr.compare_add = add;
    qp_post_send(p.qp[0], &wr, true);
}

/* Takes the only frame on the wire (it must go to node `to`). */
static bool take_frame(int to, struct frame *out)
{
    if (wire.count != 1 || wire.q[wire.head].to != to) {
        return false;
    }
    *out = wire.q[wire.head];
    wire.head = (wire.head + 1) % MAX_FRAMES;
    wire.count--;
    return true;
}

/*
 * The late reply: node 0 sends request 1 (first), node 1 answers; the
 * answer is held back.  The resend: node 1 takes request 1 again.  Then
 * the held answer reaches node 0, whose wr_id 1 must complete, and node 0
 * posts its next request (second), which reaches node 1 before node 1's
 * replay of request 1 went out.
 */
static bool late_reply_then_next(void (*first)(void), void (*second)(void))
{
    static struct frame reply[8];
    struct frame req;
    uint64_t d = dups();
    uint32_t i, n = 0;
    struct hwc wc;

    first();
    qf_run_bh(&nodes[0].d);
    if (!take_frame(1, &req)) {
        return false;
    }
    qf_receive(&nodes[1].d, req.data, req.len);
    qf_run_bh(&nodes[1].d);
    while (wire.count) {
        if (n < 8) {
            reply[n++] = wire.q[wire.head];
        }
        wire.head = (wire.head + 1) % MAX_FRAMES;
        wire.count--;
    }
    if (!n || cq_poll(p.cq[0], &wc)) {
        return false;
    }
    qf_receive(&nodes[1].d, req.data, req.len);     /* the resend */
    CHECK_EQ(dups() - d, 1, "the resent request is a duplicate");
    for (i = 0; i < n; i++) {                        /* the late reply */
        qf_receive(&nodes[0].d, reply[i].data, reply[i].len);
    }
    CHECK(cq_poll(p.cq[0], &wc) && wc.wr_id == 1 &&
          wc.status == QRNIC_WC_SUCCESS,
          "the late reply completes request 1 (status %u)", wc.status);
    second();
    qf_run_bh(&nodes[0].d);
    return harness_deliver_one();   /* request 2 reaches node 1 first */
}

static void fadd_1(void)
{
    post_fadd(1, 0, 5);
}

static void fadd_2(void)
{
    post_fadd(2, 0, 100);
}

static void test_atomic_replay(void)
{
    struct hwc wc;
    uint64_t got;

    harness_rd_atomic = 1;
    if (!pair_setup(&p, 41, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }
    memset(mr_at(p.mr[1], p.mr[1]->iova), 0, 8);
    CHECK(late_reply_then_next(fadd_1, fadd_2),
          "atomic 1 answered late, resent; atomic 2 on the wire");
    harness_run(now_ns + SEC);
    CHECK(cq_poll(p.cq[0], &wc) && wc.wr_id == 2 &&
          wc.status == QRNIC_WC_SUCCESS,
          "atomic 2 completes (status %u, want SUCCESS: it was a legal "
          "request, one outstanding of one granted)", wc.status);
    memcpy(&got, mr_at(p.mr[0], p.mr[0]->iova), 8);
    CHECK(got == 5, "atomic 2 returns the value after atomic 1 (%llu)",
          (unsigned long long)got);
    CHECK(value_at(0) == 105, "each atomic executed exactly once: %llu, "
          "want 105", (unsigned long long)value_at(0));
    CHECK(qp_state(p.qp[0]) == QRNIC_QPS_RTS &&
          qp_state(p.qp[1]) == QRNIC_QPS_RTS, "both QPs still in RTS");

    /* The QP goes on: another atomic. */
    post_fadd(3, 0, 1);
    CHECK(harness_completes(p.cq[0], 3, QRNIC_WC_SUCCESS, now_ns + SEC) &&
          value_at(0) == 106, "a third atomic completes (%llu)",
          (unsigned long long)value_at(0));
    harness_fini();
}

static void read_1(void)
{
    mr_fill(p.mr[1], p.mr[1]->iova + 8192, 4096, 61);
    pair_post_rdma(&p, 1, QRNIC_WR_RDMA_READ, 8192, 4096, p.mr[1]->key, 0);
}

static void read_2(void)
{
    mr_fill(p.mr[1], p.mr[1]->iova + 16384, 2048, 62);
    pair_post_rdma(&p, 2, QRNIC_WR_RDMA_READ, 16384, 2048, p.mr[1]->key, 0);
}

static void test_read_replay(void)
{
    harness_rd_atomic = 1;
    if (!pair_setup(&p, 43, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }
    CHECK(late_reply_then_next(read_1, read_2),
          "READ 1 answered late, resent; READ 2 on the wire");
    CHECK(harness_completes(p.cq[0], 2, QRNIC_WC_SUCCESS, now_ns + SEC) &&
          !mr_verify(p.mr[0], p.mr[0]->iova + 16384, 2048, 62),
          "READ 2 completes with the responder's bytes");
    CHECK(!mr_verify(p.mr[0], p.mr[0]->iova + 8192, 4096, 61),
          "READ 1's bytes are intact");
    CHECK(qp_state(p.qp[0]) == QRNIC_QPS_RTS, "the requester is in RTS");
    harness_fini();
}

/*
 * Beyond the grant: request 2 arrives while request 1's first reply is
 * still to be sent (the requester cannot have it).  Written as a
 * requester that ignores max_rd_atomic would send it: request 1's frame
 * again with the next PSN.
 */
static void test_over_grant(void)
{
    struct qrnic_roce_pkt pkt;
    struct frame req;
    uint8_t *bth;
    uint32_t psn;

    harness_rd_atomic = 1;
    if (!pair_setup(&p, 47, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }
    post_fadd(1, 0, 5);
    qf_run_bh(&nodes[0].d);
    CHECK(take_frame(1, &req), "atomic 1 on the wire");
    qf_receive(&nodes[1].d, req.data, req.len);
    bth = req.data + BTH;
    psn = (qrnic_ld32_be(bth + 8) + 1) & 0xffffff;
    qrnic_st32_be(bth + 8, (qrnic_ld32_be(bth + 8) & 0xff000000u) | psn);
    CHECK(qrnic_roce_parse(req.data, req.len, &pkt), "a RoCE frame");
    qrnic_st32(req.data + pkt.end - 4, qrnic_icrc_compute(req.data, &pkt));
    qf_receive(&nodes[1].d, req.data, req.len);
    CHECK(value_at(0) == 5, "the request beyond the grant is not executed "
          "(%llu)", (unsigned long long)value_at(0));
    CHECK(qp_state(p.qp[1]) == QRNIC_QPS_ERR,
          "the responder refuses it: its QP is in error");
    harness_fini();
}

static void test_flow_label(void)
{
    struct qrnic_qp_attr qa;
    struct hqp *a, *b;
    struct qrnic_ud_av av;
    struct hwc wc;
    uint8_t st;
    uint16_t sport;

    harness_rd_atomic = 8;
    harness_flow_label = 0xffffffffu;
    if (!pair_setup(&p, 53, 3, 14, 7, 7, 1, 1u << 20)) {
        CHECK(0, "RC QPs connected with flow label 0xffffffff");
        harness_flow_label = 0;
        harness_fini();
        return;
    }
    harness_flow_label = 0;
    CHECK(1, "RC QPs connected with flow label 0xffffffff");
    CHECK(qp_query(p.qp[0], &qa) == QRNIC_ST_OK &&
          qa.flow_label == QRNIC_FLOW_LABEL_MASK,
          "QUERY_QP reports it masked to 20 bits (0x%x)", qa.flow_label);
    pair_post_rdma(&p, 1, QRNIC_WR_RDMA_WRITE, 0, 64, p.mr[1]->key, 0);
    qf_run_bh(&nodes[0].d);
    sport = wire.count ? qrnic_ld16_be(wire.q[wire.head].data + ETH_IP) : 0;
    CHECK(sport == qrnic_wire_sport(QRNIC_FLOW_LABEL_MASK, p.qp[0]->qpn,
                                    p.qp[1]->qpn),
          "the UDP source port comes from the 20-bit label (0x%x)", sport);
    CHECK(harness_completes(p.cq[0], 1, QRNIC_WC_SUCCESS, now_ns + SEC),
          "an RDMA WRITE on that path completes");

    a = node_create_qp_type(&nodes[0], QRNIC_QPT_UD, p.cq[0], p.cq[0], 6, 7,
                            6, 5, &st);
    b = node_create_qp_type(&nodes[1], QRNIC_QPT_UD, p.cq[1], p.cq[1], 6, 7,
                            6, 5, &st);
    CHECK(a && b && !qp_up_ud(a, 0x11, false) && !qp_up_ud(b, 0x11, false),
          "two UD QPs up");
    if (!a || !b) {
        harness_fini();
        return;
    }
    av = node_av(1, b->qpn, 0x11);
    av.flow_label = 0xffffffffu;
    {
        struct hsge s = { p.mr[1]->iova, 4096, p.mr[1]->key };
        struct hwr wr = mkwr(9, QRNIC_WR_SEND, p.mr[0]->iova, 256,
                             p.mr[0]->key);

        qp_post_recv(b, 19, &s, 1, true);
        wr.ud = &av;
        qp_post_send(a, &wr, true);
    }
    CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + 50 * MS) &&
          wc.wr_id == 9 && wc.status == QRNIC_WC_SUCCESS,
          "a UD SEND whose address vector has flow label 0xffffffff "
          "completes (status %u)", wc.status);
    CHECK(harness_wait_cqe(p.cq[1], &wc, now_ns + 50 * MS) &&
          wc.wr_id == 19 && wc.status == QRNIC_WC_SUCCESS,
          "... and arrives (status %u)", wc.status);
    harness_fini();
}

int main(void)
{
    test_atomic_replay();
    test_read_replay();
    test_over_grant();
    test_flow_label();
    harness_rd_atomic = 8;
    return TAP_DONE();
}
