// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic UD multicast: attach_mcast / detach_mcast put a UD QP into or out
 * of a multicast group (a multicast GID) in the device, which hands each
 * datagram to QPN 0xffffff and that GID to every QP attached.  Sending to
 * a group needs nothing here: it is a UD send through an AH for the group.
 * The device accepts every multicast MAC, so the netdev's address filter
 * plays no part (RoCE frames never reach the Ethernet rings anyway).
 */
#include <rdma/ib_addr.h>
#include <rdma/ib_verbs.h>

#include "qrnic.h"
#include "qrnic_ib.h"

static int qrnic_mcast_cmd(struct ib_qp *ibqp, union ib_gid *gid, u8 opcode)
{
	struct qrnic_dev *qdev = to_qdev(ibqp->device);
	struct qrnic_cmd cmd = { .opcode = opcode };
	struct qrnic_qp *qp = to_qqp(ibqp);

	/* ib_core checks both as well; the device would say BAD_PARAM. */
	if (qp->qp_type != QRNIC_QPT_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;

	cmd.mcast.qpn = cpu_to_le32(qp->qpn);
	memcpy(cmd.mcast.gid, gid->raw, sizeof(cmd.mcast.gid));
	return qrnic_aq_exec(qdev, &cmd, NULL, NULL);
}

/*
 * Attaching twice is fine; a full group (QRNIC_MAX_MCAST_QPS QPs) or group
 * table (QRNIC_MAX_MCAST_GROUPS) is ENOMEM.  The LID means nothing on RoCE.
 */
int qrnic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return qrnic_mcast_cmd(ibqp, gid, QRNIC_CMD_ATTACH_MCAST);
}

/* Detaching a QP that is not attached is EINVAL. */
int qrnic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return qrnic_mcast_cmd(ibqp, gid, QRNIC_CMD_DETACH_MCAST);
}
