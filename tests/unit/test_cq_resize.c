/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RESIZE_CQ: a CQ with unpolled completions moves to a bigger buffer and
 * then a smaller one, software copying the CQEs before the switch point as
 * the hardware interface says; every completion arrives once, in order,
 * with the right phase; bad arguments get their status and change nothing.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MR_BYTES (64u << 10)

static struct pair p;
static struct hcq *rcq;
static struct hqp *a, *b;

static uint8_t resize(struct hcq *cq, uint8_t log, uint64_t *base,
                      uint32_t *pi)
{
    uint32_t bytes = (32u << log) + 64;
    uint64_t nb = node_alloc(cq->n, (bytes + 4095) & ~4095u, 4096);
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_RESIZE_CQ);

    uint32_t i;

    memset(node_ptr(cq->n, nb), 0, (bytes + 4095) & ~4095u);
    /* Each entry unwritten for the index it holds next (see qrnic_hw.h). */
    for (i = 0; i < (1u << log); i++) {
        uint16_t idx = (uint16_t)(cq->ci + i);

        qrnic_st32(node_ptr(cq->n, nb + (idx & ((1u << log) - 1)) * 32ull +
                            offsetof(struct qrnic_cqe, owner)),
                   (idx >> log) & 1);
    }
    qrnic_st32(node_ptr(cq->n, nb + (32u << log)), cq->ci);
    c.resize_cq.pbl.addr = nb;
    c.resize_cq.pbl.npages = (bytes + 4095) / 4096;
    c.resize_cq.pbl.levels = QRNIC_PBL_CONTIG;
    c.resize_cq.pbl.page_shift = 12;
    c.resize_cq.cqn = cq->cqn;
    c.resize_cq.log_depth = log;
    *base = nb;
    return node_cmd(cq->n, &c, pi);
}

/* Software's part: the CQEs ci..pi-1 to their places in the new ring. */
static void move_cqes(struct hcq *cq, uint8_t log, uint64_t nb, uint32_t pi)
{
    uint16_t i;

    for (i = (uint16_t)cq->ci; i != (uint16_t)pi; i++) {
        uint8_t *from = node_ptr(cq->n, cq->base +
                                 (i & ((1u << cq->log) - 1)) * 32ull);
        uint8_t *to = node_ptr(cq->n, nb + (i & ((1u << log) - 1)) * 32ull);
        uint32_t owner = qrnic_ld32(from + offsetof(struct qrnic_cqe, owner));

        memcpy(to, from, 32);
        owner = (owner & ~QRNIC_CQE_PHASE) |
                (((i >> log) & 1) ? 0 : QRNIC_CQE_PHASE);
        qrnic_st32(to + offsetof(struct qrnic_cqe, owner), owner);
    }
    cq->base = nb;
    cq->log = log;
}

static void send_n(int n, uint64_t first)
{
    int i;

    for (i = 0; i < n; i++) {
        struct hwr wr = mkwr(first + i, QRNIC_WR_SEND_IMM, p.mr[0]->iova, 16,
                             p.mr[0]->key);
        struct hsge s = { p.mr[1]->iova, 64, p.mr[1]->key };

        wr.imm = (uint32_t)(first + i);
        qp_post_recv(b, first + i, &s, 1, true);
        qp_post_send(a, &wr, true);
    }
    harness_run(now_ns + 50 * MS);
}

int main(void)
{
    uint64_t nb, expect = 1;
    uint32_t pi = 0, bad = 0, n = 0;
    struct hwc wc;
    uint8_t st;

    pair_setup(&p, 61, 3, 10, 3, 0, 1, MR_BYTES);
    rcq = node_create_cq(&nodes[1], 2);         /* 4 CQEs */
    a = node_create_qp(&nodes[0], p.cq[0], p.cq[0], 6, 7, 6, 5);
    b = node_create_qp(&nodes[1], p.cq[1], rcq, 6, 7, 6, 5);
    qp_connect(a, b, 3, 10, 3, 7, 1);
    qp_connect(b, a, 3, 10, 3, 7, 1);

    send_n(3, 1);                               /* 3 of 4 slots used */
    st = resize(rcq, 4, &nb, &pi);
    CHECK(st == QRNIC_ST_OK && pi == 3,
          "RESIZE_CQ 4 -> 16 CQEs with 3 unpolled: OK, switch at %u", pi);
    move_cqes(rcq, 4, nb, pi);
    send_n(9, 4);                               /* 12 outstanding */
    while (cq_poll(rcq, &wc)) {
        bad += wc.wr_id != expect || wc.imm != expect ||
               wc.status != QRNIC_WC_SUCCESS;
        expect++;
        n++;
        if (n == 5) {
            break;                              /* leave 7 unpolled */
        }
    }
    st = resize(rcq, 2, &nb, &pi);
    CHECK_EQ(st, QRNIC_ST_BAD_PARAM,
             "RESIZE_CQ to 4 CQEs with 7 unpolled: BAD_PARAM");
    st = resize(rcq, 3, &nb, &pi);
    CHECK(st == QRNIC_ST_OK && pi == 12,
          "RESIZE_CQ 16 -> 8 with 7 unpolled: OK, switch at %u", pi);
    move_cqes(rcq, 3, nb, pi);
    send_n(1, 13);
    while (cq_poll(rcq, &wc)) {
        bad += wc.wr_id != expect || wc.imm != expect ||
               wc.status != QRNIC_WC_SUCCESS;
        expect++;
        n++;
    }
    CHECK(n == 13 && bad == 0,
          "13 completions across two resizes, each once and in order (%u, "
          "%u wrong)", n, bad);
    CHECK(nodes[1].d.e.stats.v[QRNIC_STAT_CQ_OVERFLOWS] == 0,
          "no CQE was lost to an overflow");

    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_RESIZE_CQ);

        c.resize_cq.cqn = 999;
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
                 "RESIZE_CQ of no CQ: BAD_HANDLE");
        c.resize_cq.cqn = rcq->cqn;
        c.resize_cq.log_depth = QRNIC_CQ_MAX_LOG + 1;
        c.resize_cq.pbl.page_shift = 12;
        c.resize_cq.pbl.npages = ((32u << (QRNIC_CQ_MAX_LOG + 1)) + 4096) /
                                 4096;
        c.resize_cq.pbl.levels = QRNIC_PBL_CONTIG;
        c.resize_cq.pbl.addr = node_alloc(&nodes[1], 4096, 4096);
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
                 "RESIZE_CQ beyond QRNIC_CQ_MAX_LOG, pages enough: "
                 "BAD_PARAM");
        c.resize_cq.log_depth = 4;
        c.resize_cq.pbl.npages = 2;
        c.resize_cq.pbl.levels = QRNIC_PBL_LEVEL1;
        c.resize_cq.pbl.addr = 0x1000;          /* not guest RAM */
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_DMA_ERROR,
                 "RESIZE_CQ with an unreadable page list: DMA_ERROR");
    }
    send_n(2, 14);
    n = 0;
    while (cq_poll(rcq, &wc)) {
        n += wc.wr_id == expect++;
    }
    CHECK(n == 2, "after the refused resizes the CQ still works");
    harness_fini();
    return tap_failures ? 1 : 0;
}
