/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QRNIC_WR_LIST, the one list of send opcodes, checked as a table (each
 * row's columns agree with each other, the device advertises its
 * capability, no other opcode is known) and against the engine: every
 * row is posted on an RC, a UC and a UD QP.  Where the row allows the QP
 * type the WQE is not refused as a bad opcode, elsewhere it completes
 * with LOC_QP_OP_ERR and vendor error BAD_OPCODE; connected QPs report
 * the row's CQE opcode either way (UD completions are SENDs).  A
 * kernel-only opcode posted on a user context's QP is refused too.  The
 * driver and the provider read the same rows (qrnic_wr_info()).
 */
#include <string.h>
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MR_BYTES (64u << 10)
#define QKEY 0x11223344u

struct row {
    const char *name;
    unsigned int value;
    unsigned int enum_value;        /* QRNIC_WR_<NAME> */
    struct qrnic_wr_info info;
};

#define ROW(name, value, qpts, cqe, wr_props, cap)                     \
    { #name, value, QRNIC_WR_##name,                                  \
      { QRNIC_WR_PROPS wr_props, QRNIC_WR_TYPES qpts,                 \
        QRNIC_CQE_OP_##cqe, QRNIC_CAP0_##cap } },

static const struct row rows[] = {
    QRNIC_WR_LIST(ROW)
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const uint8_t qp_types[] = { QRNIC_QPT_RC, QRNIC_QPT_UC, QRNIC_QPT_UD };
static const char *const qp_type_names[] = { "RC", "UC", "UD" };

static struct pair p;

static bool has(uint16_t props, uint16_t bits)
{
    return (props & bits) == bits;
}

/* The properties of a row that cannot go together, as a reason or NULL. */
static const char *props_conflict(const struct qrnic_wr_info *i)
{
    uint16_t pr = i->props;

    if ((pr & QRNIC_WR_P_LOCAL) &&
        (pr & (QRNIC_WR_P_SGL | QRNIC_WR_P_DATA | QRNIC_WR_P_RESPONSE))) {
        return "a local opcode moves data";
    }
    if ((pr & (QRNIC_WR_P_DATA | QRNIC_WR_P_ATOMIC)) &&
        !(pr & QRNIC_WR_P_SGL)) {
        return "data without SGEs";
    }
    if ((pr & (QRNIC_WR_P_IMM | QRNIC_WR_P_SEND)) &&
        !(pr & QRNIC_WR_P_DATA)) {
        return "immediate or SEND without data";
    }
    if ((pr & QRNIC_WR_P_INV) && !(pr & QRNIC_WR_P_SEND)) {
        return "an invalidation that is not a SEND";
    }
    if ((pr & QRNIC_WR_P_ATOMIC) && !(pr & QRNIC_WR_P_RESPONSE)) {
        return "an atomic without a response";
    }
    if ((pr & QRNIC_WR_P_KERNEL) && !(pr & QRNIC_WR_P_LOCAL)) {
        return "kernel only but on the wire";
    }
    if ((pr & (QRNIC_WR_P_RESPONSE | QRNIC_WR_P_INV)) &&
        (i->qp_types & ~(QRNIC_WR_QPT_RC | QRNIC_WR_QPT_XRC))) {
        return "a response or invalidation outside RC and XRC";
    }
    if ((i->qp_types & QRNIC_WR_QPT_XRC) && !(i->qp_types & QRNIC_WR_QPT_RC)) {
        return "XRC takes it but RC does not";
    }
    if ((i->qp_types & QRNIC_WR_QPT_UD) &&
        !has(pr, QRNIC_WR_P_DATA | QRNIC_WR_P_SEND)) {
        return "UD takes it but it is no SEND";
    }
    return NULL;
}

static void test_rows(void)
{
    uint32_t cap0 = qf_reg_read(&nodes[0].d, QRNIC_REG_CAP0);
    const uint16_t all = QRNIC_WR_QPT_RC | QRNIC_WR_QPT_UC | QRNIC_WR_QPT_UD |
                         QRNIC_WR_QPT_XRC;
    unsigned int v, known = 0;
    size_t r, s;

    for (r = 0; r < NROWS; r++) {
        const struct row *w = &rows[r];
        struct qrnic_wr_info i = qrnic_wr_info(w->value);
        const char *why = props_conflict(&w->info);
        bool dup = false;

        for (s = 0; s < r; s++) {
            dup |= rows[s].value == w->value;
        }
        CHECK(w->enum_value == w->value && w->value < 256 && !dup,
              "WR %s: QRNIC_WR_%s is its value 0x%x, one row", w->name,
              w->name, w->value);
        CHECK(i.props == w->info.props && i.qp_types == w->info.qp_types &&
              i.cqe_opcode == w->info.cqe_opcode && i.cap0 == w->info.cap0,
              "WR %s: qrnic_wr_info() returns its row", w->name);
        CHECK(w->info.qp_types && !(w->info.qp_types & ~all),
              "WR %s: QP types 0x%x, some of RC, UC, UD, XRC", w->name,
              w->info.qp_types);
        CHECK(!why, "WR %s: properties 0x%x agree%s%s", w->name,
              w->info.props, why ? ": " : "", why ? why : "");
        CHECK((cap0 & w->info.cap0) == w->info.cap0,
              "WR %s: the device advertises its capability 0x%x", w->name,
              w->info.cap0);
    }
    for (v = 0; v < 256; v++) {
        known += qrnic_wr_info(v).qp_types != 0;
    }
    CHECK_EQ(known, NROWS, "qrnic_wr_info() knows the %zu rows' opcodes "
             "and no other", NROWS);
}

/* A QP of this type on node n, in the given context's CQ, ready to send. */
static struct hqp *new_qp(int n, uint8_t type, struct hcq *cq)
{
    uint8_t st;

    return node_create_qp_type(&nodes[n], type, cq, cq, 6, 7, 6, 5, &st);
}

static bool bring_up(struct hqp *a, struct hqp *b, uint8_t type)
{
    switch (type) {
    case QRNIC_QPT_RC:
        return qp_connect(a, b, 3, 10, 3, 0, 1) &&
               qp_connect(b, a, 3, 10, 3, 0, 1);
    case QRNIC_QPT_UC:
        return !qp_connect_uc(a, b) && !qp_connect_uc(b, a);
    default:
        return !qp_up_ud(a, QKEY, false) && !qp_up_ud(b, QKEY, false);
    }
}

/* The completion of qp's WQE on cq; status 0xff if none came. */
static struct hwc wait_wc(struct hcq *cq, const struct hqp *qp)
{
    struct hwc wc;

    while (harness_wait_cqe(cq, &wc, now_ns + 200 * MS)) {
        if (wc.qpn == qp->qpn && (wc.flags & QRNIC_CQE_F_SEND)) {
            return wc;
        }
    }
    memset(&wc, 0xff, sizeof(wc));
    return wc;
}

/*
 * Post the row's opcode on a, from node 0's MR to node 1's (to av for UD), with arguments it can take: 8 bytes, aligned, a FLUSH type.
 */
static void post_row(struct hqp *a, const struct row *w,
                     const struct qrnic_ud_av *av)
{
    struct hwr wr = mkwr(w->value, (uint8_t)w->value, p.mr[0]->iova, 8,
                         p.mr[0]->key);
    uint8_t *slot;

    wr.remote_addr = p.mr[1]->iova;
    wr.rkey = p.mr[1]->key;
    wr.compare_add = 1;
    wr.ud = av;
    if (!(w->info.props & QRNIC_WR_P_SGL)) {
        wr.num_sge = 0;
    }
    qp_post_send(a, &wr, false);
    slot = nodes[0].d.qmem + a->sq_off +
           ((uint32_t)((a->sq_pi - 1) & ((1u << a->log_sq) - 1)) <<
            a->log_ss);
    if (w->value == QRNIC_WR_FLUSH) {
        slot[offsetof(struct qrnic_sq_wqe, flush.type)] = QRNIC_FLUSH_GLOBAL;
    }
    qp_ring_sq(a);
}

static void test_engine(void)
{
    struct hsge rsge;
    size_t r, t;

    for (r = 0; r < NROWS; r++) {
        const struct row *w = &rows[r];

        for (t = 0; t < sizeof(qp_types); t++) {
            uint8_t type = qp_types[t];
            bool allowed = w->info.qp_types & QRNIC_WR_QPT(type);
            struct hqp *a = new_qp(0, type, p.cq[0]);
            struct hqp *b = new_qp(1, type, p.cq[1]);
            struct qrnic_ud_av av;
            struct hwc wc;
            bool op_ok;

            if (!a || !b || !bring_up(a, b, type)) {
                CHECK(0, "WR %s on %s: QPs up", w->name, qp_type_names[t]);
                continue;
            }
            av = node_av(1, b->qpn, QKEY);
            rsge.addr = p.mr[1]->iova + 4096;
            rsge.len = 4096;
            rsge.lkey = p.mr[1]->key;
            qp_post_recv(b, 1, &rsge, 1, true);
            post_row(a, w, &av);
            wc = wait_wc(p.cq[0], a);
            op_ok = type == QRNIC_QPT_UD ? wc.opcode == QRNIC_CQE_OP_SEND :
                                           wc.opcode == w->info.cqe_opcode;
            if (allowed) {
                CHECK(wc.status != 0xff &&
                      wc.vendor_err != QRNIC_VERR_BAD_OPCODE && op_ok,
                      "WR %s on %s: taken (status %u, vendor error %u, "
                      "CQE opcode %u)", w->name, qp_type_names[t],
                      wc.status, wc.vendor_err, wc.opcode);
            } else {
                CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
                      wc.vendor_err == QRNIC_VERR_BAD_OPCODE && op_ok,
                      "WR %s on %s: refused as a bad opcode (status %u, "
                      "vendor error %u, CQE opcode %u)", w->name,
                      qp_type_names[t], wc.status, wc.vendor_err,
                      wc.opcode);
            }
            while (cq_poll(p.cq[1], &wc)) {
            }
        }
    }
}

/* Opcodes only kernel QPs may post, on a user context's RC QP. */
static void test_kernel_only(void)
{
    size_t r;

    for (r = 0; r < NROWS; r++) {
        const struct row *w = &rows[r];
        struct hcq *cq;
        struct hqp *a, *b;
        struct hwc wc;

        if (!(w->info.props & QRNIC_WR_P_KERNEL)) {
            continue;
        }
        CHECK(!node_use_uctx(&nodes[0]), "a user context on node 0");
        cq = node_create_cq(&nodes[0], 6);
        a = new_qp(0, QRNIC_QPT_RC, cq);
        node_use_kernel(&nodes[0]);
        b = new_qp(1, QRNIC_QPT_RC, p.cq[1]);
        if (!cq || !a || !b || !bring_up(a, b, QRNIC_QPT_RC)) {
            CHECK(0, "WR %s: user QP up", w->name);
            continue;
        }
        post_row(a, w, NULL);
        wc = wait_wc(cq, a);
        CHECK(wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
              wc.vendor_err == QRNIC_VERR_BAD_OPCODE,
              "WR %s on a user context's QP: refused as a bad opcode "
              "(status %u, vendor error %u)", w->name, wc.status,
              wc.vendor_err);
    }
}

int main(void)
{
    CHECK(pair_setup(&p, 27, 3, 10, 3, 0, 1, MR_BYTES), "two nodes");
    test_rows();
    test_engine();
    test_kernel_only();
    harness_fini();
    return TAP_DONE();
}
