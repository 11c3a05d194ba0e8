/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: UD and GSI queue pairs.  A datagram is one packet of at
 * most the port's IB MTU; it is sent as soon as its WQE is read (the
 * address vector is in the WQE), completes when it is on the wire, and is
 * never acknowledged or resent.  A received datagram whose Q_Key does not
 * match, or that finds no receive WQE, is dropped and counted.  The
 * receive buffer gets the 40-byte GRH first, as verbs consumers expect:
 * the IPv6 header, or 20 unused bytes and the IPv4 header.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define AV(field) (w + offsetof(struct qrnic_sq_wqe, ud) + \
                   offsetof(struct qrnic_ud_av, field))
#define UD_WQE_FLAGS (QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_SOLICITED | \
                      QRNIC_WQE_F_INLINE | QRNIC_WQE_F_FENCE)

uint32_t qrnic_ud_mtu(const struct qrnic_engine *e)
{
    uint32_t mtu = 4096;

    while (mtu > 256 && mtu > e->mtu) {
        mtu >>= 1;
    }
    return mtu;
}

bool qrnic_gid_is_local(const struct qrnic_engine *e, const uint8_t *gid)
{
    uint32_t i;

    for (i = 0; i < QRNIC_ENG_GID_TBL_LEN; i++) {
        if (e->gid[i].valid && !memcmp(e->gid[i].gid, gid, 16)) {
            return true;
        }
    }
    return false;
}

/* The WQE's address vector; false if it names no usable source GID. */
static bool read_av(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                    const uint8_t *w, struct qrnic_av *av, uint32_t *qkey)
{
    uint8_t sgi = *AV(sgid_index);

    av->dest_qpn = qrnic_ld32(AV(dest_qpn));
    av->flow_label = qrnic_ld32(AV(flow_label)) & QRNIC_FLOW_LABEL_MASK;
    memcpy(av->dgid, AV(dgid), 16);
    memcpy(av->dmac, AV(dmac), 6);
    av->hop_limit = *AV(hop_limit);
    av->tclass = *AV(traffic_class);
    *qkey = qrnic_ld32(AV(qkey));
    if (*qkey & QRNIC_UD_QKEY_USE_QP) {
        *qkey = qp->attr.qkey;       /* a controlled Q_Key: the QP's own */
    }
    if (sgi >= QRNIC_ENG_GID_TBL_LEN || !e->gid[sgi].valid ||
        av->dest_qpn > QRNIC_PSN_MASK ||
        qrnic_gid_is_v4(e->gid[sgi].gid) != qrnic_gid_is_v4(av->dgid)) {
        return false;
    }
    memcpy(av->sgid, e->gid[sgi].gid, 16);
    av->ipv4 = qrnic_gid_is_v4(av->dgid);
    av->sport = qrnic_wire_sport(av->flow_label, qp->qpn, av->dest_qpn);
    return true;
}

static void complete_send(struct qrnic_engine *e, struct qrnic_qpc *qp,
                          uint64_t wr_id, uint8_t flags, uint32_t len,
                          enum qrnic_wc_status status,
                          enum qrnic_vendor_err verr)
{
    struct qrnic_wc wc;

    if (status == QRNIC_WC_SUCCESS && !qp->sig_all &&
        !(flags & QRNIC_WQE_F_SIGNALED)) {
        return;
    }
    memset(&wc, 0, sizeof(wc));
    wc.wr_id = wr_id;
    wc.byte_len = len;
    wc.qpn = qp->qpn;
    wc.wqe_idx = (uint16_t)(qp->req.sq_tail - 1);
    wc.opcode = QRNIC_CQE_OP_SEND;
    wc.status = status;
    wc.flags = QRNIC_CQE_F_SEND;
    wc.vendor_err = verr;
    qrnic_cq_post(e, qp->scq, &wc);
}

/*
 * Read, check and send the WQE at sq_head, then complete it.  Returns the
 * completion status; anything but success puts the QP in error.
 */
static enum qrnic_wc_status
send_one(struct qrnic_engine *e, struct qrnic_qpc *qp,
         uint64_t *wr_id, uint8_t *flags, uint32_t *len,
         enum qrnic_vendor_err *verr)
{
    uint8_t w[1u << QRNIC_SQ_MAX_LOG_STRIDE];
    uint32_t stride = 1u << qp->log_sq_stride;
    uint32_t room = stride - sizeof(struct qrnic_sq_wqe);
    uint8_t *f = e->roce_frame, opcode, num_sge;
    struct qrnic_wr_info info;
    struct qrnic_sgl sgl;
    struct qrnic_av av;
    uint32_t qkey, imm;
    size_t pos;

    /* One private copy of the slot: the guest may rewrite it meanwhile. */
    qrnic_qp_sq_read(e, qp, qp->req.sq_head, w, stride);
    *wr_id = qrnic_ld64(qrnic_wqe_at(w, wr_id));
    *flags = *qrnic_wqe_at(w, flags);
    *len = 0;
    opcode = *qrnic_wqe_at(w, opcode);
    num_sge = *qrnic_wqe_at(w, num_sge);
    memcpy(&imm, qrnic_wqe_at(w, imm_data), 4);

    *verr = QRNIC_VERR_BAD_OPCODE;
    info = qrnic_wr_info(opcode);
    if (!(info.qp_types & QRNIC_WR_QPT(qp->type)) ||
        (*flags & ~UD_WQE_FLAGS)) {
        return QRNIC_WC_LOC_QP_OP_ERR;
    }
    *verr = QRNIC_VERR_BAD_AV;
    if (!read_av(e, qp, w, &av, &qkey)) {
        return QRNIC_WC_LOC_QP_OP_ERR;
    }
    *verr = QRNIC_VERR_BAD_SGE;
    sgl.num = 0;
    sgl.total = 0;
    if (*flags & QRNIC_WQE_F_INLINE) {
        sgl.total = qrnic_ld32(qrnic_wqe_at(w, inline_len));
        if (sgl.total > room || sgl.total > QRNIC_MAX_INLINE) {
            return QRNIC_WC_LOC_LEN_ERR;
        }
    } else {
        if (num_sge > room / sizeof(struct qrnic_sge) ||
            num_sge > QRNIC_MAX_SGE) {
            return QRNIC_WC_LOC_LEN_ERR;
        }
        qrnic_sgl_decode(&sgl, w + sizeof(struct qrnic_sq_wqe), num_sge);
    }
    if (sgl.total > qrnic_ud_mtu(e)) {
        *verr = QRNIC_VERR_MSG_TOO_LONG;
        return QRNIC_WC_LOC_LEN_ERR;
    }
    *len = (uint32_t)sgl.total;

    pos = qrnic_wire_begin_av(e, &av, f, info.props & QRNIC_WR_P_IMM ?
                              QRNIC_OP_UD_SEND_ONLY_IMM :
                              QRNIC_OP_UD_SEND_ONLY, qp->req.next_psn,
                              *flags & QRNIC_WQE_F_SOLICITED, false);
    pos += qrnic_put_deth(f + pos, qkey, qp->qpn);
    if (info.props & QRNIC_WR_P_IMM) {
        pos += qrnic_put_imm(f + pos, imm);
    }
    if (*flags & QRNIC_WQE_F_INLINE) {
        memcpy(f + pos, w + sizeof(struct qrnic_sq_wqe), *len);
    } else if (*len) {
        *verr = qrnic_sgl_copy(e, qp->pdn, &sgl, 0, f + pos, *len, false);
        if (*verr) {
            return QRNIC_WC_LOC_PROT_ERR;
        }
    }
    *verr = QRNIC_VERR_NONE;
    qp->req.next_psn = psn_add(qp->req.next_psn, 1);
    qrnic_tx(e, f, qrnic_wire_finish_ip(av.ipv4, f, pos + *len));
    return QRNIC_WC_SUCCESS;
}

bool qrnic_ud_work(struct qrnic_engine *e, struct qrnic_qpc *qp,
                   uint32_t budget)
{
    if (qp->state == QRNIC_QPS_SQD && qp->sqd_notify &&
        !qp->sqd_event_sent && e->async_eqn >= 0) {
        /* Nothing is ever in flight: drained on entry. */
        qp->sqd_event_sent = true;
        qrnic_eq_post(e, (uint32_t)e->async_eqn, QRNIC_EVENT_SQ_DRAINED,
                      qp->qpn, 0);
    }
    while (qp->state == QRNIC_QPS_RTS && qp->req.sq_head != qp->req.sq_pi) {
        enum qrnic_wc_status status;
        enum qrnic_vendor_err verr;
        uint8_t flags;
        uint64_t wr_id;
        uint32_t len;

        if (!budget--) {
            return true;
        }
        status = send_one(e, qp, &wr_id, &flags, &len, &verr);
        qp->req.sq_head++;
        qp->req.sq_tail = qp->req.sq_cur = qp->req.sq_head;
        complete_send(e, qp, wr_id, flags, len, status, verr);
        if (status != QRNIC_WC_SUCCESS) {
            qrnic_qp_error(e, qp, false);
        }
    }
    return false;
}

/* ---- receive ------------------------------------------------------------- */

/* The 40 bytes a UD receive buffer starts with. */
static void build_grh(const struct qrnic_rx *rx, const uint8_t *frame,
                      uint8_t *grh)
{
    memset(grh, 0, QRNIC_GRH_LEN);
    if (rx->pkt.ipv6) {
        memcpy(grh, frame + rx->pkt.l3, QRNIC_GRH_LEN);
    } else {
        memcpy(grh + QRNIC_GRH_LEN - sizeof(struct qrnic_ipv4hdr),
               frame + rx->pkt.l3, sizeof(struct qrnic_ipv4hdr));
    }
}

void qrnic_ud_rx(struct qrnic_engine *e, struct qrnic_qpc *qp,
                 const struct qrnic_rx *rx)
{
    uint8_t grh[QRNIC_GRH_LEN];
    uint8_t verr, status;

    if (qp->state != QRNIC_QPS_RTR && qp->state != QRNIC_QPS_RTS &&
        qp->state != QRNIC_QPS_SQD) {
        qrnic_stat(e, QRNIC_STAT_RX_BAD_PKT);
        e->stats.rx_drop++;
        return;
    }
    if (rx->qkey != qp->attr.qkey) {
        qrnic_stat(e, QRNIC_STAT_RX_QKEY_ERR);
        e->stats.rx_drop++;
        return;
    }
    if (!qrnic_recv_ready(qp)) {
        qrnic_stat(e, QRNIC_STAT_RX_UD_NO_RQE);
        e->stats.rx_drop++;
        return;
    }
    verr = qrnic_recv_take(e, qp);
    status = QRNIC_WC_LOC_LEN_ERR;
    if (!verr &&
        qp->resp.recv_sgl.total < QRNIC_GRH_LEN + (uint64_t)rx->paylen) {
        verr = QRNIC_VERR_MSG_TOO_LONG;
    }
    if (!verr) {
        status = QRNIC_WC_LOC_PROT_ERR;
        build_grh(rx, rx->frame, grh);
        verr = qrnic_sgl_copy(e, qp->resp.recv_pdn, &qp->resp.recv_sgl, 0, grh,
                              QRNIC_GRH_LEN, true);
    }
    if (!verr && rx->paylen) {
        verr = qrnic_sgl_copy(e, qp->resp.recv_pdn, &qp->resp.recv_sgl,
                              QRNIC_GRH_LEN, (void *)rx->payload, rx->paylen,
                              true);
    }
    if (verr) {
        qrnic_recv_complete(e, qp, QRNIC_CQE_OP_RECV, status, verr, 0, rx);
        qrnic_qp_error(e, qp, false);
        return;
    }
    qrnic_recv_complete(e, qp, QRNIC_CQE_OP_RECV, QRNIC_WC_SUCCESS,
                        QRNIC_VERR_NONE, QRNIC_GRH_LEN + rx->paylen, rx);
}
