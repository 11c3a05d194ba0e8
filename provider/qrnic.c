// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: device matching and user context setup.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "compat.h"
#include "qrnic.h"
#include "qrnic_abi.h"

static void qrnic_free_context(struct ibv_context *ibctx);

/*
 * Verbs not listed here (WQs, flow steering, ...) are not supported;
 * libibverbs answers them with EOPNOTSUPP.  cq_event and async_event keep
 * libibverbs' defaults: the provider has no per-event state to update.
 */
static const struct verbs_context_ops qrnic_ctx_ops = {
	.alloc_mw = qrnic_alloc_mw,
	.alloc_parent_domain = qrnic_alloc_parent_domain,
	.alloc_pd = qrnic_alloc_pd,
	.alloc_td = qrnic_alloc_td,
	.attach_mcast = qrnic_attach_mcast,
	.bind_mw = qrnic_bind_mw,
	.close_xrcd = qrnic_close_xrcd,
	.create_ah = qrnic_create_ah,
	.create_cq = qrnic_create_cq,
	.create_cq_ex = qrnic_create_cq_ex,
	.create_qp = qrnic_create_qp,
	.create_qp_ex = qrnic_create_qp_ex,
	.create_srq = qrnic_create_srq,
	.create_srq_ex = qrnic_create_srq_ex,
	.dealloc_mw = qrnic_dealloc_mw,
	.dealloc_pd = qrnic_dealloc_pd,
	.dealloc_td = qrnic_dealloc_td,
	.dereg_mr = qrnic_dereg_mr,
	.destroy_ah = qrnic_destroy_ah,
	.destroy_cq = qrnic_destroy_cq,
	.destroy_qp = qrnic_destroy_qp,
	.destroy_srq = qrnic_destroy_srq,
	.detach_mcast = qrnic_detach_mcast,
	.free_context = qrnic_free_context,
	.get_srq_num = qrnic_get_srq_num,
	.modify_qp = qrnic_modify_qp,
	.modify_srq = qrnic_modify_srq,
	.open_qp = qrnic_open_qp,
	.open_xrcd = qrnic_open_xrcd,
	.poll_cq = qrnic_poll_cq,
	.post_recv = qrnic_post_recv,
	.post_send = qrnic_post_send,
	.post_srq_recv = qrnic_post_srq_recv,
	.query_device_ex = qrnic_query_device_ex,
	.query_port = qrnic_query_port,
	.query_qp = qrnic_query_qp,
	.query_srq = qrnic_query_srq,
	.reg_mr = qrnic_reg_mr,
	.rereg_mr = qrnic_rereg_mr,
	.req_notify_cq = qrnic_req_notify_cq,
	.resize_cq = qrnic_resize_cq,
};

static struct verbs_context *qrnic_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct qrnic_alloc_context_resp resp = {};
	struct qrnic_alloc_context cmd = {};
	struct qrnic_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	if (qrnic_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp))) {
		err = errno;
		goto err_uninit;
	}

	ctx->uctx_id = resp.uctx_id;
	ctx->db_page_index = resp.db_page_index;
	ctx->max_inline = resp.max_inline;

	ctx->db = mmap(NULL, QRNIC_DB_PAGE_SIZE, PROT_WRITE, MAP_SHARED,
		       cmd_fd, resp.db_mmap_key);
	if (ctx->db == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibv_ctx,
			  "qrnic: mapping doorbell page %u failed: %d\n",
			  ctx->db_page_index, err);
		goto err_uninit;
	}

	pthread_mutex_init(&ctx->lock, NULL);
	pthread_mutex_init(&ctx->xsrq_lock, NULL);
	verbs_set_ops(&ctx->ibv_ctx, &qrnic_ctx_ops);
	return &ctx->ibv_ctx;

err_uninit:
	/* Closing cmd_fd (done by the caller) releases the kernel context. */
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void qrnic_free_context(struct ibv_context *ibctx)
{
	struct qrnic_context *ctx = to_qctx(ibctx);

	munmap(ctx->db, QRNIC_DB_PAGE_SIZE);
	qrnic_qp_table_free(ctx);
	qrnic_xsrq_table_free(ctx);
	pthread_mutex_destroy(&ctx->lock);
	pthread_mutex_destroy(&ctx->xsrq_lock);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static struct verbs_device *qrnic_alloc_device(struct verbs_sysfs_dev *sdev)
{
	struct qrnic_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void qrnic_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct qrnic_device, ibv_dev));
}

static const struct verbs_match_ent qrnic_match_table[] = {
	VERBS_PCI_MATCH(QRNIC_PCI_VENDOR_ID, QRNIC_PCI_DEVICE_ID, NULL),
	{}
};

static const struct verbs_device_ops qrnic_dev_ops = {
	.name = "qrnic",
	.match_min_abi_version = QRNIC_UVERBS_ABI_VERSION,
	.match_max_abi_version = QRNIC_UVERBS_ABI_VERSION,
	.match_table = qrnic_match_table,
	.alloc_device = qrnic_alloc_device,
	.uninit_device = qrnic_uninit_device,
	.alloc_context = qrnic_alloc_context,
};

PROVIDER_DRIVER(qrnic, qrnic_dev_ops);
