// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: ibv_post_send / ibv_post_recv / ibv_post_srq_recv.
 *
 * A WQE is built in a 64-byte aligned local buffer and then copied into
 * its slot of the queue memory with ordered 64-byte stores (the mapping is
 * write-combining; never memcpy to it).  After the whole list one doorbell
 * carries the new producer index.  No system calls.
 */
#include <errno.h>
#include <string.h>

#include <util/compiler.h>
#include <util/util.h>

#include "qrnic.h"

static_assert(sizeof(struct qrnic_sq_wqe) == 64, "send WQE header");
static_assert(sizeof(struct qrnic_rq_wqe) == 16, "receive WQE header");
static_assert(sizeof(struct qrnic_sge) == 16, "SGE");
static_assert((int)IBV_WR_RDMA_WRITE == QRNIC_WR_RDMA_WRITE &&
	      (int)IBV_WR_RDMA_WRITE_WITH_IMM == QRNIC_WR_RDMA_WRITE_IMM &&
	      (int)IBV_WR_SEND == QRNIC_WR_SEND &&
	      (int)IBV_WR_SEND_WITH_IMM == QRNIC_WR_SEND_IMM &&
	      (int)IBV_WR_RDMA_READ == QRNIC_WR_RDMA_READ &&
	      (int)IBV_WR_ATOMIC_CMP_AND_SWP == QRNIC_WR_ATOMIC_CMP_AND_SWP &&
	      (int)IBV_WR_ATOMIC_FETCH_AND_ADD == QRNIC_WR_ATOMIC_FETCH_AND_ADD &&
	      (int)IBV_WR_LOCAL_INV == QRNIC_WR_LOCAL_INV &&
	      (int)IBV_WR_BIND_MW == QRNIC_WR_BIND_MW &&
	      (int)IBV_WR_SEND_WITH_INV == QRNIC_WR_SEND_WITH_INV &&
	      (int)IBV_WR_FLUSH == QRNIC_WR_FLUSH &&
	      (int)IBV_WR_ATOMIC_WRITE == QRNIC_WR_ATOMIC_WRITE,
	      "send opcodes are the verbs values");

/*
 * The device takes send WQEs in RTS, SQD and ERR (where it flushes them),
 * from QPs that have an SQ (not XRC_RECV).
 */
bool qrnic_qp_can_send(struct qrnic_qp *qp)
{
	if (!qp->sq.depth)
		return false;
	switch (atomic_load_explicit(&qp->state, memory_order_relaxed)) {
	case IBV_QPS_RESET:
	case IBV_QPS_INIT:
	case IBV_QPS_RTR:
		return false;
	default:
		return true;
	}
}

/*
 * Copy a built WQE of len bytes into a slot of a stride of at least 64
 * bytes, in whole 64-byte chunks (a stride is a power of two, so they stay
 * inside the slot).
 */
static void qrnic_wqe_copy64(void *slot, union qrnic_wqe_buf *wqe,
			     uint32_t len)
{
	uint32_t n = align(len, 64);

	if (n > len)
		memset(wqe->bytes + len, 0, n - len);
	/* The WQE was written through other types than the copy reads. */
	asm volatile("" ::: "memory");
	mmio_memcpy_x64(slot, wqe->words, n);
}

/* A built send WQE into slot pi, then pi advances; sq.lock held, slot free. */
void qrnic_sq_write(struct qrnic_qp *qp, union qrnic_wqe_buf *wqe,
		    uint32_t len)
{
	qrnic_wqe_copy64(qrnic_wq_slot(&qp->sq, qp->sq.pi), wqe, len);
	qp->sq.pi++;
}

/* Make the WQEs visible, then one doorbell with the producer index. */
void qrnic_sq_ring(struct qrnic_qp *qp)
{
	mmio_flush_writes();
	qrnic_ring_db(to_qctx(qp->vqp.qp.context), QRNIC_DB_SQ,
		      qrnic_db_val(qp->qpn, 0, qp->sq.pi));
}

/* Inline data: the SGEs' bytes right after the header. */
static int qrnic_build_inline(struct qrnic_qp *qp, const struct ibv_send_wr *wr,
			      union qrnic_wqe_buf *wqe, uint32_t *len)
{
	uint8_t *dst = wqe->bytes + sizeof(struct qrnic_sq_wqe);
	uint64_t total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		uint32_t l = wr->sg_list[i].length;

		total += l;
		if (total > qp->max_inline)
			return EINVAL;
		if (l)
			memcpy(dst, (void *)(uintptr_t)wr->sg_list[i].addr, l);
		dst += l;
	}
	wqe->hdr.flags |= QRNIC_WQE_F_INLINE;
	wqe->hdr.inline_len = htole32(total);
	*len = sizeof(struct qrnic_sq_wqe) + total;
	return 0;
}

/*
 * The RC/UC header fields of wr; *can_inline when it carries a payload.
 * Type 1 windows are bound only through ibv_bind_mw (type1_bind).
 */
static int qrnic_build_rc(const struct ibv_send_wr *wr,
			  struct qrnic_sq_wqe *hdr, bool *can_inline,
			  bool type1_bind)
{
	switch (wr->opcode) {
	case IBV_WR_BIND_MW:
		if (!wr->bind_mw.mw ||
		    (wr->bind_mw.mw->type == IBV_MW_TYPE_1) != type1_bind)
			return EINVAL;
		return qrnic_set_bind(hdr, wr->bind_mw.mw, wr->bind_mw.rkey,
				      &wr->bind_mw.bind_info);
	case IBV_WR_LOCAL_INV:
		hdr->imm_data = htole32(wr->invalidate_rkey);
		break;
	case IBV_WR_SEND_WITH_INV:
		hdr->imm_data = htole32(wr->invalidate_rkey);
		*can_inline = true;
		break;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
		*can_inline = true;
		SWITCH_FALLTHROUGH;
	case IBV_WR_RDMA_READ:
		hdr->remote_addr = htole64(wr->wr.rdma.remote_addr);
		hdr->rkey = htole32(wr->wr.rdma.rkey);
		break;
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_SEND:
		*can_inline = true;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		hdr->swap = htole64(wr->wr.atomic.swap);
		SWITCH_FALLTHROUGH;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		hdr->remote_addr = htole64(wr->wr.atomic.remote_addr);
		hdr->rkey = htole32(wr->wr.atomic.rkey);
		hdr->compare_add = htole64(wr->wr.atomic.compare_add);
		break;
	default:
		return EINVAL;
	}
	return 0;
}

/* XRC_SEND: the XRC SRQ at the target, for what goes on the wire. */
static int qrnic_build_xrc(const struct ibv_send_wr *wr,
			   struct qrnic_sq_wqe *hdr)
{
	uint32_t srqn = wr->qp_type.xrc.remote_srqn;

	if (!qrnic_xrc_needs_srqn(wr->opcode))
		return 0;
	if (!qrnic_xrc_srqn_ok(srqn))
		return EINVAL;
	hdr->xrc_srqn = htole32(srqn);
	return 0;
}

/* UD: SEND and SEND_WITH_IMM only, addressed by the WR's AH. */
static int qrnic_build_ud(const struct ibv_send_wr *wr,
			  struct qrnic_sq_wqe *hdr)
{
	if ((wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) ||
	    !wr->wr.ud.ah)
		return EINVAL;
	qrnic_set_ud_av(hdr, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
			wr->wr.ud.remote_qkey);
	return 0;
}

static int qrnic_build_send(struct qrnic_qp *qp, const struct ibv_send_wr *wr,
			    union qrnic_wqe_buf *wqe, uint32_t *len,
			    bool type1_bind)
{
	struct qrnic_sq_wqe *hdr = &wqe->hdr;
	bool can_inline = false;
	int ret;

	if (wr->num_sge < 0)
		return EINVAL;

	if (!qrnic_qp_op_ok(qp, wr->opcode))
		return EINVAL;

	memset(hdr, 0, sizeof(*hdr));
	if (wr->opcode == IBV_WR_SEND_WITH_IMM ||
	    wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM)
		hdr->imm_data = (__force uint32_t)wr->imm_data;
	if (qrnic_qp_is_ud(qp)) {
		ret = qrnic_build_ud(wr, hdr);
		can_inline = true;
	} else {
		ret = qrnic_build_rc(wr, hdr, &can_inline, type1_bind);
		if (!ret && qrnic_qp_is_xrc_send(qp))
			ret = qrnic_build_xrc(wr, hdr);
	}
	if (ret)
		return ret;
	hdr->wr_id = htole64(wr->wr_id);
	hdr->opcode = wr->opcode;
	hdr->flags = qrnic_send_flags(qp, wr->send_flags);

	if (can_inline && (wr->send_flags & IBV_SEND_INLINE))
		return qrnic_build_inline(qp, wr, wqe, len);
	if (wr->opcode == IBV_WR_BIND_MW || wr->opcode == IBV_WR_LOCAL_INV) {
		*len = sizeof(*hdr);	/* no data */
		return 0;
	}

	if ((uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	qrnic_copy_sge((struct qrnic_sge *)(hdr + 1), wr->sg_list,
		       wr->num_sge);
	hdr->num_sge = wr->num_sge;
	*len = sizeof(*hdr) + wr->num_sge * sizeof(struct qrnic_sge);
	return 0;
}

int qrnic_post_send_mw(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr, bool type1_bind)
{
	struct qrnic_qp *qp = to_qqp(ibqp);
	union qrnic_wqe_buf wqe;
	uint32_t start, len;
	int ret = 0;

	pthread_spin_lock(&qp->sq.lock);
	if (!qrnic_qp_can_send(qp)) {
		ret = EINVAL;
		*bad_wr = wr;
		goto out;
	}

	start = qp->sq.pi;
	for (; wr; wr = wr->next) {
		if (qrnic_wq_full(&qp->sq)) {
			ret = ENOMEM;
			break;
		}
		ret = qrnic_build_send(qp, wr, &wqe, &len, type1_bind);
		if (ret)
			break;
		qrnic_sq_write(qp, &wqe, len);
	}
	if (ret)
		*bad_wr = wr;

	/* What was posted before a failing WR still goes. */
	if (qp->sq.pi != start)
		qrnic_sq_ring(qp);
out:
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

int qrnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	return qrnic_post_send_mw(ibqp, wr, bad_wr, false);
}

/*
 * Copy a receive WQE into slot pi of a QP's RQ or an SRQ.  Strides of 64
 * bytes and more take 64-byte chunks; 16- and 32-byte slots take 8-byte
 * stores.
 */
static void qrnic_rq_write(struct qrnic_wq *wq, union qrnic_wqe_buf *wqe,
			   uint32_t len)
{
	uint8_t *slot = qrnic_wq_slot(wq, wq->pi);
	uint32_t i;

	if (wq->log_stride >= 6) {
		qrnic_wqe_copy64(slot, wqe, len);
	} else {
		asm volatile("" ::: "memory");
		for (i = 0; i < len / 8; i++)
			mmio_write64_le(slot + i * 8,
					(__force __le64)wqe->words[i]);
	}
	wq->pi++;
}

/*
 * Write the receive WRs of a list into wq (its lock held) until one fails,
 * then ring doorbell db of queue qn for those written; returns 0 or the
 * error, with *bad_wr set.
 */
static int qrnic_rq_post_list(struct ibv_context *ibctx, uint32_t db,
			      uint32_t qn, struct qrnic_wq *wq,
			      struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	uint32_t start = wq->pi;
	union qrnic_wqe_buf wqe;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (qrnic_wq_full(wq)) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > wq->max_sge) {
			ret = EINVAL;
			break;
		}
		memset(&wqe.rq, 0, sizeof(wqe.rq));
		wqe.rq.wr_id = htole64(wr->wr_id);
		wqe.rq.num_sge = wr->num_sge;
		qrnic_copy_sge((struct qrnic_sge *)(&wqe.rq + 1), wr->sg_list,
			       wr->num_sge);
		qrnic_rq_write(wq, &wqe, sizeof(wqe.rq) +
				wr->num_sge * sizeof(struct qrnic_sge));
	}
	if (ret)
		*bad_wr = wr;
	if (wq->pi != start) {
		mmio_flush_writes();
		qrnic_ring_db(to_qctx(ibctx), db, qrnic_db_val(qn, 0, wq->pi));
	}
	return ret;
}

int qrnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct qrnic_qp *qp = to_qqp(ibqp);
	int ret = 0;

	/*
	 * No RQ of its own: the receives of a QP with an SRQ come from the
	 * SRQ (ibv_post_srq_recv), XRC_SEND QPs have no receive side, and
	 * XRC_RECV QPs take the WQEs of the XRC SRQ each request names.
	 */
	if (!qp->rq.depth) {
		*bad_wr = wr;
		return EINVAL;
	}

	pthread_spin_lock(&qp->rq.lock);
	if (atomic_load_explicit(&qp->state, memory_order_relaxed) ==
	    IBV_QPS_RESET) {
		ret = EINVAL;
		*bad_wr = wr;
		goto out;
	}

	ret = qrnic_rq_post_list(ibqp->context, QRNIC_DB_RQ, qp->qpn, &qp->rq,
				 wr, bad_wr);
out:
	pthread_spin_unlock(&qp->rq.lock);
	return ret;
}

/*
 * SRQ WQEs are RQ WQEs in the SRQ's ring, rung with DB_SRQ.  A slot is
 * free again once it and all slots before it have completed
 * (qrnic_srq_complete), so a ring whose oldest WQE is still out is full
 * however many later ones have completed: ENOMEM.
 */
int qrnic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->wq.lock);
	ret = qrnic_rq_post_list(ibsrq->context, QRNIC_DB_SRQ, srq->srqn,
				 &srq->wq, wr, bad_wr);
	pthread_spin_unlock(&srq->wq.lock);
	return ret;
}
