// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic completion queues: creation for user space (the provider's buffer,
 * pinned) and for kernel consumers (a coherent buffer), resizing (a new
 * buffer of either kind, the CQEs not yet polled moved over), destruction,
 * and the lookups the event queues use to reach a CQ by number.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <qrnic-abi.h>

#include "qrnic.h"
#include "qrnic_ib.h"
#include "qrnic_compat.h"

static size_t qrnic_cq_buf_size(u32 log_depth)
{
	return PAGE_ALIGN(((size_t)QRNIC_CQE_SIZE << log_depth) +
			  QRNIC_CQ_REC_SIZE);
}

/*
 * A kernel CQ's buffer is one physically contiguous allocation, of at most
 * 4 MiB (MAX_PAGE_ORDER 10): up to 1 << 16 CQEs and the record.  User CQs
 * take a page list and may hold up to the device's max_cqe.
 */
#define QRNIC_KERNEL_CQ_MAX_LOG	16
static_assert(QRNIC_KERNEL_CQ_MAX_LOG <= QRNIC_CQ_MAX_LOG);

/* log2 of the ring for cqe entries: the rule the provider uses as well. */
static int qrnic_cq_log_depth(struct qrnic_dev *qdev, int cqe)
{
	u32 max_cqe = le32_to_cpu(qdev->attr.max_cqe);
	u32 max = 1U << QRNIC_CQ_MAX_LOG;

	if (max_cqe)
		max = min(max, max_cqe);
	if (cqe < 1 || cqe > max)
		return -EINVAL;
	return max_t(int, 1, order_base_2(cqe));
}

/*
 * Copy a request laid out as struct qrnic_ureq_create_cq (create and
 * resize), refusing trailing bytes that are not zero, and check that the
 * response fits.
 */
static int qrnic_cq_ureq(struct ib_udata *udata, void *ureq, size_t len,
			 size_t resp_len)
{
	if (udata->inlen < len || udata->outlen < resp_len)
		return -EINVAL;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return ib_copy_from_udata(ureq, udata, len);
}

/*
 * Pin the provider's buffer of 1 << log_depth CQEs for cqe entries and
 * list its pages.  The provider may round up further, never below the
 * request.
 */
static struct ib_umem *qrnic_cq_pin(struct qrnic_dev *qdev, int cqe,
				    u64 buf_addr, u32 buf_size, u32 log_depth,
				    struct qrnic_pbl *pbl,
				    struct qrnic_pbl_buf *pbuf)
{
	int need = qrnic_cq_log_depth(qdev, cqe);
	struct ib_umem *umem;
	int ret;

	if (need < 0)
		return ERR_PTR(need);
	if (log_depth < need || log_depth > QRNIC_CQ_MAX_LOG ||
	    buf_size != qrnic_cq_buf_size(log_depth) ||
	    !PAGE_ALIGNED(buf_addr))
		return ERR_PTR(-EINVAL);

	umem = qrnic_umem_get(&qdev->ibdev, buf_addr, buf_size,
			      IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem))
		return umem;
	ret = qrnic_pbl_build(qdev, umem, SZ_4K, pbl, pbuf);
	if (ret) {
		ib_umem_release(umem);
		return ERR_PTR(ret);
	}
	return umem;
}

static int qrnic_cq_user_buf(struct qrnic_dev *qdev, struct qrnic_cq *cq,
			     const struct ib_cq_init_attr *attr,
			     struct ib_udata *udata, struct qrnic_pbl *pbl,
			     struct qrnic_pbl_buf *pbuf)
{
	struct qrnic_ureq_create_cq ureq = {};
	struct ib_umem *umem;
	int ret;

	ret = qrnic_cq_ureq(udata, &ureq, sizeof(ureq),
			    sizeof(struct qrnic_uresp_create_cq));
	if (ret)
		return ret;
	umem = qrnic_cq_pin(qdev, attr->cqe, ureq.buf_addr, ureq.buf_size,
			    ureq.log_depth, pbl, pbuf);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	cq->umem = umem;
	cq->log_depth = ureq.log_depth;
	return 0;
}

static int qrnic_cq_kernel_buf(struct qrnic_dev *qdev, struct qrnic_cq *cq,
			       const struct ib_cq_init_attr *attr,
			       struct qrnic_pbl *pbl)
{
	int log = qrnic_cq_log_depth(qdev, attr->cqe);
	size_t ring;

	if (log < 0)
		return log;
	if (log > QRNIC_KERNEL_CQ_MAX_LOG)
		return -EINVAL;
	cq->log_depth = log;
	ring = (size_t)QRNIC_CQE_SIZE << log;
	cq->size = qrnic_cq_buf_size(log);
	cq->buf = dma_alloc_coherent(&qdev->pdev->dev, cq->size, &cq->dma,
				     GFP_KERNEL);
	if (!cq->buf)
		return -ENOMEM;
	cq->ring = cq->buf;
	cq->rec = cq->buf + ring;

	pbl->addr = cpu_to_le64(cq->dma);
	pbl->npages = cpu_to_le32(cq->size / SZ_4K);
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
	mutex_init(&cq->resize_mutex);
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
	cmd.create_cq.uctx = cpu_to_le32(qrnic_uctx_id(udata));
	cmd.create_cq.eqn = cpu_to_le32(qdev->ceqs[attr->comp_vector].eq.eqn);
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

	/* After a resize in progress: its buffer is the one to free. */
	mutex_lock(&cq->resize_mutex);
	ret = qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_CQ, cq->cqn);
	mutex_unlock(&cq->resize_mutex);
	if (qrnic_destroy_kept(ret))
		return ret;

	/* No event handler reaches the CQ once it is out and unreferenced. */
	xa_erase_irq(&qdev->cq_xa, cq->cqn);
	qrnic_cq_put(cq);
	wait_for_completion(&cq->free);

	qrnic_cq_free_buf(qdev, cq);
	mutex_destroy(&cq->resize_mutex);
	return 0;
}

/*
 * Resize a user CQ: the provider passes its new buffer and has written its
 * consumer index into the record; it copies the CQEs itself, up to the
 * producer index returned (include/qrnic-abi.h).  Called with
 * resize_mutex held.
 */
static int qrnic_resize_user_cq(struct qrnic_dev *qdev, struct qrnic_cq *cq,
				int cqe, struct ib_udata *udata)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_RESIZE_CQ };
	struct qrnic_uresp_resize_cq resp = {};
	struct qrnic_ureq_resize_cq ureq = {};
	struct qrnic_pbl_buf pbuf = {};
	struct ib_umem *umem;
	u32 pi;
	int ret;

	ret = qrnic_cq_ureq(udata, &ureq, sizeof(ureq), sizeof(resp));
	if (ret)
		return ret;
	umem = qrnic_cq_pin(qdev, cqe, ureq.buf_addr, ureq.buf_size,
			    ureq.log_depth, &cmd.resize_cq.pbl, &pbuf);
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	cmd.resize_cq.cqn = cpu_to_le32(cq->cqn);
	cmd.resize_cq.log_depth = ureq.log_depth;
	ret = qrnic_aq_exec(qdev, &cmd, &pi, NULL);
	qrnic_pbl_release(qdev, &pbuf);
	if (ret) {
		/* The device still writes the old buffer. */
		ib_umem_release(umem);
		return ret;
	}

	/* The device writes the new buffer only: let go of the old one. */
	ib_umem_release(cq->umem);
	cq->umem = umem;
	cq->log_depth = ureq.log_depth;
	cq->ibcq.cqe = 1 << cq->log_depth;

	resp.pi = pi;
	resp.log_depth = cq->log_depth;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/*
 * Resize a kernel CQ.  No poller may run between reading the consumer
 * index for the new record and switching to the new ring, and the switch
 * happens inside RESIZE_CQ, so the command is issued under the CQ lock
 * (busy-waiting, interrupts off).  Called with resize_mutex held.
 */
static int qrnic_resize_kernel_cq(struct qrnic_dev *qdev, struct qrnic_cq *cq,
				  u32 log)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_RESIZE_CQ };
	size_t size = qrnic_cq_buf_size(log), old_size;
	struct qrnic_cqe *ring, *from, *to;
	u32 depth = 1U << log, i, n, pi;
	dma_addr_t dma, old_dma;
	struct qrnic_cq_rec *rec;
	void *buf, *old_buf;
	unsigned long flags;
	int ret;

	buf = dma_alloc_coherent(&qdev->pdev->dev, size, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ring = buf;
	rec = buf + ((size_t)QRNIC_CQE_SIZE << log);

	cmd.resize_cq.pbl.addr = cpu_to_le64(dma);
	cmd.resize_cq.pbl.npages = cpu_to_le32(size / SZ_4K);
	cmd.resize_cq.pbl.levels = QRNIC_PBL_CONTIG;
	cmd.resize_cq.pbl.page_shift = ilog2(SZ_4K);
	cmd.resize_cq.cqn = cpu_to_le32(cq->cqn);
	cmd.resize_cq.log_depth = log;

	ret = qrnic_aq_get_slot(qdev);
	if (ret)
		goto out_free;

	spin_lock_irqsave(&cq->lock, flags);
	/* Each entry unwritten for the index it holds next, then the record. */
	for (i = cq->ci; i != cq->ci + depth; i++)
		ring[i & (depth - 1)].owner =
			cpu_to_le32((i >> log) & QRNIC_CQE_PHASE);
	rec->ci = cpu_to_le32(cq->ci);
	ret = qrnic_aq_exec_atomic(qdev, &cmd, &pi, NULL);
	if (ret) {
		spin_unlock_irqrestore(&cq->lock, flags);
		qrnic_aq_put_slot(qdev);
		goto out_free;
	}

	/* CQEs ci..pi-1 are in the old ring: move them, phase for the new. */
	n = pi - cq->ci;
	if (n > depth) {
		ibdev_err(&qdev->ibdev,
			  "RESIZE_CQ %u: switch at %u, %u CQEs past %u\n",
			  cq->cqn, pi, n, cq->ci);
		n = depth;
	}
	for (i = cq->ci; i != cq->ci + n; i++) {
		u32 owner;

		from = &cq->ring[i & ((1U << cq->log_depth) - 1)];
		to = &ring[i & (depth - 1)];
		*to = *from;
		owner = le32_to_cpu(from->owner) & ~QRNIC_CQE_PHASE;
		if (!((i >> log) & 1))
			owner |= QRNIC_CQE_PHASE;
		to->owner = cpu_to_le32(owner);
	}
	old_buf = cq->buf;
	old_dma = cq->dma;
	old_size = cq->size;
	cq->buf = buf;
	cq->dma = dma;
	cq->size = size;
	cq->ring = ring;
	cq->rec = rec;
	cq->log_depth = log;
	cq->ibcq.cqe = depth;
	spin_unlock_irqrestore(&cq->lock, flags);
	qrnic_aq_put_slot(qdev);

	dma_free_coherent(&qdev->pdev->dev, old_size, old_buf, old_dma);
	return 0;

out_free:
	dma_free_coherent(&qdev->pdev->dev, size, buf, dma);
	return ret;
}

/*
 * ib_resize_cq / ibv_resize_cq: the device moves the CQ to a new buffer of
 * the depth cqe needs; fewer entries than are waiting to be polled is
 * EINVAL (the device refuses it), and then nothing has changed.
 */
int qrnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibcq->device);
	struct qrnic_cq *cq = to_qcq(ibcq);
	int log, ret;

	if (udata ? !cq->umem : !cq->buf)
		return -EINVAL;
	log = qrnic_cq_log_depth(qdev, cqe);
	if (log < 0)
		return log;

	mutex_lock(&cq->resize_mutex);
	if (udata)
		ret = qrnic_resize_user_cq(qdev, cq, cqe, udata);
	else if (log == cq->log_depth)
		ret = 0;
	else if (log > QRNIC_KERNEL_CQ_MAX_LOG)
		ret = -EINVAL;
	else
		ret = qrnic_resize_kernel_cq(qdev, cq, log);
	mutex_unlock(&cq->resize_mutex);
	return ret;
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
