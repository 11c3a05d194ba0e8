// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: shared receive queues, basic and XRC (no tag matching).
 *
 * The kernel sizes the ring and maps its queue memory write-combining; the
 * provider writes receive WQEs into it (post.c) and rings DB_SRQ.  The
 * device hands the WQEs to the SRQ's QPs in ring order, but the messages
 * of different QPs complete in any order, so a slot is reusable only when
 * it and every slot before it have completed: qrnic_srq_complete() marks
 * a completed slot and moves the tail over the consecutive completed ones.
 *
 * An XRC SRQ is the same ring, created in an XRC domain with a CQ of its
 * own: the XRC_RECV QPs of the domain take its WQEs for the requests that
 * name it, and its receives complete on its CQ naming it by number
 * (QRNIC_CQE_F_XRC).  The context's srqn table lets that CQ's pollers find
 * it; destroying it drops its completions from the CQ.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <util/util.h>

#include "qrnic.h"
#include "qrnic_abi.h"

static inline uint64_t qrnic_srq_bit(uint32_t slot)
{
	return 1ull << (slot % 64);
}

/*
 * The receive WQE in SRQ slot wqe_idx (16 bits of its free running index)
 * completed, successfully or flushed.  Pollers call this under their CQ
 * lock; done_lock serialises pollers of different CQs.
 */
void qrnic_srq_complete(struct qrnic_srq *srq, uint16_t wqe_idx)
{
	struct qrnic_wq *wq = &srq->wq;
	uint32_t mask = wq->depth - 1;
	uint32_t tail, slot, n;

	pthread_spin_lock(&srq->done_lock);
	tail = atomic_load_explicit(&wq->tail, memory_order_relaxed);

	/* Outside [tail, tail + depth): not a WQE the device holds. */
	if ((uint16_t)(wqe_idx - tail) >= wq->depth)
		goto out;
	slot = wqe_idx & mask;
	srq->done[slot / 64] |= qrnic_srq_bit(slot);

	/* Free the completed run at the tail, clearing its bits. */
	for (n = 0; n < wq->depth; n++) {
		slot = (tail + n) & mask;
		if (!(srq->done[slot / 64] & qrnic_srq_bit(slot)))
			break;
		srq->done[slot / 64] &= ~qrnic_srq_bit(slot);
	}
	if (n)
		atomic_store_explicit(&wq->tail, tail + n,
				      memory_order_release);
out:
	pthread_spin_unlock(&srq->done_lock);
}

/* ---- srqn -> XRC SRQ table ---------------------------------------------- */

static struct qrnic_xsrq_ent *qrnic_xsrq_ent(struct qrnic_context *ctx,
					     uint32_t srqn)
{
	struct qrnic_xsrq_ent *page;

	page = ctx->xsrq_table[(srqn >> QRNIC_QPT_SHIFT) & QRNIC_QPT_MASK];
	return page ? &page[srqn & QRNIC_QPT_MASK] : NULL;
}

static int qrnic_xsrq_table_insert(struct qrnic_context *ctx,
				   struct qrnic_srq *srq)
{
	uint32_t top = (srq->srqn >> QRNIC_QPT_SHIFT) & QRNIC_QPT_MASK;
	struct qrnic_xsrq_ent *page, *ent;
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	page = ctx->xsrq_table[top];
	if (!page) {
		page = calloc(QRNIC_QPT_SIZE, sizeof(*page));
		if (!page) {
			ret = ENOMEM;
			goto out;
		}
		__atomic_store_n(&ctx->xsrq_table[top], page, __ATOMIC_RELEASE);
	}
	ent = &page[srq->srqn & QRNIC_QPT_MASK];
	if (ent->cq) {
		ret = EEXIST;
		goto out;
	}
	__atomic_store_n(&ent->srq, srq, __ATOMIC_RELAXED);
	__atomic_store_n(&ent->cq, srq->xrc_cq, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

/*
 * No poller may find the XRC SRQ, nor a completion of it, after this:
 * with its CQ locked its completions leave the ring and its entry the
 * table.
 */
static void qrnic_xsrq_forget(struct qrnic_context *ctx, struct qrnic_srq *srq)
{
	struct qrnic_xsrq_ent *ent;

	pthread_mutex_lock(&ctx->lock);
	qrnic_cq_lock_pair(srq->xrc_cq, NULL);
	qrnic_cq_clean_xrc_srq(srq->xrc_cq, srq->srqn);
	ent = qrnic_xsrq_ent(ctx, srq->srqn);
	if (ent && ent->srq == srq) {
		__atomic_store_n(&ent->cq, NULL, __ATOMIC_RELAXED);
		__atomic_store_n(&ent->srq, NULL, __ATOMIC_RELAXED);
	}
	qrnic_cq_unlock_pair(srq->xrc_cq, NULL);
	pthread_mutex_unlock(&ctx->lock);
}

void qrnic_xsrq_table_free(struct qrnic_context *ctx)
{
	uint32_t i;

	for (i = 0; i < QRNIC_QPT_SIZE; i++) {
		free(ctx->xsrq_table[i]);
		ctx->xsrq_table[i] = NULL;
	}
}

/* ---- creation ------------------------------------------------------------ */

static bool qrnic_srq_layout_ok(const struct qrnic_uresp_create_srq *resp)
{
	return resp->log_depth <= QRNIC_QP_MAX_LOG &&
	       resp->log_stride >= QRNIC_RQ_MIN_LOG_STRIDE &&
	       resp->log_stride <= QRNIC_RQ_MAX_LOG_STRIDE &&
	       (1ull << (resp->log_depth + resp->log_stride)) <=
		       resp->qmem_len &&
	       resp->srqn && !(resp->srqn & ~QRNIC_DB_QN_MASK);
}

/* Set up the ring at the start of qmem from the kernel's answer. */
static int qrnic_srq_init(struct qrnic_srq *srq, uint8_t *qmem,
			  const struct qrnic_uresp_create_srq *resp)
{
	struct qrnic_wq *wq = &srq->wq;
	int ret;

	srq->srqn = resp->srqn;
	ret = qrnic_wq_init(wq, qmem, 0, resp->log_depth, resp->log_stride);
	if (ret)
		return ret;
	wq->max_sge = qrnic_rq_max_sge(resp->log_stride, resp->max_sge);

	srq->done = calloc((wq->depth + 63) / 64, sizeof(*srq->done));
	if (!srq->done) {
		ret = ENOMEM;
		goto err_lock;
	}
	ret = pthread_spin_init(&srq->done_lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_done;
	return 0;

err_done:
	free(srq->done);
	srq->done = NULL;
err_lock:
	pthread_spin_destroy(&wq->lock);
	return ret;
}

static void qrnic_srq_uninit(struct qrnic_srq *srq)
{
	pthread_spin_destroy(&srq->done_lock);
	pthread_spin_destroy(&srq->wq.lock);
	free(srq->done);
}

/* Check the kernel's layout, map the queue memory, set up the ring. */
static int qrnic_srq_setup(struct ibv_context *ibctx, struct qrnic_srq *srq,
			   const struct qrnic_uresp_create_srq *resp)
{
	int ret;

	if (!qrnic_srq_layout_ok(resp)) {
		verbs_err(verbs_get_ctx(ibctx),
			  "qrnic: bad SRQ layout from the kernel: srqn %#x len %u depth %u/%u\n",
			  resp->srqn, resp->qmem_len, resp->log_depth,
			  resp->log_stride);
		return EINVAL;
	}

	srq->qmem_len = resp->qmem_len;
	srq->qmem = qrnic_mmap_qmem(ibctx, srq->qmem_len, resp->qmem_mmap_key,
				    "queue memory of SRQ", resp->srqn);
	if (!srq->qmem)
		return errno;

	ret = qrnic_srq_init(srq, srq->qmem, resp);
	if (ret) {
		munmap(srq->qmem, srq->qmem_len);
		srq->qmem = NULL;
	}
	return ret;
}

static void qrnic_srq_teardown(struct qrnic_srq *srq)
{
	qrnic_srq_uninit(srq);
	munmap(srq->qmem, srq->qmem_len);
}

struct ibv_srq *qrnic_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct qrnic_create_srq_resp resp = {};
	struct qrnic_create_srq cmd = {};
	struct qrnic_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;

	ret = ibv_cmd_create_srq(pd, &srq->ibv_srq, attr, &cmd.ibv_cmd,
				 sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = qrnic_srq_setup(pd->context, srq, &resp.drv_payload);
	if (ret)
		goto err_destroy;

	/* What the ring really holds: every slot is usable. */
	attr->attr.max_wr = srq->wq.depth;
	attr->attr.max_sge = srq->wq.max_sge;
	/* The ring is in queue memory: no parent domain allocator is asked. */
	srq->parent_domain = qrnic_parent_domain_get(pd);
	return &srq->ibv_srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->ibv_srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/* What libibverbs' ibv_create_srq() does after create_srq. */
static void qrnic_srq_set_verbs(struct ibv_srq *ibsrq, struct ibv_context *ibctx,
				const struct ibv_srq_init_attr_ex *attr)
{
	ibsrq->context = ibctx;
	ibsrq->srq_context = attr->srq_context;
	ibsrq->pd = attr->pd;
	ibsrq->events_completed = 0;
}

#define QRNIC_XRC_SRQ_ATTRS                                                   \
	(IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE |                      \
	 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

/*
 * An XRC SRQ: a PD (for the remote keys its requests use), the XRC domain
 * whose XRC_RECV QPs feed it, and the CQ its receives complete on.
 */
static struct ibv_srq *qrnic_create_xrc_srq(struct ibv_context *ibctx,
					    struct ibv_srq_init_attr_ex *attr)
{
	struct qrnic_create_xsrq_resp resp = {};
	struct qrnic_create_xsrq cmd = {};
	struct qrnic_srq *srq;
	int ret;

	if (attr->comp_mask & ~(uint32_t)QRNIC_XRC_SRQ_ATTRS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & QRNIC_XRC_SRQ_ATTRS) != QRNIC_XRC_SRQ_ATTRS ||
	    !attr->pd || !attr->xrcd || !attr->cq ||
	    attr->cq->context != ibctx) {
		errno = EINVAL;
		return NULL;
	}

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;

	pthread_mutex_lock(&to_qctx(ibctx)->xsrq_lock);
	ret = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = qrnic_srq_setup(ibctx, srq, &resp.drv_payload);
	if (ret)
		goto err_destroy;
	if (srq->vsrq.srq_num != srq->srqn)
		verbs_warn(verbs_get_ctx(ibctx),
			   "qrnic: XRC SRQ number %#x in the core response, %#x in the driver's\n",
			   srq->vsrq.srq_num, srq->srqn);
	srq->xrc_cq = to_qcq(attr->cq);
	ret = qrnic_xsrq_table_insert(to_qctx(ibctx), srq);
	if (ret) {
		verbs_err(verbs_get_ctx(ibctx),
			  "qrnic: cannot track XRC SRQ %#x: %d\n", srq->srqn,
			  ret);
		goto err_teardown;
	}
	pthread_mutex_unlock(&to_qctx(ibctx)->xsrq_lock);

	attr->attr.max_wr = srq->wq.depth;
	attr->attr.max_sge = srq->wq.max_sge;
	srq->parent_domain = qrnic_parent_domain_get(attr->pd);
	qrnic_srq_set_verbs(&srq->ibv_srq, ibctx, attr);
	return &srq->ibv_srq;

err_teardown:
	qrnic_srq_teardown(srq);
err_destroy:
	ibv_cmd_destroy_srq(&srq->ibv_srq);
err_free:
	pthread_mutex_unlock(&to_qctx(ibctx)->xsrq_lock);
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * libibverbs sends basic SRQs with only a PD (and type) to create_srq;
 * what reaches this is a basic SRQ with more in comp_mask, or another
 * type.
 */
struct ibv_srq *qrnic_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr basic;
	struct ibv_srq *ibsrq;

	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) {
		if (attr->srq_type == IBV_SRQT_XRC)
			return qrnic_create_xrc_srq(ibctx, attr);
		if (attr->srq_type != IBV_SRQT_BASIC) {
			errno = EOPNOTSUPP;	/* tag matching */
			return NULL;
		}
	}
	if (attr->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_PD |
					  IBV_SRQ_INIT_ATTR_TYPE)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}

	basic.srq_context = attr->srq_context;
	basic.attr = attr->attr;
	ibsrq = qrnic_create_srq(attr->pd, &basic);
	if (!ibsrq)
		return NULL;
	qrnic_srq_set_verbs(ibsrq, ibctx, attr);
	attr->attr = basic.attr;
	return ibsrq;
}

/* The completed-slot bits of [tail, pi) at their places in a new depth. */
static void qrnic_srq_move_done(struct qrnic_srq *srq, uint64_t *done,
				uint32_t depth)
{
	uint32_t i, tail, old, slot;

	tail = atomic_load_explicit(&srq->wq.tail, memory_order_relaxed);
	for (i = tail; i != srq->wq.pi; i++) {
		old = i & (srq->wq.depth - 1);
		if (!(srq->done[old / 64] & qrnic_srq_bit(old)))
			continue;
		slot = i & (depth - 1);
		done[slot / 64] |= qrnic_srq_bit(slot);
	}
}

/*
 * IBV_SRQ_MAX_WR: the kernel moves the SRQ to a new ring (the device
 * carries over the WQEs it has not taken), which is mapped here; posting
 * waits meanwhile (wq.lock) and pollers only while the bitmap moves.
 */
static int qrnic_srq_resize(struct qrnic_srq *srq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ibv_context *ibctx = srq->ibv_srq.context;
	struct qrnic_ureq_resize_srq req = { .max_wr = attr->max_wr };
	struct qrnic_uresp_resize_srq resp = {};
	uint32_t depth, tail;
	uint64_t *done;
	void *qmem;
	int ret;

	if (!attr->max_wr || attr->max_wr > 1u << QRNIC_QP_MAX_LOG)
		return EINVAL;
	depth = roundup_pow_of_two(attr->max_wr);
	/* For any depth the kernel may round up to. */
	done = calloc((1u << QRNIC_QP_MAX_LOG) / 64, sizeof(*done));
	if (!done)
		return ENOMEM;

	pthread_spin_lock(&srq->wq.lock);
	tail = atomic_load_explicit(&srq->wq.tail, memory_order_acquire);
	/* Every WQE not yet seen complete keeps its slot. */
	if (srq->wq.pi - tail > depth) {
		ret = EINVAL;
		goto out;
	}
	if (attr_mask & IBV_SRQ_LIMIT) {
		req.flags = QRNIC_SRQ_RESIZE_LIMIT;
		req.srq_limit = attr->srq_limit;
	}
	ret = qrnic_cmd_resize_srq(&srq->ibv_srq, &req, &resp);
	if (ret)
		goto out;
	if (resp.log_depth > QRNIC_QP_MAX_LOG || 1u << resp.log_depth < depth ||
	    resp.qmem_len < (1u << (resp.log_depth + srq->wq.log_stride))) {
		verbs_err(verbs_get_ctx(ibctx),
			  "qrnic: bad SRQ resize from the kernel: len %u depth %u\n",
			  resp.qmem_len, resp.log_depth);
		ret = EIO;
		goto out;
	}
	depth = 1u << resp.log_depth;
	qmem = qrnic_mmap_qmem(ibctx, resp.qmem_len, resp.qmem_mmap_key,
			       "the resized SRQ", srq->srqn);
	if (!qmem) {
		/* The device took the new ring: this SRQ cannot post now. */
		ret = errno;
		goto out;
	}

	pthread_spin_lock(&srq->done_lock);
	qrnic_srq_move_done(srq, done, depth);
	free(srq->done);
	srq->done = done;
	done = NULL;
	srq->wq.buf = qmem;
	srq->wq.depth = depth;
	srq->wq.log_depth = resp.log_depth;
	pthread_spin_unlock(&srq->done_lock);

	munmap(srq->qmem, srq->qmem_len);
	srq->qmem = qmem;
	srq->qmem_len = resp.qmem_len;
out:
	pthread_spin_unlock(&srq->wq.lock);
	free(done);
	return ret;
}

/* IBV_SRQ_LIMIT arms the limit event, IBV_SRQ_MAX_WR resizes the ring. */
int qrnic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ibv_modify_srq cmd;

	if (attr_mask & IBV_SRQ_MAX_WR)
		return qrnic_srq_resize(to_qsrq(ibsrq), attr, attr_mask);
	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int qrnic_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	struct ibv_query_srq cmd;
	int ret;

	ret = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	attr->max_wr = srq->wq.depth;
	attr->max_sge = srq->wq.max_sge;
	return 0;
}

int qrnic_destroy_srq(struct ibv_srq *ibsrq)
{
	struct qrnic_context *ctx = to_qctx(ibsrq->context);
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	int ret;

	/*
	 * The kernel refuses while a QP still uses a basic SRQ; an XRC SRQ
	 * it detaches from the XRC_RECV QPs.
	 */
	if (srq->xrc_cq)
		pthread_mutex_lock(&ctx->xsrq_lock);
	ret = ibv_cmd_destroy_srq(ibsrq);
	if (!ret && srq->xrc_cq)
		qrnic_xsrq_forget(ctx, srq);
	if (srq->xrc_cq)
		pthread_mutex_unlock(&ctx->xsrq_lock);
	if (ret)
		return ret;

	qrnic_srq_teardown(srq);
	qrnic_parent_domain_put(srq->parent_domain);
	free(srq);
	return 0;
}

/* The number senders name an XRC SRQ by (any SRQ has one). */
int qrnic_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	*srq_num = to_qsrq(ibsrq)->srqn;
	return 0;
}
