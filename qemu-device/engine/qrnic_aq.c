/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the admin queue.  Commands are read from the guest's
 * command ring, executed, and completed into the completion ring with a
 * phase bit; the device stalls rather than overwrite an unconsumed
 * completion.  Indices are free running; only their low 16 bits matter,
 * which works for drivers that count in 16 or 32 bits.
 */
#include <string.h>
#include "qrnic_engine.h"
#include "qrnic_le.h"

static uint32_t aq_depth(const struct qrnic_engine *e)
{
    return 1u << e->aq.log_depth;
}

bool qrnic_aq_doorbell(struct qrnic_engine *e, uint32_t pi)
{
    if (!e->ready ||
        !qrnic_pi_ok(e->aq.log_depth, e->aq.sq_pi, (uint16_t)pi, e->aq.sq_ci)) {
        e->stats.bad_db++;
        qrnic_guest_error(e, QRNIC_GUEST_ERR_AQ_DOORBELL, QRNIC_REG_AQ_DB, pi);
        return false;
    }
    e->aq.sq_pi = (uint16_t)pi;
    return true;
}

bool qrnic_aq_cq_doorbell(struct qrnic_engine *e, uint32_t ci)
{
    uint16_t c = (uint16_t)ci;

    if (!e->ready || !qrnic_ci_ok(e->aq.cq_pi, e->aq.cq_ci, c)) {
        e->stats.bad_db++;
        qrnic_guest_error(e, QRNIC_GUEST_ERR_AQ_DOORBELL, QRNIC_REG_AQ_CQ_CI,
                          ci);
        return false;
    }
    e->aq.cq_ci = c;
    return true;
}

static bool aq_cq_full(const struct qrnic_engine *e)
{
    return (uint16_t)(e->aq.cq_pi - e->aq.cq_ci) >= aq_depth(e);
}

bool qrnic_aq_pending(const struct qrnic_engine *e)
{
    return e->ready && e->aq.sq_ci != e->aq.sq_pi && !aq_cq_full(e);
}

static void aq_complete(struct qrnic_engine *e, uint8_t opcode,
                        uint16_t cookie, enum qrnic_cmd_status status,
                        uint32_t r0, uint32_t r1)
{
    struct qrnic_cqe_admin cqe;
    uint32_t slot = e->aq.cq_pi & (aq_depth(e) - 1);
    uint32_t phase = ((e->aq.cq_pi >> e->aq.log_depth) & 1) ?
                     0 : QRNIC_ADMIN_CQE_PHASE;

    memset(&cqe, 0, sizeof(cqe));
    qrnic_put16(&cqe.cookie, cookie);
    cqe.status = status;
    cqe.opcode = opcode;
    qrnic_put32(&cqe.result0, r0);
    qrnic_put32(&cqe.result1, r1);
    qrnic_put32(&cqe.flags, phase);
    /* A completion that cannot be written is lost; its slot is used up. */
    qrnic_dma_write(e, e->aq.cq_base + (uint64_t)slot * QRNIC_ACQE_SIZE,
                    &cqe, sizeof(cqe));
    e->aq.cq_pi++;
    qrnic_event(e, &(struct qrnic_event){
        .kind = QRNIC_EV_CMD_DONE,
        .cmd = { .opcode = opcode, .status = status, .cookie = cookie,
                 .result0 = r0, .result1 = r1 },
    });
}

/* Execute every posted command that has a free completion slot. */
void qrnic_aq_run(struct qrnic_engine *e)
{
    struct qrnic_cmd cmd;
    bool done = false;

    while (qrnic_aq_pending(e)) {
        uint32_t slot = e->aq.sq_ci & (aq_depth(e) - 1);
        uint32_t r0 = 0, r1 = 0;
        enum qrnic_cmd_status status;

        e->aq.sq_ci++;
        e->stats.admin_cmds++;
        if (qrnic_dma_read(e, e->aq.sq_base + (uint64_t)slot * QRNIC_CMD_SIZE,
                           &cmd, sizeof(cmd))) {
            aq_complete(e, 0, 0, QRNIC_ST_DMA_ERROR, 0, 0);
            done = true;
            continue;
        }
        status = qrnic_cmd_exec(e, &cmd, &r0, &r1);
        if (!e->ready) {
            /* Nothing the command does can reset us; defensive. */
            return;
        }
        aq_complete(e, cmd.opcode, qrnic_get16(&cmd.cookie), status, r0, r1);
        done = true;
    }
    if (done) {
        qrnic_engine_raise(e, 0);
    }
    e->rx_ready_wanted = true;      /* ETH_SETUP may have made room */
}
