/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tests build commands with the header's structs directly: the host is
 * little endian like the device interface (checked at start-up).
 */
#include <assert.h>
#include <string.h>
#include "aq_util.h"
#include "qrnic_le.h"

void aq_setup(struct aq *q, uint32_t db_pages, uint32_t log)
{
    uint32_t one = 1;

    assert(*(uint8_t *)&one == 1);
    memset(q, 0, sizeof(*q));
    fake_init(&q->f, &q->e, db_pages);
    q->log = log;
    if (qrnic_engine_enable(&q->e, AQ_SQ, AQ_CQ, log)) {
        assert(0);
    }
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

void aq_post(struct aq *q, const struct qrnic_cmd *cmd)
{
    uint32_t slot = q->pi & ((1u << q->log) - 1);

    memcpy(fake_ptr(&q->f, AQ_SQ + slot * 64ull), cmd, sizeof(*cmd));
    q->pi++;
    qrnic_aq_doorbell(&q->e, q->pi);
}

struct aq_result aq_reap(struct aq *q)
{
    uint32_t slot = q->ci & ((1u << q->log) - 1);
    const uint8_t *p = fake_ptr(&q->f, AQ_CQ + slot * 32ull);
    uint32_t want_phase = ((q->ci >> q->log) & 1) ? 0 : 1;
    struct aq_result r;

    memset(&r, 0, sizeof(r));
    r.phase = qrnic_ld32(p + 28) & QRNIC_ADMIN_CQE_PHASE;
    if (r.phase != want_phase) {
        return r;           /* not written yet */
    }
    r.completed = 1;
    r.cookie = qrnic_ld16(p);
    r.status = p[2];
    r.opcode = p[3];
    r.result0 = qrnic_ld32(p + 4);
    r.result1 = qrnic_ld32(p + 8);
    q->ci++;
    qrnic_aq_cq_doorbell(&q->e, q->ci);
    return r;
}

struct aq_result aq_exec(struct aq *q, const struct qrnic_cmd *cmd)
{
    struct aq_result r;

    aq_post(q, cmd);
    qrnic_aq_process(&q->e);
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
