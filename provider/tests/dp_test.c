// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * Host-side test of libqrnic's data path: the provider's own code runs
 * against plain memory standing in for the doorbell page, the queue memory
 * and the CQ ring, and this file plays the device (reads WQEs and
 * doorbells, writes CQEs the way include/qrnic_hw.h says).  No kernel, no
 * device.  Build and run with provider/tests/run.sh.
 */
/*
 * Kernel commands the tests reach are this file's fakes: the provider's
 * calls and libibverbs' prototypes are renamed before either is seen.
 */
#define ibv_cmd_create_qp_ex fake_cmd_create_qp_ex
#define ibv_cmd_resize_cq fake_cmd_resize_cq
#define ibv_cmd_attach_mcast fake_cmd_attach_mcast
#define ibv_cmd_detach_mcast fake_cmd_detach_mcast
#define ibv_cmd_modify_srq fake_cmd_modify_srq
#define ibv_cmd_query_srq fake_cmd_query_srq
#define ibv_cmd_alloc_mw fake_cmd_alloc_mw
#define ibv_cmd_dealloc_mw fake_cmd_dealloc_mw
#define ibv_cmd_create_cq_ex fake_cmd_create_cq_ex
#define ibv_cmd_destroy_cq fake_cmd_destroy_cq
#define ibv_cmd_dealloc_pd fake_cmd_dealloc_pd
#define ibv_cmd_rereg_mr fake_cmd_rereg_mr
#define ibv_cmd_modify_qp fake_cmd_modify_qp
#define ibv_cmd_destroy_qp fake_cmd_destroy_qp
#define ibv_cmd_open_qp fake_cmd_open_qp
#define ibv_cmd_create_srq_ex fake_cmd_create_srq_ex
#define ibv_cmd_destroy_srq fake_cmd_destroy_srq

#include "../cq.c"
#include "../mr.c"
#include "../mw.c"
#include "../post.c"
#include "../qp.c"
#include "../srq.c"
#include "../verbs.c"
#include "../wr.c"

#include <sched.h>
#include <stdio.h>
#include <time.h>

static int failures;

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, \
				__LINE__, #cond);                              \
			failures++;                                            \
		}                                                              \
	} while (0)

/* ---- the fake device ----------------------------------------------------- */

struct fake_cq {
	struct qrnic_cq *cq;
	uint32_t pi;		/* device producer index */
};

static uint64_t db_read(struct qrnic_context *ctx, uint32_t off)
{
	return le64toh(*(uint64_t *)((uint8_t *)ctx->db + off));
}

static void db_clear(struct qrnic_context *ctx)
{
	memset(ctx->db, 0, QRNIC_DB_PAGE_SIZE);
}

/* A refused ibv_post_send: EINVAL at wr, nothing written, nothing rung. */
static bool post_refused(struct qrnic_context *ctx, struct qrnic_qp *qp,
			 struct ibv_send_wr *wr)
{
	uint32_t pi = qp->sq.pi;
	struct ibv_send_wr *bad = NULL;
	bool ok;

	db_clear(ctx);
	ok = qrnic_post_send(&qp->vqp.qp, wr, &bad) == EINVAL && bad == wr;
	return ok && qp->sq.pi == pi && db_read(ctx, QRNIC_DB_SQ) == 0;
}

/* A completion; src_qp goes above the phase bit (UD receives). */
static void dev_write_cqe_src(struct fake_cq *f, uint64_t wr_id, uint32_t qpn,
			      uint16_t wqe_idx, uint8_t opcode, uint8_t status,
			      uint8_t flags, uint32_t byte_len,
			      uint32_t imm_raw, uint32_t src_qp)
{
	struct qrnic_cq *cq = f->cq;
	struct qrnic_cqe *cqe = &cq->ring[f->pi & (cq->depth - 1)];
	uint32_t phase = ((f->pi >> cq->log_depth) & 1) ? 0 : QRNIC_CQE_PHASE;

	/* The device never overwrites what software has not consumed. */
	CHECK(f->pi - le32toh(cq->rec->ci) < cq->depth);
	cqe->wr_id = htole64(wr_id);
	cqe->byte_len = htole32(byte_len);
	cqe->imm_data = imm_raw;
	cqe->qpn = htole32(qpn);
	cqe->wqe_idx = htole16(wqe_idx);
	cqe->opcode = opcode;
	cqe->status = status;
	cqe->flags = flags;
	cqe->vendor_err = status ? QRNIC_VERR_NAK : 0;
	cqe->rsvd = 0;
	__atomic_store_n(&cqe->owner,
			 htole32(phase | src_qp << QRNIC_CQE_SRC_QP_SHIFT),
			 __ATOMIC_RELEASE);
	f->pi++;
}

static void dev_write_cqe(struct fake_cq *f, uint64_t wr_id, uint32_t qpn,
			  uint16_t wqe_idx, uint8_t opcode, uint8_t status,
			  uint8_t flags, uint32_t byte_len, uint32_t imm_raw)
{
	dev_write_cqe_src(f, wr_id, qpn, wqe_idx, opcode, status, flags,
			  byte_len, imm_raw, 0);
}

static struct qrnic_sq_wqe *sq_wqe(struct qrnic_qp *qp, uint32_t idx)
{
	return qrnic_wq_slot(&qp->sq, idx);
}

/* ---- object setup without the kernel -------------------------------------- */

/*
 * A PD handed to the provider is a struct qrnic_pd (zeroed: a plain PD),
 * since the provider asks each one whether it is a parent domain.
 */

static struct qrnic_context *fake_ctx(void)
{
	static struct ibv_device dev = { .name = "qrnic_test" };
	struct qrnic_context *ctx = calloc(1, sizeof(*ctx));
	void *db;

	/* What verbs_err() reaches through, for the refusals tested. */
	ctx->ibv_ctx.context.device = &dev;
	ctx->ibv_ctx.context.abi_compat = __VERBS_ABI_IS_EXTENDED;

	if (posix_memalign(&db, 4096, QRNIC_DB_PAGE_SIZE))
		abort();
	ctx->db = db;
	db_clear(ctx);
	pthread_mutex_init(&ctx->lock, NULL);
	return ctx;
}

static struct qrnic_cq *fake_cq(struct qrnic_context *ctx, uint32_t cqe,
				uint32_t cqn)
{
	struct qrnic_cq *cq = qrnic_cq_alloc(cqe, NULL);

	if (!cq)
		abort();
	cq->vcq.cq.context = &ctx->ibv_ctx.context;
	cq->cqn = cqn;
	cq->vcq.cq.cqe = cq->depth;
	return cq;
}

static struct qrnic_qp *fake_qp(struct qrnic_context *ctx, uint32_t qpn,
				struct qrnic_cq *scq, struct qrnic_cq *rcq,
				uint32_t log_sq, uint32_t log_sq_stride,
				uint32_t log_rq, uint32_t log_rq_stride)
{
	struct qrnic_create_qp_resp resp = {};
	struct qrnic_qp *qp;
	uint8_t *qmem;
	void *mem;

	if (posix_memalign(&mem, 64, sizeof(*qp)))
		abort();
	qp = mem;
	memset(qp, 0, sizeof(*qp));

	resp.qpn = qpn;
	resp.sq_offset = 0;
	resp.log_sq_depth = log_sq;
	resp.log_sq_stride = log_sq_stride;
	resp.rq_offset = align(1u << (log_sq + log_sq_stride), 4096);
	resp.log_rq_depth = log_rq;
	resp.log_rq_stride = log_rq_stride;
	resp.qmem_len = resp.rq_offset +
			align(1u << (log_rq + log_rq_stride), 4096);
	resp.max_send_sge = 16;
	resp.max_recv_sge = 16;
	resp.max_inline = 256;

	if (posix_memalign(&mem, 4096, resp.qmem_len))
		abort();
	qmem = mem;
	memset(qmem, 0xa5, resp.qmem_len);

	/* What qrnic_qp_setup does after checking and mapping. */
	CHECK(qrnic_wq_fits(resp.sq_offset, log_sq, log_sq_stride,
			    resp.qmem_len));
	qp->qpn = qpn;
	qp->qmem = qmem;
	qp->qmem_len = resp.qmem_len;
	CHECK(!qrnic_wq_init(&qp->sq, qmem, resp.sq_offset, log_sq,
			     log_sq_stride));
	CHECK(!qrnic_wq_init(&qp->rq, qmem, resp.rq_offset, log_rq,
			     log_rq_stride));
	qp->sq.max_sge = min_u32(resp.max_send_sge,
				 ((1u << log_sq_stride) - 64) / 16);
	qp->rq.max_sge = min_u32(resp.max_recv_sge,
				 ((1u << log_rq_stride) - 16) / 16);
	qp->max_inline = min_u32(resp.max_inline, (1u << log_sq_stride) - 64);

	qp->vqp.qp.context = &ctx->ibv_ctx.context;
	qp->vqp.qp.send_cq = &scq->vcq.cq;
	qp->vqp.qp.recv_cq = &rcq->vcq.cq;
	qp->vqp.qp.qp_num = qpn;
	qp->vqp.qp.qp_type = IBV_QPT_RC;
	atomic_init(&qp->state, IBV_QPS_RESET);
	CHECK(!qrnic_qp_table_insert(ctx, qp));
	return qp;
}

/* ---- the fake kernel ------------------------------------------------------ */

/*
 * CREATE_QP: libibverbs' own check first (ibv_cmd_create_qp_ex refuses
 * comp_mask bits other than PD, XRCD and SEND_OPS_FLAGS with EINVAL), then
 * records what reached the kernel and fails with ENOTTY, an errno no check
 * in the provider uses, so that a test can tell "refused by the provider"
 * from "passed on to the kernel".
 */
static struct {
	unsigned int calls;
	uint32_t comp_mask;
	uint32_t create_flags;
	struct ibv_qp_init_attr_ex attr;	/* the last one */
	/*
	 * succeed: create QP qpn as libibverbs would (the verbs fields from
	 * the attributes), the driver's answer drv (an XRC_RECV QP's stays
	 * zero: the core gives the driver no udata for it).
	 */
	bool succeed;
	uint32_t qpn;
	struct qrnic_uresp_create_qp drv;
} kcreate_qp;

/* What libibverbs' set_qp() and the core's answer fill in. */
static void kernel_set_qp(struct ibv_context *context, struct verbs_qp *qp,
			  const struct ibv_qp_init_attr_ex *attr, uint32_t qpn)
{
	qp->qp.context = context;
	qp->qp.handle = qpn;
	qp->qp.qp_num = qpn;
	qp->qp.qp_context = attr->qp_context;
	qp->qp.pd = attr->pd;
	qp->qp.send_cq = attr->send_cq;
	qp->qp.recv_cq = attr->recv_cq;
	qp->qp.srq = attr->srq;
	qp->qp.qp_type = attr->qp_type;
	qp->qp.state = IBV_QPS_RESET;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	qp->comp_mask = 0;
}

int fake_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct ibv_create_qp *cmd, size_t cmd_size,
			  struct ib_uverbs_create_qp_resp *resp,
			  size_t resp_size)
{
	if (attr_ex->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					     IBV_QP_INIT_ATTR_XRCD |
					     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EINVAL;
	kcreate_qp.calls++;
	kcreate_qp.comp_mask = attr_ex->comp_mask;
	kcreate_qp.create_flags = attr_ex->create_flags;
	kcreate_qp.attr = *attr_ex;
	if (!kcreate_qp.succeed)
		return ENOTTY;
	kernel_set_qp(context, qp, attr_ex, kcreate_qp.qpn);
	container_of(resp, struct qrnic_create_qp_resp, ibv_resp)->drv_payload =
		kcreate_qp.drv;
	return 0;
}

/* MODIFY_QP, DESTROY_QP, OPEN_QP: counted; kqp.ret is the answer. */
static struct {
	unsigned int modify, destroy, open;
	struct ibv_qp *qp;
	int ret;
} kqp;

int fake_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		       int attr_mask, struct ibv_modify_qp *cmd,
		       size_t cmd_size)
{
	kqp.modify++;
	kqp.qp = qp;
	return kqp.ret;
}

int fake_cmd_destroy_qp(struct ibv_qp *qp)
{
	kqp.destroy++;
	kqp.qp = qp;
	return kqp.ret;
}

/* libibverbs' own checks, then what it fills in. */
int fake_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		     int vqp_sz, struct ibv_qp_open_attr *attr,
		     struct ibv_open_qp *cmd, size_t cmd_size,
		     struct ib_uverbs_create_qp_resp *resp, size_t resp_size)
{
	struct ibv_qp_init_attr_ex ax = { .qp_type = attr->qp_type,
					  .qp_context = attr->qp_context };

	if (!(attr->comp_mask & IBV_QP_OPEN_ATTR_XRCD) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_NUM) ||
	    !(attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE))
		return EINVAL;
	kqp.open++;
	if (kqp.ret)
		return kqp.ret;
	kernel_set_qp(context, qp, &ax, attr->qp_num);
	qp->qp.state = IBV_QPS_UNKNOWN;
	return 0;
}

/*
 * CREATE_XSRQ / DESTROY_SRQ: what reached the kernel; an SRQ gets what
 * libibverbs fills in and the driver's answer drv, its queue memory in a
 * file the test makes the context's cmd_fd.
 */
static struct {
	unsigned int create, destroy;
	struct ibv_srq_init_attr_ex attr;
	struct qrnic_uresp_create_srq drv;
	int ret;
} ksrq;

int fake_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			   struct ibv_srq_init_attr_ex *attr_ex,
			   struct ibv_create_xsrq *cmd, size_t cmd_size,
			   struct ib_uverbs_create_srq_resp *resp,
			   size_t resp_size)
{
	ksrq.create++;
	ksrq.attr = *attr_ex;
	if (ksrq.ret)
		return ksrq.ret;
	srq->srq.context = context;
	srq->srq.handle = ksrq.drv.srqn;
	srq->srq_type = attr_ex->srq_type;
	srq->xrcd = container_of(attr_ex->xrcd, struct verbs_xrcd, xrcd);
	srq->cq = attr_ex->cq;
	srq->srq_num = ksrq.drv.srqn;
	attr_ex->attr.max_wr = 1u << ksrq.drv.log_depth;
	attr_ex->attr.max_sge = ksrq.drv.max_sge;
	container_of(resp, struct qrnic_create_xsrq_resp, ibv_resp)->drv_payload =
		ksrq.drv;
	return 0;
}

int fake_cmd_destroy_srq(struct ibv_srq *srq)
{
	ksrq.destroy++;
	return ksrq.ret;
}

/* ATTACH_MCAST / DETACH_MCAST: what reached the kernel, and its answer. */
static struct {
	unsigned int attach, detach;
	struct ibv_qp *qp;
	union ibv_gid gid;
	uint16_t lid;
	int ret;
} kmcast;

static int fake_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		      uint16_t lid)
{
	kmcast.qp = qp;
	kmcast.gid = *gid;
	kmcast.lid = lid;
	return kmcast.ret;
}

int fake_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			  uint16_t lid)
{
	kmcast.attach++;
	return fake_mcast(qp, gid, lid);
}

int fake_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			  uint16_t lid)
{
	kmcast.detach++;
	return fake_mcast(qp, gid, lid);
}

/*
 * ALLOC_MW / DEALLOC_MW: what reached the kernel; an allocation gets
 * kmw.rkey and the fields libibverbs' ibv_cmd_alloc_mw sets.
 */
static struct {
	unsigned int alloc, dealloc;
	enum ibv_mw_type type;
	struct ibv_mw *mw;
	uint32_t rkey;
	int ret;
} kmw;

int fake_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		      struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		      size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		      size_t resp_size)
{
	kmw.alloc++;
	kmw.type = type;
	kmw.mw = mw;
	if (kmw.ret)
		return kmw.ret;
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = kmw.rkey;
	mw->handle = 0x77;
	mw->type = type;
	return 0;
}

int fake_cmd_dealloc_mw(struct ibv_mw *mw)
{
	kmw.dealloc++;
	kmw.mw = mw;
	return kmw.ret;
}

/*
 * The device's view of a CQ being resized: the ring, record and depth it
 * writes by (switched only by RESIZE_CQ), its producer index, and a
 * sequence number that every field of the next CQE is derived from.
 * Full rings make it wait instead of overflowing.
 */
#define RDEV_QPN 0xabcdef

struct rdev {
	struct qrnic_cq *cq;
	pthread_mutex_t lock;
	struct qrnic_cqe *ring;
	struct qrnic_cq_rec *rec;
	uint32_t log;
	uint32_t pi;
	uint64_t seq;
	uint64_t max_seq;		/* 0, or write no more CQEs than this */
};

static uint32_t rdev_src_qp(uint64_t seq)
{
	return ((uint32_t)seq * 0x9e3779b1u) >> 8;	/* 24 bits, mostly set */
}

static void rdev_init(struct rdev *d, struct qrnic_cq *cq)
{
	memset(d, 0, sizeof(*d));
	pthread_mutex_init(&d->lock, NULL);
	d->cq = cq;
	d->ring = cq->ring;
	d->rec = cq->rec;
	d->log = cq->log_depth;
	d->pi = cq->ci;
}

/* Write the next CQE; false when software has not made room for it. */
static bool rdev_write(struct rdev *d)
{
	struct qrnic_cqe *cqe;
	uint32_t ci, phase;
	uint64_t seq;
	bool ok = false;

	pthread_mutex_lock(&d->lock);
	ci = le32toh(__atomic_load_n(&d->rec->ci, __ATOMIC_ACQUIRE));
	if (d->pi - ci < (1u << d->log) &&
	    (!d->max_seq || d->seq < d->max_seq)) {
		seq = d->seq++;
		cqe = &d->ring[d->pi & ((1u << d->log) - 1)];
		phase = ((d->pi >> d->log) & 1) ? 0 : QRNIC_CQE_PHASE;
		cqe->wr_id = htole64(seq);
		cqe->byte_len = htole32(seq & 0xfff);
		cqe->imm_data = (__force uint32_t)htobe32((uint32_t)seq);
		cqe->qpn = htole32(RDEV_QPN);
		cqe->wqe_idx = htole16((uint16_t)seq);
		cqe->opcode = QRNIC_CQE_OP_RECV;
		cqe->status = 0;
		cqe->flags = QRNIC_CQE_F_IMM;
		cqe->vendor_err = 0;
		cqe->rsvd = 0;
		__atomic_store_n(&cqe->owner,
				 htole32(phase | rdev_src_qp(seq)
						 << QRNIC_CQE_SRC_QP_SHIFT),
				 __ATOMIC_RELEASE);
		d->pi++;
		ok = true;
	}
	pthread_mutex_unlock(&d->lock);
	return ok;
}

static unsigned int rdev_fill(struct rdev *d, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n && rdev_write(d); i++)
		;
	return i;
}

/* Is wc the completion rdev wrote as number seq? */
static bool rdev_wc_ok(const struct ibv_wc *wc, uint64_t seq)
{
	return wc->wr_id == seq && wc->status == IBV_WC_SUCCESS &&
	       wc->opcode == IBV_WC_RECV && wc->byte_len == (seq & 0xfff) &&
	       wc->wc_flags == IBV_WC_WITH_IMM &&
	       wc->imm_data == htobe32((uint32_t)seq) &&
	       wc->qp_num == RDEV_QPN && wc->src_qp == rdev_src_qp(seq);
}

/* Poll exactly n completions, in order from *next, then an empty ring. */
static void rdev_poll(struct qrnic_cq *cq, uint64_t *next, unsigned int n)
{
	unsigned int got = 0, wrong = 0;
	struct ibv_wc wc[16];
	int i, r;

	while (got < n) {
		r = qrnic_poll_cq(&cq->vcq.cq, n - got < 16 ? n - got : 16, wc);
		if (r <= 0)
			break;
		for (i = 0; i < r; i++)
			wrong += !rdev_wc_ok(&wc[i], (*next)++);
		got += r;
	}
	CHECK(got == n && wrong == 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 16, wc) == 0);
	CHECK(le32toh(cq->rec->ci) == cq->ci);
}

/*
 * RESIZE_CQ as qrnic.ko and the device do it: the request checked, the
 * provider's part before the command checked (its CQ lock held, its
 * consumer index in the new record, every new entry unwritten for the
 * index it holds next), then the device writes `during' more CQEs to the
 * old ring, refuses a depth below what is outstanding and switches.
 */
static struct {
	struct rdev *dev;
	unsigned int calls;
	unsigned int bad;	/* provider-side protocol violations */
	unsigned int during;
	int fail;		/* the kernel fails before the device */
} kresize;

int fake_cmd_resize_cq(struct ibv_cq *ibcq, int cqe, struct ibv_resize_cq *cmd,
		       size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		       size_t resp_size)
{
	struct qrnic_resize_cq *c =
		container_of(cmd, struct qrnic_resize_cq, ibv_cmd);
	struct qrnic_resize_cq_resp *r =
		container_of(resp, struct qrnic_resize_cq_resp, ibv_resp);
	struct qrnic_cqe *ring = (void *)(uintptr_t)c->buf_addr;
	struct rdev *d = kresize.dev;
	uint32_t log = c->log_depth, depth, ci, i;
	struct qrnic_cq_rec *rec;
	int ret = 0;

	kresize.calls++;
	if (cmd_size != sizeof(*c) || resp_size != sizeof(*r) || !d ||
	    ibcq != &d->cq->vcq.cq || log < 1 || log > QRNIC_CQ_MAX_LOG ||
	    cqe < 1 || (1u << log) < (uint32_t)cqe || c->buf_addr % 4096 ||
	    c->buf_size != align(((size_t)QRNIC_CQE_SIZE << log) +
					 QRNIC_CQ_REC_SIZE, 4096)) {
		kresize.bad++;
		return EINVAL;
	}
	depth = 1u << log;
	rec = (struct qrnic_cq_rec *)((uint8_t *)ring +
				      ((size_t)QRNIC_CQE_SIZE << log));

	if (!d->cq->single_threaded && pthread_spin_trylock(&d->cq->lock) == 0) {
		pthread_spin_unlock(&d->cq->lock);
		kresize.bad++;
	}
	ci = le32toh(rec->ci);
	if (ci != d->cq->ci)
		kresize.bad++;
	for (i = ci; i != ci + depth; i++) {
		if ((le32toh(ring[i & (depth - 1)].owner) & QRNIC_CQE_PHASE) !=
		    ((i >> log) & 1)) {
			kresize.bad++;
			break;
		}
	}
	if (kresize.fail)
		return kresize.fail;

	rdev_fill(d, kresize.during);

	pthread_mutex_lock(&d->lock);
	if (d->pi - ci > depth) {
		ret = EINVAL;			/* BAD_PARAM */
	} else {
		d->ring = ring;
		d->rec = rec;
		d->log = log;
		r->pi = d->pi;
		r->log_depth = log;
		resp->cqe = depth;
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_cq_sizes(void)
{
	struct qrnic_cq *cq;

	cq = qrnic_cq_alloc(1, NULL);
	CHECK(cq && cq->log_depth == 1 && cq->depth == 2);
	CHECK(cq && cq->buf_size == 4096);
	CHECK(cq && (uint8_t *)cq->rec == (uint8_t *)cq->buf + 2 * 32);
	qrnic_cq_free(cq);

	cq = qrnic_cq_alloc(3, NULL);
	CHECK(cq && cq->depth == 4);
	qrnic_cq_free(cq);

	cq = qrnic_cq_alloc(128, NULL);
	CHECK(cq && cq->depth == 128 && cq->buf_size == 8192);
	qrnic_cq_free(cq);

	cq = qrnic_cq_alloc(1u << QRNIC_CQ_MAX_LOG, NULL);
	CHECK(cq && cq->log_depth == QRNIC_CQ_MAX_LOG);
	qrnic_cq_free(cq);

	errno = 0;
	CHECK(!qrnic_cq_alloc((1u << QRNIC_CQ_MAX_LOG) + 1, NULL) &&
	      errno == EINVAL);
	errno = 0;
	CHECK(!qrnic_cq_alloc(0, NULL) && errno == EINVAL);
}

static void test_send_path(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 4, 7);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_qp *qp = fake_qp(ctx, 0x1234, cq, cq, 2, 7, 1, 5);
	struct ibv_qp *ibqp = &qp->vqp.qp;
	char payload[] = "hello, inline world";
	struct ibv_sge sg[3] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x101 },
		{ .addr = 0x2000, .length = 200, .lkey = 0x102 },
		{ .addr = (uintptr_t)payload, .length = sizeof(payload),
		  .lkey = 0 },
	};
	struct ibv_send_wr wr[4], *bad;
	struct qrnic_sq_wqe *w;
	struct qrnic_sge *s;
	struct ibv_wc wc[8];
	uint64_t db;
	int i;

	CHECK(qp->sq.depth == 4 && qp->sq.max_sge == 4);
	CHECK(qp->max_inline == 64);

	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 0xaaa;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].sg_list = sg;
	wr[0].num_sge = 2;
	wr[0].send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr[0].next = &wr[1];

	wr[1].wr_id = 0xbbb;
	wr[1].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr[1].sg_list = &sg[2];
	wr[1].num_sge = 1;
	wr[1].send_flags = IBV_SEND_INLINE;
	wr[1].imm_data = htobe32(0xdeadbeef);
	wr[1].wr.rdma.remote_addr = 0x123456789abcull;
	wr[1].wr.rdma.rkey = 0x4321;
	wr[1].next = &wr[2];

	wr[2].wr_id = 0xccc;
	wr[2].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr[2].sg_list = sg;
	wr[2].num_sge = 1;
	wr[2].send_flags = IBV_SEND_FENCE;
	wr[2].wr.atomic.remote_addr = 0x8000;
	wr[2].wr.atomic.rkey = 0x77;
	wr[2].wr.atomic.compare_add = 1;
	wr[2].wr.atomic.swap = 2;

	/* Not in RTS yet. */
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL && bad == wr);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == 0);
	atomic_store(&qp->state, IBV_QPS_RTR);
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL);
	atomic_store(&qp->state, IBV_QPS_RTS);

	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == 0 && !bad);
	db = db_read(ctx, QRNIC_DB_SQ);
	CHECK(db == (0x1234ull | 3ull << 32));
	CHECK(qp->sq.pi == 3);

	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 0xaaa && w->opcode == QRNIC_WR_SEND);
	CHECK(w->flags == (QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_SOLICITED));
	CHECK(w->num_sge == 2 && w->inline_len == 0 && w->rsvd3 == 0);
	s = (struct qrnic_sge *)(w + 1);
	CHECK(le64toh(s[0].addr) == 0x1000 && le32toh(s[0].length) == 100 &&
	      le32toh(s[0].lkey) == 0x101);
	CHECK(le64toh(s[1].addr) == 0x2000 && le32toh(s[1].lkey) == 0x102);
	/* Whole 64-byte chunks: the pad after the SGEs is zeroed. */
	CHECK(((uint8_t *)w)[64 + 32] == 0 && ((uint8_t *)w)[127] == 0);

	w = sq_wqe(qp, 1);
	CHECK(w->opcode == QRNIC_WR_RDMA_WRITE_IMM &&
	      w->flags == QRNIC_WQE_F_INLINE && w->num_sge == 0);
	CHECK(le32toh(w->inline_len) == sizeof(payload));
	CHECK(!memcmp(w + 1, payload, sizeof(payload)));
	CHECK(w->imm_data == (__force uint32_t)htobe32(0xdeadbeef));
	CHECK(le64toh(w->remote_addr) == 0x123456789abcull &&
	      le32toh(w->rkey) == 0x4321);

	w = sq_wqe(qp, 2);
	CHECK(w->opcode == QRNIC_WR_ATOMIC_CMP_AND_SWP &&
	      w->flags == QRNIC_WQE_F_FENCE && w->num_sge == 1);
	CHECK(le64toh(w->compare_add) == 1 && le64toh(w->swap) == 2 &&
	      le64toh(w->remote_addr) == 0x8000 && le32toh(w->rkey) == 0x77);

	/* One slot left: the second WR finds the queue full. */
	wr[0].next = &wr[1];
	wr[1].next = NULL;
	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == ENOMEM && bad == &wr[1]);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x1234ull | 4ull << 32));

	/* Bad requests. */
	wr[0].next = NULL;
	wr[0].opcode = IBV_WR_TSO;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == ENOMEM);	/* still full */

	/* The device completes WQE 2 (signaled): slots 0..2 free. */
	dev_write_cqe(&dev, 0xccc, 0x1234, 2, QRNIC_CQE_OP_COMP_SWAP, 0,
		      QRNIC_CQE_F_SEND, 8, 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 1);
	CHECK(wc[0].wr_id == 0xccc && wc[0].status == IBV_WC_SUCCESS &&
	      wc[0].opcode == IBV_WC_COMP_SWAP && wc[0].byte_len == 8 &&
	      wc[0].qp_num == 0x1234 && wc[0].wc_flags == 0);
	CHECK(atomic_load(&qp->sq.tail) == 3);
	CHECK(le32toh(cq->rec->ci) == 1);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 0);

	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL && bad == wr);
	wr[0].opcode = IBV_WR_SEND;
	wr[0].num_sge = 5;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL);
	wr[0].num_sge = 1;
	wr[0].send_flags = IBV_SEND_INLINE;
	sg[0].length = 65;
	sg[0].addr = (uintptr_t)calloc(1, 65);
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL);
	sg[0].length = 64;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == 0);
	free((void *)(uintptr_t)sg[0].addr);
	CHECK(qp->sq.pi == 5);
	w = sq_wqe(qp, 4);
	CHECK(le32toh(w->inline_len) == 64 && w->flags == QRNIC_WQE_F_INLINE);

	/* Many rounds through SQ and CQ: indices and phases wrap. */
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].sg_list = &sg[1];
	for (i = 0; i < 200; i++) {
		uint32_t idx = qp->sq.pi;

		dev_write_cqe(&dev, 1000 + idx - 1, 0x1234, idx - 1,
			      QRNIC_CQE_OP_SEND, 0, QRNIC_CQE_F_SEND, 200, 0);
		CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 1);
		CHECK(wc[0].wr_id == 1000 + idx - 1);
		wr[0].wr_id = 1000 + idx;
		CHECK(qrnic_post_send(ibqp, wr, &bad) == 0);
		CHECK(le64toh(sq_wqe(qp, idx)->wr_id) == 1000 + idx);
		CHECK(db_read(ctx, QRNIC_DB_SQ) ==
		      (0x1234ull | (uint64_t)((idx + 1) & 0xffff) << 32));
	}
	CHECK(cq->ci == 201 && le32toh(cq->rec->ci) == 201);

	/* Arming carries the consumer index. */
	CHECK(qrnic_req_notify_cq(&cq->vcq.cq, 0) == 0);
	CHECK(db_read(ctx, QRNIC_DB_CQ) ==
	      (7ull | QRNIC_DB_ARM | 201ull << 32));
	CHECK(qrnic_req_notify_cq(&cq->vcq.cq, 1) == 0);
	CHECK(db_read(ctx, QRNIC_DB_CQ) ==
	      (7ull | QRNIC_DB_ARM | QRNIC_DB_ARM_SOLICITED | 201ull << 32));

	/* Reset: queues restart at 0, queued completions are dropped. */
	dev_write_cqe(&dev, 5, 0x1234, (uint16_t)(qp->sq.pi - 1),
		      QRNIC_CQE_OP_SEND, 0, QRNIC_CQE_F_SEND, 0, 0);
	qrnic_qp_reset_queues(qp);
	CHECK(qp->sq.pi == 0 && atomic_load(&qp->sq.tail) == 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 0);
	CHECK(atomic_load(&qp->state) == IBV_QPS_RESET);
}

static void test_recv_path(struct qrnic_context *ctx, uint32_t log_stride)
{
	struct qrnic_cq *scq = fake_cq(ctx, 2, 8);
	struct qrnic_cq *rcq = fake_cq(ctx, 8, 9);
	struct fake_cq dev = { .cq = rcq };
	uint32_t qpn = 0x40 + log_stride;
	struct qrnic_qp *qp = fake_qp(ctx, qpn, scq, rcq, 0, 6, 2,
				      log_stride);
	struct ibv_qp *ibqp = &qp->vqp.qp;
	uint32_t max_sge = ((1u << log_stride) - 16) / 16;
	struct ibv_sge sg[16];
	struct ibv_recv_wr wr[5], *bad;
	struct qrnic_rq_wqe *w;
	struct qrnic_sge *s;
	struct ibv_wc wc[4];
	int i;

	CHECK(qp->rq.max_sge == max_sge);
	for (i = 0; i < 16; i++) {
		sg[i].addr = 0x10000 * (i + 1);
		sg[i].length = 10 + i;
		sg[i].lkey = 0x500 + i;
	}
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 5; i++) {
		wr[i].wr_id = 0x900 + i;
		wr[i].sg_list = sg;
		wr[i].num_sge = max_sge;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}

	CHECK(qrnic_post_recv(ibqp, wr, &bad) == EINVAL && bad == wr);
	atomic_store(&qp->state, IBV_QPS_INIT);

	wr[1].num_sge = max_sge + 1;
	bad = NULL;
	CHECK(qrnic_post_recv(ibqp, wr, &bad) == EINVAL && bad == &wr[1]);
	CHECK(db_read(ctx, QRNIC_DB_RQ) == ((uint64_t)qpn | 1ull << 32));
	wr[1].num_sge = 0;
	CHECK(qrnic_post_recv(ibqp, &wr[1], &bad) == ENOMEM && bad == &wr[4]);
	CHECK(db_read(ctx, QRNIC_DB_RQ) == ((uint64_t)qpn | 4ull << 32));

	w = qrnic_wq_slot(&qp->rq, 0);
	CHECK(le64toh(w->wr_id) == 0x900 && w->num_sge == max_sge);
	s = (struct qrnic_sge *)(w + 1);
	for (i = 0; i < (int)max_sge; i++)
		CHECK(le64toh(s[i].addr) == sg[i].addr &&
		      le32toh(s[i].length) == sg[i].length &&
		      le32toh(s[i].lkey) == sg[i].lkey);
	w = qrnic_wq_slot(&qp->rq, 1);
	CHECK(le64toh(w->wr_id) == 0x901 && w->num_sge == 0);
	/* Small strides take 8-byte stores: the next slot is untouched. */
	if (log_stride < 6) {
		w = qrnic_wq_slot(&qp->rq, 3);
		CHECK(le64toh(w->wr_id) == 0x903);
	}

	/* Receive completions free RQ slots; immediate data is raw. */
	dev_write_cqe(&dev, 0x900, qpn, 0, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_IMM | QRNIC_CQE_F_SOLICITED, 42,
		      (__force uint32_t)htobe32(0x01020304));
	dev_write_cqe(&dev, 0x901, qpn, 1, QRNIC_CQE_OP_RECV_RDMA_IMM,
		      QRNIC_WC_LOC_LEN_ERR, 0, 0, 0);
	CHECK(qrnic_poll_cq(&rcq->vcq.cq, 4, wc) == 2);
	CHECK(wc[0].wr_id == 0x900 && wc[0].opcode == IBV_WC_RECV &&
	      wc[0].byte_len == 42 && wc[0].wc_flags == IBV_WC_WITH_IMM &&
	      wc[0].imm_data == htobe32(0x01020304) && wc[0].qp_num == qpn &&
	      wc[0].src_qp == 0);
	CHECK(wc[1].status == IBV_WC_LOC_LEN_ERR &&
	      wc[1].vendor_err == QRNIC_VERR_NAK &&
	      wc[1].opcode == IBV_WC_RECV_RDMA_WITH_IMM);
	CHECK(atomic_load(&qp->rq.tail) == 2);
	CHECK(qrnic_post_recv(ibqp, &wr[4], &bad) == 0);
	CHECK(qp->rq.pi == 5);
	/* Slot 0 again, second pass. */
	w = qrnic_wq_slot(&qp->rq, 4);
	CHECK(w == qrnic_wq_slot(&qp->rq, 0) && le64toh(w->wr_id) == 0x904);
}

/* Completions of a destroyed/reset QP leave the ring; others keep order. */
static void test_cq_clean(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 11);
	struct fake_cq dev = { .cq = cq };
	struct ibv_wc wc[16];
	int i, n, round;

	for (round = 0; round < 5; round++) {
		/* Start the batch at various ring positions (wrap). */
		for (i = 0; i < 8; i++)
			dev_write_cqe(&dev, 100 * round + i,
				      (i % 3 == 1) ? 0xa : 0xb, 0,
				      QRNIC_CQE_OP_RECV, 0, 0, i, 0);
		qrnic_cq_clean(cq, 0xa, NULL);
		n = qrnic_poll_cq(&cq->vcq.cq, 16, wc);
		CHECK(n == 5);
		for (i = 0; i < n; i++)
			CHECK(wc[i].qp_num == 0xb);
		CHECK(n == 5 && wc[0].wr_id == 100 * round + 0 &&
		      wc[1].wr_id == 100 * round + 2 &&
		      wc[2].wr_id == 100 * round + 3 &&
		      wc[3].wr_id == 100 * round + 5 &&
		      wc[4].wr_id == 100 * round + 6);
		CHECK(le32toh(cq->rec->ci) == dev.pi);

		/* Partly consumed ring, then clean everything. */
		for (i = 0; i < 3 + round; i++)
			dev_write_cqe(&dev, i, 0xa, 0, QRNIC_CQE_OP_RECV, 0,
				      0, 0, 0);
		CHECK(qrnic_poll_cq(&cq->vcq.cq, 1, wc) == 1);
		qrnic_cq_clean(cq, 0xa, NULL);
		CHECK(qrnic_poll_cq(&cq->vcq.cq, 16, wc) == 0);
		CHECK(cq->ci == dev.pi);
	}
}

static void test_cq_ex(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 4, 12);
	struct fake_cq dev = { .cq = cq };
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = {};

	cqx->start_poll = qrnic_start_poll;
	cqx->next_poll = qrnic_next_poll;
	cqx->end_poll = qrnic_end_poll;

	CHECK(qrnic_start_poll(cqx, &attr) == ENOENT);
	/* ENOENT released the lock: a second start must not deadlock. */
	CHECK(qrnic_start_poll(cqx, &attr) == ENOENT);

	dev_write_cqe(&dev, 77, 0x99, 0, QRNIC_CQE_OP_RDMA_READ, 0,
		      QRNIC_CQE_F_SEND, 4096, 0);
	dev_write_cqe(&dev, 78, 0x99, 1, QRNIC_CQE_OP_RECV, 0, QRNIC_CQE_F_IMM,
		      5, 0x11223344);
	CHECK(qrnic_start_poll(cqx, &attr) == 0);
	CHECK(cqx->wr_id == 77 && cqx->status == IBV_WC_SUCCESS);
	CHECK(qrnic_wc_read_opcode(cqx) == IBV_WC_RDMA_READ &&
	      qrnic_wc_read_byte_len(cqx) == 4096 &&
	      qrnic_wc_read_qp_num(cqx) == 0x99 &&
	      qrnic_wc_read_wc_flags(cqx) == 0 &&
	      qrnic_wc_read_imm_data(cqx) == 0);
	CHECK(qrnic_next_poll(cqx) == 0);
	CHECK(cqx->wr_id == 78 && qrnic_wc_read_wc_flags(cqx) == IBV_WC_WITH_IMM &&
	      (__force uint32_t)qrnic_wc_read_imm_data(cqx) == 0x11223344);
	CHECK(qrnic_next_poll(cqx) == ENOENT);
	qrnic_end_poll(cqx);
	CHECK(le32toh(cq->rec->ci) == 2);

	attr.comp_mask = 1;
	CHECK(qrnic_start_poll(cqx, &attr) == EINVAL);
}

static void test_wr_api(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 16, 13);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_qp *qp = fake_qp(ctx, 0x777, cq, cq, 2, 8, 0, 4);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct ibv_sge sgl[2] = {
		{ .addr = 0xa000, .length = 16, .lkey = 1 },
		{ .addr = 0xb000, .length = 32, .lkey = 2 },
	};
	char data[300];
	struct ibv_data_buf bufs[2] = {
		{ .addr = data, .length = 10 },
		{ .addr = data + 100, .length = 20 },
	};
	struct qrnic_sq_wqe *w;
	struct ibv_wc wc[4];

	memset(data, 'x', sizeof(data));
	data[100] = 'y';
	qrnic_qp_init_wr_ops(qp, QRNIC_SUPPORTED_SEND_OPS);
	qp->vqp.comp_mask |= VERBS_QP_EX;
	CHECK(ibv_qp_to_qp_ex(&qp->vqp.qp) == qpx);
	CHECK(!qpx->wr_set_ud_addr);	/* UD only */

	/* Not ready to send: the batch fails. */
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	ibv_wr_send(qpx);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 0);
	atomic_store(&qp->state, IBV_QPS_RTS);

	ibv_wr_start(qpx);
	qpx->wr_id = 10;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htobe32(5));
	ibv_wr_set_sge_list(qpx, 2, sgl);
	qpx->wr_id = 11;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, 0x55, 0xfeed0000);
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	qpx->wr_id = 12;
	ibv_wr_atomic_fetch_add(qpx, 0x66, 0x8008, 3);
	ibv_wr_set_sge(qpx, 9, 0xc000, 8);
	CHECK(qp->sq.pi == 2);	/* the last one waits for complete */
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(qp->sq.pi == 3);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x777ull | 3ull << 32));

	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 10 && w->opcode == QRNIC_WR_SEND_IMM &&
	      w->flags == QRNIC_WQE_F_SIGNALED && w->num_sge == 2 &&
	      w->imm_data == (__force uint32_t)htobe32(5));
	CHECK(le64toh(((struct qrnic_sge *)(w + 1))[1].addr) == 0xb000);
	w = sq_wqe(qp, 1);
	CHECK(w->opcode == QRNIC_WR_RDMA_WRITE && w->flags == QRNIC_WQE_F_INLINE &&
	      le32toh(w->inline_len) == 30 && le32toh(w->rkey) == 0x55 &&
	      le64toh(w->remote_addr) == 0xfeed0000);
	CHECK(((char *)(w + 1))[9] == 'x' && ((char *)(w + 1))[10] == 'y');
	w = sq_wqe(qp, 2);
	CHECK(w->opcode == QRNIC_WR_ATOMIC_FETCH_AND_ADD &&
	      le64toh(w->compare_add) == 3 && w->num_sge == 1 &&
	      le32toh(((struct qrnic_sge *)(w + 1))[0].length) == 8);

	/* An error drops the whole batch. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, data, qp->max_inline + 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 3);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, qp->sq.max_sge + 1, sgl);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 3);
	ibv_wr_start(qpx);
	ibv_wr_rdma_read(qpx, 1, 2);
	ibv_wr_set_inline_data(qpx, data, 8);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 3);

	/* Full queue: one slot left. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	CHECK(ibv_wr_complete(qpx) == ENOMEM && qp->sq.pi == 3);

	ibv_wr_start(qpx);
	qpx->wr_id = 13;
	ibv_wr_rdma_read(qpx, 1, 2);
	ibv_wr_set_sge(qpx, 1, 2, 3);
	ibv_wr_abort(qpx);
	CHECK(qp->sq.pi == 3);

	dev_write_cqe(&dev, 12, 0x777, 2, QRNIC_CQE_OP_FETCH_ADD, 0,
		      QRNIC_CQE_F_SEND, 8, 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1);
	ibv_wr_start(qpx);
	qpx->wr_id = 14;
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	CHECK(ibv_wr_complete(qpx) == 0 && qp->sq.pi == 7);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x777ull | 7ull << 32));
}

/* ---- UD: address handles, UD WQEs, UD receive completions ---------------- */

static const uint8_t ud_dmac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

/* What qrnic_create_ah does once the kernel answered with dmac. */
static struct ibv_ah *fake_ah(struct qrnic_context *ctx,
			      const struct ibv_ah_attr *attr,
			      const uint8_t *dmac)
{
	struct qrnic_ah *ah = calloc(1, sizeof(*ah));

	if (!ah)
		abort();
	/* Garbage the AV must not keep. */
	memset(&ah->av, 0xee, sizeof(ah->av));
	ah->ibv_ah.context = &ctx->ibv_ctx.context;
	qrnic_ah_set_av(&ah->av, attr, dmac);
	return &ah->ibv_ah;
}

/* ::ffff:10.0.0.<host>, a RoCEv2 IPv4 GID. */
static void ud_attr(struct ibv_ah_attr *attr, uint8_t host, uint8_t sgid,
		    uint32_t flow_label, uint8_t tclass)
{
	memset(attr, 0, sizeof(*attr));
	attr->is_global = 1;
	attr->port_num = 1;
	attr->grh.dgid.raw[10] = 0xff;
	attr->grh.dgid.raw[11] = 0xff;
	attr->grh.dgid.raw[12] = 10;
	attr->grh.dgid.raw[15] = host;
	attr->grh.sgid_index = sgid;
	attr->grh.hop_limit = 64;
	attr->grh.flow_label = flow_label;
	attr->grh.traffic_class = tclass;
}

static uint32_t le32_at(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/*
 * The WQE's bytes 24..63 are the address vector, read at the offsets
 * qrnic_hw.h gives (not through the provider's struct).
 */
static void check_ud_av(const struct qrnic_sq_wqe *w, uint32_t dest_qpn,
			uint32_t qkey, const struct ibv_ah_attr *attr,
			uint32_t flow_label)
{
	const uint8_t *b = (const uint8_t *)w;

	CHECK(le32_at(b + 24) == dest_qpn);
	CHECK(le32_at(b + 28) == qkey);
	CHECK(!memcmp(b + 32, attr->grh.dgid.raw, 16));
	CHECK(!memcmp(b + 48, ud_dmac, 6));
	CHECK(b[54] == attr->grh.sgid_index);
	CHECK(b[55] == attr->grh.hop_limit);
	CHECK(le32_at(b + 56) == flow_label);
	CHECK(b[60] == attr->grh.traffic_class);
	CHECK(b[61] == 0 && b[62] == 0 && b[63] == 0);
	CHECK(le32_at(b + 20) == 0);	/* rsvd1 */
}

static void test_ud_send(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 30);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_qp *qp = fake_qp(ctx, 0x321, cq, cq, 3, 7, 1, 6);
	struct ibv_qp *ibqp = &qp->vqp.qp;
	char payload[] = "a UD datagram, inline";
	struct ibv_sge sg[2] = {
		{ .addr = 0x3000, .length = 300, .lkey = 0x201 },
		{ .addr = (uintptr_t)payload, .length = sizeof(payload) },
	};
	static const int bad_ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM,
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV,
	};
	struct ibv_ah_attr a1, a2;
	struct ibv_ah *ah1, *ah2;
	struct ibv_send_wr wr[2], *bad;
	struct qrnic_sq_wqe *w;
	struct qrnic_sge *s;
	struct ibv_wc wc[4];
	unsigned int i;

	qp->vqp.qp.qp_type = IBV_QPT_UD;
	atomic_store(&qp->state, IBV_QPS_RTS);
	ud_attr(&a1, 2, 3, 0x12345, 0xa0);
	ah1 = fake_ah(ctx, &a1, ud_dmac);
	/* All 20 flow label bits (the kernel refuses wider labels). */
	ud_attr(&a2, 7, 0, 0xfffff, 0);
	ah2 = fake_ah(ctx, &a2, ud_dmac);

	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 0x5001;
	wr[0].opcode = IBV_WR_SEND_WITH_IMM;
	wr[0].imm_data = htobe32(0xcafe);
	wr[0].sg_list = sg;
	wr[0].num_sge = 1;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].wr.ud.ah = ah1;
	wr[0].wr.ud.remote_qpn = 0xabcdef;
	wr[0].wr.ud.remote_qkey = 0x11111111;
	wr[0].next = &wr[1];

	wr[1].wr_id = 0x5002;
	wr[1].opcode = IBV_WR_SEND;
	wr[1].sg_list = &sg[1];
	wr[1].num_sge = 1;
	wr[1].send_flags = IBV_SEND_INLINE | IBV_SEND_SOLICITED;
	wr[1].wr.ud.ah = ah2;
	/* 24-bit QP numbers; Q_Key bit 31: the QP's own. */
	wr[1].wr.ud.remote_qpn = 0x1000002;
	wr[1].wr.ud.remote_qkey = 0x80000000;

	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == 0 && !bad);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x321ull | 2ull << 32));

	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 0x5001 && w->opcode == QRNIC_WR_SEND_IMM &&
	      w->flags == QRNIC_WQE_F_SIGNALED && w->num_sge == 1 &&
	      w->inline_len == 0);
	CHECK(w->imm_data == (__force uint32_t)htobe32(0xcafe));
	check_ud_av(w, 0xabcdef, 0x11111111, &a1, 0x12345);
	s = (struct qrnic_sge *)(w + 1);
	CHECK(le64toh(s[0].addr) == 0x3000 && le32toh(s[0].length) == 300 &&
	      le32toh(s[0].lkey) == 0x201);

	w = sq_wqe(qp, 1);
	CHECK(le64toh(w->wr_id) == 0x5002 && w->opcode == QRNIC_WR_SEND &&
	      w->flags == (QRNIC_WQE_F_INLINE | QRNIC_WQE_F_SOLICITED) &&
	      w->num_sge == 0 && w->imm_data == 0);
	CHECK(le32toh(w->inline_len) == sizeof(payload));
	CHECK(!memcmp(w + 1, payload, sizeof(payload)));
	check_ud_av(w, 2, 0x80000000, &a2, 0xfffff);

	/* Only messages on UD: every other opcode is EINVAL, nothing rung. */
	wr[0].next = NULL;
	CHECK(qp->sq.pi == 2);
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		wr[1].opcode = bad_ops[i];
		wr[1].wr.ud.ah = ah2;
		CHECK(post_refused(ctx, qp, &wr[1]));
	}

	/* A good WR before a bad one still goes. */
	wr[0].next = &wr[1];
	wr[1].opcode = IBV_WR_RDMA_WRITE;
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL && bad == &wr[1]);
	CHECK(qp->sq.pi == 3 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x321ull | 3ull << 32));
	check_ud_av(sq_wqe(qp, 2), 0xabcdef, 0x11111111, &a1, 0x12345);

	/* No address handle. */
	wr[0].next = NULL;
	wr[0].wr.ud.ah = NULL;
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL && bad == wr);
	CHECK(qp->sq.pi == 3);

	/* UD send completions free slots like RC ones. */
	dev_write_cqe(&dev, 0x5001, 0x321, 2, QRNIC_CQE_OP_SEND, 0,
		      QRNIC_CQE_F_SEND, 300, 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].opcode == IBV_WC_SEND && wc[0].src_qp == 0 &&
	      wc[0].wc_flags == 0);
	CHECK(atomic_load(&qp->sq.tail) == 3);
}

static void test_ud_recv(struct qrnic_context *ctx)
{
	struct qrnic_cq *scq = fake_cq(ctx, 2, 31);
	struct qrnic_cq *rcq = fake_cq(ctx, 2, 32);
	struct fake_cq dev = { .cq = rcq };
	struct qrnic_qp *qp = fake_qp(ctx, 0x654, scq, rcq, 0, 6, 2, 5);
	struct ibv_sge sge = { .addr = 0x9000, .length = 40 + 1024,
			       .lkey = 0x33 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_wc wc[4];
	uint32_t src;
	int i;

	qp->vqp.qp.qp_type = IBV_QPT_UD;
	atomic_store(&qp->state, IBV_QPS_RTR);

	wr.wr_id = 0x700;
	CHECK(qrnic_post_recv(&qp->vqp.qp, &wr, &bad) == 0);
	/* 100 bytes over IPv4 with immediate data: the GRH comes first. */
	dev_write_cqe_src(&dev, 0x700, 0x654, 0, QRNIC_CQE_OP_RECV, 0,
			  QRNIC_CQE_F_GRH | QRNIC_CQE_F_IPV4 |
				  QRNIC_CQE_F_IMM,
			  QRNIC_GRH_LEN + 100,
			  (__force uint32_t)htobe32(0x42), 0xfedcba);
	memset(wc, 0xff, sizeof(wc));
	CHECK(qrnic_poll_cq(&rcq->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 0x700 && wc[0].status == IBV_WC_SUCCESS &&
	      wc[0].opcode == IBV_WC_RECV && wc[0].qp_num == 0x654);
	CHECK(wc[0].byte_len == QRNIC_GRH_LEN + 100);
	CHECK(wc[0].src_qp == 0xfedcba);
	CHECK(wc[0].wc_flags == (IBV_WC_GRH | IBV_WC_WITH_IMM));
	CHECK(wc[0].imm_data == htobe32(0x42));
	CHECK(wc[0].pkey_index == 0 && wc[0].slid == 0 && wc[0].sl == 0 &&
	      wc[0].dlid_path_bits == 0);
	CHECK(atomic_load(&qp->rq.tail) == 1);

	/*
	 * A 2-entry CQ wraps every other completion.  The sender's QP number
	 * shares the owner word with the phase bit: all ones, all zeros and
	 * alternating patterns must not change whether an entry is valid,
	 * and a consumed entry (stale, source bits still set) is never
	 * taken for a new one.
	 */
	for (i = 0; i < 64; i++) {
		static const uint32_t srcs[] = { 0xffffff, 0, 0xaaaaaa,
						 0x555555, 1, 0xfffffe };

		src = srcs[i % N_ELEMS(srcs)];
		wr.wr_id = 0x800 + i;
		CHECK(qrnic_post_recv(&qp->vqp.qp, &wr, &bad) == 0);
		CHECK(qrnic_poll_cq(&rcq->vcq.cq, 4, wc) == 0);
		dev_write_cqe_src(&dev, 0x800 + i, 0x654,
				  (uint16_t)(qp->rq.pi - 1), QRNIC_CQE_OP_RECV,
				  0, QRNIC_CQE_F_GRH, QRNIC_GRH_LEN + i, 0,
				  src);
		CHECK(qrnic_poll_cq(&rcq->vcq.cq, 4, wc) == 1);
		CHECK(wc[0].wr_id == 0x800 + i && wc[0].src_qp == src &&
		      wc[0].byte_len == QRNIC_GRH_LEN + i &&
		      wc[0].wc_flags == IBV_WC_GRH);
		CHECK(qrnic_poll_cq(&rcq->vcq.cq, 4, wc) == 0);
	}
	CHECK(atomic_load(&qp->rq.tail) == 65);
}

/* Cleaning another QP's entries moves UD ones with their source QPN. */
static void test_ud_cq_clean(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 4, 33);
	struct fake_cq dev = { .cq = cq };
	struct ibv_wc wc[8];
	int round, n;

	for (round = 0; round < 6; round++) {
		/* Start at every ring position: moves cross the wrap. */
		dev_write_cqe_src(&dev, 1, 0xa, 0, QRNIC_CQE_OP_RECV, 0,
				  QRNIC_CQE_F_GRH, 41, 0, 0xffffff);
		dev_write_cqe_src(&dev, 2, 0xa, 1, QRNIC_CQE_OP_RECV, 0,
				  QRNIC_CQE_F_GRH, 42, 0, 0x123456);
		dev_write_cqe(&dev, 3, 0xb, 0, QRNIC_CQE_OP_SEND, 0,
			      QRNIC_CQE_F_SEND, 0, 0);
		qrnic_cq_clean(cq, 0xb, NULL);
		n = qrnic_poll_cq(&cq->vcq.cq, 8, wc);
		CHECK(n == 2);
		CHECK(n == 2 && wc[0].wr_id == 1 && wc[0].src_qp == 0xffffff &&
		      wc[1].wr_id == 2 && wc[1].src_qp == 0x123456 &&
		      wc[1].wc_flags == IBV_WC_GRH);
		CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 0);
		CHECK(cq->ci == dev.pi);
		/* Shift the start by one more. */
		dev_write_cqe(&dev, 9, 0xb, 0, QRNIC_CQE_OP_SEND, 0,
			      QRNIC_CQE_F_SEND, 0, 0);
		CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 1);
	}
}

/* The extended CQ reports the same through ibv_wc_read_*. */
static void test_ud_cq_ex(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 2, 34);
	struct fake_cq dev = { .cq = cq };
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	int i;

	qrnic_cq_ex_init_ops(cqx);
	for (i = 0; i < 5; i++) {
		dev_write_cqe_src(&dev, 90 + i, 0x654, i, QRNIC_CQE_OP_RECV, 0,
				  QRNIC_CQE_F_GRH | QRNIC_CQE_F_IMM, 140 + i,
				  (__force uint32_t)htobe32(i), 0xabc000 + i);
		dev_write_cqe(&dev, 95 + i, 0x654, i, QRNIC_CQE_OP_RECV, 0, 0,
			      7, 0);
		CHECK(ibv_start_poll(cqx, &attr) == 0);
		CHECK(cqx->wr_id == 90 + i && cqx->status == IBV_WC_SUCCESS);
		CHECK(ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
		      ibv_wc_read_byte_len(cqx) == 140 + i &&
		      ibv_wc_read_qp_num(cqx) == 0x654);
		CHECK(ibv_wc_read_src_qp(cqx) == 0xabc000 + i);
		CHECK(ibv_wc_read_wc_flags(cqx) ==
		      (IBV_WC_GRH | IBV_WC_WITH_IMM));
		CHECK(ibv_wc_read_imm_data(cqx) == htobe32(i));
		CHECK(ibv_wc_read_slid(cqx) == 0 && ibv_wc_read_sl(cqx) == 0 &&
		      ibv_wc_read_dlid_path_bits(cqx) == 0);
		/* An RC-like receive: no GRH, no source. */
		CHECK(ibv_next_poll(cqx) == 0);
		CHECK(cqx->wr_id == 95 + i && ibv_wc_read_src_qp(cqx) == 0 &&
		      ibv_wc_read_wc_flags(cqx) == 0);
		CHECK(ibv_next_poll(cqx) == ENOENT);
		ibv_end_poll(cqx);
	}
}

static void test_ud_wr_api(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 35);
	struct qrnic_qp *qp = fake_qp(ctx, 0x987, cq, cq, 2, 7, 0, 4);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct ibv_sge sgl[2] = {
		{ .addr = 0xa000, .length = 16, .lkey = 1 },
		{ .addr = 0xb000, .length = 32, .lkey = 2 },
	};
	char data[] = "inline over UD";
	struct ibv_ah_attr a1, a2;
	struct ibv_ah *ah1, *ah2;
	struct qrnic_sq_wqe *w;

	qp->vqp.qp.qp_type = IBV_QPT_UD;
	qrnic_qp_init_wr_ops(qp, QRNIC_UD_SEND_OPS);
	qp->vqp.comp_mask |= VERBS_QP_EX;
	atomic_store(&qp->state, IBV_QPS_RTS);
	CHECK(qpx->wr_set_ud_addr && qpx->wr_send && qpx->wr_send_imm);
	/* Present although refused at create: they fail the batch. */
	CHECK(qpx->wr_rdma_write && qpx->wr_rdma_read &&
	      qpx->wr_atomic_fetch_add);

	ud_attr(&a1, 4, 1, 0xbeef, 0x10);
	ah1 = fake_ah(ctx, &a1, ud_dmac);
	ud_attr(&a2, 5, 2, 0, 0);
	ah2 = fake_ah(ctx, &a2, ud_dmac);
	db_clear(ctx);

	ibv_wr_start(qpx);
	qpx->wr_id = 20;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(qpx, htobe32(77));
	ibv_wr_set_ud_addr(qpx, ah1, 0x10203, 0x22);
	ibv_wr_set_sge_list(qpx, 2, sgl);
	qpx->wr_id = 21;
	qpx->wr_flags = 0;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, data, sizeof(data));
	/* The address may come after the data. */
	ibv_wr_set_ud_addr(qpx, ah2, 0x40506, 0x80000000);
	CHECK(ibv_wr_complete(qpx) == 0);
	CHECK(qp->sq.pi == 2 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x987ull | 2ull << 32));

	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 20 && w->opcode == QRNIC_WR_SEND_IMM &&
	      w->flags == QRNIC_WQE_F_SIGNALED && w->num_sge == 2 &&
	      w->imm_data == (__force uint32_t)htobe32(77));
	check_ud_av(w, 0x10203, 0x22, &a1, 0xbeef);
	CHECK(le64toh(((struct qrnic_sge *)(w + 1))[1].addr) == 0xb000);
	w = sq_wqe(qp, 1);
	CHECK(le64toh(w->wr_id) == 21 && w->opcode == QRNIC_WR_SEND &&
	      w->flags == QRNIC_WQE_F_INLINE &&
	      le32toh(w->inline_len) == sizeof(data) &&
	      !memcmp(w + 1, data, sizeof(data)));
	check_ud_av(w, 0x40506, 0x80000000, &a2, 0);

	/* A UD WQE needs its address. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, 0xa000, 8);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, NULL, 1, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);

	/* RDMA and atomics fail the whole batch, the good send with it. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah1, 1, 1);
	ibv_wr_rdma_write(qpx, 1, 0x1000);
	ibv_wr_set_ud_addr(qpx, ah1, 1, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);
	ibv_wr_start(qpx);
	ibv_wr_rdma_write_imm(qpx, 1, 0x1000, 0);
	ibv_wr_set_ud_addr(qpx, ah1, 1, 1);
	ibv_wr_set_inline_data(qpx, data, 4);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);
	ibv_wr_start(qpx);
	ibv_wr_rdma_read(qpx, 1, 0x1000);
	ibv_wr_set_ud_addr(qpx, ah1, 1, 1);
	ibv_wr_set_sge(qpx, 1, 0xa000, 8);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);
	ibv_wr_start(qpx);
	ibv_wr_atomic_cmp_swp(qpx, 1, 0x1000, 1, 2);
	ibv_wr_set_ud_addr(qpx, ah1, 1, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);
	ibv_wr_start(qpx);
	ibv_wr_atomic_fetch_add(qpx, 1, 0x1000, 1);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah1, 1, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 2);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x987ull | 2ull << 32));

	/* The QP still works after the failed batches. */
	ibv_wr_start(qpx);
	qpx->wr_id = 22;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah2, 0x777, 0x1234);
	CHECK(ibv_wr_complete(qpx) == 0 && qp->sq.pi == 3);
	check_ud_av(sq_wqe(qp, 2), 0x777, 0x1234, &a2, 0);
}

/* Create-time checks that answer before any command reaches the kernel. */
static void test_ud_create_checks(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 2, 36);
	struct qrnic_pd qpd = { .ibv_pd.context = &ctx->ibv_ctx.context };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_srq srq = {};
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = &cq->vcq.cq,
		.recv_cq = &cq->vcq.cq,
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
	};
	struct ibv_qp_init_attr a = {
		.send_cq = &cq->vcq.cq,
		.recv_cq = &cq->vcq.cq,
		.qp_type = IBV_QPT_RAW_PACKET,
	};
	struct ibv_ah_attr ah_attr;
	uint64_t bad_ops[] = {
		IBV_QP_EX_WITH_RDMA_WRITE, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		IBV_QP_EX_WITH_RDMA_READ, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_LOCAL_INV,
	};
	unsigned int i;

	/* UD takes SEND and SEND_WITH_IMM only. */
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		ax.send_ops_flags = bad_ops[i];
		errno = 0;
		CHECK(!qrnic_create_qp_ex(&ctx->ibv_ctx.context, &ax) &&
		      errno == EOPNOTSUPP);
	}
	/* With an SRQ as well (checked before the SRQ is looked at). */
	ax.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	ax.srq = &srq;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(&ctx->ibv_ctx.context, &ax) &&
	      errno == EOPNOTSUPP);
	/* No raw packet; XRC_SEND takes no SRQ, XRC_RECV needs its domain. */
	a.qp_type = IBV_QPT_RAW_PACKET;
	errno = 0;
	CHECK(!qrnic_create_qp(pd, &a) && errno == EOPNOTSUPP);
	a.qp_type = IBV_QPT_XRC_SEND;
	a.srq = &srq;
	errno = 0;
	CHECK(!qrnic_create_qp(pd, &a) && errno == EINVAL);
	ax.qp_type = IBV_QPT_XRC_RECV;
	ax.send_ops_flags = 0;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(&ctx->ibv_ctx.context, &ax) &&
	      errno == EINVAL);

	/* RoCE AHs carry a GRH. */
	ud_attr(&ah_attr, 1, 0, 0, 0);
	ah_attr.is_global = 0;
	errno = 0;
	CHECK(!qrnic_create_ah(pd, &ah_attr) && errno == EINVAL);
}

/*
 * IBV_QP_INIT_ATTR_CREATE_FLAGS with create_flags 0 asks for nothing (the
 * pyverbs suite sets the bit at random): the QP goes to the kernel.  Any
 * flag is refused before it: EOPNOTSUPP for the ones libibverbs defines,
 * EINVAL for others.
 */
static void test_create_flags(struct qrnic_context *ctx)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
	};
	static const struct {
		uint32_t flags;
		int err;
	} refused[] = {
		{ IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, EOPNOTSUPP },
		{ IBV_QP_CREATE_SCATTER_FCS, EOPNOTSUPP },
		{ IBV_QP_CREATE_CVLAN_STRIPPING, EOPNOTSUPP },
		{ IBV_QP_CREATE_SOURCE_QPN, EOPNOTSUPP },
		{ IBV_QP_CREATE_PCI_WRITE_END_PADDING, EOPNOTSUPP },
		{ 1u << 0, EINVAL },
		{ 1u << 31, EINVAL },
		{ IBV_QP_CREATE_BLOCK_SELF_MCAST_LB | 1u << 20, EINVAL },
	};
	struct qrnic_cq *cq = fake_cq(ctx, 2, 37);
	struct qrnic_pd qpd = { .ibv_pd.context = &ctx->ibv_ctx.context };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = &cq->vcq.cq,
		.recv_cq = &cq->vcq.cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.pd = pd,
	};
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	unsigned int t, i, calls;

	for (t = 0; t < N_ELEMS(types); t++) {
		ax.qp_type = types[t];

		/* The bit with no flags, alone and with send ops. */
		ax.comp_mask = IBV_QP_INIT_ATTR_PD |
			       IBV_QP_INIT_ATTR_CREATE_FLAGS;
		ax.create_flags = 0;
		ax.send_ops_flags = 0;
		calls = kcreate_qp.calls;
		errno = 0;
		CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
		CHECK(kcreate_qp.calls == calls + 1 &&
		      kcreate_qp.comp_mask == IBV_QP_INIT_ATTR_PD &&
		      kcreate_qp.create_flags == 0);
		/* The caller's attributes keep the bit. */
		CHECK(ax.comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS);

		ax.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ax.send_ops_flags = IBV_QP_EX_WITH_SEND;
		errno = 0;
		CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
		CHECK(kcreate_qp.calls == calls + 2 &&
		      kcreate_qp.comp_mask == (IBV_QP_INIT_ATTR_PD |
					       IBV_QP_INIT_ATTR_SEND_OPS_FLAGS));

		/* Flags: refused, the kernel never asked. */
		for (i = 0; i < N_ELEMS(refused); i++) {
			ax.create_flags = refused[i].flags;
			errno = 0;
			CHECK(!qrnic_create_qp_ex(ibctx, &ax) &&
			      errno == refused[i].err);
		}
		CHECK(kcreate_qp.calls == calls + 2);

		/* Flags without the mask bit are not looked at. */
		ax.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
		ax.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		errno = 0;
		CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
		CHECK(kcreate_qp.calls == calls + 3);
	}

	/* Other mask bits stay refused, with or without the flags bit. */
	ax.qp_type = IBV_QPT_RC;
	ax.create_flags = 0;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |
		       IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	calls = kcreate_qp.calls;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	/* No other QP type gets through because of the bit. */
	ax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ax.qp_type = IBV_QPT_RAW_PACKET;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	CHECK(kcreate_qp.calls == calls);
}

/* ---- CQ resize ------------------------------------------------------------- */

/* The CQ as it was before a refused resize. */
struct cq_snap {
	void *buf;
	size_t buf_size;
	uint32_t log_depth, ci, cqe;
};

static struct cq_snap cq_snap(struct qrnic_cq *cq)
{
	return (struct cq_snap){ cq->buf, cq->buf_size, cq->log_depth, cq->ci,
				 cq->vcq.cq.cqe };
}

static bool cq_unchanged(struct qrnic_cq *cq, const struct cq_snap *s,
			 struct rdev *d)
{
	return cq->buf == s->buf && cq->buf_size == s->buf_size &&
	       cq->log_depth == s->log_depth &&
	       cq->depth == 1u << s->log_depth && cq->ci == s->ci &&
	       cq->vcq.cq.cqe == (int)s->cqe && (void *)cq->ring == cq->buf &&
	       (uint8_t *)cq->rec ==
		       (uint8_t *)cq->buf + (QRNIC_CQE_SIZE << s->log_depth) &&
	       le32toh(cq->rec->ci) == s->ci && d->ring == cq->ring &&
	       d->log == cq->log_depth;
}

/* Is the CQ on the buffer the device writes, with the depth it uses? */
static bool cq_switched(struct qrnic_cq *cq, struct rdev *d, uint32_t log)
{
	return cq->log_depth == log && cq->depth == 1u << log &&
	       cq->vcq.cq.cqe == (int)(1u << log) && d->ring == cq->ring &&
	       d->rec == cq->rec && d->log == log &&
	       (void *)cq->ring == cq->buf && !((uintptr_t)cq->buf % 4096) &&
	       cq->buf_size == align((QRNIC_CQE_SIZE << log) +
					     QRNIC_CQ_REC_SIZE, 4096) &&
	       le32toh(cq->rec->ci) == cq->ci;
}

/* Round trips of n CQEs: the producer and consumer pass the ring often. */
static void rdev_rounds(struct rdev *d, struct qrnic_cq *cq, uint64_t *next,
			unsigned int rounds, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < rounds; i++) {
		CHECK(rdev_fill(d, n) == n);
		rdev_poll(cq, next, n);
	}
}

static void test_cq_resize(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 60);
	struct ibv_cq *ibcq = &cq->vcq.cq;
	uint64_t next = 0;
	struct cq_snap snap;
	unsigned int calls;
	struct rdev d;

	rdev_init(&d, cq);
	memset(&kresize, 0, sizeof(kresize));
	kresize.dev = &d;

	/* Once and a half round the 8-entry ring: ci 13, 5 outstanding. */
	CHECK(rdev_fill(&d, 8) == 8);
	rdev_poll(cq, &next, 8);
	CHECK(rdev_fill(&d, 5) == 5);
	rdev_poll(cq, &next, 5);
	CHECK(rdev_fill(&d, 5) == 5);

	/* Up to 32, the device writing two more before it switches at 20. */
	kresize.during = 2;
	CHECK(qrnic_resize_cq(ibcq, 20) == 0);
	CHECK(cq_switched(cq, &d, 5) && cq->ci == 13 && d.pi == 20);
	/* It goes on at 20 in the new ring, up to full. */
	CHECK(rdev_fill(&d, 40) == 25);
	rdev_poll(cq, &next, 32);
	/* Arming names the consumer index, which carried on. */
	CHECK(qrnic_req_notify_cq(ibcq, 0) == 0);
	CHECK(db_read(ctx, QRNIC_DB_CQ) == (60ull | QRNIC_DB_ARM | 45ull << 32));
	/* Many passes through the new ring: its phases. */
	rdev_rounds(&d, cq, &next, 100, 7);

	/* Down to 4 with 3 outstanding, a fourth written before the switch. */
	CHECK(rdev_fill(&d, 3) == 3);
	kresize.during = 1;
	CHECK(qrnic_resize_cq(ibcq, 3) == 0);
	CHECK(cq_switched(cq, &d, 2) && d.pi - cq->ci == 4);
	CHECK(rdev_fill(&d, 1) == 0);	/* full */
	rdev_poll(cq, &next, 4);
	rdev_rounds(&d, cq, &next, 1000, 3);

	/* Up and down again with CQEs outstanding each time. */
	kresize.during = 0;
	CHECK(rdev_fill(&d, 2) == 2);
	CHECK(qrnic_resize_cq(ibcq, 2048) == 0);
	CHECK(cq_switched(cq, &d, 11));
	rdev_poll(cq, &next, 2);
	rdev_rounds(&d, cq, &next, 3, 1500);
	CHECK(rdev_fill(&d, 2) == 2);
	CHECK(qrnic_resize_cq(ibcq, 1) == 0);	/* at least two entries */
	CHECK(cq_switched(cq, &d, 1));
	rdev_poll(cq, &next, 2);
	rdev_rounds(&d, cq, &next, 500, 1);

	/* Refused by the device: more outstanding than the new depth. */
	CHECK(qrnic_resize_cq(ibcq, 4) == 0);
	CHECK(rdev_fill(&d, 3) == 3);
	kresize.during = 1;
	snap = cq_snap(cq);
	calls = kresize.calls;
	CHECK(qrnic_resize_cq(ibcq, 2) == EINVAL);
	CHECK(kresize.calls == calls + 1 && cq_unchanged(cq, &snap, &d));
	/* The old ring is still the one: polled and written as before. */
	rdev_poll(cq, &next, 4);
	rdev_rounds(&d, cq, &next, 20, 3);

	/* Failed in the kernel before the device: unchanged too. */
	kresize.during = 0;
	kresize.fail = ENOMEM;
	CHECK(rdev_fill(&d, 2) == 2);
	snap = cq_snap(cq);
	CHECK(qrnic_resize_cq(ibcq, 64) == ENOMEM);
	CHECK(cq_unchanged(cq, &snap, &d));
	kresize.fail = 0;
	rdev_poll(cq, &next, 2);
	rdev_rounds(&d, cq, &next, 20, 4);

	/* The depth it has already: nothing to ask the kernel. */
	calls = kresize.calls;
	snap = cq_snap(cq);
	CHECK(qrnic_resize_cq(ibcq, 3) == 0 && qrnic_resize_cq(ibcq, 4) == 0);
	CHECK(kresize.calls == calls && cq_unchanged(cq, &snap, &d));
	/* Out of range: EINVAL, nothing asked. */
	CHECK(qrnic_resize_cq(ibcq, 0) == EINVAL);
	CHECK(qrnic_resize_cq(ibcq, -1) == EINVAL);
	CHECK(qrnic_resize_cq(ibcq, (1 << QRNIC_CQ_MAX_LOG) + 1) == EINVAL);
	CHECK(qrnic_resize_cq(ibcq, INT_MAX) == EINVAL);
	CHECK(kresize.calls == calls && cq_unchanged(cq, &snap, &d));

	/*
	 * The largest ring, then a switch across the 16-bit wrap of the
	 * producer index the kernel returns: ci 65533, pi 65539 (3).
	 */
	CHECK(qrnic_resize_cq(ibcq, 1 << QRNIC_CQ_MAX_LOG) == 0);
	CHECK(cq_switched(cq, &d, QRNIC_CQ_MAX_LOG));
	while (cq->ci < 65533) {
		unsigned int n = 65533 - cq->ci;
		uint32_t ci = cq->ci;

		n = n > 30000 ? 30000 : n;
		CHECK(rdev_fill(&d, n) == n);
		rdev_poll(cq, &next, n);
		if (cq->ci == ci)
			break;		/* failed above */
	}
	CHECK(cq->ci == 65533 && rdev_fill(&d, 4) == 4);
	kresize.during = 2;
	CHECK(qrnic_resize_cq(ibcq, 8) == 0);
	CHECK(cq_switched(cq, &d, 3) && d.pi == 65539 && cq->ci == 65533);
	CHECK(rdev_fill(&d, 2) == 2);
	rdev_poll(cq, &next, 8);
	rdev_rounds(&d, cq, &next, 50, 5);
	CHECK(cq->ci == 65541 + 250);

	/* A single-threaded CQ resizes without its lock. */
	cq->single_threaded = true;
	CHECK(rdev_fill(&d, 5) == 5);
	CHECK(qrnic_resize_cq(ibcq, 100) == 0);
	CHECK(cq_switched(cq, &d, 7));
	rdev_poll(cq, &next, 7);
	rdev_rounds(&d, cq, &next, 10, 100);
	cq->single_threaded = false;

	CHECK(kresize.bad == 0);
	kresize.dev = NULL;
}

/*
 * A device thread producing into the CQ, a poller thread taking every
 * CQE once and in order, and this thread resizing the CQ to random depths
 * meanwhile (too small ones refused).
 */
#define RESIZE_STRESS_CQES 100000
#define RESIZE_STRESS_PACE 500

struct resize_stress {
	struct rdev *d;
	struct qrnic_cq *cq;
	_Atomic(uint64_t) polled;
	_Atomic(uint64_t) resizes;	/* resize calls made so far */
	_Atomic(bool) stop;		/* no progress: give up */
	uint64_t wrong;
};

static void *resize_stress_device(void *arg)
{
	struct resize_stress *st = arg;

	/*
	 * At most RESIZE_STRESS_PACE CQEs per resize call, so the resizes
	 * really happen under load however the threads are scheduled.
	 */
	while (st->d->seq < RESIZE_STRESS_CQES && !atomic_load(&st->stop))
		if (st->d->seq >= (atomic_load(&st->resizes) + 1) *
				  RESIZE_STRESS_PACE ||
		    !rdev_write(st->d))
			sched_yield();
	return NULL;
}

static void *resize_stress_poller(void *arg)
{
	struct resize_stress *st = arg;
	uint64_t next = 0;
	struct ibv_wc wc[8];
	int i, n;

	while (next < RESIZE_STRESS_CQES && !atomic_load(&st->stop)) {
		n = qrnic_poll_cq(&st->cq->vcq.cq, 8, wc);
		for (i = 0; i < n; i++)
			st->wrong += !rdev_wc_ok(&wc[i], next++);
		atomic_store(&st->polled, next);
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void test_cq_resize_stress(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 16, 61);
	unsigned int done = 0, refused = 0, other = 0;
	struct resize_stress st = { .cq = cq };
	time_t stall = time(NULL);
	pthread_t dev, poll;
	uint32_t rnd = 12345;
	uint64_t last = 0;
	struct rdev d;
	int r;

	rdev_init(&d, cq);
	/* The resizes write CQEs too (kresize.during): not past the last. */
	d.max_seq = RESIZE_STRESS_CQES;
	st.d = &d;
	memset(&kresize, 0, sizeof(kresize));
	kresize.dev = &d;
	kresize.during = 1;

	pthread_create(&dev, NULL, resize_stress_device, &st);
	pthread_create(&poll, NULL, resize_stress_poller, &st);
	while (atomic_load(&st.polled) < RESIZE_STRESS_CQES) {
		uint64_t polled = atomic_load(&st.polled);

		if (polled != last) {
			last = polled;
			stall = time(NULL);
		} else if (time(NULL) - stall > 20) {
			atomic_store(&st.stop, true);
			break;
		}
		rnd = rnd * 1103515245u + 12345u;
		r = qrnic_resize_cq(&cq->vcq.cq, 1 + (rnd >> 16) % 300);
		if (r == 0)
			done++;
		else if (r == EINVAL)
			refused++;
		else
			other++;
		atomic_fetch_add(&st.resizes, 1);
		sched_yield();
	}
	pthread_join(dev, NULL);
	pthread_join(poll, NULL);

	CHECK(!atomic_load(&st.stop));
	CHECK(st.wrong == 0);
	CHECK(d.seq == RESIZE_STRESS_CQES);
	if (other || done <= 10 || kresize.bad)
		printf("dp_test: resize stress: %u done, %u other, %u bad\n",
		       done, other, kresize.bad);
	CHECK(other == 0 && done > 10 && kresize.bad == 0);
	CHECK(d.ring == cq->ring && d.log == cq->log_depth);
	printf("dp_test: CQ resize under load: %u resizes, %u refused\n", done,
	       refused);
	kresize.dev = NULL;
}

/* Joining and leaving a multicast group go to the kernel as they are. */
static void test_mcast(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 2, 38);
	struct qrnic_qp *qp = fake_qp(ctx, 0x3d0, cq, cq, 1, 6, 1, 4);
	union ibv_gid gid = { .raw = { 0xff, 0x0e, [10] = 0xff, [11] = 0xff,
				       [12] = 239, [13] = 1, [14] = 2,
				       [15] = 3 } };

	qp->vqp.qp.qp_type = IBV_QPT_UD;
	memset(&kmcast, 0, sizeof(kmcast));
	CHECK(qrnic_attach_mcast(&qp->vqp.qp, &gid, 0) == 0);
	CHECK(kmcast.attach == 1 && kmcast.detach == 0 &&
	      kmcast.qp == &qp->vqp.qp && kmcast.lid == 0 &&
	      !memcmp(&kmcast.gid, &gid, sizeof(gid)));
	gid.raw[15] = 4;
	CHECK(qrnic_detach_mcast(&qp->vqp.qp, &gid, 0xc001) == 0);
	CHECK(kmcast.attach == 1 && kmcast.detach == 1 &&
	      kmcast.qp == &qp->vqp.qp && kmcast.lid == 0xc001 &&
	      !memcmp(&kmcast.gid, &gid, sizeof(gid)));
	/* The kernel's refusals come back unchanged. */
	kmcast.ret = EINVAL;
	CHECK(qrnic_attach_mcast(&qp->vqp.qp, &gid, 0) == EINVAL);
	kmcast.ret = ENOMEM;
	CHECK(qrnic_detach_mcast(&qp->vqp.qp, &gid, 0) == ENOMEM);
	CHECK(kmcast.attach == 2 && kmcast.detach == 2);
}

/* ---- shared receive queues ----------------------------------------------- */

/* A file standing in for the uverbs fd: the provider mmaps "queue memory". */
static int fake_cmd_fd(size_t len)
{
	FILE *f = tmpfile();
	int fd;

	if (!f)
		abort();
	fd = dup(fileno(f));
	fclose(f);
	if (fd < 0 || ftruncate(fd, len))
		abort();
	return fd;
}

/*
 * An SRQ set up by the provider's own code from a kernel answer, its ring
 * in a file mapping like the real write-combining one.
 */
static struct qrnic_srq *fake_srq(struct qrnic_context *ctx, uint32_t srqn,
				  uint32_t log_depth, uint32_t log_stride,
				  uint32_t max_sge)
{
	struct qrnic_uresp_create_srq resp = {};
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_srq *srq = calloc(1, sizeof(*srq));

	if (!srq)
		abort();
	resp.srqn = srqn;
	resp.log_depth = log_depth;
	resp.log_stride = log_stride;
	resp.max_sge = max_sge;
	resp.qmem_len = align(1u << (log_depth + log_stride), 4096);
	ibctx->cmd_fd = fake_cmd_fd(resp.qmem_len);
	CHECK(qrnic_srq_setup(ibctx, srq, &resp) == 0);
	close(ibctx->cmd_fd);
	ibctx->cmd_fd = -1;
	memset(srq->qmem, 0xa5, srq->qmem_len);
	srq->ibv_srq.context = ibctx;
	return srq;
}

/* A QP of type on srq, set up by qrnic_qp_setup from a kernel answer. */
static struct qrnic_qp *fake_srq_qp(struct qrnic_context *ctx, uint32_t qpn,
				    struct qrnic_cq *scq, struct qrnic_cq *rcq,
				    struct qrnic_srq *srq, enum ibv_qp_type type)
{
	struct qrnic_create_qp_resp resp = {};
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_qp *qp;
	void *mem;

	if (posix_memalign(&mem, 64, sizeof(*qp)))
		abort();
	qp = mem;
	memset(qp, 0, sizeof(*qp));
	qp->srq = srq;
	qp->vqp.qp.qp_num = qpn;

	/* What the kernel answers for a QP with an SRQ: no RQ. */
	resp.qpn = qpn;
	resp.log_sq_depth = 2;
	resp.log_sq_stride = 7;
	resp.qmem_len = 4096;
	resp.max_send_sge = 4;
	resp.max_inline = 64;
	ibctx->cmd_fd = fake_cmd_fd(resp.qmem_len);
	CHECK(qrnic_qp_setup(ibctx, qp, &resp) == 0);
	close(ibctx->cmd_fd);
	ibctx->cmd_fd = -1;

	qp->vqp.qp.context = ibctx;
	qp->vqp.qp.send_cq = &scq->vcq.cq;
	qp->vqp.qp.recv_cq = &rcq->vcq.cq;
	qp->vqp.qp.srq = &srq->ibv_srq;
	qp->vqp.qp.qp_type = type;
	atomic_init(&qp->state, IBV_QPS_RESET);
	CHECK(!qrnic_qp_table_insert(ctx, qp));
	return qp;
}

static struct qrnic_rq_wqe *srq_wqe(struct qrnic_srq *srq, uint32_t idx)
{
	return qrnic_wq_slot(&srq->wq, idx);
}

/* The kernel's SRQ and SRQ-QP layouts, checked and mapped. */
static void test_srq_setup(struct qrnic_context *ctx)
{
	struct qrnic_uresp_create_srq good = {
		.qmem_len = 4096, .srqn = 3, .log_depth = 3,
		.log_stride = 6, .max_sge = 16,
	};
	struct qrnic_uresp_create_srq r;
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_create_qp_resp qr = {};
	struct qrnic_cq *cq = fake_cq(ctx, 2, 40);
	struct qrnic_srq *srq;
	struct qrnic_qp *qp;
	struct ibv_qp_cap cap;

	CHECK(qrnic_srq_layout_ok(&good));
	r = good;
	r.log_depth = QRNIC_QP_MAX_LOG + 1;
	r.qmem_len = 1u << 24;
	CHECK(!qrnic_srq_layout_ok(&r));
	r = good;
	r.log_stride = QRNIC_RQ_MIN_LOG_STRIDE - 1;
	CHECK(!qrnic_srq_layout_ok(&r));
	r.log_stride = QRNIC_RQ_MAX_LOG_STRIDE + 1;
	CHECK(!qrnic_srq_layout_ok(&r));
	r = good;
	r.qmem_len = 511;		/* 8 x 64 bytes do not fit */
	CHECK(!qrnic_srq_layout_ok(&r));
	r.qmem_len = 512;
	CHECK(qrnic_srq_layout_ok(&r));
	r = good;
	r.srqn = 0;
	CHECK(!qrnic_srq_layout_ok(&r));
	r.srqn = QRNIC_DB_QN_MASK + 1;
	CHECK(!qrnic_srq_layout_ok(&r));

	/* max_sge: the kernel's, at most what a stride holds. */
	srq = fake_srq(ctx, 3, 3, 6, 16);
	CHECK(srq->srqn == 3 && srq->wq.depth == 8 && srq->wq.max_sge == 3);
	CHECK(srq->wq.buf == srq->qmem && srq->done && !srq->done[0]);
	qrnic_srq_teardown(srq);
	free(srq);
	srq = fake_srq(ctx, 4, 0, 8, 2);
	CHECK(srq->wq.depth == 1 && srq->wq.max_sge == 2);

	/* A QP on it has no RQ: depth 0, no receive caps. */
	qp = fake_srq_qp(ctx, 0xc01, cq, cq, srq, IBV_QPT_RC);
	CHECK(qp->srq == srq && qp->rq.depth == 0 && qp->rq.max_sge == 0 &&
	      !qp->rq.buf);
	CHECK(qp->sq.depth == 4 && qp->sq.max_sge == 4 &&
	      qp->max_inline == 64);
	qrnic_qp_caps(qp, &cap);
	CHECK(cap.max_recv_wr == 0 && cap.max_recv_sge == 0 &&
	      cap.max_send_wr == 4);

	/* The same answer is no layout for a QP with an RQ of its own. */
	qr.qpn = 0xc02;
	qr.log_sq_depth = 2;
	qr.log_sq_stride = 7;
	qr.qmem_len = 4096;
	CHECK(!qrnic_rq_layout_ok(&qr, false) && qrnic_rq_layout_ok(&qr, true));
	qp = calloc(1, sizeof(*qp));
	qp->vqp.qp.qp_num = 0xc02;
	CHECK(qrnic_qp_setup(ibctx, qp, &qr) == EINVAL && !qp->qmem);
	free(qp);
}

static void test_srq_post(struct qrnic_context *ctx, uint32_t log_stride)
{
	uint32_t srqn = 0x150 + log_stride;
	struct qrnic_srq *srq = fake_srq(ctx, srqn, 2, log_stride, 16);
	struct ibv_srq *ibsrq = &srq->ibv_srq;
	uint32_t max_sge = ((1u << log_stride) - 16) / 16;
	struct ibv_recv_wr wr[6], *bad;
	struct ibv_sge sg[16];
	struct qrnic_rq_wqe *w;
	struct qrnic_sge *s;
	int i;

	CHECK(srq->wq.max_sge == max_sge);
	for (i = 0; i < 16; i++) {
		sg[i].addr = 0x20000 * (i + 1);
		sg[i].length = 100 + i;
		sg[i].lkey = 0x700 + i;
	}
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 6; i++) {
		wr[i].wr_id = 0xe00 + i;
		wr[i].sg_list = sg;
		wr[i].num_sge = i ? 0 : max_sge;
		wr[i].next = i < 5 ? &wr[i + 1] : NULL;
	}
	db_clear(ctx);

	/* Too many SGEs: what came before still goes. */
	wr[1].num_sge = max_sge + 1;
	bad = NULL;
	CHECK(qrnic_post_srq_recv(ibsrq, wr, &bad) == EINVAL && bad == &wr[1]);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == ((uint64_t)srqn | 1ull << 32));
	CHECK(db_read(ctx, QRNIC_DB_RQ) == 0);
	wr[1].num_sge = -1;
	CHECK(qrnic_post_srq_recv(ibsrq, &wr[1], &bad) == EINVAL &&
	      bad == &wr[1] && srq->wq.pi == 1);

	/* Three more fit, the fifth WR finds the ring full. */
	wr[1].num_sge = max_sge ? 1 : 0;
	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_srq_recv(ibsrq, &wr[1], &bad) == ENOMEM &&
	      bad == &wr[4]);
	CHECK(srq->wq.pi == 4);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == ((uint64_t)srqn | 4ull << 32));
	db_clear(ctx);
	CHECK(qrnic_post_srq_recv(ibsrq, &wr[5], &bad) == ENOMEM &&
	      bad == &wr[5]);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == 0);

	/* The RQ WQE format, slot by slot. */
	w = srq_wqe(srq, 0);
	CHECK(le64toh(w->wr_id) == 0xe00 && w->num_sge == max_sge);
	s = (struct qrnic_sge *)(w + 1);
	for (i = 0; i < (int)max_sge; i++)
		CHECK(le64toh(s[i].addr) == sg[i].addr &&
		      le32toh(s[i].length) == sg[i].length &&
		      le32toh(s[i].lkey) == sg[i].lkey);
	w = srq_wqe(srq, 1);
	CHECK(le64toh(w->wr_id) == 0xe01 && w->num_sge == (max_sge ? 1 : 0));
	s = (struct qrnic_sge *)(w + 1);
	if (max_sge)
		CHECK(le64toh(s[0].addr) == 0x20000 && le32toh(s[0].lkey) == 0x700);
	w = srq_wqe(srq, 3);
	CHECK(le64toh(w->wr_id) == 0xe03);
	/* Small strides take 8-byte stores: bytes past the WQE untouched. */
	if (log_stride == 5)
		CHECK(((uint8_t *)srq_wqe(srq, 2))[16] == 0xa5);
}

/*
 * Receives of two QPs (one CQ each) complete out of order: a slot is
 * reusable only once it and all before it completed.
 */
static void test_srq_order(struct qrnic_context *ctx)
{
	struct qrnic_cq *scq = fake_cq(ctx, 2, 41);
	struct qrnic_cq *rcq_a = fake_cq(ctx, 8, 42);
	struct qrnic_cq *rcq_b = fake_cq(ctx, 8, 43);
	struct fake_cq dev_a = { .cq = rcq_a }, dev_b = { .cq = rcq_b };
	struct qrnic_srq *srq = fake_srq(ctx, 9, 2, 5, 1);
	struct ibv_srq *ibsrq = &srq->ibv_srq;
	struct qrnic_qp *a = fake_srq_qp(ctx, 0xa01, scq, rcq_a, srq,
					 IBV_QPT_RC);
	struct qrnic_qp *b = fake_srq_qp(ctx, 0xb01, scq, rcq_b, srq,
					 IBV_QPT_UC);
	struct ibv_sge sge = { .addr = 0x1000, .length = 64, .lkey = 5 };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	struct ibv_wc wc[4];
	uint32_t i;

	for (i = 0; i < 4; i++) {
		wr.wr_id = 100 + i;
		CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == 0);
	}
	bad = NULL;
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == ENOMEM && bad == &wr);

	/* A took slot 0, B slot 1, A slot 2 (A's message 0 still running). */
	dev_write_cqe(&dev_b, 101, 0xb01, 1, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 64, 0);
	memset(wc, 0, sizeof(wc));
	CHECK(qrnic_poll_cq(&rcq_b->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 101 && wc[0].qp_num == 0xb01 &&
	      wc[0].opcode == IBV_WC_RECV && wc[0].status == IBV_WC_SUCCESS &&
	      wc[0].byte_len == 64 && wc[0].wc_flags == 0 &&
	      wc[0].src_qp == 0);
	CHECK(atomic_load(&srq->wq.tail) == 0);
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == ENOMEM);

	dev_write_cqe(&dev_a, 102, 0xa01, 2, QRNIC_CQE_OP_RECV_RDMA_IMM, 0,
		      QRNIC_CQE_F_SRQ | QRNIC_CQE_F_IMM, 0,
		      (__force uint32_t)htobe32(7));
	CHECK(qrnic_poll_cq(&rcq_a->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 102 && wc[0].qp_num == 0xa01 &&
	      wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	      wc[0].wc_flags == IBV_WC_WITH_IMM &&
	      wc[0].imm_data == htobe32(7));
	CHECK(atomic_load(&srq->wq.tail) == 0);
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == ENOMEM);
	/* The QPs' own RQs are untouched (they have none). */
	CHECK(atomic_load(&a->rq.tail) == 0 && atomic_load(&b->rq.tail) == 0);

	/* The earliest completes: slots 0..2 are free at once. */
	dev_write_cqe(&dev_a, 100, 0xa01, 0, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 10, 0);
	CHECK(qrnic_poll_cq(&rcq_a->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 100 && wc[0].qp_num == 0xa01);
	CHECK(atomic_load(&srq->wq.tail) == 3);
	for (i = 4; i < 7; i++) {
		wr.wr_id = 100 + i;
		CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == 0);
	}
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == ENOMEM);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == (9ull | 7ull << 32));
	CHECK(le64toh(srq_wqe(srq, 4)->wr_id) == 104 &&
	      srq_wqe(srq, 4) == srq_wqe(srq, 0));

	/* A stale or repeated completion changes nothing. */
	dev_write_cqe(&dev_a, 100, 0xa01, 0, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 10, 0);
	dev_write_cqe(&dev_b, 101, 0xb01, 1, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 10, 0);
	CHECK(qrnic_poll_cq(&rcq_a->vcq.cq, 4, wc) == 1);
	CHECK(qrnic_poll_cq(&rcq_b->vcq.cq, 4, wc) == 1);
	CHECK(atomic_load(&srq->wq.tail) == 3);

	/*
	 * B goes to ERR: the slot it holds (3) is flushed with F_SRQ and
	 * frees like a good completion; A's slot 4 is not done yet.
	 */
	dev_write_cqe(&dev_b, 103, 0xb01, 3, QRNIC_CQE_OP_RECV,
		      QRNIC_WC_WR_FLUSH_ERR, QRNIC_CQE_F_SRQ, 0, 0);
	CHECK(qrnic_poll_cq(&rcq_b->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 103 && wc[0].qp_num == 0xb01 &&
	      wc[0].status == IBV_WC_WR_FLUSH_ERR);
	CHECK(atomic_load(&srq->wq.tail) == 4);
	wr.wr_id = 107;
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == 0);
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == ENOMEM);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == (9ull | 8ull << 32));

	/* A's send completions still free its SQ, not the SRQ. */
	atomic_store(&a->state, IBV_QPS_RTS);
	{
		struct ibv_send_wr swr = { .wr_id = 1, .opcode = IBV_WR_SEND };
		struct ibv_send_wr *sbad;
		struct fake_cq dev_s = { .cq = scq };

		CHECK(qrnic_post_send(&a->vqp.qp, &swr, &sbad) == 0);
		dev_write_cqe(&dev_s, 1, 0xa01, 0, QRNIC_CQE_OP_SEND, 0,
			      QRNIC_CQE_F_SEND, 0, 0);
		CHECK(qrnic_poll_cq(&scq->vcq.cq, 4, wc) == 1);
		CHECK(atomic_load(&a->sq.tail) == 1 &&
		      atomic_load(&srq->wq.tail) == 4);
	}
}

/* A small deterministic generator for the orders below. */
static uint32_t lcg(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 16;
}

/*
 * Many laps through a ring (past the 16-bit index wrap), every completion
 * order among the outstanding slots: posting succeeds exactly while the
 * ring holds fewer than depth WQEs not freed in order, and the tail is
 * always the oldest slot not completed.  The model keeps its own tail.
 */
static void test_srq_random_order(struct qrnic_context *ctx,
				  uint32_t log_depth)
{
	struct qrnic_cq *scq = fake_cq(ctx, 2, 44);
	struct qrnic_cq *rcq[2] = { fake_cq(ctx, 64, 45),
				    fake_cq(ctx, 64, 46) };
	struct fake_cq dev[2] = { { .cq = rcq[0] }, { .cq = rcq[1] } };
	struct qrnic_srq *srq = fake_srq(ctx, 11 + log_depth, log_depth, 4, 0);
	uint32_t depth = 1u << log_depth, qpn[2];
	struct ibv_recv_wr wr = {}, *bad;
	uint32_t seed = 1 + log_depth, pi = 0, tail = 0, i, k, n;
	bool *done = calloc(depth, sizeof(*done));
	struct ibv_wc wc[4];
	uint64_t errs = 0;
	int ret;

	qpn[0] = 0xd00 + log_depth;
	qpn[1] = 0xe00 + log_depth;
	fake_srq_qp(ctx, qpn[0], scq, rcq[0], srq, IBV_QPT_RC);
	fake_srq_qp(ctx, qpn[1], scq, rcq[1], srq, IBV_QPT_UD);

	while (pi < 70000 && errs < 10) {
		/* Post a few; the one that does not fit must say ENOMEM. */
		for (n = lcg(&seed) % (depth + 1); n; n--) {
			wr.wr_id = pi;
			ret = qrnic_post_srq_recv(&srq->ibv_srq, &wr, &bad);
			if (pi - tail == depth) {
				errs += ret != ENOMEM;
				break;
			}
			errs += ret != 0;
			pi++;
		}
		if (srq->wq.pi != pi)
			errs++;
		/* The device took them all; complete one, on either CQ. */
		if (tail == pi)
			continue;
		do {
			k = tail + lcg(&seed) % (pi - tail);
		} while (done[k % depth]);
		done[k % depth] = true;
		i = lcg(&seed) & 1;
		dev_write_cqe(&dev[i], k, qpn[i], (uint16_t)k,
			      QRNIC_CQE_OP_RECV, 0, QRNIC_CQE_F_SRQ, 0, 0);
		if (qrnic_poll_cq(&rcq[i]->vcq.cq, 4, wc) != 1 ||
		    wc[0].wr_id != k || wc[0].qp_num != qpn[i])
			errs++;
		for (; tail != pi && done[tail % depth]; tail++)
			done[tail % depth] = false;
		if (atomic_load(&srq->wq.tail) != tail) {
			if (!errs)
				fprintf(stderr, "SRQ tail %u, model %u\n",
					atomic_load(&srq->wq.tail), tail);
			errs++;
		}
	}
	CHECK(errs == 0);
	CHECK(pi >= 70000);
	free(done);
}

/*
 * A QP reset or destroyed with SRQ completions still in its CQ: cleaning
 * them out frees their slots; another QP's completions stay.
 */
static void test_srq_clean(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 47);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_srq *srq = fake_srq(ctx, 20, 2, 4, 0);
	struct qrnic_qp *a = fake_srq_qp(ctx, 0xa20, cq, cq, srq, IBV_QPT_RC);
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_wc wc[8];
	int i;

	for (i = 0; i < 4; i++) {
		wr.wr_id = 200 + i;
		CHECK(qrnic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == 0);
	}
	/* Slot 1 went to another QP (0xb20, its completion not polled yet). */
	dev_write_cqe(&dev, 200, 0xa20, 0, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 1, 0);
	dev_write_cqe(&dev, 201, 0xb20, 1, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 1, 0);
	dev_write_cqe(&dev, 202, 0xa20, 2, QRNIC_CQE_OP_RECV,
		      QRNIC_WC_WR_FLUSH_ERR, QRNIC_CQE_F_SRQ, 0, 0);
	dev_write_cqe(&dev, 9, 0xa20, 0, QRNIC_CQE_OP_SEND,
		      QRNIC_WC_WR_FLUSH_ERR, QRNIC_CQE_F_SEND, 0, 0);
	qrnic_qp_reset_queues(a);
	/* Slots 0 and 2 freed, 1 not yet: the tail stops at 1. */
	CHECK(atomic_load(&srq->wq.tail) == 1);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 1);
	CHECK(wc[0].wr_id == 201 && wc[0].qp_num == 0xb20);
	/* 0xb20 is not in this context's table: nothing to free through it. */
	CHECK(atomic_load(&srq->wq.tail) == 1);
	qrnic_srq_complete(srq, 1);
	CHECK(atomic_load(&srq->wq.tail) == 3);
}

/* A QP on an SRQ takes no receive WRs of its own. */
static void test_srq_qp_post_recv(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 2, 48);
	struct qrnic_srq *srq = fake_srq(ctx, 21, 1, 4, 0);
	struct qrnic_qp *qp = fake_srq_qp(ctx, 0xa21, cq, cq, srq, IBV_QPT_UD);
	struct ibv_recv_wr wr[2] = { { .wr_id = 1, .next = &wr[1] },
				     { .wr_id = 2 } };
	struct ibv_recv_wr *bad;
	int state;

	db_clear(ctx);
	for (state = IBV_QPS_RESET; state <= IBV_QPS_ERR; state++) {
		atomic_store(&qp->state, state);
		bad = NULL;
		CHECK(qrnic_post_recv(&qp->vqp.qp, wr, &bad) == EINVAL &&
		      bad == wr);
	}
	CHECK(qp->rq.pi == 0 && srq->wq.pi == 0);
	CHECK(db_read(ctx, QRNIC_DB_RQ) == 0 && db_read(ctx, QRNIC_DB_SRQ) == 0);
	/* The SRQ itself takes them. */
	CHECK(qrnic_post_srq_recv(&srq->ibv_srq, wr, &bad) == 0 &&
	      srq->wq.pi == 2);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == (21ull | 2ull << 32));
}

/* Create-time checks of SRQs that answer before the kernel. */
static void test_srq_create_checks(struct qrnic_context *ctx)
{
	struct qrnic_pd qpd = { .ibv_pd.context = &ctx->ibv_ctx.context };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_srq_init_attr_ex ax = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		.pd = pd,
	};
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;

	/* XRC needs its domain and CQ (test_xrc_srq_create has more). */
	ax.srq_type = IBV_SRQT_XRC;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &ax) && errno == EINVAL);
	ax.srq_type = IBV_SRQT_TM;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	ax.srq_type = IBV_SRQT_BASIC;
	ax.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	ax.comp_mask = IBV_SRQ_INIT_ATTR_TYPE;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &ax) && errno == EINVAL);
}

/* ---- UC ------------------------------------------------------------------- */

static void test_uc_send(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 50);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_qp *qp = fake_qp(ctx, 0x3c3, cq, cq, 3, 7, 1, 5);
	struct ibv_qp *ibqp = &qp->vqp.qp;
	char payload[] = "inline over UC";
	struct ibv_sge sg[2] = {
		{ .addr = 0x4000, .length = 4000, .lkey = 0x301 },
		{ .addr = (uintptr_t)payload, .length = sizeof(payload) },
	};
	static const int good_ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	static const int bad_ops[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_LOCAL_INV,
		IBV_WR_SEND_WITH_INV, IBV_WR_TSO,
	};
	struct ibv_send_wr wr[5], *bad;
	struct qrnic_sq_wqe *w;
	struct ibv_wc wc[4];
	unsigned int i;

	qp->vqp.qp.qp_type = IBV_QPT_UC;
	atomic_store(&qp->state, IBV_QPS_RTS);
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 4; i++) {
		wr[i].wr_id = 0x600 + i;
		wr[i].opcode = good_ops[i];
		wr[i].sg_list = &sg[i == 3];
		wr[i].num_sge = 1;
		wr[i].send_flags = i == 3 ? IBV_SEND_INLINE | IBV_SEND_SIGNALED :
				   IBV_SEND_SIGNALED;
		wr[i].imm_data = htobe32(0x100 + i);
		wr[i].wr.rdma.remote_addr = 0x7000000 + i;
		wr[i].wr.rdma.rkey = 0x88 + i;
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == 0 && !bad);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x3c3ull | 4ull << 32));
	for (i = 0; i < 4; i++) {
		w = sq_wqe(qp, i);
		CHECK(le64toh(w->wr_id) == 0x600 + i && w->opcode == good_ops[i]);
	}
	w = sq_wqe(qp, 1);
	CHECK(w->imm_data == (__force uint32_t)htobe32(0x101) &&
	      w->num_sge == 1 && !w->rkey && !w->remote_addr);
	w = sq_wqe(qp, 2);
	CHECK(le64toh(w->remote_addr) == 0x7000002 && le32toh(w->rkey) == 0x8a &&
	      w->imm_data == 0);
	w = sq_wqe(qp, 3);
	CHECK(le64toh(w->remote_addr) == 0x7000003 &&
	      w->imm_data == (__force uint32_t)htobe32(0x103) &&
	      w->flags == (QRNIC_WQE_F_INLINE | QRNIC_WQE_F_SIGNALED) &&
	      le32toh(w->inline_len) == sizeof(payload) &&
	      !memcmp(w + 1, payload, sizeof(payload)));

	/* No READ, no atomics, no invalidation: EINVAL, nothing rung. */
	wr[4] = wr[2];
	wr[4].next = NULL;
	CHECK(qp->sq.pi == 4);
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		wr[4].opcode = bad_ops[i];
		wr[4].wr.atomic.remote_addr = 0x8000;
		CHECK(post_refused(ctx, qp, &wr[4]));
	}
	/* A good WR before a bad one still goes. */
	wr[0].next = &wr[4];
	wr[4].opcode = IBV_WR_RDMA_READ;
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == EINVAL && bad == &wr[4]);
	CHECK(qp->sq.pi == 5 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x3c3ull | 5ull << 32));

	/* UC completions are RC's: send ones free the SQ. */
	dev_write_cqe(&dev, 0x603, 0x3c3, 3, QRNIC_CQE_OP_RDMA_WRITE, 0,
		      QRNIC_CQE_F_SEND, sizeof(payload), 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 0x603 && wc[0].opcode == IBV_WC_RDMA_WRITE &&
	      wc[0].qp_num == 0x3c3);
	CHECK(atomic_load(&qp->sq.tail) == 4);
}

static void test_uc_wr_api(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 51);
	struct qrnic_cq *cq2 = fake_cq(ctx, 2, 52);
	struct qrnic_qp *qp = fake_qp(ctx, 0x3c4, cq, cq, 3, 7, 0, 4);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct qrnic_pd qpd = { .ibv_pd.context = &ctx->ibv_ctx.context };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = &cq2->vcq.cq,
		.recv_cq = &cq2->vcq.cq,
		.qp_type = IBV_QPT_UC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
	};
	uint64_t bad_ops[] = {
		IBV_QP_EX_WITH_RDMA_READ, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		QRNIC_UC_SEND_OPS | IBV_QP_EX_WITH_LOCAL_INV,
		QRNIC_UC_SEND_OPS | IBV_QP_EX_WITH_RDMA_READ,
	};
	char data[] = "uc inline";
	struct qrnic_sq_wqe *w;
	unsigned int i;

	/* Create takes the UC send ops only. */
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		ax.send_ops_flags = bad_ops[i];
		errno = 0;
		CHECK(!qrnic_create_qp_ex(&ctx->ibv_ctx.context, &ax) &&
		      errno == EOPNOTSUPP);
	}

	qp->vqp.qp.qp_type = IBV_QPT_UC;
	qrnic_qp_init_wr_ops(qp, QRNIC_UC_SEND_OPS);
	qp->vqp.comp_mask |= VERBS_QP_EX;
	atomic_store(&qp->state, IBV_QPS_RTS);
	CHECK(qpx->wr_send && qpx->wr_send_imm && qpx->wr_rdma_write &&
	      qpx->wr_rdma_write_imm && !qpx->wr_set_ud_addr);
	/* Present although refused at create: they fail the batch. */
	CHECK(qpx->wr_rdma_read && qpx->wr_atomic_cmp_swp &&
	      qpx->wr_atomic_fetch_add);
	db_clear(ctx);

	ibv_wr_start(qpx);
	qpx->wr_id = 30;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, 0x99, 0xabc000, htobe32(3));
	ibv_wr_set_sge(qpx, 4, 0x5000, 100);
	qpx->wr_id = 31;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, 0x98, 0xabd000);
	ibv_wr_set_inline_data(qpx, data, sizeof(data));
	qpx->wr_id = 32;
	ibv_wr_send_imm(qpx, htobe32(4));
	qpx->wr_id = 33;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 4, 0x6000, 1);
	CHECK(ibv_wr_complete(qpx) == 0 && qp->sq.pi == 4);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x3c4ull | 4ull << 32));
	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 30 && w->opcode == QRNIC_WR_RDMA_WRITE_IMM &&
	      le32toh(w->rkey) == 0x99 && le64toh(w->remote_addr) == 0xabc000 &&
	      w->imm_data == (__force uint32_t)htobe32(3) && w->num_sge == 1 &&
	      w->flags == QRNIC_WQE_F_SIGNALED);
	w = sq_wqe(qp, 1);
	CHECK(w->opcode == QRNIC_WR_RDMA_WRITE &&
	      w->flags == QRNIC_WQE_F_INLINE &&
	      !memcmp(w + 1, data, sizeof(data)));
	CHECK(sq_wqe(qp, 2)->opcode == QRNIC_WR_SEND_IMM &&
	      sq_wqe(qp, 3)->opcode == QRNIC_WR_SEND);

	/* READ or an atomic fails the whole batch, good WQEs with it. */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_rdma_read(qpx, 1, 0x1000);
	ibv_wr_set_sge(qpx, 1, 0xa000, 8);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 4);
	ibv_wr_start(qpx);
	ibv_wr_atomic_cmp_swp(qpx, 1, 0x1000, 1, 2);
	ibv_wr_set_sge(qpx, 1, 0xa000, 8);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 4);
	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, 1, 0x1000);
	ibv_wr_atomic_fetch_add(qpx, 1, 0x1000, 1);
	CHECK(ibv_wr_complete(qpx) == EINVAL && qp->sq.pi == 4);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x3c4ull | 4ull << 32));
}

/* ---- concurrency: poster, device and poller threads ----------------------- */

#define STRESS_WQES 20000

struct stress {
	struct qrnic_context *ctx;
	struct qrnic_qp *qp;
	struct fake_cq dev;
	volatile int stop;
	uint64_t polled;
	int bad_order;
};

static void *stress_device(void *arg)
{
	struct stress *st = arg;
	struct qrnic_qp *qp = st->qp;
	struct qrnic_cq *cq = st->dev.cq;
	uint16_t ci = 0;

	while (!st->stop) {
		uint64_t db = le64toh(__atomic_load_n(
			(uint64_t *)((uint8_t *)st->ctx->db + QRNIC_DB_SQ),
			__ATOMIC_ACQUIRE));
		uint16_t pi = db >> 32;

		if (ci == pi)
			sched_yield();
		while (ci != pi) {
			struct qrnic_sq_wqe *w = sq_wqe(qp, ci);

			/* A full ring waits here (a real device would drop). */
			while (st->dev.pi - le32toh(__atomic_load_n(
					&cq->rec->ci, __ATOMIC_ACQUIRE)) >=
			       cq->depth)
				if (st->stop)
					return NULL;
			if (w->flags & QRNIC_WQE_F_SIGNALED)
				dev_write_cqe(&st->dev, le64toh(w->wr_id),
					      qp->qpn, ci, QRNIC_CQE_OP_SEND,
					      0, QRNIC_CQE_F_SEND, 0, 0);
			ci++;
		}
	}
	return NULL;
}

static void *stress_poller(void *arg)
{
	struct stress *st = arg;
	struct ibv_cq *ibcq = &st->dev.cq->vcq.cq;
	uint64_t expect = 0;
	struct ibv_wc wc[16];
	int i, n;

	while (st->polled < STRESS_WQES / 4) {
		n = qrnic_poll_cq(ibcq, 16, wc);
		for (i = 0; i < n; i++) {
			/* Every 4th WQE is signaled: wr_ids 3, 7, 11, ... */
			expect += 4;
			if (wc[i].wr_id != expect - 1)
				st->bad_order++;
		}
		st->polled += n;
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void test_stress(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 20);
	struct stress st = { .ctx = ctx, .dev = { .cq = cq } };
	struct ibv_send_wr wr = {};
	struct ibv_send_wr *bad;
	pthread_t dev, poll;
	uint64_t posted = 0, full = 0;
	int ret;

	db_clear(ctx);
	st.qp = fake_qp(ctx, 0x5151, cq, cq, 5, 6, 0, 4);
	atomic_store(&st.qp->state, IBV_QPS_RTS);
	wr.opcode = IBV_WR_SEND;

	pthread_create(&dev, NULL, stress_device, &st);
	pthread_create(&poll, NULL, stress_poller, &st);
	while (posted < STRESS_WQES) {
		wr.wr_id = posted;
		wr.send_flags = (posted % 4 == 3) ? IBV_SEND_SIGNALED : 0;
		ret = qrnic_post_send(&st.qp->vqp.qp, &wr, &bad);
		if (ret == ENOMEM) {
			full++;
			sched_yield();
			continue;
		}
		CHECK(ret == 0);
		posted++;
	}
	pthread_join(poll, NULL);
	st.stop = 1;
	pthread_join(dev, NULL);

	CHECK(st.polled == STRESS_WQES / 4);
	CHECK(st.bad_order == 0);
	CHECK(atomic_load(&st.qp->sq.tail) == STRESS_WQES);
	CHECK(full > 0);
}

/*
 * An SRQ shared by two QPs with a CQ each: this thread posts, a device
 * thread takes WQEs in ring order and completes them in a scrambled order
 * on either CQ, and one poller per CQ frees the slots (done_lock).
 */
#define SRQ_STRESS_WQES 40000

struct srq_stress {
	struct qrnic_context *ctx;
	struct qrnic_srq *srq;
	uint32_t qpn[2];
	struct fake_cq dev[2];
	_Atomic(uint32_t) polled;
	_Atomic(uint32_t) bad;
	_Atomic(uint8_t) *seen;
	volatile int stop;
	time_t deadline;	/* a lost WQE fails the test, not hangs it */
};

static void *srq_stress_device(void *arg)
{
	struct srq_stress *st = arg;
	struct qrnic_srq *srq = st->srq;
	uint32_t depth = srq->wq.depth, nheld = 0, seed = 77, i, k;
	uint64_t held_wr[64];
	uint16_t held_idx[64];
	uint16_t ci = 0;

	while (!st->stop) {
		uint64_t db = le64toh(__atomic_load_n(
			(uint64_t *)((uint8_t *)st->ctx->db + QRNIC_DB_SRQ),
			__ATOMIC_ACQUIRE));
		uint16_t pi = db >> 32;

		/* Take what was posted, in ring order, reading the WQE. */
		while (ci != pi && nheld < depth) {
			struct qrnic_rq_wqe *w = srq_wqe(srq, ci);

			held_wr[nheld] = le64toh(w->wr_id);
			held_idx[nheld++] = ci++;
		}
		if (!nheld) {
			sched_yield();
			continue;
		}
		/* Complete one held WQE, any of them, on either QP. */
		k = lcg(&seed) % nheld;
		i = lcg(&seed) & 1;
		while (st->dev[i].pi - le32toh(__atomic_load_n(
				&st->dev[i].cq->rec->ci, __ATOMIC_ACQUIRE)) >=
		       st->dev[i].cq->depth)
			if (st->stop)
				return NULL;
		dev_write_cqe(&st->dev[i], held_wr[k], st->qpn[i], held_idx[k],
			      QRNIC_CQE_OP_RECV, 0, QRNIC_CQE_F_SRQ, 1, 0);
		held_wr[k] = held_wr[nheld - 1];
		held_idx[k] = held_idx[--nheld];
	}
	return NULL;
}

struct srq_poller {
	struct srq_stress *st;
	int i;
};

static void *srq_stress_poller(void *arg)
{
	struct srq_poller *p = arg;
	struct srq_stress *st = p->st;
	struct ibv_cq *ibcq = &st->dev[p->i].cq->vcq.cq;
	struct ibv_wc wc[8];
	int j, n;

	while (atomic_load(&st->polled) < SRQ_STRESS_WQES &&
	       time(NULL) < st->deadline) {
		n = qrnic_poll_cq(ibcq, 8, wc);
		for (j = 0; j < n; j++) {
			if (wc[j].wr_id >= SRQ_STRESS_WQES ||
			    wc[j].qp_num != st->qpn[p->i] ||
			    atomic_fetch_add(&st->seen[wc[j].wr_id], 1))
				atomic_fetch_add(&st->bad, 1);
		}
		atomic_fetch_add(&st->polled, n);
		if (!n)
			sched_yield();
	}
	return NULL;
}

static void test_srq_stress(struct qrnic_context *ctx)
{
	struct qrnic_cq *scq = fake_cq(ctx, 2, 60);
	struct srq_stress st = {
		.ctx = ctx,
		.qpn = { 0x5a1, 0x5a2 },
		.dev = { { .cq = fake_cq(ctx, 8, 61) },
			 { .cq = fake_cq(ctx, 8, 62) } },
	};
	struct srq_poller p[2] = { { &st, 0 }, { &st, 1 } };
	struct ibv_recv_wr wr = {}, *bad;
	pthread_t dev, poll[2];
	uint32_t posted = 0, full = 0, i;
	int ret;

	db_clear(ctx);
	st.deadline = time(NULL) + 60;
	st.srq = fake_srq(ctx, 30, 4, 4, 0);
	st.seen = calloc(SRQ_STRESS_WQES, sizeof(*st.seen));
	fake_srq_qp(ctx, st.qpn[0], scq, st.dev[0].cq, st.srq, IBV_QPT_RC);
	fake_srq_qp(ctx, st.qpn[1], scq, st.dev[1].cq, st.srq, IBV_QPT_UC);

	pthread_create(&dev, NULL, srq_stress_device, &st);
	for (i = 0; i < 2; i++)
		pthread_create(&poll[i], NULL, srq_stress_poller, &p[i]);
	while (posted < SRQ_STRESS_WQES) {
		wr.wr_id = posted;
		ret = qrnic_post_srq_recv(&st.srq->ibv_srq, &wr, &bad);
		if (ret == ENOMEM) {
			if (time(NULL) >= st.deadline)
				break;
			full++;
			sched_yield();
			continue;
		}
		CHECK(ret == 0);
		posted++;
	}
	for (i = 0; i < 2; i++)
		pthread_join(poll[i], NULL);
	st.stop = 1;
	pthread_join(dev, NULL);

	CHECK(atomic_load(&st.polled) == SRQ_STRESS_WQES);
	CHECK(atomic_load(&st.bad) == 0);
	for (i = 0; i < SRQ_STRESS_WQES; i++)
		if (atomic_load(&st.seen[i]) != 1)
			break;
	CHECK(i == SRQ_STRESS_WQES);
	CHECK(atomic_load(&st.srq->wq.tail) == SRQ_STRESS_WQES &&
	      st.srq->wq.pi == SRQ_STRESS_WQES);
	CHECK(full > 0);
	free(st.seen);
}

/* ---- memory windows, invalidation, FLUSH and ATOMIC WRITE --------------- */

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * A send WQE as qrnic_hw.h lays it out, byte by byte (not through the
 * provider's struct): wr_id at 0, opcode 8, flags 9, num_sge 10, imm_data
 * 12, inline_len 16; everything else 0 until the caller fills it in.
 */
static void wqe_bytes(uint8_t *b, size_t size, uint64_t wr_id, uint8_t opcode,
		      uint8_t flags, uint8_t num_sge, uint32_t inline_len)
{
	memset(b, 0, size);
	put_le64(b, wr_id);
	b[8] = opcode;
	b[9] = flags;
	b[10] = num_sge;
	put_le32(b + 16, inline_len);
}

/* BIND_MW at 24: mw_key, new_key, addr, length, mr_key, access, rsvd. */
static void bind_bytes(uint8_t *b, uint32_t mw_key, uint32_t new_key,
		       uint64_t addr, uint64_t length, uint32_t mr_key,
		       uint32_t access)
{
	put_le32(b + 24, mw_key);
	put_le32(b + 28, new_key);
	put_le64(b + 32, addr);
	put_le64(b + 40, length);
	put_le32(b + 48, mr_key);
	put_le32(b + 52, access);
}

/* SGE i after the header: addr, length, lkey. */
static void sge_bytes(uint8_t *b, unsigned int i, uint64_t addr,
		      uint32_t length, uint32_t lkey)
{
	put_le64(b + 64 + 16 * i, addr);
	put_le32(b + 72 + 16 * i, length);
	put_le32(b + 76 + 16 * i, lkey);
}

/* Are the first len bytes of SQ slot idx exactly b?  Says where not. */
static bool wqe_is(struct qrnic_qp *qp, uint32_t idx, const uint8_t *b,
		   size_t len, int line)
{
	const uint8_t *w = (const uint8_t *)sq_wqe(qp, idx);
	size_t i;

	for (i = 0; i < len; i++) {
		if (w[i] != b[i]) {
			fprintf(stderr,
				"%s:%d: WQE %u byte %zu is %#x, expected %#x\n",
				__FILE__, line, idx, i, w[i], b[i]);
			return false;
		}
	}
	return true;
}

#define CHECK_WQE(qp, idx, b, len) CHECK(wqe_is(qp, idx, b, len, __LINE__))

#define MW_MR_KEY 0x5507
#define MW_REMOTE                                                              \
	(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |                    \
	 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_FLUSH_GLOBAL)

/* ibv_post_send: BIND_MW (type 2), LOCAL_INV, SEND_WITH_INV per QP type. */
static void test_mw_post_send(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 70);
	struct qrnic_qp *qp = fake_qp(ctx, 0x4a1, cq, cq, 3, 7, 0, 4);
	struct qrnic_qp *uc = fake_qp(ctx, 0x4a2, cq, cq, 2, 7, 0, 4);
	struct qrnic_qp *ud = fake_qp(ctx, 0x4a3, cq, cq, 2, 7, 0, 4);
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_pd qpd = { .ibv_pd.context = ibctx };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_mr mr = { .context = ibctx, .pd = pd,
			     .addr = (void *)0x10000, .length = 0x10000,
			     .lkey = MW_MR_KEY, .rkey = MW_MR_KEY };
	struct ibv_mw mw1 = { .context = ibctx, .pd = pd, .rkey = 0x1234ff,
			      .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .context = ibctx, .pd = pd, .rkey = 0x4321aa,
			      .type = IBV_MW_TYPE_2 };
	char payload[] = "send with invalidate, inline";
	struct ibv_sge sg[2] = {
		{ .addr = 0x6000, .length = 600, .lkey = MW_MR_KEY },
		{ .addr = (uintptr_t)payload, .length = sizeof(payload) },
	};
	static const unsigned int bad_access[] = {
		IBV_ACCESS_HUGETLB | IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_FLUSH_PERSISTENT, IBV_ACCESS_REMOTE_WRITE | 1u << 31,
	};
	struct ibv_send_wr wr[4], one, *bad;
	struct ibv_ah_attr ah_attr;
	uint8_t b[128];
	unsigned int i;

	atomic_store(&qp->state, IBV_QPS_RTS);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 0x7001;
	wr[0].opcode = IBV_WR_BIND_MW;
	/* Nothing to inline: the flag changes nothing. */
	wr[0].send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wr[0].bind_mw.mw = &mw2;
	wr[0].bind_mw.rkey = 0x4321ab;
	wr[0].bind_mw.bind_info.mr = &mr;
	wr[0].bind_mw.bind_info.addr = 0x10800;
	wr[0].bind_mw.bind_info.length = 0x1800;
	wr[0].bind_mw.bind_info.mw_access_flags = MW_REMOTE;
	wr[0].next = &wr[1];

	/* LOCAL_INV moves no data: its scatter list is not looked at. */
	wr[1].wr_id = 0x7002;
	wr[1].opcode = IBV_WR_LOCAL_INV;
	wr[1].send_flags = IBV_SEND_FENCE;
	wr[1].invalidate_rkey = 0x11223344;
	wr[1].sg_list = sg;
	wr[1].num_sge = 2;
	wr[1].next = &wr[2];

	wr[2].wr_id = 0x7003;
	wr[2].opcode = IBV_WR_SEND_WITH_INV;
	wr[2].send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	wr[2].invalidate_rkey = 0xa1b2c3d4;
	wr[2].sg_list = sg;
	wr[2].num_sge = 1;
	wr[2].next = &wr[3];

	wr[3].wr_id = 0x7004;
	wr[3].opcode = IBV_WR_SEND_WITH_INV;
	wr[3].send_flags = IBV_SEND_INLINE;
	wr[3].invalidate_rkey = 0x01020304;
	wr[3].sg_list = &sg[1];
	wr[3].num_sge = 1;

	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(&qp->vqp.qp, wr, &bad) == 0 && !bad);
	CHECK(qp->sq.pi == 4 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x4a1ull | 4ull << 32));
	/* Posting binds nothing yet: the window keeps its key. */
	CHECK(mw2.rkey == 0x4321aa);

	wqe_bytes(b, 64, 0x7001, QRNIC_WR_BIND_MW, QRNIC_WQE_F_SIGNALED, 0, 0);
	bind_bytes(b, 0x4321aa, 0x4321ab, 0x10800, 0x1800, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_WRITE |
			   QRNIC_ACCESS_REMOTE_ATOMIC |
			   QRNIC_ACCESS_FLUSH_GLOBAL);
	CHECK_WQE(qp, 0, b, 64);

	/* The key to invalidate: little endian in imm_data. */
	wqe_bytes(b, 64, 0x7002, QRNIC_WR_LOCAL_INV, QRNIC_WQE_F_FENCE, 0, 0);
	put_le32(b + 12, 0x11223344);
	CHECK_WQE(qp, 1, b, 64);

	/* Whole 64-byte chunks: the rest of the second one is zeroed. */
	wqe_bytes(b, 128, 0x7003, QRNIC_WR_SEND_WITH_INV,
		  QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_SOLICITED, 1, 0);
	put_le32(b + 12, 0xa1b2c3d4);
	sge_bytes(b, 0, 0x6000, 600, MW_MR_KEY);
	CHECK_WQE(qp, 2, b, 128);

	wqe_bytes(b, 128, 0x7004, QRNIC_WR_SEND_WITH_INV, QRNIC_WQE_F_INLINE,
		  0, sizeof(payload));
	put_le32(b + 12, 0x01020304);
	memcpy(b + 64, payload, sizeof(payload));
	CHECK_WQE(qp, 3, b, 128);

	/* Refused binds: EINVAL, nothing posted. */
	one = wr[0];
	one.next = NULL;
	one.bind_mw.mw = &mw1;		/* type 1: ibv_bind_mw only */
	one.bind_mw.rkey = 0x123400;
	CHECK(post_refused(ctx, qp, &one));
	one = wr[0];
	one.next = NULL;
	one.bind_mw.rkey = 0x4322ab;	/* another window's index */
	CHECK(post_refused(ctx, qp, &one));
	one.bind_mw.rkey = 0x0021ab;
	CHECK(post_refused(ctx, qp, &one));
	one.bind_mw.rkey = 0x4321ab;
	for (i = 0; i < N_ELEMS(bad_access); i++) {
		one.bind_mw.bind_info.mw_access_flags = bad_access[i];
		CHECK(post_refused(ctx, qp, &one));
	}
	one.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	one.bind_mw.mw = NULL;
	CHECK(post_refused(ctx, qp, &one));
	one.bind_mw.mw = &mw2;
	one.bind_mw.bind_info.mr = NULL;	/* a range needs its region */
	CHECK(post_refused(ctx, qp, &one));
	/* FLUSH and ATOMIC WRITE have no ibv_send_wr form: ibv_wr_* only. */
	memset(&one, 0, sizeof(one));
	one.opcode = IBV_WR_FLUSH;
	CHECK(post_refused(ctx, qp, &one));
	one.opcode = IBV_WR_ATOMIC_WRITE;
	CHECK(post_refused(ctx, qp, &one));
	CHECK(mw1.rkey == 0x1234ff && mw2.rkey == 0x4321aa);

	/* A good WR before a refused bind still goes. */
	wr[1].next = &one;
	one.bind_mw.mw = &mw1;
	one.bind_mw.bind_info.mr = &mr;
	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(&qp->vqp.qp, &wr[1], &bad) == EINVAL &&
	      bad == &one);
	CHECK(qp->sq.pi == 5 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x4a1ull | 5ull << 32));
	wqe_bytes(b, 64, 0x7002, QRNIC_WR_LOCAL_INV, QRNIC_WQE_F_FENCE, 0, 0);
	put_le32(b + 12, 0x11223344);
	CHECK_WQE(qp, 4, b, 64);

	/* UC binds windows but invalidates nothing. */
	uc->vqp.qp.qp_type = IBV_QPT_UC;
	atomic_store(&uc->state, IBV_QPS_RTS);
	one = wr[0];
	one.next = NULL;
	one.wr_id = 0x7101;
	one.send_flags = 0;
	one.bind_mw.rkey = 0x4321ac;
	one.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE |
						 IBV_ACCESS_LOCAL_WRITE;
	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(&uc->vqp.qp, &one, &bad) == 0 && !bad);
	CHECK(uc->sq.pi == 1 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x4a2ull | 1ull << 32));
	wqe_bytes(b, 64, 0x7101, QRNIC_WR_BIND_MW, 0, 0, 0);
	bind_bytes(b, 0x4321aa, 0x4321ac, 0x10800, 0x1800, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_WRITE);
	CHECK_WQE(uc, 0, b, 64);
	one.bind_mw.mw = &mw1;
	one.bind_mw.rkey = 0x123400;
	CHECK(post_refused(ctx, uc, &one));
	for (i = 1; i < 4; i++) {
		one = wr[i];
		one.next = NULL;
		CHECK(post_refused(ctx, uc, &one));
	}

	/* UD: messages only, with or without a window. */
	ud->vqp.qp.qp_type = IBV_QPT_UD;
	atomic_store(&ud->state, IBV_QPS_RTS);
	ud_attr(&ah_attr, 9, 0, 0, 0);
	for (i = 0; i < 4; i++) {
		one = wr[i];
		one.next = NULL;
		one.wr.ud.ah = fake_ah(ctx, &ah_attr, ud_dmac);
		one.wr.ud.remote_qpn = 5;
		CHECK(post_refused(ctx, ud, &one));
	}
	CHECK(ud->sq.pi == 0);
}

/* ibv_bind_mw: type 1 windows, one BIND_MW WQE, the new key afterwards. */
static void test_mw_bind_type1(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 71);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_qp *qp = fake_qp(ctx, 0x4b1, cq, cq, 1, 6, 0, 4);
	struct qrnic_qp *uc = fake_qp(ctx, 0x4b2, cq, cq, 1, 6, 0, 4);
	struct qrnic_qp *ud = fake_qp(ctx, 0x4b3, cq, cq, 1, 6, 0, 4);
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_pd qpd = { .ibv_pd.context = ibctx };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_mr mr = { .context = ibctx, .pd = pd, .lkey = MW_MR_KEY,
			     .rkey = MW_MR_KEY };
	struct ibv_mw mw1 = { .context = ibctx, .pd = pd, .rkey = 0x2000fe,
			      .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .context = ibctx, .pd = pd, .rkey = 0x3000aa,
			      .type = IBV_MW_TYPE_2 };
	struct ibv_mw_bind bind = {
		.wr_id = 0x8001,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = &mr, .addr = 0x10100, .length = 0x100,
			       .mw_access_flags = IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_wc wc[2];
	uint8_t b[64];
	int state;

	/* Not ready to send: refused, the window keeps its key. */
	db_clear(ctx);
	for (state = IBV_QPS_RESET; state <= IBV_QPS_RTR; state++) {
		atomic_store(&qp->state, state);
		CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == EINVAL);
		CHECK(mw1.rkey == 0x2000fe && qp->sq.pi == 0 &&
		      db_read(ctx, QRNIC_DB_SQ) == 0);
	}
	atomic_store(&qp->state, IBV_QPS_RTS);

	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == 0);
	CHECK(mw1.rkey == 0x2000ff && mw1.rkey == ibv_inc_rkey(0x2000fe));
	CHECK(qp->sq.pi == 1 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x4b1ull | 1ull << 32));
	wqe_bytes(b, 64, 0x8001, QRNIC_WR_BIND_MW, QRNIC_WQE_F_SIGNALED, 0, 0);
	bind_bytes(b, 0x2000fe, 0x2000ff, 0x10100, 0x100, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_READ);
	CHECK_WQE(qp, 0, b, 64);

	/* Unbind (no region, length 0), unsignaled; the key byte wraps. */
	bind.wr_id = 0x8002;
	bind.send_flags = 0;
	memset(&bind.bind_info, 0, sizeof(bind.bind_info));
	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == 0);
	CHECK(mw1.rkey == 0x200000);
	CHECK(qp->sq.pi == 2 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x4b1ull | 2ull << 32));
	wqe_bytes(b, 64, 0x8002, QRNIC_WR_BIND_MW, 0, 0, 0);
	bind_bytes(b, 0x2000ff, 0x200000, 0, 0, 0, 0);
	CHECK_WQE(qp, 1, b, 64);

	/* Full SQ: ENOMEM, key unchanged. */
	db_clear(ctx);
	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == ENOMEM);
	CHECK(mw1.rkey == 0x200000 && qp->sq.pi == 2 &&
	      db_read(ctx, QRNIC_DB_SQ) == 0);
	dev_write_cqe(&dev, 0x8002, 0x4b1, 1, QRNIC_CQE_OP_BIND_MW, 0,
		      QRNIC_CQE_F_SEND, 0, 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 2, wc) == 1);
	CHECK(wc[0].opcode == IBV_WC_BIND_MW && atomic_load(&qp->sq.tail) == 2);

	/* Type 2, no window, rights a window cannot have: refused. */
	bind.bind_info.mr = &mr;
	bind.bind_info.length = 8;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw2, &bind) == EINVAL);
	CHECK(qrnic_bind_mw(&qp->vqp.qp, NULL, &bind) == EINVAL);
	bind.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == EINVAL);
	bind.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == EINVAL);
	CHECK(mw1.rkey == 0x200000 && mw2.rkey == 0x3000aa && qp->sq.pi == 2 &&
	      db_read(ctx, QRNIC_DB_SQ) == 0);

	/* sq_sig_all signals it without the flag. */
	bind.wr_id = 0x8003;
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_ATOMIC;
	qp->sig_all = true;
	CHECK(qrnic_bind_mw(&qp->vqp.qp, &mw1, &bind) == 0);
	CHECK(mw1.rkey == 0x200001 && qp->sq.pi == 3);
	wqe_bytes(b, 64, 0x8003, QRNIC_WR_BIND_MW, QRNIC_WQE_F_SIGNALED, 0, 0);
	bind_bytes(b, 0x200000, 0x200001, 0, 8, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_ATOMIC);
	CHECK_WQE(qp, 2, b, 64);

	/* UC binds type 1 windows too; UD none. */
	uc->vqp.qp.qp_type = IBV_QPT_UC;
	atomic_store(&uc->state, IBV_QPS_RTS);
	bind.wr_id = 0x8004;
	CHECK(qrnic_bind_mw(&uc->vqp.qp, &mw1, &bind) == 0);
	CHECK(mw1.rkey == 0x200002 && uc->sq.pi == 1);
	wqe_bytes(b, 64, 0x8004, QRNIC_WR_BIND_MW, 0, 0, 0);
	bind_bytes(b, 0x200001, 0x200002, 0, 8, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_ATOMIC);
	CHECK_WQE(uc, 0, b, 64);
	ud->vqp.qp.qp_type = IBV_QPT_UD;
	atomic_store(&ud->state, IBV_QPS_RTS);
	CHECK(qrnic_bind_mw(&ud->vqp.qp, &mw1, &bind) == EINVAL);
	CHECK(mw1.rkey == 0x200002 && ud->sq.pi == 0);
}

/* The ibv_wr_* builders for windows, invalidation, FLUSH, ATOMIC WRITE. */
static void test_mw_wr_api(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 72);
	struct qrnic_qp *qp = fake_qp(ctx, 0x4c1, cq, cq, 4, 7, 0, 4);
	struct qrnic_qp *plain = fake_qp(ctx, 0x4c2, cq, cq, 1, 6, 0, 4);
	struct qrnic_qp *uc = fake_qp(ctx, 0x4c3, cq, cq, 2, 7, 0, 4);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex, *ucx = &uc->vqp.qp_ex;
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_pd qpd = { .ibv_pd.context = ibctx };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_mr mr = { .context = ibctx, .pd = pd, .lkey = MW_MR_KEY,
			     .rkey = MW_MR_KEY };
	struct ibv_mw mw1 = { .context = ibctx, .pd = pd, .rkey = 0x1234ff,
			      .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .context = ibctx, .pd = pd, .rkey = 0x4321aa,
			      .type = IBV_MW_TYPE_2 };
	const struct ibv_mw_bind_info info = {
		.mr = &mr, .addr = 0x20000, .length = 0x4000,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_FLUSH_GLOBAL,
	};
	/* Byte order matters: the 8 bytes go as they are. */
	static const uint8_t aw[8] = { 0x01, 0x23, 0x45, 0x67,
				       0x89, 0xab, 0xcd, 0xef };
	char payload[] = "inline with invalidate";
	struct ibv_cq *ibcq = &cq->vcq.cq;
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = ibcq,
		.recv_cq = ibcq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
	};
	static const uint64_t new_ops = IBV_QP_EX_WITH_FLUSH |
					IBV_QP_EX_WITH_ATOMIC_WRITE |
					IBV_QP_EX_WITH_BIND_MW |
					IBV_QP_EX_WITH_LOCAL_INV |
					IBV_QP_EX_WITH_SEND_WITH_INV;
	static const uint64_t uc_refused[] = {
		IBV_QP_EX_WITH_FLUSH, IBV_QP_EX_WITH_ATOMIC_WRITE,
		IBV_QP_EX_WITH_LOCAL_INV, IBV_QP_EX_WITH_SEND_WITH_INV,
		QRNIC_UC_SEND_OPS | IBV_QP_EX_WITH_FLUSH,
	};
	unsigned int calls, i;
	uint8_t b[128];
	int step;

	/* Create: RC takes them all; UC binds only; UD none of them. */
	calls = kcreate_qp.calls;
	ax.qp_type = IBV_QPT_RC;
	ax.send_ops_flags = new_ops | IBV_QP_EX_WITH_SEND;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
	CHECK(kcreate_qp.calls == calls + 1);
	ax.send_ops_flags = QRNIC_SUPPORTED_SEND_OPS;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
	CHECK(kcreate_qp.calls == calls + 2);
	ax.qp_type = IBV_QPT_UC;
	for (i = 0; i < N_ELEMS(uc_refused); i++) {
		ax.send_ops_flags = uc_refused[i];
		errno = 0;
		CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	}
	CHECK(kcreate_qp.calls == calls + 2);
	ax.send_ops_flags = IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
	CHECK(kcreate_qp.calls == calls + 3);
	ax.qp_type = IBV_QPT_UD;
	ax.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_BIND_MW;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	CHECK(kcreate_qp.calls == calls + 3);

	/* The builders asked for are there, the others are not. */
	qrnic_qp_init_wr_ops(qp, QRNIC_SUPPORTED_SEND_OPS);
	qp->vqp.comp_mask |= VERBS_QP_EX;
	CHECK(qpx->wr_bind_mw == qrnic_wr_bind_mw &&
	      qpx->wr_local_inv == qrnic_wr_local_inv &&
	      qpx->wr_send_inv == qrnic_wr_send_inv &&
	      qpx->wr_flush == qrnic_wr_flush &&
	      qpx->wr_atomic_write == qrnic_wr_atomic_write);
	qrnic_qp_init_wr_ops(plain, IBV_QP_EX_WITH_SEND);
	CHECK(plain->vqp.qp_ex.wr_send && !plain->vqp.qp_ex.wr_bind_mw &&
	      !plain->vqp.qp_ex.wr_local_inv &&
	      !plain->vqp.qp_ex.wr_send_inv && !plain->vqp.qp_ex.wr_flush &&
	      !plain->vqp.qp_ex.wr_atomic_write);
	qrnic_qp_init_wr_ops(plain, IBV_QP_EX_WITH_FLUSH);
	CHECK(plain->vqp.qp_ex.wr_flush == qrnic_wr_flush &&
	      !plain->vqp.qp_ex.wr_atomic_write);

	atomic_store(&qp->state, IBV_QPS_RTS);
	db_clear(ctx);
	ibv_wr_start(qpx);
	qpx->wr_id = 40;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, &mw2, 0x4321ab, &info);
	qpx->wr_id = 41;
	qpx->wr_flags = 0;
	ibv_wr_local_inv(qpx, 0x11223344);
	qpx->wr_id = 42;
	qpx->wr_flags = IBV_SEND_SOLICITED;
	ibv_wr_send_inv(qpx, 0xa1b2c3d4);
	ibv_wr_set_sge(qpx, MW_MR_KEY, 0x6000, 600);
	qpx->wr_id = 43;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_flush(qpx, 0x7788, 0x123456789000ull, 0x3000, IBV_FLUSH_GLOBAL,
		     IBV_FLUSH_RANGE);
	qpx->wr_id = 44;
	qpx->wr_flags = 0;
	ibv_wr_atomic_write(qpx, 0x99aa, 0xfedcba9876543210ull, aw);
	qpx->wr_id = 45;
	ibv_wr_send_inv(qpx, 0x0badf00d);
	ibv_wr_set_inline_data(qpx, payload, sizeof(payload));
	qpx->wr_id = 46;
	ibv_wr_flush(qpx, 0x7789, 0, 0, IBV_FLUSH_GLOBAL, IBV_FLUSH_MR);
	CHECK(ibv_wr_complete(qpx) == 0 && qp->sq.pi == 7);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x4c1ull | 7ull << 32));
	/* Posting binds nothing yet: the window keeps its key. */
	CHECK(mw2.rkey == 0x4321aa);

	wqe_bytes(b, 64, 40, QRNIC_WR_BIND_MW, QRNIC_WQE_F_SIGNALED, 0, 0);
	bind_bytes(b, 0x4321aa, 0x4321ab, 0x20000, 0x4000, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_FLUSH_GLOBAL);
	CHECK_WQE(qp, 0, b, 64);
	wqe_bytes(b, 64, 41, QRNIC_WR_LOCAL_INV, 0, 0, 0);
	put_le32(b + 12, 0x11223344);
	CHECK_WQE(qp, 1, b, 64);
	wqe_bytes(b, 128, 42, QRNIC_WR_SEND_WITH_INV, QRNIC_WQE_F_SOLICITED, 1,
		  0);
	put_le32(b + 12, 0xa1b2c3d4);
	sge_bytes(b, 0, 0x6000, 600, MW_MR_KEY);
	CHECK_WQE(qp, 2, b, 128);
	/* FLUSH at 24: remote_addr, rkey, type, level, rsvd, length. */
	wqe_bytes(b, 64, 43, QRNIC_WR_FLUSH,
		  QRNIC_WQE_F_SIGNALED | QRNIC_WQE_F_FENCE, 0, 0);
	put_le64(b + 24, 0x123456789000ull);
	put_le32(b + 32, 0x7788);
	b[36] = QRNIC_FLUSH_GLOBAL;
	b[37] = QRNIC_FLUSH_RANGE;
	put_le64(b + 40, 0x3000);
	CHECK_WQE(qp, 3, b, 64);
	/* ATOMIC_WRITE: remote_addr, rkey, the bytes in compare_add (40). */
	wqe_bytes(b, 64, 44, QRNIC_WR_ATOMIC_WRITE, 0, 0, 0);
	put_le64(b + 24, 0xfedcba9876543210ull);
	put_le32(b + 32, 0x99aa);
	memcpy(b + 40, aw, sizeof(aw));
	CHECK_WQE(qp, 4, b, 64);
	wqe_bytes(b, 128, 45, QRNIC_WR_SEND_WITH_INV, QRNIC_WQE_F_INLINE, 0,
		  sizeof(payload));
	put_le32(b + 12, 0x0badf00d);
	memcpy(b + 64, payload, sizeof(payload));
	CHECK_WQE(qp, 5, b, 128);
	wqe_bytes(b, 64, 46, QRNIC_WR_FLUSH, 0, 0, 0);
	put_le32(b + 32, 0x7789);
	b[36] = QRNIC_FLUSH_GLOBAL;
	b[37] = QRNIC_FLUSH_MR;
	CHECK_WQE(qp, 6, b, 64);

	/*
	 * Each of these fails the whole batch (a good SEND first): a type 1
	 * window, a key of another index, rights outside a window's, and
	 * data given to an opcode that carries its own.
	 */
	for (step = 0; step < 14; step++) {
		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, 1, 0x1000, 8);
		switch (step) {
		case 0:
			ibv_wr_bind_mw(qpx, &mw1, 0x123400, &info);
			break;
		case 1:
			ibv_wr_bind_mw(qpx, &mw2, 0x4322ab, &info);
			break;
		case 2: {
			struct ibv_mw_bind_info bi = info;

			bi.mw_access_flags |= IBV_ACCESS_ZERO_BASED;
			ibv_wr_bind_mw(qpx, &mw2, 0x4321ab, &bi);
			break;
		}
		case 3:
			ibv_wr_bind_mw(qpx, NULL, 0x4321ab, &info);
			break;
		case 4:
			ibv_wr_bind_mw(qpx, &mw2, 0x4321ab, &info);
			ibv_wr_set_sge(qpx, 1, 0x1000, 8);
			break;
		case 5:
			ibv_wr_bind_mw(qpx, &mw2, 0x4321ab, &info);
			ibv_wr_set_inline_data(qpx, payload, 4);
			break;
		case 6:
			ibv_wr_local_inv(qpx, 1);
			ibv_wr_set_sge(qpx, 1, 0x1000, 8);
			break;
		case 7:
			ibv_wr_local_inv(qpx, 1);
			ibv_wr_set_inline_data(qpx, payload, 4);
			break;
		case 8:
			ibv_wr_flush(qpx, 1, 0x1000, 8, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
			ibv_wr_set_sge(qpx, 1, 0x1000, 8);
			break;
		case 9:
			ibv_wr_flush(qpx, 1, 0x1000, 8, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
			ibv_wr_set_inline_data(qpx, payload, 4);
			break;
		case 10:
			ibv_wr_atomic_write(qpx, 1, 0x1000, aw);
			ibv_wr_set_sge(qpx, 1, 0x1000, 8);
			break;
		case 11:
			ibv_wr_atomic_write(qpx, 1, 0x1000, aw);
			ibv_wr_set_inline_data(qpx, payload, 4);
			break;
		case 12: {
			struct ibv_sge sgl[2] = {};

			ibv_wr_flush(qpx, 1, 0x1000, 8, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
			ibv_wr_set_sge_list(qpx, 2, sgl);
			break;
		}
		case 13:
			ibv_wr_send_inv(qpx, 1);
			ibv_wr_set_inline_data(qpx, payload,
					       qp->max_inline + 1);
			break;
		}
		if (ibv_wr_complete(qpx) != EINVAL || qp->sq.pi != 7) {
			fprintf(stderr, "wr API step %d not refused\n", step);
			CHECK(0);
		}
	}
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x4c1ull | 7ull << 32));
	CHECK(mw1.rkey == 0x1234ff && mw2.rkey == 0x4321aa);

	/* UC: the builders are there, only the bind goes. */
	uc->vqp.qp.qp_type = IBV_QPT_UC;
	qrnic_qp_init_wr_ops(uc, QRNIC_UC_SEND_OPS);
	uc->vqp.comp_mask |= VERBS_QP_EX;
	atomic_store(&uc->state, IBV_QPS_RTS);
	CHECK(ucx->wr_bind_mw && ucx->wr_local_inv && ucx->wr_send_inv &&
	      ucx->wr_flush && ucx->wr_atomic_write);
	ibv_wr_start(ucx);
	ucx->wr_id = 50;
	ucx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(ucx, &mw2, 0x4321ac, &info);
	CHECK(ibv_wr_complete(ucx) == 0 && uc->sq.pi == 1);
	wqe_bytes(b, 64, 50, QRNIC_WR_BIND_MW, QRNIC_WQE_F_SIGNALED, 0, 0);
	bind_bytes(b, 0x4321aa, 0x4321ac, 0x20000, 0x4000, MW_MR_KEY,
		   QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_FLUSH_GLOBAL);
	CHECK_WQE(uc, 0, b, 64);
	for (step = 0; step < 4; step++) {
		ibv_wr_start(ucx);
		ibv_wr_bind_mw(ucx, &mw2, 0x4321ac, &info);
		switch (step) {
		case 0:
			ibv_wr_local_inv(ucx, 1);
			break;
		case 1:
			ibv_wr_send_inv(ucx, 1);
			ibv_wr_set_sge(ucx, 1, 0x1000, 8);
			break;
		case 2:
			ibv_wr_flush(ucx, 1, 0x1000, 8, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
			break;
		case 3:
			ibv_wr_atomic_write(ucx, 1, 0x1000, aw);
			break;
		}
		if (ibv_wr_complete(ucx) != EINVAL || uc->sq.pi != 1) {
			fprintf(stderr, "UC wr API step %d not refused\n",
				step);
			CHECK(0);
		}
	}
}

/*
 * Completions of the new opcodes: received SEND_WITH_INV (the key, not
 * immediate data), binds, invalidations, flushes and atomic writes, a
 * failed bind; through ibv_poll_cq and the extended CQ.
 */
static void test_mw_cq(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 73);
	struct fake_cq dev = { .cq = cq };
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct qrnic_qp *qp = fake_qp(ctx, 0x4d1, cq, cq, 2, 7, 2, 5);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct qrnic_pd qpd = { .ibv_pd.context = &ctx->ibv_ctx.context };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_mr mr = { .pd = pd, .lkey = MW_MR_KEY };
	struct ibv_mw mw2 = { .pd = pd, .rkey = 0x4321aa,
			      .type = IBV_MW_TYPE_2 };
	const struct ibv_mw_bind_info info = {
		.mr = &mr, .length = 64,
		.mw_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	static const uint8_t aw[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const struct {
		uint8_t cqe_op;
		enum ibv_wc_opcode wc_op;
		uint8_t status;
		uint32_t len;
	} sends[] = {
		{ QRNIC_CQE_OP_BIND_MW, IBV_WC_BIND_MW,
		  QRNIC_WC_MW_BIND_ERR, 0 },
		{ QRNIC_CQE_OP_LOCAL_INV, IBV_WC_LOCAL_INV, 0, 0 },
		{ QRNIC_CQE_OP_FLUSH, IBV_WC_FLUSH, 0, 0 },
		{ QRNIC_CQE_OP_ATOMIC_WRITE, IBV_WC_ATOMIC_WRITE, 0, 8 },
	};
	static const uint32_t keys[2] = { 0x12345678, 0xfedcba98 };
	struct ibv_recv_wr rwr = { .wr_id = 0 }, *rbad;
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc[8];
	unsigned int round, i;
	uint32_t base;

	qrnic_cq_ex_init_ops(cqx);
	qrnic_qp_init_wr_ops(qp, QRNIC_SUPPORTED_SEND_OPS);
	qp->vqp.comp_mask |= VERBS_QP_EX;
	atomic_store(&qp->state, IBV_QPS_RTS);

	for (round = 0; round < 2; round++) {
		base = qp->sq.pi;
		ibv_wr_start(qpx);
		qpx->wr_flags = IBV_SEND_SIGNALED;
		qpx->wr_id = 0x900;
		ibv_wr_bind_mw(qpx, &mw2, 0x4321ab, &info);
		qpx->wr_id = 0x901;
		ibv_wr_local_inv(qpx, 0x4321ab);
		qpx->wr_id = 0x902;
		ibv_wr_flush(qpx, 1, 0x1000, 64, IBV_FLUSH_GLOBAL,
			     IBV_FLUSH_RANGE);
		qpx->wr_id = 0x903;
		ibv_wr_atomic_write(qpx, 1, 0x2000, aw);
		CHECK(ibv_wr_complete(qpx) == 0 && qp->sq.pi == base + 4);
		rwr.wr_id = 0x800 + round;
		CHECK(qrnic_post_recv(&qp->vqp.qp, &rwr, &rbad) == 0);

		/* SEND_WITH_INV arrived: the key little endian in imm_data. */
		dev_write_cqe(&dev, 0x800 + round, 0x4d1, round,
			      QRNIC_CQE_OP_RECV, 0, QRNIC_CQE_F_INV, 100,
			      htole32(keys[round]));
		for (i = 0; i < N_ELEMS(sends); i++)
			dev_write_cqe(&dev, 0x900 + i, 0x4d1,
				      (uint16_t)(base + i), sends[i].cqe_op,
				      sends[i].status, QRNIC_CQE_F_SEND,
				      sends[i].len, 0);
		/* Immediate data still is immediate data. */
		dev_write_cqe(&dev, 0x7ff, 0x4d1, 0, QRNIC_CQE_OP_RECV_RDMA_IMM,
			      0, QRNIC_CQE_F_IMM, 0,
			      (__force uint32_t)htobe32(0x5a5a0001));

		if (round == 0) {
			memset(wc, 0xff, sizeof(wc));
			CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 6);
			CHECK(wc[0].wr_id == 0x800 &&
			      wc[0].status == IBV_WC_SUCCESS &&
			      wc[0].opcode == IBV_WC_RECV &&
			      wc[0].byte_len == 100 && wc[0].qp_num == 0x4d1);
			CHECK(wc[0].wc_flags == IBV_WC_WITH_INV);
			CHECK(wc[0].invalidated_rkey == keys[0]);
			for (i = 0; i < N_ELEMS(sends); i++) {
				CHECK(wc[1 + i].wr_id == 0x900 + i &&
				      wc[1 + i].opcode == sends[i].wc_op &&
				      (int)wc[1 + i].status ==
					      sends[i].status &&
				      wc[1 + i].byte_len == sends[i].len &&
				      wc[1 + i].wc_flags == 0);
			}
			CHECK(wc[1].status == IBV_WC_MW_BIND_ERR &&
			      wc[1].vendor_err == QRNIC_VERR_NAK);
			CHECK(wc[5].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
			      wc[5].wc_flags == IBV_WC_WITH_IMM &&
			      wc[5].imm_data == htobe32(0x5a5a0001));
		} else {
			CHECK(ibv_start_poll(cqx, &attr) == 0);
			CHECK(cqx->wr_id == 0x801 &&
			      cqx->status == IBV_WC_SUCCESS);
			CHECK(ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
			      ibv_wc_read_byte_len(cqx) == 100);
			CHECK(ibv_wc_read_wc_flags(cqx) == IBV_WC_WITH_INV);
			CHECK(ibv_wc_read_invalidated_rkey(cqx) == keys[1]);
			for (i = 0; i < N_ELEMS(sends); i++) {
				CHECK(ibv_next_poll(cqx) == 0);
				CHECK(cqx->wr_id == 0x900 + i &&
				      (int)cqx->status == sends[i].status &&
				      ibv_wc_read_opcode(cqx) ==
					      sends[i].wc_op &&
				      ibv_wc_read_wc_flags(cqx) == 0);
			}
			CHECK(ibv_next_poll(cqx) == 0);
			CHECK(ibv_wc_read_opcode(cqx) ==
				      IBV_WC_RECV_RDMA_WITH_IMM &&
			      ibv_wc_read_wc_flags(cqx) == IBV_WC_WITH_IMM &&
			      ibv_wc_read_imm_data(cqx) ==
				      htobe32(0x5a5a0001));
			CHECK(ibv_next_poll(cqx) == ENOENT);
			ibv_end_poll(cqx);
		}
		/* The send completions freed the SQ, the receive an RQ slot. */
		CHECK(atomic_load(&qp->sq.tail) == base + 4);
		CHECK(atomic_load(&qp->rq.tail) == round + 1);
		CHECK(qrnic_poll_cq(&cq->vcq.cq, 8, wc) == 0);
	}
}

/* ibv_alloc_mw / ibv_dealloc_mw go to the kernel; only types 1 and 2. */
static void test_mw_alloc(struct qrnic_context *ctx)
{
	struct qrnic_pd qpd = { .ibv_pd.context = &ctx->ibv_ctx.context };
	struct ibv_pd *pd = &qpd.ibv_pd;
	struct ibv_mw *mw;

	memset(&kmw, 0, sizeof(kmw));
	errno = 0;
	CHECK(!qrnic_alloc_mw(pd, (enum ibv_mw_type)3) && errno == EINVAL);
	errno = 0;
	CHECK(!qrnic_alloc_mw(pd, (enum ibv_mw_type)0) && errno == EINVAL);
	CHECK(kmw.alloc == 0);

	kmw.rkey = 0xabc01;
	mw = qrnic_alloc_mw(pd, IBV_MW_TYPE_2);
	CHECK(mw && kmw.alloc == 1 && kmw.type == IBV_MW_TYPE_2 &&
	      kmw.mw == mw);
	CHECK(mw && mw->rkey == 0xabc01 && mw->type == IBV_MW_TYPE_2 &&
	      mw->pd == pd);
	kmw.ret = EBUSY;
	CHECK(mw && qrnic_dealloc_mw(mw) == EBUSY && kmw.dealloc == 1);
	kmw.ret = 0;
	CHECK(mw && qrnic_dealloc_mw(mw) == 0 && kmw.dealloc == 2 &&
	      kmw.mw == mw);

	mw = qrnic_alloc_mw(pd, IBV_MW_TYPE_1);
	CHECK(mw && kmw.type == IBV_MW_TYPE_1 && mw->type == IBV_MW_TYPE_1);
	CHECK(mw && qrnic_dealloc_mw(mw) == 0);
	kmw.ret = ENOMEM;
	errno = 0;
	CHECK(!qrnic_alloc_mw(pd, IBV_MW_TYPE_1) && errno == ENOMEM &&
	      kmw.alloc == 3);
	kmw.ret = 0;
}

/* ---- SRQ resize ---------------------------------------------------------- */

/*
 * MODIFY_SRQ and the resize method as qrnic.ko and the device do them.
 * A resize holds the SRQ's post lock; the device copies the WQEs it has
 * not taken (free running indexes [taken, pi)) to slot i % new depth of
 * the new ring, which lives at file offset key of fd.
 */
static struct {
	unsigned int calls, bad;
	int mask;
	struct ibv_srq_attr attr;
	bool method;			/* the last call: the resize method */
	int fail;
	int fd;
	uint64_t key;
	uint32_t len;
	uint8_t log_depth;
	uint32_t taken;
	uint32_t limit;			/* QUERY_SRQ answers it */
} kmsrq;

/*
 * MODIFY_SRQ (write command): the limit alone; a resize must come through
 * the driver's method instead.
 */
int fake_cmd_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			int mask, struct ibv_modify_srq *cmd, size_t cmd_size)
{
	kmsrq.calls++;
	kmsrq.mask = mask;
	kmsrq.attr = *attr;
	kmsrq.method = false;
	if (cmd_size != sizeof(*cmd) || (mask & IBV_SRQ_MAX_WR)) {
		kmsrq.bad++;
		return EINVAL;
	}
	if (kmsrq.fail)
		return kmsrq.fail;
	if (mask & IBV_SRQ_LIMIT)
		kmsrq.limit = attr->srq_limit;
	return 0;
}

/* QRNIC_IB_METHOD_SRQ_RESIZE (cmd.c's, played here). */
int qrnic_cmd_resize_srq(struct ibv_srq *ibsrq,
			 const struct qrnic_ureq_resize_srq *req,
			 struct qrnic_uresp_resize_srq *resp)
{
	struct qrnic_srq *srq = to_qsrq(ibsrq);
	uint32_t stride, i;

	kmsrq.calls++;
	kmsrq.mask = IBV_SRQ_MAX_WR |
		     (req->flags & QRNIC_SRQ_RESIZE_LIMIT ? IBV_SRQ_LIMIT : 0);
	kmsrq.attr.max_wr = req->max_wr;
	kmsrq.attr.srq_limit = req->srq_limit;
	kmsrq.method = true;
	if ((req->flags & ~QRNIC_SRQ_RESIZE_LIMIT) || req->pad)
		kmsrq.bad++;
	if (kmsrq.fail)
		return kmsrq.fail;
	if (pthread_spin_trylock(&srq->wq.lock) == 0) {
		pthread_spin_unlock(&srq->wq.lock);
		kmsrq.bad++;
	}
	/* BAD_PARAM: the new ring cannot hold the WQEs not yet taken. */
	if (srq->wq.pi - kmsrq.taken > (1u << kmsrq.log_depth))
		return EINVAL;
	stride = 1u << srq->wq.log_stride;
	for (i = kmsrq.taken; i != srq->wq.pi; i++) {
		off_t off = kmsrq.key +
			    ((off_t)(i & ((1u << kmsrq.log_depth) - 1))
			     << srq->wq.log_stride);

		if (pwrite(kmsrq.fd, qrnic_wq_slot(&srq->wq, i), stride, off) !=
		    (ssize_t)stride)
			kmsrq.bad++;
	}
	resp->qmem_mmap_key = kmsrq.key;
	resp->qmem_len = kmsrq.len;
	resp->log_depth = kmsrq.log_depth;
	if (req->flags & QRNIC_SRQ_RESIZE_LIMIT)
		kmsrq.limit = req->srq_limit;
	return 0;
}

/* QUERY_SRQ: the kernel's numbers; max_wr is the provider's to give. */
int fake_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		       struct ibv_query_srq *cmd, size_t cmd_size)
{
	attr->max_wr = 12345;
	attr->max_sge = 99;
	attr->srq_limit = kmsrq.limit;
	return 0;
}

/* The new ring the next resize answers with, in a fresh uverbs fd file. */
static void kmsrq_ring(struct qrnic_context *ctx, uint64_t key,
		       uint8_t log_depth, uint32_t log_stride)
{
	kmsrq.key = key;
	kmsrq.log_depth = log_depth;
	kmsrq.len = align(1u << (log_depth + log_stride), 4096);
	kmsrq.fd = fake_cmd_fd(key + kmsrq.len);
	ctx->ibv_ctx.context.cmd_fd = kmsrq.fd;
}

static void kmsrq_ring_done(struct qrnic_context *ctx)
{
	close(kmsrq.fd);
	kmsrq.fd = -1;
	ctx->ibv_ctx.context.cmd_fd = -1;
}

/* The SRQ as it was before a refused resize. */
struct srq_snap {
	uint8_t *buf;
	void *qmem;
	size_t qmem_len;
	uint64_t *done, done0;
	uint32_t depth, log_depth, pi, tail;
};

static struct srq_snap srq_snap(struct qrnic_srq *srq)
{
	return (struct srq_snap){ srq->wq.buf, srq->qmem, srq->qmem_len,
				  srq->done, srq->done[0], srq->wq.depth,
				  srq->wq.log_depth, srq->wq.pi,
				  atomic_load(&srq->wq.tail) };
}

static bool srq_unchanged(struct qrnic_srq *srq, const struct srq_snap *s)
{
	return srq->wq.buf == s->buf && srq->qmem == s->qmem &&
	       srq->qmem_len == s->qmem_len && srq->done == s->done &&
	       srq->done[0] == s->done0 && srq->wq.depth == s->depth &&
	       srq->wq.log_depth == s->log_depth && srq->wq.pi == s->pi &&
	       atomic_load(&srq->wq.tail) == s->tail;
}

/* Is [addr, addr + len) no longer mapped? */
static bool unmapped(void *addr, size_t len)
{
	errno = 0;
	return msync(addr, len, MS_ASYNC) == -1 && errno == ENOMEM;
}

/* The device completes SRQ WQE idx (wr_id idx) on qpn; the CQ is polled. */
static void srq_complete_one(struct fake_cq *dev, uint32_t qpn, uint32_t idx)
{
	struct ibv_wc wc[2];

	dev_write_cqe(dev, idx, qpn, (uint16_t)idx, QRNIC_CQE_OP_RECV, 0,
		      QRNIC_CQE_F_SRQ, 1, 0);
	CHECK(qrnic_poll_cq(&dev->cq->vcq.cq, 2, wc) == 1 &&
	      wc[0].wr_id == idx && wc[0].qp_num == qpn);
}

/* Post WQE wr_id == its free running index; 0 or the error. */
static int srq_post_one(struct qrnic_srq *srq)
{
	struct ibv_recv_wr wr = { .wr_id = srq->wq.pi }, *bad;

	return qrnic_post_srq_recv(&srq->ibv_srq, &wr, &bad);
}

static void test_srq_resize(struct qrnic_context *ctx)
{
	struct qrnic_cq *scq = fake_cq(ctx, 2, 75);
	struct qrnic_cq *rcq = fake_cq(ctx, 16, 76);
	struct fake_cq dev = { .cq = rcq };
	struct qrnic_srq *srq = fake_srq(ctx, 0x71, 2, 5, 1);
	struct ibv_srq *ibsrq = &srq->ibv_srq;
	struct ibv_srq_attr attr;
	struct srq_snap snap;
	unsigned int calls;
	void *old;
	size_t old_len;
	uint32_t i;

	fake_srq_qp(ctx, 0x4e1, scq, rcq, srq, IBV_QPT_RC);
	memset(&kmsrq, 0, sizeof(kmsrq));
	kmsrq.fd = -1;

	/* One lap through the 4-slot ring: indexes 4.. sit at slot i - 4. */
	for (i = 0; i < 4; i++)
		CHECK(srq_post_one(srq) == 0);
	for (i = 0; i < 4; i++)
		srq_complete_one(&dev, 0x4e1, i);
	CHECK(atomic_load(&srq->wq.tail) == 4);

	/*
	 * 4..7 posted (full); the device took 4..6, left 7 in the ring;
	 * 6 and 5 completed, 4 not: nothing freed.
	 */
	for (i = 4; i < 8; i++)
		CHECK(srq_post_one(srq) == 0);
	CHECK(srq_post_one(srq) == ENOMEM);
	srq_complete_one(&dev, 0x4e1, 6);
	srq_complete_one(&dev, 0x4e1, 5);
	CHECK(atomic_load(&srq->wq.tail) == 4);
	CHECK(srq->done[0] == (qrnic_srq_bit(1) | qrnic_srq_bit(2)));

	/* Up to 8 (asked: 5), the new ring at key 3 pages into the fd. */
	kmsrq.taken = 7;
	kmsrq_ring(ctx, 3 * 4096, 3, 5);
	old = srq->qmem;
	old_len = srq->qmem_len;
	calls = kmsrq.calls;
	memset(&attr, 0, sizeof(attr));
	attr.max_wr = 5;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR) == 0);
	kmsrq_ring_done(ctx);
	CHECK(kmsrq.calls == calls + 1 && kmsrq.mask == IBV_SRQ_MAX_WR &&
	      kmsrq.attr.max_wr == 5 && kmsrq.method);
	CHECK(srq->wq.depth == 8 && srq->wq.log_depth == 3 &&
	      srq->wq.log_stride == 5 && srq->wq.max_sge == 1);
	CHECK(srq->qmem != old && srq->wq.buf == srq->qmem &&
	      srq->qmem_len == 4096);
	CHECK(unmapped(old, old_len));
	CHECK(srq->wq.pi == 8 && atomic_load(&srq->wq.tail) == 4);
	/* The completed slots moved: 5 and 6 are slots 5 and 6 now. */
	CHECK(srq->done[0] == (qrnic_srq_bit(5) | qrnic_srq_bit(6)));
	/* The WQE the device carried over, read through the new mapping. */
	CHECK(le64toh(srq_wqe(srq, 7)->wr_id) == 7 &&
	      (uint8_t *)srq_wqe(srq, 7) == (uint8_t *)srq->qmem + 7 * 32);

	memset(&attr, 0, sizeof(attr));
	kmsrq.limit = 2;
	CHECK(qrnic_query_srq(ibsrq, &attr) == 0);
	CHECK(attr.max_wr == 8 && attr.max_sge == 1 && attr.srq_limit == 2);

	/* Posting goes on at pi 8, slot 0 of the new ring, up to 8 held. */
	db_clear(ctx);
	for (i = 8; i < 12; i++)
		CHECK(srq_post_one(srq) == 0);
	CHECK(srq_post_one(srq) == ENOMEM);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == (0x71ull | 12ull << 32));
	for (i = 8; i < 12; i++)
		CHECK((uint8_t *)srq_wqe(srq, i) ==
			      (uint8_t *)srq->qmem + (i - 8) * 32 &&
		      le64toh(srq_wqe(srq, i)->wr_id) == i);
	CHECK(le64toh(srq_wqe(srq, 7)->wr_id) == 7);

	/* 4 completes: the tail passes 5 and 6 (done before the move). */
	srq_complete_one(&dev, 0x4e1, 4);
	CHECK(atomic_load(&srq->wq.tail) == 7);
	srq_complete_one(&dev, 0x4e1, 7);
	CHECK(atomic_load(&srq->wq.tail) == 8);
	srq_complete_one(&dev, 0x4e1, 9);
	CHECK(atomic_load(&srq->wq.tail) == 8);
	CHECK(srq_post_one(srq) == 0 && srq_post_one(srq) == 0);
	CHECK(srq->wq.pi == 14);

	/*
	 * 6 outstanding (8..13, 9 done): a depth below that is refused
	 * without asking the kernel, and so are depths out of range.
	 */
	snap = srq_snap(srq);
	calls = kmsrq.calls;
	attr.max_wr = 4;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR) == EINVAL);
	attr.max_wr = 0;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR) == EINVAL);
	attr.max_wr = (1u << QRNIC_QP_MAX_LOG) + 1;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT) ==
	      EINVAL);
	CHECK(kmsrq.calls == calls && srq_unchanged(srq, &snap));

	/* The kernel fails: nothing changed, the old ring still posts. */
	kmsrq.taken = 14;
	kmsrq_ring(ctx, 0, 4, 5);
	kmsrq.fail = ENOMEM;
	attr.max_wr = 16;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR) == ENOMEM);
	CHECK(kmsrq.calls == calls + 1 && srq_unchanged(srq, &snap));
	kmsrq.fail = 0;
	/* A depth below the one asked for is no answer either. */
	kmsrq.log_depth = 3;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR) == EIO);
	CHECK(kmsrq.calls == calls + 2 && srq_unchanged(srq, &snap));
	kmsrq_ring_done(ctx);
	CHECK(srq_post_one(srq) == 0);
	CHECK((uint8_t *)srq_wqe(srq, 14) == (uint8_t *)snap.qmem + 6 * 32 &&
	      le64toh(srq_wqe(srq, 14)->wr_id) == 14);
	CHECK(srq_post_one(srq) == 0 && srq_post_one(srq) == ENOMEM);

	/* 8 completes (the tail passes 9), then 11 before 10. */
	srq_complete_one(&dev, 0x4e1, 8);
	CHECK(atomic_load(&srq->wq.tail) == 10);
	srq_complete_one(&dev, 0x4e1, 11);
	srq_complete_one(&dev, 0x4e1, 10);
	CHECK(atomic_load(&srq->wq.tail) == 12);
	/*
	 * Down to 4 with 12..15 outstanding: the device took 12..14 (14
	 * completed early), 15 waits in the ring.
	 */
	srq_complete_one(&dev, 0x4e1, 14);
	CHECK(atomic_load(&srq->wq.tail) == 12 &&
	      srq->done[0] == qrnic_srq_bit(14 % 8));
	kmsrq.taken = 15;
	kmsrq_ring(ctx, 5 * 4096, 2, 5);
	old = srq->qmem;
	old_len = srq->qmem_len;
	calls = kmsrq.calls;
	attr.max_wr = 3;	/* the ring is a power of two: 4 */
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_MAX_WR) == 0);
	kmsrq_ring_done(ctx);
	CHECK(kmsrq.calls == calls + 1 && kmsrq.attr.max_wr == 3);
	CHECK(srq->wq.depth == 4 && srq->wq.log_depth == 2 &&
	      srq->wq.buf == srq->qmem && srq->qmem != old);
	CHECK(unmapped(old, old_len));
	CHECK(srq->wq.pi == 16 && atomic_load(&srq->wq.tail) == 12);
	CHECK(srq->done[0] == qrnic_srq_bit(14 % 4));
	CHECK(le64toh(srq_wqe(srq, 15)->wr_id) == 15 &&
	      (uint8_t *)srq_wqe(srq, 15) == (uint8_t *)srq->qmem + 3 * 32);
	CHECK(srq_post_one(srq) == ENOMEM);
	memset(&attr, 0, sizeof(attr));
	CHECK(qrnic_query_srq(ibsrq, &attr) == 0 && attr.max_wr == 4);

	srq_complete_one(&dev, 0x4e1, 13);
	CHECK(atomic_load(&srq->wq.tail) == 12);
	srq_complete_one(&dev, 0x4e1, 12);
	CHECK(atomic_load(&srq->wq.tail) == 15);
	CHECK(srq_post_one(srq) == 0 && srq->wq.pi == 17);
	CHECK((uint8_t *)srq_wqe(srq, 16) == (uint8_t *)srq->qmem &&
	      le64toh(srq_wqe(srq, 16)->wr_id) == 16);
	srq_complete_one(&dev, 0x4e1, 16);
	srq_complete_one(&dev, 0x4e1, 15);
	CHECK(atomic_load(&srq->wq.tail) == 17 && srq->done[0] == 0);

	/* The limit alone: the write command, no resize. */
	snap = srq_snap(srq);
	calls = kmsrq.calls;
	memset(&attr, 0, sizeof(attr));
	attr.srq_limit = 3;
	attr.max_wr = 1000;	/* not asked for: not looked at */
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_LIMIT) == 0);
	CHECK(kmsrq.calls == calls + 1 && kmsrq.mask == IBV_SRQ_LIMIT &&
	      !kmsrq.method && kmsrq.attr.srq_limit == 3);
	CHECK(srq_unchanged(srq, &snap));
	kmsrq.fail = EINVAL;
	CHECK(qrnic_modify_srq(ibsrq, &attr, IBV_SRQ_LIMIT) == EINVAL);
	kmsrq.fail = 0;
	CHECK(srq_unchanged(srq, &snap));
	memset(&attr, 0, sizeof(attr));
	CHECK(qrnic_query_srq(ibsrq, &attr) == 0 && attr.srq_limit == 3 &&
	      attr.max_wr == 4);

	CHECK(kmsrq.bad == 0);
}


/* ---- parent domains, thread domains, rereg_mr ---------------------------- */

/*
 * CREATE_CQ (extended): what reached the kernel; the answer is cqn 90 at
 * the depth asked, or kcq.fail.
 */
static struct {
	unsigned int calls, destroys, dealloc_pd;
	uint32_t comp_mask;
	uint64_t buf_addr;
	uint32_t buf_size, log_depth;
	int fail;
} kcq;

int fake_cmd_create_cq_ex(struct ibv_context *context,
			  const struct ibv_cq_init_attr_ex *cq_attr,
#ifdef QRNIC_CREATE_CQ_PROV_ATTR
			  struct verbs_create_cq_prov_attr *prov_attr,
#endif
			  struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			  size_t cmd_size,
			  struct ib_uverbs_ex_create_cq_resp *resp,
			  size_t resp_size, uint32_t cmd_flags)
{
	struct qrnic_create_cq_ex *c =
		container_of(cmd, struct qrnic_create_cq_ex, ibv_cmd);
	struct qrnic_create_cq_ex_resp *r =
		container_of(resp, struct qrnic_create_cq_ex_resp, ibv_resp);

	kcq.calls++;
	kcq.comp_mask = cq_attr->comp_mask;
	kcq.buf_addr = c->buf_addr;
	kcq.buf_size = c->buf_size;
	kcq.log_depth = c->log_depth;
	if (kcq.fail)
		return kcq.fail;
	cq->cq.context = context;
	r->cqn = 90;
	r->log_depth = c->log_depth;
	return 0;
}

int fake_cmd_destroy_cq(struct ibv_cq *cq)
{
	kcq.destroys++;
	return 0;
}

int fake_cmd_dealloc_pd(struct ibv_pd *pd)
{
	kcq.dealloc_pd++;
	return 0;
}

/*
 * The application's allocators: every call recorded; the allocator answers
 * with a page-aligned buffer of its own, IBV_ALLOCATOR_USE_DEFAULT, NULL
 * or a misaligned pointer (palloc.mode).
 */
enum { PA_OWN, PA_DEFAULT, PA_NULL, PA_MISALIGNED };

static struct {
	int mode;
	unsigned int allocs, frees;
	struct ibv_pd *pd;
	void *pd_context;
	size_t size, alignment;
	uint64_t type;
	void *last;			/* the allocator's last buffer */
	void *freed;
	uint64_t free_type;
} palloc;

static void *test_pd_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			   size_t alignment, uint64_t resource_type)
{
	void *p;

	palloc.allocs++;
	palloc.pd = pd;
	palloc.pd_context = pd_context;
	palloc.size = size;
	palloc.alignment = alignment;
	palloc.type = resource_type;
	switch (palloc.mode) {
	case PA_DEFAULT:
		return IBV_ALLOCATOR_USE_DEFAULT;
	case PA_NULL:
		return NULL;
	default:
		if (posix_memalign(&p, alignment, size + alignment))
			abort();
		memset(p, 0xa5, size);	/* the provider zeroes it */
		palloc.last = p;
		return palloc.mode == PA_MISALIGNED ? (uint8_t *)p + 64 : p;
	}
}

static void test_pd_free(struct ibv_pd *pd, void *pd_context, void *ptr,
			 uint64_t resource_type)
{
	palloc.frees++;
	palloc.freed = ptr;
	palloc.free_type = resource_type;
	free(palloc.mode == PA_MISALIGNED ? palloc.last : ptr);
}

/* A PD as qrnic_alloc_pd leaves it, without the kernel. */
static struct qrnic_pd *fake_pd(struct qrnic_context *ctx, uint32_t handle)
{
	struct qrnic_pd *pd = calloc(1, sizeof(*pd));

	if (!pd)
		abort();
	pd->ibv_pd.context = &ctx->ibv_ctx.context;
	pd->ibv_pd.handle = handle;
	pd->pdn = handle + 100;
	atomic_init(&pd->refcount, 1);
	return pd;
}

static void test_parent_domain(struct qrnic_context *ctx)
{
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_context *other = fake_ctx();
	struct qrnic_pd *pd = fake_pd(ctx, 7), *pd2 = fake_pd(other, 8);
	struct ibv_td_init_attr td_attr = {};
	int pd_ctx_cookie;
	struct ibv_parent_domain_init_attr attr = {
		.pd = &pd->ibv_pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = test_pd_alloc,
		.free = test_pd_free,
		.pd_context = &pd_ctx_cookie,
	};
	struct ibv_parent_domain_init_attr bad;
	struct ibv_pd *pdom, *pdom2;
	struct ibv_td *td;

	/* Refused: no PD, unknown mask bits, another context's PD, a parent
	 * domain as the PD, allocators without a free, another context's TD.
	 */
	bad = attr;
	bad.pd = NULL;
	errno = 0;
	CHECK(!qrnic_alloc_parent_domain(ibctx, &bad) && errno == EINVAL);
	bad = attr;
	bad.comp_mask |= 1u << 2;
	errno = 0;
	CHECK(!qrnic_alloc_parent_domain(ibctx, &bad) && errno == EINVAL);
	bad = attr;
	bad.pd = &pd2->ibv_pd;
	errno = 0;
	CHECK(!qrnic_alloc_parent_domain(ibctx, &bad) && errno == EINVAL);
	bad = attr;
	bad.free = NULL;
	errno = 0;
	CHECK(!qrnic_alloc_parent_domain(ibctx, &bad) && errno == EINVAL);
	td = qrnic_alloc_td(&other->ibv_ctx.context, &td_attr);
	CHECK(td && td->context == &other->ibv_ctx.context);
	bad = attr;
	bad.td = td;
	errno = 0;
	CHECK(!qrnic_alloc_parent_domain(ibctx, &bad) && errno == EINVAL);
	CHECK(qrnic_dealloc_td(td) == 0);
	CHECK(atomic_load(&pd->refcount) == 1);

	/* Thread domains: comp_mask must be 0; held by a parent domain. */
	td_attr.comp_mask = 1;
	errno = 0;
	CHECK(!qrnic_alloc_td(ibctx, &td_attr) && errno == EINVAL);
	td_attr.comp_mask = 0;
	td = qrnic_alloc_td(ibctx, &td_attr);
	CHECK(td != NULL);

	/* A parent domain: the PD's context and handle, the PD held. */
	attr.td = td;
	pdom = qrnic_alloc_parent_domain(ibctx, &attr);
	CHECK(pdom && pdom->context == ibctx && pdom->handle == 7 &&
	      to_qparent_domain(pdom) && !to_qparent_domain(&pd->ibv_pd) &&
	      to_qpd(pdom)->pdn == pd->pdn);
	CHECK(atomic_load(&pd->refcount) == 2);
	bad = attr;
	bad.pd = pdom;
	errno = 0;
	CHECK(!qrnic_alloc_parent_domain(ibctx, &bad) && errno == EINVAL);
	/* Neither the PD nor the TD goes while the parent domain uses it. */
	CHECK(qrnic_dealloc_pd(&pd->ibv_pd) == EBUSY && kcq.dealloc_pd == 0);
	CHECK(qrnic_dealloc_td(td) == EBUSY);
	/* A second one, without allocators or TD. */
	attr.comp_mask = 0;
	attr.td = NULL;
	pdom2 = qrnic_alloc_parent_domain(ibctx, &attr);
	CHECK(pdom2 && !to_qpd(pdom2)->alloc && !to_qpd(pdom2)->pd_context &&
	      atomic_load(&pd->refcount) == 3);

	/* Deallocating a parent domain never reaches the kernel. */
	CHECK(qrnic_dealloc_pd(pdom2) == 0 && kcq.dealloc_pd == 0);
	CHECK(qrnic_dealloc_pd(pdom) == 0 && kcq.dealloc_pd == 0);
	CHECK(atomic_load(&pd->refcount) == 1);
	CHECK(qrnic_dealloc_td(td) == 0);
	CHECK(qrnic_dealloc_pd(&pd->ibv_pd) == 0 && kcq.dealloc_pd == 1);
}

static void test_parent_domain_cq(struct qrnic_context *ctx)
{
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_pd *pd = fake_pd(ctx, 9);
	int pd_ctx_cookie;
	struct ibv_parent_domain_init_attr pattr = {
		.pd = &pd->ibv_pd,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = test_pd_alloc,
		.free = test_pd_free,
		.pd_context = &pd_ctx_cookie,
	};
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = 100,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD,
	};
	size_t size128 = align((size_t)QRNIC_CQE_SIZE * 128 + QRNIC_CQ_REC_SIZE,
			       4096);
	struct ibv_pd *pdom, *plain;
	struct ibv_cq_ex *cqx;
	struct qrnic_cq *cq;
	struct rdev d;
	uint64_t next = 0;
	unsigned int i;
	bool zero;

	pdom = qrnic_alloc_parent_domain(ibctx, &pattr);
	pattr.comp_mask = 0;
	plain = qrnic_alloc_parent_domain(ibctx, &pattr);
	CHECK(pdom && plain);
	memset(&kcq, 0, sizeof(kcq));
	memset(&palloc, 0, sizeof(palloc));

	/* The MASK_PD bit wants a parent domain of this context. */
	cattr.parent_domain = &pd->ibv_pd;
	errno = 0;
	CHECK(!qrnic_create_cq_ex(ibctx, &cattr) && errno == EINVAL);
	cattr.parent_domain = NULL;
	errno = 0;
	CHECK(!qrnic_create_cq_ex(ibctx, &cattr) && errno == EINVAL);
	CHECK(kcq.calls == 0 && palloc.allocs == 0);

	/* The ring and record come from the allocator, page aligned, zeroed. */
	cattr.parent_domain = pdom;
	palloc.mode = PA_OWN;
	cqx = qrnic_create_cq_ex(ibctx, &cattr);
	CHECK(cqx != NULL);
	if (!cqx)
		return;
	cq = to_qcq_ex(cqx);
	CHECK(palloc.allocs == 1 && palloc.pd == pdom &&
	      palloc.pd_context == &pd_ctx_cookie && palloc.size == size128 &&
	      palloc.alignment == 4096 && palloc.type == QRNIC_RES_TYPE_CQ);
	CHECK(cq->buf == palloc.last && cq->buf_custom &&
	      kcq.buf_addr == (uintptr_t)palloc.last &&
	      kcq.buf_size == size128 && kcq.log_depth == 7 &&
	      kcq.comp_mask == IBV_CQ_INIT_ATTR_MASK_PD);
	for (zero = true, i = 0; i < size128; i++)
		zero &= ((uint8_t *)cq->buf)[i] == 0;
	CHECK(zero);
	CHECK(atomic_load(&to_qpd(pdom)->refcount) == 2);
	CHECK(qrnic_dealloc_pd(pdom) == EBUSY);

	/* It works as any CQ; a resize asks the allocator again and frees
	 * the old buffer through it once the kernel has switched.
	 */
	cq->vcq.cq.context = ibctx;
	rdev_init(&d, cq);
	memset(&kresize, 0, sizeof(kresize));
	kresize.dev = &d;
	CHECK(rdev_fill(&d, 10) == 10);
	rdev_poll(cq, &next, 10);
	CHECK(rdev_fill(&d, 3) == 3);
	palloc.last = NULL;
	CHECK(qrnic_resize_cq(&cq->vcq.cq, 500) == 0);
	CHECK(palloc.allocs == 2 && palloc.type == QRNIC_RES_TYPE_CQ &&
	      cq->buf == palloc.last && cq->buf_custom && cq->log_depth == 9);
	CHECK(palloc.frees == 1 &&
	      palloc.freed == (void *)(uintptr_t)kcq.buf_addr &&
	      palloc.free_type == QRNIC_RES_TYPE_CQ);
	rdev_poll(cq, &next, 3);
	/* A refused resize gives the new buffer back to the allocator. */
	kresize.fail = ENOMEM;
	CHECK(qrnic_resize_cq(&cq->vcq.cq, 20) == ENOMEM);
	CHECK(palloc.allocs == 3 && palloc.frees == 2 &&
	      palloc.freed != cq->buf && cq->log_depth == 9);
	kresize.fail = 0;
	/* The allocator may leave a buffer to the provider. */
	palloc.mode = PA_DEFAULT;
	CHECK(qrnic_resize_cq(&cq->vcq.cq, 20) == 0);
	CHECK(palloc.allocs == 4 && palloc.frees == 3 && !cq->buf_custom &&
	      cq->log_depth == 5);
	kresize.dev = NULL;

	/* Destroying it frees a provider buffer itself, lets go of pdom. */
	CHECK(qrnic_destroy_cq(&cq->vcq.cq) == 0);
	CHECK(kcq.destroys == 1 && palloc.frees == 3 &&
	      atomic_load(&to_qpd(pdom)->refcount) == 1);

	/* USE_DEFAULT at creation; destroy does not call free. */
	cqx = qrnic_create_cq_ex(ibctx, &cattr);
	CHECK(cqx && !to_qcq_ex(cqx)->buf_custom && palloc.allocs == 5);
	if (cqx)
		CHECK(qrnic_destroy_cq(&to_qcq_ex(cqx)->vcq.cq) == 0);
	CHECK(palloc.frees == 3);

	/* The allocator's own buffer is freed through it on destroy. */
	palloc.mode = PA_OWN;
	cqx = qrnic_create_cq_ex(ibctx, &cattr);
	CHECK(cqx && to_qcq_ex(cqx)->buf_custom);
	if (cqx)
		CHECK(qrnic_destroy_cq(&to_qcq_ex(cqx)->vcq.cq) == 0);
	CHECK(palloc.frees == 4 && palloc.freed == palloc.last);

	/* Failures: NULL from the allocator; a misaligned buffer (given
	 * back); the kernel refusing (buffer given back).  pdom stays free.
	 */
	palloc.mode = PA_NULL;
	errno = 0;
	CHECK(!qrnic_create_cq_ex(ibctx, &cattr) && errno == ENOMEM);
	palloc.mode = PA_MISALIGNED;
	errno = 0;
	CHECK(!qrnic_create_cq_ex(ibctx, &cattr) && errno == EINVAL &&
	      palloc.frees == 5);
	palloc.mode = PA_OWN;
	kcq.fail = ENOTTY;
	errno = 0;
	CHECK(!qrnic_create_cq_ex(ibctx, &cattr) && errno == ENOTTY &&
	      palloc.frees == 6 && palloc.freed == palloc.last);
	kcq.fail = 0;
	CHECK(atomic_load(&to_qpd(pdom)->refcount) == 1);

	/* A parent domain without allocators: the provider's buffer. */
	cattr.parent_domain = plain;
	cqx = qrnic_create_cq_ex(ibctx, &cattr);
	CHECK(cqx && !to_qcq_ex(cqx)->buf_custom && palloc.allocs == 9 &&
	      atomic_load(&to_qpd(plain)->refcount) == 2);
	if (cqx)
		CHECK(qrnic_destroy_cq(&to_qcq_ex(cqx)->vcq.cq) == 0);
	CHECK(atomic_load(&to_qpd(plain)->refcount) == 1);

	/* A QP the kernel refuses holds nothing of its parent domain. */
	{
		struct qrnic_cq *qcq = fake_cq(ctx, 4, 91);
		struct ibv_qp_init_attr_ex ax = {
			.send_cq = &qcq->vcq.cq,
			.recv_cq = &qcq->vcq.cq,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = pdom,
		};

		errno = 0;
		CHECK(!qrnic_create_qp_ex(ibctx, &ax) && errno == ENOTTY);
		CHECK(kcreate_qp.comp_mask == IBV_QP_INIT_ATTR_PD &&
		      atomic_load(&to_qpd(pdom)->refcount) == 1);
	}

	CHECK(qrnic_dealloc_pd(plain) == 0 && qrnic_dealloc_pd(pdom) == 0);
	CHECK(atomic_load(&pd->refcount) == 1);
}

/* REREG_MR: what reached the kernel; new keys, or krereg.fail. */
static struct {
	unsigned int calls;
	uint32_t flags;
	void *addr;
	size_t length;
	uint64_t hca_va;
	int access;
	struct ibv_pd *pd;
	int fail;
} krereg;

int fake_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		      size_t length, uint64_t hca_va, int access,
		      struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		      size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		      size_t resp_sz)
{
	krereg.calls++;
	krereg.flags = flags;
	krereg.addr = addr;
	krereg.length = length;
	krereg.hca_va = hca_va;
	krereg.access = access;
	krereg.pd = pd;
	if (krereg.fail)
		return krereg.fail;
	vmr->ibv_mr.lkey = vmr->ibv_mr.lkey + 0x100;
	vmr->ibv_mr.rkey = vmr->ibv_mr.lkey;
	return 0;
}

static void test_rereg_mr(struct qrnic_context *ctx)
{
	struct qrnic_pd *pd = fake_pd(ctx, 11);
	struct verbs_mr vmr = {
		.ibv_mr = { .context = &ctx->ibv_ctx.context,
			    .pd = &pd->ibv_pd, .lkey = 0x1234, .rkey = 0x1234 },
		.mr_type = IBV_MR_TYPE_MR,
	};
	char buf[64];

	memset(&krereg, 0, sizeof(krereg));

	/* Unknown flags: refused before the kernel. */
	errno = 0;
	CHECK(qrnic_rereg_mr(&vmr, IBV_REREG_MR_FLAGS_SUPPORTED + 1, NULL,
			     NULL, 0, 0) == EINVAL && errno == EINVAL);
	CHECK(krereg.calls == 0);

	/* Everything at once: the device address is the process' one. */
	CHECK(qrnic_rereg_mr(&vmr, IBV_REREG_MR_CHANGE_TRANSLATION |
				   IBV_REREG_MR_CHANGE_PD |
				   IBV_REREG_MR_CHANGE_ACCESS,
			     &pd->ibv_pd, buf, sizeof(buf),
			     IBV_ACCESS_LOCAL_WRITE) == 0);
	CHECK(krereg.calls == 1 && krereg.flags == 7 && krereg.addr == buf &&
	      krereg.length == sizeof(buf) &&
	      krereg.hca_va == (uintptr_t)buf &&
	      krereg.access == IBV_ACCESS_LOCAL_WRITE &&
	      krereg.pd == &pd->ibv_pd);
	CHECK(vmr.ibv_mr.lkey == 0x1334 && vmr.ibv_mr.rkey == 0x1334);

	/* The kernel's refusal is the answer and errno (EBUSY: windows). */
	krereg.fail = EBUSY;
	errno = 0;
	CHECK(qrnic_rereg_mr(&vmr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			     IBV_ACCESS_LOCAL_WRITE) == EBUSY &&
	      errno == EBUSY);
	CHECK(vmr.ibv_mr.lkey == 0x1334);
}

/* ---- XRC ------------------------------------------------------------------ */

/* The send ops each QP type may ask for are the work-request table's. */
static void test_xrc_send_ops(void)
{
	CHECK(qrnic_qpt_send_ops(IBV_QPT_RC) == QRNIC_SUPPORTED_SEND_OPS);
	CHECK(qrnic_qpt_send_ops(IBV_QPT_UC) == QRNIC_UC_SEND_OPS);
	CHECK(qrnic_qpt_send_ops(IBV_QPT_UD) == QRNIC_UD_SEND_OPS);
	CHECK(qrnic_qpt_send_ops(IBV_QPT_XRC_SEND) ==
	      (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
	       IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
	       IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
	       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
	       IBV_QP_EX_WITH_LOCAL_INV));
	CHECK(qrnic_qpt_send_ops(IBV_QPT_XRC_RECV) == 0);
	CHECK(qrnic_qpt_send_ops(IBV_QPT_RAW_PACKET) == 0);
	CHECK(qrnic_qpt_send_ops(IBV_QPT_DRIVER) == 0);
}

/* An XRC_SEND QP set up by qrnic_qp_setup from a kernel answer: no RQ. */
static struct qrnic_qp *fake_xrc_send_qp(struct qrnic_context *ctx,
					 uint32_t qpn, struct qrnic_cq *scq)
{
	struct qrnic_create_qp_resp resp = {};
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_qp *qp = qrnic_qp_alloc();

	if (!qp)
		abort();
	qp->vqp.qp.qp_num = qpn;
	qp->vqp.qp.qp_type = IBV_QPT_XRC_SEND;
	resp.qpn = qpn;
	resp.log_sq_depth = 3;
	resp.log_sq_stride = 7;
	resp.qmem_len = 4096;
	resp.max_send_sge = 4;
	resp.max_inline = 64;
	ibctx->cmd_fd = fake_cmd_fd(resp.qmem_len);
	CHECK(qrnic_qp_setup(ibctx, qp, &resp) == 0);
	close(ibctx->cmd_fd);
	ibctx->cmd_fd = -1;

	qp->vqp.qp.context = ibctx;
	qp->vqp.qp.send_cq = &scq->vcq.cq;
	atomic_init(&qp->state, IBV_QPS_RESET);
	CHECK(!qrnic_qp_table_insert(ctx, qp));
	return qp;
}

/* An XRC SRQ on cq, tracked in the context's srqn table. */
static struct qrnic_srq *fake_xrc_srq(struct qrnic_context *ctx,
				      uint32_t srqn, uint32_t log_depth,
				      struct qrnic_cq *cq)
{
	struct qrnic_srq *srq = fake_srq(ctx, srqn, log_depth, 5, 1);

	srq->xrc_cq = cq;
	CHECK(qrnic_xsrq_table_insert(ctx, srq) == 0);
	return srq;
}

/* An XRC SRQ's receive completion: F_XRC | F_SRQ, srqn in the owner word. */
static void dev_write_xrc_cqe(struct fake_cq *f, uint64_t wr_id,
			      uint32_t tgt_qpn, uint32_t srqn, uint16_t slot,
			      uint8_t status, uint32_t byte_len)
{
	dev_write_cqe_src(f, wr_id, tgt_qpn, slot, QRNIC_CQE_OP_RECV, status,
			  QRNIC_CQE_F_XRC | QRNIC_CQE_F_SRQ, byte_len, 0,
			  srqn);
}

/* ibv_post_send on XRC_SEND: RC's WQE plus the target's XRC SRQ. */
static void test_xrc_post_send(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 200);
	struct fake_cq dev = { .cq = cq };
	struct qrnic_qp *qp = fake_xrc_send_qp(ctx, 0x50001, cq);
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct ibv_sge sge = { .addr = 0x4000, .length = 100, .lkey = 0x31 };
	struct ibv_send_wr wr[3], *bad;
	static const int bad_ops[] = {
		IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV, IBV_WR_FLUSH,
		IBV_WR_ATOMIC_WRITE, IBV_WR_TSO,
	};
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad;
	struct qrnic_sq_wqe *w;
	struct ibv_qp_cap cap;
	struct ibv_wc wc[2];
	unsigned int i;

	CHECK(qp->rq.depth == 0 && qp->rq.max_sge == 0 && qp->sq.depth == 8);
	qrnic_qp_caps(qp, &cap);
	CHECK(cap.max_recv_wr == 0 && cap.max_recv_sge == 0 &&
	      cap.max_send_wr == 8);

	atomic_store(&qp->state, IBV_QPS_RTS);
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = 0x700;
	wr[0].opcode = IBV_WR_SEND;
	wr[0].sg_list = &sge;
	wr[0].num_sge = 1;
	wr[0].send_flags = IBV_SEND_SIGNALED;
	wr[0].qp_type.xrc.remote_srqn = 0x123456;
	wr[0].next = &wr[1];
	wr[1].wr_id = 0x701;
	wr[1].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr[1].imm_data = htobe32(9);
	wr[1].wr.rdma.remote_addr = 0x900000;
	wr[1].wr.rdma.rkey = 0x77;
	wr[1].qp_type.xrc.remote_srqn = 0xffffff;
	wr[1].next = &wr[2];
	/* LOCAL_INV stays in the device: no SRQ named. */
	wr[2].wr_id = 0x702;
	wr[2].opcode = IBV_WR_LOCAL_INV;
	wr[2].invalidate_rkey = 0x1234;
	db_clear(ctx);
	bad = NULL;
	CHECK(qrnic_post_send(ibqp, wr, &bad) == 0 && !bad);
	CHECK(db_read(ctx, QRNIC_DB_SQ) == (0x50001ull | 3ull << 32));
	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 0x700 && w->opcode == IBV_WR_SEND &&
	      le32toh(w->xrc_srqn) == 0x123456 && w->num_sge == 1 &&
	      w->flags == QRNIC_WQE_F_SIGNALED);
	w = sq_wqe(qp, 1);
	CHECK(le32toh(w->xrc_srqn) == 0xffffff &&
	      le64toh(w->remote_addr) == 0x900000 && le32toh(w->rkey) == 0x77 &&
	      w->imm_data == (__force uint32_t)htobe32(9));
	w = sq_wqe(qp, 2);
	CHECK(w->opcode == IBV_WR_LOCAL_INV && w->xrc_srqn == 0 &&
	      le32toh(w->imm_data) == 0x1234);

	/* No SRQ, or one over 24 bits, for what goes on the wire. */
	wr[0].next = NULL;
	wr[0].qp_type.xrc.remote_srqn = 0;
	CHECK(post_refused(ctx, qp, &wr[0]));
	wr[0].qp_type.xrc.remote_srqn = 0x1000000;
	CHECK(post_refused(ctx, qp, &wr[0]));
	/* What the table does not give XRC. */
	wr[0].qp_type.xrc.remote_srqn = 5;
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		wr[0].opcode = bad_ops[i];
		CHECK(post_refused(ctx, qp, &wr[0]));
	}

	/* No receive side. */
	rbad = NULL;
	CHECK(qrnic_post_recv(ibqp, &rwr, &rbad) == EINVAL && rbad == &rwr);

	/* Send completions free its SQ as RC's do. */
	dev_write_cqe(&dev, 0x701, 0x50001, 1, QRNIC_CQE_OP_RDMA_WRITE, 0,
		      QRNIC_CQE_F_SEND, 0, 0);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 2, wc) == 1);
	CHECK(wc[0].wr_id == 0x701 && wc[0].qp_num == 0x50001 &&
	      wc[0].src_qp == 0 && atomic_load(&qp->sq.tail) == 2);

	/* RESET without a receive CQ: the send CQ is cleaned, queues at 0. */
	dev_write_cqe(&dev, 0x702, 0x50001, 2, QRNIC_CQE_OP_LOCAL_INV, 0,
		      QRNIC_CQE_F_SEND, 0, 0);
	CHECK(!ibqp->recv_cq);
	qrnic_qp_reset_queues(qp);
	CHECK(qp->sq.pi == 0 && atomic_load(&qp->sq.tail) == 0 &&
	      cq->ci == 2 && qrnic_poll_cq(&cq->vcq.cq, 2, wc) == 0);
}

/* The new post API on XRC_SEND: ibv_wr_set_xrc_srqn for every WQE. */
static void test_xrc_wr_api(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 8, 201);
	struct qrnic_qp *qp = fake_xrc_send_qp(ctx, 0x50002, cq);
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct qrnic_sq_wqe *w;

	qrnic_qp_init_wr_ops(qp, qrnic_qpt_send_ops(IBV_QPT_XRC_SEND));
	CHECK(qpx->wr_set_xrc_srqn == qrnic_wr_set_xrc_srqn &&
	      !qpx->wr_set_ud_addr);
	/* Builders XRC lacks are there, and fail the batch. */
	CHECK(qpx->wr_send_inv && qpx->wr_bind_mw && qpx->wr_flush);
	atomic_store(&qp->state, IBV_QPS_RTS);
	db_clear(ctx);

	qpx->wr_id = 0x800;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	qpx->wr_start(qpx);
	/* A setter before any builder applies to nothing. */
	qpx->wr_set_xrc_srqn(qpx, 0x42);
	qpx->wr_rdma_read(qpx, 0x99, 0x10000);
	qpx->wr_set_xrc_srqn(qpx, 0x42);
	qpx->wr_set_sge(qpx, 0x5, 0x2000, 64);
	qpx->wr_id = 0x801;
	qpx->wr_local_inv(qpx, 0x77);
	qpx->wr_id = 0x802;
	qpx->wr_send(qpx);
	qpx->wr_set_sge(qpx, 0x5, 0x3000, 8);
	qpx->wr_set_xrc_srqn(qpx, 0x43);
	CHECK(qpx->wr_complete(qpx) == 0);
	CHECK(qp->sq.pi == 3 &&
	      db_read(ctx, QRNIC_DB_SQ) == (0x50002ull | 3ull << 32));
	w = sq_wqe(qp, 0);
	CHECK(le64toh(w->wr_id) == 0x800 && w->opcode == IBV_WR_RDMA_READ &&
	      le32toh(w->xrc_srqn) == 0x42 && le32toh(w->rkey) == 0x99 &&
	      w->num_sge == 1);
	w = sq_wqe(qp, 1);
	CHECK(w->opcode == IBV_WR_LOCAL_INV && w->xrc_srqn == 0);
	w = sq_wqe(qp, 2);
	CHECK(le64toh(w->wr_id) == 0x802 && le32toh(w->xrc_srqn) == 0x43);

	/* A WQE for the wire without its SRQ fails the batch. */
	db_clear(ctx);
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_xrc_srqn(qpx, 0x42);
	qpx->wr_send(qpx);
	CHECK(qpx->wr_complete(qpx) == EINVAL);
	CHECK(qp->sq.pi == 3 && db_read(ctx, QRNIC_DB_SQ) == 0);
	/* Nor a bad SRQ number, nor an opcode the table does not give XRC. */
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_xrc_srqn(qpx, 0);
	CHECK(qpx->wr_complete(qpx) == EINVAL);
	qpx->wr_start(qpx);
	qpx->wr_send(qpx);
	qpx->wr_set_xrc_srqn(qpx, 0x1000000);
	CHECK(qpx->wr_complete(qpx) == EINVAL);
	qpx->wr_start(qpx);
	qpx->wr_send_inv(qpx, 0x1);
	qpx->wr_set_xrc_srqn(qpx, 0x42);
	CHECK(qpx->wr_complete(qpx) == EINVAL);
	CHECK(qp->sq.pi == 3 && db_read(ctx, QRNIC_DB_SQ) == 0);
}

/*
 * XRC SRQ receive completions: found by the SRQ number in the owner word,
 * their slots freed in order; qp_num is the XRC_RECV QP's, src_qp 0.
 */
static void test_xrc_cqe(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 16, 202);
	struct qrnic_cq *other = fake_cq(ctx, 4, 203);
	struct fake_cq dev = { .cq = cq }, dev_o = { .cq = other };
	struct qrnic_srq *srq = fake_xrc_srq(ctx, 0x40001, 2, cq);
	/* An RC QP whose number the CQEs' qpn happens to be. */
	struct qrnic_qp *rc = fake_qp(ctx, 0x50003, cq, cq, 1, 7, 2, 5);
	struct ibv_recv_wr wr = {}, *bad;
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_wc wc[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		wr.wr_id = 0x900 + i;
		CHECK(qrnic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == 0);
	}
	CHECK(qrnic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == ENOMEM);

	/* Through two XRC_RECV QPs, out of order. */
	dev_write_xrc_cqe(&dev, 0x901, 0x60001, 0x40001, 1, 0, 11);
	dev_write_xrc_cqe(&dev, 0x900, 0x60002, 0x40001, 0, 0, 10);
	memset(wc, 0xff, sizeof(wc));
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 2);
	CHECK(wc[0].wr_id == 0x901 && wc[0].qp_num == 0x60001 &&
	      wc[0].src_qp == 0 && wc[0].opcode == IBV_WC_RECV &&
	      wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 11 &&
	      wc[0].wc_flags == 0);
	CHECK(wc[1].wr_id == 0x900 && wc[1].qp_num == 0x60002 &&
	      wc[1].src_qp == 0);
	CHECK(atomic_load(&srq->wq.tail) == 2);

	/* The extended CQ reads the same. */
	qrnic_cq_ex_init_ops(cqx);
	dev_write_xrc_cqe(&dev, 0x902, 0x60001, 0x40001, 2,
			  QRNIC_WC_WR_FLUSH_ERR, 0);
	CHECK(qrnic_start_poll(cqx, &pattr) == 0);
	CHECK(cqx->wr_id == 0x902 && cqx->status == IBV_WC_WR_FLUSH_ERR &&
	      qrnic_wc_read_qp_num(cqx) == 0x60001 &&
	      qrnic_wc_read_src_qp(cqx) == 0 &&
	      qrnic_wc_read_opcode(cqx) == IBV_WC_RECV);
	qrnic_end_poll(cqx);
	CHECK(atomic_load(&srq->wq.tail) == 3);

	/*
	 * A qpn of a QP of this context is not its completion: the RC QP's
	 * RQ keeps its WQEs.
	 */
	CHECK(qrnic_post_recv(&rc->vqp.qp, &(struct ibv_recv_wr){ .wr_id = 1 },
			      &bad) == EINVAL); /* RESET: refused */
	atomic_store(&rc->state, IBV_QPS_INIT);
	CHECK(qrnic_post_recv(&rc->vqp.qp, &(struct ibv_recv_wr){ .wr_id = 1 },
			      &bad) == 0);
	dev_write_xrc_cqe(&dev, 0x903, 0x50003, 0x40001, 3, 0, 1);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1);
	CHECK(wc[0].wr_id == 0x903 && wc[0].qp_num == 0x50003);
	CHECK(atomic_load(&rc->rq.tail) == 0 &&
	      atomic_load(&srq->wq.tail) == 4);

	/* An SRQ unknown here, or not of this CQ: returned, nothing freed. */
	for (i = 4; i < 6; i++) {
		wr.wr_id = 0x900 + i;
		CHECK(qrnic_post_srq_recv(&srq->ibv_srq, &wr, &bad) == 0);
	}
	dev_write_xrc_cqe(&dev, 0x999, 0x60001, 0x40002, 4, 0, 1);
	dev_write_xrc_cqe(&dev_o, 0x904, 0x60001, 0x40001, 4, 0, 1);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1 && wc[0].wr_id == 0x999 &&
	      wc[0].src_qp == 0);
	CHECK(qrnic_poll_cq(&other->vcq.cq, 4, wc) == 1 &&
	      wc[0].wr_id == 0x904);
	CHECK(atomic_load(&srq->wq.tail) == 4);
	dev_write_xrc_cqe(&dev, 0x904, 0x60001, 0x40001, 4, 0, 1);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1);
	CHECK(atomic_load(&srq->wq.tail) == 5);

	/* Cleaning a QP's completions leaves the XRC ones. */
	dev_write_xrc_cqe(&dev, 0x905, 0x50003, 0x40001, 5, 0, 1);
	qrnic_cq_clean(cq, 0x50003, NULL);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1 && wc[0].wr_id == 0x905);
	CHECK(atomic_load(&srq->wq.tail) == 6);
}

/* ibv_create_srq_ex of an XRC SRQ, ibv_get_srq_num, ibv_destroy_srq. */
static void test_xrc_srq_create(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 16, 204);
	struct qrnic_cq *other = fake_cq(ctx, 2, 207);
	struct fake_cq dev = { .cq = cq };
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_pd qpd = { .ibv_pd.context = ibctx };
	struct verbs_xrcd xrcd = { .xrcd.context = ibctx, .handle = 3 };
	struct ibv_srq_init_attr_ex ax = {
		.srq_context = &qpd,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = &qpd.ibv_pd,
		.xrcd = &xrcd.xrcd,
		.cq = &cq->vcq.cq,
	};
	struct ibv_srq_init_attr_ex a;
	struct ibv_recv_wr wr = {}, *bad;
	struct qrnic_srq *srq;
	struct ibv_srq *ibsrq;
	struct ibv_wc wc[4];
	uint32_t num = 0;
	unsigned int calls;

	/* Refused before the kernel. */
	calls = ksrq.create;
	a = ax;
	a.comp_mask &= ~IBV_SRQ_INIT_ATTR_CQ;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &a) && errno == EINVAL);
	a = ax;
	a.comp_mask &= ~IBV_SRQ_INIT_ATTR_XRCD;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &a) && errno == EINVAL);
	a = ax;
	a.cq = NULL;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &a) && errno == EINVAL);
	a = ax;
	a.comp_mask |= IBV_SRQ_INIT_ATTR_TM;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &a) && errno == EOPNOTSUPP);
	a = ax;
	a.srq_type = IBV_SRQT_TM;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &a) && errno == EOPNOTSUPP);
	CHECK(ksrq.create == calls);

	/* The kernel's refusal is the answer. */
	ksrq.ret = EOPNOTSUPP;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &ax) && errno == EOPNOTSUPP);
	CHECK(ksrq.create == calls + 1 && ksrq.attr.xrcd == &xrcd.xrcd &&
	      ksrq.attr.cq == &cq->vcq.cq);
	ksrq.ret = 0;

	ksrq.drv = (struct qrnic_uresp_create_srq){
		.qmem_len = 4096, .srqn = 0x40010, .log_depth = 2,
		.log_stride = 5, .max_sge = 1,
	};
	ibctx->cmd_fd = fake_cmd_fd(4096);
	ibsrq = qrnic_create_srq_ex(ibctx, &ax);
	close(ibctx->cmd_fd);
	ibctx->cmd_fd = -1;
	CHECK(ibsrq != NULL);
	if (!ibsrq)
		return;
	srq = to_qsrq(ibsrq);
	CHECK(srq->srqn == 0x40010 && srq->xrc_cq == cq &&
	      srq->vsrq.srq_type == IBV_SRQT_XRC && srq->wq.depth == 4);
	CHECK(ibsrq->context == ibctx && ibsrq->pd == &qpd.ibv_pd &&
	      ibsrq->srq_context == &qpd && ax.attr.max_wr == 4 &&
	      ax.attr.max_sge == 1);
	CHECK(qrnic_find_xrc_srq(ctx, 0x40010, cq) == srq &&
	      !qrnic_find_xrc_srq(ctx, 0x40010, other));
	CHECK(qrnic_get_srq_num(ibsrq, &num) == 0 && num == 0x40010);
	/* The same number twice is not tracked. */
	CHECK(qrnic_xsrq_table_insert(ctx, srq) == EEXIST);

	/* Posting is a basic SRQ's. */
	memset(srq->qmem, 0xa5, srq->qmem_len);
	db_clear(ctx);
	wr.wr_id = 0xa00;
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == 0);
	wr.wr_id = 0xa01;
	CHECK(qrnic_post_srq_recv(ibsrq, &wr, &bad) == 0);
	CHECK(db_read(ctx, QRNIC_DB_SRQ) == (0x40010ull | 2ull << 32));

	/*
	 * Destroyed with completions still in its CQ: they go, another QP's
	 * stays, and one naming it later finds nothing to free.
	 */
	dev_write_xrc_cqe(&dev, 0xa00, 0x60010, 0x40010, 0, 0, 1);
	dev_write_cqe(&dev, 0x55, 0x50099, 0, QRNIC_CQE_OP_SEND, 0,
		      QRNIC_CQE_F_SEND, 0, 0);
	dev_write_xrc_cqe(&dev, 0xa01, 0x60010, 0x40010, 1, 0, 1);
	calls = ksrq.destroy;
	CHECK(qrnic_destroy_srq(ibsrq) == 0 && ksrq.destroy == calls + 1);
	CHECK(!qrnic_find_xrc_srq(ctx, 0x40010, cq));
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1 && wc[0].wr_id == 0x55);
	dev_write_xrc_cqe(&dev, 0xa02, 0x60010, 0x40010, 2, 0, 1);
	CHECK(qrnic_poll_cq(&cq->vcq.cq, 4, wc) == 1 && wc[0].wr_id == 0xa02);

	/* A basic QP takes no XRC SRQ (nor does the kernel). */
	{
		struct qrnic_srq *x = fake_xrc_srq(ctx, 0x40011, 1, cq);
		struct ibv_qp_init_attr qa = {
			.send_cq = &cq->vcq.cq, .recv_cq = &cq->vcq.cq,
			.srq = &x->ibv_srq, .qp_type = IBV_QPT_RC,
		};

		calls = kcreate_qp.calls;
		errno = 0;
		CHECK(!qrnic_create_qp(&qpd.ibv_pd, &qa) && errno == EINVAL);
		CHECK(kcreate_qp.calls == calls);
	}
}

/* ibv_create_qp_ex of XRC_SEND and XRC_RECV QPs, through destroy. */
static void test_xrc_qp_create(struct qrnic_context *ctx)
{
	struct qrnic_cq *cq = fake_cq(ctx, 4, 205);
	struct qrnic_cq *cq2 = fake_cq(ctx, 4, 206);
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct qrnic_pd qpd = { .ibv_pd.context = ibctx };
	struct verbs_xrcd xrcd = { .xrcd.context = ibctx, .handle = 4 };
	struct ibv_qp_init_attr_ex ini = {
		.send_cq = &cq->vcq.cq,
		.recv_cq = &cq2->vcq.cq,	/* not looked at */
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_XRC_SEND,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = &qpd.ibv_pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp_init_attr_ex tgt = {
		.send_cq = &cq->vcq.cq, .recv_cq = &cq->vcq.cq,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8 },
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_PD,
		.pd = &qpd.ibv_pd,
		.xrcd = &xrcd.xrcd,
	};
	struct ibv_qp_init_attr_ex a;
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = {}, *rbad;
	struct ibv_qp_attr qattr = { .qp_state = IBV_QPS_RESET };
	struct ibv_qp *ibqp;
	struct qrnic_qp *qp;
	unsigned int calls = kcreate_qp.calls;
	unsigned int destroys;

	/* XRC_SEND: a send CQ, a PD, no SRQ; the table's send ops. */
	a = ini;
	a.send_cq = NULL;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EINVAL);
	a = ini;
	a.comp_mask &= ~IBV_QP_INIT_ATTR_PD;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EINVAL);
	a = ini;
	a.send_ops_flags |= IBV_QP_EX_WITH_BIND_MW;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EOPNOTSUPP);
	a.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EOPNOTSUPP);
	/* XRC_RECV: its domain; no send ops at all. */
	a = tgt;
	a.comp_mask &= ~IBV_QP_INIT_ATTR_XRCD;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EINVAL);
	a = tgt;
	a.xrcd = NULL;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EINVAL);
	a = tgt;
	a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(ibctx, &a) && errno == EOPNOTSUPP);
	CHECK(kcreate_qp.calls == calls);

	/* XRC_SEND: what the kernel gets has no receive CQ. */
	kcreate_qp.succeed = true;
	kcreate_qp.qpn = 0x50010;
	kcreate_qp.drv = (struct qrnic_uresp_create_qp){
		.qmem_len = 4096, .qpn = 0x50010, .log_sq_depth = 3,
		.log_sq_stride = 7, .max_send_sge = 4, .max_inline = 64,
	};
	a = ini;
	ibctx->cmd_fd = fake_cmd_fd(4096);
	ibqp = qrnic_create_qp_ex(ibctx, &a);
	close(ibctx->cmd_fd);
	ibctx->cmd_fd = -1;
	CHECK(ibqp != NULL);
	if (!ibqp)
		goto out;
	qp = to_qqp(ibqp);
	CHECK(kcreate_qp.attr.comp_mask == (IBV_QP_INIT_ATTR_PD |
					    IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	      !kcreate_qp.attr.recv_cq && !kcreate_qp.attr.srq &&
	      kcreate_qp.attr.cap.max_recv_wr == 0);
	CHECK(ibqp->send_cq == &cq->vcq.cq && !ibqp->recv_cq && !qp->srq &&
	      qp->qpn == 0x50010 && qrnic_find_qp(ctx, 0x50010) == qp);
	CHECK(qp->sq.depth == 8 && qp->rq.depth == 0 &&
	      a.cap.max_send_wr == 8 && a.cap.max_recv_wr == 0 &&
	      a.cap.max_recv_sge == 0);
	CHECK(qp->vqp.qp_ex.wr_set_xrc_srqn == qrnic_wr_set_xrc_srqn &&
	      qp->vqp.qp_ex.wr_send);
	CHECK(qrnic_modify_qp(ibqp, &qattr, IBV_QP_STATE) == 0);
	destroys = kqp.destroy;
	CHECK(qrnic_destroy_qp(ibqp) == 0 && kqp.destroy == destroys + 1);
	CHECK(!qrnic_find_qp(ctx, 0x50010));

	/*
	 * XRC_RECV: the kernel gets the domain alone; the driver's answer
	 * is not written (no udata from the core); nothing is mapped (no
	 * cmd_fd to map through).
	 */
	kcreate_qp.qpn = 0x50011;
	memset(&kcreate_qp.drv, 0, sizeof(kcreate_qp.drv));
	a = tgt;
	ibqp = qrnic_create_qp_ex(ibctx, &a);
	CHECK(ibqp != NULL);
	if (!ibqp)
		goto out;
	qp = to_qqp(ibqp);
	CHECK(kcreate_qp.attr.comp_mask == IBV_QP_INIT_ATTR_XRCD &&
	      kcreate_qp.attr.xrcd == &xrcd.xrcd && !kcreate_qp.attr.pd &&
	      !kcreate_qp.attr.send_cq && !kcreate_qp.attr.recv_cq);
	CHECK(!ibqp->pd && !ibqp->send_cq && !ibqp->recv_cq &&
	      ibqp->qp_type == IBV_QPT_XRC_RECV && qp->qpn == 0x50011 &&
	      !qp->qmem && !qp->parent_domain);
	CHECK(!qrnic_find_qp(ctx, 0x50011));
	CHECK(a.cap.max_send_wr == 0 && a.cap.max_recv_wr == 0 &&
	      a.cap.max_inline_data == 0);
	/* No queues: nothing to post, whatever its state. */
	qattr.qp_state = IBV_QPS_RTS;
	CHECK(qrnic_modify_qp(ibqp, &qattr, IBV_QP_STATE) == 0);
	sbad = NULL;
	CHECK(qrnic_post_send(ibqp, &swr, &sbad) == EINVAL && sbad == &swr);
	rbad = NULL;
	CHECK(qrnic_post_recv(ibqp, &rwr, &rbad) == EINVAL && rbad == &rwr);
	qattr.qp_state = IBV_QPS_RESET;
	CHECK(qrnic_modify_qp(ibqp, &qattr, IBV_QP_STATE) == 0);
	destroys = kqp.destroy;
	CHECK(qrnic_destroy_qp(ibqp) == 0 && kqp.destroy == destroys + 1);

	/* A failed destroy keeps the QP. */
	a = tgt;
	kcreate_qp.qpn = 0x50012;
	ibqp = qrnic_create_qp_ex(ibctx, &a);
	CHECK(ibqp != NULL);
	if (ibqp) {
		kqp.ret = EBUSY;
		CHECK(qrnic_destroy_qp(ibqp) == EBUSY);
		kqp.ret = 0;
		CHECK(qrnic_destroy_qp(ibqp) == 0);
	}
out:
	kcreate_qp.succeed = false;
}

/* ibv_open_qp: another handle on an XRC_RECV QP, queue-less. */
static void test_xrc_open_qp(struct qrnic_context *ctx)
{
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;
	struct verbs_xrcd xrcd = { .xrcd.context = ibctx, .handle = 5 };
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_CONTEXT | IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 0x60020,
		.xrcd = &xrcd.xrcd,
		.qp_context = &xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp_attr qattr = { .qp_state = IBV_QPS_RESET };
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_qp_open_attr a;
	struct ibv_qp *ibqp;
	struct qrnic_qp *qp;
	unsigned int opens = kqp.open;

	a = oa;
	a.qp_type = IBV_QPT_RC;
	errno = 0;
	CHECK(!qrnic_open_qp(ibctx, &a) && errno == EINVAL);
	CHECK(kqp.open == opens);
	a = oa;
	a.comp_mask &= ~IBV_QP_OPEN_ATTR_TYPE;
	errno = 0;
	CHECK(!qrnic_open_qp(ibctx, &a) && errno == EINVAL);
	kqp.ret = ENOENT;
	errno = 0;
	CHECK(!qrnic_open_qp(ibctx, &oa) && errno == ENOENT);
	kqp.ret = 0;

	ibqp = qrnic_open_qp(ibctx, &oa);
	CHECK(ibqp != NULL);
	if (!ibqp)
		return;
	qp = to_qqp(ibqp);
	CHECK(ibqp->qp_num == 0x60020 && qp->qpn == 0x60020 &&
	      ibqp->qp_type == IBV_QPT_XRC_RECV && ibqp->qp_context == &xrcd &&
	      !qp->qmem && qp->sq.depth == 0 && qp->rq.depth == 0 &&
	      !qrnic_find_qp(ctx, 0x60020));
	sbad = NULL;
	CHECK(qrnic_post_send(ibqp, &swr, &sbad) == EINVAL && sbad == &swr);
	CHECK(qrnic_modify_qp(ibqp, &qattr, IBV_QP_STATE) == 0);
	CHECK(qrnic_destroy_qp(ibqp) == 0);
}

int main(void)
{
	struct qrnic_context *ctx = fake_ctx();

	test_cq_sizes();
	test_send_path(ctx);
	test_recv_path(ctx, 4);
	test_recv_path(ctx, 5);
	test_recv_path(ctx, 6);
	test_recv_path(ctx, 8);
	test_cq_clean(ctx);
	test_cq_ex(ctx);
	test_cq_resize(ctx);
	test_wr_api(ctx);
	test_ud_send(ctx);
	test_ud_recv(ctx);
	test_ud_cq_clean(ctx);
	test_ud_cq_ex(ctx);
	test_ud_wr_api(ctx);
	test_ud_create_checks(ctx);
	test_create_flags(ctx);
	test_mcast(ctx);
	test_srq_setup(ctx);
	test_srq_post(ctx, 4);
	test_srq_post(ctx, 5);
	test_srq_post(ctx, 6);
	test_srq_post(ctx, 8);
	test_srq_order(ctx);
	test_srq_random_order(ctx, 0);
	test_srq_random_order(ctx, 3);
	test_srq_random_order(ctx, 6);
	test_srq_clean(ctx);
	test_srq_qp_post_recv(ctx);
	test_srq_create_checks(ctx);
	test_uc_send(ctx);
	test_uc_wr_api(ctx);
	test_stress(ctx);
	test_srq_stress(ctx);
	test_cq_resize_stress(ctx);
	test_mw_post_send(ctx);
	test_mw_bind_type1(ctx);
	test_mw_wr_api(ctx);
	test_mw_cq(ctx);
	test_mw_alloc(ctx);
	test_srq_resize(ctx);
	test_parent_domain(ctx);
	test_parent_domain_cq(ctx);
	test_rereg_mr(ctx);
	test_xrc_send_ops();
	test_xrc_post_send(ctx);
	test_xrc_wr_api(ctx);
	test_xrc_cqe(ctx);
	test_xrc_srq_create(ctx);
	test_xrc_qp_create(ctx);
	test_xrc_open_qp(ctx);

	if (failures) {
		fprintf(stderr, "dp_test: %d check(s) failed\n", failures);
		return 1;
	}
	printf("dp_test: all checks passed\n");
	return 0;
}
