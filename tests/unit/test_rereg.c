/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * REREG_MR: a region of node 1 registered again under its key while the
 * peer writes to it through that key: rights taken away (REM_ACCESS_ERR,
 * memory unchanged) and given back, a new page list and range (data lands
 * in the new pages, the old range refused), another PD (refused, then
 * back), all at once; the page-address count following each new list.
 * Refused commands leave the region serving as before: an unknown key, a
 * stale key byte, a window's key, a fast-registration region, a PD that
 * does not exist, bad rights, pages not covering the range, more page
 * addresses than are free (its own count back), an unreadable page list,
 * windows bound to it (BAD_STATE, and again once unbound).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys_util.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define REGION (16u << 10)
#define ALL_LOCAL (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC)
#define RW (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
            QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_MW_BIND)

static struct hmr *src;         /* node 0: what the peer writes */

/* A new translation for a region: pages in reverse order, their list. */
struct xlat {
    uint64_t iova;
    uint64_t len;
    uint32_t npages;
    uint64_t pages[8];
    uint64_t pbl;
};

static void xlat_new(struct xlat *x, uint64_t iova, uint64_t len)
{
    uint32_t i;

    x->iova = iova;
    x->len = len;
    x->npages = (uint32_t)(((iova & 4095) + len + 4095) >> 12);
    for (i = 0; i < x->npages && i < 8; i++) {
        x->pages[x->npages - 1 - i] = node_alloc(&nodes[1], 4096, 4096);
    }
    x->pbl = node_alloc(&nodes[1], 8 * 8, 8);
    for (i = 0; i < x->npages && i < 8; i++) {
        qrnic_st64(node_ptr(&nodes[1], x->pbl + i * 8ull), x->pages[i]);
    }
}

static uint8_t *xlat_at(const struct xlat *x, uint64_t va)
{
    uint64_t off = va - x->iova + (x->iova & 4095);

    return node_ptr(&nodes[1], x->pages[off >> 12] + (off & 4095));
}

/* The region's current translation as a REREG_MR command, key given. */
static struct qrnic_cmd rereg_of(const struct hmr *mr, uint64_t pbl,
                                 uint32_t pdn, uint32_t access)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_REREG_MR);

    c.rereg_mr.pbl.addr = pbl;
    c.rereg_mr.pbl.npages = mr->npages;
    c.rereg_mr.pbl.levels = QRNIC_PBL_LEVEL1;
    c.rereg_mr.pbl.page_shift = 12;
    c.rereg_mr.iova = mr->iova;
    c.rereg_mr.length = mr->len;
    c.rereg_mr.pdn = pdn;
    c.rereg_mr.access = access;
    c.rereg_mr.key = mr->key;
    return c;
}

static struct qrnic_cmd rereg_xlat(const struct hmr *mr,
                                   const struct xlat *x, uint32_t pdn,
                                   uint32_t access)
{
    struct qrnic_cmd c = rereg_of(mr, x->pbl, pdn, access);

    c.rereg_mr.pbl.npages = x->npages;
    c.rereg_mr.iova = x->iova;
    c.rereg_mr.length = x->len;
    return c;
}

/* The page list node_mr() gave mr, written again for REREG_MR. */
static uint64_t pbl_of(const struct hmr *mr)
{
    uint64_t pbl = node_alloc(mr->n, mr->npages * 8ull, 8);

    memcpy(node_ptr(mr->n, pbl), mr->pages, mr->npages * 8ull);
    return pbl;
}

static uint8_t write_to(struct kpair *k, uint64_t wr_id, uint32_t len,
                        uint64_t raddr, uint32_t rkey, uint32_t seed)
{
    return kpair_write(k, src, wr_id, len, raddr, rkey, seed);
}

static bool landed(struct hmr *dst, uint64_t va, uint32_t len, uint32_t seed)
{
    return mr_verify(dst, va, len, seed) == 0;
}

static void test_rereg(void)
{
    struct qrnic_res_counts r0, r;
    struct hmr *dst;
    struct kpair k;
    struct qrnic_cmd c;
    struct xlat x;
    uint64_t pbl;
    uint32_t pd2 = 0, i;
    bool ok;

    harness_init(81);
    src = node_mr(&nodes[0], REGION, ALL_LOCAL);
    dst = node_mr(&nodes[1], REGION, RW);
    pbl = pbl_of(dst);
    c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    node_cmd(&nodes[1], &c, &pd2);
    CHECK(qf_reg_read(&nodes[1].d, QRNIC_REG_CAP0) & QRNIC_CAP0_REREG_MR,
          "CAP0 has REREG_MR");
    CHECK(kpair_new(&k, QRNIC_QPT_RC), "a connected RC pair");
    CHECK(write_to(&k, 1, 3000, dst->iova + 100, dst->key, 1) ==
          QRNIC_WC_SUCCESS && landed(dst, dst->iova + 100, 3000, 1),
          "RDMA WRITE to the region before");
    r0 = key_res(&nodes[1]);

    /* Rights: no remote write, then back; the same key throughout. */
    c = rereg_of(dst, pbl, nodes[1].pd, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "REREG_MR without REMOTE_WRITE");
    mr_fill(dst, dst->iova, 64, 2);
    CHECK(write_to(&k, 2, 64, dst->iova, dst->key, 3) ==
          QRNIC_WC_REM_ACCESS_ERR && landed(dst, dst->iova, 64, 2),
          "then a WRITE through the key: REM_ACCESS_ERR, memory unchanged");
    kpair_new(&k, QRNIC_QPT_RC);
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    CHECK(node_cmd(&nodes[1], &c, NULL) == QRNIC_ST_OK &&
          write_to(&k, 3, 4000, dst->iova + 5000, dst->key, 4) ==
          QRNIC_WC_SUCCESS && landed(dst, dst->iova + 5000, 4000, 4),
          "REREG_MR with REMOTE_WRITE again: the same key writes");
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr && r.mr_pages == r0.mr_pages,
          "QUERY_RES: no region more, the same page addresses");

    /* A new translation: 3 pages at another iova, starting mid-page. */
    xlat_new(&x, 0x5555000000000ull + 0x234, 2 * 4096 + 10);
    c = rereg_xlat(dst, &x, nodes[1].pd, RW);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "REREG_MR with a new page list and range");
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr && r.mr_pages == r0.mr_pages - dst->npages + 3,
          "QUERY_RES: page addresses follow the new list (%u)", r.mr_pages);
    mr_fill(src, src->iova, x.len, 5);
    post_rdma(k.qp[0], 4, QRNIC_WR_RDMA_WRITE, src->iova, (uint32_t)x.len,
              src->key, x.iova, dst->key);
    ok = next_wc(k.cq[0]).status == QRNIC_WC_SUCCESS;
    for (i = 0; ok && i < x.len; i++) {
        ok = *xlat_at(&x, x.iova + i) == pattern_byte(5, i);
    }
    CHECK(ok, "a WRITE of the whole new range lands in the new pages");
    CHECK_EQ(write_to(&k, 5, 64, dst->iova, dst->key, 6),
             QRNIC_WC_REM_ACCESS_ERR, "the old range: REM_ACCESS_ERR");

    /* Another PD: the QP's PD no longer matches; then everything back. */
    kpair_new(&k, QRNIC_QPT_RC);
    c = rereg_of(dst, pbl, pd2, RW);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "REREG_MR of translation, PD and rights at once (another PD)");
    CHECK_EQ(write_to(&k, 6, 64, dst->iova, dst->key, 7),
             QRNIC_WC_REM_ACCESS_ERR, "a QP of the first PD: REM_ACCESS_ERR");
    c = harness_cmd(QRNIC_CMD_DEALLOC_PD);
    c.dealloc_pd.pdn = pd2;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_STATE,
             "DEALLOC_PD of the PD the region moved to: BAD_STATE");
    kpair_new(&k, QRNIC_QPT_RC);
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    CHECK(node_cmd(&nodes[1], &c, NULL) == QRNIC_ST_OK &&
          write_to(&k, 7, REGION, dst->iova, dst->key, 8) ==
          QRNIC_WC_SUCCESS && landed(dst, dst->iova, REGION, 8),
          "back in its PD: a WRITE of the whole region");
    c = harness_cmd(QRNIC_CMD_DEALLOC_PD);
    c.dealloc_pd.pdn = pd2;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "the other PD is free again");
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr && r.mr_pages == r0.mr_pages,
          "QUERY_RES: as before");
}

static void test_rereg_errors(void)
{
    struct qrnic_res_counts r0, r;
    struct hmr *dst, *big;
    uint32_t key, mw = 0, frmr = 0, i;
    struct kpair k;
    struct qrnic_cmd c;
    struct hwc wc;
    uint64_t pbl;
    uint8_t st;

    harness_init(82);
    src = node_mr(&nodes[0], REGION, ALL_LOCAL);
    dst = node_mr(&nodes[1], REGION, RW);
    pbl = pbl_of(dst);
    kpair_new(&k, QRNIC_QPT_RC);
    r0 = key_res(&nodes[1]);

    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    c.rereg_mr.key = (nodes[1].d.e.obj[QRNIC_OBJ_KEY].size - 1) << 8;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "an unknown key: BAD_HANDLE");
    c.rereg_mr.key = key_next(dst->key);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "another key byte than the region's: BAD_HANDLE");
    c.rereg_mr.key = 0;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "key 0: BAD_HANDLE");
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
    c.rereg_mr.key = mw;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "a window's key: BAD_HANDLE");
    key_alloc_mr(&nodes[1], nodes[1].pd, 4, &frmr);
    c.rereg_mr.key = frmr;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "a fast-registration region: BAD_HANDLE");

    c = rereg_of(dst, pbl, 99, RW);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
             "a PD that does not exist: BAD_HANDLE");
    c = rereg_of(dst, pbl, nodes[1].pd, QRNIC_ACCESS_REMOTE_WRITE);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "REMOTE_WRITE without LOCAL_WRITE: BAD_PARAM");
    c = rereg_of(dst, pbl, nodes[1].pd, RW | 1u << 20);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "an unknown access bit: BAD_PARAM");
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    c.rereg_mr.length += 4096;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "a range longer than its pages: BAD_PARAM");
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    c.rereg_mr.length = 0;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "length 0: BAD_PARAM");
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    c.rereg_mr.pbl.page_shift = 11;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
             "2 KiB pages: BAD_PARAM");
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    c.rereg_mr.pbl.levels = QRNIC_PBL_PHYS;
    c.rereg_mr.pbl.npages = 0;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "PHYS in a kernel PD: as REG_MR, accepted");
    c = rereg_of(dst, pbl, nodes[1].pd, RW);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "and its page list back");
    c = rereg_of(dst, 0xdead000000ull, nodes[1].pd, RW);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_DMA_ERROR,
             "a page list outside guest memory: DMA_ERROR");

    /*
     * Page addresses (the pool regions and CQs share): all free ones plus
     * its own may be asked for.
     */
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr + 1 && r.mr_pages == r0.mr_pages + 4,
          "QUERY_RES: the refusals changed nothing (the ALLOC_MR's 4 pages)");
    big = node_mr(&nodes[1], 4096, QRNIC_ACCESS_LOCAL_WRITE);
    c = harness_cmd(QRNIC_CMD_REREG_MR);
    c.rereg_mr.pbl.addr = RAM_BASE;
    c.rereg_mr.pbl.levels = QRNIC_PBL_CONTIG;
    c.rereg_mr.pbl.page_shift = 12;
    c.rereg_mr.pbl.npages = nodes[1].d.e.mtt_max - r.mr_pages - r.cq_pages;
    c.rereg_mr.iova = 0x10000;
    c.rereg_mr.length = (uint64_t)c.rereg_mr.pbl.npages << 12;
    c.rereg_mr.pdn = nodes[1].pd;
    c.rereg_mr.access = QRNIC_ACCESS_LOCAL_WRITE;
    c.rereg_mr.key = big->key;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "REREG_MR to every free page address plus its own one");
    r = key_res(&nodes[1]);
    CHECK(r.cq_pages > 0 && r.mr_pages + r.cq_pages == nodes[1].d.e.mtt_max,
          "QUERY_RES: all page addresses in use (%u regions', %u CQs')",
          r.mr_pages, r.cq_pages);
    c.rereg_mr.pbl.npages++;
    c.rereg_mr.length += 4096;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_NO_RESOURCES,
             "one more: NO_RESOURCES");
    CHECK_EQ(node_dereg_mr(big), QRNIC_ST_OK, "DEREG_MR of it");

    /* Still the region it was. */
    CHECK(write_to(&k, 1, REGION, dst->iova, dst->key, 9) ==
          QRNIC_WC_SUCCESS && landed(dst, dst->iova, REGION, 9),
          "after the refusals the region serves as registered");

    /* A bound window: BAD_STATE until it is unbound. */
    key = key_next(mw);
    post_bind(k.qp[1], 0xb1, mw, key, dst->iova, 4096, dst->key,
              QRNIC_ACCESS_REMOTE_WRITE);
    wc = next_wc(k.cq[1]);
    CHECK_EQ(wc.status, QRNIC_WC_SUCCESS, "a type 2 window bound to it");
    c = rereg_of(dst, pbl, nodes[1].pd, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_STATE,
             "REREG_MR while a window is bound: BAD_STATE");
    CHECK(write_to(&k, 2, 256, dst->iova, dst->key, 10) ==
          QRNIC_WC_SUCCESS && write_to(&k, 3, 256, dst->iova, key, 11) ==
          QRNIC_WC_SUCCESS && landed(dst, dst->iova, 256, 11),
          "the region and the window serve on");
    post_local_inv(k.qp[1], 0x1a, key);
    CHECK_EQ(next_wc(k.cq[1]).status, QRNIC_WC_SUCCESS,
             "LOCAL_INV of the window");
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "then REREG_MR (no remote write)");
    CHECK_EQ(write_to(&k, 4, 64, dst->iova, dst->key, 12),
             QRNIC_WC_REM_ACCESS_ERR, "which a WRITE now meets");

    /* Counts back. */
    st = key_dealloc_mw(&nodes[1], mw);
    st |= key_dereg(&nodes[1], frmr);
    CHECK_EQ(st, QRNIC_ST_OK, "DEALLOC_MW, DEREG_MR of the others");
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr && r.mr_pages == r0.mr_pages && r.mw == 0,
          "QUERY_RES: back to where it was");
    for (i = 0; i < 2; i++) {
        CHECK_EQ(qp_state_of(k.qp[i]), QRNIC_QPS_ERR,
                 "node %u's QP in ERR after the refused WRITE", i);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    harness_small_tables();     /* one region can fill the page addresses */
    test_rereg();
    test_rereg_errors();
    harness_fini();
    return tap_failures ? 1 : 0;
}
