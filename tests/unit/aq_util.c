/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tests build commands with the header's structs directly: the host is
 * little endian like the device interface (checked at start-up).
 */
#include <assert.h>
#include <string.h>
#include "aq_util.h"
#include "qrnic_le.h"

const uint8_t aq_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

uint32_t aq_reg(struct aq *q, uint32_t reg)
{
    return qf_reg_read(&q->d, reg);
}

void aq_set_reg(struct aq *q, uint32_t reg, uint32_t val)
{
    qf_reg_write(&q->d, reg, val);
}

uint32_t aq_bad_db(struct aq *q)
{
    return aq_reg(q, QRNIC_REG_STAT_BAD_DB);
}

void aq_fini(struct aq *q)
{
    if (q->d.ram) {
        qf_fini(&q->d);
    }
}

void aq_init(struct aq *q, uint32_t db_pages)
{
    uint32_t one = 1;

    assert(*(uint8_t *)&one == 1);
    aq_fini(q);
    memset(q, 0, sizeof(*q));
    q->clock = 1000000;
    qf_init(&q->d, RAM_SIZE, QMEM_SIZE, db_pages, aq_mac, &q->clock);
}

uint32_t aq_enable(struct aq *q, uint64_t sq, uint64_t cq, uint32_t log)
{
    uint32_t status;

    if (aq_reg(q, QRNIC_REG_CTRL) & QRNIC_CTRL_ENABLE) {
        aq_set_reg(q, QRNIC_REG_CTRL, 0);
    }
    aq_set_reg(q, QRNIC_REG_AQ_SQ_BASE_LO, (uint32_t)sq);
    aq_set_reg(q, QRNIC_REG_AQ_SQ_BASE_HI, (uint32_t)(sq >> 32));
    aq_set_reg(q, QRNIC_REG_AQ_CQ_BASE_LO, (uint32_t)cq);
    aq_set_reg(q, QRNIC_REG_AQ_CQ_BASE_HI, (uint32_t)(cq >> 32));
    aq_set_reg(q, QRNIC_REG_AQ_LOG_DEPTH, log);
    aq_set_reg(q, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    q->pi = q->ci = 0;
    q->log = log;
    status = aq_reg(q, QRNIC_REG_STATUS);
    if (!!(status & QRNIC_STATUS_READY) == !!(status & QRNIC_STATUS_FATAL)) {
        return ~0u;                     /* neither or both: never valid */
    }
    return aq_reg(q, QRNIC_REG_INIT_ERR);
}

void aq_setup(struct aq *q, uint32_t db_pages, uint32_t log)
{
    aq_init(q, db_pages);
    if (aq_enable(q, AQ_SQ, AQ_CQ, log)) {
        assert(0);
    }
    qf_set_link(&q->d, true);
}

struct qrnic_cmd mkcmd(uint8_t opcode)
{
    struct qrnic_cmd c;
    static uint16_t cookie = 0x100;

    memset(&c, 0, sizeof(c));
    c.opcode = opcode;
    c.cookie = cookie++;
    return c;
}

void aq_write(struct aq *q, const struct qrnic_cmd *cmd)
{
    uint32_t slot = q->pi & ((1u << q->log) - 1);

    memcpy(qf_ram(&q->d, AQ_SQ + slot * (uint64_t)QRNIC_CMD_SIZE,
                  sizeof(*cmd)), cmd, sizeof(*cmd));
    q->pi++;
}

void aq_post(struct aq *q, const struct qrnic_cmd *cmd)
{
    aq_write(q, cmd);
    aq_set_reg(q, QRNIC_REG_AQ_DB, q->pi);
}

void aq_run(struct aq *q)
{
    if (!qf_settle(&q->d, 1000)) {
        assert(0);
    }
}

struct aq_result aq_reap(struct aq *q)
{
    uint32_t slot = q->ci & ((1u << q->log) - 1);
    const uint8_t *p = qf_ram(&q->d, AQ_CQ + slot * (uint64_t)QRNIC_ACQE_SIZE,
                              QRNIC_ACQE_SIZE);
    uint32_t want_phase = ((q->ci >> q->log) & 1) ? 0 : 1;
    struct aq_result r;

    memset(&r, 0, sizeof(r));
    r.phase = qrnic_ld32(p + offsetof(struct qrnic_cqe_admin, flags)) &
              QRNIC_ADMIN_CQE_PHASE;
    if (r.phase != want_phase) {
        return r;           /* not written yet */
    }
    r.completed = 1;
    r.cookie = qrnic_ld16(p + offsetof(struct qrnic_cqe_admin, cookie));
    r.status = p[offsetof(struct qrnic_cqe_admin, status)];
    r.opcode = p[offsetof(struct qrnic_cqe_admin, opcode)];
    r.result0 = qrnic_ld32(p + offsetof(struct qrnic_cqe_admin, result0));
    r.result1 = qrnic_ld32(p + offsetof(struct qrnic_cqe_admin, result1));
    q->ci++;
    aq_set_reg(q, QRNIC_REG_AQ_CQ_CI, q->ci);
    return r;
}

struct aq_result aq_exec(struct aq *q, const struct qrnic_cmd *cmd)
{
    struct aq_result r;

    aq_post(q, cmd);
    aq_run(q);
    r = aq_reap(q);
    if (r.completed && r.cookie != cmd->cookie) {
        r.completed = 0;
    }
    return r;
}

uint8_t aq_status(struct aq *q, const struct qrnic_cmd *cmd)
{
    struct aq_result r = aq_exec(q, cmd);

    return r.completed ? r.status : 0xff;
}
