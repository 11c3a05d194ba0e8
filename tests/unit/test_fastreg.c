/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fast registration: ALLOC_MR and its bad arguments (user PD, page
 * counts, page address space); a region that is invalid until a REG_MR
 * WQE gives it a page list (shuffled pages, an iova inside a page), then
 * RDMA WRITE and READ from the peer and local SGEs through it; LOCAL_INV
 * and the peer's SEND_WITH_INV making it invalid (F_INV and the key in
 * the receive CQE); registered again with a new key byte; REG_MR WQEs
 * that must fail (region valid, user QP, page list unreadable or
 * misaligned, too many pages, pages not covering the range, MW_BIND);
 * LOCAL_INV waiting for the WQEs before it on a lossy wire; DEREG_MR by
 * index; counts back to zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys_util.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define ALL_LOCAL (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC)
#define MAX_FR 8

static struct hmr *src;         /* node 0 */

/* A fast-registration region of node 1 and the pages a REG_MR gives it. */
struct frmr {
    uint32_t key;
    uint64_t iova;
    uint64_t len;
    uint32_t npages;
    uint64_t pages[MAX_FR];
    uint64_t pbl;               /* the page list in guest memory */
};

static void setup(uint64_t seed)
{
    harness_init(seed);
    src = node_mr(&nodes[0], 64u << 10, ALL_LOCAL);
}

/* Pages for [iova, iova + len), in reverse order, and their list. */
static void fr_pages(struct frmr *f, uint64_t iova, uint64_t len)
{
    uint32_t i;

    f->iova = iova;
    f->len = len;
    f->npages = (uint32_t)(((iova & 4095) + len + 4095) >> 12);
    for (i = 0; i < f->npages && i < MAX_FR; i++) {
        f->pages[f->npages - 1 - i] = node_alloc(&nodes[1], 4096, 4096);
    }
    f->pbl = node_alloc(&nodes[1], MAX_FR * 8, 8);
    for (i = 0; i < f->npages && i < MAX_FR; i++) {
        qrnic_st64(node_ptr(&nodes[1], f->pbl + i * 8ull), f->pages[i]);
    }
}

static uint8_t *fr_at(const struct frmr *f, uint64_t va)
{
    uint64_t off = va - f->iova + (f->iova & 4095);

    return node_ptr(&nodes[1], f->pages[off >> 12] + (off & 4095));
}

static bool fr_verify(const struct frmr *f, uint64_t va, uint32_t len,
                      uint32_t seed)
{
    uint32_t i;

    for (i = 0; i < len; i++) {
        if (*fr_at(f, va + i) != pattern_byte(seed, i)) {
            return false;
        }
    }
    return true;
}

/* Do len bytes of src at va equal the region's at fva? */
static bool same(uint64_t va, const struct frmr *f, uint64_t fva,
                 uint32_t len)
{
    uint32_t i;

    for (i = 0; i < len; i++) {
        if (*mr_at(src, va + i) != *fr_at(f, fva + i)) {
            return false;
        }
    }
    return true;
}

static struct hwc reg(struct kpair *k, const struct frmr *f, uint32_t key,
                      uint32_t access)
{
    post_reg_mr(k->qp[1], 0x4e9, key, access, f->iova, f->len, f->pbl,
                f->npages, 12);
    return next_wc(k->cq[1]);
}

static uint8_t write_to(struct kpair *k, uint64_t wr_id, uint32_t len,
                        uint64_t raddr, uint32_t rkey, uint32_t seed)
{
    return kpair_write(k, src, wr_id, len, raddr, rkey, seed);
}

static void test_alloc(void)
{
    struct qrnic_res_counts r0, r;
    uint32_t key, k2, uctx = 0, upd = 0, big;
    struct qrnic_cmd c;

    setup(71);
    r0 = key_res(&nodes[1]);
    CHECK_EQ(key_alloc_mr(&nodes[1], 99, 4, &key), QRNIC_ST_BAD_HANDLE,
             "ALLOC_MR of a PD that does not exist: BAD_HANDLE");
    CHECK_EQ(key_alloc_mr(&nodes[1], nodes[1].pd, 0, &key),
             QRNIC_ST_BAD_PARAM, "ALLOC_MR of 0 pages: BAD_PARAM");
    CHECK_EQ(key_alloc_mr(&nodes[1], nodes[1].pd, QRNIC_MAX_FAST_REG_PAGES + 1,
                          &key), QRNIC_ST_BAD_PARAM,
             "ALLOC_MR of max_fast_reg_pages + 1: BAD_PARAM");
    c = harness_cmd(QRNIC_CMD_ALLOC_UCTX);
    node_cmd(&nodes[1], &c, &uctx);
    c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    c.alloc_pd.uctx = uctx;
    node_cmd(&nodes[1], &c, &upd);
    CHECK_EQ(key_alloc_mr(&nodes[1], upd, 4, &key), QRNIC_ST_BAD_PARAM,
             "ALLOC_MR in a user context's PD: BAD_PARAM");
    CHECK(key_alloc_mr(&nodes[1], nodes[1].pd, QRNIC_MAX_FAST_REG_PAGES,
                       &key) == QRNIC_ST_OK && QRNIC_KEY_INDEX(key),
          "ALLOC_MR of 512 pages: key 0x%x", key);
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr + 1 && r.mr_pages == r0.mr_pages + 512 && r.mw == 0,
          "QUERY_RES: one region more, 512 page addresses held");
    CHECK(qf_reg_read(&nodes[1].d, QRNIC_REG_CAP0) & QRNIC_CAP0_FAST_REG,
          "CAP0 has FAST_REG");

    /* The page addresses all regions share. */
    c = harness_cmd(QRNIC_CMD_REG_MR);
    c.reg_mr.pbl.addr = RAM_BASE;
    c.reg_mr.pbl.npages = nodes[0].d.e.mtt_max - r.mr_pages - 100;
    c.reg_mr.pbl.levels = QRNIC_PBL_CONTIG;
    c.reg_mr.pbl.page_shift = 12;
    c.reg_mr.iova = 0x10000;
    c.reg_mr.length = (uint64_t)c.reg_mr.pbl.npages << 12;
    c.reg_mr.pdn = nodes[1].pd;
    c.reg_mr.access = QRNIC_ACCESS_LOCAL_WRITE;
    CHECK_EQ(node_cmd(&nodes[1], &c, &big), QRNIC_ST_OK,
             "REG_MR of all but 100 page addresses");
    CHECK_EQ(key_alloc_mr(&nodes[1], nodes[1].pd, 101, &k2),
             QRNIC_ST_NO_RESOURCES, "ALLOC_MR of 101 pages: NO_RESOURCES");
    CHECK_EQ(key_alloc_mr(&nodes[1], nodes[1].pd, 100, &k2), QRNIC_ST_OK,
             "ALLOC_MR of the last 100");
    CHECK(key_dereg(&nodes[1], big) == QRNIC_ST_OK &&
          key_dereg(&nodes[1], key_next(k2)) == QRNIC_ST_OK,
          "DEREG_MR of a fast-registration region by its index (any byte)");
    CHECK_EQ(key_dereg(&nodes[1], k2), QRNIC_ST_BAD_HANDLE, "not twice");

    /* A PD with one cannot go. */
    c = harness_cmd(QRNIC_CMD_DEALLOC_PD);
    c.dealloc_pd.pdn = nodes[1].pd;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_STATE,
             "DEALLOC_PD while a fast-registration region uses it");
    CHECK_EQ(key_dereg(&nodes[1], key), QRNIC_ST_OK, "DEREG_MR of it");
    r = key_res(&nodes[1]);
    CHECK(r.mr == r0.mr && r.mr_pages == r0.mr_pages,
          "QUERY_RES: regions and page addresses as before");
}

static void test_register(void)
{
    struct frmr f;
    struct kpair k, k2;
    struct hwc wc;
    struct hsge rs;
    uint32_t key, prev;

    setup(72);
    CHECK(kpair_new(&k, QRNIC_QPT_RC), "a connected RC pair");
    key_alloc_mr(&nodes[1], nodes[1].pd, MAX_FR, &f.key);
    fr_pages(&f, 0xffff800012345e00ull, 3 * 4096 + 100);
    CHECK_EQ(write_to(&k, 1, 64, f.iova, f.key, 1), QRNIC_WC_REM_ACCESS_ERR,
             "before REG_MR the region grants nothing");

    kpair_new(&k, QRNIC_QPT_RC);
    key = (f.key & ~0xffu) | 0xc3;
    wc = reg(&k, &f, key, ALL_LOCAL);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_REG_MR &&
          wc.wr_id == 0x4e9 && (wc.flags & QRNIC_CQE_F_SEND),
          "REG_MR WQE of 5 pages (4 KiB, reversed), key byte 0xc3: "
          "completes with opcode REG_MR (status %u)", wc.status);
    CHECK(write_to(&k, 2, 12388, f.iova, key, 2) == QRNIC_WC_SUCCESS &&
          fr_verify(&f, f.iova, 12388, 2),
          "RDMA WRITE of the whole region lands page by page");
    post_rdma(k.qp[0], 3, QRNIC_WR_RDMA_READ, src->iova + 16384, 5000,
              src->key, f.iova + 7000, key);
    CHECK(next_wc(k.cq[0]).status == QRNIC_WC_SUCCESS &&
          same(src->iova + 16384, &f, f.iova + 7000, 5000),
          "RDMA READ through it returns the region's 5000 bytes");
    /* The region as a local SGE on node 1. */
    rs.addr = src->iova;
    rs.len = 4096;
    rs.lkey = src->key;
    qp_post_recv(k.qp[0], 0x70, &rs, 1, true);
    {
        struct hwr wr = mkwr(4, QRNIC_WR_SEND, f.iova + 100, 2000, key);

        qp_post_send(k.qp[1], &wr, true);
        wc = next_wc(k.cq[1]);
        CHECK(wc.status == QRNIC_WC_SUCCESS &&
              next_wc(k.cq[0]).byte_len == 2000 &&
              same(src->iova, &f, f.iova + 100, 2000),
              "a SEND from it as an lkey on its own node");
    }
    CHECK_EQ(write_to(&k, 5, 64, f.iova, f.key, 5), QRNIC_WC_REM_ACCESS_ERR,
             "the key byte ALLOC_MR gave: REM_ACCESS_ERR");

    /* LOCAL_INV, then nothing; registered again with another byte. */
    kpair_new(&k, QRNIC_QPT_RC);
    wc = reg(&k, &f, key_next(key), ALL_LOCAL);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_KEY_OP,
          "REG_MR of a valid region: LOC_QP_OP_ERR, BAD_KEY_OP");
    kpair_new(&k, QRNIC_QPT_RC);
    post_local_inv(k.qp[1], 0x1a, key_next(key));
    CHECK_EQ(next_wc(k.cq[1]).status, QRNIC_WC_LOC_QP_OP_ERR,
             "LOCAL_INV with another key byte than the region's: "
             "LOC_QP_OP_ERR");
    kpair_new(&k, QRNIC_QPT_RC);
    post_local_inv(k.qp[1], 0x1b, key);
    wc = next_wc(k.cq[1]);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_LOCAL_INV,
          "LOCAL_INV of the region completes (opcode LOCAL_INV)");
    CHECK_EQ(write_to(&k, 6, 64, f.iova, key, 6), QRNIC_WC_REM_ACCESS_ERR,
             "after LOCAL_INV: REM_ACCESS_ERR");
    kpair_new(&k, QRNIC_QPT_RC);
    post_local_inv(k.qp[1], 0x1c, key);
    CHECK_EQ(next_wc(k.cq[1]).status, QRNIC_WC_LOC_QP_OP_ERR,
             "LOCAL_INV of an invalid region: LOC_QP_OP_ERR");
    kpair_new(&k, QRNIC_QPT_RC);
    prev = key;
    wc = reg(&k, &f, key_next(key), QRNIC_ACCESS_LOCAL_WRITE |
             QRNIC_ACCESS_REMOTE_WRITE);
    key = key_next(key);
    CHECK(wc.status == QRNIC_WC_SUCCESS &&
          write_to(&k, 7, 300, f.iova + 4000, key, 7) == QRNIC_WC_SUCCESS &&
          fr_verify(&f, f.iova + 4000, 300, 7),
          "registered again with a new key byte (write only): it serves");
    CHECK(kpair_new(&k2, QRNIC_QPT_RC) &&
          write_to(&k2, 8, 64, f.iova, prev, 8) == QRNIC_WC_REM_ACCESS_ERR,
          "the previous key byte: REM_ACCESS_ERR");
    post_rdma(k.qp[0], 9, QRNIC_WR_RDMA_READ, src->iova, 64, src->key,
              f.iova, key);
    CHECK_EQ(next_wc(k.cq[0]).status, QRNIC_WC_REM_ACCESS_ERR,
             "a READ where the new registration gives write only");

    /* SEND_WITH_INV from the peer. */
    kpair_new(&k, QRNIC_QPT_RC);
    rs.addr = f.iova;
    rs.len = 4096;
    rs.lkey = key;
    qp_post_recv(k.qp[1], 0x71, &rs, 1, true);
    post_send_inv(k.qp[0], 10, src->iova, 16, src->key, key);
    wc = next_wc(k.cq[1]);
    CHECK(wc.wr_id == 0x71 && wc.status == QRNIC_WC_SUCCESS &&
          (wc.flags & QRNIC_CQE_F_INV) &&
          qrnic_ld32((const uint8_t *)&wc.imm) == key,
          "SEND_WITH_INV of the region (into the region itself): F_INV, "
          "key 0x%x", qrnic_ld32((const uint8_t *)&wc.imm));
    CHECK_EQ(next_wc(k.cq[0]).status, QRNIC_WC_SUCCESS, "sender: SUCCESS");
    CHECK_EQ(write_to(&k, 11, 64, f.iova, key, 11), QRNIC_WC_REM_ACCESS_ERR,
             "then the region grants nothing");

    /* SEND_WITH_INV of a REG_MR region: as rxe. */
    kpair_new(&k, QRNIC_QPT_RC);
    {
        struct hmr *m = node_mr(&nodes[1], 4096, ALL_LOCAL);

        rs.addr = m->iova;
        rs.lkey = m->key;
        qp_post_recv(k.qp[1], 0x72, &rs, 1, true);
        post_send_inv(k.qp[0], 12, src->iova, 16, src->key, m->key);
        wc = next_wc(k.cq[1]);
        CHECK(wc.status == QRNIC_WC_REM_INV_REQ_ERR &&
              next_wc(k.cq[0]).status == QRNIC_WC_SUCCESS &&
              qp_state_of(k.qp[1]) == QRNIC_QPS_ERR,
              "SEND_WITH_INV of a REG_MR region: REM_INV_REQ_ERR at the "
              "receiver (ERR), the sender's SEND acknowledged");
    }
}

/*
 * A RC QP of a user context on node 1, in RTS towards peer; its CQ's
 * buffer at *cqbuf.
 */
static struct hqp *user_qp(const struct hqp *peer, uint32_t *uctx,
                           uint64_t *cqbuf)
{
    static struct hqp uq;
    struct node *n = &nodes[1];
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_UCTX);
    uint32_t pd = 0, cqn = 0;

    *cqbuf = node_alloc(n, 8192, 4096);

    node_cmd(n, &c, uctx);
    c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    c.alloc_pd.uctx = *uctx;
    node_cmd(n, &c, &pd);
    c = harness_cmd(QRNIC_CMD_CREATE_CQ);
    c.create_cq.pbl.addr = *cqbuf;
    c.create_cq.pbl.npages = 2;
    c.create_cq.pbl.page_shift = 12;
    c.create_cq.uctx = *uctx;
    c.create_cq.eqn = n->ceq;
    c.create_cq.log_depth = 6;
    node_cmd(n, &c, &cqn);
    memset(&uq, 0, sizeof(uq));
    uq.n = n;
    uq.log_sq = 4;
    uq.log_ss = 7;
    uq.log_rq = 4;
    uq.log_rs = 6;
    uq.sq_off = 1u << 20;       /* far from the harness's allocations */
    uq.rq_off = (1u << 20) + 4096;
    c = harness_cmd(QRNIC_CMD_CREATE_QP);
    c.create_qp.pdn = pd;
    c.create_qp.send_cqn = cqn;
    c.create_qp.recv_cqn = cqn;
    c.create_qp.uctx = *uctx;
    c.create_qp.sq_offset = uq.sq_off;
    c.create_qp.rq_offset = uq.rq_off;
    c.create_qp.qp_type = QRNIC_QPT_RC;
    c.create_qp.log_sq_depth = uq.log_sq;
    c.create_qp.log_sq_stride = uq.log_ss;
    c.create_qp.log_rq_depth = uq.log_rq;
    c.create_qp.log_rq_stride = uq.log_rs;
    if (node_cmd(n, &c, &uq.qpn) != QRNIC_ST_OK ||
        !qp_connect(&uq, peer, 3, 14, 3, 3, 1)) {
        return NULL;
    }
    return &uq;
}

static void test_reg_errors(void)
{
    static const char *what[] = {
        "a page list outside guest memory",
        "more pages than ALLOC_MR reserved",
        "pages that do not cover the range",
        "a misaligned page address",
        "access MW_BIND",
        "remote write without local write",
        "page_shift 11",
        "a key of another index",
        "length 0",
    };
    struct frmr f, big;
    struct kpair k;
    uint32_t uctx = 0, i;
    struct hwc wc;

    setup(73);
    key_alloc_mr(&nodes[1], nodes[1].pd, 2, &f.key);
    fr_pages(&f, 0x5000, 8192);
    big.key = f.key;
    fr_pages(&big, 0x5000, 3 * 4096);
    for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
        uint64_t pbl = f.pbl, len = f.len;
        uint32_t np = f.npages, acc = ALL_LOCAL, key = f.key;
        uint8_t shift = 12;

        switch (i) {
        case 0:
            pbl = 0x1000;
            break;
        case 1:
            pbl = big.pbl;
            np = big.npages;
            len = big.len;
            break;
        case 2:
            np = 1;
            break;
        case 3:
            qrnic_st64(node_ptr(&nodes[1], f.pbl + 8), f.pages[1] + 8);
            break;
        case 4:
            acc |= QRNIC_ACCESS_MW_BIND;
            break;
        case 5:
            acc = QRNIC_ACCESS_REMOTE_WRITE;
            break;
        case 6:
            shift = 11;
            np = 4;
            break;
        case 7:
            key += 0x100;
            break;
        default:
            len = 0;
            break;
        }
        kpair_new(&k, QRNIC_QPT_RC);
        post_reg_mr(k.qp[1], 0x100 + i, key, acc, f.iova, len, pbl, np,
                    shift);
        wc = next_wc(k.cq[1]);
        CHECK(wc.wr_id == 0x100 + i && wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
              wc.opcode == QRNIC_CQE_OP_REG_MR &&
              wc.vendor_err == (i == 0 ? QRNIC_VERR_DMA :
                                QRNIC_VERR_BAD_KEY_OP) &&
              qp_state_of(k.qp[1]) == QRNIC_QPS_ERR,
              "REG_MR with %s: LOC_QP_OP_ERR, verr %u, QP in ERR", what[i],
              wc.vendor_err);
        if (i == 3) {
            qrnic_st64(node_ptr(&nodes[1], f.pbl + 8), f.pages[1]);
        }
    }
    kpair_new(&k, QRNIC_QPT_RC);
    CHECK(reg(&k, &f, f.key, ALL_LOCAL).status == QRNIC_WC_SUCCESS &&
          write_to(&k, 1, 8192, f.iova, f.key, 3) == QRNIC_WC_SUCCESS &&
          fr_verify(&f, f.iova, 8192, 3),
          "after all that the region still registers and serves");

    /* A user context's QP: REG_MR is for the kernel's. */
    kpair_new(&k, QRNIC_QPT_RC);
    {
        uint64_t cqbuf;
        struct hqp *uq = user_qp(k.qp[0], &uctx, &cqbuf);
        struct qrnic_sq_wqe w;
        const uint8_t *cqe;
        uint64_t deadline = now_ns + SEC;

        CHECK(uq != NULL, "a user context's RC QP in RTS");
        if (!uq) {
            return;
        }
        memset(&w, 0, sizeof(w));
        w.wr_id = 0x5e;
        w.opcode = QRNIC_WR_REG_MR;
        w.flags = QRNIC_WQE_F_SIGNALED;
        w.reg_mr.key = f.key;
        memcpy(nodes[1].d.qmem + uq->sq_off, &w, sizeof(w));
        qf_doorbell(&nodes[1].d, uctx, QRNIC_DB_SQ, uq->qpn | 1ull << 32);
        cqe = node_ptr(&nodes[1], cqbuf);
        while (!(qrnic_ld32(cqe + offsetof(struct qrnic_cqe, owner)) & 1) &&
               now_ns < deadline) {
            harness_run(now_ns + MS);
        }
        CHECK(qrnic_ld64(cqe) == 0x5e &&
              cqe[offsetof(struct qrnic_cqe, status)] ==
              QRNIC_WC_LOC_QP_OP_ERR &&
              cqe[offsetof(struct qrnic_cqe, vendor_err)] ==
              QRNIC_VERR_BAD_OPCODE,
              "REG_MR on a user context's QP: LOC_QP_OP_ERR, BAD_OPCODE");
    }
}

/* LOCAL_INV waits for the WQEs before it, resent ones too. */
static void test_inv_order(void)
{
    struct frmr f;
    struct kpair k;
    struct hsge rs;
    struct hwc wc;
    int i, ok = 0, order = 1;

    setup(74);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mr(&nodes[1], nodes[1].pd, MAX_FR, &f.key);
    fr_pages(&f, 0x20000, 8 * 4096);
    reg(&k, &f, f.key, ALL_LOCAL);
    for (i = 0; i < 8; i++) {
        uint32_t b;

        for (b = 0; b < 4096; b++) {
            *fr_at(&f, f.iova + i * 4096u + b) = pattern_byte(80 + i, b);
        }
    }
    for (i = 0; i < 8; i++) {
        rs.addr = src->iova + i * 4096u;
        rs.len = 4096;
        rs.lkey = src->key;
        qp_post_recv(k.qp[0], 0x80 + i, &rs, 1, true);
    }
    wire.drop_pct = 25;
    for (i = 0; i < 8; i++) {
        struct hwr wr = mkwr(0x90 + i, QRNIC_WR_SEND, f.iova + i * 4096u, 4096,
                             f.key);

        wr.flags = 0;
        qp_post_send(k.qp[1], &wr, false);
    }
    post_local_inv(k.qp[1], 0x99, f.key);
    harness_run(now_ns + 5 * SEC);
    wire.drop_pct = 0;
    harness_run(now_ns + 5 * SEC);
    wc = next_wc(k.cq[1]);
    CHECK(wc.wr_id == 0x99 && wc.status == QRNIC_WC_SUCCESS &&
          wc.opcode == QRNIC_CQE_OP_LOCAL_INV && wc.wqe_idx == 9,
          "8 unsignalled SENDs from the region on a lossy wire, then "
          "LOCAL_INV of it: all complete (LOCAL_INV status %u)", wc.status);
    CHECK(nodes[1].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS] > 0,
          "(%llu packets were resent)",
          (unsigned long long)nodes[1].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS]);
    for (i = 0; i < 8; i++) {
        wc = next_wc(k.cq[0]);
        order &= wc.wr_id == 0x80u + i;
        ok += wc.status == QRNIC_WC_SUCCESS &&
              !mr_verify(src, src->iova + i * 4096u, 4096, 80 + i);
    }
    CHECK(ok == 8 && order, "the peer received all 8 intact (%d)", ok);
    CHECK_EQ(write_to(&k, 1, 8, f.iova, f.key, 9), QRNIC_WC_REM_ACCESS_ERR,
             "and the region is invalid");
}

static void test_teardown(void)
{
    struct qrnic_res_counts r;
    struct frmr f;
    struct kpair k;
    uint32_t mw;

    setup(75);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mr(&nodes[1], nodes[1].pd, 4, &f.key);
    fr_pages(&f, 0x9000, 4096);
    reg(&k, &f, f.key, ALL_LOCAL);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
    post_bind(k.qp[1], 1, mw, mw, f.iova, 16, f.key, QRNIC_ACCESS_REMOTE_READ);
    CHECK_EQ(next_wc(k.cq[1]).status, QRNIC_WC_MW_BIND_ERR,
             "a window on a fast-registration region: MW_BIND_ERR (it has "
             "no MW_BIND)");
    r = key_res(&nodes[1]);
    CHECK(r.mr == 1 && r.mw == 1 && r.mr_pages == 4,
          "QUERY_RES: mr 1 mw 1 mr_pages 4");
    CHECK(key_dereg(&nodes[1], f.key) == QRNIC_ST_OK &&
          key_dealloc_mw(&nodes[1], mw) == QRNIC_ST_OK,
          "DEREG_MR of the valid region, DEALLOC_MW");
    r = key_res(&nodes[1]);
    CHECK(r.mr == 0 && r.mw == 0 && r.mr_pages == 0,
          "QUERY_RES: mr 0 mw 0 mr_pages 0");
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    harness_small_tables();     /* one region can fill the page addresses */
    test_alloc();
    test_register();
    test_reg_errors();
    test_inv_order();
    test_teardown();
    harness_fini();
    return tap_failures ? 1 : 0;
}
