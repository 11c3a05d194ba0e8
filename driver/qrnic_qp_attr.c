// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic QP attributes: modify_qp and query_qp translate between
 * struct ib_qp_attr and the device's struct qrnic_qp_attr block.  The
 * device checks transitions and values as well; the driver refuses what it
 * can tell is wrong before asking.  UD and GSI QPs have a Q_Key and no
 * path (AV, MTU, PSNs of the responder, retries), UC QPs a path without
 * retries or RDMA READ/atomic resources, XRC_INI QPs RC's requester half
 * and XRC_TGT QPs its responder half: the IBTA rules of their type
 * (ib_modify_qp_is_ok) keep those out of the mask.  XRC attributes go to
 * the device as RC's.
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>

#include "qrnic.h"
#include "qrnic_ib.h"

#define QRNIC_QP_REMOTE_ACCESS	(IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 QRNIC_ACCESS_FLUSH_GLOBAL)

struct qrnic_attr_buf {
	struct qrnic_qp_attr *a;
	dma_addr_t dma;
};

static int qrnic_attr_buf_alloc(struct qrnic_dev *qdev,
				struct qrnic_attr_buf *buf)
{
	buf->a = dma_alloc_coherent(&qdev->pdev->dev, sizeof(*buf->a),
				    &buf->dma, GFP_KERNEL);
	return buf->a ? 0 : -ENOMEM;
}

static void qrnic_attr_buf_free(struct qrnic_dev *qdev,
				struct qrnic_attr_buf *buf)
{
	dma_free_coherent(&qdev->pdev->dev, sizeof(*buf->a), buf->a, buf->dma);
}

static u8 qrnic_qp_cached_state(struct qrnic_qp *qp)
{
	unsigned long flags;
	u8 state;

	spin_lock_irqsave(&qp->lock, flags);
	state = qp->state;
	spin_unlock_irqrestore(&qp->lock, flags);
	return state;
}

/* What ib_core leaves to the driver: transition, mask and value checks. */
static int qrnic_modify_check(struct qrnic_dev *qdev, struct qrnic_qp *qp,
			      struct ib_qp_attr *attr, int mask)
{
	enum ib_qp_state cur, next;

	if (mask & ~QRNIC_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;

	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state :
				       qrnic_qp_cached_state(qp);
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask))
		return -EINVAL;

	if ((mask & IB_QP_PORT) && attr->port_num != QRNIC_PORT)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic >
	    min_t(u32, QRNIC_MAX_RD_ATOMIC,
		  le32_to_cpu(qdev->attr.max_qp_init_rd_atom)))
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic >
	    min_t(u32, QRNIC_MAX_RD_ATOMIC,
		  le32_to_cpu(qdev->attr.max_qp_rd_atom)))
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_AV) &&
	    (attr->ah_attr.type != RDMA_AH_ATTR_TYPE_ROCE ||
	     !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH)))
		return -EINVAL;
	return 0;
}

static void qrnic_attr_to_hw(const struct ib_qp_attr *attr, int mask,
			     struct qrnic_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	if (mask & IB_QP_STATE)
		a->qp_state = attr->qp_state;
	if (mask & IB_QP_CUR_STATE)
		a->cur_state = attr->cur_qp_state;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->access_flags = cpu_to_le32(attr->qp_access_flags &
					      QRNIC_QP_REMOTE_ACCESS);
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = cpu_to_le16(attr->pkey_index);
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = cpu_to_le32(attr->qkey);
	if (mask & IB_QP_AV) {
		const struct ib_global_route *grh =
			rdma_ah_read_grh(&attr->ah_attr);

		a->sgid_index = grh->sgid_index;
		memcpy(a->dgid, grh->dgid.raw, sizeof(a->dgid));
		a->flow_label = cpu_to_le32(grh->flow_label &
					    QRNIC_FLOW_LABEL_MASK);
		a->hop_limit = grh->hop_limit;
		a->traffic_class = grh->traffic_class;
		ether_addr_copy(a->dmac, attr->ah_attr.roce.dmac);
	}
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = cpu_to_le32(attr->rq_psn);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = cpu_to_le32(attr->sq_psn);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qpn = cpu_to_le32(attr->dest_qp_num);
}

/* MODIFY_QP as checked; the cached state follows on success. */
static int qrnic_modify_qp_cmd(struct qrnic_dev *qdev, struct qrnic_qp *qp,
			       struct ib_qp_attr *attr, int attr_mask)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_MODIFY_QP };
	struct qrnic_attr_buf buf;
	unsigned long flags;
	int ret;

	ret = qrnic_attr_buf_alloc(qdev, &buf);
	if (ret)
		return ret;
	qrnic_attr_to_hw(attr, attr_mask, buf.a);
	cmd.modify_qp.qpn = cpu_to_le32(qp->qpn);
	cmd.modify_qp.attr_mask = cpu_to_le32(attr_mask);
	cmd.modify_qp.attr_addr = cpu_to_le64(buf.dma);
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	qrnic_attr_buf_free(qdev, &buf);
	if (ret)
		return ret;

	if (attr_mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		qp->en_sqd_async = attr->en_sqd_async_notify;
	if (attr_mask & IB_QP_STATE) {
		spin_lock_irqsave(&qp->lock, flags);
		qp->state = attr->qp_state;
		/* The device drops all queue state when a QP enters RESET. */
		if (attr->qp_state == IB_QPS_RESET) {
			qp->resets++;
			qp->sq.pi = 0;
			qp->sq.tail = 0;
			qp->rq.pi = 0;
			qp->rq.tail = 0;
		}
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	return 0;
}

/*
 * An RC or UC QP with an SRQ holds the SRQ WQE of a message in progress
 * (UC: also of a dropped one) in RTR and later states, and so does an
 * XRC_TGT QP (a WQE of the XRC SRQ the message names).  RESET and
 * DESTROY_QP would lose it, and with it the SRQ slot for good (slots are
 * reused in ring order), so the driver moves such a QP to ERR first: the
 * device then completes the WQE with WR_FLUSH_ERR.  UD QPs take a WQE
 * only for the datagram at hand.
 */
bool qrnic_qp_may_hold_srq_wqe(struct qrnic_qp *qp)
{
	u8 state;

	if (qp->qp_type != QRNIC_QPT_XRC_TGT &&
	    (!qp->srq || qp->qp_type == QRNIC_QPT_UD))
		return false;
	state = qrnic_qp_cached_state(qp);
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

int qrnic_qp_flush_srq_wqe(struct qrnic_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	lockdep_assert_held(&qp->mutex);
	return qrnic_modify_qp_cmd(to_qdev(qp->ibqp.device), qp, &attr,
				   IB_QP_STATE);
}

static int qrnic_modify_qp_locked(struct qrnic_dev *qdev, struct qrnic_qp *qp,
				  struct ib_qp_attr *attr, int attr_mask)
{
	int ret;

	lockdep_assert_held(&qp->mutex);
	ret = qrnic_modify_check(qdev, qp, attr, attr_mask);
	if (ret)
		return ret;

	if ((attr_mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET &&
	    qrnic_qp_may_hold_srq_wqe(qp)) {
		/* Through ERR; an asserted current state is checked there. */
		struct ib_qp_attr err = {
			.qp_state = IB_QPS_ERR,
			.cur_qp_state = attr->cur_qp_state,
		};

		ret = qrnic_modify_qp_cmd(qdev, qp, &err, IB_QP_STATE |
					  (attr_mask & IB_QP_CUR_STATE));
		if (ret)
			return ret;
		attr_mask &= ~IB_QP_CUR_STATE;
	}
	return qrnic_modify_qp_cmd(qdev, qp, attr, attr_mask);
}

/*
 * ib_core takes only a shared lock on the QP for modify_qp and query_qp:
 * the QP's mutex makes each command and the state cached from it one
 * step, so the cached state is the device's and two RESETs cannot both
 * skip the flush of an SRQ WQE.
 */
int qrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata)
{
	struct qrnic_qp *qp = to_qqp(ibqp);
	int ret;

	/* No driver data is defined for modify_qp. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	mutex_lock(&qp->mutex);
	ret = qrnic_modify_qp_locked(to_qdev(ibqp->device), qp, attr,
				     attr_mask);
	mutex_unlock(&qp->mutex);
	return ret;
}

static void qrnic_attr_from_hw(struct qrnic_qp *qp,
			       const struct qrnic_qp_attr *a,
			       struct ib_qp_attr *attr)
{
	union ib_gid dgid;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = a->cur_state;
	attr->cur_qp_state = a->cur_state;
	attr->path_mtu = a->path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->rq_psn = le32_to_cpu(a->rq_psn);
	attr->sq_psn = le32_to_cpu(a->sq_psn);
	attr->dest_qp_num = le32_to_cpu(a->dest_qpn);
	attr->qp_access_flags = le32_to_cpu(a->access_flags);
	attr->qkey = le32_to_cpu(a->qkey);
	qrnic_qp_caps(qp, &attr->cap);

	/* The connected types have a path; UD and GSI have AHs instead. */
	if (qp->qp_type != QRNIC_QPT_UD && qp->qp_type != QRNIC_QPT_GSI) {
		attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
		rdma_ah_set_port_num(&attr->ah_attr, QRNIC_PORT);
		memcpy(dgid.raw, a->dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(&attr->ah_attr, &dgid,
				le32_to_cpu(a->flow_label), a->sgid_index,
				a->hop_limit, a->traffic_class);
		ether_addr_copy(attr->ah_attr.roce.dmac, a->dmac);
	}

	attr->pkey_index = le16_to_cpu(a->pkey_index);
	attr->port_num = QRNIC_PORT;
	attr->en_sqd_async_notify = qp->en_sqd_async;
	attr->sq_draining = a->sq_draining;
	attr->max_rd_atomic = a->max_rd_atomic;
	attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	attr->min_rnr_timer = a->min_rnr_timer;
	attr->timeout = a->timeout;
	attr->retry_cnt = a->retry_cnt;
	attr->rnr_retry = a->rnr_retry;
}

int qrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		   int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct qrnic_dev *qdev = to_qdev(ibqp->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_QUERY_QP };
	struct qrnic_qp *qp = to_qqp(ibqp);
	struct qrnic_attr_buf buf;
	unsigned long flags;
	int ret;

	ret = qrnic_attr_buf_alloc(qdev, &buf);
	if (ret)
		return ret;
	cmd.query_qp.qpn = cpu_to_le32(qp->qpn);
	cmd.query_qp.attr_addr = cpu_to_le64(buf.dma);
	mutex_lock(&qp->mutex);
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (!ret)
		qrnic_attr_from_hw(qp, buf.a, attr);
	if (!ret && attr->qp_state <= IB_QPS_ERR) {
		spin_lock_irqsave(&qp->lock, flags);
		qp->state = attr->qp_state;
		spin_unlock_irqrestore(&qp->lock, flags);
	}
	mutex_unlock(&qp->mutex);
	qrnic_attr_buf_free(qdev, &buf);
	if (ret)
		return ret;

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->xrcd = ibqp->xrcd;	/* XRC_TGT's domain, else NULL */
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	init_attr->qp_type = ibqp->qp_type;
	init_attr->port_num = QRNIC_PORT;
	return 0;
}
