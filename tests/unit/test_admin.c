/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The register file, the admin queue and the command processor, driven
 * as a guest does: registers through BAR0, commands in guest RAM, the
 * device's work in its bottom half (tests/fake/qfake.h).
 */
#include <string.h>
#include "aq_util.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

static struct aq q;

static uint32_t status(void)
{
    return aq_reg(&q, QRNIC_REG_STATUS);
}

/* What QUERY_RES reports; all ones if the command failed. */
static struct qrnic_res_counts query_res(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_QUERY_RES);
    struct qrnic_res_counts rc;

    memset(&rc, 0xff, sizeof(rc));
    c.query_res.resp_addr = RESP;
    if (aq_status(&q, &c) == QRNIC_ST_OK) {
        memcpy(&rc, qf_ram(&q.d, RESP, sizeof(rc)), sizeof(rc));
    }
    return rc;
}

/* ---- the register file ---------------------------------------------------- */

static const uint32_t read_only[] = {
    QRNIC_REG_ID, QRNIC_REG_VERSION, QRNIC_REG_CAP0, QRNIC_REG_CAP1,
    QRNIC_REG_NUM_MSIX, QRNIC_REG_DB_PAGES, QRNIC_REG_QMEM_PAGES,
    QRNIC_REG_AQ_MAX_LOG, QRNIC_REG_STATUS, QRNIC_REG_INIT_ERR,
    QRNIC_REG_MAC_LO, QRNIC_REG_MAC_HI, QRNIC_REG_STAT_RX_DROP,
    QRNIC_REG_STAT_BAD_DB,
};

static const uint32_t read_write[] = {
    QRNIC_REG_CTRL, QRNIC_REG_INTR_MASK, QRNIC_REG_AQ_SQ_BASE_LO,
    QRNIC_REG_AQ_SQ_BASE_HI, QRNIC_REG_AQ_CQ_BASE_LO, QRNIC_REG_AQ_CQ_BASE_HI,
    QRNIC_REG_AQ_LOG_DEPTH,
};

static const uint32_t write_only[] = { QRNIC_REG_AQ_DB, QRNIC_REG_AQ_CQ_CI };

static bool in_list(uint32_t reg, const uint32_t *list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (list[i] == reg) {
            return true;
        }
    }
    return false;
}

#define IN(reg, list) in_list(reg, list, sizeof(list) / sizeof(list[0]))

static bool assigned(uint32_t reg)
{
    return IN(reg, read_only) || IN(reg, read_write) || IN(reg, write_only);
}

/* What every register below the MSI-X table reads. */
struct regs_snap {
    uint32_t v[QRNIC_MSIX_TABLE_OFF / 4];
};

static struct regs_snap snap(void)
{
    struct regs_snap r;
    uint32_t a;

    for (a = 0; a < QRNIC_MSIX_TABLE_OFF; a += 4) {
        r.v[a / 4] = aq_reg(&q, a);
    }
    return r;
}

static void test_identity(void)
{
    struct regs_snap before, after;
    uint32_t a, i, nonzero = 0;

    aq_init(&q, 64);
    CHECK_EQ(aq_reg(&q, QRNIC_REG_ID), QRNIC_ID_MAGIC, "ID reads QRNI");
    CHECK_EQ(aq_reg(&q, QRNIC_REG_VERSION),
             QRNIC_VERSION_MAJOR << 16 | QRNIC_VERSION_MINOR, "VERSION 1.0");
    CHECK_EQ(aq_reg(&q, QRNIC_REG_CAP0),
             QRNIC_CAP0_ETH | QRNIC_CAP0_ROCE_V2 | QRNIC_CAP0_RC |
             QRNIC_CAP0_ATOMIC | QRNIC_CAP0_UD | QRNIC_CAP0_SRQ |
             QRNIC_CAP0_UC | QRNIC_CAP0_MCAST | QRNIC_CAP0_RESIZE_CQ |
             QRNIC_CAP0_FLUSH | QRNIC_CAP0_ATOMIC_WRITE |
             QRNIC_CAP0_SRQ_RESIZE | QRNIC_CAP0_MW | QRNIC_CAP0_FAST_REG |
             QRNIC_CAP0_REREG_MR | QRNIC_CAP0_XRC,
             "CAP0: Ethernet, RoCE v2, RC, atomics, UD, SRQ, UC, multicast, "
             "CQ resize, FLUSH, ATOMIC WRITE, SRQ resize, memory windows, "
             "fast registration, REREG_MR");
    CHECK_EQ(aq_reg(&q, QRNIC_REG_CAP1), 0, "CAP1 reads 0");
    CHECK(aq_reg(&q, QRNIC_REG_NUM_MSIX) == QRNIC_NUM_MSIX &&
          aq_reg(&q, QRNIC_REG_DB_PAGES) == 64 &&
          aq_reg(&q, QRNIC_REG_QMEM_PAGES) == QMEM_SIZE / QRNIC_QMEM_PAGE_SIZE &&
          aq_reg(&q, QRNIC_REG_AQ_MAX_LOG) == QRNIC_AQ_MAX_LOG,
          "NUM_MSIX, DB_PAGES, QMEM_PAGES, AQ_MAX_LOG");
    CHECK(aq_reg(&q, QRNIC_REG_MAC_LO) == 0x12005452 &&
          aq_reg(&q, QRNIC_REG_MAC_HI) == 0x5634,
          "MAC_LO/MAC_HI hold 52:54:00:12:34:56, byte 0 lowest");
    CHECK(aq_reg(&q, QRNIC_REG_CTRL) == 0 && status() == 0 &&
          aq_reg(&q, QRNIC_REG_INIT_ERR) == 0 &&
          aq_reg(&q, QRNIC_REG_INTR_MASK) == 0,
          "power-on: CTRL, STATUS, INIT_ERR, INTR_MASK all 0");
    qf_set_link(&q.d, true);
    CHECK_EQ(status(), QRNIC_STATUS_LINK_UP, "link up: STATUS = LINK_UP");

    before = snap();
    for (i = 0; i < sizeof(read_only) / sizeof(read_only[0]); i++) {
        aq_set_reg(&q, read_only[i], 0xffffffff);
        aq_set_reg(&q, read_only[i], 0);
    }
    after = snap();
    CHECK(!memcmp(&before, &after, sizeof(before)),
          "read-only registers ignore writes");

    for (a = 0; a < QRNIC_MSIX_TABLE_OFF; a += 4) {
        if (!assigned(a) || IN(a, write_only)) {
            nonzero += before.v[a / 4] != 0;
        }
    }
    CHECK_EQ(nonzero, 0, "unassigned and write-only registers read 0");
    for (a = 0; a < QRNIC_MSIX_TABLE_OFF; a += 4) {
        if (!assigned(a)) {
            aq_set_reg(&q, a, 0xffffffff);
        }
    }
    after = snap();
    CHECK(!memcmp(&before, &after, sizeof(before)),
          "writes to unassigned registers change nothing");

    aq_set_reg(&q, QRNIC_REG_AQ_SQ_BASE_LO, 0x89abcdc0);
    aq_set_reg(&q, QRNIC_REG_AQ_SQ_BASE_HI, 0x1234567);
    aq_set_reg(&q, QRNIC_REG_AQ_CQ_BASE_LO, 0x40);
    aq_set_reg(&q, QRNIC_REG_AQ_CQ_BASE_HI, 0x2);
    aq_set_reg(&q, QRNIC_REG_AQ_LOG_DEPTH, 5);
    CHECK(aq_reg(&q, QRNIC_REG_AQ_SQ_BASE_LO) == 0x89abcdc0 &&
          aq_reg(&q, QRNIC_REG_AQ_SQ_BASE_HI) == 0x1234567 &&
          aq_reg(&q, QRNIC_REG_AQ_CQ_BASE_LO) == 0x40 &&
          aq_reg(&q, QRNIC_REG_AQ_CQ_BASE_HI) == 0x2 &&
          aq_reg(&q, QRNIC_REG_AQ_LOG_DEPTH) == 5,
          "admin queue registers read back");

    /* .impl.max_access_size 4: QEMU splits 8-byte accesses, low half first. */
    qf_mmio_write(&q.d, QF_BAR0_BASE + QRNIC_REG_AQ_CQ_BASE_LO,
                  0x0000000311223340ull, 8);
    CHECK(aq_reg(&q, QRNIC_REG_AQ_CQ_BASE_LO) == 0x11223340 &&
          aq_reg(&q, QRNIC_REG_AQ_CQ_BASE_HI) == 3,
          "8-byte write sets both halves of AQ_CQ_BASE");
    CHECK_EQ(qf_mmio_read(&q.d, QF_BAR0_BASE + QRNIC_REG_AQ_CQ_BASE_LO, 8),
             0x0000000311223340ull, "8-byte read returns both halves");
    CHECK_EQ(qf_mmio_read(&q.d, QF_BAR0_BASE + QRNIC_REG_ID, 8),
             (uint64_t)(QRNIC_VERSION_MAJOR << 16 | QRNIC_VERSION_MINOR) << 32 |
             QRNIC_ID_MAGIC, "8-byte read of ID is ID | VERSION << 32");
    aq_fini(&q);
}

static void test_enable(void)
{
    struct aq_result r;
    uint32_t bad;

    aq_init(&q, 64);
    qf_set_link(&q.d, true);
    aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
    CHECK(aq_reg(&q, QRNIC_REG_CTRL) == 0 && status() == QRNIC_STATUS_LINK_UP,
          "CTRL.RESET self clears; STATUS = LINK_UP");
    CHECK_EQ(aq_enable(&q, AQ_SQ, AQ_CQ, 0), QRNIC_INIT_ERR_AQ_DEPTH,
             "enable: log depth 0 -> INIT_ERR AQ_DEPTH");
    CHECK(status() == (QRNIC_STATUS_FATAL | QRNIC_STATUS_LINK_UP) &&
          aq_reg(&q, QRNIC_REG_CTRL) == QRNIC_CTRL_ENABLE,
          "failed enable: STATUS FATAL, not READY; CTRL reads ENABLE");
    CHECK_EQ(aq_enable(&q, AQ_SQ, AQ_CQ, QRNIC_AQ_MAX_LOG + 1),
             QRNIC_INIT_ERR_AQ_DEPTH, "enable: log depth 9 -> AQ_DEPTH");
    CHECK_EQ(aq_enable(&q, AQ_SQ + 32, AQ_CQ, 3),
             QRNIC_INIT_ERR_AQ_ALIGN, "enable: unaligned SQ -> AQ_ALIGN");
    CHECK_EQ(aq_enable(&q, AQ_SQ, AQ_CQ + 8, 3),
             QRNIC_INIT_ERR_AQ_ALIGN, "enable: unaligned CQ -> AQ_ALIGN");
    CHECK(!(status() & QRNIC_STATUS_READY), "enable: not ready after failures");
    CHECK_EQ(aq_bad_db(&q), 0, "STAT_BAD_DB 0 before any doorbell");
    aq_set_reg(&q, QRNIC_REG_AQ_DB, 1);
    aq_run(&q);
    CHECK(aq_bad_db(&q) == 1 && q.d.irqs[0] == 0 &&
          qrnic_ld32(qf_ram(&q.d, AQ_CQ + 28, 4)) == 0,
          "admin doorbell before READY is ignored and counted");
    aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
    CHECK(status() == QRNIC_STATUS_LINK_UP &&
          aq_reg(&q, QRNIC_REG_INIT_ERR) == 0 && aq_bad_db(&q) == 0 &&
          aq_reg(&q, QRNIC_REG_CTRL) == 0,
          "RESET clears FATAL, INIT_ERR, CTRL and the counters");
    aq_set_reg(&q, QRNIC_REG_AQ_LOG_DEPTH, 0);
    aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    aq_set_reg(&q, QRNIC_REG_AQ_LOG_DEPTH, 3);
    aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    CHECK(status() == (QRNIC_STATUS_FATAL | QRNIC_STATUS_LINK_UP) &&
          aq_reg(&q, QRNIC_REG_INIT_ERR) == QRNIC_INIT_ERR_AQ_DEPTH,
          "ENABLE written again while FATAL changes nothing");
    aq_set_reg(&q, QRNIC_REG_CTRL, 0);
    CHECK(status() == QRNIC_STATUS_LINK_UP &&
          aq_reg(&q, QRNIC_REG_INIT_ERR) == 0,
          "clearing ENABLE clears FATAL and INIT_ERR");
    CHECK_EQ(aq_enable(&q, AQ_SQ, AQ_CQ, QRNIC_AQ_MAX_LOG),
             QRNIC_INIT_ERR_NONE, "enable: valid rings -> ready");
    CHECK_EQ(status(), QRNIC_STATUS_READY | QRNIC_STATUS_LINK_UP,
             "enable: STATUS = READY | LINK_UP");

    /* A second ENABLE while enabled changes nothing. */
    {
        struct qrnic_cmd c = mkcmd(QRNIC_CMD_ALLOC_PD);

        r = aq_exec(&q, &c);
        CHECK(r.completed && r.status == QRNIC_ST_OK && r.result0 == 1,
              "a command after enable: ALLOC_PD -> pdn 1");
        aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
        c = mkcmd(QRNIC_CMD_ALLOC_PD);
        r = aq_exec(&q, &c);
        /* Had the queue restarted, slot 0 would run again (pdn 2). */
        CHECK(r.completed && r.status == QRNIC_ST_OK && r.result0 == 2 &&
              (status() & QRNIC_STATUS_READY),
              "ENABLE written again keeps the admin queue where it was");
    }
    bad = aq_bad_db(&q);
    CHECK_EQ(bad, 0, "no doorbell rejected so far");
    aq_fini(&q);
}

static void test_opcodes(void)
{
    static const uint8_t bad[] = { 0x00, QRNIC_CMD_MAX, 0x7f, 0xff };
    unsigned int i;

    aq_setup(&q, 64, 4);
    for (i = 0; i < sizeof(bad); i++) {
        struct qrnic_cmd c = mkcmd(bad[i]);
        struct aq_result r = aq_exec(&q, &c);

        CHECK(r.completed && r.status == QRNIC_ST_BAD_OPCODE &&
              r.cookie == c.cookie && r.opcode == bad[i],
              "opcode 0x%02x -> BAD_OPCODE, cookie and opcode echoed", bad[i]);
    }
    CHECK(q.d.irqs[0] == sizeof(bad), "each completion raised vector 0");
}

static void test_query_device(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    struct qrnic_dev_attr a;

    aq_setup(&q, 64, 3);
    c.query_device.resp_addr = RESP;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "QUERY_DEVICE -> OK");
    memcpy(&a, qf_ram(&q.d, RESP, sizeof(a)), sizeof(a));
    CHECK_EQ(a.gid_tbl_len, 128, "QUERY_DEVICE gid_tbl_len");
    CHECK_EQ(a.max_uctx, 63, "QUERY_DEVICE max_uctx = db_pages - 1");
    CHECK(a.max_qp == QRNIC_ENG_DEFAULT_QPS &&
          a.max_cq == QRNIC_ENG_DEFAULT_CQS &&
          a.max_srq == QRNIC_ENG_DEFAULT_SRQS &&
          a.max_mr == QRNIC_ENG_DEFAULT_KEYS &&
          a.max_mw == QRNIC_ENG_DEFAULT_KEYS &&
          a.max_pd == QRNIC_ENG_DEFAULT_PDS,
          "QUERY_DEVICE: the default limits (QPs %u, CQs %u, SRQs %u, MRs %u, "
          "MWs %u, PDs %u)", a.max_qp, a.max_cq, a.max_srq, a.max_mr,
          a.max_mw, a.max_pd);
    CHECK(a.max_mr_pages == QRNIC_ENG_MR_MAX_PAGES &&
          a.ctx_max[QRNIC_CTX_MR_PAGES] == QRNIC_ENG_DEFAULT_MTT / 4,
          "QUERY_DEVICE: %u page addresses for one region, a context a "
          "quarter of the %u all regions hold (%u)", a.max_mr_pages,
          QRNIC_ENG_DEFAULT_MTT, a.ctx_max[QRNIC_CTX_MR_PAGES]);
    CHECK_EQ(a.num_eq, QRNIC_NUM_MSIX, "QUERY_DEVICE num_eq");
    CHECK_EQ(a.max_mtu, QRNIC_MAX_MTU, "QUERY_DEVICE max_mtu");

    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = OUTSIDE;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_DMA_ERROR,
             "QUERY_DEVICE outside guest RAM -> DMA_ERROR");
    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = QF_RAM_BASE + RAM_SIZE - 16;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_DMA_ERROR,
             "QUERY_DEVICE straddling the end of RAM -> DMA_ERROR");
    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = UINT64_MAX - 8;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_DMA_ERROR,
             "QUERY_DEVICE wrapping address -> DMA_ERROR");
    c = mkcmd(QRNIC_CMD_QUERY_RES);
    c.query_res.resp_addr = OUTSIDE;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_DMA_ERROR,
             "QUERY_RES outside guest RAM -> DMA_ERROR");

    /* DMA onto our own BAR0 from the bottom half meets the guard. */
    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = QF_BAR0_BASE;
    CHECK(aq_status(&q, &c) == QRNIC_ST_DMA_ERROR && q.d.blocked_reentry > 0 &&
          aq_reg(&q, QRNIC_REG_ID) == QRNIC_ID_MAGIC &&
          (status() & QRNIC_STATUS_READY),
          "QUERY_DEVICE onto the device's own BAR0 -> DMA_ERROR, refused");
    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = QF_BAR4_BASE + QMEM_SIZE - sizeof(a);
    CHECK(aq_status(&q, &c) == QRNIC_ST_OK &&
          qf_mmio_read(&q.d, QF_BAR4_BASE + QMEM_SIZE - sizeof(a) +
                       offsetof(struct qrnic_dev_attr, gid_tbl_len), 4) == 128,
          "QUERY_DEVICE into BAR4 queue memory -> OK");
}

static struct qrnic_cmd eq_cmd(uint64_t base, uint8_t log, uint8_t flags,
                               uint16_t vector)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_CREATE_EQ);

    c.create_eq.base = base;
    c.create_eq.log_depth = log;
    c.create_eq.flags = flags;
    c.create_eq.vector = vector;
    return c;
}

static void test_eq(void)
{
    struct qrnic_cmd c;
    struct aq_result r;
    int i, ok = 1;

    aq_setup(&q, 64, 5);
    c = eq_cmd(EQ_RING, 0, QRNIC_EQ_ASYNC, 0);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "CREATE_EQ log 0");
    c = eq_cmd(EQ_RING, QRNIC_EQ_MAX_LOG + 1, QRNIC_EQ_ASYNC, 0);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "CREATE_EQ log 13");
    c = eq_cmd(EQ_RING, 4, QRNIC_EQ_ASYNC, QRNIC_NUM_MSIX);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "CREATE_EQ vector 16");
    c = eq_cmd(EQ_RING, 4, 0x2, 0);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "CREATE_EQ unknown flag");
    c = eq_cmd(EQ_RING + 4, 4, QRNIC_EQ_ASYNC, 0);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "CREATE_EQ unaligned base");
    c = eq_cmd(UINT64_MAX - 15, 4, QRNIC_EQ_ASYNC, 0);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "CREATE_EQ wrapping ring");

    c = eq_cmd(EQ_RING, 1, QRNIC_EQ_ASYNC, 0);
    r = aq_exec(&q, &c);
    CHECK(r.completed && r.status == QRNIC_ST_OK && r.result0 == 0,
          "CREATE_EQ async -> OK, eqn 0");
    c = eq_cmd(EQ_RING, 4, QRNIC_EQ_ASYNC, 0);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_STATE, "second async EQ -> BAD_STATE");
    for (i = 1; i < QRNIC_NUM_MSIX; i++) {
        c = eq_cmd(EQ_RING + 0x100 * i, 2, 0, (uint16_t)i);
        r = aq_exec(&q, &c);
        ok &= r.completed && r.status == QRNIC_ST_OK && r.result0 == (uint32_t)i;
    }
    CHECK(ok, "CREATE_EQ 15 more -> eqn 1..15");
    c = eq_cmd(EQ_RING, 2, 0, 1);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_NO_RESOURCES, "17th EQ -> NO_RESOURCES");

    c = mkcmd(QRNIC_CMD_DESTROY_EQ);
    c.destroy_eq.eqn = 99;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_HANDLE, "DESTROY_EQ 99 -> BAD_HANDLE");
    c.destroy_eq.eqn = 5;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "DESTROY_EQ 5 -> OK");
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_HANDLE, "DESTROY_EQ 5 again -> BAD_HANDLE");
    c = eq_cmd(EQ_RING + 0x500, 2, 0, 5);
    r = aq_exec(&q, &c);
    CHECK(r.status == QRNIC_ST_OK && r.result0 == 5, "CREATE_EQ reuses eqn 5");
}

/* A doorbell on page 0..; true if STAT_BAD_DB did not move. */
static bool db(uint32_t page, uint32_t off, uint64_t val)
{
    uint32_t bad = aq_bad_db(&q);

    qf_doorbell(&q.d, page, off, val);
    return aq_bad_db(&q) == bad;
}

static void test_link_events(void)
{
    struct qrnic_cmd c;
    const uint8_t *eqe;

    aq_setup(&q, 64, 3);
    qf_set_link(&q.d, false);
    CHECK(q.d.irqs[2] == 0 && q.d.irqs[0] == 0 &&
          !(status() & QRNIC_STATUS_LINK_UP),
          "link change without an async EQ is dropped; LINK_UP clear");

    c = eq_cmd(EQ_RING, 1, QRNIC_EQ_ASYNC, 2);      /* 2 entries */
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "CREATE_EQ async, vector 2");
    qf_set_link(&q.d, true);
    eqe = qf_ram(&q.d, EQ_RING, 32);
    CHECK(eqe[0] == QRNIC_EVENT_LINK && qrnic_ld32(eqe + 4) == 1 &&
          (qrnic_ld32(eqe + 12) & QRNIC_EQE_PHASE),
          "link up -> LINK EQE, data0 1, phase 1");
    CHECK_EQ(q.d.irqs[2], 1, "link EQE raised the EQ vector");
    CHECK(status() & QRNIC_STATUS_LINK_UP, "link up: LINK_UP set");
    qf_set_link(&q.d, false);
    CHECK(eqe[16] == QRNIC_EVENT_LINK && qrnic_ld32(eqe + 16 + 4) == 0,
          "link down -> LINK EQE, data0 0");
    qf_set_link(&q.d, true);
    CHECK(q.d.e.stats.eq_overflow == 1 && q.d.irqs[2] == 2 &&
          qrnic_ld32(eqe + 4) == 1 && qrnic_ld32(eqe + 16 + 4) == 0,
          "full EQ drops the event");

    CHECK(!db(0, QRNIC_DB_EQ, 0 | 3ull << 32), "EQ doorbell ci past pi rejected");
    CHECK(!db(0, QRNIC_DB_EQ, 7 | 1ull << 32),
          "EQ doorbell for a missing EQ rejected");
    CHECK(!db(1, QRNIC_DB_EQ, 0 | 1ull << 32),
          "EQ doorbell on a page without context rejected");
    CHECK(!db(0, QRNIC_DB_EQ, 0 | QRNIC_DB_ARM | 2ull << 32),
          "EQ doorbell with the ARM bit rejected (EQs take no flags)");
    CHECK(!db(0, QRNIC_DB_EQ, 0 | QRNIC_DB_ARM_SOLICITED | 2ull << 32),
          "EQ doorbell with ARM_SOLICITED rejected");
    CHECK(!db(0, QRNIC_DB_EQ, 0 | 2ull << 32 | 1ull << 48),
          "EQ doorbell with bits above the index rejected");
    CHECK(db(0, QRNIC_DB_EQ, 0 | 2ull << 32),
          "EQ doorbell returning both entries accepted");
    CHECK(!db(0, QRNIC_DB_EQ, 0 | 1ull << 32), "EQ doorbell moving back rejected");
    qf_set_link(&q.d, false);
    qf_set_link(&q.d, true);
    CHECK(qrnic_ld32(eqe + 4) == 0 && !(qrnic_ld32(eqe + 12) & QRNIC_EQE_PHASE) &&
          qrnic_ld32(eqe + 16 + 4) == 1 &&
          !(qrnic_ld32(eqe + 16 + 12) & QRNIC_EQE_PHASE),
          "second pass through the EQ has phase 0");
    CHECK_EQ(aq_bad_db(&q), 7, "rejected EQ doorbells counted in STAT_BAD_DB");
}

static struct qrnic_cmd eth_cmd(uint64_t tx, uint64_t rx, uint8_t tl,
                                uint8_t rl, uint16_t vec)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_ETH_SETUP);

    c.eth_setup.tx_base = tx;
    c.eth_setup.rx_base = rx;
    c.eth_setup.tx_log_depth = tl;
    c.eth_setup.rx_log_depth = rl;
    c.eth_setup.vector = vec;
    return c;
}

static void test_eth_setup(void)
{
    struct qrnic_cmd c;

    aq_setup(&q, 64, 3);
    c = eth_cmd(TX_RING, RX_RING, 0, 4, 1);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ETH_SETUP tx log 0");
    c = eth_cmd(TX_RING, RX_RING, 4, 13, 1);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ETH_SETUP rx log 13");
    c = eth_cmd(TX_RING, RX_RING, 4, 4, 16);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ETH_SETUP vector 16");
    c = eth_cmd(TX_RING + 8, RX_RING, 4, 4, 1);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ETH_SETUP unaligned ring");
    c = eth_cmd(TX_RING, RX_RING, 4, 4, 1);
    c.eth_setup.rsvd = 1;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ETH_SETUP reserved field");
    c = mkcmd(QRNIC_CMD_ETH_TEARDOWN);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_STATE, "ETH_TEARDOWN without setup");
    c = eth_cmd(TX_RING, RX_RING, 4, 4, 1);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "ETH_SETUP -> OK");
    c = eth_cmd(TX_RING, RX_RING, 4, 4, 1);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_STATE, "ETH_SETUP twice -> BAD_STATE");
    c = mkcmd(QRNIC_CMD_ETH_TEARDOWN);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "ETH_TEARDOWN -> OK");
}

static void test_mac_mtu(void)
{
    static const uint8_t mc[6] = { 0x01, 0, 0x5e, 0, 0, 1 };
    static const uint8_t good[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
    struct qrnic_cmd c;

    aq_setup(&q, 64, 3);
    c = mkcmd(QRNIC_CMD_SET_MAC);
    memcpy(c.set_mac.mac, mc, 6);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "SET_MAC multicast");
    c = mkcmd(QRNIC_CMD_SET_MAC);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "SET_MAC all zero");
    memcpy(c.set_mac.mac, good, 6);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "SET_MAC unicast -> OK");
    CHECK(aq_reg(&q, QRNIC_REG_MAC_LO) == 0x33221102 &&
          aq_reg(&q, QRNIC_REG_MAC_HI) == 0x5544,
          "SET_MAC updates the station address (MAC_LO/MAC_HI)");

    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 67;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "SET_MTU 67");
    c.set_mtu.mtu = QRNIC_MAX_MTU + 1;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "SET_MTU 9001");
    c.set_mtu.mtu = 68;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "SET_MTU 68");
    c.set_mtu.mtu = QRNIC_MAX_MTU;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "SET_MTU 9000");
    CHECK_EQ(q.d.e.mtu, 9000, "SET_MTU stored");
}

static void test_gid(void)
{
    struct qrnic_cmd c;

    aq_setup(&q, 64, 3);
    c = mkcmd(QRNIC_CMD_ADD_GID);
    c.add_gid.index = 128;
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ADD_GID index 128");
    c.add_gid.index = 3;
    c.add_gid.type = 1;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "ADD_GID type RoCEv1");
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    c.add_gid.gid[15] = 1;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "ADD_GID index 3 -> OK");
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_STATE, "ADD_GID occupied -> BAD_STATE");
    c.add_gid.index = 127;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "ADD_GID index 127 -> OK");
    c = mkcmd(QRNIC_CMD_DEL_GID);
    c.del_gid.index = 128;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "DEL_GID index 128");
    c.del_gid.index = 4;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_HANDLE, "DEL_GID empty slot");
    c.del_gid.index = 3;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "DEL_GID 3 -> OK");
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_HANDLE, "DEL_GID 3 again");
}

static struct aq_result alloc_pd(uint32_t uctx)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_ALLOC_PD);

    c.alloc_pd.uctx = uctx;
    return aq_exec(&q, &c);
}

static uint8_t dealloc(uint8_t op, uint32_t handle)
{
    struct qrnic_cmd c = mkcmd(op);

    /* dealloc_uctx.uctx and dealloc_pd.pdn share the first argument. */
    c.dealloc_pd.pdn = handle;
    return aq_status(&q, &c);
}

static void test_uctx_pd(void)
{
    struct qrnic_cmd c;
    struct aq_result r;
    int i, ok = 1;

    aq_setup(&q, 4, 3);         /* contexts 1..3 */
    CHECK_EQ(qrnic_objects_set_limit(&q.d.e, QRNIC_OBJ_PD, 1024), 0,
             "the PD limit set to 1024");
    for (i = 1; i <= 3; i++) {
        c = mkcmd(QRNIC_CMD_ALLOC_UCTX);
        r = aq_exec(&q, &c);
        ok &= r.status == QRNIC_ST_OK && r.result0 == (uint32_t)i &&
              r.result1 == (uint32_t)i;
    }
    CHECK(ok, "ALLOC_UCTX x3 -> ids 1..3 on doorbell pages 1..3");
    c = mkcmd(QRNIC_CMD_ALLOC_UCTX);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_NO_RESOURCES,
             "ALLOC_UCTX beyond db_pages - 1 -> NO_RESOURCES");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_UCTX, 0), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_UCTX 0 (kernel) -> BAD_HANDLE");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_UCTX, 4), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_UCTX 4 -> BAD_HANDLE");

    r = alloc_pd(0);
    CHECK(r.status == QRNIC_ST_OK && r.result0 == 1, "ALLOC_PD kernel -> pdn 1");
    r = alloc_pd(2);
    CHECK(r.status == QRNIC_ST_OK && r.result0 == 2, "ALLOC_PD uctx 2 -> pdn 2");
    r = alloc_pd(9);
    CHECK_EQ(r.status, QRNIC_ST_BAD_HANDLE, "ALLOC_PD unknown uctx");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_UCTX, 2), QRNIC_ST_BAD_STATE,
             "DEALLOC_UCTX owning a PD -> BAD_STATE");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_PD, 2), QRNIC_ST_OK, "DEALLOC_PD 2");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_UCTX, 2), QRNIC_ST_OK,
             "DEALLOC_UCTX 2 after its PD is gone");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_UCTX, 2), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_UCTX 2 again -> BAD_HANDLE");
    r = alloc_pd(2);
    CHECK_EQ(r.status, QRNIC_ST_BAD_HANDLE, "ALLOC_PD on a freed uctx");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_PD, 0), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_PD 0 -> BAD_HANDLE");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_PD, 1025), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_PD 1025 -> BAD_HANDLE");
    CHECK_EQ(dealloc(QRNIC_CMD_DEALLOC_PD, 2), QRNIC_ST_BAD_HANDLE,
             "DEALLOC_PD 2 again -> BAD_HANDLE");
    c = mkcmd(QRNIC_CMD_ALLOC_UCTX);
    r = aq_exec(&q, &c);
    CHECK(r.status == QRNIC_ST_OK && r.result0 == 2, "ALLOC_UCTX reuses id 2");

    for (i = 0, ok = 1; i < 1023; i++) {
        r = alloc_pd(0);
        ok &= r.status == QRNIC_ST_OK;
    }
    CHECK(ok, "ALLOC_PD up to 1024 PDs");
    r = alloc_pd(0);
    CHECK_EQ(r.status, QRNIC_ST_NO_RESOURCES, "1025th PD -> NO_RESOURCES");
}

static struct qrnic_dev_attr query_device(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    struct qrnic_dev_attr a;

    c.query_device.resp_addr = RESP;
    memset(&a, 0, sizeof(a));
    if (aq_status(&q, &c) == QRNIC_ST_OK) {
        memcpy(&a, qf_ram(&q.d, RESP, sizeof(a)), sizeof(a));
    }
    return a;
}

/* The platform's limits: what QUERY_DEVICE reports and what it refuses. */
static void test_limits(void)
{
    struct qrnic_engine *e = &q.d.e;
    struct qrnic_dev_attr a;
    struct aq_result r;

    aq_setup(&q, 4, 3);
    CHECK(qrnic_objects_set_limit(e, QRNIC_OBJ_QP, 0) == -1 &&
          qrnic_objects_set_limit(e, QRNIC_OBJ_KEY,
                                  QRNIC_ENG_MAX_OBJECTS + 1) == -1,
          "a limit of 0 or above QRNIC_ENG_MAX_OBJECTS is refused");
    CHECK(qrnic_objects_set_limit(e, QRNIC_OBJ_QP,
                                  QRNIC_ENG_MAX_OBJECTS) == 0 &&
          qrnic_objects_set_limit(e, QRNIC_OBJ_CQ, 3) == 0 &&
          qrnic_objects_set_limit(e, QRNIC_OBJ_SRQ, 5) == 0 &&
          qrnic_objects_set_limit(e, QRNIC_OBJ_KEY, 7) == 0 &&
          qrnic_objects_set_limit(e, QRNIC_OBJ_PD, 2) == 0,
          "limits set: QPs 2^20, CQs 3, SRQs 5, keys 7, PDs 2");
    a = query_device();
    CHECK(a.max_qp == QRNIC_ENG_MAX_OBJECTS && a.max_cq == 3 &&
          a.max_srq == 5 && a.max_mr == 7 && a.max_mw == 7 && a.max_pd == 2,
          "QUERY_DEVICE reports them (QPs %u, CQs %u, SRQs %u, MRs %u, "
          "MWs %u, PDs %u)", a.max_qp, a.max_cq, a.max_srq, a.max_mr,
          a.max_mw, a.max_pd);
    CHECK_EQ(e->qpn_idx_bits, 21,
             "2^20 QPs and the two special ones: a QPN's index takes 21 bits");
    r = alloc_pd(0);
    CHECK_EQ(r.status, QRNIC_ST_OK, "ALLOC_PD 1 of 2");
    r = alloc_pd(0);
    CHECK_EQ(r.status, QRNIC_ST_OK, "ALLOC_PD 2 of 2");
    r = alloc_pd(0);
    CHECK_EQ(r.status, QRNIC_ST_NO_RESOURCES, "ALLOC_PD 3 of 2 -> NO_RESOURCES");
    CHECK_EQ(qrnic_objects_set_limit(e, QRNIC_OBJ_PD, 8), -1,
             "the PD limit cannot change while PDs exist");
    CHECK_EQ(query_device().max_pd, 2, "and QUERY_DEVICE still reports 2");
}

static void test_query_res(void)
{
    struct qrnic_cmd c;
    struct qrnic_res_counts rc;

    aq_setup(&q, 64, 4);
    c = mkcmd(QRNIC_CMD_ALLOC_UCTX);
    aq_exec(&q, &c);
    aq_exec(&q, &c);
    alloc_pd(0);
    alloc_pd(1);
    alloc_pd(2);
    c = eq_cmd(EQ_RING, 3, QRNIC_EQ_ASYNC, 0);
    aq_exec(&q, &c);
    c = mkcmd(QRNIC_CMD_ADD_GID);
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    c.add_gid.index = 0;
    aq_exec(&q, &c);
    c.add_gid.index = 1;
    aq_exec(&q, &c);
    dealloc(QRNIC_CMD_DEALLOC_PD, 1);

    c = mkcmd(QRNIC_CMD_QUERY_RES);
    c.query_res.resp_addr = RESP;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "QUERY_RES -> OK");
    memcpy(&rc, qf_ram(&q.d, RESP, sizeof(rc)), sizeof(rc));
    CHECK(rc.uctx == 2 && rc.pd == 2 && rc.eq == 1 && rc.gid == 2 &&
          rc.qp == 0 && rc.cq == 0 && rc.mr == 0,
          "QUERY_RES counts uctx 2 pd 2 eq 1 gid 2");
}

/*
 * Three ways back to power-on values: the driver clears CTRL.ENABLE, the
 * driver sets CTRL.RESET, QEMU resets the device.  Each drops every
 * object, the admin queue registers, the counters, the interrupt mask
 * with its pending vectors, the MAC set by SET_MAC and queue memory.
 */
enum reset_how { BY_DISABLE, BY_CTRL_RESET, BY_QEMU, RESET_HOW_COUNT };

static void test_reset(enum reset_how how)
{
    static const char *const names[] = {
        "clearing ENABLE", "CTRL.RESET", "QEMU reset",
    };
    static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x77 };
    const char *name = names[how];
    struct qrnic_res_counts rc;
    struct qrnic_cmd c;
    unsigned int irqs;

    aq_setup(&q, 64, 4);
    c = mkcmd(QRNIC_CMD_ALLOC_UCTX);
    aq_exec(&q, &c);
    alloc_pd(1);
    c = eq_cmd(EQ_RING, 3, QRNIC_EQ_ASYNC, 0);
    aq_exec(&q, &c);
    c = mkcmd(QRNIC_CMD_ADD_GID);
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    aq_exec(&q, &c);
    c = eth_cmd(TX_RING, RX_RING, 4, 4, 1);
    aq_exec(&q, &c);
    c = mkcmd(QRNIC_CMD_SET_MAC);
    memcpy(c.set_mac.mac, mac, 6);
    aq_exec(&q, &c);
    qf_mmio_write(&q.d, QF_BAR4_BASE + QMEM_SIZE - 8, 0x1122334455667788ull, 8);
    qf_doorbell(&q.d, 5, QRNIC_DB_ETH_TX, 1);       /* counted */
    aq_set_reg(&q, QRNIC_REG_INTR_MASK, 1);
    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 2000;
    aq_exec(&q, &c);                                /* vector 0 pending */
    irqs = q.d.irqs[0];
    rc = query_res();
    CHECK(rc.uctx == 1 && rc.pd == 1 && rc.eq == 1 && rc.gid == 1 &&
          aq_bad_db(&q) == 1 && aq_reg(&q, QRNIC_REG_MAC_LO) == 0x02 &&
          qf_mmio_read(&q.d, QF_BAR4_BASE + QMEM_SIZE - 8, 8) ==
          0x1122334455667788ull, "%s: objects and state set up", name);

    switch (how) {
    case BY_DISABLE:
        aq_set_reg(&q, QRNIC_REG_CTRL, 0);
        break;
    case BY_CTRL_RESET:
        aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_RESET | QRNIC_CTRL_ENABLE);
        break;
    default:
        qf_reset(&q.d);
        break;
    }
    CHECK(aq_reg(&q, QRNIC_REG_CTRL) == 0 &&
          status() == QRNIC_STATUS_LINK_UP &&
          aq_reg(&q, QRNIC_REG_INIT_ERR) == 0,
          "%s: CTRL 0, STATUS = LINK_UP (not READY)", name);
    CHECK(aq_reg(&q, QRNIC_REG_AQ_SQ_BASE_LO) == 0 &&
          aq_reg(&q, QRNIC_REG_AQ_CQ_BASE_LO) == 0 &&
          aq_reg(&q, QRNIC_REG_AQ_LOG_DEPTH) == 0,
          "%s: admin queue registers cleared", name);
    CHECK(aq_bad_db(&q) == 0 && aq_reg(&q, QRNIC_REG_STAT_RX_DROP) == 0,
          "%s: counters cleared", name);
    CHECK(aq_reg(&q, QRNIC_REG_MAC_LO) == 0x12005452 &&
          aq_reg(&q, QRNIC_REG_MAC_HI) == 0x5634,
          "%s: the permanent MAC is back", name);
    CHECK(qf_mmio_read(&q.d, QF_BAR4_BASE + QMEM_SIZE - 8, 8) == 0,
          "%s: queue memory cleared", name);
    CHECK(aq_reg(&q, QRNIC_REG_INTR_MASK) == 0 && q.d.irqs[0] == irqs,
          "%s: INTR_MASK cleared, the pending vector dropped", name);
    aq_set_reg(&q, QRNIC_REG_AQ_DB, 1);
    CHECK(aq_bad_db(&q) == 1 && !q.d.bh_scheduled,
          "%s: admin doorbell refused until enabled again", name);

    memset(qf_ram(&q.d, AQ_CQ, QRNIC_ACQE_SIZE << 4), 0, QRNIC_ACQE_SIZE << 4);
    CHECK_EQ(aq_enable(&q, AQ_SQ, AQ_CQ, 4), 0, "%s: enable again", name);
    rc = query_res();
    CHECK(rc.uctx == 0 && rc.pd == 0 && rc.eq == 0 && rc.gid == 0 &&
          rc.qp == 0 && rc.cq == 0 && rc.mr == 0,
          "%s: no objects remain", name);
    c = mkcmd(QRNIC_CMD_ETH_TEARDOWN);
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_STATE,
             "%s: the Ethernet rings are gone", name);
    CHECK_EQ(q.d.irqs[0], irqs + 2, "%s: vector 0 unmasked", name);
}

static void test_intr_mask(void)
{
    struct qrnic_cmd c;
    struct aq_result r;
    unsigned int i;

    aq_setup(&q, 64, 3);
    aq_set_reg(&q, QRNIC_REG_INTR_MASK, 0xffffffff);
    CHECK_EQ(aq_reg(&q, QRNIC_REG_INTR_MASK), 0xffff,
             "INTR_MASK holds one bit per vector");
    aq_set_reg(&q, QRNIC_REG_INTR_MASK, 1);
    for (i = 0; i < 2; i++) {
        c = mkcmd(QRNIC_CMD_SET_MTU);
        c.set_mtu.mtu = 1500;
        r = aq_exec(&q, &c);
    }
    CHECK(r.completed && r.status == QRNIC_ST_OK && q.d.irqs[0] == 0,
          "masked vector 0: commands complete, no interrupt");
    aq_set_reg(&q, QRNIC_REG_INTR_MASK, 1 | 1u << 5);
    CHECK_EQ(q.d.irqs[0], 0, "masking another vector does not fire it");
    aq_set_reg(&q, QRNIC_REG_INTR_MASK, 1u << 5);
    CHECK_EQ(q.d.irqs[0], 1, "unmasking fires the pending vector once");
    aq_set_reg(&q, QRNIC_REG_INTR_MASK, 0);
    CHECK(q.d.irqs[0] == 1 && q.d.irqs[5] == 0,
          "nothing else was pending");
    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 1500;
    aq_exec(&q, &c);
    CHECK_EQ(q.d.irqs[0], 2, "unmasked vector fires at once");
}

/* The completion in slot i of the admin CQ: its cookie and phase bit. */
static uint32_t acqe(unsigned int i, uint16_t *cookie)
{
    const uint8_t *p = qf_ram(&q.d, AQ_CQ + i * (uint64_t)QRNIC_ACQE_SIZE,
                              QRNIC_ACQE_SIZE);

    *cookie = qrnic_ld16(p);
    return qrnic_ld32(p + offsetof(struct qrnic_cqe_admin, flags)) &
           QRNIC_ADMIN_CQE_PHASE;
}

static void test_ring(void)
{
    struct qrnic_cmd c, c3;
    struct aq_result r;
    uint16_t ck0, ck1;
    uint32_t ph0, ph1;
    int i, ok = 1;

    aq_setup(&q, 64, 1);        /* two entries */
    for (i = 0; i < 2; i++) {
        c = mkcmd(QRNIC_CMD_SET_MTU);
        c.set_mtu.mtu = 1500;
        aq_write(&q, &c);
    }
    CHECK(q.d.irqs[0] == 0 && acqe(0, &ck0) == 0 && acqe(1, &ck1) == 0,
          "commands in the ring wait for AQ_DB");
    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 1500;
    aq_set_reg(&q, QRNIC_REG_AQ_DB, q.pi + 1);
    CHECK_EQ(aq_bad_db(&q), 1, "AQ doorbell more than depth ahead rejected");
    aq_set_reg(&q, QRNIC_REG_AQ_DB, q.pi);
    CHECK(q.d.irqs[0] == 1 && acqe(0, &ck0) == 1 && acqe(1, &ck1) == 1 &&
          !q.d.bh_scheduled,
          "AQ_DB runs both commands before the write returns: two "
          "completions, one interrupt, no bottom half");
    aq_set_reg(&q, QRNIC_REG_AQ_DB, q.pi - 1);
    CHECK_EQ(aq_bad_db(&q), 2, "AQ doorbell moving back rejected");
    r = aq_reap(&q);
    ok &= r.completed && r.phase == 1;
    /* Post a third command while one completion is still unconsumed. */
    c3 = c;
    aq_post(&q, &c3);
    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 1500;
    aq_run(&q);
    ph0 = acqe(0, &ck0);
    CHECK(ck0 == c3.cookie && ph0 == 0,
          "third command runs into the free CQ slot (phase 0)");
    aq_post(&q, &c);
    aq_run(&q);
    ph0 = acqe(0, &ck0);
    ph1 = acqe(1, &ck1);
    CHECK(ck0 == c3.cookie && ph0 == 0 && ck1 != c.cookie && ph1 == 1 &&
          !q.d.bh_scheduled, "full completion ring stalls the queue");
    r = aq_reap(&q);
    ok &= r.completed && r.phase == 1;
    r = aq_reap(&q);
    ok &= r.completed && r.phase == 0;
    CHECK(ok, "completions carry phase 1 then 0 after the wrap");
    ph1 = acqe(1, &ck1);
    CHECK(ck1 == c.cookie && ph1 == 0,
          "consuming completions runs the stalled command at once");
    aq_set_reg(&q, QRNIC_REG_AQ_CQ_CI, q.ci + 2);
    CHECK_EQ(aq_bad_db(&q), 3, "AQ_CQ_CI past the producer rejected");
    aq_set_reg(&q, QRNIC_REG_AQ_CQ_CI, q.ci - 1);
    CHECK_EQ(aq_bad_db(&q), 4, "AQ_CQ_CI moving back rejected");
    aq_run(&q);
    r = aq_reap(&q);
    CHECK(r.completed && r.phase == 0 && r.status == QRNIC_ST_OK &&
          r.cookie == c.cookie, "stalled command completes");

    /* Command ring outside guest RAM, then on our own BAR0. */
    for (i = 0; i < 2; i++) {
        aq_init(&q, 64);
        CHECK_EQ(aq_enable(&q, i ? QF_BAR0_BASE : OUTSIDE, AQ_CQ, 2), 0,
                 "enable with SQ %s (not checked until used)",
                 i ? "on BAR0" : "outside RAM");
        aq_set_reg(&q, QRNIC_REG_AQ_DB, 1);
        aq_run(&q);
        r = aq_reap(&q);
        CHECK(r.completed && r.status == QRNIC_ST_DMA_ERROR &&
              (status() & QRNIC_STATUS_READY),
              "unreadable command (%s) -> DMA_ERROR completion",
              i ? "BAR0, re-entry refused" : "outside RAM");
    }
}

int main(void)
{
    test_identity();
    test_enable();
    test_intr_mask();
    test_opcodes();
    test_query_device();
    test_eq();
    test_link_events();
    test_eth_setup();
    test_mac_mtu();
    test_gid();
    test_uctx_pd();
    test_limits();
    test_query_res();
    for (int how = 0; how < RESET_HOW_COUNT; how++) {
        test_reset((enum reset_how)how);
    }
    test_ring();
    aq_fini(&q);
    return TAP_DONE();
}
