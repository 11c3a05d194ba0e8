/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory windows: ALLOC_MW and DEALLOC_MW and their bad arguments; type 1
 * windows bound by BIND_MW WQEs, RDMA WRITE and READ from the peer
 * through the window's rkey (inside the window only), a zero-length bind
 * unbinding; type 2 windows bound with a new key byte, serving only the
 * QP that bound it, invalidated by LOCAL_INV and by the peer's
 * SEND_WITH_INV (receive CQE with F_INV and the key), a bad IETH key
 * handled as rxe does; binds that must fail (outside the region, no
 * MW_BIND, rights the region cannot back, a bound type 2 window, a stale
 * key) with MW_BIND_ERR and the QP in ERR while other QPs go on;
 * DEREG_MR refused while windows are bound, DEALLOC_MW and DESTROY_QP
 * unbinding; a window key is no lkey; counts back to zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keys_util.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define REGION (64u << 10)
#define RW (QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ)
#define ALL_LOCAL (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC)

static struct hmr *src;         /* node 0: data to write, READ target */
static struct hmr *reg;         /* node 1: LOCAL_WRITE | MW_BIND, no remote */

static void setup(uint64_t seed)
{
    harness_init(seed);
    src = node_mr(&nodes[0], REGION, ALL_LOCAL);
    reg = node_mr(&nodes[1], REGION,
                  QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_MW_BIND);
}

/* A WRITE of len bytes from src at off to raddr/rkey; its status. */
static uint8_t write_via(struct kpair *k, uint64_t wr_id, uint64_t off,
                         uint32_t len, uint64_t raddr, uint32_t rkey,
                         uint32_t seed)
{
    mr_fill(src, src->iova + off, len, seed);
    post_rdma(k->qp[0], wr_id, QRNIC_WR_RDMA_WRITE, src->iova + off, len,
              src->key, raddr, rkey);
    return next_wc(k->cq[0]).status;
}

static uint8_t read_via(struct kpair *k, uint64_t wr_id, uint64_t off,
                        uint32_t len, uint64_t raddr, uint32_t rkey)
{
    post_rdma(k->qp[0], wr_id, QRNIC_WR_RDMA_READ, src->iova + off, len,
              src->key, raddr, rkey);
    return next_wc(k->cq[0]).status;
}

/* BIND_MW on node 1's QP of k; the completion. */
static struct hwc bind(struct kpair *k, uint32_t mw_key, uint32_t new_key,
                       uint64_t addr, uint64_t len, uint32_t mr_key,
                       uint32_t access)
{
    post_bind(k->qp[1], 0xb1d, mw_key, new_key, addr, len, mr_key, access);
    return next_wc(k->cq[1]);
}

static void test_commands(void)
{
    struct qrnic_cmd c;
    uint32_t k1 = 0, k2 = 0, pd2 = 0, dummy;
    struct qrnic_res_counts r;
    struct qrnic_dev_attr a;
    uint64_t at;

    setup(61);
    CHECK_EQ(key_alloc_mw(&nodes[1], 77, QRNIC_MW_TYPE_1, &dummy),
             QRNIC_ST_BAD_HANDLE, "ALLOC_MW of a PD that does not exist");
    CHECK_EQ(key_alloc_mw(&nodes[1], nodes[1].pd, 0, &dummy),
             QRNIC_ST_BAD_PARAM, "ALLOC_MW type 0: BAD_PARAM");
    CHECK_EQ(key_alloc_mw(&nodes[1], nodes[1].pd, 3, &dummy),
             QRNIC_ST_BAD_PARAM, "ALLOC_MW type 3: BAD_PARAM");
    CHECK(key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &k1) ==
          QRNIC_ST_OK &&
          key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &k2) ==
          QRNIC_ST_OK && QRNIC_KEY_INDEX(k1) && k1 != k2 &&
          QRNIC_KEY_INDEX(k1) != QRNIC_KEY_INDEX(reg->key),
          "ALLOC_MW type 1 and 2: keys 0x%x, 0x%x of their own indexes",
          k1, k2);
    r = key_res(&nodes[1]);
    CHECK(r.mw == 2 && r.mr == 1, "QUERY_RES: mw 2, mr 1 (got %u, %u)",
          r.mw, r.mr);

    c = harness_cmd(QRNIC_CMD_QUERY_DEVICE);
    at = node_alloc(&nodes[1], sizeof(a), 64);
    c.query_device.resp_addr = at;
    node_cmd(&nodes[1], &c, NULL);
    memcpy(&a, node_ptr(&nodes[1], at), sizeof(a));
    CHECK(a.max_mw == QRNIC_ENG_DEFAULT_KEYS &&
          a.max_fast_reg_pages == QRNIC_MAX_FAST_REG_PAGES,
          "QUERY_DEVICE: max_mw %u, max_fast_reg_pages %u", a.max_mw,
          a.max_fast_reg_pages);
    CHECK(qf_reg_read(&nodes[1].d, QRNIC_REG_CAP0) & QRNIC_CAP0_MW,
          "CAP0 has MW");

    CHECK_EQ(key_dealloc_mw(&nodes[1], reg->key), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_MW of a region's key: BAD_HANDLE");
    CHECK_EQ(key_dereg(&nodes[1], k1), QRNIC_ST_BAD_HANDLE,
             "DEREG_MR of a window's key: BAD_HANDLE");
    CHECK_EQ(key_dealloc_mw(&nodes[1], 0x7ff00), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_MW of an index nobody holds: BAD_HANDLE");
    CHECK_EQ(key_dealloc_mw(&nodes[1], 0), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_MW of key 0: BAD_HANDLE");

    /* A PD with a window cannot go. */
    c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    node_cmd(&nodes[1], &c, &pd2);
    CHECK_EQ(key_alloc_mw(&nodes[1], pd2, QRNIC_MW_TYPE_2, &dummy),
             QRNIC_ST_OK, "ALLOC_MW in a second PD");
    c = harness_cmd(QRNIC_CMD_DEALLOC_PD);
    c.dealloc_pd.pdn = pd2;
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_STATE,
             "DEALLOC_PD while a window uses it: BAD_STATE");
    CHECK_EQ(key_dealloc_mw(&nodes[1], key_next(dummy)), QRNIC_ST_OK,
             "DEALLOC_MW names the window by its index (any key byte)");
    CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
             "then DEALLOC_PD succeeds");
    CHECK(key_dealloc_mw(&nodes[1], k1) == QRNIC_ST_OK &&
          key_dealloc_mw(&nodes[1], k2) == QRNIC_ST_OK &&
          key_dealloc_mw(&nodes[1], k2) == QRNIC_ST_BAD_HANDLE,
          "DEALLOC_MW of both, twice: BAD_HANDLE");
    r = key_res(&nodes[1]);
    CHECK_EQ(r.mw, 0, "QUERY_RES: no windows left");
    CHECK(key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &dummy) ==
          QRNIC_ST_OK && dummy != k1 && dummy != k2,
          "a new window gets a key of its own (0x%x)",
          dummy);
}

static void test_type1(void)
{
    struct kpair k, k2;
    uint32_t mw, key;
    uint64_t base;
    struct hwc wc;

    setup(62);
    base = reg->iova + 4096;
    CHECK(kpair_new(&k, QRNIC_QPT_RC), "a connected RC pair");
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &mw);
    key = key_next(mw);
    wc = bind(&k, mw, key, base, 8192, reg->key, RW);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_BIND_MW &&
          wc.wr_id == 0xb1d && (wc.flags & QRNIC_CQE_F_SEND) &&
          wc.byte_len == 0,
          "BIND_MW type 1 (8 KiB, remote write+read, new key byte): "
          "completes with opcode BIND_MW (status %u opcode %u)", wc.status,
          wc.opcode);
    CHECK_EQ(write_via(&k, 1, 0, 3000, base + 1000, key, 11),
             QRNIC_WC_SUCCESS, "RDMA WRITE through the window's rkey");
    CHECK(!mr_verify(reg, base + 1000, 3000, 11),
          "the bytes land in the region under the window");
    mr_fill(reg, base + 5000, 2000, 12);
    CHECK(read_via(&k, 2, 8192, 2000, base + 5000, key) == QRNIC_WC_SUCCESS &&
          !mr_verify(src, src->iova + 8192, 2000, 12),
          "RDMA READ through the window returns the region's bytes");
    CHECK_EQ(write_via(&k, 3, 0, 64, base, mw, 13), QRNIC_WC_REM_ACCESS_ERR,
             "the window's old key byte: REM_ACCESS_ERR");

    /* The region's own key has no remote rights; outside the window. */
    CHECK(kpair_new(&k2, QRNIC_QPT_RC) &&
          write_via(&k2, 4, 0, 64, base, reg->key, 14) ==
          QRNIC_WC_REM_ACCESS_ERR,
          "the region's own key (no remote rights): REM_ACCESS_ERR");
    CHECK(kpair_new(&k2, QRNIC_QPT_RC) &&
          write_via(&k2, 5, 0, 64, base + 8192 - 32, key, 15) ==
          QRNIC_WC_REM_ACCESS_ERR,
          "a WRITE crossing the window's end: REM_ACCESS_ERR");
    CHECK(kpair_new(&k2, QRNIC_QPT_RC) &&
          write_via(&k2, 6, 0, 64, base - 64, key, 16) ==
          QRNIC_WC_REM_ACCESS_ERR,
          "a WRITE just before the window: REM_ACCESS_ERR");
    CHECK(kpair_new(&k2, QRNIC_QPT_RC) &&
          write_via(&k2, 7, 0, 8, base, key, 17) == QRNIC_WC_SUCCESS,
          "another QP of the PD reaches a type 1 window as well");

    /* Atomics need the right: the window has only write and read. */
    {
        struct hwr wr = mkwr(8, QRNIC_WR_ATOMIC_FETCH_AND_ADD, src->iova, 8,
                             src->key);

        wr.remote_addr = base;
        wr.rkey = key;
        wr.compare_add = 1;
        qp_post_send(k2.qp[0], &wr, true);
        CHECK_EQ(next_wc(k2.cq[0]).status, QRNIC_WC_REM_ACCESS_ERR,
                 "an atomic through a window without the right: "
                 "REM_ACCESS_ERR");
    }

    /* A rebind moves it; length 0 unbinds. */
    CHECK(kpair_new(&k2, QRNIC_QPT_RC), "a fresh pair");
    wc = bind(&k2, key, key_next(key), base + 16384, 4096, reg->key,
              QRNIC_ACCESS_REMOTE_WRITE);
    key = key_next(key);
    CHECK(wc.status == QRNIC_WC_SUCCESS &&
          write_via(&k2, 9, 0, 100, base + 16384, key, 18) ==
          QRNIC_WC_SUCCESS && !mr_verify(reg, base + 16384, 100, 18),
          "a type 1 window rebinds to another range (any QP of the PD)");
    wc = bind(&k2, key, key_next(key), 0, 0, 0, 0);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_BIND_MW,
          "a zero-length bind completes");
    CHECK_EQ(write_via(&k2, 10, 0, 8, base + 16384, key_next(key), 19),
             QRNIC_WC_REM_ACCESS_ERR,
             "after the zero-length bind the window grants nothing");
    CHECK_EQ(key_dereg(&nodes[1], reg->key), QRNIC_ST_OK,
             "the region, no longer under a window, deregisters");
}

static void test_type2(void)
{
    struct kpair k, other;
    uint32_t mw, key, mw1;
    uint64_t base;
    struct hwc wc;

    setup(63);
    base = reg->iova + 8192;
    CHECK(kpair_new(&k, QRNIC_QPT_RC) && kpair_new(&other, QRNIC_QPT_RC),
          "two connected RC pairs");
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
    key = (mw & ~0xffu) | 0x5a;
    wc = bind(&k, mw, key, base, 4096, reg->key,
              RW | QRNIC_ACCESS_REMOTE_ATOMIC);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_BIND_MW,
          "BIND_MW of a type 2 window, key byte 0x5a");
    CHECK(write_via(&k, 1, 0, 4096, base, key, 21) == QRNIC_WC_SUCCESS &&
          !mr_verify(reg, base, 4096, 21),
          "RDMA WRITE through it from the binding QP's peer");
    CHECK(read_via(&k, 2, 16384, 512, base + 100, key) == QRNIC_WC_SUCCESS &&
          !memcmp(mr_at(src, src->iova + 16384), mr_at(reg, base + 100), 512),
          "and RDMA READ");
    CHECK_EQ(write_via(&other, 3, 0, 64, base, key, 22),
             QRNIC_WC_REM_ACCESS_ERR,
             "the same rkey at another QP of the PD: REM_ACCESS_ERR");
    CHECK_EQ(qp_state_of(k.qp[1]), QRNIC_QPS_RTS,
             "the binding QP is untouched by the other QP's error");

    /* Bound type 2: no second bind; DEREG_MR of its region refused. */
    wc = bind(&k, key, key_next(key), base, 64, reg->key, RW);
    CHECK(wc.status == QRNIC_WC_MW_BIND_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_KEY_OP &&
          wc.opcode == QRNIC_CQE_OP_BIND_MW,
          "binding a bound type 2 window: MW_BIND_ERR, BAD_KEY_OP "
          "(status %u verr %u)", wc.status, wc.vendor_err);
    CHECK_EQ(qp_state_of(k.qp[1]), QRNIC_QPS_ERR,
             "the QP that posted it is in ERR");
    CHECK_EQ(key_dereg(&nodes[1], reg->key), QRNIC_ST_BAD_STATE,
             "DEREG_MR while a window is bound to the region: BAD_STATE");

    /* DESTROY_QP unbinds: the region deregisters... after a rebind. */
    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_QP);

        c.destroy_qp.qpn = k.qp[1]->qpn;
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
                 "DESTROY_QP of the binding QP");
    }
    CHECK(kpair_new(&k, QRNIC_QPT_RC), "a new pair");
    wc = bind(&k, key, key_next(key), base, 4096, reg->key, RW);
    key = key_next(key);
    CHECK_EQ(wc.status, QRNIC_WC_SUCCESS,
             "after DESTROY_QP the type 2 window is unbound: it binds again");

    /* LOCAL_INV of it (as rxe: on any QP of the PD), then no access. */
    CHECK(kpair_new(&other, QRNIC_QPT_RC), "another pair");
    post_local_inv(other.qp[1], 0x1a, key);
    wc = next_wc(other.cq[1]);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_LOCAL_INV &&
          wc.wr_id == 0x1a && wc.byte_len == 0,
          "LOCAL_INV of the type 2 window completes (opcode LOCAL_INV)");
    CHECK_EQ(write_via(&k, 4, 0, 64, base, key, 23), QRNIC_WC_REM_ACCESS_ERR,
             "then a WRITE through it: REM_ACCESS_ERR");
    CHECK_EQ(key_dereg(&nodes[1], reg->key), QRNIC_ST_OK,
             "and its region deregisters");

    /* LOCAL_INV of what it cannot: a type 1 window, an unbound one. */
    setup(64);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &mw1);
    bind(&k, mw1, mw1, reg->iova, 64, reg->key, RW);
    post_local_inv(k.qp[1], 0x1b, mw1);
    wc = next_wc(k.cq[1]);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_KEY_OP &&
          wc.opcode == QRNIC_CQE_OP_LOCAL_INV,
          "LOCAL_INV of a type 1 window: LOC_QP_OP_ERR, BAD_KEY_OP");
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
    post_local_inv(k.qp[1], 0x1c, mw);
    CHECK_EQ(next_wc(k.cq[1]).status, QRNIC_WC_LOC_QP_OP_ERR,
             "LOCAL_INV of an unbound type 2 window: LOC_QP_OP_ERR");
    kpair_new(&k, QRNIC_QPT_RC);
    post_local_inv(k.qp[1], 0x1d, reg->key);
    CHECK_EQ(next_wc(k.cq[1]).status, QRNIC_WC_LOC_QP_OP_ERR,
             "LOCAL_INV of a REG_MR region: LOC_QP_OP_ERR");
}

/* Binds that fail: the QP goes to ERR, what follows is flushed. */
static void test_bind_errors(void)
{
    struct hmr *nobind, *rdonly;
    struct kpair k, ok;
    uint32_t mw, mw2;
    struct hwc wc;
    int i;
    static const char *what[] = {
        "a range past the region's end",
        "a range before the region",
        "a region without MW_BIND",
        "remote write on a region without local write",
        "access bits beyond the remote ones (local write)",
        "access bit MW_BIND",
        "a stale window key",
        "a new key of another index",
        "a type 2 window with length 0",
        "a region key that does not exist",
        "a region of another PD",
        "a window of another PD",
    };
    struct hmr *other_pd;
    uint32_t pd2, mw_other;
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_PD);

    setup(65);
    nobind = node_mr(&nodes[1], 8192, QRNIC_ACCESS_LOCAL_WRITE | RW);
    rdonly = node_mr(&nodes[1], 8192, QRNIC_ACCESS_MW_BIND |
                     QRNIC_ACCESS_REMOTE_READ);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &mw);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw2);
    node_cmd(&nodes[1], &c, &pd2);
    {
        uint32_t pd = nodes[1].pd;

        nodes[1].pd = pd2;
        other_pd = node_mr(&nodes[1], 8192, QRNIC_ACCESS_LOCAL_WRITE |
                           QRNIC_ACCESS_MW_BIND);
        nodes[1].pd = pd;
    }
    key_alloc_mw(&nodes[1], pd2, QRNIC_MW_TYPE_1, &mw_other);
    for (i = 0; i < (int)(sizeof(what) / sizeof(what[0])); i++) {
        uint32_t w = i == 8 ? mw2 : mw, mr = reg->key, acc = RW;
        uint64_t addr = reg->iova, len = 4096;
        struct hwr later = mkwr(0x77, QRNIC_WR_SEND, src->iova, 8, src->key);

        switch (i) {
        case 0:
            addr = reg->iova + REGION - 100;
            break;
        case 1:
            addr = reg->iova - 1;
            break;
        case 2:
            mr = nobind->key;
            break;
        case 3:
            mr = rdonly->key;
            acc = QRNIC_ACCESS_REMOTE_WRITE;
            break;
        case 4:
            acc = RW | QRNIC_ACCESS_LOCAL_WRITE;
            break;
        case 5:
            acc = RW | QRNIC_ACCESS_MW_BIND;
            break;
        case 6:
            w = key_next(mw);
            break;
        case 9:
            mr = 0x7fe00 | 1;
            break;
        case 10:
            mr = other_pd->key;
            addr = other_pd->iova;
            break;
        case 11:
            w = mw_other;
            break;
        default:
            len = i == 8 ? 0 : len;
            break;
        }
        kpair_new(&k, QRNIC_QPT_RC);
        post_bind(k.qp[1], 0xe0 + i, w, i == 7 ? w + 0x100 : w, addr, len, mr,
                  acc);
        qp_post_send(k.qp[1], &later, true);
        wc = next_wc(k.cq[1]);
        CHECK(wc.wr_id == 0xe0u + i && wc.status == QRNIC_WC_MW_BIND_ERR &&
              wc.vendor_err == QRNIC_VERR_BAD_KEY_OP &&
              wc.opcode == QRNIC_CQE_OP_BIND_MW,
              "bind to %s: MW_BIND_ERR, BAD_KEY_OP (status %u verr %u)",
              what[i], wc.status, wc.vendor_err);
        wc = next_wc(k.cq[1]);
        CHECK(wc.wr_id == 0x77 && wc.status == QRNIC_WC_WR_FLUSH_ERR &&
              qp_state_of(k.qp[1]) == QRNIC_QPS_ERR,
              "the QP is in ERR, the next WQE flushed");
    }
    /* What a region without local write may still grant: remote read. */
    kpair_new(&ok, QRNIC_QPT_RC);
    wc = bind(&ok, mw, mw, rdonly->iova, 8192, rdonly->key,
              QRNIC_ACCESS_REMOTE_READ);
    mr_fill(rdonly, rdonly->iova, 256, 31);
    CHECK(wc.status == QRNIC_WC_SUCCESS &&
          read_via(&ok, 0x78, 0, 256, rdonly->iova, mw) == QRNIC_WC_SUCCESS &&
          !mr_verify(src, src->iova, 256, 31),
          "remote read on that region binds, and other QPs go on");

    /* A window key is not an lkey. */
    {
        struct hwr wr = mkwr(0x79, QRNIC_WR_RDMA_WRITE, rdonly->iova, 64, mw);

        wr.remote_addr = src->iova;
        wr.rkey = src->key;
        qp_post_send(ok.qp[1], &wr, true);
        wc = next_wc(ok.cq[1]);
        CHECK(wc.status == QRNIC_WC_LOC_PROT_ERR &&
              wc.vendor_err == QRNIC_VERR_BAD_LKEY,
              "a window's key as an lkey: LOC_PROT_ERR, BAD_LKEY "
              "(status %u verr %u)", wc.status, wc.vendor_err);
    }
}

/* BIND_MW on a UC QP; SEND_WITH_INV is RC only. */
static void test_uc(void)
{
    struct kpair k;
    uint32_t mw;
    struct hwc wc;

    setup(66);
    CHECK(kpair_new(&k, QRNIC_QPT_UC), "a connected UC pair");
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
    wc = bind(&k, mw, mw, reg->iova, 4096, reg->key,
              QRNIC_ACCESS_REMOTE_WRITE);
    mr_fill(src, src->iova, 1000, 41);
    post_rdma(k.qp[0], 1, QRNIC_WR_RDMA_WRITE, src->iova, 1000, src->key,
              reg->iova + 100, mw);
    next_wc(k.cq[0]);
    harness_run(now_ns + 10 * MS);
    CHECK(wc.status == QRNIC_WC_SUCCESS && !mr_verify(reg, reg->iova + 100,
                                                      1000, 41),
          "BIND_MW type 2 on a UC QP; a UC WRITE through it lands");
    post_send_inv(k.qp[0], 2, src->iova, 8, src->key, mw);
    wc = next_wc(k.cq[0]);
    CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_OPCODE,
          "SEND_WITH_INV on a UC QP: LOC_QP_OP_ERR, BAD_OPCODE");
}

/* SEND_WITH_INV from the peer invalidates a type 2 window. */
static void test_send_inv(void)
{
    struct kpair k;
    uint32_t mw, mw1;
    struct hsge rs;
    struct hwc wc;
    uint64_t rx_stat;

    setup(67);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
    bind(&k, mw, mw, reg->iova, 8192, reg->key, RW);
    rs.addr = reg->iova + 32768;
    rs.len = 4096;
    rs.lkey = reg->key;
    qp_post_recv(k.qp[1], 0x700, &rs, 1, true);
    mr_fill(src, src->iova, 3000, 51);
    post_send_inv(k.qp[0], 0x600, src->iova, 3000, src->key, mw);
    wc = next_wc(k.cq[0]);
    CHECK(wc.status == QRNIC_WC_SUCCESS && wc.opcode == QRNIC_CQE_OP_SEND,
          "SEND_WITH_INV (3 packets) completes on the sender as a SEND");
    wc = next_wc(k.cq[1]);
    CHECK(wc.wr_id == 0x700 && wc.status == QRNIC_WC_SUCCESS &&
          wc.opcode == QRNIC_CQE_OP_RECV && wc.byte_len == 3000 &&
          (wc.flags & QRNIC_CQE_F_INV) && !(wc.flags & QRNIC_CQE_F_IMM) &&
          qrnic_ld32((const uint8_t *)&wc.imm) == mw &&
          !mr_verify(reg, rs.addr, 3000, 51),
          "the receive CQE has F_INV and the key (little endian): 0x%x "
          "flags 0x%x", qrnic_ld32((const uint8_t *)&wc.imm), wc.flags);
    CHECK_EQ(write_via(&k, 0x601, 0, 64, reg->iova, mw, 52),
             QRNIC_WC_REM_ACCESS_ERR,
             "the window it invalidated grants nothing");

    /* A key it cannot invalidate: as rxe, REM_INV_REQ_ERR, QP to ERR. */
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &mw1);
    qp_post_recv(k.qp[1], 0x702, &rs, 1, true);
    rx_stat = nodes[0].d.e.stats.v[QRNIC_STAT_RX_ROCE_PKTS];
    post_send_inv(k.qp[0], 0x602, src->iova, 100, src->key, mw1);
    wc = next_wc(k.cq[1]);
    CHECK(wc.wr_id == 0x702 && wc.status == QRNIC_WC_REM_INV_REQ_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_KEY_OP,
          "SEND_WITH_INV of a type 1 window: the receive completes with "
          "REM_INV_REQ_ERR (status %u)", wc.status);
    wc = next_wc(k.cq[0]);
    CHECK(wc.wr_id == 0x602 && wc.status == QRNIC_WC_SUCCESS &&
          nodes[0].d.e.stats.v[QRNIC_STAT_RX_ROCE_PKTS] > rx_stat,
          "the sender's SEND was acknowledged (status %u), as rxe does",
          wc.status);
    CHECK_EQ(qp_state_of(k.qp[1]), QRNIC_QPS_ERR, "the receiver is in ERR");

    /* A type 2 window bound by another QP cannot be invalidated here. */
    {
        struct kpair binder;

        kpair_new(&binder, QRNIC_QPT_RC);
        key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw);
        bind(&binder, mw, mw, reg->iova, 64, reg->key, RW);
        kpair_new(&k, QRNIC_QPT_RC);
        qp_post_recv(k.qp[1], 0x703, &rs, 1, true);
        post_send_inv(k.qp[0], 0x603, src->iova, 4, src->key, mw);
        wc = next_wc(k.cq[1]);
        CHECK_EQ(wc.status, QRNIC_WC_REM_INV_REQ_ERR,
                 "SEND_WITH_INV of a type 2 window another QP bound: "
                 "REM_INV_REQ_ERR");
        CHECK(write_via(&binder, 0x604, 0, 64, reg->iova, mw, 53) ==
              QRNIC_WC_SUCCESS,
              "and the window still serves its own QP");
    }
}

/* DEALLOC_MW of a bound window; everything back to zero. */
static void test_dealloc_teardown(void)
{
    struct qrnic_res_counts r;
    struct kpair k;
    uint32_t mw1, mw2;
    struct qrnic_cmd c;
    const struct qrnic_mrc *m;
    uint32_t i;

    setup(68);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &mw1);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw2);
    bind(&k, mw1, mw1, reg->iova, 4096, reg->key, RW);
    bind(&k, mw2, mw2, reg->iova + 4096, 4096, reg->key, RW);
    CHECK(write_via(&k, 1, 0, 16, reg->iova, mw1, 61) == QRNIC_WC_SUCCESS &&
          write_via(&k, 2, 0, 16, reg->iova + 4096, mw2, 62) ==
          QRNIC_WC_SUCCESS, "two bound windows serve");
    CHECK(key_dealloc_mw(&nodes[1], mw1) == QRNIC_ST_OK &&
          key_dereg(&nodes[1], reg->key) == QRNIC_ST_BAD_STATE,
          "DEALLOC_MW of one; the other still holds the region");
    CHECK_EQ(write_via(&k, 3, 0, 16, reg->iova, mw1, 63),
             QRNIC_WC_REM_ACCESS_ERR,
             "the deallocated window's key: REM_ACCESS_ERR");
    CHECK_EQ(key_dealloc_mw(&nodes[1], mw2), QRNIC_ST_OK,
             "DEALLOC_MW of the bound type 2 window");
    CHECK_EQ(key_dereg(&nodes[1], reg->key), QRNIC_ST_OK,
             "then DEREG_MR of the region");

    /* Bound windows, then everything destroyed. */
    reg = node_mr(&nodes[1], REGION,
                  QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_MW_BIND);
    kpair_new(&k, QRNIC_QPT_RC);
    for (i = 0; i < 4; i++) {
        key_alloc_mw(&nodes[1], nodes[1].pd, i % 2 ? QRNIC_MW_TYPE_2 :
                     QRNIC_MW_TYPE_1, &mw1);
        bind(&k, mw1, mw1, reg->iova, 64, reg->key, RW);
        if (i == 3) {
            key_dealloc_mw(&nodes[1], mw1);
        }
    }
    r = key_res(&nodes[1]);
    CHECK(r.mw == 3 && r.mr == 1, "QUERY_RES: mw 3, mr 1 (got %u, %u)",
          r.mw, r.mr);
    QRNIC_TABLE_FOR_EACH(&nodes[1].d.e.obj[QRNIC_OBJ_KEY], i, m) {
        if (qrnic_key_is_mw(m)) {
            key_dealloc_mw(&nodes[1], m->key);
        }
    }
    c = harness_cmd(QRNIC_CMD_DESTROY_QP);
    c.destroy_qp.qpn = k.qp[1]->qpn;
    node_cmd(&nodes[1], &c, NULL);
    key_dereg(&nodes[1], reg->key);
    r = key_res(&nodes[1]);
    CHECK(r.mw == 0 && r.mr == 0 && r.mr_pages == 0,
          "after DEALLOC_MW, DESTROY_QP, DEREG_MR: mw %u mr %u mr_pages %u",
          r.mw, r.mr, r.mr_pages);

    /* A device reset with windows bound frees everything consistently. */
    reg = node_mr(&nodes[1], REGION,
                  QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_MW_BIND);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_2, &mw2);
    bind(&k, mw2, mw2, reg->iova, 64, reg->key, RW);
    qf_reset(&nodes[1].d);
    CHECK(nodes[1].d.e.mtt_used == 0 &&
          !nodes[1].d.e.obj[QRNIC_OBJ_KEY].used,
          "reset: no keys, no page addresses held");
}

/*
 * Binds between SENDs on a lossy wire: resends go back across WQEs that
 * moved no data; everything completes in order, the data intact.
 */
#define NIL 15

static void test_interleaved(void)
{
    struct kpair k;
    struct hsge rs;
    struct hwc wc;
    uint32_t mw, key;
    int i, ok = 0, order = 1, rx_ok = 0;

    setup(69);
    kpair_new(&k, QRNIC_QPT_RC);
    key_alloc_mw(&nodes[1], nodes[1].pd, QRNIC_MW_TYPE_1, &mw);
    key = mw;
    for (i = 0; i < NIL; i++) {
        rs.addr = src->iova + i * 4096u;
        rs.len = 4096;
        rs.lkey = src->key;
        qp_post_recv(k.qp[0], 0x300 + i, &rs, 1, true);
    }
    wire.drop_pct = 10;
    for (i = 0; i < NIL; i++) {
        struct hwr wr;

        mr_fill(reg, reg->iova + 16384 + i * 3000u, 3000, 90 + i);
        wr = mkwr(0x200 + i, QRNIC_WR_SEND, reg->iova + 16384 + i * 3000u,
                  3000, reg->key);
        qp_post_send(k.qp[1], &wr, false);
        post_bind(k.qp[1], 0x400 + i, key, key_next(key),
                  reg->iova + i * 512u, 512, reg->key, RW);
        key = key_next(key);
    }
    harness_run(now_ns + 10 * SEC);
    wire.drop_pct = 0;
    for (i = 0; i < 2 * NIL; i++) {
        wc = next_wc(k.cq[1]);
        order &= wc.wr_id == (i % 2 ? 0x400u : 0x200u) + i / 2 &&
                 wc.opcode == (i % 2 ? QRNIC_CQE_OP_BIND_MW :
                               QRNIC_CQE_OP_SEND);
        ok += wc.status == QRNIC_WC_SUCCESS;
    }
    CHECK(ok == 2 * NIL && order,
          "%d SENDs and %d BIND_MWs between them on a lossy wire: all "
          "complete in order (%d)", NIL, NIL, ok);
    CHECK(nodes[1].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS] > 0,
          "(%llu packets were resent)",
          (unsigned long long)nodes[1].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS]);
    for (i = 0; i < NIL; i++) {
        wc = next_wc(k.cq[0]);
        rx_ok += wc.wr_id == 0x300u + i && wc.status == QRNIC_WC_SUCCESS &&
                 wc.byte_len == 3000 &&
                 !mr_verify(src, src->iova + i * 4096u, 3000, 90 + i);
    }
    CHECK_EQ(rx_ok, NIL, "the peer received the SENDs intact, in order");
    CHECK_EQ(write_via(&k, 0x500, 0, 64, reg->iova + (NIL - 1) * 512, key, 95),
             QRNIC_WC_SUCCESS, "the last binding serves");

    /*
     * SEND, BIND_MW, SEND of 8 packets each on a cut wire: probes and
     * timeouts shrink the window and resend from the first SEND across
     * the BIND_MW (fuzz_wqe's keys-binds-between-sends seed is the one
     * that stops the requester right before a BIND_MW an ACK retires).
     */
    kpair_new(&k, QRNIC_QPT_RC);
    for (i = 0; i < 2; i++) {
        rs.addr = src->iova + i * 8192u;
        rs.len = 8192;
        rs.lkey = src->key;
        qp_post_recv(k.qp[0], 0x600 + i, &rs, 1, true);
    }
    wire.cut = true;
    {
        struct hwr wr = mkwr(0x610, QRNIC_WR_SEND, reg->iova, 8192, reg->key);

        qp_post_send(k.qp[1], &wr, false);
        post_bind(k.qp[1], 0x611, key, key_next(key), reg->iova, 64,
                  reg->key, RW);
        key = key_next(key);
        wr.wr_id = 0x612;
        qp_post_send(k.qp[1], &wr, true);
    }
    harness_run(now_ns + 150 * MS);
    wire.cut = false;
    for (i = 0, ok = 0; i < 3; i++) {
        wc = next_wc(k.cq[1]);
        ok += wc.wr_id == 0x610u + i && wc.status == QRNIC_WC_SUCCESS;
    }
    CHECK(ok == 3, "SEND, BIND_MW, SEND on a cut wire, resent after a "
          "timeout: all complete in order (%d)", ok);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_commands();
    test_type1();
    test_type2();
    test_bind_errors();
    test_uc();
    test_send_inv();
    test_dealloc_teardown();
    test_interleaved();
    harness_fini();
    return tap_failures ? 1 : 0;
}
