/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: queue pairs as objects - creation in queue memory, the
 * IBTA state machines of RC, UD and GSI QPs (MODIFY_QP / QUERY_QP),
 * doorbells, moving to the error state and flushing.  The transport itself
 * is in qrnic_req.c, qrnic_comp.c and qrnic_resp.c (RC), qrnic_ud.c (UD).
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define QPAGE QRNIC_QMEM_PAGE_SIZE

#define M(x) QRNIC_QP_ATTR_##x
#define RTS_OPT (M(ACCESS_FLAGS) | M(MIN_RNR_TIMER))

struct qrnic_transition {
    uint8_t from;
    uint8_t to;
    uint32_t req;
    uint32_t opt;
};

/* RC transitions: from, to, required and optional attributes. */
static const struct qrnic_transition rc_transitions[] = {
    { QRNIC_QPS_RESET, QRNIC_QPS_INIT,
      M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), 0 },
    { QRNIC_QPS_INIT, QRNIC_QPS_INIT,
      0, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS) },
    { QRNIC_QPS_INIT, QRNIC_QPS_RTR,
      M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
      M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
      M(PKEY_INDEX) | M(ACCESS_FLAGS) },
    { QRNIC_QPS_RTR, QRNIC_QPS_RTS,
      M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) | M(RNR_RETRY) |
      M(MAX_QP_RD_ATOMIC), RTS_OPT },
    { QRNIC_QPS_RTS, QRNIC_QPS_RTS, 0, RTS_OPT },
    { QRNIC_QPS_SQD, QRNIC_QPS_RTS, 0, RTS_OPT },
    { QRNIC_QPS_SQE, QRNIC_QPS_RTS, 0, RTS_OPT },
    { QRNIC_QPS_RTS, QRNIC_QPS_SQD, 0, M(EN_SQD_ASYNC) },
    { QRNIC_QPS_SQD, QRNIC_QPS_SQD, 0,
      RTS_OPT | M(AV) | M(PATH_MTU) | M(TIMEOUT) | M(RETRY_CNT) |
      M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC) |
      M(PKEY_INDEX) },
};

/* UC transitions: RC's without the acknowledgement and READ attributes. */
static const struct qrnic_transition uc_transitions[] = {
    { QRNIC_QPS_RESET, QRNIC_QPS_INIT,
      M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), 0 },
    { QRNIC_QPS_INIT, QRNIC_QPS_INIT,
      0, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS) },
    { QRNIC_QPS_INIT, QRNIC_QPS_RTR,
      M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN),
      M(PKEY_INDEX) | M(ACCESS_FLAGS) },
    { QRNIC_QPS_RTR, QRNIC_QPS_RTS, M(SQ_PSN), M(ACCESS_FLAGS) },
    { QRNIC_QPS_RTS, QRNIC_QPS_RTS, 0, M(ACCESS_FLAGS) },
    { QRNIC_QPS_SQD, QRNIC_QPS_RTS, 0, M(ACCESS_FLAGS) },
    { QRNIC_QPS_SQE, QRNIC_QPS_RTS, 0, M(ACCESS_FLAGS) },
    { QRNIC_QPS_RTS, QRNIC_QPS_SQD, 0, M(EN_SQD_ASYNC) },
    { QRNIC_QPS_SQD, QRNIC_QPS_SQD, 0,
      M(ACCESS_FLAGS) | M(AV) | M(PATH_MTU) | M(PKEY_INDEX) },
};

/* UD transitions; the GSI QP's are the same without PORT (it is port 1). */
static const struct qrnic_transition ud_transitions[] = {
    { QRNIC_QPS_RESET, QRNIC_QPS_INIT, M(PKEY_INDEX) | M(PORT) | M(QKEY), 0 },
    { QRNIC_QPS_INIT, QRNIC_QPS_INIT, 0, M(PKEY_INDEX) | M(PORT) | M(QKEY) },
    { QRNIC_QPS_INIT, QRNIC_QPS_RTR, 0, M(PKEY_INDEX) | M(QKEY) },
    { QRNIC_QPS_RTR, QRNIC_QPS_RTS, M(SQ_PSN), M(QKEY) },
    { QRNIC_QPS_RTS, QRNIC_QPS_RTS, 0, M(QKEY) },
    { QRNIC_QPS_SQD, QRNIC_QPS_RTS, 0, M(QKEY) },
    { QRNIC_QPS_SQE, QRNIC_QPS_RTS, 0, M(QKEY) },
    { QRNIC_QPS_RTS, QRNIC_QPS_SQD, 0, M(EN_SQD_ASYNC) },
    { QRNIC_QPS_SQD, QRNIC_QPS_SQD, 0, M(PKEY_INDEX) | M(QKEY) },
};

/*
 * XRC transitions: RC's less what the QP has no side for.  XRC_INI has no
 * responder (no MAX_DEST_RD_ATOMIC, MIN_RNR_TIMER), XRC_TGT no requester
 * (no RETRY_CNT, RNR_RETRY, MAX_QP_RD_ATOMIC), as Linux's qp_state_table.
 */
#define INI_NOT (M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER))
#define TGT_NOT (M(RETRY_CNT) | M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC))

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* The transition's rule for this QP's type, or NULL if there is none. */
static bool find_transition(const struct qrnic_qpc *qp, uint8_t to,
                            struct qrnic_transition *out)
{
    const struct qrnic_transition *t = rc_transitions;
    size_t i, n = N_ELEMS(rc_transitions);

    if (qrnic_qp_is_ud(qp)) {
        t = ud_transitions;
        n = N_ELEMS(ud_transitions);
    } else if (qp->type == QRNIC_QPT_UC) {
        t = uc_transitions;
        n = N_ELEMS(uc_transitions);
    }
    for (i = 0; i < n; i++) {
        if (t[i].from == qp->state && t[i].to == to) {
            *out = t[i];
            if (qp->type == QRNIC_QPT_GSI) {
                out->req &= ~M(PORT);
                out->opt &= ~M(PORT);
            } else if (qp->type == QRNIC_QPT_XRC_INI) {
                out->req &= ~INI_NOT;
                out->opt &= ~INI_NOT;
            } else if (qp->type == QRNIC_QPT_XRC_TGT) {
                out->req &= ~TGT_NOT;
                out->opt &= ~TGT_NOT;
                if (to == QRNIC_QPS_RTS && qp->state != QRNIC_QPS_RTS) {
                    out->opt |= M(MIN_RNR_TIMER);
                }
            }
            return true;
        }
    }
    return false;
}

struct qrnic_qpc *qrnic_qp_get(struct qrnic_engine *e, uint32_t qpn)
{
    uint32_t idx = qpn & ((1u << e->qpn_idx_bits) - 1);
    struct qrnic_qpc *qp = qrnic_table_get(&e->obj[QRNIC_OBJ_QP], idx);

    return qp && qp->qpn == qpn ? qp : NULL;
}

uint32_t qrnic_qmem_pages(uint8_t log_depth, uint8_t log_stride)
{
    return (uint32_t)(((1ull << (log_depth + log_stride)) + QPAGE - 1) /
                      QPAGE);
}

void qrnic_qp_sq_read(const struct qrnic_engine *e, const struct qrnic_qpc *qp,
                      uint16_t idx, void *buf, size_t len)
{
    uint32_t slot = idx & ((1u << qp->log_sq) - 1);

    qrnic_qmem_read(e, qp->sq_off + ((uint64_t)slot << qp->log_sq_stride),
                    buf, len);
}

uint64_t qrnic_qp_rqe_wr_id(const struct qrnic_engine *e,
                          const struct qrnic_qpc *qp, uint16_t idx)
{
    uint32_t slot = idx & ((1u << qp->log_rq) - 1);
    uint8_t w[8];

    qrnic_qmem_read(e, qp->rq_off + ((uint64_t)slot << qp->log_rq_stride) +
                    offsetof(struct qrnic_rq_wqe, wr_id), w, sizeof(w));
    return qrnic_ld64(w);
}

enum qrnic_vendor_err
qrnic_rqe_read(const struct qrnic_engine *e, uint32_t off,
               uint8_t log_depth, uint8_t log_stride, uint16_t idx,
               uint64_t *wr_id, struct qrnic_sgl *sgl)
{
    uint8_t w[1u << QRNIC_RQ_MAX_LOG_STRIDE];
    uint32_t stride = 1u << log_stride;
    uint32_t max = (stride - sizeof(struct qrnic_rq_wqe)) /
                   sizeof(struct qrnic_sge);
    uint32_t slot = idx & ((1u << log_depth) - 1);
    uint8_t num;

    /* The guest may write the slot meanwhile: decode a private copy. */
    qrnic_qmem_read(e, off + ((uint64_t)slot << log_stride), w, stride);
    *wr_id = qrnic_ld64(w + offsetof(struct qrnic_rq_wqe, wr_id));
    num = w[offsetof(struct qrnic_rq_wqe, num_sge)];
    if (num > max || num > QRNIC_MAX_SGE) {
        sgl->num = 0;
        sgl->total = 0;
        return QRNIC_VERR_BAD_SGE;
    }
    qrnic_sgl_decode(sgl, w + sizeof(struct qrnic_rq_wqe), num);
    return QRNIC_VERR_NONE;
}

/* ---- queue memory ownership ---------------------------------------------- */

bool qrnic_qmem_free_range(const struct qrnic_engine *e, uint32_t off,
                           uint32_t pages)
{
    uint32_t first = off / QPAGE, i;

    if (off % QPAGE || (uint64_t)off + (uint64_t)pages * QPAGE > e->qmem_size) {
        return false;
    }
    for (i = 0; i < pages; i++) {
        if (e->qmem_owner[first + i]) {
            return false;
        }
    }
    return true;
}

static void qmem_own(struct qrnic_engine *e, uint32_t off, uint32_t pages,
                     uint32_t owner)
{
    uint32_t i;

    for (i = 0; i < pages; i++) {
        e->qmem_owner[off / QPAGE + i] = owner;
    }
}

bool qrnic_qmem_claim(struct qrnic_engine *e, uint32_t off, uint32_t pages,
                      uint32_t owner)
{
    if (!qrnic_qmem_free_range(e, off, pages)) {
        return false;
    }
    qmem_own(e, off, pages, owner);
    qrnic_qmem_zero(e, off, (uint64_t)pages * QPAGE);
    return true;
}

void qrnic_qmem_release(struct qrnic_engine *e, uint32_t off, uint32_t pages)
{
    qmem_own(e, off, pages, 0);
    if (e->ops->qmem_discard) {
        e->ops->qmem_discard(e->opaque, off, (uint64_t)pages * QPAGE);
    }
}

/* XRC_TGT has no SQ; XRC_INI and XRC_TGT no RQ; a QP with an SRQ none. */
static bool type_has_sq(uint8_t type)
{
    return type != QRNIC_QPT_XRC_TGT;
}

static bool type_has_rq(uint8_t type)
{
    return type != QRNIC_QPT_XRC_INI && type != QRNIC_QPT_XRC_TGT;
}

static uint32_t sq_pages_of(const struct qrnic_qpc *qp)
{
    return type_has_sq(qp->type) ?
           qrnic_qmem_pages(qp->log_sq, qp->log_sq_stride) : 0;
}

static uint32_t rq_pages_of(const struct qrnic_qpc *qp)
{
    return qp->srq || !type_has_rq(qp->type) ? 0 :
           qrnic_qmem_pages(qp->log_rq, qp->log_rq_stride);
}

uint32_t qrnic_qp_qmem_pages(const struct qrnic_qpc *qp)
{
    return sq_pages_of(qp) + rq_pages_of(qp);
}

/*
 * XRC_INI: RC's requester, no receive side.  XRC_TGT: a domain and the
 * context it counts against, nothing else (see qrnic_hw.h).
 */
static enum qrnic_cmd_status
create_xrc_qp_args(const struct qrnic_cmd *cmd)
{
    uint8_t type = cmd->create_qp.qp_type;
    uint32_t xrcd = qrnic_get32(&cmd->create_qp.xrcd);
    bool no_rq = !qrnic_get32(&cmd->create_qp.recv_cqn) &&
                 !qrnic_get32(&cmd->create_qp.srqn) &&
                 !qrnic_get32(&cmd->create_qp.rq_offset) &&
                 !cmd->create_qp.log_rq_depth && !cmd->create_qp.log_rq_stride;

    if (type == QRNIC_QPT_XRC_INI) {
        return no_rq && !xrcd ? QRNIC_ST_OK : QRNIC_ST_BAD_PARAM;
    }
    if (!no_rq || !xrcd || xrcd > QRNIC_XRCD_MASK ||
        qrnic_get32(&cmd->create_qp.pdn) ||
        qrnic_get32(&cmd->create_qp.send_cqn) ||
        qrnic_get32(&cmd->create_qp.sq_offset) ||
        cmd->create_qp.log_sq_depth || cmd->create_qp.log_sq_stride ||
        cmd->create_qp.flags) {
        return QRNIC_ST_BAD_PARAM;
    }
    return QRNIC_ST_OK;
}

/* ---- CREATE_QP / DESTROY_QP ---------------------------------------------- */

static enum qrnic_cmd_status
create_qp_args(struct qrnic_engine *e, const struct qrnic_cmd *cmd)
{
    uint32_t uctx = qrnic_get32(&cmd->create_qp.uctx);
    uint32_t pdn = qrnic_get32(&cmd->create_qp.pdn);
    uint32_t scqn = qrnic_get32(&cmd->create_qp.send_cqn);
    uint32_t rcqn = qrnic_get32(&cmd->create_qp.recv_cqn);
    struct qrnic_cqc *scq = qrnic_cq_get(e, scqn);
    struct qrnic_cqc *rcq = qrnic_cq_get(e, rcqn);
    uint8_t lsq = cmd->create_qp.log_sq_depth;
    uint8_t lss = cmd->create_qp.log_sq_stride;
    uint8_t lrq = cmd->create_qp.log_rq_depth;
    uint8_t lrs = cmd->create_qp.log_rq_stride;
    uint32_t sq_off = qrnic_get32(&cmd->create_qp.sq_offset);
    uint32_t rq_off = qrnic_get32(&cmd->create_qp.rq_offset);
    uint8_t type = cmd->create_qp.qp_type;
    uint32_t srqn = qrnic_get32(&cmd->create_qp.srqn);
    struct qrnic_srqc *srq = qrnic_srq_get(e, srqn);
    uint32_t sq_pages, rq_pages;
    enum qrnic_cmd_status st;

    if (type == QRNIC_QPT_XRC_INI || type == QRNIC_QPT_XRC_TGT) {
        st = create_xrc_qp_args(cmd);
        if (st != QRNIC_ST_OK) {
            return st;
        }
        rcq = scq;      /* none: the checks below are the send side's */
    }
    if (uctx != 0 && !qrnic_uctx_exists(e, uctx)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (type == QRNIC_QPT_XRC_TGT) {
        return QRNIC_ST_OK;
    }
    if (!qrnic_pd_of(e, pdn, uctx) || !scq || !rcq ||
        scq->uctx != uctx || rcq->uctx != uctx ||
        (srqn && (!srq || srq->uctx != uctx || srq->xrcd))) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (srqn && (type == QRNIC_QPT_GSI || lrq || rq_off)) {
        return QRNIC_ST_BAD_PARAM;      /* an SRQ replaces the RQ */
    }
    if ((type != QRNIC_QPT_RC && type != QRNIC_QPT_UC &&
         type != QRNIC_QPT_UD && type != QRNIC_QPT_GSI &&
         type != QRNIC_QPT_XRC_INI) ||
        (type == QRNIC_QPT_GSI && uctx) ||
        (cmd->create_qp.flags & ~QRNIC_QP_SIG_ALL) ||
        lsq > QRNIC_QP_MAX_LOG || lrq > QRNIC_QP_MAX_LOG ||
        lss < QRNIC_SQ_MIN_LOG_STRIDE || lss > QRNIC_SQ_MAX_LOG_STRIDE ||
        (type_has_rq(type) &&
         (lrs < QRNIC_RQ_MIN_LOG_STRIDE || lrs > QRNIC_RQ_MAX_LOG_STRIDE))) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (!e->qmem) {
        return QRNIC_ST_NO_RESOURCES;
    }
    sq_pages = qrnic_qmem_pages(lsq, lss);
    rq_pages = srqn || !type_has_rq(type) ? 0 : qrnic_qmem_pages(lrq, lrs);
    if ((uint64_t)(sq_pages + rq_pages) * QPAGE > QRNIC_ENG_MAX_QP_QMEM ||
        !qrnic_qmem_free_range(e, sq_off, sq_pages) ||
        !qrnic_qmem_free_range(e, rq_off, rq_pages) ||
        (sq_off < rq_off + rq_pages * QPAGE &&
         rq_off < sq_off + sq_pages * QPAGE)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (type == QRNIC_QPT_GSI &&
        qrnic_table_get(&e->obj[QRNIC_OBJ_QP], QRNIC_GSI_QPN)) {
        return QRNIC_ST_BAD_STATE;      /* one GSI QP per port */
    }
    return QRNIC_ST_OK;
}

/*
 * Count the QP among the users of its CQs, SRQ and PD (n = 1), or no
 * longer (n = -1).  An XRC_INI QP has no receive CQ; an XRC_TGT QP holds
 * nothing (its domain's SRQs are borrowed, see qrnic_xrc_srq_gone).
 */
static void qp_hold(struct qrnic_engine *e, struct qrnic_qpc *qp, int n)
{
    if (qp->type == QRNIC_QPT_XRC_TGT) {
        return;
    }
    qp->scq->nqp += n;
    if (qp->rcq) {
        qp->rcq->nqp += n;
    }
    if (qp->srq) {
        qp->srq->nqp += n;
    }
    qrnic_pd_get(e, qp->pdn)->users += n;
}

/* Puts a new QP in the table (the GSI QP at its index); 0 if full. */
static uint32_t qp_insert(struct qrnic_engine *e, struct qrnic_qpc *qp,
                          uint8_t type)
{
    struct qrnic_table *t = &e->obj[QRNIC_OBJ_QP];

    if (type == QRNIC_QPT_GSI) {
        /* Free: create_qp_args checked. */
        return qrnic_table_insert_at(t, QRNIC_GSI_QPN, qp) ? QRNIC_GSI_QPN : 0;
    }
    return qrnic_table_insert(t, qp);
}

static void qp_reset_state(struct qrnic_qpc *qp);

enum qrnic_cmd_status qrnic_cmd_create_qp(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint8_t type = cmd->create_qp.qp_type;
    uint32_t uctx = qrnic_get32(&cmd->create_qp.uctx);
    struct qrnic_qpc *qp;
    uint32_t idx, pages;
    enum qrnic_cmd_status st;

    st = create_qp_args(e, cmd);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    /* Checked: the logs are in range. */
    pages = 0;
    if (type_has_sq(type)) {
        pages += qrnic_qmem_pages(cmd->create_qp.log_sq_depth,
                                  cmd->create_qp.log_sq_stride);
    }
    if (type_has_rq(type) && !qrnic_get32(&cmd->create_qp.srqn)) {
        pages += qrnic_qmem_pages(cmd->create_qp.log_rq_depth,
                                  cmd->create_qp.log_rq_stride);
    }
    st = qrnic_ctx_charge_obj(e, uctx, QRNIC_CTX_QP, QRNIC_CTX_QMEM_PAGES,
                              pages);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    qp = calloc(1, sizeof(*qp));
    if (qp) {
        qp->log_sq = cmd->create_qp.log_sq_depth;
        qp->req.swq = calloc(1u << qp->log_sq, sizeof(*qp->req.swq));
        qp->resp.rd_res = calloc(QRNIC_MAX_RD_ATOMIC, sizeof(*qp->resp.rd_res));
    }
    idx = qp && qp->req.swq && qp->resp.rd_res ? qp_insert(e, qp, type) : 0;
    if (!idx) {
        if (qp) {
            free(qp->req.swq);
            free(qp->resp.rd_res);
        }
        free(qp);
        qrnic_ctx_uncharge_obj(e, uctx, QRNIC_CTX_QP, QRNIC_CTX_QMEM_PAGES,
                               pages);
        return QRNIC_ST_NO_RESOURCES;
    }
    if (type == QRNIC_QPT_GSI) {
        qp->qpn = QRNIC_GSI_QPN;
    } else {
        struct qrnic_table *t = &e->obj[QRNIC_OBJ_QP];
        uint32_t gen_mask = (1u << (24 - e->qpn_idx_bits)) - 1;
        uint32_t gen = qrnic_table_gen(t, idx) & gen_mask;

        if ((gen << e->qpn_idx_bits | idx) == QRNIC_MCAST_QPN) {
            /* The multicast QPN names no QP: the next generation does. */
            gen = (gen + 1) & gen_mask;
            qrnic_table_set_gen(t, idx, (uint16_t)gen);
        }
        qp->qpn = gen << e->qpn_idx_bits | idx;
    }
    qp->idx = idx;
    qp->type = type;
    qp->uctx = qrnic_get32(&cmd->create_qp.uctx);
    qp->pdn = qrnic_get32(&cmd->create_qp.pdn);
    qp->scq = qrnic_cq_get(e, qrnic_get32(&cmd->create_qp.send_cqn));
    qp->rcq = qrnic_cq_get(e, qrnic_get32(&cmd->create_qp.recv_cqn));
    qp->srq = qrnic_srq_get(e, qrnic_get32(&cmd->create_qp.srqn));
    qp->sig_all = cmd->create_qp.flags & QRNIC_QP_SIG_ALL;
    qp->sq_off = qrnic_get32(&cmd->create_qp.sq_offset);
    qp->rq_off = qrnic_get32(&cmd->create_qp.rq_offset);
    qp->log_sq_stride = cmd->create_qp.log_sq_stride;
    qp->log_rq = cmd->create_qp.log_rq_depth;
    qp->log_rq_stride = cmd->create_qp.log_rq_stride;
    qp->xrcd = qrnic_get32(&cmd->create_qp.xrcd);
    qp_reset_state(qp);
    qrnic_qmem_claim(e, qp->sq_off, sq_pages_of(qp), idx);
    qrnic_qmem_claim(e, qp->rq_off, rq_pages_of(qp), idx);
    qp_hold(e, qp, 1);
    req->result0 = qp->qpn;
    return QRNIC_ST_OK;
}

void qrnic_qp_release(struct qrnic_engine *e, void *obj)
{
    struct qrnic_qpc *qp = obj;

    qrnic_mw_qp_gone(e, qp);
    qrnic_sched_unlink(e, qp);
    qrnic_mcast_detach_qp(e, qp->qpn);
    qrnic_qmem_release(e, qp->sq_off, sq_pages_of(qp));
    qrnic_qmem_release(e, qp->rq_off, rq_pages_of(qp));
    qrnic_ctx_uncharge_obj(e, qp->uctx, QRNIC_CTX_QP, QRNIC_CTX_QMEM_PAGES,
                           qrnic_qp_qmem_pages(qp));
    qp_hold(e, qp, -1);
    qrnic_table_remove(&e->obj[QRNIC_OBJ_QP], qp->idx);
    free(qp->req.swq);
    free(qp->resp.rd_res);
    free(qp);
}

enum qrnic_cmd_status qrnic_cmd_destroy_qp(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_qpc *qp = qrnic_qp_get(e, qrnic_get32(&cmd->destroy_qp.qpn));

    if (!qp) {
        return QRNIC_ST_BAD_HANDLE;
    }
    qrnic_qp_flush_srq_wqe(e, qp);     /* not lost with the QP */
    if (qrnic_qp_is_ud(qp)) {
        /*
         * Datagrams rung before the command go out, as on hardware that
         * fetches WQEs at the doorbell (mckey destroys at once).
         */
        qrnic_ud_work(e, qp, 1u << QRNIC_QP_MAX_LOG);
    }
    qrnic_qp_release(e, qp);
    return QRNIC_ST_OK;
}

/* ---- state --------------------------------------------------------------- */

/* Back to RESET: queues empty, attributes at their defaults. */
static void qp_reset_state(struct qrnic_qpc *qp)
{
    size_t from = offsetof(struct qrnic_qpc, state);
    size_t to = offsetof(struct qrnic_qpc, ready_queued);
    struct qrnic_swqe *swq = qp->req.swq;
    struct qrnic_rd_res *rd_res = qp->resp.rd_res;
    uint32_t sq_off = qp->sq_off, rq_off = qp->rq_off;
    uint8_t lsq = qp->log_sq, lss = qp->log_sq_stride;
    uint8_t lrq = qp->log_rq, lrs = qp->log_rq_stride;
    bool sig_all = qp->sig_all;

    memset((uint8_t *)qp + from, 0, to - from);
    qp->req.swq = swq;
    qp->resp.rd_res = rd_res;
    memset(rd_res, 0, sizeof(*rd_res) * QRNIC_MAX_RD_ATOMIC);
    qp->sq_off = sq_off;
    qp->rq_off = rq_off;
    qp->log_sq = lsq;
    qp->log_sq_stride = lss;
    qp->log_rq = lrq;
    qp->log_rq_stride = lrs;
    qp->sig_all = sig_all;
    qp->state = QRNIC_QPS_RESET;
    qp->attr.port = 1;
    qp->attr.path_mtu = 1;
    qp->attr.mtu = 256;
    qp->attr.hop_limit = 64;
    memset(swq, 0, sizeof(*swq) << lsq);
}

void qrnic_qp_error(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    bool async_event)
{
    if (qp->state == QRNIC_QPS_ERR) {
        return;
    }
    qp->state = QRNIC_QPS_ERR;
    qrnic_cc_update(e, qp);     /* its packets no longer count */
    qp->comp.rto_deadline = 0;
    qp->comp.probe_deadline = 0;
    qp->comp.rnr_deadline = 0;
    qp->comp.rnr_wait = false;
    qrnic_sched_timer(e, qp);
    if (async_event && e->async_eqn >= 0) {
        qrnic_eq_post(e, (uint32_t)e->async_eqn, QRNIC_EVENT_QP_FATAL,
                      qp->qpn, qp->resets);
    }
    qrnic_sched_qp(e, qp);
}

uint8_t qrnic_cqe_opcode(uint8_t wr_opcode)
{
    return qrnic_wr_info(wr_opcode).cqe_opcode;
}

void qrnic_qp_flush_srq_wqe(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    struct qrnic_wc wc;

    if (!qp->srq || !qp->resp.recv_active) {
        return;
    }
    /* The SRQ WQE it had taken is its own; the SRQ's others stay. */
    memset(&wc, 0, sizeof(wc));
    wc.wr_id = qp->resp.recv_wr_id;
    wc.qpn = qp->qpn;
    wc.wqe_idx = qp->resp.recv_idx;
    wc.opcode = QRNIC_CQE_OP_RECV;
    wc.status = QRNIC_WC_WR_FLUSH_ERR;
    wc.vendor_err = QRNIC_VERR_FLUSH;
    qrnic_srq_wc(qp, &wc);
    qrnic_cq_post(e, qp->rcq, &wc);
    qp->resp.recv_active = false;
}

void qrnic_qp_flush(struct qrnic_engine *e, struct qrnic_qpc *qp)
{
    struct qrnic_wc wc;

    memset(&wc, 0, sizeof(wc));
    wc.qpn = qp->qpn;
    wc.status = QRNIC_WC_WR_FLUSH_ERR;
    wc.vendor_err = QRNIC_VERR_FLUSH;
    while (qp->req.sq_tail != qp->req.sq_pi) {
        uint16_t i = qp->req.sq_tail;
        uint8_t w[QRNIC_SQ_WQE_SIZE];
        bool started = qp->req.sq_tail != qp->req.sq_head;
        struct qrnic_swqe *s = qrnic_swqe(qp, i);

        if (!started) {
            qrnic_qp_sq_read(e, qp, i, w, sizeof(w));
        }
        wc.wr_id = started ? s->wr_id :
                   qrnic_ld64(w + offsetof(struct qrnic_sq_wqe, wr_id));
        wc.opcode = qrnic_cqe_opcode(started ? s->opcode :
                               w[offsetof(struct qrnic_sq_wqe, opcode)]);
        wc.flags = QRNIC_CQE_F_SEND;
        wc.wqe_idx = i;
        qrnic_cq_post(e, qp->scq, &wc);
        qp->req.sq_tail++;
        if (!started) {
            qp->req.sq_head = qp->req.sq_tail;
        }
    }
    qp->req.sq_head = qp->req.sq_cur = qp->req.sq_tail;
    qp->req.rd_inflight = 0;
    qp->req.cur_valid = false;
    qp->req.req_error = false;

    wc.flags = 0;
    wc.opcode = QRNIC_CQE_OP_RECV;
    qrnic_qp_flush_srq_wqe(e, qp);
    while (qp->resp.rq_ci != qp->resp.rq_pi) {
        wc.wr_id = qrnic_qp_rqe_wr_id(e, qp, qp->resp.rq_ci);
        wc.wqe_idx = qp->resp.rq_ci;
        qrnic_cq_post(e, qp->rcq, &wc);
        qp->resp.rq_ci++;
    }
    qp->resp.recv_active = false;
    qp->resp.resp_msg = QRNIC_RESP_NONE;
}

/* ---- MODIFY_QP ----------------------------------------------------------- */

static bool attr_values_ok(struct qrnic_engine *e, uint32_t mask,
                           const struct qrnic_qp_attr *a)
{
    if ((mask & M(PKEY_INDEX)) && qrnic_get16(&a->pkey_index) != 0) {
        return false;
    }
    if ((mask & M(PORT)) && a->port_num != 1) {
        return false;
    }
    if ((mask & M(ACCESS_FLAGS)) &&
        (qrnic_get32(&a->access_flags) & ~QRNIC_ACCESS_ALL)) {
        return false;
    }
    if (mask & M(AV)) {
        uint8_t sgi = a->sgid_index;

        if (sgi >= QRNIC_ENG_GID_TBL_LEN || !e->gid[sgi].valid ||
            qrnic_gid_is_v4(e->gid[sgi].gid) != qrnic_gid_is_v4(a->dgid) ||
            (a->dmac[0] & 1)) {
            return false;
        }
    }
    if ((mask & M(PATH_MTU)) && (a->path_mtu < 1 || a->path_mtu > 5)) {
        return false;
    }
    if (((mask & M(TIMEOUT)) && a->timeout > 31) ||
        ((mask & M(RETRY_CNT)) && a->retry_cnt > 7) ||
        ((mask & M(RNR_RETRY)) && a->rnr_retry > 7) ||
        ((mask & M(MIN_RNR_TIMER)) && a->min_rnr_timer > 31) ||
        ((mask & M(MAX_QP_RD_ATOMIC)) &&
         a->max_rd_atomic > QRNIC_MAX_RD_ATOMIC) ||
        ((mask & M(MAX_DEST_RD_ATOMIC)) &&
         a->max_dest_rd_atomic > QRNIC_MAX_RD_ATOMIC)) {
        return false;
    }
    if (((mask & M(DEST_QPN)) && qrnic_get32(&a->dest_qpn) > QRNIC_PSN_MASK) ||
        ((mask & M(RQ_PSN)) && qrnic_get32(&a->rq_psn) > QRNIC_PSN_MASK) ||
        ((mask & M(SQ_PSN)) && qrnic_get32(&a->sq_psn) > QRNIC_PSN_MASK)) {
        return false;
    }
    return true;
}

static void apply_attrs(struct qrnic_engine *e, struct qrnic_qpc *qp,
                        uint32_t mask, const struct qrnic_qp_attr *a)
{
    if (mask & M(ACCESS_FLAGS)) {
        qp->attr.access = qrnic_get32(&a->access_flags);
    }
    if (mask & M(QKEY)) {
        qp->attr.qkey = qrnic_get32(&a->qkey);
    }
    if (mask & M(PKEY_INDEX)) {
        qp->attr.pkey_index = 0;
    }
    if (mask & M(AV)) {
        qp->attr.sgid_index = a->sgid_index;
        memcpy(qp->attr.sgid, e->gid[qp->attr.sgid_index].gid, 16);
        memcpy(qp->attr.dgid, a->dgid, 16);
        memcpy(qp->attr.dmac, a->dmac, 6);
        qp->attr.hop_limit = a->hop_limit;
        qp->attr.tclass = a->traffic_class;
        qp->attr.flow_label = qrnic_get32(&a->flow_label) &
                             QRNIC_FLOW_LABEL_MASK;
        qp->attr.ipv4 = qrnic_gid_is_v4(qp->attr.dgid);
    }
    if (mask & M(PATH_MTU)) {
        qp->attr.path_mtu = a->path_mtu;
        qp->attr.mtu = 128u << qp->attr.path_mtu;
    }
    if (mask & M(TIMEOUT)) {
        qp->attr.timeout = a->timeout;
    }
    if (mask & M(RETRY_CNT)) {
        qp->attr.retry_cnt = a->retry_cnt;
        qp->comp.retry_left = qp->attr.retry_cnt;
    }
    if (mask & M(RNR_RETRY)) {
        qp->attr.rnr_retry = a->rnr_retry;
        qp->comp.rnr_left = qp->attr.rnr_retry;
    }
    if (mask & M(MIN_RNR_TIMER)) {
        qp->attr.min_rnr_timer = a->min_rnr_timer;
    }
    if (mask & M(MAX_QP_RD_ATOMIC)) {
        qp->attr.max_rd_atomic = a->max_rd_atomic;
    }
    if (mask & M(MAX_DEST_RD_ATOMIC)) {
        qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
    }
    if (mask & M(DEST_QPN)) {
        qp->attr.dest_qpn = qrnic_get32(&a->dest_qpn);
    }
    if (mask & M(RQ_PSN)) {
        qp->attr.rq_psn = qrnic_get32(&a->rq_psn);
        qp->resp.epsn = qp->attr.rq_psn;
    }
    if (mask & M(SQ_PSN)) {
        qp->attr.sq_psn = qrnic_get32(&a->sq_psn);
        qp->req.next_psn = qp->req.tx_psn = qp->attr.sq_psn;
        qp->comp.una_psn = qp->attr.sq_psn;
        qp->req.sent_psn = qp->attr.sq_psn;
        qp->comp.ack_next = qp->attr.sq_psn;
        qp->req.ackreq_psn = psn_add(qp->attr.sq_psn, QRNIC_PSN_MASK);
        qp->comp.rtt_timing = false;
        qp->comp.probe_stage = 0;
    }
    if (mask & M(EN_SQD_ASYNC)) {
        qp->sqd_notify = true;
    }
    if (mask & (M(AV) | M(DEST_QPN))) {
        qp->attr.sport = qrnic_wire_sport(qp->attr.flow_label, qp->qpn,
                                          qp->attr.dest_qpn);
    }
}

static enum qrnic_cmd_status
modify(struct qrnic_engine *e, struct qrnic_qpc *qp,
       uint32_t mask, const struct qrnic_qp_attr *a)
{
    uint8_t to = (mask & M(STATE)) ? a->qp_state : qp->state;
    uint32_t attrs = mask & ~(M(STATE) | M(CUR_STATE));
    struct qrnic_transition t;

    if (mask & ~QRNIC_QP_ATTR_SUPPORTED || to > QRNIC_QPS_ERR ||
        ((mask & M(CUR_STATE)) && a->cur_state != qp->state)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (to == QRNIC_QPS_RESET || to == QRNIC_QPS_ERR) {
        if (attrs) {
            return QRNIC_ST_BAD_PARAM;
        }
        if (to == QRNIC_QPS_RESET) {
            qrnic_qp_flush_srq_wqe(e, qp);
            qrnic_sched_unlink(e, qp);
            qp_reset_state(qp);
            qp->resets++;
        } else {
            qrnic_qp_error(e, qp, false);
        }
        return QRNIC_ST_OK;
    }
    if (!find_transition(qp, to, &t)) {
        return QRNIC_ST_BAD_STATE;
    }
    if ((attrs & t.req) != t.req || (attrs & ~(t.req | t.opt)) ||
        !attr_values_ok(e, attrs, a)) {
        return QRNIC_ST_BAD_PARAM;
    }
    apply_attrs(e, qp, attrs, a);
    if (to == QRNIC_QPS_SQD && qp->state != QRNIC_QPS_SQD) {
        qp->sqd_event_sent = false;
    }
    qp->state = to;
    qrnic_cc_update(e, qp);
    if (to == QRNIC_QPS_RTS || to == QRNIC_QPS_SQD) {
        qrnic_sched_qp(e, qp);
    }
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_modify_qp(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_qpc *qp = qrnic_qp_get(e, qrnic_get32(&cmd->modify_qp.qpn));
    struct qrnic_qp_attr a;

    if (!qp) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (qrnic_dma_read(e, qrnic_get64(&cmd->modify_qp.attr_addr),
                       &a, sizeof(a))) {
        return QRNIC_ST_DMA_ERROR;
    }
    return modify(e, qp, qrnic_get32(&cmd->modify_qp.attr_mask), &a);
}

/* SQD: drained once every started WQE is acknowledged. */
static bool sq_draining(const struct qrnic_qpc *qp)
{
    return qp->state == QRNIC_QPS_SQD && qp->req.sq_tail != qp->req.sq_head;
}

enum qrnic_cmd_status qrnic_cmd_query_qp(struct qrnic_engine *e,
                                         struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_qpc *qp = qrnic_qp_get(e, qrnic_get32(&cmd->query_qp.qpn));
    struct qrnic_qp_attr attr, *a = &attr;

    if (!qp) {
        return QRNIC_ST_BAD_HANDLE;
    }
    memset(a, 0, sizeof(*a));
    a->qp_state = qp->state;
    a->cur_state = qp->state;
    a->path_mtu = qp->attr.path_mtu;
    a->timeout = qp->attr.timeout;
    a->retry_cnt = qp->attr.retry_cnt;
    a->rnr_retry = qp->attr.rnr_retry;
    a->min_rnr_timer = qp->attr.min_rnr_timer;
    a->max_rd_atomic = qp->attr.max_rd_atomic;
    a->max_dest_rd_atomic = qp->attr.max_dest_rd_atomic;
    a->sgid_index = qp->attr.sgid_index;
    a->hop_limit = qp->attr.hop_limit;
    a->traffic_class = qp->attr.tclass;
    qrnic_put32(&a->access_flags, qp->attr.access);
    qrnic_put32(&a->qkey, qp->attr.qkey);
    qrnic_put32(&a->dest_qpn, qp->attr.dest_qpn);
    qrnic_put32(&a->rq_psn, qp->resp.epsn);
    qrnic_put32(&a->sq_psn, qp->req.next_psn);
    qrnic_put32(&a->flow_label, qp->attr.flow_label);
    qrnic_put16(&a->pkey_index, qp->attr.pkey_index);
    a->port_num = qp->attr.port;
    a->sq_draining = sq_draining(qp);
    memcpy(a->dgid, qp->attr.dgid, 16);
    memcpy(a->dmac, qp->attr.dmac, 6);
    if (qrnic_dma_write(e, qrnic_get64(&cmd->query_qp.attr_addr),
                        a, sizeof(*a))) {
        return QRNIC_ST_DMA_ERROR;
    }
    return QRNIC_ST_OK;
}

/* ---- doorbells ----------------------------------------------------------- */

enum qrnic_guest_err qrnic_qp_doorbell(struct qrnic_engine *e, uint32_t page,
                                       bool sq, uint64_t val)
{
    struct qrnic_qpc *qp = qrnic_qp_get(e, (uint32_t)val & QRNIC_DB_QN_MASK);
    uint16_t pi = (uint16_t)(val >> 32);
    uint16_t *prod;

    if (!qp || qp->uctx != page || qp->state == QRNIC_QPS_RESET ||
        (sq ? !type_has_sq(qp->type) : qp->srq || !type_has_rq(qp->type))) {
        return QRNIC_GUEST_ERR_DB_QUEUE;
    }
    if (((uint32_t)val & ~QRNIC_DB_QN_MASK) || (val >> 48)) {
        return QRNIC_GUEST_ERR_DB_VALUE;
    }
    prod = sq ? &qp->req.sq_pi : &qp->resp.rq_pi;
    if (!qrnic_pi_ok(sq ? qp->log_sq : qp->log_rq, *prod, pi,
                     sq ? qp->req.sq_tail : qp->resp.rq_ci)) {
        return QRNIC_GUEST_ERR_DB_INDEX;
    }
    *prod = pi;
    if (sq || qp->state == QRNIC_QPS_ERR) {
        qrnic_sched_qp(e, qp);
    }
    return QRNIC_GUEST_OK;
}
