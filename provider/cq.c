// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: completion queues.
 *
 * The provider allocates the CQ buffer (CQE ring + struct qrnic_cq_rec),
 * the kernel pins it and the device writes CQEs into it.  Entry ci % depth
 * is valid when its phase bit (bit 0 of the owner word; UD receives carry
 * the sender's QP number above it) equals 1 on even passes through the ring
 * and 0 on odd ones.  Consuming an entry publishes the consumer index in the
 * record (the device reads it when the ring looks full) and frees the
 * send or receive queue slots the completion covers; a receive from a
 * shared receive queue (QRNIC_CQE_F_SRQ) marks its SRQ slot completed.
 * A receive from an XRC SRQ (QRNIC_CQE_F_XRC) names that SRQ by number in
 * the owner word and the XRC_RECV QP it came through by qpn: the SRQ is
 * found in the context's srqn table, the QP is not looked up.  Resizing
 * moves the CQ to a new buffer; the consumer index carries on.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <util/util.h>

#include "compat.h"
#include "qrnic.h"
#include "qrnic_abi.h"

static_assert(sizeof(struct qrnic_cqe) == QRNIC_CQE_SIZE, "CQE layout");
static_assert(sizeof(struct qrnic_cq_rec) == QRNIC_CQ_REC_SIZE, "CQ record");
static_assert(offsetof(struct qrnic_cqe, owner) == QRNIC_CQE_SIZE - 4,
	      "CQE owner word");
static_assert((int)IBV_WC_SEND == QRNIC_CQE_OP_SEND &&
	      (int)IBV_WC_RDMA_WRITE == QRNIC_CQE_OP_RDMA_WRITE &&
	      (int)IBV_WC_RDMA_READ == QRNIC_CQE_OP_RDMA_READ &&
	      (int)IBV_WC_COMP_SWAP == QRNIC_CQE_OP_COMP_SWAP &&
	      (int)IBV_WC_FETCH_ADD == QRNIC_CQE_OP_FETCH_ADD &&
	      (int)IBV_WC_BIND_MW == QRNIC_CQE_OP_BIND_MW &&
	      (int)IBV_WC_LOCAL_INV == QRNIC_CQE_OP_LOCAL_INV &&
	      (int)IBV_WC_FLUSH == QRNIC_CQE_OP_FLUSH &&
	      (int)IBV_WC_ATOMIC_WRITE == QRNIC_CQE_OP_ATOMIC_WRITE &&
	      (int)IBV_WC_RECV == QRNIC_CQE_OP_RECV &&
	      (int)IBV_WC_RECV_RDMA_WITH_IMM == QRNIC_CQE_OP_RECV_RDMA_IMM,
	      "CQE opcodes are the verbs values");
static_assert((int)IBV_WC_MW_BIND_ERR == QRNIC_WC_MW_BIND_ERR,
	      "bind error status");
static_assert((int)IBV_WC_SUCCESS == QRNIC_WC_SUCCESS &&
	      (int)IBV_WC_LOC_LEN_ERR == QRNIC_WC_LOC_LEN_ERR &&
	      (int)IBV_WC_LOC_QP_OP_ERR == QRNIC_WC_LOC_QP_OP_ERR &&
	      (int)IBV_WC_LOC_PROT_ERR == QRNIC_WC_LOC_PROT_ERR &&
	      (int)IBV_WC_WR_FLUSH_ERR == QRNIC_WC_WR_FLUSH_ERR &&
	      (int)IBV_WC_BAD_RESP_ERR == QRNIC_WC_BAD_RESP_ERR &&
	      (int)IBV_WC_LOC_ACCESS_ERR == QRNIC_WC_LOC_ACCESS_ERR &&
	      (int)IBV_WC_REM_INV_REQ_ERR == QRNIC_WC_REM_INV_REQ_ERR &&
	      (int)IBV_WC_REM_ACCESS_ERR == QRNIC_WC_REM_ACCESS_ERR &&
	      (int)IBV_WC_REM_OP_ERR == QRNIC_WC_REM_OP_ERR &&
	      (int)IBV_WC_RETRY_EXC_ERR == QRNIC_WC_RETRY_EXC_ERR &&
	      (int)IBV_WC_RNR_RETRY_EXC_ERR == QRNIC_WC_RNR_RETRY_EXC_ERR &&
	      (int)IBV_WC_FATAL_ERR == QRNIC_WC_FATAL_ERR &&
	      (int)IBV_WC_GENERAL_ERR == QRNIC_WC_GENERAL_ERR,
	      "CQE status values are the verbs values");

static inline void qrnic_cq_lock(struct qrnic_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_lock(&cq->lock);
}

static inline void qrnic_cq_unlock(struct qrnic_cq *cq)
{
	if (!cq->single_threaded)
		pthread_spin_unlock(&cq->lock);
}

static inline struct qrnic_cqe *qrnic_cq_slot(struct qrnic_cq *cq,
					      uint32_t idx)
{
	return &cq->ring[idx & (cq->depth - 1)];
}

/* The phase bit a valid entry at free running index idx carries. */
static inline uint32_t qrnic_cq_phase(struct qrnic_cq *cq, uint32_t idx)
{
	return ((idx >> cq->log_depth) & 1) ? 0 : QRNIC_CQE_PHASE;
}

static inline bool qrnic_cqe_valid(struct qrnic_cq *cq, uint32_t idx)
{
	struct qrnic_cqe *cqe = qrnic_cq_slot(cq, idx);
	uint32_t owner = le32toh(*(volatile uint32_t *)&cqe->owner);

	return (owner & QRNIC_CQE_PHASE) == qrnic_cq_phase(cq, idx);
}

/* Tell the device how far software has consumed. */
static inline void qrnic_cq_publish_ci(struct qrnic_cq *cq)
{
	__atomic_store_n(&cq->rec->ci, htole32(cq->ci), __ATOMIC_RELEASE);
}

/*
 * A completion for WQE wqe_idx (16 bits of its free running index) frees
 * it and every earlier slot.  Only the poller of the queue's CQ writes the
 * tail (under that CQ's lock); posters read it.
 */
static void qrnic_wq_retire(struct qrnic_wq *wq, uint16_t wqe_idx)
{
	uint32_t tail = atomic_load_explicit(&wq->tail, memory_order_relaxed);
	uint32_t n = (uint16_t)(wqe_idx + 1 - tail);

	/* 0: already retired; > depth: not a WQE the device holds. */
	if (n == 0 || n > wq->depth)
		return;
	atomic_store_explicit(&wq->tail, tail + n, memory_order_release);
}

/* The number in the upper 24 bits of a CQE's owner word (host order). */
static inline uint32_t qrnic_cqe_owner_qn(uint32_t owner)
{
	return owner >> QRNIC_CQE_SRC_QP_SHIFT;
}

/*
 * An XRC SRQ receive completion frees its SRQ slot.  A CQE naming an SRQ
 * this context has not (or not on this CQ) is still returned, with
 * nothing freed.  CQ lock held.
 */
static void qrnic_cq_xrc_complete(struct qrnic_cq *cq,
				  struct qrnic_context *ctx,
				  const struct qrnic_cqe *cqe)
{
	uint32_t srqn = qrnic_cqe_owner_qn(cqe->owner);
	struct qrnic_srq *srq = qrnic_find_xrc_srq(ctx, srqn, cq);

	if (srq) {
		qrnic_srq_complete(srq, cqe->wqe_idx);
		return;
	}
	verbs_err(&ctx->ibv_ctx,
		  "qrnic: CQ %u: completion of XRC SRQ %#x (QP %#x, slot %u), not an SRQ of this CQ\n",
		  cq->cqn, srqn, cqe->qpn, cqe->wqe_idx);
}

/*
 * Take the entry at ci into *out (host byte order, imm_data raw) and
 * consume it.  Returns ENOENT when the ring is empty.  CQ lock held.
 */
static int qrnic_cq_next(struct qrnic_cq *cq, struct qrnic_cqe *out)
{
	struct qrnic_cqe *cqe = qrnic_cq_slot(cq, cq->ci);
	struct qrnic_context *ctx;
	struct qrnic_qp *qp;

	if (!qrnic_cqe_valid(cq, cq->ci))
		return ENOENT;

	/* Read the rest of the entry only after its phase. */
	udma_from_device_barrier();

	out->wr_id = le64toh(cqe->wr_id);
	out->byte_len = le32toh(cqe->byte_len);
	out->imm_data = cqe->imm_data;
	out->qpn = le32toh(cqe->qpn);
	out->wqe_idx = le16toh(cqe->wqe_idx);
	out->opcode = cqe->opcode;
	out->status = cqe->status;
	out->flags = cqe->flags;
	out->vendor_err = cqe->vendor_err;
	out->owner = le32toh(cqe->owner);

	cq->ci++;
	qrnic_cq_publish_ci(cq);

	ctx = to_qctx(cq->vcq.cq.context);
	if (out->flags & QRNIC_CQE_F_XRC) {
		qrnic_cq_xrc_complete(cq, ctx, out);
		return 0;
	}
	qp = qrnic_find_qp(ctx, out->qpn);
	if (qp) {
		if (out->flags & QRNIC_CQE_F_SEND)
			qrnic_wq_retire(&qp->sq, out->wqe_idx);
		else if (!(out->flags & QRNIC_CQE_F_SRQ))
			qrnic_wq_retire(&qp->rq, out->wqe_idx);
		else if (qp->srq)
			qrnic_srq_complete(qp->srq, out->wqe_idx);
	}
	return 0;
}

/*
 * The sender's QP number of a UD receive completion, 0 for others (an
 * XRC SRQ's receive carries its SRQ number there instead).
 */
static inline uint32_t qrnic_cqe_src_qp(const struct qrnic_cqe *cqe)
{
	if (cqe->flags & QRNIC_CQE_F_XRC)
		return 0;
	return qrnic_cqe_owner_qn(cqe->owner);
}

static inline unsigned int qrnic_cqe_wc_flags(const struct qrnic_cqe *cqe)
{
	unsigned int f = 0;

	if (cqe->flags & QRNIC_CQE_F_IMM)
		f |= IBV_WC_WITH_IMM;
	if (cqe->flags & QRNIC_CQE_F_INV)
		f |= IBV_WC_WITH_INV;
	if (cqe->flags & QRNIC_CQE_F_GRH)
		f |= IBV_WC_GRH;
	return f;
}

static void qrnic_cqe_to_wc(const struct qrnic_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->wc_flags = qrnic_cqe_wc_flags(cqe);
	if (cqe->flags & QRNIC_CQE_F_IMM)
		wc->imm_data = (__force __be32)cqe->imm_data;
	else if (cqe->flags & QRNIC_CQE_F_INV)
		wc->invalidated_rkey = le32toh(cqe->imm_data);
	else
		wc->imm_data = 0;
	wc->qp_num = cqe->qpn;
	wc->src_qp = qrnic_cqe_src_qp(cqe);
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
}

int qrnic_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct qrnic_cq *cq = to_qcq(ibcq);
	struct qrnic_cqe cqe;
	int n;

	qrnic_cq_lock(cq);
	for (n = 0; n < num_entries; n++) {
		if (qrnic_cq_next(cq, &cqe))
			break;
		qrnic_cqe_to_wc(&cqe, &wc[n]);
	}
	qrnic_cq_unlock(cq);
	return n;
}

int qrnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct qrnic_cq *cq = to_qcq(ibcq);
	uint32_t flags = QRNIC_DB_ARM;
	uint32_t ci;

	if (solicited_only)
		flags |= QRNIC_DB_ARM_SOLICITED;

	qrnic_cq_lock(cq);
	ci = cq->ci;
	qrnic_cq_unlock(cq);

	qrnic_ring_db(to_qctx(ibcq->context), QRNIC_DB_CQ,
		      qrnic_cq_db_val(cq->cqn, flags, ci));
	return 0;
}

/* A completion of QP qpn: not an XRC SRQ's, which names the SRQ instead. */
static bool qrnic_cqe_of_qp(const struct qrnic_cqe *cqe, uint32_t qpn)
{
	return le32toh(cqe->qpn) == qpn && !(cqe->flags & QRNIC_CQE_F_XRC);
}

/* A receive completion of XRC SRQ srqn. */
static bool qrnic_cqe_of_xrc_srq(const struct qrnic_cqe *cqe, uint32_t srqn)
{
	return (cqe->flags & QRNIC_CQE_F_XRC) &&
	       qrnic_cqe_owner_qn(le32toh(cqe->owner)) == srqn;
}

/*
 * Drop every completion still in the ring that match(cqe, key) selects,
 * moving later entries up so the ring stays contiguous.  Only entries the
 * device has already written are touched; the device writes at or beyond
 * the first invalid one.  The SRQ slots that dropped receive completions
 * name are freed all the same when srq is given.  CQ lock held.
 */
static void qrnic_cq_drop(struct qrnic_cq *cq,
			  bool (*match)(const struct qrnic_cqe *, uint32_t),
			  uint32_t key, struct qrnic_srq *srq)
{
	uint32_t prod, i, nfreed = 0;

	for (prod = cq->ci; prod - cq->ci < cq->depth; prod++)
		if (!qrnic_cqe_valid(cq, prod))
			break;
	if (prod == cq->ci)
		return;
	udma_from_device_barrier();

	for (i = prod; i != cq->ci;) {
		struct qrnic_cqe *src = qrnic_cq_slot(cq, --i);
		struct qrnic_cqe *dst;
		uint32_t owner;

		if (match(src, key)) {
			if (srq && (src->flags & QRNIC_CQE_F_SRQ))
				qrnic_srq_complete(srq,
						   le16toh(src->wqe_idx));
			nfreed++;
			continue;
		}
		if (!nfreed)
			continue;
		dst = qrnic_cq_slot(cq, i + nfreed);
		owner = le32toh(src->owner) & ~QRNIC_CQE_PHASE;
		memcpy(dst, src, offsetof(struct qrnic_cqe, owner));
		dst->owner = htole32(owner | qrnic_cq_phase(cq, i + nfreed));
	}
	if (nfreed) {
		cq->ci += nfreed;
		qrnic_cq_publish_ci(cq);
	}
}

/*
 * Drop the completions of QP qpn (destroyed or reset).  srq: the QP's SRQ,
 * or NULL; the slots its dropped receives name are freed, since the
 * kernel moves such a QP to ERR first so that the WQE it holds is flushed
 * into this ring.  CQ lock held.
 */
void qrnic_cq_clean(struct qrnic_cq *cq, uint32_t qpn, struct qrnic_srq *srq)
{
	qrnic_cq_drop(cq, qrnic_cqe_of_qp, qpn, srq);
}

/*
 * Drop the receive completions of XRC SRQ srqn (destroyed: no slot is
 * worth freeing, and no later poll may look for it).  CQ lock held.
 */
void qrnic_cq_clean_xrc_srq(struct qrnic_cq *cq, uint32_t srqn)
{
	qrnic_cq_drop(cq, qrnic_cqe_of_xrc_srq, srqn, NULL);
}

/* Lock a QP's send and receive CQs (which may be one CQ) in a fixed order. */
void qrnic_cq_lock_pair(struct qrnic_cq *a, struct qrnic_cq *b)
{
	if (a == b || !b) {
		pthread_spin_lock(&a->lock);
	} else if (!a) {
		pthread_spin_lock(&b->lock);
	} else if (a < b) {
		pthread_spin_lock(&a->lock);
		pthread_spin_lock(&b->lock);
	} else {
		pthread_spin_lock(&b->lock);
		pthread_spin_lock(&a->lock);
	}
}

void qrnic_cq_unlock_pair(struct qrnic_cq *a, struct qrnic_cq *b)
{
	if (a)
		pthread_spin_unlock(&a->lock);
	if (b && b != a)
		pthread_spin_unlock(&b->lock);
}

/* ---- creation ------------------------------------------------------------ */

/* The log depth for cqe entries (at least 2 of them), 0 when out of range. */
static uint32_t qrnic_cq_log_for(int cqe)
{
	uint32_t log = 1;

	if (cqe < 1 || cqe > (1 << QRNIC_CQ_MAX_LOG))
		return 0;
	while ((1u << log) < (uint32_t)cqe)
		log++;
	return log;
}

/*
 * A CQ buffer: 1 << log CQEs and the record after them, page aligned,
 * zeroed and kept out of fork() children (the kernel pins it).  A CQ
 * created through a parent domain with allocators asks them first
 * (QRNIC_RES_TYPE_CQ, page alignment); IBV_ALLOCATOR_USE_DEFAULT leaves it
 * to the provider.  *custom: the buffer is the allocator's.
 */
static int qrnic_cq_buf_alloc(struct qrnic_pd *pdom, uint32_t log,
			      void **buf, size_t *size, bool *custom)
{
	size_t page = sysconf(_SC_PAGESIZE);
	void *p = IBV_ALLOCATOR_USE_DEFAULT;
	int ret;

	*size = align(((size_t)QRNIC_CQE_SIZE << log) + QRNIC_CQ_REC_SIZE,
		      page);
	if (pdom && pdom->alloc)
		p = pdom->alloc(&pdom->ibv_pd, pdom->pd_context, *size, page,
				QRNIC_RES_TYPE_CQ);
	if (!p)
		return ENOMEM;
	*custom = p != IBV_ALLOCATOR_USE_DEFAULT;
	if (*custom) {
		if ((uintptr_t)p & (page - 1)) {
			pdom->free(&pdom->ibv_pd, pdom->pd_context, p,
				   QRNIC_RES_TYPE_CQ);
			return EINVAL;
		}
		*buf = p;
	} else {
		ret = posix_memalign(buf, page, *size);
		if (ret)
			return ret;
	}
	memset(*buf, 0, *size);

	ret = ibv_dontfork_range(*buf, *size);
	if (ret) {
		if (*custom)
			pdom->free(&pdom->ibv_pd, pdom->pd_context, *buf,
				   QRNIC_RES_TYPE_CQ);
		else
			free(*buf);
		return ret;
	}
	return 0;
}

static void qrnic_cq_buf_free(struct qrnic_pd *pdom, void *buf, size_t size,
			      bool custom)
{
	ibv_dofork_range(buf, size);
	if (custom)
		pdom->free(&pdom->ibv_pd, pdom->pd_context, buf,
			   QRNIC_RES_TYPE_CQ);
	else
		free(buf);
}

/* Make buf (from qrnic_cq_buf_alloc(log)) the CQ's ring and record. */
static void qrnic_cq_set_buf(struct qrnic_cq *cq, void *buf, size_t size,
			     bool custom, uint32_t log)
{
	cq->buf = buf;
	cq->buf_size = size;
	cq->buf_custom = custom;
	cq->log_depth = log;
	cq->depth = 1u << log;
	cq->ring = buf;
	cq->rec = (struct qrnic_cq_rec *)((uint8_t *)buf +
					  ((size_t)QRNIC_CQE_SIZE << log));
}

/* pdom: the parent domain the CQ is created through (referenced), or NULL. */
static struct qrnic_cq *qrnic_cq_alloc(uint32_t cqe, struct qrnic_pd *pdom)
{
	uint32_t log = qrnic_cq_log_for(cqe > INT_MAX ? 0 : (int)cqe);
	struct qrnic_cq *cq;
	bool custom;
	size_t size;
	void *buf;
	int ret;

	if (!log) {
		errno = EINVAL;
		return NULL;
	}

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = qrnic_cq_buf_alloc(pdom, log, &buf, &size, &custom);
	if (ret) {
		errno = ret;
		goto err_free;
	}

	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		errno = ret;
		goto err_buf;
	}

	cq->parent_domain = pdom;
	qrnic_cq_set_buf(cq, buf, size, custom, log);
	return cq;

err_buf:
	qrnic_cq_buf_free(pdom, buf, size, custom);
err_free:
	free(cq);
	return NULL;
}

/* Frees the CQ and lets go of its parent domain. */
static void qrnic_cq_free(struct qrnic_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	qrnic_cq_buf_free(cq->parent_domain, cq->buf, cq->buf_size,
			  cq->buf_custom);
	qrnic_parent_domain_put(cq->parent_domain);
	free(cq);
}

/* Check the kernel's answer; on failure the CQ is destroyed again. */
static int qrnic_cq_created(struct qrnic_cq *cq, uint32_t cqn,
			    uint32_t log_depth)
{
	struct ibv_context *ibctx = cq->vcq.cq.context;

	if (log_depth && log_depth != cq->log_depth) {
		verbs_err(verbs_get_ctx(ibctx),
			  "qrnic: kernel created CQ %u with log depth %u, asked %u\n",
			  cqn, log_depth, cq->log_depth);
		ibv_cmd_destroy_cq(&cq->vcq.cq);
		return EINVAL;
	}
	cq->cqn = cqn;
	cq->vcq.cq.cqe = cq->depth;
	return 0;
}

struct ibv_cq *qrnic_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct qrnic_create_cq_resp resp = {};
	struct qrnic_create_cq cmd = {};
	struct qrnic_cq *cq;
	int ret;

	cq = qrnic_cq_alloc(cqe, NULL);
	if (!cq)
		return NULL;

	cmd.buf_addr = (uintptr_t)cq->buf;
	cmd.buf_size = cq->buf_size;
	cmd.log_depth = cq->log_depth;
	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err;

	ret = qrnic_cq_created(cq, resp.cqn, resp.log_depth);
	if (ret)
		goto err;
	return &cq->vcq.cq;

err:
	qrnic_cq_free(cq);
	errno = ret;
	return NULL;
}

/* ---- extended CQ (ibv_start_poll / ibv_next_poll / ibv_end_poll) --------- */

static inline void qrnic_cq_ex_cur(struct qrnic_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = cq->cur.status;
}

static int qrnic_start_poll(struct ibv_cq_ex *ibcq,
			    struct ibv_poll_cq_attr *attr)
{
	struct qrnic_cq *cq = to_qcq_ex(ibcq);

	if (attr->comp_mask)
		return EINVAL;

	qrnic_cq_lock(cq);
	if (qrnic_cq_next(cq, &cq->cur)) {
		qrnic_cq_unlock(cq);
		return ENOENT;
	}
	qrnic_cq_ex_cur(cq);
	return 0;
}

static int qrnic_next_poll(struct ibv_cq_ex *ibcq)
{
	struct qrnic_cq *cq = to_qcq_ex(ibcq);

	if (qrnic_cq_next(cq, &cq->cur))
		return ENOENT;
	qrnic_cq_ex_cur(cq);
	return 0;
}

static void qrnic_end_poll(struct ibv_cq_ex *ibcq)
{
	qrnic_cq_unlock(to_qcq_ex(ibcq));
}

static enum ibv_wc_opcode qrnic_wc_read_opcode(struct ibv_cq_ex *ibcq)
{
	return to_qcq_ex(ibcq)->cur.opcode;
}

static uint32_t qrnic_wc_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_qcq_ex(ibcq)->cur.vendor_err;
}

static uint32_t qrnic_wc_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return to_qcq_ex(ibcq)->cur.byte_len;
}

static __be32 qrnic_wc_read_imm_data(struct ibv_cq_ex *ibcq)
{
	struct qrnic_cq *cq = to_qcq_ex(ibcq);

	/*
	 * ibv_wc_read_invalidated_rkey() returns what this returns as it is:
	 * the key goes in host order, not big endian.
	 */
	if (cq->cur.flags & QRNIC_CQE_F_INV)
		return (__force __be32)le32toh(cq->cur.imm_data);
	if (!(cq->cur.flags & QRNIC_CQE_F_IMM))
		return 0;
	return (__force __be32)cq->cur.imm_data;
}

static uint32_t qrnic_wc_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return to_qcq_ex(ibcq)->cur.qpn;
}

static uint32_t qrnic_wc_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return qrnic_cqe_src_qp(&to_qcq_ex(ibcq)->cur);
}

static uint32_t qrnic_wc_read_zero32(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t qrnic_wc_read_zero8(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static unsigned int qrnic_wc_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return qrnic_cqe_wc_flags(&to_qcq_ex(ibcq)->cur);
}

/* No LIDs, service levels or path bits on RoCE: those read 0. */
static void qrnic_cq_ex_init_ops(struct ibv_cq_ex *cqx)
{
	cqx->start_poll = qrnic_start_poll;
	cqx->next_poll = qrnic_next_poll;
	cqx->end_poll = qrnic_end_poll;
	cqx->read_opcode = qrnic_wc_read_opcode;
	cqx->read_vendor_err = qrnic_wc_read_vendor_err;
	cqx->read_wc_flags = qrnic_wc_read_wc_flags;
	cqx->read_byte_len = qrnic_wc_read_byte_len;
	cqx->read_imm_data = qrnic_wc_read_imm_data;
	cqx->read_qp_num = qrnic_wc_read_qp_num;
	cqx->read_src_qp = qrnic_wc_read_src_qp;
	cqx->read_slid = qrnic_wc_read_zero32;
	cqx->read_sl = qrnic_wc_read_zero8;
	cqx->read_dlid_path_bits = qrnic_wc_read_zero8;
}

struct ibv_cq_ex *qrnic_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct qrnic_create_cq_ex_resp resp = {};
	struct qrnic_create_cq_ex cmd = {};
	struct qrnic_pd *pdom = NULL;
	struct qrnic_cq *cq;
	uint32_t flags = 0;
	int ret;

	/* No timestamps, no overrun tolerance. */
	if (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS ||
	    attr->comp_mask & ~(uint32_t)(IBV_CQ_INIT_ATTR_MASK_FLAGS |
					  IBV_CQ_INIT_ATTR_MASK_PD)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS)
		flags = attr->flags;
	if (flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* The kernel CQ has no PD; a parent domain lends its allocators. */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		if (!attr->parent_domain ||
		    attr->parent_domain->context != ibctx ||
		    !to_qparent_domain(attr->parent_domain)) {
			errno = EINVAL;
			return NULL;
		}
		pdom = qrnic_parent_domain_get(attr->parent_domain);
	}

	cq = qrnic_cq_alloc(attr->cqe, pdom);
	if (!cq) {
		qrnic_parent_domain_put(pdom);
		return NULL;
	}
	cq->single_threaded = flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED;

	cmd.buf_addr = (uintptr_t)cq->buf;
	cmd.buf_size = cq->buf_size;
	cmd.log_depth = cq->log_depth;
	ret = qrnic_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv_cmd,
				     sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				     0);
	if (ret)
		goto err;

	ret = qrnic_cq_created(cq, resp.cqn, resp.log_depth);
	if (ret)
		goto err;

	qrnic_cq_ex_init_ops(&cq->vcq.cq_ex);
	return &cq->vcq.cq_ex;

err:
	qrnic_cq_free(cq);
	errno = ret;
	return NULL;
}

int qrnic_destroy_cq(struct ibv_cq *ibcq)
{
	struct qrnic_cq *cq = to_qcq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;

	qrnic_cq_free(cq);
	return 0;
}

/* ---- resize --------------------------------------------------------------- */

/*
 * Move the CQE's at free running indexes [ci, pi) from the CQ's ring to
 * new_ring of 1 << log entries, each to index % new depth with its phase
 * rewritten for the new depth; the rest of the owner word (a UD receive's
 * src_qp) is kept.  CQ lock held.
 */
static void qrnic_cq_move(struct qrnic_cq *cq, struct qrnic_cqe *new_ring,
			  uint32_t log, uint32_t pi)
{
	uint32_t i, owner, phase;

	for (i = cq->ci; i != pi; i++) {
		struct qrnic_cqe *from = qrnic_cq_slot(cq, i);
		struct qrnic_cqe *to = &new_ring[i & ((1u << log) - 1)];

		phase = ((i >> log) & 1) ? 0 : QRNIC_CQE_PHASE;
		owner = le32toh(from->owner) & ~QRNIC_CQE_PHASE;
		memcpy(to, from, offsetof(struct qrnic_cqe, owner));
		to->owner = htole32(owner | phase);
	}
}

/*
 * ibv_resize_cq (include/qrnic-abi.h, RESIZE_CQ): a new buffer for the
 * depth cqe needs, the consumer index in its record and each of its
 * entries unwritten for the index it holds next; with the CQ lock held
 * from before the record is written until the CQ polls the new ring, the
 * kernel has the device switch at producer index pi, and the CQEs
 * [ci, pi) still in the old ring are copied over.  The consumer index
 * stays, and with it what an armed CQ waits for.  On failure nothing has
 * changed: the device still writes the old ring, the new buffer is freed
 * (EINVAL from the kernel: fewer entries than wait to be polled).
 */
int qrnic_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct qrnic_cq *cq = to_qcq(ibcq);
	struct qrnic_resize_cq_resp resp = {};
	struct qrnic_resize_cq cmd = {};
	uint32_t log = qrnic_cq_log_for(cqe), depth, i, n, pi;
	struct qrnic_cq_rec *rec;
	struct qrnic_cqe *ring;
	bool custom, old_custom;
	void *buf, *old_buf;
	size_t size, old_size;
	int ret;

	if (!log)
		return EINVAL;
	depth = 1u << log;

	ret = qrnic_cq_buf_alloc(cq->parent_domain, log, &buf, &size, &custom);
	if (ret)
		return ret;
	ring = buf;
	rec = (struct qrnic_cq_rec *)((uint8_t *)buf +
				      ((size_t)QRNIC_CQE_SIZE << log));

	qrnic_cq_lock(cq);
	if (log == cq->log_depth) {
		/* The ring already is the size cqe asks for. */
		qrnic_cq_unlock(cq);
		qrnic_cq_buf_free(cq->parent_domain, buf, size, custom);
		return 0;
	}

	for (i = cq->ci; i != cq->ci + depth; i++)
		ring[i & (depth - 1)].owner =
			htole32(((i >> log) & 1) ? QRNIC_CQE_PHASE : 0);
	rec->ci = htole32(cq->ci);
	udma_to_device_barrier();

	cmd.buf_addr = (uintptr_t)buf;
	cmd.buf_size = size;
	cmd.log_depth = log;
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret) {
		qrnic_cq_unlock(cq);
		qrnic_cq_buf_free(cq->parent_domain, buf, size, custom);
		return ret;
	}

	/* The CQEs before pi are in the old ring; read them after the switch. */
	udma_from_device_barrier();
	n = resp.pi - cq->ci;
	if (n > depth || n > cq->depth || resp.log_depth != log) {
		verbs_err(verbs_get_ctx(ibcq->context),
			  "qrnic: CQ %u resized to log depth %u (asked %u) at producer index %u, %u CQEs past consumer index %u\n",
			  cq->cqn, resp.log_depth, log, resp.pi, n, cq->ci);
		if (n > depth || n > cq->depth)
			n = depth < cq->depth ? depth : cq->depth;
	}
	pi = cq->ci + n;
	qrnic_cq_move(cq, ring, log, pi);

	old_buf = cq->buf;
	old_size = cq->buf_size;
	old_custom = cq->buf_custom;
	qrnic_cq_set_buf(cq, buf, size, custom, log);
	cq->vcq.cq.cqe = depth;
	qrnic_cq_unlock(cq);

	/* The kernel has let go of it. */
	qrnic_cq_buf_free(cq->parent_domain, old_buf, old_size, old_custom);
	return 0;
}
