// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic queue pairs (RC, UC, UD, the GSI QP, XRC_INI and XRC_TGT): sizing,
 * queue memory, creation and destruction, async events.  The GSI QP (QP1,
 * ib_mad's) is kernel only and the device allows one; UD and GSI QPs need
 * QRNIC_CAP0_UD, UC QPs QRNIC_CAP0_UC, XRC QPs QRNIC_CAP0_XRC.  XRC_INI
 * QPs are user only (struct ib_send_wr cannot name the remote SRQ);
 * XRC_TGT QPs belong to an XRC domain, not to a PD or a context, and have
 * no queues or CQs (ib_core creates them without udata).
 *
 * A QP's send and receive rings live in a slice of BAR4 (SQ pages, then RQ
 * pages; a QP with an SRQ and an XRC_INI QP have no RQ, an XRC_TGT QP has
 * no slice at all).  A user QP's slice is mapped into its
 * process through an mmap entry that owns the slice: the slice returns to
 * the allocator only when the entry's last reference goes (mmap_free), so
 * pages an old mapping can still reach are never given to anyone else.
 */
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <qrnic-abi.h>

#include "qrnic.h"
#include "qrnic_ib.h"

struct qrnic_qp_sizes {
	u8 log_sq_depth, log_sq_stride;
	u8 log_rq_depth, log_rq_stride;
};

/* log2 of a queue's depth for wr work requests (QP queues and SRQs). */
int qrnic_wq_log_depth(struct qrnic_dev *qdev, u32 wr, u8 *log)
{
	u32 max_qp_wr = le32_to_cpu(qdev->attr.max_qp_wr);
	u32 depth;

	if (wr > min_t(u32, max_qp_wr, 1U << QRNIC_QP_MAX_LOG))
		return -EINVAL;
	depth = roundup_pow_of_two(max(wr, 1U));
	if (depth > max_qp_wr)
		return -EINVAL;
	*log = ilog2(depth);
	return 0;
}

/*
 * Queue geometry from the requested caps; the provider takes the result
 * from the create response rather than deriving it.  Without an RQ (an SRQ,
 * XRC_INI) the receive caps are ignored.
 */
static int qrnic_qp_size(struct qrnic_dev *qdev, struct ib_qp_cap *cap,
			 bool has_rq, struct qrnic_qp_sizes *sz)
{
	u32 max_sge = min_t(u32, QRNIC_MAX_SGE,
			    le32_to_cpu(qdev->attr.max_sge));
	u32 max_rsge = min_t(u32, QRNIC_MAX_RECV_SGE,
			     le32_to_cpu(qdev->attr.max_recv_sge));
	u32 max_inline = min_t(u32, QRNIC_MAX_INLINE,
			       le32_to_cpu(qdev->attr.max_inline));
	u32 sq_body, rq_body;
	int ret;

	if (cap->max_send_sge > max_sge ||
	    (has_rq && cap->max_recv_sge > max_rsge) ||
	    cap->max_inline_data > max_inline)
		return -EINVAL;
	ret = qrnic_wq_log_depth(qdev, cap->max_send_wr, &sz->log_sq_depth);
	if (!ret && has_rq)
		ret = qrnic_wq_log_depth(qdev, cap->max_recv_wr,
					 &sz->log_rq_depth);
	if (ret)
		return ret;

	sq_body = max_t(u32, sizeof(struct qrnic_sge) *
				     max(cap->max_send_sge, 1U),
			cap->max_inline_data);
	sz->log_sq_stride = order_base_2(sizeof(struct qrnic_sq_wqe) + sq_body);
	if (has_rq) {
		rq_body = sizeof(struct qrnic_sge) * max(cap->max_recv_sge, 1U);
		sz->log_rq_stride = order_base_2(sizeof(struct qrnic_rq_wqe) +
						 rq_body);
	} else {
		sz->log_rq_depth = 0;
		sz->log_rq_stride = 0;
	}
	if (sz->log_sq_stride > QRNIC_SQ_MAX_LOG_STRIDE ||
	    sz->log_rq_stride > QRNIC_RQ_MAX_LOG_STRIDE)
		return -EINVAL;
	return 0;
}

/* What the queues' strides really hold (0 for a queue the QP lacks). */
static void qrnic_qp_set_limits(struct qrnic_qp *qp)
{
	u32 sq_room = (1U << qp->sq.log_stride) - sizeof(struct qrnic_sq_wqe);
	u32 rq_room = (1U << qp->rq.log_stride) - sizeof(struct qrnic_rq_wqe);

	if (qrnic_qp_has_sq(qp)) {
		qp->max_send_sge = min_t(u32, QRNIC_MAX_SGE,
					 sq_room / sizeof(struct qrnic_sge));
		qp->max_inline = min_t(u32, QRNIC_MAX_INLINE, sq_room);
	}
	if (qrnic_qp_has_rq(qp))
		qp->max_recv_sge = rq_room / sizeof(struct qrnic_sge);
}

/* The QP's caps as create_qp and query_qp report them. */
void qrnic_qp_caps(const struct qrnic_qp *qp, struct ib_qp_cap *cap)
{
	memset(cap, 0, sizeof(*cap));
	if (qrnic_qp_has_sq(qp))
		cap->max_send_wr = 1U << qp->sq.log_depth;
	if (qrnic_qp_has_rq(qp))
		cap->max_recv_wr = 1U << qp->rq.log_depth;
	cap->max_send_sge = qp->max_send_sge;
	cap->max_recv_sge = qp->max_recv_sge;
	cap->max_inline_data = qp->max_inline;
}

void qrnic_wq_init(struct qrnic_wq *wq, u8 log_depth, u8 log_stride)
{
	wq->log_depth = log_depth;
	wq->log_stride = log_stride;
	wq->bytes = round_up((u32)1 << (log_depth + log_stride),
			     QRNIC_QMEM_PAGE_SIZE);
	wq->pi = 0;
	wq->tail = 0;
}

static int qrnic_create_qp_cmd(struct qrnic_dev *qdev, struct qrnic_qp *qp,
			       struct ib_qp_init_attr *init_attr, u32 uctx)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_CREATE_QP };

	cmd.create_qp.qp_type = qp->qp_type;
	if (qp->qp_type == QRNIC_QPT_XRC_TGT) {
		struct qrnic_xrcd *xrcd = to_qxrcd(init_attr->xrcd);

		/* No PD, CQs or queues; it counts against the domain's owner. */
		cmd.create_qp.xrcd = cpu_to_le32(xrcd->xrcdn);
		cmd.create_qp.uctx = cpu_to_le32(qrnic_xrcd_uctx(xrcd));
		return qrnic_aq_exec(qdev, &cmd, &qp->qpn, NULL);
	}
	cmd.create_qp.pdn = cpu_to_le32(to_qpd(qp->ibqp.pd)->pdn);
	cmd.create_qp.send_cqn = cpu_to_le32(to_qcq(init_attr->send_cq)->cqn);
	/* XRC_INI: no receive side, recv_cqn and the RQ fields stay 0. */
	if (qp->qp_type != QRNIC_QPT_XRC_INI)
		cmd.create_qp.recv_cqn =
			cpu_to_le32(to_qcq(init_attr->recv_cq)->cqn);
	cmd.create_qp.uctx = cpu_to_le32(uctx);
	cmd.create_qp.sq_offset = cpu_to_le32(qp->sq.offset);
	cmd.create_qp.rq_offset = cpu_to_le32(qp->rq.offset);
	cmd.create_qp.flags = qp->sig_all ? QRNIC_QP_SIG_ALL : 0;
	cmd.create_qp.log_sq_depth = qp->sq.log_depth;
	cmd.create_qp.log_sq_stride = qp->sq.log_stride;
	cmd.create_qp.log_rq_depth = qp->rq.log_depth;
	cmd.create_qp.log_rq_stride = qp->rq.log_stride;
	if (qp->srq) {
		/* No RQ: offset and depth 0, the stride merely in range. */
		cmd.create_qp.log_rq_stride = QRNIC_RQ_MIN_LOG_STRIDE;
		cmd.create_qp.srqn = cpu_to_le32(qp->srq->srqn);
	}
	return qrnic_aq_exec(qdev, &cmd, &qp->qpn, NULL);
}

/*
 * User QP: map the slice for the provider and tell it the geometry.  An
 * XRC_TGT QP has nothing to map: only qpn counts (ib_core creates those
 * without udata anyway).
 */
static int qrnic_qp_user_setup(struct qrnic_dev *qdev, struct qrnic_qp *qp,
			       struct ib_udata *udata)
{
	struct qrnic_ucontext *uctx;
	struct qrnic_uresp_create_qp resp = {};

	resp.qpn = qp->qpn;
	if (!qp->qmem_len)
		return qrnic_udata_respond(udata, &resp, sizeof(resp));

	uctx = rdma_udata_to_drv_context(udata, struct qrnic_ucontext,
					 ibucontext);
	qp->qmem_entry = qrnic_mmap_entry_insert(&uctx->ibucontext,
						 qdev->qmem_start +
						 qp->sq.offset,
						 qp->qmem_len, QRNIC_MMAP_QMEM,
						 &resp.qmem_mmap_key);
	if (!qp->qmem_entry)
		return -ENOMEM;

	resp.qmem_len = qp->qmem_len;
	resp.sq_offset = 0;
	resp.rq_offset = qrnic_qp_has_rq(qp) ? qp->sq.bytes : 0;
	resp.log_sq_depth = qp->sq.log_depth;
	resp.log_sq_stride = qp->sq.log_stride;
	resp.log_rq_depth = qp->rq.log_depth;
	resp.log_rq_stride = qp->rq.log_stride;
	resp.max_send_sge = qp->max_send_sge;
	resp.max_recv_sge = qp->max_recv_sge;
	resp.max_inline = qp->max_inline;
	return qrnic_udata_respond(udata, &resp, sizeof(resp));
}

/* Give back the slice, or leave that to the mmap entry that owns it. */
static void qrnic_qp_release_qmem(struct qrnic_dev *qdev, struct qrnic_qp *qp)
{
	if (qp->qmem_entry)
		rdma_user_mmap_entry_remove(qp->qmem_entry);
	else if (qp->qmem_len)
		qrnic_qmem_free(qdev, qp->sq.offset, qp->qmem_len);
	qp->qmem_entry = NULL;
}

/* Does the device have the QP type (and may this creator have it)? */
static int qrnic_qp_check_type(struct qrnic_dev *qdev,
			       struct ib_qp_init_attr *init_attr,
			       struct ib_udata *udata)
{
	switch (init_attr->qp_type) {
	case IB_QPT_RC:
		return 0;
	case IB_QPT_UC:
		return qrnic_has_uc(qdev) ? 0 : -EOPNOTSUPP;
	case IB_QPT_UD:
		return qrnic_has_ud(qdev) ? 0 : -EOPNOTSUPP;
	case IB_QPT_GSI:
		if (!qrnic_has_ud(qdev))
			return -EOPNOTSUPP;
		if (udata || init_attr->port_num != QRNIC_PORT)
			return -EINVAL;
		return 0;
	case IB_QPT_XRC_INI:
		/* Kernel senders: struct ib_send_wr has no remote SRQ. */
		if (!udata)
			return -EOPNOTSUPP;
		fallthrough;
	case IB_QPT_XRC_TGT:
		return qrnic_has_xrc(qdev) ? 0 : -EOPNOTSUPP;
	default:
		return -EOPNOTSUPP;
	}
}

/*
 * What each type is created with: RC, UC and UD both CQs and an SRQ of
 * theirs (basic) or an RQ; XRC_INI a send CQ only (a receive CQ it may be
 * given is not used); XRC_TGT its domain only (uverbs' ioctl lets an XRC
 * SRQ come along, which it does not keep: each request names its SRQ).
 */
static int qrnic_qp_check_attr(struct qrnic_dev *qdev,
			       struct ib_qp_init_attr *init_attr,
			       struct ib_udata *udata)
{
	int ret;

	ret = qrnic_qp_check_type(qdev, init_attr, udata);
	if (ret)
		return ret;
	if (init_attr->create_flags || init_attr->rwq_ind_tbl)
		return -EOPNOTSUPP;
	switch (init_attr->qp_type) {
	case IB_QPT_XRC_TGT:
		if (!init_attr->xrcd)
			return -EINVAL;
		break;
	case IB_QPT_XRC_INI:
		if (!init_attr->send_cq || init_attr->srq)
			return -EINVAL;
		break;
	default:
		if (init_attr->srq &&
		    (!qrnic_has_srq(qdev) ||
		     init_attr->srq->srq_type != IB_SRQT_BASIC))
			return -EOPNOTSUPP;
		if (init_attr->srq && init_attr->qp_type == IB_QPT_GSI)
			return -EINVAL;
		if (!init_attr->send_cq || !init_attr->recv_cq)
			return -EINVAL;
		break;
	}
	if (udata && udata->outlen < sizeof(struct qrnic_uresp_create_qp))
		return -EINVAL;
	return qrnic_udata_no_input(udata);
}

/*
 * Size the QP's queues from cap and give them their slice of queue memory
 * (kernel QPs: also their rings' addresses).  An XRC_TGT QP has none.
 */
static int qrnic_qp_alloc_queues(struct qrnic_dev *qdev, struct qrnic_qp *qp,
				 struct ib_qp_cap *cap, bool kernel)
{
	u32 max_qmem = le32_to_cpu(qdev->attr.max_qp_qmem);
	bool has_rq = qrnic_qp_has_rq(qp);
	struct qrnic_qp_sizes sz;
	int ret;

	if (!qrnic_qp_has_sq(qp))
		return 0;
	ret = qrnic_qp_size(qdev, cap, has_rq, &sz);
	if (ret)
		return ret;
	qrnic_wq_init(&qp->sq, sz.log_sq_depth, sz.log_sq_stride);
	if (has_rq)
		qrnic_wq_init(&qp->rq, sz.log_rq_depth, sz.log_rq_stride);
	qp->qmem_len = qp->sq.bytes + qp->rq.bytes;
	if (max_qmem && qp->qmem_len > max_qmem)
		return -EINVAL;

	ret = qrnic_qmem_alloc(qdev, qp->qmem_len, &qp->sq.offset);
	if (ret)
		return ret;
	if (has_rq)
		qp->rq.offset = qp->sq.offset + qp->sq.bytes;
	if (kernel) {
		qp->sq.buf = qdev->qmem.va + qp->sq.offset;
		if (has_rq)
			qp->rq.buf = qdev->qmem.va + qp->rq.offset;
	}
	return 0;
}

int qrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibqp->device);
	struct qrnic_qp *qp = to_qqp(ibqp);
	int ret;

	ret = qrnic_qp_check_attr(qdev, init_attr, udata);
	if (ret)
		return ret;
	qp->qp_type = init_attr->qp_type;	/* IB_QPT_* are QRNIC_QPT_* */
	if (init_attr->srq && qp->qp_type != QRNIC_QPT_XRC_TGT)
		qp->srq = to_qsrq(init_attr->srq);
	ret = qrnic_qp_alloc_queues(qdev, qp, &init_attr->cap, !udata);
	if (ret)
		return ret;

	spin_lock_init(&qp->lock);
	mutex_init(&qp->mutex);
	refcount_set(&qp->refcnt, 1);
	init_completion(&qp->free);
	qp->state = IB_QPS_RESET;
	qp->sig_all = qrnic_qp_has_sq(qp) &&
		      init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qrnic_qp_set_limits(qp);
	qrnic_qp_caps(qp, &init_attr->cap);

	ret = qrnic_create_qp_cmd(qdev, qp, init_attr, qrnic_uctx_id(udata));
	if (ret)
		goto err_qmem;
	/* ib_mad knows QP1 by its number: the device gives the GSI QP 1. */
	if (qp->qp_type == QRNIC_QPT_GSI && qp->qpn != QRNIC_GSI_QPN) {
		ibdev_err(&qdev->ibdev, "CREATE_QP: GSI QP numbered %#x\n",
			  qp->qpn);
		ret = -EIO;
		goto err_destroy;
	}
	ibqp->qp_num = qp->qpn;

	ret = xa_insert_irq(&qdev->qp_xa, qp->qpn, qp, GFP_KERNEL);
	if (ret) {
		ibdev_err(&qdev->ibdev, "QP %#x is already known: %d\n",
			  qp->qpn, ret);
		goto err_destroy;
	}

	if (udata) {
		ret = qrnic_qp_user_setup(qdev, qp, udata);
		if (ret)
			goto err_erase;
	}
	return 0;

err_erase:
	xa_erase_irq(&qdev->qp_xa, qp->qpn);
err_destroy:
	if (qrnic_destroy_kept(qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_QP,
						    qp->qpn))) {
		/* The device still uses the slice: never hand it out again. */
		return ret;
	}
err_qmem:
	qrnic_qp_release_qmem(qdev, qp);
	return ret;
}

static void qrnic_qp_put(struct qrnic_qp *qp)
{
	if (refcount_dec_and_test(&qp->refcnt))
		complete(&qp->free);
}

int qrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibqp->device);
	struct qrnic_qp *qp = to_qqp(ibqp);
	int ret;

	/* The SRQ WQE the QP may hold completes (flushed), not vanishes. */
	mutex_lock(&qp->mutex);
	if (qrnic_qp_may_hold_srq_wqe(qp))
		qrnic_qp_flush_srq_wqe(qp);
	ret = qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_QP, qp->qpn);
	mutex_unlock(&qp->mutex);
	if (qrnic_destroy_kept(ret))
		return ret;

	/*
	 * Lookups (CQ polling, async events) hold the xarray lock or a ref.
	 * The SRQ slots of a kernel QP's unpolled receive completions are
	 * freed as it leaves: polling will drop those completions.
	 */
	if (qp->srq && qp->sq.buf)
		qrnic_qp_erase_srq(qdev, qp);
	else
		xa_erase_irq(&qdev->qp_xa, qp->qpn);
	qrnic_qp_put(qp);
	wait_for_completion(&qp->free);

	qrnic_qp_release_qmem(qdev, qp);
	mutex_destroy(&qp->mutex);
	return 0;
}

static struct qrnic_qp *qrnic_qp_get(struct qrnic_dev *qdev, u32 qpn)
{
	unsigned long flags;
	struct qrnic_qp *qp;

	xa_lock_irqsave(&qdev->qp_xa, flags);
	qp = xa_load(&qdev->qp_xa, qpn);
	if (qp)
		refcount_inc(&qp->refcnt);
	xa_unlock_irqrestore(&qdev->qp_xa, flags);
	return qp;
}

/*
 * Async EQ: QP_FATAL or SQ_DRAINED for qpn.  Process context.  A QP_FATAL
 * raised before the QP's latest RESET (resets, the device's count then,
 * is behind the driver's) is about its last life: the QP is not in error
 * and its consumer has moved on, so it is dropped.
 */
void qrnic_qp_async_event(struct qrnic_dev *qdev, u32 qpn,
			  enum ib_event_type type, u32 resets)
{
	struct qrnic_qp *qp = qrnic_qp_get(qdev, qpn);
	struct ib_event ev = {};
	unsigned long flags;
	bool stale = false;

	if (!qp)
		return;

	if (type == IB_EVENT_QP_FATAL) {
		spin_lock_irqsave(&qp->lock, flags);
		stale = resets != qp->resets;
		if (!stale)
			qp->state = IB_QPS_ERR;
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	if (!stale && qp->ibqp.event_handler) {
		ev.device = &qdev->ibdev;
		ev.element.qp = &qp->ibqp;
		ev.event = type;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	qrnic_qp_put(qp);
}
