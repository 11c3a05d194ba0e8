/* SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file */
/*
 * libqrnic: user space provider for the qrnic emulated RoCEv2 NIC.
 *
 * Control path verbs go through the kernel (uverbs commands handled by
 * qrnic.ko).  The data path needs no system calls: WQEs are written into
 * the QP's slice of BAR4 (mapped write-combining) and the context's own
 * doorbell page in BAR2 (mapped uncached) is rung; CQEs are polled from a
 * ring in pinned host memory.
 */
#ifndef QRNIC_PROV_H
#define QRNIC_PROV_H

#include <stdint.h>
#include <pthread.h>

#include <infiniband/driver.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "qrnic_hw.h"

struct qrnic_device {
	struct verbs_device ibv_dev;
};

struct qrnic_context {
	struct verbs_context ibv_ctx;

	/* From the driver's alloc_ucontext response. */
	uint32_t uctx_id;
	uint32_t db_page_index;	/* our page in BAR2, for diagnostics */
	uint32_t max_inline;

	/*
	 * This context's doorbell page (QRNIC_DB_PAGE_SIZE bytes of BAR2).
	 * Only the queues this context owns may be rung through it.
	 */
	void *db;

	/*
	 * Serialises the object bookkeeping that QP/CQ support adds (queue
	 * number -> object tables); unused by the control-path verbs.
	 */
	pthread_mutex_t lock;
};

struct qrnic_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
};

static inline struct qrnic_context *to_qctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct qrnic_context, ibv_ctx.context);
}

static inline struct qrnic_pd *to_qpd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct qrnic_pd, ibv_pd);
}

/*
 * Ring a doorbell: one 64-bit store to offset QRNIC_DB_* of the context's
 * page.  Callers order their WQE/CQ updates before it (udma_to_device_barrier).
 */
static inline void qrnic_ring_db(struct qrnic_context *ctx, uint32_t offset,
				 uint64_t val)
{
	mmio_write64_le((uint8_t *)ctx->db + offset, htole64(val));
}

/* verbs.c */
int qrnic_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int qrnic_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr);
struct ibv_pd *qrnic_alloc_pd(struct ibv_context *ibctx);
int qrnic_dealloc_pd(struct ibv_pd *ibpd);

#endif
