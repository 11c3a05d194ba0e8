/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: completion queues.  The CQ ring lives in guest RAM, in
 * pages the device copied at CREATE_CQ; software reports its consumer
 * index in the record after the ring, which the device reads only when
 * the ring looks full.  Arming and completion events: see qrnic_hw.h.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define PAGE 4096u
#define ARM_FLAGS (QRNIC_DB_ARM | QRNIC_DB_ARM_SOLICITED)

static uint32_t cq_bytes(uint8_t log_depth)
{
    return (QRNIC_CQE_SIZE << log_depth) + QRNIC_CQ_REC_SIZE;
}

struct qrnic_cqc *qrnic_cq_get(struct qrnic_engine *e, uint32_t cqn)
{
    return qrnic_table_get(&e->obj[QRNIC_OBJ_CQ], cqn);
}

/*
 * Is new_ci a consumer index software may report: between the one it
 * reported last and the producer index?  CQ indexes run in 32 bits, so a
 * ring of 1 << QRNIC_CQ_MAX_LOG entries can be told full from empty.
 */
static bool cq_ci_ok(const struct qrnic_cqc *cq, uint32_t new_ci)
{
    return cq->pi - new_ci <= cq->pi - cq->ci;
}

static uint64_t cq_addr(const struct qrnic_cqc *cq, uint32_t off)
{
    return cq->pages[off / PAGE] + off % PAGE;
}

/* Does a command's page list describe a CQ buffer of 1 << log CQEs? */
static bool cq_pbl_ok(const struct qrnic_pbl *pbl, uint8_t log)
{
    uint32_t npages = qrnic_get32(&pbl->npages);
    uint32_t need;

    if (log < 1 || log > QRNIC_CQ_MAX_LOG || pbl->page_shift != 12) {
        return false;
    }
    need = (cq_bytes(log) + PAGE - 1) / PAGE;
    return npages >= need && npages <= need + 15;
}

/*
 * The page addresses a CQ keeps count against the device's pool of page
 * addresses and its context's share, as a region's do.
 */
static enum qrnic_cmd_status cq_charge(struct qrnic_engine *e, uint32_t uctx,
                                       uint32_t npages, uint32_t held)
{
    if (npages > e->mtt_max - (e->mtt_used - held)) {
        return QRNIC_ST_NO_RESOURCES;
    }
    return qrnic_ctx_charge(e, uctx, QRNIC_CTX_MR_PAGES, npages);
}

/* The page addresses of a checked list; *out is malloc'ed.  QRNIC_ST_*. */
static enum qrnic_cmd_status
cq_pages(struct qrnic_engine *e, const struct qrnic_pbl *pbl, uint64_t **out)
{
    uint32_t npages = qrnic_get32(&pbl->npages);
    uint64_t *pages;
    enum qrnic_cmd_status st;

    pages = calloc(npages, sizeof(*pages));
    if (!pages) {
        return QRNIC_ST_NO_RESOURCES;
    }
    st = qrnic_pbl_read(e, pbl, pages, npages);
    if (st != QRNIC_ST_OK) {
        free(pages);
        return st;
    }
    *out = pages;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_create_cq(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t uctx = qrnic_get32(&cmd->create_cq.uctx);
    uint32_t eqn = qrnic_get32(&cmd->create_cq.eqn);
    uint8_t log = cmd->create_cq.log_depth;
    uint32_t npages = qrnic_get32(&cmd->create_cq.pbl.npages);
    uint64_t *pages = NULL;
    struct qrnic_cqc *cq;
    enum qrnic_cmd_status st;

    if (uctx != 0 && !qrnic_uctx_exists(e, uctx)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (eqn >= QRNIC_ENG_MAX_EQ || !e->eq[eqn].valid || e->eq[eqn].async) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (!cq_pbl_ok(&cmd->create_cq.pbl, log)) {
        return QRNIC_ST_BAD_PARAM;
    }
    st = qrnic_ctx_charge(e, uctx, QRNIC_CTX_CQ, 1);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    st = cq_charge(e, uctx, npages, 0);
    if (st != QRNIC_ST_OK) {
        qrnic_ctx_uncharge(e, uctx, QRNIC_CTX_CQ, 1);
        return st;
    }
    st = cq_pages(e, &cmd->create_cq.pbl, &pages);
    cq = st == QRNIC_ST_OK ? calloc(1, sizeof(*cq)) : NULL;
    if (cq) {
        cq->cqn = qrnic_table_insert(&e->obj[QRNIC_OBJ_CQ], cq);
    }
    if (!cq || !cq->cqn) {
        free(cq);
        free(pages);
        qrnic_ctx_uncharge_obj(e, uctx, QRNIC_CTX_CQ, QRNIC_CTX_MR_PAGES,
                               npages);
        return st == QRNIC_ST_OK ? QRNIC_ST_NO_RESOURCES : st;
    }
    e->mtt_used += npages;
    cq->npages = npages;
    cq->pages = pages;
    cq->uctx = uctx;
    cq->eqn = eqn;
    cq->log_depth = log;
    e->eq[eqn].ncq++;
    req->result0 = cq->cqn;
    return QRNIC_ST_OK;
}

void qrnic_cq_release(struct qrnic_engine *e, void *obj)
{
    struct qrnic_cqc *cq = obj;

    e->eq[cq->eqn].ncq--;
    qrnic_ctx_uncharge_obj(e, cq->uctx, QRNIC_CTX_CQ, QRNIC_CTX_MR_PAGES,
                           cq->npages);
    e->mtt_used -= cq->npages;
    qrnic_table_remove(&e->obj[QRNIC_OBJ_CQ], cq->cqn);
    free(cq->pages);
    free(cq);
}

enum qrnic_cmd_status qrnic_cmd_destroy_cq(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    return qrnic_obj_destroy(e, QRNIC_OBJ_CQ,
                             qrnic_get32(&req->cmd->destroy_cq.cqn));
}

/* Switch cq to the buffer of 1 << log CQEs a checked page list lists. */
static enum qrnic_cmd_status cq_switch(struct qrnic_engine *e,
                                       struct qrnic_cqc *cq,
                                       const struct qrnic_pbl *pbl,
                                       uint8_t log, uint32_t *pi)
{
    uint64_t *pages, rec;
    uint8_t ci[4];
    enum qrnic_cmd_status st;
    uint32_t new_ci;

    st = cq_pages(e, pbl, &pages);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    /* Software's consumer index, from the new buffer's record. */
    rec = (QRNIC_CQE_SIZE << log) / PAGE;
    rec = pages[rec] + (QRNIC_CQE_SIZE << log) % PAGE;
    if (qrnic_dma_read(e, rec, ci, sizeof(ci))) {
        free(pages);
        return QRNIC_ST_DMA_ERROR;
    }
    new_ci = qrnic_ld32(ci);
    if (!cq_ci_ok(cq, new_ci) || cq->pi - new_ci > (1u << log)) {
        free(pages);
        return QRNIC_ST_BAD_PARAM;      /* the CQEs would not fit */
    }
    cq->ci = new_ci;
    free(cq->pages);
    cq->pages = pages;
    cq->log_depth = log;
    cq->overflowed = false;
    *pi = cq->pi;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_resize_cq(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_cqc *cq = qrnic_cq_get(e, qrnic_get32(&cmd->resize_cq.cqn));
    const struct qrnic_pbl *pbl = &cmd->resize_cq.pbl;
    uint32_t npages = qrnic_get32(&pbl->npages);
    enum qrnic_cmd_status st;

    if (!cq) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (!cq_pbl_ok(pbl, cmd->resize_cq.log_depth) ||
        !qrnic_field_zero(cmd->resize_cq.rsvd)) {
        return QRNIC_ST_BAD_PARAM;
    }
    /* The new buffer's page addresses in place of the old one's. */
    qrnic_ctx_uncharge(e, cq->uctx, QRNIC_CTX_MR_PAGES, cq->npages);
    st = cq_charge(e, cq->uctx, npages, cq->npages);
    if (st == QRNIC_ST_OK) {
        st = cq_switch(e, cq, pbl, cmd->resize_cq.log_depth, &req->result0);
        if (st != QRNIC_ST_OK) {
            qrnic_ctx_uncharge(e, cq->uctx, QRNIC_CTX_MR_PAGES, npages);
        }
    }
    if (st != QRNIC_ST_OK) {
        qrnic_ctx_restore(e, cq->uctx, QRNIC_CTX_MR_PAGES, cq->npages);
        return st;
    }
    e->mtt_used = e->mtt_used - cq->npages + npages;
    cq->npages = npages;
    return QRNIC_ST_OK;
}

/* Take a consumer index from software if it is one the ring allows. */
static bool cq_set_ci(struct qrnic_cqc *cq, uint32_t ci)
{
    if (!cq_ci_ok(cq, ci)) {
        return false;
    }
    cq->ci = ci;
    return true;
}

static bool cq_full(struct qrnic_engine *e, struct qrnic_cqc *cq)
{
    uint32_t depth = 1u << cq->log_depth;
    uint8_t rec[4];

    if (cq->pi - cq->ci < depth) {
        return false;
    }
    if (qrnic_dma_read(e, cq_addr(cq, depth * QRNIC_CQE_SIZE),
                       rec, sizeof(rec))) {
        return true;
    }
    cq_set_ci(cq, qrnic_ld32(rec));
    return cq->pi - cq->ci >= depth;
}

static void cq_event(struct qrnic_engine *e, struct qrnic_cqc *cq)
{
    cq->arm = 0;
    qrnic_eq_post(e, cq->eqn, QRNIC_EVENT_CQ, cq->cqn, 0);
}

/*
 * Does this error completion tell of a fault in the work request itself
 * (not the peer's, the transport's or a flush; memory faults are told as
 * GUEST_ERR_DMA)?
 */
static bool wqe_fault(const struct qrnic_wc *wc)
{
    switch (wc->vendor_err) {
    case QRNIC_VERR_BAD_OPCODE:
    case QRNIC_VERR_BAD_SGE:
    case QRNIC_VERR_BAD_LKEY:
    case QRNIC_VERR_LKEY_ACCESS:
    case QRNIC_VERR_LKEY_BOUNDS:
    case QRNIC_VERR_MSG_TOO_LONG:
    case QRNIC_VERR_ALIGN:
    case QRNIC_VERR_BAD_AV:
    case QRNIC_VERR_BAD_KEY_OP:
        return wc->status != QRNIC_WC_SUCCESS;
    default:
        return false;
    }
}

bool qrnic_cq_post(struct qrnic_engine *e, struct qrnic_cqc *cq,
                   const struct qrnic_wc *wc)
{
    uint8_t cqe[QRNIC_CQE_SIZE];
    uint32_t slot = cq->pi & ((1u << cq->log_depth) - 1);
    uint64_t addr = cq_addr(cq, slot * QRNIC_CQE_SIZE);
    uint32_t phase = ((cq->pi >> cq->log_depth) & 1) ? 0 : QRNIC_CQE_PHASE;
    const size_t owner = offsetof(struct qrnic_cqe, owner);

    if (wqe_fault(wc)) {
        qrnic_guest_error(e, QRNIC_GUEST_ERR_WQE, wc->qpn, wc->vendor_err);
    }
    if (cq_full(e, cq)) {
        qrnic_stat(e, QRNIC_STAT_CQ_OVERFLOWS);
        if (!cq->overflowed) {
            cq->overflowed = true;
            if (e->async_eqn >= 0) {
                qrnic_eq_post(e, (uint32_t)e->async_eqn, QRNIC_EVENT_CQ_ERR,
                              cq->cqn, 0);
            }
        }
        return false;
    }
    memset(cqe, 0, sizeof(cqe));
    qrnic_st64(cqe + offsetof(struct qrnic_cqe, wr_id), wc->wr_id);
    qrnic_st32(cqe + offsetof(struct qrnic_cqe, byte_len), wc->byte_len);
    memcpy(cqe + offsetof(struct qrnic_cqe, imm_data), &wc->imm, 4);
    qrnic_st32(cqe + offsetof(struct qrnic_cqe, qpn), wc->qpn);
    qrnic_st16(cqe + offsetof(struct qrnic_cqe, wqe_idx), wc->wqe_idx);
    cqe[offsetof(struct qrnic_cqe, opcode)] = wc->opcode;
    cqe[offsetof(struct qrnic_cqe, status)] = wc->status;
    cqe[offsetof(struct qrnic_cqe, flags)] = wc->flags;
    cqe[offsetof(struct qrnic_cqe, vendor_err)] = wc->vendor_err;
    qrnic_st32(cqe + owner, phase | (wc->src_qp & QRNIC_QPN_MASK) <<
                            QRNIC_CQE_SRC_QP_SHIFT);
    /* The body first, then the word with the phase bit. */
    if (!qrnic_dma_write(e, addr, cqe, owner)) {
        qrnic_dma_write(e, addr + owner, cqe + owner, 4);
    }
    cq->pi++;
    qrnic_event(e, &(struct qrnic_event){
        .kind = QRNIC_EV_CQE,
        .cqe = { .cqn = cq->cqn, .qpn = wc->qpn, .opcode = wc->opcode,
                 .status = wc->status, .flags = wc->flags },
    });
    if (cq->arm && (!(cq->arm & (QRNIC_DB_ARM_SOLICITED >> 24)) ||
                    (wc->flags & QRNIC_CQE_F_SOLICITED) ||
                    wc->status != QRNIC_WC_SUCCESS)) {
        cq_event(e, cq);
    }
    return true;
}

enum qrnic_guest_err qrnic_cq_doorbell(struct qrnic_engine *e, uint32_t page,
                                       uint64_t val)
{
    uint32_t lo = (uint32_t)val;
    uint32_t flags = lo & ~QRNIC_DB_QN_MASK;
    struct qrnic_cqc *cq = qrnic_cq_get(e, lo & QRNIC_DB_QN_MASK);

    if (!cq || cq->uctx != page) {
        return QRNIC_GUEST_ERR_DB_QUEUE;
    }
    if (flags & ~ARM_FLAGS) {
        return QRNIC_GUEST_ERR_DB_VALUE;
    }
    if (!cq_set_ci(cq, (uint32_t)(val >> 32))) {
        return QRNIC_GUEST_ERR_DB_INDEX;
    }
    if (flags) {
        cq->arm = (uint8_t)(flags >> 24);
        /* Completions software has not seen yet fire at once. */
        if (!(flags & QRNIC_DB_ARM_SOLICITED) && cq->pi != cq->ci) {
            cq_event(e, cq);
        }
    }
    return QRNIC_GUEST_OK;
}
