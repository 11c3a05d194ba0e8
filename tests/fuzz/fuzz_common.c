/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the engine fuzz targets; see fuzz_common.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "qrnic_hw.h"
#include "qrnic_le.h"
#include "qrnic_rdma.h"
#include "qrnic_roce.h"
#include "rc_harness.h"

uint8_t fz_u8(struct fz *f)
{
    if (!f->n) {
        return 0;
    }
    f->n--;
    return *f->p++;
}

uint16_t fz_u16(struct fz *f)
{
    uint16_t lo = fz_u8(f);

    return (uint16_t)(lo | fz_u8(f) << 8);
}

uint32_t fz_u32(struct fz *f)
{
    uint32_t lo = fz_u16(f);

    return lo | (uint32_t)fz_u16(f) << 16;
}

uint64_t fz_u64(struct fz *f)
{
    uint64_t lo = fz_u32(f);

    return lo | (uint64_t)fz_u32(f) << 32;
}

void fz_bytes(struct fz *f, void *buf, size_t len)
{
    size_t n = len < f->n ? len : f->n;

    memcpy(buf, f->p, n);
    memset((uint8_t *)buf + n, 0, len - n);
    f->p += n;
    f->n -= n;
}

void fzw_u8(struct fzw *w, uint8_t v)
{
    if (w->n == sizeof(w->b)) {
        fz_fail("seed longer than %zu bytes", sizeof(w->b));
    }
    w->b[w->n++] = v;
}

void fzw_u16(struct fzw *w, uint16_t v)
{
    fzw_u8(w, (uint8_t)v);
    fzw_u8(w, (uint8_t)(v >> 8));
}

void fzw_u32(struct fzw *w, uint32_t v)
{
    fzw_u16(w, (uint16_t)v);
    fzw_u16(w, (uint16_t)(v >> 16));
}

void fzw_u64(struct fzw *w, uint64_t v)
{
    fzw_u32(w, (uint32_t)v);
    fzw_u32(w, (uint32_t)(v >> 32));
}

void fzw_bytes(struct fzw *w, const void *buf, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        fzw_u8(w, ((const uint8_t *)buf)[i]);
    }
}

void fzw_fill(struct fzw *w, uint8_t v, size_t len)
{
    while (len--) {
        fzw_u8(w, v);
    }
}

static size_t l3_off(const struct fz_l3 *l3)
{
    return 14 + (l3->vlan ? 4 : 0);
}

static size_t l4_off(const struct fz_l3 *l3)
{
    return l3_off(l3) + (l3->ipv6 ? 40 : 20);
}

size_t fz_roce_begin(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
                     const struct fz_l3 *l3)
{
    size_t ip = l3_off(l3), udp = l4_off(l3);

    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    if (l3->vlan) {
        qrnic_st16_be(f + 12, QRNIC_ETH_P_8021Q);
        qrnic_st16_be(f + 14, 5);
    }
    qrnic_st16_be(f + ip - 2, l3->ipv6 ? QRNIC_ETH_P_IPV6 : QRNIC_ETH_P_IPV4);
    memset(f + ip, 0, udp - ip);
    if (l3->ipv6) {
        f[ip] = 0x60;
        f[ip + 6] = QRNIC_IPPROTO_UDP;
        f[ip + 7] = 64;
        memcpy(f + ip + 8, l3->sgid, 16);
        memcpy(f + ip + 24, l3->dgid, 16);
    } else {
        f[ip] = 0x45;
        qrnic_st16_be(f + ip + 6, 0x4000);      /* DF */
        f[ip + 8] = 64;
        f[ip + 9] = QRNIC_IPPROTO_UDP;
        memcpy(f + ip + 12, l3->sgid + 12, 4);
        memcpy(f + ip + 16, l3->dgid + 12, 4);
    }
    qrnic_st16_be(f + udp, 0xc000);
    qrnic_st16_be(f + udp + 2, QRNIC_ROCE_UDP_PORT);
    qrnic_st32_be(f + udp + 4, 0);
    return udp + 8;
}

void fz_icrc_fix(uint8_t *f, size_t len)
{
    struct qrnic_roce_pkt pkt;

    if (qrnic_roce_parse(f, len, &pkt)) {
        qrnic_st32(f + pkt.end - QRNIC_ICRC_LEN, qrnic_icrc_compute(f, &pkt));
    }
}

size_t fz_roce_finish(uint8_t *f, size_t len, const struct fz_l3 *l3,
                      bool fix_icrc)
{
    size_t ip = l3_off(l3), udp = l4_off(l3), end = len + QRNIC_ICRC_LEN;

    if (l3->ipv6) {
        qrnic_st16_be(f + ip + 4, (uint16_t)(end - udp));
    } else {
        qrnic_st16_be(f + ip + 2, (uint16_t)(end - ip));
    }
    qrnic_st16_be(f + udp + 4, (uint16_t)(end - udp));
    qrnic_st32(f + len, 0);
    if (fix_icrc) {
        fz_icrc_fix(f, end);
    }
    return end;
}

void fz_v6_gid(int idx, uint8_t *gid)
{
    static const uint8_t v6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                    0x50, 0x54, 0x00, 0xff, 0xfe, 0, 0, 0 };

    memcpy(gid, v6, 16);
    gid[15] = (uint8_t)(idx + 1);
}

uint8_t fz_add_v6_gid(struct node *n)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ADD_GID);

    c.add_gid.index = 1;
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    fz_v6_gid(n->idx, c.add_gid.gid);
    return node_cmd(n, &c, NULL);
}

uint8_t fz_ud_up(struct hqp *qp, uint32_t qkey, bool gsi, uint8_t state)
{
    return qp_up_ud_to(qp, qkey, gsi, state, qkey & 0xffffff);
}

uint8_t fz_uc_connect(struct hqp *qp, const struct hqp *peer,
                      uint8_t path_mtu)
{
    return qp_connect_uc_psn(qp, peer, path_mtu,
                             (0x7654 + peer->qpn * 1000) & 0xffffff,
                             (0x7654 + qp->qpn * 1000) & 0xffffff);
}

uint8_t fz_srq_destroy(struct hsrq *srq)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_SRQ);

    c.destroy_srq.srqn = srq->srqn;
    return node_cmd(srq->n, &c, NULL);
}

uint8_t fz_xrc_srq_create(struct hsrq *srq, uint32_t xrcd,
                          const struct hcq *cq)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_SRQ);

    c.create_srq.pdn = srq->n->pd;
    c.create_srq.uctx = srq->uctx;
    c.create_srq.offset = srq->off;
    c.create_srq.log_depth = srq->log;
    c.create_srq.log_stride = srq->log_stride;
    c.create_srq.xrcd = xrcd;
    c.create_srq.cqn = cq->cqn;
    srq->pi = 0;
    return node_cmd(srq->n, &c, &srq->srqn);
}

/* ---- SRQ bookkeeping ----------------------------------------------------- */

static struct qrnic_engine *srq_engine(const struct fz_srq *s)
{
    return &s->srq->n->d.e;
}

static const struct qrnic_srqc *srq_of(const struct fz_srq *s)
{
    const struct qrnic_srqc *q = qrnic_srq_get(srq_engine(s), s->srq->srqn);

    if (!q) {
        fz_fail("SRQ %u is gone", s->srq->srqn);
    }
    return q;
}

static bool srq_done(const struct fz_srq *s, uint16_t idx)
{
    return s->done[idx >> 3] & (1u << (idx & 7));
}

/* Taken by the device: below its take index (no input takes 2^15). */
static bool srq_taken(const struct qrnic_srqc *q, uint16_t idx)
{
    return (uint16_t)(q->ci - 1 - idx) < 0x8000;
}

void fz_srq_init(struct fz_srq *s, struct hsrq *srq, uint32_t limit)
{
    memset(s, 0, sizeof(*s));
    s->srq = srq;
    s->armed = limit;
    s->eq_overflow = srq_engine(s)->stats.eq_overflow;
}

void fz_srq_add_qp(struct fz_srq *s, const struct hqp *qp)
{
    if (s->nqp == FZ_SRQ_QPS) {
        fz_fail("more than %d QPs on an SRQ", FZ_SRQ_QPS);
    }
    s->qpn[s->nqp++] = qp->qpn;
}

bool fz_srq_has_qp(const struct fz_srq *s, uint32_t qpn)
{
    int i;

    for (i = 0; i < s->nqp; i++) {
        if (s->qpn[i] == qpn) {
            return true;
        }
    }
    return false;
}

void fz_srq_cqe(struct fz_srq *s, const struct hwc *wc)
{
    const struct qrnic_srqc *q = srq_of(s);
    uint16_t idx = wc->wqe_idx;

    if (!fz_srq_has_qp(s, wc->qpn)) {
        fz_fail("SRQ %u: receive completion of QP 0x%x, which is not on it",
                q->srqn, wc->qpn);
    }
    if (!(wc->flags & QRNIC_CQE_F_SRQ) || (wc->flags & QRNIC_CQE_F_SEND)) {
        fz_fail("SRQ %u, QP 0x%x: receive completion with flags 0x%x",
                q->srqn, wc->qpn, wc->flags);
    }
    if (!srq_taken(q, idx)) {
        fz_fail("SRQ %u, QP 0x%x: completion of slot %u, the device took "
                "%u", q->srqn, wc->qpn, idx, q->ci);
    }
    if (srq_done(s, idx)) {
        fz_fail("SRQ %u, QP 0x%x: slot %u completed twice", q->srqn,
                wc->qpn, idx);
    }
    s->done[idx >> 3] |= (uint8_t)(1u << (idx & 7));
    s->completed++;
}

/* The WQEs the SRQ's QPs hold: taken, not completed, one QP each. */
static void srq_held(const struct fz_srq *s, const struct qrnic_srqc *q)
{
    struct qrnic_engine *e = srq_engine(s);
    int i, j;

    for (i = 0; i < s->nqp; i++) {
        const struct qrnic_qpc *a = qrnic_qp_get(e, s->qpn[i]);

        if (!a || !a->resp.recv_active ||
            (a->type == QRNIC_QPT_XRC_TGT && a->srq != q)) {
            continue;               /* XRC_TGT: another SRQ's WQE */
        }
        if (a->srq != q) {
            fz_fail("QP 0x%x is not on SRQ %u", a->qpn, q->srqn);
        }
        if (!srq_taken(q, a->resp.recv_idx) || srq_done(s, a->resp.recv_idx)) {
            fz_fail("SRQ %u: QP 0x%x holds slot %u (taken up to %u%s)",
                    q->srqn, a->qpn, a->resp.recv_idx, q->ci,
                    srq_done(s, a->resp.recv_idx) ? ", completed" : "");
        }
        for (j = i + 1; j < s->nqp; j++) {
            const struct qrnic_qpc *b = qrnic_qp_get(e, s->qpn[j]);

            if (b && b->resp.recv_active &&
                b->resp.recv_idx == a->resp.recv_idx) {
                fz_fail("SRQ %u: QPs 0x%x and 0x%x both hold slot %u",
                        q->srqn, a->qpn, b->qpn, a->resp.recv_idx);
            }
        }
    }
}

void fz_srq_step(struct fz_srq *s)
{
    struct qrnic_engine *e = srq_engine(s);
    const struct qrnic_srqc *q = srq_of(s);
    uint32_t n = node_async_events(s->srq->n, QRNIC_EVENT_SRQ_LIMIT,
                                   q->srqn);
    uint16_t posted = (uint16_t)(q->pi - q->ci);

    s->events += n;
    if (e->stats.eq_overflow != s->eq_overflow) {
        s->eq_overflow = e->stats.eq_overflow;  /* an event may be lost */
        s->armed = q->limit;
    } else if (n > 1 || (n && !s->armed)) {
        fz_fail("SRQ %u: %u limit events, limit %u armed", q->srqn, n,
                s->armed);
    } else if (n) {
        if (q->limit || posted >= s->armed) {
            fz_fail("SRQ %u: limit event (limit %u) with %u WQEs posted, "
                    "limit now %u", q->srqn, s->armed, posted, q->limit);
        }
        s->armed = 0;
    } else if (q->limit != s->armed) {
        fz_fail("SRQ %u: limit %u without an event, %u armed", q->srqn,
                q->limit, s->armed);
    }
    srq_held(s, q);
}

uint8_t fz_srq_arm(struct fz_srq *s, uint32_t limit)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_MODIFY_SRQ);
    const struct qrnic_srqc *q;
    uint8_t st;

    fz_srq_step(s);
    c.modify_srq.srqn = s->srq->srqn;
    c.modify_srq.limit = limit;
    c.modify_srq.mask = QRNIC_SRQ_MOD_LIMIT;
    st = node_cmd(s->srq->n, &c, NULL);
    q = srq_of(s);
    if ((st == QRNIC_ST_OK) != (limit < (1u << q->log_depth))) {
        fz_fail("SRQ %u of depth %u: MODIFY_SRQ limit %u: status %u",
                q->srqn, 1u << q->log_depth, limit, st);
    }
    /* Its bottom half may have taken WQEs, before or after the command. */
    s->events += node_async_events(s->srq->n, QRNIC_EVENT_SRQ_LIMIT,
                                   q->srqn);
    s->eq_overflow = srq_engine(s)->stats.eq_overflow;
    s->armed = q->limit;
    return st;
}

uint8_t fz_srq_query(struct fz_srq *s)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_QUERY_SRQ);
    uint32_t before = srq_of(s)->limit, r0 = 0;
    uint8_t st;

    c.query_srq.srqn = s->srq->srqn;
    st = node_cmd(s->srq->n, &c, &r0);
    if (st != QRNIC_ST_OK || (r0 != before && r0 != srq_of(s)->limit)) {
        fz_fail("SRQ %u: QUERY_SRQ status %u, limit %u (armed %u, now %u)",
                s->srq->srqn, st, r0, before, srq_of(s)->limit);
    }
    return st;
}

void fz_srq_check_idle(const struct fz_srq *s)
{
    struct qrnic_engine *e = srq_engine(s);
    const struct qrnic_srqc *q = srq_of(s);
    uint32_t held = 0, pending = 0;
    uint16_t idx;
    int i;

    srq_held(s, q);                 /* each held one taken, open, once */
    for (i = 0; i < s->nqp; i++) {
        const struct qrnic_qpc *a = qrnic_qp_get(e, s->qpn[i]);

        if (a && a->resp.recv_active && a->srq == q) {
            if (a->state == QRNIC_QPS_ERR) {
                fz_fail("SRQ %u: QP 0x%x in ERR still holds slot %u",
                        q->srqn, a->qpn, a->resp.recv_idx);
            }
            held++;
        }
    }
    for (idx = 0; idx != q->ci; idx++) {
        pending += !srq_done(s, idx);
    }
    if (pending != held) {
        fz_fail("SRQ %u: %u WQEs taken (up to %u) and not completed, %u "
                "held by its QPs", q->srqn, pending, q->ci, held);
    }
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", fuzz_target_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    abort();
}

/* ---- fault injection ------------------------------------------------------ */

void fz_faults(struct qrnic_engine *e, uint8_t sel)
{
    uint32_t ppm = sel & FZ_FAULT_ALL ? QRNIC_FAULT_PPM_MAX : 200000;
    struct qrnic_fault_cfg c = {
        .drop_ppm = sel & FZ_FAULT_DROP ? ppm : 0,
        .dup_ppm = sel & FZ_FAULT_DUP ? ppm : 0,
        .reorder_ppm = sel & FZ_FAULT_REORDER ? ppm : 0,
        .corrupt_ppm = sel & FZ_FAULT_CORRUPT ? ppm : 0,
        .seed = sel,
    };

    if (qrnic_engine_set_fault(e, &c)) {
        fz_fail("fault rates refused");
    }
}
