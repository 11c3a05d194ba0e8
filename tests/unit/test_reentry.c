/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Re-entrancy: what QEMU does to a device that the engine must survive.
 * A completion or event that the device DMA-writes onto its own CTRL
 * register from a timer (QEMU's guard is not engaged there) resets the
 * device in the middle of the operation; two devices on a hub answer each
 * other from inside their own transmit.  Nothing may be used after it is
 * freed, and no transport state may change under the code using it.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define SEC 1000000000ull
#define MR_BYTES (256u << 10)

static struct pair p;

/* A CQ of 64 entries whose ring is the first page of BAR0. */
static uint32_t cq_on_bar0(struct node *n)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_CQ);
    uint32_t cqn = 0;

    c.create_cq.pbl.addr = QF_BAR0_BASE;
    c.create_cq.pbl.npages = 1;
    c.create_cq.pbl.levels = QRNIC_PBL_CONTIG;
    c.create_cq.pbl.page_shift = 12;
    c.create_cq.eqn = n->ceq;
    c.create_cq.log_depth = 6;
    return node_cmd(n, &c, &cqn) == QRNIC_ST_OK ? cqn : 0;
}

static bool device_enabled(struct node *n)
{
    return qf_reg_read(&n->d, QRNIC_REG_STATUS) & QRNIC_STATUS_READY;
}

/*
 * Bug 1: the send CQ's ring is BAR0.  Two WRITEs complete (their CQEs land
 * on ID..0x3f from guarded contexts and are refused); then the wire is cut
 * and the third WRITE (wr_id 0) runs out of retries in the timer, whose
 * error CQE goes to slot 2 = offset 0x40 = CTRL: ENABLE cleared, the
 * device resets - while the timer path is still using the QP and CQ.
 */
static void test_timer_cqe_on_ctrl(void)
{
    struct hcq fake_cq;
    struct hqp *qp, *peer;
    struct hwr wr;
    uint64_t t0;

    CHECK(pair_setup(&p, 11, 3, 8, 0, 0, 1, MR_BYTES), "timer: pair set up");
    memset(&fake_cq, 0, sizeof(fake_cq));
    fake_cq.n = &nodes[0];
    fake_cq.cqn = cq_on_bar0(&nodes[0]);
    fake_cq.log = 6;
    CHECK(fake_cq.cqn != 0, "timer: a CQ whose ring is BAR0 is accepted");
    qp = node_create_qp(&nodes[0], &fake_cq, p.cq[0], 7, 9, 7, 6);
    peer = node_create_qp(&nodes[1], p.cq[1], p.cq[1], 7, 9, 7, 6);
    CHECK(qp && peer && qp_connect(qp, peer, 3, 8, 0, 0, 1) &&
          qp_connect(peer, qp, 3, 8, 0, 0, 1),
          "timer: a QP completing into it connects (retry_cnt 0)");
    if (!qp || !peer) {
        return;
    }
    wr = mkwr(1, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova, 64, p.mr[0]->key);
    wr.remote_addr = p.mr[1]->iova;
    wr.rkey = p.mr[1]->key;
    qp_post_send(qp, &wr, true);
    wr.wr_id = 2;
    qp_post_send(qp, &wr, true);
    harness_run(now_ns + 100 * MS);
    CHECK(device_enabled(&nodes[0]) && nodes[0].d.blocked_reentry >= 2,
          "timer: CQEs onto BAR0 from guarded contexts are refused "
          "(%llu refused)", (unsigned long long)nodes[0].d.blocked_reentry);

    wire.cut = true;
    wr.wr_id = 0;
    qp_post_send(qp, &wr, true);
    t0 = now_ns;
    harness_run(now_ns + 2 * SEC);
    CHECK(nodes[0].d.reg_dma > 0 && !device_enabled(&nodes[0]) &&
          qf_reg_read(&nodes[0].d, QRNIC_REG_CTRL) == 0,
          "timer: the error CQE the timer wrote onto CTRL reset the device "
          "after the timer path finished (%.1f ms), nothing used after free",
          (double)(now_ns - t0) / MS);
    CHECK(device_enabled(&nodes[1]),
          "timer: the peer device is unaffected");
    harness_fini();
}

/*
 * The async EQ on BAR0: its first EQE lands on CTRL (type LINK = 1 is
 * CTRL.RESET).  The monitor's set_link runs with no guard engaged.
 */
static void test_link_event_on_ctrl(void)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_EQ);
    struct qf_dev *d;
    uint32_t eqn = 0;

    harness_init(12);
    d = &nodes[0].d;
    c.destroy_eq.eqn = 0;
    CHECK(node_cmd(&nodes[0], &c, NULL) == QRNIC_ST_OK,
          "link: the harness's async EQ is destroyed");
    c = harness_cmd(QRNIC_CMD_CREATE_EQ);
    c.create_eq.base = QF_BAR0_BASE + QRNIC_REG_CTRL;
    c.create_eq.log_depth = 4;
    c.create_eq.flags = QRNIC_EQ_ASYNC;
    CHECK(node_cmd(&nodes[0], &c, &eqn) == QRNIC_ST_OK,
          "link: an async EQ whose ring starts at CTRL is accepted");
    qf_set_link(d, false);
    CHECK(!device_enabled(&nodes[0]) && d->reg_dma > 0,
          "link: the link event written onto CTRL reset the device once the "
          "event was posted");
    qf_set_link(d, true);
    qf_reg_write(d, QRNIC_REG_AQ_SQ_BASE_LO, (uint32_t)RAM_BASE);
    qf_reg_write(d, QRNIC_REG_AQ_CQ_BASE_LO, (uint32_t)(RAM_BASE + 4096));
    qf_reg_write(d, QRNIC_REG_AQ_LOG_DEPTH, 6);
    qf_reg_write(d, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    CHECK(device_enabled(&nodes[0]),
          "link: the device enables again afterwards");
    harness_fini();
}

/*
 * Bug 2: two devices on a hub.  Every frame is answered from inside the
 * sender's transmit; NAKs (lost packets: receive WQEs posted late cause
 * RNR NAKs, a PSN gap a sequence NAK) must not rewind the requester under
 * its own feet.  Inline and multi-packet SENDs, WRITEs and READs.
 */
static void test_hub(void)
{
    static const uint32_t sizes[] = { 1, 200, 256, 700, 4096, 20000 };
    unsigned int i, bad = 0, done = 0, n = 0;
    struct hwc wc;

    CHECK(pair_setup(&p, 13, 1, 10, 7, 7, 1, MR_BYTES), "hub: pair set up");
    harness_hub(true);
    mr_fill(p.mr[0], p.mr[0]->iova, MR_BYTES, 5);
    mr_fill(p.mr[1], p.mr[1]->iova, MR_BYTES, 5);
    for (i = 0; i < 60; i++) {
        uint32_t len = sizes[i % 6];
        uint8_t op = i % 3 == 0 ? QRNIC_WR_SEND :
                     i % 3 == 1 ? QRNIC_WR_RDMA_WRITE : QRNIC_WR_RDMA_READ;
        struct hwr wr = mkwr(i, op, p.mr[0]->iova + 1024 * (i % 8), len,
                             p.mr[0]->key);
        struct hsge rs = { p.mr[1]->iova + 65536, len, p.mr[1]->key };

        wr.remote_addr = p.mr[1]->iova + 1024 * (i % 8);
        wr.rkey = p.mr[1]->key;
        if (op == QRNIC_WR_SEND && len <= QRNIC_MAX_INLINE) {
            wr.flags |= QRNIC_WQE_F_INLINE;
            wr.sge[0].addr = (uint64_t)(uintptr_t)mr_at(p.mr[0],
                                                         p.mr[0]->iova);
        }
        qp_post_send(p.qp[0], &wr, true);
        n++;
        harness_run(now_ns + (i % 2 ? 0 : MS));
        if (op == QRNIC_WR_SEND) {
            qp_post_recv(p.qp[1], 1000 + i, &rs, 1, true);   /* late: RNR */
        }
        harness_run(now_ns + 50 * MS);
        while (cq_poll(p.cq[0], &wc)) {
            done++;
            bad += wc.status != QRNIC_WC_SUCCESS;
        }
        while (cq_poll(p.cq[1], &wc)) {
            bad += wc.status != QRNIC_WC_SUCCESS;
        }
    }
    CHECK(done == n && bad == 0,
          "hub: %u of %u WRs completed, %u errors, with every answer "
          "re-entering the sender", done, n, bad);
    CHECK(nodes[0].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS] < 2000,
          "hub: no runaway retransmission (%llu packets resent)",
          (unsigned long long)nodes[0].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS]);
    CHECK(mr_verify(p.mr[1], p.mr[1]->iova, 8 * 1024, 5) == 0,
          "hub: WRITE data arrived intact");
    harness_fini();
}

/* With an argument, only the cases whose name contains it. */
int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(void);
    } cases[] = {
        { "timer", test_timer_cqe_on_ctrl },
        { "link", test_link_event_on_ctrl },
        { "hub", test_hub },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (argc < 2 || strstr(cases[i].name, argv[1])) {
            cases[i].fn();
        }
    }
    return tap_failures ? 1 : 0;
}
