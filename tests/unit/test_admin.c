/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Admin queue and command processor tests (engine + fake guest RAM). */
#include <string.h>
#include "aq_util.h"
#include "qrnic_le.h"
#include "tap.h"

static struct aq q;

static void test_enable(void)
{
    struct fake f;
    struct qrnic_engine e;
    static const uint8_t mac[6] = { 0x52, 0x54, 0, 0, 0, 1 };

    qrnic_engine_init(&e, &fake_ops, &f, 64, mac);
    CHECK_EQ(qrnic_engine_enable(&e, AQ_SQ, AQ_CQ, 0), QRNIC_INIT_ERR_AQ_DEPTH,
             "enable: log depth 0 -> AQ_DEPTH");
    CHECK_EQ(qrnic_engine_enable(&e, AQ_SQ, AQ_CQ, QRNIC_AQ_MAX_LOG + 1),
             QRNIC_INIT_ERR_AQ_DEPTH, "enable: log depth 9 -> AQ_DEPTH");
    CHECK_EQ(qrnic_engine_enable(&e, AQ_SQ + 32, AQ_CQ, 3),
             QRNIC_INIT_ERR_AQ_ALIGN, "enable: unaligned SQ -> AQ_ALIGN");
    CHECK_EQ(qrnic_engine_enable(&e, AQ_SQ, AQ_CQ + 8, 3),
             QRNIC_INIT_ERR_AQ_ALIGN, "enable: unaligned CQ -> AQ_ALIGN");
    CHECK(!e.ready, "enable: not ready after failures");
    CHECK(!qrnic_aq_doorbell(&e, 1) && e.stats.bad_db == 1,
          "admin doorbell before READY is ignored and counted");
    CHECK_EQ(qrnic_engine_enable(&e, AQ_SQ, AQ_CQ, QRNIC_AQ_MAX_LOG),
             QRNIC_INIT_ERR_NONE, "enable: valid rings -> ready");
    CHECK(e.ready, "enable: ready");
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
    CHECK(q.f.irqs[0] == sizeof(bad), "each completion raised vector 0");
}

static void test_query_device(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    struct qrnic_dev_attr a;

    aq_setup(&q, 64, 3);
    c.query_device.resp_addr = RESP;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "QUERY_DEVICE -> OK");
    memcpy(&a, fake_ptr(&q.f, RESP), sizeof(a));
    CHECK_EQ(a.gid_tbl_len, 128, "QUERY_DEVICE gid_tbl_len");
    CHECK_EQ(a.max_uctx, 63, "QUERY_DEVICE max_uctx = db_pages - 1");
    CHECK_EQ(a.max_pd, 1024, "QUERY_DEVICE max_pd");
    CHECK_EQ(a.num_eq, QRNIC_NUM_MSIX, "QUERY_DEVICE num_eq");
    CHECK_EQ(a.max_mtu, QRNIC_MAX_MTU, "QUERY_DEVICE max_mtu");

    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = OUTSIDE;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_DMA_ERROR,
             "QUERY_DEVICE outside guest RAM -> DMA_ERROR");
    c = mkcmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = FAKE_RAM_BASE + FAKE_RAM_SIZE - 16;
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

static void test_link_events(void)
{
    struct qrnic_cmd c;
    const uint8_t *eqe;
    enum qrnic_db_work w;

    aq_setup(&q, 64, 3);
    q.e.link_up = true;
    qrnic_engine_set_link(&q.e, false);
    CHECK(q.f.irqs[2] == 0, "link change without an async EQ is dropped");

    c = eq_cmd(EQ_RING, 1, QRNIC_EQ_ASYNC, 2);      /* 2 entries */
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "CREATE_EQ async, vector 2");
    qrnic_engine_set_link(&q.e, true);
    eqe = fake_ptr(&q.f, EQ_RING);
    CHECK(eqe[0] == QRNIC_EVENT_LINK && qrnic_ld32(eqe + 4) == 1 &&
          (qrnic_ld32(eqe + 12) & QRNIC_EQE_PHASE),
          "link up -> LINK EQE, data0 1, phase 1");
    CHECK_EQ(q.f.irqs[2], 1, "link EQE raised the EQ vector");
    qrnic_engine_set_link(&q.e, false);
    eqe = fake_ptr(&q.f, EQ_RING + 16);
    CHECK(eqe[0] == QRNIC_EVENT_LINK && qrnic_ld32(eqe + 4) == 0,
          "link down -> LINK EQE, data0 0");
    qrnic_engine_set_link(&q.e, true);
    CHECK(q.e.stats.eq_overflow == 1 && q.f.irqs[2] == 2,
          "full EQ drops the event");

    CHECK(!qrnic_engine_doorbell(&q.e, 0, QRNIC_DB_EQ, 0 | 3ull << 32, &w),
          "EQ doorbell ci past pi rejected");
    CHECK(!qrnic_engine_doorbell(&q.e, 0, QRNIC_DB_EQ, 7 | 1ull << 32, &w),
          "EQ doorbell for a missing EQ rejected");
    CHECK(!qrnic_engine_doorbell(&q.e, 1, QRNIC_DB_EQ, 0 | 1ull << 32, &w),
          "EQ doorbell on a page without context rejected");
    CHECK(qrnic_engine_doorbell(&q.e, 0, QRNIC_DB_EQ, 0 | 2ull << 32, &w),
          "EQ doorbell returning both entries accepted");
    CHECK(!qrnic_engine_doorbell(&q.e, 0, QRNIC_DB_EQ, 0 | 1ull << 32, &w),
          "EQ doorbell moving back rejected");
    qrnic_engine_set_link(&q.e, false);
    qrnic_engine_set_link(&q.e, true);
    eqe = fake_ptr(&q.f, EQ_RING);
    CHECK(qrnic_ld32(eqe + 4) == 0 && !(qrnic_ld32(eqe + 12) & QRNIC_EQE_PHASE),
          "second pass through the EQ has phase 0");
    CHECK_EQ(q.e.stats.bad_db, 4, "rejected EQ doorbells counted");
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
    CHECK(!memcmp(q.e.mac, good, 6), "SET_MAC updates the station address");

    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 67;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "SET_MTU 67");
    c.set_mtu.mtu = QRNIC_MAX_MTU + 1;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_BAD_PARAM, "SET_MTU 9001");
    c.set_mtu.mtu = 68;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "SET_MTU 68");
    c.set_mtu.mtu = QRNIC_MAX_MTU;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "SET_MTU 9000");
    CHECK_EQ(q.e.mtu, 9000, "SET_MTU stored");
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
    memcpy(&rc, fake_ptr(&q.f, RESP), sizeof(rc));
    CHECK(rc.uctx == 2 && rc.pd == 2 && rc.eq == 1 && rc.gid == 2 &&
          rc.qp == 0 && rc.cq == 0 && rc.mr == 0,
          "QUERY_RES counts uctx 2 pd 2 eq 1 gid 2");

    qrnic_engine_reset(&q.e);
    CHECK(!q.e.ready, "reset: not ready");
    CHECK_EQ(qrnic_engine_enable(&q.e, AQ_SQ, AQ_CQ, 4), 0, "re-enable after reset");
    q.pi = q.ci = 0;
    memset(fake_ptr(&q.f, AQ_CQ), 0, 32 * 16);
    c = mkcmd(QRNIC_CMD_QUERY_RES);
    c.query_res.resp_addr = RESP;
    CHECK_EQ(aq_status(&q, &c), QRNIC_ST_OK, "QUERY_RES after reset -> OK");
    memcpy(&rc, fake_ptr(&q.f, RESP), sizeof(rc));
    CHECK(rc.uctx == 0 && rc.pd == 0 && rc.eq == 0 && rc.gid == 0,
          "reset frees every object");
}

static void test_ring(void)
{
    struct qrnic_cmd c;
    struct aq_result r;
    int i, ok = 1;

    aq_setup(&q, 64, 1);        /* two entries */
    for (i = 0; i < 2; i++) {
        c = mkcmd(QRNIC_CMD_SET_MTU);
        c.set_mtu.mtu = 1500;
        aq_post(&q, &c);
    }
    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 1500;
    CHECK(!qrnic_aq_doorbell(&q.e, q.pi + 1) && q.e.stats.bad_db == 1,
          "AQ doorbell more than depth ahead rejected");
    CHECK(!qrnic_aq_doorbell(&q.e, q.pi - 1), "AQ doorbell moving back rejected");
    qrnic_aq_process(&q.e);
    r = aq_reap(&q);
    ok &= r.completed && r.phase == 1;
    /* Post a third command while one completion is still unconsumed. */
    aq_post(&q, &c);
    c = mkcmd(QRNIC_CMD_SET_MTU);
    c.set_mtu.mtu = 1500;
    qrnic_aq_process(&q.e);
    CHECK(q.e.aq.sq_ci == 3, "third command runs into the free CQ slot");
    aq_post(&q, &c);
    qrnic_aq_process(&q.e);
    CHECK(q.e.aq.sq_ci == 3 && !qrnic_aq_pending(&q.e),
          "full completion ring stalls the queue");
    r = aq_reap(&q);
    ok &= r.completed && r.phase == 1;
    r = aq_reap(&q);
    ok &= r.completed && r.phase == 0;
    CHECK(ok, "completions carry phase 1 then 0 after the wrap");
    CHECK(!qrnic_aq_cq_doorbell(&q.e, q.ci + 1),
          "AQ_CQ_CI past the producer rejected");
    CHECK(qrnic_aq_pending(&q.e), "consuming completions resumes the queue");
    qrnic_aq_process(&q.e);
    r = aq_reap(&q);
    CHECK(r.completed && r.phase == 0 && r.status == QRNIC_ST_OK &&
          r.cookie == c.cookie, "stalled command completes");

    /* Command ring outside guest RAM. */
    fake_init(&q.f, &q.e, 64);
    CHECK_EQ(qrnic_engine_enable(&q.e, OUTSIDE, AQ_CQ, 2), 0,
             "enable with SQ outside RAM (not checked until used)");
    memset(fake_ptr(&q.f, AQ_CQ), 0, 128);
    q.pi = q.ci = 0;
    q.log = 2;
    qrnic_aq_doorbell(&q.e, 1);
    qrnic_aq_process(&q.e);
    r = aq_reap(&q);
    CHECK(r.completed && r.status == QRNIC_ST_DMA_ERROR,
          "unreadable command -> DMA_ERROR completion");
}

int main(void)
{
    test_enable();
    test_opcodes();
    test_query_device();
    test_eq();
    test_link_events();
    test_eth_setup();
    test_mac_mtu();
    test_gid();
    test_uctx_pd();
    test_query_res();
    test_ring();
    return TAP_DONE();
}
