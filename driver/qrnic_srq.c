// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic shared receive queues (QRNIC_CAP0_SRQ): creation, the limit,
 * queries, destruction and the limit event.  An SRQ's ring lives in a
 * slice of queue memory (BAR4) like a QP's RQ; a user SRQ's slice is
 * mapped through an mmap entry that owns it, as for QPs.  A kernel SRQ
 * keeps a bitmap of completed slots (see qrnic_post.c): receive
 * completions of different QPs arrive in any order, and a slot is posted
 * again only once it and every slot before it have completed.  Resizing
 * (IB_SRQ_MAX_WR; from user space the driver's own uverbs method) moves
 * the SRQ to a new slice; the device moves the WQEs it has not taken yet
 * (docs/hardware.md, "Shared receive queues").  One modify, resize, query
 * or destroy of an SRQ runs at a time (its mutex): ib_core takes only a
 * shared lock on the SRQ for modify_srq.
 *
 * An XRC SRQ (QRNIC_CAP0_XRC, user space only) is such an SRQ that also
 * names its XRC domain and its own CQ: XRC_TGT QPs of the domain deliver
 * into it, and its receive completions go to that CQ.  Senders name it by
 * the number the device gave it (ib_srq.ext.xrc.srq_num).
 */
#include <linux/bitmap.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#define UVERBS_MODULE_NAME qrnic_ib
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include <qrnic-abi.h>

#include "qrnic.h"
#include "qrnic_ib.h"

static int qrnic_srq_check_attr(struct qrnic_dev *qdev,
				struct ib_srq_init_attr *init_attr,
				struct ib_udata *udata)
{
	u32 max_sge = min_t(u32, QRNIC_MAX_RECV_SGE,
			    le32_to_cpu(qdev->attr.max_recv_sge));

	switch (init_attr->srq_type) {
	case IB_SRQT_BASIC:
		break;
	case IB_SRQT_XRC:
		/*
		 * Kernel consumers have no XRC sends (struct ib_send_wr has
		 * no remote SRQ number) and would need the slot tracking of
		 * completions arriving on another QP's behalf.
		 */
		if (!qrnic_has_xrc(qdev) || !udata)
			return -EOPNOTSUPP;
		if (!init_attr->ext.cq || !init_attr->ext.xrc.xrcd)
			return -EINVAL;
		break;
	default:			/* IB_SRQT_TM */
		return -EOPNOTSUPP;
	}
	if (init_attr->attr.max_sge > max_sge)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(struct qrnic_uresp_create_srq))
		return -EINVAL;
	return qrnic_udata_no_input(udata);
}

static int qrnic_create_srq_cmd(struct qrnic_dev *qdev, struct qrnic_srq *srq,
				struct ib_srq_init_attr *init_attr, u32 uctx)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_CREATE_SRQ };

	cmd.create_srq.pdn = cpu_to_le32(to_qpd(srq->ibsrq.pd)->pdn);
	cmd.create_srq.uctx = cpu_to_le32(uctx);
	cmd.create_srq.offset = cpu_to_le32(srq->wq.offset);
	cmd.create_srq.log_depth = srq->wq.log_depth;
	cmd.create_srq.log_stride = srq->wq.log_stride;
	cmd.create_srq.limit = cpu_to_le32(init_attr->attr.srq_limit);
	if (init_attr->srq_type == IB_SRQT_XRC) {
		cmd.create_srq.xrcd =
			cpu_to_le32(to_qxrcd(init_attr->ext.xrc.xrcd)->xrcdn);
		cmd.create_srq.cqn = cpu_to_le32(to_qcq(init_attr->ext.cq)->cqn);
	}
	return qrnic_aq_exec(qdev, &cmd, &srq->srqn, NULL);
}

/* User SRQ: map the ring for the provider and tell it the geometry. */
static int qrnic_srq_user_setup(struct qrnic_dev *qdev, struct qrnic_srq *srq,
				struct ib_udata *udata)
{
	struct qrnic_uresp_create_srq resp = {};
	struct qrnic_ucontext *uctx;

	uctx = rdma_udata_to_drv_context(udata, struct qrnic_ucontext,
					 ibucontext);
	srq->qmem_entry = qrnic_mmap_entry_insert(&uctx->ibucontext,
						  qdev->qmem_start +
						  srq->wq.offset,
						  srq->wq.bytes,
						  QRNIC_MMAP_QMEM,
						  &resp.qmem_mmap_key);
	if (!srq->qmem_entry)
		return -ENOMEM;

	resp.qmem_len = srq->wq.bytes;
	resp.srqn = srq->srqn;
	resp.log_depth = srq->wq.log_depth;
	resp.log_stride = srq->wq.log_stride;
	resp.max_sge = srq->max_sge;
	return qrnic_udata_respond(udata, &resp, sizeof(resp));
}

/* Give back the ring's slice, or leave that to the mmap entry owning it. */
static void qrnic_srq_release_qmem(struct qrnic_dev *qdev,
				   struct qrnic_srq *srq)
{
	if (srq->qmem_entry)
		rdma_user_mmap_entry_remove(srq->qmem_entry);
	else
		qrnic_qmem_free(qdev, srq->wq.offset, srq->wq.bytes);
	srq->qmem_entry = NULL;
}

int qrnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		     struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibsrq->device);
	u32 max_qmem = le32_to_cpu(qdev->attr.max_qp_qmem);
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	struct ib_srq_attr *attr = &init_attr->attr;
	u32 body, room;
	u8 log_depth;
	int ret;

	ret = qrnic_srq_check_attr(qdev, init_attr, udata);
	if (ret)
		return ret;
	ret = qrnic_wq_log_depth(qdev, attr->max_wr, &log_depth);
	if (ret)
		return ret;
	/* The limit arms the SRQ at creation; it must be below the depth. */
	if (attr->srq_limit >= 1U << log_depth)
		return -EINVAL;
	body = sizeof(struct qrnic_sge) * max(attr->max_sge, 1U);
	qrnic_wq_init(&srq->wq, log_depth,
		      order_base_2(sizeof(struct qrnic_rq_wqe) + body));
	if (max_qmem && srq->wq.bytes > max_qmem)
		return -EINVAL;
	room = (1U << srq->wq.log_stride) - sizeof(struct qrnic_rq_wqe);
	srq->max_sge = room / sizeof(struct qrnic_sge);

	spin_lock_init(&srq->lock);
	mutex_init(&srq->mutex);
	refcount_set(&srq->refcnt, 1);
	init_completion(&srq->free);

	if (!udata) {
		srq->done = bitmap_zalloc(1U << log_depth, GFP_KERNEL);
		if (!srq->done)
			return -ENOMEM;
	}
	ret = qrnic_qmem_alloc(qdev, srq->wq.bytes, &srq->wq.offset);
	if (ret)
		goto err_bitmap;
	if (!udata)
		srq->wq.buf = qdev->qmem.va + srq->wq.offset;

	ret = qrnic_create_srq_cmd(qdev, srq, init_attr, qrnic_uctx_id(udata));
	if (ret)
		goto err_qmem;

	ret = xa_insert_irq(&qdev->srq_xa, srq->srqn, srq, GFP_KERNEL);
	if (ret) {
		ibdev_err(&qdev->ibdev, "SRQ %u is already known: %d\n",
			  srq->srqn, ret);
		goto err_destroy;
	}

	if (udata) {
		ret = qrnic_srq_user_setup(qdev, srq, udata);
		if (ret)
			goto err_erase;
	}
	attr->max_wr = 1U << log_depth;
	attr->max_sge = srq->max_sge;
	/* What uverbs reports as the XRC SRQ's number: the one senders use. */
	if (init_attr->srq_type == IB_SRQT_XRC)
		ibsrq->ext.xrc.srq_num = srq->srqn;
	return 0;

err_erase:
	xa_erase_irq(&qdev->srq_xa, srq->srqn);
err_destroy:
	if (qrnic_destroy_kept(qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_SRQ,
						    srq->srqn))) {
		/* The device still has the ring: never hand it out again. */
		bitmap_free(srq->done);
		return ret;
	}
err_qmem:
	qrnic_srq_release_qmem(qdev, srq);
err_bitmap:
	bitmap_free(srq->done);
	srq->done = NULL;
	return ret;
}

/*
 * A kernel SRQ moves to new_wq (its slice allocated): under the post lock,
 * so nothing is posted meanwhile, the command switches the device over
 * and the completed-slot bitmap follows the slots still outstanding.
 */
static int qrnic_srq_resize_kernel(struct qrnic_dev *qdev,
				   struct qrnic_srq *srq, struct qrnic_cmd *cmd,
				   struct qrnic_wq *new_wq)
{
	u32 old_mask = (1U << srq->wq.log_depth) - 1;
	u32 new_mask = (1U << new_wq->log_depth) - 1;
	unsigned long *done, *old_done;
	unsigned long flags;
	u16 i;
	int ret;

	done = bitmap_zalloc(new_mask + 1, GFP_KERNEL);
	if (!done)
		return -ENOMEM;
	ret = qrnic_aq_get_slot(qdev);
	if (ret)
		goto out_free;

	spin_lock_irqsave(&srq->lock, flags);
	if ((u16)(srq->wq.pi - srq->wq.tail) > new_mask + 1) {
		ret = -EINVAL;	/* outstanding WQEs would not fit */
		goto out_unlock;
	}
	ret = qrnic_aq_exec_atomic(qdev, cmd, NULL, NULL);
	if (ret)
		goto out_unlock;
	for (i = srq->wq.tail; i != srq->wq.pi; i++)
		if (test_bit(i & old_mask, srq->done))
			__set_bit(i & new_mask, done);
	new_wq->pi = srq->wq.pi;
	new_wq->tail = srq->wq.tail;
	new_wq->buf = qdev->qmem.va + new_wq->offset;
	swap(srq->wq, *new_wq);
	old_done = srq->done;
	srq->done = done;
	done = old_done;
out_unlock:
	spin_unlock_irqrestore(&srq->lock, flags);
	qrnic_aq_put_slot(qdev);
out_free:
	bitmap_free(done);
	return ret;
}

/*
 * A user SRQ moves to new_wq (its slice allocated): the provider posts
 * nothing meanwhile and maps the new ring through the key in resp.  The
 * device switches first, clearing the new slice as it claims it; only
 * then is the slice mapped for the context (no mmap key exists before).
 * From the switch on the driver follows the device whatever else fails:
 * without an entry the SRQ's slice is given back at destroy.
 */
static int qrnic_srq_resize_user(struct qrnic_dev *qdev, struct qrnic_srq *srq,
				 struct qrnic_cmd *cmd, struct qrnic_wq *new_wq,
				 struct uverbs_attr_bundle *attrs)
{
	struct qrnic_uresp_resize_srq resp = {};
	struct ib_ucontext *uctx;
	int ret;

	uctx = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(uctx)) {
		qrnic_qmem_free(qdev, new_wq->offset, new_wq->bytes);
		return PTR_ERR(uctx);
	}
	ret = qrnic_aq_exec(qdev, cmd, NULL, NULL);
	if (ret) {
		/* A dead or silent device may use either ring: keep both. */
		if (ret != -EIO && ret != -ETIMEDOUT)
			qrnic_qmem_free(qdev, new_wq->offset, new_wq->bytes);
		return ret;
	}
	qrnic_srq_release_qmem(qdev, srq);
	srq->wq.offset = new_wq->offset;
	srq->wq.bytes = new_wq->bytes;
	srq->wq.log_depth = new_wq->log_depth;
	srq->qmem_entry = qrnic_mmap_entry_insert(uctx, qdev->qmem_start +
						  new_wq->offset,
						  new_wq->bytes,
						  QRNIC_MMAP_QMEM,
						  &resp.qmem_mmap_key);
	if (!srq->qmem_entry)
		return -ENOMEM;
	resp.qmem_len = new_wq->bytes;
	resp.log_depth = new_wq->log_depth;
	return uverbs_copy_to(attrs, QRNIC_IB_ATTR_SRQ_RESIZE_RESP, &resp,
			      sizeof(resp));
}

/* Called with the SRQ's mutex held; attrs: a user SRQ's resize method. */
static int qrnic_srq_resize(struct qrnic_dev *qdev, struct qrnic_srq *srq,
			    u32 max_wr, struct qrnic_cmd *cmd,
			    struct uverbs_attr_bundle *attrs)
{
	u32 max_qmem = le32_to_cpu(qdev->attr.max_qp_qmem);
	struct qrnic_wq new_wq;
	u8 log_depth;
	int ret;

	lockdep_assert_held(&srq->mutex);
	if (!(qdev->cap0 & QRNIC_CAP0_SRQ_RESIZE))
		return -EOPNOTSUPP;
	ret = qrnic_wq_log_depth(qdev, max_wr, &log_depth);
	if (ret)
		return ret;
	qrnic_wq_init(&new_wq, log_depth, srq->wq.log_stride);
	if (max_qmem && new_wq.bytes > max_qmem)
		return -EINVAL;
	ret = qrnic_qmem_alloc(qdev, new_wq.bytes, &new_wq.offset);
	if (ret)
		return ret;
	cmd->modify_srq.mask |= cpu_to_le32(QRNIC_SRQ_MOD_RESIZE);
	cmd->modify_srq.offset = cpu_to_le32(new_wq.offset);
	cmd->modify_srq.log_depth = log_depth;
	if (attrs)
		return qrnic_srq_resize_user(qdev, srq, cmd, &new_wq, attrs);
	ret = qrnic_srq_resize_kernel(qdev, srq, cmd, &new_wq);
	/*
	 * On success new_wq holds the old ring.  A dead or silent device may
	 * still use either ring: then both stay allocated.
	 */
	if (ret != -EIO && ret != -ETIMEDOUT)
		qrnic_qmem_free(qdev, new_wq.offset, new_wq.bytes);
	return ret;
}

/*
 * ib_modify_srq and, from user space, IBV_SRQ_LIMIT alone: a user SRQ
 * resizes through QRNIC_IB_METHOD_SRQ_RESIZE, whose response carries the
 * new ring (the write command has none).
 */
int qrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask attr_mask, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibsrq->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_MODIFY_SRQ };
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	int ret;

	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	if (attr_mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR))
		return -EINVAL;
	if ((attr_mask & IB_SRQ_MAX_WR) && udata)
		return -EOPNOTSUPP;
	cmd.modify_srq.srqn = cpu_to_le32(srq->srqn);
	if (attr_mask & IB_SRQ_LIMIT) {
		cmd.modify_srq.mask = cpu_to_le32(QRNIC_SRQ_MOD_LIMIT);
		cmd.modify_srq.limit = cpu_to_le32(attr->srq_limit);
	}
	mutex_lock(&srq->mutex);
	if (attr_mask & IB_SRQ_MAX_WR) {
		/* The device checks the limit against the new depth. */
		ret = qrnic_srq_resize(qdev, srq, attr->max_wr, &cmd, NULL);
	} else if (!(attr_mask & IB_SRQ_LIMIT)) {
		ret = 0;
	} else if (attr->srq_limit >= 1U << srq->wq.log_depth) {
		ret = -EINVAL;
	} else {
		ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	}
	mutex_unlock(&srq->mutex);
	return ret;
}

static int UVERBS_HANDLER(QRNIC_IB_METHOD_SRQ_RESIZE)(struct uverbs_attr_bundle *attrs)
{
	struct ib_srq *ibsrq = uverbs_attr_get_obj(attrs,
					QRNIC_IB_ATTR_SRQ_RESIZE_HANDLE);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_MODIFY_SRQ };
	struct qrnic_ureq_resize_srq req;
	struct qrnic_srq *srq;
	int ret;

	if (IS_ERR(ibsrq))
		return PTR_ERR(ibsrq);
	srq = to_qsrq(ibsrq);
	ret = uverbs_copy_from_or_zero(&req, attrs,
				       QRNIC_IB_ATTR_SRQ_RESIZE_REQ);
	if (ret)
		return ret;
	if ((req.flags & ~QRNIC_SRQ_RESIZE_LIMIT) || req.pad)
		return -EOPNOTSUPP;
	cmd.modify_srq.srqn = cpu_to_le32(srq->srqn);
	if (req.flags & QRNIC_SRQ_RESIZE_LIMIT) {
		cmd.modify_srq.mask = cpu_to_le32(QRNIC_SRQ_MOD_LIMIT);
		cmd.modify_srq.limit = cpu_to_le32(req.srq_limit);
	}
	mutex_lock(&srq->mutex);
	ret = qrnic_srq_resize(to_qdev(ibsrq->device), srq, req.max_wr, &cmd,
			       attrs);
	mutex_unlock(&srq->mutex);
	return ret;
}

DECLARE_UVERBS_NAMED_METHOD(QRNIC_IB_METHOD_SRQ_RESIZE,
			    UVERBS_ATTR_IDR(QRNIC_IB_ATTR_SRQ_RESIZE_HANDLE,
					    UVERBS_OBJECT_SRQ,
					    UVERBS_ACCESS_WRITE, UA_MANDATORY),
			    UVERBS_ATTR_PTR_IN(QRNIC_IB_ATTR_SRQ_RESIZE_REQ,
					       UVERBS_ATTR_STRUCT(struct qrnic_ureq_resize_srq,
								  pad),
					       UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(QRNIC_IB_ATTR_SRQ_RESIZE_RESP,
						UVERBS_ATTR_TYPE(struct qrnic_uresp_resize_srq),
						UA_MANDATORY));

ADD_UVERBS_METHODS(qrnic_srq_methods, UVERBS_OBJECT_SRQ,
		   &UVERBS_METHOD(QRNIC_IB_METHOD_SRQ_RESIZE));

/* The driver's uverbs methods, for devices that resize SRQs. */
const struct uapi_definition qrnic_srq_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_SRQ, &qrnic_srq_methods),
	{},
};

int qrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct qrnic_dev *qdev = to_qdev(ibsrq->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_QUERY_SRQ };
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	u32 limit;
	int ret;

	cmd.query_srq.srqn = cpu_to_le32(srq->srqn);
	mutex_lock(&srq->mutex);
	ret = qrnic_aq_exec(qdev, &cmd, &limit, NULL);
	attr->max_wr = 1U << srq->wq.log_depth;
	mutex_unlock(&srq->mutex);
	if (ret)
		return ret;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = limit;
	return 0;
}

static void qrnic_srq_put(struct qrnic_srq *srq)
{
	if (refcount_dec_and_test(&srq->refcnt))
		complete(&srq->free);
}

int qrnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibsrq->device);
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	int ret;

	/* After a resize in progress: its slice is the one to give back. */
	mutex_lock(&srq->mutex);
	ret = qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_SRQ, srq->srqn);
	mutex_unlock(&srq->mutex);
	if (qrnic_destroy_kept(ret))
		return ret;

	/* No event handler reaches the SRQ once it is out and unreferenced. */
	xa_erase_irq(&qdev->srq_xa, srq->srqn);
	qrnic_srq_put(srq);
	wait_for_completion(&srq->free);

	qrnic_srq_release_qmem(qdev, srq);
	bitmap_free(srq->done);
	srq->done = NULL;
	mutex_destroy(&srq->mutex);
	return 0;
}

static struct qrnic_srq *qrnic_srq_get(struct qrnic_dev *qdev, u32 srqn)
{
	unsigned long flags;
	struct qrnic_srq *srq;

	xa_lock_irqsave(&qdev->srq_xa, flags);
	srq = xa_load(&qdev->srq_xa, srqn);
	if (srq)
		refcount_inc(&srq->refcnt);
	xa_unlock_irqrestore(&qdev->srq_xa, flags);
	return srq;
}

/* Async EQ: a take left fewer WQEs than the armed limit.  Process context. */
void qrnic_srq_async_event(struct qrnic_dev *qdev, u32 srqn)
{
	struct qrnic_srq *srq = qrnic_srq_get(qdev, srqn);
	struct ib_event ev = {};

	if (!srq)
		return;
	if (srq->ibsrq.event_handler) {
		ev.device = &qdev->ibdev;
		ev.element.srq = &srq->ibsrq;
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	qrnic_srq_put(srq);
}
