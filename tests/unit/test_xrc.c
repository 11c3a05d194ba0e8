/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * XRC: an XRC_INI QP on node 0 sends through one XRC_TGT QP on node 1 into
 * two XRC SRQs of the target's domain, each completing on its own CQ with
 * QRNIC_CQE_F_XRC and its srqn; RDMA WRITE, WRITE with immediate, READ
 * and an atomic through the target check keys against the SRQ's PD, a
 * READ's reply (also replayed for a duplicate) against the PD of the SRQ
 * it named though a later message named another.  A
 * request naming an SRQ of another domain, a basic SRQ or none, a key of
 * another PD, and an SRQ destroyed in the middle of a message end the
 * target QP with the NAK the requester sees; the commands' bad arguments
 * and doorbells on queues an XRC QP does not have are refused.
 */
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MR_BYTES (256u << 10)
#define BUF 8192u
#define XRCD 7u

static struct pair p;
static struct hcq *srq_cq[2];   /* node 1: one CQ per XRC SRQ */
static struct hsrq *xsrq[2];    /* node 1, domain XRCD */
static struct hqp *ini;         /* node 0 */
static struct hqp *tgt;         /* node 1 */

static void setup(uint64_t seed)
{
    uint8_t st;
    int i;

    pair_setup(&p, seed, 3, 10, 3, 7, 1, MR_BYTES);
    for (i = 0; i < 2; i++) {
        srq_cq[i] = node_create_cq(&nodes[1], 6);
        xsrq[i] = node_create_xrc_srq(&nodes[1], XRCD, srq_cq[i], 5, &st);
        CHECK(xsrq[i] != NULL, "XRC SRQ %d created (status %u)", i, st);
    }
    ini = node_create_xrc_ini(&nodes[0], p.cq[0], 6, &st);
    CHECK(ini != NULL, "XRC_INI QP created (status %u)", st);
    tgt = node_create_xrc_tgt(&nodes[1], XRCD, &st);
    CHECK(tgt != NULL, "XRC_TGT QP created (status %u)", st);
    CHECK(ini && tgt && qp_connect_xrc(ini, tgt, 3) &&
          qp_connect_xrc(tgt, ini, 3),
          "XRC_INI and XRC_TGT connected to RTS with their types' attributes");
}

static void srq_post(int s, uint64_t wr_id, uint32_t slot)
{
    struct hsge sge = { p.mr[1]->iova + (uint64_t)slot * BUF, BUF,
                        p.mr[1]->key };

    srq_post_recv(xsrq[s], wr_id, &sge, 1, true);
}

static void post(uint64_t wr_id, uint8_t opcode, uint32_t off, uint32_t len,
                 uint32_t srqn, uint64_t remote_off)
{
    struct hwr wr = mkwr(wr_id, opcode, p.mr[0]->iova + off, len,
                         p.mr[0]->key);

    wr.xrc_srqn = srqn;
    wr.remote_addr = p.mr[1]->iova + remote_off;
    wr.rkey = p.mr[1]->key;
    wr.imm = 0x5a5a0000u + (uint32_t)wr_id;
    qp_post_send(ini, &wr, true);
}

static void test_send(void)
{
    struct hwc wc;
    int s;

    setup(71);
    for (s = 0; s < 2; s++) {
        srq_post(s, 100 + s, (uint32_t)s);
        mr_fill(p.mr[0], p.mr[0]->iova + s * BUF, 3000, 500 + s);
        post(10 + s, QRNIC_WR_SEND, s * BUF, 3000, xsrq[s]->srqn, 0);
        CHECK(harness_completes(p.cq[0], 10 + s, QRNIC_WC_SUCCESS, 100 * MS),
              "SEND of 3 packets into XRC SRQ %d: the sender completes", s);
        CHECK(harness_wait_cqe(srq_cq[s], &wc, 100 * MS) &&
              wc.wr_id == 100u + s && wc.status == QRNIC_WC_SUCCESS &&
              wc.byte_len == 3000 && wc.qpn == tgt->qpn &&
              wc.opcode == QRNIC_CQE_OP_RECV &&
              (wc.flags & (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC)) ==
              (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC) &&
              wc.src_qp == xsrq[s]->srqn && wc.wqe_idx == 0,
              "the receive completes on SRQ %d's own CQ: wr_id %llu, "
              "%u bytes, the target QP, F_XRC with srqn %u (got %u)", s,
              (unsigned long long)wc.wr_id, wc.byte_len, xsrq[s]->srqn,
              wc.src_qp);
        CHECK(mr_verify(p.mr[1], p.mr[1]->iova + (uint64_t)s * BUF, 3000,
                        500 + s) == 0,
              "SRQ %d's buffer holds the message", s);
        CHECK(!cq_poll(srq_cq[1 - s], &wc),
              "nothing completes on the other SRQ's CQ");
    }
}

static void test_rdma(void)
{
    struct hwc wc;
    uint8_t *v;

    setup(72);
    mr_fill(p.mr[0], p.mr[0]->iova, 5000, 9);
    post(1, QRNIC_WR_RDMA_WRITE, 0, 5000, xsrq[0]->srqn, 64 * 1024);
    CHECK(harness_completes(p.cq[0], 1, QRNIC_WC_SUCCESS, 100 * MS) &&
          mr_verify(p.mr[1], p.mr[1]->iova + 64 * 1024, 5000, 9) == 0,
          "RDMA WRITE through the target: placed in the SRQ's PD's region");
    mr_fill(p.mr[1], p.mr[1]->iova + 96 * 1024, 4000, 10);
    post(2, QRNIC_WR_RDMA_READ, 16 * 1024, 4000, xsrq[1]->srqn, 96 * 1024);
    CHECK(harness_completes(p.cq[0], 2, QRNIC_WC_SUCCESS, 100 * MS) &&
          mr_verify(p.mr[0], p.mr[0]->iova + 16 * 1024, 4000, 10) == 0,
          "RDMA READ through the target returns the region's data");
    v = mr_at(p.mr[1], p.mr[1]->iova + 128 * 1024);
    memset(v, 0, 8);
    v[0] = 40;
    {
        struct hwr wr = mkwr(3, QRNIC_WR_ATOMIC_FETCH_AND_ADD,
                             p.mr[0]->iova + 32 * 1024, 8, p.mr[0]->key);

        wr.xrc_srqn = xsrq[0]->srqn;
        wr.remote_addr = p.mr[1]->iova + 128 * 1024;
        wr.rkey = p.mr[1]->key;
        wr.compare_add = 2;
        qp_post_send(ini, &wr, true);
    }
    CHECK(harness_completes(p.cq[0], 3, QRNIC_WC_SUCCESS, 100 * MS) &&
          v[0] == 42 && *mr_at(p.mr[0], p.mr[0]->iova + 32 * 1024) == 40,
          "FETCH_AND_ADD through the target: executed once, 40 returned");
    srq_post(1, 200, 4);
    post(4, QRNIC_WR_RDMA_WRITE_IMM, 0, 100, xsrq[1]->srqn, 160 * 1024);
    CHECK(harness_completes(p.cq[0], 4, QRNIC_WC_SUCCESS, 100 * MS) &&
          harness_wait_cqe(srq_cq[1], &wc, 100 * MS) && wc.wr_id == 200 &&
          wc.opcode == QRNIC_CQE_OP_RECV_RDMA_IMM &&
          (wc.flags & QRNIC_CQE_F_XRC) && wc.src_qp == xsrq[1]->srqn &&
          wc.imm == 0x5a5a0004u,
          "WRITE with immediate takes the named SRQ's WQE (wr_id %llu, "
          "opcode %u)", (unsigned long long)wc.wr_id, wc.opcode);
}

/*
 * A READ naming SRQ 0 (PD of nodes[1]) and then a SEND naming an SRQ of
 * the same domain in another PD: the SEND rebinds the target, the READ's
 * reply still reads through its own SRQ's PD.  With lose_replies, every
 * frame towards the requester is lost once, so the READ comes again as a
 * duplicate after the SEND and is replayed in its own PD too.
 */
static void read_then_send_other_pd(bool lose_replies)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    uint32_t pd = nodes[1].pd;
    struct hsrq *other;
    struct hcq *other_cq;
    struct hmr *other_mr;
    struct hsge sge;
    struct hwc wc;
    uint8_t st;
    int lost = 0;

    setup(lose_replies ? 81 : 80);
    other_cq = node_create_cq(&nodes[1], 4);
    node_cmd(&nodes[1], &c, &nodes[1].pd);
    other = node_create_xrc_srq(&nodes[1], XRCD, other_cq, 4, &st);
    other_mr = node_mr(&nodes[1], 16384, QRNIC_ACCESS_LOCAL_WRITE);
    nodes[1].pd = pd;
    sge.addr = other_mr->iova;
    sge.len = 4096;
    sge.lkey = other_mr->key;
    srq_post_recv(other, 500, &sge, 1, true);
    mr_fill(p.mr[1], p.mr[1]->iova + 96 * 1024, 8192, 21);
    post(1, QRNIC_WR_RDMA_READ, 16 * 1024, 8192, xsrq[0]->srqn, 96 * 1024);
    mr_fill(p.mr[0], p.mr[0]->iova, 100, 22);
    post(2, QRNIC_WR_SEND, 0, 100, other->srqn, 0);
    /*
     * Both requests reach the target before it sends anything: the SEND
     * has rebound it when the READ's reply goes out.
     */
    qf_run_bh(&nodes[0].d);
    while (wire.count) {
        if (lose_replies && wire.q[wire.head].to == 0) {
            wire.head = (wire.head + 1) % MAX_FRAMES;
            wire.count--;
            lost++;
        } else {
            harness_deliver_one();
        }
        if (lose_replies) {
            qf_run_bh(&nodes[1].d);
        }
    }
    CHECK(harness_completes(p.cq[0], 1, QRNIC_WC_SUCCESS, 500 * MS) &&
          !mr_verify(p.mr[0], p.mr[0]->iova + 16 * 1024, 8192, 21),
          "a READ of SRQ 0's PD followed by a SEND into another PD's SRQ%s: "
          "the READ completes with the region's data", lose_replies ?
          ", every reply lost once (the READ replayed after the SEND)" : "");
    CHECK(harness_completes(p.cq[0], 2, QRNIC_WC_SUCCESS, 500 * MS) &&
          harness_wait_cqe(other_cq, &wc, 100 * MS) && wc.wr_id == 500 &&
          wc.src_qp == other->srqn &&
          qp_state(tgt) == QRNIC_QPS_RTS,
          "the SEND lands in the other PD's SRQ, the target stays in RTS");
    if (lose_replies) {
        CHECK(lost > 0, "%d replies were lost on the way", lost);
    }
}

/* A request the target must refuse: the requester's status, target ERR. */
static void refused(const char *what, uint8_t opcode, uint32_t srqn,
                    uint8_t status)
{
    struct hwc wc;

    srq_post(0, 300, 6);
    post(50, opcode, 0, 256, srqn, 0);
    CHECK(harness_wait_cqe(p.cq[0], &wc, 200 * MS) && wc.wr_id == 50 &&
          wc.status == status && qp_state(tgt) == QRNIC_QPS_ERR &&
          !cq_poll(srq_cq[0], &wc),
          "%s: the requester gets status %u (got %u), the target QP is in "
          "error, nothing is received", what, status, wc.status);
}

static void test_bad_requests(void)
{
    struct hsrq *other, *basic;
    struct hcq *cq;
    uint8_t st;

    setup(73);
    cq = node_create_cq(&nodes[1], 4);
    other = node_create_xrc_srq(&nodes[1], XRCD + 1, cq, 4, &st);
    refused("a SEND naming an XRC SRQ of another domain", QRNIC_WR_SEND,
            other ? other->srqn : 0, QRNIC_WC_REM_INV_REQ_ERR);
    setup(74);
    basic = node_create_srq(&nodes[1], 4, 5, 0, &st);
    refused("a SEND naming a basic SRQ", QRNIC_WR_SEND,
            basic ? basic->srqn : 0, QRNIC_WC_REM_INV_REQ_ERR);
    setup(75);
    refused("a WRITE naming no SRQ (0)", QRNIC_WR_RDMA_WRITE, 0,
            QRNIC_WC_REM_INV_REQ_ERR);
    setup(76);
    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_PD);
        uint32_t pd = nodes[1].pd;

        node_cmd(&nodes[1], &c, &nodes[1].pd);
        other = node_create_xrc_srq(&nodes[1], XRCD, srq_cq[0], 4, &st);
        nodes[1].pd = pd;
    }
    refused("a WRITE to a key of another PD than the named SRQ's",
            QRNIC_WR_RDMA_WRITE, other ? other->srqn : 0,
            QRNIC_WC_REM_ACCESS_ERR);
    setup(77);
    {
        struct hwc wc;
        struct hwr wr = mkwr(60, QRNIC_WR_SEND, p.mr[0]->iova, 16,
                             p.mr[0]->key);

        wr.xrc_srqn = 1u << 24;
        qp_post_send(ini, &wr, true);
        CHECK(harness_wait_cqe(p.cq[0], &wc, 100 * MS) &&
              wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
              wc.vendor_err == QRNIC_VERR_BAD_AV,
              "a WQE whose xrc_srqn has more than 24 bits: LOC_QP_OP_ERR, "
              "BAD_AV (status %u, vendor error %u)", wc.status,
              wc.vendor_err);
    }
}

/* The SRQ is destroyed after the first packet of a message took a WQE. */
static void test_srq_gone(void)
{
    struct qrnic_cmd c;
    struct hwc wc;
    uint8_t st;

    setup(78);
    srq_post(0, 400, 0);
    post(70, QRNIC_WR_SEND, 0, 3000, xsrq[0]->srqn, 0);
    qf_run_bh(&nodes[0].d);
    harness_deliver_one();
    qf_run_bh(&nodes[1].d);
    CHECK(qrnic_qp_get(&nodes[1].d.e, tgt->qpn)->resp.recv_active,
          "the message's first packet took the XRC SRQ's WQE");
    c = harness_cmd(QRNIC_CMD_DESTROY_SRQ);
    c.destroy_srq.srqn = xsrq[0]->srqn;
    st = node_cmd(&nodes[1], &c, NULL);
    CHECK_EQ(st, QRNIC_ST_OK, "DESTROY_SRQ of an XRC SRQ a target QP holds "
             "mid-message");
    CHECK(harness_wait_cqe(p.cq[0], &wc, 200 * MS) && wc.wr_id == 70 &&
          wc.status == QRNIC_WC_REM_INV_REQ_ERR &&
          qp_state(tgt) == QRNIC_QPS_ERR && !cq_poll(srq_cq[0], &wc),
          "the message's next packet is NAKed: the requester gets "
          "REM_INV_REQ_ERR (%u), the target is in error, nothing completes "
          "on the gone SRQ's CQ", wc.status);
    c = harness_cmd(QRNIC_CMD_DESTROY_CQ);
    c.destroy_cq.cqn = srq_cq[0]->cqn;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "its CQ can go once the SRQ is gone");
}

static uint8_t create_qp_raw(uint8_t type, uint32_t uctx, uint32_t pdn,
                             uint32_t scqn, uint32_t rcqn, uint32_t xrcd,
                             uint8_t log_sq, uint8_t log_ss)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_QP);
    uint32_t qpn;

    c.create_qp.qp_type = type;
    c.create_qp.uctx = uctx;
    c.create_qp.pdn = pdn;
    c.create_qp.send_cqn = scqn;
    c.create_qp.recv_cqn = rcqn;
    c.create_qp.xrcd = xrcd;
    c.create_qp.log_sq_depth = log_sq;
    c.create_qp.log_sq_stride = log_ss;
    c.create_qp.sq_offset = log_sq ? 1u << 20 : 0;
    return node_cmd(&nodes[1], &c, &qpn);
}

static void test_bad_commands(void)
{
    struct node *n = &nodes[1];
    struct qrnic_qp_attr a;
    struct qrnic_cmd c;
    struct hqp *rc;
    uint8_t st;

    setup(79);
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_TGT, 0, 0, 0, 0, 0, 0, 0),
             QRNIC_ST_BAD_PARAM, "XRC_TGT without a domain");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_TGT, 0, 0, 0, 0, 1u << 24, 0, 0),
             QRNIC_ST_BAD_PARAM, "XRC_TGT with a domain over 24 bits");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_TGT, 1, 0, 0, 0, XRCD, 0, 0),
             QRNIC_ST_BAD_HANDLE, "XRC_TGT counted against no context");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_TGT, 0, n->kernel_pd, 0, 0, XRCD,
                           0, 0),
             QRNIC_ST_BAD_PARAM, "XRC_TGT with a PD");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_TGT, 0, 0, 0, 0, XRCD, 6, 7),
             QRNIC_ST_BAD_PARAM, "XRC_TGT with a send queue");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_INI, n->uctx, n->pd, p.cq[1]->cqn,
                           p.cq[1]->cqn, 0, 6, 7),
             QRNIC_ST_BAD_PARAM, "XRC_INI with a receive CQ");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_INI, n->uctx, n->pd, p.cq[1]->cqn,
                           0, XRCD, 6, 7),
             QRNIC_ST_BAD_PARAM, "XRC_INI with a domain");
    CHECK_EQ(create_qp_raw(QRNIC_QPT_XRC_INI, n->uctx, n->pd, 0, 0, 0, 6, 7),
             QRNIC_ST_BAD_HANDLE, "XRC_INI without a send CQ");
    CHECK(!node_create_xrc_srq(n, XRCD, NULL, 4, &st) &&
          st == QRNIC_ST_BAD_HANDLE, "an XRC SRQ without a CQ (status %u)",
          st);
    CHECK(!node_create_xrc_srq(n, 1u << 24, p.cq[1], 4, &st) &&
          st == QRNIC_ST_BAD_PARAM,
          "an XRC SRQ with a domain over 24 bits (status %u)", st);
    CHECK(!node_create_xrc_srq(n, 0, p.cq[1], 4, &st) &&
          st == QRNIC_ST_BAD_PARAM,
          "a basic SRQ naming a CQ (status %u)", st);
    rc = node_create_qp_srq(n, QRNIC_QPT_RC, p.cq[1], p.cq[1], 4, 7, xsrq[0],
                            &st);
    CHECK(!rc && st == QRNIC_ST_BAD_HANDLE,
          "an RC QP receiving from an XRC SRQ (status %u)", st);
    c = harness_cmd(QRNIC_CMD_DESTROY_CQ);
    c.destroy_cq.cqn = srq_cq[0]->cqn;
    CHECK_EQ(node_cmd(n, &c, NULL), QRNIC_ST_BAD_STATE,
             "the CQ of an XRC SRQ cannot go before it");

    qf_doorbell(&nodes[0].d, ini->uctx, QRNIC_DB_RQ,
                ini->qpn | (uint64_t)1 << 32);
    qf_doorbell(&n->d, 0, QRNIC_DB_SQ, tgt->qpn | (uint64_t)1 << 32);
    qf_doorbell(&n->d, 0, QRNIC_DB_RQ, tgt->qpn | (uint64_t)1 << 32);
    CHECK_EQ(qf_reg_read(&nodes[0].d, QRNIC_REG_STAT_BAD_DB) +
             qf_reg_read(&n->d, QRNIC_REG_STAT_BAD_DB), 3,
             "doorbells of queues XRC QPs do not have are refused");

    memset(&a, 0, sizeof(a));
    a.max_dest_rd_atomic = 1;
    CHECK_EQ(qp_modify(ini, QRNIC_QP_ATTR_MAX_DEST_RD_ATOMIC, &a),
             QRNIC_ST_BAD_PARAM, "XRC_INI: MAX_DEST_RD_ATOMIC is not its");
    a.retry_cnt = 3;
    CHECK_EQ(qp_modify(tgt, QRNIC_QP_ATTR_RETRY_CNT, &a),
             QRNIC_ST_BAD_PARAM, "XRC_TGT: RETRY_CNT is not its");
    a.qp_state = QRNIC_QPS_RESET;
    CHECK(qp_modify(tgt, QRNIC_QP_ATTR_STATE, &a) == QRNIC_ST_OK &&
          qp_connect_xrc(tgt, ini, 3) && qp_state(tgt) == QRNIC_QPS_RTS,
          "XRC_TGT goes through RESET to RTS again");
}

int main(void)
{
    test_send();
    test_rdma();
    read_then_send_other_pd(false);
    read_then_send_other_pd(true);
    test_bad_requests();
    test_srq_gone();
    test_bad_commands();
    harness_fini();
    return TAP_DONE();
}
