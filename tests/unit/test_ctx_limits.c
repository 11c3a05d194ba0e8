/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one user context may hold (enum qrnic_ctx_res): QUERY_DEVICE
 * reports the limits (a quarter of each table by default); past one, the
 * command fails with OVER_QUOTA, counted in STAT_CTX_OVER_QUOTA, and
 * nothing changes; other contexts and the kernel's objects are not
 * limited by it; what a context frees it may use again; all user
 * contexts together hold at most three quarters of a table.  A region
 * keeps its context through REREG_MR, a refused one keeps its count, and
 * a context with objects cannot go.  XRC_TGT QPs count against the
 * context CREATE_QP names like any QP.
 */
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

/* What each table holds after harness_small_tables(). */
#define SMALL_PDS   1024
#define SMALL_CQS   1023
#define SMALL_QPS   1022
#define SMALL_SRQS  1023
#define SMALL_KEYS  4095
#define SMALL_MTT   (1u << 20)

int tap_failures;

static struct node *n = &nodes[0];

static struct qrnic_engine *eng(void)
{
    return &n->d.e;
}

static uint64_t over_quota(void)
{
    return eng()->stats.v[QRNIC_STAT_CTX_OVER_QUOTA];
}

/* Create objects in this context and PD. */
static void use(uint32_t uctx, uint32_t pd)
{
    n->uctx = uctx;
    n->pd = pd;
}

static uint8_t alloc_pd(uint32_t *pdn)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_PD);

    c.alloc_pd.uctx = n->uctx;
    return node_cmd(n, &c, pdn);
}

static uint8_t create_cq(uint32_t *cqn)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_CQ);

    c.create_cq.pbl.addr = node_alloc(n, 4096, 4096);
    c.create_cq.pbl.npages = 1;
    c.create_cq.pbl.page_shift = 12;
    c.create_cq.uctx = n->uctx;
    c.create_cq.eqn = n->ceq;
    c.create_cq.log_depth = 6;
    return node_cmd(n, &c, cqn);
}

static uint8_t alloc_mw(uint32_t *key)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_MW);

    c.alloc_mw.pdn = n->pd;
    c.alloc_mw.type = QRNIC_MW_TYPE_2;
    return node_cmd(n, &c, key);
}

static uint8_t destroy(uint8_t opcode, uint32_t handle)
{
    struct qrnic_cmd c = harness_cmd(opcode);

    memcpy(c.raw, &handle, sizeof(handle));
    return node_cmd(n, &c, NULL);
}

/* QRNIC_CMD_QUERY_DEVICE's ctx_max[]. */
static void query_limits(uint32_t *max)
{
    uint64_t a = node_alloc(n, sizeof(struct qrnic_dev_attr), 64);
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_QUERY_DEVICE);
    struct qrnic_dev_attr attr;

    c.query_device.resp_addr = a;
    CHECK(node_cmd(n, &c, NULL) == QRNIC_ST_OK, "QUERY_DEVICE");
    memcpy(&attr, node_ptr(n, a), sizeof(attr));
    memcpy(max, attr.ctx_max, sizeof(attr.ctx_max));
}

static void test_defaults(void)
{
    static const uint32_t want[QRNIC_CTX_RES_COUNT] = {
        [QRNIC_CTX_PD] = SMALL_PDS / 4,
        [QRNIC_CTX_CQ] = SMALL_CQS / 4,
        [QRNIC_CTX_QP] = SMALL_QPS / 4,
        [QRNIC_CTX_SRQ] = SMALL_SRQS / 4,
        [QRNIC_CTX_MR] = SMALL_KEYS / 4,
        [QRNIC_CTX_MW] = SMALL_KEYS / 4,
        [QRNIC_CTX_QMEM_PAGES] = QMEM_SIZE / QRNIC_QMEM_PAGE_SIZE / 4,
        [QRNIC_CTX_MR_PAGES] = SMALL_MTT / 4,
    };
    uint32_t max[QRNIC_CTX_RES_COUNT];

    query_limits(max);
    CHECK(!memcmp(max, want, sizeof(max)),
          "QUERY_DEVICE ctx_max: a quarter of each table by default "
          "(PDs %u, CQs %u, QPs %u, SRQs %u, MRs %u, MWs %u, qmem pages %u, "
          "MR pages %u)", max[0], max[1], max[2], max[3], max[4], max[5],
          max[6], max[7]);
    eng()->ctx_max[QRNIC_CTX_QP] = 7;
    query_limits(max);
    CHECK_EQ(max[QRNIC_CTX_QP], 7, "QUERY_DEVICE ctx_max follows a set limit");
    eng()->ctx_max[QRNIC_CTX_QP] = 0;
}

/* PDs (the context's first came with node_use_uctx), then CQs. */
static void test_pd_cq(uint32_t other)
{
    uint32_t pdn, cqn[3];
    uint64_t refused = over_quota();

    eng()->ctx_max[QRNIC_CTX_PD] = 2;
    eng()->ctx_max[QRNIC_CTX_CQ] = 2;
    CHECK(alloc_pd(&pdn) == QRNIC_ST_OK, "a context's 2nd PD of 2");
    CHECK_EQ(alloc_pd(&pdn), QRNIC_ST_OVER_QUOTA, "its 3rd PD: OVER_QUOTA");
    CHECK_EQ(over_quota(), refused + 1, "STAT_CTX_OVER_QUOTA counts it");
    CHECK(create_cq(&cqn[0]) == QRNIC_ST_OK && create_cq(&cqn[1]) ==
          QRNIC_ST_OK, "its 2 CQs of 2");
    CHECK_EQ(create_cq(&cqn[2]), QRNIC_ST_OVER_QUOTA, "its 3rd CQ: OVER_QUOTA");
    CHECK(destroy(QRNIC_CMD_DESTROY_CQ, cqn[1]) == QRNIC_ST_OK &&
          create_cq(&cqn[1]) == QRNIC_ST_OK,
          "a CQ destroyed makes room for another");

    n->uctx = 0;
    CHECK(alloc_pd(&pdn) == QRNIC_ST_OK && alloc_pd(&pdn) == QRNIC_ST_OK &&
          create_cq(&cqn[2]) == QRNIC_ST_OK && create_cq(&cqn[2]) ==
          QRNIC_ST_OK && create_cq(&cqn[2]) == QRNIC_ST_OK,
          "the kernel's PDs and CQs are not limited");
    n->uctx = other;
    CHECK(alloc_pd(&pdn) == QRNIC_ST_OK && create_cq(&cqn[2]) == QRNIC_ST_OK,
          "another context still gets PDs and CQs");
    eng()->ctx_max[QRNIC_CTX_PD] = 0;
    eng()->ctx_max[QRNIC_CTX_CQ] = 0;
}

/* QPs, and the queue memory their slices take. */
static void test_qp_qmem(struct hcq *cq)
{
    struct hqp *qp[3];
    uint8_t st;

    eng()->ctx_max[QRNIC_CTX_QP] = 2;
    qp[0] = node_create_qp_type(n, QRNIC_QPT_RC, cq, cq, 4, 6, 4, 6, &st);
    qp[1] = node_create_qp_type(n, QRNIC_QPT_RC, cq, cq, 4, 6, 4, 6, &st);
    CHECK(qp[0] && qp[1], "a context's 2 QPs of 2");
    qp[2] = node_create_qp_type(n, QRNIC_QPT_UD, cq, cq, 4, 6, 4, 6, &st);
    CHECK(!qp[2] && st == QRNIC_ST_OVER_QUOTA, "its 3rd QP: OVER_QUOTA (%u)",
          st);
    CHECK(destroy(QRNIC_CMD_DESTROY_QP, qp[1]->qpn) == QRNIC_ST_OK,
          "one destroyed");
    eng()->ctx_max[QRNIC_CTX_QP] = 0;

    /* qp[0] holds 2 of 8 pages: 9 more do not fit, 5 more do. */
    eng()->ctx_max[QRNIC_CTX_QMEM_PAGES] = 8;
    qp[1] = node_create_qp_type(n, QRNIC_QPT_RC, cq, cq, 6, 9, 4, 6, &st);
    CHECK(!qp[1] && st == QRNIC_ST_OVER_QUOTA,
          "a QP of 9 pages where 6 of 8 are free: OVER_QUOTA (%u)", st);
    qp[1] = node_create_qp_type(n, QRNIC_QPT_RC, cq, cq, 5, 9, 4, 6, &st);
    CHECK(qp[1] != NULL, "one of 5 pages fits");
    eng()->ctx_max[QRNIC_CTX_QMEM_PAGES] = 0;
}

/* SRQs, and their rings' pages through a resize. */
static void test_srq(void)
{
    struct qrnic_srqc *s;
    struct hsrq *srq[2];
    struct qrnic_cmd c;
    uint32_t off;
    uint8_t st;

    eng()->ctx_max[QRNIC_CTX_SRQ] = 1;
    srq[0] = node_create_srq(n, 4, 6, 0, &st);
    srq[1] = node_create_srq(n, 4, 6, 0, &st);
    CHECK(srq[0] && !srq[1] && st == QRNIC_ST_OVER_QUOTA,
          "a context's 2nd SRQ of 1: OVER_QUOTA (%u)", st);
    eng()->ctx_max[QRNIC_CTX_SRQ] = 0;

    s = qrnic_srq_get(eng(), srq[0]->srqn);
    off = s->off;
    eng()->ctx_max[QRNIC_CTX_QMEM_PAGES] =
        eng()->uctx[n->uctx].used[QRNIC_CTX_QMEM_PAGES] + 3;
    c = harness_cmd(QRNIC_CMD_MODIFY_SRQ);
    c.modify_srq.srqn = srq[0]->srqn;
    c.modify_srq.mask = QRNIC_SRQ_MOD_RESIZE;
    c.modify_srq.offset = (1u << 20);
    /* Until the old ring goes, both count: 3 more pages are free. */
    c.modify_srq.log_depth = 8;           /* 4 pages */
    CHECK(node_cmd(n, &c, NULL) == QRNIC_ST_OVER_QUOTA &&
          s->off == off && s->log_depth == 4,
          "an SRQ resize past the context's queue memory: OVER_QUOTA, "
          "the ring as it was");
    c.modify_srq.log_depth = 7;           /* 2 pages */
    CHECK(node_cmd(n, &c, NULL) == QRNIC_ST_OK && s->off == (1u << 20) &&
          s->log_depth == 7, "one that fits with the old ring moves it");
    eng()->ctx_max[QRNIC_CTX_QMEM_PAGES] = 0;
}

/* Regions and windows share the key table; each kind has its limit. */
static void test_keys(uint32_t other, uint32_t other_pd)
{
    uint32_t key[4], i, mine, mine_pd = n->pd;
    struct hmr *mr;
    uint8_t st;

    eng()->ctx_max[QRNIC_CTX_MW] = 3;
    for (i = 0; i < 3; i++) {
        st = alloc_mw(&key[i]);
    }
    CHECK(st == QRNIC_ST_OK && alloc_mw(&key[3]) == QRNIC_ST_OVER_QUOTA,
          "a context's 4th window of 3: OVER_QUOTA");
    eng()->ctx_max[QRNIC_CTX_MW] = 0;

    eng()->ctx_max[QRNIC_CTX_MR] = 1;
    mr = node_mr(n, 8192, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK(mr->status == QRNIC_ST_OK, "a context's region of 1");
    mr = node_mr(n, 8192, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK_EQ(mr->status, QRNIC_ST_OVER_QUOTA, "its 2nd: OVER_QUOTA");
    eng()->ctx_max[QRNIC_CTX_MR] = 0;

    /* Page addresses: 5 more allowed; 2 or 3, then 4 or 5 asked for. */
    mine = n->uctx;
    eng()->ctx_max[QRNIC_CTX_MR_PAGES] =
        eng()->uctx[mine].used[QRNIC_CTX_MR_PAGES] + 5;
    mr = node_mr(n, 2 * 4096, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK(mr->status == QRNIC_ST_OK,
          "a region of %u pages within the context's page limit", mr->npages);
    mr = node_mr(n, 4 * 4096, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK_EQ(mr->status, QRNIC_ST_OVER_QUOTA,
             "one of %u more pages: OVER_QUOTA", mr->npages);
    eng()->ctx_max[QRNIC_CTX_MR_PAGES] = 0;

    use(other, other_pd);
    eng()->ctx_max[QRNIC_CTX_MW] = 3;
    CHECK(alloc_mw(&key[0]) == QRNIC_ST_OK,
          "another context still gets windows");
    eng()->ctx_max[QRNIC_CTX_MW] = 0;
    use(mine, mine_pd);
}

/*
 * Windows, then regions, until the device refuses one of each: how many
 * it gave; returns the refused region's status.
 */
static uint8_t fill_keys(uint32_t *windows, uint32_t *regions)
{
    uint32_t key;
    struct hmr *mr;

    while (alloc_mw(&key) == QRNIC_ST_OK) {
        (*windows)++;
    }
    do {
        mr = node_mr(n, 64, QRNIC_ACCESS_LOCAL_WRITE);
        *regions += mr->status == QRNIC_ST_OK;
    } while (mr->status == QRNIC_ST_OK);
    return mr->status;
}

/*
 * The whole key table: one context takes its share of windows and of
 * regions, and still keys are left for others and the kernel.
 */
static void test_key_space(uint32_t other, uint32_t other_pd)
{
    uint32_t key, windows = 0, regions = 0, mine = n->uctx;

    CHECK(fill_keys(&windows, &regions) == QRNIC_ST_OVER_QUOTA &&
          eng()->uctx[mine].used[QRNIC_CTX_MW] ==
          qrnic_ctx_limit(eng(), QRNIC_CTX_MW) &&
          eng()->uctx[mine].used[QRNIC_CTX_MR] ==
          qrnic_ctx_limit(eng(), QRNIC_CTX_MR),
          "one context fills its shares of the key table (%u more windows, "
          "%u more regions) and is refused with OVER_QUOTA", windows,
          regions);
    use(other, other_pd);
    CHECK(node_mr(n, 64, QRNIC_ACCESS_LOCAL_WRITE)->status == QRNIC_ST_OK &&
          alloc_mw(&key) == QRNIC_ST_OK,
          "another context still registers regions and windows");
    node_use_kernel(n);
    CHECK(node_mr(n, 64, QRNIC_ACCESS_LOCAL_WRITE)->status == QRNIC_ST_OK,
          "and so does the kernel");
}

/* Regions and windows of all user contexts: three quarters of the keys. */
static void test_users_keys(void)
{
    uint32_t got = 0, kernel = 0, u;
    struct hmr *mr;

    for (u = 0; u < 3; u++) {
        CHECK(node_use_uctx(n) == QRNIC_ST_OK, "context %u", u);
        fill_keys(&got, &got);
    }
    CHECK_EQ(got, SMALL_KEYS - SMALL_KEYS / 4,
             "three contexts filling windows and regions get three "
             "quarters of the key table together");
    node_use_kernel(n);
    do {
        mr = node_mr(n, 64, QRNIC_ACCESS_LOCAL_WRITE);
        kernel += mr->status == QRNIC_ST_OK;
    } while (mr->status == QRNIC_ST_OK && kernel < 2000);
    CHECK(kernel + 1 >= SMALL_KEYS / 4,
          "the kernel still registers the last quarter (%u regions)", kernel);
}

/* REREG_MR: within the region's context only, its pages counted anew. */
static void test_rereg(uint32_t ctx_a, uint32_t pd_a, uint32_t pd_b)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_REREG_MR);
    struct hmr *mr;
    uint64_t pbl;

    use(ctx_a, pd_a);
    mr = node_mr(n, 4096, QRNIC_ACCESS_LOCAL_WRITE);
    pbl = node_alloc(n, 8, 8);
    memcpy(node_ptr(n, pbl), &mr->pages[0], 8);
    c.rereg_mr.key = mr->key;
    c.rereg_mr.pbl.addr = pbl;
    c.rereg_mr.pbl.npages = 1;
    c.rereg_mr.pbl.levels = QRNIC_PBL_LEVEL1;
    c.rereg_mr.pbl.page_shift = 12;
    c.rereg_mr.iova = 0x10000;
    c.rereg_mr.length = 4096;
    c.rereg_mr.access = QRNIC_ACCESS_LOCAL_WRITE;
    c.rereg_mr.pdn = pd_b;
    CHECK_EQ(node_cmd(n, &c, NULL), QRNIC_ST_BAD_HANDLE,
             "REREG_MR into another context's PD: BAD_HANDLE");
    c.rereg_mr.pdn = pd_a;
    CHECK(node_cmd(n, &c, NULL) == QRNIC_ST_OK,
          "REREG_MR within its context: OK");
}

/*
 * User contexts together hold at most three quarters of a table, whatever
 * each may: the kernel keeps the rest.
 */
static void test_users_total(void)
{
    uint32_t pdn, a, got = 0;

    eng()->ctx_max[QRNIC_CTX_PD] = 600;
    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "context A");
    a = n->uctx;
    while (alloc_pd(&pdn) == QRNIC_ST_OK) {
        got++;
    }
    CHECK(got + 1 == 600, "context A: %u PDs of its 600", got + 1);
    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "context B");
    got = 1;
    while (alloc_pd(&pdn) == QRNIC_ST_OK) {
        got++;
    }
    CHECK_EQ(got, SMALL_PDS * 3 / 4 - 600,
             "context B gets what is left of the users' three quarters");
    n->uctx = 0;
    for (got = 0; alloc_pd(&pdn) == QRNIC_ST_OK; got++) {
        continue;
    }
    CHECK_EQ(got, SMALL_PDS / 4 - 1,
             "the kernel still gets the last quarter (one was its own)");
    n->uctx = a;
    eng()->ctx_max[QRNIC_CTX_PD] = 0;
}

/* A refused REREG_MR gives back what it took, even past a lowered limit. */
static void test_rereg_lowered(void)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_REREG_MR);
    struct hmr *mr;
    uint64_t pbl;
    uint32_t held, i;

    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "a context for REREG_MR");
    mr = node_mr(n, 2 * 4096, QRNIC_ACCESS_LOCAL_WRITE);
    held = eng()->uctx[n->uctx].used[QRNIC_CTX_MR_PAGES];
    eng()->ctx_max[QRNIC_CTX_MR_PAGES] = 1;       /* below what it holds */
    pbl = node_alloc(n, 8 * 4, 8);
    for (i = 0; i < 4; i++) {
        uint64_t page = node_alloc(n, 4096, 4096);

        memcpy(node_ptr(n, pbl + 8 * i), &page, 8);
    }
    c.rereg_mr.key = mr->key;
    c.rereg_mr.pbl.addr = pbl;
    c.rereg_mr.pbl.npages = 4;
    c.rereg_mr.pbl.levels = QRNIC_PBL_LEVEL1;
    c.rereg_mr.pbl.page_shift = 12;
    c.rereg_mr.iova = 0x10000;
    c.rereg_mr.length = 4 * 4096;
    c.rereg_mr.access = QRNIC_ACCESS_LOCAL_WRITE;
    c.rereg_mr.pdn = n->pd;
    CHECK(node_cmd(n, &c, NULL) == QRNIC_ST_OVER_QUOTA &&
          eng()->uctx[n->uctx].used[QRNIC_CTX_MR_PAGES] == held,
          "REREG_MR to 4 pages past a limit lowered to 1: OVER_QUOTA, the "
          "region's %u pages still counted", held);
    CHECK(node_dereg_mr(mr) == QRNIC_ST_OK &&
          eng()->uctx[n->uctx].used[QRNIC_CTX_MR_PAGES] == 0,
          "then DEREG_MR gives them all back");
    eng()->ctx_max[QRNIC_CTX_MR_PAGES] = 0;
    node_use_kernel(n);
}

static void test_dealloc_uctx(void)
{
    uint32_t uctx;
    struct hsrq *srq;
    uint8_t st;

    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "a third context");
    uctx = n->uctx;
    srq = node_create_srq(n, 2, 5, 0, &st);
    CHECK(destroy(QRNIC_CMD_DEALLOC_UCTX, uctx) == QRNIC_ST_BAD_STATE,
          "DEALLOC_UCTX while it owns an SRQ and a PD: BAD_STATE");
    CHECK(srq && destroy(QRNIC_CMD_DESTROY_SRQ, srq->srqn) == QRNIC_ST_OK &&
          destroy(QRNIC_CMD_DEALLOC_PD, n->pd) == QRNIC_ST_OK &&
          destroy(QRNIC_CMD_DEALLOC_UCTX, uctx) == QRNIC_ST_OK,
          "after its SRQ and PD go: OK");
    node_use_kernel(n);
}

/*
 * XRC_TGT QPs count against the context the driver names (its domain's
 * owner): its QP limit, the users' three quarters, and it cannot go while
 * they exist.
 */
static void test_xrc_tgt(void)
{
    struct hqp *tgt[3], *kernel_tgt;
    uint32_t uctx, got;
    uint8_t st;

    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "a context for XRC_TGT QPs");
    uctx = n->uctx;
    eng()->ctx_max[QRNIC_CTX_QP] = 2;
    tgt[0] = node_create_xrc_tgt(n, 5, &st);
    tgt[1] = node_create_xrc_tgt(n, 6, &st);
    CHECK(tgt[0] && tgt[1] && eng()->uctx[uctx].used[QRNIC_CTX_QP] == 2,
          "a context's 2 XRC_TGT QPs of 2, in two domains");
    tgt[2] = node_create_xrc_tgt(n, 5, &st);
    CHECK(!tgt[2] && st == QRNIC_ST_OVER_QUOTA,
          "its 3rd XRC_TGT QP: OVER_QUOTA (%u)", st);
    CHECK(destroy(QRNIC_CMD_DEALLOC_UCTX, uctx) == QRNIC_ST_BAD_STATE,
          "DEALLOC_UCTX while XRC_TGT QPs count against it: BAD_STATE");
    n->uctx = 0;
    kernel_tgt = node_create_xrc_tgt(n, 5, &st);
    CHECK(kernel_tgt != NULL, "an XRC_TGT QP of context 0 is not limited");
    CHECK(tgt[0] && tgt[1] &&
          destroy(QRNIC_CMD_DESTROY_QP, tgt[0]->qpn) == QRNIC_ST_OK &&
          destroy(QRNIC_CMD_DESTROY_QP, tgt[1]->qpn) == QRNIC_ST_OK &&
          eng()->uctx[uctx].used[QRNIC_CTX_QP] == 0,
          "destroying them gives the context its QPs back");

    eng()->ctx_max[QRNIC_CTX_QP] = SMALL_QPS;
    n->uctx = uctx;
    for (got = 0; node_create_xrc_tgt(n, 5, &st); got++) {
        continue;
    }
    CHECK(got == SMALL_QPS - SMALL_QPS / 4 && st == QRNIC_ST_OVER_QUOTA,
          "one context's XRC_TGT QPs stop at the users' three quarters "
          "(%u, then %u)", got, st);
    n->uctx = 0;
    for (got = 0; node_create_xrc_tgt(n, 5, &st); got++) {
        continue;
    }
    CHECK_EQ(got, SMALL_QPS / 4 - 1,
             "the kernel keeps its quarter (one XRC_TGT QP was its own)");
    eng()->ctx_max[QRNIC_CTX_QP] = 0;
}

int main(void)
{
    uint32_t a, b, pd_a, pd_b;
    struct hcq *cq;

    harness_small_tables();
    harness_init(7);
    test_defaults();
    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "context B");
    b = n->uctx;
    pd_b = n->pd;
    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "context A");
    a = n->uctx;
    pd_a = n->pd;
    test_pd_cq(b);
    use(a, pd_a);
    cq = node_create_cq(n, 6);
    CHECK(cq != NULL, "a CQ of context A");
    test_qp_qmem(cq);
    test_srq();
    test_keys(b, pd_b);
    test_rereg(a, pd_a, pd_b);
    test_key_space(b, pd_b);
    harness_fini();

    harness_init(8);
    test_dealloc_uctx();
    harness_fini();

    harness_init(9);
    test_users_total();
    harness_fini();

    harness_init(10);
    test_rereg_lowered();
    harness_fini();

    harness_init(12);
    test_users_keys();
    harness_fini();

    harness_init(13);
    test_xrc_tgt();
    harness_fini();
    return tap_failures ? 1 : 0;
}
