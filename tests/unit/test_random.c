/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Randomised robustness test: feed the engine random (but reproducible)
 * commands, doorbells, descriptors and frames.  Run under ASan/UBSan, it
 * checks that no guest input makes the engine touch memory it should not,
 * and that its invariants hold afterwards.
 */
#include <stdlib.h>
#include <string.h>
#include "aq_util.h"
#include "icrc_vectors.h"
#include "qrnic_roce.h"
#include "tap.h"

static struct aq q;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* A guest address: mostly inside fake RAM, sometimes anywhere. */
static uint64_t rnd_addr(void)
{
    switch (rnd() % 4) {
    case 0:
        return rnd();
    case 1:
        return FAKE_RAM_BASE + FAKE_RAM_SIZE - (rnd() % 64);
    default:
        return FAKE_RAM_BASE + (rnd() % FAKE_RAM_SIZE);
    }
}

static void rnd_cmd(struct qrnic_cmd *c)
{
    unsigned int i;

    for (i = 0; i < sizeof(c->raw); i++) {
        c->raw[i] = (uint8_t)rnd();
    }
    c->opcode = (uint8_t)(rnd() % (QRNIC_CMD_MAX + 2));
    c->cookie = (uint16_t)rnd();
    if (rnd() % 2) {
        /* Plausible small values make the commands get further. */
        c->create_eq.base = rnd_addr() & ~15ull;
        c->create_eq.log_depth = (uint8_t)(rnd() % 14);
        c->create_eq.flags = (uint8_t)(rnd() % 3);
        c->create_eq.vector = (uint16_t)(rnd() % 18);
        c->eth_setup.rsvd = 0;
    }
    if (rnd() % 2) {
        c->dealloc_pd.pdn = (uint32_t)(rnd() % 1100);
    }
}

static void rnd_frame(uint8_t *f, size_t *len)
{
    size_t i, n;

    if (rnd() % 2) {
        const uint8_t *src = (rnd() % 2) ? frame_v4 : frame_v6;
        n = src == frame_v4 ? sizeof(frame_v4) : sizeof(frame_v6);
        memcpy(f, src, n);
        memcpy(f, q.e.mac, 6);
        for (i = rnd() % 4; i > 0; i--) {
            f[rnd() % n] ^= (uint8_t)rnd();
        }
        *len = rnd() % 3 ? n : rnd() % (n + 1);
        return;
    }
    n = rnd() % 1600;
    for (i = 0; i < n; i++) {
        f[i] = (uint8_t)rnd();
    }
    if (n >= 6 && rnd() % 2) {
        memcpy(f, q.e.mac, 6);
    }
    *len = n;
}

static void eth_setup(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_ETH_SETUP);

    c.eth_setup.tx_base = TX_RING;
    c.eth_setup.rx_base = RX_RING;
    c.eth_setup.tx_log_depth = 4;
    c.eth_setup.rx_log_depth = 4;
    c.eth_setup.vector = 1;
    aq_exec(&q, &c);
}

int main(void)
{
    static const uint32_t db_offs[] = {
        QRNIC_DB_SQ, QRNIC_DB_RQ, QRNIC_DB_CQ, QRNIC_DB_EQ,
        QRNIC_DB_ETH_TX, QRNIC_DB_ETH_RX, 0x30, 0xff8,
    };
    static uint8_t frame[2048];
    unsigned int iter, i, pds = 0, eqs = 0;
    uint64_t cmds = 0, roce = 0;
    enum qrnic_db_work w;

    if (getenv("QRNIC_SEED")) {     /* explore other sequences */
        rng_state ^= strtoull(getenv("QRNIC_SEED"), NULL, 0) * 0x100000001b3ull;
    }
    aq_setup(&q, 8, 4);
    q.e.link_up = true;
    eth_setup();
    for (iter = 0; iter < 20000; iter++) {
        struct qrnic_cmd c;
        size_t len;
        uint8_t *slot;

        switch (rnd() % 6) {
        case 0:
        case 1:
            rnd_cmd(&c);
            aq_exec(&q, &c);
            break;
        case 2:
            qrnic_engine_doorbell(&q.e, (uint32_t)(rnd() % 10),
                                  db_offs[rnd() % 8],
                                  rnd() % 2 ? rnd() : rnd() % 40, &w);
            qrnic_eth_tx_process(&q.e);
            break;
        case 3:
            /* Random descriptors in both Ethernet rings. */
            if (q.e.eth.active) {
                uint64_t ring = rnd() % 2 ? q.e.eth.tx.base : q.e.eth.rx.base;

                if (ring >= FAKE_RAM_BASE &&
                    ring + 16 * 4096 <= FAKE_RAM_BASE + FAKE_RAM_SIZE) {
                    slot = fake_ptr(&q.f, ring + 16 * (rnd() % 16));
                    for (i = 0; i < 16; i++) {
                        slot[i] = (uint8_t)rnd();
                    }
                    if (rnd() % 2) {
                        uint64_t a = rnd_addr();

                        memcpy(slot, &a, 8);
                    }
                }
            }
            break;
        case 4:
            if (!q.e.eth.active && rnd() % 2) {
                eth_setup();
            }
            rnd_frame(frame, &len);
            /* QEMU only delivers when can_receive; try both ways. */
            if (qrnic_eth_can_rx(&q.e) || rnd() % 2) {
                qrnic_eth_rx(&q.e, frame, len);
            }
            break;
        default:
            qrnic_engine_set_link(&q.e, rnd() % 2);
            if (rnd() % 200 == 0) {
                cmds += q.e.stats.admin_cmds;
                roce += q.e.stats.rx_roce;
                qrnic_engine_reset(&q.e);
                qrnic_engine_enable(&q.e, AQ_SQ, AQ_CQ, 4);
                q.pi = q.ci = 0;
                memset(fake_ptr(&q.f, AQ_CQ), 0, 32 * 16);
                eth_setup();
            }
            break;
        }
    }
    for (i = 0; i < QRNIC_ENG_MAX_PD; i++) {
        pds += q.e.pd_valid[i];
    }
    for (i = 0; i < QRNIC_ENG_MAX_EQ; i++) {
        eqs += q.e.eq[i].valid;
    }
    CHECK(1, "20000 random operations without a memory error");
    CHECK(pds <= QRNIC_ENG_MAX_PD && eqs <= QRNIC_ENG_MAX_EQ,
          "object tables within bounds");
    CHECK(q.e.async_eqn < 0 || q.e.eq[q.e.async_eqn].async,
          "async EQ index consistent");
    cmds += q.e.stats.admin_cmds;
    roce += q.e.stats.rx_roce;
    CHECK(cmds > 1000, "random commands were executed (%llu)",
          (unsigned long long)cmds);
    CHECK(roce > 100, "random RoCE frames reached the engine (%llu)",
          (unsigned long long)roce);
    return TAP_DONE();
}
