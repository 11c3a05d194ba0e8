// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: the new post API (struct ibv_qp_ex, ibv_wr_start ... ibv_wr_complete).
 *
 * ibv_wr_start takes the SQ lock until ibv_wr_complete/abort.  A builder
 * (ibv_wr_send, ibv_wr_rdma_write, ...) starts a WQE in qp->wr_buf; the
 * setters (ibv_wr_set_sge, ...) fill its data part.  The WQE goes into its
 * queue memory slot when the next builder or ibv_wr_complete comes; the
 * doorbell is rung once by ibv_wr_complete.  Any error (full queue, too
 * many SGEs, inline data too long, QP not ready, a builder the QP's type
 * does not take (the work-request table's QP-type column), a UD WQE
 * without ibv_wr_set_ud_addr, an XRC WQE that goes on the wire without
 * ibv_wr_set_xrc_srqn) drops the whole batch and is returned by
 * ibv_wr_complete.
 */
#include <errno.h>
#include <string.h>

#include <util/compiler.h>

#include "qrnic.h"

/* Put the WQE under construction into its slot. */
static void qrnic_wr_commit(struct qrnic_qp *qp)
{
	if (qp->wr_len && !qp->wr_err) {
		if (qp->wr_need_av || qp->wr_need_srqn)
			qp->wr_err = EINVAL;
		else
			qrnic_sq_write(qp, &qp->wr_buf, qp->wr_len);
	}
	qp->wr_len = 0;
}

static struct qrnic_sq_wqe *qrnic_wr_begin(struct ibv_qp_ex *ibqpx,
					   uint8_t opcode)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);
	struct qrnic_sq_wqe *hdr = &qp->wr_buf.hdr;

	qrnic_wr_commit(qp);
	if (qp->wr_err)
		return NULL;
	if (!qrnic_qp_op_ok(qp, opcode)) {
		qp->wr_err = EINVAL;
		return NULL;
	}
	if (qrnic_wq_full(&qp->sq)) {
		qp->wr_err = ENOMEM;
		return NULL;
	}

	memset(hdr, 0, sizeof(*hdr));
	hdr->wr_id = htole64(ibqpx->wr_id);
	hdr->opcode = opcode;
	hdr->flags = qrnic_send_flags(qp, ibqpx->wr_flags);
	qp->wr_len = sizeof(*hdr);
	qp->wr_need_av = qrnic_qp_is_ud(qp);
	qp->wr_need_srqn = qrnic_qp_is_xrc_send(qp) &&
			   qrnic_xrc_needs_srqn(opcode);
	return hdr;
}

/* SEND and RDMA WRITE (with immediate, with invalidate): data of their own. */
static bool qrnic_wr_has_payload(uint8_t opcode)
{
	return qrnic_wr_info(opcode).props & QRNIC_WR_P_DATA;
}

/* Opcodes with SGEs (READ and atomics: where the result goes). */
static bool qrnic_wr_has_data(uint8_t opcode)
{
	return qrnic_wr_info(opcode).props & QRNIC_WR_P_SGL;
}

/* The WQE a setter applies to, NULL when there is none or the batch failed. */
static struct qrnic_sq_wqe *qrnic_wr_cur(struct qrnic_qp *qp)
{
	if (!qp->wr_len || qp->wr_err)
		return NULL;
	return &qp->wr_buf.hdr;
}

/* ---- builders ------------------------------------------------------------ */

static void qrnic_wr_send(struct ibv_qp_ex *ibqpx)
{
	qrnic_wr_begin(ibqpx, QRNIC_WR_SEND);
}

static void qrnic_wr_send_imm(struct ibv_qp_ex *ibqpx, __be32 imm_data)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx, QRNIC_WR_SEND_IMM);

	if (hdr)
		hdr->imm_data = (__force uint32_t)imm_data;
}

static void qrnic_wr_rdma(struct ibv_qp_ex *ibqpx, uint8_t opcode,
			  uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx, opcode);

	if (!hdr)
		return;
	hdr->remote_addr = htole64(remote_addr);
	hdr->rkey = htole32(rkey);
	hdr->imm_data = (__force uint32_t)imm_data;
}

static void qrnic_wr_rdma_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				uint64_t remote_addr)
{
	qrnic_wr_rdma(ibqpx, QRNIC_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void qrnic_wr_rdma_write_imm(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	qrnic_wr_rdma(ibqpx, QRNIC_WR_RDMA_WRITE_IMM, rkey, remote_addr,
		      imm_data);
}

static void qrnic_wr_rdma_read(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	qrnic_wr_rdma(ibqpx, QRNIC_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void qrnic_wr_atomic(struct ibv_qp_ex *ibqpx, uint8_t opcode,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx, opcode);

	if (!hdr)
		return;
	hdr->remote_addr = htole64(remote_addr);
	hdr->rkey = htole32(rkey);
	hdr->compare_add = htole64(compare_add);
	hdr->swap = htole64(swap);
}

static void qrnic_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	qrnic_wr_atomic(ibqpx, QRNIC_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void qrnic_wr_atomic_fetch_add(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	qrnic_wr_atomic(ibqpx, QRNIC_WR_ATOMIC_FETCH_AND_ADD, rkey,
			remote_addr, add, 0);
}

static void qrnic_wr_bind_mw(struct ibv_qp_ex *ibqpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx, QRNIC_WR_BIND_MW);
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);

	if (!hdr)
		return;
	/* Type 1 windows are bound through ibv_bind_mw. */
	if (!mw || mw->type != IBV_MW_TYPE_2)
		qp->wr_err = EINVAL;
	else
		qp->wr_err = qrnic_set_bind(hdr, mw, rkey, bind_info);
}

/* LOCAL_INV and SEND_WITH_INV: the key to invalidate. */
static void qrnic_wr_inv(struct ibv_qp_ex *ibqpx, uint8_t opcode,
			 uint32_t invalidate_rkey)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx, opcode);

	if (hdr)
		hdr->imm_data = htole32(invalidate_rkey);
}

static void qrnic_wr_local_inv(struct ibv_qp_ex *ibqpx,
			       uint32_t invalidate_rkey)
{
	qrnic_wr_inv(ibqpx, QRNIC_WR_LOCAL_INV, invalidate_rkey);
}

static void qrnic_wr_send_inv(struct ibv_qp_ex *ibqpx, uint32_t invalidate_rkey)
{
	qrnic_wr_inv(ibqpx, QRNIC_WR_SEND_WITH_INV, invalidate_rkey);
}

static void qrnic_wr_flush(struct ibv_qp_ex *ibqpx, uint32_t rkey,
			   uint64_t remote_addr, size_t len, uint8_t type,
			   uint8_t level)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx, QRNIC_WR_FLUSH);

	if (!hdr)
		return;
	hdr->flush.remote_addr = htole64(remote_addr);
	hdr->flush.rkey = htole32(rkey);
	hdr->flush.type = type;
	hdr->flush.level = level;
	hdr->flush.length = htole64(len);
}

static void qrnic_wr_atomic_write(struct ibv_qp_ex *ibqpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct qrnic_sq_wqe *hdr = qrnic_wr_begin(ibqpx,
						  QRNIC_WR_ATOMIC_WRITE);

	if (!hdr)
		return;
	hdr->remote_addr = htole64(remote_addr);
	hdr->rkey = htole32(rkey);
	/* The 8 bytes as they are in memory. */
	memcpy(&hdr->compare_add, atomic_wr, sizeof(hdr->compare_add));
}

/* ---- setters ------------------------------------------------------------- */

static void qrnic_wr_set_ud_addr(struct ibv_qp_ex *ibqpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);
	struct qrnic_sq_wqe *hdr = qrnic_wr_cur(qp);

	if (!hdr)
		return;
	if (!ah) {
		qp->wr_err = EINVAL;
		return;
	}
	qrnic_set_ud_av(hdr, ah, remote_qpn, remote_qkey);
	qp->wr_need_av = false;
}

/* XRC_SEND: the XRC SRQ at the target the WQE's request goes to. */
static void qrnic_wr_set_xrc_srqn(struct ibv_qp_ex *ibqpx, uint32_t remote_srqn)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);
	struct qrnic_sq_wqe *hdr = qrnic_wr_cur(qp);

	if (!hdr)
		return;
	if (!qrnic_xrc_srqn_ok(remote_srqn)) {
		qp->wr_err = EINVAL;
		return;
	}
	hdr->xrc_srqn = htole32(remote_srqn);
	qp->wr_need_srqn = false;
}

static void qrnic_wr_set_sge_list(struct ibv_qp_ex *ibqpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);
	struct qrnic_sq_wqe *hdr = qrnic_wr_cur(qp);

	if (!hdr)
		return;
	/* Their own fields fill the WQE: no data part. */
	if (!qrnic_wr_has_data(hdr->opcode)) {
		qp->wr_err = EINVAL;
		return;
	}
	if (num_sge > qp->sq.max_sge) {
		qp->wr_err = EINVAL;
		return;
	}

	qrnic_copy_sge((struct qrnic_sge *)(hdr + 1), sg_list, num_sge);
	hdr->num_sge = num_sge;
	hdr->flags &= ~QRNIC_WQE_F_INLINE;
	hdr->inline_len = 0;
	qp->wr_len = sizeof(*hdr) + num_sge * sizeof(struct qrnic_sge);
}

static void qrnic_wr_set_sge(struct ibv_qp_ex *ibqpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	qrnic_wr_set_sge_list(ibqpx, 1, &sge);
}

static void qrnic_wr_set_inline_data_list(struct ibv_qp_ex *ibqpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);
	struct qrnic_sq_wqe *hdr = qrnic_wr_cur(qp);
	size_t i, total = 0;
	uint8_t *dst;

	if (!hdr)
		return;
	/* Only messages and writes carry a payload of their own. */
	if (!qrnic_wr_has_payload(hdr->opcode)) {
		qp->wr_err = EINVAL;
		return;
	}
	dst = (uint8_t *)(hdr + 1);

	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->max_inline - total) {
			qp->wr_err = EINVAL;
			return;
		}
		if (buf_list[i].length)
			memcpy(dst + total, buf_list[i].addr,
			       buf_list[i].length);
		total += buf_list[i].length;
	}
	hdr->num_sge = 0;
	hdr->flags |= QRNIC_WQE_F_INLINE;
	hdr->inline_len = htole32(total);
	qp->wr_len = sizeof(*hdr) + total;
}

static void qrnic_wr_set_inline_data(struct ibv_qp_ex *ibqpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	qrnic_wr_set_inline_data_list(ibqpx, 1, &buf);
}

/* ---- batch --------------------------------------------------------------- */

static void qrnic_wr_start(struct ibv_qp_ex *ibqpx)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_start_pi = qp->sq.pi;
	qp->wr_len = 0;
	qp->wr_need_av = false;
	qp->wr_need_srqn = false;
	qp->wr_err = qrnic_qp_can_send(qp) ? 0 : EINVAL;
}

static int qrnic_wr_complete(struct ibv_qp_ex *ibqpx)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);
	int ret;

	qrnic_wr_commit(qp);
	ret = qp->wr_err;
	if (ret)
		/* Nothing was rung: the slots are simply free again. */
		qp->sq.pi = qp->wr_start_pi;
	else if (qp->sq.pi != qp->wr_start_pi)
		qrnic_sq_ring(qp);
	pthread_spin_unlock(&qp->sq.lock);
	return ret;
}

static void qrnic_wr_abort(struct ibv_qp_ex *ibqpx)
{
	struct qrnic_qp *qp = to_qqp_ex(ibqpx);

	qp->wr_len = 0;
	qp->sq.pi = qp->wr_start_pi;
	pthread_spin_unlock(&qp->sq.lock);
}

/* The IBV_QP_EX_WITH_* bit for send opcode op (IBV_WR_*), 0 for none. */
static uint64_t qrnic_send_op_flag(unsigned int op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		return IBV_QP_EX_WITH_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	case IBV_WR_SEND:
		return IBV_QP_EX_WITH_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return IBV_QP_EX_WITH_SEND_WITH_IMM;
	case IBV_WR_RDMA_READ:
		return IBV_QP_EX_WITH_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	case IBV_WR_LOCAL_INV:
		return IBV_QP_EX_WITH_LOCAL_INV;
	case IBV_WR_BIND_MW:
		return IBV_QP_EX_WITH_BIND_MW;
	case IBV_WR_SEND_WITH_INV:
		return IBV_QP_EX_WITH_SEND_WITH_INV;
	case IBV_WR_FLUSH:
		return IBV_QP_EX_WITH_FLUSH;
	case IBV_WR_ATOMIC_WRITE:
		return IBV_QP_EX_WITH_ATOMIC_WRITE;
	}
	return 0;
}

#define QRNIC_WR_VALUE(name, value, ...) value,
static const unsigned int qrnic_wr_opcodes[] = { QRNIC_WR_LIST(QRNIC_WR_VALUE) };

/*
 * The IBV_QP_EX_WITH_* ops a QP of type qpt (enum ibv_qp_type) may ask
 * for: the opcodes the work-request table gives that type.
 */
uint64_t qrnic_qpt_send_ops(unsigned int qpt)
{
	uint64_t ops = 0;
	size_t i;

	for (i = 0; i < sizeof(qrnic_wr_opcodes) / sizeof(qrnic_wr_opcodes[0]);
	     i++)
		if (qrnic_qpt_op_ok(qpt, qrnic_wr_opcodes[i]))
			ops |= qrnic_send_op_flag(qrnic_wr_opcodes[i]);
	return ops;
}

void qrnic_qp_init_wr_ops(struct qrnic_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_start = qrnic_wr_start;
	qpx->wr_complete = qrnic_wr_complete;
	qpx->wr_abort = qrnic_wr_abort;

	if (send_ops_flags & IBV_QP_EX_WITH_SEND)
		qpx->wr_send = qrnic_wr_send;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		qpx->wr_send_imm = qrnic_wr_send_imm;

	if (qrnic_qp_is_ud(qp))
		qpx->wr_set_ud_addr = qrnic_wr_set_ud_addr;
	if (qrnic_qp_is_xrc_send(qp))
		qpx->wr_set_xrc_srqn = qrnic_wr_set_xrc_srqn;
	if (qp->vqp.qp.qp_type != IBV_QPT_RC) {
		/*
		 * The builders a UD, UC or XRC QP lacks are never requested
		 * (create refuses them), but present: calling one fails the
		 * batch instead of crashing.
		 */
		send_ops_flags |= QRNIC_SUPPORTED_SEND_OPS;
	}
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		qpx->wr_rdma_write = qrnic_wr_rdma_write;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qpx->wr_rdma_write_imm = qrnic_wr_rdma_write_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		qpx->wr_rdma_read = qrnic_wr_rdma_read;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		qpx->wr_atomic_cmp_swp = qrnic_wr_atomic_cmp_swp;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		qpx->wr_atomic_fetch_add = qrnic_wr_atomic_fetch_add;
	if (send_ops_flags & IBV_QP_EX_WITH_BIND_MW)
		qpx->wr_bind_mw = qrnic_wr_bind_mw;
	if (send_ops_flags & IBV_QP_EX_WITH_LOCAL_INV)
		qpx->wr_local_inv = qrnic_wr_local_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_INV)
		qpx->wr_send_inv = qrnic_wr_send_inv;
	if (send_ops_flags & IBV_QP_EX_WITH_FLUSH)
		qpx->wr_flush = qrnic_wr_flush;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE)
		qpx->wr_atomic_write = qrnic_wr_atomic_write;

	qpx->wr_set_sge = qrnic_wr_set_sge;
	qpx->wr_set_sge_list = qrnic_wr_set_sge_list;
	qpx->wr_set_inline_data = qrnic_wr_set_inline_data;
	qpx->wr_set_inline_data_list = qrnic_wr_set_inline_data_list;
}
