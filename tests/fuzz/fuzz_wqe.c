/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_wqe: work requests from a guest that writes anything into its
 * queues, between two engines exchanging traffic.
 *
 * Both nodes of the rc harness have a CQ, MR A (all rights), MR B (local
 * write only) and one QP, connected to each other.  The input writes send
 * and receive WQEs into the queue slots (fields from the input, mostly
 * sensible: a valid opcode, a few SGEs of a real key in or near its
 * region; or raw bytes), rings doorbells (the producer index it keeps, or
 * any), changes the wire (drop, duplicate, reorder, cut), switches hub mode
 * and a hostile guest that rewrites queue memory under the engine's reads,
 * runs the nodes for a while and moves QPs to ERR or changes their rights.
 * Then the wire is made clean and both nodes run until idle, within a
 * bound of virtual time and steps.  Beyond the invariants the fake
 * platform checks after every step, this target checks that the engines
 * got idle, that every send WQE a doorbell posted completed (or was
 * flushed: the QP is in ERR), that a QP in ERR flushed its receive queue
 * too, and that completions come in order, each receive once.
 *
 * Each node also has a UD QP and the GSI QP (QP 1), in RTS with a CQ of
 * their own, and an IPv6 GID at index 1.  Their send WQEs carry an
 * address vector from the input: the peer's UD QP or QP 1 mostly, our own
 * (loopback), an RC QP or any QPN; the Q_Key the destination holds, the
 * sender's own (bit 31), a wrong or any one; IPv4 or IPv6 GIDs, mixed, a
 * source GID index of either version, an empty or any one; any MAC, flow
 * label, hop limit and traffic class; SEND or SEND_WITH_IMM mostly, any
 * opcode and flags, SGEs or inline data of lengths around the UD MTU.
 * Receive WQEs of any size, doorbells, state changes (ERR, RESET and up
 * again, SQD, a new Q_Key, MODIFY_QP with any mask) and the port MTU (the
 * UD MTU follows it) come in between.  At the end the same checks hold
 * for them, and every successful UD receive names one of the UD-type QPs
 * as its source and carries the GRH.
 *
 * Each node also has a shared receive queue (64 WQEs) with three QPs on
 * it: an RC QP and a UC QP, each connected to its twin on the other node,
 * and a UD QP (with the UD and GSI QPs); and a UC QP with a receive queue
 * of its own, connected to the other node's.  Send WQEs go to any of the
 * connected QPs (selector bits the seeds before them never set): on UC,
 * READ and atomics must fail; receive WQEs to the SRQ or the UC QP's RQ;
 * the SRQ's limit is armed (any value) and queried, its doorbell rung
 * with any index or page, batches of WQEs posted; the QPs go to ERR
 * (maybe holding an SRQ WQE), to SQD and back, change rights, and the UC
 * ones through ERR and RESET to RTS again; UD WQEs come from and go to the
 * UD QPs on the SRQs.  Traffic is the same as above: lossy, hub, hostile.
 * At the end (and for some after every step): every send WQE a doorbell
 * posted completed or was flushed, in order, on these QPs too; a UC QP
 * never resends (no retransmission timer, its transmit PSN never behind
 * the highest sent) and never completes with a status only ACKs or NAKs
 * give; every receive completion of a QP on an SRQ carries F_SRQ, names a
 * QP on that SRQ and a slot the device took and did not complete before
 * (no other CQE has F_SRQ); the limit event comes once per arming, below
 * the limit; every WQE taken from an SRQ is completed or held by one of
 * its QPs not in ERR; the UC QP's receives complete in order, all of them
 * in ERR.
 *
 * Multicast and CQ resizing: OP_MCAST attaches and detaches the UD QPs
 * (and refused ones: the GSI and RC QPs, a unicast GID, a reserved field)
 * to and from an IPv4 and an IPv6 group, statuses checked against a
 * model; UD send WQEs go to QPN 0xffffff and a group (a selector value
 * the seeds before them never used), to the peer's QPs and, by loopback,
 * the node's own.  OP_RESIZE runs the nodes without polling, so
 * completions pile up, then moves a CQ to a new buffer (512 to 4096
 * CQEs: none ever smaller than what can be outstanding) with software's
 * part done - its consumer index in the new record, the CQEs before the
 * switch copied with the new phase -, or tries one too small for what is
 * outstanding, a consumer index not software's, a short or unreadable
 * page list, reserved bits, a depth past the largest (all refused); the
 * checks above (every completion once, in order per QP) hold across it.
 *
 * RDMA FLUSH and ATOMIC WRITE: send WQE opcode selectors 0xe0..0xef (no
 * seed before them used them) give FLUSH (type mostly GLOBAL, sometimes
 * PERSISTENT or invalid, level RANGE or MR, a length from the input) and
 * ATOMIC WRITE (the compare field's 8 bytes, an unaligned address with a
 * selector bit); MR A and the QPs allow FLUSH_GLOBAL, MR B does not, and
 * a rights change may take it away.  On a UC QP neither (nor READ or an
 * atomic) may ever succeed.
 *
 * Memory windows and fast registration: each node also has MR C
 * (MW_BIND), a type 1 and a type 2 window and a fast-registration region
 * with pages for it.  OP_KEYS posts BIND_MW (ranges in and out of MR C or
 * MR A, any rights and key byte), REG_MR (a page too many, the list
 * nowhere, more pages than the region has), LOCAL_INV and SEND_WITH_INV of
 * any of the four, and RDMA WRITE or READ through the peer's, on any
 * connected QP (UC: SEND_WITH_INV refused); it deallocates and allocates
 * windows again (bound or not), deregisters and allocates the region,
 * tries to deregister MR C, and checks refused ALLOC_MW and ALLOC_MR
 * arguments.  The checks above hold for the completions of these WQEs.
 *
 * XRC: each node also has an XRC_INI QP connected to the other node's
 * XRC_TGT QP (domain XRCD_A), two XRC SRQs of that domain with a CQ each
 * and one of domain XRCD_B.  Send WQEs (op_sq, op_keys) with W_XRC go on
 * the XRC_INI QP, their opcodes those of every other QP (the table's
 * XRC column takes all op_sq's, FLUSH and ATOMIC WRITE not; of op_keys'
 * only LOCAL_INV), their xrc_srqn from ctl bits 3-4 and 7: the peer's
 * XRC SRQs mostly, its SRQ of the other domain, its basic SRQ, 0, a
 * number no SRQ has, past 24 bits.  Receive WQEs (op_rq with W_XRC) go to
 * the XRC SRQs; op_qpctl and op_srqctl selectors from XRC_SEL move the XRC
 * QPs (ERR, the pair through RESET up again, rights, SQD) and post to,
 * query, destroy and create again the XRC SRQs (the XRC_TGT QP may hold
 * one's WQE then); op_doorbell rings their doorbells and those of queues
 * XRC QPs do not have; OP_RESIZE moves the first XRC SRQ's CQ too.  The
 * checks above hold for the XRC_INI QP; every receive completion on an
 * XRC SRQ's CQ carries F_SRQ and F_XRC, names the XRC_TGT QP and that
 * SRQ (src_qp) and a slot it took once; nothing completes on the other
 * domain's SRQ; an XRC_INI QP never completes an opcode XRC does not
 * take successfully.
 *
 * OP_WIRE with a selector from OP_WIRE_FAULTS on sets a node's fault
 * injection (selector bit 0: the node; the value: fz_faults() bits):
 * frames it sends and receives are dropped, duplicated, reordered and
 * corrupted before the wire and before its transport; the checks above
 * hold as they do on a lossy wire.
 *
 * Input: mtu, flags (1: hub, 2: hostile guest, 4: doorbells only record
 * the index, their work waits for the work call: db_work 0; 8: a doorbell
 * sends up to QRNIC_DB_WORK_MAX packets at once; else the default), retry (retry_cnt |
 * rnr_retry << 3, rnr_retry kept below 7: "forever" never ends), timeout,
 * then operations (OP_*).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"

const char fuzz_target_name[] = "fuzz_wqe";

#define US 1000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define MR_A_BYTES (64u << 10)
#define MR_B_BYTES (8u << 10)
#define MAX_OPS 200
#define LOG_SQ 6
#define LOG_SS 8                /* 256 B: 12 SGEs or 192 inline bytes */
#define LOG_RQ 6
#define LOG_RS 6                /* 64 B: 3 SGEs */
#define DRAIN_NS (60 * SEC)
#define DRAIN_STEPS 2000000u
#define ALL_ACCESS (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                    QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC | \
                    QRNIC_ACCESS_FLUSH_GLOBAL)
#define A(x) QRNIC_QP_ATTR_##x

#define OP_WIRE_FAULTS  0xe0
/* op_qpctl and op_srqctl selectors from it: the XRC fixture */
#define XRC_SEL         0xe0
#define XRCD_A          0x5a5a5u        /* the XRC_TGT QPs' domain */
#define XRCD_B          0x5a5a6u

enum {
    OP_SQ = 0,                  /* 0, 1 */
    OP_RQ = 2,
    OP_DOORBELL,
    OP_WIRE,
    OP_RUN,
    OP_TIME,
    OP_QPCTL,
    OP_UDSQ,                    /* 8, 9 */
    OP_UDRQ = 10,
    OP_UDCTL,
    OP_SRQCTL,
    OP_MCAST,
    OP_RESIZE,
    OP_KEYS,
    OP_COUNT
};

#define F_HUB           1
#define F_HOSTILE       2
#define F_NO_DB_WORK    4
#define F_DB_WORK_MAX   8

/* WQE control byte: node, ring now, raw bytes. */
#define W_NODE1         1
#define W_RING          2
#define W_RAW           4
#define W_GSI           8       /* UD WQEs: on the GSI QP, not the UD QP */
#define W_UDS           0x10    /* UD WQEs: on the UD QP on the SRQ */
#define W_XRC           0x60    /* op_sq, op_rq, op_keys, both bits: XRC */
/*
 * op_sq's opcode selector: below OPSEL_FLUSH the FZ_GEN_SQ rows of
 * QRNIC_WR_LIST, from it the FZ_GEN_SQ_ARGS rows (FLUSH, ATOMIC WRITE).
 */
#define OPSEL_FLUSH     0xe0
#define OPSEL_AW        0xe1

/*
 * The generator writing each send opcode's WQEs, by QRNIC_WR_LIST row (a
 * row without an FZ_WR_<NAME> does not build): op_sq's common fields
 * (SQ), op_sq's FLUSH and ATOMIC WRITE fields (SQ_ARGS), op_keys' key
 * operations (KEYS).
 */
enum fz_wr_gen { FZ_GEN_SQ, FZ_GEN_SQ_ARGS, FZ_GEN_KEYS };
#define FZ_WR_RDMA_WRITE                FZ_GEN_SQ
#define FZ_WR_RDMA_WRITE_IMM            FZ_GEN_SQ
#define FZ_WR_SEND                      FZ_GEN_SQ
#define FZ_WR_SEND_IMM                  FZ_GEN_SQ
#define FZ_WR_RDMA_READ                 FZ_GEN_SQ
#define FZ_WR_ATOMIC_CMP_AND_SWP        FZ_GEN_SQ
#define FZ_WR_ATOMIC_FETCH_AND_ADD      FZ_GEN_SQ
#define FZ_WR_LOCAL_INV                 FZ_GEN_KEYS
#define FZ_WR_BIND_MW                   FZ_GEN_KEYS
#define FZ_WR_SEND_WITH_INV             FZ_GEN_KEYS
#define FZ_WR_FLUSH                     FZ_GEN_SQ_ARGS
#define FZ_WR_ATOMIC_WRITE              FZ_GEN_SQ_ARGS
#define FZ_WR_REG_MR                    FZ_GEN_KEYS

#define FZ_WR_GEN(name, ...)    FZ_WR_##name,
#define FZ_WR_OPCODE(name, ...) QRNIC_WR_##name,
static const uint8_t wr_gen[] = { QRNIC_WR_LIST(FZ_WR_GEN) };
static const uint8_t wr_opcode[] = { QRNIC_WR_LIST(FZ_WR_OPCODE) };

/* The n-th opcode (modulo their count) that generator gen writes. */
static uint8_t wr_pick(enum fz_wr_gen gen, unsigned int n)
{
    unsigned int count = 0;
    size_t i;

    for (i = 0; i < sizeof(wr_gen); i++) {
        count += wr_gen[i] == gen;
    }
    n %= count;
    for (i = 0; i < sizeof(wr_gen); i++) {
        if (wr_gen[i] == gen && n-- == 0) {
            break;
        }
    }
    return wr_opcode[i];
}
/* op_sq/op_rq ctl bits 3-4: which connected QP (W_QP(X_*)) */
#define W_QP(x)         ((uint8_t)((1 + (x)) << 3))

#define LOG_SRQ         6
#define FZ_UD_SRQ_QKEY  0x5566aa77u     /* the UD QPs on the SRQs */

/* A UD-type QP of a node and what its completions must follow. */
struct udq {
    struct hqp *qp;
    uint32_t qkey;
    uint16_t send_done;
    uint16_t recv_next;
    bool sqd;
};

/* A connected QP of the SRQ and UC fixture and what its CQEs follow. */
struct xq {
    struct hqp *qp;
    bool uc;
    bool on_srq;
    uint16_t send_done;
    uint16_t recv_next;         /* its own RQ */
    bool sqd;
};

enum { X_RC, X_UCS, X_UC, NX };     /* RC and UC on the SRQ, UC with an RQ */

struct side {
    struct hcq *cq;
    struct hqp *qp;
    struct hmr *mra, *mrb;
    uint16_t send_done;         /* SQ index after the last send CQE */
    uint16_t recv_next;         /* RQ index the next receive CQE must have */
    bool sqd;
    struct hcq *ucq;            /* the UD and GSI QPs' */
    struct udq u[3];            /* the UD QP, the GSI QP, UD on the SRQ */
    struct hcq *xcq;            /* the QPs of x[] */
    struct hsrq *srq;
    struct xq x[NX];
    struct fz_srq sk;
    /* Memory windows and fast registration (OP_KEYS). */
    struct hmr *mrc;            /* MW_BIND and every right */
    uint32_t key_idx[3];        /* the type 1, type 2 window, ALLOC_MR */
    uint64_t fr_pages;          /* KEY_FR_PAGES pages for REG_MR */
    uint64_t fr_list;           /* their page list */
    uint64_t fr_iova;           /* the last REG_MR's iova */
    /*
     * XRC (setup_xrc): XRC_INI towards the peer's XRC_TGT, which takes
     * the WQEs of xsrq[0] and [1] (XRCD_A); xsrq[2] is of XRCD_B.
     */
    struct hcq *xicq;           /* XRC_INI's send CQ */
    struct xq xi;               /* the XRC_INI QP */
    struct hqp *xtgt;
    struct hcq *xscq[3];        /* each XRC SRQ's CQ */
    struct hsrq *xsrq[3];
    struct fz_srq xsk[2];
    bool xgone[2];              /* destroyed, not yet created again */
};

/*
 * Multicast groups: op_udsq's destination selector 1 (no seed before them
 * used it) sends to QPN 0xffffff and mc_gids[(dsel >> 3) % 4]; OP_MCAST
 * attaches the UD QPs (and refused ones) to them.  2 is no group: the
 * node's own unicast GID.
 */
#define MC_NGID         4
static const uint8_t mc_gids[MC_NGID][16] = {
    { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3 },
    { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0xb8, 1 },
    { 0 },
    { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 9, 9, 9 },
};

/*
 * The CQs OP_RESIZE moves: the RC QP's, the UD QPs', the SRQ fixture's,
 * the first XRC SRQ's.
 */
#define NCQ             4

static struct {
    struct side s[2];
    uint64_t wr_id;
    uint8_t path_mtu;
    uint8_t mc_att[2][2];       /* node, u[0]/u[2]: bit g, attached */
    uint64_t rbuf[2][NCQ][2];   /* RESIZE_CQ buffers, allocated at need */
    uint8_t timeout, retry, rnr;    /* the connected QPs' */
} fx;

/* After the RC fixture, so its QPNs, keys and addresses stay as they were. */
static void setup_ud(void)
{
    int i, g;

    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i];
        uint8_t st;

        s->ucq = node_create_cq(&nodes[i], 10);
        if (!s->ucq || fz_add_v6_gid(&nodes[i])) {
            fz_fail("fixture: UD CQ, IPv6 GID");
        }
        for (g = 0; g < 2; g++) {
            struct udq *u = &s->u[g];

            u->qp = node_create_qp_type(&nodes[i], g ? QRNIC_QPT_GSI :
                                        QRNIC_QPT_UD, s->ucq, s->ucq, LOG_SQ,
                                        LOG_SS, LOG_RQ, LOG_RS, &st);
            u->qkey = g ? FZ_GSI_QKEY : FZ_UD_QKEY;
            if (!u->qp || fz_ud_up(u->qp, u->qkey, g, QRNIC_QPS_RTS)) {
                fz_fail("fixture: UD and GSI QPs");
            }
        }
    }
}

/* After the UD fixture, for the same reason. */
static void setup_x(uint8_t path_mtu, uint8_t timeout, uint8_t retry,
                    uint8_t rnr)
{
    int i, k;

    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i];
        struct node *n = &nodes[i];
        uint8_t st[4];

        s->xcq = node_create_cq(n, 10);
        s->srq = node_create_srq(n, LOG_SRQ, LOG_RS, 0, &st[0]);
        if (!s->xcq || !s->srq) {
            fz_fail("fixture: SRQ");
        }
        s->x[X_RC].qp = node_create_qp_srq(n, QRNIC_QPT_RC, s->xcq, s->xcq,
                                           LOG_SQ, LOG_SS, s->srq, &st[0]);
        s->x[X_UCS].qp = node_create_qp_srq(n, QRNIC_QPT_UC, s->xcq, s->xcq,
                                            LOG_SQ, LOG_SS, s->srq, &st[1]);
        s->x[X_UC].qp = node_create_qp_type(n, QRNIC_QPT_UC, s->xcq, s->xcq,
                                            LOG_SQ, LOG_SS, LOG_RQ, LOG_RS,
                                            &st[2]);
        s->u[2].qp = node_create_qp_srq(n, QRNIC_QPT_UD, s->ucq, s->ucq,
                                        LOG_SQ, LOG_SS, s->srq, &st[3]);
        s->u[2].qkey = FZ_UD_SRQ_QKEY;
        s->x[X_UCS].uc = s->x[X_UC].uc = true;
        s->x[X_RC].on_srq = s->x[X_UCS].on_srq = true;
        for (k = 0; k < NX; k++) {
            if (!s->x[k].qp) {
                fz_fail("fixture: QP %d on node %d: status %u", k, i, st[k]);
            }
        }
        if (!s->u[2].qp ||
            fz_ud_up(s->u[2].qp, FZ_UD_SRQ_QKEY, false, QRNIC_QPS_RTS)) {
            fz_fail("fixture: UD QP on the SRQ");
        }
        fz_srq_init(&s->sk, s->srq, 0);
        fz_srq_add_qp(&s->sk, s->x[X_RC].qp);
        fz_srq_add_qp(&s->sk, s->x[X_UCS].qp);
        fz_srq_add_qp(&s->sk, s->u[2].qp);
    }
    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i], *p = &fx.s[!i];

        if (!qp_connect(s->x[X_RC].qp, p->x[X_RC].qp, path_mtu, timeout,
                        retry, rnr, 1) ||
            fz_uc_connect(s->x[X_UCS].qp, p->x[X_UCS].qp, path_mtu) ||
            fz_uc_connect(s->x[X_UC].qp, p->x[X_UC].qp, path_mtu)) {
            fz_fail("fixture: connect the SRQ and UC QPs");
        }
    }
}

#define KEY_FR_PAGES    8
#define KEY_MRC_BYTES   (16u << 10)
enum { K_MW1, K_MW2, K_FR, K_MRC };

/* The key an object of the node has now (the engine's: binds change it). */
static uint32_t cur_key(int node, int k)
{
    const struct qrnic_mrc *m;

    if (k == K_MRC) {
        return fx.s[node].mrc->key;
    }
    m = qrnic_key_slot(&nodes[node].d.e, fx.s[node].key_idx[k] << 8);
    return m ? m->key : fx.s[node].key_idx[k] << 8;
}

/*
 * After every other fixture, for the same reason: MR C (MW_BIND), a type
 * 1 and a type 2 window, a fast-registration region and pages for it.
 */
static void setup_keys(void)
{
    int i, k;

    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i];
        struct qrnic_cmd c;
        uint32_t key[3];
        uint8_t st[3];

        s->mrc = node_mr(&nodes[i], KEY_MRC_BYTES, ALL_ACCESS |
                         QRNIC_ACCESS_MW_BIND);
        for (k = 0; k < 2; k++) {
            c = harness_cmd(QRNIC_CMD_ALLOC_MW);
            c.alloc_mw.pdn = nodes[i].pd;
            c.alloc_mw.type = k ? QRNIC_MW_TYPE_2 : QRNIC_MW_TYPE_1;
            st[k] = node_cmd(&nodes[i], &c, &key[k]);
        }
        c = harness_cmd(QRNIC_CMD_ALLOC_MR);
        c.alloc_mr.pdn = nodes[i].pd;
        c.alloc_mr.max_pages = KEY_FR_PAGES;
        st[2] = node_cmd(&nodes[i], &c, &key[2]);
        if (s->mrc->status || st[0] || st[1] || st[2]) {
            fz_fail("fixture: MR C, windows, fast-registration region");
        }
        for (k = 0; k < 3; k++) {
            s->key_idx[k] = QRNIC_KEY_INDEX(key[k]);
        }
        s->fr_pages = node_alloc(&nodes[i], KEY_FR_PAGES * 4096ull, 4096);
        s->fr_list = node_alloc(&nodes[i], KEY_FR_PAGES * 8ull, 8);
        for (k = 0; k < KEY_FR_PAGES; k++) {
            /* Reversed: the device's translation shows. */
            qrnic_st64(node_ptr(&nodes[i], s->fr_list + k * 8ull),
                       s->fr_pages + (KEY_FR_PAGES - 1 - k) * 4096ull);
        }
        s->fr_iova = 0x7e0000000000ull;
    }
}

/* The XRC_TGT QP of node i takes the WQEs of XRC SRQ k (k < 2). */
static void xrc_srq_watch(int i, int k)
{
    struct side *s = &fx.s[i];

    fz_srq_init(&s->xsk[k], s->xsrq[k], 0);
    fz_srq_add_qp(&s->xsk[k], s->xtgt);
}

/* After the keys fixture, for the same reason: XRC QPs and SRQs. */
static void setup_xrc(uint8_t path_mtu, uint8_t timeout, uint8_t retry,
                      uint8_t rnr)
{
    int i, k;

    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i];
        struct node *n = &nodes[i];
        uint8_t st[5] = { 0 };

        s->xicq = node_create_cq(n, 10);
        for (k = 0; k < 3; k++) {
            s->xscq[k] = node_create_cq(n, 10);
            s->xsrq[k] = s->xscq[k] ?
                         node_create_xrc_srq(n, k < 2 ? XRCD_A : XRCD_B,
                                             s->xscq[k], LOG_SRQ, &st[k]) :
                         NULL;
        }
        s->xi.qp = s->xicq ? node_create_xrc_ini(n, s->xicq, LOG_SQ, &st[3]) :
                   NULL;
        s->xtgt = node_create_xrc_tgt(n, XRCD_A, &st[4]);
        if (!s->xsrq[0] || !s->xsrq[1] || !s->xsrq[2] || !s->xi.qp ||
            !s->xtgt) {
            fz_fail("fixture: XRC on node %d: statuses %u %u %u %u %u", i,
                    st[0], st[1], st[2], st[3], st[4]);
        }
        xrc_srq_watch(i, 0);
        xrc_srq_watch(i, 1);
    }
    for (i = 0; i < 2; i++) {
        if (qp_connect_xrc_to(fx.s[i].xi.qp, fx.s[!i].xtgt, path_mtu, timeout,
                              retry, rnr) ||
            qp_connect_xrc_to(fx.s[!i].xtgt, fx.s[i].xi.qp, path_mtu, timeout,
                              retry, rnr)) {
            fz_fail("fixture: connect the XRC QPs");
        }
    }
}

static void setup(struct fz *f)
{
    uint8_t mtu = fz_u8(f), flags = fz_u8(f), retry = fz_u8(f);
    uint8_t timeout = (uint8_t)(1 + fz_u8(f) % 14);
    uint8_t path_mtu = (uint8_t)(1 + mtu % 5), rnr = (retry >> 3) % 7;
    int i;

    harness_restart(2);
    memset(&fx, 0, sizeof(fx));
    for (i = 0; i < 2; i++) {
        struct side *s = &fx.s[i];

        s->cq = node_create_cq(&nodes[i], 10);
        s->mra = node_mr(&nodes[i], MR_A_BYTES, ALL_ACCESS);
        s->mrb = node_mr(&nodes[i], MR_B_BYTES, QRNIC_ACCESS_LOCAL_WRITE);
        s->qp = s->cq ? node_create_qp(&nodes[i], s->cq, s->cq, LOG_SQ,
                                       LOG_SS, LOG_RQ, LOG_RS) : NULL;
        if (!s->qp || s->mra->status || s->mrb->status) {
            fz_fail("fixture");
        }
    }
    if (!qp_connect(fx.s[0].qp, fx.s[1].qp, path_mtu, timeout, retry & 7,
                    rnr, 1) ||
        !qp_connect(fx.s[1].qp, fx.s[0].qp, path_mtu, timeout, retry & 7,
                    rnr, 1)) {
        fz_fail("fixture: connect");
    }
    setup_ud();
    fx.path_mtu = path_mtu;
    setup_x(path_mtu, timeout, retry & 7, rnr);
    setup_keys();
    fx.timeout = timeout;
    fx.retry = retry & 7;
    fx.rnr = rnr;
    setup_xrc(path_mtu, timeout, retry & 7, rnr);
    harness_hub(flags & F_HUB);
    for (i = 0; i < 2; i++) {
        nodes[i].d.e.db_work = flags & F_NO_DB_WORK ? 0 :
                               flags & F_DB_WORK_MAX ? QRNIC_DB_WORK_MAX :
                               QRNIC_DB_WORK_DEFAULT;
    }
    if (flags & F_HOSTILE) {
        nodes[0].d.hostile_rng = 0x1234567;
        nodes[0].d.hostile_pct = 5;
    }
}

/*
 * An SGE: MR A's key (ksel % 4 == 0), MR B's (1), MR B's with an address
 * of MR A (2), MR A's with a stale tag (3), or a raw key; the address near
 * the start of the region (or of its end with bit 7).
 */
static void sge_at(uint8_t *p, int node, uint8_t ksel, uint16_t off,
                   uint16_t len)
{
    struct side *s = &fx.s[node];
    struct hmr *mr = ksel % 4 == 1 ? s->mrb : s->mra;
    uint32_t key = ksel >= FZ_RAW ? (uint32_t)ksel << 8 | 1 :
                   ksel % 4 == 3 ? mr->key ^ 1 :
                   ksel % 4 == 2 ? s->mrb->key : mr->key;

    qrnic_st64(p, (ksel & 0x80 ? mr->iova + mr->len - off : mr->iova + off));
    qrnic_st32(p + 8, len);
    qrnic_st32(p + 12, key);
}

/*
 * The connected QP ctl bits 3-4 name: the RC QP, or x[(ctl >> 3) - 1]; with
 * W_XRC the XRC_INI QP.
 */
static struct hqp *conn_qp(int node, uint8_t ctl)
{
    uint8_t k = (ctl >> 3) & 3;

    if ((ctl & W_XRC) == W_XRC) {
        return fx.s[node].xi.qp;
    }
    return k ? fx.s[node].x[k - 1].qp : fx.s[node].qp;
}

/* The SQ slot the QP's next WQE goes to. */
static uint8_t *sq_slot(int node, const struct hqp *qp)
{
    return nodes[node].d.qmem + qp->sq_off +
           ((uint32_t)(qp->sq_pi & ((1u << qp->log_sq) - 1)) << qp->log_ss);
}

/*
 * The xrc_srqn of a send WQE with W_XRC, from ctl bits 3-4 and 7 (k):
 * the peer's XRC SRQ 0, 1, 0 (0-2), its SRQ of the other domain (3), its
 * basic SRQ (4), 0 (5), a number no SRQ has (6), past 24 bits (7).
 */
static uint32_t xrc_srqn(int node, uint8_t ctl)
{
    const struct side *p = &fx.s[!node];
    uint8_t k = (uint8_t)(((ctl >> 3) & 3) | ((ctl >> 5) & 4));

    switch (k) {
    case 3:
        return p->xsrq[2]->srqn;
    case 4:
        return p->srq->srqn;
    case 5:
        return 0;
    case 6:
        return 0x777777u;
    case 7:
        return 0x777777u | 1u << 24;
    default:
        return p->xsrq[k % 2]->srqn;
    }
}

static void op_sq(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    int node = ctl & W_NODE1, i;
    struct hqp *qp = conn_qp(node, ctl);
    uint8_t *slot = sq_slot(node, qp);

    memset(slot, 0, 1u << qp->log_ss);
    if (ctl & W_RAW) {
        fz_bytes(f, slot, 1u << qp->log_ss);
    } else {
        uint8_t opsel = fz_u8(f), flags = fz_u8(f), nsge = fz_u8(f);
        uint16_t ilen = fz_u16(f);
        uint8_t rksel = fz_u8(f);
        uint16_t roff = fz_u16(f);
        uint8_t cmp = fz_u8(f), swp = fz_u8(f);
        uint8_t opcode = opsel >= FZ_RAW ? opsel :
                         opsel >= OPSEL_FLUSH ?
                         wr_pick(FZ_GEN_SQ_ARGS, opsel - OPSEL_FLUSH) :
                         wr_pick(FZ_GEN_SQ, opsel);
        struct hmr *rmr = rksel % 2 ? fx.s[!node].mrb : fx.s[!node].mra;

        qrnic_st64(slot, fx.wr_id++);
        slot[8] = opcode;
        slot[9] = flags < FZ_RAW ? flags & 0x0f : flags;
        slot[10] = nsge < FZ_RAW ? nsge % 5 : nsge;
        qrnic_st32(slot + 12, 0x01020304);
        qrnic_st32(slot + 16, ilen);
        if ((ctl & W_XRC) == W_XRC) {
            qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, xrc_srqn),
                       xrc_srqn(node, ctl));
        }
        if (opcode >= QRNIC_WR_ATOMIC_CMP_AND_SWP &&
            !(opcode == QRNIC_WR_ATOMIC_WRITE && (swp & 0x80))) {
            roff &= ~7u;
        }
        qrnic_st64(slot + 24, rksel & 0x80 ? rmr->iova + rmr->len - roff :
                                             rmr->iova + roff);
        qrnic_st32(slot + 32, rksel >= FZ_RAW ? 0xdead01 : rmr->key);
        qrnic_st64(slot + 40, cmp);
        qrnic_st64(slot + 48, swp);
        if (opcode == QRNIC_WR_FLUSH) {
            /* swp: type (mostly GLOBAL), level (bit 2), length cmp << 6 */
            static const uint8_t types[4] = { QRNIC_FLUSH_GLOBAL,
                                              QRNIC_FLUSH_GLOBAL,
                                              QRNIC_FLUSH_PERSISTENT, 0 };

            slot[36] = swp < FZ_RAW ? types[swp % 4] : swp;
            slot[37] = swp < FZ_RAW ? (swp >> 2) & 1 : swp >> 4;
            qrnic_st64(slot + 40, (uint64_t)cmp << 6);
        }
        for (i = 0; i < 4; i++) {
            uint8_t ksel = fz_u8(f);
            uint16_t off = fz_u16(f), len = fz_u16(f);

            if (opcode >= QRNIC_WR_ATOMIC_CMP_AND_SWP && i == 0) {
                off &= ~7u;
            }
            if (slot[9] & QRNIC_WQE_F_INLINE) {
                memset(slot + 64 + i * 16, (uint8_t)(ksel ^ off), 16);
            } else {
                sge_at(slot + 64 + i * 16, node, ksel, off, len);
            }
        }
    }
    qp->sq_pi++;
    if (ctl & W_RING) {
        qp_ring_sq(qp);
    }
}

/*
 * A receive WQE (ctl bits 3-4: on the RC QP, the SRQ, the UC QP's RQ, the
 * SRQ; with W_XRC on XRC SRQ 0, 1, 0 or the one of the other domain), from
 * the input or raw.
 */
static void op_rq(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    int node = ctl & W_NODE1, i;
    uint8_t k = (ctl >> 3) & 3;
    struct hsrq *srq = (ctl & W_XRC) == W_XRC ?
                       fx.s[node].xsrq[k == 3 ? 2 : k % 2] :
                       k % 2 ? fx.s[node].srq : NULL;
    struct hqp *qp = k == 2 ? fx.s[node].x[X_UC].qp : fx.s[node].qp;
    uint8_t *slot = srq ? nodes[node].d.qmem + srq->off +
                    ((uint32_t)(srq->pi & ((1u << LOG_SRQ) - 1)) << LOG_RS) :
                    nodes[node].d.qmem + qp->rq_off +
                    ((uint32_t)(qp->rq_pi & ((1u << LOG_RQ) - 1)) << LOG_RS);

    memset(slot, 0, 1u << LOG_RS);
    if (ctl & W_RAW) {
        fz_bytes(f, slot, 1u << LOG_RS);
    } else {
        uint8_t nsge = fz_u8(f);

        qrnic_st64(slot, fx.wr_id++);
        slot[8] = nsge < FZ_RAW ? nsge % 4 : nsge;
        for (i = 0; i < 3; i++) {
            uint8_t ksel = fz_u8(f);
            uint16_t off = fz_u16(f), len = fz_u16(f);

            sge_at(slot + 16 + i * 16, node, ksel, off, len);
        }
    }
    if (srq) {
        srq->pi++;
        if (ctl & W_RING) {
            qf_doorbell(&nodes[node].d, 0, QRNIC_DB_SRQ,
                        srq->srqn | (uint64_t)srq->pi << 32);
        }
        return;
    }
    qp->rq_pi++;
    if (ctl & W_RING) {
        qf_doorbell(&nodes[node].d, 0, QRNIC_DB_RQ,
                    qp->qpn | (uint64_t)qp->rq_pi << 32);
    }
}

/* ---- UD and GSI ---------------------------------------------------------- */

static void gid_v4(int node, uint8_t *gid)
{
    memcpy(gid, nodes[node].gid, 16);
}

/*
 * A send WQE on a UD-type QP: the address vector and the rest from the
 * input (see the top of the file), or raw bytes.
 */
static void op_udsq(struct fz *f)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    static const uint8_t nobody[6] = { 0x02, 0, 0, 0, 0, 0x99 };
    uint8_t ctl = fz_u8(f);
    int node = ctl & W_NODE1, i;
    struct udq *u = &fx.s[node].u[ctl & W_UDS ? 2 : !!(ctl & W_GSI)];
    struct hqp *qp = u->qp;
    uint8_t *slot = nodes[node].d.qmem + qp->sq_off +
                    ((uint32_t)(qp->sq_pi & ((1u << LOG_SQ) - 1)) << LOG_SS);

    memset(slot, 0, 1u << LOG_SS);
    if (ctl & W_RAW) {
        fz_bytes(f, slot, 1u << LOG_SS);
    } else {
        uint8_t opsel = fz_u8(f), flags = fz_u8(f), nsge = fz_u8(f);
        uint16_t ilen = fz_u16(f);
        uint8_t dsel = fz_u8(f), ksel = fz_u8(f), gsel = fz_u8(f);
        uint8_t sgsel = fz_u8(f), msel = fz_u8(f);
        uint32_t raw = fz_u32(f), flow = fz_u32(f);
        uint8_t hop = fz_u8(f), tclass = fz_u8(f);
        uint8_t opcode = opsel >= FZ_RAW ? opsel : opsel % 8 < 4 ?
                         QRNIC_WR_SEND : opsel % 8 < 7 ? QRNIC_WR_SEND_IMM :
                         wr_pick(FZ_GEN_SQ, opsel >> 3);
        int dn = dsel < FZ_RAW && (dsel % 8 == 4 || dsel % 8 == 5 ||
                                    (dsel % 8 == 2 && (dsel & 8))) ? node :
                 !node;
        const struct udq *to = &fx.s[dn].u[0];
        struct qrnic_ud_av av;
        int mc = -1;
        bool v6;

        memset(&av, 0, sizeof(av));
        switch (dsel >= FZ_RAW ? 8 : dsel % 8) {
        case 1:                     /* a group (bit 6: Q_Key of u[2]) */
            mc = (dsel >> 3) % MC_NGID;
            to = &fx.s[dn].u[dsel & 0x40 ? 2 : 0];
            av.dest_qpn = QRNIC_MCAST_QPN;
            break;
        case 2:                     /* UD on the SRQ (bit 3: our own) */
            to = &fx.s[dn].u[2];
            av.dest_qpn = to->qp->qpn;
            break;
        case 0:
        case 4:                     /* our own: loopback */
            av.dest_qpn = to->qp->qpn;
            break;
        case 3:
        case 5:
            to = &fx.s[dn].u[1];
            av.dest_qpn = QRNIC_GSI_QPN;
            break;
        case 6:
            av.dest_qpn = fx.s[dn].qp->qpn;
            break;
        case 7:
            av.dest_qpn = raw;      /* maybe wider than 24 bits */
            break;
        default:
            av.dest_qpn = raw & 0xffffff;
            break;
        }
        switch (ksel >= FZ_RAW ? 3 : ksel % 4) {
        case 0:
            av.qkey = to->qkey;
            break;
        case 1:
            av.qkey = QRNIC_UD_QKEY_USE_QP;     /* the sender's own */
            break;
        case 2:
            av.qkey = to->qkey ^ 1;
            break;
        default:
            av.qkey = raw;
            break;
        }
        v6 = gsel >= FZ_RAW ? false : gsel % 2;
        if (mc >= 0 && mc != 2) {
            memcpy(av.dgid, mc_gids[mc], 16);
            v6 = mc == 1;
        } else if (v6) {
            fz_v6_gid(dn, av.dgid);
        } else {
            gid_v4(dn, av.dgid);
        }
        if (gsel >= FZ_RAW) {
            qrnic_st32(av.dgid, flow);
            qrnic_st32(av.dgid + 12, raw);
        } else if (gsel % 4 >= 2 && mc < 0) {
            av.dgid[13] ^= 0x40;    /* nobody's */
        }
        if (sgsel >= FZ_RAW) {
            av.sgid_index = sgsel;
        } else if (sgsel % 4 < 2) {
            av.sgid_index = v6;
        } else if (sgsel % 4 == 2) {
            av.sgid_index = !v6;    /* the other IP version */
        } else {
            av.sgid_index = (uint8_t)(2 + (sgsel >> 2) % 126);  /* empty */
        }
        memcpy(av.dmac, msel % 4 == 0 ? nodes[dn].mac :
                        msel % 4 == 1 ? nodes[!dn].mac :
                        msel % 4 == 2 ? bcast : nobody, 6);
        if (mc >= 0 && msel % 4 == 0) {     /* the group's MAC */
            if (v6) {
                av.dmac[0] = av.dmac[1] = 0x33;
                memcpy(av.dmac + 2, av.dgid + 12, 4);
            } else {
                av.dmac[0] = 0x01;
                av.dmac[1] = 0x00;
                av.dmac[2] = 0x5e;
                av.dmac[3] = av.dgid[13] & 0x7f;
                av.dmac[4] = av.dgid[14];
                av.dmac[5] = av.dgid[15];
            }
        }
        switch ((msel >> 2) & 3) {
        case 0:
            av.flow_label = 0;
            break;
        case 3:
            av.flow_label = flow;   /* maybe wider than 20 bits */
            break;
        default:
            av.flow_label = flow & 0xfffff;
            break;
        }
        av.hop_limit = hop;
        av.traffic_class = tclass;

        qrnic_st64(slot, fx.wr_id++);
        slot[8] = opcode;
        slot[9] = flags < FZ_RAW ? flags & 0x0f : flags;
        slot[10] = nsge < FZ_RAW ? nsge % 5 : nsge;
        qrnic_st32(slot + 12, 0x01020304);
        qrnic_st32(slot + 16, ilen);
        memcpy(slot + offsetof(struct qrnic_sq_wqe, ud), &av, sizeof(av));
        for (i = 0; i < 4; i++) {
            uint8_t ksel2 = fz_u8(f);
            uint16_t off = fz_u16(f), len = fz_u16(f);

            if (slot[9] & QRNIC_WQE_F_INLINE) {
                memset(slot + 64 + i * 16, (uint8_t)(ksel2 ^ off), 16);
            } else {
                sge_at(slot + 64 + i * 16, node, ksel2, off, len);
            }
        }
    }
    qp->sq_pi++;
    if (ctl & W_RING) {
        qp_ring_sq(qp);
    }
}

/* A receive WQE on a UD-type QP: up to three SGEs of any size, or raw. */
static void op_udrq(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    int node = ctl & W_NODE1, i;
    struct hqp *qp = fx.s[node].u[!!(ctl & W_GSI)].qp;
    uint8_t *slot = nodes[node].d.qmem + qp->rq_off +
                    ((uint32_t)(qp->rq_pi & ((1u << LOG_RQ) - 1)) << LOG_RS);

    memset(slot, 0, 1u << LOG_RS);
    if (ctl & W_RAW) {
        fz_bytes(f, slot, 1u << LOG_RS);
    } else {
        uint8_t nsge = fz_u8(f);

        qrnic_st64(slot, fx.wr_id++);
        slot[8] = nsge < FZ_RAW ? nsge % 4 : nsge;
        for (i = 0; i < 3; i++) {
            uint8_t ksel = fz_u8(f);
            uint16_t off = fz_u16(f), len = fz_u16(f);

            sge_at(slot + 16 + i * 16, node, ksel, off, len);
        }
    }
    qp->rq_pi++;
    if (ctl & W_RING) {
        qf_doorbell(&nodes[node].d, 0, QRNIC_DB_RQ,
                    qp->qpn | (uint64_t)qp->rq_pi << 32);
    }
}

/* The harness's and the checks' view of a QP the engine just reset. */
static void ud_was_reset(struct udq *u)
{
    u->qp->sq_pi = u->qp->rq_pi = 0;
    u->send_done = u->recv_next = 0;
    u->sqd = false;
}

/*
 * A UD-type QP (arg bit 0: node, bit 1: GSI) through its state machine;
 * arg bit 2: with the other one's Q_Key.  Or the port MTU.
 */
static void op_udctl(struct fz *f)
{
    static const uint16_t mtus[8] = { 68, 256, 600, 1024, 1500, 2048, 4200,
                                      9000 };
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    int node = arg & 1, g = arg & 0x40 ? 2 : (arg >> 1) & 1;
    struct udq *u = &fx.s[node].u[g];
    uint32_t qkey = arg & 4 ? fx.s[node].u[!(g & 1)].qkey :
                    g == 2 ? FZ_UD_SRQ_QKEY : g ? FZ_GSI_QKEY : FZ_UD_QKEY;
    struct qrnic_qp_attr a;
    struct qrnic_cmd c;
    uint32_t mask;
    uint8_t st;

    memset(&a, 0, sizeof(a));
    switch (sel % 6) {
    case 0:
        a.qp_state = QRNIC_QPS_ERR;
        if (qp_modify(u->qp, A(STATE), &a) == QRNIC_ST_OK) {
            u->sqd = false;
        }
        break;
    case 1:                         /* RESET and up again */
        a.qp_state = QRNIC_QPS_RESET;
        st = qp_modify(u->qp, A(STATE), &a);
        ud_was_reset(u);
        if (!st) {
            st = fz_ud_up(u->qp, qkey, g == 1, QRNIC_QPS_RTS);
        }
        if (st) {
            fz_fail("node %d %s QP: RESET and up again: status %u", node,
                    g == 1 ? "GSI" : "UD", st);
        }
        u->qkey = qkey;
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        if (qp_modify(u->qp, A(STATE) | A(EN_SQD_ASYNC), &a) ==
            QRNIC_ST_OK) {
            u->sqd = true;
        }
        break;
    case 3:                         /* RTS (from SQD too), a new Q_Key */
        a.qp_state = QRNIC_QPS_RTS;
        a.qkey = qkey;
        if (qp_modify(u->qp, A(STATE) | A(QKEY), &a) == QRNIC_ST_OK) {
            u->qkey = qkey;
            u->sqd = false;
        }
        break;
    case 4:                         /* any mask, any target state */
        mask = fz_u32(f);
        a.qp_state = (uint8_t)((arg >> 3) % 8);
        a.cur_state = (uint8_t)(sel >> 5);
        a.port_num = 1;
        a.qkey = qkey;
        a.sq_psn = (uint32_t)sel << 12;
        if (qp_modify(u->qp, mask, &a) == QRNIC_ST_OK) {
            if (mask & A(QKEY)) {
                u->qkey = qkey;
            }
            if ((mask & A(STATE)) && a.qp_state == QRNIC_QPS_RESET) {
                ud_was_reset(u);
            } else if (mask & A(STATE)) {
                u->sqd = a.qp_state == QRNIC_QPS_SQD;
            }
        }
        break;
    default:                        /* the port MTU, and the UD MTU with it */
        c = harness_cmd(QRNIC_CMD_SET_MTU);
        c.set_mtu.mtu = mtus[(arg >> 1) % 8];
        node_cmd(&nodes[node], &c, NULL);
        break;
    }
}

/* FUZZ_DEBUG=1: UD completions and drops (seed writing). */
static int debug = -1;

/* Is qpn one of the UD-type QPs of either node? */
static bool ud_qpn(uint32_t qpn)
{
    return qpn == QRNIC_GSI_QPN || qpn == fx.s[0].u[0].qp->qpn ||
           qpn == fx.s[1].u[0].qp->qpn || qpn == fx.s[0].u[2].qp->qpn ||
           qpn == fx.s[1].u[2].qp->qpn;
}

/* The UD CQ: completions in order per QP, receives from UD-type QPs. */
static void poll_ud(int node)
{
    struct side *s = &fx.s[node];
    struct hwc wc;

    while (cq_poll(s->ucq, &wc)) {
        int g = wc.qpn == QRNIC_GSI_QPN ? 1 :
                wc.qpn == s->u[2].qp->qpn ? 2 : 0;
        struct udq *u = &s->u[g];
        const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, wc.qpn);

        if (debug) {
            fprintf(stderr, "n%d UD CQE qpn %x %s idx %u wr_id %llu status "
                    "%u verr %u len %u flags %x src_qp %x\n", node, wc.qpn,
                    wc.flags & QRNIC_CQE_F_SEND ? "send" : "recv",
                    wc.wqe_idx, (unsigned long long)wc.wr_id, wc.status,
                    wc.vendor_err, wc.byte_len, wc.flags, wc.src_qp);
        }
        if (!q || (!g && wc.qpn != u->qp->qpn)) {
            fz_fail("node %d: UD CQE for QP 0x%x", node, wc.qpn);
        }
        if (wc.flags & QRNIC_CQE_F_SEND) {
            uint16_t ahead = (uint16_t)(wc.wqe_idx - u->send_done);

            if (ahead >= (uint16_t)(q->req.sq_pi - u->send_done)) {
                fz_fail("node %d QP 0x%x: send CQE for SQ index %u, "
                        "completed up to %u, posted up to %u", node, wc.qpn,
                        wc.wqe_idx, u->send_done, q->req.sq_pi);
            }
            u->send_done = (uint16_t)(wc.wqe_idx + 1);
            continue;
        }
        if (g == 2) {
            fz_srq_cqe(&s->sk, &wc);
        } else if (wc.wqe_idx != u->recv_next ||
                   (wc.flags & QRNIC_CQE_F_SRQ)) {
            fz_fail("node %d QP 0x%x: receive CQE for RQ index %u, "
                    "expected %u, flags 0x%x", node, wc.qpn, wc.wqe_idx,
                    u->recv_next, wc.flags);
        } else {
            u->recv_next++;
        }
        if (wc.status == QRNIC_WC_SUCCESS &&
            (!(wc.flags & QRNIC_CQE_F_GRH) ||
             wc.byte_len < QRNIC_GRH_LEN || !ud_qpn(wc.src_qp))) {
            fz_fail("node %d QP 0x%x: UD receive of %u bytes, flags 0x%x, "
                    "from QP 0x%x", node, wc.qpn, wc.byte_len, wc.flags,
                    wc.src_qp);
        }
    }
}

/*
 * An SRQ doorbell: the producer index the harness keeps, any, on a page
 * that does not own the SRQ, with bits beyond the fields.
 */
static void srq_doorbell(int node, struct hsrq *srq, uint8_t kind,
                         uint16_t v)
{
    uint64_t val = srq->srqn | (uint64_t)srq->pi << 32;

    switch (kind % 4) {
    case 1:
        val = srq->srqn | (uint64_t)v << 32;
        break;
    case 2:
        qf_doorbell(&nodes[node].d, 1 + v % 3, QRNIC_DB_SRQ, val);
        return;
    case 3:
        val |= (uint64_t)v << 48 | (uint32_t)(v & 0xff) << 24;
        break;
    default:
        break;
    }
    qf_doorbell(&nodes[node].d, 0, QRNIC_DB_SRQ, val);
}

/*
 * ctl: bit 0 node, 1 RQ, 2-3 the kind (see the cases), 4-5 the QP (the
 * RC, UD or GSI QP), 6-7: 1 the QP bits 4-5 pick among the connected QPs
 * of the SRQ fixture and its UD QP, 2 and 3 an SRQ: bits 4-5 the SRQ, XRC
 * SRQ 0, 1, or (3) an XRC QP's queue instead: bit 6 XRC_TGT, else XRC_INI.
 */
static void op_doorbell(struct fz *f)
{
    uint8_t ctl = fz_u8(f);
    uint16_t v = fz_u16(f);
    int node = ctl & 1;
    bool rq = ctl & 2;
    struct side *s = &fx.s[node];
    struct hqp *const newer[4] = { s->x[X_RC].qp, s->x[X_UCS].qp,
                                   s->u[2].qp, s->x[X_UC].qp };
    uint8_t q = (ctl >> 4) % 4;
    bool xqp = ctl >> 6 >= 2 && q == 3;
    struct hqp *qp = xqp ? (ctl & 0x40 ? s->xtgt : s->xi.qp) :
                     ctl >> 6 == 1 ? newer[q] :
                     q == 1 ? s->u[0].qp : q == 2 ? s->u[1].qp : s->qp;
    uint16_t pi = rq ? qp->rq_pi : qp->sq_pi;
    uint64_t val;

    if (ctl >> 6 >= 2 && !xqp) {
        srq_doorbell(node, q ? s->xsrq[q - 1] : s->srq, (uint8_t)(ctl >> 2),
                     v);
        return;
    }

    switch ((ctl >> 2) & 3) {
    case 0:
        val = qp->qpn | (uint64_t)pi << 32;
        break;
    case 1:                         /* any producer index */
        val = qp->qpn | (uint64_t)v << 32;
        break;
    case 2:                         /* a page that does not own the QP */
        qf_doorbell(&nodes[node].d, 1 + v % 3, rq ? QRNIC_DB_RQ : QRNIC_DB_SQ,
                    qp->qpn | (uint64_t)pi << 32);
        return;
    default:                        /* bits beyond the fields */
        val = qp->qpn | (uint64_t)v << 48 | (uint64_t)pi << 32;
        break;
    }
    qf_doorbell(&nodes[node].d, 0, rq ? QRNIC_DB_RQ : QRNIC_DB_SQ, val);
}

static void op_wire(struct fz *f)
{
    uint8_t sel = fz_u8(f), v = fz_u8(f);

    if (sel >= OP_WIRE_FAULTS) {
        fz_faults(&nodes[sel & 1].d.e, v);
        return;
    }
    switch (sel % 6) {
    case 0:
        wire.drop_pct = v % 40;
        break;
    case 1:
        wire.dup_pct = v % 40;
        break;
    case 2:
        wire.reorder_pct = v % 40;
        break;
    case 3:
        harness_hub(v & 1);
        break;
    case 4:
        nodes[v & 1].d.hostile_rng = v | 1;
        nodes[v & 1].d.hostile_pct = (v >> 1) % 30;
        break;
    default:
        wire.cut = v & 1;
        break;
    }
}

/* Take every completion; they must come in order. */
static void poll_side(int node)
{
    struct side *s = &fx.s[node];
    const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, s->qp->qpn);
    struct hwc wc;

    while (cq_poll(s->cq, &wc)) {
        if (wc.qpn != s->qp->qpn || (wc.flags & QRNIC_CQE_F_SRQ)) {
            fz_fail("node %d: CQE for QP 0x%x (not 0x%x?), flags 0x%x", node,
                    wc.qpn, s->qp->qpn, wc.flags);
        }
        if (wc.flags & QRNIC_CQE_F_SEND) {
            uint16_t ahead = (uint16_t)(wc.wqe_idx - s->send_done);

            if (ahead >= (uint16_t)(q->req.sq_pi - s->send_done)) {
                fz_fail("node %d: send CQE for SQ index %u, completed up "
                        "to %u, posted up to %u", node, wc.wqe_idx,
                        s->send_done, q->req.sq_pi);
            }
            s->send_done = (uint16_t)(wc.wqe_idx + 1);
        } else {
            if (wc.wqe_idx != s->recv_next) {
                fz_fail("node %d: receive CQE for RQ index %u, expected %u",
                        node, wc.wqe_idx, s->recv_next);
            }
            s->recv_next++;
        }
    }
}

/* The x[] QP of a node a CQE names, or NULL. */
static struct xq *xq_of(struct side *s, uint32_t qpn)
{
    int k;

    for (k = 0; k < NX; k++) {
        if (s->x[k].qp->qpn == qpn) {
            return &s->x[k];
        }
    }
    return NULL;
}

/* A status only an ACK or a NAK gives: never for a UC send. */
static bool acked_status(uint8_t status)
{
    return status == QRNIC_WC_RETRY_EXC_ERR ||
           status == QRNIC_WC_RNR_RETRY_EXC_ERR ||
           status == QRNIC_WC_REM_INV_REQ_ERR ||
           status == QRNIC_WC_REM_ACCESS_ERR ||
           status == QRNIC_WC_REM_OP_ERR || status == QRNIC_WC_BAD_RESP_ERR;
}

/*
 * The CQ of the SRQ fixture's connected QPs: sends in order per QP (UC
 * ones without an ACK's status), receives of the QPs on the SRQ with
 * F_SRQ and a slot taken once, the UC QP's own in order.
 */
static void poll_x(int node)
{
    struct side *s = &fx.s[node];
    struct hwc wc;

    while (cq_poll(s->xcq, &wc)) {
        struct xq *x = xq_of(s, wc.qpn);
        const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, wc.qpn);

        if (debug) {
            fprintf(stderr, "n%d X CQE qpn %x %s idx %u wr_id %llu status "
                    "%u verr %u len %u flags %x\n", node, wc.qpn,
                    wc.flags & QRNIC_CQE_F_SEND ? "send" : "recv",
                    wc.wqe_idx, (unsigned long long)wc.wr_id, wc.status,
                    wc.vendor_err, wc.byte_len, wc.flags);
        }
        if (!x || !q) {
            fz_fail("node %d: SRQ/UC CQE for QP 0x%x", node, wc.qpn);
        }
        if (wc.flags & QRNIC_CQE_F_SEND) {
            uint16_t ahead = (uint16_t)(wc.wqe_idx - x->send_done);

            if (ahead >= (uint16_t)(q->req.sq_pi - x->send_done)) {
                fz_fail("node %d QP 0x%x: send CQE for SQ index %u, "
                        "completed up to %u, posted up to %u", node, wc.qpn,
                        wc.wqe_idx, x->send_done, q->req.sq_pi);
            }
            if (x->uc && wc.status == QRNIC_WC_SUCCESS &&
                (wc.opcode == QRNIC_CQE_OP_FLUSH ||
                 wc.opcode == QRNIC_CQE_OP_ATOMIC_WRITE ||
                 wc.opcode == QRNIC_CQE_OP_RDMA_READ ||
                 wc.opcode == QRNIC_CQE_OP_COMP_SWAP ||
                 wc.opcode == QRNIC_CQE_OP_FETCH_ADD)) {
                fz_fail("node %d UC QP 0x%x: a READ, atomic, FLUSH or "
                        "ATOMIC WRITE succeeded (opcode %u)", node, wc.qpn,
                        wc.opcode);
            }
            if (x->uc && acked_status(wc.status)) {
                fz_fail("node %d UC QP 0x%x: send completion with status "
                        "%u (verr %u)", node, wc.qpn, wc.status,
                        wc.vendor_err);
            }
            x->send_done = (uint16_t)(wc.wqe_idx + 1);
        } else if (x->on_srq) {
            fz_srq_cqe(&s->sk, &wc);
        } else if (wc.wqe_idx != x->recv_next ||
                   (wc.flags & QRNIC_CQE_F_SRQ)) {
            fz_fail("node %d QP 0x%x: receive CQE for RQ index %u, "
                    "expected %u, flags 0x%x", node, wc.qpn, wc.wqe_idx,
                    x->recv_next, wc.flags);
        } else {
            x->recv_next++;
        }
    }
}

/* Does a send opcode the table's XRC column takes complete so? */
static bool xrc_cqe_op(uint8_t op)
{
    size_t i;

    for (i = 0; i < sizeof(wr_opcode); i++) {
        struct qrnic_wr_info w = qrnic_wr_info(wr_opcode[i]);

        if ((w.qp_types & QRNIC_WR_QPT_XRC) && w.cqe_opcode == op) {
            return true;
        }
    }
    return false;
}

/*
 * The XRC CQs of a node: XRC_INI's sends in order, none of an opcode the
 * table's XRC column does not have successful; an XRC SRQ's receives with
 * F_SRQ and F_XRC, of the XRC_TGT QP, naming that SRQ, each slot once;
 * nothing on the other domain's SRQ's.
 */
static void poll_xrc(int node)
{
    struct side *s = &fx.s[node];
    struct xq *x = &s->xi;
    struct hwc wc;
    int k;

    while (cq_poll(s->xicq, &wc)) {
        const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, wc.qpn);
        uint16_t ahead = (uint16_t)(wc.wqe_idx - x->send_done);

        if (debug) {
            fprintf(stderr, "n%d XRC_INI CQE qpn %x idx %u wr_id %llu "
                    "status %u verr %u op %u len %u\n", node, wc.qpn,
                    wc.wqe_idx, (unsigned long long)wc.wr_id, wc.status,
                    wc.vendor_err, wc.opcode, wc.byte_len);
        }
        if (!q || wc.qpn != x->qp->qpn || !(wc.flags & QRNIC_CQE_F_SEND) ||
            (wc.flags & (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC))) {
            fz_fail("node %d: XRC_INI CQ: completion of QP 0x%x, flags 0x%x",
                    node, wc.qpn, wc.flags);
        }
        if (ahead >= (uint16_t)(q->req.sq_pi - x->send_done)) {
            fz_fail("node %d XRC_INI QP 0x%x: send CQE for SQ index %u, "
                    "completed up to %u, posted up to %u", node, wc.qpn,
                    wc.wqe_idx, x->send_done, q->req.sq_pi);
        }
        if (wc.status == QRNIC_WC_SUCCESS && !xrc_cqe_op(wc.opcode)) {
            fz_fail("node %d XRC_INI QP 0x%x: an opcode XRC does not take "
                    "succeeded (CQE opcode %u)", node, wc.qpn, wc.opcode);
        }
        x->send_done = (uint16_t)(wc.wqe_idx + 1);
    }
    for (k = 0; k < 3; k++) {
        while (cq_poll(s->xscq[k], &wc)) {
            if (debug) {
                fprintf(stderr, "n%d XRC SRQ %d CQE qpn %x idx %u wr_id %llu "
                        "status %u verr %u op %u len %u flags %x srqn %x\n",
                        node, k, wc.qpn, wc.wqe_idx,
                        (unsigned long long)wc.wr_id, wc.status,
                        wc.vendor_err, wc.opcode, wc.byte_len, wc.flags,
                        wc.src_qp);
            }
            if (k == 2 || wc.qpn != s->xtgt->qpn ||
                (wc.flags & (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC |
                             QRNIC_CQE_F_SEND)) !=
                (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC) ||
                wc.src_qp != s->xsrq[k]->srqn) {
                fz_fail("node %d: XRC SRQ %u (%d): completion of QP 0x%x, "
                        "flags 0x%x, srqn %u", node, s->xsrq[k]->srqn, k,
                        wc.qpn, wc.flags, wc.src_qp);
            }
            if (k < 2 && !s->xgone[k]) {
                fz_srq_cqe(&s->xsk[k], &wc);
            }
        }
    }
}

/* A UC QP never resends: no timer, its transmit PSN never goes back. */
static void check_uc(int node)
{
    int k;

    for (k = X_UCS; k <= X_UC; k++) {
        const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e,
                                                fx.s[node].x[k].qp->qpn);

        if (q->comp.rto_deadline || q->comp.probe_deadline ||
            q->comp.rnr_deadline || q->comp.rnr_wait ||
            psn_diff(q->req.tx_psn, q->req.sent_psn) < 0) {
            fz_fail("node %d UC QP 0x%x resends: timers %llu %llu %llu, "
                    "RNR wait %d, transmit PSN %06x, sent up to %06x", node,
                    q->qpn, (unsigned long long)q->comp.rto_deadline,
                    (unsigned long long)q->comp.probe_deadline,
                    (unsigned long long)q->comp.rnr_deadline, q->comp.rnr_wait,
                    q->req.tx_psn, q->req.sent_psn);
        }
    }
}

/* The harness's and the checks' view of a connected QP just reset. */
static void x_was_reset(struct xq *x)
{
    x->qp->sq_pi = x->qp->rq_pi = 0;
    x->send_done = x->recv_next = 0;
    x->sqd = false;
}

/*
 * XRC (op_qpctl selectors from XRC_SEL): sel % 4 picks, arg bit 0 the
 * node, bit 7 its XRC_TGT QP instead of its XRC_INI QP:
 *   0  ERR; with arg bit 6 the node's XRC_INI QP and the peer's XRC_TGT
 *      QP through ERR (their completions taken) and RESET up to RTS again
 *   1  RTS with the rights arg & 0x0e
 *   2  SQD (XRC_INI)
 *   3  RTS
 */
static void op_xrcctl(uint8_t sel, uint8_t arg)
{
    int node = arg & 1;
    struct side *s = &fx.s[node], *p = &fx.s[!node];
    struct hqp *qp = arg & 0x80 ? s->xtgt : s->xi.qp;
    bool ini = qp == s->xi.qp;
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    switch (sel % 4) {
    case 0:
        a.qp_state = QRNIC_QPS_ERR;
        if (!(arg & 0x40)) {
            qp_modify(qp, A(STATE), &a);
            s->xi.sqd = s->xi.sqd && !ini;
            break;
        }
        qp_modify(s->xi.qp, A(STATE), &a);
        qp_modify(p->xtgt, A(STATE), &a);
        s->xi.sqd = false;
        poll_xrc(node);
        poll_xrc(!node);
        a.qp_state = QRNIC_QPS_RESET;
        if (qp_modify(s->xi.qp, A(STATE), &a) ||
            qp_modify(p->xtgt, A(STATE), &a) ||
            qp_connect_xrc_to(s->xi.qp, p->xtgt, fx.path_mtu, fx.timeout,
                              fx.retry, fx.rnr) ||
            qp_connect_xrc_to(p->xtgt, s->xi.qp, fx.path_mtu, fx.timeout,
                              fx.retry, fx.rnr)) {
            fz_fail("node %d XRC_INI QP 0x%x, its peer: RESET and up again",
                    node, s->xi.qp->qpn);
        }
        x_was_reset(&s->xi);
        break;
    case 1:                         /* rights change under traffic */
        a.qp_state = QRNIC_QPS_RTS;
        a.access_flags = arg & 0x0e;
        qp_modify(qp, A(STATE) | A(ACCESS_FLAGS), &a);
        s->xi.sqd = s->xi.sqd && !ini;
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        if (qp_modify(s->xi.qp, A(STATE) | A(EN_SQD_ASYNC), &a) ==
            QRNIC_ST_OK) {
            s->xi.sqd = true;
        }
        break;
    default:
        a.qp_state = QRNIC_QPS_RTS;
        if (qp_modify(qp, A(STATE), &a) == QRNIC_ST_OK && ini) {
            s->xi.sqd = false;
        }
        break;
    }
}

/*
 * arg bit 0: the node; bits 4-5: the RC QP or x[(arg >> 4) - 1]; bit 6
 * with sel 0 on a UC QP: through ERR (its completions taken) and RESET up
 * to RTS again.  sel from XRC_SEL: op_xrcctl().
 */
static void op_qpctl(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    int node = arg & 1;
    struct side *s = &fx.s[node];
    uint8_t k = (arg >> 4) & 3;
    struct xq *x = k ? &s->x[k - 1] : NULL;
    struct hqp *qp = x ? x->qp : s->qp;
    bool *sqd = x ? &x->sqd : &s->sqd;
    struct qrnic_qp_attr a;

    if (sel >= XRC_SEL) {
        op_xrcctl(sel, arg);
        return;
    }
    memset(&a, 0, sizeof(a));
    switch (sel % 4) {
    case 0:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(qp, A(STATE), &a);
        *sqd = false;
        if (!(arg & 0x40) || !x || !x->uc) {
            break;
        }
        poll_x(node);
        fz_srq_step(&s->sk);        /* the flushed WQE it held */
        a.qp_state = QRNIC_QPS_RESET;
        if (qp_modify(qp, A(STATE), &a) ||
            fz_uc_connect(qp, fx.s[!node].x[k - 1].qp, fx.path_mtu)) {
            fz_fail("node %d UC QP 0x%x: RESET and up again", node,
                    qp->qpn);
        }
        x_was_reset(x);
        break;
    case 1:                         /* rights change under traffic */
        a.qp_state = QRNIC_QPS_RTS;
        a.access_flags = (arg & 0x0e) |
                         (arg & 0x80 ? QRNIC_ACCESS_FLUSH_GLOBAL : 0);
        qp_modify(qp, A(STATE) | A(ACCESS_FLAGS), &a);
        *sqd = false;
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        if (qp_modify(qp, A(STATE) | A(EN_SQD_ASYNC), &a) ==
            QRNIC_ST_OK) {
            *sqd = true;
        }
        break;
    default:
        a.qp_state = QRNIC_QPS_RTS;
        if (qp_modify(qp, A(STATE), &a) == QRNIC_ST_OK) {
            *sqd = false;
        }
        break;
    }
}

/*
 * XRC SRQ k of a node destroyed (the XRC_TGT QP may hold one of its WQEs,
 * or be in the middle of a message into it) and created again.
 */
static void xrc_srq_again(int node, int k)
{
    struct side *s = &fx.s[node];
    uint8_t st;

    poll_xrc(node);
    fz_srq_step(&s->xsk[k]);
    st = fz_srq_destroy(s->xsrq[k]);
    s->xgone[k] = true;
    poll_xrc(node);                 /* what the command completed first */
    st = st ? st : fz_xrc_srq_create(s->xsrq[k], XRCD_A, s->xscq[k]);
    s->xgone[k] = false;
    if (st) {
        fz_fail("node %d: XRC SRQ %d destroyed and created again: status %u",
                node, k, st);
    }
    xrc_srq_watch(node, k);
}

/*
 * The SRQ of node arg & 1: arm its limit (arg >> 1: any below 66 - the
 * depth is 64 -; raw: v), query it, post a batch of (arg >> 1) % 8 + 1
 * WQEs of one SGE (MR A, 1 KiB << v % 4; or MR B, 64 bytes) rung once.
 * sel from XRC_SEL: XRC SRQ arg bit 4 instead, destroyed and created again
 * (xrc_srq_again()) rather than armed.
 */
static void op_srqctl(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    uint16_t v = fz_u16(f);
    int node = arg & 1, i, n = (arg >> 1) % 8 + 1, k = (arg >> 4) & 1;
    struct side *s = &fx.s[node];
    struct hsrq *srq = sel >= XRC_SEL ? s->xsrq[k] : s->srq;
    struct fz_srq *sk = sel >= XRC_SEL ? &s->xsk[k] : &s->sk;

    switch (sel % 4) {
    case 0:
        if (sel >= XRC_SEL) {
            xrc_srq_again(node, k);
            break;
        }
        fz_srq_arm(sk, arg < FZ_RAW ? (arg >> 1) % 66u : v);
        break;
    case 1:
        fz_srq_query(sk);
        break;
    default:
        for (i = 0; i < n; i++) {
            struct hsge g;

            if (sel % 4 == 2) {
                g.len = 1024u << (v % 4);
                g.addr = s->mra->iova + (v + (uint32_t)i * g.len) %
                         (MR_A_BYTES - g.len + 1);
                g.lkey = s->mra->key;
            } else {
                g.len = 64;
                g.addr = s->mrb->iova + (uint32_t)i * 64;
                g.lkey = s->mrb->key;
            }
            srq_post_recv(srq, fx.wr_id++, &g, 1, i == n - 1);
        }
        break;
    }
}

/* A UD-type QP left in INIT, RTR, SQD or SQE goes on to RTS. */
static void ud_to_rts(int node, struct udq *u)
{
    const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, u->qp->qpn);
    struct qrnic_qp_attr a;
    uint8_t st = QRNIC_ST_OK;

    memset(&a, 0, sizeof(a));
    switch (q->state) {
    case QRNIC_QPS_INIT:
        a.qp_state = QRNIC_QPS_RTR;
        st = qp_modify(u->qp, A(STATE), &a);
        /* fall through */
    case QRNIC_QPS_RTR:
        a.qp_state = QRNIC_QPS_RTS;
        st = st ? st : qp_modify(u->qp, A(STATE) | A(SQ_PSN), &a);
        break;
    case QRNIC_QPS_SQD:
    case QRNIC_QPS_SQE:
        a.qp_state = QRNIC_QPS_RTS;
        st = qp_modify(u->qp, A(STATE), &a);
        break;
    default:
        break;
    }
    if (st) {
        fz_fail("node %d QP 0x%x: from state %u to RTS: status %u", node,
                u->qp->qpn, q->state, st);
    }
    u->sqd = false;
}

static void check_ud(int node, const struct udq *u)
{
    const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, u->qp->qpn);

    if (q->state == QRNIC_QPS_RESET) {
        return;                     /* its doorbells were refused */
    }
    if (q->req.sq_tail != q->req.sq_pi) {
        fz_fail("node %d: UD-type QP 0x%x in state %u is idle with send "
                "WQEs %u..%u not completed", node, u->qp->qpn, q->state,
                q->req.sq_tail, q->req.sq_pi);
    }
    if (q->state == QRNIC_QPS_ERR &&
        (q->resp.rq_ci != q->resp.rq_pi || u->recv_next != q->resp.rq_pi)) {
        fz_fail("node %d: UD-type QP 0x%x in ERR: receive WQEs %u..%u, "
                "completions up to %u", node, u->qp->qpn, q->resp.rq_ci,
                q->resp.rq_pi, u->recv_next);
    }
}

/*
 * Idle: a connected QP of the SRQ fixture completed every send WQE (or
 * is in RESET); in ERR its own RQ is flushed, in order.
 */
static void check_x(int node, const struct xq *x)
{
    const struct qrnic_qpc *q = qrnic_qp_get(&nodes[node].d.e, x->qp->qpn);

    if (q->state == QRNIC_QPS_RESET) {
        return;
    }
    if (q->req.sq_tail != q->req.sq_pi) {
        fz_fail("node %d: %s QP 0x%x in state %u is idle with send WQEs "
                "%u..%u not completed (head %u, PSN una %06x next %06x)",
                node, x->uc ? "UC" : "RC", q->qpn, q->state, q->req.sq_tail,
                q->req.sq_pi, q->req.sq_head, q->comp.una_psn, q->req.next_psn);
    }
    if (q->state == QRNIC_QPS_ERR &&
        (q->resp.rq_ci != q->resp.rq_pi || x->recv_next != q->resp.rq_pi)) {
        fz_fail("node %d: QP 0x%x in ERR: receive WQEs %u..%u, completions "
                "up to %u", node, q->qpn, q->resp.rq_ci, q->resp.rq_pi,
                x->recv_next);
    }
}

/*
 * ATTACH_MCAST (sel bit 1 clear) or DETACH_MCAST on node sel & 1 of its
 * UD QP, its UD QP on the SRQ, the GSI QP or the RC QP (sel bits 2-3) and
 * mc_gids[arg % 4] (2: the node's own unicast GID); sel bit 7: the
 * reserved field set.  The status must be the one the model says.
 */
static void op_mcast(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    int node = sel & 1, q = (sel >> 2) % 4, g = arg % MC_NGID;
    struct side *s = &fx.s[node];
    struct hqp *qps[4] = { s->u[0].qp, s->u[2].qp, s->u[1].qp, s->qp };
    bool attach = !(sel & 2);
    struct qrnic_cmd c = harness_cmd(attach ? QRNIC_CMD_ATTACH_MCAST :
                                     QRNIC_CMD_DETACH_MCAST);
    uint8_t st, want;

    c.mcast.qpn = qps[q]->qpn;
    c.mcast.rsvd = sel & 0x80 ? (uint32_t)arg << 24 | 0x80 : 0;
    if (g == 2) {
        gid_v4(node, c.mcast.gid);
    } else {
        memcpy(c.mcast.gid, mc_gids[g], 16);
    }
    if (q >= 2 || g == 2 || (sel & 0x80)) {
        want = QRNIC_ST_BAD_PARAM;
    } else if (attach) {
        want = QRNIC_ST_OK;
    } else {
        want = fx.mc_att[node][q] & 1u << g ? QRNIC_ST_OK :
               QRNIC_ST_BAD_PARAM;
    }
    st = node_cmd(&nodes[node], &c, NULL);
    if (st != want) {
        fz_fail("node %d: %s_MCAST of QP 0x%x to GID %d (rsvd 0x%x): "
                "status %u, expected %u", node, attach ? "ATTACH" : "DETACH",
                c.mcast.qpn, g, c.mcast.rsvd, st, want);
    }
    if (st == QRNIC_ST_OK && attach) {
        fx.mc_att[node][q] |= (uint8_t)(1u << g);
    } else if (st == QRNIC_ST_OK) {
        fx.mc_att[node][q] &= (uint8_t)~(1u << g);
    }
}

/*
 * RESIZE_CQ of one CQ to a buffer of 1 << log CQEs, software's part done
 * as the hardware interface says: the new ring's entries unwritten for
 * the indexes they hold next and its consumer index in the new record
 * first, then the CQEs [ci, pi) copied to the new ring with the phase of
 * the new depth.  kind 0: right (refused only when what is outstanding
 * does not fit), 1: a consumer index in the record that is not
 * software's, 2: a page list one page short, 3: an unreadable page list,
 * 4: reserved bits, 5: a depth past the largest.  On success result0 must
 * be the producer index.
 */
static uint8_t resize_cq(struct hcq *cq, uint64_t *buf, uint8_t log,
                         uint8_t kind)
{
    struct node *n = cq->n;
    const struct qrnic_cqc *ec = qrnic_cq_get(&n->d.e, cq->cqn);
    uint32_t bytes = (32u << (log <= 12 ? log : 12)) + 64;
    uint32_t npages = (bytes + 4095) / 4096;
    uint64_t nb = buf[0] == cq->base ? buf[1] : buf[0];
    uint32_t pi = ec->pi, pi2, ci = cq->ci;
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_RESIZE_CQ);
    uint32_t r0 = 0, i;
    uint8_t st, want;

    /* Every entry unwritten for the index it holds next (a zeroed one
     * would look written in an odd pass of the new depth). */
    memset(node_ptr(n, nb), 0, npages * 4096ull);
    for (i = ci; log <= 12 && i != ci + (1u << log); i++) {
        qrnic_st32(node_ptr(n, nb + (i & ((1u << log) - 1)) * 32ull +
                            offsetof(struct qrnic_cqe, owner)),
                   (i >> log) & 1 ? QRNIC_CQE_PHASE : 0);
    }
    qrnic_st32(node_ptr(n, nb + (32u << (log <= 12 ? log : 12))),
               kind == 1 ? pi + 1 : ci);
    c.resize_cq.pbl.addr = nb;
    c.resize_cq.pbl.npages = kind == 2 ? npages - 1 : npages;
    c.resize_cq.pbl.levels = QRNIC_PBL_CONTIG;
    c.resize_cq.pbl.page_shift = 12;
    c.resize_cq.cqn = cq->cqn;
    c.resize_cq.log_depth = kind == 5 ? QRNIC_CQ_MAX_LOG + 1 : log;
    if (kind == 3) {
        c.resize_cq.pbl.levels = QRNIC_PBL_LEVEL1;
        c.resize_cq.pbl.npages = npages + 1;
        c.resize_cq.pbl.addr = 0x1000;          /* not guest RAM */
    }
    if (kind == 4) {
        c.resize_cq.rsvd[1] = 1;
    }
    /* The command's bottom half may complete more first: the producer
     * index at the switch is between the one before and the one after. */
    st = node_cmd(n, &c, &r0);
    pi2 = ec->pi;
    want = kind == 3 ? QRNIC_ST_DMA_ERROR : kind != 0 ? QRNIC_ST_BAD_PARAM :
           st == QRNIC_ST_OK ? QRNIC_ST_OK :
           pi2 - ci > 1u << log ? QRNIC_ST_BAD_PARAM :
           QRNIC_ST_OK;
    if (debug) {
        fprintf(stderr, "n%d RESIZE_CQ %u to log %u kind %u, ci %u pi %u..%u: "
                "status %u r0 %u\n", (int)(n - nodes), cq->cqn, log, kind,
                ci, pi, pi2, st, r0);
    }
    if (st != want || (st == QRNIC_ST_OK &&
                       (r0 - pi > pi2 - pi || r0 - ci > 1u << log))) {
        fz_fail("RESIZE_CQ of CQ %u to %u CQEs (kind %u) with %u..%u of %u "
                "outstanding: status %u (expected %u), result0 %u", cq->cqn,
                1u << log, kind, pi - ci, pi2 - ci,
                1u << cq->log, st, want, r0);
    }
    if (st != QRNIC_ST_OK) {
        return st;
    }
    for (i = ci; i != r0; i++) {
        uint8_t *from = node_ptr(n, cq->base +
                                 (i & ((1u << cq->log) - 1)) * 32ull);
        uint8_t *to = node_ptr(n, nb + (i & ((1u << log) - 1)) * 32ull);
        uint32_t owner = qrnic_ld32(from + offsetof(struct qrnic_cqe,
                                                    owner));

        memcpy(to, from, 32);
        owner = (owner & ~QRNIC_CQE_PHASE) |
                ((i >> log) & 1 ? 0 : QRNIC_CQE_PHASE);
        qrnic_st32(to + offsetof(struct qrnic_cqe, owner), owner);
    }
    cq->base = nb;
    cq->log = log;
    return st;
}

/*
 * Run the nodes (CQEs pile up, nobody polls), then RESIZE_CQ of the RC
 * QP's, the UD QPs', the SRQ fixture's or XRC SRQ 0's CQ of a node (sel
 * bits 1-2), of
 * a kind (bits 3-5, see resize_cq()): to 512..4096 CQEs (arg bits 0-1;
 * no CQ is ever smaller than what its QPs can have outstanding between
 * two polls), or (bit 2) to 2..256 but fewer than are outstanding (none
 * when fewer than two are), which must be refused.
 */
static void op_resize(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f), steps = fz_u8(f);
    int node = sel & 1, k = (sel >> 1) % 4 % NCQ, i;
    struct side *s = &fx.s[node];
    struct hcq *cqs[NCQ] = { s->cq, s->ucq, s->xcq, s->xscq[0] };
    struct hcq *cq = cqs[k];
    uint64_t *buf = fx.rbuf[node][k];
    uint8_t kind = (uint8_t)((sel >> 3) % 8);

    if (!buf[0]) {
        for (i = 0; i < 2; i++) {
            buf[i] = node_alloc(&nodes[node], ((32u << 12) + 64 + 4095) &
                                ~4095u, 4096);
        }
    }
    harness_run_steps(now_ns + (steps + 1ull) * 50 * US, steps * 2u + 1);
    if (kind > 5) {
        kind = 0;
    }
    if (arg & 4) {
        const struct qrnic_cqc *ec = qrnic_cq_get(&nodes[node].d.e, cq->cqn);
        uint16_t o = (uint16_t)(ec->pi - cq->ci);
        uint8_t log = (uint8_t)(1 + (arg >> 3) % 8);

        while (log > 1 && 1u << log >= o) {
            log--;
        }
        if (o >= 2 && 1u << log < o) {
            resize_cq(cq, buf, log, kind);
        }
    } else {
        resize_cq(cq, buf, (uint8_t)(9 + arg % 4), kind);
    }
}

/* DEREG_MR and ALLOC_MR of the node's fast-registration region. */
static void key_dereg_keep(int node, uint8_t max_pages)
{
    struct side *s = &fx.s[node];
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DEREG_MR);
    uint32_t key;

    c.dereg_mr.key = cur_key(node, K_FR);
    node_cmd(&nodes[node], &c, NULL);
    c = harness_cmd(QRNIC_CMD_ALLOC_MR);
    c.alloc_mr.pdn = nodes[node].pd;
    c.alloc_mr.max_pages = 1 + max_pages % KEY_FR_PAGES;
    if (node_cmd(&nodes[node], &c, &key) == QRNIC_ST_OK) {
        s->key_idx[K_FR] = QRNIC_KEY_INDEX(key);
    }
}

/* Where an object of the peer (or ours) lies: MR C, a window's range. */
static uint64_t key_addr(int node, int k)
{
    const struct qrnic_mrc *m;

    if (k == K_FR) {
        return fx.s[node].fr_iova;
    }
    if (k == K_MRC) {
        return fx.s[node].mrc->iova;
    }
    m = qrnic_key_slot(&nodes[node].d.e, fx.s[node].key_idx[k] << 8);
    return m && m->valid ? m->iova : fx.s[node].mrc->iova;
}

/*
 * Memory windows and fast registration: sel % 8 picks
 *   0, 1  BIND_MW of the type 1 / type 2 window to [off, off + len) of
 *         MR C (raw a: of MR A, no MW_BIND), rights a & 0x10e, key byte b
 *   2     LOCAL_INV of the window 1, window 2, region, MR C (a % 4)
 *   3     REG_MR of the region at 0x7e.. + off % 4096 for len bytes,
 *         rights a & 0x0f (raw: a), b bit 0 a page too many, bit 1 the
 *         list nowhere, bit 2 more pages than it has
 *   4     SEND_WITH_INV of the peer's window 1, 2, region, MR C (a % 4)
 *         from MR A, b bytes
 *   5     RDMA WRITE (b bit 0: READ) through the peer's a % 4 at off
 *   6     DEALLOC_MW and ALLOC_MW of window a % 2 (the same index may not
 *         come back: keys follow the engine), DEREG_MR and ALLOC_MR of the
 *         region (b: max pages), DEREG_MR of MR C (refused while bound)
 *   7     ALLOC_MW of a refused type, ALLOC_MR of 0 or 513 pages, the
 *         statuses checked
 * ctl: bit 0 the node, bit 1 ring, bits 3-4 the connected QP (W_QP); with
 * W_XRC the XRC_INI QP, bits 3-4 and 7 the SRQ (xrc_srqn()).
 */
static void op_keys(struct fz *f)
{
    uint8_t sel = fz_u8(f), ctl = fz_u8(f), a = fz_u8(f), b = fz_u8(f);
    uint16_t off = fz_u16(f), len = fz_u16(f);
    int node = ctl & W_NODE1, k = a % 4;
    struct side *s = &fx.s[node];
    struct hqp *qp = conn_qp(node, ctl);
    uint8_t *slot = sq_slot(node, qp);
    struct qrnic_cmd c;
    uint32_t key, np;
    uint8_t st;

    if (sel % 8 >= 6) {
        switch (sel % 8 == 7 ? 3 + a % 3 : a % 3) {
        case 0:                     /* a window: deallocated, allocated */
            c = harness_cmd(QRNIC_CMD_DEALLOC_MW);
            c.dealloc_mw.key = cur_key(node, a & 1);
            node_cmd(&nodes[node], &c, NULL);
            c = harness_cmd(QRNIC_CMD_ALLOC_MW);
            c.alloc_mw.pdn = nodes[node].pd;
            c.alloc_mw.type = a & 1 ? QRNIC_MW_TYPE_2 : QRNIC_MW_TYPE_1;
            if (node_cmd(&nodes[node], &c, &key) == QRNIC_ST_OK) {
                s->key_idx[a & 1] = QRNIC_KEY_INDEX(key);
            }
            return;
        case 1:                     /* the region, again */
            key_dereg_keep(node, b);
            return;
        case 2:
            c = harness_cmd(QRNIC_CMD_DEREG_MR);
            c.dereg_mr.key = s->mrc->key;
            st = node_cmd(&nodes[node], &c, NULL);
            if (st == QRNIC_ST_OK) {
                s->mrc->key = 0;    /* gone for good */
            }
            return;
        case 3:
            c = harness_cmd(QRNIC_CMD_ALLOC_MW);
            c.alloc_mw.pdn = nodes[node].pd;
            c.alloc_mw.type = b & 1 ? 3 : 0;
            st = node_cmd(&nodes[node], &c, NULL);
            break;
        case 4:
            c = harness_cmd(QRNIC_CMD_ALLOC_MR);
            c.alloc_mr.pdn = nodes[node].pd;
            c.alloc_mr.max_pages = b & 1 ? QRNIC_MAX_FAST_REG_PAGES + 1 : 0;
            st = node_cmd(&nodes[node], &c, NULL);
            break;
        default:
            c = harness_cmd(QRNIC_CMD_DEALLOC_MW);
            c.dealloc_mw.key = s->mra->key;
            st = node_cmd(&nodes[node], &c, NULL);
            if (st != QRNIC_ST_BAD_HANDLE) {
                fz_fail("node %d: DEALLOC_MW of a REG_MR key: status %u",
                        node, st);
            }
            return;
        }
        if (st != QRNIC_ST_BAD_PARAM) {
            fz_fail("node %d: %s with bad arguments: status %u", node,
                    c.opcode == QRNIC_CMD_ALLOC_MW ? "ALLOC_MW" : "ALLOC_MR",
                    st);
        }
        return;
    }
    memset(slot, 0, 1u << qp->log_ss);
    qrnic_st64(slot, fx.wr_id++);
    slot[9] = QRNIC_WQE_F_SIGNALED | (b & 0x80 ? QRNIC_WQE_F_FENCE : 0);
    if ((ctl & W_XRC) == W_XRC) {
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, xrc_srqn),
                   xrc_srqn(node, ctl));
    }
    switch (sel % 8) {
    case 0:
    case 1:
        key = cur_key(node, sel % 2);
        slot[8] = QRNIC_WR_BIND_MW;
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, bind_mw.mw_key), key);
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, bind_mw.new_key),
                   (key & ~0xffu) | b);
        qrnic_st64(slot + offsetof(struct qrnic_sq_wqe, bind_mw.addr),
                   (a >= FZ_RAW ? s->mra->iova : s->mrc->iova) + off);
        qrnic_st64(slot + offsetof(struct qrnic_sq_wqe, bind_mw.length), len);
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, bind_mw.mr_key),
                   a >= FZ_RAW ? s->mra->key : s->mrc->key);
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, bind_mw.access),
                   a & QRNIC_ACCESS_REMOTE);
        break;
    case 2:
        slot[8] = QRNIC_WR_LOCAL_INV;
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, imm_data),
                   cur_key(node, k));
        break;
    case 3:
        s->fr_iova = 0x7e0000000000ull + (off & 0xfff);
        np = (uint32_t)(((s->fr_iova & 0xfff) + len + 0xfff) >> 12) +
             (b & 1);
        slot[8] = QRNIC_WR_REG_MR;
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, reg_mr.key),
                   (cur_key(node, K_FR) & ~0xffu) | (b & 0xf0));
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, reg_mr.access),
                   a < FZ_RAW ? a & 0x0f : a);
        qrnic_st64(slot + offsetof(struct qrnic_sq_wqe, reg_mr.iova),
                   s->fr_iova);
        qrnic_st64(slot + offsetof(struct qrnic_sq_wqe, reg_mr.length), len);
        qrnic_st64(slot + offsetof(struct qrnic_sq_wqe, reg_mr.pbl_addr),
                   b & 2 ? 0x1000 : s->fr_list);
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, reg_mr.npages),
                   b & 4 ? KEY_FR_PAGES + 1 : np);
        slot[offsetof(struct qrnic_sq_wqe, reg_mr.page_shift)] = 12;
        break;
    case 4:
        slot[8] = QRNIC_WR_SEND_WITH_INV;
        slot[10] = 1;
        qrnic_st32(slot + offsetof(struct qrnic_sq_wqe, imm_data),
                   cur_key(!node, k));
        qrnic_st64(slot + 64, s->mra->iova);
        qrnic_st32(slot + 72, b);
        qrnic_st32(slot + 76, s->mra->key);
        break;
    default:
        slot[8] = b & 1 ? QRNIC_WR_RDMA_READ : QRNIC_WR_RDMA_WRITE;
        slot[10] = 1;
        qrnic_st64(slot + 24, key_addr(!node, k) + off);
        qrnic_st32(slot + 32, cur_key(!node, k));
        qrnic_st64(slot + 64, s->mra->iova);
        qrnic_st32(slot + 72, len % (MR_A_BYTES + 1));
        qrnic_st32(slot + 76, s->mra->key);
        break;
    }
    qp->sq_pi++;
    if (ctl & W_RING) {
        qp_ring_sq(qp);
    }
}

/* Clean wire, SQD back to RTS, run until idle, then the checks. */
static void drain_and_check(void)
{
    struct qrnic_qp_attr a;
    int i, k;

    wire.drop_pct = wire.dup_pct = wire.reorder_pct = 0;
    wire.cut = false;
    for (i = 0; i < 2; i++) {
        fz_faults(&nodes[i].d.e, 0);
        nodes[i].d.hostile_rng = 0;
        if (fx.s[i].sqd) {
            memset(&a, 0, sizeof(a));
            a.qp_state = QRNIC_QPS_RTS;
            qp_modify(fx.s[i].qp, A(STATE), &a);
        }
        ud_to_rts(i, &fx.s[i].u[0]);
        ud_to_rts(i, &fx.s[i].u[1]);
        ud_to_rts(i, &fx.s[i].u[2]);
        for (k = 0; k < NX; k++) {
            if (fx.s[i].x[k].sqd) {
                memset(&a, 0, sizeof(a));
                a.qp_state = QRNIC_QPS_RTS;
                qp_modify(fx.s[i].x[k].qp, A(STATE), &a);
                fx.s[i].x[k].sqd = false;
            }
        }
        if (fx.s[i].xi.sqd) {
            memset(&a, 0, sizeof(a));
            a.qp_state = QRNIC_QPS_RTS;
            qp_modify(fx.s[i].xi.qp, A(STATE), &a);
            fx.s[i].xi.sqd = false;
        }
    }
    if (!harness_run_steps(now_ns + DRAIN_NS, DRAIN_STEPS)) {
        fz_fail("not idle after %llu s of virtual time or %u steps",
                (unsigned long long)(DRAIN_NS / SEC), DRAIN_STEPS);
    }
    poll_side(0);
    poll_side(1);
    poll_ud(0);
    poll_ud(1);
    poll_x(0);
    poll_x(1);
    poll_xrc(0);
    poll_xrc(1);
    for (i = 0; i < 2; i++) {
        const uint64_t *v = nodes[i].d.e.stats.v;

        fz_srq_step(&fx.s[i].sk);
        fz_srq_check_idle(&fx.s[i].sk);
        for (k = 0; k < 2; k++) {
            fz_srq_step(&fx.s[i].xsk[k]);
            fz_srq_check_idle(&fx.s[i].xsk[k]);
        }
        check_x(i, &fx.s[i].xi);
        check_uc(i);
        check_ud(i, &fx.s[i].u[0]);
        check_ud(i, &fx.s[i].u[1]);
        check_ud(i, &fx.s[i].u[2]);
        for (k = 0; k < NX; k++) {
            check_x(i, &fx.s[i].x[k]);
        }
        if (debug) {
            fprintf(stderr, "n%d drops: bad packet %llu, Q_Key %llu, no "
                    "receive WQE %llu\n", i,
                    (unsigned long long)v[QRNIC_STAT_RX_BAD_PKT],
                    (unsigned long long)v[QRNIC_STAT_RX_QKEY_ERR],
                    (unsigned long long)v[QRNIC_STAT_RX_UD_NO_RQE]);
        }
    }
    for (i = 0; i < 2; i++) {
        const struct qrnic_qpc *q = qrnic_qp_get(&nodes[i].d.e,
                                                fx.s[i].qp->qpn);

        if (q->req.sq_tail != q->req.sq_pi) {
            fz_fail("a QP in state %u is idle with posted send WQEs not "
                    "completed (req_error %d, rnr_wait %d, timers %s, peer "
                    "QP in state %u) -- node %d, WQEs %u..%u, head %u, PSN "
                    "una %06x next %06x", q->state, q->req.req_error,
                    q->comp.rnr_wait,
                    q->comp.rto_deadline || q->comp.probe_deadline ||
                    q->comp.rnr_deadline ? "armed" : "none",
                    qrnic_qp_get(&nodes[!i].d.e, fx.s[!i].qp->qpn)->state,
                    i, q->req.sq_tail, q->req.sq_pi, q->req.sq_head,
                    q->comp.una_psn, q->req.next_psn);
        }
        if (q->state == QRNIC_QPS_ERR && q->resp.rq_ci != q->resp.rq_pi) {
            fz_fail("node %d: QP in ERR with receive WQEs %u..%u not "
                    "flushed", i, q->resp.rq_ci, q->resp.rq_pi);
        }
        if (q->state == QRNIC_QPS_ERR && fx.s[i].recv_next != q->resp.rq_pi) {
            fz_fail("node %d: receive completions up to %u, %u posted",
                    i, fx.s[i].recv_next, q->resp.rq_pi);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = { data, size };
    unsigned int ops = 0;

    if (debug < 0) {
        debug = getenv("FUZZ_DEBUG") != NULL;
    }
    setup(&f);
    while (fz_more(&f) && ops++ < MAX_OPS) {
        uint8_t a;

        switch (fz_u8(&f) % OP_COUNT) {
        case OP_RQ:
            op_rq(&f);
            break;
        case OP_DOORBELL:
            op_doorbell(&f);
            break;
        case OP_WIRE:
            op_wire(&f);
            break;
        case OP_RUN:
            a = fz_u8(&f);
            harness_run_steps(now_ns + (fz_u8(&f) + 1ull) * 100 * US,
                              a * 4u + 1);
            break;
        case OP_TIME:               /* timers fire, nothing delivered */
            a = fz_u8(&f);
            now_ns += (uint64_t)(a + 1) * (a + 1) * US;
            qf_run_timer(&nodes[0].d);
            qf_run_timer(&nodes[1].d);
            break;
        case OP_QPCTL:
            op_qpctl(&f);
            break;
        case OP_UDSQ:
        case OP_UDSQ + 1:
            op_udsq(&f);
            break;
        case OP_UDRQ:
            op_udrq(&f);
            break;
        case OP_UDCTL:
            op_udctl(&f);
            break;
        case OP_SRQCTL:
            op_srqctl(&f);
            break;
        case OP_MCAST:
            op_mcast(&f);
            break;
        case OP_RESIZE:
            op_resize(&f);
            break;
        case OP_KEYS:
            op_keys(&f);
            break;
        default:
            op_sq(&f);
            break;
        }
        poll_side(0);           /* never let a CQ overflow */
        poll_side(1);
        poll_ud(0);
        poll_ud(1);
        poll_x(0);
        poll_x(1);
        poll_xrc(0);
        poll_xrc(1);
        fz_srq_step(&fx.s[0].sk);
        fz_srq_step(&fx.s[1].sk);
        fz_srq_step(&fx.s[0].xsk[0]);
        fz_srq_step(&fx.s[0].xsk[1]);
        fz_srq_step(&fx.s[1].xsk[0]);
        fz_srq_step(&fx.s[1].xsk[1]);
        check_uc(0);
        check_uc(1);
    }
    drain_and_check();
    return 0;
}

/* ---- seeds --------------------------------------------------------------- */

struct wsge {
    uint8_t k;
    uint16_t off, len;
};

struct wsq {
    uint8_t ctl, op, flags, nsge;
    uint16_t ilen;
    uint8_t rk;
    uint16_t roff;
    uint8_t cmp, swp;
    struct wsge sge[4];
};

static void w_head(struct fzw *w, uint8_t mtu, uint8_t flags, uint8_t retry,
                   uint8_t timeout)
{
    w->n = 0;
    fzw_u8(w, mtu);
    fzw_u8(w, flags);
    fzw_u8(w, retry);
    fzw_u8(w, timeout);
}

static void w_sq(struct fzw *w, struct wsq s)
{
    int i;

    fzw_u8(w, OP_SQ);
    fzw_u8(w, s.ctl);
    fzw_u8(w, s.op);
    fzw_u8(w, s.flags);
    fzw_u8(w, s.nsge);
    fzw_u16(w, s.ilen);
    fzw_u8(w, s.rk);
    fzw_u16(w, s.roff);
    fzw_u8(w, s.cmp);
    fzw_u8(w, s.swp);
    for (i = 0; i < 4; i++) {
        fzw_u8(w, s.sge[i].k);
        fzw_u16(w, s.sge[i].off);
        fzw_u16(w, s.sge[i].len);
    }
}

static void w_rq(struct fzw *w, uint8_t ctl, uint8_t nsge, uint16_t len)
{
    int i;

    fzw_u8(w, OP_RQ);
    fzw_u8(w, ctl);
    fzw_u8(w, nsge);
    for (i = 0; i < 3; i++) {
        fzw_u8(w, 0);
        fzw_u16(w, (uint16_t)(8192 + i * len));
        fzw_u16(w, len);
    }
}

static void w_op1(struct fzw *w, uint8_t op, uint8_t a)
{
    fzw_u8(w, op);
    fzw_u8(w, a);
}

static void w_op2(struct fzw *w, uint8_t op, uint8_t a, uint8_t b)
{
    fzw_u8(w, op);
    fzw_u8(w, a);
    fzw_u8(w, b);
}

#define SQ(...)         ((struct wsq){ __VA_ARGS__ })
#define SG(k, o, l)     { k, o, l }
#define SIG             QRNIC_WQE_F_SIGNALED
#define RUN(w, s, t)    w_op2(w, OP_RUN, s, t)
#define WIRE(w, s, v)   w_op2(w, OP_WIRE, s, v)
#define QPCTL(w, s, a)  w_op2(w, OP_QPCTL, s, a)
#define TIME(w, t)      w_op1(w, OP_TIME, t)

static void w_db(struct fzw *w, uint8_t ctl, uint16_t v)
{
    fzw_u8(w, OP_DOORBELL);
    fzw_u8(w, ctl);
    fzw_u16(w, v);
}

/* A UD send WQE (op_udsq); all zero but flags and hop: an unsignalled SEND
 * of no SGE to the peer's UD QP with its Q_Key over IPv4. */
struct wud {
    uint8_t ctl, op, flags, nsge;
    uint16_t ilen;
    uint8_t d, k, g, sg, m;
    uint32_t raw, flow;
    uint8_t hop, tc;
    struct wsge sge[4];
};

static void w_udsq(struct fzw *w, struct wud u)
{
    int i;

    fzw_u8(w, OP_UDSQ);
    fzw_u8(w, u.ctl);
    fzw_u8(w, u.op);
    fzw_u8(w, u.flags);
    fzw_u8(w, u.nsge);
    fzw_u16(w, u.ilen);
    fzw_u8(w, u.d);
    fzw_u8(w, u.k);
    fzw_u8(w, u.g);
    fzw_u8(w, u.sg);
    fzw_u8(w, u.m);
    fzw_u32(w, u.raw);
    fzw_u32(w, u.flow);
    fzw_u8(w, u.hop);
    fzw_u8(w, u.tc);
    for (i = 0; i < 4; i++) {
        fzw_u8(w, u.sge[i].k);
        fzw_u16(w, u.sge[i].off);
        fzw_u16(w, u.sge[i].len);
    }
}

/* A UD receive WQE: nsge SGEs of len (key ksel) at off, off + len, .. */
static void w_udrq(struct fzw *w, uint8_t ctl, uint8_t nsge, uint8_t ksel,
                   uint16_t off, uint16_t len)
{
    int i;

    fzw_u8(w, OP_UDRQ);
    fzw_u8(w, ctl);
    fzw_u8(w, nsge);
    for (i = 0; i < 3; i++) {
        fzw_u8(w, ksel);
        fzw_u16(w, (uint16_t)(off + i * len));
        fzw_u16(w, len);
    }
}

/* op_udsq's selectors */
#define UD_SEND         0
#define UD_SEND_IMM     4
#define UD_RC(op)       (7 + 8 * (op))      /* any WR opcode */
#define D_PEER          0
#define D_PEER_GSI      3
#define D_SELF          4                   /* loopback */
#define D_SELF_GSI      5
#define D_PEER_RC       6
#define D_RAW           7                   /* .raw, all 32 bits */
#define D_NOBODY        0xf0                /* .raw & 0xffffff */
#define K_RIGHT         0
#define K_OWN           1                   /* QRNIC_UD_QKEY_USE_QP */
#define K_WRONG         2
#define K_RAW           3
#define G_V4            0
#define G_V6            1
#define G_V4_NOBODY     2
#define G_V6_NOBODY     3
#define G_RAW           0xf0
#define SG_OTHER        2                   /* the other IP version */
#define SG_EMPTY        3                   /* index 2: no GID */
#define M_OWN           1                   /* the MAC of the other node */
#define M_BCAST         2
#define M_NOBODY        3
#define FLOW            (1 << 2)            /* .flow & 0xfffff */
#define FLOW_RAW        (3 << 2)            /* .flow */
/* op_udctl: arg bit 0 node 1, bit 1 GSI, bit 2 the other's Q_Key */
#define U_N1            1
#define U_GSI           2
#define U_OTHER_QKEY    4
#define UDCTL(w, s, a)  w_op2(w, OP_UDCTL, s, a)
#define UD_ERR(w, a)    UDCTL(w, 0, a)
#define UD_RESET_UP(w, a) UDCTL(w, 1, a)
#define UD_SQD(w, a)    UDCTL(w, 2, a)
#define UD_RTS(w, a)    UDCTL(w, 3, a)
#define UD_MTU(w, n, i) UDCTL(w, 5, (uint8_t)((n) | (i) << 1))  /* mtus[i] */
#define UD(...)         ((struct wud){ .hop = 64, __VA_ARGS__ })

static void w_udmask(struct fzw *w, uint8_t arg, uint8_t state,
                     uint32_t mask)
{
    UDCTL(w, 4, (uint8_t)(arg | state << 3));
    fzw_u32(w, mask);
}

/* The SRQ fixture: op_rq's queues, op_udsq's destinations, op_qpctl's QP
 * (arg), op_udctl's QP on the SRQ (arg), op_doorbell's groups */
#define R_SRQ           (1 << 3)
#define R_UC            (2 << 3)
#define D_PEER_SRQ      2                   /* the peer's UD QP on its SRQ */
#define D_SELF_SRQ      (2 | 8)
#define Q_X(x)          ((uint8_t)((1 + (x)) << 4))
#define Q_RESTART       0x40                /* UC: ERR, RESET, up again */
#define U_SRQ           0x40
#define DB_X(q)         ((uint8_t)(1 << 6 | (q) << 4))  /* RC, UCS, UD, UC */
#define DB_SRQQ         (2 << 6)
#define QP_ERR(w, a)    QPCTL(w, 0, a)

static void w_srqctl(struct fzw *w, uint8_t sel, uint8_t arg, uint16_t v)
{
    fzw_u8(w, OP_SRQCTL);
    fzw_u8(w, sel);
    fzw_u8(w, arg);
    fzw_u16(w, v);
}

/* n WQEs (1..8) of 1 KiB << sz on node's SRQ, rung once; limit l (< 66) */
#define SRQ_POST(w, node, n, sz) \
    w_srqctl(w, 2, (uint8_t)((node) | ((n) - 1) << 1), sz)
#define SRQ_POST_SMALL(w, node, n) \
    w_srqctl(w, 3, (uint8_t)((node) | ((n) - 1) << 1), 0)
#define SRQ_ARM(w, node, l) w_srqctl(w, 0, (uint8_t)((node) | (l) << 1), 0)
#define SRQ_QUERY(w, node) w_srqctl(w, 1, node, 0)

/* Multicast: op_mcast's QPs (sel bits 2-3), op_udsq's destination */
#define MC_UD           0
#define MC_UDS          1                   /* the UD QP on the SRQ */
#define MC_GSI          2
#define MC_RC           3
#define MC_ATTACH(w, node, q, g) w_op2(w, OP_MCAST, (node) | (q) << 2, g)
#define MC_DETACH(w, node, q, g) \
    w_op2(w, OP_MCAST, (node) | 2 | (q) << 2, g)
#define D_MC(g)         (1 | (g) << 3)      /* K_RIGHT: the UD QPs' key */
#define D_MC_UDS        0x40                /* K_RIGHT: the SRQ UD QPs' */

/* op_resize: node, CQ (0 the RC QP's, 1 the UD QPs', 2 the SRQ QPs'),
 * kind (resize_cq()), arg (bits 0-1: 512 << n CQEs; bit 2: too small) */
#define RESIZE(w, node, cq, kind, arg, steps) \
    do { \
        w_op2(w, OP_RESIZE, (uint8_t)((node) | (cq) << 1 | (kind) << 3), \
              arg); \
        fzw_u8(w, steps); \
    } while (0)
#define RS_SMALL(log)   (4 | ((log) - 1) << 3)

/* OP_KEYS (op_keys()): sel, ctl, a, b, off, len. */
static void w_keys(struct fzw *w, uint8_t sel, uint8_t ctl, uint8_t a,
                   uint8_t b, uint16_t off, uint16_t len)
{
    fzw_u8(w, OP_KEYS);
    fzw_u8(w, sel);
    fzw_u8(w, ctl);
    fzw_u8(w, a);
    fzw_u8(w, b);
    fzw_u16(w, off);
    fzw_u16(w, len);
}

#define KB_T1           0               /* op_keys sel */
#define KB_T2           1
#define KB_INV          2
#define KB_REG          3
#define KB_SEND_INV     4
#define KB_RDMA         5
#define KB_CMD          6
#define KB_BAD_CMD      7
#define KO_MW1          0               /* op_keys a % 4: which object */
#define KO_MW2          1
#define KO_FR           2
#define KO_MRC          3
#define KRW             (QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ)

static void keys_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /* Windows on the RC QPs: both nodes bind a type 1 and a type 2 window,
     * the peer writes and reads through them, SEND_WITH_INV of the type 2
     * one (F_INV), a WRITE after it (REM_ACCESS_ERR ends the pair); then
     * on the RC QPs of the SRQ fixture: a bind to a range past MR C, one
     * without rights MR A can back, a rebind of the bound type 2 window,
     * LOCAL_INV and a new bind; lossy and hub. */
    for (i = 0; i < 2; i++) {
        w_head(&w, 2, i ? F_HUB : 0, 0x37, 8);
        if (i) {
            WIRE(&w, 0, 10);
            WIRE(&w, 2, 10);
        }
        w_keys(&w, KB_T1, W_NODE1 | W_RING, KRW, 0x11, 0, 8192);
        w_keys(&w, KB_T2, W_NODE1 | W_RING, KRW | QRNIC_ACCESS_REMOTE_ATOMIC,
               0x22, 8192, 4096);
        w_keys(&w, KB_T1, W_RING, KRW, 0x33, 4096, 4096);
        RUN(&w, 10, 10);
        w_keys(&w, KB_RDMA, W_RING, KO_MW1, 0, 100, 3000);
        w_keys(&w, KB_RDMA, W_RING, KO_MW2, 1, 0, 2000);
        w_keys(&w, KB_RDMA, W_NODE1 | W_RING, KO_MW1, 0, 0, 4096);
        w_rq(&w, W_NODE1 | W_RING, 1, 4096);
        w_keys(&w, KB_SEND_INV, W_RING, KO_MW2, 100, 0, 0);
        RUN(&w, 40, 40);
        w_keys(&w, KB_RDMA, W_RING, KO_MW2, 0, 0, 64);
        RUN(&w, 255, 255);
        w_keys(&w, KB_T2, W_NODE1 | W_RING | W_QP(X_RC), KRW, 0x44, 0,
               512);
        RUN(&w, 10, 10);
        w_keys(&w, KB_RDMA, W_RING | W_QP(X_RC), KO_MW2, 0, 10, 500);
        RUN(&w, 40, 40);
        w_keys(&w, KB_T2, W_NODE1 | W_RING | W_QP(X_RC), KRW, 0x45, 0,
               512);
        RUN(&w, 40, 40);
        w_keys(&w, KB_T1, W_RING | W_QP(X_RC), KRW, 0x46, 16000, 4096);
        RUN(&w, 40, 40);
        w_keys(&w, KB_T1, W_NODE1 | W_RING | W_QP(X_UC), FZ_RAW | KRW, 0x47,
               0, 64);
        RUN(&w, 255, 255);
        emit(i ? "keys-windows-lossy-hub" : "keys-windows", &w);
    }

    /* Fast registration: both nodes register their region (reversed
     * pages, an iova inside a page), the peer writes and reads it,
     * SEND_WITH_INV of the peer's, registered again with another key
     * byte, eight SENDs and a LOCAL_INV of it on a lossy wire, LOCAL_INV
     * and REG_MR twice (the second refused) on node 0; REG_MR on
     * the UC QPs with a page too many, the list nowhere, more pages than
     * the region has, on a valid region (each puts the QP in ERR: up
     * again); DEREG_MR and ALLOC_MR of it, DEREG_MR of MR C. */
    w_head(&w, 2, 0, 0x37, 8);
    w_keys(&w, KB_REG, W_NODE1 | W_RING, 0x0f, 0, 0x234, 20000);
    w_keys(&w, KB_REG, W_RING, 0x0f, 0x10, 0x800, 4096);
    RUN(&w, 10, 10);
    w_keys(&w, KB_RDMA, W_RING, KO_FR, 0, 0, 20000);
    w_keys(&w, KB_RDMA, W_RING, KO_FR, 1, 5000, 9000);
    w_keys(&w, KB_RDMA, W_NODE1 | W_RING, KO_FR, 0, 100, 3000);
    RUN(&w, 60, 60);
    w_rq(&w, W_NODE1 | W_RING, 1, 4096);
    w_keys(&w, KB_SEND_INV, W_RING, KO_FR, 64, 0, 0);
    RUN(&w, 40, 40);
    w_keys(&w, KB_REG, W_NODE1 | W_RING, 0x07, 0x20, 0x10, 8000);
    RUN(&w, 10, 10);
    WIRE(&w, 0, 15);
    for (i = 0; i < 8; i++) {
        w_rq(&w, W_RING, 1, 4096);
        w_sq(&w, SQ(.ctl = W_NODE1, .op = QRNIC_WR_SEND, .nsge = 1,
                    .sge = { SG(0, (uint16_t)(i * 512), 1000) }));
    }
    w_keys(&w, KB_INV, W_NODE1 | W_RING, KO_FR, 0, 0, 0);
    RUN(&w, 255, 255);
    WIRE(&w, 0, 0);
    w_keys(&w, KB_INV, W_RING, KO_FR, 0, 0, 0);
    w_keys(&w, KB_REG, W_RING, 0x07, 0x20, 0x10, 8000);
    w_keys(&w, KB_REG, W_RING, 0x07, 0x30, 0x10, 8000);
    RUN(&w, 40, 40);
    w_keys(&w, KB_REG, W_NODE1 | W_RING | W_QP(X_UC), 0x0f, 0x51, 0, 4096);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | 1 | Q_RESTART);
    w_keys(&w, KB_REG, W_NODE1 | W_RING | W_QP(X_UC), 0x0f, 0x52, 0, 4096);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | 1 | Q_RESTART);
    w_keys(&w, KB_REG, W_NODE1 | W_RING | W_QP(X_UC), 0x0f, 0x54, 0, 4096);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | 1 | Q_RESTART);
    w_keys(&w, KB_REG, W_NODE1 | W_RING | W_QP(X_UC), 0x0f, 0x60, 0, 4096);
    w_keys(&w, KB_REG, W_NODE1 | W_RING | W_QP(X_UC), 0x0f, 0x70, 0, 4096);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | 1 | Q_RESTART);
    w_keys(&w, KB_CMD, W_NODE1, 1, 3, 0, 0);
    w_keys(&w, KB_CMD, W_NODE1, 2, 0, 0, 0);
    w_keys(&w, KB_REG, W_NODE1 | W_RING | W_QP(X_UC), 0xff, 0x80, 0, 100);
    RUN(&w, 255, 255);
    emit("keys-fastreg", &w);

    /* Commands and UC: windows deallocated and allocated again while
     * bound, refused ALLOC_MW and ALLOC_MR, DEALLOC_MW of a REG_MR key;
     * a type 2 window bound on a UC QP and written through by its UC
     * twin, SEND_WITH_INV on UC (refused), LOCAL_INV of a type 1 window
     * and of MR C (refused), of the unbound type 2 window. */
    w_head(&w, 2, 0, 0x37, 8);
    w_keys(&w, KB_T1, W_RING, KRW, 1, 0, 4096);
    w_keys(&w, KB_T2, W_RING | W_QP(X_UC), QRNIC_ACCESS_REMOTE_WRITE, 2,
           4096, 4096);
    RUN(&w, 10, 10);
    w_keys(&w, KB_RDMA, W_NODE1 | W_RING | W_QP(X_UC), KO_MW2, 0, 0, 4096);
    w_keys(&w, KB_RDMA, W_NODE1 | W_RING | W_QP(X_UCS), KO_MW2, 0, 0, 64);
    RUN(&w, 40, 40);
    w_keys(&w, KB_CMD, 0, 0, 0, 0, 0);
    w_keys(&w, KB_CMD, 0, 1, 0, 0, 0);
    w_keys(&w, KB_BAD_CMD, 0, 0, 0, 0, 0);
    w_keys(&w, KB_BAD_CMD, 0, 0, 1, 0, 0);
    w_keys(&w, KB_BAD_CMD, 0, 1, 0, 0, 0);
    w_keys(&w, KB_BAD_CMD, 0, 1, 1, 0, 0);
    w_keys(&w, KB_BAD_CMD, 0, 2, 0, 0, 0);
    w_keys(&w, KB_SEND_INV, W_RING | W_QP(X_UC), KO_MW2, 8, 0, 0);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | Q_RESTART);
    w_keys(&w, KB_INV, W_RING | W_QP(X_UC), KO_MW1, 0, 0, 0);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | Q_RESTART);
    w_keys(&w, KB_INV, W_RING | W_QP(X_UC), KO_MRC, 0, 0, 0);
    RUN(&w, 20, 20);
    QP_ERR(&w, Q_X(X_UC) | Q_RESTART);
    w_keys(&w, KB_INV, W_RING | W_QP(X_UC), KO_MW2, 0, 0, 0);
    w_keys(&w, KB_CMD, 0, 2, 0, 0, 0);
    RUN(&w, 255, 255);
    emit("keys-commands-uc", &w);

    /* Binds of the type 1 window between SENDs on a lossy wire (resends
     * go back across them), a type 2 bind, READs through both, LOCAL_INV
     * of the type 2 window, a zero-length bind of the type 1 window. */
    w_head(&w, 2, 0, 0x37, 8);
    WIRE(&w, 0, 20);
    for (i = 0; i < 8; i++) {
        w_rq(&w, W_RING, 1, 4096);
        w_sq(&w, SQ(.ctl = W_NODE1, .op = QRNIC_WR_SEND, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, (uint16_t)(i * 512), 2000) }));
        w_keys(&w, KB_T1, W_NODE1 | W_RING, KRW, (uint8_t)(0x10 + i),
               (uint16_t)(i * 512), 512);
        RUN(&w, 30, 30);            /* the key: the engine's after it */
    }
    RUN(&w, 255, 255);
    w_keys(&w, KB_T2, W_NODE1 | W_RING, KRW, 0x20, 0, 4096);
    RUN(&w, 20, 20);
    w_keys(&w, KB_RDMA, W_RING, KO_MW2, 1, 0, 256);
    w_keys(&w, KB_RDMA, W_RING, KO_MW1, 1, 0, 256);
    RUN(&w, 255, 255);
    w_keys(&w, KB_INV, W_NODE1 | W_RING, KO_MW2, 0, 0, 0);
    w_keys(&w, KB_T1, W_NODE1 | W_RING, 0, 0x77, 0, 0);
    RUN(&w, 255, 255);
    WIRE(&w, 0, 0);
    w_keys(&w, KB_RDMA, W_RING, KO_MW1, 0, 0, 64);
    RUN(&w, 255, 255);
    emit("keys-binds-between-sends", &w);
}

/*
 * XRC: op_sq/op_keys ctl for an XRC send WQE naming xrc_srqn() choice k
 * (XK_*), op_rq ctl for XRC SRQ 0, 1 or the other domain's (XR_*), op_qpctl
 * (XRCCTL, arg XA_*) and op_srqctl (XSRQ_*) selectors, op_doorbell ctl of
 * an XRC SRQ (DB_XSRQ) or an XRC QP's queue (DB_XQP).
 */
#define W_XS(k)         ((uint8_t)(W_XRC | ((k) & 3) << 3 | ((k) & 4) << 5))
#define XK_SRQ0         0
#define XK_SRQ1         1
#define XK_OTHER        3               /* the other domain's SRQ */
#define XK_BASIC        4
#define XK_ZERO         5
#define XK_NOBODY       6               /* 0x777777 */
#define XK_25BIT        7
#define XR_SRQ0         W_XRC
#define XR_SRQ1         (W_XRC | 1 << 3)
#define XR_OTHER        (W_XRC | 3 << 3)
#define XRCCTL(w, s, a) QPCTL(w, XRC_SEL | (s), a)
#define XA_N1           1
#define XA_TGT          0x80
#define XA_RESTART      0x40
#define XRC_ERR(w, a)   XRCCTL(w, 0, a)
#define XRC_RIGHTS(w, a, r) XRCCTL(w, 1, (uint8_t)((a) | (r)))
#define XRC_SQD(w, a)   XRCCTL(w, 2, a)
#define XRC_RTS(w, a)   XRCCTL(w, 3, a)
/* n WQEs (1..8) of 1 KiB << sz on node's XRC SRQ k, rung once */
#define XSRQ_POST(w, node, k, n, sz) \
    w_srqctl(w, XRC_SEL | 2, (uint8_t)((node) | ((n) - 1) << 1 | (k) << 4), \
             sz)
#define XSRQ_AGAIN(w, node, k) \
    w_srqctl(w, XRC_SEL, (uint8_t)((node) | (k) << 4), 0)
#define XSRQ_QUERY(w, node, k) \
    w_srqctl(w, XRC_SEL | 1, (uint8_t)((node) | (k) << 4), 0)
#define DB_XSRQ(k)      ((uint8_t)(DB_SRQQ | (1 + (k)) << 4))
#define DB_XQP(tgt)     ((uint8_t)(DB_SRQQ | 3 << 4 | ((tgt) ? 0x40 : 0)))

/* XRC sends of every opcode XRC takes from node (to the peer's SRQs). */
static void w_xrc_every_opcode(struct fzw *w, uint8_t node)
{
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
               .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 3000) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ1), .op = QRNIC_WR_SEND_IMM,
               .flags = SIG | QRNIC_WQE_F_SOLICITED, .nsge = 2,
               .sge = { SG(0, 0, 100), SG(0, 4096, 100) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ0),
               .op = QRNIC_WR_RDMA_WRITE, .flags = SIG, .nsge = 1,
               .roff = 16, .sge = { SG(0, 0, 5000) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ1), .op = QRNIC_WR_RDMA_READ,
               .flags = SIG, .nsge = 1, .roff = 32,
               .sge = { SG(0, 20000, 20000) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ0),
               .op = QRNIC_WR_ATOMIC_CMP_AND_SWP, .flags = SIG, .nsge = 1,
               .roff = 64, .swp = 9, .sge = { SG(0, 128, 8) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ1),
               .op = QRNIC_WR_ATOMIC_FETCH_AND_ADD,
               .flags = SIG | QRNIC_WQE_F_FENCE, .nsge = 1, .roff = 64,
               .cmp = 3, .sge = { SG(0, 136, 8) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ1),
               .op = QRNIC_WR_RDMA_WRITE_IMM, .flags = SIG, .nsge = 1,
               .roff = 16, .sge = { SG(0, 0, 64) }));
    w_sq(w, SQ(.ctl = node | W_RING | W_XS(XK_SRQ0),
               .op = QRNIC_WR_RDMA_WRITE, .flags = QRNIC_WQE_F_INLINE,
               .ilen = 60, .roff = 4096));
}

static void xrc_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /*
     * Every opcode XRC takes, both ways, each of the two SRQs of the
     * domain named; WQEs on the other domain's and the basic SRQ too
     * (none of them may be taken); then LOCAL_INV on XRC_INI, and the
     * opcodes it refuses: FLUSH, ATOMIC WRITE, BIND_MW, SEND_WITH_INV.
     */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 2; i++) {
        XSRQ_POST(&w, i, 0, 4, 2);
        XSRQ_POST(&w, i, 1, 4, 2);
        w_rq(&w, (uint8_t)(i | W_RING | XR_OTHER), 1, 4096);
        SRQ_POST(&w, i, 2, 2);
    }
    w_xrc_every_opcode(&w, 0);
    w_xrc_every_opcode(&w, W_NODE1);
    RUN(&w, 255, 255);
    w_keys(&w, KB_T2, W_RING, KRW, 0x22, 0, 4096);
    w_keys(&w, KB_REG, W_RING, 0x0f, 0, 0x10, 5000);
    RUN(&w, 255, 255);
    w_keys(&w, KB_INV, W_RING | W_XS(XK_SRQ0), KO_MW2, 0, 0, 0);
    w_keys(&w, KB_INV, W_RING | W_XS(XK_SRQ0), KO_FR, 0, 0, 0);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = OPSEL_FLUSH,
                .flags = SIG, .cmp = 1));
    RUN(&w, 100, 100);
    XRC_ERR(&w, XA_RESTART);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = OPSEL_AW, .flags = SIG,
                .roff = 64, .cmp = 7));
    RUN(&w, 100, 100);
    XRC_ERR(&w, XA_RESTART);
    w_keys(&w, KB_T1, W_RING | W_XS(XK_SRQ0), KRW, 0x11, 0, 8192);
    RUN(&w, 100, 100);
    XRC_ERR(&w, XA_RESTART);
    w_keys(&w, KB_SEND_INV, W_RING | W_XS(XK_SRQ1), KO_MW2, 100, 0, 0);
    RUN(&w, 255, 255);
    emit("xrc-every-opcode", &w);

    /*
     * Requests the target refuses, each ending the pair (node 0's XRC_INI
     * and node 1's XRC_TGT through RESET up again after it): SRQs of the
     * other domain, the basic one, 0, a number no SRQ has, past 24 bits
     * (the requester's own error), a WRITE into a region without remote
     * write, rights taken from XRC_TGT; then one that works.
     */
    w_head(&w, 3, 0, 0x37, 8);
    XSRQ_POST(&w, 1, 0, 8, 1);
    w_rq(&w, W_NODE1 | W_RING | XR_OTHER, 1, 4096);
    SRQ_POST(&w, 1, 2, 1);
    for (i = 0; i < 5; i++) {
        static const uint8_t k[5] = { XK_OTHER, XK_BASIC, XK_ZERO,
                                      XK_NOBODY, XK_25BIT };

        w_sq(&w, SQ(.ctl = W_RING | W_XS(k[i]),
                    .op = i == 2 ? QRNIC_WR_RDMA_WRITE : QRNIC_WR_SEND,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 64) }));
        w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 64) }));
        RUN(&w, 255, 255);
        XRC_ERR(&w, XA_RESTART);
    }
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_RDMA_WRITE,
                .flags = SIG, .nsge = 1, .rk = 1, .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    XRC_ERR(&w, XA_RESTART);
    XRC_RIGHTS(&w, XA_N1 | XA_TGT, QRNIC_ACCESS_REMOTE_READ);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ1), .op = QRNIC_WR_RDMA_WRITE,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 64) }));
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ1), .op = QRNIC_WR_RDMA_READ,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    XRC_ERR(&w, XA_RESTART);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    emit("xrc-refused", &w);

    /*
     * Both ways on a lossy wire (and a hub with a hostile guest): long
     * SENDs alternating between the SRQs, READs, an SRQ empty until the
     * RNR NAKs have gone back and forth; XRC_INI to SQD and back.
     */
    for (i = 0; i < 2; i++) {
        int k;

        w_head(&w, 2, i ? F_HUB | F_HOSTILE : 0, 0x37, 10);
        WIRE(&w, 0, 10);
        WIRE(&w, 1, 10);
        WIRE(&w, 2, 20);
        XSRQ_POST(&w, 1, 0, 8, 3);
        XSRQ_POST(&w, 0, 0, 8, 3);
        for (k = 0; k < 4; k++) {
            w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
                        .flags = SIG, .nsge = 1,
                        .sge = { SG(0, (uint16_t)(k * 8192), 8000) }));
            w_sq(&w, SQ(.ctl = W_NODE1 | W_RING | W_XS(k & 1 ? XK_SRQ1 :
                                                      XK_SRQ0),
                        .op = k & 1 ? QRNIC_WR_SEND_IMM : QRNIC_WR_RDMA_READ,
                        .flags = SIG, .nsge = 1,
                        .sge = { SG(0, (uint16_t)(k * 8192), 8000) }));
        }
        RUN(&w, 100, 50);
        XRC_SQD(&w, 0);
        RUN(&w, 20, 20);
        XSRQ_POST(&w, 0, 1, 4, 3);
        XRC_RTS(&w, 0);
        RUN(&w, 255, 255);
        emit(i ? "xrc-lossy-hub-hostile" : "xrc-lossy", &w);
    }

    /*
     * An XRC SRQ destroyed under a long SEND into it, created again (a new
     * number); the XRC_INI QP ends, its pair goes up again and sends into
     * the new one; queries, doorbells of the XRC SRQs and of queues XRC
     * QPs do not have, the first SRQ's CQ moved mid-traffic.
     */
    w_head(&w, 2, 0, 0x36, 8);
    XSRQ_POST(&w, 1, 0, 4, 3);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 7000) }));
    RUN(&w, 0, 0);
    XSRQ_AGAIN(&w, 1, 0);
    RUN(&w, 255, 255);
    XSRQ_QUERY(&w, 1, 0);
    XRC_ERR(&w, XA_RESTART);
    XSRQ_POST(&w, 1, 0, 4, 2);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 3000) }));
    RESIZE(&w, 1, 3, 0, 1, 3);
    w_sq(&w, SQ(.ctl = W_RING | W_XS(XK_SRQ0), .op = QRNIC_WR_SEND_IMM,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 3000) }));
    RUN(&w, 255, 255);
    w_db(&w, DB_XSRQ(0) | 1, 0);
    w_db(&w, DB_XSRQ(1) | 1 | 1 << 2, 100);
    w_db(&w, DB_XSRQ(0) | 1 | 2 << 2, 1);
    w_db(&w, DB_XQP(false), 0);
    w_db(&w, DB_XQP(false) | 2, 1);
    w_db(&w, DB_XQP(true) | 1, 1);
    w_db(&w, DB_XQP(true) | 1 | 2, 1);
    w_db(&w, DB_XQP(false) | 1 << 2, 40);
    XSRQ_AGAIN(&w, 1, 1);
    XSRQ_QUERY(&w, 1, 1);
    RUN(&w, 255, 255);
    emit("xrc-srq-again", &w);
}

/* Every opcode, each with a receive where it needs one. */
static void w_every_opcode(struct fzw *w)
{
    w_rq(w, W_NODE1 | W_RING, 1, 4096);
    w_rq(w, W_NODE1 | W_RING, 2, 2048);
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
               .sge = { SG(0, 0, 3000) }));
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND_IMM,
               .flags = SIG | QRNIC_WQE_F_SOLICITED, .nsge = 2,
               .sge = { SG(0, 0, 100), SG(0, 4096, 100) }));
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
               .nsge = 1, .roff = 16, .sge = { SG(0, 0, 5000) }));
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
               .nsge = 1, .roff = 32, .sge = { SG(0, 20000, 20000) }));
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_ATOMIC_CMP_AND_SWP,
               .flags = SIG, .nsge = 1, .roff = 64, .swp = 9,
               .sge = { SG(0, 128, 8) }));
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_ATOMIC_FETCH_AND_ADD,
               .flags = SIG | QRNIC_WQE_F_FENCE, .nsge = 1, .roff = 64,
               .cmp = 3, .sge = { SG(0, 136, 8) }));
    w_rq(w, W_NODE1 | W_RING, 1, 64);
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE_IMM, .flags = SIG,
               .nsge = 1, .roff = 16, .sge = { SG(0, 0, 64) }));
    w_sq(w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE,
               .flags = QRNIC_WQE_F_INLINE, .ilen = 150, .roff = 4096));
    TIME(w, 30);
    RUN(w, 255, 255);
}

void fuzz_make_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /* Every opcode, each with a receive where it needs one. */
    w_head(&w, 2, 0, 0x37, 8);
    w_every_opcode(&w);
    emit("every-opcode", &w);

    /* Both directions at once under loss, duplicates and reordering. */
    for (i = 0; i < 3; i++) {
        static const char *names[3] = { "lossy-both-ways", "lossy-hub",
                                        "lossy-hostile" };

        w_head(&w, (uint8_t)(i + 1), i == 1 ? F_HUB : i == 2 ? F_HOSTILE : 0,
               0x37, 10);
        WIRE(&w, 0, 10);
        WIRE(&w, 1, 10);
        WIRE(&w, 2, 20);
        w_rq(&w, W_RING, 1, 8192);
        w_rq(&w, W_NODE1 | W_RING, 1, 8192);
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, 0, 8000) }));
        w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_SEND,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 8000) }));
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, 0, 30000) }));
        w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_RDMA_WRITE,
                    .nsge = 1, .sge = { SG(0, 0, 30000) }));
        w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_ATOMIC_FETCH_AND_ADD,
                    .flags = SIG, .nsge = 1, .cmp = 1,
                    .sge = { SG(0, 64, 8) }));
        RUN(&w, 100, 50);
        WIRE(&w, 4, 0x0b);
        RUN(&w, 255, 255);
        emit(names[i], &w);
    }

    /* Bad WQEs: each completes in error and flushes what follows. */
    for (i = 0; i < 10; i++) {
        static const struct wsq bad[10] = {
            { .op = 9, .flags = SIG, .nsge = 1, .sge = { { 0, 0, 8 } } },
            { .op = QRNIC_WR_SEND, .flags = 0x81, .nsge = 1 },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 0xf3 },
            { .op = QRNIC_WR_SEND, .flags = SIG | QRNIC_WQE_F_INLINE,
              .ilen = 300 },
            { .op = QRNIC_WR_RDMA_READ, .flags = SIG | QRNIC_WQE_F_INLINE,
              .ilen = 8 },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
              .sge = { { 3, 0, 8 } } },
            { .op = QRNIC_WR_RDMA_READ, .flags = SIG, .nsge = 1,
              .sge = { { 2, 0, 8 } } },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
              .sge = { { 0x80, 4, 8 } } },
            { .op = QRNIC_WR_ATOMIC_CMP_AND_SWP, .flags = SIG, .nsge = 1,
              .sge = { { 0, 0, 4 } } },
            { .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 4,
              .sge = { { 0, 0, 0xffff }, { 0, 0, 0xffff } } },
        };
        static const char *names[10] = {
            "bad-opcode", "bad-flags", "bad-num-sge", "inline-too-long",
            "inline-read", "stale-lkey", "read-into-foreign-key",
            "sge-out-of-bounds", "atomic-short", "send-longer-than-recv",
        };

        w_head(&w, 2, 0, 0x37, 8);
        w_rq(&w, W_NODE1 | W_RING, 1, 1024);
        w_sq(&w, SQ(.op = QRNIC_WR_SEND, .nsge = 1,
                    .sge = { SG(0, 0, 16) }));
        w_sq(&w, bad[i]);
        w_sq(&w, SQ(.op = QRNIC_WR_SEND, .nsge = 1,
                    .sge = { SG(0, 0, 16) }));
        w_db(&w, 0, 0);
        RUN(&w, 255, 255);
        emit(names[i], &w);
    }

    /* The responder refuses: no right, bounds, RNR, bad receive WQEs. */
    w_head(&w, 2, 0, 0x07, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .rk = 1, .sge = { SG(0, 0, 16) }));
    emit("remote-no-right", &w);
    w_head(&w, 2, 0, 0x07, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                .nsge = 1, .rk = 0x80, .roff = 8, .sge = { SG(0, 0, 16) }));
    emit("remote-out-of-bounds", &w);
    w_head(&w, 2, 0, 0x17, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    RUN(&w, 10, 10);
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    RUN(&w, 255, 255);
    emit("rnr-then-receive", &w);
    w_head(&w, 2, 0, 0x07, 8);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    emit("rnr-exhausted", &w);
    w_head(&w, 2, 0, 0x37, 8);
    fzw_u8(&w, OP_RQ);
    fzw_u8(&w, W_NODE1 | W_RING);
    fzw_u8(&w, 1);
    fzw_u8(&w, 3);                  /* a stale key */
    fzw_u16(&w, 0);
    fzw_u16(&w, 64);
    fzw_fill(&w, 0, 10);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    emit("recv-stale-lkey", &w);

    /* Doorbells: raw indices, foreign pages, reserved bits; raw WQEs. */
    w_head(&w, 2, 0, 0x37, 8);
    w_sq(&w, SQ(.op = QRNIC_WR_RDMA_WRITE, .flags = SIG, .nsge = 1,
                .sge = { SG(0, 0, 16) }));
    w_db(&w, 0x04, 200);
    w_db(&w, 0x08, 1);
    w_db(&w, 0x0c, 1);
    w_db(&w, 0x06, 3);
    w_db(&w, 0x00, 0);
    fzw_u8(&w, OP_SQ);
    fzw_u8(&w, W_RAW | W_RING);
    for (i = 0; i < 256; i++) {
        fzw_u8(&w, (uint8_t)(i * 37 + 11));
    }
    fzw_u8(&w, OP_RQ);
    fzw_u8(&w, W_RAW | W_NODE1 | W_RING);
    fzw_fill(&w, 0x21, 64);
    RUN(&w, 255, 255);
    emit("doorbells-raw-wqes", &w);

    /* QP states under traffic: ERR, rights revoked, SQD and back. */
    w_head(&w, 2, 0, 0x37, 8);
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    w_rq(&w, W_NODE1 | W_RING, 1, 64);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 9000) }));
    QPCTL(&w, 2, 0);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    RUN(&w, 50, 20);
    QPCTL(&w, 3, 0);
    QPCTL(&w, 1, 0x03);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 9000) }));
    RUN(&w, 3, 1);
    QPCTL(&w, 0, 1);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 16) }));
    emit("qp-states", &w);

    /* A cut wire: retries run out; the hostile guest under big READs. */
    w_head(&w, 4, 0, 0x32, 2);
    WIRE(&w, 5, 1);
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                .nsge = 2, .sge = { SG(0, 0, 20000), SG(0, 30000, 20000) }));
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .nsge = 1,
                .sge = { SG(0, 0, 16) }));
    RUN(&w, 255, 255);
    RUN(&w, 255, 255);
    emit("cut-wire", &w);
    w_head(&w, 5, F_HOSTILE | F_HUB, 0x37, 8);
    for (i = 0; i < 4; i++) {
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                    .nsge = 3, .sge = { SG(0, 0, 10000), SG(0, 10000, 10000),
                                        SG(0, 20000, 10000) }));
    }
    RUN(&w, 255, 255);
    emit("hostile-reads", &w);

    /* Many small WQEs: the SQ wraps, window and completion moderation. */
    w_head(&w, 1, 0, 0x37, 8);
    WIRE(&w, 0, 3);
    for (i = 0; i < 70; i++) {
        w_sq(&w, SQ(.ctl = (uint8_t)(i % 10 == 9 ? W_RING : 0),
                    .op = QRNIC_WR_RDMA_WRITE,
                    .flags = (uint8_t)(i % 7 ? 0 : SIG), .nsge = 1,
                    .roff = (uint16_t)(i * 64), .sge = { SG(0, 0, 300) }));
        if (i % 20 == 19) {
            RUN(&w, 255, 255);
            TIME(&w, 50);
        }
    }
    emit("many-small", &w);

    /* ---- UD and GSI (the UD MTU is 1024 unless a seed sets the MTU) ---- */

    /* Address vectors that work: IPv4, IPv6, SEND_WITH_IMM solicited, QP 1
     * to QP 1, loopback to our own UD QP, a flow label and traffic class,
     * inline data, no data, three SGEs; both directions. */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 6; i++) {
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
    }
    w_udrq(&w, W_NODE1 | W_GSI | W_RING, 1, 0, 20000, 2048);
    for (i = 0; i < 3; i++) {
        w_udrq(&w, W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
    }
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 100) }));
    w_udsq(&w, UD(.ctl = W_RING, .op = UD_SEND_IMM,
                  .flags = SIG | QRNIC_WQE_F_SOLICITED, .nsge = 1, .g = G_V6,
                  .sge = { SG(0, 100, 700) }));
    w_udsq(&w, UD(.ctl = W_GSI | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER_GSI, .k = K_OWN, .sge = { SG(0, 0, 256) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_SELF,
                  .sge = { SG(0, 300, 500) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .m = FLOW,
                  .flow = 0xabcde, .tc = 0x28, .g = G_V6,
                  .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .op = UD_SEND_IMM,
                  .flags = SIG | QRNIC_WQE_F_INLINE, .ilen = 150));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG | QRNIC_WQE_F_FENCE, .nsge = 3,
                  .sge = { SG(0, 0, 300), SG(1, 0, 300), SG(0, 4096, 300) }));
    w_udsq(&w, UD(.ctl = W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 1000) }));
    w_udsq(&w, UD(.ctl = W_NODE1 | W_GSI | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER, .k = K_RIGHT, .g = G_V6,
                  .sge = { SG(0, 0, 256) }));
    RUN(&w, 255, 255);
    emit("ud-every-av", &w);

    /* Lengths at the UD MTU: 1024 in one and in four SGEs, inline at the
     * slot's room (192) and past it, 1025 (LOC_LEN_ERR, ERR); the port
     * MTU to 4200 (UD MTU 4096): 4096 and 4097; to 68 (256): 256, 257. */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 8; i++) {
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 5000), 4200);
    }
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 1024) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 4,
                  .sge = { SG(0, 0, 256), SG(0, 256, 256), SG(0, 512, 256),
                           SG(0, 768, 256) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG | QRNIC_WQE_F_INLINE,
                  .ilen = 192));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG | QRNIC_WQE_F_INLINE,
                  .ilen = 193));
    RUN(&w, 20, 20);
    UD_RESET_UP(&w, 0);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 1025) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 16) }));
    RUN(&w, 20, 20);
    UD_RESET_UP(&w, 0);
    UD_MTU(&w, 0, 6);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 4096) }));
    w_udsq(&w, UD(.ctl = W_RING, .op = UD_SEND_IMM, .flags = SIG, .nsge = 2,
                  .g = G_V6, .sge = { SG(0, 0, 4000), SG(0, 8000, 97) }));
    RUN(&w, 20, 20);
    UD_RESET_UP(&w, 0);
    UD_MTU(&w, 0, 0);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 256) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 257) }));
    RUN(&w, 255, 255);
    emit("ud-mtu-edges", &w);

    /* Bad WQEs, each on a fresh QP: a source GID index with no GID, one
     * past the table, IPv4 to IPv6, a QPN too wide, a flow label too wide
     * (masked, not refused: the good one's neighbour), RDMA
     * WRITE, READ and an atomic, a raw opcode, unknown flags, num_sge,
     * a stale lkey, an SGE out of bounds; a good one after each. */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 16; i++) {
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
    }
    for (i = 0; i < 14; i++) {
        static const struct wud bad[14] = {
            { .sg = SG_EMPTY },
            { .sg = 0xf7 },
            { .sg = SG_OTHER },
            { .g = G_V6, .sg = SG_OTHER },
            { .d = D_RAW, .raw = 0x01000001 },
            { .m = FLOW_RAW, .flow = 0x100000 },
            { .op = UD_RC(QRNIC_WR_RDMA_WRITE) },
            { .op = UD_RC(QRNIC_WR_RDMA_READ) },
            { .op = UD_RC(QRNIC_WR_ATOMIC_FETCH_AND_ADD) },
            { .op = 0xf9 },
            { .flags = 0xf1 },
            { .nsge = 0xf6, .sge = { { 0, 0, 8 } } },
            { .nsge = 1, .sge = { { 3, 0, 8 } } },
            { .nsge = 1, .sge = { { 0x80, 4, 8 } } },
        };
        struct wud b = bad[i];

        b.ctl = W_RING;
        b.flags = (uint8_t)(b.flags | SIG);
        b.hop = 64;
        w_udsq(&w, b);
        w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                      .sge = { SG(0, 0, 8) }));
        RUN(&w, 20, 20);
        UD_RESET_UP(&w, 0);
        w_udsq(&w, UD(.ctl = W_RING, .nsge = 1, .sge = { SG(0, 0, 8) }));
    }
    RUN(&w, 255, 255);
    emit("ud-bad-wqes", &w);

    /* Q_Keys: the sender's own (bit 31) - the same as the peer's -, QP 1's
     * sent by a UD QP (bit 31: its own instead, dropped) and by QP 1
     * (received), a wrong and a raw one (dropped); the peer's UD QP takes
     * QP 1's Q_Key. */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 4; i++) {
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
        w_udrq(&w, W_NODE1 | W_GSI | W_RING, 1, 0,
               (uint16_t)(20000 + i * 2048), 2048);
    }
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .k = K_OWN, .nsge = 1,
                  .sge = { SG(0, 0, 32) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .d = D_PEER_GSI, .nsge = 1,
                  .sge = { SG(0, 0, 32) }));
    w_udsq(&w, UD(.ctl = W_GSI | W_RING, .flags = SIG, .d = D_PEER_GSI,
                  .nsge = 1, .sge = { SG(0, 0, 32) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .k = K_WRONG, .nsge = 1,
                  .sge = { SG(0, 0, 32) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .k = K_RAW, .raw = 0x7fffffff,
                  .nsge = 1, .sge = { SG(0, 0, 32) }));
    RUN(&w, 50, 50);
    UD_RTS(&w, U_N1 | U_OTHER_QKEY);
    w_udsq(&w, UD(.ctl = W_GSI | W_RING, .flags = SIG, .k = K_OWN,
                  .nsge = 1, .sge = { SG(0, 0, 32) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .k = K_RIGHT, .nsge = 1,
                  .sge = { SG(0, 0, 32) }));
    RUN(&w, 255, 255);
    emit("ud-qkeys", &w);

    /* Datagrams nobody takes: to the peer's RC QP, to a QPN nobody has, to
     * addresses nobody has (IPv4, IPv6, raw), to our own MAC with the
     * peer's GID, to broadcast and to a MAC nobody has; loopback to QP 1
     * without its Q_Key. */
    w_head(&w, 2, 0, 0x37, 8);
    w_udrq(&w, W_NODE1 | W_RING, 1, 0, 0, 2048);
    w_rq(&w, W_NODE1 | W_RING, 1, 2048);
    {
        static const struct wud none[9] = {
            { .d = D_PEER_RC },
            { .d = D_NOBODY, .raw = 0x3ff0 },
            { .g = G_V4_NOBODY },
            { .g = G_V6_NOBODY },
            { .m = M_OWN },
            { .m = M_BCAST },
            { .m = M_NOBODY },
            { .d = D_SELF_GSI },
            { .g = G_RAW, .sg = SG_OTHER, .raw = 0x0a000002, .flow = 0xfe80 },
        };

        for (i = 0; i < 9; i++) {
            struct wud b = none[i];

            b.ctl = W_RING;
            b.flags = SIG;
            b.nsge = 1;
            b.sge[0] = (struct wsge){ 0, 0, 64 };
            b.hop = (uint8_t)(i * 30);
            w_udsq(&w, b);
        }
    }
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    emit("ud-to-nobody", &w);

    /* Receive WQEs: smaller than the GRH, the GRH only, across three SGEs,
     * MR B, a stale lkey, one past its region, a raw num_sge, none. */
    w_head(&w, 2, 0, 0x37, 8);
    {
        static const struct { uint8_t nsge, k; uint16_t len, send; } r[8] = {
            { 1, 0, QRNIC_GRH_LEN - 1, 0 },
            { 1, 0, QRNIC_GRH_LEN, 0 },
            { 3, 0, 20, 20 },
            { 1, 1, 2048, 1024 },
            { 1, 3, 2048, 8 },
            { 1, 0x80, 2048, 8 },
            { 0xf9, 0, 2048, 8 },
            { 0, 0, 0, 8 },
        };

        for (i = 0; i < 8; i++) {
            w_udrq(&w, W_NODE1 | W_RING, r[i].nsge, r[i].k, 100, r[i].len);
            w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                          .sge = { SG(0, 0, r[i].send) }));
            RUN(&w, 20, 20);
            UD_RESET_UP(&w, U_N1);
        }
    }
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 8) }));
    RUN(&w, 255, 255);
    emit("ud-recv-sizes", &w);

    /* States: WQEs posted in SQD go out after RTS; ERR flushes both
     * queues; MODIFY_QP with masks UD and GSI QPs refuse (AV, PORT on QP
     * 1, RETRY_CNT) or take (QKEY in RTS, RESET, INIT); SQD to SQD. */
    w_head(&w, 2, 0, 0x37, 8);
    w_udrq(&w, W_NODE1 | W_RING, 1, 0, 0, 2048);
    w_udrq(&w, W_NODE1 | W_RING, 1, 0, 2048, 2048);
    UD_SQD(&w, 0);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 8) }));
    RUN(&w, 20, 20);
    w_udmask(&w, 0, QRNIC_QPS_SQD, A(STATE) | A(QKEY));
    UD_RTS(&w, 0);
    RUN(&w, 20, 20);
    w_udrq(&w, W_NODE1 | W_GSI | W_RING, 1, 0, 4096, 2048);
    w_udsq(&w, UD(.ctl = W_GSI, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 8) }));
    UD_ERR(&w, U_N1);
    UD_ERR(&w, U_N1 | U_GSI);
    UD_ERR(&w, U_GSI);
    w_db(&w, 0x20, 0);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .sge = { SG(0, 0, 8) }));
    RUN(&w, 20, 20);
    UD_RESET_UP(&w, U_N1);
    UD_RESET_UP(&w, U_N1 | U_GSI);
    UD_RESET_UP(&w, U_GSI | U_OTHER_QKEY);
    w_udmask(&w, 0, QRNIC_QPS_RTS, A(STATE) | A(AV));
    w_udmask(&w, U_GSI, QRNIC_QPS_RTS, A(STATE) | A(PORT));
    w_udmask(&w, U_N1, QRNIC_QPS_RTS, A(STATE) | A(RETRY_CNT));
    w_udmask(&w, U_N1, QRNIC_QPS_RTS, A(QKEY));
    w_udmask(&w, U_N1 | U_GSI, QRNIC_QPS_RESET, A(STATE));
    w_udrq(&w, W_NODE1 | W_GSI | W_RING, 1, 0, 4096, 2048);
    w_udmask(&w, U_N1 | U_GSI, QRNIC_QPS_INIT,
             A(STATE) | A(PKEY_INDEX) | A(QKEY));
    w_udrq(&w, W_NODE1 | W_GSI | W_RING, 1, 0, 4096, 2048);
    w_udsq(&w, UD(.ctl = W_GSI | W_RING, .flags = SIG, .d = D_PEER_GSI,
                  .nsge = 1, .sge = { SG(0, 0, 8) }));
    w_udmask(&w, U_N1, QRNIC_QPS_SQD, A(STATE));
    w_udmask(&w, U_N1, QRNIC_QPS_SQD, A(STATE) | A(QKEY) | A(PKEY_INDEX));
    RUN(&w, 255, 255);
    emit("ud-states", &w);

    /* UD both ways under loss, duplicates, reordering, a hub and a hostile
     * guest, with RC traffic in between. */
    w_head(&w, 3, F_HUB | F_HOSTILE, 0x37, 8);
    WIRE(&w, 0, 15);
    WIRE(&w, 1, 15);
    WIRE(&w, 2, 20);
    w_rq(&w, W_NODE1 | W_RING, 1, 8192);
    for (i = 0; i < 8; i++) {
        w_udrq(&w, (uint8_t)(W_RING | (i & 1)), 1, 0, (uint16_t)(i * 3000),
               3000);
    }
    w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
                .sge = { SG(0, 0, 8000) }));
    for (i = 0; i < 8; i++) {
        w_udsq(&w, UD(.ctl = (uint8_t)(W_RING | (i & 1)),
                      .op = (uint8_t)(i & 2 ? UD_SEND_IMM : UD_SEND),
                      .flags = SIG, .nsge = 2, .g = (uint8_t)(i % 3 == 0),
                      .sge = { SG(0, 0, 500), SG(0, 1000, 500) }));
    }
    w_sq(&w, SQ(.ctl = W_NODE1 | W_RING, .op = QRNIC_WR_RDMA_READ,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 20000) }));
    RUN(&w, 100, 50);
    WIRE(&w, 3, 0);
    RUN(&w, 255, 255);
    emit("ud-lossy-hub", &w);

    /* Raw UD WQEs, doorbells on the UD and GSI QPs: any producer index, a
     * page that does not own them, bits beyond the fields. */
    w_head(&w, 2, 0, 0x37, 8);
    w_udrq(&w, W_NODE1 | W_RING, 1, 0, 0, 2048);
    w_udsq(&w, UD(.flags = SIG, .nsge = 1, .sge = { SG(0, 0, 16) }));
    w_db(&w, 0x14, 200);
    w_db(&w, 0x18, 1);
    w_db(&w, 0x1c, 1);
    w_db(&w, 0x10, 0);
    w_db(&w, 0x27, 5);
    fzw_u8(&w, OP_UDSQ);
    fzw_u8(&w, W_RAW | W_RING);
    for (i = 0; i < 256; i++) {
        fzw_u8(&w, (uint8_t)(i < 24 ? (i == 8 ? QRNIC_WR_SEND : 0) :
                             i * 29 + 3));
    }
    fzw_u8(&w, OP_UDRQ);
    fzw_u8(&w, W_RAW | W_NODE1 | W_GSI | W_RING);
    fzw_fill(&w, 0x31, 64);
    RUN(&w, 255, 255);
    emit("ud-doorbells-raw-wqes", &w);

    /* Seventy small datagrams, every seventh signalled, 35 per doorbell
     * (more than a turn's budget): the UD SQ, the peer's RQ and the CQs
     * wrap. */
    w_head(&w, 1, 0, 0x37, 8);
    for (i = 0; i < 70; i++) {
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 128), 128);
        w_udsq(&w, UD(.ctl = (uint8_t)(i % 35 == 34 ? W_RING : 0),
                      .flags = (uint8_t)(i % 7 ? 0 : SIG), .nsge = 1,
                      .sge = { SG(0, (uint16_t)i, 80) }));
        if (i % 20 == 19) {
            RUN(&w, 255, 255);
        }
    }
    emit("ud-many-small", &w);

    /* ---- SRQs and UC (X: the RC and UC QPs on the SRQ and the UC QP with
     * an RQ, each connected to its twin) ---- */

    /* Node 1's SRQ fed from node 0: multi-packet SENDs of the RC and the
     * UC QP interleaved, SEND_WITH_IMM, WRITE_WITH_IMM of one and of three
     * packets (taken at the last), datagrams from node 0's UD QP and from
     * its UD QP on the SRQ; node 1 answers the same way.  Path MTU 256:
     * the RC QP's window (16 packets) ends in the middle of its second
     * message, which completes after the UC QP's. */
    w_head(&w, 0, 0, 0x37, 8);
    SRQ_POST(&w, 1, 8, 2);
    SRQ_POST(&w, 0, 4, 2);
    w_sq(&w, SQ(.ctl = W_QP(X_RC), .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 3000) }));
    w_sq(&w, SQ(.ctl = W_QP(X_UCS), .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 4096, 3000) }));
    w_sq(&w, SQ(.ctl = W_QP(X_RC), .op = QRNIC_WR_SEND_IMM,
                .flags = SIG | QRNIC_WQE_F_SOLICITED, .nsge = 2,
                .sge = { SG(0, 0, 1500), SG(0, 8192, 1000) }));
    w_sq(&w, SQ(.ctl = W_QP(X_UCS), .op = QRNIC_WR_RDMA_WRITE_IMM,
                .flags = SIG, .nsge = 1, .roff = 100,
                .sge = { SG(0, 0, 2500) }));
    w_sq(&w, SQ(.ctl = W_QP(X_RC), .op = QRNIC_WR_RDMA_WRITE_IMM,
                .flags = SIG, .nsge = 1, .roff = 300,
                .sge = { SG(0, 0, 100) }));
    w_udsq(&w, UD(.flags = SIG, .nsge = 1, .d = D_PEER_SRQ, .k = K_RIGHT,
                  .sge = { SG(0, 0, 200) }));
    w_udsq(&w, UD(.ctl = W_UDS, .flags = SIG, .nsge = 1, .d = D_PEER_SRQ,
                  .k = K_OWN, .sge = { SG(0, 0, 300) }));
    w_db(&w, DB_X(0), 0);
    w_db(&w, DB_X(1), 0);
    w_db(&w, 0, 0);
    w_db(&w, DB_X(2), 0);
    w_db(&w, 0x10, 0);
    w_sq(&w, SQ(.ctl = W_QP(X_RC) | W_NODE1 | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 2100) }));
    w_sq(&w, SQ(.ctl = W_QP(X_UCS) | W_NODE1 | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 2100) }));
    w_udsq(&w, UD(.ctl = W_UDS | W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER_SRQ, .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    SRQ_QUERY(&w, 1);
    emit("srq-interleaved", &w);

    /* UC both ways over a lossy wire (drops, duplicates, reordering): the
     * UC QPs' SENDs, WRITEs and WRITE_WITH_IMMs of several packets
     * complete once on the wire, nothing is resent; receive WQEs on the
     * UC QP's RQ and on the SRQ; RC on the SRQ alongside. */
    for (i = 0; i < 2; i++) {
        int k;

        w_head(&w, 2, i ? F_HUB | F_HOSTILE : 0, 0x37, 8);
        WIRE(&w, 0, 15);
        WIRE(&w, 1, 15);
        WIRE(&w, 2, 25);
        for (k = 0; k < 4; k++) {
            w_rq(&w, (uint8_t)(R_UC | W_NODE1 | W_RING), 1, 8192);
            w_rq(&w, (uint8_t)(R_UC | W_RING), 1, 8192);
        }
        SRQ_POST(&w, 1, 8, 3);
        for (k = 0; k < 3; k++) {
            w_sq(&w, SQ(.ctl = W_QP(X_UC) | W_RING, .op = QRNIC_WR_SEND,
                        .flags = SIG, .nsge = 1,
                        .sge = { SG(0, 0, 5000) }));
            w_sq(&w, SQ(.ctl = W_QP(X_UC) | W_NODE1 | W_RING,
                        .op = QRNIC_WR_RDMA_WRITE, .nsge = 1, .roff = 1000,
                        .sge = { SG(0, 0, 7000) }));
            w_sq(&w, SQ(.ctl = W_QP(X_UCS) | W_RING,
                        .op = QRNIC_WR_RDMA_WRITE_IMM, .flags = SIG,
                        .nsge = 1, .sge = { SG(0, 0, 4000) }));
            w_sq(&w, SQ(.ctl = W_QP(X_RC) | W_RING, .op = QRNIC_WR_SEND,
                        .flags = SIG, .nsge = 1,
                        .sge = { SG(0, 0, 3000) }));
        }
        w_sq(&w, SQ(.ctl = W_QP(X_UC) | W_NODE1 | W_RING,
                    .op = QRNIC_WR_SEND_IMM, .flags = SIG, .nsge = 1,
                    .sge = { SG(0, 0, 6000) }));
        RUN(&w, 50, 30);
        WIRE(&w, 4, 0x0b);
        RUN(&w, 255, 255);
        emit(i ? "uc-lossy-hub-hostile" : "uc-lossy", &w);
    }

    /* UC refuses READ and atomics (LOC_QP_OP_ERR, ERR, what follows
     * flushed), also a bad opcode and inline data too long; each time the
     * QP goes through ERR and RESET up again and sends once more. */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 8; i++) {
        w_rq(&w, (uint8_t)(R_UC | W_NODE1 | W_RING), 1, 4096);
    }
    SRQ_POST(&w, 1, 8, 2);
    for (i = 0; i < 5; i++) {
        static const struct wsq bad[5] = {
            { .op = QRNIC_WR_RDMA_READ, .flags = SIG, .nsge = 1,
              .sge = { { 0, 0, 64 } } },
            { .op = QRNIC_WR_ATOMIC_FETCH_AND_ADD, .flags = SIG, .nsge = 1,
              .sge = { { 0, 0, 8 } } },
            { .op = QRNIC_WR_ATOMIC_CMP_AND_SWP, .flags = SIG, .nsge = 1,
              .sge = { { 0, 0, 8 } } },
            { .op = 0xf8, .flags = SIG, .nsge = 1, .sge = { { 0, 0, 8 } } },
            { .op = QRNIC_WR_SEND, .flags = SIG | QRNIC_WQE_F_INLINE,
              .ilen = 300 },
        };
        struct wsq b = bad[i];
        uint8_t x = i % 2 ? X_UCS : X_UC;

        b.ctl = W_QP(x);
        w_sq(&w, SQ(.ctl = W_QP(x), .op = QRNIC_WR_SEND, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, 0, 100) }));
        w_sq(&w, b);
        w_sq(&w, SQ(.ctl = W_QP(x) | W_RING, .op = QRNIC_WR_RDMA_WRITE,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 100) }));
        RUN(&w, 20, 20);
        QP_ERR(&w, (uint8_t)(Q_X(x) | Q_RESTART));
        w_sq(&w, SQ(.ctl = W_QP(x) | W_RING, .op = QRNIC_WR_SEND_IMM,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 100) }));
        RUN(&w, 20, 20);
    }
    RUN(&w, 255, 255);
    emit("uc-read-refused", &w);

    /* QPs that fail while they hold an SRQ WQE: node 1's RC QP in ERR in
     * the middle of an 8-packet SEND (its WQE flushed, the peer's retries
     * run out), its UC QP through ERR and RESET in the middle of one, the
     * UC QP's twin in ERR with SENDs queued; a WQE too small, one of MR B
     * (no room), both on the SRQ. */
    w_head(&w, 3, 0, 0x32, 4);
    SRQ_POST(&w, 1, 4, 3);
    w_sq(&w, SQ(.ctl = W_QP(X_RC) | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 8000) }));
    RUN(&w, 2, 0);
    QP_ERR(&w, Q_X(X_RC) | 1);
    w_sq(&w, SQ(.ctl = W_QP(X_UCS) | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 8000) }));
    RUN(&w, 2, 0);
    QP_ERR(&w, Q_X(X_UCS) | 1 | Q_RESTART);
    w_sq(&w, SQ(.ctl = W_QP(X_UCS) | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 8000) }));
    w_sq(&w, SQ(.ctl = W_QP(X_UCS) | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 100) }));
    QP_ERR(&w, Q_X(X_UCS));
    RUN(&w, 255, 255);
    QP_ERR(&w, Q_X(X_UCS) | Q_RESTART);
    w_rq(&w, (uint8_t)(R_SRQ | W_NODE1 | W_RING), 1, 16);
    SRQ_POST_SMALL(&w, 1, 2);
    w_sq(&w, SQ(.ctl = W_QP(X_UCS) | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 300) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_PEER_SRQ,
                  .sge = { SG(0, 0, 100) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_PEER_SRQ,
                  .sge = { SG(0, 0, 10) }));
    RUN(&w, 255, 255);
    emit("srq-held-errors", &w);

    /* The limit: armed at 5 of 8 (the 4th take fires it), refused at the
     * depth (64) and past it, armed at 63 with fewer posted (the next take
     * fires it), at 0; an empty SRQ: RNR for the RC QP until WQEs come,
     * the UC message and the datagram dropped. */
    w_head(&w, 2, 0, 0x37, 8);
    SRQ_POST(&w, 1, 8, 1);
    SRQ_ARM(&w, 1, 5);
    for (i = 0; i < 4; i++) {
        w_sq(&w, SQ(.ctl = W_QP(i % 2 ? X_UCS : X_RC) | W_RING,
                    .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
                    .sge = { SG(0, 0, 1500) }));
    }
    RUN(&w, 255, 255);
    SRQ_QUERY(&w, 1);
    SRQ_ARM(&w, 1, 64);
    SRQ_ARM(&w, 1, 65);
    w_srqctl(&w, 0, FZ_RAW | 1, 1000);
    SRQ_ARM(&w, 1, 63);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_PEER_SRQ,
                  .sge = { SG(0, 0, 100) }));
    RUN(&w, 255, 255);
    SRQ_ARM(&w, 1, 2);
    SRQ_ARM(&w, 1, 0);
    for (i = 0; i < 5; i++) {
        w_sq(&w, SQ(.ctl = W_QP(i % 2 ? X_UCS : X_RC) | W_RING,
                    .op = QRNIC_WR_SEND, .flags = SIG, .nsge = 1,
                    .sge = { SG(0, 0, 100) }));
        w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                      .d = D_PEER_SRQ, .sge = { SG(0, 0, 100) }));
    }
    RUN(&w, 30, 30);
    SRQ_ARM(&w, 1, 1);
    SRQ_POST(&w, 1, 4, 0);
    RUN(&w, 255, 255);
    emit("srq-limit-empty", &w);

    /* SRQ doorbells: right, any index (past the depth), foreign pages,
     * reserved bits; raw SRQ WQEs; RQ doorbells of the QPs on the SRQ
     * (refused), SQ doorbells of the new QPs with any index; SQD and back
     * and rights revoked on them under traffic. */
    w_head(&w, 2, 0, 0x37, 8);
    w_rq(&w, (uint8_t)(R_SRQ | W_NODE1), 1, 4096);
    w_db(&w, DB_SRQQ | 1, 0);
    w_db(&w, DB_SRQQ | 1 | 1 << 2, 100);
    w_db(&w, DB_SRQQ | 1 | 1 << 2, 0);
    w_db(&w, DB_SRQQ | 1 | 2 << 2, 1);
    w_db(&w, DB_SRQQ | 1 | 3 << 2, 1);
    fzw_u8(&w, OP_RQ);
    fzw_u8(&w, R_SRQ | W_RAW | W_NODE1 | W_RING);
    for (i = 0; i < 64; i++) {
        fzw_u8(&w, (uint8_t)(i < 8 ? i : i == 8 ? 2 : i * 13));
    }
    w_db(&w, DB_X(0) | 1 | 2, 1);
    w_db(&w, DB_X(1) | 1 | 2, 1);
    w_db(&w, DB_X(2) | 1 | 2, 1);
    w_db(&w, DB_X(3) | 1 | 2, 0);
    w_sq(&w, SQ(.ctl = W_QP(X_RC), .op = QRNIC_WR_SEND, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 100) }));
    w_db(&w, DB_X(0) | 1 << 2, 40);
    w_db(&w, DB_X(0) | 2 << 2, 1);
    w_db(&w, DB_X(0), 0);
    w_sq(&w, SQ(.ctl = W_QP(X_UC), .op = QRNIC_WR_RDMA_WRITE, .flags = SIG,
                .nsge = 1, .sge = { SG(0, 0, 100) }));
    w_db(&w, DB_X(3) | 3 << 2, 7);
    w_db(&w, DB_X(3), 0);
    QPCTL(&w, 2, Q_X(X_UC));
    w_sq(&w, SQ(.ctl = W_QP(X_UC) | W_RING, .op = QRNIC_WR_RDMA_WRITE,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 5000) }));
    QPCTL(&w, 1, (uint8_t)(Q_X(X_UC) | 1));
    QPCTL(&w, 2, Q_X(X_RC));
    SRQ_POST(&w, 1, 3, 0);
    w_sq(&w, SQ(.ctl = W_QP(X_RC) | W_RING, .op = QRNIC_WR_SEND,
                .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 2000) }));
    RUN(&w, 20, 20);
    QPCTL(&w, 3, Q_X(X_RC));
    QPCTL(&w, 3, Q_X(X_UC));
    RUN(&w, 255, 255);
    emit("srq-doorbells-raw-wqes", &w);

    /* The UD QPs on the SRQs: datagrams to ours (loopback) and the peer's,
     * from the UD QP and from QP 1, a wrong Q_Key, a WQE too small (ERR),
     * the state machine (ERR, RESET and up, SQD, RTS with another Q_Key,
     * a mask it refuses). */
    w_head(&w, 2, 0, 0x37, 8);
    SRQ_POST(&w, 0, 4, 1);
    SRQ_POST(&w, 1, 4, 1);
    w_udsq(&w, UD(.ctl = W_UDS | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_SELF_SRQ, .sge = { SG(0, 0, 500) }));
    w_udsq(&w, UD(.ctl = W_GSI | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER_SRQ, .k = K_RIGHT, .g = G_V6,
                  .sge = { SG(0, 0, 256) }));
    w_udsq(&w, UD(.ctl = W_UDS | W_RING, .op = UD_SEND_IMM, .flags = SIG,
                  .nsge = 1, .d = D_PEER_SRQ, .k = K_WRONG,
                  .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_UDS | W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER, .sge = { SG(0, 0, 64) }));
    RUN(&w, 50, 50);
    UD_SQD(&w, U_SRQ | U_N1);
    w_udsq(&w, UD(.ctl = W_UDS | W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER_SRQ, .sge = { SG(0, 0, 64) }));
    RUN(&w, 20, 20);
    UD_RTS(&w, U_SRQ | U_N1 | U_OTHER_QKEY);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_PEER_SRQ,
                  .sge = { SG(0, 0, 64) }));
    w_udmask(&w, U_SRQ | U_N1, QRNIC_QPS_RTS, A(STATE) | A(AV));
    UD_ERR(&w, U_SRQ);
    w_udsq(&w, UD(.ctl = W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER_SRQ, .sge = { SG(0, 0, 64) }));
    RUN(&w, 20, 20);
    UD_RESET_UP(&w, U_SRQ);
    SRQ_POST_SMALL(&w, 0, 2);
    w_udsq(&w, UD(.ctl = W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_PEER_SRQ, .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    emit("srq-ud", &w);

    /* Multicast: node 1's UD QP and UD QP on the SRQ and node 0's own UD
     * QP in an IPv4 group; node 0 sends to it with each Q_Key (the
     * attached QP of that key receives, node 0's own by loopback), to an
     * IPv6 group, over the broadcast MAC; detached, then only the others
     * receive; sends from node 1 to the group it is in itself. */
    w_head(&w, 2, 0, 0x37, 8);
    MC_ATTACH(&w, 1, MC_UD, 0);
    MC_ATTACH(&w, 1, MC_UDS, 0);
    MC_ATTACH(&w, 0, MC_UD, 0);
    MC_ATTACH(&w, 0, MC_UD, 0);
    MC_ATTACH(&w, 1, MC_UD, 1);
    MC_ATTACH(&w, 0, MC_UDS, 1);
    SRQ_POST(&w, 0, 8, 0);
    SRQ_POST(&w, 1, 8, 0);
    for (i = 0; i < 6; i++) {
        w_udrq(&w, W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
    }
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .sge = { SG(0, 0, 500) }));
    w_udsq(&w, UD(.ctl = W_RING, .op = UD_SEND_IMM, .flags = SIG, .nsge = 1,
                  .d = D_MC(0) | D_MC_UDS, .sge = { SG(0, 512, 100) }));
    w_udsq(&w, UD(.ctl = W_UDS | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_MC(1), .g = G_V6, .sg = 1,
                  .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1,
                  .d = D_MC(1) | D_MC_UDS, .g = G_V6, .sg = 1,
                  .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .m = M_BCAST, .sge = { SG(0, 0, 32) }));
    RUN(&w, 60, 60);
    MC_DETACH(&w, 1, MC_UD, 0);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .sge = { SG(0, 0, 40) }));
    w_udsq(&w, UD(.ctl = W_NODE1 | W_RING, .flags = SIG, .nsge = 1,
                  .d = D_MC(1), .g = G_V6, .sg = 1,
                  .sge = { SG(0, 0, 40) }));
    w_udsq(&w, UD(.ctl = W_NODE1 | W_GSI | W_RING, .flags = SIG,
                  .nsge = 1, .d = D_MC(0), .sge = { SG(0, 0, 40) }));
    RUN(&w, 255, 255);
    emit("mcast-loopback", &w);

    /* Refused: the GSI and RC QPs, a unicast GID, the reserved field,
     * detaching what is not attached; sends to a group nobody is in, to
     * QPN 0xffffff at a unicast GID, with a wrong Q_Key, the wrong IP
     * version's source GID, no receive WQE; an attached QP through ERR,
     * RESET and up again (still attached). */
    w_head(&w, 2, 0, 0x37, 8);
    MC_ATTACH(&w, 0, MC_GSI, 0);
    MC_ATTACH(&w, 1, MC_RC, 1);
    MC_ATTACH(&w, 1, MC_UD, 2);
    w_op2(&w, OP_MCAST, 1 | 0x80, 0);
    MC_DETACH(&w, 1, MC_UD, 0);
    MC_ATTACH(&w, 1, MC_UD, 3);
    MC_DETACH(&w, 1, MC_UD, 3);
    MC_ATTACH(&w, 1, MC_UD, 0);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .sge = { SG(0, 0, 64) }));
    w_udrq(&w, W_NODE1 | W_RING, 1, 0, 0, 2048);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(3),
                  .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(2),
                  .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .k = K_WRONG, .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .sg = SG_OTHER, .sge = { SG(0, 0, 64) }));
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .m = M_OWN, .sge = { SG(0, 0, 64) }));
    RUN(&w, 60, 60);
    UD_ERR(&w, U_N1);
    UD_RESET_UP(&w, U_N1);
    w_udrq(&w, W_NODE1 | W_RING, 1, 0, 0, 2048);
    w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_MC(0),
                  .sge = { SG(0, 0, 64) }));
    RUN(&w, 255, 255);
    emit("mcast-refused", &w);

    /* RESIZE_CQ in the middle of traffic, unpolled completions copied by
     * software: node 1's RC CQ grown to 4096 with SENDs completing, shrunk
     * to 512, a shrink below what is outstanding refused; every refused
     * kind; the UD CQ and the SRQ fixture's CQ moved while datagrams and
     * UC SENDs complete. */
    w_head(&w, 2, 0, 0x37, 8);
    for (i = 0; i < 12; i++) {
        w_rq(&w, W_NODE1 | W_RING, 1, 1024);
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND_IMM, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, (uint16_t)(i * 64), 64) }));
    }
    RESIZE(&w, 1, 0, 0, 3, 40);
    RESIZE(&w, 0, 0, 0, 0, 10);
    for (i = 0; i < 12; i++) {
        w_rq(&w, W_NODE1 | W_RING, 1, 1024);
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, (uint16_t)(i * 64), 900) }));
    }
    RESIZE(&w, 1, 0, 0, RS_SMALL(3), 60);
    RESIZE(&w, 1, 0, 0, 0, 30);
    RESIZE(&w, 1, 0, 1, 1, 1);
    RESIZE(&w, 1, 0, 2, 1, 1);
    RESIZE(&w, 1, 0, 3, 1, 1);
    RESIZE(&w, 1, 0, 4, 1, 1);
    RESIZE(&w, 1, 0, 5, 1, 1);
    for (i = 0; i < 8; i++) {
        w_udrq(&w, W_NODE1 | W_RING, 1, 0, (uint16_t)(i * 2048), 2048);
        w_udsq(&w, UD(.ctl = W_RING, .flags = SIG, .nsge = 1, .d = D_PEER,
                      .sge = { SG(0, 0, (uint16_t)(100 + i)) }));
        w_rq(&w, W_NODE1 | W_RING | R_UC, 1, 1024);
        w_sq(&w, SQ(.ctl = W_RING | W_QP(X_UC), .op = QRNIC_WR_SEND,
                    .flags = SIG, .nsge = 1, .sge = { SG(0, 0, 200) }));
    }
    RESIZE(&w, 1, 2, 0, RS_SMALL(2), 30);
    RESIZE(&w, 1, 1, 0, 2, 30);
    RESIZE(&w, 0, 2, 0, 1, 30);
    RESIZE(&w, 0, 1, 0, 0, 30);
    RESIZE(&w, 1, 2, 0, 0, 255);
    RUN(&w, 255, 255);
    emit("resize-cq-mid-traffic", &w);

    /* FLUSH (swp: type, level bit 2; length cmp << 6) and ATOMIC WRITE
     * both ways among WRITEs and READs, then under loss, duplicates and
     * reordering: a range, the MR level, eight bytes. */
    for (i = 0; i < 2; i++) {
        static const char *names[2] = { "flush-aw-both-ways",
                                        "flush-aw-lossy" };
        int n;

        w_head(&w, 2, 0, 0x37, 10);
        if (i) {
            WIRE(&w, 0, 15);
            WIRE(&w, 1, 10);
            WIRE(&w, 2, 10);
        }
        for (n = 0; n < 2; n++) {
            uint8_t c = n ? W_NODE1 | W_RING : W_RING;

            w_sq(&w, SQ(.ctl = c, .op = QRNIC_WR_RDMA_WRITE, .nsge = 1,
                        .roff = 256, .sge = { SG(0, 0, 3000) }));
            w_sq(&w, SQ(.ctl = c, .op = OPSEL_FLUSH, .flags = SIG,
                        .roff = 256, .cmp = 47, .swp = 0));
            w_sq(&w, SQ(.ctl = c, .op = OPSEL_AW, .flags = SIG,
                        .roff = 4096, .cmp = 0x5a));
            w_sq(&w, SQ(.ctl = c, .op = OPSEL_FLUSH, .flags = SIG,
                        .roff = 9, .cmp = 255, .swp = 4));
            w_sq(&w, SQ(.ctl = c, .op = QRNIC_WR_RDMA_READ, .flags = SIG,
                        .nsge = 1, .roff = 4096, .sge = { SG(0, 8192, 64) }));
            w_sq(&w, SQ(.ctl = c, .op = OPSEL_AW,
                        .flags = SIG | QRNIC_WQE_F_FENCE, .roff = 4104,
                        .cmp = 0xa5));
        }
        RUN(&w, 100, 50);
        WIRE(&w, 4, 0x0b);
        RUN(&w, 255, 255);
        emit(names[i], &w);
    }

    /* Refused by the responder or the WQE, each flushing what follows:
     * FLUSH of MR B (no FLUSH_GLOBAL), PERSISTENT, type 0, a range past
     * the region, a raw type and level; ATOMIC WRITE unaligned, to MR B
     * (no remote write), inline; FLUSH after the responder lost
     * FLUSH_GLOBAL. */
    for (i = 0; i < 8; i++) {
        static const struct wsq bad[8] = {
            { .op = OPSEL_FLUSH, .flags = SIG, .rk = 1, .cmp = 1 },
            { .op = OPSEL_FLUSH, .flags = SIG, .cmp = 1, .swp = 2 },
            { .op = OPSEL_FLUSH, .flags = SIG, .cmp = 1, .swp = 3 },
            { .op = OPSEL_FLUSH, .flags = SIG, .rk = 0x80, .roff = 8,
              .cmp = 1 },
            { .op = OPSEL_FLUSH, .flags = SIG, .cmp = 1, .swp = 0xf5 },
            { .op = OPSEL_AW, .flags = SIG, .roff = 12, .swp = 0x80 },
            { .op = OPSEL_AW, .flags = SIG, .rk = 1 },
            { .op = OPSEL_AW, .flags = SIG | QRNIC_WQE_F_INLINE, .ilen = 8 },
        };
        static const char *names[8] = {
            "flush-refused-no-right", "flush-refused-persistent",
            "flush-bad-type", "flush-refused-bounds", "flush-raw-type",
            "aw-refused-unaligned", "aw-refused-no-right", "aw-inline",
        };
        struct wsq b = bad[i];

        w_head(&w, 2, 0, 0x37, 8);
        w_rq(&w, W_NODE1 | W_RING, 1, 64);
        b.ctl = W_RING;
        w_sq(&w, b);
        w_sq(&w, SQ(.ctl = W_RING, .op = QRNIC_WR_SEND, .flags = SIG,
                    .nsge = 1, .sge = { SG(0, 0, 8) }));
        RUN(&w, 255, 255);
        emit(names[i], &w);
    }
    w_head(&w, 2, 0, 0x37, 8);
    QPCTL(&w, 1, 1 | 0x0e);
    w_sq(&w, SQ(.ctl = W_RING, .op = OPSEL_FLUSH, .flags = SIG, .cmp = 1));
    w_sq(&w, SQ(.ctl = W_RING, .op = OPSEL_AW, .flags = SIG));
    QPCTL(&w, 1, 1 | 0x8e);
    RUN(&w, 255, 255);
    emit("flush-right-revoked", &w);

    /* On the UC QPs (on the SRQ, with an RQ): refused locally. */
    w_head(&w, 2, 0, 0x37, 8);
    w_sq(&w, SQ(.ctl = W_RING | W_QP(X_UCS), .op = OPSEL_FLUSH,
                .flags = SIG, .cmp = 1));
    w_sq(&w, SQ(.ctl = W_NODE1 | W_RING | W_QP(X_UC), .op = OPSEL_AW,
                .flags = SIG));
    w_sq(&w, SQ(.ctl = W_RING | W_QP(X_RC), .op = OPSEL_AW, .flags = SIG,
                .roff = 64, .cmp = 7));
    RUN(&w, 255, 255);
    emit("flush-aw-uc", &w);
    keys_seeds(emit);

    /* Every opcode through devices that drop, reorder, corrupt (node 0) and
     * duplicate (node 1); then node 0 dropping everything. */
    for (i = 0; i < 2; i++) {
        w_head(&w, 2, 0, 0x37, 8);
        WIRE(&w, OP_WIRE_FAULTS, i ? FZ_FAULT_ALL | FZ_FAULT_DROP :
                                 FZ_FAULT_DROP | FZ_FAULT_REORDER |
                                 FZ_FAULT_CORRUPT);
        WIRE(&w, OP_WIRE_FAULTS + 1, FZ_FAULT_DUP | FZ_FAULT_REORDER);
        w_every_opcode(&w);
        RUN(&w, 255, 255);
        emit(i ? "every-opcode-drop-all" : "every-opcode-faults", &w);
    }
    xrc_seeds(emit);
}

