/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rights and bounds the responder and requester must hold at every packet,
 * not only at the first: a right revoked by an RTS->RTS modify stops the
 * rest of a WRITE and a duplicate READ; max_dest_rd_atomic 0 grants no
 * READ/atomic; a SEND never runs past 2 GiB; and a guest rewriting its
 * send queue while the device reads it cannot unbalance the requester.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define SEC 1000000000ull
#define MR_BYTES (256u << 10)
#define A(x) QRNIC_QP_ATTR_##x

static struct pair p;

static uint8_t set_access(struct hqp *qp, uint32_t access)
{
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_RTS;
    a.access_flags = access;
    return qp_modify(qp, A(STATE) | A(ACCESS_FLAGS), &a);
}

/* Node 0's QP towards node 1 with the given WR; the frames stay queued. */
static void post_queued(const struct hwr *wr)
{
    qp_post_send(p.qp[0], wr, true);
    qf_run_bh(&nodes[0].d);
}

static void test_write_revoked(void)
{
    struct hwr wr;
    struct hwc wc;

    pair_setup(&p, 21, 1, 10, 3, 0, 1, MR_BYTES);      /* MTU 256 */
    wr = mkwr(1, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova, 4096, p.mr[0]->key);
    mr_fill(p.mr[0], p.mr[0]->iova, 4096, 7);
    wr.remote_addr = p.mr[1]->iova;
    wr.rkey = p.mr[1]->key;
    post_queued(&wr);
    CHECK(wire.count >= 2 && harness_deliver_one(),
          "write: the first of %u packets is delivered", wire.count + 1);
    CHECK_EQ(set_access(p.qp[1], QRNIC_ACCESS_REMOTE_READ), QRNIC_ST_OK,
             "write: RTS->RTS modify revokes REMOTE_WRITE mid-message");
    harness_run(now_ns + SEC);
    CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + SEC) &&
          wc.status == QRNIC_WC_REM_ACCESS_ERR,
          "write: the rest of the WRITE is refused: REM_ACCESS_ERR "
          "(status %u)", wc.status);
    CHECK(mr_verify(p.mr[1], p.mr[1]->iova + 256, 4096 - 256, 7) != 0 &&
          *mr_at(p.mr[1], p.mr[1]->iova + 1024) == 0,
          "write: nothing past the first packet was written");
    CHECK_EQ(qp_state(p.qp[1]), QRNIC_QPS_ERR,
             "write: the responder QP is in ERR");
    harness_fini();
}

static void test_dup_read_revoked(void)
{
    struct hwr wr;
    struct hwc wc;

    pair_setup(&p, 22, 3, 10, 2, 0, 1, MR_BYTES);
    wr = mkwr(2, QRNIC_WR_RDMA_READ, p.mr[0]->iova, 512, p.mr[0]->key);
    mr_fill(p.mr[1], p.mr[1]->iova, 512, 9);
    wr.remote_addr = p.mr[1]->iova;
    wr.rkey = p.mr[1]->key;
    post_queued(&wr);
    harness_deliver_one();                  /* the READ request */
    wire.cut = true;
    qf_run_bh(&nodes[1].d);                 /* its response is lost */
    wire.cut = false;
    CHECK_EQ(set_access(p.qp[1], QRNIC_ACCESS_REMOTE_WRITE), QRNIC_ST_OK,
             "dup read: REMOTE_READ revoked before the READ is resent");
    harness_run(now_ns + 5 * SEC);
    CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + SEC) &&
          wc.status != QRNIC_WC_SUCCESS,
          "dup read: the resent READ is not executed again (status %u)",
          wc.status);
    CHECK(mr_verify(p.mr[0], p.mr[0]->iova, 512, 9) != 0,
          "dup read: no data came back");
    harness_fini();
}

static void test_no_rd_slots(void)
{
    struct qrnic_qp_attr a;
    struct hwr wr;
    struct hwc wc;

    pair_setup(&p, 23, 3, 10, 2, 0, 1, MR_BYTES);
    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_SQD;
    CHECK_EQ(qp_modify(p.qp[1], A(STATE), &a), QRNIC_ST_OK,
             "rd slots: responder to SQD");
    a.max_dest_rd_atomic = 0;
    CHECK_EQ(qp_modify(p.qp[1], A(STATE) | A(MAX_DEST_RD_ATOMIC), &a),
             QRNIC_ST_OK, "rd slots: max_dest_rd_atomic set to 0");
    a.qp_state = QRNIC_QPS_RTS;
    qp_modify(p.qp[1], A(STATE), &a);
    wr = mkwr(3, QRNIC_WR_RDMA_READ, p.mr[0]->iova, 64, p.mr[0]->key);
    wr.remote_addr = p.mr[1]->iova;
    wr.rkey = p.mr[1]->key;
    qp_post_send(p.qp[0], &wr, true);
    CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + SEC) &&
          wc.status == QRNIC_WC_REM_INV_REQ_ERR,
          "rd slots: a READ to a QP granting none fails REM_INV_REQ_ERR "
          "(status %u)", wc.status);
    harness_fini();
}

/* White box: the responder has taken 2 GiB - 100 bytes of one SEND. */
static void test_send_offset(void)
{
    struct hsge rs;
    struct hwr wr;
    struct hwc wc;
    struct qrnic_qpc *qp;

    pair_setup(&p, 24, 1, 10, 2, 0, 1, MR_BYTES);      /* MTU 256 */
    rs.addr = p.mr[1]->iova;
    rs.len = 65536;
    rs.lkey = p.mr[1]->key;
    qp_post_recv(p.qp[1], 77, &rs, 1, true);
    wr = mkwr(4, QRNIC_WR_SEND, p.mr[0]->iova, 1024, p.mr[0]->key);
    post_queued(&wr);
    harness_deliver_one();                  /* SEND_FIRST */
    qp = qrnic_qp_get(&nodes[1].d.e, p.qp[1]->qpn);
    CHECK(qp && qp->resp.recv_active && qp->resp.recv_off == 256,
          "send offset: the first packet landed");
    if (!qp) {
        return;
    }
    qp->resp.recv_off = QRNIC_MAX_MSG_SIZE - 100;
    qp->resp.recv_sgl.total = 1ull << 33;
    harness_run(now_ns + SEC);
    CHECK(harness_wait_cqe(p.cq[1], &wc, now_ns + SEC) &&
          wc.status == QRNIC_WC_LOC_LEN_ERR,
          "send offset: a SEND past 2 GiB ends LOC_LEN_ERR, nothing wraps "
          "(status %u)", wc.status);
    CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + SEC) &&
          wc.status == QRNIC_WC_REM_INV_REQ_ERR,
          "send offset: the sender sees REM_INV_REQ_ERR (status %u)",
          wc.status);
    harness_fini();
}

/*
 * A guest that rewrites queue memory while the device reads it: every
 * started WQE still completes, READ/atomic accounting stays balanced (the
 * fake checks the invariants after every step), the QP never stalls.
 */
static void test_hostile_sq(void)
{
    unsigned int i, done = 0;
    struct hwc wc;

    pair_setup(&p, 25, 3, 10, 3, 7, 1, MR_BYTES);
    nodes[0].d.hostile_rng = 0x9e3779b97f4a7c15ull;
    nodes[0].d.hostile_pct = 20;
    for (i = 0; i < 200; i++) {
        uint8_t op = i % 4 == 0 ? QRNIC_WR_RDMA_READ :
                     i % 4 == 1 ? QRNIC_WR_ATOMIC_FETCH_AND_ADD :
                     QRNIC_WR_RDMA_WRITE;
        struct hwr wr = mkwr(i, op, p.mr[0]->iova + 64 * (i % 64),
                             op == QRNIC_WR_ATOMIC_FETCH_AND_ADD ? 8 : 64,
                             p.mr[0]->key);

        wr.remote_addr = p.mr[1]->iova + 64 * (i % 64);
        wr.rkey = p.mr[1]->key;
        wr.compare_add = 1;
        if (i % 5 == 0) {
            wr.flags |= QRNIC_WQE_F_FENCE;
        }
        qp_post_send(p.qp[0], &wr, i % 8 == 7);
        if (qp_state(p.qp[0]) == QRNIC_QPS_ERR) {
            break;
        }
    }
    qp_ring_sq(p.qp[0]);
    harness_run(now_ns + 20 * SEC);
    while (cq_poll(p.cq[0], &wc)) {
        done++;
    }
    CHECK(done > 0 && (qp_state(p.qp[0]) == QRNIC_QPS_ERR ||
                       done == i),
          "hostile: the SQ drained (%u of %u completed, QP %s)", done, i,
          qp_state(p.qp[0]) == QRNIC_QPS_ERR ? "in ERR" : "live");
    harness_fini();
}

int main(void)
{
    test_write_revoked();
    test_dup_read_revoked();
    test_no_rd_slots();
    test_send_offset();
    test_hostile_sq();
    return tap_failures ? 1 : 0;
}
