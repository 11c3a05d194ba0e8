// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic kernel data path: post_send, post_recv and post_srq_recv write
 * WQEs into the QP's or SRQ's rings in queue memory (BAR4,
 * write-combining) and ring the doorbell on page 0; poll_cq reads CQEs
 * from the CQ ring in host memory and req_notify_cq arms the CQ.  User
 * space does all of this itself.  UD and GSI send WQEs carry the AH's
 * address vector in place of the RDMA fields; their receive completions
 * have the GRH in front of the data.  UC QPs send SEND and RDMA WRITE
 * (with immediate) only.  RC QPs also fast-register (IB_WR_REG_MR) and
 * invalidate (IB_WR_LOCAL_INV, IB_WR_SEND_WITH_INV); kernel consumers have
 * no memory windows.  SRQ receive completions free SRQ slots, which
 * the SRQ reuses in ring order once every slot before them is free too.
 * XRC is user space's only: kernel XRC_INI QPs and XRC SRQs do not exist,
 * an XRC_TGT QP has no queues to post to, and XRC receive completions
 * (QRNIC_CQE_F_XRC) only reach user CQs.
 */
#include <linux/io-64-nonatomic-lo-hi.h>
#include <rdma/ib_verbs.h>

#include "qrnic.h"
#include "qrnic_ib.h"

#define QRNIC_SQ_MAX_STRIDE	BIT(QRNIC_SQ_MAX_LOG_STRIDE)
#define QRNIC_RQ_MAX_STRIDE	BIT(QRNIC_RQ_MAX_LOG_STRIDE)
#define QRNIC_WQE_CHUNK		64	/* copied to BAR4 in these units */

static u32 qrnic_wq_depth(const struct qrnic_wq *wq)
{
	return 1U << wq->log_depth;
}

static bool qrnic_wq_full(const struct qrnic_wq *wq)
{
	return (u16)(wq->pi - wq->tail) >= qrnic_wq_depth(wq);
}

/*
 * Copy a WQE built in memory to the producer's slot in 64-bit stores of
 * whole chunks (never beyond the slot), and advance pi.  The stores are
 * not ordered: qrnic_wq_doorbell() makes them visible before the doorbell.
 */
static void qrnic_wq_write(struct qrnic_wq *wq, const u64 *wqe, u32 len)
{
	u32 slot = wq->pi & (qrnic_wq_depth(wq) - 1);
	u32 stride = 1U << wq->log_stride;
	u32 n = min(round_up(len, QRNIC_WQE_CHUNK), stride);

	__iowrite64_copy(wq->buf + ((size_t)slot << wq->log_stride), wqe,
			 n / sizeof(u64));
	wq->pi++;
}

/*
 * Tell the device about the WQEs written since pi was start, if any: qn is
 * the QP's or SRQ's number, db the doorbell's offset.
 */
static void qrnic_wq_doorbell(struct qrnic_dev *qdev, u32 qn,
			      struct qrnic_wq *wq, u16 start, u32 db)
{
	if (wq->pi == start)
		return;
	/* The WQEs (write-combining) before the doorbell. */
	wmb();
	writeq(qn | (u64)wq->pi << 32, qdev->db + db);
}

static void qrnic_copy_sges(struct qrnic_sge *sge, const struct ib_sge *sg,
			    int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		sge[i].addr = cpu_to_le64(sg[i].addr);
		sge[i].length = cpu_to_le32(sg[i].length);
		sge[i].lkey = cpu_to_le32(sg[i].lkey);
	}
}

static bool qrnic_send_state_ok(u8 state)
{
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE || state == IB_QPS_ERR;
}

static int qrnic_build_inline(struct qrnic_qp *qp, const struct ib_send_wr *wr,
			      u8 *data, struct qrnic_sq_wqe *hdr)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ib_sge *sge = &wr->sg_list[i];

		if (sge->length > qp->max_inline - total)
			return -EINVAL;
		/* Kernel consumers pass inline data by virtual address. */
		memcpy(data + total, (void *)(uintptr_t)sge->addr, sge->length);
		total += sge->length;
	}
	hdr->flags |= QRNIC_WQE_F_INLINE;
	hdr->inline_len = cpu_to_le32(total);
	return sizeof(*hdr) + total;
}

/* UD and GSI: SEND (with immediate) to the AH's address, remote QPN, Q_Key. */
static int qrnic_build_ud(const struct ib_send_wr *wr, struct qrnic_sq_wqe *hdr)
{
	const struct ib_ud_wr *ud = ud_wr(wr);

	if (wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM)
		return -EINVAL;
	if (!ud->ah || ud->remote_qpn & ~QRNIC_QPN_MASK)
		return -EINVAL;
	hdr->ud = to_qah(ud->ah)->av;
	hdr->ud.dest_qpn = cpu_to_le32(ud->remote_qpn);
	/* Bit 31 set: the device sends the QP's own Q_Key (IBTA). */
	hdr->ud.qkey = cpu_to_le32(ud->remote_qkey);
	return 0;
}

/*
 * Does the QP take this opcode (its type, the device's capabilities)?
 * The IB_WR_* a kernel QP can post are the QRNIC_WR_* of the same value.
 */
static bool qrnic_wr_opcode_ok(const struct qrnic_dev *qdev,
			       const struct qrnic_qp *qp,
			       struct qrnic_wr_info info)
{
	return (info.qp_types & QRNIC_WR_QPT(qp->qp_type)) &&
	       (qdev->cap0 & info.cap0) == info.cap0;
}

/* Build one send WQE in buf; returns its length in bytes or -errno. */
static int qrnic_build_send(struct qrnic_dev *qdev, struct qrnic_qp *qp,
			    const struct ib_send_wr *wr, u64 *buf)
{
	struct qrnic_wr_info info = qrnic_wr_info(wr->opcode);
	struct qrnic_sq_wqe *hdr = (struct qrnic_sq_wqe *)buf;
	struct qrnic_sge *sge = (struct qrnic_sge *)(hdr + 1);
	int ret;

	if (!qrnic_wr_opcode_ok(qdev, qp, info))
		return -EINVAL;
	if (qp->qp_type == QRNIC_QPT_UD || qp->qp_type == QRNIC_QPT_GSI) {
		ret = qrnic_build_ud(wr, hdr);
		if (ret)
			return ret;
	}
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE_WITH_IMM:
		hdr->imm_data = wr->ex.imm_data;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_READ:
		hdr->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		hdr->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	case IB_WR_SEND_WITH_IMM:
		hdr->imm_data = wr->ex.imm_data;
		break;
	case IB_WR_SEND:
		break;
	case IB_WR_SEND_WITH_INV:
	case IB_WR_LOCAL_INV:
		hdr->invalidate_rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case IB_WR_REG_MR:
		ret = qrnic_build_reg_mr(reg_wr(wr), hdr);
		if (ret)
			return ret;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		hdr->remote_addr = cpu_to_le64(atomic_wr(wr)->remote_addr);
		hdr->rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		hdr->compare_add = cpu_to_le64(atomic_wr(wr)->compare_add);
		hdr->swap = cpu_to_le64(atomic_wr(wr)->swap);
		break;
	default:
		return -EINVAL;
	}
	hdr->wr_id = cpu_to_le64(wr->wr_id);
	hdr->opcode = wr->opcode;	/* the IB_WR_* taken are QRNIC_WR_* */
	if (wr->send_flags & IB_SEND_SIGNALED)
		hdr->flags |= QRNIC_WQE_F_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		hdr->flags |= QRNIC_WQE_F_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		hdr->flags |= QRNIC_WQE_F_FENCE;

	if (!(info.props & QRNIC_WR_P_SGL))
		return sizeof(*hdr);	/* no data */
	if (wr->send_flags & IB_SEND_INLINE) {
		if (!(info.props & QRNIC_WR_P_DATA))
			return -EINVAL;
		return qrnic_build_inline(qp, wr, (u8 *)sge, hdr);
	}

	if (wr->num_sge < 0 || wr->num_sge > qp->max_send_sge)
		return -EINVAL;
	qrnic_copy_sges(sge, wr->sg_list, wr->num_sge);
	hdr->num_sge = wr->num_sge;
	return sizeof(*hdr) + wr->num_sge * sizeof(*sge);
}

/*
 * Has the QP a ring the kernel writes?  Not an XRC_TGT QP (none at all;
 * asked first: ib_core's handles of one are not driver QPs) nor a user
 * QP (its rings are the provider's; uverbs' post write commands come
 * here too).
 */
static bool qrnic_qp_kernel_ring(struct ib_qp *ibqp, bool send)
{
	struct qrnic_qp *qp;

	if (ibqp->qp_type == IB_QPT_XRC_TGT)
		return false;
	qp = to_qqp(ibqp);
	return send ? !!qp->sq.buf : !!qp->rq.buf;
}

int qrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct qrnic_dev *qdev = to_qdev(ibqp->device);
	struct qrnic_qp *qp = to_qqp(ibqp);
	u64 buf[QRNIC_SQ_MAX_STRIDE / sizeof(u64)];
	unsigned long flags;
	int ret = 0, len;
	u16 start;

	if (!qrnic_qp_kernel_ring(ibqp, true)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->lock, flags);
	start = qp->sq.pi;
	if (!qrnic_send_state_ok(qp->state)) {
		ret = -EINVAL;
		goto out;
	}
	for (; wr; wr = wr->next) {
		if (qrnic_wq_full(&qp->sq)) {
			ret = -ENOMEM;
			break;
		}
		memset(buf, 0, 1U << qp->sq.log_stride);
		len = qrnic_build_send(qdev, qp, wr, buf);
		if (len < 0) {
			ret = len;
			break;
		}
		qrnic_wq_write(&qp->sq, buf, len);
	}
	qrnic_wq_doorbell(qdev, qp->qpn, &qp->sq, start, QRNIC_DB_SQ);
out:
	spin_unlock_irqrestore(&qp->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/*
 * Write one receive WQE into an RQ or SRQ ring; -errno if the ring is full
 * or the WR has too many SGEs.
 */
static int qrnic_write_recv(struct qrnic_wq *wq, u32 max_sge,
			    const struct ib_recv_wr *wr)
{
	u64 buf[QRNIC_RQ_MAX_STRIDE / sizeof(u64)];
	struct qrnic_rq_wqe *hdr = (struct qrnic_rq_wqe *)buf;
	struct qrnic_sge *sge = (struct qrnic_sge *)(hdr + 1);

	if (qrnic_wq_full(wq))
		return -ENOMEM;
	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	memset(buf, 0, 1U << wq->log_stride);
	hdr->wr_id = cpu_to_le64(wr->wr_id);
	hdr->num_sge = wr->num_sge;
	qrnic_copy_sges(sge, wr->sg_list, wr->num_sge);
	qrnic_wq_write(wq, buf, sizeof(*hdr) + wr->num_sge * sizeof(*sge));
	return 0;
}

/*
 * Write the receive WRs from *wr on into the ring and ring the doorbell for
 * those written; on an error *wr is the WR that failed.  Queue lock held.
 */
static int qrnic_write_recvs(struct qrnic_dev *qdev, u32 qn,
			     struct qrnic_wq *wq, u32 db, u32 max_sge,
			     const struct ib_recv_wr **wr)
{
	u16 start = wq->pi;
	int ret = 0;

	for (; *wr; *wr = (*wr)->next) {
		ret = qrnic_write_recv(wq, max_sge, *wr);
		if (ret)
			break;
	}
	qrnic_wq_doorbell(qdev, qn, wq, start, db);
	return ret;
}

int qrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct qrnic_dev *qdev = to_qdev(ibqp->device);
	struct qrnic_qp *qp = to_qqp(ibqp);
	unsigned long flags;
	int ret;

	/* No RQ here: a QP with an SRQ, an XRC QP, a user QP. */
	if (!qrnic_qp_kernel_ring(ibqp, false)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->state == IB_QPS_RESET)
		ret = -EINVAL;
	else
		ret = qrnic_write_recvs(qdev, qp->qpn, &qp->rq, QRNIC_DB_RQ,
					qp->max_recv_sge, &wr);
	spin_unlock_irqrestore(&qp->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

int qrnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct qrnic_dev *qdev = to_qdev(ibsrq->device);
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	unsigned long flags;
	int ret;

	if (!srq->done) {	/* a user SRQ */
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->lock, flags);
	ret = qrnic_write_recvs(qdev, srq->srqn, &srq->wq, QRNIC_DB_SRQ,
				srq->max_sge, &wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* The CQE at index i (free running) if the device has written it. */
static struct qrnic_cqe *qrnic_cq_entry(struct qrnic_cq *cq, u32 i)
{
	struct qrnic_cqe *cqe = &cq->ring[i & ((1U << cq->log_depth) - 1)];
	u32 phase = !((i >> cq->log_depth) & 1);

	/* Only bit 0: UD receives have the source QPN above it. */
	if ((le32_to_cpu(READ_ONCE(cqe->owner)) & QRNIC_CQE_PHASE) != phase)
		return NULL;
	dma_rmb();	/* the rest of the entry after its phase bit */
	return cqe;
}

/* The CQE at ci if the device has written it, else NULL. */
static struct qrnic_cqe *qrnic_cq_next(struct qrnic_cq *cq)
{
	return qrnic_cq_entry(cq, cq->ci);
}

/*
 * The completed WQE's slot and those before it are free again.  Called
 * with the QP xarray locked, interrupts off.
 */
static void qrnic_wq_complete(struct qrnic_qp *qp, struct qrnic_wq *wq,
			      u16 wqe_idx)
{
	u16 tail = wqe_idx + 1;

	spin_lock(&qp->lock);
	/* Ignore anything outside what is posted (e.g. from before RESET). */
	if ((u16)(tail - wq->tail) <= (u16)(wq->pi - wq->tail))
		wq->tail = tail;
	spin_unlock(&qp->lock);
}

/*
 * SRQ slot wqe_idx has completed: mark it, and move the tail over the
 * completed slots that now follow it.  Interrupts off.
 */
static void qrnic_srq_complete(struct qrnic_srq *srq, u16 wqe_idx)
{
	struct qrnic_wq *wq = &srq->wq;
	u32 mask = (1U << wq->log_depth) - 1;

	if (!srq->done)		/* a user SRQ: not ours to track */
		return;
	spin_lock(&srq->lock);
	/* Only slots posted and not yet free: a stray index changes nothing. */
	if ((u16)(wqe_idx - wq->tail) < (u16)(wq->pi - wq->tail)) {
		__set_bit(wqe_idx & mask, srq->done);
		while (wq->tail != wq->pi &&
		       __test_and_clear_bit(wq->tail & mask, srq->done))
			wq->tail++;
	}
	spin_unlock(&srq->lock);
}

/* Free the SRQ slot of a receive completion, or the RQ/SQ slots up to it. */
static void qrnic_cqe_complete(struct qrnic_qp *qp, const struct qrnic_cqe *c)
{
	u16 wqe_idx = le16_to_cpu(c->wqe_idx);

	if (c->flags & QRNIC_CQE_F_SEND)
		qrnic_wq_complete(qp, &qp->sq, wqe_idx);
	else if (c->flags & QRNIC_CQE_F_SRQ)
		qrnic_srq_complete(qp->srq, wqe_idx);
	else
		qrnic_wq_complete(qp, &qp->rq, wqe_idx);
}

/*
 * A UD or GSI receive: the buffer starts with the 40-byte GRH (for IPv4,
 * 20 unused bytes and the IPv4 header), the sender's QPN is in owner.
 */
static void qrnic_cqe_ud_recv(const struct qrnic_cqe *c, struct ib_wc *wc)
{
	wc->src_qp = le32_to_cpu(c->owner) >> QRNIC_CQE_SRC_QP_SHIFT;
	if (c->flags & QRNIC_CQE_F_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = c->flags & QRNIC_CQE_F_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
}

/* Translate one CQE; false if its QP is gone (the CQE is dropped). */
static bool qrnic_cqe_to_wc(struct qrnic_dev *qdev, const struct qrnic_cqe *c,
			    struct ib_wc *wc)
{
	struct qrnic_qp *qp;
	bool ud_recv = false;

	/*
	 * An XRC SRQ's receive, which only user XRC SRQs and so only user
	 * CQs get: on a kernel CQ a device bug.  Its QP (XRC_TGT) has no
	 * SRQ or RQ whose slot it could free: skip it.
	 */
	if (c->flags & QRNIC_CQE_F_XRC)
		return false;

	xa_lock(&qdev->qp_xa);
	qp = xa_load(&qdev->qp_xa, le32_to_cpu(c->qpn));
	if (qp) {
		/* An SRQ CQE from a QP without one is a device bug: skip it. */
		if ((c->flags & QRNIC_CQE_F_SRQ) && !qp->srq)
			qp = NULL;
		else
			qrnic_cqe_complete(qp, c);
	}
	if (qp)
		ud_recv = (qp->qp_type == QRNIC_QPT_UD ||
			   qp->qp_type == QRNIC_QPT_GSI) &&
			  !(c->flags & QRNIC_CQE_F_SEND);
	xa_unlock(&qdev->qp_xa);
	if (!qp)
		return false;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(c->wr_id);
	wc->status = c->status;		/* QRNIC_WC_* are IB_WC_* */
	/* QRNIC_CQE_OP_* are IB_WC_*, but for REG_MR (it moved in 6.2). */
	wc->opcode = c->opcode == QRNIC_CQE_OP_REG_MR ? IB_WC_REG_MR :
							c->opcode;
	wc->vendor_err = c->vendor_err;
	wc->byte_len = le32_to_cpu(c->byte_len);
	wc->qp = &qp->ibqp;
	if (c->flags & QRNIC_CQE_F_IMM) {
		wc->ex.imm_data = c->imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	} else if (c->flags & QRNIC_CQE_F_INV) {
		wc->ex.invalidate_rkey = le32_to_cpu(c->invalidate_rkey);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	if (ud_recv)
		qrnic_cqe_ud_recv(c, wc);
	wc->port_num = QRNIC_PORT;
	wc->pkey_index = 0;	/* slid and sl stay 0: RoCE */
	return true;
}

int qrnic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct qrnic_dev *qdev = to_qdev(ibcq->device);
	struct qrnic_cq *cq = to_qcq(ibcq);
	struct qrnic_cqe *cqe, c;
	unsigned long flags;
	u32 start;
	int n = 0;

	if (!cq->ring)
		return -EINVAL;	/* a user CQ */

	spin_lock_irqsave(&cq->lock, flags);
	start = cq->ci;
	while (n < num_entries) {
		cqe = qrnic_cq_next(cq);
		if (!cqe)
			break;
		c = *cqe;
		cq->ci++;
		if (qrnic_cqe_to_wc(qdev, &c, &wc[n]))
			n++;
	}
	if (cq->ci != start)
		WRITE_ONCE(cq->rec->ci, cpu_to_le32(cq->ci));
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * A kernel QP with an SRQ is being destroyed (the device has forgotten it):
 * take it out of the qpn table and free the SRQ slots of its receive
 * completions still in the receive CQ, both under that CQ's lock, so that
 * each such completion is either polled with the QP known or counted
 * here.  Polling drops them afterwards (their QP is unknown).
 */
void qrnic_qp_erase_srq(struct qrnic_dev *qdev, struct qrnic_qp *qp)
{
	struct qrnic_cq *cq = to_qcq(qp->ibqp.recv_cq);
	const struct qrnic_cqe *cqe;
	unsigned long flags;
	u32 i, n;

	spin_lock_irqsave(&cq->lock, flags);
	xa_lock(&qdev->qp_xa);
	__xa_erase(&qdev->qp_xa, qp->qpn);
	xa_unlock(&qdev->qp_xa);

	n = 1U << cq->log_depth;
	for (i = cq->ci; i != cq->ci + n; i++) {
		cqe = qrnic_cq_entry(cq, i);
		if (!cqe)
			break;
		if (le32_to_cpu(cqe->qpn) == qp->qpn &&
		    (cqe->flags & (QRNIC_CQE_F_SRQ | QRNIC_CQE_F_SEND)) ==
		    QRNIC_CQE_F_SRQ)
			qrnic_srq_complete(qp->srq, le16_to_cpu(cqe->wqe_idx));
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

int qrnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct qrnic_dev *qdev = to_qdev(ibcq->device);
	struct qrnic_cq *cq = to_qcq(ibcq);
	unsigned long irqflags;
	u64 db;
	int ret = 0;

	if (!cq->ring)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, irqflags);
	db = cq->cqn | QRNIC_DB_ARM;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		db |= QRNIC_DB_ARM_SOLICITED;
	db |= (u64)cq->ci << 32;
	writeq(db, qdev->db + QRNIC_DB_CQ);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && qrnic_cq_next(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
