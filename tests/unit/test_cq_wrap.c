/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A CQ of 1 << 16 CQEs filled to the brim, drained, filled again past
 * 1 << 16 completions: each CQE arrives once, in order, with the phase of
 * its pass; a full ring is told from an empty one (arming fires at once,
 * one more completion overflows and is counted); consumer indexes past 16
 * bits are taken from the doorbell and from the record.  Then the largest
 * CQ the device offers (1 << QRNIC_CQ_MAX_LOG CQEs): made through a two
 * level page list, its page addresses counted in the device's pool and
 * refused beyond it; one CQE more than the largest is refused.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define WRAP_LOG 16
#define DEPTH (1u << WRAP_LOG)
#define BATCH 64u

static struct pair p;
static struct hcq *big;
static struct hqp *a, *b;
static uint64_t next_id = 1;

/* n SEND_IMMs from a to b; b's receive completions go to the big CQ. */
static void send_n(uint32_t n)
{
    struct hwc wc;

    while (n) {
        uint32_t k = n < BATCH ? n : BATCH, i;

        for (i = 0; i < k; i++) {
            struct hwr wr = mkwr(next_id, QRNIC_WR_SEND_IMM, p.mr[0]->iova,
                                 8, p.mr[0]->key);
            struct hsge s = { p.mr[1]->iova, 64, p.mr[1]->key };

            wr.imm = (uint32_t)next_id;
            qp_post_recv(b, next_id, &s, 1, i == k - 1);
            qp_post_send(a, &wr, i == k - 1);
            next_id++;
        }
        harness_run(now_ns + 20 * MS);
        while (cq_poll(p.cq[0], &wc)) {
            ;
        }
        n -= k;
    }
}

/* Poll n completions: are they ids first.. in order, successful? */
static uint32_t poll_n(uint32_t n, uint64_t first)
{
    uint32_t good = 0;
    struct hwc wc;

    while (good < n && cq_poll(big, &wc)) {
        if (wc.wr_id != first + good || wc.imm != (uint32_t)(first + good) ||
            wc.status != QRNIC_WC_SUCCESS) {
            break;
        }
        good++;
    }
    return good;
}

static uint64_t guest_errors(void)
{
    uint64_t n = 0;
    int i;

    for (i = 0; i < QRNIC_GUEST_ERR_MAX; i++) {
        n += nodes[1].d.guest_errs[i];
    }
    return n;
}

static uint64_t overflows(void)
{
    return nodes[1].d.e.stats.v[QRNIC_STAT_CQ_OVERFLOWS];
}

static uint64_t page_list;

/*
 * CREATE_CQ of 1 << log CQEs on node 1 through a two level page list
 * naming one page for every page of the buffer (the device never checks
 * that pages differ).  The status; the CQ number in *cqn.
 */
static uint8_t create_big(uint8_t log, uint32_t *cqn)
{
    uint32_t npages = ((32u << log) + 64 + 4095) / 4096;
    uint32_t leaves = (npages + QRNIC_PBL_PER_PAGE - 1) / QRNIC_PBL_PER_PAGE;
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_CQ);
    uint64_t page, leaf;
    uint32_t i, j;

    if (!page_list) {
        page = node_alloc(&nodes[1], 4096, 4096);
        leaf = node_alloc(&nodes[1], 4096, 4096);
        for (j = 0; j < QRNIC_PBL_PER_PAGE; j++) {
            qrnic_st64(node_ptr(&nodes[1], leaf + 8 * j), page);
        }
        page_list = node_alloc(&nodes[1], 4096, 4096);
        for (i = 0; i < QRNIC_PBL_PER_PAGE; i++) {
            qrnic_st64(node_ptr(&nodes[1], page_list + 8 * i), leaf);
        }
    }
    if (leaves > QRNIC_PBL_PER_PAGE) {
        return 0xff;
    }
    c.create_cq.pbl.addr = page_list;
    c.create_cq.pbl.npages = npages;
    c.create_cq.pbl.levels = QRNIC_PBL_LEVEL2;
    c.create_cq.pbl.page_shift = 12;
    c.create_cq.eqn = nodes[1].ceq;
    c.create_cq.log_depth = log;
    return node_cmd(&nodes[1], &c, cqn);
}

static void test_largest(void)
{
    struct qrnic_engine *e = &nodes[1].d.e;
    uint32_t npages = ((32u << QRNIC_CQ_MAX_LOG) + 64 + 4095) / 4096;
    uint32_t held = e->mtt_used, max = e->mtt_max, cqn = 0;
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_CQ);
    uint8_t st;

    st = create_big(QRNIC_CQ_MAX_LOG, &cqn);
    CHECK(st == QRNIC_ST_OK && e->mtt_used == held + npages,
          "CREATE_CQ of 1 << %u CQEs: OK, its %u page addresses counted "
          "(%u)", QRNIC_CQ_MAX_LOG, npages, e->mtt_used - held);
    c.destroy_cq.cqn = cqn;
    CHECK(node_cmd(&nodes[1], &c, NULL) == QRNIC_ST_OK &&
          e->mtt_used == held, "DESTROY_CQ gives them back");
    CHECK_EQ(create_big(QRNIC_CQ_MAX_LOG + 1, &cqn), QRNIC_ST_BAD_PARAM,
             "CREATE_CQ of 1 << %u CQEs: BAD_PARAM", QRNIC_CQ_MAX_LOG + 1);
    e->mtt_max = held + npages - 1;
    CHECK(create_big(QRNIC_CQ_MAX_LOG, &cqn) == QRNIC_ST_NO_RESOURCES &&
          e->mtt_used == held,
          "with one page address too few left: NO_RESOURCES, nothing held");
    e->mtt_max = max;
}

int main(void)
{
    uint64_t errors;
    uint32_t got;
    struct hwc wc;

    pair_setup(&p, 97, 3, 10, 3, 0, 1, 64u << 10);
    big = node_create_cq(&nodes[1], WRAP_LOG);
    CHECK(big != NULL, "CREATE_CQ of 1 << %u CQEs", WRAP_LOG);
    if (!big) {
        return 1;
    }
    a = node_create_qp(&nodes[0], p.cq[0], p.cq[0], 8, 7, 8, 5);
    b = node_create_qp(&nodes[1], p.cq[1], big, 8, 7, 8, 5);
    qp_connect(a, b, 3, 10, 3, 7, 1);
    qp_connect(b, a, 3, 10, 3, 7, 1);

    /* Pass 1: the whole ring, nothing polled. */
    send_n(DEPTH);
    CHECK(overflows() == 0, "%u completions fill the ring, none lost", DEPTH);
    node_cq_events(&nodes[1], big->cqn);
    cq_arm(big, false);
    CHECK(node_cq_events(&nodes[1], big->cqn) == 1,
          "arming a full ring fires at once (it is not taken for empty)");
    got = poll_n(DEPTH, 1);
    CHECK(got == DEPTH && !cq_poll(big, &wc),
          "pass 1: %u of %u CQEs in order, then the ring is empty", got,
          DEPTH);
    errors = guest_errors();
    cq_arm(big, false);
    CHECK(node_cq_events(&nodes[1], big->cqn) == 0 &&
          guest_errors() == errors,
          "consumer index %u on the doorbell: taken, nothing to report",
          big->ci);

    /* Pass 2: indexes 1 << 16 and up, phase 0. */
    send_n(DEPTH);
    CHECK(overflows() == 0,
          "pass 2 fills the ring again (record consumer index %u)", big->ci);
    send_n(1);
    CHECK(overflows() == 1 &&
          node_async_events(&nodes[1], QRNIC_EVENT_CQ_ERR, big->cqn) == 1,
          "one completion more overflows: counted, CQ_ERR raised");
    got = poll_n(DEPTH, 1 + DEPTH);
    CHECK(got == DEPTH && !cq_poll(big, &wc),
          "pass 2: %u of %u CQEs in order, the overflowed one not among them",
          got, DEPTH);

    /* Pass 3 begins: phase 1 again. */
    send_n(3);
    got = poll_n(3, 2 + 2ull * DEPTH);
    CHECK(got == 3 && overflows() == 1,
          "after the overflow the CQ carries on into pass 3 (%u of 3)", got);
    test_largest();
    harness_fini();
    return tap_failures ? 1 : 0;
}
