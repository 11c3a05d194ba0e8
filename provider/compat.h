/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Differences between the rdma-core trees libqrnic builds in (56 to 65),
 * kept in this one place.  CMakeLists.txt finds them in the tree's own
 * libibverbs/driver.h, not from its version.
 */
#ifndef QRNIC_COMPAT_H
#define QRNIC_COMPAT_H

#include <infiniband/driver.h>

/* Since rdma-core 57 get_context may hand file descriptors to the kernel. */
static inline int qrnic_cmd_get_context(struct verbs_context *ctx,
					struct ibv_get_context *cmd,
					size_t cmd_size,
					struct ib_uverbs_get_context_resp *resp,
					size_t resp_size)
{
#ifdef QRNIC_GET_CONTEXT_FD_ARR
	return ibv_cmd_get_context(ctx, cmd, cmd_size, NULL, resp, resp_size);
#else
	return ibv_cmd_get_context(ctx, cmd, cmd_size, resp, resp_size);
#endif
}

/* Since rdma-core 59 a CQ may come with a provider-supplied buffer. */
static inline int qrnic_cmd_create_cq_ex(struct ibv_context *ctx,
					 const struct ibv_cq_init_attr_ex *attr,
					 struct verbs_cq *cq,
					 struct ibv_create_cq_ex *cmd,
					 size_t cmd_size,
					 struct ib_uverbs_ex_create_cq_resp *resp,
					 size_t resp_size, uint32_t cmd_flags)
{
#ifdef QRNIC_CREATE_CQ_PROV_ATTR
	return ibv_cmd_create_cq_ex(ctx, attr, NULL, cq, cmd, cmd_size, resp,
				    resp_size, cmd_flags);
#else
	return ibv_cmd_create_cq_ex(ctx, attr, cq, cmd, cmd_size, resp,
				    resp_size, cmd_flags);
#endif
}

#endif /* QRNIC_COMPAT_H */
