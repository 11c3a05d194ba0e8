/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: UD multicast.  ATTACH_MCAST / DETACH_MCAST keep a table of
 * groups (multicast GIDs) and the UD QPs attached to each; a datagram to
 * QPN 0xffffff and a group's GID is handed to every QP attached to it, each
 * with its own Q_Key check and receive WQE.  The device accepts every
 * multicast MAC; what the guest joins is its own business.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

bool qrnic_gid_is_mcast(const uint8_t *gid)
{
    if (qrnic_gid_is_v4(gid)) {
        return (gid[12] & 0xf0) == 0xe0;        /* 224.0.0.0/4 */
    }
    return gid[0] == 0xff;
}

static struct qrnic_mcast_group *find_group(struct qrnic_engine *e,
                                            const uint8_t *gid)
{
    uint32_t i;

    for (i = 0; i < QRNIC_MAX_MCAST_GROUPS; i++) {
        if (e->mcast[i].nqp && !memcmp(e->mcast[i].gid, gid, 16)) {
            return &e->mcast[i];
        }
    }
    return NULL;
}

/* Index of qpn in the group, or nqp if it is not attached. */
static uint32_t member(const struct qrnic_mcast_group *g, uint32_t qpn)
{
    uint32_t i = 0;

    while (i < g->nqp && g->qpn[i] != qpn) {
        i++;
    }
    return i;
}

static void leave(struct qrnic_mcast_group *g, uint32_t i)
{
    g->qpn[i] = g->qpn[--g->nqp];
}

static enum qrnic_cmd_status
attach(struct qrnic_engine *e, uint32_t qpn, const uint8_t *gid)
{
    struct qrnic_mcast_group *g = find_group(e, gid);
    uint32_t i = 0;

    if (g) {
        if (member(g, qpn) < g->nqp) {
            return QRNIC_ST_OK;         /* attached already */
        }
        if (g->nqp == QRNIC_MAX_MCAST_QPS) {
            return QRNIC_ST_NO_RESOURCES;
        }
        g->qpn[g->nqp++] = qpn;
        return QRNIC_ST_OK;
    }
    while (i < QRNIC_MAX_MCAST_GROUPS && e->mcast[i].nqp) {
        i++;
    }
    if (i == QRNIC_MAX_MCAST_GROUPS) {
        return QRNIC_ST_NO_RESOURCES;
    }
    memcpy(e->mcast[i].gid, gid, 16);
    e->mcast[i].qpn[0] = qpn;
    e->mcast[i].nqp = 1;
    return QRNIC_ST_OK;
}

static enum qrnic_cmd_status mcast_cmd(struct qrnic_engine *e,
                                       const struct qrnic_cmd *cmd,
                                       bool attach_it)
{
    struct qrnic_qpc *qp = qrnic_qp_get(e, qrnic_get32(&cmd->mcast.qpn));
    const uint8_t *gid = cmd->mcast.gid;
    struct qrnic_mcast_group *g;
    uint32_t i;

    if (!qp) {
        return QRNIC_ST_BAD_HANDLE;
    }
    if (qp->type != QRNIC_QPT_UD || !qrnic_gid_is_mcast(gid) ||
        !qrnic_field_zero(cmd->mcast.rsvd)) {
        return QRNIC_ST_BAD_PARAM;
    }
    if (attach_it) {
        return attach(e, qp->qpn, gid);
    }
    g = find_group(e, gid);
    if (!g) {
        return QRNIC_ST_BAD_PARAM;      /* not attached */
    }
    i = member(g, qp->qpn);
    if (i == g->nqp) {
        return QRNIC_ST_BAD_PARAM;      /* not attached */
    }
    leave(g, i);
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_cmd_attach_mcast(struct qrnic_engine *e,
                                             struct qrnic_cmd_req *req)
{
    return mcast_cmd(e, req->cmd, true);
}

enum qrnic_cmd_status qrnic_cmd_detach_mcast(struct qrnic_engine *e,
                                             struct qrnic_cmd_req *req)
{
    return mcast_cmd(e, req->cmd, false);
}

void qrnic_mcast_detach_qp(struct qrnic_engine *e, uint32_t qpn)
{
    uint32_t i, k;

    for (i = 0; i < QRNIC_MAX_MCAST_GROUPS; i++) {
        struct qrnic_mcast_group *g = &e->mcast[i];

        if (!g->nqp) {
            continue;
        }
        k = member(g, qpn);
        if (k < g->nqp) {
            leave(g, k);
        }
    }
}

void qrnic_mcast_rx(struct qrnic_engine *e, const struct qrnic_rx *rx)
{
    struct qrnic_mcast_group *g;
    uint32_t qpns[QRNIC_MAX_MCAST_QPS], n, i;

    g = qrnic_gid_is_mcast(rx->dgid) ? find_group(e, rx->dgid) : NULL;
    if (!g) {
        qrnic_stat(e, QRNIC_STAT_RX_BAD_PKT);
        e->stats.rx_drop++;
        return;
    }
    /* A copy: a receive may move the QP to ERR, nothing more, but be safe. */
    n = g->nqp;
    memcpy(qpns, g->qpn, n * sizeof(qpns[0]));
    for (i = 0; i < n; i++) {
        struct qrnic_qpc *qp = qrnic_qp_get(e, qpns[i]);

        if (qp && qp->type == QRNIC_QPT_UD) {
            qrnic_ud_rx(e, qp, rx);
        }
    }
}
