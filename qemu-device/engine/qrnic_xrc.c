/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: XRC targets.  An XRC_TGT QP is an RC responder without a
 * receive queue, CQ or PD of its own: every request names, in its XRCETH,
 * an XRC SRQ of the QP's domain, and the message uses that SRQ's receive
 * WQE, CQ and PD.  The QP borrows the SRQ from a message's first packet
 * on and keeps it until another message names another one; destroying
 * the SRQ takes it back from every QP.  XRC_INI QPs are RC requesters
 * whose packets carry the XRCETH (qrnic_wire_begin); they need nothing
 * here.
 */
#include "qrnic_rdma.h"

bool qrnic_xrc_bind(struct qrnic_engine *e, struct qrnic_qpc *qp,
                    const struct qrnic_rx *rx)
{
    struct qrnic_srqc *srq;

    if (qp->resp.resp_msg != QRNIC_RESP_NONE) {
        /* Within a message: the SRQ it began with, if it is still there. */
        return qp->srq && qp->srq->srqn == rx->xrc_srqn;
    }
    srq = qrnic_srq_get(e, rx->xrc_srqn);
    if (!srq || !srq->xrcd || srq->xrcd != qp->xrcd) {
        return false;
    }
    qp->srq = srq;
    qp->rcq = srq->cq;
    qp->pdn = srq->pdn;
    return true;
}

uint32_t qrnic_xrc_reply_pdn(struct qrnic_engine *e,
                             const struct qrnic_qpc *qp, uint32_t srqn)
{
    struct qrnic_srqc *srq = qrnic_srq_get(e, srqn);

    return srq && srq->xrcd && srq->xrcd == qp->xrcd ? srq->pdn : 0;
}

void qrnic_xrc_srq_gone(struct qrnic_engine *e, struct qrnic_srqc *srq)
{
    struct qrnic_qpc *qp;
    uint32_t i;

    QRNIC_TABLE_FOR_EACH(&e->obj[QRNIC_OBJ_QP], i, qp) {
        if (qp->type != QRNIC_QPT_XRC_TGT || qp->srq != srq) {
            continue;
        }
        /* A WQE taken mid-message went with its SRQ. */
        qp->resp.recv_active = false;
        qp->srq = NULL;
        qp->rcq = NULL;
        qp->pdn = 0;
    }
}
