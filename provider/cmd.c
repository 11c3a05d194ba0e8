// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * The qrnic driver's own uverbs methods (ioctl), for what the write
 * commands cannot carry: an SRQ resize's new ring (include/qrnic-abi.h).
 */
#include <infiniband/cmd_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include "qrnic.h"
#include "qrnic_abi.h"

int qrnic_cmd_resize_srq(struct ibv_srq *ibsrq,
			 const struct qrnic_ureq_resize_srq *req,
			 struct qrnic_uresp_resize_srq *resp)
{
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_SRQ,
			       QRNIC_IB_METHOD_SRQ_RESIZE, 3);

	fill_attr_in_obj(cmd, QRNIC_IB_ATTR_SRQ_RESIZE_HANDLE, ibsrq->handle);
	fill_attr_in_ptr(cmd, QRNIC_IB_ATTR_SRQ_RESIZE_REQ, req);
	fill_attr_out_ptr(cmd, QRNIC_IB_ATTR_SRQ_RESIZE_RESP, resp);
	return execute_ioctl(ibsrq->context, cmd);
}
