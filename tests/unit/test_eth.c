/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ethernet rings, doorbell validation and the RoCE receive demux, driven
 * as a guest and QEMU's net layer do (tests/fake/qfake.h): doorbells
 * through BAR2, frames through the backend, TX in the bottom half.
 */
#include <string.h>
#include "aq_util.h"
#include "icrc_vectors.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

static struct aq q;

static void put_desc(uint64_t ring, unsigned int idx, uint64_t addr,
                     uint16_t len)
{
    uint8_t *d = qf_ram(&q.d, ring + idx * 16ull, 16);

    memset(d, 0, 16);
    qrnic_st64(d, addr);
    qrnic_st16(d + 8, len);
}

static uint16_t desc_flags(uint64_t ring, unsigned int idx)
{
    return qrnic_ld16(qf_ram(&q.d, ring + idx * 16ull, 16) + 10);
}

static uint16_t desc_len(uint64_t ring, unsigned int idx)
{
    return qrnic_ld16(qf_ram(&q.d, ring + idx * 16ull, 16) + 8);
}

/* A 64-bit doorbell; true if accepted (STAT_BAD_DB did not move). */
static bool db(uint32_t page, uint32_t off, uint64_t val)
{
    uint32_t bad = aq_bad_db(&q);

    qf_doorbell(&q.d, page, off, val);
    return aq_bad_db(&q) == bad;
}

static uint8_t eth_setup(uint64_t tx_base)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_ETH_SETUP);

    c.eth_setup.tx_base = tx_base;
    c.eth_setup.rx_base = RX_RING;
    c.eth_setup.tx_log_depth = 2;       /* 4 entries */
    c.eth_setup.rx_log_depth = 2;
    c.eth_setup.vector = 1;
    return aq_status(&q, &c);
}

/* An enabled device, link up, both rings of 4 entries on vector 1. */
static void setup(void)
{
    aq_setup(&q, 8, 3);
    eth_setup(TX_RING);
}

static void test_tx(void)
{
    uint8_t *frame;
    unsigned int irqs;
    int i;

    aq_setup(&q, 8, 3);
    CHECK(!db(0, QRNIC_DB_ETH_TX, 1), "TX doorbell before ETH_SETUP rejected");
    CHECK_EQ(eth_setup(TX_RING), QRNIC_ST_OK, "ETH_SETUP");
    frame = qf_ram(&q.d, BUFS, 60);
    for (i = 0; i < 60; i++) {
        frame[i] = (uint8_t)i;
    }
    put_desc(TX_RING, 0, BUFS, 60);
    put_desc(TX_RING, 1, BUFS, 10);                 /* too short */
    put_desc(TX_RING, 2, OUTSIDE, 60);              /* not guest RAM */
    put_desc(TX_RING, 3, BUFS, QRNIC_ETH_MAX_FRAME + 1);
    irqs = q.d.irqs[1];
    CHECK(!db(0, QRNIC_DB_ETH_TX, 5), "TX doorbell beyond the depth rejected");
    CHECK(!db(0, QRNIC_DB_ETH_TX, 1ull << 16), "TX doorbell with high bits rejected");
    CHECK(!db(1, QRNIC_DB_ETH_TX, 4), "TX doorbell on a free page rejected");
    CHECK(!db(8, QRNIC_DB_ETH_TX, 4), "doorbell beyond db_pages rejected");
    qf_mmio_write(&q.d, QF_BAR2_BASE + QRNIC_DB_ETH_TX, 4, 4);
    CHECK_EQ(aq_bad_db(&q), 6, "4-byte doorbell write rejected");
    CHECK(db(0, QRNIC_DB_ETH_TX, 4), "TX doorbell for 4 descriptors accepted");
    CHECK(q.d.bh_scheduled && q.d.tx_frames == 0 && desc_flags(TX_RING, 0) == 0,
          "TX doorbell only schedules the bottom half");
    aq_run(&q);
    CHECK(q.d.tx_frames == 1 && q.d.tx_len == 60 &&
          !memcmp(q.d.tx_last, frame, 60), "TX sends the good frame");
    CHECK_EQ(desc_flags(TX_RING, 0), QRNIC_ETH_DONE, "TX good frame: DONE");
    CHECK_EQ(desc_flags(TX_RING, 1), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "TX short frame: DONE|ERR");
    CHECK_EQ(desc_flags(TX_RING, 2), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "TX bad address: DONE|ERR");
    CHECK_EQ(desc_flags(TX_RING, 3), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "TX oversized frame: DONE|ERR");
    CHECK(q.d.irqs[1] == irqs + 1, "TX completion raised the ring vector once");
    CHECK(!db(0, QRNIC_DB_ETH_TX, 3), "TX doorbell moving back rejected");

    qf_set_link(&q.d, false);
    put_desc(TX_RING, 0, BUFS, 60);
    CHECK(db(0, QRNIC_DB_ETH_TX, 5), "TX doorbell after wrap accepted");
    aq_run(&q);
    CHECK(q.d.tx_frames == 1 && desc_flags(TX_RING, 0) == QRNIC_ETH_DONE,
          "link down: TX completes without sending");
    CHECK_EQ(aq_bad_db(&q), 7, "rejected doorbells counted in STAT_BAD_DB");

    /* Queue doorbells: no QP or CQ exists, so none is accepted. */
    CHECK(!db(0, QRNIC_DB_SQ, 1 | 1ull << 32), "SQ doorbell for unknown QP");
    CHECK(!db(0, QRNIC_DB_RQ, 1 | 1ull << 32), "RQ doorbell for unknown QP");
    CHECK(!db(0, QRNIC_DB_CQ, 1 | 1ull << 32), "CQ doorbell for unknown CQ");
    CHECK(!db(0, 0x30, 0), "doorbell at an undefined offset");
}

static void test_rx(void)
{
    static const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 9 };
    uint8_t frame[100], roce[sizeof(frame_v4)];
    unsigned int irqs;

    setup();
    irqs = q.d.irqs[1];
    memset(frame, 0xab, sizeof(frame));
    memcpy(frame, aq_mac, 6);
    frame[12] = 0x08;
    frame[13] = 0x00;
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(q.d.nqueued == 1 && q.d.e.stats.rx_frames == 0,
          "no RX buffer: the frame waits in the backend queue");
    put_desc(RX_RING, 0, BUFS, 64);
    put_desc(RX_RING, 1, BUFS + 0x1000, 2048);
    CHECK(db(0, QRNIC_DB_ETH_RX, 2), "RX doorbell accepted");
    CHECK(q.d.nqueued == 0, "posting buffers flushes the backend queue");
    CHECK(q.d.e.stats.rx_too_big == 1 && desc_flags(RX_RING, 0) == 0 &&
          q.d.irqs[1] == irqs,
          "frame larger than the buffer dropped: buffer kept, nothing written");

    qf_receive(&q.d, frame, 60);
    CHECK(desc_flags(RX_RING, 0) == QRNIC_ETH_DONE && desc_len(RX_RING, 0) == 60,
          "a 60-byte frame takes the kept 64-byte buffer");
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(desc_flags(RX_RING, 1) == QRNIC_ETH_DONE &&
          desc_len(RX_RING, 1) == sizeof(frame) &&
          !memcmp(qf_ram(&q.d, BUFS + 0x1000, sizeof(frame)), frame,
                  sizeof(frame)),
          "RX writes frame, length and DONE");
    CHECK(q.d.irqs[1] == irqs + 2, "each RX raised the ring vector");
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(q.d.nqueued == 1, "ring empty again: the next frame waits");
    put_desc(RX_RING, 2, BUFS + 0x2000, 2048);
    put_desc(RX_RING, 3, BUFS + 0x3000, 2048);
    CHECK(db(0, QRNIC_DB_ETH_RX, 4) && q.d.nqueued == 0 &&
          desc_flags(RX_RING, 2) == QRNIC_ETH_DONE,
          "RX doorbell delivers the waiting frame");

    memcpy(frame, other, 6);    /* somebody else's unicast address */
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(q.d.e.stats.rx_filtered == 1 && desc_flags(RX_RING, 3) == 0,
          "frame to another MAC filtered");

    memcpy(roce, frame_v4, sizeof(roce));
    memcpy(roce, aq_mac, 6);
    qf_receive(&q.d, roce, sizeof(roce));
    CHECK(q.d.e.stats.rx_roce == 1 && q.d.e.stats.rx_icrc_err == 0 &&
          aq_reg(&q, QRNIC_REG_STAT_RX_DROP) == 1,
          "RoCE frame with good ICRC went to the engine and was dropped "
          "(no such QP): STAT_RX_DROP 1");
    CHECK(desc_flags(RX_RING, 3) == 0 && q.d.nqueued == 0,
          "RoCE frame kept off the RX ring");
    roce[sizeof(roce) - 1] ^= 1;
    qf_receive(&q.d, roce, sizeof(roce));
    CHECK(q.d.e.stats.rx_icrc_err == 1 &&
          aq_reg(&q, QRNIC_REG_STAT_RX_DROP) == 2,
          "RoCE frame with bad ICRC counted");
    aq_set_reg(&q, QRNIC_REG_STAT_RX_DROP, 0);
    CHECK_EQ(aq_reg(&q, QRNIC_REG_STAT_RX_DROP), 2, "STAT_RX_DROP is read only");

    /* RoCE needs no Ethernet rings. */
    aq_setup(&q, 8, 3);
    roce[sizeof(roce) - 1] ^= 1;
    qf_receive(&q.d, roce, sizeof(roce));
    CHECK(q.d.e.stats.rx_roce == 1 && aq_reg(&q, QRNIC_REG_STAT_RX_DROP) == 1 &&
          q.d.nqueued == 0, "RoCE frame reaches the engine without ETH_SETUP");
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(q.d.e.stats.rx_filtered == 1 && q.d.nqueued == 0,
          "without rings a plain frame is dropped, not queued");
}

static void test_ring_dma_error(void)
{
    struct qrnic_cmd c;
    uint8_t frame[60];
    unsigned int irqs;

    setup();
    memset(frame, 0xff, sizeof(frame));     /* broadcast */
    put_desc(RX_RING, 0, OUTSIDE, 2048);
    db(0, QRNIC_DB_ETH_RX, 1);
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(q.d.nqueued == 0 && q.d.dma_errors > 0,
          "RX into a bad buffer consumed");
    CHECK_EQ(desc_flags(RX_RING, 0), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "RX bad buffer: DONE|ERR");

    /* Ring itself outside guest RAM. */
    c = mkcmd(QRNIC_CMD_ETH_TEARDOWN);
    aq_exec(&q, &c);
    CHECK_EQ(eth_setup(OUTSIDE), QRNIC_ST_OK,
             "ETH_SETUP with the TX ring outside RAM (not checked until used)");
    irqs = q.d.irqs[1];
    CHECK(db(0, QRNIC_DB_ETH_TX, 1), "TX doorbell accepted");
    aq_run(&q);
    CHECK(q.d.e.stats.tx_err == 1 && q.d.tx_frames == 0 &&
          q.d.irqs[1] == irqs + 1,
          "unreadable TX descriptor skipped and counted");
    /* Four ahead of the consumer: accepted only if it moved to 1. */
    CHECK(db(0, QRNIC_DB_ETH_TX, 5), "the ring moved on past it");

    aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
    qf_receive(&q.d, frame, sizeof(frame));
    CHECK(q.d.nqueued == 0 && q.d.e.stats.rx_filtered == 1,
          "reset tears the rings down (frames dropped, not queued)");
    CHECK(aq_enable(&q, AQ_SQ, AQ_CQ, 3) == 0 &&
          aq_status(&q, &c) == QRNIC_ST_BAD_STATE,
          "after reset ETH_TEARDOWN finds no rings");
}

int main(void)
{
    test_tx();
    test_rx();
    test_ring_dma_error();
    aq_fini(&q);
    return TAP_DONE();
}
