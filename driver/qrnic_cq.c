// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic completion queues: creation for user space (the provider's buffer,
 * pinned) and for kernel consumers (a coherent buffer), destruction, and
 * the lookups the event queues use to reach a CQ by number.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <qrnic-abi.h>

#include "qrnic.h"
#include "qrnic_ib.h"

static size_t qrnic_cq_buf_size(u32 log_depth)
{
	return PAGE_ALIGN(((size_t)QRNIC_CQE_SIZE << log_depth) +
			  QRNIC_CQ_REC_SIZE);
}

/* Even the largest CQ buffer takes a one level page list of 4 KiB pages. */
static_assert(PAGE_ALIGN(((size_t)QRNIC_CQE_SIZE << QRNIC_CQ_MAX_LOG) +
			 QRNIC_CQ_REC_SIZE) / SZ_4K <= QRNIC_PBL_PER_PAGE);

/* log2 of the ring for cqe entries: the rule the provider uses as well. */
static int qrnic_cq_log_depth(struct qrnic_dev *qdev, int cqe)
{
	u32 max = 1U << QRNIC_CQ_MAX_LOG;

	if (qdev->attr.max_cqe)
		max = min(max, qdev->attr.max_cqe);
	if (cqe < 1 || cqe > max)
		return -EINVAL;
	return max_t(int, 1, order_base_2(cqe));
}

static int qrnic_cq_user_buf(struct qrnic_dev *qdev, struct qrnic_cq *cq,
			     const struct ib_cq_init_attr *attr,
			     struct ib_udata *udata, struct qrnic_pbl *pbl,
			     struct qrnic_pbl_buf *pbuf)
{
	struct qrnic_ureq_create_cq ureq = {};
	int need, ret;

	if (udata->inlen < sizeof(ureq) ||
	    udata->outlen < sizeof(struct qrnic_uresp_create_cq))
		return -EINVAL;
	if (udata->inlen > sizeof(ureq) &&
	    !ib_is_udata_cleared(udata, sizeof(ureq),
				 udata->inlen - sizeof(ureq)))
		return -EOPNOTSUPP;
	ret = ib_copy_from_udata(&ureq, udata, sizeof(ureq));
	if (ret)
		return ret;

	need = qrnic_cq_log_depth(qdev, attr->cqe);
	if (need < 0)
		return need;
	/* The provider may round up further, never below the request. */
	if (ureq.log_depth < need || ureq.log_depth > QRNIC_CQ_MAX_LOG ||
	    ureq.buf_size != qrnic_cq_buf_size(ureq.log_depth) ||
	    !PAGE_ALIGNED(ureq.buf_addr))
		return -EINVAL;
	cq->log_depth = ureq.log_depth;

	cq->umem = ib_umem_get(&qdev->ibdev, ureq.buf_addr, ureq.buf_size,
			       IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(cq->umem)) {
		ret = PTR_ERR(cq->umem);
		cq->umem = NULL;
		return ret;
	}
	ret = qrnic_pbl_build(qdev, cq->umem, SZ_4K, pbl, pbuf);
	if (ret) {
		ib_umem_release(cq->umem);
		cq->umem = NULL;
	}
	return ret;
}

static int qrnic_cq_kernel_buf(struct qrnic_dev *qdev, struct qrnic_cq *cq,
			       const struct ib_cq_init_attr *attr,
			       struct qrnic_pbl *pbl)
{
	int log = qrnic_cq_log_depth(qdev, attr->cqe);
	size_t ring;

	if (log < 0)
		return log;
	cq->log_depth = log;
	ring = (size_t)QRNIC_CQE_SIZE << log;
	cq->size = qrnic_cq_buf_size(log);
	cq->buf = dma_alloc_coherent(&qdev->pdev->dev, cq->size, &cq->dma,
				     GFP_KERNEL);
	if (!cq->buf)
		return -ENOMEM;
	cq->ring = cq->buf;
	cq->rec = cq->buf + ring;

	pbl->addr = cq->dma;
	pbl->npages = cq->size / SZ_4K;
	pbl->levels = QRNIC_PBL_CONTIG;
	pbl->page_shift = ilog2(SZ_4K);
	return 0;
}

static void qrnic_cq_free_buf(struct qrnic_dev *qdev, struct qrnic_cq *cq)
{
	if (cq->umem)
		ib_umem_release(cq->umem);
	if (cq->buf)
		dma_free_coherent(&qdev->pdev->dev, cq->size, cq->buf,
				  cq->dma);
	cq->umem = NULL;
	cq->buf = NULL;
}

int qrnic_create_cq_udata(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibcq->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_CREATE_CQ };
	struct qrnic_cq *cq = to_qcq(ibcq);
	struct qrnic_pbl_buf pbuf = {};
	struct qrnic_pbl pbl = {};
	int ret;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= qdev->num_ceqs)
		return -EINVAL;

	spin_lock_init(&cq->lock);
	refcount_set(&cq->refcnt, 1);
	init_completion(&cq->free);
	cq->ci = 0;

	if (udata)
		ret = qrnic_cq_user_buf(qdev, cq, attr, udata, &pbl, &pbuf);
	else
		ret = qrnic_cq_kernel_buf(qdev, cq, attr, &pbl);
	if (ret)
		return ret;

	cmd.create_cq.pbl = pbl;
	cmd.create_cq.uctx = qrnic_uctx_id(udata);
	cmd.create_cq.eqn = qdev->ceqs[attr->comp_vector].eq.eqn;
	cmd.create_cq.log_depth = cq->log_depth;
	ret = qrnic_aq_exec(qdev, &cmd, &cq->cqn, NULL);
	qrnic_pbl_release(qdev, &pbuf);
	if (ret)
		goto err_buf;
	ibcq->cqe = 1 << cq->log_depth;

	ret = xa_insert_irq(&qdev->cq_xa, cq->cqn, cq, GFP_KERNEL);
	if (ret) {
		ibdev_err(&qdev->ibdev, "CQ %u is already known: %d\n",
			  cq->cqn, ret);
		goto err_destroy;
	}

	if (udata) {
		struct qrnic_uresp_create_cq resp = {
			.cqn = cq->cqn,
			.log_depth = cq->log_depth,
		};

		ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (ret)
			goto err_erase;
	}
	return 0;

err_erase:
	xa_erase_irq(&qdev->cq_xa, cq->cqn);
err_destroy:
	if (qrnic_destroy_kept(qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_CQ,
						    cq->cqn))) {
		/* Leave the buffer to the device rather than free it. */
		return ret;
	}
err_buf:
	qrnic_cq_free_buf(qdev, cq);
	return ret;
}

static void qrnic_cq_put(struct qrnic_cq *cq)
{
	if (refcount_dec_and_test(&cq->refcnt))
		complete(&cq->free);
}

int qrnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibcq->device);
	struct qrnic_cq *cq = to_qcq(ibcq);
	int ret;

	ret = qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_CQ, cq->cqn);
	if (qrnic_destroy_kept(ret))
		return ret;

	/* No event handler reaches the CQ once it is out and unreferenced. */
	xa_erase_irq(&qdev->cq_xa, cq->cqn);
	qrnic_cq_put(cq);
	wait_for_completion(&cq->free);

	qrnic_cq_free_buf(qdev, cq);
	return 0;
}

static struct qrnic_cq *qrnic_cq_get(struct qrnic_dev *qdev, u32 cqn)
{
	unsigned long flags;
	struct qrnic_cq *cq;

	xa_lock_irqsave(&qdev->cq_xa, flags);
	cq = xa_load(&qdev->cq_xa, cqn);
	if (cq)
		refcount_inc(&cq->refcnt);
	xa_unlock_irqrestore(&qdev->cq_xa, flags);
	return cq;
}

/* Completion EQ: the device saw a CQE on an armed CQ.  Hard irq. */
void qrnic_cq_comp_event(struct qrnic_dev *qdev, u32 cqn)
{
	struct qrnic_cq *cq = qrnic_cq_get(qdev, cqn);

	if (!cq)
		return;
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	qrnic_cq_put(cq);
}

/* Async EQ: a CQE found the ring full and was dropped. */
void qrnic_cq_async_event(struct qrnic_dev *qdev, u32 cqn)
{
	struct qrnic_cq *cq = qrnic_cq_get(qdev, cqn);
	struct ib_event ev = {};

	if (!cq)
		return;
	ibdev_err_ratelimited(&qdev->ibdev, "CQ %u overflowed\n", cqn);
	if (cq->ibcq.event_handler) {
		ev.device = &qdev->ibdev;
		ev.element.cq = &cq->ibcq;
		ev.event = IB_EVENT_CQ_ERR;
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	qrnic_cq_put(cq);
}
