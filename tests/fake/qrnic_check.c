/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the invariants every entry point leaves behind.  Tests and
 * fuzz targets call qrnic_engine_check() after each step, so a guest or a
 * frame that breaks one is caught where it happens, not later as a wild
 * access.
 */
#include <string.h>
#include "qrnic_check.h"
#include "qrnic_rdma.h"

/* A producer at most a ring ahead of its consumer. */
static bool ring_ok(uint16_t pi, uint16_t ci, uint8_t log_depth)
{
    return (uint16_t)(pi - ci) <= (1u << log_depth);
}

/* A live object's PD: allocated, and counting at least one user. */
static bool pd_used(const struct qrnic_engine *e, uint32_t pdn)
{
    const struct qrnic_pdc *pd = qrnic_pd_get(e, pdn);

    return pd && pd->users > 0;
}

static bool qp_live(const struct qrnic_engine *e, const struct qrnic_qpc *qp)
{
    return qrnic_table_get(&e->obj[QRNIC_OBJ_QP], qp->idx) == qp;
}

static const char *check_sq(const struct qrnic_qpc *qp)
{
    uint16_t started = qp->req.sq_head - qp->req.sq_tail;
    const struct qrnic_swqe *s;

    if (!ring_ok(qp->req.sq_pi, qp->req.sq_tail, qp->log_sq) ||
        started > (uint16_t)(qp->req.sq_pi - qp->req.sq_tail)) {
        return "QP: SQ head outside tail..producer";
    }
    if ((uint16_t)(qp->req.sq_cur - qp->req.sq_tail) > started) {
        return "QP: SQ cursor outside tail..head";
    }
    if (qp->req.rd_inflight > started ||
        qp->req.rd_inflight > QRNIC_MAX_RD_ATOMIC) {
        return "QP: more READ/atomic in flight than started";
    }
    if (psn_diff(qp->req.next_psn, qp->comp.una_psn) < 0) {
        return "QP: oldest unacknowledged PSN past the next new one";
    }
    if (qp->req.sq_cur == qp->req.sq_head || qp->req.req_error) {
        return NULL;
    }
    s = &qp->req.swq[qp->req.sq_cur & ((1u << qp->log_sq) - 1)];
    if (psn_diff(qp->req.tx_psn, s->first_psn) < 0 ||
        psn_diff(qp->req.tx_psn, psn_add(s->first_psn, s->npkts)) > 0) {
        return "QP: transmit PSN outside the cursor's WQE";
    }
    return NULL;
}

/*
 * An XRC_TGT QP holds no PD or CQ but those of the SRQ it borrows, and
 * counts against a context that exists (or the kernel).
 */
static const char *check_xrc_tgt(const struct qrnic_engine *e,
                                 const struct qrnic_qpc *qp)
{
    if (qp->scq || !qp->xrcd || (qp->uctx && !e->uctx[qp->uctx].valid)) {
        return "XRC_TGT: a send CQ, no domain or a context that is gone";
    }
    if (!qp->srq) {
        return qp->pdn || qp->rcq || qp->resp.recv_active ?
               "XRC_TGT: a PD, CQ or receive WQE without an SRQ" : NULL;
    }
    if (qp->srq->xrcd != qp->xrcd || qp->rcq != qp->srq->cq ||
        qp->pdn != qp->srq->pdn) {
        return "XRC_TGT: its SRQ is of another domain, or its CQ or PD are "
               "not the SRQ's";
    }
    return NULL;
}

static const char *check_qps(const struct qrnic_engine *e, uint32_t *nmw2)
{
    uint32_t i, ready = 0, inflight = 0;
    const struct qrnic_qpc *qp;

    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_QP], i, qp) {
        const char *why;

        if (qp->idx != i || !qrnic_qp_get((struct qrnic_engine *)e, qp->qpn)) {
            return "QP: table slot and QPN disagree";
        }
        why = qp->type == QRNIC_QPT_XRC_TGT ? check_xrc_tgt(e, qp) : NULL;
        if (why) {
            return why;
        }
        if ((qp->type != QRNIC_QPT_XRC_TGT && !pd_used(e, qp->pdn)) ||
            qp->nmw2 > *nmw2) {
            return "QP: its PD is gone or does not count it, or it counts "
                   "more type 2 windows than are bound";
        }
        *nmw2 -= qp->nmw2;
        if (!ring_ok(qp->resp.rq_pi, qp->resp.rq_ci, qp->log_rq)) {
            return "QP: RQ consumer passed its producer";
        }
        if (qp->srq && (qrnic_srq_get((struct qrnic_engine *)e,
                                      qp->srq->srqn) != qp->srq ||
                        (!qp->srq->nqp && qp->type != QRNIC_QPT_XRC_TGT) ||
                        qp->resp.rq_pi)) {
            return "QP: its SRQ is not live, or it has an RQ as well";
        }
        why = check_sq(qp);
        if (why) {
            return why;
        }
        if (qp->cc_counted &&
            (!qrnic_qp_is_rc(qp) || qp->cc_recovering ||
             (qp->state != QRNIC_QPS_RTS && qp->state != QRNIC_QPS_SQD) ||
             qp->cc_counted != (uint32_t)psn_diff(qp->req.sent_psn,
                                                  qp->comp.una_psn))) {
            return "QP: congestion window counts PSNs it has not in flight";
        }
        if (qrnic_qp_is_rc(qp) &&
            (qp->state == QRNIC_QPS_RTS || qp->state == QRNIC_QPS_SQD) &&
            (e->uctx[qp->uctx].cwnd < QRNIC_MIN_CWND * QRNIC_CWND_ONE ||
             e->uctx[qp->uctx].cwnd >
             QRNIC_ENG_WINDOW_MAX_PKTS * QRNIC_CWND_ONE)) {
            return "QP: its context's window is outside its floor and ceiling";
        }
        inflight += qp->cc_counted;
        if (qp->starved && !qp->cc_counted) {
            return "QP: starved with nothing in flight";
        }
    }
    if (inflight != e->cc.inflight) {
        return "congestion control: packets in flight miscounted";
    }
    if (*nmw2) {
        return "QPs' counts of type 2 windows they bound do not add up";
    }
    for (qp = e->ready_qps.head; qp; qp = qp->ready_next) {
        if (!qp->ready_queued || ++ready > e->obj[QRNIC_OBJ_QP].size ||
            !qp_live(e, qp)) {
            return "ready list holds a QP that is not queued or not live";
        }
    }
    for (qp = e->timed_qps.head, ready = 0; qp; qp = qp->timed_next) {
        if (!qp->timed_queued || ++ready > e->obj[QRNIC_OBJ_QP].size ||
            !qp_live(e, qp)) {
            return "timer list holds a QP that is not queued or not live";
        }
    }
    for (qp = e->cc.waiting.head, ready = 0; qp; qp = qp->cc_next) {
        if (!qp->cc_waiting || ++ready > e->obj[QRNIC_OBJ_QP].size ||
            !qp_live(e, qp) || !qrnic_qp_is_rc(qp)) {
            return "window wait list holds a QP not waiting or not live";
        }
    }
    return NULL;
}

/* A bound window: its region live, valid, of its PD, around it; its QP. */
static const char *check_window(const struct qrnic_engine *e,
                                const struct qrnic_mrc *mw)
{
    const struct qrnic_mrc *mr;
    const struct qrnic_qpc *qp;

    if (!mw->valid) {
        return mw->mr_idx || mw->access || mw->qpn ?
               "key table: an unbound window holds a binding" : NULL;
    }
    mr = qrnic_table_get(&e->obj[QRNIC_OBJ_KEY], mw->mr_idx);
    if (!mr || qrnic_key_is_mw(mr) || !mr->valid || !mr->nmw ||
        mr->pdn != mw->pdn ||
        !mw->length || !qrnic_mr_covers(mr, mw->iova, mw->length) ||
        (mw->access & ~QRNIC_ACCESS_REMOTE)) {
        return "key table: a bound window outside a valid region of its PD";
    }
    if (mw->kind == QRNIC_KEY_MW2) {
        qp = qrnic_qp_get((struct qrnic_engine *)e, mw->qpn);
        if (!qp || qp->pdn != mw->pdn) {
            return "key table: a type 2 window bound by no live QP of its PD";
        }
    } else if (mw->qpn) {
        return "key table: a type 1 window names a QP";
    }
    return NULL;
}

/*
 * The key table: entries where their key says, windows bound as they may
 * be, the regions' counts of windows bound to them (each bound window's
 * region counts it, and they add up), the page addresses reserved (the
 * regions' and the CQs').  Adds the bound type 2 windows to *nmw2.  No
 * array on the stack, no loop over all PDs: this runs after every step,
 * under ASan.
 */
static const char *check_keys(const struct qrnic_engine *e, uint32_t *nmw2)
{
    uint32_t mtt = 0, bound = 0, i;
    const struct qrnic_mrc *mr;
    const struct qrnic_cqc *cq;
    const char *why;

    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_CQ], i, cq) {
        mtt += cq->npages;
    }

    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_KEY], i, mr) {
        if (QRNIC_KEY_INDEX(mr->key) != i || mr->kind > QRNIC_KEY_MW2 ||
            !pd_used(e, mr->pdn) || mr->npages > mr->mtt ||
            (mr->kind == QRNIC_KEY_MR && !mr->valid) ||
            (mr->kind == QRNIC_KEY_FRMR && qrnic_pd_uctx(e, mr->pdn))) {
            return "key table: an entry's key, kind, PD or pages are wrong";
        }
        mtt += mr->mtt;
        if (qrnic_key_is_mw(mr)) {
            why = check_window(e, mr);
            if (why) {
                return why;
            }
            if (mr->valid) {
                bound++;
                *nmw2 += mr->kind == QRNIC_KEY_MW2;
            }
        } else {
            bound -= mr->nmw;
        }
    }
    if (bound) {
        return "key table: the regions' counts of windows do not add up";
    }
    return mtt != e->mtt_used ?
           "key table: page addresses reserved do not add up" : NULL;
}

static void count_key(const struct qrnic_engine *e, const struct qrnic_mrc *mr,
                      uint32_t (*used)[QRNIC_CTX_RES_COUNT])
{
    uint32_t u = qrnic_pd_uctx(e, mr->pdn);

    used[u][qrnic_key_is_mw(mr) ? QRNIC_CTX_MW : QRNIC_CTX_MR]++;
    used[u][QRNIC_CTX_MR_PAGES] += mr->mtt;
}

/* What each context is charged is what it holds. */
static const char *check_uctx(const struct qrnic_engine *e)
{
    uint32_t used[QRNIC_ENG_MAX_DB_PAGES][QRNIC_CTX_RES_COUNT];
    uint32_t users[QRNIC_CTX_RES_COUNT] = { 0 };
    struct qrnic_uctx cc[QRNIC_ENG_MAX_DB_PAGES];
    uint32_t i, k, active = 0, n = e->db_pages;
    const struct qrnic_srqc *srq;
    const struct qrnic_qpc *qp;
    const struct qrnic_cqc *cq;
    const struct qrnic_mrc *mr;
    const struct qrnic_pdc *pd;

    /* Objects name contexts below db_pages (checked when made). */
    memset(used, 0, n * sizeof(used[0]));
    memset(cc, 0, n * sizeof(cc[0]));

    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_PD], i, pd) {
        used[pd->uctx][QRNIC_CTX_PD]++;
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_CQ], i, cq) {
        used[cq->uctx][QRNIC_CTX_CQ]++;
        used[cq->uctx][QRNIC_CTX_MR_PAGES] += cq->npages;
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_QP], i, qp) {
        cc[qp->uctx].cc_inflight += qp->cc_counted;
        cc[qp->uctx].cc_active += qp->cc_counted != 0;
        cc[qp->uctx].cc_starved += qp->starved;
        used[qp->uctx][QRNIC_CTX_QP]++;
        used[qp->uctx][QRNIC_CTX_QMEM_PAGES] += qrnic_qp_qmem_pages(qp);
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_SRQ], i, srq) {
        used[srq->uctx][QRNIC_CTX_SRQ]++;
        used[srq->uctx][QRNIC_CTX_QMEM_PAGES] +=
            qrnic_qmem_pages(srq->log_depth, srq->log_stride);
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_KEY], i, mr) {
        count_key(e, mr, used);
    }
    for (i = 0; i < n; i++) {
        if (cc[i].cc_inflight != e->uctx[i].cc_inflight ||
            cc[i].cc_active != e->uctx[i].cc_active ||
            cc[i].cc_starved != e->uctx[i].cc_starved) {
            return "congestion control: a context's packets, QPs with "
                   "packets or starved QPs miscounted";
        }
        active += cc[i].cc_inflight != 0;
    }
    if (active != e->cc.active_ctx) {
        return "congestion control: contexts with packets miscounted";
    }
    for (i = 1; i < n; i++) {
        for (k = 0; k < QRNIC_CTX_RES_COUNT; k++) {
            if (used[i][k] != e->uctx[i].used[k]) {
                return "user context: what it is charged is not what it holds";
            }
            if (used[i][k] && !e->uctx[i].valid) {
                return "an object of a context that does not exist";
            }
            users[k] += used[i][k];
        }
    }
    if (memcmp(users, e->ctx_users_used, sizeof(users))) {
        return "user contexts: what they are charged together is wrong";
    }
    return NULL;
}

/*
 * Each handle table: its count of objects right, none outside its index
 * range (the GSI QP aside), and in a table that hands out the lowest free
 * index, every index below the search start taken.
 */
static const char *check_tables(const struct qrnic_engine *e)
{
    uint32_t k, i, n, below;

    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        const struct qrnic_table *t = &e->obj[k];

        n = below = 0;
        if (t->next < t->first || t->next > t->size) {
            return "handle table: search start out of range";
        }
        for (i = qrnic_table_next(t, 0); i < t->size;
             i = qrnic_table_next(t, i + 1)) {
            if (i < t->first && !(k == QRNIC_OBJ_QP && i == QRNIC_GSI_QPN)) {
                return "handle table: an object below the first index";
            }
            below += i >= t->first && i < t->next;
            n++;
        }
        if (n != t->used) {
            return "handle table: objects miscounted";
        }
        if (!t->rotate && below != t->next - t->first) {
            return "handle table: a free index below the search start";
        }
    }
    return NULL;
}

const char *qrnic_engine_check(const struct qrnic_engine *e)
{
    const struct qrnic_srqc *srq;
    const struct qrnic_cqc *cq;
    uint32_t i, nmw2 = 0;
    const char *why;

    if (e->depth) {
        return "engine left busy";
    }
    if (e->sched_hold || e->sched_held) {
        return "a doorbell's hold on the work call left behind";
    }
    if (e->backlog_count > QRNIC_ENG_BACKLOG ||
        e->defer_count > QRNIC_ENG_DEFER_MAX) {
        return "backlog or defer queue over its size";
    }
    for (i = 0; i < QRNIC_FAULT_NDIR; i++) {
        if (e->fault.held[i] &&
            (!e->fault.held_len[i] ||
             e->timer_armed > e->fault.held_until[i])) {
            return "a frame held for reordering with no timer to release it";
        }
    }
    if (e->ready &&
        (!ring_ok(e->aq.sq_pi, e->aq.sq_ci, e->aq.log_depth) ||
         !ring_ok(e->aq.cq_pi, e->aq.cq_ci, e->aq.log_depth))) {
        return "admin queue index out of range";
    }
    if (e->eth.active &&
        (!ring_ok(e->eth.tx.pi, e->eth.tx.ci, e->eth.tx.log_depth) ||
         !ring_ok(e->eth.rx.pi, e->eth.rx.ci, e->eth.rx.log_depth))) {
        return "Ethernet ring index out of range";
    }
    for (i = 0; i < QRNIC_ENG_MAX_EQ; i++) {
        const struct qrnic_eq *eq = &e->eq[i];

        if (eq->valid && !ring_ok(eq->ring.pi, eq->ring.ci,
                                  eq->ring.log_depth)) {
            return "EQ producer more than a ring ahead";
        }
        if (!eq->valid && (eq->ring.pi || eq->ring.base || eq->ncq)) {
            return "a free EQ slot holds ring state";
        }
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_CQ], i, cq) {
        /* CQ indexes run in 32 bits. */
        if (cq->cqn != i || cq->pi - cq->ci > (1u << cq->log_depth)) {
            return "CQ slot or index out of range";
        }
    }
    for (i = 0; i < QRNIC_MAX_MCAST_GROUPS; i++) {
        const struct qrnic_mcast_group *g = &e->mcast[i];
        uint32_t k;

        if (g->nqp > QRNIC_MAX_MCAST_QPS) {
            return "multicast group over its size";
        }
        for (k = 0; k < g->nqp; k++) {
            const struct qrnic_qpc *qp =
                qrnic_qp_get((struct qrnic_engine *)e, g->qpn[k]);

            if (!qp || qp->type != QRNIC_QPT_UD) {
                return "multicast group holds a QP that is not a live UD QP";
            }
        }
    }
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_SRQ], i, srq) {
        if (srq->srqn != i || !ring_ok(srq->pi, srq->ci, srq->log_depth) ||
            srq->limit >= (1u << srq->log_depth)) {
            return "SRQ slot, index or limit out of range";
        }
        if (!pd_used(e, srq->pdn)) {
            return "SRQ: its PD is gone or does not count it";
        }
        if (!srq->xrcd != !srq->cq ||
            (srq->cq && (qrnic_cq_get((struct qrnic_engine *)e,
                                      srq->cq->cqn) != srq->cq ||
                         !srq->cq->nqp))) {
            return "SRQ: an XRC SRQ without a live CQ that counts it, or a "
                   "basic one with a CQ";
        }
    }
    why = check_tables(e);
    why = why ? why : check_keys(e, &nmw2);
    why = why ? why : check_uctx(e);
    return why ? why : check_qps(e, &nmw2);
}
