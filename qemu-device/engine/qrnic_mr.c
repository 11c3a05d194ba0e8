/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: memory regions and the key table they share with windows
 * (qrnic_mw.c) and fast-registration regions (qrnic_fastreg.c).  REG_MR
 * copies the region's page list into the device (REREG_MR replaces it,
 * with the range, PD and rights, under the same key); every later access names
 * the region by key and is checked (key and key byte, kind, state, PD,
 * access right, bounds) before a byte moves, then copied page by page with
 * ops->dma_read/dma_write.
 */
#include <stdlib.h>
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

struct qrnic_mrc *qrnic_key_slot(struct qrnic_engine *e, uint32_t key)
{
    return qrnic_table_get(&e->obj[QRNIC_OBJ_KEY], QRNIC_KEY_INDEX(key));
}

static struct qrnic_mrc *mr_lookup(struct qrnic_engine *e, uint32_t key)
{
    struct qrnic_mrc *mr = qrnic_key_slot(e, key);

    return mr && mr->key == key ? mr : NULL;
}

/* A valid region of the PD allowing access to [va, va + len). */
static enum qrnic_vendor_err
region_check(const struct qrnic_mrc *mr, uint32_t pdn,
             uint32_t access, uint64_t va, uint64_t len)
{
    if (!mr || qrnic_key_is_mw(mr) || !mr->valid || mr->pdn != pdn) {
        return QRNIC_VERR_BAD_LKEY;
    }
    if ((mr->access & access) != access) {
        return QRNIC_VERR_LKEY_ACCESS;
    }
    if (!qrnic_mr_covers(mr, va, len)) {
        return QRNIC_VERR_LKEY_BOUNDS;
    }
    return QRNIC_VERR_NONE;
}

enum qrnic_vendor_err
qrnic_mr_check(struct qrnic_engine *e, uint32_t key, uint32_t pdn,
               uint32_t access, uint64_t va, uint64_t len,
               struct qrnic_mrc **out)
{
    struct qrnic_mrc *mr = mr_lookup(e, key);
    uint8_t verr = region_check(mr, pdn, access, va, len);

    *out = verr ? NULL : mr;
    return verr;
}

enum qrnic_vendor_err
qrnic_rkey_check(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                 uint32_t key, uint32_t access, uint64_t va,
                 uint64_t len, struct qrnic_mrc **out)
{
    return qrnic_rkey_check_pd(e, qp, qp->pdn, key, access, va, len, out);
}

enum qrnic_vendor_err
qrnic_rkey_check_pd(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                    uint32_t pdn, uint32_t key, uint32_t access, uint64_t va,
                    uint64_t len, struct qrnic_mrc **out)
{
    struct qrnic_mrc *mw = mr_lookup(e, key);

    if (!mw || !qrnic_key_is_mw(mw)) {
        return qrnic_mr_check(e, key, pdn, access, va, len, out);
    }
    *out = NULL;
    if (!mw->valid || mw->pdn != pdn ||
        (mw->kind == QRNIC_KEY_MW2 && mw->qpn != qp->qpn)) {
        return QRNIC_VERR_BAD_LKEY;
    }
    if ((mw->access & access) != access) {
        return QRNIC_VERR_LKEY_ACCESS;
    }
    if (!qrnic_mr_covers(mw, va, len)) {
        return QRNIC_VERR_LKEY_BOUNDS;
    }
    /* The window's rights stand for the region's; it must still be valid. */
    mw = qrnic_table_get(&e->obj[QRNIC_OBJ_KEY], mw->mr_idx);
    if (region_check(mw, pdn, 0, va, len)) {
        return QRNIC_VERR_BAD_LKEY;
    }
    *out = mw;
    return QRNIC_VERR_NONE;
}

/* Move len bytes between buf and the region at va (already checked). */
static bool mr_rw(struct qrnic_engine *e, const struct qrnic_mrc *mr,
                  uint64_t va, uint8_t *buf, uint64_t len, bool write)
{
    uint64_t mask = (1ull << mr->page_shift) - 1;
    uint64_t off = va - mr->iova + (mr->iova & mask);

    if (mr->phys) {
        return write ? !qrnic_dma_write(e, va, buf, len) :
                       !qrnic_dma_read(e, va, buf, len);
    }
    while (len) {
        uint64_t page = off >> mr->page_shift;
        uint64_t in = off & mask;
        uint64_t n = mask + 1 - in;
        uint64_t addr;
        int ret;

        n = n < len ? n : len;
        if (page >= mr->npages) {
            return false;       /* cannot happen after qrnic_mr_check */
        }
        addr = mr->pages[page] + in;
        ret = write ? qrnic_dma_write(e, addr, buf, n) :
                      qrnic_dma_read(e, addr, buf, n);
        if (ret) {
            return false;
        }
        off += n;
        buf += n;
        len -= n;
    }
    return true;
}

bool qrnic_mr_read(struct qrnic_engine *e, const struct qrnic_mrc *mr,
                   uint64_t va, void *buf, uint64_t len)
{
    return mr_rw(e, mr, va, buf, len, false);
}

bool qrnic_mr_write(struct qrnic_engine *e, const struct qrnic_mrc *mr,
                    uint64_t va, const void *buf, uint64_t len)
{
    return mr_rw(e, mr, va, (uint8_t *)buf, len, true);
}

void qrnic_sgl_decode(struct qrnic_sgl *sgl, const uint8_t *p, uint32_t num)
{
    uint32_t i;

    sgl->num = num;
    sgl->total = 0;
    for (i = 0; i < num; i++) {
        const uint8_t *s = p + i * sizeof(struct qrnic_sge);

        sgl->sge[i].addr = qrnic_ld64(s + offsetof(struct qrnic_sge, addr));
        sgl->sge[i].length = qrnic_ld32(s + offsetof(struct qrnic_sge,
                                                     length));
        sgl->sge[i].lkey = qrnic_ld32(s + offsetof(struct qrnic_sge, lkey));
        sgl->total += sgl->sge[i].length;
    }
}

enum qrnic_vendor_err
qrnic_sgl_check(struct qrnic_engine *e, uint32_t pdn,
                const struct qrnic_sgl *sgl, uint32_t access)
{
    struct qrnic_mrc *mr;
    uint32_t i;
    uint8_t verr;

    for (i = 0; i < sgl->num; i++) {
        if (!sgl->sge[i].length) {
            continue;
        }
        verr = qrnic_mr_check(e, sgl->sge[i].lkey, pdn, access,
                              sgl->sge[i].addr, sgl->sge[i].length, &mr);
        if (verr) {
            return verr;
        }
    }
    return QRNIC_VERR_NONE;
}

enum qrnic_vendor_err qrnic_sgl_copy(struct qrnic_engine *e, uint32_t pdn,
                                     const struct qrnic_sgl *sgl, uint64_t off,
                                     void *buf, uint32_t len, bool to_guest)
{
    uint32_t access = to_guest ? QRNIC_ACCESS_LOCAL_WRITE : 0;
    uint8_t *p = buf;
    uint32_t i;

    for (i = 0; i < sgl->num && len; i++) {
        uint64_t slen = sgl->sge[i].length;
        struct qrnic_mrc *mr;
        uint64_t n;
        uint8_t verr;

        if (off >= slen) {
            off -= slen;
            continue;
        }
        n = slen - off < len ? slen - off : len;
        verr = qrnic_mr_check(e, sgl->sge[i].lkey, pdn, access,
                              sgl->sge[i].addr + off, n, &mr);
        if (verr) {
            return verr;
        }
        if (!mr_rw(e, mr, sgl->sge[i].addr + off, p, n, to_guest)) {
            return QRNIC_VERR_DMA;
        }
        p += n;
        len -= (uint32_t)n;
        off = 0;
    }
    return len ? QRNIC_VERR_MSG_TOO_LONG : QRNIC_VERR_NONE;
}

bool qrnic_mr_rights_ok(uint32_t access, uint32_t allowed, uint64_t iova,
                        uint64_t length)
{
    return !(access & ~allowed) &&
           (!(access & (QRNIC_ACCESS_REMOTE_WRITE |
                        QRNIC_ACCESS_REMOTE_ATOMIC)) ||
            (access & QRNIC_ACCESS_LOCAL_WRITE)) &&
           length != 0 && iova + (length - 1) >= iova;
}

bool qrnic_mr_pages_cover(uint64_t iova, uint64_t length, uint8_t shift,
                          uint32_t npages)
{
    uint64_t span = (iova & ((1ull << shift) - 1)) + length;

    return span >= length &&
           ((span + (1ull << shift) - 1) >> shift) == npages;
}

/*
 * REG_MR's arguments, and REREG_MR's, read through reg_mr's fields (the
 * same places: qrnic_hw.h).  held: page addresses a region being replaced
 * gives back (REREG_MR).
 */
static enum qrnic_cmd_status
reg_mr_args(struct qrnic_engine *e, const struct qrnic_cmd *cmd,
            uint32_t held, uint32_t *npages)
{
    const struct qrnic_pbl *pbl = &cmd->reg_mr.pbl;
    uint32_t pdn = qrnic_get32(&cmd->reg_mr.pdn);
    uint32_t access = qrnic_get32(&cmd->reg_mr.access);
    uint64_t iova = qrnic_get64(&cmd->reg_mr.iova);
    uint64_t length = qrnic_get64(&cmd->reg_mr.length);
    uint8_t levels = pbl->levels;
    uint8_t shift = pbl->page_shift;

    *npages = qrnic_get32(&pbl->npages);
    if (!qrnic_pd_exists(e, pdn)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (!qrnic_mr_rights_ok(access, QRNIC_ACCESS_ALL, iova, length)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (levels == QRNIC_PBL_PHYS) {
        /* The DMA address space itself: for the kernel's PDs only. */
        return qrnic_pd_uctx(e, pdn) == 0 && *npages == 0 ?
               QRNIC_ST_OK : QRNIC_ST_BAD_PARAM;
    }
    if (shift < QRNIC_MIN_PAGE_SHIFT || shift > QRNIC_MAX_PAGE_SHIFT ||
        *npages == 0 || *npages > QRNIC_ENG_MR_MAX_PAGES) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (!qrnic_mr_pages_cover(iova, length, shift, *npages)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (*npages > e->mtt_max - (e->mtt_used - held)) {
        return QRNIC_ST_NO_RESOURCES;
    }
    return QRNIC_ST_OK;
}

/* What a key counts against its PD's context: a region or a window. */
static enum qrnic_ctx_res key_res(const struct qrnic_mrc *mr)
{
    return qrnic_key_is_mw(mr) ? QRNIC_CTX_MW : QRNIC_CTX_MR;
}

static enum qrnic_cmd_status
key_charge(struct qrnic_engine *e, const struct qrnic_mrc *mr)
{
    return qrnic_ctx_charge_obj(e, qrnic_pd_uctx(e, mr->pdn), key_res(mr),
                                QRNIC_CTX_MR_PAGES, mr->mtt);
}

static void key_uncharge(struct qrnic_engine *e, const struct qrnic_mrc *mr)
{
    qrnic_ctx_uncharge_obj(e, qrnic_pd_uctx(e, mr->pdn), key_res(mr),
                           QRNIC_CTX_MR_PAGES, mr->mtt);
}

/* What key_uncharge() took, back (a limit lowered since may not fit). */
static void key_restore(struct qrnic_engine *e, const struct qrnic_mrc *mr)
{
    uint32_t uctx = qrnic_pd_uctx(e, mr->pdn);

    qrnic_ctx_restore(e, uctx, key_res(mr), 1);
    qrnic_ctx_restore(e, uctx, QRNIC_CTX_MR_PAGES, mr->mtt);
}

enum qrnic_cmd_status qrnic_key_add(struct qrnic_engine *e,
                                    struct qrnic_mrc *mr,
                                    struct qrnic_cmd_req *req)
{
    struct qrnic_table *t = &e->obj[QRNIC_OBJ_KEY];
    uint32_t n;
    enum qrnic_cmd_status st;

    if (!mr) {
        return QRNIC_ST_NO_RESOURCES;
    }
    st = key_charge(e, mr);
    n = st == QRNIC_ST_OK ? qrnic_table_insert(t, mr) : 0;
    if (!n) {
        if (st == QRNIC_ST_OK) {
            key_uncharge(e, mr);
            st = QRNIC_ST_NO_RESOURCES;
        }
        free(mr);
        return st;
    }
    /* A key byte the index did not have last time. */
    mr->key = n << 8 | (uint8_t)qrnic_table_gen(t, n);
    e->mtt_used += mr->mtt;
    qrnic_pd_get(e, mr->pdn)->users++;
    req->result0 = mr->key;
    return QRNIC_ST_OK;
}

void qrnic_key_release(struct qrnic_engine *e, void *obj)
{
    struct qrnic_mrc *mr = obj;
    uint32_t idx = QRNIC_KEY_INDEX(mr->key);

    if (qrnic_key_is_mw(mr) && mr->valid) {
        qrnic_mw_unbind(e, mr);
    }
    /* The next key of this index differs from every one software saw. */
    qrnic_table_set_gen(&e->obj[QRNIC_OBJ_KEY], idx,
                        (uint8_t)QRNIC_KEY_BYTE(mr->key));
    key_uncharge(e, mr);
    qrnic_pd_get(e, mr->pdn)->users--;
    e->mtt_used -= mr->mtt;
    qrnic_table_remove(&e->obj[QRNIC_OBJ_KEY], idx);
    free(mr);
}

/* A REG_MR region as the command describes it (checked), not yet keyed. */
static struct qrnic_mrc *mr_new(struct qrnic_engine *e,
                                const struct qrnic_cmd *cmd,
                                uint32_t npages,
                                enum qrnic_cmd_status *st)
{
    const struct qrnic_pbl *pbl = &cmd->reg_mr.pbl;
    struct qrnic_mrc *mr;

    mr = calloc(1, sizeof(*mr) + (size_t)npages * sizeof(uint64_t));
    if (!mr) {
        *st = QRNIC_ST_NO_RESOURCES;
        return NULL;
    }
    mr->kind = QRNIC_KEY_MR;
    mr->valid = true;
    mr->pdn = qrnic_get32(&cmd->reg_mr.pdn);
    mr->access = qrnic_get32(&cmd->reg_mr.access);
    mr->iova = qrnic_get64(&cmd->reg_mr.iova);
    mr->length = qrnic_get64(&cmd->reg_mr.length);
    mr->phys = pbl->levels == QRNIC_PBL_PHYS;
    mr->page_shift = mr->phys ? QRNIC_MIN_PAGE_SHIFT : pbl->page_shift;
    mr->npages = mr->mtt = npages;
    if (!mr->phys) {
        *st = qrnic_pbl_read(e, pbl, mr->pages, npages);
        if (*st != QRNIC_ST_OK) {
            free(mr);
            return NULL;
        }
    }
    return mr;
}

enum qrnic_cmd_status qrnic_cmd_reg_mr(struct qrnic_engine *e,
                                       struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t npages;
    struct qrnic_mrc *mr;
    enum qrnic_cmd_status st;

    st = reg_mr_args(e, cmd, 0, &npages);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    mr = mr_new(e, cmd, npages, &st);
    return mr ? qrnic_key_add(e, mr, req) : st;
}

/*
 * A REG_MR region described anew (page list, range, PD, rights, checked
 * as REG_MR checks them) under the key it has.  The new page table is
 * read before the old one goes, so a refusal leaves the region as it
 * was; no step runs between the two, so every access checks against one
 * registration or the other.  Not while windows are bound to it.
 */
enum qrnic_cmd_status qrnic_cmd_rereg_mr(struct qrnic_engine *e,
                                         struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t key = qrnic_get32(&cmd->rereg_mr.key);
    struct qrnic_mrc *old = qrnic_key_slot(e, key), *mr;
    uint32_t npages;
    enum qrnic_cmd_status st;

    if (!old || old->kind != QRNIC_KEY_MR || old->key != key) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (old->nmw) {
        return QRNIC_ST_BAD_STATE;
    }
    st = reg_mr_args(e, cmd, old->mtt, &npages);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    /* A region stays its context's: the new PD must be of it too. */
    if (qrnic_pd_uctx(e, qrnic_get32(&cmd->reg_mr.pdn)) !=
        qrnic_pd_uctx(e, old->pdn)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    mr = mr_new(e, cmd, npages, &st);
    if (!mr) {
        return st;
    }
    key_uncharge(e, old);
    st = key_charge(e, mr);
    if (st != QRNIC_ST_OK) {
        key_restore(e, old);
        free(mr);
        return st;
    }
    mr->key = key;
    qrnic_pd_get(e, old->pdn)->users--;
    qrnic_pd_get(e, mr->pdn)->users++;
    e->mtt_used = e->mtt_used - old->mtt + mr->mtt;
    qrnic_table_replace(&e->obj[QRNIC_OBJ_KEY], QRNIC_KEY_INDEX(key), mr);
    free(old);
    return QRNIC_ST_OK;
}

/*
 * A REG_MR region by its key, an ALLOC_MR one by its index (software may
 * not know the key byte its last REG_MR WQE set); not while windows are
 * bound to it.
 */
enum qrnic_cmd_status qrnic_cmd_dereg_mr(struct qrnic_engine *e,
                                         struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t key = qrnic_get32(&cmd->dereg_mr.key);
    struct qrnic_mrc *mr = qrnic_key_slot(e, key);

    if (!mr || qrnic_key_is_mw(mr) ||
        (mr->kind == QRNIC_KEY_MR && mr->key != key)) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (mr->nmw) {
        return QRNIC_ST_BAD_STATE;
    }
    qrnic_key_release(e, mr);
    return QRNIC_ST_OK;
}
