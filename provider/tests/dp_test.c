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

#include "../cq.c"
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
	struct qrnic_cq *cq = qrnic_cq_alloc(cqe);

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
} kcreate_qp;

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
	return ENOTTY;
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
		r->pi = d->pi & 0xffff;
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

	cq = qrnic_cq_alloc(1);
	CHECK(cq && cq->log_depth == 1 && cq->depth == 2);
	CHECK(cq && cq->buf_size == 4096);
	CHECK(cq && (uint8_t *)cq->rec == (uint8_t *)cq->buf + 2 * 32);
	qrnic_cq_free(cq);

	cq = qrnic_cq_alloc(3);
	CHECK(cq && cq->depth == 4);
	qrnic_cq_free(cq);

	cq = qrnic_cq_alloc(128);
	CHECK(cq && cq->depth == 128 && cq->buf_size == 8192);
	qrnic_cq_free(cq);

	cq = qrnic_cq_alloc(1u << QRNIC_CQ_MAX_LOG);
	CHECK(cq && cq->log_depth == QRNIC_CQ_MAX_LOG);
	qrnic_cq_free(cq);

	errno = 0;
	CHECK(!qrnic_cq_alloc((1u << QRNIC_CQ_MAX_LOG) + 1) && errno == EINVAL);
	errno = 0;
	CHECK(!qrnic_cq_alloc(0) && errno == EINVAL);
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
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		wr[1].opcode = bad_ops[i];
		wr[1].wr.ud.ah = ah2;
		db_clear(ctx);
		bad = NULL;
		CHECK(qrnic_post_send(ibqp, &wr[1], &bad) == EINVAL &&
		      bad == &wr[1]);
		CHECK(qp->sq.pi == 2 && db_read(ctx, QRNIC_DB_SQ) == 0);
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
	struct ibv_pd pd = { .context = &ctx->ibv_ctx.context };
	struct ibv_srq srq = {};
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = &cq->vcq.cq,
		.recv_cq = &cq->vcq.cq,
		.qp_type = IBV_QPT_UD,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = &pd,
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
	/* No raw packet, no XRC through create_qp. */
	a.qp_type = IBV_QPT_RAW_PACKET;
	errno = 0;
	CHECK(!qrnic_create_qp(&pd, &a) && errno == EOPNOTSUPP);
	a.qp_type = IBV_QPT_XRC_SEND;
	a.srq = &srq;
	errno = 0;
	CHECK(!qrnic_create_qp(&pd, &a) && errno == EOPNOTSUPP);
	ax.qp_type = IBV_QPT_XRC_RECV;
	ax.send_ops_flags = 0;
	errno = 0;
	CHECK(!qrnic_create_qp_ex(&ctx->ibv_ctx.context, &ax) &&
	      errno == EOPNOTSUPP);

	/* RoCE AHs carry a GRH. */
	ud_attr(&ah_attr, 1, 0, 0, 0);
	ah_attr.is_global = 0;
	errno = 0;
	CHECK(!qrnic_create_ah(&pd, &ah_attr) && errno == EINVAL);
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
	struct ibv_pd pd = { .context = &ctx->ibv_ctx.context };
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = &cq->vcq.cq,
		.recv_cq = &cq->vcq.cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.pd = &pd,
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
	struct qrnic_create_srq_resp resp = {};
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
	struct qrnic_create_srq_resp good = {
		.qmem_len = 4096, .srqn = 3, .log_depth = 3,
		.log_stride = 6, .max_sge = 16,
	};
	struct qrnic_create_srq_resp r;
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
	struct ibv_pd pd = { .context = &ctx->ibv_ctx.context };
	struct ibv_srq_init_attr_ex ax = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		.pd = &pd,
	};
	struct ibv_context *ibctx = &ctx->ibv_ctx.context;

	ax.srq_type = IBV_SRQT_XRC;
	errno = 0;
	CHECK(!qrnic_create_srq_ex(ibctx, &ax) && errno == EOPNOTSUPP);
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
		IBV_WR_BIND_MW, IBV_WR_SEND_WITH_INV, IBV_WR_TSO,
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

	/* No READ, no atomics, nothing else: EINVAL, nothing rung. */
	wr[4] = wr[2];
	wr[4].next = NULL;
	for (i = 0; i < N_ELEMS(bad_ops); i++) {
		wr[4].opcode = bad_ops[i];
		wr[4].wr.atomic.remote_addr = 0x8000;
		db_clear(ctx);
		bad = NULL;
		CHECK(qrnic_post_send(ibqp, &wr[4], &bad) == EINVAL &&
		      bad == &wr[4]);
		CHECK(qp->sq.pi == 4 && db_read(ctx, QRNIC_DB_SQ) == 0);
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
	struct ibv_pd pd = { .context = &ctx->ibv_ctx.context };
	struct ibv_qp_init_attr_ex ax = {
		.send_cq = &cq2->vcq.cq,
		.recv_cq = &cq2->vcq.cq,
		.qp_type = IBV_QPT_UC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = &pd,
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

	if (failures) {
		fprintf(stderr, "dp_test: %d check(s) failed\n", failures);
		return 1;
	}
	printf("dp_test: all checks passed\n");
	return 0;
}
