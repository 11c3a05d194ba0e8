/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_rx: received RoCEv2 frames, into an engine with something to lose.
 *
 * Node 1 of the rc harness is the target: QP A connected (RTS) to node 0's
 * QP, QP B only in RTR (remote read only, max_dest_rd_atomic 0 or 1, a
 * two-entry CQ), MR A (all rights) and MR B (remote read only).  The
 * input is a program: frames built from a template of the header fields
 * (an RC opcode mostly, a real QP mostly, a PSN a small signed step from
 * the one the QP expects - for responses, from its next PSN -, a real
 * rkey and an address in or near the region mostly, lengths, payload,
 * AckReq, a few raw byte changes), sent as node 0 would with the ICRC
 * fixed up unless asked not to; between them bottom halves, time and
 * timer expiries, wire deliveries to and from node 0 (when the peer is
 * live), receive and send WQEs posted on node 1, and QP state changes.
 *
 * Node 1 also has a UD QP and the GSI QP (QP 1), in RTS with their own CQ,
 * and an IPv6 GID at index 1.  Datagram frames (OP_DGRAM) carry a DETH
 * and go to either of them, or to QP A, QP B or any QPN: a UD SEND or
 * SEND with immediate mostly, or an RC or other UD-transport opcode; the
 * Q_Key the destination holds, one bit of it wrong, the other QP's or any;
 * any source QP, from node 0 or a stranger, to node 1 or not; IPv4 or
 * IPv6; payloads around the UD MTU; a DETH cut short, a bad pad count, a
 * few raw byte changes.  Receive WQEs of any size are posted to both, and
 * they go through their state machine (ERR, RESET and up again, INIT or
 * RTR only, SQD, a new Q_Key, a MODIFY_QP with any mask) and the port's
 * MTU (the UD MTU follows it) changes.
 * Node 1 also has a shared receive queue with three QPs on it (QP C, RC,
 * connected to an RC QP of node 0; QP F, UC; QP V, UD, in RTS with a Q_Key
 * of its own) and QP E, UC with a receive queue of its own (QPs E and F
 * connected to a UC QP of node 0), with a CQ of their own.  Frames go to
 * them (a selector value the seeds before them never used): UC opcodes
 * (the RC SEND and WRITE ones plus 0x20) to the UC QPs, or with a flag RC
 * opcodes to them and UC opcodes to the RC QPs; PSN steps make gaps in
 * the middle of messages; datagrams go to QP V or the other three.
 * Receive WQEs are posted to the SRQ (one or a batch) and to QP E, SRQ
 * doorbells of any index or page are rung, the SRQ limit is armed (any
 * value) and queried, the QPs go to ERR (holding an SRQ WQE, maybe) or
 * through ERR and RESET up again.
 * The fake platform checks the engine's invariants after every step; a
 * successful UD receive completion must name a UD QP, carry the GRH flag
 * and a length of at least the GRH.  A receive completion of a QP on the
 * SRQ carries F_SRQ and names a slot the device took and did not complete
 * before (no other has F_SRQ); the limit event comes once per arming when
 * a take leaves fewer WQEs than the limit; when the nodes end idle every
 * WQE taken from the SRQ is completed or held by one QP not in ERR, and
 * QP E's receive completions came in order (all of them in ERR).
 * Multicast: node 1 also has QP W (UD, its own CQ and Q_Key); OP_MCAST
 * attaches and detaches QPs U (the UD QP), V and W - and refused ones:
 * the GSI QP, RC QPs, no QP, a reserved field set, unicast GIDs - to and
 * from IPv4 and IPv6 multicast GIDs, the status checked against a model
 * of the groups; datagrams go to QPN 0xffffff and a GID (a group U, V, W
 * may be in, one nobody joined, the port's unicast GIDs), under the
 * group's MAC, the port's or broadcast, with U's, W's or V's Q_Key or
 * another; a crowd of 16 more UD QPs (made at need) fills a group, so
 * attaching past 16 QPs gets NO_RESOURCES.  W's receives complete in
 * order, the successful ones no more often than datagrams that could
 * reach it were sent.
 * Memory windows and fast registration: node 1 also has QP K (RC, its
 * own CQ, connected to a QP of node 0 of its own), MR C (MW_BIND), a type
 * 1 and a type 2 window bound through QP K to halves of MR C and a
 * fast-registration region QP K registered over three pages.  Frames go
 * to QP K (a selector bit the seeds before them never set), keys may name
 * those four (another selector bit), and SEND_LAST_WITH_INVALIDATE and
 * SEND_ONLY_WITH_INVALIDATE (an RC opcode selector of 22 or 23) carry the
 * key in an IETH; receive WQEs go to QP K too.
 *
 * XRC: node 1 also has QP T (XRC_TGT of domain XRCD_A) with two XRC
 * SRQs of that domain (S0, S1, a CQ each), SRQ O of another domain and
 * QP I (XRC_INI, its own send CQ); node 0 has an XRC_INI QP connected to
 * T and an XRC_TGT QP (one XRC SRQ, WQEs posted) connected to I.  Frames
 * go to T, I or QP A with XRC opcodes (a selector value the seeds before
 * them never used; the mutation flag that crosses UC and RC sends an RC
 * or UC opcode instead); an XRC request's XRCETH names S0 or S1 mostly,
 * O, the basic SRQ, none, any number, the reserved byte set, or is cut
 * short with nothing after it (the raw QPN's low byte, unused when a QP
 * is picked, chooses).  Receive WQEs go to S0, S1 and O, the XRC SRQs
 * are queried, rung, destroyed and created again (T may be in the middle
 * of a message into one), T and I go to ERR, SQD, RTS with new rights or
 * through RESET up again (with their peer), and I posts sends of any
 * opcode naming the XRC SRQ of node 0 (or 0, any number, past 24 bits),
 * answered by node 0 when the peer is live or by made-up frames.  A
 * receive completion on S0's or S1's CQ carries F_SRQ and F_XRC, names T
 * and that SRQ, and a slot taken once (fz_srq); nothing completes on O.
 *
 * RDMA FLUSH and ATOMIC WRITE: the frame template's opcode selector
 * takes them too (21, 22: values the seeds before them never used), the
 * FETH's placement type and level from the syndrome byte (its reserved
 * bits with a mutation flag), and QP A posts FLUSH and ATOMIC WRITE WQEs
 * whose answers (empty READ RESPONSE ONLY, or anything) are made up.
 * MR A and the connected QPs allow FLUSH_GLOBAL, MR B does not.
 *
 * Fault injection: bits 3..7 of the flags are fz_faults() selector bits;
 * node 1 drops, reorders and corrupts frames both ways as they pick, node
 * 0 duplicates (a datagram node 1 duplicated would reach QP W more often
 * than it was sent).
 *
 * Input: mtu, flags (1: peer live, 2: hub, 4: QP B max_dest_rd_atomic
 * 1, 8..0x80: faults), retry (retry_cnt | rnr_retry << 3), then
 * operations (OP_*).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"

const char fuzz_target_name[] = "fuzz_rx";

#define US 1000ull
#define MS 1000000ull
#define MR_A_BYTES (64u << 10)
#define MR_B_BYTES (8u << 10)
#define MAX_OPS 160
#define ALL_ACCESS (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                    QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC | \
                    QRNIC_ACCESS_FLUSH_GLOBAL)
#define A(x) QRNIC_QP_ATTR_##x

enum {
    OP_FRAME = 0,               /* 0..5 */
    OP_BH = 6,
    OP_TIME,
    OP_RUN,
    OP_RECV,
    OP_SEND,
    OP_QPCTL,
    OP_DGRAM = 12,              /* 12, 13 */
    OP_UDRECV = 14,
    OP_UDCTL,
    OP_SRQCTL,
    OP_MCAST,
    OP_COUNT
};

#define F_PEER_LIVE     1
#define F_HUB           2
#define F_QPB_RD        4
#define F_FAULT_SHIFT   3

/* Frame template flags (fl) */
#define FL_ACKREQ       0x01
#define FL_SE           0x02
#define FL_VLAN         0x04
#define FL_IPV6         0x08
#define FL_BAD_PKEY     0x10
#define FL_TVER         0x20
#define FL_BAD_ICRC     0x40
#define FL_BCAST        0x80

/* Payload length selector (psel) */
#define PAY_MTU                 0x00
#define PAY_N(n)                (0x40 | (n))        /* n < 64 */
#define PAY_MTU_MINUS(n)        (0x80 | (n))        /* mtu - 1 - n */
#define PAY_BIG(k)              (0xc0 | (k))        /* k * 160 */

/* Datagram flags (fl2) */
#define D_FOREIGN       0x01    /* to an address that is not node 1's */
#define D_TRUNC         0x02    /* the DETH cut to (fl2 >> 4) & 7 bytes */
#define D_BADPAD        0x04    /* pad count (fl2 >> 4) & 3 */
#define D_STRANGER      0x08    /* from an address that is not node 0's */

/* Datagram payload selector (psel) */
#define DPAY_N(n)               (n)                 /* n < 64 */
#define DPAY_MTU_MINUS(n)       (0x40 | (n))        /* UD MTU - n */
#define DPAY_MTU_PLUS(n)        (0x80 | (n))        /* UD MTU + 1 + n */
#define DPAY_BIG(k)             (0xc0 | (k))        /* k * 160 */

/* op_frame's QP selector: qsel % 4 == Q_NEW, then (qsel >> 2) % 4 */
#define Q_NEW           1
#define Q_K_BIT         0x40    /* with Q_NEW: QP K */
#define Q_XRC           0x30    /* with Q_NEW, both bits: XRC (QX_*) */
enum { QN_C, QN_E, QN_F, QN_A };
enum { QX_T, QX_I, QX_T2, QX_A };       /* XRC opcodes to T, I, T, QP A */

/* op_qpctl, op_srqctl and op_send selectors from it: the XRC fixture */
#define XRC_SEL         0xe0
#define XRCD_A          0x5a5a5u        /* QP T's domain */
#define XRCD_B          0x5a5a6u

#define FZ_UD_SRQ_QKEY  0x5566aa77u     /* QP V's */
#define FZ_MC_QKEY      0x0badcafeu     /* QP W's */

/*
 * Multicast: op_dgram's destination selector 1 (no seed before them used
 * it) sends to QPN 0xffffff and the GID mc_gids[(dsel >> 3) % 8]; OP_MCAST
 * attaches or detaches QP U, V, W (or the GSI QP, an RC QP, no QP) to or
 * from one of them.  All but 4 and 7 are multicast GIDs.
 */
#define MC_NGID         8
#define MC_QPS          3               /* U, V, W */
static const uint8_t mc_gids[MC_NGID][16] = {
    { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 1, 2, 3 },
    { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0d, 0xb8, 1 },
    { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 224, 0, 0, 1 },
    { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 },
    { 0 },                              /* node 1's IPv4 GID (unicast) */
    { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 239, 9, 9, 9 },
    { 0xff, 0x0e, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xde, 0xad },
    { 0 },                              /* node 1's IPv6 GID (unicast) */
};

static struct {
    uint8_t path_mtu;
    uint32_t mtu;
    uint8_t retry;
    struct hcq *cq0, *cqa, *cqb, *cqu;
    struct hqp *qp0, *qpa, *qpb, *qpu, *gsi;
    struct hmr *mr0, *mra, *mrb;
    uint32_t qkey[3];           /* the UD QP's, the GSI QP's, QP V's */
    uint64_t wr_id;
    /* The SRQ and UC fixture (node 1 unless it says node 0). */
    struct hcq *cqx, *cq0x;
    struct hsrq *srq;
    struct hqp *qpc, *qpe, *qpf, *qpv;  /* RC, UC, UC, UD; not E on the SRQ */
    struct hqp *qp0c, *qp0e;    /* node 0's RC and UC peers */
    uint16_t e_recv_next;       /* QP E's next receive completion */
    struct fz_srq sk;
    /* Multicast: QP W (UD, own CQ, own Q_Key) and what is attached. */
    struct hcq *cqw;
    struct hqp *qpw;
    uint8_t mc_att[MC_QPS];     /* U, V, W: bit g, attached to mc_gids[g] */
    uint32_t w_may;             /* datagrams W may have received */
    uint32_t w_ok;              /* W's successful receive completions */
    uint16_t w_recv_next;       /* W's next receive completion */
    /* The crowd: UD QPs made at need to fill a group (16 QPs at most). */
    struct hcq *cqc;
    struct hqp *crowd[QRNIC_MAX_MCAST_QPS];
    uint8_t crowd_att[MC_NGID]; /* crowd[0..n - 1] attached to mc_gids[g] */
    /* Keys: QP K and its peer, MR C, two windows, a region (setup_keys). */
    struct hcq *cqk;
    struct hqp *qpk, *qp0k;
    struct hmr *mrc;
    uint32_t kkey[3];           /* window 1, window 2, the region */
    uint64_t kiova[3];
    uint64_t klen[3];
    /* XRC (setup_xrc): T and I of node 1, their peers on node 0. */
    struct hcq *cqxs[3];        /* SRQs S0, S1 (XRCD_A), O (XRCD_B) */
    struct hsrq *xsrq[3];
    struct hcq *cqxi, *cq0xi, *cq0xs;
    struct hqp *qpt, *qpi;      /* XRC_TGT, XRC_INI */
    struct hqp *qp0i, *qp0t;    /* node 0's XRC_INI (to T), XRC_TGT (of I) */
    struct hsrq *srq0x;         /* node 0's XRC SRQ */
    struct fz_srq xsk[2];       /* S0, S1 */
    bool xgone[2];              /* destroyed, not yet created again */
} fx;

static void connect_b(bool rd)
{
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.access_flags = QRNIC_ACCESS_REMOTE_READ;
    if (qp_modify(fx.qpb, A(STATE) | A(PKEY_INDEX) | A(PORT) |
                  A(ACCESS_FLAGS), &a)) {
        fz_fail("QP B to INIT");
    }
    a.qp_state = QRNIC_QPS_RTR;
    a.path_mtu = fx.path_mtu;
    a.dest_qpn = fx.qp0->qpn;
    a.rq_psn = 0xfffffe;            /* wraps after two packets */
    a.max_dest_rd_atomic = rd ? 1 : 0;
    a.hop_limit = 64;
    memcpy(a.dgid, nodes[0].gid, 16);
    memcpy(a.dmac, nodes[0].mac, 6);
    if (qp_modify(fx.qpb, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                  A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER), &a)) {
        fz_fail("QP B to RTR");
    }
}

static bool connect_a(void)
{
    return qp_connect(fx.qpa, fx.qp0, fx.path_mtu, 8, fx.retry & 7,
                      (fx.retry >> 3) & 7, 1);
}

/* After the RC fixture, so its QPNs, keys and addresses stay as they were. */
static void setup_ud(void)
{
    struct node *n1 = &nodes[1];
    uint8_t st;

    fx.cqu = node_create_cq(n1, 10);
    if (!fx.cqu || fz_add_v6_gid(n1)) {
        fz_fail("fixture: UD CQ, IPv6 GID");
    }
    fx.qpu = node_create_qp_type(n1, QRNIC_QPT_UD, fx.cqu, fx.cqu, 4, 7, 5, 6,
                                 &st);
    fx.gsi = node_create_qp_type(n1, QRNIC_QPT_GSI, fx.cqu, fx.cqu, 4, 7, 5,
                                 6, &st);
    fx.qkey[0] = FZ_UD_QKEY;
    fx.qkey[1] = FZ_GSI_QKEY;
    if (!fx.qpu || !fx.gsi ||
        fz_ud_up(fx.qpu, fx.qkey[0], false, QRNIC_QPS_RTS) ||
        fz_ud_up(fx.gsi, fx.qkey[1], true, QRNIC_QPS_RTS)) {
        fz_fail("fixture: UD and GSI QPs");
    }
}

/* After the UD fixture, for the same reason. */
static void setup_srq_uc(void)
{
    struct node *n0 = &nodes[0], *n1 = &nodes[1];
    uint8_t st[6];

    fx.cqx = node_create_cq(n1, 10);
    fx.cq0x = node_create_cq(n0, 10);
    fx.srq = node_create_srq(n1, 4, 6, 0, &st[0]);
    if (!fx.cqx || !fx.cq0x || !fx.srq) {
        fz_fail("fixture: SRQ, CQs");
    }
    fx.qpc = node_create_qp_srq(n1, QRNIC_QPT_RC, fx.cqx, fx.cqx, 6, 8, fx.srq,
                                &st[0]);
    fx.qpf = node_create_qp_srq(n1, QRNIC_QPT_UC, fx.cqx, fx.cqx, 6, 8, fx.srq,
                                &st[1]);
    fx.qpv = node_create_qp_srq(n1, QRNIC_QPT_UD, fx.cqx, fx.cqx, 4, 7, fx.srq,
                                &st[2]);
    fx.qpe = node_create_qp_type(n1, QRNIC_QPT_UC, fx.cqx, fx.cqx, 6, 8, 6, 6,
                                 &st[3]);
    fx.qp0c = node_create_qp(n0, fx.cq0x, fx.cq0x, 6, 8, 6, 6);
    fx.qp0e = node_create_qp_type(n0, QRNIC_QPT_UC, fx.cq0x, fx.cq0x, 6, 8,
                                  6, 6, &st[4]);
    fx.qkey[2] = FZ_UD_SRQ_QKEY;
    if (!fx.qpc || !fx.qpf || !fx.qpv || !fx.qpe || !fx.qp0c || !fx.qp0e ||
        !qp_connect(fx.qp0c, fx.qpc, fx.path_mtu, 8, 7, 6, 1) ||
        !qp_connect(fx.qpc, fx.qp0c, fx.path_mtu, 8, fx.retry & 7,
                    (fx.retry >> 3) & 7, 1) ||
        fz_uc_connect(fx.qp0e, fx.qpe, fx.path_mtu) ||
        fz_uc_connect(fx.qpe, fx.qp0e, fx.path_mtu) ||
        fz_uc_connect(fx.qpf, fx.qp0e, fx.path_mtu) ||
        fz_ud_up(fx.qpv, fx.qkey[2], false, QRNIC_QPS_RTS)) {
        fz_fail("fixture: QPs on the SRQ, UC QPs");
    }
    fx.e_recv_next = 0;
    fz_srq_init(&fx.sk, fx.srq, 0);
    fz_srq_add_qp(&fx.sk, fx.qpc);
    fz_srq_add_qp(&fx.sk, fx.qpf);
    fz_srq_add_qp(&fx.sk, fx.qpv);
}

/* After the SRQ and UC fixture, for the same reason: QP W. */
static void setup_mcast(void)
{
    struct node *n1 = &nodes[1];
    uint8_t st;

    fx.cqw = node_create_cq(n1, 10);
    fx.qpw = fx.cqw ? node_create_qp_type(n1, QRNIC_QPT_UD, fx.cqw, fx.cqw,
                                          4, 7, 5, 6, &st) : NULL;
    if (!fx.qpw || fz_ud_up(fx.qpw, FZ_MC_QKEY, false, QRNIC_QPS_RTS)) {
        fz_fail("fixture: multicast QP W");
    }
    memset(fx.mc_att, 0, sizeof(fx.mc_att));
    memset(fx.crowd, 0, sizeof(fx.crowd));
    memset(fx.crowd_att, 0, sizeof(fx.crowd_att));
    fx.cqc = NULL;
    fx.w_may = fx.w_ok = 0;
    fx.w_recv_next = 0;
}

#define KFR_PAGES       4
#define KFR_IOVA        0x7d0000000123ull
#define KFR_LEN         (3 * 4096u - 0x123 - 100)
#define MRC_BYTES       (16u << 10)

/* The key with the next key byte (the same index). */
static uint32_t key_byte_next(uint32_t key)
{
    return (key & ~0xffu) | ((key + 1) & 0xffu);
}

/* A WQE moving no data, raw, on QP K; its completion must succeed. */
static void k_local(const struct qrnic_sq_wqe *w)
{
    struct hqp *qp = fx.qpk;
    uint8_t *slot = nodes[1].d.qmem + qp->sq_off +
                    ((uint32_t)(qp->sq_pi & ((1u << qp->log_sq) - 1)) <<
                     qp->log_ss);
    struct hwc wc;

    memset(slot, 0, 1u << qp->log_ss);
    memcpy(slot, w, sizeof(*w));
    qp->sq_pi++;
    qp_ring_sq(qp);
    qf_run_bh(&nodes[1].d);
    if (!cq_poll(fx.cqk, &wc) || wc.status != QRNIC_WC_SUCCESS) {
        fz_fail("fixture: QP K's %u WQE", w->opcode);
    }
}

/* After the multicast fixture, for the same reason: QP K and its keys. */
static void setup_keys(void)
{
    struct node *n0 = &nodes[0], *n1 = &nodes[1];
    struct qrnic_sq_wqe w;
    struct qrnic_cmd c;
    uint64_t pages, list;
    uint32_t i;
    uint8_t st[3];

    fx.cqk = node_create_cq(n1, 8);
    fx.qpk = fx.cqk ? node_create_qp(n1, fx.cqk, fx.cqk, 4, 7, 4, 6) : NULL;
    fx.qp0k = node_create_qp(n0, fx.cq0x, fx.cq0x, 4, 7, 4, 6);
    fx.mrc = node_mr(n1, MRC_BYTES, ALL_ACCESS | QRNIC_ACCESS_MW_BIND);
    for (i = 0; i < 2; i++) {
        c = harness_cmd(QRNIC_CMD_ALLOC_MW);
        c.alloc_mw.pdn = n1->pd;
        c.alloc_mw.type = i ? QRNIC_MW_TYPE_2 : QRNIC_MW_TYPE_1;
        st[i] = node_cmd(n1, &c, &fx.kkey[i]);
    }
    c = harness_cmd(QRNIC_CMD_ALLOC_MR);
    c.alloc_mr.pdn = n1->pd;
    c.alloc_mr.max_pages = KFR_PAGES;
    st[2] = node_cmd(n1, &c, &fx.kkey[2]);
    if (!fx.qpk || !fx.qp0k || fx.mrc->status || st[0] || st[1] || st[2] ||
        !qp_connect(fx.qpk, fx.qp0k, fx.path_mtu, 8, fx.retry & 7,
                    (fx.retry >> 3) & 7, 1) ||
        !qp_connect(fx.qp0k, fx.qpk, fx.path_mtu, 8, 7, 6, 1)) {
        fz_fail("fixture: QP K, MR C, windows, region");
    }
    for (i = 0; i < 2; i++) {
        memset(&w, 0, sizeof(w));
        w.opcode = QRNIC_WR_BIND_MW;
        w.flags = QRNIC_WQE_F_SIGNALED;
        w.bind_mw.mw_key = fx.kkey[i];
        w.bind_mw.new_key = fx.kkey[i] = key_byte_next(fx.kkey[i]);
        w.bind_mw.addr = fx.kiova[i] = fx.mrc->iova + i * (MRC_BYTES / 2);
        w.bind_mw.length = fx.klen[i] = MRC_BYTES / 2;
        w.bind_mw.mr_key = fx.mrc->key;
        w.bind_mw.access = QRNIC_ACCESS_REMOTE_WRITE |
                           QRNIC_ACCESS_REMOTE_READ |
                           QRNIC_ACCESS_REMOTE_ATOMIC;
        k_local(&w);
    }
    pages = node_alloc(n1, KFR_PAGES * 4096ull, 4096);
    list = node_alloc(n1, KFR_PAGES * 8ull, 8);
    for (i = 0; i < 3; i++) {
        qrnic_st64(node_ptr(n1, list + i * 8ull), pages + (2 - i) * 4096ull);
    }
    memset(&w, 0, sizeof(w));
    w.opcode = QRNIC_WR_REG_MR;
    w.flags = QRNIC_WQE_F_SIGNALED;
    w.reg_mr.key = fx.kkey[2] = key_byte_next(fx.kkey[2]);
    w.reg_mr.access = ALL_ACCESS;
    w.reg_mr.iova = fx.kiova[2] = KFR_IOVA;
    w.reg_mr.length = fx.klen[2] = KFR_LEN;
    w.reg_mr.pbl_addr = list;
    w.reg_mr.npages = 3;
    w.reg_mr.page_shift = 12;
    k_local(&w);
}

/* QP T takes the WQEs of XRC SRQ k (S0 or S1). */
static void xrc_srq_watch(int k)
{
    fz_srq_init(&fx.xsk[k], fx.xsrq[k], 0);
    fz_srq_add_qp(&fx.xsk[k], fx.qpt);
}

static bool connect_t(void)
{
    return !qp_connect_xrc_to(fx.qpt, fx.qp0i, fx.path_mtu, 8, fx.retry & 7,
                              (fx.retry >> 3) & 7);
}

/* QP I, and node 0's XRC_TGT QP it sends to. */
static bool connect_i(void)
{
    return !qp_connect_xrc_to(fx.qpi, fx.qp0t, fx.path_mtu, 8, fx.retry & 7,
                              (fx.retry >> 3) & 7) &&
           !qp_connect_xrc_to(fx.qp0t, fx.qpi, fx.path_mtu, 8, 7, 6);
}

/* After the keys fixture, for the same reason: XRC QPs and SRQs. */
static void setup_xrc(void)
{
    struct node *n0 = &nodes[0], *n1 = &nodes[1];
    struct hsge g;
    uint8_t st[8];
    int k;

    memset(st, 0, sizeof(st));
    for (k = 0; k < 3; k++) {
        fx.cqxs[k] = node_create_cq(n1, 8);
        fx.xsrq[k] = fx.cqxs[k] ?
                     node_create_xrc_srq(n1, k < 2 ? XRCD_A : XRCD_B,
                                         fx.cqxs[k], 4, &st[k]) : NULL;
    }
    fx.cqxi = node_create_cq(n1, 8);
    fx.cq0xi = node_create_cq(n0, 8);
    fx.cq0xs = node_create_cq(n0, 8);
    fx.qpt = node_create_xrc_tgt(n1, XRCD_A, &st[3]);
    fx.qpi = fx.cqxi ? node_create_xrc_ini(n1, fx.cqxi, 5, &st[4]) : NULL;
    fx.qp0i = fx.cq0xi ? node_create_xrc_ini(n0, fx.cq0xi, 4, &st[5]) : NULL;
    fx.qp0t = node_create_xrc_tgt(n0, XRCD_A, &st[6]);
    fx.srq0x = fx.cq0xs ? node_create_xrc_srq(n0, XRCD_A, fx.cq0xs, 4,
                                              &st[7]) : NULL;
    if (!fx.xsrq[0] || !fx.xsrq[1] || !fx.xsrq[2] || !fx.qpt || !fx.qpi ||
        !fx.qp0i || !fx.qp0t || !fx.srq0x ||
        qp_connect_xrc_to(fx.qp0i, fx.qpt, fx.path_mtu, 8, 7, 6) ||
        !connect_t() || !connect_i()) {
        fz_fail("fixture: XRC (statuses %u %u %u %u %u %u %u %u)", st[0],
                st[1], st[2], st[3], st[4], st[5], st[6], st[7]);
    }
    for (k = 0; k < 16; k++) {      /* node 0's XRC SRQ: full */
        g.addr = fx.mr0->iova + (uint64_t)k * 4096;
        g.len = 4096;
        g.lkey = fx.mr0->key;
        srq_post_recv(fx.srq0x, 0x5000u + (unsigned int)k, &g, 1, k == 15);
    }
    xrc_srq_watch(0);
    xrc_srq_watch(1);
}

static void mc_gid(int g, uint8_t *gid)
{
    if (g == 4) {
        memcpy(gid, nodes[1].gid, 16);
    } else if (g == 7) {
        fz_v6_gid(1, gid);
    } else {
        memcpy(gid, mc_gids[g], 16);
    }
}

static void setup(struct fz *f)
{
    struct node *n0 = &nodes[0], *n1 = &nodes[1];
    uint8_t mtu = fz_u8(f), flags = fz_u8(f);

    fx.retry = fz_u8(f);
    fx.path_mtu = (uint8_t)(1 + mtu % 5);
    fx.mtu = 128u << fx.path_mtu;
    fx.wr_id = 1;
    harness_restart(1);
    fx.cq0 = node_create_cq(n0, 10);
    fx.cqa = node_create_cq(n1, 10);
    fx.cqb = node_create_cq(n1, 1);
    fx.mr0 = node_mr(n0, MR_A_BYTES, ALL_ACCESS);
    fx.mra = node_mr(n1, MR_A_BYTES, ALL_ACCESS);
    fx.mrb = node_mr(n1, MR_B_BYTES, QRNIC_ACCESS_LOCAL_WRITE |
                     QRNIC_ACCESS_REMOTE_READ);
    if (!fx.cq0 || !fx.cqa || !fx.cqb) {
        fz_fail("fixture CQs");
    }
    fx.qp0 = node_create_qp(n0, fx.cq0, fx.cq0, 6, 8, 6, 6);
    fx.qpa = node_create_qp(n1, fx.cqa, fx.cqa, 6, 8, 6, 6);
    fx.qpb = node_create_qp(n1, fx.cqb, fx.cqb, 3, 6, 3, 4);
    if (!fx.qp0 || !fx.qpa || !fx.qpb ||
        !qp_connect(fx.qp0, fx.qpa, fx.path_mtu, 8, 7, 6, 1) ||
        !connect_a()) {
        fz_fail("fixture QPs");
    }
    connect_b(flags & F_QPB_RD);
    setup_ud();
    setup_srq_uc();
    setup_mcast();
    setup_keys();
    setup_xrc();
    wire.cut = !(flags & F_PEER_LIVE);
    harness_hub(flags & F_HUB);
    fz_faults(&n1->d.e, (flags >> F_FAULT_SHIFT) & ~FZ_FAULT_DUP);
    fz_faults(&n0->d.e, (flags >> F_FAULT_SHIFT) &
                        (FZ_FAULT_DUP | FZ_FAULT_ALL));
}

/*
 * The PSN node 1's QP expects (requests) or sends next (responses), read
 * from the engine: QUERY_QP would run the device's bottom half, and when
 * that runs is the input's business.
 */
static uint32_t psn_base(struct hqp *qp, bool request)
{
    const struct qrnic_qpc *q = qrnic_qp_get(&nodes[1].d.e, qp->qpn);

    return !q ? 0 : request ? q->resp.epsn : q->req.next_psn;
}

/* ksel % 4 == 3 with bit 5: window 1, window 2, the region, MR C. */
#define K_KEYS          0x20

/* The range of the object a key selector names. */
static void key_range(uint8_t ksel, uint64_t *iova, uint64_t *len)
{
    const struct hmr *mr = ksel < FZ_RAW && ksel % 4 == 1 ? fx.mrb : fx.mra;
    int k = (ksel >> 2) & 3;

    if (ksel < FZ_RAW && ksel % 4 == 3 && (ksel & K_KEYS)) {
        mr = k == 3 ? fx.mrc : NULL;
        if (!mr) {
            *iova = fx.kiova[k];
            *len = fx.klen[k];
            return;
        }
    }
    *iova = mr->iova;
    *len = mr->len;
}

static uint32_t key_of(uint8_t ksel, uint32_t raw)
{
    if (ksel >= FZ_RAW) {
        return raw;
    }
    switch (ksel % 4) {
    case 0:
        return fx.mra->key;
    case 1:
        return fx.mrb->key;
    case 2:
        return fx.mra->key ^ 1;     /* a stale tag */
    default:
        if (ksel & K_KEYS) {
            return (ksel >> 2) % 4 == 3 ? fx.mrc->key :
                   fx.kkey[(ksel >> 2) % 4];
        }
        return raw;
    }
}

static uint32_t pay_len(uint8_t psel, uint32_t opf)
{
    uint32_t v = psel & 0x3f;

    if (!(opf & QRNIC_OPF_PAYLOAD) && (opf & QRNIC_OPF_VALID)) {
        return (psel >> 6) == 3 ? v : 0;   /* junk after the headers */
    }
    switch (psel >> 6) {
    case 0:
        return fx.mtu;
    case 1:
        return v;
    case 2:
        return fx.mtu - 1 - v;
    default:
        return v * 160;
    }
}

/* Frame flag in the mutation byte: a UC opcode to an RC QP or v.v. */
#define FR_CROSS        0x04
/* Mutation byte: the FETH's reserved bits 31..8 from the MSN field. */
#define FR_FETH_RSVD    0x08

/* op_frame's opcode selector: 0..23 that RC opcode, then these two. */
#define FOP_FLUSH       24
#define FOP_ATOMIC_WRITE 25

/* Does op_frame's QP selector pick XRC (opcodes and a QP)? */
static bool frame_xrc(uint8_t qsel)
{
    return qsel < FZ_RAW && qsel % 4 == Q_NEW && (qsel & Q_XRC) == Q_XRC;
}

/* op_frame's destination: QP A, QP B, any QPN (NULL) or a newer one. */
static struct hqp *frame_qp(uint8_t qsel)
{
    static struct hqp **const newer[4] = { &fx.qpc, &fx.qpe, &fx.qpf,
                                           &fx.qpa };
    static struct hqp **const xrc[4] = { &fx.qpt, &fx.qpi, &fx.qpt,
                                         &fx.qpa };

    if (qsel >= FZ_RAW || qsel % 4 == 3) {
        return NULL;
    }
    if (frame_xrc(qsel)) {
        return *xrc[(qsel >> 2) % 4];
    }
    if (qsel % 4 == Q_NEW && (qsel & Q_K_BIT)) {
        return fx.qpk;
    }
    if (qsel % 4 == Q_NEW) {
        return *newer[(qsel >> 2) % 4];
    }
    return qsel % 4 == 2 ? fx.qpb : fx.qpa;
}

/*
 * The XRCETH of an XRC request, from x (the raw QPN's low byte: it is not
 * the QPN when a QP is picked) modulo 8: SRQ S0 (0, 2), S1 (1), O, of
 * the other domain (3), the basic SRQ (4), none (5), raw (6: all 32 bits,
 * its reserved byte too), or (7) cut to (x >> 4) & 3 bytes with nothing
 * after it; x bit 3: the reserved byte 0xff.  The bytes it takes.
 */
static size_t put_xrceth(uint8_t *p, uint8_t x, uint32_t raw)
{
    static struct hsrq **const srqs[5] = { &fx.xsrq[0], &fx.xsrq[1],
                                           &fx.xsrq[0], &fx.xsrq[2],
                                           &fx.srq };
    uint32_t v = x % 8 < 5 ? (*srqs[x % 8])->srqn : x % 8 == 6 ? raw : 0;

    if (x % 8 != 6 && (x & 8)) {
        v |= 0xffu << 24;
    }
    qrnic_st32_be(p, v);
    return x % 8 == 7 ? (x >> 4) & 3u : QRNIC_XRCETH_LEN;
}

static void op_frame(struct fz *f)
{
    static uint8_t fr[QRNIC_ETH_MAX_FRAME + 64];
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t opsel = fz_u8(f), rawop = fz_u8(f), qsel = fz_u8(f);
    uint32_t rawqpn = fz_u16(f) | (uint32_t)fz_u8(f) << 16;
    int8_t dpsn = (int8_t)fz_u8(f);
    uint8_t fl = fz_u8(f), ksel = fz_u8(f);
    uint32_t rawkey = fz_u32(f);
    uint8_t vsel = fz_u8(f);
    uint16_t off = fz_u16(f), len16 = fz_u16(f);
    uint8_t lsel = fz_u8(f), syn = fz_u8(f);
    uint16_t msn = fz_u16(f);
    uint8_t psel = fz_u8(f), pfill = fz_u8(f), mut = fz_u8(f);
    uint8_t opcode = opsel < FZ_RAW ? opsel % 26 : rawop;
    struct hqp *qp = frame_qp(qsel);
    bool uc = qp && (qp == fx.qpe || qp == fx.qpf);
    bool cut = false;
    uint32_t opf, hdr;
    uint64_t kiova, klen;
    struct fz_l3 l3 = { fl & FL_IPV6, fl & FL_VLAN, nodes[0].gid,
                        nodes[1].gid };
    uint32_t psn, paylen, i, dma_len, pad;
    uint64_t va;
    size_t pos, bth, len;

    if (opsel < FZ_RAW && opcode >= FOP_FLUSH) {
        opcode = opcode == FOP_FLUSH ? QRNIC_OP_FLUSH : QRNIC_OP_ATOMIC_WRITE;
    }
    /* A UC QP gets UC opcodes, the others RC ones; mut bit 2 swaps that. */
    if (opsel < FZ_RAW && opcode <= QRNIC_OP_WRITE_ONLY_IMM &&
        uc != !!(mut & FR_CROSS)) {
        opcode += QRNIC_OP_UC_BASE;
    }
    /* XRC: the opcodes' XRC form, unless mut bit 2 says not. */
    if (opsel < FZ_RAW && frame_xrc(qsel) && !(mut & FR_CROSS)) {
        opcode += QRNIC_OP_XRC_BASE;
    }
    opf = qrnic_op_flags(opcode);
    if (opf & QRNIC_OPF_DETH) {     /* a datagram too, for all we know */
        fx.w_may++;
    }
    psn = qp ? psn_base(qp, !(opf & QRNIC_OPF_VALID) ||
                            (opf & QRNIC_OPF_REQ)) : 0;
    psn = (psn + (uint32_t)(int32_t)dpsn) & 0xffffff;
    key_range(ksel, &kiova, &klen);
    switch (vsel >> 6) {
    case 0:
        va = kiova + off;
        break;
    case 1:
        va = kiova + klen - off;
        break;
    case 2:
        va = kiova - off;
        break;
    default:
        va = (uint64_t)rawkey << 16 ^ off;
        break;
    }
    dma_len = len16 | (lsel & 0x80 ? (uint32_t)(lsel & 0x7f) << 25 : 0);

    pos = bth = fz_roce_begin(fr, fl & FL_BCAST ? bcast : nodes[1].mac,
                              nodes[0].mac, &l3);
    fr[pos] = opcode;
    fr[pos + 1] = (fl & FL_SE ? QRNIC_BTH_SE : 0) | (fl & FL_TVER ? 1 : 0);
    qrnic_st16_be(fr + pos + 2, fl & FL_BAD_PKEY ? 0x1234 : 0xffff);
    qrnic_st32_be(fr + pos + 4, (qp ? qp->qpn : rawqpn) & 0xffffff);
    qrnic_st32_be(fr + pos + 8, psn | (fl & FL_ACKREQ ? QRNIC_BTH_ACKREQ : 0));
    pos += QRNIC_BTH_LEN;
    if (opf & QRNIC_OPF_XRCETH) {
        size_t n = put_xrceth(fr + pos, (uint8_t)rawqpn, rawkey);

        cut = n < QRNIC_XRCETH_LEN;
        pos += n;
    }
    hdr = cut ? 0 : opf;            /* an XRCETH cut short: nothing more */
    if (hdr & QRNIC_OPF_FETH) {     /* type and level from the syndrome */
        qrnic_st32_be(fr + pos, syn | (mut & FR_FETH_RSVD ?
                                       (uint32_t)msn << 8 : 0));
        pos += QRNIC_FETH_LEN;
    }
    if (hdr & QRNIC_OPF_RETH) {
        pos += qrnic_put_reth(fr + pos, va, key_of(ksel, rawkey), dma_len);
    }
    if (hdr & QRNIC_OPF_ATOMIC) {
        pos += qrnic_put_atomic_eth(fr + pos, va, key_of(ksel, rawkey),
                                    rawkey, pfill & 1 ? rawkey : 0);
    }
    if (hdr & QRNIC_OPF_AETH) {
        pos += qrnic_put_aeth(fr + pos, syn, msn);
    }
    if (hdr & QRNIC_OPF_ATOMIC_ACK) {
        qrnic_st64_be(fr + pos, (uint64_t)rawkey * 3);
        pos += QRNIC_ATOMIC_ACK_LEN;
    }
    if (hdr & QRNIC_OPF_IMM) {
        pos += qrnic_put_imm(fr + pos, 0x12345678);
    }
    if (hdr & QRNIC_OPF_IETH) {
        pos += qrnic_put_ieth(fr + pos, key_of(ksel, rawkey));
    }
    paylen = cut ? 0 : pay_len(psel, opf);
    if (paylen > QRNIC_ETH_MAX_FRAME - 8 - pos) {
        paylen = (uint32_t)(QRNIC_ETH_MAX_FRAME - 8 - pos);
    }
    for (i = 0; i < paylen; i++) {
        fr[pos + i] = (uint8_t)(pfill + i);
    }
    pos += paylen;
    pad = (4 - ((pos - bth) & 3)) & 3;
    memset(fr + pos, 0, pad);
    pos += pad;
    fr[bth + 1] |= (uint8_t)((lsel & 0x40 ? (lsel >> 4) & 3 : pad) << 4);
    len = fz_roce_finish(fr, pos, &l3, false);
    for (i = 0; i < (mut & 3u); i++) {
        uint16_t at = fz_u16(f);

        fr[at % len] ^= fz_u8(f);
    }
    if (!(fl & FL_BAD_ICRC)) {
        fz_icrc_fix(fr, len);
    }
    len -= (mut >> 4) < len ? (mut >> 4) : 0;
    qf_receive(&nodes[1].d, fr, len);
}

/* FUZZ_DEBUG=1: datagrams, what became of them, UD completions (seeds). */
static int debug = -1;

static uint64_t stat1(enum qrnic_stat s)
{
    return nodes[1].d.e.stats.v[s];
}

/*
 * A datagram to node 1: a DETH (the destination's Q_Key or not, any
 * source QP) for the opcodes that have one, RC headers for the others.
 */
static void op_dgram(struct fz *f)
{
    static uint8_t fr[QRNIC_ETH_MAX_FRAME + 64];
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t opsel = fz_u8(f), rawop = fz_u8(f), dsel = fz_u8(f);
    uint32_t rawqpn = fz_u16(f) | (uint32_t)fz_u8(f) << 16;
    uint8_t ksel = fz_u8(f);
    uint32_t rawkey = fz_u32(f);
    uint32_t src = fz_u16(f) | (uint32_t)fz_u8(f) << 16;
    uint8_t fl = fz_u8(f), fl2 = fz_u8(f);
    uint8_t psel = fz_u8(f), pfill = fz_u8(f), mut = fz_u8(f);
    uint32_t udmtu = qrnic_ud_mtu(&nodes[1].d.e), v = psel & 0x3fu;
    uint32_t opf, qpn = 0, qkey, held = fx.qkey[0], other = fx.qkey[1];
    uint32_t paylen, i, pad;
    uint8_t opcode, sgid[16], dgid[16], dmac[6];
    struct fz_l3 l3 = { fl & FL_IPV6, fl & FL_VLAN, sgid, dgid };
    size_t pos, bth, len;
    int mc = -1;                    /* the multicast GID, or none */

    if (opsel >= FZ_RAW) {
        opcode = rawop;
    } else if (opsel % 8 < 4) {
        opcode = QRNIC_OP_UD_SEND_ONLY;
    } else if (opsel % 8 < 6) {
        opcode = QRNIC_OP_UD_SEND_ONLY_IMM;
    } else if (opsel % 8 == 6) {
        opcode = (uint8_t)((opsel >> 3) % 21);      /* RC: no DETH */
    } else {
        opcode = (uint8_t)(0x60 | ((opsel >> 3) & 0x1f));   /* UD transport */
    }
    opf = qrnic_op_flags(opcode);
    switch (dsel >= FZ_RAW ? 7 : dsel % 8) {
    case 0:
        qpn = fx.qpu->qpn;
        break;
    case 1:                         /* multicast: QPN 0xffffff, a GID */
        qpn = QRNIC_MCAST_QPN;
        mc = (dsel >> 3) % MC_NGID;
        other = dsel & 0x40 ? fx.qkey[2] : FZ_MC_QKEY;
        break;
    case 2:                         /* QP V, or (bits 3-4) C, E, F */
        switch ((dsel >> 3) % 4) {
        case 0:
            qpn = fx.qpv->qpn;
            held = fx.qkey[2];
            other = fx.qkey[0];
            break;
        case 1:
            qpn = fx.qpc->qpn;
            break;
        case 2:
            qpn = fx.qpe->qpn;
            break;
        default:
            qpn = fx.qpf->qpn;
            break;
        }
        break;
    case 3:
    case 4:
        qpn = QRNIC_GSI_QPN;
        held = fx.qkey[1];
        other = fx.qkey[0];
        break;
    case 5:
        qpn = fx.qpa->qpn;
        break;
    case 6:
        qpn = fx.qpb->qpn;
        break;
    default:
        qpn = rawqpn;
        break;
    }
    switch (ksel >= FZ_RAW ? 3 : ksel % 4) {
    case 0:
        qkey = held;
        break;
    case 1:                         /* one bit wrong, bit 31 too */
        qkey = held ^ 1u << ((ksel >> 2) & 31);
        break;
    case 2:
        qkey = other;
        break;
    default:
        qkey = rawkey;
        break;
    }
    if (l3.ipv6) {
        fz_v6_gid(0, sgid);
        fz_v6_gid(1, dgid);
    } else {
        memcpy(sgid, nodes[0].gid, 16);
        memcpy(dgid, nodes[1].gid, 16);
    }
    if (fl2 & D_STRANGER) {
        sgid[15] = 0x77;
    }
    memcpy(dmac, fl & FL_BCAST ? bcast : nodes[1].mac, 6);
    if (mc >= 0) {                  /* the GID's version decides */
        mc_gid(mc, dgid);
        l3.ipv6 = !(dgid[10] == 0xff && dgid[11] == 0xff && !dgid[0]);
        if (l3.ipv6) {
            fz_v6_gid(0, sgid);
        } else {
            memcpy(sgid, nodes[0].gid, 16);
        }
        if (fl2 & D_STRANGER) {
            sgid[15] = 0x77;
        }
        if (!(fl & FL_BCAST) && !(fl2 & D_FOREIGN)) {   /* the group's MAC */
            static const uint8_t v4[3] = { 0x01, 0x00, 0x5e };

            if (l3.ipv6) {
                dmac[0] = dmac[1] = 0x33;
                memcpy(dmac + 2, dgid + 12, 4);
            } else {
                memcpy(dmac, v4, 3);
                dmac[3] = dgid[13] & 0x7f;
                dmac[4] = dgid[14];
                dmac[5] = dgid[15];
            }
        }
    } else if (fl2 & D_FOREIGN) {
        dgid[14] ^= 1;
    }
    if (!(opf & QRNIC_OPF_PAYLOAD) && (opf & QRNIC_OPF_VALID)) {
        paylen = (psel >> 6) == 3 ? v : 0;      /* junk after the headers */
    } else {
        paylen = (psel >> 6) == 0 ? v : (psel >> 6) == 1 ? udmtu - v :
                 (psel >> 6) == 2 ? udmtu + 1 + v : v * 160;
    }

    pos = bth = fz_roce_begin(fr, dmac, nodes[0].mac, &l3);
    fr[pos] = opcode;
    fr[pos + 1] = (fl & FL_SE ? QRNIC_BTH_SE : 0) | (fl & FL_TVER ? 1 : 0);
    qrnic_st16_be(fr + pos + 2, fl & FL_BAD_PKEY ? 0x1234 : 0xffff);
    qrnic_st32_be(fr + pos + 4, qpn & 0xffffff);
    qrnic_st32_be(fr + pos + 8, ((src * 13) & 0xffffff) |
                                (fl & FL_ACKREQ ? QRNIC_BTH_ACKREQ : 0));
    pos += QRNIC_BTH_LEN;
    if (fl2 & D_TRUNC) {            /* the headers stop inside the DETH */
        uint8_t deth[QRNIC_DETH_LEN];

        qrnic_put_deth(deth, qkey, src);
        memcpy(fr + pos, deth, (fl2 >> 4) & 7);
        pos += (fl2 >> 4) & 7;
        paylen = 0;
    } else {
        if (opf & QRNIC_OPF_DETH) {
            pos += qrnic_put_deth(fr + pos, qkey, src);
        }
        if (opf & QRNIC_OPF_RETH) {
            pos += qrnic_put_reth(fr + pos, fx.mra->iova, fx.mra->key,
                                  paylen);
        }
        if (opf & QRNIC_OPF_ATOMIC) {
            pos += qrnic_put_atomic_eth(fr + pos, fx.mra->iova, fx.mra->key,
                                        rawkey, 0);
        }
        if (opf & QRNIC_OPF_AETH) {
            pos += qrnic_put_aeth(fr + pos, 0, 0);
        }
        if (opf & QRNIC_OPF_ATOMIC_ACK) {
            qrnic_st64_be(fr + pos, rawkey);
            pos += QRNIC_ATOMIC_ACK_LEN;
        }
        if (opf & QRNIC_OPF_IMM) {
            pos += qrnic_put_imm(fr + pos, rawkey ^ 0x5a5a5a5a);
        }
    }
    if (paylen > QRNIC_ETH_MAX_FRAME - 8 - pos) {
        paylen = (uint32_t)(QRNIC_ETH_MAX_FRAME - 8 - pos);
    }
    for (i = 0; i < paylen; i++) {
        fr[pos + i] = (uint8_t)(pfill + i);
    }
    pos += paylen;
    pad = (4 - ((pos - bth) & 3)) & 3;
    memset(fr + pos, 0, pad);
    pos += pad;
    fr[bth + 1] |= (uint8_t)((fl2 & D_BADPAD ? (fl2 >> 4) & 3 : pad) << 4);
    len = fz_roce_finish(fr, pos, &l3, false);
    for (i = 0; i < (mut & 3u); i++) {
        uint16_t at = fz_u16(f);

        fr[at % len] ^= fz_u8(f);
    }
    if (!(fl & FL_BAD_ICRC)) {
        fz_icrc_fix(fr, len);
    }
    len -= (mut >> 4) < len ? (mut >> 4) : 0;
    /* What QP W may receive: to its QPN, to a group it is in with its
     * Q_Key, or anything after byte changes. */
    if ((mut & 3) || qpn == fx.qpw->qpn ||
        (mc >= 0 && (fx.mc_att[2] & 1u << mc) && qkey == FZ_MC_QKEY)) {
        fx.w_may++;
    }
    if (debug) {
        uint64_t icrc = stat1(QRNIC_STAT_RX_ICRC_ERR);
        uint64_t bad = stat1(QRNIC_STAT_RX_BAD_PKT);
        uint64_t qk = stat1(QRNIC_STAT_RX_QKEY_ERR);
        uint64_t norqe = stat1(QRNIC_STAT_RX_UD_NO_RQE);

        qf_receive(&nodes[1].d, fr, len);
        fprintf(stderr, "dgram op %02x qpn %x qkey %08x src %x paylen %u "
                "(UD MTU %u):%s%s%s%s\n", opcode, qpn, qkey, src, paylen,
                udmtu, stat1(QRNIC_STAT_RX_ICRC_ERR) != icrc ? " icrc" : "",
                stat1(QRNIC_STAT_RX_BAD_PKT) != bad ? " bad-pkt" : "",
                stat1(QRNIC_STAT_RX_QKEY_ERR) != qk ? " qkey-err" : "",
                stat1(QRNIC_STAT_RX_UD_NO_RQE) != norqe ? " no-rqe" : "");
        return;
    }
    qf_receive(&nodes[1].d, fr, len);
}

/*
 * A receive WQE of up to three SGEs from the input on qp, or on srq (qp
 * NULL), rung.
 */
static void post_recv(struct fz *f, struct hqp *qp, struct hsrq *srq)
{
    uint8_t nsge = fz_u8(f);
    struct hsge s[3];
    uint8_t *slot;
    int i, n;

    for (i = 0; i < 3; i++) {
        uint8_t ksel = fz_u8(f);
        uint16_t off = fz_u16(f);

        uint64_t iova, len;

        key_range(ksel, &iova, &len);
        s[i].lkey = key_of(ksel, (uint32_t)ksel << 8 | ksel);
        s[i].addr = iova + off;
        s[i].len = fz_u16(f);
    }
    n = nsge < FZ_RAW ? nsge % 4 : 0;
    if (!qp) {
        slot = nodes[1].d.qmem + srq->off +
               ((uint32_t)(srq->pi & ((1u << srq->log) - 1)) <<
                srq->log_stride);
        srq_post_recv(srq, fx.wr_id++, s, n, false);
    } else {
        slot = qp->n->d.qmem + qp->rq_off +
               ((uint32_t)(qp->rq_pi & ((1u << qp->log_rq) - 1)) <<
                qp->log_rs);
        qp_post_recv(qp, fx.wr_id++, s, n, false);
    }
    if (nsge >= FZ_RAW) {
        slot[offsetof(struct qrnic_rq_wqe, num_sge)] = nsge;
    }
    if (!qp) {
        qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SRQ,
                    srq->srqn | (uint64_t)srq->pi << 32);
    } else {
        qf_doorbell(&nodes[1].d, 0, QRNIC_DB_RQ,
                    qp->qpn | (uint64_t)qp->rq_pi << 32);
    }
}

/*
 * QP A or B (qsel bit 0); bits 1-2: 1 or 3 the SRQ, 2 QP E; bit 4 QP K;
 * bits 5 and 6 both: XRC SRQ S0, S1 (bit 0), or O (bit 7).
 */
static void op_recv(struct fz *f)
{
    uint8_t qsel = fz_u8(f);

    if (qsel < FZ_RAW && (qsel & 0x60) == 0x60) {
        post_recv(f, NULL, fx.xsrq[qsel & 0x80 ? 2 : qsel & 1]);
        return;
    }
    if (qsel < FZ_RAW && (qsel & 0x10)) {
        post_recv(f, fx.qpk, NULL);
        return;
    }
    switch ((qsel >> 1) % 4) {
    case 1:
    case 3:
        post_recv(f, NULL, fx.srq);
        break;
    case 2:
        post_recv(f, fx.qpe, NULL);
        break;
    default:
        post_recv(f, qsel & 1 ? fx.qpb : fx.qpa, NULL);
        break;
    }
}

/* On the UD QP (qsel bit 0 clear) or the GSI QP. */
static void op_udrecv(struct fz *f)
{
    uint8_t qsel = fz_u8(f);

    post_recv(f, qsel & 2 ? fx.qpw : qsel & 1 ? fx.gsi : fx.qpu, NULL);
}

/* QPs of U, V, W and the crowd attached to mc_gids[g]. */
static unsigned int mc_members(int g)
{
    unsigned int n = fx.crowd_att[g];
    int q;

    for (q = 0; q < MC_QPS; q++) {
        n += fx.mc_att[q] >> g & 1;
    }
    return n;
}

static void mc_expect(const struct qrnic_cmd *c, uint8_t st, uint8_t want)
{
    if (st != want) {
        fz_fail("%s_MCAST of QP 0x%x (rsvd 0x%x), a group of %u: status "
                "%u, expected %u", c->opcode == QRNIC_CMD_ATTACH_MCAST ?
                "ATTACH" : "DETACH", c->mcast.qpn, c->mcast.rsvd,
                mc_members(0), st, want);
    }
}

/*
 * The crowd (made the first time, UD QPs in RTS with W's Q_Key and no
 * receive WQEs): all of them attached to mc_gids[g] (those past what the
 * group holds: NO_RESOURCES), or (detach) all detached and one more
 * (BAD_PARAM).
 */
static void mc_crowd(bool attach, int g)
{
    struct qrnic_cmd c;
    uint8_t st, want;
    int i;

    if (!fx.cqc) {
        fx.cqc = node_create_cq(&nodes[1], 4);
        for (i = 0; fx.cqc && i < QRNIC_MAX_MCAST_QPS; i++) {
            fx.crowd[i] = node_create_qp_type(&nodes[1], QRNIC_QPT_UD,
                                              fx.cqc, fx.cqc, 0, 6, 0, 4,
                                              &st);
            if (!fx.crowd[i] ||
                fz_ud_up(fx.crowd[i], FZ_MC_QKEY, false, QRNIC_QPS_RTS)) {
                fz_fail("the multicast crowd: QP %d", i);
            }
        }
        if (!fx.cqc) {
            fz_fail("the multicast crowd: CQ");
        }
    }
    mc_gid(g, c.mcast.gid);             /* g is a multicast GID */
    for (i = 0; i < QRNIC_MAX_MCAST_QPS; i++) {
        c = harness_cmd(attach ? QRNIC_CMD_ATTACH_MCAST :
                        QRNIC_CMD_DETACH_MCAST);
        mc_gid(g, c.mcast.gid);
        c.mcast.qpn = fx.crowd[i]->qpn;
        if (attach) {
            if (i < fx.crowd_att[g]) {
                continue;
            }
            want = mc_members(g) < QRNIC_MAX_MCAST_QPS ? QRNIC_ST_OK :
                   QRNIC_ST_NO_RESOURCES;
            st = node_cmd(&nodes[1], &c, NULL);
            mc_expect(&c, st, want);
            if (st == QRNIC_ST_OK) {
                fx.crowd_att[g]++;
            }
            continue;
        }
        if (i > fx.crowd_att[g]) {
            break;
        }
        st = node_cmd(&nodes[1], &c, NULL);
        mc_expect(&c, st, i < fx.crowd_att[g] ? QRNIC_ST_OK :
                  QRNIC_ST_BAD_PARAM);
    }
    if (!attach) {
        fx.crowd_att[g] = 0;
    }
}

/*
 * ATTACH_MCAST (sel bit 0 clear) or DETACH_MCAST of QP U, V, W, the GSI
 * QP, QP A (RC), QP C (RC on the SRQ), no QP or W (sel bits 1-3) and
 * mc_gids[arg % 8]; sel bit 7: the reserved field set; sel bit 6: the
 * crowd instead (mc_crowd(), a multicast GID).  The status must be the
 * one the model of the groups says.
 */
static void op_mcast(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    struct hqp *qps[8] = { fx.qpu, fx.qpv, fx.qpw, fx.gsi, fx.qpa, fx.qpc,
                           NULL, fx.qpw };
    int q = (sel >> 1) % 8, g = arg % MC_NGID, m = q == 7 ? 2 : q;
    bool attach = !(sel & 1);
    struct qrnic_cmd c = harness_cmd(attach ? QRNIC_CMD_ATTACH_MCAST :
                                     QRNIC_CMD_DETACH_MCAST);
    uint8_t st, want;

    if (sel & 0x40) {
        static const int mg[6] = { 0, 1, 2, 3, 5, 6 };

        mc_crowd(attach, mg[arg % 6]);
        return;
    }
    c.mcast.qpn = qps[q] ? qps[q]->qpn : 0x777777u;
    c.mcast.rsvd = sel & 0x80 ? (uint32_t)arg << 8 | 1 : 0;
    mc_gid(g, c.mcast.gid);
    if (!qps[q]) {
        want = QRNIC_ST_BAD_HANDLE;
    } else if (m >= MC_QPS || g == 4 || g == 7 || (sel & 0x80)) {
        want = QRNIC_ST_BAD_PARAM;
    } else if (attach) {
        want = (fx.mc_att[m] & 1u << g) ||
               mc_members(g) < QRNIC_MAX_MCAST_QPS ? QRNIC_ST_OK :
               QRNIC_ST_NO_RESOURCES;
    } else {
        want = fx.mc_att[m] & 1u << g ? QRNIC_ST_OK : QRNIC_ST_BAD_PARAM;
    }
    st = node_cmd(&nodes[1], &c, NULL);
    if (debug) {
        fprintf(stderr, "%s qpn %x gid %d rsvd %x: status %u\n",
                attach ? "attach" : "detach", c.mcast.qpn, g, c.mcast.rsvd,
                st);
    }
    if (st != want) {
        fz_fail("%s_MCAST of QP 0x%x to GID %d (rsvd 0x%x): status %u, "
                "expected %u", attach ? "ATTACH" : "DETACH", c.mcast.qpn, g,
                c.mcast.rsvd, st, want);
    }
    if (st == QRNIC_ST_OK) {
        if (attach) {
            fx.mc_att[m] |= (uint8_t)(1u << g);
        } else {
            fx.mc_att[m] &= (uint8_t)~(1u << g);
        }
    }
}

/*
 * A send WQE's xrc_srqn on QP I from flags bits 4-7 modulo 8: node 0's
 * XRC SRQ (0-4), 0 (5), a number no SRQ has (6), past 24 bits (7).
 */
static uint32_t xrc_srqn_of(uint8_t flags)
{
    switch ((flags >> 4) % 8) {
    case 5:
        return 0;
    case 6:
        return 0x777777;
    case 7:
        return fx.srq0x->srqn | 1u << 24;
    default:
        return fx.srq0x->srqn;
    }
}

/*
 * A send WQE on QP A: opcode selector % 9 (7: FLUSH, type flags bits 4-5,
 * level bit 6, length len; 8: ATOMIC WRITE, unaligned with flags bit 6).
 * Selectors from XRC_SEL: on QP I, opcode (sel - XRC_SEL) % 9 (FLUSH and
 * ATOMIC WRITE refused), the XRC SRQ xrc_srqn_of(flags).
 */
static void op_send(struct fz *f)
{
    uint8_t sel = fz_u8(f), flags = fz_u8(f);
    uint8_t opcode = (uint8_t)((sel >= XRC_SEL ? sel - XRC_SEL : sel) % 9);
    uint16_t len = fz_u16(f), loff = fz_u16(f), roff = fz_u16(f);
    struct hqp *qp = sel >= XRC_SEL ? fx.qpi : fx.qpa;
    uint8_t *slot = qp->n->d.qmem + qp->sq_off +
                    ((uint32_t)(qp->sq_pi & ((1u << qp->log_sq) - 1)) <<
                     qp->log_ss);
    struct hwr wr;

    if (opcode >= 7) {
        opcode = opcode == 7 ? QRNIC_WR_FLUSH : QRNIC_WR_ATOMIC_WRITE;
    }
    if (opcode >= QRNIC_WR_ATOMIC_CMP_AND_SWP) {
        len = opcode == QRNIC_WR_FLUSH ? len : 8;
        roff &= ~7u;
        loff &= ~7u;
    }
    if (opcode == QRNIC_WR_ATOMIC_WRITE && (flags & 0x40)) {
        roff |= 4;
    }
    wr = mkwr(fx.wr_id++, opcode, fx.mra->iova + loff, len, fx.mra->key);
    /* Inline data would be read from host pointers: never here. */
    wr.flags = (flags | QRNIC_WQE_F_SIGNALED) & ~QRNIC_WQE_F_INLINE & 0x0f;
    wr.remote_addr = fx.mr0->iova + roff;
    wr.rkey = fx.mr0->key;
    wr.compare_add = flags;
    wr.swap = len;
    if (qrnic_wr_is_flush_aw(opcode)) {
        wr.num_sge = 0;
        wr.compare_add = opcode == QRNIC_WR_FLUSH ? len :
                         0x0102030405060708ull * flags;
    }
    if (qp == fx.qpi) {
        wr.xrc_srqn = xrc_srqn_of(flags);
    }
    qp_post_send(qp, &wr, false);
    if (opcode == QRNIC_WR_FLUSH) {
        slot[offsetof(struct qrnic_sq_wqe, flush.type)] = (flags >> 4) & 3;
        slot[offsetof(struct qrnic_sq_wqe, flush.level)] = (flags >> 6) & 1;
    }
    qp_ring_sq(qp);
}

static void check_x_wc(const struct hwc *wc);

/*
 * QP C, E or F through ERR and RESET (the SRQ WQE it may hold completes
 * first) to RTS again.  QP E's receive completions, flushes included, are
 * checked against its old RQ indices before they start again from 0.
 */
static void restart_new(struct hqp *qp)
{
    struct qrnic_qp_attr a;
    struct hwc wc;
    bool ok;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_ERR;
    qp_modify(qp, A(STATE), &a);
    a.qp_state = QRNIC_QPS_RESET;
    qp_modify(qp, A(STATE), &a);
    qp->sq_pi = qp->rq_pi = 0;
    while (qp == fx.qpe && cq_poll(fx.cqx, &wc)) {
        check_x_wc(&wc);
    }
    if (qp == fx.qpc) {
        ok = qp_connect(fx.qpc, fx.qp0c, fx.path_mtu, 8, fx.retry & 7,
                        (fx.retry >> 3) & 7, 1);
    } else {
        ok = !fz_uc_connect(qp, fx.qp0e, fx.path_mtu);
    }
    if (qp == fx.qpe) {
        fx.e_recv_next = 0;
    }
    if (!ok) {
        fz_fail("QP 0x%x: RESET and up again", qp->qpn);
    }
}

/*
 * XRC (op_qpctl selectors from XRC_SEL): QP T, or I with arg bit 0:
 * sel % 4 0 through ERR and RESET up to RTS again (I with node 0's XRC_TGT
 * QP), 1 ERR, 2 SQD (I), 3 RTS with the rights arg & 0x0e.
 */
static void op_xrcctl(uint8_t sel, uint8_t arg)
{
    struct hqp *qp = arg & 1 ? fx.qpi : fx.qpt;
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    switch (sel % 4) {
    case 0:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(qp, A(STATE), &a);
        a.qp_state = QRNIC_QPS_RESET;
        qp_modify(qp, A(STATE), &a);
        qp->sq_pi = 0;
        if (qp == fx.qpi) {
            a.qp_state = QRNIC_QPS_ERR;
            qp_modify(fx.qp0t, A(STATE), &a);
            a.qp_state = QRNIC_QPS_RESET;
            qp_modify(fx.qp0t, A(STATE), &a);
        }
        if (qp == fx.qpi ? !connect_i() : !connect_t()) {
            fz_fail("XRC QP 0x%x: RESET and up again", qp->qpn);
        }
        break;
    case 1:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(qp, A(STATE), &a);
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        qp_modify(fx.qpi, A(STATE) | A(EN_SQD_ASYNC), &a);
        break;
    default:
        a.qp_state = QRNIC_QPS_RTS;
        a.access_flags = arg & 0x0e;
        qp_modify(qp, A(STATE) | A(ACCESS_FLAGS), &a);
        break;
    }
}

static void op_qpctl(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    static struct hqp **const newer[4] = { NULL, &fx.qpc, &fx.qpe, &fx.qpf };
    struct hqp **q = newer[(arg >> 1) % 4];
    struct qrnic_qp_attr a;

    if (sel >= XRC_SEL) {
        op_xrcctl(sel, arg);
        return;
    }
    memset(&a, 0, sizeof(a));
    switch (sel % 4) {
    case 0:                         /* start over: RESET, then RTS */
        if (q) {
            restart_new(*q);
            break;
        }
        a.qp_state = QRNIC_QPS_RESET;
        qp_modify(fx.qpa, A(STATE), &a);
        fx.qpa->sq_pi = fx.qpa->rq_pi = 0;
        connect_a();
        break;
    case 1:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(q ? *q : arg & 1 ? fx.qpb : fx.qpa, A(STATE), &a);
        break;
    case 2:
        a.qp_state = QRNIC_QPS_SQD;
        qp_modify(fx.qpa, A(STATE) | (arg & 1 ? A(EN_SQD_ASYNC) : 0), &a);
        break;
    default:                        /* RTS again, rights changed */
        a.qp_state = QRNIC_QPS_RTS;
        a.access_flags = (arg & 0x0e) |
                         (arg & 1 ? QRNIC_ACCESS_FLUSH_GLOBAL : 0);
        a.min_rnr_timer = (uint8_t)(arg >> 4);
        qp_modify(fx.qpa, A(STATE) | A(ACCESS_FLAGS) | A(MIN_RNR_TIMER), &a);
        break;
    }
}

/*
 * The UD QP (arg bit 0 clear) or the GSI QP through its state machine;
 * arg bit 1: with the other one's Q_Key.
 */
static void op_udctl(struct fz *f)
{
    static const uint16_t mtus[8] = { 68, 256, 600, 1024, 1500, 2048, 4200,
                                      9000 };
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    bool v = sel & 8;               /* QP V instead */
    int g = v ? 2 : arg & 1;
    struct hqp *qp = v ? fx.qpv : g ? fx.gsi : fx.qpu;
    uint32_t qkey = arg & 2 ? fx.qkey[!(g & 1)] :
                    v ? FZ_UD_SRQ_QKEY : g ? FZ_GSI_QKEY : FZ_UD_QKEY;
    struct qrnic_qp_attr a;
    struct qrnic_cmd c;
    uint32_t mask;
    uint8_t st;

    memset(&a, 0, sizeof(a));
    switch (sel % 8) {
    case 0:
        a.qp_state = QRNIC_QPS_ERR;
        qp_modify(qp, A(STATE), &a);
        break;
    case 1:                         /* RESET, then up to RTS, INIT or RTR */
    case 2:
    case 3:
        a.qp_state = QRNIC_QPS_RESET;
        st = qp_modify(qp, A(STATE), &a);
        qp->sq_pi = qp->rq_pi = 0;
        if (!st) {
            st = fz_ud_up(qp, qkey, g == 1, sel % 8 == 1 ? QRNIC_QPS_RTS :
                          sel % 8 == 2 ? QRNIC_QPS_INIT : QRNIC_QPS_RTR);
        }
        if (st) {
            fz_fail("%s QP: RESET and up again: status %u",
                    g == 1 ? "GSI" : "UD", st);
        }
        fx.qkey[g] = qkey;
        break;
    case 4:
        a.qp_state = QRNIC_QPS_SQD;
        qp_modify(qp, A(STATE) | (arg & 4 ? A(EN_SQD_ASYNC) : 0), &a);
        break;
    case 5:                         /* RTS again (from SQD), a new Q_Key */
        a.qp_state = QRNIC_QPS_RTS;
        a.qkey = qkey;
        if (qp_modify(qp, A(STATE) | A(QKEY), &a) == QRNIC_ST_OK) {
            fx.qkey[g] = qkey;
        }
        break;
    case 6:                         /* any mask, any target state */
        mask = fz_u32(f);
        a.qp_state = (uint8_t)((arg >> 2) % 8);
        a.cur_state = (uint8_t)(arg >> 5);
        a.port_num = 1;
        a.qkey = qkey;
        a.sq_psn = (uint32_t)sel << 16;
        a.path_mtu = 3;
        if (qp_modify(qp, mask, &a) == QRNIC_ST_OK) {
            if (mask & A(QKEY)) {
                fx.qkey[g] = qkey;
            }
            if ((mask & A(STATE)) && a.qp_state == QRNIC_QPS_RESET) {
                qp->sq_pi = qp->rq_pi = 0;
            }
        }
        break;
    default:                        /* the port MTU, and the UD MTU with it */
        c = harness_cmd(QRNIC_CMD_SET_MTU);
        c.set_mtu.mtu = mtus[arg % 8];
        node_cmd(&nodes[1], &c, NULL);
        break;
    }
}

static void drain_cqs(void);

/*
 * The SRQ: arm its limit (arg: any below 18 - the depth is 16 -, or raw),
 * query it, ring its doorbell (the producer index the harness keeps, any,
 * on a page that does not own it, with bits beyond the fields), or post a
 * batch of arg % 8 + 1 WQEs of 4 KiB (MR A) rung once.  Selectors from
 * XRC_SEL: XRC SRQ S0 or S1 (arg bit 3) instead, destroyed (QP T may be
 * in the middle of a message into it) and created again rather than armed.
 */
static void op_srqctl(struct fz *f)
{
    uint8_t sel = fz_u8(f), arg = fz_u8(f);
    uint16_t v = fz_u16(f);
    int k = (arg >> 3) & 1;
    struct hsrq *srq = sel >= XRC_SEL ? fx.xsrq[k] : fx.srq;
    struct hsge s;
    uint8_t st;
    int i;

    switch (sel % 4) {
    case 0:
        if (sel >= XRC_SEL) {
            drain_cqs();
            fz_srq_step(&fx.xsk[k]);
            st = fz_srq_destroy(srq);
            fx.xgone[k] = true;
            drain_cqs();            /* what the command completed first */
            st = st ? st : fz_xrc_srq_create(srq, XRCD_A, fx.cqxs[k]);
            fx.xgone[k] = false;
            if (st) {
                fz_fail("XRC SRQ %d destroyed and created again: status %u",
                        k, st);
            }
            xrc_srq_watch(k);
            break;
        }
        fz_srq_arm(&fx.sk, arg < FZ_RAW ? arg % 18u : v);
        break;
    case 1:
        fz_srq_query(sel >= XRC_SEL ? &fx.xsk[k] : &fx.sk);
        break;
    case 2:
        switch (arg % 4) {
        case 0:
            qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SRQ,
                        srq->srqn | (uint64_t)srq->pi << 32);
            break;
        case 1:
            qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SRQ,
                        srq->srqn | (uint64_t)v << 32);
            break;
        case 2:
            qf_doorbell(&nodes[1].d, 1 + v % 3, QRNIC_DB_SRQ,
                        srq->srqn | (uint64_t)srq->pi << 32);
            break;
        default:
            qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SRQ,
                        srq->srqn | (uint64_t)v << 48 |
                        (uint64_t)srq->pi << 32);
            break;
        }
        break;
    default:
        for (i = 0; i <= arg % 8; i++) {
            s.addr = fx.mra->iova + (uint64_t)(v + i * 4096u) % MR_A_BYTES;
            s.len = 4096;
            s.lkey = fx.mra->key;
            srq_post_recv(srq, fx.wr_id++, &s, 1, i == arg % 8);
        }
        break;
    }
}

/*
 * A UD receive completion must be a receive of the UD or GSI QP; when it
 * succeeded, with the GRH flag and at least the GRH.
 */
static void check_ud_wc(const struct hwc *wc)
{
    if (debug) {
        fprintf(stderr, "  UD CQE qpn %x wr_id %llu status %u verr %u "
                "len %u flags %x src_qp %x imm %08x\n", wc->qpn,
                (unsigned long long)wc->wr_id, wc->status, wc->vendor_err,
                wc->byte_len, wc->flags, wc->src_qp, wc->imm);
    }
    if (wc->qpn != fx.qpu->qpn && wc->qpn != QRNIC_GSI_QPN) {
        fz_fail("UD CQ: completion for QP 0x%x", wc->qpn);
    }
    if (wc->flags & QRNIC_CQE_F_SRQ) {
        fz_fail("UD CQ: F_SRQ, the QP has no SRQ");
    }
    if (wc->status != QRNIC_WC_SUCCESS) {
        return;
    }
    if (wc->flags & QRNIC_CQE_F_SEND) {
        fz_fail("UD CQ: a send completion, none was posted");
    }
    if (!(wc->flags & QRNIC_CQE_F_GRH) || wc->byte_len < QRNIC_GRH_LEN) {
        fz_fail("UD receive: flags 0x%x, byte_len %u", wc->flags,
                wc->byte_len);
    }
}

/*
 * The CQ of QPs C, E, F and V: receives only; those of the SRQ's QPs with
 * F_SRQ and a slot taken once (QP V's with the GRH when they succeed);
 * QP E's in order, without F_SRQ.
 */
static void check_x_wc(const struct hwc *wc)
{
    if (debug) {
        fprintf(stderr, "  SRQ/UC CQE qpn %x wr_id %llu idx %u status %u "
                "verr %u len %u flags %x op %u\n", wc->qpn,
                (unsigned long long)wc->wr_id, wc->wqe_idx, wc->status,
                wc->vendor_err, wc->byte_len, wc->flags, wc->opcode);
    }
    if (wc->flags & QRNIC_CQE_F_SEND) {
        fz_fail("SRQ/UC CQ: a send completion of QP 0x%x, none was posted",
                wc->qpn);
    }
    if (wc->qpn == fx.qpe->qpn) {
        if ((wc->flags & QRNIC_CQE_F_SRQ) || wc->wqe_idx != fx.e_recv_next) {
            fz_fail("UC QP E: receive completion of RQ index %u (expected "
                    "%u), flags 0x%x", wc->wqe_idx, fx.e_recv_next,
                    wc->flags);
        }
        fx.e_recv_next++;
        return;
    }
    fz_srq_cqe(&fx.sk, wc);
    if (wc->qpn == fx.qpv->qpn && wc->status == QRNIC_WC_SUCCESS &&
        (!(wc->flags & QRNIC_CQE_F_GRH) || wc->byte_len < QRNIC_GRH_LEN)) {
        fz_fail("UD QP V receive: flags 0x%x, byte_len %u", wc->flags,
                wc->byte_len);
    }
}

/*
 * QP W's CQ: its receives, in order, the successful ones (with the GRH)
 * no more than the datagrams that could reach it.
 */
static void check_w_wc(const struct hwc *wc)
{
    if (debug) {
        fprintf(stderr, "  W CQE wr_id %llu idx %u status %u len %u flags "
                "%x src_qp %x\n", (unsigned long long)wc->wr_id, wc->wqe_idx,
                wc->status, wc->byte_len, wc->flags, wc->src_qp);
    }
    if (wc->qpn != fx.qpw->qpn || (wc->flags & (QRNIC_CQE_F_SEND |
                                                QRNIC_CQE_F_SRQ)) ||
        wc->wqe_idx != fx.w_recv_next) {
        fz_fail("QP W's CQ: completion of QP 0x%x, RQ index %u (expected "
                "%u), flags 0x%x", wc->qpn, wc->wqe_idx, fx.w_recv_next,
                wc->flags);
    }
    fx.w_recv_next++;
    if (wc->status != QRNIC_WC_SUCCESS) {
        return;
    }
    if (++fx.w_ok > fx.w_may || !(wc->flags & QRNIC_CQE_F_GRH) ||
        wc->byte_len < QRNIC_GRH_LEN) {
        fz_fail("QP W: receive %u of %u possible, flags 0x%x, byte_len %u",
                fx.w_ok, fx.w_may, wc->flags, wc->byte_len);
    }
}

/*
 * The CQ of XRC SRQ k (S0, S1, O): receives of QP T with F_SRQ and F_XRC
 * naming the SRQ, a slot taken once; none on O's (another domain).
 */
static void check_xrc_wc(int k, const struct hwc *wc)
{
    if (debug) {
        fprintf(stderr, "  XRC SRQ %d CQE qpn %x wr_id %llu idx %u status %u "
                "verr %u len %u flags %x srqn %x op %u\n", k, wc->qpn,
                (unsigned long long)wc->wr_id, wc->wqe_idx, wc->status,
                wc->vendor_err, wc->byte_len, wc->flags, wc->src_qp,
                wc->opcode);
    }
    if (k == 2 || wc->qpn != fx.qpt->qpn ||
        (wc->flags & (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC | QRNIC_CQE_F_SEND)) !=
        (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC) ||
        wc->src_qp != fx.xsrq[k]->srqn) {
        fz_fail("XRC SRQ %u (%d): completion of QP 0x%x, flags 0x%x, srqn %u",
                fx.xsrq[k]->srqn, k, wc->qpn, wc->flags, wc->src_qp);
    }
    if (!fx.xgone[k]) {
        fz_srq_cqe(&fx.xsk[k], wc);
    }
}

static void drain_cqs(void)
{
    struct hcq *cqs[] = { fx.cq0, fx.cqa, fx.cqb, fx.cq0x, fx.cqk, fx.cqxi,
                          fx.cq0xi };
    struct hwc wc;
    unsigned int i;

    for (i = 0; i < sizeof(cqs) / sizeof(cqs[0]); i++) {
        while (cq_poll(cqs[i], &wc)) {
            if (debug && cqs[i] == fx.cqxi) {
                fprintf(stderr, "  XRC_INI CQE wr_id %llu idx %u status %u "
                        "verr %u op %u len %u\n",
                        (unsigned long long)wc.wr_id, wc.wqe_idx, wc.status,
                        wc.vendor_err, wc.opcode, wc.byte_len);
            }
            if (wc.flags & QRNIC_CQE_F_SRQ) {
                fz_fail("QP 0x%x without an SRQ: a CQE with F_SRQ", wc.qpn);
            }
        }
    }
    while (cq_poll(fx.cqu, &wc)) {
        check_ud_wc(&wc);
    }
    while (cq_poll(fx.cqx, &wc)) {
        check_x_wc(&wc);
    }
    while (cq_poll(fx.cqw, &wc)) {
        check_w_wc(&wc);
    }
    for (i = 0; i < 3; i++) {
        while (cq_poll(fx.cqxs[i], &wc)) {
            check_xrc_wc((int)i, &wc);
        }
    }
    while (cq_poll(fx.cq0xs, &wc)) {
        if ((wc.flags & (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC)) !=
            (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_XRC)) {
            fz_fail("node 0's XRC SRQ: a CQE with flags 0x%x", wc.flags);
        }
    }
    node_cq_events(&nodes[0], fx.cq0->cqn);
    node_cq_events(&nodes[1], fx.cqa->cqn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = { data, size };
    unsigned int ops = 0;
    bool idle;

    if (debug < 0) {
        debug = getenv("FUZZ_DEBUG") != NULL;
    }
    setup(&f);
    while (fz_more(&f) && ops++ < MAX_OPS) {
        uint8_t op = fz_u8(&f) % OP_COUNT;
        uint8_t a;

        switch (op) {
        case OP_BH:
            qf_run_bh(&nodes[1].d);
            qf_run_bh(&nodes[0].d);
            break;
        case OP_TIME:
            a = fz_u8(&f);
            now_ns += (uint64_t)(a + 1) * (a + 1) * US;
            qf_run_timer(&nodes[1].d);
            qf_run_timer(&nodes[0].d);
            break;
        case OP_RUN:
            a = fz_u8(&f);
            harness_run_steps(now_ns + (fz_u8(&f) + 1ull) * 10 * US,
                              a % 32 + 1u);
            break;
        case OP_RECV:
            op_recv(&f);
            break;
        case OP_SEND:
            op_send(&f);
            break;
        case OP_QPCTL:
            op_qpctl(&f);
            break;
        case OP_DGRAM:
        case OP_DGRAM + 1:
            op_dgram(&f);
            break;
        case OP_UDRECV:
            op_udrecv(&f);
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
        default:
            op_frame(&f);
            break;
        }
        drain_cqs();
        fz_srq_step(&fx.sk);
        fz_srq_step(&fx.xsk[0]);
        fz_srq_step(&fx.xsk[1]);
    }
    idle = harness_run_steps(now_ns + 200 * MS, 200000);
    drain_cqs();
    fz_srq_step(&fx.sk);
    fz_srq_step(&fx.xsk[0]);
    fz_srq_step(&fx.xsk[1]);
    if (idle) {
        const struct qrnic_qpc *e = qrnic_qp_get(&nodes[1].d.e, fx.qpe->qpn);

        fz_srq_check_idle(&fx.sk);
        fz_srq_check_idle(&fx.xsk[0]);
        fz_srq_check_idle(&fx.xsk[1]);
        if (e->state == QRNIC_QPS_ERR &&
            (e->resp.rq_ci != e->resp.rq_pi ||
             fx.e_recv_next != e->resp.rq_pi)) {
            fz_fail("UC QP E in ERR: receive WQEs %u..%u, completions up "
                    "to %u", e->resp.rq_ci, e->resp.rq_pi, fx.e_recv_next);
        }
    }
    qf_check(&nodes[0].d, "fuzz_rx end");
    qf_check(&nodes[1].d, "fuzz_rx end");
    return 0;
}

/* ---- seeds --------------------------------------------------------------- */

struct rxf {
    uint8_t op, q;
    int8_t dpsn;
    uint8_t fl, k;
    uint32_t key;
    uint8_t v;
    uint16_t off, len;
    uint8_t lsel, syn;
    uint16_t msn;
    uint8_t pay, fill, mut;
    uint8_t mutv[6];            /* (offset low, offset high, xor) pairs */
    uint16_t xs;                /* the raw QPN (XRCETH: XS()); 0: 0x0abc */
};

static void w_frame(struct fzw *w, struct rxf r)
{
    fzw_u8(w, OP_FRAME);
    fzw_u8(w, r.op);
    fzw_u8(w, r.op);
    fzw_u8(w, r.q);
    fzw_u16(w, r.xs ? r.xs : 0x0abc);
    fzw_u8(w, 0);
    fzw_u8(w, (uint8_t)r.dpsn);
    fzw_u8(w, r.fl);
    fzw_u8(w, r.k);
    fzw_u32(w, r.key);
    fzw_u8(w, r.v);
    fzw_u16(w, r.off);
    fzw_u16(w, r.len);
    fzw_u8(w, r.lsel);
    fzw_u8(w, r.syn);
    fzw_u16(w, r.msn);
    fzw_u8(w, r.pay);
    fzw_u8(w, r.fill);
    fzw_u8(w, r.mut);
    fzw_bytes(w, r.mutv, 3u * (r.mut & 3));
}

static void w_head(struct fzw *w, uint8_t mtu, uint8_t flags, uint8_t retry)
{
    w->n = 0;
    fzw_u8(w, mtu);
    fzw_u8(w, flags);
    fzw_u8(w, retry);
}

static void w_recv_op(struct fzw *w, uint8_t op, uint8_t q, uint8_t nsge,
                      uint8_t ksel, uint16_t off, uint16_t len)
{
    int i;

    fzw_u8(w, op);
    fzw_u8(w, q);
    fzw_u8(w, nsge);
    for (i = 0; i < 3; i++) {
        fzw_u8(w, ksel);
        fzw_u16(w, (uint16_t)(off + i * len));
        fzw_u16(w, len);
    }
}

/* A receive WQE on QP A (q 0) or B (q 1): SGEs of len at off, off + len.. */
static void w_recv(struct fzw *w, uint8_t q, uint8_t nsge, uint8_t ksel,
                   uint16_t off, uint16_t len)
{
    w_recv_op(w, OP_RECV, q, nsge, ksel, off, len);
}

/* The same on the UD QP (q 0) or the GSI QP (q 1). */
static void w_udrecv(struct fzw *w, uint8_t q, uint8_t nsge, uint8_t ksel,
                     uint16_t off, uint16_t len)
{
    w_recv_op(w, OP_UDRECV, q, nsge, ksel, off, len);
}

/* A datagram (op_dgram); all zero: a UD SEND_ONLY of no payload to the UD
 * QP with its Q_Key, from source QP 0. */
struct dgf {
    uint8_t op, rawop, d;
    uint32_t qpn;
    uint8_t k;
    uint32_t key, src;
    uint8_t fl, fl2, pay, fill, mut;
    uint8_t mutv[6];
};

static void w_dgram(struct fzw *w, struct dgf d)
{
    fzw_u8(w, OP_DGRAM);
    fzw_u8(w, d.op);
    fzw_u8(w, d.rawop);
    fzw_u8(w, d.d);
    fzw_u16(w, (uint16_t)d.qpn);
    fzw_u8(w, (uint8_t)(d.qpn >> 16));
    fzw_u8(w, d.k);
    fzw_u32(w, d.key);
    fzw_u16(w, (uint16_t)d.src);
    fzw_u8(w, (uint8_t)(d.src >> 16));
    fzw_u8(w, d.fl);
    fzw_u8(w, d.fl2);
    fzw_u8(w, d.pay);
    fzw_u8(w, d.fill);
    fzw_u8(w, d.mut);
    fzw_bytes(w, d.mutv, 3u * (d.mut & 3));
}

/* op_dgram's opcode selectors, destinations and Q_Key choices */
#define DG_SEND         0
#define DG_SEND_IMM     4
#define DG_RC(op)       (6 + 8 * (op))          /* an RC opcode */
#define DG_UDT(low)     (7 + 8 * (low))         /* 0x60 | low, low < 30 */
#define DG_TO_UD        0
#define DG_TO_GSI       3
#define DG_TO_QPA       5
#define DG_TO_QPB       6
#define DG_TO_QPN       7                       /* .qpn */
#define DG_QKEY_BIT(b)  (1 + 4 * (b))           /* held ^ 1 << b */
#define DG_QKEY_OTHER   2
#define DG_QKEY_RAW     3                       /* .key */

static void w_send(struct fzw *w, uint8_t opcode, uint8_t flags, uint16_t len,
                   uint16_t loff, uint16_t roff)
{
    fzw_u8(w, OP_SEND);
    fzw_u8(w, opcode);
    fzw_u8(w, flags);
    fzw_u16(w, len);
    fzw_u16(w, loff);
    fzw_u16(w, roff);
}

static void w_op(struct fzw *w, uint8_t op, int nargs, uint8_t a0, uint8_t a1)
{
    fzw_u8(w, op);
    if (nargs > 0) {
        fzw_u8(w, a0);
    }
    if (nargs > 1) {
        fzw_u8(w, a1);
    }
}

#define BH(w)           w_op(w, OP_BH, 0, 0, 0)
#define TIME(w, a)      w_op(w, OP_TIME, 1, a, 0)
#define RUN(w, s, t)    w_op(w, OP_RUN, 2, s, t)
#define QPCTL(w, s, a)  w_op(w, OP_QPCTL, 2, s, a)
#define F(...)          ((struct rxf){ __VA_ARGS__ })
#define DG(...)         ((struct dgf){ __VA_ARGS__ })
#define UDCTL(w, s, a)  w_op(w, OP_UDCTL, 2, s, a)
#define UD_RESET_UP(w, gsi)     UDCTL(w, 1, gsi)

/* The SRQ and UC fixture: frame destinations (rxf.q), receive queues
 * (w_recv's q), datagram destinations, QP control (QPCTL's arg), QP V
 * (UDCTL's selector) */
#define Q_C             (Q_NEW | QN_C << 2)
#define Q_E             (Q_NEW | QN_E << 2)
#define Q_F             (Q_NEW | QN_F << 2)
#define R_SRQ           2
#define R_E             4
#define DG_TO_V         2
#define DG_TO_C         (2 | 1 << 3)
#define DG_TO_E         (2 | 2 << 3)
#define DG_TO_F         (2 | 3 << 3)
#define QC_C            2
#define QC_E            4
#define QC_F            6
#define QP_ERR(w, q)    QPCTL(w, 1, q)
#define QP_RESTART(w, q) QPCTL(w, 0, q)
#define UD_V            8

static void w_srqctl(struct fzw *w, uint8_t sel, uint8_t arg, uint16_t v)
{
    w_op(w, OP_SRQCTL, 2, sel, arg);
    fzw_u16(w, v);
}

#define SRQ_ARM(w, l)   w_srqctl(w, 0, l, 0)        /* l < 18 */
#define SRQ_QUERY(w)    w_srqctl(w, 1, 0, 0)
#define SRQ_DB(w, k, v) w_srqctl(w, 2, k, v)        /* k: right, any, page,
                                                       high bits */
#define SRQ_POST(w, n, off) w_srqctl(w, 3, (uint8_t)((n) - 1), off)

/* Multicast: OP_MCAST's QPs (U, V, W, GSI, QP A, QP C, none), datagrams
 * to mc_gids[g] (with DG_MC_V the "other" Q_Key is V's, not W's) */
enum { MC_U, MC_V, MC_W, MC_GSI, MC_QPA, MC_QPC, MC_NONE };
#define MC_ATTACH(w, q, g)      w_op(w, OP_MCAST, 2, (q) << 1, g)
#define MC_DETACH(w, q, g)      w_op(w, OP_MCAST, 2, (q) << 1 | 1, g)
#define DG_TO_MC(g)             (1 | (g) << 3)
#define DG_MC_V                 0x40
/* the crowd: mc_gids[mg[g % 6]], mg = { 0, 1, 2, 3, 5, 6 } */
#define MC_CROWD(w, att, g)     w_op(w, OP_MCAST, 2, 0x40 | !(att), \
                                     (g) == 5 ? 4 : (g))

/* Seeds assume path MTU 1024 (mtu byte 2) unless they say otherwise. */
#define Q_K             (Q_NEW | Q_K_BIT)
#define R_K             0x10                /* op_recv: QP K */
#define KK(k)           (3 | K_KEYS | (k) << 2)  /* window 1, 2, region, C */

/* Windows, fast registration, SEND_WITH_INV frames to QP K (and A, E). */
static void keys_seeds(fz_emit_fn emit)
{
    static struct fzw w;

    /* Through the windows at QP K: WRITE, READ and an atomic, a WRITE
     * crossing window 1's end is NAKed... after SEND_WITH_INV of window 2
     * (F_INV) and a WRITE through it (REM_ACCESS, QP K in ERR). */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(0), .off = 100, .len = 60, .pay = PAY_N(60)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = Q_K, .k = KK(1), .off = 8,
                  .len = 3000));
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .q = Q_K, .k = KK(0), .off = 16));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .q = Q_K, .k = KK(1), .off = 8));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(3), .off = 100, .len = 60, .pay = PAY_N(60)));
    BH(&w);
    w_recv(&w, R_K, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_INV, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(1), .pay = PAY_N(40)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(1), .off = 0, .len = 8, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    /* Type 2 window 1 is QP K's: at QP A it is refused; window 1 (type 1)
     * serves QP A; a WRITE crossing its end. */
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .fl = FL_ACKREQ, .k = KK(0),
                  .off = 200, .len = 16, .pay = PAY_N(16)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .fl = FL_ACKREQ, .k = KK(0),
                  .v = 0x40, .off = 4, .len = 8, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("keys-windows", &w);

    /* The region QP K registered: a three-packet WRITE across its pages, a
     * READ of it, a two-packet SEND_WITH_INV of it (SEND_FIRST, then
     * SEND_LAST_WITH_INVALIDATE), a WRITE after it (REM_ACCESS). */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .q = Q_K, .k = KK(2),
                  .off = 0, .len = 2 * 1024 + 480, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .q = Q_K, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST, .q = Q_K, .fl = FL_ACKREQ,
                  .pay = PAY_BIG(3)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = Q_K, .k = KK(2), .off = 4000,
                  .len = 4096));
    BH(&w);
    w_recv(&w, R_K, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_K, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_INV, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(2), .pay = PAY_N(20)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(2), .off = 0, .len = 8, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("keys-fastreg", &w);

    /* IETH keys that cannot be invalidated: MR C's (a REG_MR region),
     * window 2 at QP A (bound by QP K), a stale key; the receive completes
     * REM_INV_REQ_ERR, the message is acknowledged, the QP goes to ERR.
     * SEND_ONLY_WITH_INVALIDATE to UC QP E (dropped), one cut short
     * (dropped), a SEND_LAST_WITH_INVALIDATE out of a message (NAK); in a
     * seed of its own, MR A's key with a stale byte. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, R_K, 1, 0, 0, 4096);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_recv(&w, R_E, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_INV, .q = Q_E, .k = KK(1),
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_INV, .q = Q_K, .k = KK(1),
                  .pay = PAY_N(0), .mut = 0x80));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_INV, .q = Q_K, .fl = FL_ACKREQ,
                  .k = KK(3), .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_INV, .fl = FL_ACKREQ, .k = KK(1),
                  .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_INV, .q = Q_C, .k = KK(1),
                  .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("keys-ieth-refused", &w);

    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, R_K, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_INV, .q = Q_K, .fl = FL_ACKREQ,
                  .k = 2, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("keys-ieth-stale", &w);
}

/*
 * XRC: frames to QP T, QP I or QP A with XRC opcodes (rxf.q), the XRCETH
 * (rxf.xs: put_xrceth()'s choice, XS_RSVD the reserved byte, XS_CUT(n)
 * cut to n bytes), receive queues S0, S1, O (w_recv's q), XRC QP control
 * (QPCTL's selector and arg), XRC SRQ control, sends on QP I (w_send's
 * opcode and flags: xrc_srqn_of()).
 */
#define Q_X(x)          (Q_NEW | Q_XRC | (x) << 2)
#define Q_T             Q_X(QX_T)
#define Q_I             Q_X(QX_I)
#define Q_XA            Q_X(QX_A)
#define XS(k)           ((uint16_t)(0x100 | (k)))
#define XS_S0           0
#define XS_S1           1
#define XS_O            3
#define XS_BASIC        4
#define XS_NONE         5
#define XS_RAW          6                   /* rxf.key */
#define XS_RSVD         8
#define XS_CUT(n)       (7 | (n) << 4)
#define R_XS0           0x60
#define R_XS1           0x61
#define R_XO            0xe0
#define XQ_T            0
#define XQ_I            1
#define XQ_RESTART(w, q) QPCTL(w, XRC_SEL, q)
#define XQ_ERR(w, q)    QPCTL(w, XRC_SEL | 1, q)
#define XQ_SQD(w)       QPCTL(w, XRC_SEL | 2, XQ_I)
#define XQ_RTS(w, q, r) QPCTL(w, XRC_SEL | 3, (uint8_t)((q) | (r)))
#define XSRQ_AGAIN(w, k) w_srqctl(w, XRC_SEL, (uint8_t)((k) << 3), 0)
#define XSRQ_QUERY(w, k) w_srqctl(w, XRC_SEL | 1, (uint8_t)((k) << 3), 0)
#define XSRQ_DB(w, k, kind, v) \
    w_srqctl(w, XRC_SEL | 2, (uint8_t)((kind) | (k) << 3), v)
#define XSRQ_POST(w, k, n, off) \
    w_srqctl(w, XRC_SEL | 3, (uint8_t)(((n) - 1) | (k) << 3), off)
#define XSEND(op)       ((uint8_t)(XRC_SEL + (op)))
#define XF_NONE         (5 << 4)            /* xrc_srqn 0 */
#define XF_NOBODY       (6 << 4)
#define XF_25BIT        (7 << 4)

static void xrc_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /*
     * Requests into S0 and S1 through QP T: a SEND of one packet and one
     * of three (with immediate), WRITEs of one and two packets (the
     * XRCETH's reserved byte set), WRITE with immediate (takes S1's WQE),
     * a READ, atomics, a duplicate; WQEs on O and the basic SRQ too (never
     * taken); the XRC SRQs queried and rung.
     */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, R_XS0, 1, 0, 0, 4096);
    w_recv(&w, R_XS0, 1, 0, 4096, 4096);
    w_recv(&w, R_XS1, 1, 0, 8192, 4096);
    w_recv(&w, R_XS1, 2, 0, 16384, 2048);
    w_recv(&w, R_XO, 1, 0, 0, 4096);
    w_recv(&w, R_SRQ, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S0), .pay = PAY_N(60)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_T, .xs = XS(XS_S1),
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_T, .xs = XS(XS_S1),
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_IMM, .q = Q_T,
                  .fl = FL_ACKREQ | FL_SE, .xs = XS(XS_S1),
                  .pay = PAY_N(10)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_T, .xs = XS(XS_S0),
                  .off = 100, .len = 60, .pay = PAY_N(60)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .q = Q_T,
                  .xs = XS(XS_S0 | XS_RSVD), .off = 4096, .len = 1084,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S0), .pay = PAY_N(60)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .q = Q_T, .xs = XS(XS_S1),
                  .off = 200, .len = 4, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = Q_T, .xs = XS(XS_S0),
                  .off = 8, .len = 3000));
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .q = Q_T, .xs = XS(XS_S1),
                  .off = 16));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .q = Q_T, .xs = XS(XS_S0),
                  .off = 24));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .q = Q_T, .dpsn = -1,
                  .xs = XS(XS_S0), .off = 24));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .dpsn = -7,
                  .fl = FL_ACKREQ, .xs = XS(XS_S0), .pay = PAY_N(60)));
    BH(&w);
    XSRQ_QUERY(&w, 0);
    XSRQ_QUERY(&w, 1);
    XSRQ_DB(&w, 0, 0, 0);
    XSRQ_DB(&w, 1, 1, 100);
    XSRQ_DB(&w, 0, 2, 1);
    XSRQ_DB(&w, 1, 3, 0xffff);
    XSRQ_POST(&w, 1, 4, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_IMM, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S1), .pay = PAY_N(20)));
    RUN(&w, 31, 255);
    emit("xrc-requests", &w);

    /*
     * Requests QP T refuses, each ending it (RESET and up again after):
     * an XRCETH naming O (another domain), the basic SRQ, none, a number
     * nobody has, a message that changes SRQ in the middle, a WRITE to a
     * key without remote write, one after T lost its rights, a message
     * whose SRQ is destroyed (and created again) under it; dropped: the
     * XRCETH cut short, a UC opcode to T, XRC to QP A, an XRC request to
     * QP I, a response to T, FLUSH and ATOMIC WRITE in XRC form (no such
     * opcodes).  Then one that works.
     */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, R_XS0, 1, 0, 0, 4096);
    w_recv(&w, R_XS0, 1, 0, 4096, 4096);
    w_recv(&w, R_XS1, 1, 0, 8192, 4096);
    w_recv(&w, R_XO, 1, 0, 0, 4096);
    w_recv(&w, R_SRQ, 1, 0, 0, 4096);
    for (i = 0; i < 4; i++) {
        static const uint8_t xs[4] = { XS_O, XS_BASIC, XS_NONE, XS_RAW };

        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .fl = FL_ACKREQ,
                      .xs = XS(xs[i]), .key = 0x777777, .pay = PAY_N(8)));
        XQ_RESTART(&w, XQ_T);
    }
    for (i = 0; i < 4; i++) {
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .fl = FL_ACKREQ,
                      .xs = XS(XS_CUT(i)), .pay = PAY_N(8)));
    }
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .mut = FR_CROSS,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_XA, .xs = XS(XS_S0),
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_I, .xs = XS(XS_S0),
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_T, .syn = 0x1f));
    w_frame(&w, F(.op = FOP_FLUSH, .q = Q_T, .xs = XS(XS_S0), .len = 64));
    w_frame(&w, F(.op = FOP_ATOMIC_WRITE, .q = Q_T, .xs = XS(XS_S0),
                  .len = 8, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_T, .xs = XS(XS_S0),
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S1), .pay = PAY_N(8)));
    XQ_RESTART(&w, XQ_T);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_T, .k = 1,
                  .xs = XS(XS_S0), .len = 8, .pay = PAY_N(8)));
    XQ_RESTART(&w, XQ_T);
    XQ_RTS(&w, XQ_T, QRNIC_ACCESS_REMOTE_READ);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_T, .xs = XS(XS_S0),
                  .len = 8, .pay = PAY_N(8)));
    XQ_RESTART(&w, XQ_T);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_T, .xs = XS(XS_S0),
                  .pay = PAY_MTU));
    XSRQ_AGAIN(&w, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_T, .xs = XS(XS_S0),
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S0), .pay = PAY_N(8)));
    XQ_RESTART(&w, XQ_T);
    w_recv(&w, R_XS0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S0), .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .fl = FL_ACKREQ,
                  .xs = XS(XS_S1), .pay = PAY_N(8)));
    XQ_ERR(&w, XQ_T);
    RUN(&w, 31, 255);
    emit("xrc-refused", &w);

    /*
     * QP I's requests answered by made-up frames: every opcode XRC takes
     * to node 0's XRC SRQ, acknowledged, read, atomically answered, an RC
     * ACK (dropped); then NAKs, an xrc_srqn past 24 bits (the requester's
     * own error), FLUSH and ATOMIC WRITE (refused), I through SQD and
     * RESET up again.
     */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, XSEND(QRNIC_WR_SEND), 0, 100, 0, 0);
    w_send(&w, XSEND(QRNIC_WR_RDMA_WRITE), 0, 3000, 0, 0);
    w_send(&w, XSEND(QRNIC_WR_RDMA_READ), 0, 5000, 0, 0);
    w_send(&w, XSEND(QRNIC_WR_ATOMIC_CMP_AND_SWP), 0, 8, 8192, 0);
    w_send(&w, XSEND(QRNIC_WR_ATOMIC_FETCH_AND_ADD), 0, 8, 8200, 8);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -8, .syn = 0x1f,
                  .mut = FR_CROSS));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -8, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_FIRST, .q = Q_I, .dpsn = -7,
                  .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .q = Q_I, .dpsn = -6));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .q = Q_I, .dpsn = -5));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .q = Q_I, .dpsn = -4));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_LAST, .q = Q_I, .dpsn = -3,
                  .syn = 0x1f, .pay = PAY_MTU_MINUS(119)));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .q = Q_I, .dpsn = -2,
                  .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .q = Q_I, .dpsn = -1,
                  .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -1, .syn = 0x1f));
    w_send(&w, XSEND(QRNIC_WR_SEND), 0, 10, 0, 0);
    w_send(&w, XSEND(QRNIC_WR_RDMA_WRITE), 0, 2000, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -2, .syn = 0x60));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -2, .syn = 0x21));
    TIME(&w, 40);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -1, .syn = 0x61));
    XQ_RESTART(&w, XQ_I);
    w_send(&w, XSEND(QRNIC_WR_SEND), XF_25BIT, 10, 0, 0);
    XQ_RESTART(&w, XQ_I);
    w_send(&w, XSEND(7), 0x10, 4096, 0, 64);
    XQ_RESTART(&w, XQ_I);
    w_send(&w, XSEND(8), 0x00, 8, 0, 8);
    XQ_RESTART(&w, XQ_I);
    w_send(&w, XSEND(QRNIC_WR_SEND), 0, 10, 0, 0);
    XQ_SQD(&w);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_I, .dpsn = -1, .syn = 0x1f));
    XQ_RTS(&w, XQ_I, 0);
    TIME(&w, 40);
    emit("xrc-responses", &w);

    /*
     * The peer is live: QP I's requests (node 0's XRC SRQ named, 0, a
     * number nobody has) answered by node 0's XRC_TGT QP; node 0's made-up
     * requests to T in between, a hub.
     */
    for (i = 0; i < 2; i++) {
        w_head(&w, 3, (uint8_t)(F_PEER_LIVE | (i ? F_HUB : 0)), 0x3f);
        w_recv(&w, R_XS0, 1, 0, 0, 4096);
        w_send(&w, XSEND(QRNIC_WR_SEND), 0, 3000, 0, 0);
        w_send(&w, XSEND(QRNIC_WR_RDMA_WRITE), QRNIC_WQE_F_FENCE, 6000, 0, 0);
        w_send(&w, XSEND(QRNIC_WR_RDMA_READ), 0, 6000, 0, 8192);
        w_send(&w, XSEND(QRNIC_WR_ATOMIC_FETCH_AND_ADD), QRNIC_WQE_F_FENCE, 8,
               0, 0);
        w_send(&w, XSEND(QRNIC_WR_SEND_IMM), 0, 10, 0, 0);
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_T, .fl = FL_ACKREQ,
                      .xs = XS(XS_S0), .pay = PAY_N(60)));
        RUN(&w, 31, 255);
        w_send(&w, XSEND(QRNIC_WR_SEND), XF_NONE, 10, 0, 0);
        RUN(&w, 31, 255);
        XQ_RESTART(&w, XQ_I);
        w_send(&w, XSEND(QRNIC_WR_RDMA_WRITE), XF_NOBODY, 10, 0, 0);
        RUN(&w, 31, 255);
        XQ_RESTART(&w, XQ_I);
        w_send(&w, XSEND(QRNIC_WR_RDMA_READ), 0, 100, 0, 0);
        RUN(&w, 31, 255);
        emit(i ? "xrc-hub" : "xrc-peer-live", &w);
    }
}

void fuzz_make_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    int i;

    /* SEND: one packet, several, with immediate data; duplicates. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .pay = PAY_N(32)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .dpsn = -1,
                  .pay = PAY_N(32)));
    emit("send-only-dup", &w);

    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 3, 0, 0, 1000);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_IMM, .fl = FL_ACKREQ | FL_SE,
                  .pay = PAY_N(10)));
    w_recv(&w, 0, 1, 0, 8192, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY_IMM, .fl = FL_SE, .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_N(4)));
    emit("send-multi-imm", &w);

    /* RDMA WRITE: one packet, several, with immediate, zero length. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .fl = FL_ACKREQ, .off = 64,
                  .len = 40, .pay = PAY_N(40)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .off = 0, .len = 0,
                  .pay = PAY_N(0), .fl = FL_ACKREQ));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .dpsn = -2, .len = 40,
                  .pay = PAY_N(40)));
    w_recv(&w, 0, 1, 0, 0, 16);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .off = 100, .len = 2055,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST_IMM, .fl = FL_ACKREQ,
                  .pay = PAY_N(7)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .len = 8, .pay = PAY_N(8)));
    emit("write-only-multi-imm", &w);

    /* WRITE refused: stale key, out of bounds, no right, bad lengths. */
    for (i = 0; i < 6; i++) {
        static const struct rxf bad[6] = {
            { .op = QRNIC_OP_WRITE_ONLY, .k = 2, .len = 8, .pay = PAY_N(8) },
            { .op = QRNIC_OP_WRITE_ONLY, .v = 0x40, .off = 4, .len = 8,
              .pay = PAY_N(8) },
            { .op = QRNIC_OP_WRITE_ONLY, .k = 1, .len = 8, .pay = PAY_N(8) },
            { .op = QRNIC_OP_WRITE_ONLY, .len = 8, .pay = PAY_N(12) },
            { .op = QRNIC_OP_WRITE_FIRST, .len = 100, .pay = PAY_MTU },
            { .op = QRNIC_OP_WRITE_ONLY, .k = 0xf3, .key = 0x7fff01,
              .len = 8, .pay = PAY_N(8) },
        };
        static const char *names[6] = {
            "write-stale-key", "write-out-of-bounds", "write-no-right",
            "write-longer-than-reth", "write-first-short-reth",
            "write-raw-key",
        };

        w_head(&w, 2, 0, 0x3f);
        w_frame(&w, bad[i]);
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(4)));
        emit(names[i], &w);
    }

    /* RDMA READ: multi-packet replies, a duplicate, then a repeat. */
    w_head(&w, 2, F_PEER_LIVE, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = 8, .len = 3000));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -3, .off = 8, .len = 3000));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -2, .off = 1032,
                  .len = 1968));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = 0, .len = 0));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .pay = PAY_N(4)));
    RUN(&w, 31, 255);
    emit("read-dup", &w);

    /* READ refused: bounds, key, too long, junk after the RETH. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .v = 0x40, .off = 10, .len = 20));
    emit("read-out-of-bounds", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 0, .lsel = 0xc0));
    emit("read-over-2g", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 16, .pay = PAY_BIG(1)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 16, .lsel = 0x50));
    emit("read-junk-bad-pad", &w);

    /* Nine READs at once: more than max_dest_rd_atomic slots. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 9; i++) {
        w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = (uint16_t)(i * 64),
                      .len = 64));
    }
    emit("read-too-many", &w);

    /* Eight READs answered, all eight resent (replays pending), then nine
     * new ones: eight take the replays' slots, the ninth is refused. */
    w_head(&w, 2, F_PEER_LIVE, 0x3f);
    for (i = 0; i < 8; i++) {
        w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = (uint16_t)(i * 64),
                      .len = 64));
    }
    BH(&w);
    for (i = 0; i < 8; i++) {
        w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = (int8_t)(i - 8),
                      .off = (uint16_t)(i * 64), .len = 64));
    }
    for (i = 0; i < 9; i++) {
        w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = (uint16_t)(i * 32),
                      .len = 32));
    }
    BH(&w);
    emit("read-replays-give-way", &w);

    /* Atomics: swap, add, a duplicate replayed, misaligned, no right. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .off = 0, .key = 7));
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .off = 0, .key = 9, .fill = 1));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .off = 8, .key = 5));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .dpsn = -1, .off = 8, .key = 5));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .dpsn = -2, .off = 8, .key = 5));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .off = 12));
    emit("atomic-dup-misaligned", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .k = 1, .off = 0));
    emit("atomic-no-right", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_CMP_SWAP, .v = 0x40, .off = 4));
    emit("atomic-out-of-bounds", &w);

    /* PSN ahead: one sequence NAK, then the expected PSN. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .dpsn = 5, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .dpsn = 6, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    emit("psn-ahead", &w);

    /*
     * A WRITE resent after its ACK was lost: only the packet asking for an
     * ACK draws one (its own PSN).  Then two gaps, one NAK each.
     */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 2; i++) {
        int8_t back = i ? -3 : 0;

        w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .off = 8, .len = 2055,
                      .dpsn = back, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .dpsn = back,
                      .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST, .fl = FL_ACKREQ,
                      .dpsn = back, .pay = PAY_N(7)));
    }
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .dpsn = 1, .len = 8,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .len = 8, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .dpsn = 2, .len = 8,
                  .pay = PAY_N(8)));
    emit("write-resent-gaps", &w);

    /* Opcodes out of sequence and lengths off the path MTU. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .pay = PAY_MTU));
    emit("send-middle-first", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .pay = PAY_MTU));
    emit("send-then-write", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .len = 3000, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_N(4)));
    emit("write-then-send", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU_MINUS(3)));
    emit("send-first-short", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_BIG(8)));
    emit("send-over-mtu", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_N(0)));
    emit("send-last-empty", &w);

    /* Receive problems: none posted (RNR), too small, bad lkey, num_sge. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .len = 4, .pay = PAY_N(4)));
    w_recv(&w, 0, 1, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .len = 2048, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST_IMM, .pay = PAY_MTU));
    emit("rnr", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 16);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-too-small", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0xf1, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-bad-lkey", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 0xf7, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-bad-num-sge", &w);
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 1, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(40)));
    emit("recv-no-local-write", &w);

    /* QP B: RTR only, remote read only, a CQ of two entries. */
    w_head(&w, 2, F_QPB_RD, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = 2, .syn = 0x1f));
    for (i = 0; i < 3; i++) {
        w_recv(&w, 1, 0, 0, 0, 0);
    }
    for (i = 0; i < 3; i++) {
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = 2, .pay = PAY_N(0)));
    }
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = 2, .len = 4,
                  .pay = PAY_N(4)));
    emit("qpb-read-overflow-write", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    emit("qpb-no-rd-slot", &w);
    w_head(&w, 2, F_QPB_RD, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .q = 2, .k = 1));
    emit("qpb-atomic", &w);

    /* The completer: node 1 sends, the answers are made up here. */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, QRNIC_WR_SEND, 0, 100, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_WRITE, 0, 3000, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 5000, 0, 0);
    w_send(&w, QRNIC_WR_ATOMIC_CMP_AND_SWP, 0, 8, 8192, 0);
    w_send(&w, QRNIC_WR_ATOMIC_FETCH_AND_ADD, 0, 8, 8200, 8);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -8, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_FIRST, .dpsn = -7, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -6));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -5));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -4));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_LAST, .dpsn = -3, .syn = 0x1f,
                  .pay = PAY_MTU_MINUS(119)));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .dpsn = -2, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .dpsn = -1, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    emit("completer-all-answered", &w);

    /* Responses out of order: a gap, a resend, a bad length. */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 3000, 0, 0);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -3));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_LAST, .dpsn = -2, .syn = 0x1f,
                  .pay = PAY_MTU_MINUS(71)));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_FIRST, .dpsn = -4, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_MIDDLE, .dpsn = -3,
                  .pay = PAY_N(3)));
    emit("completer-gap-bad-length", &w);

    /* NAKs: sequence (resend), RNR (wait), then the fatal ones. */
    for (i = 0; i < 6; i++) {
        static const uint8_t syn[6] = { 0x60, 0x21, 0x61, 0x62, 0x63, 0x7f };
        static const char *names[6] = {
            "nak-psn-seq", "nak-rnr", "nak-invalid", "nak-access",
            "nak-rem-op", "nak-reserved",
        };

        w_head(&w, 2, 0, 0x09);
        w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
        w_send(&w, QRNIC_WR_RDMA_WRITE, 0, 2000, 0, 0);
        BH(&w);
        w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -2, .syn = syn[i]));
        w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -2, .syn = syn[i]));
        BH(&w);
        TIME(&w, 40);
        BH(&w);
        w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
        TIME(&w, 40);
        emit(names[i], &w);
    }

    /* Retransmission: nothing comes back until the retries run out. */
    w_head(&w, 2, 0, 0x01);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 10, 0, 0);
    BH(&w);
    for (i = 0; i < 6; i++) {
        TIME(&w, 60);
        BH(&w);
    }
    emit("retry-exhausted", &w);

    /* The peer is live: real traffic with made-up frames in between. */
    w_head(&w, 3, F_PEER_LIVE, 0x3f);
    w_send(&w, QRNIC_WR_RDMA_WRITE, QRNIC_WQE_F_FENCE, 6000, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 6000, 0, 8192);
    w_send(&w, QRNIC_WR_ATOMIC_FETCH_AND_ADD, QRNIC_WQE_F_FENCE, 8, 0, 0);
    RUN(&w, 6, 20);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    RUN(&w, 31, 255);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("peer-live", &w);

    /* Hub: the peer answers from inside the transmit. */
    w_head(&w, 2, F_PEER_LIVE | F_HUB, 0x3f);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    w_send(&w, QRNIC_WR_RDMA_READ, 0, 3000, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 3000));
    BH(&w);
    emit("hub", &w);

    /* QP states: SQD with its event, rights revoked, ERR, a fresh start. */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    QPCTL(&w, 2, 1);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    QPCTL(&w, 3, 0x04);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .len = 4, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = 0, .len = 4));
    QPCTL(&w, 0, 0);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .len = 3000, .pay = PAY_MTU));
    QPCTL(&w, 3, 0x02);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .pay = PAY_MTU));
    QPCTL(&w, 3, 0x0e);
    QPCTL(&w, 1, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .pay = PAY_N(8)));
    QPCTL(&w, 1, 1);
    emit("qp-states", &w);
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .len = 3000));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -3, .len = 3000));
    QPCTL(&w, 3, 0x02);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .dpsn = -3, .len = 3000));
    BH(&w);
    emit("read-rights-revoked", &w);

    /* Frames the parser or the QP lookup must drop. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_BAD_PKEY, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_TVER, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_BAD_ICRC,
                  .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 0x50, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = 3, .pay = PAY_N(4)));
    w_frame(&w, F(.op = 0xf4, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_BCAST, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_VLAN, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_IPV6, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .lsel = 0x70, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .pay = PAY_BIG(2), .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 2, .pay = PAY_N(4),
                  .mutv = { 23, 0, 0x01, 14, 0, 0x10 }));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 1, .pay = PAY_N(4),
                  .mutv = { 36, 0, 0x11 }));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 1, .pay = PAY_N(4),
                  .mutv = { 20, 0, 0x20 }));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = 0xf0, .pay = PAY_N(4)));
    emit("malformed", &w);

    /* Every MTU, big frames. */
    for (i = 1; i <= 5; i++) {
        char name[32];

        w_head(&w, (uint8_t)(i - 1), 0, 0x3f);
        w_recv(&w, 0, 3, 0, 0, 8192);
        w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .len = 60000,
                      .pay = PAY_BIG(63)));
        snprintf(name, sizeof(name), "mtu-%u", 128u << i);
        emit(name, &w);
    }

    /* ---- UD and GSI (the UD MTU is 1024 unless a seed sets the MTU) ---- */

    /* UD SEND_ONLY: a small one, exactly the UD MTU, empty; the reserved
     * byte of the DETH set. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 4; i++) {
        w_udrecv(&w, 0, 1, 0, (uint16_t)(i * 2048), 2048);
    }
    w_dgram(&w, DG(.src = 0xabc, .pay = DPAY_N(32), .fill = 1));
    w_dgram(&w, DG(.src = 0xabc, .pay = DPAY_MTU_MINUS(0), .fill = 2));
    w_dgram(&w, DG(.src = 0xffffff, .pay = DPAY_N(0)));
    w_dgram(&w, DG(.src = 0xabc, .pay = DPAY_N(5), .mut = 1,
                   .mutv = { 58, 0, 0xff }));
    emit("ud-send-only", &w);

    /* SEND_ONLY_IMM: solicited over IPv6, with a VLAN tag, from a
     * stranger; no payload. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 4; i++) {
        w_udrecv(&w, 0, 1, 0, (uint16_t)(i * 2048), 2048);
    }
    w_dgram(&w, DG(.op = DG_SEND_IMM, .src = 0x12, .fl = FL_SE | FL_IPV6,
                   .pay = DPAY_N(60)));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .src = 0x13, .fl = FL_VLAN,
                   .pay = DPAY_MTU_MINUS(1)));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .src = 0x14, .fl2 = D_STRANGER,
                   .pay = DPAY_N(7)));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .src = 0x15, .fl = FL_IPV6,
                   .fl2 = D_STRANGER, .pay = DPAY_N(0)));
    emit("ud-send-only-imm", &w);

    /* Q_Keys: one bit off, bit 31 off, the GSI QP's, zero; then right. */
    w_head(&w, 2, 0, 0x3f);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.k = DG_QKEY_BIT(0), .pay = DPAY_N(16)));
    w_dgram(&w, DG(.k = DG_QKEY_BIT(31), .pay = DPAY_N(16)));
    w_dgram(&w, DG(.k = DG_QKEY_OTHER, .pay = DPAY_N(16)));
    w_dgram(&w, DG(.k = DG_QKEY_RAW, .key = 0, .pay = DPAY_N(16)));
    w_dgram(&w, DG(.pay = DPAY_N(5), .mut = 1, .mutv = { 57, 0, 0x01 }));
    w_dgram(&w, DG(.pay = DPAY_N(16)));
    emit("ud-wrong-qkey", &w);

    /* The DETH cut short (0, 4 and 7 of its 8 bytes), pad counts longer
     * than what follows the DETH or the BTH, a frame cut short; then a
     * good one. */
    w_head(&w, 2, 0, 0x3f);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_udrecv(&w, 0, 1, 0, 2048, 2048);
    w_dgram(&w, DG(.fl2 = D_TRUNC));
    w_dgram(&w, DG(.fl2 = D_TRUNC | 4 << 4));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .fl2 = D_TRUNC | 7 << 4));
    w_dgram(&w, DG(.fl2 = D_BADPAD | 3 << 4, .pay = DPAY_N(0)));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .fl2 = D_BADPAD | 3 << 4,
                   .pay = DPAY_N(0)));
    w_dgram(&w, DG(.fl2 = D_TRUNC, .mut = 1, .mutv = { 43, 0, 0x30 }));
    w_dgram(&w, DG(.pay = DPAY_N(8), .mut = 0x90));
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    emit("ud-truncated-deth", &w);

    /* UD opcodes to the RC QPs, to QP 0 and to a QPN nobody has; the RC
     * QP still takes its SEND. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_recv(&w, 1, 1, 0, 0, 4096);
    w_dgram(&w, DG(.d = DG_TO_QPA, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .d = DG_TO_QPB, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_QPN, .qpn = 0, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = 0xf0, .qpn = 0x7ffff0, .pay = DPAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .pay = PAY_N(8)));
    emit("ud-opcode-to-rc-qp", &w);

    /* RC opcodes (no DETH) to the UD and GSI QPs, other UD-transport
     * opcodes (SEND_FIRST 0x60, RDMA 0x66, ...), a raw one; then a good
     * datagram. */
    w_head(&w, 2, 0, 0x3f);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_udrecv(&w, 1, 1, 0, 4096, 2048);
    w_dgram(&w, DG(.op = DG_RC(QRNIC_OP_SEND_ONLY), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.op = DG_RC(QRNIC_OP_WRITE_ONLY), .d = DG_TO_GSI,
                   .pay = DPAY_N(8)));
    w_dgram(&w, DG(.op = DG_RC(QRNIC_OP_READ_REQ)));
    w_dgram(&w, DG(.op = DG_RC(QRNIC_OP_ACK), .d = DG_TO_GSI));
    w_dgram(&w, DG(.op = DG_RC(QRNIC_OP_FETCH_ADD)));
    w_dgram(&w, DG(.op = DG_UDT(0), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.op = DG_UDT(6), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.op = DG_UDT(0x18), .d = DG_TO_GSI, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.op = 0xf1, .rawop = 0xe4, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_GSI, .pay = DPAY_N(8)));
    emit("rc-opcode-to-ud-qp", &w);

    /* QP 1: a MAD-sized datagram, the UD QP's Q_Key (dropped), IPv6 from
     * a stranger, bit 31 flipped; then QP 1 takes the UD QP's Q_Key. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 4; i++) {
        w_udrecv(&w, 1, 1, 0, (uint16_t)(i * 1024), 1024);
    }
    w_dgram(&w, DG(.d = DG_TO_GSI, .src = 0x1234, .pay = DPAY_BIG(2)));
    w_dgram(&w, DG(.d = DG_TO_GSI + 1, .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_GSI, .src = 1, .fl = FL_IPV6,
                   .fl2 = D_STRANGER, .pay = DPAY_N(60)));
    w_dgram(&w, DG(.d = DG_TO_GSI, .k = DG_QKEY_BIT(31), .pay = DPAY_N(8)));
    UDCTL(&w, 5, 3);
    w_dgram(&w, DG(.d = DG_TO_GSI, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_GSI, .op = DG_SEND_IMM, .fl = FL_SE,
                   .pay = DPAY_N(8)));
    emit("gsi-datagrams", &w);

    /* Receive WQEs: smaller than the GRH, the GRH only, one byte short, the
     * GRH across SGEs, MR B, a stale lkey, a raw num_sge, no SGE, none at
     * all; a raw lkey on QP 1. */
    w_head(&w, 2, 0, 0x3f);
    w_udrecv(&w, 0, 1, 0, 0, QRNIC_GRH_LEN - 1);
    w_dgram(&w, DG(.pay = DPAY_N(0)));
    UD_RESET_UP(&w, 0);
    w_udrecv(&w, 0, 1, 0, 0, QRNIC_GRH_LEN);
    w_dgram(&w, DG(.pay = DPAY_N(0)));
    w_udrecv(&w, 0, 1, 0, 0, QRNIC_GRH_LEN + 31);
    w_dgram(&w, DG(.pay = DPAY_N(32)));
    UD_RESET_UP(&w, 0);
    w_udrecv(&w, 0, 3, 0, 100, 20);
    w_dgram(&w, DG(.pay = DPAY_N(20)));
    w_udrecv(&w, 0, 3, 1, 0, 700);
    w_dgram(&w, DG(.pay = DPAY_MTU_MINUS(0)));
    w_udrecv(&w, 0, 1, 2, 0, 2048);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    UD_RESET_UP(&w, 0);
    w_udrecv(&w, 0, 0xf9, 0, 0, 2048);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    UD_RESET_UP(&w, 0);
    w_udrecv(&w, 0, 0, 0, 0, 0);
    w_dgram(&w, DG(.pay = DPAY_N(0)));
    UD_RESET_UP(&w, 0);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    w_udrecv(&w, 1, 1, 0xf2, 0, 2048);
    w_dgram(&w, DG(.d = DG_TO_GSI, .pay = DPAY_N(8)));
    emit("ud-recv-sizes", &w);

    /* Forty datagrams, each with its receive: the RQ wraps. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 40; i++) {
        w_udrecv(&w, (uint8_t)(i % 5 == 4), 1, 0, (uint16_t)(i * 1500), 1100);
        w_dgram(&w, DG(.d = (uint8_t)(i % 5 == 4 ? DG_TO_GSI : DG_TO_UD),
                       .src = (uint32_t)i, .pay = DPAY_N(i % 64),
                       .fill = (uint8_t)i));
    }
    emit("ud-rq-wraps", &w);

    /* Payloads above the UD MTU (taken today: the receiver checks only
     * its buffer); the port MTU raised (UD MTU 4096) and lowered to 68
     * (UD MTU 256). */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 4; i++) {
        w_udrecv(&w, 0, 1, 0, (uint16_t)(i * 10000), 9900);
    }
    w_dgram(&w, DG(.pay = DPAY_MTU_PLUS(0)));
    w_dgram(&w, DG(.pay = DPAY_BIG(40)));
    UDCTL(&w, 7, 6);
    w_dgram(&w, DG(.pay = DPAY_MTU_MINUS(0)));
    w_dgram(&w, DG(.op = DG_SEND_IMM, .fl = FL_IPV6 | FL_VLAN,
                   .pay = DPAY_MTU_PLUS(0)));
    UDCTL(&w, 7, 0);
    w_udrecv(&w, 0, 1, 0, 40000, 400);
    w_udrecv(&w, 0, 1, 0, 40400, 400);
    w_dgram(&w, DG(.pay = DPAY_MTU_MINUS(0)));
    w_dgram(&w, DG(.pay = DPAY_MTU_PLUS(0)));
    emit("ud-over-mtu", &w);

    /* States: INIT (dropped), RTR (received), RTS, SQD with its event
     * (received), RTS with QP 1's Q_Key, ERR (flushed, dropped), RESET;
     * MODIFY_QP with masks a UD QP refuses or takes. */
    w_head(&w, 2, 0, 0x3f);
    UDCTL(&w, 2, 0);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    UDCTL(&w, 3, 0);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    UDCTL(&w, 4, 4);
    UDCTL(&w, 1, 0);
    UDCTL(&w, 4, 4);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    BH(&w);
    UDCTL(&w, 5, 2);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    w_udrecv(&w, 0, 1, 0, 4096, 2048);
    w_udrecv(&w, 1, 1, 0, 8192, 2048);
    UDCTL(&w, 0, 0);
    UDCTL(&w, 0, 1);
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_GSI, .pay = DPAY_N(8)));
    {
        static const uint32_t masks[4] = {
            A(STATE) | A(PKEY_INDEX) | A(PORT) | A(QKEY),
            A(STATE) | A(AV) | A(PATH_MTU),
            A(STATE) | A(CUR_STATE) | A(QKEY),
            A(QKEY) | A(ACCESS_FLAGS),
        };
        static const uint8_t args[4] = { 0x00, 0x08, 0x80 | 0x0c, 0x01 };
        int g;

        for (g = 0; g < 2; g++) {
            for (i = 0; i < 4; i++) {
                w_op(&w, OP_UDCTL, 2, 6, (uint8_t)(args[i] | g));
                fzw_u32(&w, masks[i]);
            }
        }
    }
    UD_RESET_UP(&w, 1);
    w_udrecv(&w, 1, 1, 0, 8192, 2048);
    w_dgram(&w, DG(.d = DG_TO_GSI, .pay = DPAY_N(8)));
    emit("ud-states", &w);

    /* Frames that must be dropped before the QP: bad ICRC, P_Key,
     * transport version, to someone else's address; broadcast. */
    w_head(&w, 2, 0, 0x3f);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_udrecv(&w, 0, 1, 0, 2048, 2048);
    w_dgram(&w, DG(.fl = FL_BAD_ICRC, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.fl = FL_BAD_PKEY, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.fl = FL_TVER, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.fl2 = D_FOREIGN, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.fl = FL_IPV6, .fl2 = D_FOREIGN, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.fl = FL_BCAST | FL_ACKREQ, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.pay = DPAY_N(8)));
    emit("ud-malformed", &w);

    /* ---- UC and SRQs (QP C: RC on the SRQ, E: UC, F: UC on the SRQ, V:
     * UD on the SRQ) ---- */

    /* UC SEND and WRITE to QP E: one packet, several, with immediate and
     * solicited; WRITE_WITH_IMM without a receive WQE (the message is
     * dropped, the QP stays), again with one; an earlier PSN starting a
     * message is a new message (no duplicates in UC). */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 3; i++) {
        w_recv(&w, R_E, 1, 0, (uint16_t)(i * 4096), 4096);
    }
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .fl = FL_ACKREQ,
                  .pay = PAY_N(32)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_IMM, .q = Q_E, .fl = FL_SE,
                  .pay = PAY_N(10)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .off = 64, .len = 40,
                  .pay = PAY_N(40)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .q = Q_E, .off = 100,
                  .len = 2055, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST_IMM, .q = Q_E, .pay = PAY_N(7)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .q = Q_E, .len = 8,
                  .pay = PAY_N(8)));
    w_recv(&w, R_E, 1, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .q = Q_E, .len = 8,
                  .pay = PAY_N(8)));
    w_recv(&w, R_E, 1, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .dpsn = -1,
                  .pay = PAY_N(16)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .len = 0,
                  .pay = PAY_N(0)));
    emit("uc-send-write", &w);

    /* PSN gaps in the middle of UC messages: the message is dropped (its
     * receive WQE serves the next one), packets up to the next first one
     * too, whatever their PSN; a FIRST inside a SEND drops it as well. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, R_E, 1, 0, 0, 8192);
    w_recv(&w, R_E, 1, 0, 8192, 8192);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_E, .dpsn = 1,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_E, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .dpsn = 5,
                  .pay = PAY_N(16)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .q = Q_E, .len = 3000,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST, .q = Q_E, .dpsn = 2,
                  .pay = PAY_MTU_MINUS(71)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_MIDDLE, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .dpsn = -3, .len = 8,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_E, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_E, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_E, .dpsn = -100,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_E, .dpsn = 9,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_E, .pay = PAY_MTU_MINUS(0)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .pay = PAY_N(0)));
    emit("uc-psn-gaps", &w);

    /* UC refusals: no receive WQE, a stale key, no right (MR B), out of
     * bounds, longer than the RETH, WRITE_WITH_IMM without a WQE (all
     * dropped, the QP stays); RC READ, atomic and ACK opcodes; a WQE too
     * small (LOC_LEN_ERR, ERR), the QP back up, a bad lkey (ERR). */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .k = 2, .len = 8,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .k = 1, .len = 8,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .v = 0x40, .off = 4,
                  .len = 8, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_E, .len = 8,
                  .pay = PAY_N(12)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .q = Q_E, .len = 8,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = Q_E, .len = 8));
    w_frame(&w, F(.op = QRNIC_OP_FETCH_ADD, .q = Q_E));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .q = Q_E, .syn = 0x1f));
    w_recv(&w, R_E, 1, 0, 0, 16);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .pay = PAY_N(40)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .pay = PAY_N(8)));
    QP_RESTART(&w, QC_E);
    w_recv(&w, R_E, 1, 0xf1, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .pay = PAY_N(8)));
    emit("uc-refused", &w);

    /* UC opcodes to RC QPs (A, B, C, any QPN) and RC opcodes to the UC
     * QPs: dropped; datagrams to C, E and F: dropped; then the right ones
     * go through. */
    w_head(&w, 2, 0, 0x3f);
    w_recv(&w, 0, 1, 0, 0, 4096);
    w_recv(&w, R_E, 1, 0, 0, 4096);
    SRQ_POST(&w, 2, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .mut = FR_CROSS, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = 2, .mut = FR_CROSS,
                  .len = 4, .pay = PAY_N(4)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_C, .mut = FR_CROSS,
                  .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = 3, .mut = FR_CROSS,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .mut = FR_CROSS,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .q = Q_F, .mut = FR_CROSS,
                  .len = 2048, .pay = PAY_MTU));
    w_dgram(&w, DG(.d = DG_TO_C, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_E, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_F, .op = DG_SEND_IMM, .pay = DPAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_E, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_F, .pay = PAY_N(8)));
    emit("uc-rc-crossed", &w);

    /* Three QPs on one SRQ: multi-packet SENDs of C (RC) and F (UC)
     * interleaved, datagrams to V in between, WRITE_WITH_IMM to C (one
     * packet) and to F (several: the WQE is taken at the last), with the
     * peer live (C's ACKs reach node 0). */
    w_head(&w, 2, F_PEER_LIVE, 0x3f);
    SRQ_POST(&w, 8, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_C, .pay = PAY_MTU));
    w_dgram(&w, DG(.d = DG_TO_V, .src = 0x42, .pay = DPAY_N(32)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_F, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_C, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_F, .pay = PAY_N(20)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_IMM, .q = Q_C, .fl = FL_ACKREQ,
                  .pay = PAY_N(5)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY_IMM, .q = Q_C, .fl = FL_ACKREQ,
                  .len = 8, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_FIRST, .q = Q_F, .len = 2048,
                  .pay = PAY_MTU));
    w_dgram(&w, DG(.d = DG_TO_V, .op = DG_SEND_IMM, .fl = FL_IPV6,
                   .pay = DPAY_MTU_MINUS(0)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_LAST_IMM, .q = Q_F, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .fl = FL_ACKREQ,
                  .dpsn = -1, .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    SRQ_QUERY(&w);
    emit("srq-interleaved", &w);

    /* An empty SRQ: RNR NAK for C, the datagram and F's SEND dropped; the
     * limit armed (3 of 4: the second take fires it), refused at and past
     * the depth, armed again, disarmed; doorbells past the depth, on a
     * foreign page, with high bits; a raw num_sge that fails V's take. */
    w_head(&w, 2, F_PEER_LIVE, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_F, .pay = PAY_N(8)));
    RUN(&w, 3, 3);
    SRQ_POST(&w, 4, 0);
    SRQ_ARM(&w, 3);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    SRQ_QUERY(&w);
    SRQ_ARM(&w, 17);
    SRQ_ARM(&w, 16);
    SRQ_ARM(&w, 15);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_F, .pay = PAY_N(8)));
    w_srqctl(&w, 0, FZ_RAW, 0);
    SRQ_DB(&w, 1, 200);
    SRQ_DB(&w, 2, 0);
    SRQ_DB(&w, 3, 1);
    SRQ_DB(&w, 0, 0);
    SRQ_POST(&w, 8, 8192);
    SRQ_ARM(&w, 8);
    w_recv(&w, R_SRQ, 0xf7, 0, 0, 64);
    for (i = 0; i < 10; i++) {
        w_dgram(&w, DG(.d = DG_TO_V, .src = (uint32_t)i, .pay = DPAY_N(8)));
    }
    RUN(&w, 31, 255);
    emit("srq-empty-limit", &w);

    /* SRQ WQEs a QP holds when it fails: C in ERR in the middle of a SEND
     * (flushed), F keeps its WQE over a PSN gap for the next message, F
     * and C through ERR and RESET; WQEs too small for C (NAK, ERR) and V
     * (ERR), a bad lkey for F (ERR); V back up. */
    w_head(&w, 2, 0, 0x3f);
    SRQ_POST(&w, 4, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_C, .pay = PAY_MTU));
    QP_ERR(&w, QC_C);
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_F, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_F, .dpsn = 2,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_F, .dpsn = 7,
                  .pay = PAY_N(16)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_F, .pay = PAY_MTU));
    QP_RESTART(&w, QC_F);
    QP_RESTART(&w, QC_C);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(8)));
    w_recv(&w, R_SRQ, 1, 0, 0, 16);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(40)));
    w_recv(&w, R_SRQ, 1, 0xf1, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_F, .pay = PAY_N(8)));
    w_recv(&w, R_SRQ, 1, 0, 0, 16);
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    UDCTL(&w, UD_V | 1, 0);
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    SRQ_POST(&w, 2, 0);
    w_dgram(&w, DG(.d = DG_TO_V, .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    UDCTL(&w, UD_V | 0, 0);
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    emit("srq-held-errors", &w);

    /* RC on the SRQ: a duplicate SEND (no second take), a PSN ahead (one
     * sequence NAK), a multi-packet SEND with a gap in the middle (NAK,
     * then the right packets), the SRQ emptied mid-way (RNR only at the
     * first packet), a WRITE with a stale key (NAK, ERR: C held nothing). */
    w_head(&w, 2, 0, 0x3f);
    SRQ_POST(&w, 3, 0);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .dpsn = -1,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .dpsn = 3,
                  .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .q = Q_C, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_C, .dpsn = 1,
                  .pay = PAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_V, .pay = DPAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .q = Q_C, .pay = PAY_MTU));
    w_frame(&w, F(.op = QRNIC_OP_SEND_LAST, .q = Q_C, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .q = Q_C, .pay = PAY_N(8)));
    w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .q = Q_C, .k = 2, .len = 8,
                  .pay = PAY_N(8)));
    emit("srq-rc-sequence", &w);

    /* Multicast: U, V (on the SRQ) and W attached to an IPv4 group with
     * three Q_Keys: a datagram with each key reaches its QP only; U and W
     * in an IPv6 group too; attaching twice is fine; U detached, then
     * only W receives. */
    w_head(&w, 2, 0, 0x3f);
    MC_ATTACH(&w, MC_U, 0);
    MC_ATTACH(&w, MC_V, 0);
    MC_ATTACH(&w, MC_W, 0);
    MC_ATTACH(&w, MC_W, 0);
    MC_ATTACH(&w, MC_U, 1);
    MC_ATTACH(&w, MC_W, 1);
    SRQ_POST(&w, 4, 0);
    for (i = 0; i < 4; i++) {
        w_udrecv(&w, 0, 1, 0, (uint16_t)(i * 2048), 2048);
        w_udrecv(&w, 2, 1, 0, (uint16_t)(8192 + i * 2048), 2048);
    }
    w_dgram(&w, DG(.d = DG_TO_MC(0), .src = 0x21, .pay = DPAY_N(40)));
    w_dgram(&w, DG(.d = DG_TO_MC(0), .k = DG_QKEY_OTHER, .src = 0x22,
                   .op = DG_SEND_IMM, .pay = DPAY_MTU_MINUS(0)));
    w_dgram(&w, DG(.d = DG_TO_MC(0) | DG_MC_V, .k = DG_QKEY_OTHER,
                   .src = 0x23, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(1), .src = 0x24, .pay = DPAY_N(16)));
    w_dgram(&w, DG(.d = DG_TO_MC(1), .k = DG_QKEY_OTHER, .src = 0x25,
                   .pay = DPAY_N(16)));
    w_dgram(&w, DG(.d = DG_TO_MC(0), .k = DG_QKEY_RAW, .key = FZ_MC_QKEY,
                   .fl = FL_VLAN, .pay = DPAY_N(4)));
    MC_DETACH(&w, MC_U, 0);
    w_dgram(&w, DG(.d = DG_TO_MC(0), .src = 0x26, .pay = DPAY_N(40)));
    w_dgram(&w, DG(.d = DG_TO_MC(0), .k = DG_QKEY_OTHER, .src = 0x27,
                   .pay = DPAY_N(40)));
    RUN(&w, 31, 255);
    emit("mcast-attached-qkeys", &w);

    /* Refused: the GSI QP, an RC QP (plain and on the SRQ), no QP, a
     * reserved field, unicast GIDs; detaching what is not attached.
     * Datagrams to a multicast group nobody joined, to the port's unicast
     * GIDs with QPN 0xffffff, to a group under the port's unicast MAC or
     * broadcast, from a stranger. */
    w_head(&w, 2, 0, 0x3f);
    MC_ATTACH(&w, MC_GSI, 0);
    MC_ATTACH(&w, MC_QPA, 0);
    MC_ATTACH(&w, MC_QPC, 1);
    MC_ATTACH(&w, MC_NONE, 0);
    MC_DETACH(&w, MC_NONE, 0);
    w_op(&w, OP_MCAST, 2, MC_U << 1 | 0x80, 0);
    MC_ATTACH(&w, MC_U, 4);
    MC_ATTACH(&w, MC_W, 7);
    MC_DETACH(&w, MC_W, 2);
    MC_ATTACH(&w, MC_W, 2);
    MC_DETACH(&w, MC_W, 3);
    MC_DETACH(&w, MC_U, 2);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_udrecv(&w, 2, 1, 0, 8192, 2048);
    w_dgram(&w, DG(.d = DG_TO_MC(5), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(6), .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(4), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(7), .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(2), .k = DG_QKEY_OTHER, .fl2 = D_FOREIGN,
                   .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(2), .k = DG_QKEY_OTHER, .fl = FL_BCAST,
                   .fl2 = D_STRANGER, .pay = DPAY_N(8)));
    MC_DETACH(&w, MC_W, 2);
    MC_DETACH(&w, MC_W, 2);
    w_dgram(&w, DG(.d = DG_TO_MC(2), .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    RUN(&w, 31, 255);
    emit("mcast-refused-unjoined", &w);

    /* Receive WQEs missing on some: U and W in one group, W without a
     * WQE, then with one too small (an error completion, W in ERR), U
     * with one; wrong Q_Keys (one bit, bit 31); U reset (still attached)
     * and the GSI Q_Key; datagrams cut in the DETH, with a bad pad, a bad
     * ICRC, an RC opcode to QPN 0xffffff, over the UD MTU. */
    w_head(&w, 2, 0, 0x3f);
    MC_ATTACH(&w, MC_U, 3);
    MC_ATTACH(&w, MC_W, 3);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.d = DG_TO_MC(3), .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .pay = DPAY_N(8)));
    w_udrecv(&w, 2, 1, 0, 8192, 16);
    w_dgram(&w, DG(.d = DG_TO_MC(3), .k = DG_QKEY_OTHER, .pay = DPAY_N(60)));
    w_udrecv(&w, 2, 1, 0, 8192, 2048);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.d = DG_TO_MC(3), .k = DG_QKEY_BIT(3), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .k = DG_QKEY_BIT(31), .pay = DPAY_N(8)));
    UD_RESET_UP(&w, 0);
    w_udrecv(&w, 0, 1, 0, 0, 2048);
    w_dgram(&w, DG(.d = DG_TO_MC(3), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .fl2 = D_TRUNC | 0x50,
                   .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .fl2 = D_BADPAD | 0x20,
                   .pay = DPAY_N(9)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .fl = FL_BAD_ICRC, .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .op = DG_RC(4), .pay = DPAY_N(8)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .pay = DPAY_MTU_PLUS(0)));
    w_dgram(&w, DG(.d = DG_TO_MC(3), .op = DG_UDT(5), .pay = DPAY_N(8)));
    RUN(&w, 31, 255);
    emit("mcast-missing-wqes", &w);

    /* A full group: U and W in it, the crowd fills it (the last two get
     * NO_RESOURCES), V then too; a datagram reaches all sixteen (W's Q_Key:
     * the crowd has no receive WQE); U leaves, V joins; the crowd leaves
     * (one more detach refused), and joins another group whole. */
    w_head(&w, 2, 0, 0x3f);
    MC_ATTACH(&w, MC_U, 1);
    MC_ATTACH(&w, MC_W, 1);
    MC_CROWD(&w, true, 1);
    MC_ATTACH(&w, MC_V, 1);
    MC_ATTACH(&w, MC_W, 1);
    w_udrecv(&w, 2, 1, 0, 0, 2048);
    w_udrecv(&w, 0, 1, 0, 4096, 2048);
    SRQ_POST(&w, 2, 0);
    w_dgram(&w, DG(.d = DG_TO_MC(1), .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    MC_DETACH(&w, MC_U, 1);
    MC_ATTACH(&w, MC_V, 1);
    MC_ATTACH(&w, MC_U, 1);
    w_dgram(&w, DG(.d = DG_TO_MC(1) | DG_MC_V, .k = DG_QKEY_OTHER,
                   .pay = DPAY_N(8)));
    MC_CROWD(&w, false, 1);
    MC_ATTACH(&w, MC_U, 1);
    MC_CROWD(&w, true, 5);
    MC_CROWD(&w, true, 5);
    w_dgram(&w, DG(.d = DG_TO_MC(5), .k = DG_QKEY_OTHER, .pay = DPAY_N(8)));
    RUN(&w, 31, 255);
    emit("mcast-full-group", &w);

    /* FLUSH (syn: FETH type | level << 4) and ATOMIC WRITE requests that
     * are executed: a range, the MR level anywhere, an empty range, eight
     * bytes; duplicates of each (answered again, not executed); then a
     * SEND behind them. */
    w_head(&w, 2, F_PEER_LIVE, 0x3f);
    w_frame(&w, F(.op = FOP_FLUSH, .off = 64, .len = 4096, .syn = 0x01));
    w_frame(&w, F(.op = FOP_FLUSH, .v = 0xc0, .off = 9, .len = 0xffff,
                  .lsel = 0xff, .syn = 0x11));
    w_frame(&w, F(.op = FOP_ATOMIC_WRITE, .off = 8, .len = 8,
                  .pay = PAY_N(8), .fill = 0x41));
    w_frame(&w, F(.op = FOP_FLUSH, .v = 0x40, .off = 0, .len = 0,
                  .syn = 0x01));
    w_frame(&w, F(.op = FOP_ATOMIC_WRITE, .dpsn = -2, .off = 8, .len = 8,
                  .pay = PAY_N(8), .fill = 0x77));
    w_frame(&w, F(.op = FOP_FLUSH, .dpsn = -4, .off = 64, .len = 4096,
                  .syn = 0x01));
    BH(&w);
    w_frame(&w, F(.op = FOP_FLUSH, .dpsn = -3, .syn = 0x11));
    w_recv(&w, 0, 1, 0, 0, 64);
    w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ,
                  .pay = PAY_N(8)));
    RUN(&w, 31, 255);
    emit("flush-aw-executed-dup", &w);

    /* Refused, each followed by a SEND: FLUSH of MR B (no FLUSH_GLOBAL),
     * PERSISTENT, both types, type 0 or reserved, level 2, out of
     * bounds, over 2 GiB, reserved FETH bits, junk after the RETH, a FETH
     * cut short; ATOMIC WRITE unaligned, of RETH length 16, with 4 bytes,
     * to MR B (no remote write). */
    for (i = 0; i < 16; i++) {
        static const struct rxf bad[16] = {
            { .op = FOP_FLUSH, .k = 1, .len = 64, .syn = 0x01 },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x02 },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x13 },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x10 },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x08 },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x21 },
            { .op = FOP_FLUSH, .v = 0x40, .off = 4, .len = 64, .syn = 0x01 },
            { .op = FOP_FLUSH, .len = 0, .lsel = 0xc0, .syn = 0x01 },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x01, .msn = 0xabcd,
              .mut = FR_FETH_RSVD },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x01, .pay = PAY_BIG(1) },
            { .op = FOP_FLUSH, .len = 64, .syn = 0x01, .mut = 0x01,
              .mutv = { 54, 0, 0x1c } },
            { .op = FOP_ATOMIC_WRITE, .off = 4, .len = 8, .pay = PAY_N(8) },
            { .op = FOP_ATOMIC_WRITE, .len = 16, .pay = PAY_N(16) },
            { .op = FOP_ATOMIC_WRITE, .len = 8, .pay = PAY_N(4) },
            { .op = FOP_ATOMIC_WRITE, .k = 1, .len = 8, .pay = PAY_N(8) },
            { .op = FOP_ATOMIC_WRITE, .v = 0x40, .off = 4, .len = 8,
              .pay = PAY_N(8) },
        };
        static const char *names[16] = {
            "flush-no-right", "flush-persistent", "flush-both-types",
            "flush-type-0", "flush-type-reserved", "flush-level-2",
            "flush-out-of-bounds", "flush-over-2g", "flush-feth-reserved",
            "flush-junk", "flush-opcode-on-send-psn", "aw-unaligned",
            "aw-reth-16", "aw-4-bytes", "aw-no-right", "aw-past-end",
        };

        w_head(&w, 2, F_PEER_LIVE, 0x3f);
        w_recv(&w, 0, 1, 0, 0, 64);
        w_frame(&w, bad[i]);
        w_frame(&w, F(.op = QRNIC_OP_SEND_ONLY, .fl = FL_ACKREQ,
                      .pay = PAY_N(4)));
        RUN(&w, 31, 255);
        emit(names[i], &w);
    }

    /* QP A's rights: without remote write an ATOMIC WRITE is refused, a
     * FLUSH is not; without FLUSH_GLOBAL a FLUSH is refused. */
    for (i = 0; i < 2; i++) {
        w_head(&w, 2, 0, 0x3f);
        QPCTL(&w, 3, i ? 0x0e : 0x05);
        w_frame(&w, F(.op = FOP_FLUSH, .len = 64, .syn = 0x01));
        w_frame(&w, F(.op = FOP_ATOMIC_WRITE, .len = 8, .pay = PAY_N(8)));
        emit(i ? "flush-qp-no-right" : "aw-qp-no-write", &w);
    }

    /* Every responder resource of QP A busy (8 READs whose replies wait):
     * the FLUSH behind them gets an invalid request NAK. */
    w_head(&w, 2, 0, 0x3f);
    for (i = 0; i < 8; i++) {
        w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .off = (uint16_t)(i * 64),
                      .len = 64));
    }
    w_frame(&w, F(.op = FOP_FLUSH, .len = 64, .syn = 0x01));
    BH(&w);
    emit("flush-no-rd-slot", &w);

    /* QP B: no responder resources (max_dest_rd_atomic 0), remote read
     * only; with one resource a FLUSH behind a READ whose reply waits. */
    w_head(&w, 2, 0, 0x3f);
    w_frame(&w, F(.op = FOP_FLUSH, .q = 2, .len = 64, .syn = 0x01));
    emit("qpb-flush-no-resources", &w);
    w_head(&w, 2, F_QPB_RD, 0x3f);
    w_frame(&w, F(.op = QRNIC_OP_READ_REQ, .q = 2, .k = 1, .len = 100));
    w_frame(&w, F(.op = FOP_FLUSH, .q = 2, .len = 64, .syn = 0x01));
    w_frame(&w, F(.op = FOP_ATOMIC_WRITE, .q = 2, .len = 8,
                  .pay = PAY_N(8)));
    BH(&w);
    emit("qpb-read-then-flush", &w);

    /* The completer: QP A's FLUSH (range, MR level) and ATOMIC WRITE
     * answered by empty READ RESPONSE ONLYs (one twice), an ATOMIC ACK
     * to the ATOMIC WRITE first (ignored). */
    w_head(&w, 2, 0, 0x3f);
    w_send(&w, 7, 0x10, 4096, 0, 64);
    w_send(&w, 7, 0x50, 0, 0, 0);
    w_send(&w, 8, 0x00, 8, 0, 8);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_ONLY, .dpsn = -4, .syn = 0x1f,
                  .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_ATOMIC_ACK, .dpsn = -2, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_ONLY, .dpsn = -3, .syn = 0x1f,
                  .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_ONLY, .dpsn = -3, .syn = 0x1f,
                  .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_ONLY, .dpsn = -2, .syn = 0x1f,
                  .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    emit("completer-flush-aw", &w);

    /* Bad answers: a NAK syndrome in the response (ignored), data in it
     * (BAD_RESP_ERR), a READ RESPONSE FIRST, an ACK past the FLUSH (its
     * answer lost: asked again), a remote access NAK; invalid WQEs (type
     * 0, an unaligned ATOMIC WRITE). */
    w_head(&w, 2, 0, 0x09);
    w_send(&w, 7, 0x10, 100, 0, 0);
    w_send(&w, QRNIC_WR_SEND, 0, 10, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_ONLY, .dpsn = -2, .syn = 0x62,
                  .pay = PAY_N(0)));
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_FIRST, .dpsn = -2, .syn = 0x1f));
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x1f));
    BH(&w);
    TIME(&w, 40);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_READ_RESP_ONLY, .dpsn = -2, .syn = 0x1f,
                  .pay = PAY_N(4)));
    TIME(&w, 40);
    emit("completer-flush-bad-answers", &w);
    w_head(&w, 2, 0, 0x09);
    w_send(&w, 8, 0x40, 8, 0, 0);
    w_send(&w, 7, 0x20, 100, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -2, .syn = 0x61));
    w_send(&w, 7, 0x00, 100, 0, 0);
    BH(&w);
    QPCTL(&w, 0, 0);
    w_send(&w, 7, 0x30, 100, 0, 0);
    BH(&w);
    w_frame(&w, F(.op = QRNIC_OP_ACK, .dpsn = -1, .syn = 0x62));
    TIME(&w, 40);
    emit("completer-flush-aw-naks", &w);
    keys_seeds(emit);

    /* A multi-packet SEND and a WRITE through a device that loses,
     * reorders and corrupts frames (node 0 duplicates), with the peer
     * live; then every frame held back until the next; then all lost. */
    for (i = 0; i < 3; i++) {
        static const uint8_t sel[3] = {
            FZ_FAULT_DROP | FZ_FAULT_DUP | FZ_FAULT_REORDER | FZ_FAULT_CORRUPT,
            FZ_FAULT_ALL | FZ_FAULT_REORDER,
            FZ_FAULT_ALL | FZ_FAULT_DROP | FZ_FAULT_DUP,
        };
        static const char *names[3] = { "faults-send-write",
                                        "faults-reorder-all",
                                        "faults-drop-all" };

        w_head(&w, 2, (uint8_t)(F_PEER_LIVE | sel[i] << F_FAULT_SHIFT), 0x3f);
        w_recv(&w, 0, 3, 0, 0, 1000);
        w_frame(&w, F(.op = QRNIC_OP_SEND_FIRST, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_SEND_MIDDLE, .pay = PAY_MTU));
        w_frame(&w, F(.op = QRNIC_OP_SEND_LAST_IMM, .fl = FL_ACKREQ | FL_SE,
                      .pay = PAY_N(10)));
        w_frame(&w, F(.op = QRNIC_OP_WRITE_ONLY, .fl = FL_ACKREQ, .off = 64,
                      .len = 40, .pay = PAY_N(40)));
        w_send(&w, QRNIC_WR_RDMA_WRITE, 0, 3000, 0, 0);
        RUN(&w, 31, 255);
        TIME(&w, 30);
        RUN(&w, 31, 255);
        emit(names[i], &w);
    }
    xrc_seeds(emit);
}
