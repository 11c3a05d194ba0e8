/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Randomised robustness test: feed the device random (but reproducible)
 * commands, register and doorbell writes, descriptors, frames, link
 * changes, resets, bottom halves and timer expiries, all through the fake
 * platform (tests/fake/qfake.h), which checks the engine's invariants
 * after every step.  Run under ASan/UBSan, it checks that no guest input
 * makes the engine touch memory it should not.  Some addresses point at
 * the device's own BARs, so its DMA meets the re-entrancy rules.
 */
#include <stdlib.h>
#include <string.h>
#include "aq_util.h"
#include "icrc_vectors.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

#define DB_PAGES    8
#define AQ_LOG      4
#define ETH_LOG     4

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

/* A guest address: mostly inside RAM, sometimes a BAR, sometimes anywhere. */
static uint64_t rnd_addr(void)
{
    switch (rnd() % 8) {
    case 0:
        return rnd();
    case 1:
        return QF_RAM_BASE + RAM_SIZE - (rnd() % 64);
    case 2:
        switch (rnd() % 3) {
        case 0:
            return QF_BAR0_BASE + (rnd() % QRNIC_MSIX_TABLE_OFF);
        case 1:
            return QF_BAR2_BASE + (rnd() % (DB_PAGES * QRNIC_DB_PAGE_SIZE));
        default:
            return QF_BAR4_BASE + (rnd() % QMEM_SIZE);
        }
    default:
        return QF_RAM_BASE + (rnd() % RAM_SIZE);
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
        memcpy(f, aq_mac, 6);
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
        memcpy(f, aq_mac, 6);
    }
    *len = n;
}

static void eth_setup(void)
{
    struct qrnic_cmd c = mkcmd(QRNIC_CMD_ETH_SETUP);

    c.eth_setup.tx_base = TX_RING;
    c.eth_setup.rx_base = RX_RING;
    c.eth_setup.tx_log_depth = ETH_LOG;
    c.eth_setup.rx_log_depth = ETH_LOG;
    c.eth_setup.vector = 1;
    aq_exec(&q, &c);
}

/* Enable with a clean completion ring, as a driver does after a reset. */
static void enable(void)
{
    memset(qf_ram(&q.d, AQ_CQ, QRNIC_ACQE_SIZE << AQ_LOG), 0,
           QRNIC_ACQE_SIZE << AQ_LOG);
    aq_enable(&q, AQ_SQ, AQ_CQ, AQ_LOG);
    eth_setup();
}

/*
 * The driver refills the RX ring with good buffers: with the rings set up,
 * QEMU holds every frame (RoCE too) in the backend while the ring is
 * empty.  Its producer index is read from the engine, as random doorbells
 * may have moved it.
 */
static void rx_refill(void)
{
    uint16_t pi = q.d.e.eth.rx.ci + (1u << ETH_LOG);
    uint16_t i;

    if (!q.d.e.eth.active || q.d.e.eth.rx.base != RX_RING) {
        return;
    }
    for (i = q.d.e.eth.rx.pi; i != pi; i++) {
        uint8_t *d = qf_ram(&q.d, RX_RING + 16 * (i & ((1u << ETH_LOG) - 1)),
                            16);

        memset(d, 0, 16);
        qrnic_st64(d, BUFS + 2048 * (i & ((1u << ETH_LOG) - 1)));
        qrnic_st16(d + 8, 2048);
    }
    qf_doorbell(&q.d, 0, QRNIC_DB_ETH_RX, pi);
}

/* A BAR0 register write; the driver's indices follow accepted ones. */
static void rnd_reg_write(void)
{
    static const uint32_t regs[] = {
        QRNIC_REG_CTRL, QRNIC_REG_INTR_MASK, QRNIC_REG_AQ_DB,
        QRNIC_REG_AQ_CQ_CI, QRNIC_REG_AQ_LOG_DEPTH, QRNIC_REG_AQ_SQ_BASE_LO,
        QRNIC_REG_STATUS, QRNIC_REG_STAT_BAD_DB,
    };
    uint32_t reg = regs[rnd() % (sizeof(regs) / sizeof(regs[0]))];
    uint32_t val = rnd() % 2 ? (uint32_t)rnd() : (uint32_t)(rnd() % 40);
    uint32_t bad = aq_bad_db(&q);

    if (reg == QRNIC_REG_CTRL && rnd() % 4) {
        return;                 /* keep the device mostly enabled */
    }
    if (rnd() % 8 == 0) {
        reg = (uint32_t)(rnd() % QRNIC_MSIX_TABLE_OFF) & ~3u;
    }
    aq_set_reg(&q, reg, val);
    if (aq_bad_db(&q) == bad) {
        if (reg == QRNIC_REG_AQ_DB) {
            q.pi = val;
        } else if (reg == QRNIC_REG_AQ_CQ_CI) {
            q.ci = val;
        }
    }
}

/* Add what a device counter gained since last time; a reset zeroes it. */
static void tally(uint64_t now, uint64_t *last, uint64_t *sum)
{
    *sum += now >= *last ? now - *last : now;
    *last = now;
}

int main(void)
{
    static const uint32_t db_offs[] = {
        QRNIC_DB_SQ, QRNIC_DB_RQ, QRNIC_DB_CQ, QRNIC_DB_EQ,
        QRNIC_DB_ETH_TX, QRNIC_DB_ETH_RX, 0x30, 0xff8,
    };
    static uint8_t frame[2048];
    unsigned int iter, i, pds = 0, eqs = 0, resets = 0, disabled = 0;
    uint64_t cmds = 0, roce = 0, frames = 0, last_cmds = 0, last_roce = 0;

    if (getenv("QRNIC_SEED")) {     /* explore other sequences */
        rng_state ^= strtoull(getenv("QRNIC_SEED"), NULL, 0) * 0x100000001b3ull;
    }
    aq_setup(&q, DB_PAGES, AQ_LOG);
    eth_setup();
    for (iter = 0; iter < 20000; iter++) {
        struct qrnic_cmd c;
        size_t len;
        uint8_t *slot;

        tally(q.d.e.stats.admin_cmds, &last_cmds, &cmds);
        tally(q.d.e.stats.rx_roce, &last_roce, &roce);
        if (!(aq_reg(&q, QRNIC_REG_STATUS) & QRNIC_STATUS_READY)) {
            disabled++;         /* a write or a DMA turned it off */
            enable();
        }
        switch (rnd() % 8) {
        case 0:
        case 1:
            rnd_cmd(&c);
            aq_exec(&q, &c);
            break;
        case 2: {
            /* A doorbell: mostly aligned 64-bit, sometimes not. */
            uint64_t off = (uint64_t)(rnd() % (DB_PAGES + 2)) *
                           QRNIC_DB_PAGE_SIZE + db_offs[rnd() % 8];
            uint64_t val = rnd() % 2 ? rnd() : rnd() % 40;

            if (rnd() % 8) {
                qf_mmio_write(&q.d, QF_BAR2_BASE + off, val, 8);
            } else {
                qf_mmio_write(&q.d, QF_BAR2_BASE + off + 4 * (rnd() % 2),
                              val, 4);
            }
            if (rnd() % 2) {
                aq_run(&q);
            }
            break;
        }
        case 3:
            /* Random descriptors in both Ethernet rings. */
            slot = qf_ram(&q.d, (rnd() % 2 ? TX_RING : RX_RING) +
                          16 * (rnd() % (1u << ETH_LOG)), 16);
            for (i = 0; i < 16; i++) {
                slot[i] = (uint8_t)rnd();
            }
            if (rnd() % 2) {
                uint64_t a = rnd_addr();

                memcpy(slot, &a, 8);
            }
            break;
        case 4:
        case 5:
            if (rnd() % 8 == 0) {
                eth_setup();    /* BAD_STATE unless a command tore it down */
            }
            if (rnd() % 2) {
                rx_refill();
            }
            rnd_frame(frame, &len);
            qf_receive(&q.d, frame, len);
            frames++;
            break;
        case 6:
            rnd_reg_write();
            break;
        default:
            switch (rnd() % 4) {
            case 0:
                qf_set_link(&q.d, rnd() % 4 != 0);
                break;
            case 1:
                q.clock += rnd() % 4000000;
                qf_run_timer(&q.d);
                break;
            case 2:
                qf_run_bh(&q.d);
                break;
            default:
                break;
            }
            if (rnd() % 300 == 0) {
                tally(q.d.e.stats.admin_cmds, &last_cmds, &cmds);
                tally(q.d.e.stats.rx_roce, &last_roce, &roce);
                resets++;
                switch (rnd() % 3) {
                case 0:
                    aq_set_reg(&q, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
                    break;
                case 1:
                    aq_set_reg(&q, QRNIC_REG_CTRL, 0);
                    break;
                default:
                    qf_reset(&q.d);
                    break;
                }
                enable();
            }
            break;
        }
    }
    aq_run(&q);
    pds = q.d.e.obj[QRNIC_OBJ_PD].used;
    for (i = 0; i < QRNIC_ENG_MAX_EQ; i++) {
        eqs += q.d.e.eq[i].valid;
    }
    CHECK(1, "20000 random operations without a memory error or a broken "
          "invariant (%u resets, %u times found disabled)", resets, disabled);
    CHECK(pds <= qrnic_obj_capacity(&q.d.e, QRNIC_OBJ_PD) && eqs <= QRNIC_ENG_MAX_EQ,
          "object tables within bounds");
    CHECK(q.d.e.async_eqn < 0 || q.d.e.eq[q.d.e.async_eqn].async,
          "async EQ index consistent");
    tally(q.d.e.stats.admin_cmds, &last_cmds, &cmds);
    tally(q.d.e.stats.rx_roce, &last_roce, &roce);
    CHECK(cmds > 1000, "random commands were executed (%llu)",
          (unsigned long long)cmds);
    CHECK(roce > 100, "random RoCE frames reached the engine (%llu of %llu "
          "frames)", (unsigned long long)roce, (unsigned long long)frames);
    CHECK(q.d.reg_dma > 0, "device DMA landed on its own BARs (%llu times, "
          "%llu refused)", (unsigned long long)q.d.reg_dma,
          (unsigned long long)q.d.blocked_reentry);
    aq_fini(&q);
    return TAP_DONE();
}
