/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_mmio: the device as a guest driver sees it - admin commands,
 * registers, doorbells, MMIO of any size, and the DMA all of that causes.
 *
 * One device on the fake platform (1 MiB of RAM, 64 KiB of queue memory,
 * four doorbell pages), brought up unless the input says not to.  The
 * input is a program of operations: admin commands built from the input
 * (an opcode mostly valid, handles mostly ones earlier commands returned,
 * addresses and page lists pointing into RAM, onto BAR0 registers, BAR2
 * doorbells, BAR4 queue memory or nowhere, so completions and events can
 * land on CTRL or AQ_DB), raw commands, BAR0 register writes, doorbells,
 * MMIO of 1, 2, 4 and 8 bytes anywhere in the BARs, bottom halves, timer
 * expiries, link changes, resets, Ethernet descriptors and frames, WQEs
 * written into queue memory (a QP connected to itself moves RC traffic
 * through the device's own receive path; a UD or GSI QP sends datagrams
 * to itself, to QP 1 or to any QP with an address vector made of the
 * WQE's fields), a loopback cable and a guest rewriting queue memory under
 * the engine's reads.  CREATE_QP takes every QP type (RC, UD, GSI and UC
 * mostly, any value too), from the kernel or a user context, and
 * MODIFY_QP masks for UD and GSI QPs with a Q_Key.  Shared receive
 * queues: CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ and DESTROY_SRQ with their
 * arguments from the input (PD, owner, queue memory, depth, stride,
 * limit), CREATE_QP with an SRQ (one CREATE_SRQ returned, with or without
 * an RQ of its own, or any srqn; chosen by bits of the type selector, so
 * inputs keep their layout), SRQ doorbells and receive WQEs posted to an
 * SRQ (WQE ctl bit 4).  UD multicast: ATTACH_MCAST and DETACH_MCAST of
 * any QP handle with IPv4 and IPv6 multicast GIDs (many groups: the table
 * fills), unicast and near-multicast ones or raw bytes, the reserved
 * field set; UD WQEs to a group (ctl bit 5) loop back through the
 * device's own receive path.  RESIZE_CQ of a CQ handle with a depth,
 * page list and reserved bits from the input and a consumer index
 * written into the new buffer's record (the device's, its producer
 * index, some CQEs before it, any), while traffic fills the CQ (nobody
 * polls it here).  MODIFY_SRQ takes a mask from the input (LIMIT,
 * RESIZE, both, none or unknown bits), a new ring's page and depth and a
 * reserved byte; send WQEs of the QPs may be FLUSH or ATOMIC WRITE
 * (opcode selectors 0xe0..0xef), MR access bit 7 of the input stands for
 * FLUSH_GLOBAL.  Memory windows and fast registration: ALLOC_MW (type
 * 1, 2 or any), DEALLOC_MW and ALLOC_MR (page counts around the limit,
 * kernel or user PDs) with their keys joining the MR handles, so REG_MR's
 * and DEREG_MR's handles, SGE lkeys and rkeys may name windows and
 * fast-registration regions too; WQEs with ctl bit 6 are BIND_MW (the
 * rkey handle's window to the lkey handle's region), REG_MR (a page list
 * in scratch RAM, maybe a page too many or nowhere), LOCAL_INV and
 * SEND_WITH_INV, through the QP connected to itself.  REREG_MR takes
 * REG_MR's arguments and a key handle.  A user context's limits
 * (ctx_max[], as the ctx-max-* properties set them) come from the input
 * too, so commands of several contexts meet OVER_QUOTA in any order.  XRC:
 * a CREATE_QP type selector 0x80..0xef whose low nibble is XRC_INI or
 * XRC_TGT clears the fields that type leaves 0 (but one that the
 * selector's bits 4-6 keep: refused) and takes a domain (xrcd_pick():
 * three small ones mostly, 0, 0xffffff, more than 24 bits, raw); the
 * CREATE_SRQ reserved-field selector makes an XRC SRQ (its domain and a
 * CQ handle, none or any cqn) when its low bits are 3, so SRQ handles
 * name XRC SRQs too (SRQ doorbells, MODIFY_SRQ, DESTROY_SRQ under an
 * XRC_TGT QP, a basic QP on one); send WQEs with ctl bit 7 carry an
 * xrc_srqn (an SRQ handle, 0, past 24 bits, raw): an XRC_INI QP
 * connected to an XRC_TGT QP of the device sends through its own receive
 * path into the XRC SRQs.  The fake platform checks the engine's
 * invariants after every step.
 *
 * Fault injection: bits 4..7 of the flags are fz_faults() selector bits
 * (drop, dup, reorder, corrupt at 20%), for the frames the device sends
 * and those it receives, its own looped back ones included.
 *
 * Input: flags (1: no bring-up, 2: loopback cable, 4: link down,
 * 8: hostile guest, 0x10..0x80: faults), then operations (OP_*).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "qfake.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"
#include "qrnic_roce.h"

/* A field of a command being built in bytes. */
#define cmd_at(cmd, field) ((cmd) + offsetof(struct qrnic_cmd, field))

const char fuzz_target_name[] = "fuzz_mmio";

#define RAM_PAGES       256
#define RAM_BYTES       (RAM_PAGES * 4096u)
#define RAM_END         (QF_RAM_BASE + RAM_BYTES)
#define QMEM_BYTES      (64u << 10)
#define QMEM_PAGES      (QMEM_BYTES / 4096)
#define DB_PAGES        4
#define AQ_LOG          4
#define AQ_SQ           QF_RAM_BASE
#define AQ_CQ           (QF_RAM_BASE + 0x1000)
#define SCRATCH         (QF_RAM_BASE + 0x2000)     /* page lists, attrs */
#define SCRATCH_BYTES   (14 * 4096u)
#define DATA_PAGE0      16                          /* pages the input names */
#define MAX_OPS         200
#define MAX_LIST        1536                        /* page addresses written */
#define NH              8
#define US              1000ull

enum {
    OP_ADMIN = 0,               /* 0..3 */
    OP_ADMIN_RAW = 4,
    OP_REG,
    OP_DOORBELL,
    OP_MMIO,
    OP_BH,
    OP_TIMER,
    OP_LINK,
    OP_RESET,
    OP_ETH,
    OP_FRAME,
    OP_WQE,
    OP_MISC,
    OP_COUNT
};

#define F_RAW           1
#define F_LOOP          2
#define F_LINK_DOWN     4
#define F_HOSTILE       8

enum { H_EQ, H_CQ, H_PD, H_UCTX, H_KEY, H_QP, H_SRQ, H_NUM, H_NONE = H_NUM };

/* op_wqe's send opcode selector: below 0xe0 % 7, then FLUSH, ATOMIC WRITE */
#define OPSEL_FLUSH     0xe0
#define OPSEL_AW        0xe1

static const uint8_t my_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t my_gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
                                    10, 0, 0, 1 };

static const uint16_t regs[] = {
    QRNIC_REG_CTRL, QRNIC_REG_STATUS, QRNIC_REG_INIT_ERR, QRNIC_REG_INTR_MASK,
    QRNIC_REG_MAC_LO, QRNIC_REG_MAC_HI, QRNIC_REG_AQ_SQ_BASE_LO,
    QRNIC_REG_AQ_SQ_BASE_HI, QRNIC_REG_AQ_CQ_BASE_LO, QRNIC_REG_AQ_CQ_BASE_HI,
    QRNIC_REG_AQ_LOG_DEPTH, QRNIC_REG_AQ_DB, QRNIC_REG_AQ_CQ_CI,
    QRNIC_REG_STAT_RX_DROP, QRNIC_REG_STAT_BAD_DB, QRNIC_REG_ID,
    QRNIC_REG_VERSION, QRNIC_REG_CAP0, QRNIC_REG_CAP1, QRNIC_REG_NUM_MSIX,
    QRNIC_REG_DB_PAGES, QRNIC_REG_QMEM_PAGES, QRNIC_REG_AQ_MAX_LOG, 0x100,
};
#define NREGS (sizeof(regs) / sizeof(regs[0]))

#define M(x) QRNIC_QP_ATTR_##x
static const uint32_t masks[] = {
    M(STATE) | M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
    M(STATE) | M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
    M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
    M(STATE) | M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
    M(MAX_QP_RD_ATOMIC),
    M(STATE),
    M(STATE) | M(EN_SQD_ASYNC),
    M(STATE) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER),
    M(STATE) | M(AV) | M(PATH_MTU) | M(TIMEOUT) | M(RETRY_CNT) |
    M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC),
    M(STATE) | M(CUR_STATE),
    M(STATE) | M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS) | M(SQ_PSN),
    M(ACCESS_FLAGS),
    M(STATE) | M(QKEY),                             /* RC: refused */
    /* UD and GSI */
    M(STATE) | M(PKEY_INDEX) | M(PORT) | M(QKEY),   /* UD RESET -> INIT */
    M(STATE) | M(PKEY_INDEX) | M(QKEY),             /* GSI; UD INIT -> RTR */
    M(STATE) | M(SQ_PSN),                           /* RTR -> RTS */
    M(QKEY),
};
#define NMASKS (sizeof(masks) / sizeof(masks[0]))

static struct qf_dev dev;
static uint64_t clock_ns;

static struct {
    uint16_t aq_pi, aq_ci;
    uint32_t h[H_NUM][NH];
    uint64_t mr_iova[NH];
    uint32_t nh[H_NUM];
    uint32_t scratch;
    uint64_t slot_iova[1u << AQ_LOG];  /* REG_MR in that AQ slot */
    uint32_t slot_key[1u << AQ_LOG];   /* REREG_MR in that AQ slot */
    uint8_t slot_log[1u << AQ_LOG];     /* CREATE_SRQ in that AQ slot */
    uint8_t srq_log[NH];                /* an SRQ handle's log depth */
    uint64_t eth_base[2];       /* tx, rx ring of the last ETH_SETUP */
    uint8_t eth_log[2];
} st;

/* ---- guest memory ---------------------------------------------------------- */

static bool in_ram(uint64_t gpa, size_t len)
{
    return gpa >= QF_RAM_BASE && len <= RAM_BYTES &&
           gpa - QF_RAM_BASE <= RAM_BYTES - len;
}

static void ram_write(uint64_t gpa, const void *buf, size_t len)
{
    if (in_ram(gpa, len)) {
        memcpy(qf_ram(&dev, gpa, len), buf, len);
    }
}

/* Scratch RAM for page lists and attribute blocks, reused in turn. */
static uint64_t scratch(uint32_t len)
{
    uint64_t a;

    len = (len + 63) & ~63u;
    if (st.scratch + len > SCRATCH_BYTES) {
        st.scratch = 0;
    }
    a = SCRATCH + st.scratch;
    st.scratch += len;
    memset(qf_ram(&dev, a, len), 0, len);
    return a;
}

/*
 * A guest physical address: a RAM page the input names (mostly), the end
 * of RAM, a BAR0 register, a doorbell, a queue memory page, nothing below
 * RAM, or (sel >= FZ_RAW) anything.
 */
static uint64_t gaddr(uint8_t sel, uint16_t v)
{
    if (sel >= FZ_RAW) {
        return (uint64_t)v << 48 | (uint64_t)sel << 32 | v;
    }
    switch (sel % 8) {
    case 0:
    case 1:
    case 2:
        return QF_RAM_BASE +
               (uint64_t)(DATA_PAGE0 + v % (RAM_PAGES - DATA_PAGE0)) * 4096;
    case 3:
        return RAM_END - (v & 0xfff);
    case 4:
        return QF_BAR0_BASE + (v < 0x8000 ? regs[v % NREGS] : (v & 0x1ffc));
    case 5:
        return QF_BAR2_BASE + (uint64_t)(v % (DB_PAGES + 1)) * 4096 +
               ((v >> 8) & 0x3f) * 8;
    case 6:
        return QF_BAR4_BASE + (uint64_t)(v % (QMEM_PAGES + 1)) * 4096;
    default:
        return (uint64_t)v << 12;
    }
}

static uint64_t f_gaddr(struct fz *f)
{
    uint8_t sel = fz_u8(f);

    return gaddr(sel, fz_u16(f));
}

/* ---- handles ----------------------------------------------------------------- */

static void add_handle(int kind, uint32_t v, uint64_t iova)
{
    uint32_t i = st.nh[kind]++ % NH;

    st.h[kind][i] = v;
    if (kind == H_KEY) {
        st.mr_iova[i] = iova;
    }
    if (kind == H_SRQ) {
        st.srq_log[i] = (uint8_t)iova;
    }
}

/* One an earlier command returned (sel picks which), or a raw value. */
static uint32_t handle(struct fz *f, int kind, uint32_t *slot)
{
    uint8_t sel = fz_u8(f);
    uint16_t raw = fz_u16(f);
    uint32_t n = st.nh[kind] < NH ? st.nh[kind] : NH;

    *slot = NH;
    if (sel >= FZ_RAW) {
        return (uint32_t)(sel & 0x0f) << 20 | raw;
    }
    if (!n) {
        return sel % 4;
    }
    *slot = sel % n;
    return st.h[kind][*slot];
}

static uint32_t f_handle(struct fz *f, int kind)
{
    uint32_t slot;

    return handle(f, kind, &slot);
}

/* The handle a command's result0 is, from QRNIC_CMD_LIST; or H_NONE. */
#define CMD_MADE(name, opcode, lname, creates) \
    [QRNIC_CMD_##name] = H_##creates,
static const uint8_t makes[QRNIC_CMD_MAX] = {
    QRNIC_CMD_LIST(CMD_MADE)
};

static int made(uint8_t opcode)
{
    return opcode >= 1 && opcode < QRNIC_CMD_MAX ? makes[opcode] : H_NONE;
}

/* 0 (the kernel) or a user context. */
static uint32_t f_uctx(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    uint32_t u = f_handle(f, H_UCTX);

    return sel & 1 ? u : 0;
}

/* ---- admin commands -------------------------------------------------------- */

static void forget(void);

/* FUZZ_DEBUG=1: every admin completion on stderr (seed writing). */
static int debug = -1;

static void collect(void)
{
    uint32_t i;

    if (debug < 0) {
        debug = getenv("FUZZ_DEBUG") != NULL;
    }
    if (!(qf_reg_read(&dev, QRNIC_REG_STATUS) & QRNIC_STATUS_READY)) {
        forget();
        return;
    }
    while (st.aq_ci != st.aq_pi) {
        uint32_t slot = st.aq_ci & ((1u << AQ_LOG) - 1);
        const uint8_t *c = qf_ram(&dev, AQ_CQ + slot * 32ull, 32);
        uint32_t phase = (st.aq_ci >> AQ_LOG) & 1 ? 0 : 1;
        uint32_t r0 = qrnic_ld32(c + 4);
        int kind = made(c[3]);

        if ((qrnic_ld32(c + 28) & 1) != phase) {
            break;
        }
        if (debug) {
            fprintf(stderr, "cmd %02x status %u r0 %x\n", c[3], c[2], r0);
        }
        if (c[2] == QRNIC_ST_OK && kind != H_NONE) {
            /* ALLOC_MR's iova is 0: REG_MR WQEs set it */
            add_handle(kind, r0, kind == H_SRQ ? st.slot_log[slot] :
                                                 st.slot_iova[slot]);
        }
        if (c[2] == QRNIC_ST_OK && c[3] == QRNIC_CMD_REREG_MR) {
            for (i = 0; i < NH; i++) {      /* the key's new iova */
                if (st.h[H_KEY][i] == st.slot_key[slot]) {
                    st.mr_iova[i] = st.slot_iova[slot];
                }
            }
        }
        st.aq_ci++;
    }
    qf_reg_write(&dev, QRNIC_REG_AQ_CQ_CI, st.aq_ci);
}

/* Post one command; ctl bit 0: leave it for a later bottom half. */
static void admin(const uint8_t *cmd, uint8_t ctl)
{
    uint32_t slot = st.aq_pi & ((1u << AQ_LOG) - 1);

    st.slot_iova[slot] = qrnic_ld64(cmd + offsetof(struct qrnic_cmd,
                                                   reg_mr.iova));
    st.slot_log[slot] = cmd[offsetof(struct qrnic_cmd, create_srq.log_depth)];
    st.slot_key[slot] = qrnic_ld32(cmd + offsetof(struct qrnic_cmd,
                                                  rereg_mr.key));
    ram_write(AQ_SQ + slot * 64ull, cmd, 64);
    st.aq_pi++;
    qf_reg_write(&dev, QRNIC_REG_AQ_DB, st.aq_pi);
    if (ctl & 2) {                  /* a producer index too far ahead */
        qf_reg_write(&dev, QRNIC_REG_AQ_DB, st.aq_pi + 40u);
    }
    if (!(ctl & 1)) {
        qf_settle(&dev, 16);
    }
    collect();
}


/*
 * A page list for [first, first + bytes) in 16 bytes at out: its kind,
 * page size and count mostly right, its pages in RAM mostly.
 */
static void pbl(struct fz *f, uint8_t *out, uint64_t first, uint64_t bytes)
{
    uint8_t lsel = fz_u8(f), ssel = fz_u8(f), nsel = fz_u8(f);
    uint8_t asel = fz_u8(f);
    uint16_t av = fz_u16(f);
    uint8_t base = fz_u8(f), stride = fz_u8(f);
    uint8_t levels = lsel < FZ_RAW ? lsel % 4 : lsel;
    uint8_t shift = ssel >= FZ_RAW ? ssel : ssel % 4 == 2 ? 13 :
                    ssel % 4 == 3 ? 21 : 12;
    uint64_t mask = shift < 64 ? (1ull << shift) - 1 : ~0ull;
    uint64_t need = bytes && levels != QRNIC_PBL_PHYS ?
                    ((first & mask) + bytes + mask) >> (shift & 63) : 0;
    uint32_t n, i, k, leaves;
    uint64_t addr = 0, list, e;

    if (nsel >= FZ_RAW) {
        n = nsel == 0xff ? 0xffffffffu : (uint32_t)(nsel - FZ_RAW) * 700;
    } else {
        n = (uint32_t)(need > 0xffffffffu ? 0xffffffffu : need);
        n += nsel % 4 == 2 ? 1 : nsel % 4 == 3 ? (uint32_t)-1 : 0;
    }
    k = n < MAX_LIST ? n : MAX_LIST;
    switch (levels) {
    case QRNIC_PBL_CONTIG:
        addr = gaddr(asel, av);
        if (asel < FZ_RAW && asel % 8 < 3) {
            addr &= ~mask;
        }
        break;
    case QRNIC_PBL_LEVEL1:
    case QRNIC_PBL_LEVEL2:
        leaves = levels == QRNIC_PBL_LEVEL2 ? (k + 511) / 512 : 0;
        list = scratch(levels == QRNIC_PBL_LEVEL2 ? leaves * 8 + 4096 * leaves :
                       k * 8);
        for (i = 0; i < k; i++) {
            e = QF_RAM_BASE + (uint64_t)(DATA_PAGE0 + (base + i * stride) %
                                         (RAM_PAGES - DATA_PAGE0)) * 4096;
            e &= ~mask;
            if (i == 0 && stride == 0xff) {
                e = gaddr(asel, av) + 8;    /* the one odd page */
            }
            qrnic_st64(qf_ram(&dev, levels == QRNIC_PBL_LEVEL2 ?
                              ((list + leaves * 8 + 4095) & ~4095ull) +
                              i * 8ull : list + i * 8ull, 8), e);
        }
        for (i = 0; i < leaves; i++) {
            qrnic_st64(qf_ram(&dev, list + i * 8ull, 8),
                       ((list + leaves * 8 + 4095) & ~4095ull) + i * 4096ull +
                       (i == 0 && base == 0xff ? 8 : 0));
        }
        addr = asel < FZ_RAW && asel % 8 < 3 ? list : gaddr(asel, av);
        break;
    default:                        /* PHYS or raw */
        addr = asel & 1 ? gaddr(asel, av) : 0;
        break;
    }
    qrnic_st64(out, addr);
    qrnic_st32(out + 8, n);
    out[12] = levels;
    out[13] = shift;
    out[14] = out[15] = 0;
}

static void modify_attr(struct fz *f, uint8_t *a)
{
    uint8_t dgsel, dmsel, v;
    uint16_t psn;

    memset(a, 0, QRNIC_QP_ATTR_SIZE);
    a[offsetof(struct qrnic_qp_attr, qp_state)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, cur_state)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, path_mtu)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, timeout)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, retry_cnt)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, rnr_retry)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, min_rnr_timer)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, max_rd_atomic)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, max_dest_rd_atomic)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, sgid_index)] = fz_u8(f);
    a[offsetof(struct qrnic_qp_attr, hop_limit)] = 64;
    /* The Q_Key is the four bytes from timeout to min_rnr_timer, which a
     * UD QP does not take: the input keeps its layout. */
    qrnic_st32(a + offsetof(struct qrnic_qp_attr, qkey),
               a[offsetof(struct qrnic_qp_attr, timeout)] |
               (uint32_t)a[offsetof(struct qrnic_qp_attr, retry_cnt)] << 8 |
               (uint32_t)a[offsetof(struct qrnic_qp_attr, rnr_retry)] << 16 |
               (uint32_t)a[offsetof(struct qrnic_qp_attr,
                                    min_rnr_timer)] << 24);
    v = fz_u8(f);                   /* bit 7: FLUSH_GLOBAL (bit 8) */
    qrnic_st32(a + offsetof(struct qrnic_qp_attr, access_flags),
               (v & 0x7fu) | (v & 0x80 ? QRNIC_ACCESS_FLUSH_GLOBAL : 0));
    qrnic_st32(a + offsetof(struct qrnic_qp_attr, dest_qpn),
               f_handle(f, H_QP));
    psn = fz_u16(f);
    qrnic_st32(a + offsetof(struct qrnic_qp_attr, rq_psn),
               psn == 0xffff ? 0x1000000u : (uint32_t)psn << 8 | 0xf0);
    qrnic_st32(a + offsetof(struct qrnic_qp_attr, sq_psn),
               psn == 0xffff ? 0x1000000u : (uint32_t)psn << 8 | 0xf0);
    dgsel = fz_u8(f);
    dmsel = fz_u8(f);
    memcpy(a + offsetof(struct qrnic_qp_attr, dgid), my_gid, 16);
    if (dgsel % 4 == 1) {
        a[offsetof(struct qrnic_qp_attr, dgid) + 15] = 2;
    } else if (dgsel % 4 == 2) {
        a[offsetof(struct qrnic_qp_attr, dgid)] = 0xfe;     /* IPv6 */
        a[offsetof(struct qrnic_qp_attr, dgid) + 1] = 0x80;
    } else if (dgsel % 4 == 3) {
        qrnic_st32(a + offsetof(struct qrnic_qp_attr, flow_label),
                   (uint32_t)dgsel << 12);
    }
    memcpy(a + offsetof(struct qrnic_qp_attr, dmac), my_mac, 6);
    if (dmsel % 4 == 1) {
        a[offsetof(struct qrnic_qp_attr, dmac) + 5] = 0x57;
    } else if (dmsel % 4 == 2) {
        a[offsetof(struct qrnic_qp_attr, dmac)] = 0x01;     /* multicast */
    } else if (dmsel % 4 == 3) {
        a[offsetof(struct qrnic_qp_attr, pkey_index)] = dmsel;
        a[offsetof(struct qrnic_qp_attr, port_num)] = dmsel & 3;
    } else {
        a[offsetof(struct qrnic_qp_attr, port_num)] = 1;
    }
}

/* ALLOC_MW's types: type 1, type 2, and two refused. */
static const uint8_t mw_types[4] = { QRNIC_MW_TYPE_1, QRNIC_MW_TYPE_2, 0, 3 };

/* CREATE_QP's types, mostly (selector < 0x80). */
static const uint8_t qp_types[4] = { QRNIC_QPT_RC, QRNIC_QPT_UD,
                                     QRNIC_QPT_GSI, QRNIC_QPT_UC };

/*
 * CREATE_QP's SRQ, from bits 2-6 of a type selector below 0x80 (bits 0-1
 * pick the type): bits 2-3 SQ_NONE, SQ_ONLY (an SRQ handle, bits 4-6 pick
 * it, and no RQ: rq_offset and log_rq_depth 0), SQ_WITH_RQ (the same, the
 * RQ as the input says) or SQ_RAW (srqns[bits 4-6]).
 */
enum { SQ_NONE, SQ_ONLY, SQ_WITH_RQ, SQ_RAW };
static const uint32_t srqns[8] = { 0x3ff, 0x400, 0xffffffffu, 0x1000001,
                                   5, 0x401, 0x80000001u, 7 };

static uint32_t srq_pick(uint8_t tsel)
{
    uint32_t n = st.nh[H_SRQ] < NH ? st.nh[H_SRQ] : NH;
    uint8_t k = (uint8_t)((tsel >> 4) & 7);

    if ((tsel >> 2) % 4 == SQ_RAW) {
        return srqns[k];
    }
    return n ? st.h[H_SRQ][k % n] : 1u + k % 4;
}

/* One of the first handles of a kind (k modulo their count). */
static uint32_t handle_at(int kind, uint32_t k)
{
    uint32_t n = st.nh[kind] < NH ? st.nh[kind] : NH;

    return n ? st.h[kind][k % n] : k % 4;
}

/*
 * An XRC domain: three small ones mostly (so SRQs and XRC_TGT QPs meet),
 * 0, the largest, one past 24 bits; sel >= FZ_RAW: sel in the top byte.
 */
static const uint32_t xrcds[8] = { 1, 2, 1, 3, 2, 0, 0xffffff, 0x1000001 };

static uint32_t xrcd_pick(uint8_t sel)
{
    return sel >= FZ_RAW ? (uint32_t)sel << 24 | sel : xrcds[sel % 8];
}

/* XRC CREATE_QP variants: type selector bits 4-6 (see xrc_qp()) */
enum { XV_KEEP_XRCD = 4, XV_KEEP_RQ = 5, XV_KEEP_SRQ = 6 };     /* INI */
enum { XV_KEEP_UCTX = 4, XV_KEEP_SQ = 5, XV_KEEP_FLAGS = 6 };   /* TGT */

/*
 * CREATE_QP of an XRC type (type selector s8 0x80..0xef whose low nibble
 * is XRC_INI or XRC_TGT): the fields the type leaves 0 cleared, but for
 * the variant v (bits 4-6 of s8, less 8) that keeps one as the input made
 * it, which the device refuses: XRC_INI XV_KEEP_XRCD a domain,
 * XV_KEEP_RQ recv_cqn, rq_offset and log_rq_*, XV_KEEP_SRQ an srqn
 * (srq_pick() of b's bits 4-6); XRC_TGT XV_KEEP_SQ the PD, send CQ and
 * SQ, XV_KEEP_FLAGS the flags.  XRC_TGT XV_KEEP_UCTX keeps the context
 * the QP counts against (accepted if it exists, OVER_QUOTA past its
 * limit, BAD_HANDLE otherwise; the others use the kernel's).  Variants
 * 0-3 are as the type wants them.  The domain (XRC_TGT, XRC_INI
 * XV_KEEP_XRCD) is xrcd_pick() of b, the log_rq_depth selector.
 */
static void xrc_qp(uint8_t *c, uint8_t s8, uint8_t b)
{
    uint8_t type = s8 & 0x0f, v = (uint8_t)((s8 >> 4) - 8);
    bool tgt = type == QRNIC_QPT_XRC_TGT;

    if (type != QRNIC_QPT_XRC_INI && !tgt) {
        return;
    }
    if (tgt || v != XV_KEEP_RQ) {
        qrnic_st32(cmd_at(c, create_qp.recv_cqn), 0);
        qrnic_st32(cmd_at(c, create_qp.rq_offset), 0);
        *cmd_at(c, create_qp.log_rq_depth) = 0;
        *cmd_at(c, create_qp.log_rq_stride) = 0;
    }
    if (!tgt) {
        if (v == XV_KEEP_SRQ) {
            qrnic_st32(cmd_at(c, create_qp.srqn),
                       srq_pick((uint8_t)(SQ_ONLY << 2 | (b & 0x70))));
        }
        if (v == XV_KEEP_XRCD) {
            qrnic_st32(cmd_at(c, create_qp.xrcd), xrcd_pick(b));
        }
        return;
    }
    qrnic_st32(cmd_at(c, create_qp.xrcd), xrcd_pick(b));
    if (v != XV_KEEP_UCTX) {
        qrnic_st32(cmd_at(c, create_qp.uctx), 0);
    }
    if (v != XV_KEEP_SQ) {
        qrnic_st32(cmd_at(c, create_qp.pdn), 0);
        qrnic_st32(cmd_at(c, create_qp.send_cqn), 0);
        qrnic_st32(cmd_at(c, create_qp.sq_offset), 0);
        *cmd_at(c, create_qp.log_sq_depth) = 0;
        *cmd_at(c, create_qp.log_sq_stride) = 0;
    }
    if (v != XV_KEEP_FLAGS) {
        *cmd_at(c, create_qp.flags) = 0;
    }
}

/*
 * A send WQE's xrc_srqn (op_wqe ctl bit 7), from flags bits 4-7 modulo
 * 8: an SRQ handle (0-5: one CREATE_SRQ returned, XRC of any domain or
 * not), 0 (6), a handle with bit 24 set (7: more than an XRCETH holds);
 * raw flags: flags << 24 | roff.
 */
static uint32_t xrc_srqn_pick(uint8_t flags, uint16_t roff)
{
    uint8_t k = (uint8_t)((flags >> 4) % 8);

    if (flags >= FZ_RAW) {
        return (uint32_t)flags << 24 | roff;
    }
    return k == 6 ? 0 : handle_at(H_SRQ, k) | (k == 7 ? 1u << 24 : 0);
}

/*
 * An SRQ limit for an SRQ of 1 << log WQEs: none, one in range, the
 * largest, the depth or more (refused); or (sel >= FZ_RAW) any.
 */
static uint32_t srq_limit(uint8_t sel, uint16_t v, uint8_t log)
{
    uint32_t depth = log < 31 ? 1u << log : 0x80000000u;

    if (sel >= FZ_RAW) {
        return (uint32_t)v << 16 | v;
    }
    switch (sel % 4) {
    case 0:
        return 0;
    case 1:
        return depth > 2 ? 1 + v % (depth - 1) : 1;
    case 2:
        return depth - 1;
    default:
        return depth + (sel & 4 ? v : 0);
    }
}

/*
 * An ATTACH_MCAST/DETACH_MCAST GID: sel % 8 0-1 IPv4 multicast
 * (239.<sel >> 3>.<v>.<v>: one of many groups), 2-3 IPv6 multicast
 * (ff0<sel >> 3>::<v>), 4 our unicast GID, 5 an IPv6 link-local one, 6
 * just outside 224/4 (223.255.255.v, 240.0.0.v), 7 an IPv4-mapped prefix
 * one bit off with a multicast address; sel >= FZ_RAW: 16 raw bytes.
 */
static void mcast_gid(struct fz *f, uint8_t *gid)
{
    uint8_t sel = fz_u8(f), v = fz_u8(f);

    memset(gid, 0, 16);
    if (sel >= FZ_RAW) {
        fz_bytes(f, gid, 16);
        return;
    }
    gid[10] = gid[11] = 0xff;
    switch (sel % 8) {
    case 0:
    case 1:
        gid[12] = 239;
        gid[13] = (uint8_t)(sel >> 3);
        gid[14] = gid[15] = v;
        break;
    case 2:
    case 3:
        gid[10] = gid[11] = 0;
        gid[0] = 0xff;
        gid[1] = (uint8_t)((sel >> 3) & 0x0f);
        gid[15] = v;
        break;
    case 4:
        memcpy(gid, my_gid, 16);
        break;
    case 5:
        gid[10] = gid[11] = 0;
        gid[0] = 0xfe;
        gid[1] = 0x80;
        gid[15] = v;
        break;
    case 6:
        gid[12] = sel & 8 ? 240 : 223;
        gid[13] = gid[14] = sel & 8 ? 0 : 255;
        gid[15] = v;
        break;
    default:
        gid[10] = 0xfe;
        gid[12] = 224;
        gid[15] = v;
        break;
    }
}

/*
 * RESIZE_CQ's consumer index, written into the new buffer's record where
 * the page list (CONTIG, or LEVEL1 in RAM) puts it: sel % 4 0 the CQ's
 * consumer index as the device has it, 1 its producer index (everything
 * consumed), 2 v % 64 CQEs before it (outstanding, maybe more than fit),
 * 3 v, with sel's high bits as the index's high ones; sel >= FZ_RAW:
 * nothing written.
 */
static void resize_record(struct fz *f, const uint8_t *c)
{
    uint8_t sel = fz_u8(f);
    uint16_t v = fz_u16(f);
    const uint8_t *pl = cmd_at(c, resize_cq.pbl);
    uint8_t log = *cmd_at(c, resize_cq.log_depth);
    const struct qrnic_cqc *cq =
        qrnic_cq_get(&dev.e, qrnic_ld32(cmd_at(c, resize_cq.cqn)));
    uint64_t addr = qrnic_ld64(pl), rec;
    uint32_t off, ci;
    uint8_t b[4];

    if (sel >= FZ_RAW || log > QRNIC_CQ_MAX_LOG) {
        return;
    }
    off = 32u << log;
    switch (pl[12]) {
    case QRNIC_PBL_CONTIG:
        rec = addr + off;
        break;
    case QRNIC_PBL_LEVEL1:
        if (!in_ram(addr + off / 4096 * 8, 8)) {
            return;
        }
        rec = qrnic_ld64(qf_ram(&dev, addr + off / 4096 * 8, 8)) +
              off % 4096;
        break;
    default:
        return;
    }
    switch (sel % 4) {
    case 0:
        ci = cq ? cq->ci : v;
        break;
    case 1:
        ci = cq ? cq->pi : v;
        break;
    case 2:
        ci = (cq ? cq->pi : 0) - v % 64;
        break;
    default:
        ci = (uint32_t)(sel >> 2) << 16 | v;
        break;
    }
    qrnic_st32(b, ci);
    ram_write(rec, b, 4);
}

static void gen_query_device(struct fz *f, uint8_t *c)
{
    qrnic_st64(cmd_at(c, query_device.resp_addr), f_gaddr(f));
}

static void gen_query_res(struct fz *f, uint8_t *c)
{
    qrnic_st64(cmd_at(c, query_res.resp_addr), f_gaddr(f));
}

static void gen_query_stats(struct fz *f, uint8_t *c)
{
    qrnic_st64(cmd_at(c, query_stats.resp_addr), f_gaddr(f));
}

static void gen_create_eq(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    qrnic_st64(cmd_at(c, create_eq.base), f_gaddr(f));
    v8 = fz_u8(f);
    *cmd_at(c, create_eq.log_depth) = v8 < FZ_RAW ? v8 % 14 : v8;
    *cmd_at(c, create_eq.flags) = fz_u8(f);
    v8 = fz_u8(f);
    qrnic_st16(cmd_at(c, create_eq.vector), v8 < FZ_RAW ? v8 % 17 : v8);
}

static void gen_destroy_eq(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, destroy_eq.eqn), f_handle(f, H_EQ));
}

static void gen_eth_setup(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    qrnic_st64(cmd_at(c, eth_setup.tx_base), f_gaddr(f));
    qrnic_st64(cmd_at(c, eth_setup.rx_base), f_gaddr(f));
    v8 = fz_u8(f);
    *cmd_at(c, eth_setup.tx_log_depth) = v8 < FZ_RAW ? v8 % 14 : v8;
    v8 = fz_u8(f);
    *cmd_at(c, eth_setup.rx_log_depth) = v8 < FZ_RAW ? v8 % 14 : v8;
    v8 = fz_u8(f);
    qrnic_st16(cmd_at(c, eth_setup.vector), v8 < FZ_RAW ? v8 % 17 : v8);
    qrnic_st32(cmd_at(c, eth_setup.rsvd), fz_u8(f) >= FZ_RAW);
    st.eth_base[0] = qrnic_ld64(cmd_at(c, eth_setup.tx_base));
    st.eth_base[1] = qrnic_ld64(cmd_at(c, eth_setup.rx_base));
    st.eth_log[0] = *cmd_at(c, eth_setup.tx_log_depth);
    st.eth_log[1] = *cmd_at(c, eth_setup.rx_log_depth);
}

/* No arguments. */
static void gen_eth_teardown(struct fz *f, uint8_t *c)
{
    (void)f;
    (void)c;
}

static void gen_set_mac(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    v8 = fz_u8(f);
    memcpy(cmd_at(c, set_mac.mac), my_mac, 6);
    if (v8 >= FZ_RAW) {
        memset(cmd_at(c, set_mac.mac), v8 == 0xff ? 0 : v8, 6);
    } else {
        cmd_at(c, set_mac.mac)[5] = v8;
    }
}

static void gen_set_mtu(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, set_mtu.mtu), fz_u16(f));
}

static void gen_add_gid(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, add_gid.index), v8 < FZ_RAW ? v8 % 130 : v8 * 7u);
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, add_gid.type), v8 < FZ_RAW ? QRNIC_GID_TYPE_ROCE_V2 :
                                                    v8);
    v8 = fz_u8(f);
    memcpy(cmd_at(c, add_gid.gid), my_gid, 16);
    if (v8 % 4 == 1) {
        cmd_at(c, add_gid.gid)[15] = 2;
    } else if (v8 % 4 >= 2) {
        cmd_at(c, add_gid.gid)[0] = 0xfe;
        cmd_at(c, add_gid.gid)[1] = 0x80;
    }
}

static void gen_del_gid(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, del_gid.index), v8 < FZ_RAW ? v8 % 130 : v8 * 7u);
}

/* No arguments. */
static void gen_alloc_uctx(struct fz *f, uint8_t *c)
{
    (void)f;
    (void)c;
}

static void gen_dealloc_uctx(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, dealloc_uctx.uctx), f_handle(f, H_UCTX));
}

static void gen_alloc_pd(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, alloc_pd.uctx), f_uctx(f));
}

static void gen_dealloc_pd(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, dealloc_pd.pdn), f_handle(f, H_PD));
}

static void gen_create_cq(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    v8 = fz_u8(f);
    v8 = v8 < FZ_RAW ? v8 % (QRNIC_CQ_MAX_LOG + 2) : v8;
    *cmd_at(c, create_cq.log_depth) = v8;
    pbl(f, cmd_at(c, create_cq.pbl), 0,
        v8 <= QRNIC_CQ_MAX_LOG ? (32u << v8) + 64 : 64);
    qrnic_st32(cmd_at(c, create_cq.uctx), f_uctx(f));
    qrnic_st32(cmd_at(c, create_cq.eqn), f_handle(f, H_EQ));
}

static void gen_destroy_cq(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, destroy_cq.cqn), f_handle(f, H_CQ));
}

static void gen_reg_mr(struct fz *f, uint8_t *c)
{
    uint8_t v8, s8;
    uint64_t iova, len;
    uint16_t v16;

    v8 = fz_u8(f);
    v16 = fz_u16(f);
    iova = v8 < 0x80 ? 0x7f0000000000ull + ((uint64_t)v8 << 20) +
                       ((uint64_t)v16 << 3) :
           v8 < FZ_RAW ? QF_RAM_BASE + ((uint64_t)v16 << 4) :
                         ~0ull - v16;
    v16 = fz_u16(f);
    s8 = fz_u8(f);
    len = s8 < FZ_RAW ? (uint64_t)v16 << (s8 % 24) : ~0ull - v16;
    qrnic_st64(cmd_at(c, reg_mr.iova), iova);
    qrnic_st64(cmd_at(c, reg_mr.length), len);
    pbl(f, cmd_at(c, reg_mr.pbl), iova, len);
    qrnic_st32(cmd_at(c, reg_mr.pdn), f_handle(f, H_PD));
    v8 = fz_u8(f);              /* bit 7: FLUSH_GLOBAL (bit 8) */
    qrnic_st32(cmd_at(c, reg_mr.access), (v8 & 0x7fu) |
               (v8 & 0x80 ? QRNIC_ACCESS_FLUSH_GLOBAL : 0));
}

/* REG_MR's layout and a key */
static void gen_rereg_mr(struct fz *f, uint8_t *c)
{
    gen_reg_mr(f, c);
    qrnic_st32(cmd_at(c, rereg_mr.key), f_handle(f, H_KEY));
}

static void gen_dereg_mr(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, dereg_mr.key), f_handle(f, H_KEY));
}

static void gen_dealloc_mw(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, dealloc_mw.key), f_handle(f, H_KEY));
}

static void gen_alloc_mw(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    qrnic_st32(cmd_at(c, alloc_mw.pdn), f_handle(f, H_PD));
    v8 = fz_u8(f);
    *cmd_at(c, alloc_mw.type) = v8 >= FZ_RAW ? v8 : mw_types[v8 % 4];
}

static void gen_alloc_mr(struct fz *f, uint8_t *c)
{
    uint16_t v16;

    qrnic_st32(cmd_at(c, alloc_mr.pdn), f_handle(f, H_PD));
    v16 = fz_u16(f);
    qrnic_st32(cmd_at(c, alloc_mr.max_pages), v16 >= 0xff00 ?
               (uint32_t)v16 << 16 | v16 : v16 % 520u);
}

static void gen_create_qp(struct fz *f, uint8_t *c)
{
    uint8_t v8, s8, b;

    qrnic_st32(cmd_at(c, create_qp.pdn), f_handle(f, H_PD));
    qrnic_st32(cmd_at(c, create_qp.send_cqn), f_handle(f, H_CQ));
    qrnic_st32(cmd_at(c, create_qp.recv_cqn), f_handle(f, H_CQ));
    qrnic_st32(cmd_at(c, create_qp.uctx), f_uctx(f));
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, create_qp.sq_offset),
               v8 < FZ_RAW ? (v8 % (QMEM_PAGES + 1)) * 4096u : v8 * 65u);
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, create_qp.rq_offset),
               v8 < FZ_RAW ? (v8 % (QMEM_PAGES + 1)) * 4096u : v8 * 65u);
    s8 = fz_u8(f);
    *cmd_at(c, create_qp.qp_type) = s8 >= FZ_RAW ? s8 : s8 >= 0x80 ?
                                 s8 & 0x0f : qp_types[s8 % 4];
    *cmd_at(c, create_qp.flags) = fz_u8(f);
    v8 = fz_u8(f);
    *cmd_at(c, create_qp.log_sq_depth) = v8 < FZ_RAW ? v8 % 15 : v8;
    v8 = fz_u8(f);
    *cmd_at(c, create_qp.log_sq_stride) = v8 < FZ_RAW ? 6 + v8 % 4 : v8;
    b = fz_u8(f);
    *cmd_at(c, create_qp.log_rq_depth) = b < FZ_RAW ? b % 15 : b;
    v8 = fz_u8(f);
    *cmd_at(c, create_qp.log_rq_stride) = v8 < FZ_RAW ? 4 + v8 % 5 : v8;
    if (s8 < 0x80 && (s8 >> 2) % 4 != SQ_NONE) {
        qrnic_st32(cmd_at(c, create_qp.srqn), srq_pick(s8));
        if ((s8 >> 2) % 4 == SQ_ONLY) {
            qrnic_st32(cmd_at(c, create_qp.rq_offset), 0);
            *cmd_at(c, create_qp.log_rq_depth) = 0;
        }
    }
    if (s8 >= 0x80 && s8 < FZ_RAW) {
        xrc_qp(c, s8, b);
    }
}

static void gen_modify_qp(struct fz *f, uint8_t *c)
{
    uint8_t a[QRNIC_QP_ATTR_SIZE];
    uint8_t v8;
    uint64_t at;
    uint16_t v16;

    qrnic_st32(cmd_at(c, modify_qp.qpn), f_handle(f, H_QP));
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, modify_qp.attr_mask),
               v8 < FZ_RAW ? masks[v8 % NMASKS] : fz_u32(f));
    v8 = fz_u8(f);
    v16 = fz_u16(f);
    modify_attr(f, a);
    at = v8 < FZ_RAW && v8 % 8 < 3 ? scratch(sizeof(a)) : gaddr(v8, v16);
    ram_write(at, a, sizeof(a));
    qrnic_st64(cmd_at(c, modify_qp.attr_addr), at);
}

static void gen_query_qp(struct fz *f, uint8_t *c)
{
    uint8_t v8;
    uint16_t v16;

    qrnic_st32(cmd_at(c, query_qp.qpn), f_handle(f, H_QP));
    v8 = fz_u8(f);
    v16 = fz_u16(f);
    qrnic_st64(cmd_at(c, query_qp.attr_addr),
               v8 < FZ_RAW && v8 % 8 < 3 ? scratch(QRNIC_QP_ATTR_SIZE) :
               gaddr(v8, v16));
}

static void gen_destroy_qp(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, destroy_qp.qpn), f_handle(f, H_QP));
}

static void gen_create_srq(struct fz *f, uint8_t *c)
{
    uint8_t v8, s8;
    uint16_t v16;

    qrnic_st32(cmd_at(c, create_srq.pdn), f_handle(f, H_PD));
    qrnic_st32(cmd_at(c, create_srq.uctx), f_uctx(f));
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, create_srq.offset),
               v8 < FZ_RAW ? (v8 % (QMEM_PAGES + 1)) * 4096u : v8 * 65u);
    s8 = fz_u8(f);
    s8 = s8 < FZ_RAW ? s8 % 16 : s8;
    *cmd_at(c, create_srq.log_depth) = s8;
    v8 = fz_u8(f);
    *cmd_at(c, create_srq.log_stride) = v8 < FZ_RAW ? 4 + v8 % 5 : v8;
    v8 = fz_u8(f);
    v16 = fz_u16(f);
    qrnic_st32(cmd_at(c, create_srq.limit), srq_limit(v8, v16, s8));
    /*
     * The reserved field's selector: raw sets it, low bits 3 make an XRC
     * SRQ, bits 2-4 its domain, bits 5-7 its CQ (a handle, none, any).
     */
    v8 = fz_u8(f);
    qrnic_st16(cmd_at(c, create_srq.rsvd), v8 >= FZ_RAW);
    if (v8 < FZ_RAW && v8 % 4 == 3) {
        qrnic_st32(cmd_at(c, create_srq.xrcd), xrcd_pick((v8 >> 2) & 7));
        qrnic_st32(cmd_at(c, create_srq.cqn), v8 >> 5 < 6 ?
                   handle_at(H_CQ, v8 >> 5) : v8 >> 5 == 6 ? 0 : 0x3ff);
    }
}

static void gen_modify_srq(struct fz *f, uint8_t *c)
{
    static const uint32_t mods[4] = {
        QRNIC_SRQ_MOD_LIMIT, QRNIC_SRQ_MOD_RESIZE,
        QRNIC_SRQ_MOD_LIMIT | QRNIC_SRQ_MOD_RESIZE, 0
    };
    uint32_t slot;
    uint8_t v8, s8;
    uint16_t v16;

    qrnic_st32(cmd_at(c, modify_srq.srqn), handle(f, H_SRQ, &slot));
    v8 = fz_u8(f);
    v16 = fz_u16(f);
    qrnic_st32(cmd_at(c, modify_srq.limit),
               srq_limit(v8, v16, slot < NH ? st.srq_log[slot] : 4));
    /* mask (raw: unknown bits too), new ring's page, log depth */
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, modify_srq.mask), v8 < FZ_RAW ? mods[v8 % 4] :
                                        (uint32_t)v8 << 24 | (v8 & 3));
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, modify_srq.offset),
               v8 < FZ_RAW ? (v8 % (QMEM_PAGES + 1)) * 4096u : v8 * 65u);
    s8 = fz_u8(f);
    *cmd_at(c, modify_srq.log_depth) = s8 < FZ_RAW ? s8 % 16 : s8;
    cmd_at(c, modify_srq.rsvd)[1] = (s8 & 0xe0) == 0xe0 && s8 < FZ_RAW;
}

static void gen_query_srq(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, query_srq.srqn), f_handle(f, H_SRQ));
}

static void gen_destroy_srq(struct fz *f, uint8_t *c)
{
    qrnic_st32(cmd_at(c, destroy_srq.srqn), f_handle(f, H_SRQ));
}

static void mcast_args(struct fz *f, uint8_t *c)
{
    uint8_t v8;

    qrnic_st32(cmd_at(c, mcast.qpn), f_handle(f, H_QP));
    v8 = fz_u8(f);
    qrnic_st32(cmd_at(c, mcast.rsvd), v8 >= FZ_RAW ? (uint32_t)v8 << 24 |
                                                  v8 : 0);
    mcast_gid(f, cmd_at(c, mcast.gid));
}

static void gen_attach_mcast(struct fz *f, uint8_t *c)
{
    mcast_args(f, c);
}

static void gen_detach_mcast(struct fz *f, uint8_t *c)
{
    mcast_args(f, c);
}

static void gen_resize_cq(struct fz *f, uint8_t *c)
{
    uint8_t v8, s8;

    qrnic_st32(cmd_at(c, resize_cq.cqn), f_handle(f, H_CQ));
    v8 = fz_u8(f);
    v8 = v8 < FZ_RAW ? v8 % (QRNIC_CQ_MAX_LOG + 2) : v8;
    *cmd_at(c, resize_cq.log_depth) = v8;
    pbl(f, cmd_at(c, resize_cq.pbl), 0,
        v8 <= QRNIC_CQ_MAX_LOG ? (32u << v8) + 64 : 64);
    s8 = fz_u8(f);
    if (s8 >= FZ_RAW) {
        cmd_at(c, resize_cq.rsvd)[s8 % 3] = s8;
    }
    resize_record(f, c);
}

/*
 * The arguments of each command from the input, by opcode: a row of
 * QRNIC_CMD_LIST without its gen_<name> does not build.
 */
typedef void gen_fn(struct fz *f, uint8_t *c);

#define CMD_GEN(name, opcode, lname, ...) [QRNIC_CMD_##name] = gen_##lname,
static gen_fn *const gens[QRNIC_CMD_MAX] = {
    QRNIC_CMD_LIST(CMD_GEN)
};

static void op_admin(struct fz *f)
{
    uint8_t c[QRNIC_CMD_SIZE];
    uint8_t opsel = fz_u8(f), ctl = fz_u8(f);
    uint8_t opcode = opsel < FZ_RAW ? 1 + opsel % (QRNIC_CMD_MAX - 1) : opsel;

    memset(c, 0, sizeof(c));
    c[0] = opcode;
    qrnic_st16(c + 2, (uint16_t)(st.aq_pi ^ 0x5a00));
    if (opcode < QRNIC_CMD_MAX && gens[opcode]) {
        gens[opcode](f, c);
    }
    admin(c, ctl);
}

/* ---- registers, doorbells, MMIO ------------------------------------------- */

static void op_reg(struct fz *f)
{
    uint8_t rsel = fz_u8(f), vsel = fz_u8(f);
    uint16_t raw_off = fz_u16(f);
    uint32_t raw = fz_u32(f), val;
    uint32_t reg = rsel < FZ_RAW ? regs[rsel % NREGS] :
                   rsel == 0xff ? raw_off & 0x1fffu : raw_off & 0x1ffcu;
    static const uint32_t vals[] = {
        0, QRNIC_CTRL_RESET, QRNIC_CTRL_ENABLE, 3, (uint32_t)AQ_SQ,
        (uint32_t)AQ_CQ, AQ_LOG, 0xffff, 0x1, (uint32_t)QF_BAR0_BASE,
        QRNIC_AQ_MAX_LOG + 1, 0x41,
    };

    if (vsel >= FZ_RAW) {
        val = raw;
    } else if (vsel % 16 == 12) {
        val = st.aq_pi;
    } else if (vsel % 16 == 13) {
        val = st.aq_ci;
    } else if (vsel % 16 == 14) {
        val = (uint16_t)(st.aq_pi + 1);
    } else {
        val = vals[vsel % 16 % (sizeof(vals) / sizeof(vals[0]))];
    }
    if (rsel == 0xfe) {
        qf_mmio_write(&dev, QF_BAR0_BASE + reg, val, 2);
    } else {
        qf_mmio_write(&dev, QF_BAR0_BASE + reg, val, 4);
    }
    if (reg == QRNIC_REG_CTRL) {
        collect();
    }
}

static void op_doorbell(struct fz *f)
{
    static const uint16_t offs[] = {
        QRNIC_DB_SQ, QRNIC_DB_RQ, QRNIC_DB_CQ, QRNIC_DB_EQ, QRNIC_DB_ETH_TX,
        QRNIC_DB_ETH_RX, QRNIC_DB_SRQ, 0x14,
    };
    uint8_t psel = fz_u8(f), osel = fz_u8(f), flags = fz_u8(f);
    uint16_t idx = fz_u16(f), raw = fz_u16(f);
    uint32_t page = psel < FZ_RAW ? psel % DB_PAGES : raw;
    uint16_t off = osel < FZ_RAW ? offs[osel % 8] : raw & 0xfff;
    uint32_t qn = 0;
    uint64_t val;

    switch (off) {
    case QRNIC_DB_SQ:
    case QRNIC_DB_RQ:
        qn = f_handle(f, H_QP);
        break;
    case QRNIC_DB_CQ:
        qn = f_handle(f, H_CQ);
        break;
    case QRNIC_DB_EQ:
        qn = f_handle(f, H_EQ);
        break;
    case QRNIC_DB_SRQ:
        qn = f_handle(f, H_SRQ);
        break;
    default:
        f_handle(f, H_EQ);
        break;
    }
    if (off == QRNIC_DB_ETH_TX || off == QRNIC_DB_ETH_RX) {
        val = flags >= FZ_RAW ? (uint64_t)raw << 32 | idx : idx;
    } else {
        val = qn | (uint64_t)raw << 48 | (uint64_t)idx << 32 |
              (flags < FZ_RAW ? (uint32_t)(flags & 3) << 24 :
                                (uint64_t)flags << 40 | (uint32_t)flags << 24);
    }
    if (flags == 0xff) {
        qf_mmio_write(&dev, QF_BAR2_BASE + (uint64_t)page * 4096 + off,
                      val, 4);
    } else {
        qf_mmio_write(&dev, QF_BAR2_BASE + (uint64_t)page * 4096 + off,
                      val, 8);
    }
}

static void op_mmio(struct fz *f)
{
    static const uint64_t bars[3] = { QF_BAR0_BASE, QF_BAR2_BASE,
                                      QF_BAR4_BASE };
    uint8_t sel = fz_u8(f);
    uint16_t off = fz_u16(f);
    uint64_t val = fz_u64(f);
    uint64_t gpa = bars[sel % 3] + (sel >= FZ_RAW ? (uint64_t)off << 4 : off);
    unsigned int size = 1u << ((sel >> 2) & 3);

    if (sel & 0x10) {
        qf_mmio_read(&dev, gpa, size);
    } else {
        qf_mmio_write(&dev, gpa, val, size);
    }
}

/* ---- the bring-up, resets ------------------------------------------------- */

/* Forget the handles of a device that dropped its objects. */
static void forget(void)
{
    memset(st.nh, 0, sizeof(st.nh));
    st.aq_pi = st.aq_ci = 0;        /* the device starts again at 0 */
}

/* Program the admin queue and enable, unless the device is enabled. */
static void bring_up(void)
{
    if (qf_reg_read(&dev, QRNIC_REG_STATUS) & QRNIC_STATUS_READY) {
        return;
    }
    qf_reg_write(&dev, QRNIC_REG_AQ_SQ_BASE_LO, (uint32_t)AQ_SQ);
    qf_reg_write(&dev, QRNIC_REG_AQ_SQ_BASE_HI, 0);
    qf_reg_write(&dev, QRNIC_REG_AQ_CQ_BASE_LO, (uint32_t)AQ_CQ);
    qf_reg_write(&dev, QRNIC_REG_AQ_CQ_BASE_HI, 0);
    qf_reg_write(&dev, QRNIC_REG_AQ_LOG_DEPTH, AQ_LOG);
    qf_reg_write(&dev, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    memset(qf_ram(&dev, AQ_CQ, 32u << AQ_LOG), 0, 32u << AQ_LOG);
    forget();
}

static void op_reset(struct fz *f)
{
    switch (fz_u8(f) % 4) {
    case 0:
        qf_reset(&dev);             /* QEMU's device reset */
        break;
    case 1:
        qf_reg_write(&dev, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
        break;
    case 2:
        qf_reg_write(&dev, QRNIC_REG_CTRL, 0);
        break;
    default:
        break;
    }
    collect();
    bring_up();
}

/* ---- Ethernet, frames, WQEs ------------------------------------------------ */

/* An Ethernet frame of len bytes; kind picks destination and type. */
static size_t make_frame(uint8_t *fr, uint8_t kind, size_t len, uint8_t fill)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t other[6] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };
    static const uint8_t mcast[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };
    const uint8_t *dst[4] = { my_mac, bcast, other, mcast };
    size_t i;

    if (kind >= FZ_RAW) {           /* a RoCE SEND to ourselves */
        struct fz_l3 l3 = { false, false, my_gid, my_gid };
        size_t pos = fz_roce_begin(fr, my_mac, my_mac, &l3);

        memset(fr + pos, 0, 12);
        fr[pos] = 0x04;
        qrnic_st16_be(fr + pos + 2, 0xffff);
        qrnic_st32_be(fr + pos + 4, (uint32_t)(kind & 3) << 10 | 2);
        return fz_roce_finish(fr, pos + 12 + 4 * (fill & 7), &l3, true);
    }
    for (i = 0; i < len; i++) {
        fr[i] = (uint8_t)(fill + i);
    }
    if (len >= 14) {
        memcpy(fr, dst[kind % 4], 6);
        memcpy(fr + 6, other, 6);
        qrnic_st16_be(fr + 12, (kind >> 2) % 4 == 0 ? 0x0806 :
                      (kind >> 2) % 4 == 1 ? 0x0800 : 0x86dd);
    }
    if (len >= 38 && (kind >> 2) % 4 == 1) {
        fr[14] = 0x45;
        fr[23] = QRNIC_IPPROTO_UDP;
        qrnic_st16_be(fr + 20, 0);
        qrnic_st16_be(fr + 36, kind & 0x40 ? QRNIC_ROCE_UDP_PORT : 53);
    }
    return len;
}

static void op_eth(struct fz *f)
{
    static uint8_t fr[QRNIC_ETH_MAX_FRAME + 64];
    uint8_t ctl = fz_u8(f), idx = fz_u8(f);
    uint64_t buf = f_gaddr(f);
    uint16_t len = fz_u16(f);
    uint8_t kind = fz_u8(f), fill = fz_u8(f);
    int rx = ctl & 1;
    uint8_t desc[QRNIC_ETH_DESC_SIZE];
    uint8_t log = st.eth_log[rx] <= QRNIC_ETH_MAX_LOG ? st.eth_log[rx] : 0;
    uint64_t at = st.eth_base[rx] +
                  (uint64_t)(idx & ((1u << log) - 1)) * QRNIC_ETH_DESC_SIZE;

    memset(desc, 0, sizeof(desc));
    qrnic_st64(desc, buf);
    if (!rx) {
        size_t n = make_frame(fr, kind, len % (QRNIC_ETH_MAX_FRAME + 1), fill);

        ram_write(buf, fr, n);
        len = ctl & 4 ? len : (uint16_t)n;
    }
    qrnic_st16(desc + 8, len);
    ram_write(at, desc, sizeof(desc));
    if (ctl & 2) {
        qf_doorbell(&dev, 0, rx ? QRNIC_DB_ETH_RX : QRNIC_DB_ETH_TX,
                    (uint16_t)(idx + 1));
    }
}

/* A frame to receive: one make_frame() builds, or (kind 0xff) raw bytes. */
static void op_frame(struct fz *f)
{
    static uint8_t fr[QRNIC_ETH_MAX_FRAME + 256];
    uint8_t kind = fz_u8(f);
    uint16_t len = fz_u16(f);
    uint8_t fill = fz_u8(f);
    size_t n;

    if (kind == 0xff) {
        n = len % 256;
        fz_bytes(f, fr, n);
    } else {
        n = make_frame(fr, kind, len % (QRNIC_ETH_MAX_FRAME + 100), fill);
    }
    qf_receive(&dev, fr, n);
}

/*
 * A WQE moving no data, or SEND_WITH_INV (opcode % 4 picks, raw: any):
 * BIND_MW of the window rkey names to [addr, addr + len) of the region
 * key names (rights from nsge), REG_MR of the region rkey names (a page
 * list of the pages covering len bytes at 0x7f8000000000 + (roff & 0xfff)
 * in scratch RAM; roff bit 14: a page too many, bit 13: the list
 * nowhere), LOCAL_INV of rkey, SEND_WITH_INV of rkey from one SGE at
 * addr.  roff bit 15: the new key byte differs from the key's.  The MR
 * handle rkey came from then names the range bound or registered.
 */
#define W(field) (w + offsetof(struct qrnic_sq_wqe, field))

static void key_wqe(uint8_t *w, uint8_t opsel, uint8_t flags, uint8_t nsge,
                    uint64_t addr, uint16_t len, uint32_t key, uint32_t rkey,
                    uint32_t rslot, uint16_t roff)
{
    static const uint8_t ops[4] = { QRNIC_WR_BIND_MW, QRNIC_WR_REG_MR,
                                    QRNIC_WR_LOCAL_INV,
                                    QRNIC_WR_SEND_WITH_INV };
    uint32_t new_key = roff & 0x8000 ? rkey ^ 1 : rkey;
    uint64_t iova = 0x7f8000000000ull + (roff & 0xfff), list;
    uint32_t np = (uint32_t)(((iova & 0xfff) + len + 0xfff) >> 12), i;

    w[8] = opsel < FZ_RAW ? ops[opsel % 4] : opsel;
    w[9] = flags < FZ_RAW ? flags & 0x0b : flags;
    qrnic_st32(w + 12, rkey);                       /* LE, not network */
    switch (w[8]) {
    case QRNIC_WR_BIND_MW:
        qrnic_st32(W(bind_mw.mw_key), rkey);
        qrnic_st32(W(bind_mw.new_key), new_key);
        qrnic_st64(W(bind_mw.addr), addr);
        qrnic_st64(W(bind_mw.length), len);
        qrnic_st32(W(bind_mw.mr_key), key);
        qrnic_st32(W(bind_mw.access), nsge < FZ_RAW ? (nsge & 0x0e) |
                   (nsge & 0x10 ? QRNIC_ACCESS_FLUSH_GLOBAL : 0) :
                   (uint32_t)nsge << 4 | nsge);
        if (rslot < NH) {
            st.mr_iova[rslot] = addr;
        }
        break;
    case QRNIC_WR_REG_MR:
        np += roff & 0x4000 ? 1 : 0;
        list = scratch(np * 8);
        for (i = 0; i < np && i < 32; i++) {
            qrnic_st64(qf_ram(&dev, list + i * 8ull, 8),
                       QF_RAM_BASE + (uint64_t)(DATA_PAGE0 + (roff + i) %
                                                (RAM_PAGES - DATA_PAGE0)) *
                       4096);
        }
        qrnic_st32(W(reg_mr.key), new_key);
        qrnic_st32(W(reg_mr.access), nsge < FZ_RAW ? nsge & 0x0f : nsge);
        qrnic_st64(W(reg_mr.iova), iova);
        qrnic_st64(W(reg_mr.length), len);
        qrnic_st64(W(reg_mr.pbl_addr), roff & 0x2000 ? 0x1000 : list);
        qrnic_st32(W(reg_mr.npages), np);
        *W(reg_mr.page_shift) = 12;
        if (rslot < NH) {
            st.mr_iova[rslot] = iova;
        }
        break;
    default:
        w[10] = nsge < FZ_RAW ? nsge % 2 : nsge;
        qrnic_st32(w + 16, len);
        qrnic_st64(w + 64, addr);
        qrnic_st32(w + 72, len);
        qrnic_st32(w + 76, key);
        break;
    }
}
#undef W

/*
 * A send or receive WQE written into queue memory (SQ stride 128, RQ 32),
 * maybe rung: one SGE of an MR handle, the remote side another's.  With
 * ctl bit 3 a send WQE carries a UD address vector instead, from roff:
 * bits 0-1 the destination (the QP itself, QP 1, a QP handle (bits 8-10),
 * any QPN), 2-3 the Q_Key (the sender's own, the remote key, QP 1's, 0),
 * 4 an IPv6 GID (GID 1), 5-6 the source GID index, 7 a MAC not ours, 14 a
 * flow label wider than 20 bits.  With ctl bit 4 it is a receive WQE for
 * an SRQ (stride 32) whose handle the QP handle's bytes pick, rung on
 * DB_SRQ.  With ctl bit 6 a send WQE is one of key_wqe(); with ctl bit
 * 7 (and none of 0, 2, 3, 4, 6) it names an XRC SRQ, xrc_srqn_pick().
 */
static void op_wqe(struct fz *f)
{
    uint8_t ctl = fz_u8(f), page = fz_u8(f), slot = fz_u8(f);
    bool srq = ctl & 0x10;
    uint32_t qpn = f_handle(f, srq ? H_SRQ : H_QP), mslot;
    uint8_t opcode = fz_u8(f), flags = fz_u8(f), nsge = fz_u8(f);
    uint32_t key = handle(f, H_KEY, &mslot), rslot;
    uint16_t off = fz_u16(f), len = fz_u16(f), roff = fz_u16(f);
    uint32_t rkey = handle(f, H_KEY, &rslot);
    uint64_t riova = rslot < NH ? st.mr_iova[rslot] : 0;
    bool rq = (ctl & 1) || srq;
    uint32_t stride = rq ? 32 : 128;
    uint8_t *w = dev.qmem + (uint64_t)(page % QMEM_PAGES) * 4096 +
                 (uint64_t)slot * stride % 4096;
    uint64_t iova = mslot < NH ? st.mr_iova[mslot] : 0;

    memset(w, 0, stride);
    if (ctl & 4) {
        fz_bytes(f, w, stride);
    } else if (!rq && (ctl & 0x40)) {
        key_wqe(w, opcode, flags, nsge, iova + off, len, key, rkey, rslot,
                roff);
        qrnic_st64(w, 0x6600u + slot);
    } else if (!rq && (ctl & 8)) {
        static const uint32_t qkeys[4] = { QRNIC_UD_QKEY_USE_QP, 0,
                                           0x80010000u, 0 };
        struct qrnic_ud_av av;

        memset(&av, 0, sizeof(av));
        av.dest_qpn = roff % 4 == 0 ? qpn : roff % 4 == 1 ? QRNIC_GSI_QPN :
                      roff % 4 == 2 ? st.h[H_QP][(roff >> 8) % NH] :
                      (uint32_t)roff << 8 | 0xff;
        av.qkey = (roff >> 2) % 4 == 1 ? rkey : qkeys[(roff >> 2) % 4];
        memcpy(av.dgid, my_gid, 16);
        if (roff & 0x10) {
            av.dgid[0] = 0xfe;
            av.dgid[1] = 0x80;
        }
        av.sgid_index = (uint8_t)((roff >> 5) & 3);
        memcpy(av.dmac, my_mac, 6);
        av.dmac[5] ^= (uint8_t)(roff & 0x80 ? 1 : 0);
        av.flow_label = roff & 0x4000 ? 0x100000u : (roff >> 8) & 0x3f;
        av.hop_limit = 64;
        if (ctl & 0x20) {           /* to a group: 239.1.x.x or ff0e::x */
            av.dest_qpn = QRNIC_MCAST_QPN;
            memset(av.dgid, 0, 16);
            if (roff & 0x10) {
                av.dgid[0] = 0xff;
                av.dgid[1] = 0x0e;
                av.dgid[15] = (uint8_t)(roff >> 8);
                av.dmac[0] = av.dmac[1] = 0x33;
                memcpy(av.dmac + 2, av.dgid + 12, 4);
            } else {
                av.dgid[10] = av.dgid[11] = 0xff;
                av.dgid[12] = 239;
                av.dgid[13] = 1;
                av.dgid[14] = av.dgid[15] = (uint8_t)(roff >> 8);
                av.dmac[0] = 0x01;
                av.dmac[1] = 0x00;
                av.dmac[2] = 0x5e;
                av.dmac[3] = 1;
                av.dmac[4] = av.dmac[5] = (uint8_t)(roff >> 8);
            }
            av.dmac[5] ^= (uint8_t)(roff & 0x80 ? 1 : 0);
        }
        qrnic_st64(w, 0x5500u + slot);
        w[8] = opcode < FZ_RAW ? opcode % 7 : opcode;
        w[9] = flags < FZ_RAW ? flags & 0x0f : flags;
        w[10] = nsge < FZ_RAW ? nsge % 2 : nsge;
        qrnic_st32(w + 12, 0xa1b2c3d4);
        qrnic_st32(w + 16, len);
        memcpy(w + offsetof(struct qrnic_sq_wqe, ud), &av, sizeof(av));
        qrnic_st64(w + 64, iova + off);
        qrnic_st32(w + 72, len);
        qrnic_st32(w + 76, key);
    } else if (rq) {
        qrnic_st64(w, 0x7700u + slot);
        w[8] = nsge < FZ_RAW ? nsge % 2 : nsge;
        qrnic_st64(w + 16, iova + off);
        qrnic_st32(w + 24, len);
        qrnic_st32(w + 28, key);
    } else {
        qrnic_st64(w, 0x5500u + slot);
        w[8] = opcode >= FZ_RAW ? opcode : opcode >= OPSEL_FLUSH ?
               (opcode & 1 ? QRNIC_WR_ATOMIC_WRITE : QRNIC_WR_FLUSH) :
               opcode % 7;
        w[9] = flags < FZ_RAW ? flags & 0x0b : flags;
        w[10] = nsge < FZ_RAW ? nsge % 2 : nsge;
        qrnic_st32(w + 16, len);
        qrnic_st64(w + 24, riova + roff);
        qrnic_st32(w + 32, rkey);
        if (w[8] == QRNIC_WR_FLUSH) {   /* type, level from the flags */
            w[36] = (flags >> 4) & 3;
            w[37] = (flags >> 6) & 1;
        }
        qrnic_st64(w + 40, roff);
        qrnic_st64(w + 48, off);
        qrnic_st64(w + 64, iova + off);
        qrnic_st32(w + 72, w[8] >= QRNIC_WR_ATOMIC_CMP_AND_SWP ? 8 : len);
        qrnic_st32(w + 76, key);
        if (ctl & 0x80) {           /* XRC_INI: the target's SRQ */
            qrnic_st32(w + offsetof(struct qrnic_sq_wqe, xrc_srqn),
                       xrc_srqn_pick(flags, roff));
        }
    }
    if (ctl & 2) {
        qf_doorbell(&dev, 0, srq ? QRNIC_DB_SRQ : rq ? QRNIC_DB_RQ :
                    QRNIC_DB_SQ, qpn | (uint64_t)(uint16_t)(slot + 1) << 32);
    }
}

static void op_misc(struct fz *f)
{
    uint8_t sel = fz_u8(f), v = fz_u8(f);
    unsigned int i;

    switch (sel % 5) {
    case 4:                         /* a user context's limit (0: default) */
        dev.e.ctx_max[v % QRNIC_CTX_RES_COUNT] = v / QRNIC_CTX_RES_COUNT;
        break;
    case 0:                         /* a cable from our port to itself */
        dev.hub_peer = v & 1 ? &dev : NULL;
        break;
    case 1:
        dev.hostile_rng = v ? v : 0;
        dev.hostile_pct = v % 40;
        break;
    case 2:
        for (i = 0; i < NREGS; i++) {
            qf_reg_read(&dev, regs[i]);
        }
        break;
    case 3:                         /* time jumps to the deadline */
        if (dev.deadline != UINT64_MAX) {
            clock_ns = dev.deadline;
        }
        qf_run_timer(&dev);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = { data, size };
    unsigned int ops = 0;
    uint8_t flags, a, raw[QRNIC_CMD_SIZE];

    memset(&st, 0, sizeof(st));
    clock_ns = 1000000;
    qf_init(&dev, RAM_BYTES, QMEM_BYTES, DB_PAGES, my_mac, &clock_ns);
    flags = fz_u8(&f);
    if (!(flags & F_RAW)) {
        bring_up();
    }
    qf_set_link(&dev, !(flags & F_LINK_DOWN));
    dev.hub_peer = flags & F_LOOP ? &dev : NULL;
    if (flags & F_HOSTILE) {
        dev.hostile_rng = 0x9e3779b9;
        dev.hostile_pct = 10;
    }
    fz_faults(&dev.e, flags >> 4);
    while (fz_more(&f) && ops++ < MAX_OPS) {
        switch (fz_u8(&f) % OP_COUNT) {
        case OP_ADMIN_RAW:
            a = fz_u8(&f);
            fz_bytes(&f, raw, sizeof(raw));
            admin(raw, a);
            break;
        case OP_REG:
            op_reg(&f);
            break;
        case OP_DOORBELL:
            op_doorbell(&f);
            break;
        case OP_MMIO:
            op_mmio(&f);
            break;
        case OP_BH:
            qf_settle(&dev, fz_u8(&f) % 64 + 1u);
            collect();
            break;
        case OP_TIMER:
            a = fz_u8(&f);
            clock_ns += (uint64_t)(a + 1) * (a + 1) * 10 * US;
            qf_run_timer(&dev);
            break;
        case OP_LINK:
            qf_set_link(&dev, fz_u8(&f) & 1);
            break;
        case OP_RESET:
            op_reset(&f);
            break;
        case OP_ETH:
            op_eth(&f);
            break;
        case OP_FRAME:
            op_frame(&f);
            break;
        case OP_WQE:
            op_wqe(&f);
            break;
        case OP_MISC:
            op_misc(&f);
            break;
        default:
            op_admin(&f);
            break;
        }
    }
    qf_settle(&dev, 64);
    qf_check(&dev, "fuzz_mmio end");
    qf_fini(&dev);
    return 0;
}

/* ---- seeds --------------------------------------------------------------- */

/* Field encoders: each writes what the decoder above reads. */
#define GA_PAGE(p)      0, (uint16_t)((p) - DATA_PAGE0)    /* RAM page p */
#define GA_END(back)    3, (uint16_t)(back)               /* RAM end - back */
#define GA_REG(i)       4, (uint16_t)(i)                  /* regs[i] */
#define GA_BAR0(off)    4, (uint16_t)(0x8000 | (off))
#define GA_DB(pg, q)    5, (uint16_t)((pg) | (q) << 8)    /* doorbell q */
#define GA_QMEM(pg)     6, (uint16_t)(pg)
#define GA_NONE         7, 0x10

static void ga(struct fzw *w, uint8_t sel, uint16_t v)
{
    fzw_u8(w, sel);
    fzw_u16(w, v);
}

/* The i-th handle of its kind; HD_RAW(v): the value itself. */
static void hd(struct fzw *w, uint8_t i)
{
    fzw_u8(w, i);
    fzw_u16(w, 0);
}

static void hd_raw(struct fzw *w, uint32_t v)
{
    fzw_u8(w, (uint8_t)(FZ_RAW | ((v >> 20) & 0x0f)));
    fzw_u16(w, (uint16_t)v);
}

static void uctx(struct fzw *w, int i)   /* -1: the kernel */
{
    fzw_u8(w, i >= 0);
    hd(w, (uint8_t)(i >= 0 ? i : 0));
}

/* levels, shift (0: 12, 2: 13, 3: 21), count (0 right, 2 one more, 3 one
 * less), where (list in scratch, or the CONTIG address), page spread. */
static void pb(struct fzw *w, uint8_t levels, uint8_t shift, uint8_t count,
               uint8_t asel, uint16_t av, uint8_t base, uint8_t stride)
{
    fzw_u8(w, levels);
    fzw_u8(w, shift);
    fzw_u8(w, count);
    ga(w, asel, av);
    fzw_u8(w, base);
    fzw_u8(w, stride);
}

static void cmd(struct fzw *w, uint8_t opcode, uint8_t ctl)
{
    fzw_u8(w, OP_ADMIN);
    fzw_u8(w, (uint8_t)(opcode - 1));
    fzw_u8(w, ctl);
}

static void c_query(struct fzw *w, uint8_t opcode, uint8_t sel, uint16_t v)
{
    cmd(w, opcode, 0);
    ga(w, sel, v);
}

static void c_eq(struct fzw *w, uint8_t sel, uint16_t v, uint8_t log,
                 uint8_t flags, uint8_t vector)
{
    cmd(w, QRNIC_CMD_CREATE_EQ, 0);
    ga(w, sel, v);
    fzw_u8(w, log);
    fzw_u8(w, flags);
    fzw_u8(w, vector);
}

static void c_handle(struct fzw *w, uint8_t opcode, uint8_t i)
{
    cmd(w, opcode, 0);
    hd(w, i);
}

static void c_u8(struct fzw *w, uint8_t opcode, uint8_t v)
{
    cmd(w, opcode, 0);
    fzw_u8(w, v);
}

static void c_gid(struct fzw *w, uint8_t index, uint8_t type, uint8_t gid)
{
    cmd(w, QRNIC_CMD_ADD_GID, 0);
    fzw_u8(w, index);
    fzw_u8(w, type);
    fzw_u8(w, gid);
}

static void c_pd(struct fzw *w, int uc)
{
    cmd(w, QRNIC_CMD_ALLOC_PD, 0);
    uctx(w, uc);
}

/* A CQ of 1 << log entries in RAM pages from page, CONTIG. */
static void c_cq(struct fzw *w, uint8_t log, uint8_t page, int uc, uint8_t eq)
{
    cmd(w, QRNIC_CMD_CREATE_CQ, 0);
    fzw_u8(w, log);
    pb(w, QRNIC_PBL_CONTIG, 0, 0, GA_PAGE(page), 0, 1);
    uctx(w, uc);
    hd(w, eq);
}

static void c_cq_pbl(struct fzw *w, uint8_t log, const uint8_t pbl8[8],
                     int uc, uint8_t eq)
{
    cmd(w, QRNIC_CMD_CREATE_CQ, 0);
    fzw_u8(w, log);
    fzw_bytes(w, pbl8, 8);
    uctx(w, uc);
    hd(w, eq);
}

/* An MR at iova 0x7f0000000000 + isel MiB + ioff * 8 of len16 << lshift. */
/* REG_MR's access byte: bits 0-6 as they are, bit 7 FLUSH_GLOBAL. */
#define MR_ACCESS_ALL   ((uint8_t)(0x80 | (QRNIC_ACCESS_ALL & 0x7f)))

static void c_mr(struct fzw *w, uint8_t isel, uint16_t ioff, uint16_t len16,
                 uint8_t lshift, uint8_t levels, uint8_t pd, uint8_t access)
{
    cmd(w, QRNIC_CMD_REG_MR, 0);
    fzw_u8(w, isel);
    fzw_u16(w, ioff);
    fzw_u16(w, len16);
    fzw_u8(w, lshift);
    pb(w, levels, 0, 0, GA_PAGE(100), 40, 1);
    hd(w, pd);
    fzw_u8(w, access);
}

/* REREG_MR of MR handle mr, the new registration as c_mr() gives one. */
static void c_rereg(struct fzw *w, uint8_t mr, uint8_t isel, uint16_t ioff,
                    uint16_t len16, uint8_t lshift, uint8_t levels, uint8_t pd,
                    uint8_t access)
{
    cmd(w, QRNIC_CMD_REREG_MR, 0);
    fzw_u8(w, isel);
    fzw_u16(w, ioff);
    fzw_u16(w, len16);
    fzw_u8(w, lshift);
    pb(w, levels, 0, 0, GA_PAGE(100), 40, 1);
    hd(w, pd);
    fzw_u8(w, access);
    hd(w, mr);
}

/* REG_MR with a page list spelled out (8 bytes, see pb()). */
static void c_mr2(struct fzw *w, uint8_t isel, uint16_t ioff, uint16_t len16,
                  uint8_t lshift, const uint8_t pbl8[8], uint8_t pd,
                  uint8_t access)
{
    cmd(w, QRNIC_CMD_REG_MR, 0);
    fzw_u8(w, isel);
    fzw_u16(w, ioff);
    fzw_u16(w, len16);
    fzw_u8(w, lshift);
    fzw_bytes(w, pbl8, 8);
    hd(w, pd);
    fzw_u8(w, access);
}

struct qpargs {
    uint8_t pd, scq, rcq;
    int uc;                     /* 0: the kernel, n: user context n - 1 */
    uint8_t sq_page, rq_page, type, flags, lsq, lss, lrq, lrs;
};

/* Strides are encoded: lss 6 + n % 4, lrs 4 + n % 5. */
static void c_qp(struct fzw *w, struct qpargs a)
{
    cmd(w, QRNIC_CMD_CREATE_QP, 0);
    hd(w, a.pd);
    hd(w, a.scq);
    hd(w, a.rcq);
    uctx(w, a.uc - 1);
    fzw_u8(w, a.sq_page);
    fzw_u8(w, a.rq_page);
    fzw_u8(w, a.type);
    fzw_u8(w, a.flags);
    fzw_u8(w, a.lsq);
    fzw_u8(w, a.lss);
    fzw_u8(w, a.lrq);
    fzw_u8(w, a.lrs);
}

struct attr {
    uint8_t state, cur, mtu, timeout, retry, rnr, min_rnr, max_rd, max_dest;
    uint8_t sgid, access, dqp;
    uint16_t psn;
    uint8_t dgid, dmac;
};

/* dqp: the index of the destination QP's handle, or NO_QP. */
#define NO_QP 0xff

static void c_modify_attr(struct fzw *w, struct attr a)
{
    ga(w, 0, 0);                    /* attributes in scratch */
    fzw_u8(w, a.state);
    fzw_u8(w, a.cur);
    fzw_u8(w, a.mtu);
    fzw_u8(w, a.timeout);
    fzw_u8(w, a.retry);
    fzw_u8(w, a.rnr);
    fzw_u8(w, a.min_rnr);
    fzw_u8(w, a.max_rd);
    fzw_u8(w, a.max_dest);
    fzw_u8(w, a.sgid);
    fzw_u8(w, a.access);
    if (a.dqp == NO_QP) {
        hd_raw(w, 0x3ff);
    } else {
        hd(w, a.dqp);
    }
    fzw_u16(w, a.psn);
    fzw_u8(w, a.dgid);
    fzw_u8(w, a.dmac);
}

static void c_modify(struct fzw *w, uint8_t qp, uint8_t mask, struct attr a)
{
    cmd(w, QRNIC_CMD_MODIFY_QP, 0);
    hd(w, qp);
    fzw_u8(w, mask);
    c_modify_attr(w, a);
}

/* MODIFY_QP with a mask spelled out. */
static void c_modify_raw(struct fzw *w, uint8_t qp, uint32_t mask,
                         struct attr a)
{
    cmd(w, QRNIC_CMD_MODIFY_QP, 0);
    hd(w, qp);
    fzw_u8(w, FZ_RAW);
    fzw_u32(w, mask);
    c_modify_attr(w, a);
}

/* Attributes for a UD or GSI QP: the state, the Q_Key (see modify_attr),
 * PKEY_INDEX 0 and PORT 1. */
static struct attr ud_attr(uint8_t state, uint32_t qkey)
{
    struct attr a;

    memset(&a, 0, sizeof(a));
    a.state = state;
    a.timeout = (uint8_t)qkey;
    a.retry = (uint8_t)(qkey >> 8);
    a.rnr = (uint8_t)(qkey >> 16);
    a.min_rnr = (uint8_t)(qkey >> 24);
    a.dqp = NO_QP;
    return a;
}

/* modify_qp masks[] indices for UD and GSI QPs */
#define MK_UD_INIT      11          /* STATE PKEY_INDEX PORT QKEY */
#define MK_GSI_INIT     12          /* STATE PKEY_INDEX QKEY (UD: to RTR) */
#define MK_RTS          13          /* STATE SQ_PSN */
#define MK_QKEY         14
#define MK_STATE_QKEY   10
#define MK_STATE        3
#define MK_SQD          4           /* STATE EN_SQD_ASYNC */

/* A UD (gsi false) or GSI QP made earlier to RTS with this Q_Key. */
static void ud_up(struct fzw *w, uint8_t qp, bool gsi, uint32_t qkey)
{
    c_modify(w, qp, gsi ? MK_GSI_INIT : MK_UD_INIT,
             ud_attr(QRNIC_QPS_INIT, qkey));
    c_modify(w, qp, MK_STATE, ud_attr(QRNIC_QPS_RTR, qkey));
    c_modify(w, qp, MK_RTS, ud_attr(QRNIC_QPS_RTS, qkey));
}

static void c_query_qp(struct fzw *w, uint8_t qp, uint8_t sel, uint16_t v)
{
    cmd(w, QRNIC_CMD_QUERY_QP, 0);
    hd(w, qp);
    ga(w, sel, v);
}

static void c_eth(struct fzw *w, uint8_t txp, uint8_t rxp, uint8_t txlog,
                  uint8_t rxlog, uint8_t vector, uint8_t rsvd)
{
    cmd(w, QRNIC_CMD_ETH_SETUP, 0);
    ga(w, GA_PAGE(txp));
    ga(w, GA_PAGE(rxp));
    fzw_u8(w, txlog);
    fzw_u8(w, rxlog);
    fzw_u8(w, vector);
    fzw_u8(w, rsvd);
}

static void o_reg(struct fzw *w, uint8_t reg_index, uint8_t vsel,
                  uint32_t raw)
{
    fzw_u8(w, OP_REG);
    fzw_u8(w, reg_index);
    fzw_u8(w, vsel);
    fzw_u16(w, 0);
    fzw_u32(w, raw);
}

/*
 * Doorbell: page, offset index (offs[]), flags, index (its high 16 bits
 * where the doorbell has them), handle.
 */
static void o_db(struct fzw *w, uint8_t page, uint8_t off, uint8_t flags,
                 uint32_t idx, uint8_t h)
{
    fzw_u8(w, OP_DOORBELL);
    fzw_u8(w, page);
    fzw_u8(w, off);
    fzw_u8(w, flags);
    fzw_u16(w, (uint16_t)idx);
    fzw_u16(w, (uint16_t)(idx >> 16));
    hd(w, h);
}

static void o_mmio(struct fzw *w, uint8_t sel, uint16_t off, uint64_t val)
{
    fzw_u8(w, OP_MMIO);
    fzw_u8(w, sel);
    fzw_u16(w, off);
    fzw_u64(w, val);
}

static void o_1(struct fzw *w, uint8_t op, uint8_t v)
{
    fzw_u8(w, op);
    fzw_u8(w, v);
}

static void o_2(struct fzw *w, uint8_t op, uint8_t a, uint8_t b)
{
    fzw_u8(w, op);
    fzw_u8(w, a);
    fzw_u8(w, b);
}

#define BH(w)           o_1(w, OP_BH, 63)
#define TIMER(w, a)     o_1(w, OP_TIMER, a)
#define LINK(w, up)     o_1(w, OP_LINK, up)
#define RESET(w, k)     o_1(w, OP_RESET, k)
#define MISC(w, s, v)   o_2(w, OP_MISC, s, v)

static void o_eth(struct fzw *w, uint8_t ctl, uint8_t idx, uint8_t bsel,
                  uint16_t bv, uint16_t len, uint8_t kind, uint8_t fill)
{
    fzw_u8(w, OP_ETH);
    fzw_u8(w, ctl);
    fzw_u8(w, idx);
    ga(w, bsel, bv);
    fzw_u16(w, len);
    fzw_u8(w, kind);
    fzw_u8(w, fill);
}

static void o_frame(struct fzw *w, uint8_t kind, uint16_t len, uint8_t fill)
{
    fzw_u8(w, OP_FRAME);
    fzw_u8(w, kind);
    fzw_u16(w, len);
    fzw_u8(w, fill);
}

/* A WQE in queue memory page/slot for QP qp, local MR mr, remote rmr. */
static void o_wqe2(struct fzw *w, uint8_t ctl, uint8_t page, uint8_t slot,
                   uint8_t qp, uint8_t opcode, uint8_t flags, uint8_t nsge,
                   uint8_t mr, uint16_t off, uint16_t len, uint16_t roff,
                   uint8_t rmr)
{
    fzw_u8(w, OP_WQE);
    fzw_u8(w, ctl);
    fzw_u8(w, page);
    fzw_u8(w, slot);
    hd(w, qp);
    fzw_u8(w, opcode);
    fzw_u8(w, flags);
    fzw_u8(w, nsge);
    hd(w, mr);
    fzw_u16(w, off);
    fzw_u16(w, len);
    fzw_u16(w, roff);
    hd(w, rmr);
}

static void o_wqe(struct fzw *w, uint8_t ctl, uint8_t page, uint8_t slot,
                  uint8_t qp, uint8_t opcode, uint8_t flags, uint8_t nsge,
                  uint8_t mr, uint16_t off, uint16_t len, uint16_t roff)
{
    o_wqe2(w, ctl, page, slot, qp, opcode, flags, nsge, mr, off, len, roff,
           mr);
}

/* Key WQEs (key_wqe()): BIND_MW, REG_MR, LOCAL_INV, SEND_WITH_INV. */
#define K_BIND          0
#define K_REG           1
#define K_INV           2
#define K_SEND_INV      3
#define K_RING          0x42            /* ctl: a key WQE, rung */

/*
 * A key WQE in SQ page 0 slot slot of QP 0: key the lkey handle (BIND:
 * the region; SEND_WITH_INV: the SGE's), rmr the rkey handle (the window,
 * the fast-registration region, the key to invalidate); nsge the rights
 * (BIND, REG_MR); roff as key_wqe() says.
 */
static void o_kwqe(struct fzw *w, uint8_t slot, uint8_t op, uint8_t nsge,
                   uint8_t mr, uint16_t off, uint16_t len, uint16_t roff,
                   uint8_t rmr)
{
    o_wqe2(w, K_RING, 0, slot, 0, op, 1, nsge, mr, off, len, roff, rmr);
}

static void c_alloc_mw(struct fzw *w, uint8_t pd, uint8_t tsel)
{
    cmd(w, QRNIC_CMD_ALLOC_MW, 0);
    hd(w, pd);
    fzw_u8(w, tsel);
}

static void c_alloc_mr(struct fzw *w, uint8_t pd, uint16_t max_pages)
{
    cmd(w, QRNIC_CMD_ALLOC_MR, 0);
    hd(w, pd);
    fzw_u16(w, max_pages);
}

/* The usual objects: async EQ 0, completion EQ 1, GID 0, PD 0, CQ 0, MR 0. */
static void objects(struct fzw *w)
{
    c_eq(w, GA_PAGE(20), 6, QRNIC_EQ_ASYNC, 0);
    c_eq(w, GA_PAGE(21), 8, 0, 2);
    c_gid(w, 0, 0, 0);
    c_pd(w, -1);
    c_cq(w, 6, 24, -1, 1);
    c_mr(w, 1, 3, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
}

/* QP qp (made earlier) to RTS towards dqp, from GID sgid to dgid (sel). */
static void connect(struct fzw *w, uint8_t qp, uint8_t dqp, uint8_t retry,
                    uint8_t mtu, uint8_t sgid, uint8_t dgid)
{
    struct attr a;

    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_INIT;
    a.access = QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ |
               QRNIC_ACCESS_REMOTE_ATOMIC | 0x80;     /* FLUSH_GLOBAL */
    c_modify(w, qp, 0, a);
    a.state = QRNIC_QPS_RTR;
    a.mtu = mtu;
    a.max_dest = 4;
    a.min_rnr = 1;
    a.dqp = dqp;
    a.psn = 0x1234;
    a.sgid = sgid;
    a.dgid = dgid;
    c_modify(w, qp, 1, a);
    a.state = QRNIC_QPS_RTS;
    a.timeout = 8;
    a.retry = retry;
    a.rnr = 2;
    a.max_rd = 4;
    c_modify(w, qp, 2, a);
}

/*
 * CREATE_SRQ: PD handle, owner (-1: the kernel, else a context handle),
 * queue memory page, log depth, stride (4 + n), limit (see srq_limit),
 * reserved field (FZ_RAW and above: not 0).
 */
static void c_srq(struct fzw *w, uint8_t pd, int uc, uint8_t page,
                  uint8_t log, uint8_t ls, uint8_t lsel, uint16_t lv,
                  uint8_t rsvd)
{
    cmd(w, QRNIC_CMD_CREATE_SRQ, 0);
    hd(w, pd);
    uctx(w, uc);
    fzw_u8(w, page);
    fzw_u8(w, log);
    fzw_u8(w, ls);
    fzw_u8(w, lsel);
    fzw_u16(w, lv);
    fzw_u8(w, rsvd);
}

/*
 * MODIFY_SRQ of the srq-th SRQ handle: the limit as srq_limit() says; msel
 * the mask (0 LIMIT, 1 RESIZE, 2 both, 3 none, raw: unknown bits), the
 * new ring at queue memory page page, 1 << log WQEs (0xe0 | log: a
 * reserved byte set too).
 */
static void c_srq_mod(struct fzw *w, uint8_t srq, uint8_t msel, uint8_t page,
                      uint8_t log, uint8_t lsel, uint16_t lv)
{
    cmd(w, QRNIC_CMD_MODIFY_SRQ, 0);
    hd(w, srq);
    fzw_u8(w, lsel);
    fzw_u16(w, lv);
    fzw_u8(w, msel);
    fzw_u8(w, page);
    fzw_u8(w, log);
}

/* MODIFY_SRQ LIMIT of the srq-th SRQ handle. */
static void c_srq_limit(struct fzw *w, uint8_t srq, uint8_t lsel, uint16_t lv)
{
    c_srq_mod(w, srq, 0, 0, 0, lsel, lv);
}

#define MOD_RESIZE      1
#define MOD_BOTH        2
#define MOD_NONE        3

/* srq_limit() selectors */
#define LIM_NONE        0
#define LIM_IN          1           /* 1 + v % (depth - 1) */
#define LIM_MAX         2           /* depth - 1 */
#define LIM_DEPTH       3           /* depth: refused */
#define LIM_RAW         FZ_RAW      /* v << 16 | v */
/* A CREATE_QP type selector: type (0 RC, 1 UD, 2 GSI, 3 UC), SRQ mode
 * (SQ_*) and which SRQ handle (or srqns[] entry). */
#define TSRQ(t, mode, k) ((uint8_t)((t) | (mode) << 2 | (k) << 4))
#define DB_SRQ_OFF      6           /* op_doorbell offs[] index */
/* op_wqe ctl: a receive WQE for an SRQ, rung on DB_SRQ */
#define WQE_SRQ_RING    0x13

/* QP 0 (SQ page 0, RQ page 1) in RTS, connected to itself (dqp). */
static void self_qp(struct fzw *w, uint8_t dqp, uint8_t retry, uint8_t mtu)
{
    c_qp(w, (struct qpargs){ .sq_page = 0, .rq_page = 1, .lsq = 4,
                             .lss = 1, .lrq = 4, .lrs = 1 });
    connect(w, 0, dqp, retry, mtu, 0, 0);
}

/* ATTACH_MCAST/DETACH_MCAST: a QP handle (or raw), rsvd selector, a GID
 * (mcast_gid()'s sel and v). */
#define MG_V4(x)        (uint8_t)(0 | (x) << 3)     /* 239.x.v.v */
#define MG_V6(x)        (uint8_t)(2 | (x) << 3)     /* ff0x::v */
#define MG_OURS         4
#define MG_LINKLOCAL    5
#define MG_223          6
#define MG_240          (6 | 8)
#define MG_PREFIX       7

static void c_mcast(struct fzw *w, bool attach, int qp, uint8_t rsvd,
                    uint8_t gsel, uint8_t v)
{
    cmd(w, attach ? QRNIC_CMD_ATTACH_MCAST : QRNIC_CMD_DETACH_MCAST, 0);
    if (qp >= 0) {
        hd(w, (uint8_t)qp);
    } else {
        hd_raw(w, (uint32_t)-qp);
    }
    fzw_u8(w, rsvd);
    fzw_u8(w, gsel);
    fzw_u8(w, v);
}

/* RESIZE_CQ of CQ handle cq to 1 << log CQEs CONTIG at RAM page page
 * (count: pb()'s), rsvd selector, the record's consumer index (rsel:
 * 0 the device's, 1 its producer index, 2 v % 64 before it, 3 v). */
static void c_resize(struct fzw *w, uint8_t cq, uint8_t log, uint8_t levels,
                     uint8_t count, uint8_t asel, uint16_t av, uint8_t rsvd,
                     uint8_t rsel, uint16_t v)
{
    cmd(w, QRNIC_CMD_RESIZE_CQ, 0);
    hd(w, cq);
    fzw_u8(w, log);
    pb(w, levels, 0, count, asel, av, 0, 1);
    fzw_u8(w, rsvd);
    fzw_u8(w, rsel);
    fzw_u16(w, v);
}

/* QP 0 (connected to itself) through RESET to RTS again. */
static void self_qp_again(struct fzw *w)
{
    struct attr a;

    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_RESET;
    c_modify(w, 0, 3, a);
    connect(w, 0, 0, 3, 3, 0, 0);
}

/* Memory windows and fast registration (key WQEs: key_wqe()). */
static void keys_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /* The commands: ALLOC_MW of each type (two refused) and of no PD,
     * ALLOC_MR of 512, 513, 0 pages and in a user PD, DEALLOC_PD while
     * they use it, DEALLOC_MW and DEREG_MR of each other's keys, by
     * index, twice; QUERY_RES and QUERY_DEVICE. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);                                    /* MR handle 0 */
    c_alloc_mw(&w, 0, 0);                           /* 1: type 1 */
    c_alloc_mw(&w, 0, 1);                           /* 2: type 2 */
    c_alloc_mw(&w, 0, 2);
    c_alloc_mw(&w, 0, 3);
    c_alloc_mw(&w, 0, FZ_RAW | 2);
    cmd(&w, QRNIC_CMD_ALLOC_MW, 0);
    hd_raw(&w, 0x3ff);
    fzw_u8(&w, 0);
    c_alloc_mr(&w, 0, 512);                         /* 3 */
    c_alloc_mr(&w, 0, 513);
    c_alloc_mr(&w, 0, 0);
    c_alloc_mr(&w, 0, 0xffff);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);                                    /* PD 1: the user's */
    c_alloc_mr(&w, 1, 4);
    c_alloc_mw(&w, 1, 1);                           /* 4: type 2, user PD */
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    c_query(&w, QRNIC_CMD_QUERY_DEVICE, GA_PAGE(30));
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 0);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 1);
    c_handle(&w, QRNIC_CMD_DEALLOC_MW, 0);          /* a REG_MR key */
    c_handle(&w, QRNIC_CMD_DEREG_MR, 1);            /* a window's */
    c_handle(&w, QRNIC_CMD_DEALLOC_MW, 1);
    c_handle(&w, QRNIC_CMD_DEALLOC_MW, 1);
    c_handle(&w, QRNIC_CMD_DEREG_MR, 3);
    c_handle(&w, QRNIC_CMD_DEREG_MR, 3);
    c_handle(&w, QRNIC_CMD_DEALLOC_MW, 4);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 1);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("keys-commands", &w);

    /* Windows on QP 0 connected to itself (and over a cable): type 1 and
     * type 2 bound to a region with MW_BIND, WRITE, READ and an atomic
     * through them, SEND_WITH_INV of the type 2 one, a WRITE after it
     * (REM_ACCESS_ERR); binds out of the region, of a bound type 2 window,
     * without the region's local write, LOCAL_INV of a type 1 window;
     * DEREG_MR under a bound window, DEALLOC_MW, DESTROY_QP with a type 2
     * window bound. */
    for (i = 0; i < 2; i++) {
        w.n = 0;
        fzw_u8(&w, i ? F_LOOP : 0);
        objects(&w);                                /* MR 0 */
        c_mr(&w, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, 0, 0x1f);    /* MR 1 */
        c_mr(&w, 3, 0, 1, 12, QRNIC_PBL_LEVEL1, 0,
             QRNIC_ACCESS_MW_BIND | QRNIC_ACCESS_REMOTE_READ);  /* MR 2 */
        self_qp(&w, 0, 3, 3);
        c_alloc_mw(&w, 0, 0);                       /* MR handle 3: type 1 */
        c_alloc_mw(&w, 0, 1);                       /* 4: type 2 */
        o_kwqe(&w, 0, K_BIND, 0x06, 1, 0, 8192, 0, 3);
        o_kwqe(&w, 1, K_BIND, 0x0e, 1, 8192, 4096, 0, 4);
        o_wqe2(&w, 2, 0, 2, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 4000, 100,
               3);
        o_wqe2(&w, 2, 0, 3, 0, QRNIC_WR_RDMA_READ, 1, 1, 0, 30000, 2000, 0,
               4);
        o_wqe2(&w, 2, 0, 4, 0, QRNIC_WR_ATOMIC_FETCH_AND_ADD, 1, 1, 0, 64,
               8, 8, 4);
        BH(&w);
        o_wqe(&w, 3, 1, 0, 0, 0, 0, 1, 0, 8000, 4000, 0);
        o_kwqe(&w, 5, K_SEND_INV, 1, 0, 0, 100, 0, 4);
        BH(&w);
        o_wqe2(&w, 2, 0, 6, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 64, 0, 4);
        BH(&w);
        TIMER(&w, 60);
        BH(&w);
        self_qp_again(&w);
        o_kwqe(&w, 0, K_BIND, 0x06, 1, 65000, 4096, 0, 3);   /* past it */
        BH(&w);
        self_qp_again(&w);
        o_kwqe(&w, 0, K_BIND, 0x06, 1, 0, 64, 0, 4);         /* type 2 */
        o_kwqe(&w, 1, K_BIND, 0x06, 1, 0, 64, 0, 4);         /* bound */
        BH(&w);
        self_qp_again(&w);
        o_kwqe(&w, 0, K_BIND, 0x02, 2, 0, 64, 0, 3);  /* no local write */
        BH(&w);
        self_qp_again(&w);
        o_kwqe(&w, 0, K_BIND, 0x04, 2, 0, 64, 0x8000, 3);
        o_kwqe(&w, 1, K_INV, 0, 0, 0, 0, 0, 3);       /* type 1: refused */
        BH(&w);
        c_handle(&w, QRNIC_CMD_DEREG_MR, 1);
        c_handle(&w, QRNIC_CMD_DEALLOC_MW, 3);
        self_qp_again(&w);
        o_kwqe(&w, 0, K_INV, 0, 0, 0, 0, 0, 4);       /* type 2: unbinds */
        o_kwqe(&w, 1, K_BIND, 0x06, 1, 100, 200, 0, 4);
        o_kwqe(&w, 2, K_BIND, 0x06, 1, 0, 0, 0, 3);     /* type 1: unbinds */
        o_wqe2(&w, 2, 0, 3, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 200, 0, 4);
        o_kwqe(&w, 4, K_BIND, 0x06, 1, 0, 64, 0, 1);    /* not a window */
        BH(&w);
        c_handle(&w, QRNIC_CMD_DEREG_MR, 1);
        c_handle(&w, QRNIC_CMD_DESTROY_QP, 0);
        c_handle(&w, QRNIC_CMD_DEREG_MR, 1);
        c_handle(&w, QRNIC_CMD_DEALLOC_MW, 4);
        c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
        emit(i ? "keys-windows-cable" : "keys-windows", &w);
    }

    /* Fast registration on QP 0 connected to itself: REG_MR of 3 pages
     * at an iova inside a page, WRITE and READ through it, a SEND from
     * it, LOCAL_INV, registered again with a new key byte, REG_MR of a
     * valid region; a page list nowhere, a page too many, too many pages
     * for the region; SEND_WITH_INV of it and of a REG_MR key (the
     * receiver goes to ERR); DEREG_MR by index. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);                                    /* MR 0 */
    self_qp(&w, 0, 3, 3);
    c_alloc_mr(&w, 0, 4);                           /* MR handle 1 */
    c_alloc_mr(&w, 0, 1);                           /* 2 */
    o_kwqe(&w, 0, K_REG, 0x0f, 0, 0, 9000, 0x123, 1);
    o_wqe2(&w, 2, 0, 1, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 5000, 100, 1);
    o_wqe2(&w, 2, 0, 2, 0, QRNIC_WR_RDMA_READ, 1, 1, 0, 20000, 3000, 0, 1);
    o_wqe(&w, 3, 1, 0, 0, 0, 0, 1, 0, 8000, 4000, 0);
    o_wqe2(&w, 2, 0, 3, 0, QRNIC_WR_SEND, 1, 1, 1, 0, 2000, 0, 1);
    BH(&w);
    o_kwqe(&w, 4, K_INV, 0, 0, 0, 0, 0, 1);
    o_kwqe(&w, 5, K_REG, 0x07, 0, 0, 100, 0x8010, 1);
    o_kwqe(&w, 6, K_REG, 0x07, 0, 0, 100, 0x10, 1);  /* valid: refused */
    BH(&w);
    self_qp_again(&w);
    o_kwqe(&w, 0, K_REG, 0x0f, 0, 0, 100, 0x2000, 2);  /* list nowhere */
    BH(&w);
    self_qp_again(&w);
    o_kwqe(&w, 0, K_REG, 0x0f, 0, 0, 100, 0x4000, 2);  /* page too many */
    BH(&w);
    self_qp_again(&w);
    o_kwqe(&w, 0, K_REG, 0x0f, 0, 0, 6000, 0, 2);      /* 2 of 1 */
    BH(&w);
    self_qp_again(&w);
    o_kwqe(&w, 0, K_REG, 0x0f, 0, 0, 4000, 0x40, 2);
    o_wqe(&w, 3, 1, 0, 0, 0, 0, 1, 0, 8000, 4000, 0);
    o_kwqe(&w, 1, K_SEND_INV, 1, 0, 0, 64, 0, 2);
    o_wqe2(&w, 2, 0, 2, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 64, 0, 2);
    BH(&w);
    TIMER(&w, 60);
    BH(&w);
    self_qp_again(&w);
    o_wqe(&w, 3, 1, 0, 0, 0, 0, 1, 0, 8000, 4000, 0);
    o_kwqe(&w, 0, K_SEND_INV, 1, 0, 0, 64, 0, 0);    /* a REG_MR key */
    BH(&w);
    TIMER(&w, 60);
    BH(&w);
    c_handle(&w, QRNIC_CMD_DEREG_MR, 1);
    c_handle(&w, QRNIC_CMD_DEREG_MR, 2);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("keys-fastreg", &w);

    /* REREG_MR: MR 0 given a new range and page list, new rights (none
     * remote, all, FLUSH_GLOBAL), the user's PD and back, PHYS; refused:
     * a window's and a fast-registration region's key, a raw key, a PD
     * that does not exist, remote write without local write, too many
     * pages, pages not covering the range; a type 2 window bound to it
     * (BAD_STATE), unbound, then REREG_MR again; traffic through it. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);                                    /* MR handle 0 */
    c_alloc_mw(&w, 0, 1);                           /* 1: type 2 */
    c_alloc_mr(&w, 0, 8);                           /* 2 */
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);                                    /* PD 1: the user's */
    c_rereg(&w, 0, 2, 0x100, 9000, 0, QRNIC_PBL_LEVEL1, 0,
            QRNIC_ACCESS_LOCAL_WRITE);
    c_rereg(&w, 0, 2, 0x100, 9000, 0, QRNIC_PBL_LEVEL2, 0, MR_ACCESS_ALL);
    c_rereg(&w, 0, 3, 0, 40000, 4, QRNIC_PBL_LEVEL2, 1, 0x81);
    c_rereg(&w, 0, 4, 0, 1, 30, QRNIC_PBL_PHYS, 0, MR_ACCESS_ALL);
    c_rereg(&w, 0, 2, 0, 16, 12, QRNIC_PBL_CONTIG, 0, MR_ACCESS_ALL);
    c_rereg(&w, 1, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
    c_rereg(&w, 2, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
    c_rereg(&w, 0, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, FZ_RAW, MR_ACCESS_ALL);
    c_rereg(&w, 0, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, 0,
            QRNIC_ACCESS_REMOTE_WRITE);
    c_rereg(&w, 0, 2, 0, 0xffff, 16, QRNIC_PBL_LEVEL2, 0, MR_ACCESS_ALL);
    cmd(&w, QRNIC_CMD_REREG_MR, 0);                 /* pages too few */
    fzw_u8(&w, 2);
    fzw_u16(&w, 0);
    fzw_u16(&w, 16);
    fzw_u8(&w, 12);
    pb(&w, QRNIC_PBL_LEVEL1, 0, 3, GA_PAGE(100), 40, 1);
    hd(&w, 0);
    fzw_u8(&w, MR_ACCESS_ALL);
    hd(&w, 0);
    cmd(&w, QRNIC_CMD_REREG_MR, 0);                 /* a raw key */
    fzw_u8(&w, 2);
    fzw_u16(&w, 0);
    fzw_u16(&w, 16);
    fzw_u8(&w, 12);
    pb(&w, QRNIC_PBL_LEVEL1, 0, 0, GA_PAGE(100), 40, 1);
    hd(&w, 0);
    fzw_u8(&w, MR_ACCESS_ALL);
    hd_raw(&w, 0x1ff);
    self_qp(&w, 0, 3, 3);
    o_kwqe(&w, 0, K_BIND, 0x06, 0, 0, 4096, 0, 1);
    BH(&w);
    c_rereg(&w, 0, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
    o_kwqe(&w, 1, K_INV, 0, 0, 0, 0, 0, 1);
    BH(&w);
    c_rereg(&w, 0, 2, 0, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
    o_wqe2(&w, 2, 0, 2, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 4000, 100, 0);
    BH(&w);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    c_handle(&w, QRNIC_CMD_DEALLOC_MW, 1);
    c_handle(&w, QRNIC_CMD_DEREG_MR, 2);
    c_handle(&w, QRNIC_CMD_DEREG_MR, 0);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 1);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("keys-rereg", &w);
}

/* IPv6 GIDs: a QP connected to itself over IPv6 (flags: the input's). */
static void w_self_qp_ipv6(struct fzw *wr, uint8_t flags)
{
    wr->n = 0;
    fzw_u8(wr, flags);
    objects(wr);
    c_gid(wr, 1, 0, 2);
    c_qp(wr, (struct qpargs){ .sq_page = 0, .rq_page = 1, .lsq = 4,
                              .lss = 1, .lrq = 4, .lrs = 1 });
    connect(wr, 0, 0, 3, 3, 1, 2);
    o_wqe(wr, 3, 1, 0, 0, 0, 0, 1, 0, 8000, 4000, 0);
    o_wqe(wr, 2, 0, 0, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 3000, 0);
    o_wqe(wr, 2, 0, 1, 0, QRNIC_WR_RDMA_READ, 1, 1, 0, 30000, 3000, 0);
    o_wqe(wr, 2, 0, 2, 0, QRNIC_WR_ATOMIC_FETCH_AND_ADD, 1, 1, 0, 64, 8, 128);
    BH(wr);
    BH(wr);
}

#define CTX_LIMIT(w, kind, n) MISC(w, 4, (kind) + (n) * QRNIC_CTX_RES_COUNT)

/*
 * Two user contexts' commands interleaved, as their processes would issue
 * them at once, under small limits: each fills a kind or two, one
 * resizes its SRQ into the other's ring (refused), past its queue memory
 * (OVER_QUOTA), then into a page the other just gave back; regions,
 * windows, a rereg into the other's PD, and the limits back to their
 * defaults with everything still held.
 */
static void ctx_limits_seed(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);                   /* A */
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);                   /* B */
    CTX_LIMIT(&w, QRNIC_CTX_PD, 2);
    CTX_LIMIT(&w, QRNIC_CTX_CQ, 2);
    CTX_LIMIT(&w, QRNIC_CTX_QP, 1);
    CTX_LIMIT(&w, QRNIC_CTX_SRQ, 1);
    CTX_LIMIT(&w, QRNIC_CTX_MR, 1);
    CTX_LIMIT(&w, QRNIC_CTX_MW, 2);
    CTX_LIMIT(&w, QRNIC_CTX_QMEM_PAGES, 3);
    CTX_LIMIT(&w, QRNIC_CTX_MR_PAGES, 4);
    for (i = 0; i < 5; i++) {
        c_pd(&w, i & 1);                /* PDs 1 (A) .. 4 (B); A's 3rd */
    }
    c_cq(&w, 2, 25, 0, 1);                              /* CQ 1: A */
    c_cq(&w, 2, 26, 1, 1);                              /* CQ 2: B */
    c_cq(&w, 2, 27, 0, 1);                              /* CQ 3: A */
    c_cq(&w, 2, 28, 0, 1);                              /* A's 3rd */
    c_srq(&w, 1, 0, 0, 2, 2, LIM_NONE, 0, 0);           /* SRQ 0: A */
    c_srq(&w, 2, 1, 1, 2, 2, LIM_NONE, 0, 0);           /* SRQ 1: B */
    c_srq(&w, 3, 0, 2, 2, 2, LIM_NONE, 0, 0);           /* A's 2nd */
    c_srq_mod(&w, 0, MOD_RESIZE, 1, 2, LIM_NONE, 0);    /* B's page */
    c_srq_mod(&w, 0, MOD_RESIZE, 4, 8, LIM_NONE, 0);    /* 4 pages more */
    c_srq_mod(&w, 0, MOD_RESIZE, 4, 6, LIM_NONE, 0);    /* 1 page: moves */
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 1);
    c_srq_mod(&w, 0, MOD_RESIZE, 1, 2, LIM_NONE, 0);    /* B's old page */
    c_qp(&w, (struct qpargs){ .pd = 1, .scq = 1, .rcq = 1, .uc = 1,
                              .sq_page = 6, .rq_page = 7, .lsq = 2, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .pd = 3, .scq = 3, .rcq = 3, .uc = 1,
                              .sq_page = 8, .rq_page = 9, .lsq = 2, .lrq = 2 });
    c_mr(&w, 2, 0, 16, 0, QRNIC_PBL_LEVEL1, 1, QRNIC_ACCESS_LOCAL_WRITE);
    c_mr(&w, 3, 0, 16, 0, QRNIC_PBL_LEVEL1, 1, QRNIC_ACCESS_LOCAL_WRITE);
    c_mr(&w, 4, 0, 20000, 0, QRNIC_PBL_LEVEL1, 2, QRNIC_ACCESS_LOCAL_WRITE);
    c_rereg(&w, 1, 5, 0, 16, 0, QRNIC_PBL_LEVEL1, 2,
            QRNIC_ACCESS_LOCAL_WRITE);                  /* into B's PD */
    c_rereg(&w, 1, 5, 0, 20000, 0, QRNIC_PBL_LEVEL1, 1,
            QRNIC_ACCESS_LOCAL_WRITE);                  /* too many pages */
    for (i = 0; i < 3; i++) {
        c_alloc_mw(&w, 1, 1);                           /* A's 3rd refused */
    }
    c_handle(&w, QRNIC_CMD_DEALLOC_UCTX, 0);            /* A owns objects */
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 0);
    c_qp(&w, (struct qpargs){ .pd = 3, .scq = 3, .rcq = 3, .uc = 1,
                              .sq_page = 8, .rq_page = 9, .lsq = 2, .lrq = 2 });
    for (i = 0; i < QRNIC_CTX_RES_COUNT; i++) {
        CTX_LIMIT(&w, i, 0);
    }
    for (i = 0; i < 3; i++) {
        c_pd(&w, 0);
    }
    c_query(&w, QRNIC_CMD_QUERY_DEVICE, GA_PAGE(30));
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    emit("ctx-limits-interleaved", &w);
}

/*
 * XRC: a CREATE_SRQ reserved-field selector for an XRC SRQ of domain
 * xrcds[dom] completing on the CQ handle cq (6: none, 7: any cqn), CREATE_QP
 * type selectors for XRC_INI and XRC_TGT (variant v, see xrc_qp(); the
 * domain is the log_rq_depth selector, .lrq), MODIFY_QP masks their types
 * take that masks[] has not, op_wqe's XRC send WQE (ctl) and its flags
 * (signalled, the target's SRQ: the SRQ handle k, 6: 0, 7: past 24 bits).
 */
#define XSRQ(dom, cq)   ((uint8_t)(3 | (dom) << 2 | (cq) << 5))
#define XD_1            0
#define XD_2            1
#define XD_3            3
#define XD_0            5
#define XD_MAX          6           /* 0xffffff */
#define XD_25BIT        7           /* 0x1000001 */
#define XINI(v)         ((uint8_t)(0x80 | (v) << 4 | QRNIC_QPT_XRC_INI))
#define XTGT(v)         ((uint8_t)(0x80 | (v) << 4 | QRNIC_QPT_XRC_TGT))
#define MX_INI_RTR      (M(STATE) | M(AV) | M(PATH_MTU) | M(DEST_QPN) | \
                         M(RQ_PSN))
#define MX_TGT_RTS      (M(STATE) | M(SQ_PSN) | M(TIMEOUT))
#define X_RING          0x82
#define XF(k)           ((uint8_t)(1 | (k) << 4))
#define XK_ZERO         6
#define XK_25BIT        7

/* XRC QP qp (made earlier) to RTS towards dqp: XRC_TGT (tgt) or XRC_INI. */
static void connect_xrc(struct fzw *w, uint8_t qp, uint8_t dqp, bool tgt)
{
    struct attr a;

    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_INIT;
    a.access = tgt ? QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ |
                     QRNIC_ACCESS_REMOTE_ATOMIC : 0;
    c_modify(w, qp, 0, a);
    a.state = QRNIC_QPS_RTR;
    a.mtu = 3;
    a.max_dest = 4;
    a.min_rnr = 1;
    a.dqp = dqp;
    a.psn = 0x1234;
    if (tgt) {
        c_modify(w, qp, 1, a);
    } else {
        c_modify_raw(w, qp, MX_INI_RTR, a);
    }
    a.state = QRNIC_QPS_RTS;
    a.timeout = 8;
    a.retry = 3;
    a.rnr = 2;
    a.max_rd = 4;
    if (tgt) {
        c_modify_raw(w, qp, MX_TGT_RTS, a);
    } else {
        c_modify(w, qp, 2, a);
    }
}

/* XRC QP handles 0 (XRC_INI) and 1 (XRC_TGT) through RESET to RTS. */
static void xrc_again(struct fzw *w)
{
    struct attr a;

    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_RESET;
    c_modify(w, 0, MK_STATE, a);
    c_modify(w, 1, MK_STATE, a);
    connect_xrc(w, 0, 1, false);
    connect_xrc(w, 1, 0, true);
}

static void xrc_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    struct attr a;
    int i;

    /*
     * XRC commands.  SRQs: kernel and user XRC SRQs of two domains and
     * the largest one, a basic one, one with a limit; refused: a user
     * SRQ on a kernel CQ, domain 0 with a CQ, past 24 bits, no CQ, a CQ
     * nobody has.  QPs: XRC_INI of the kernel and a user, XRC_TGT of
     * domains 1, 2 and the largest; refused: XRC_INI with a domain, an
     * RQ, an SRQ, a PD not its owner's; XRC_TGT with an owner, a PD, CQ
     * and SQ, flags, domain 0, past 24 bits, raw; an RC QP on an XRC
     * SRQ.  MODIFY_QP with the attributes each type takes (and RC's, which
     * they refuse), QUERY_QP; doorbells of queues they do not have;
     * MODIFY_SRQ, QUERY_SRQ and doorbells of XRC SRQs; DESTROY_CQ of an
     * XRC SRQ's CQ, DEALLOC_PD of its PD (refused), DESTROY_SRQ under an
     * XRC_TGT QP of its domain, everything torn down.
     */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);                                    /* PD 0, CQ 0, MR 0 */
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);                                    /* PD 1: the user's */
    c_cq(&w, 2, 25, 0, 1);                          /* CQ 1: the user's */
    c_cq(&w, 4, 26, -1, 1);                         /* CQ 2 */
    c_srq(&w, 0, -1, 8, 4, 1, LIM_NONE, 0, XSRQ(XD_1, 0));      /* SRQ 0 */
    c_srq(&w, 0, -1, 9, 3, 1, LIM_NONE, 0, XSRQ(XD_2, 2));      /* 1 */
    c_srq(&w, 1, 0, 10, 2, 1, LIM_NONE, 0, XSRQ(XD_1, 1));      /* 2: user */
    c_srq(&w, 1, 0, 11, 2, 1, LIM_NONE, 0, XSRQ(XD_1, 0));  /* kernel CQ */
    c_srq(&w, 0, -1, 11, 2, 1, LIM_NONE, 0, XSRQ(XD_0, 0));     /* xrcd 0 */
    c_srq(&w, 0, -1, 11, 2, 1, LIM_NONE, 0, XSRQ(XD_25BIT, 0));
    c_srq(&w, 0, -1, 11, 2, 1, LIM_NONE, 0, XSRQ(XD_1, 6));     /* no CQ */
    c_srq(&w, 0, -1, 11, 2, 1, LIM_NONE, 0, XSRQ(XD_1, 7));     /* 0x3ff */
    c_srq(&w, 0, -1, 11, 2, 1, LIM_NONE, 0, XSRQ(XD_MAX, 2));   /* 3 */
    c_srq(&w, 0, -1, 12, 3, 1, LIM_NONE, 0, 0);                 /* 4: basic */
    c_srq(&w, 0, -1, 13, 3, 1, LIM_IN, 2, XSRQ(XD_3, 0));       /* 5 */
    c_qp(&w, (struct qpargs){ .type = XINI(0), .sq_page = 2, .lsq = 3,
                              .lss = 1 });                      /* QP 0 */
    c_qp(&w, (struct qpargs){ .type = XTGT(0), .lrq = XD_1 });  /* 1 */
    c_qp(&w, (struct qpargs){ .type = XTGT(1), .lrq = XD_2 });  /* 2 */
    c_qp(&w, (struct qpargs){ .type = XINI(2), .pd = 1, .scq = 1, .uc = 1,
                              .sq_page = 4, .lsq = 2, .lss = 1 });  /* 3 */
    c_qp(&w, (struct qpargs){ .type = XINI(XV_KEEP_XRCD), .sq_page = 5,
                              .lsq = 2, .lrq = XD_1 });
    c_qp(&w, (struct qpargs){ .type = XINI(XV_KEEP_RQ), .sq_page = 5,
                              .rq_page = 6, .lsq = 2, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .type = XINI(XV_KEEP_SRQ), .sq_page = 5,
                              .lsq = 2 });
    c_qp(&w, (struct qpargs){ .type = XINI(0), .scq = 1, .uc = 1,
                              .sq_page = 5, .lsq = 2 });    /* kernel PD */
    c_qp(&w, (struct qpargs){ .type = XTGT(XV_KEEP_UCTX), .uc = 1,
                              .lrq = XD_1 });
    c_qp(&w, (struct qpargs){ .type = XTGT(XV_KEEP_SQ), .sq_page = 5,
                              .lsq = 2, .lrq = XD_1 });
    c_qp(&w, (struct qpargs){ .type = XTGT(XV_KEEP_FLAGS), .flags = 1,
                              .lrq = XD_1 });
    c_qp(&w, (struct qpargs){ .type = XTGT(0), .lrq = XD_0 });
    c_qp(&w, (struct qpargs){ .type = XTGT(0), .lrq = XD_25BIT });
    c_qp(&w, (struct qpargs){ .type = XTGT(0), .lrq = 0xf3 });
    c_qp(&w, (struct qpargs){ .type = XTGT(3), .lrq = XD_MAX });  /* 4 */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .sq_page = 5,
                              .lsq = 2 });          /* RC on an XRC SRQ */
    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_INIT;
    c_modify(&w, 0, 0, a);                          /* XRC_INI to INIT */
    a.access = QRNIC_ACCESS_REMOTE_WRITE;
    c_modify(&w, 1, 0, a);                          /* XRC_TGT */
    o_db(&w, 0, 0, 0, 1, 1);                        /* XRC_TGT's SQ: none */
    o_db(&w, 0, 1, 0, 1, 1);                        /* ... RQ */
    o_db(&w, 0, 1, 0, 1, 0);                        /* XRC_INI's RQ */
    o_db(&w, 0, 0, 0, 0, 0);                        /* its SQ: fine */
    a.state = QRNIC_QPS_RTR;
    a.mtu = 3;
    a.max_dest = 4;
    a.min_rnr = 1;
    a.dqp = 1;
    c_modify(&w, 0, 1, a);                  /* RC's: MAX_DEST_RD_ATOMIC */
    c_modify_raw(&w, 0, MX_INI_RTR, a);
    a.dqp = 0;
    c_modify(&w, 1, 1, a);
    a.state = QRNIC_QPS_RTS;
    a.timeout = 8;
    a.retry = 3;
    a.rnr = 2;
    a.max_rd = 4;
    c_modify(&w, 1, 2, a);                  /* RC's: RETRY_CNT and more */
    c_modify_raw(&w, 1, MX_TGT_RTS, a);
    c_modify_raw(&w, 1, M(STATE) | M(SQ_PSN), a);   /* no TIMEOUT */
    c_modify(&w, 0, 2, a);
    c_query_qp(&w, 0, GA_PAGE(31));
    c_query_qp(&w, 1, GA_PAGE(31));
    o_db(&w, 0, 0, 0, 1, 1);
    o_db(&w, 0, 1, 0, 1, 0);
    o_db(&w, 0, DB_SRQ_OFF, 0, 3, 0);               /* XRC SRQ 0 */
    o_db(&w, 1, DB_SRQ_OFF, 0, 2, 2);               /* the user's */
    o_db(&w, 0, DB_SRQ_OFF, 0, 100, 1);             /* past its depth */
    o_db(&w, 1, 0, 0, 1, 3);                        /* user XRC_INI */
    c_srq_limit(&w, 0, LIM_IN, 3);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 5);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    c_handle(&w, QRNIC_CMD_DESTROY_CQ, 2);          /* SRQs 1, 3 use it */
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 1);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 3);
    c_handle(&w, QRNIC_CMD_DESTROY_CQ, 2);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 1);          /* SRQ 2, QP 3 */
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);         /* under XRC_TGT 1 */
    c_handle(&w, QRNIC_CMD_DEALLOC_UCTX, 0);
    for (i = 4; i >= 0; i--) {
        c_handle(&w, QRNIC_CMD_DESTROY_QP, (uint8_t)i);
    }
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 2);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 4);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 5);
    c_handle(&w, QRNIC_CMD_DESTROY_CQ, 1);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 1);
    c_handle(&w, QRNIC_CMD_DEALLOC_UCTX, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("xrc-commands", &w);

    /*
     * XRC through the device's own receive path (and over a cable): an
     * XRC_INI QP connected to an XRC_TGT QP of domain 1 with two XRC SRQs
     * of it, one of domain 2 and a basic SRQ; SENDs, WRITEs with and
     * without immediate, a READ and atomics naming either SRQ of the
     * domain; then, each ending the pair (RESET and up again after it), a
     * SEND naming the other domain's SRQ, the basic one, 0, past 24 bits
     * (refused by the requester), a FLUSH, BIND_MW and LOCAL_INV on
     * XRC_INI; a long SEND with its SRQ destroyed under it.
     */
    for (i = 0; i < 2; i++) {
        int k;

        w.n = 0;
        fzw_u8(&w, i ? F_LOOP : 0);
        objects(&w);
        c_srq(&w, 0, -1, 8, 3, 1, LIM_NONE, 0, XSRQ(XD_1, 0));  /* SRQ 0 */
        c_srq(&w, 0, -1, 9, 3, 1, LIM_NONE, 0, XSRQ(XD_1, 0));  /* 1 */
        c_srq(&w, 0, -1, 10, 3, 1, LIM_NONE, 0, XSRQ(XD_2, 0)); /* 2 */
        c_srq(&w, 0, -1, 11, 3, 1, LIM_NONE, 0, 0);             /* 3 */
        c_qp(&w, (struct qpargs){ .type = XINI(0), .sq_page = 0, .lsq = 4,
                                  .lss = 1 });                  /* QP 0 */
        c_qp(&w, (struct qpargs){ .type = XTGT(0), .lrq = XD_1 });  /* 1 */
        connect_xrc(&w, 0, 1, false);
        connect_xrc(&w, 1, 0, true);
        for (k = 0; k < 4; k++) {
            o_wqe(&w, WQE_SRQ_RING, 8, (uint8_t)k, 0, 0, 0, 1, 0,
                  (uint16_t)(k * 4200), 4200, 0);
            o_wqe(&w, WQE_SRQ_RING, 9, (uint8_t)k, 1, 0, 0, 1, 0,
                  (uint16_t)(k * 4200), 4200, 0);
        }
        o_wqe(&w, X_RING, 0, 0, 0, QRNIC_WR_SEND, XF(0), 1, 0, 20000, 3000,
              0);
        o_wqe(&w, X_RING, 0, 1, 0, QRNIC_WR_SEND_IMM, XF(1), 1, 0, 20000,
              100, 0);
        o_wqe(&w, X_RING, 0, 2, 0, QRNIC_WR_RDMA_WRITE, XF(0), 1, 0, 0, 5000,
              30000);
        o_wqe(&w, X_RING, 0, 3, 0, QRNIC_WR_RDMA_WRITE_IMM, XF(1), 1, 0, 0,
              64, 200);
        o_wqe(&w, X_RING, 0, 4, 0, QRNIC_WR_RDMA_READ, XF(0), 1, 0, 40000,
              2000, 0);
        o_wqe(&w, X_RING, 0, 5, 0, QRNIC_WR_ATOMIC_CMP_AND_SWP, XF(1), 1, 0,
              64, 8, 128);
        o_wqe(&w, X_RING, 0, 6, 0, QRNIC_WR_ATOMIC_FETCH_AND_ADD,
              XF(0) | QRNIC_WQE_F_FENCE, 1, 0, 72, 8, 128);
        BH(&w);
        BH(&w);
        c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
        o_wqe(&w, X_RING, 0, 7, 0, QRNIC_WR_SEND, XF(2), 1, 0, 0, 64, 0);
        BH(&w);
        TIMER(&w, 40);
        xrc_again(&w);
        o_wqe(&w, X_RING, 0, 0, 0, QRNIC_WR_SEND, XF(3), 1, 0, 0, 64, 0);
        BH(&w);
        xrc_again(&w);
        o_wqe(&w, X_RING, 0, 0, 0, QRNIC_WR_RDMA_WRITE, XF(XK_ZERO), 1, 0, 0,
              64, 0);
        BH(&w);
        xrc_again(&w);
        o_wqe(&w, X_RING, 0, 0, 0, QRNIC_WR_SEND, XF(XK_25BIT), 1, 0, 0, 64,
              0);
        BH(&w);
        xrc_again(&w);
        o_wqe(&w, X_RING, 0, 0, 0, OPSEL_FLUSH, 0x11, 0, 0, 0, 0, 64);
        BH(&w);
        xrc_again(&w);
        o_kwqe(&w, 0, K_BIND, 0x06, 0, 0, 64, 0, 0);
        BH(&w);
        xrc_again(&w);
        o_kwqe(&w, 0, K_INV, 0, 0, 0, 0, 0, 0);
        o_wqe(&w, X_RING, 0, 1, 0, QRNIC_WR_SEND, XF(1), 1, 0, 0, 64, 0);
        BH(&w);
        xrc_again(&w);
        o_wqe(&w, WQE_SRQ_RING, 8, 4, 0, 0, 0, 1, 0, 0, 9000, 0);
        o_wqe(&w, X_RING, 0, 0, 0, QRNIC_WR_SEND, XF(0), 1, 0, 0, 9000, 0);
        c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);
        BH(&w);
        TIMER(&w, 40);
        BH(&w);
        c_handle(&w, QRNIC_CMD_QUERY_SRQ, 1);
        c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
        emit(i ? "xrc-self-cable" : "xrc-self-traffic", &w);
    }
}

void fuzz_make_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    struct attr a;
    int i;

    /* Every command once, in a sensible order, then torn down. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_query(&w, QRNIC_CMD_QUERY_DEVICE, GA_PAGE(30));
    objects(&w);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);
    c_cq(&w, 2, 25, 0, 1);
    c_mr(&w, 2, 0, 40000, 4, QRNIC_PBL_LEVEL2, 0, QRNIC_ACCESS_LOCAL_WRITE);
    c_mr(&w, 3, 1, 9000, 0, QRNIC_PBL_CONTIG, 1, 0);
    c_mr(&w, 4, 0, 1, 30, QRNIC_PBL_PHYS, 0, MR_ACCESS_ALL);
    c_qp(&w, (struct qpargs){ .sq_page = 2, .rq_page = 3, .lsq = 3,
                              .lrq = 3, .flags = 1 });
    c_qp(&w, (struct qpargs){ .pd = 1, .scq = 1, .rcq = 1, .uc = 1,
                              .sq_page = 4, .rq_page = 5, .lsq = 2, .lrq = 2 });
    c_query_qp(&w, 0, GA_PAGE(31));
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    c_u8(&w, QRNIC_CMD_SET_MAC, 0x77);
    cmd(&w, QRNIC_CMD_SET_MTU, 0);
    fzw_u16(&w, 4200);
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 1);
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 0);
    for (i = 3; i >= 0; i--) {
        c_handle(&w, QRNIC_CMD_DEREG_MR, (uint8_t)i);
    }
    c_handle(&w, QRNIC_CMD_DESTROY_CQ, 1);
    c_handle(&w, QRNIC_CMD_DESTROY_CQ, 0);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 1);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 0);
    c_handle(&w, QRNIC_CMD_DEALLOC_UCTX, 0);
    c_u8(&w, QRNIC_CMD_DEL_GID, 0);
    c_handle(&w, QRNIC_CMD_DESTROY_EQ, 1);
    c_handle(&w, QRNIC_CMD_DESTROY_EQ, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("every-command", &w);

    /* Each command refused: handles, states, parameters. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_eq(&w, GA_PAGE(40), 0, 0, 3);                 /* log 0 */
    c_eq(&w, GA_PAGE(40), 13, 0, 3);                /* log 13 */
    c_eq(&w, GA_PAGE(40), 4, 0, 16);                /* vector 16 */
    c_eq(&w, GA_PAGE(40), 4, 2, 3);                 /* unknown flag */
    c_eq(&w, GA_END(8), 4, 0, 3);                   /* misaligned */
    c_eq(&w, GA_PAGE(40), 4, QRNIC_EQ_ASYNC, 3);    /* a second async */
    c_eq(&w, 0xff, 0xfff0, 4, 0, 3);                /* wraps */
    c_handle(&w, QRNIC_CMD_DESTROY_EQ, 1);          /* CQs use it */
    cmd(&w, QRNIC_CMD_DESTROY_EQ, 0);
    hd_raw(&w, 99);
    cmd(&w, QRNIC_CMD_ETH_TEARDOWN, 0);
    c_eth(&w, 50, 51, 0, 4, 1, 0);
    c_eth(&w, 50, 51, 4, 13, 1, 0);
    c_eth(&w, 50, 51, 4, 4, 16, 0);
    c_eth(&w, 50, 51, 4, 4, 1, 0xff);
    c_u8(&w, QRNIC_CMD_SET_MAC, 0xf1);              /* multicast */
    c_u8(&w, QRNIC_CMD_SET_MAC, 0xff);              /* zero */
    cmd(&w, QRNIC_CMD_SET_MTU, 0);
    fzw_u16(&w, 20);
    cmd(&w, QRNIC_CMD_SET_MTU, 0);
    fzw_u16(&w, 9001);
    c_gid(&w, 0, 0, 1);                             /* occupied */
    c_gid(&w, 129, 0, 1);                           /* index */
    c_gid(&w, 1, 0xf3, 1);                          /* type */
    c_u8(&w, QRNIC_CMD_DEL_GID, 5);                 /* empty */
    c_u8(&w, QRNIC_CMD_DEL_GID, 0xf9);              /* index */
    cmd(&w, QRNIC_CMD_DEALLOC_UCTX, 0);
    hd_raw(&w, 2);
    for (i = 0; i < 4; i++) {
        cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);           /* the 4th: none left */
    }
    c_pd(&w, 0);
    c_handle(&w, QRNIC_CMD_DEALLOC_UCTX, 0);        /* owns a PD */
    cmd(&w, QRNIC_CMD_ALLOC_PD, 0);
    fzw_u8(&w, 1);
    hd_raw(&w, 77);
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 0);          /* MR uses it */
    cmd(&w, QRNIC_CMD_DEALLOC_PD, 0);
    hd_raw(&w, 5000);
    cmd(&w, QRNIC_CMD_CREATE_CQ, 0);                /* bad uctx */
    fzw_u8(&w, 4);
    pb(&w, 0, 0, 0, GA_PAGE(60), 0, 1);
    fzw_u8(&w, 1);
    hd_raw(&w, 9);
    hd(&w, 1);
    c_cq(&w, 4, 60, -1, 0);                         /* the async EQ */
    c_cq(&w, 0, 60, -1, 1);                         /* log 0 */
    cmd(&w, QRNIC_CMD_CREATE_CQ, 0);                /* no such EQ */
    fzw_u8(&w, 4);
    pb(&w, 0, 0, 0, GA_PAGE(60), 0, 1);
    uctx(&w, -1);
    hd_raw(&w, 9);
    {
        static const uint8_t bad_pbl[][8] = {
            { QRNIC_PBL_CONTIG, 2, 0, GA_PAGE(60), 0, 1 },  /* 8 KiB pages */
            { QRNIC_PBL_CONTIG, 0, 2, GA_PAGE(60), 0, 1 },  /* one too many */
            { QRNIC_PBL_CONTIG, 0, 0, GA_END(4), 0, 1 },    /* misaligned */
            { QRNIC_PBL_CONTIG, 0, 0xfb, 0xff, 0xff, 0xff, 0, 1 },
            { QRNIC_PBL_LEVEL1, 0, 0, GA_NONE, 0, 1 },      /* unreadable */
            { QRNIC_PBL_LEVEL1, 0, 0, 0, 8, 0, 0, 0xff },   /* odd page */
            { QRNIC_PBL_LEVEL2, 0, 0, GA_NONE, 0, 1 },
            { 0xf7, 0, 0, GA_PAGE(60), 0, 1 },              /* kind 0xf7 */
        };

        for (i = 0; i < (int)(sizeof(bad_pbl) / sizeof(bad_pbl[0])); i++) {
            c_cq_pbl(&w, 9, bad_pbl[i], -1, 1);
        }
    }
    cmd(&w, QRNIC_CMD_DESTROY_CQ, 0);
    hd_raw(&w, 0);
    c_mr(&w, 1, 0, 16, 12, QRNIC_PBL_LEVEL1, 5, MR_ACCESS_ALL);  /* PD */
    c_mr(&w, 1, 0, 16, 12, QRNIC_PBL_LEVEL1, 0, 0x10);             /* access */
    c_mr(&w, 1, 0, 16, 12, QRNIC_PBL_LEVEL1, 0,
         QRNIC_ACCESS_REMOTE_WRITE);                    /* no local write */
    c_mr(&w, 1, 0, 0, 12, QRNIC_PBL_LEVEL1, 0, 0);      /* length 0 */
    c_mr(&w, 0xf0, 0, 16, 0xf0, QRNIC_PBL_LEVEL1, 0, 0);    /* wraps */
    c_mr(&w, 1, 0, 16, 12, QRNIC_PBL_PHYS, 1, 0);       /* user PD */
    c_mr(&w, 1, 0, 1, 23, QRNIC_PBL_LEVEL1, 0, 0);      /* too many pages */
    cmd(&w, QRNIC_CMD_REG_MR, 0);                       /* 16 pages, 2 MiB */
    fzw_u8(&w, 1);
    fzw_u16(&w, 0);
    fzw_u16(&w, 16);
    fzw_u8(&w, 12);
    pb(&w, QRNIC_PBL_LEVEL1, 3, 0, GA_PAGE(60), 0, 1);
    hd(&w, 0);
    fzw_u8(&w, 0);
    cmd(&w, QRNIC_CMD_REG_MR, 0);                       /* page shift 40 */
    fzw_u8(&w, 1);
    fzw_u16(&w, 0);
    fzw_u16(&w, 16);
    fzw_u8(&w, 12);
    pb(&w, QRNIC_PBL_LEVEL1, 0xf8, 0, GA_PAGE(60), 0, 1);
    hd(&w, 0);
    fzw_u8(&w, 0);
    cmd(&w, QRNIC_CMD_DEREG_MR, 0);
    hd_raw(&w, 0x101);
    c_qp(&w, (struct qpargs){ .pd = 5, .lsq = 2, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .type = 0xf4, .lsq = 2, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .flags = 0xf2, .lsq = 2, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .lsq = 0xf5, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .lss = 0xf3, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .lrs = 0xf9, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .sq_page = 16, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .sq_page = 0xf1, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .sq_page = 3, .rq_page = 3 });
    c_qp(&w, (struct qpargs){ .lsq = 14, .lss = 3 });
    c_qp(&w, (struct qpargs){ .uc = 1, .sq_page = 6, .rq_page = 7 });
    c_qp(&w, (struct qpargs){ .sq_page = 6, .rq_page = 7 });
    c_qp(&w, (struct qpargs){ .sq_page = 6, .rq_page = 8 });  /* taken */
    c_handle(&w, QRNIC_CMD_DESTROY_CQ, 0);          /* a QP uses it */
    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_RTS;
    c_modify(&w, 0, 3, a);                          /* RESET -> RTS */
    a.state = QRNIC_QPS_INIT;
    c_modify(&w, 0, 3, a);                          /* missing attributes */
    c_modify(&w, 0, 8, a);                          /* one too many */
    c_modify(&w, 0, 10, a);                         /* QKEY: not for RC */
    a.cur = 3;
    c_modify(&w, 0, 7, a);                          /* wrong current state */
    a.state = 9;
    c_modify(&w, 0, 3, a);
    a.state = QRNIC_QPS_INIT;
    a.access = 0x30;
    c_modify(&w, 0, 0, a);
    a.access = 0;
    a.max_dest = 200;
    c_modify(&w, 0, 0, a);                          /* RESET -> INIT */
    a.state = QRNIC_QPS_RTR;
    for (i = 0; i < 8; i++) {
        struct attr b = a;

        b.mtu = 3;
        b.max_dest = 4;
        switch (i) {
        case 0: b.mtu = 6; break;
        case 1: b.sgid = 3; break;
        case 2: b.dgid = 2; break;
        case 3: b.dmac = 2; break;
        case 4: b.dgid = 3; break;
        case 5: b.min_rnr = 40; break;
        case 6: b.max_dest = 200; break;
        default: b.psn = 0xffff; break;
        }
        c_modify(&w, 0, 1, b);
    }
    cmd(&w, QRNIC_CMD_MODIFY_QP, 0);                /* dest QPN too big */
    hd(&w, 0);
    fzw_u8(&w, 1);
    ga(&w, 0, 0);
    fzw_bytes(&w, "\x02\x00\x03\x00\x00\x00\x00\x00\x04\x00\x00", 11);
    hd_raw(&w, 0xfffff);
    fzw_u16(&w, 0);
    fzw_u8(&w, 0);
    fzw_u8(&w, 0);
    a.mtu = 3;
    a.max_dest = 4;
    a.dmac = 3;                                     /* pkey, port */
    c_modify(&w, 0, 1, a);
    a.dmac = 0;
    c_modify(&w, 0, 1, a);                          /* INIT -> RTR */
    a.state = QRNIC_QPS_RTS;
    for (i = 0; i < 5; i++) {
        struct attr b = a;

        switch (i) {
        case 0: b.timeout = 40; break;
        case 1: b.retry = 8; break;
        case 2: b.rnr = 8; break;
        case 3: b.max_rd = 200; break;
        default: b.psn = 0xffff; break;
        }
        c_modify(&w, 0, 2, b);
    }
    c_modify(&w, 0, 2, a);                          /* RTR -> RTS */
    a.state = QRNIC_QPS_INIT;
    c_modify(&w, 0, 3, a);                          /* RTS -> INIT */
    a.state = QRNIC_QPS_SQD;
    c_modify(&w, 0, 4, a);
    c_modify(&w, 0, 6, a);                          /* SQD -> SQD */
    a.state = QRNIC_QPS_SQE;
    c_modify(&w, 0, 3, a);
    a.state = QRNIC_QPS_RESET;
    c_modify(&w, 0, 5, a);                          /* RESET with attrs */
    c_modify(&w, 0, 9, a);                          /* no state */
    cmd(&w, QRNIC_CMD_MODIFY_QP, 0);
    hd_raw(&w, 0x3ff);
    fzw_u8(&w, 0xf0);
    fzw_u32(&w, 1);
    ga(&w, 0, 0);
    fzw_fill(&w, 0, 19);
    cmd(&w, QRNIC_CMD_QUERY_QP, 0);
    hd_raw(&w, 0x3ff);
    ga(&w, 0, 0);
    cmd(&w, QRNIC_CMD_DESTROY_QP, 0);
    hd_raw(&w, 0x3ff);
    fzw_u8(&w, OP_ADMIN);
    fzw_u8(&w, 0xf8);                               /* unknown opcode */
    fzw_u8(&w, 0);
    fzw_u8(&w, 0);
    emit("refused", &w);

    /* Tables full: 16 EQs, 1024 PDs would be long; EQs and GIDs here. */
    w.n = 0;
    fzw_u8(&w, 0);
    for (i = 0; i < 17; i++) {
        c_eq(&w, GA_PAGE((uint8_t)(40 + i)), 2, 0, (uint8_t)(i % 16));
    }
    for (i = 0; i < 8; i++) {
        c_gid(&w, (uint8_t)(120 + i), 0, (uint8_t)i);
    }
    emit("tables-full", &w);

    /* Guest addresses that are not memory: every DMA fails. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_query(&w, QRNIC_CMD_QUERY_DEVICE, GA_NONE);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_END(8));
    c_query(&w, QRNIC_CMD_QUERY_STATS, 0xff, 7);
    objects(&w);
    self_qp(&w, 0, 1, 3);
    c_query_qp(&w, 0, GA_NONE);
    cmd(&w, QRNIC_CMD_MODIFY_QP, 0);
    hd(&w, 0);
    fzw_u8(&w, 3);
    ga(&w, GA_NONE);
    fzw_fill(&w, 0, 19);
    c_eq(&w, GA_NONE, 4, 0, 3);
    c_cq(&w, 3, 0, -1, 2);
    LINK(&w, 0);
    LINK(&w, 1);
    o_db(&w, 0, 2, 1, 0, 1);                        /* an event nowhere */
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 16, 0);
    BH(&w);
    emit("dma-nowhere", &w);

    /* DMA onto the device's own BARs: registers, doorbells, queue memory. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_DB(0, 0));
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_QMEM(3));
    c_eq(&w, GA_REG(0), 2, QRNIC_EQ_ASYNC, 0);      /* the EQ on CTRL */
    LINK(&w, 0);                                    /* timer-less: no guard */
    LINK(&w, 1);
    RESET(&w, 3);
    c_eq(&w, GA_REG(11), 2, QRNIC_EQ_ASYNC, 0);     /* ... on AQ_DB */
    LINK(&w, 0);
    LINK(&w, 1);
    RESET(&w, 3);
    objects(&w);
    self_qp(&w, NO_QP, 0, 3);                       /* a peer that is not */
    c_cq(&w, 2, 0, -1, 1);
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 0);
    BH(&w);
    TIMER(&w, 60);
    TIMER(&w, 60);
    BH(&w);
    c_query(&w, QRNIC_CMD_QUERY_DEVICE, GA_REG(0));  /* refused: guarded */
    emit("dma-onto-bars", &w);

    /* A CQ and the async EQ on BAR0: the retry timer's error CQEs land on
     * CTRL from an unguarded timer callback, so the writes are deferred. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_eq(&w, GA_REG(4), 2, QRNIC_EQ_ASYNC, 0);      /* MAC_LO.. */
    c_eq(&w, GA_PAGE(21), 8, 0, 2);
    c_gid(&w, 0, 0, 0);
    c_pd(&w, -1);
    cmd(&w, QRNIC_CMD_CREATE_CQ, 0);
    fzw_u8(&w, 1);
    pb(&w, QRNIC_PBL_CONTIG, 0, 0, GA_BAR0(0), 0, 1);
    uctx(&w, -1);
    hd(&w, 1);
    c_mr(&w, 1, 3, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
    self_qp(&w, NO_QP, 0, 3);
    for (i = 1; i < 4; i++) {
        o_wqe(&w, 2, 0, (uint8_t)i, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 64,
              0);
    }
    BH(&w);
    for (i = 0; i < 4; i++) {
        MISC(&w, 3, 0);
    }
    BH(&w);
    emit("deferred-writes", &w);

    /* The Ethernet rings, a loopback cable, frames of every kind. */
    w.n = 0;
    fzw_u8(&w, F_LOOP);
    c_eth(&w, 50, 51, 4, 3, 1, 0);
    c_eth(&w, 50, 51, 4, 3, 1, 0);                  /* twice */
    o_eth(&w, 1, 0, GA_PAGE(60), 2048, 0, 0);
    o_eth(&w, 3, 1, GA_PAGE(61), 2048, 0, 0);
    o_eth(&w, 0, 0, GA_PAGE(70), 100, 0, 1);        /* to us, looped back */
    o_eth(&w, 0, 1, GA_PAGE(71), 60, 1, 2);         /* broadcast */
    o_eth(&w, 0, 2, GA_PAGE(72), 10, 0, 3);         /* too short */
    o_eth(&w, 4, 3, GA_PAGE(73), 9100, 0, 4);       /* too long */
    o_eth(&w, 0, 4, GA_NONE, 60, 0, 5);             /* buffer nowhere */
    o_eth(&w, 0, 5, GA_PAGE(74), 60, 0xf1, 5);      /* RoCE to ourselves */
    o_eth(&w, 2, 6, GA_PAGE(75), 3000, 2, 6);       /* not for us */
    BH(&w);
    o_frame(&w, 0, 60, 1);
    o_frame(&w, 0, 3000, 1);                        /* larger than buffers */
    o_frame(&w, 1, 60, 2);
    o_frame(&w, 2, 60, 3);
    o_frame(&w, 3, 60, 4);
    o_frame(&w, 0, 9100, 5);                        /* too big */
    o_frame(&w, 0, 8, 5);                           /* runt */
    o_frame(&w, 0x44, 80, 6);                       /* IPv4 UDP 4791 */
    o_frame(&w, 0x08, 80, 6);                       /* IPv6 */
    o_frame(&w, 0xf2, 0, 7);
    o_eth(&w, 3, 2, GA_NONE, 2048, 0, 0);           /* RX buffer nowhere */
    o_frame(&w, 0, 60, 8);
    o_eth(&w, 3, 3, GA_PAGE(62), 2048, 0, 0);
    o_db(&w, 0, 4, 0, 60, 0);                       /* TX too far ahead */
    o_db(&w, 0, 5, 0xf0, 7, 0);                     /* RX with high bits */
    o_db(&w, 1, 4, 0, 1, 0);                        /* another page */
    LINK(&w, 0);
    o_eth(&w, 2, 7, GA_PAGE(70), 100, 0, 1);        /* link down: no send */
    LINK(&w, 1);
    BH(&w);
    cmd(&w, QRNIC_CMD_ETH_TEARDOWN, 0);
    o_frame(&w, 0, 60, 9);
    emit("ethernet", &w);

    /* RX ring full: frames wait in the backend until buffers come. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_eth(&w, 50, 51, 2, 1, 1, 0);
    for (i = 0; i < 5; i++) {
        o_frame(&w, 1, 64, (uint8_t)i);
    }
    o_eth(&w, 3, 0, GA_PAGE(60), 2048, 0, 0);
    o_eth(&w, 3, 1, GA_PAGE(61), 2048, 0, 0);
    BH(&w);
    o_eth(&w, 3, 2, GA_PAGE(62), 2048, 0, 0);
    BH(&w);
    c_eth(&w, 50, 0, 2, 1, 1, 0);
    emit("ethernet-rx-waits", &w);

    /* A QP connected to itself: every opcode through the backlog. */
    for (i = 0; i < 3; i++) {
        static const char *names[3] = { "self-qp", "self-qp-cable",
                                        "self-qp-hostile" };

        w.n = 0;
        fzw_u8(&w, i == 1 ? F_LOOP : i == 2 ? F_HOSTILE : 0);
        objects(&w);
        self_qp(&w, 0, 3, (uint8_t)(2 + i));
        o_db(&w, 0, 2, 1, 0, 0);                        /* arm CQ 0 */
        o_wqe(&w, 3, 1, 0, 0, 0, 0, 1, 0, 8000, 4000, 0);
        o_wqe(&w, 3, 1, 1, 0, 0, 0, 1, 0, 12000, 100, 0);
        o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_SEND, 3, 1, 0, 0, 3000, 0);
        o_wqe(&w, 2, 0, 1, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 5000, 20000);
        o_wqe(&w, 2, 0, 2, 0, QRNIC_WR_RDMA_READ, 1, 1, 0, 30000, 6000, 0);
        o_wqe(&w, 2, 0, 3, 0, QRNIC_WR_ATOMIC_CMP_AND_SWP, 1, 1, 0, 64, 8,
              128);
        o_wqe(&w, 2, 0, 4, 0, QRNIC_WR_ATOMIC_FETCH_AND_ADD, 9, 1, 0, 72, 8,
              128);
        o_wqe(&w, 2, 0, 5, 0, QRNIC_WR_RDMA_WRITE_IMM, 1, 1, 0, 0, 10, 200);
        o_wqe(&w, 2, 0, 6, 0, QRNIC_WR_SEND_IMM, 3, 0, 0, 0, 0, 0);
        BH(&w);
        BH(&w);
        o_db(&w, 0, 3, 0, 2, 1);                        /* EQ consumed */
        o_db(&w, 0, 2, 3, 3, 0);                        /* arm solicited */
        o_db(&w, 0, 2, 1, 9, 0);
        o_wqe(&w, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0);
        o_wqe(&w, 2, 0, 7, 0, QRNIC_WR_SEND, 3, 0, 0, 0, 0, 0);
        BH(&w);
        TIMER(&w, 40);
        BH(&w);
        memset(&a, 0, sizeof(a));
        a.state = QRNIC_QPS_SQD;
        c_modify(&w, 0, 4, a);
        c_query_qp(&w, 0, GA_PAGE(31));
        a.state = QRNIC_QPS_RTS;
        c_modify(&w, 0, 3, a);
        a.state = QRNIC_QPS_ERR;
        c_modify(&w, 0, 3, a);
        o_wqe(&w, 3, 1, 3, 0, 0, 0, 1, 0, 0, 16, 0);
        o_wqe(&w, 2, 0, 8, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 16, 0);
        BH(&w);
        a.state = QRNIC_QPS_RESET;
        c_modify(&w, 0, 3, a);
        emit(names[i], &w);
    }

    /* Registers: everything written, interrupts masked, MMIO of every size. */
    w.n = 0;
    fzw_u8(&w, F_RAW);
    o_reg(&w, 11, 8, 0);                            /* AQ_DB before READY */
    o_reg(&w, 12, 8, 0);
    o_reg(&w, 10, 0, 0);                            /* depth 0 */
    o_reg(&w, 0, 2, 0);
    o_reg(&w, 0, 0, 0);
    o_reg(&w, 10, 10, 0);                           /* depth 9 */
    o_reg(&w, 0, 2, 0);
    o_reg(&w, 0, 0, 0);
    o_reg(&w, 10, 6, 0);
    o_reg(&w, 6, 11, 0);                            /* misaligned base */
    o_reg(&w, 0, 2, 0);
    o_reg(&w, 0, 1, 0);
    o_reg(&w, 3, 0xf0, 0xffff);                     /* mask everything */
    for (i = 0; i < (int)NREGS; i++) {
        o_reg(&w, (uint8_t)i, 0xf0, 0x12345678u * (uint32_t)i);
    }
    RESET(&w, 1);
    o_reg(&w, 3, 0xf0, 0x0005);
    c_eq(&w, GA_PAGE(20), 6, QRNIC_EQ_ASYNC, 0);
    LINK(&w, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    o_reg(&w, 3, 0, 0);                             /* pending ones fire */
    o_reg(&w, 0, 2, 0);                             /* ENABLE again */
    o_reg(&w, 11, 0xf0, 100);                       /* AQ_DB too far */
    o_reg(&w, 12, 0xf0, 7);                         /* AQ_CQ_CI ahead */
    o_reg(&w, 0xfe, 0, 0);                          /* 2-byte write */
    o_reg(&w, 0xff, 0xf0, 0x41);                    /* unaligned */
    MISC(&w, 2, 0);
    o_mmio(&w, 0x00, 0x40, 2);                      /* 1 byte BAR0 */
    o_mmio(&w, 0x0c, 0x40, 0x0000000200000002ull);  /* 8 bytes BAR0 */
    o_mmio(&w, 0x1c, 0x00, 0);                      /* 8-byte read */
    o_mmio(&w, 0x01, 0x08, 1);                      /* 1 byte BAR2 */
    o_mmio(&w, 0x09, 0x08, 1);                      /* 4 bytes BAR2 */
    o_mmio(&w, 0x0d, 0x1004, 1);                    /* misaligned 8 */
    o_mmio(&w, 0x11, 0x08, 0);                      /* BAR2 read */
    o_mmio(&w, 0x0e, 0x100, 0x1122334455667788ull); /* BAR4 */
    o_mmio(&w, 0x1e, 0x100, 0);
    o_mmio(&w, 0xf2, 0xffff, 0);                    /* past BAR4 */
    o_db(&w, 0, 7, 0, 0, 0);                        /* unassigned offset */
    o_db(&w, 0, 0, 0xff, 0, 0);                     /* 4-byte doorbell */
    o_db(&w, 0xf0, 0, 0, 0, 0);                     /* past the pages */
    o_db(&w, 2, 0, 0, 0, 0);                        /* no such context */
    o_db(&w, 0, 3, 0, 1, 0);                        /* no such EQ */
    o_db(&w, 0, 3, 1, 0, 0);                        /* EQ with arm bits */
    emit("registers", &w);

    /* Doorbells of every kind against live objects, good and bad. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);
    c_cq(&w, 2, 25, 0, 1);
    c_qp(&w, (struct qpargs){ .pd = 1, .scq = 1, .rcq = 1, .uc = 1,
                              .sq_page = 4, .rq_page = 5, .lsq = 2,
                              .lrq = 2 });
    o_db(&w, 0, 0, 0, 1, 0);                        /* QP in RESET */
    self_qp(&w, 1, 3, 3);
    o_db(&w, 0, 0, 0, 1, 1);                        /* kernel QP 1 */
    o_db(&w, 1, 0, 0, 1, 1);                        /* its page */
    o_db(&w, 1, 0, 0, 1, 0);                        /* the wrong page */
    o_db(&w, 0, 0, 0, 100, 1);                      /* too far */
    o_db(&w, 0, 0, 0xf0, 1, 1);                     /* reserved bits */
    o_db(&w, 0, 1, 0, 1, 1);
    o_db(&w, 0, 2, 0, 0, 0);                        /* CQ */
    o_db(&w, 0, 2, 0, 5, 0);                        /* CQ ci ahead */
    o_db(&w, 0, 2, 0, 0x10000, 0);                  /* ... by 1 << 16 */
    o_db(&w, 0, 2, 0xf0, 0, 0);                     /* CQ odd flags */
    o_db(&w, 1, 2, 1, 0, 1);                        /* user CQ */
    o_db(&w, 0, 2, 1, 0, 1);                        /* user CQ, wrong page */
    o_db(&w, 0, 3, 0, 0, 1);                        /* EQ */
    o_db(&w, 0, 3, 0, 9, 1);                        /* EQ ci ahead */
    o_db(&w, 1, 3, 0, 0, 1);                        /* EQ, user page */
    o_db(&w, 0, 4, 0, 1, 0);                        /* ETH without rings */
    emit("doorbells", &w);

    /* A small CQ overflows; then software catches up via its record. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_eq(&w, GA_PAGE(20), 6, QRNIC_EQ_ASYNC, 0);
    c_eq(&w, GA_PAGE(21), 8, 0, 2);
    c_gid(&w, 0, 0, 0);
    c_pd(&w, -1);
    c_cq(&w, 1, 24, -1, 1);
    c_mr(&w, 1, 3, 16, 12, QRNIC_PBL_LEVEL1, 0, MR_ACCESS_ALL);
    self_qp(&w, 0, 3, 3);
    for (i = 0; i < 5; i++) {
        o_wqe(&w, 2, 0, (uint8_t)i, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 8, 64);
    }
    BH(&w);
    o_db(&w, 0, 2, 1, 2, 0);
    o_wqe(&w, 2, 0, 5, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 8, 64);
    BH(&w);
    emit("cq-overflow", &w);

    /* Resets of every kind in the middle of traffic, and the timer. */
    w.n = 0;
    fzw_u8(&w, F_LOOP | F_LINK_DOWN);
    objects(&w);
    self_qp(&w, 0, 3, 3);
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 8000, 0);
    LINK(&w, 1);
    o_wqe(&w, 2, 0, 1, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 8000, 0);
    MISC(&w, 3, 0);
    RESET(&w, 0);
    objects(&w);
    self_qp(&w, 0, 3, 3);
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_RDMA_READ, 1, 1, 0, 0, 8000, 0);
    RESET(&w, 1);
    RESET(&w, 2);
    o_frame(&w, 0xf1, 0, 0);
    MISC(&w, 0, 0);
    MISC(&w, 1, 17);
    TIMER(&w, 255);
    emit("resets", &w);

    /* Raw commands and a raw device. */
    w.n = 0;
    fzw_u8(&w, 0);
    for (i = 0; i < 4; i++) {
        fzw_u8(&w, OP_ADMIN_RAW);
        fzw_u8(&w, (uint8_t)(i & 1));
        fzw_u8(&w, (uint8_t)(i * 5 + 2));
        fzw_fill(&w, (uint8_t)(0x11 * i), 63);
    }
    BH(&w);
    emit("raw-commands", &w);

    w_self_qp_ipv6(&w, 0);
    emit("self-qp-ipv6", &w);

    /* Frames the parser refuses at each layer, as raw bytes. */
    w.n = 0;
    fzw_u8(&w, 0);
    {
        static const uint8_t hdr[14] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56,
                                         0x52, 0x54, 0x00, 0x99, 0x99, 0x99,
                                         0x08, 0x00 };
        static const uint8_t ip4[20] = { 0x45, 0, 0, 40, 0, 0, 0x40, 0, 64,
                                         17, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1 };
        static const uint8_t udp[8] = { 0xc0, 0, 0x12, 0xb7, 0, 20, 0, 0 };
        uint8_t fr[64];

        for (i = 0; i < 8; i++) {
            size_t n = 14 + 20 + 8 + 12 + 4;

            memcpy(fr, hdr, 14);
            memcpy(fr + 14, ip4, 20);
            memcpy(fr + 34, udp, 8);
            memset(fr + 42, 0, 16);
            switch (i) {
            case 0:                         /* a VLAN tag, cut short */
                fr[12] = 0x81;
                n = 16;
                break;
            case 1:                         /* TCP */
                fr[23] = 6;
                break;
            case 2:                         /* a fragment */
                fr[20] = 0x20;
                break;
            case 3:                         /* IHL 4 */
                fr[14] = 0x44;
                break;
            case 4:                         /* no room for UDP */
                n = 38;
                break;
            case 5:                         /* IPv6, not UDP */
                fr[12] = 0x86;
                fr[13] = 0xdd;
                fr[14] = 0x60;
                fr[20] = 6;
                break;
            case 6:                         /* IPv6 cut short */
                fr[12] = 0x86;
                fr[13] = 0xdd;
                n = 30;
                break;
            default:                        /* IPv4 length past the end */
                fr[17] = 200;
                break;
            }
            fzw_u8(&w, OP_FRAME);
            fzw_u8(&w, 0xff);
            fzw_u16(&w, (uint16_t)n);
            fzw_u8(&w, 0);
            fzw_bytes(&w, fr, n);
        }
    }
    emit("frames-refused", &w);

    /* The async EQ of two entries overflows; then it is consumed. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_eq(&w, GA_PAGE(20), 1, QRNIC_EQ_ASYNC, 0);
    for (i = 0; i < 3; i++) {
        LINK(&w, 0);
        LINK(&w, 1);
    }
    o_db(&w, 0, 3, 0, 2, 0);
    LINK(&w, 0);
    emit("eq-overflow", &w);

    /* Two QPs of the device connected to each other, 32 KiB each way in
     * one bottom half: the backlog of frames to ourselves overflows. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_qp(&w, (struct qpargs){ .sq_page = 0, .rq_page = 1, .lsq = 4,
                              .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .sq_page = 2, .rq_page = 3, .lsq = 4,
                              .lss = 1, .lrq = 4, .lrs = 1 });
    connect(&w, 0, 1, 7, 1, 0, 0);
    connect(&w, 1, 0, 7, 1, 0, 0);
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 32000, 0);
    o_wqe(&w, 2, 2, 0, 1, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 32000, 32000, 0);
    BH(&w);
    TIMER(&w, 60);
    BH(&w);
    emit("backlog-overflow", &w);

    /* A loopback cable and 40 frames to ourselves in one transmit: the
     * backlog fills, and with no RX buffer the frames are dropped. */
    w.n = 0;
    fzw_u8(&w, F_LOOP);
    c_eth(&w, 50, 51, 6, 2, 1, 0);
    for (i = 0; i < 40; i++) {
        o_eth(&w, (uint8_t)(i == 39 ? 2 : 0), (uint8_t)i, GA_PAGE(70),
              60, 0, (uint8_t)i);
    }
    BH(&w);
    emit("backlog-eth-drops", &w);

    /* Error CQEs from the retry timer (unguarded) onto doorbell page 0 and,
     * for eight QPs at once, onto BAR0 with their event: deferred writes
     * and doorbells, more than the defer queue holds. */
    for (i = 0; i < 2; i++) {
        int q;

        w.n = 0;
        fzw_u8(&w, 0);
        c_eq(&w, GA_PAGE(20), 6, QRNIC_EQ_ASYNC, 0);
        if (i) {
            c_eq(&w, GA_BAR0(0x80), 6, 0, 2);
        } else {
            c_eq(&w, GA_PAGE(21), 6, 0, 2);
        }
        c_gid(&w, 0, 0, 0);
        c_pd(&w, -1);
        cmd(&w, QRNIC_CMD_CREATE_CQ, 0);
        fzw_u8(&w, 4);
        if (i) {
            pb(&w, QRNIC_PBL_CONTIG, 0, 0, GA_BAR0(0), 0, 1);
        } else {
            pb(&w, QRNIC_PBL_CONTIG, 0, 0, GA_DB(0, 0), 0, 1);
        }
        uctx(&w, -1);
        hd(&w, 1);
        o_db(&w, 0, 2, 1, 0, 0);                    /* arm it */
        for (q = 0; q < (i ? 8 : 1); q++) {
            c_qp(&w, (struct qpargs){ .sq_page = (uint8_t)(2 * q),
                                      .rq_page = (uint8_t)(2 * q + 1) });
            connect(&w, (uint8_t)q, NO_QP, 0, 3, 0, 0);
            o_wqe(&w, 2, (uint8_t)(2 * q), 0, (uint8_t)q,
                  QRNIC_WR_RDMA_WRITE, 1, 0, 0, 0, 0, 0);
        }
        BH(&w);
        MISC(&w, 3, 0);
        BH(&w);
        emit(i ? "deferred-overflow" : "deferred-doorbells", &w);
    }

    /* Memory regions whose pages are nowhere: every data path's DMA fails
     * (send, receive, remote write, read, atomic); a PHYS region works. */
    for (i = 0; i < 6; i++) {
        static const uint8_t nowhere[8] = { QRNIC_PBL_CONTIG, 0, 0, GA_NONE,
                                            0, 1 };
        static const char *names[6] = {
            "bad-mr-send", "bad-mr-recv", "bad-mr-write", "bad-mr-read",
            "bad-mr-atomic", "phys-mr",
        };
        /* local MR, remote MR, opcode: MR 0 is good, MR 1 the case's */
        static const uint8_t c[6][3] = {
            { 1, 0, QRNIC_WR_SEND }, { 0, 0, QRNIC_WR_SEND },
            { 0, 1, QRNIC_WR_RDMA_WRITE }, { 0, 1, QRNIC_WR_RDMA_READ },
            { 0, 1, QRNIC_WR_ATOMIC_CMP_AND_SWP }, { 1, 1, QRNIC_WR_SEND },
        };

        w.n = 0;
        fzw_u8(&w, 0);
        objects(&w);
        if (i == 5) {
            c_mr(&w, 0x80, 0x8000, 1, 16, QRNIC_PBL_PHYS, 0,
                 MR_ACCESS_ALL);
        } else {
            c_mr2(&w, 5, 0, 16, 12, nowhere, 0, MR_ACCESS_ALL);
        }
        self_qp(&w, 0, 3, 3);
        o_wqe2(&w, 3, 1, 0, 0, 0, 0, 1, (uint8_t)(i == 1 || i == 5), 0, 4000,
               0, 0);
        o_wqe2(&w, 2, 0, 0, 0, c[i][2], 1, 1, c[i][0], 64, 8, 128, c[i][1]);
        if (i == 5) {
            o_wqe2(&w, 2, 0, 1, 0, QRNIC_WR_RDMA_READ, 1, 1, 1, 1024, 2000,
                   8192, 1);
            o_wqe2(&w, 2, 0, 2, 0, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 2000,
                   16384, 1);
        }
        BH(&w);
        BH(&w);
        emit(names[i], &w);
    }

    /* Page addresses for all MRs together run out. */
    w.n = 0;
    fzw_u8(&w, 0);
    c_pd(&w, -1);
    for (i = 0; i < 2; i++) {
        c_mr(&w, (uint8_t)(1 + i), 0, 0x9000, 16, QRNIC_PBL_CONTIG, 0, 0);
    }
    c_handle(&w, QRNIC_CMD_DEREG_MR, 0);
    {
        static const uint8_t l2[8] = { QRNIC_PBL_LEVEL2, 0, 0, 0, 60, 0,
                                       0xff, 1 };

        c_cq_pbl(&w, 15, l2, -1, 0);                /* misaligned leaf */
    }
    emit("mtt-exhausted", &w);

    /* The admin rings moved nowhere; the Ethernet rings nowhere. */
    w.n = 0;
    fzw_u8(&w, 0);
    o_reg(&w, 0, 0, 0);                             /* CTRL = 0: cleared */
    o_reg(&w, 6, 4, 0);                             /* SQ where it was */
    o_reg(&w, 8, 0xf0, 0x1000);                     /* CQ nowhere */
    o_reg(&w, 10, 6, 0);
    o_reg(&w, 0, 2, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    o_reg(&w, 0, 0, 0);
    o_reg(&w, 6, 0xf0, 0x2000);                     /* SQ nowhere */
    o_reg(&w, 8, 5, 0);
    o_reg(&w, 10, 6, 0);
    o_reg(&w, 0, 2, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    RESET(&w, 1);
    cmd(&w, QRNIC_CMD_ETH_SETUP, 0);
    ga(&w, GA_NONE);
    ga(&w, GA_NONE);
    fzw_u8(&w, 2);
    fzw_u8(&w, 2);
    fzw_u8(&w, 1);
    fzw_u8(&w, 0);
    o_db(&w, 0, 4, 0, 1, 0);                        /* TX: unreadable */
    BH(&w);
    o_db(&w, 0, 5, 0, 1, 0);                        /* RX: unreadable */
    o_frame(&w, 0, 60, 1);
    emit("rings-nowhere", &w);

    /* UD and GSI QPs by admin command: every type value (UD, GSI, UC;
     * SMI, 9 and a raw one refused), a second GSI QP, a GSI QP from a
     * user context, a UD QP from one; their state machines with Q_Keys,
     * masks they refuse (PORT on QP 1, an AV, access flags, RETRY_CNT, a
     * wrong current state, every bit) and take; QP 1 destroyed and made
     * again. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);
    c_cq(&w, 2, 25, 0, 1);
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 0, .rq_page = 1,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 2, .sq_page = 2, .rq_page = 3,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 2, .sq_page = 4, .rq_page = 5,
                              .lsq = 2, .lrq = 2 });          /* 2nd GSI */
    c_qp(&w, (struct qpargs){ .type = 2, .pd = 1, .scq = 1, .rcq = 1,
                              .uc = 1, .sq_page = 4, .rq_page = 5,
                              .lsq = 2, .lrq = 2 });          /* user GSI */
    c_qp(&w, (struct qpargs){ .type = 1, .pd = 1, .scq = 1, .rcq = 1,
                              .uc = 1, .sq_page = 4, .rq_page = 5,
                              .lsq = 2, .lrq = 2 });          /* user UD */
    for (i = 0; i < 4; i++) {
        static const uint8_t types[4] = { 0x80, 3, 0x89, 0xfc };

        c_qp(&w, (struct qpargs){ .type = types[i], .sq_page = 6,
                                  .rq_page = 7, .lsq = 2, .lrq = 2 });
    }
    /* The UD QP (handle 0) */
    c_modify(&w, 0, MK_GSI_INIT, ud_attr(QRNIC_QPS_INIT, 0x1234));
    c_modify(&w, 0, 0, ud_attr(QRNIC_QPS_INIT, 0x1234));
    c_modify(&w, 0, MK_UD_INIT, ud_attr(QRNIC_QPS_INIT, 0x1234));
    c_modify(&w, 0, MK_UD_INIT, ud_attr(QRNIC_QPS_INIT, 0x4321));
    c_modify(&w, 0, 1, ud_attr(QRNIC_QPS_RTR, 0x4321));
    c_modify(&w, 0, MK_GSI_INIT, ud_attr(QRNIC_QPS_RTR, 0x80000001u));
    c_modify(&w, 0, MK_STATE, ud_attr(QRNIC_QPS_RTS, 0));
    c_modify(&w, 0, 2, ud_attr(QRNIC_QPS_RTS, 0));
    c_modify(&w, 0, MK_RTS, ud_attr(QRNIC_QPS_RTS, 0));
    c_modify(&w, 0, MK_QKEY, ud_attr(0, 0x11223344));
    c_modify(&w, 0, MK_STATE_QKEY, ud_attr(QRNIC_QPS_RTS, 0xffffffffu));
    c_modify(&w, 0, 5, ud_attr(QRNIC_QPS_RTS, 0));
    c_modify(&w, 0, MK_SQD, ud_attr(QRNIC_QPS_SQD, 0));
    c_modify(&w, 0, MK_STATE_QKEY, ud_attr(QRNIC_QPS_SQD, 7));
    c_modify(&w, 0, 6, ud_attr(QRNIC_QPS_SQD, 7));
    c_modify(&w, 0, MK_STATE_QKEY, ud_attr(QRNIC_QPS_RTS, 8));
    c_query_qp(&w, 0, GA_PAGE(31));
    c_modify_raw(&w, 0, 0xffffffffu, ud_attr(QRNIC_QPS_RTS, 9));
    c_modify_raw(&w, 0, QRNIC_QP_ATTR_SUPPORTED, ud_attr(QRNIC_QPS_RTS, 9));
    c_modify_raw(&w, 0, M(STATE) | M(CUR_STATE) | M(QKEY),
                 ud_attr(QRNIC_QPS_RTS, 9));
    c_modify_raw(&w, 0, M(STATE) | M(RETRY_CNT), ud_attr(QRNIC_QPS_RTS, 9));
    /* QP 1 (handle 1) */
    c_modify(&w, 1, MK_UD_INIT, ud_attr(QRNIC_QPS_INIT, 0x80010000u));
    c_modify(&w, 1, MK_GSI_INIT, ud_attr(QRNIC_QPS_INIT, 0x80010000u));
    c_modify(&w, 1, MK_STATE, ud_attr(QRNIC_QPS_RTR, 0));
    c_modify(&w, 1, MK_RTS, ud_attr(QRNIC_QPS_RTS, 0));
    c_modify(&w, 1, MK_SQD, ud_attr(QRNIC_QPS_SQD, 0));
    c_modify_raw(&w, 1, M(STATE) | M(PKEY_INDEX) | M(QKEY) | M(PORT),
                 ud_attr(QRNIC_QPS_SQD, 1));
    c_modify(&w, 1, MK_STATE, ud_attr(QRNIC_QPS_RTS, 0));
    c_query_qp(&w, 1, GA_PAGE(31));
    c_modify(&w, 1, MK_STATE, ud_attr(QRNIC_QPS_ERR, 0));
    c_modify(&w, 1, MK_STATE, ud_attr(QRNIC_QPS_RESET, 0));
    /* The user UD QP (handle 2) */
    c_modify(&w, 2, MK_UD_INIT, ud_attr(QRNIC_QPS_INIT, 0x55));
    c_modify(&w, 2, MK_STATE, ud_attr(QRNIC_QPS_SQE, 0));
    c_modify(&w, 2, MK_STATE, ud_attr(QRNIC_QPS_ERR, 0));
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 1);
    c_qp(&w, (struct qpargs){ .type = 2, .sq_page = 2, .rq_page = 3,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_query_qp(&w, 4, GA_PAGE(31));
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    for (i = 4; i >= 0; i--) {
        c_handle(&w, QRNIC_CMD_DESTROY_QP, (uint8_t)i);
    }
    emit("ud-gsi-qps", &w);

    /* Datagrams through the device's own receive path: a UD QP to itself
     * (its own Q_Key), to a second UD QP (SEND_WITH_IMM), to QP 1 (without
     * QP 1's Q_Key: dropped), QP 1 to itself, over IPv6, inline, to a MAC
     * not ours, to a QPN nobody has; then, each putting its QP in error
     * (before its own datagrams come back through the backlog), longer
     * than the UD MTU (1024), IPv6 from an IPv4 GID, RDMA WRITE; with MTU
     * 9000, 4096 bytes. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_gid(&w, 1, 0, 2);
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 0, .rq_page = 1,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 2, .sq_page = 2, .rq_page = 3,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 4, .rq_page = 5,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    ud_up(&w, 0, false, 0x11223344);
    ud_up(&w, 1, true, 0x80010000u);
    ud_up(&w, 2, false, 0x11223344);
    for (i = 0; i < 6; i++) {
        o_wqe(&w, 3, 1, (uint8_t)i, 0, 0, 0, 1, 0, (uint16_t)(i * 4200),
              4200, 0);
    }
    o_wqe(&w, 3, 3, 0, 1, 0, 0, 1, 0, 30000, 1000, 0);
    o_wqe(&w, 3, 5, 0, 2, 0, 0, 1, 0, 32000, 1000, 0);
    o_wqe(&w, 3, 5, 1, 2, 0, 0, 1, 0, 40000, 4200, 0);
    /* roff picks the address vector (see op_wqe) */
    o_wqe(&w, 10, 0, 0, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 100, 0);
    o_wqe(&w, 10, 0, 1, 0, QRNIC_WR_SEND_IMM, 3, 1, 0, 0, 200, 2 | 2 << 8);
    o_wqe(&w, 10, 0, 2, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 1 | 2 << 2);
    o_wqe(&w, 10, 2, 0, 1, QRNIC_WR_SEND, 1, 1, 0, 0, 256, 1 | 2 << 2);
    o_wqe(&w, 10, 0, 3, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 300, 0x10 | 1 << 5);
    o_wqe(&w, 10, 0, 4, 0, QRNIC_WR_SEND, 5, 0, 0, 0, 40, 0);
    o_wqe(&w, 10, 0, 5, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 0x80);
    o_wqe(&w, 10, 0, 6, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 3 | 0x300);
    BH(&w);
    BH(&w);
    o_wqe(&w, 10, 0, 7, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 1025, 0);
    o_wqe(&w, 10, 2, 1, 1, QRNIC_WR_RDMA_WRITE, 1, 1, 0, 0, 64, 0);
    BH(&w);
    cmd(&w, QRNIC_CMD_SET_MTU, 0);
    fzw_u16(&w, 9000);
    o_wqe(&w, 10, 4, 0, 2, QRNIC_WR_SEND, 1, 1, 0, 0, 4096, 0);
    BH(&w);
    o_wqe(&w, 10, 4, 1, 2, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 0x10);
    BH(&w);
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    emit("ud-self-traffic", &w);

    /* ---- shared receive queues ---- */

    /* SRQ commands: valid ones (kernel, user, with a limit, depth 1);
     * refused: PD (none, a user's, the kernel's for a user), no such
     * context, depth 2^15, a raw stride, limits at and past the depth,
     * reserved bits, queue memory past the end, misaligned, on a QP's SQ,
     * on another SRQ, too big; a QP on an SRQ's pages; MODIFY_SRQ and
     * QUERY_SRQ of every kind; DESTROY_SRQ, DEALLOC_PD and DEALLOC_UCTX
     * while in use; destroyed twice; a reset drops them. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);
    c_cq(&w, 2, 25, 0, 1);
    c_qp(&w, (struct qpargs){ .sq_page = 0, .rq_page = 1, .lsq = 4,
                              .lss = 1, .lrq = 4, .lrs = 1 });
    c_srq(&w, 0, -1, 8, 4, 1, LIM_NONE, 0, 0);              /* SRQ 0 */
    c_srq(&w, 0, -1, 9, 3, 1, LIM_MAX, 0, 0);               /* 1: limit 7 */
    c_srq(&w, 1, 0, 10, 2, 0, LIM_IN, 1, 0);                /* 2: user */
    c_srq(&w, 0, -1, 11, 0, 0, LIM_NONE, 0, 0);             /* 3: depth 1 */
    cmd(&w, QRNIC_CMD_CREATE_SRQ, 0);                       /* no such PD */
    hd_raw(&w, 77);
    uctx(&w, -1);
    fzw_fill(&w, 0, 7);
    c_srq(&w, 1, -1, 12, 2, 0, LIM_NONE, 0, 0);             /* a user's PD */
    c_srq(&w, 0, 0, 12, 2, 0, LIM_NONE, 0, 0);              /* kernel PD */
    cmd(&w, QRNIC_CMD_CREATE_SRQ, 0);                       /* no context */
    hd(&w, 0);
    fzw_u8(&w, 1);
    hd_raw(&w, 9);
    fzw_u8(&w, 12);
    fzw_fill(&w, 0, 6);
    c_srq(&w, 0, -1, 12, 15, 0, LIM_NONE, 0, 0);            /* 2^15 WQEs */
    c_srq(&w, 0, -1, 12, 2, 0xf3, LIM_NONE, 0, 0);          /* stride */
    c_srq(&w, 0, -1, 12, 2, 0, LIM_DEPTH, 0, 0);            /* limit 4 */
    c_srq(&w, 0, -1, 12, 2, 0, LIM_DEPTH | 4, 100, 0);      /* limit 104 */
    c_srq(&w, 0, -1, 12, 2, 0, LIM_RAW, 0x1234, 0);
    c_srq(&w, 0, -1, 12, 2, 0, LIM_NONE, 0, 0xff);          /* reserved */
    c_srq(&w, 0, -1, QMEM_PAGES, 2, 0, LIM_NONE, 0, 0);     /* past end */
    c_srq(&w, 0, -1, 0xf1, 2, 0, LIM_NONE, 0, 0);           /* misaligned */
    c_srq(&w, 0, -1, 0, 2, 0, LIM_NONE, 0, 0);              /* QP's SQ */
    c_srq(&w, 0, -1, 8, 2, 0, LIM_NONE, 0, 0);              /* SRQ 0's */
    c_srq(&w, 0, -1, 12, 14, 4, LIM_NONE, 0, 0);            /* 4 MiB */
    c_qp(&w, (struct qpargs){ .sq_page = 9, .rq_page = 13, .lsq = 4,
                              .lss = 1, .lrq = 4, .lrs = 1 });
    c_srq_limit(&w, 0, LIM_IN, 5);                          /* 6 */
    c_srq_limit(&w, 0, LIM_MAX, 0);                         /* 15 */
    c_srq_limit(&w, 0, LIM_DEPTH, 0);                       /* 16 */
    c_srq_limit(&w, 0, LIM_NONE, 0);
    c_srq_limit(&w, 3, LIM_IN, 0);                          /* depth 1 */
    c_srq_limit(&w, 3, LIM_MAX, 0);                         /* 0 */
    c_srq_limit(&w, 0, LIM_RAW | 5, 3);
    cmd(&w, QRNIC_CMD_MODIFY_SRQ, 0);
    hd_raw(&w, 0x3ff);
    fzw_fill(&w, 0, 6);
    cmd(&w, QRNIC_CMD_MODIFY_SRQ, 0);
    hd_raw(&w, 0);
    fzw_fill(&w, 0, 6);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 1);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 2);
    cmd(&w, QRNIC_CMD_QUERY_SRQ, 0);
    hd_raw(&w, 0x400);
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .sq_page = 2,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* QP 1 */
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);                 /* in use */
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 0);
    c_handle(&w, QRNIC_CMD_DEALLOC_UCTX, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 1);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);                 /* twice */
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 2);
    cmd(&w, QRNIC_CMD_DESTROY_SRQ, 0);
    hd_raw(&w, 0xfffff);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    RESET(&w, 1);
    objects(&w);
    c_srq(&w, 0, -1, 8, 4, 1, LIM_IN, 3, 0);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("srq-commands", &w);

    /* CREATE_QP with an SRQ: RC, UD and UC on one (no RQ), GSI on one, an
     * RQ as well (refused; with RQ offset and depth 0: taken), srqns
     * nobody has, a user QP on the kernel's SRQ and the other way round, a
     * user QP on its own; the RQ doorbell of a QP on an SRQ; SRQ doorbells:
     * right, past the depth, any index, foreign and user pages, arm and
     * high bits, 4 bytes; an SRQ destroyed under its QPs, then gone. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    cmd(&w, QRNIC_CMD_ALLOC_UCTX, 0);
    c_pd(&w, 0);
    c_cq(&w, 2, 25, 0, 1);
    c_srq(&w, 0, -1, 8, 4, 1, LIM_NONE, 0, 0);              /* SRQ 0 */
    c_srq(&w, 1, 0, 9, 4, 1, LIM_NONE, 0, 0);               /* 1: user */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .sq_page = 0,
                              .rq_page = 1, .lsq = 4, .lss = 1, .lrq = 4,
                              .lrs = 1 });                  /* QP 0: RC */
    c_qp(&w, (struct qpargs){ .type = TSRQ(1, SQ_ONLY, 0), .sq_page = 1,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* 1: UD */
    c_qp(&w, (struct qpargs){ .type = TSRQ(3, SQ_ONLY, 0), .sq_page = 2,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* 2: UC */
    c_qp(&w, (struct qpargs){ .type = TSRQ(2, SQ_ONLY, 0), .sq_page = 3,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* GSI */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_WITH_RQ, 0), .sq_page = 4,
                              .rq_page = 5, .lsq = 2, .lrq = 2 });
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_WITH_RQ, 0), .sq_page = 4,
                              .rq_page = 5, .lsq = 2 });        /* RQ off */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_WITH_RQ, 0), .sq_page = 4,
                              .lsq = 2, .lrq = 2 });            /* RQ log */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_WITH_RQ, 0), .sq_page = 4,
                              .lsq = 2, .lrs = 0xf1 });         /* stride */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_WITH_RQ, 0), .sq_page = 4,
                              .lsq = 2 });                      /* 3: taken */
    for (i = 0; i < 8; i++) {
        c_qp(&w, (struct qpargs){ .type = TSRQ(i % 4 == 2 ? 3 : 0, SQ_RAW, i),
                                  .sq_page = 5, .lsq = 2 });
    }
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .pd = 1, .scq = 1,
                              .rcq = 1, .uc = 1, .sq_page = 5,
                              .lsq = 2 });          /* user QP, kernel SRQ */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 1), .sq_page = 5,
                              .lsq = 2 });          /* kernel QP, user SRQ */
    c_qp(&w, (struct qpargs){ .type = TSRQ(3, SQ_ONLY, 1), .pd = 1, .scq = 1,
                              .rcq = 1, .uc = 1, .sq_page = 5,
                              .lsq = 2 });          /* 4: user UC on its own */
    memset(&a, 0, sizeof(a));
    a.state = QRNIC_QPS_INIT;
    a.access = QRNIC_ACCESS_REMOTE_WRITE;
    c_modify(&w, 0, 0, a);
    o_db(&w, 0, 1, 0, 1, 0);                        /* RQ doorbell: none */
    o_db(&w, 0, 0, 0, 1, 0);                        /* SQ doorbell: fine */
    o_db(&w, 0, DB_SRQ_OFF, 0, 3, 0);               /* SRQ 0: 3 posted */
    o_db(&w, 0, DB_SRQ_OFF, 0, 2, 0);               /* backwards */
    o_db(&w, 0, DB_SRQ_OFF, 0, 20, 0);              /* past the depth */
    o_db(&w, 0, DB_SRQ_OFF, 0, 19, 0);              /* exactly the depth */
    o_db(&w, 0, DB_SRQ_OFF, 0, 0xffff, 0);
    o_db(&w, 1, DB_SRQ_OFF, 0, 20, 0);              /* a user's page */
    o_db(&w, 3, DB_SRQ_OFF, 0, 20, 0);              /* nobody's page */
    o_db(&w, 1, DB_SRQ_OFF, 0, 4, 1);               /* user SRQ, its page */
    o_db(&w, 0, DB_SRQ_OFF, 0, 5, 1);               /* ... page 0 */
    o_db(&w, 0, DB_SRQ_OFF, 1, 20, 0);              /* arm bit */
    o_db(&w, 0, DB_SRQ_OFF, 0xf0, 20, 0);           /* high bits */
    o_db(&w, 0, DB_SRQ_OFF, 0xff, 20, 0);           /* 4 bytes */
    fzw_u8(&w, OP_DOORBELL);                        /* SRQ nobody has */
    fzw_u8(&w, 0);
    fzw_u8(&w, DB_SRQ_OFF);
    fzw_u8(&w, 0);
    fzw_u16(&w, 1);
    fzw_u16(&w, 0);
    hd_raw(&w, 0x3ff);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);         /* QPs 0-2 on it */
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 1);         /* QP 4 */
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    for (i = 0; i < 3; i++) {
        c_handle(&w, QRNIC_CMD_DESTROY_QP, (uint8_t)i);
    }
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);         /* QP 3 still on it */
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 3);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .sq_page = 0,
                              .lsq = 2 });          /* its SRQ is gone */
    c_handle(&w, QRNIC_CMD_DEALLOC_PD, 0);          /* the MR uses it */
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("srq-qps-doorbells", &w);

    /* Traffic through an SRQ on the device's own receive path: an RC QP
     * connected to itself and a UD QP on one SRQ of 8 (limit 3); a
     * 3-packet SEND, a datagram to itself, WRITE_WITH_IMM (each takes a
     * WQE: the limit event), more WQEs posted, the limit armed again,
     * doorbells past the depth and on a wrong page, a SEND longer than its
     * WQE (LOC_LEN_ERR, ERR: the SRQ's other WQEs stay for the UD QP), an
     * empty SRQ (datagram dropped), ERR, then DESTROY_SRQ refused. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_srq(&w, 0, -1, 8, 3, 1, LIM_IN, 2, 0);                /* limit 3 */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .sq_page = 0,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* QP 0 */
    c_qp(&w, (struct qpargs){ .type = TSRQ(1, SQ_ONLY, 0), .sq_page = 2,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* QP 1 */
    connect(&w, 0, 0, 3, 3, 0, 0);
    ud_up(&w, 1, false, 0x11223344);
    for (i = 0; i < 4; i++) {
        o_wqe(&w, WQE_SRQ_RING, 8, (uint8_t)i, 0, 0, 0, 1, 0,
              (uint16_t)(i * 4200), 4200, 0);
    }
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_SEND, 3, 1, 0, 20000, 3000, 0);
    BH(&w);
    o_wqe(&w, 10, 2, 0, 1, QRNIC_WR_SEND_IMM, 1, 1, 0, 30000, 100, 0);
    BH(&w);
    o_wqe(&w, 2, 0, 1, 0, QRNIC_WR_RDMA_WRITE_IMM, 1, 1, 0, 0, 64, 200);
    BH(&w);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    for (i = 4; i < 8; i++) {
        o_wqe(&w, WQE_SRQ_RING, 8, (uint8_t)i, 0, 0, 0, 1, 0,
              (uint16_t)(i * 4200), 4200, 0);
    }
    c_srq_limit(&w, 0, LIM_IN, 3);                          /* 4 */
    o_db(&w, 0, DB_SRQ_OFF, 0, 20, 0);              /* past the depth */
    o_db(&w, 1, DB_SRQ_OFF, 0, 8, 0);               /* not its page */
    o_wqe(&w, 10, 2, 1, 1, QRNIC_WR_SEND, 1, 1, 0, 30000, 200, 0);
    BH(&w);
    o_wqe(&w, 2, 0, 2, 0, QRNIC_WR_SEND, 1, 1, 0, 20000, 5000, 0);
    BH(&w);
    BH(&w);
    for (i = 2; i < 6; i++) {
        o_wqe(&w, 10, 2, (uint8_t)i, 1, QRNIC_WR_SEND, 1, 1, 0, 30000, 64, 0);
    }
    BH(&w);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);
    c_modify(&w, 1, MK_STATE, ud_attr(QRNIC_QPS_ERR, 0));
    BH(&w);
    TIMER(&w, 40);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("srq-self-traffic", &w);

    /* Multicast groups: UD QPs attached to IPv4 and IPv6 groups (twice is
     * fine); refused: an RC QP, the GSI QP, no QP, reserved bits, unicast
     * and link-local GIDs, 223.255.255.x and 240.0.0.x, a mapped prefix
     * one bit off, raw bytes; detached twice; 64 groups and the 65th
     * (NO_RESOURCES); an attached QP destroyed (out of every group), its
     * handle attached again (BAD_HANDLE); a group freed and taken again. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_gid(&w, 1, 0, 2);
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 0, .rq_page = 1,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 2, .rq_page = 3,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 0, .sq_page = 4, .rq_page = 5,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 2, .sq_page = 6, .rq_page = 7,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_mcast(&w, true, 0, 0, MG_V4(1), 7);
    c_mcast(&w, true, 1, 0, MG_V4(1), 7);
    c_mcast(&w, true, 1, 0, MG_V4(1), 7);
    c_mcast(&w, true, 0, 0, MG_V6(14), 7);
    c_mcast(&w, true, 2, 0, MG_V4(1), 7);
    c_mcast(&w, true, 3, 0, MG_V4(1), 7);
    c_mcast(&w, true, -0x3ff, 0, MG_V4(1), 7);
    c_mcast(&w, true, 0, FZ_RAW, MG_V4(1), 7);
    c_mcast(&w, true, 0, 0, MG_OURS, 0);
    c_mcast(&w, true, 0, 0, MG_LINKLOCAL, 1);
    c_mcast(&w, true, 0, 0, MG_223, 1);
    c_mcast(&w, true, 0, 0, MG_240, 1);
    c_mcast(&w, true, 0, 0, MG_PREFIX, 1);
    c_mcast(&w, true, 0, 0, FZ_RAW, 0);
    fzw_fill(&w, 0xff, 16);
    c_mcast(&w, false, 1, 0, MG_V6(14), 7);
    c_mcast(&w, false, 1, 0, MG_V4(1), 7);
    c_mcast(&w, false, 1, 0, MG_V4(1), 7);
    c_mcast(&w, false, 2, 0, MG_V4(1), 7);
    c_mcast(&w, true, 1, 0, MG_V4(1), 7);
    for (i = 0; i < 64; i++) {
        c_mcast(&w, true, 1, 0, MG_V4(0), (uint8_t)i);
    }
    c_mcast(&w, false, 1, 0, MG_V4(0), 5);
    c_mcast(&w, true, 0, 0, MG_V6(2), 1);
    c_mcast(&w, true, 0, 0, MG_V6(5), 1);
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 1);
    c_mcast(&w, true, 1, 0, MG_V4(1), 7);
    c_mcast(&w, true, 0, 0, MG_V6(5), 1);
    c_mcast(&w, true, 0, 0, MG_V6(5), 2);
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 0);
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    emit("mcast-groups", &w);

    /* Multicast through the device's own receive path: two UD QPs in
     * 239.1.7.7 and ff0e::7 with receive WQEs, one of them only in the
     * IPv4 group; datagrams to both groups, to one nobody joined, under a
     * MAC one bit off; a member in ERR, then destroyed with datagrams to
     * it still in the backlog. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_gid(&w, 1, 0, 2);
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 0, .rq_page = 1,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 2, .rq_page = 3,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    ud_up(&w, 0, false, 0x11223344);
    ud_up(&w, 1, false, 0x11223344);
    c_mcast(&w, true, 0, 0, MG_V4(1), 7);
    c_mcast(&w, true, 1, 0, MG_V4(1), 7);
    c_mcast(&w, true, 0, 0, MG_V6(14), 7);
    for (i = 0; i < 6; i++) {
        o_wqe(&w, 3, 1, (uint8_t)i, 0, 0, 0, 1, 0, (uint16_t)(i * 4200),
              4200, 0);
        o_wqe(&w, 3, 3, (uint8_t)i, 1, 0, 0, 1, 0,
              (uint16_t)(30000 + i * 4200), 4200, 0);
    }
    o_wqe(&w, 0x2a, 0, 0, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 100, 7 << 8);
    o_wqe(&w, 0x2a, 2, 0, 1, QRNIC_WR_SEND_IMM, 3, 1, 0, 0, 200,
          0x10 | 1 << 5 | 7 << 8);
    o_wqe(&w, 0x2a, 0, 1, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 9 << 8);
    o_wqe(&w, 0x2a, 0, 2, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 0x80 | 7 << 8);
    o_wqe(&w, 0x2a, 2, 1, 1, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 0x10 | 7 << 8);
    BH(&w);
    BH(&w);
    c_modify(&w, 1, MK_STATE, ud_attr(QRNIC_QPS_ERR, 0));
    o_wqe(&w, 0x2a, 0, 3, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 300, 7 << 8);
    BH(&w);
    o_wqe(&w, 0x2a, 0, 4, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 300, 7 << 8);
    o_wqe(&w, 0x2a, 0, 5, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 300, 7 << 8);
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 0);
    BH(&w);
    BH(&w);
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    emit("mcast-self-traffic", &w);

    /* RESIZE_CQ while traffic fills the CQ (64 CQEs, nobody polls): UD
     * datagrams to itself leave 12 unconsumed; refused: a depth below them
     * (4), log 0 and 16, a page list one page short, LEVEL1 nowhere, a
     * consumer index ahead of the producer's, reserved bits, no CQ; taken:
     * 16 CQEs, with the record's consumer index the device's, then more
     * traffic fills and overflows it, and it moves again (overflowed) to
     * 256 with everything consumed, and through a LEVEL1 list. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_qp(&w, (struct qpargs){ .type = 1, .sq_page = 0, .rq_page = 1,
                              .lsq = 4, .lss = 1, .lrq = 4, .lrs = 1 });
    ud_up(&w, 0, false, 0x11223344);
    for (i = 0; i < 6; i++) {
        o_wqe(&w, 3, 1, (uint8_t)i, 0, 0, 0, 1, 0, (uint16_t)(i * 4200),
              4200, 0);
        o_wqe(&w, 10, 0, (uint8_t)i, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 100, 0);
    }
    BH(&w);
    BH(&w);
    c_resize(&w, 0, 2, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), 0, 0, 0);
    c_resize(&w, 0, 0, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), 0, 0, 0);
    c_resize(&w, 0, 16, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), 0, 0, 0);
    c_resize(&w, 0, 9, QRNIC_PBL_CONTIG, 3, GA_PAGE(130), 0, 0, 0);
    c_resize(&w, 0, 9, QRNIC_PBL_LEVEL1, 0, GA_NONE, 0, 0, 0);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), 0, 3, 300);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), FZ_RAW + 1,
             0, 0);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), 0, 2, 13);
    cmd(&w, QRNIC_CMD_RESIZE_CQ, 0);
    hd_raw(&w, 0x3ff);
    fzw_u8(&w, 4);
    pb(&w, QRNIC_PBL_CONTIG, 0, 0, GA_PAGE(130), 0, 1);
    fzw_u8(&w, 0);
    fzw_u8(&w, 0);
    fzw_u16(&w, 0);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_PAGE(130), 0, 0, 0);
    for (i = 6; i < 16; i++) {
        o_wqe(&w, 3, 1, (uint8_t)i, 0, 0, 0, 1, 0,
              (uint16_t)((i - 6) * 4200), 4200, 0);
        o_wqe(&w, 10, 0, (uint8_t)i, 0, QRNIC_WR_SEND, 1, 1, 0, 0, 64, 0);
    }
    BH(&w);
    BH(&w);
    c_resize(&w, 0, 8, QRNIC_PBL_CONTIG, 0, GA_PAGE(140), 0, 1, 0);
    c_resize(&w, 0, 6, QRNIC_PBL_LEVEL1, 0, GA_PAGE(0), 0, 1, 0);
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    emit("resize-cq-traffic", &w);

    /* RESIZE_CQ to a buffer whose record is past the end of RAM (the page
     * list itself is fine: DMA_ERROR when the device reads the consumer
     * index), onto queue memory and onto BAR0; then a good one. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_END(0), 0, 0, 0);
    c_resize(&w, 0, 7, QRNIC_PBL_CONTIG, 0, GA_END(0x1000), 0, 0, 0);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_QMEM(15), 0, 0, 0);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_BAR0(0), 0, 0, 0);
    c_resize(&w, 0, 4, QRNIC_PBL_CONTIG, 0, GA_PAGE(150), 0, 0, 0);
    c_query(&w, QRNIC_CMD_QUERY_STATS, GA_PAGE(30));
    emit("resize-cq-record-nowhere", &w);

    /* SRQ resize under traffic: an SRQ of 8 (page 8) with an RC QP
     * connected to itself and a UD QP on it; 6 WQEs posted, one taken;
     * RESIZE to 32 WQEs on page 14; refused: its own page, a QP's SQ, past
     * queue memory, misaligned, 1 << 15, 4 WQEs (5 not taken), no mask,
     * unknown mask bits, a reserved byte, a limit of the new depth; the
     * new ring filled (32 posted: the doorbell takes it, 33 not), messages
     * and datagrams take all but 3; RESIZE with LIMIT to 4 WQEs on page
     * 15, one more posted there, more taken; the first ring's page taken
     * by a new SRQ, which moves to a ring of one. */
    w.n = 0;
    fzw_u8(&w, 0);
    objects(&w);
    c_srq(&w, 0, -1, 8, 3, 1, LIM_IN, 2, 0);                /* limit 3 */
    c_qp(&w, (struct qpargs){ .type = TSRQ(0, SQ_ONLY, 0), .sq_page = 0,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* QP 0 */
    c_qp(&w, (struct qpargs){ .type = TSRQ(1, SQ_ONLY, 0), .sq_page = 2,
                              .lsq = 4, .lss = 1, .lrs = 1 });  /* QP 1 */
    connect(&w, 0, 0, 3, 3, 0, 0);
    ud_up(&w, 1, false, 0x11223344);
    for (i = 0; i < 6; i++) {
        o_wqe(&w, WQE_SRQ_RING, 8, (uint8_t)i, 0, 0, 0, 1, 0,
              (uint16_t)(i * 2000), 2000, 0);
    }
    o_wqe(&w, 2, 0, 0, 0, QRNIC_WR_SEND, 1, 1, 0, 20000, 1500, 0);
    BH(&w);
    c_srq_mod(&w, 0, MOD_RESIZE, 14, 5, LIM_NONE, 0);       /* taken */
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    c_srq_mod(&w, 0, MOD_RESIZE, 14, 4, LIM_NONE, 0);       /* its own */
    c_srq_mod(&w, 0, MOD_RESIZE, 0, 3, LIM_NONE, 0);        /* QP 0's SQ */
    c_srq_mod(&w, 0, MOD_RESIZE, QMEM_PAGES - 1, 9, LIM_NONE, 0);
    c_srq_mod(&w, 0, MOD_RESIZE, 0xf3, 3, LIM_NONE, 0);     /* misaligned */
    c_srq_mod(&w, 0, MOD_RESIZE, 15, 15, LIM_NONE, 0);      /* 1 << 15 */
    c_srq_mod(&w, 0, MOD_RESIZE, 15, 2, LIM_NONE, 0);       /* too small */
    c_srq_mod(&w, 0, MOD_NONE, 15, 3, LIM_NONE, 0);
    c_srq_mod(&w, 0, 0xf2, 15, 3, LIM_NONE, 0);             /* unknown bits */
    c_srq_mod(&w, 0, MOD_RESIZE, 15, 0xe3, LIM_NONE, 0);    /* reserved */
    c_srq_mod(&w, 0, MOD_BOTH, 15, 2, LIM_IN, 3);           /* limit 4 */
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    for (i = 6; i < 33; i++) {      /* index 32 is slot 0 */
        o_wqe(&w, WQE_SRQ_RING & ~2, 14, (uint8_t)(i % 32), 0, 0, 0, 1, 0,
              (uint16_t)(i * 2000), 2000, 0);
    }
    o_db(&w, 0, DB_SRQ_OFF, 0, 33, 0);              /* 32 posted */
    o_db(&w, 0, DB_SRQ_OFF, 0, 34, 0);              /* 33: refused */
    for (i = 1; i < 8; i++) {
        o_wqe(&w, 2, 0, (uint8_t)i, 0, QRNIC_WR_SEND, 1, 1, 0, 20000,
              (uint16_t)(100 * i), 0);
    }
    for (i = 0; i < 8; i++) {
        o_wqe(&w, 10, 2, (uint8_t)i, 1, QRNIC_WR_SEND_IMM, 1, 1, 0, 30000,
              100, 0);
    }
    BH(&w);
    BH(&w);
    for (i = 8; i < 16; i++) {
        o_wqe(&w, 2, 0, (uint8_t)i, 0, QRNIC_WR_SEND, 1, 1, 0, 20000, 64, 0);
        BH(&w);
    }
    for (i = 8; i < 14; i++) {
        o_wqe(&w, 10, 2, (uint8_t)i, 1, QRNIC_WR_SEND, 1, 1, 0, 30000, 64, 0);
    }
    BH(&w);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);                   /* 3 left */
    c_srq_mod(&w, 0, MOD_BOTH, 15, 2, LIM_IN, 1);           /* limit 2 */
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    o_wqe(&w, WQE_SRQ_RING & ~2, 15, 1, 0, 0, 0, 1, 0, 0, 2000, 0);
    o_db(&w, 0, DB_SRQ_OFF, 0, 34, 0);              /* index 33: 4 posted */
    for (i = 14; i < 16; i++) {
        o_wqe(&w, 10, 2, (uint8_t)i, 1, QRNIC_WR_SEND, 1, 1, 0, 30000, 64, 0);
        BH(&w);
    }
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 0);
    c_srq(&w, 0, -1, 8, 3, 1, LIM_NONE, 0, 0);              /* old page */
    c_srq_mod(&w, 1, MOD_RESIZE, 9, 0, LIM_NONE, 0);        /* SRQ 1: 1 */
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 0);
    c_handle(&w, QRNIC_CMD_DESTROY_QP, 1);
    c_handle(&w, QRNIC_CMD_DESTROY_SRQ, 0);
    c_handle(&w, QRNIC_CMD_QUERY_SRQ, 1);
    c_query(&w, QRNIC_CMD_QUERY_RES, GA_PAGE(30));
    emit("srq-resize", &w);

    /* FLUSH and ATOMIC WRITE on the QP connected to itself (MR 0 allows
     * FLUSH_GLOBAL; flags bits 4-5 the type, 6 the level): a range, the
     * MR level, ATOMIC WRITE aligned, then unaligned (refused); FLUSH
     * PERSISTENT (refused). */
    for (i = 0; i < 2; i++) {
        w.n = 0;
        fzw_u8(&w, 0);
        objects(&w);
        self_qp(&w, 0, 3, 3);
        if (i) {
            o_wqe(&w, 2, 0, 0, 0, OPSEL_FLUSH, 0x21, 0, 0, 0, 0, 64);
        } else {
            o_wqe(&w, 2, 0, 0, 0, OPSEL_FLUSH, 0x11, 0, 0, 0, 0, 4096);
            o_wqe(&w, 2, 0, 1, 0, OPSEL_FLUSH, 0x51, 0, 0, 0, 0, 0xffff);
            o_wqe(&w, 2, 0, 2, 0, OPSEL_AW, 0x01, 0, 0, 77, 0, 64);
            BH(&w);
            o_wqe(&w, 2, 0, 3, 0, OPSEL_AW, 0x01, 0, 0, 77, 0, 68);
        }
        BH(&w);
        TIMER(&w, 40);
        emit(i ? "flush-persistent-self" : "flush-aw-self", &w);
    }

    /* FLUSH and ATOMIC WRITE to a region whose pages are nowhere: the
     * FLUSH moves no data (succeeds), the ATOMIC WRITE's DMA fails. */
    {
        static const uint8_t nowhere[8] = { QRNIC_PBL_CONTIG, 0, 0, GA_NONE,
                                            0, 1 };

        w.n = 0;
        fzw_u8(&w, 0);
        objects(&w);
        c_mr2(&w, 5, 0, 16, 12, nowhere, 0, MR_ACCESS_ALL);
        self_qp(&w, 0, 3, 3);
        o_wqe2(&w, 2, 0, 0, 0, OPSEL_FLUSH, 0x11, 0, 0, 0, 0, 64, 1);
        o_wqe2(&w, 2, 0, 1, 0, OPSEL_AW, 0x01, 0, 0, 5, 0, 128, 1);
        BH(&w);
        BH(&w);
        emit("bad-mr-flush-aw", &w);
    }
    keys_seeds(emit);
    ctx_limits_seed(emit);

    /* That QP with faults on all the device sends and receives (its own
     * frames looped back), then with a loopback cable. */
    w_self_qp_ipv6(&w, (FZ_FAULT_DROP | FZ_FAULT_DUP | FZ_FAULT_REORDER |
                        FZ_FAULT_CORRUPT) << 4);
    emit("self-qp-ipv6-faults", &w);
    w_self_qp_ipv6(&w, F_LOOP | (FZ_FAULT_DUP | FZ_FAULT_REORDER) << 4);
    emit("self-qp-ipv6-cable-faults", &w);
    xrc_seeds(emit);
}
