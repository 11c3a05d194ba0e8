// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: RC, UC, UD and XRC queue pairs.
 *
 * The kernel sizes the queues and hands back where they live in the QP's
 * queue memory (a write-combining mapping of its BAR4 slice); the provider
 * maps it and keeps free running producer/tail indices for both queues.
 * A QP created with an SRQ has no RQ: its receives come from the SRQ; nor
 * has an XRC_SEND QP (an RC requester naming an XRC SRQ at the target in
 * each WQE).  An XRC_RECV QP belongs to an XRC domain and has no queues,
 * CQs or PD: nothing to map, and only modify/query/destroy apply to it
 * (ibv_open_qp gives another process the same).  The context's qpn -> QP
 * table lets pollers find the queue a completion frees; XRC_RECV QPs are
 * not in it.  UD QPs join multicast groups through the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "qrnic.h"
#include "qrnic_abi.h"

/* ---- qpn -> QP table ----------------------------------------------------- */

static int qrnic_qp_table_insert(struct qrnic_context *ctx,
				 struct qrnic_qp *qp)
{
	uint32_t top = (qp->qpn >> QRNIC_QPT_SHIFT) & QRNIC_QPT_MASK;
	uint32_t low = qp->qpn & QRNIC_QPT_MASK;
	struct qrnic_qp **page;
	int ret = 0;

	pthread_mutex_lock(&ctx->lock);
	page = ctx->qp_table[top];
	if (!page) {
		page = calloc(QRNIC_QPT_SIZE, sizeof(*page));
		if (!page) {
			ret = ENOMEM;
			goto out;
		}
		__atomic_store_n(&ctx->qp_table[top], page, __ATOMIC_RELEASE);
	}
	if (page[low]) {
		ret = EEXIST;
		goto out;
	}
	__atomic_store_n(&page[low], qp, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ctx->lock);
	return ret;
}

/* ctx->lock held, and the QP's CQ locks when the QP was ever usable. */
static void qrnic_qp_table_remove(struct qrnic_context *ctx,
				  struct qrnic_qp *qp)
{
	struct qrnic_qp **page;

	page = ctx->qp_table[(qp->qpn >> QRNIC_QPT_SHIFT) & QRNIC_QPT_MASK];
	if (page && page[qp->qpn & QRNIC_QPT_MASK] == qp)
		__atomic_store_n(&page[qp->qpn & QRNIC_QPT_MASK], NULL,
				 __ATOMIC_RELEASE);
}

void qrnic_qp_table_free(struct qrnic_context *ctx)
{
	uint32_t i;

	for (i = 0; i < QRNIC_QPT_SIZE; i++) {
		free(ctx->qp_table[i]);
		ctx->qp_table[i] = NULL;
	}
}

/* ---- creation ------------------------------------------------------------ */

/* The QP creation flags libibverbs defines (enum ibv_qp_create_flags). */
#define QRNIC_KNOWN_CREATE_FLAGS                                               \
	(IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | IBV_QP_CREATE_SCATTER_FCS |      \
	 IBV_QP_CREATE_CVLAN_STRIPPING | IBV_QP_CREATE_SOURCE_QPN |           \
	 IBV_QP_CREATE_PCI_WRITE_END_PADDING)

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

int qrnic_wq_init(struct qrnic_wq *wq, uint8_t *qmem, uint32_t offset,
		  uint32_t log_depth, uint32_t log_stride)
{
	wq->buf = qmem + offset;
	wq->log_depth = log_depth;
	wq->depth = 1u << log_depth;
	wq->log_stride = log_stride;
	wq->pi = 0;
	atomic_init(&wq->tail, 0);
	return pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
}

/* The SGEs a receive WQE of 2^log_stride bytes holds, at most max. */
uint32_t qrnic_rq_max_sge(uint32_t log_stride, uint32_t max)
{
	return min_u32(min_u32(max, QRNIC_MAX_SGE),
		       ((1u << log_stride) - sizeof(struct qrnic_rq_wqe)) /
			       sizeof(struct qrnic_sge));
}

/*
 * Map a QP's or SRQ's queue memory (what and qn name it in the error
 * message); NULL with errno set if that fails.
 */
void *qrnic_mmap_qmem(struct ibv_context *ibctx, size_t len, uint64_t key,
		      const char *what, uint32_t qn)
{
	void *qmem;
	int err;

	qmem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ibctx->cmd_fd, key);
	if (qmem == MAP_FAILED) {
		err = errno;
		verbs_err(verbs_get_ctx(ibctx),
			  "qrnic: mapping %s %#x failed: %d\n", what, qn, err);
		errno = err;
		return NULL;
	}
	return qmem;
}

/* Does [offset, offset + 2^(log_depth + log_stride)) fit in len bytes? */
static bool qrnic_wq_fits(uint32_t offset, uint32_t log_depth,
			  uint32_t log_stride, uint32_t len)
{
	uint64_t bytes = 1ull << (log_depth + log_stride);

	return !(offset % 64) && (uint64_t)offset + bytes <= len;
}

/* The RQ's part of the kernel's layout; no_rq: the QP has none. */
static bool qrnic_rq_layout_ok(const struct qrnic_create_qp_resp *resp,
			       bool no_rq)
{
	if (no_rq)
		return true;	/* rq_offset and log_rq_* are 0, unused */
	return resp->log_rq_depth <= QRNIC_QP_MAX_LOG &&
	       resp->log_rq_stride >= QRNIC_RQ_MIN_LOG_STRIDE &&
	       resp->log_rq_stride <= QRNIC_RQ_MAX_LOG_STRIDE &&
	       qrnic_wq_fits(resp->rq_offset, resp->log_rq_depth,
			     resp->log_rq_stride, resp->qmem_len);
}

/* A QP with an SRQ, and an XRC_SEND QP, have no RQ of their own. */
static bool qrnic_qp_no_rq(const struct qrnic_qp *qp)
{
	return qp->srq || qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND;
}

/*
 * Check the kernel's layout, map the queue memory and set up both queues
 * (the SQ only without an RQ: the RQ then has depth 0).  The limits the
 * provider enforces are the kernel's, clamped to what the strides can
 * hold.  qp_type is set (libibverbs did).
 */
static int qrnic_qp_setup(struct ibv_context *ibctx, struct qrnic_qp *qp,
			  const struct qrnic_create_qp_resp *resp)
{
	bool no_rq = qrnic_qp_no_rq(qp);
	uint32_t sq_stride;
	int ret;

	if (resp->log_sq_depth > QRNIC_QP_MAX_LOG ||
	    resp->log_sq_stride < QRNIC_SQ_MIN_LOG_STRIDE ||
	    resp->log_sq_stride > QRNIC_SQ_MAX_LOG_STRIDE ||
	    !qrnic_wq_fits(resp->sq_offset, resp->log_sq_depth,
			   resp->log_sq_stride, resp->qmem_len) ||
	    !qrnic_rq_layout_ok(resp, no_rq) ||
	    (resp->qpn & ~QRNIC_QPN_MASK)) {
		verbs_err(verbs_get_ctx(ibctx),
			  "qrnic: bad QP layout from the kernel: qpn %#x len %u sq %u/%u/%u rq %u/%u/%u\n",
			  resp->qpn, resp->qmem_len, resp->sq_offset,
			  resp->log_sq_depth, resp->log_sq_stride,
			  resp->rq_offset, resp->log_rq_depth,
			  resp->log_rq_stride);
		return EINVAL;
	}
	if (qp->vqp.qp.qp_num != resp->qpn)
		verbs_warn(verbs_get_ctx(ibctx),
			   "qrnic: QP number %#x in the core response, %#x in the driver's\n",
			   qp->vqp.qp.qp_num, resp->qpn);

	qp->qpn = resp->qpn;
	qp->qmem_len = resp->qmem_len;
	qp->qmem = qrnic_mmap_qmem(ibctx, qp->qmem_len, resp->qmem_mmap_key,
				   "queue memory of QP", qp->qpn);
	if (!qp->qmem)
		return errno;

	ret = qrnic_wq_init(&qp->sq, qp->qmem, resp->sq_offset,
			    resp->log_sq_depth, resp->log_sq_stride);
	if (ret)
		goto err_unmap;
	if (no_rq) {
		/* No RQ of its own (fields still 0): depth 0, never posted. */
		ret = pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	} else {
		ret = qrnic_wq_init(&qp->rq, qp->qmem, resp->rq_offset,
				    resp->log_rq_depth, resp->log_rq_stride);
	}
	if (ret)
		goto err_sq;

	sq_stride = 1u << resp->log_sq_stride;
	qp->sq.max_sge = min_u32(min_u32(resp->max_send_sge, QRNIC_MAX_SGE),
				 (sq_stride - sizeof(struct qrnic_sq_wqe)) /
					 sizeof(struct qrnic_sge));
	if (!no_rq)
		qp->rq.max_sge = qrnic_rq_max_sge(resp->log_rq_stride,
						  resp->max_recv_sge);
	qp->max_inline = min_u32(min_u32(resp->max_inline, QRNIC_MAX_INLINE),
				 sq_stride - sizeof(struct qrnic_sq_wqe));
	return 0;

err_sq:
	pthread_spin_destroy(&qp->sq.lock);
err_unmap:
	munmap(qp->qmem, qp->qmem_len);
	qp->qmem = NULL;
	return ret;
}

/*
 * An XRC_RECV QP: no queues (depth 0, locks set up all the same), nothing
 * to map.  The core creates it without the driver's udata, so its number
 * is the core's.
 */
static int qrnic_qp_setup_none(struct qrnic_qp *qp)
{
	int ret;

	qp->qpn = qp->vqp.qp.qp_num;
	ret = pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		return ret;
	ret = pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		pthread_spin_destroy(&qp->sq.lock);
	return ret;
}

static void qrnic_qp_teardown(struct qrnic_qp *qp)
{
	pthread_spin_destroy(&qp->rq.lock);
	pthread_spin_destroy(&qp->sq.lock);
	if (qp->qmem)
		munmap(qp->qmem, qp->qmem_len);
}

static void qrnic_qp_caps(struct qrnic_qp *qp, struct ibv_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.depth;
	cap->max_recv_wr = qp->rq.depth;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_recv_sge = qp->rq.max_sge;
	cap->max_inline_data = qp->max_inline;
}

/* A zeroed QP, 64-byte aligned for the new post API's WQE buffer. */
static struct qrnic_qp *qrnic_qp_alloc(void)
{
	struct qrnic_qp *qp;
	void *mem;
	int ret;

	ret = posix_memalign(&mem, 64, sizeof(*qp));
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = mem;
	memset(qp, 0, sizeof(*qp));
	return qp;
}

/*
 * The objects each QP type is created with: a PD and both CQs (RC, UC,
 * UD, an SRQ or not, but not an XRC one); a PD and a send CQ (XRC_SEND:
 * a receive CQ is not looked at, an SRQ refused); an XRC domain only
 * (XRC_RECV: a PD, CQs or SRQ are not looked at).
 */
static int qrnic_qp_check_objects(const struct ibv_qp_init_attr_ex *attr)
{
	switch (attr->qp_type) {
	case IBV_QPT_XRC_RECV:
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd)
			return EINVAL;
		return 0;
	case IBV_QPT_XRC_SEND:
		if (attr->srq)
			return EINVAL;
		break;
	default:
		if (!attr->recv_cq ||
		    (attr->srq && to_qsrq(attr->srq)->xrc_cq))
			return EINVAL;
		break;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    !attr->send_cq)
		return EINVAL;
	return 0;
}

/*
 * What create_qp_ex may be asked: errno for the attributes, 0 if they are
 * fine; *send_ops the IBV_QP_EX_WITH_* ops asked for.
 */
static int qrnic_qp_check_attr(const struct ibv_qp_init_attr_ex *attr,
			       uint64_t *send_ops)
{
	if (attr->comp_mask & ~(uint64_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_XRCD |
					  IBV_QP_INIT_ATTR_CREATE_FLAGS |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EOPNOTSUPP;
	/*
	 * The mask bit alone asks for nothing: create_flags 0 is a plain QP.
	 * Flags libibverbs does not know are EINVAL; the ones it knows
	 * (multicast loopback blocking, raw packet and source QPN options)
	 * the device has none of.
	 */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return attr->create_flags & ~(uint32_t)QRNIC_KNOWN_CREATE_FLAGS ?
			       EINVAL : EOPNOTSUPP;
	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		break;
	default:
		return EOPNOTSUPP;
	}
	/* The send ops each type has: the work-request table's. */
	*send_ops = 0;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		*send_ops = attr->send_ops_flags;
		if (*send_ops & ~qrnic_qpt_send_ops(attr->qp_type))
			return EOPNOTSUPP;
	}
	return qrnic_qp_check_objects(attr);
}

/*
 * What goes to the kernel: ibv_cmd_create_qp_ex takes no
 * IBV_QP_INIT_ATTR_CREATE_FLAGS (EINVAL, libibverbs' own check; the flags
 * are 0 here, so the bit goes), and the objects a type does not have are
 * left out, so that the verbs QP does not name them either.
 */
static void qrnic_qp_kernel_attr(struct ibv_qp_init_attr_ex *kattr,
				 const struct ibv_qp_init_attr_ex *attr)
{
	*kattr = *attr;
	kattr->comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_CREATE_FLAGS;
	switch (attr->qp_type) {
	case IBV_QPT_XRC_RECV:
		kattr->comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_PD;
		kattr->pd = NULL;
		kattr->send_cq = NULL;
		kattr->recv_cq = NULL;
		kattr->srq = NULL;
		memset(&kattr->cap, 0, sizeof(kattr->cap));
		break;
	case IBV_QPT_XRC_SEND:
		kattr->comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_XRCD;
		kattr->recv_cq = NULL;
		kattr->cap.max_recv_wr = 0;
		kattr->cap.max_recv_sge = 0;
		break;
	default:
		kattr->comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_XRCD;
		break;
	}
}

static struct ibv_qp *qrnic_create_qp_common(struct ibv_context *ibctx,
					     struct ibv_qp_init_attr_ex *attr)
{
	struct qrnic_context *ctx = to_qctx(ibctx);
	struct qrnic_create_qp_resp resp = {};
	struct qrnic_create_qp cmd = {};
	struct ibv_qp_init_attr_ex kattr;
	struct qrnic_qp *qp;
	uint64_t send_ops;
	int ret;

	ret = qrnic_qp_check_attr(attr, &send_ops);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = qrnic_qp_alloc();
	if (!qp)
		return NULL;

	qrnic_qp_kernel_attr(&kattr, attr);
	qp->srq = kattr.srq ? to_qsrq(kattr.srq) : NULL;
	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, &kattr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	if (qrnic_qp_has_queues(qp))
		ret = qrnic_qp_setup(ibctx, qp, &resp);
	else
		ret = qrnic_qp_setup_none(qp);
	if (ret)
		goto err_destroy;

	qp->sig_all = attr->sq_sig_all;
	atomic_init(&qp->state, IBV_QPS_RESET);

	/* Its completions name it; an XRC_RECV QP's name their SRQ. */
	if (qrnic_qp_has_queues(qp)) {
		ret = qrnic_qp_table_insert(ctx, qp);
		if (ret) {
			verbs_err(verbs_get_ctx(ibctx),
				  "qrnic: cannot track QP %#x: %d\n", qp->qpn,
				  ret);
			goto err_teardown;
		}
	}

	/* The caps the queues really have, as far as the provider enforces. */
	qrnic_qp_caps(qp, &attr->cap);

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qrnic_qp_init_wr_ops(qp, send_ops);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	/* Rings in queue memory: a parent domain's allocators are not asked. */
	if (kattr.pd)
		qp->parent_domain = qrnic_parent_domain_get(kattr.pd);
	return &qp->vqp.qp;

err_teardown:
	qrnic_qp_teardown(qp);
err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *qrnic_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	return qrnic_create_qp_common(ibctx, attr);
}

struct ibv_qp *qrnic_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *ibqp;

	ibqp = qrnic_create_qp_common(pd->context, &attr_ex);
	if (ibqp)
		attr->cap = attr_ex.cap;
	return ibqp;
}

/* ---- modify / query / destroy -------------------------------------------- */

/*
 * Lock the QP's CQ pair and drop the QP's completions from both; the
 * caller unlocks with qrnic_cq_unlock_pair().  A QP with queues has a send
 * CQ; rcq is NULL for XRC_SEND.
 */
static void qrnic_qp_lock_clean_cqs(struct qrnic_qp *qp, struct qrnic_cq *scq,
				    struct qrnic_cq *rcq)
{
	qrnic_cq_lock_pair(scq, rcq);
	qrnic_cq_clean(scq, qp->qpn, qp->srq);
	if (rcq && rcq != scq)
		qrnic_cq_clean(rcq, qp->qpn, qp->srq);
}

/*
 * The device dropped all queue state: forget completions still queued for
 * the QP and restart both queues at index 0.  A QP with queues only.
 */
static void qrnic_qp_reset_queues(struct qrnic_qp *qp)
{
	struct qrnic_cq *scq = qrnic_qp_cq(qp->vqp.qp.send_cq);
	struct qrnic_cq *rcq = qrnic_qp_cq(qp->vqp.qp.recv_cq);

	qrnic_qp_lock_clean_cqs(qp, scq, rcq);

	pthread_spin_lock(&qp->sq.lock);
	pthread_spin_lock(&qp->rq.lock);
	qp->sq.pi = 0;
	atomic_store_explicit(&qp->sq.tail, 0, memory_order_relaxed);
	qp->rq.pi = 0;
	atomic_store_explicit(&qp->rq.tail, 0, memory_order_relaxed);
	atomic_store_explicit(&qp->state, IBV_QPS_RESET, memory_order_relaxed);
	pthread_spin_unlock(&qp->rq.lock);
	pthread_spin_unlock(&qp->sq.lock);

	qrnic_cq_unlock_pair(scq, rcq);
}

int qrnic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct qrnic_qp *qp = to_qqp(ibqp);
	struct ibv_modify_qp cmd;
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (ret)
		return ret;

	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state == IBV_QPS_RESET && qrnic_qp_has_queues(qp))
			qrnic_qp_reset_queues(qp);
		else
			atomic_store_explicit(&qp->state, attr->qp_state,
					      memory_order_relaxed);
	}
	return 0;
}

int qrnic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct qrnic_qp *qp = to_qqp(ibqp);
	struct ibv_query_qp cmd;
	int ret;

	ret = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (ret)
		return ret;

	qrnic_qp_caps(qp, &attr->cap);
	qrnic_qp_caps(qp, &init_attr->cap);
	return 0;
}

int qrnic_destroy_qp(struct ibv_qp *ibqp)
{
	struct qrnic_context *ctx = to_qctx(ibqp->context);
	struct qrnic_qp *qp = to_qqp(ibqp);
	struct qrnic_cq *scq = qrnic_qp_cq(ibqp->send_cq);
	struct qrnic_cq *rcq = qrnic_qp_cq(ibqp->recv_cq);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;

	/* No poller may see the QP or its completions after this. */
	if (qrnic_qp_has_queues(qp)) {
		pthread_mutex_lock(&ctx->lock);
		qrnic_qp_lock_clean_cqs(qp, scq, rcq);
		qrnic_qp_table_remove(ctx, qp);
		qrnic_cq_unlock_pair(scq, rcq);
		pthread_mutex_unlock(&ctx->lock);
	}

	qrnic_qp_teardown(qp);
	qrnic_parent_domain_put(qp->parent_domain);
	free(qp);
	return 0;
}

/*
 * ibv_open_qp: another handle on an XRC_RECV QP of an XRC domain this
 * process has opened (the only shareable type), queue-less like the one
 * created; ibv_destroy_qp closes it.
 */
struct ibv_qp *qrnic_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct qrnic_qp *qp;
	int ret;

	if ((attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) &&
	    attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}

	qp = qrnic_qp_alloc();
	if (!qp)
		return NULL;

	ret = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = qrnic_qp_setup_none(qp);
	if (ret)
		goto err_destroy;
	/* Whatever state its creator has moved it to. */
	atomic_init(&qp->state, IBV_QPS_UNKNOWN);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/* ---- multicast ----------------------------------------------------------- */

/*
 * A UD QP joins or leaves a multicast group in the device (ATTACH_MCAST /
 * DETACH_MCAST through the kernel, which refuses other QP types and
 * unicast GIDs).  The data path is unchanged: datagrams to the group
 * complete on the QP's receive CQ like any other.
 */
int qrnic_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		       uint16_t lid)
{
	return ibv_cmd_attach_mcast(ibqp, gid, lid);
}

int qrnic_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		       uint16_t lid)
{
	return ibv_cmd_detach_mcast(ibqp, gid, lid);
}
