/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Ethernet rings, doorbell validation and the RoCE receive demux. */
#include <string.h>
#include "aq_util.h"
#include "icrc_vectors.h"
#include "qrnic_le.h"
#include "tap.h"

static struct aq q;

static void put_desc(uint64_t ring, unsigned int idx, uint64_t addr,
                     uint16_t len)
{
    uint8_t *d = fake_ptr(&q.f, ring + idx * 16ull);

    memset(d, 0, 16);
    qrnic_st64(d, addr);
    qrnic_st16(d + 8, len);
}

static uint16_t desc_flags(uint64_t ring, unsigned int idx)
{
    return qrnic_ld16(fake_ptr(&q.f, ring + idx * 16ull) + 10);
}

static uint16_t desc_len(uint64_t ring, unsigned int idx)
{
    return qrnic_ld16(fake_ptr(&q.f, ring + idx * 16ull) + 8);
}

static int db(uint32_t page, uint32_t off, uint64_t val)
{
    enum qrnic_db_work w;

    return qrnic_engine_doorbell(&q.e, page, off, val, &w);
}

static void setup(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_ETH_SETUP);

    aq_setup(&q, 8, 3);
    q.e.link_up = true;
    c.eth_setup.tx_base = TX_RING;
    c.eth_setup.rx_base = RX_RING;
    c.eth_setup.tx_log_depth = 2;       /* 4 entries */
    c.eth_setup.rx_log_depth = 2;
    c.eth_setup.vector = 1;
    aq_exec(&q, &c);
}

static void test_tx(void)
{
    uint8_t *frame = fake_ptr(&q.f, BUFS);
    int i;

    CHECK(!db(0, QRNIC_DB_ETH_TX, 1), "TX doorbell before ETH_SETUP rejected");
    setup();
    for (i = 0; i < 60; i++) {
        frame[i] = (uint8_t)i;
    }
    put_desc(TX_RING, 0, BUFS, 60);
    put_desc(TX_RING, 1, BUFS, 10);                 /* too short */
    put_desc(TX_RING, 2, OUTSIDE, 60);              /* not guest RAM */
    put_desc(TX_RING, 3, BUFS, QRNIC_ETH_MAX_FRAME + 1);
    CHECK(!db(0, QRNIC_DB_ETH_TX, 5), "TX doorbell beyond the depth rejected");
    CHECK(!db(0, QRNIC_DB_ETH_TX, 1ull << 16), "TX doorbell with high bits rejected");
    CHECK(!db(1, QRNIC_DB_ETH_TX, 4), "TX doorbell on a free page rejected");
    CHECK(!db(8, QRNIC_DB_ETH_TX, 4), "doorbell beyond db_pages rejected");
    CHECK(db(0, QRNIC_DB_ETH_TX, 4), "TX doorbell for 4 descriptors accepted");
    qrnic_eth_tx_process(&q.e);
    CHECK(q.f.tx_count == 1 && q.f.tx_len == 60 && !memcmp(q.f.tx_last, frame, 60),
          "TX sends the good frame");
    CHECK_EQ(desc_flags(TX_RING, 0), QRNIC_ETH_DONE, "TX good frame: DONE");
    CHECK_EQ(desc_flags(TX_RING, 1), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "TX short frame: DONE|ERR");
    CHECK_EQ(desc_flags(TX_RING, 2), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "TX bad address: DONE|ERR");
    CHECK_EQ(desc_flags(TX_RING, 3), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "TX oversized frame: DONE|ERR");
    CHECK(q.f.irqs[1] == 1, "TX completion raised the ring vector once");
    CHECK(!db(0, QRNIC_DB_ETH_TX, 3), "TX doorbell moving back rejected");

    q.e.link_up = false;
    put_desc(TX_RING, 0, BUFS, 60);
    CHECK(db(0, QRNIC_DB_ETH_TX, 5), "TX doorbell after wrap accepted");
    qrnic_eth_tx_process(&q.e);
    CHECK(q.f.tx_count == 1 && desc_flags(TX_RING, 0) == QRNIC_ETH_DONE,
          "link down: TX completes without sending");
    CHECK_EQ(q.e.stats.bad_db, 5, "rejected doorbells counted (stats reset by setup)");

    /* Queue doorbells: no QP or CQ exists, so none is accepted. */
    CHECK(!db(0, QRNIC_DB_SQ, 1 | 1ull << 32), "SQ doorbell for unknown QP");
    CHECK(!db(0, QRNIC_DB_RQ, 1 | 1ull << 32), "RQ doorbell for unknown QP");
    CHECK(!db(0, QRNIC_DB_CQ, 1 | 1ull << 32), "CQ doorbell for unknown CQ");
    CHECK(!db(0, 0x30, 0), "doorbell at an undefined offset");
}

static void test_rx(void)
{
    uint8_t frame[100];
    uint64_t drops;

    setup();
    memset(frame, 0xab, sizeof(frame));
    memcpy(frame, q.e.mac, 6);
    frame[12] = 0x08;
    frame[13] = 0x00;
    CHECK(!qrnic_eth_can_rx(&q.e), "no RX buffer: cannot receive");
    CHECK_EQ(qrnic_eth_rx(&q.e, frame, sizeof(frame)), 0,
             "frame waits for a buffer");
    put_desc(RX_RING, 0, BUFS, 64);
    put_desc(RX_RING, 1, BUFS + 0x1000, 2048);
    CHECK(db(0, QRNIC_DB_ETH_RX, 2), "RX doorbell accepted");
    CHECK(qrnic_eth_can_rx(&q.e), "RX buffer posted: can receive");
    CHECK_EQ(qrnic_eth_rx(&q.e, frame, sizeof(frame)), sizeof(frame),
             "frame larger than the buffer consumed (dropped)");
    CHECK(q.e.eth.rx.ci == 0 && desc_flags(RX_RING, 0) == 0,
          "too large: buffer kept, nothing written");
    q.e.eth.rx.ci = 1;          /* skip the small buffer */
    CHECK_EQ(qrnic_eth_rx(&q.e, frame, sizeof(frame)), sizeof(frame),
             "frame to our MAC delivered");
    CHECK(desc_flags(RX_RING, 1) == QRNIC_ETH_DONE &&
          desc_len(RX_RING, 1) == sizeof(frame) &&
          !memcmp(fake_ptr(&q.f, BUFS + 0x1000), frame, sizeof(frame)),
          "RX writes frame, length and DONE");
    CHECK(q.f.irqs[1] == 1, "RX raised the ring vector");
    CHECK(!qrnic_eth_can_rx(&q.e), "ring empty again");

    frame[0] = 0x02;            /* somebody else's unicast address */
    CHECK(qrnic_eth_rx(&q.e, frame, sizeof(frame)) == sizeof(frame) &&
          q.e.stats.rx_filtered == 1, "frame to another MAC filtered");

    drops = q.e.stats.rx_drop;
    memcpy(fake_ptr(&q.f, BUFS), frame_v4, 6);  /* keep compilers quiet */
    {
        uint8_t roce[sizeof(frame_v4)];

        memcpy(roce, frame_v4, sizeof(roce));
        memcpy(roce, q.e.mac, 6);
        CHECK_EQ(qrnic_eth_rx(&q.e, roce, sizeof(roce)), sizeof(roce),
                 "RoCE frame consumed without an RX buffer");
        CHECK(q.e.stats.rx_roce == 1 && q.e.stats.rx_icrc_err == 0 &&
              q.e.stats.rx_drop == drops + 1,
              "RoCE frame with good ICRC went to the engine and was dropped");
        roce[sizeof(roce) - 1] ^= 1;
        qrnic_eth_rx(&q.e, roce, sizeof(roce));
        CHECK(q.e.stats.rx_icrc_err == 1 && q.e.stats.rx_drop == drops + 2,
              "RoCE frame with bad ICRC counted");
    }
}

static void test_ring_dma_error(void)
{
    uint8_t frame[60];

    setup();
    memset(frame, 0xff, sizeof(frame));     /* broadcast */
    put_desc(RX_RING, 0, OUTSIDE, 2048);
    db(0, QRNIC_DB_ETH_RX, 1);
    CHECK_EQ(qrnic_eth_rx(&q.e, frame, sizeof(frame)), sizeof(frame),
             "RX into a bad buffer consumed");
    CHECK_EQ(desc_flags(RX_RING, 0), QRNIC_ETH_DONE | QRNIC_ETH_ERR,
             "RX bad buffer: DONE|ERR");

    /* Ring itself outside guest RAM. */
    q.e.eth.tx.base = OUTSIDE;
    db(0, QRNIC_DB_ETH_TX, 1);
    qrnic_eth_tx_process(&q.e);
    CHECK(q.e.eth.tx.ci == 1 && q.e.stats.tx_err == 1,
          "unreadable TX descriptor skipped and counted");

    qrnic_engine_reset(&q.e);
    CHECK(!q.e.eth.active && qrnic_eth_can_rx(&q.e),
          "reset tears the rings down (frames dropped, not queued)");
}

int main(void)
{
    test_tx();
    test_rx();
    test_ring_dma_error();
    return TAP_DONE();
}
