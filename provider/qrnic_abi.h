/* SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file */
/*
 * Command wrappers: the core uverbs command followed by the qrnic udata from
 * <rdma/qrnic-abi.h> (include/qrnic-abi.h in the qrnic repository).
 */
#ifndef QRNIC_PROV_ABI_H
#define QRNIC_PROV_ABI_H

#include <infiniband/kern-abi.h>
#include <rdma/qrnic-abi.h>
#include <kernel-abi/qrnic-abi.h>

DECLARE_DRV_CMD(qrnic_alloc_context, IB_USER_VERBS_CMD_GET_CONTEXT,
		qrnic_ureq_alloc_ucontext, qrnic_uresp_alloc_ucontext);
DECLARE_DRV_CMD(qrnic_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD,
		empty, qrnic_uresp_alloc_pd);
DECLARE_DRV_CMD(qrnic_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		qrnic_ureq_create_cq, qrnic_uresp_create_cq);
DECLARE_DRV_CMD(qrnic_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		qrnic_ureq_create_cq, qrnic_uresp_create_cq);
DECLARE_DRV_CMD(qrnic_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		qrnic_ureq_resize_cq, qrnic_uresp_resize_cq);
DECLARE_DRV_CMD(qrnic_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		empty, qrnic_uresp_create_qp);
DECLARE_DRV_CMD(qrnic_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ,
		empty, qrnic_uresp_create_srq);
/* An XRC SRQ: the same answer as for a basic one. */
DECLARE_DRV_CMD(qrnic_create_xsrq, IB_USER_VERBS_CMD_CREATE_XSRQ,
		empty, qrnic_uresp_create_srq);
DECLARE_DRV_CMD(qrnic_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, qrnic_uresp_create_ah);

/* cmd.c: the driver's own uverbs methods */
int qrnic_cmd_resize_srq(struct ibv_srq *ibsrq,
			 const struct qrnic_ureq_resize_srq *req,
			 struct qrnic_uresp_resize_srq *resp);

#endif
