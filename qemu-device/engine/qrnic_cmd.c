/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: admin command execution and the object tables it manages
 * (event queues, GIDs, Ethernet rings); user contexts and PDs, CQs, MRs
 * and QPs have files of their own.
 *
 * Handles are allocated by the device: eqn 0..QRNIC_ENG_MAX_EQ-1.  A
 * handle that is out of range or not allocated is BAD_HANDLE.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

void qrnic_cmd_reset_objects(struct qrnic_engine *e)
{
    qrnic_objects_free(e);
    memset(e->mcast, 0, sizeof(e->mcast));
    qrnic_sched_reset(e);
    qrnic_fault_reset(e);
    qrnic_uctx_reset(e);
    memset(e->eq, 0, sizeof(e->eq));
    e->async_eqn = -1;
    memset(e->gid, 0, sizeof(e->gid));
}

static uint32_t count_uctx(const struct qrnic_engine *e)
{
    uint32_t i, c = 0;

    for (i = 0; i < QRNIC_ENG_MAX_DB_PAGES; i++) {
        c += e->uctx[i].valid ? 1 : 0;
    }
    return c;
}

/* Entries of the key table that are windows (mw) or regions (!mw). */
static uint32_t count_keys(const struct qrnic_engine *e, bool mw)
{
    const struct qrnic_mrc *mr;
    uint32_t i, c = 0;

    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_KEY], i, mr) {
        c += qrnic_key_is_mw(mr) == mw ? 1 : 0;
    }
    return c;
}

static enum qrnic_cmd_status dma_out(struct qrnic_engine *e, uint64_t addr,
                                     const void *buf, size_t len)
{
    if (qrnic_dma_write(e, addr, buf, len)) {
        return QRNIC_ST_DMA_ERROR;
    }
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_query_device(struct qrnic_engine *e,
                                             struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_dev_attr a;
    uint32_t k;

    memset(&a, 0, sizeof(a));
    qrnic_put64(&a.max_mr_size,
                (uint64_t)QRNIC_ENG_MR_MAX_PAGES << QRNIC_MIN_PAGE_SHIFT);
    qrnic_put64(&a.page_size_cap, ((2ull << QRNIC_MAX_PAGE_SHIFT) - 1) &
                                  ~((1ull << QRNIC_MIN_PAGE_SHIFT) - 1));
    qrnic_put32(&a.fw_version, QRNIC_VERSION_MAJOR << 16 | QRNIC_VERSION_MINOR);
    qrnic_put32(&a.max_qp, e->qmem ? qrnic_obj_capacity(e, QRNIC_OBJ_QP) : 0);
    qrnic_put32(&a.max_qp_wr, 1u << QRNIC_QP_MAX_LOG);
    qrnic_put32(&a.max_sge, QRNIC_MAX_SGE);
    qrnic_put32(&a.max_recv_sge,
                ((1u << QRNIC_RQ_MAX_LOG_STRIDE) -
                 sizeof(struct qrnic_rq_wqe)) / sizeof(struct qrnic_sge));
    qrnic_put32(&a.max_cq, qrnic_obj_capacity(e, QRNIC_OBJ_CQ));
    qrnic_put32(&a.max_cqe, 1u << QRNIC_CQ_MAX_LOG);
    qrnic_put32(&a.max_mr, qrnic_obj_capacity(e, QRNIC_OBJ_KEY));
    qrnic_put32(&a.max_mr_pages, QRNIC_ENG_MR_MAX_PAGES);
    qrnic_put32(&a.max_pd, qrnic_obj_capacity(e, QRNIC_OBJ_PD));
    qrnic_put32(&a.max_qp_rd_atom, QRNIC_MAX_RD_ATOMIC);
    qrnic_put32(&a.max_qp_init_rd_atom, QRNIC_MAX_RD_ATOMIC);
    qrnic_put32(&a.max_inline, QRNIC_MAX_INLINE);
    qrnic_put32(&a.max_qp_qmem, QRNIC_ENG_MAX_QP_QMEM);
    qrnic_put32(&a.gid_tbl_len, QRNIC_ENG_GID_TBL_LEN);
    qrnic_put32(&a.max_uctx, e->db_pages - 1);
    qrnic_put32(&a.max_mtu, QRNIC_MAX_MTU);
    qrnic_put32(&a.num_eq, QRNIC_ENG_MAX_EQ);
    /* Windows and regions share one table. */
    qrnic_put32(&a.max_mw, qrnic_obj_capacity(e, QRNIC_OBJ_KEY));
    qrnic_put32(&a.max_fast_reg_pages, QRNIC_MAX_FAST_REG_PAGES);
    qrnic_put32(&a.max_srq, qrnic_obj_capacity(e, QRNIC_OBJ_SRQ));
    for (k = 0; k < QRNIC_CTX_RES_COUNT; k++) {
        qrnic_put32(&a.ctx_max[k], qrnic_ctx_limit(e, (enum qrnic_ctx_res)k));
    }
    return dma_out(e, qrnic_get64(&cmd->query_device.resp_addr), &a,
                   sizeof(a));
}

enum qrnic_cmd_status qrnic_cmd_query_res(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_res_counts r;
    uint32_t eqs = 0, gids = 0, cq_pages = 0, i;
    const struct qrnic_cqc *cq;

    for (i = 0; i < QRNIC_ENG_MAX_EQ; i++) {
        eqs += e->eq[i].valid ? 1 : 0;
    }
    for (i = 0; i < QRNIC_ENG_GID_TBL_LEN; i++) {
        gids += e->gid[i].valid ? 1 : 0;
    }
    memset(&r, 0, sizeof(r));
    qrnic_put32(&r.uctx, count_uctx(e));
    qrnic_put32(&r.pd, e->obj[QRNIC_OBJ_PD].used);
    qrnic_put32(&r.eq, eqs);
    qrnic_put32(&r.gid, gids);
    qrnic_put32(&r.qp, e->obj[QRNIC_OBJ_QP].used);
    qrnic_put32(&r.cq, e->obj[QRNIC_OBJ_CQ].used);
    qrnic_put32(&r.mr, count_keys(e, false));
    qrnic_put32(&r.mw, count_keys(e, true));
    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_CQ], i, cq) {
        cq_pages += cq->npages;
    }
    qrnic_put32(&r.mr_pages, e->mtt_used - cq_pages);
    qrnic_put32(&r.cq_pages, cq_pages);
    qrnic_put32(&r.srq, e->obj[QRNIC_OBJ_SRQ].used);
    return dma_out(e, qrnic_get64(&cmd->query_res.resp_addr), &r, sizeof(r));
}

enum qrnic_cmd_status qrnic_cmd_query_stats(struct qrnic_engine *e,
                                            struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    struct qrnic_stats_resp r;
    uint32_t i;

    for (i = 0; i < QRNIC_STAT_COUNT; i++) {
        qrnic_put64(&r.v[i], e->stats.v[i]);
    }
    return dma_out(e, qrnic_get64(&cmd->query_stats.resp_addr), &r,
                   sizeof(r));
}

enum qrnic_cmd_status qrnic_cmd_create_eq(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint64_t base = qrnic_get64(&cmd->create_eq.base);
    uint8_t log = cmd->create_eq.log_depth;
    uint8_t flags = cmd->create_eq.flags;
    uint16_t vector = qrnic_get16(&cmd->create_eq.vector);
    uint32_t i;

    if (log < 1 || log > QRNIC_EQ_MAX_LOG || vector >= QRNIC_NUM_MSIX ||
        (flags & ~QRNIC_EQ_ASYNC) || (base & (QRNIC_EQE_SIZE - 1)) ||
        base + ((uint64_t)QRNIC_EQE_SIZE << log) < base) {
        return QRNIC_ST_BAD_PARAM;
    }
    if ((flags & QRNIC_EQ_ASYNC) && e->async_eqn >= 0) {
        return QRNIC_ST_BAD_STATE;      /* only one async EQ */
    }
    for (i = 0; i < QRNIC_ENG_MAX_EQ; i++) {
        if (!e->eq[i].valid) {
            break;
        }
    }
    if (i == QRNIC_ENG_MAX_EQ) {
        return QRNIC_ST_NO_RESOURCES;
    }
    memset(&e->eq[i], 0, sizeof(e->eq[i]));
    e->eq[i].valid = true;
    e->eq[i].async = flags & QRNIC_EQ_ASYNC;
    e->eq[i].vector = vector;
    e->eq[i].ring.base = base;
    e->eq[i].ring.log_depth = log;
    if (e->eq[i].async) {
        e->async_eqn = (int)i;
    }
    req->result0 = i;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_destroy_eq(struct qrnic_engine *e,
                                           struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t eqn = qrnic_get32(&cmd->destroy_eq.eqn);

    if (eqn >= QRNIC_ENG_MAX_EQ || !e->eq[eqn].valid) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (e->eq[eqn].ncq) {
        return QRNIC_ST_BAD_STATE;      /* CQs still deliver events here */
    }
    if (e->async_eqn == (int)eqn) {
        e->async_eqn = -1;
    }
    memset(&e->eq[eqn], 0, sizeof(e->eq[eqn]));
    return QRNIC_ST_OK;
}

static bool ring_args_ok(uint64_t base, uint8_t log)
{
    return log >= 1 && log <= QRNIC_ETH_MAX_LOG &&
           !(base & (QRNIC_ETH_DESC_SIZE - 1)) &&
           base + ((uint64_t)QRNIC_ETH_DESC_SIZE << log) > base;
}

enum qrnic_cmd_status qrnic_cmd_eth_setup(struct qrnic_engine *e,
                                          struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint64_t tx = qrnic_get64(&cmd->eth_setup.tx_base);
    uint64_t rx = qrnic_get64(&cmd->eth_setup.rx_base);
    uint8_t tx_log = cmd->eth_setup.tx_log_depth;
    uint8_t rx_log = cmd->eth_setup.rx_log_depth;
    uint16_t vector = qrnic_get16(&cmd->eth_setup.vector);

    if (!ring_args_ok(tx, tx_log) || !ring_args_ok(rx, rx_log) ||
        vector >= QRNIC_NUM_MSIX || !qrnic_field_zero(cmd->eth_setup.rsvd)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (e->eth.active) {
        return QRNIC_ST_BAD_STATE;
    }
    memset(&e->eth, 0, sizeof(e->eth));
    e->eth.tx.base = tx;
    e->eth.tx.log_depth = tx_log;
    e->eth.rx.base = rx;
    e->eth.rx.log_depth = rx_log;
    e->eth.vector = vector;
    e->eth.active = true;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_eth_teardown(struct qrnic_engine *e,
                                             struct qrnic_cmd_req *req)
{
    (void)req;                          /* no arguments */
    if (!e->eth.active) {
        return QRNIC_ST_BAD_STATE;
    }
    memset(&e->eth, 0, sizeof(e->eth));
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_set_mac(struct qrnic_engine *e,
                                        struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    const uint8_t *mac = cmd->set_mac.mac;
    static const uint8_t zero[6];

    /* A station address must be unicast and not all zeroes. */
    if ((mac[0] & 1) || !memcmp(mac, zero, 6)) {
        return QRNIC_ST_BAD_PARAM;
    }
    memcpy(e->mac, mac, 6);
    if (e->ops->mac_changed) {
        e->ops->mac_changed(e->opaque, e->mac);
    }
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_set_mtu(struct qrnic_engine *e,
                                        struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t mtu = qrnic_get32(&cmd->set_mtu.mtu);

    if (mtu < QRNIC_ENG_MIN_MTU || mtu > QRNIC_MAX_MTU) {
        return QRNIC_ST_BAD_PARAM;
    }
    e->mtu = mtu;
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_add_gid(struct qrnic_engine *e,
                                        struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t index = qrnic_get32(&cmd->add_gid.index);
    uint32_t type = qrnic_get32(&cmd->add_gid.type);

    if (index >= QRNIC_ENG_GID_TBL_LEN || type != QRNIC_GID_TYPE_ROCE_V2) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (e->gid[index].valid) {
        return QRNIC_ST_BAD_STATE;      /* delete the slot first */
    }
    e->gid[index].valid = true;
    e->gid[index].type = type;
    memcpy(e->gid[index].gid, cmd->add_gid.gid, 16);
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_del_gid(struct qrnic_engine *e,
                                        struct qrnic_cmd_req *req)
{
    const struct qrnic_cmd *cmd = req->cmd;
    uint32_t index = qrnic_get32(&cmd->del_gid.index);

    if (index >= QRNIC_ENG_GID_TBL_LEN) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (!e->gid[index].valid) {
        return QRNIC_ST_BAD_HANDLE;
    }
    memset(&e->gid[index], 0, sizeof(e->gid[index]));
    return QRNIC_ST_OK;
}

/* A row of QRNIC_CMD_LIST without its qrnic_cmd_<name> does not build. */
#define CMD_DESC(cmd, opcode, lname, ...) \
    [QRNIC_CMD_##cmd] = { .name = #cmd, .exec = qrnic_cmd_##lname },

const struct qrnic_cmd_desc qrnic_cmds[QRNIC_CMD_MAX] = {
    QRNIC_CMD_LIST(CMD_DESC)
};

enum qrnic_cmd_status qrnic_cmd_exec(struct qrnic_engine *e,
                                     const struct qrnic_cmd *cmd,
                                     uint32_t *result0, uint32_t *result1)
{
    struct qrnic_cmd_req req = { .cmd = cmd };
    uint8_t opcode = cmd->opcode;
    enum qrnic_cmd_status st = QRNIC_ST_BAD_OPCODE;

    if (opcode < QRNIC_CMD_MAX && qrnic_cmds[opcode].exec) {
        st = qrnic_cmds[opcode].exec(e, &req);
    }
    /* Full tables are not the guest's fault; DMA errors are told as such. */
    if (st != QRNIC_ST_OK && st != QRNIC_ST_NO_RESOURCES &&
        st != QRNIC_ST_OVER_QUOTA && st != QRNIC_ST_DMA_ERROR) {
        qrnic_guest_error(e, QRNIC_GUEST_ERR_COMMAND, opcode, st);
    }
    *result0 = req.result0;
    *result1 = req.result1;
    return st;
}
