// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qrnic-isolation quota KIND, victim: one user context cannot take a
 * device table, the key space or queue memory from the others.
 *
 * quota KIND allocates one kind until the device refuses:
 *   pd cq qp srq mr mw   one object at a time (a PD comes with the context)
 *   qmem                 QPs on an SRQ, each SQ as large as still fits
 *                        (halved on each refusal down to one WR), so the
 *                        context's queue memory pages end exactly full
 *   mr-pages             regions over one buffer, halved likewise; what
 *                        the device charged for each (res_mr_pages) counts
 *   ctx                  contexts (ibv_open_device) until the device has no
 *                        doorbell page left: ENOMEM
 *   ctx-cgroup           the same inside an rdma cgroup whose hca_handle
 *                        limit is --limit: EAGAIN
 *   xrcd                 XRC domains (the first one --xrcd's file's, if
 *                        given): the driver's limit (as many as PDs), so
 *                        no refusal is the device's
 *   xrc-tgt              XRC_TGT QPs in one domain: a new one, or with
 *                        --xrcd the file's, which another process
 *                        allocated: then they count against that
 *                        process's context, and this context still
 *                        creates an RC QP after the last refusal
 * The last refusal must be ENOMEM (EAGAIN), the count (pages) reached must
 * be --limit, and every refusal of a device quota must be counted in the
 * hw counter ctx_over_quota.  Then it writes --ready and holds everything
 * until --release appears.
 *
 * victim creates one of each kind and sends 4 KiB through its SRQ;
 * victim-xrc an XRC domain, an XRC SRQ and an XRC_TGT QP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rc-isolation.h"

struct hold {
	struct rc_dev d;
	const char *kind;
	void **obj;
	int n, cap;
	int refusals, err;
	long reached;
	long base_pages;	/* qmem: uverbs pages before the SRQ (the doorbell) */
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_xrcd *xrcd;	/* xrc-tgt: the domain its QPs go into */
	int xrcd_fd;		/* its file's, or -1 */
	uint8_t *buf;
	size_t buf_len;
};

static void push(struct hold *h, void *o)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? 2 * h->cap : 64;
		h->obj = realloc(h->obj, h->cap * sizeof(*h->obj));
		if (!h->obj)
			die("out of memory");
	}
	h->obj[h->n++] = o;
}

static struct ibv_qp *small_qp(struct hold *h, uint32_t send_wr, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = { .send_cq = h->cq, .recv_cq = h->cq, .qp_type = IBV_QPT_RC,
				       .srq = srq, .cap = { send_wr, srq ? 0 : 1, 1, 1, 0 } };

	return ibv_create_qp(h->d.pd, &ia);
}

/* An XRC domain: path's (created if need be, fd kept open in *fd), or a
 * new one of its own (path NULL). */
static struct ibv_xrcd *open_xrcd(struct ibv_context *ctx, const char *path, int *fd)
{
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
					 .fd = -1, .oflags = O_CREAT };

	*fd = -1;
	if (path) {
		*fd = open(path, O_RDWR | O_CREAT, 0600);
		if (*fd < 0)
			return NULL;
		xa.fd = *fd;
	}
	return ibv_open_xrcd(ctx, &xa);
}

static struct ibv_qp *xrc_tgt_qp(struct ibv_context *ctx, struct ibv_xrcd *xrcd)
{
	struct ibv_qp_init_attr_ex ia = { .qp_type = IBV_QPT_XRC_RECV,
					  .comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd };

	return ibv_create_qp_ex(ctx, &ia);
}

/* One more object of a counted kind, or NULL (errno). */
static void *alloc_one(struct hold *h)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };
	const char *k = h->kind;

	if (!strcmp(k, "pd"))
		return ibv_alloc_pd(h->d.ctx);
	if (!strcmp(k, "cq"))
		return ibv_create_cq(h->d.ctx, 1, NULL, NULL, 0);
	if (!strcmp(k, "qp"))
		return small_qp(h, 1, NULL);
	if (!strcmp(k, "srq"))
		return ibv_create_srq(h->d.pd, &sa);
	if (!strcmp(k, "mr"))
		return ibv_reg_mr(h->d.pd, h->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!strcmp(k, "mw"))
		return ibv_alloc_mw(h->d.pd, IBV_MW_TYPE_1);
	if (!strcmp(k, "xrcd")) {
		int fd;
		struct ibv_xrcd *x = open_xrcd(h->d.ctx, h->n ? NULL : iso.xrcd, &fd);

		if (fd >= 0 && !x)
			close(fd);
		else if (fd >= 0)
			h->xrcd_fd = fd;
		return x;
	}
	if (!strcmp(k, "xrc-tgt"))
		return xrc_tgt_qp(h->d.ctx, h->xrcd);
	return ibv_open_device(h->d.ctx->device);	/* ctx, ctx-cgroup */
}

static void free_one(struct hold *h, void *o)
{
	const char *k = h->kind;
	int r;

	if (!strcmp(k, "pd"))
		r = ibv_dealloc_pd(o);
	else if (!strcmp(k, "cq"))
		r = ibv_destroy_cq(o);
	else if (!strcmp(k, "qp") || !strcmp(k, "qmem") || !strcmp(k, "xrc-tgt"))
		r = ibv_destroy_qp(o);
	else if (!strcmp(k, "xrcd"))
		r = ibv_close_xrcd(o);
	else if (!strcmp(k, "srq"))
		r = ibv_destroy_srq(o);
	else if (!strcmp(k, "mr") || !strcmp(k, "mr-pages"))
		r = ibv_dereg_mr(o);
	else if (!strcmp(k, "mw"))
		r = ibv_dealloc_mw(o);
	else
		r = ibv_close_device(o);
	if (r)
		not_ok("quota %s: freeing object: %s", k, strerror(r > 0 ? r : errno));
}

/* One object at a time until refused; bounded, so a missing limit ends. */
static void fill_count(struct hold *h, long bound)
{
	void *o;

	while (h->n < bound) {
		o = alloc_one(h);
		if (!o) {
			h->err = errno;
			h->refusals = 1;
			break;
		}
		push(h, o);
	}
	h->reached = h->n + (!strcmp(h->kind, "pd") || !strncmp(h->kind, "ctx", 3));
}

/* One object of size units (WRs or pages), or NULL (errno). */
static void *alloc_sized(struct hold *h, long size)
{
	if (!strcmp(h->kind, "qmem"))
		return small_qp(h, size, h->srq);
	return ibv_reg_mr(h->d.pd, h->buf, size * 4096, IBV_ACCESS_LOCAL_WRITE);
}

/*
 * What the device charged for a region: its page addresses, which are
 * fewer than its 4 KiB pages where the kernel found physically contiguous
 * aligned runs (ib_umem_find_best_pgsz).  Nothing else registers memory
 * meanwhile, so the device's count moves by this region alone.
 */
static long mr_pages_now(struct hold *h)
{
	return iso_hw_counter(&h->d, "res_mr_pages");
}

/* As large as still fits, halved on each refusal, down to one unit. */
static void fill_greedy(struct hold *h, long size)
{
	int mr = !strcmp(h->kind, "mr-pages");
	long before = mr ? mr_pages_now(h) : 0;
	void *o;

	while (size >= 1) {
		o = alloc_sized(h, size);
		if (o) {
			long now = mr ? mr_pages_now(h) : 0;

			push(h, o);
			h->reached += mr ? now - before : size;
			before = now;
			continue;
		}
		h->err = errno;
		if (errno != ENOMEM)
			break;
		h->refusals++;
		size /= 2;
	}
	/* Queue memory in pages: what this context has mapped besides its
	 * doorbell page (the SRQ and the QPs). */
	if (!strcmp(h->kind, "qmem"))
		h->reached = iso_uverbs_pages() - h->base_pages;
}

static void setup(struct hold *h)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 1, .max_sge = 1 } };
	long pages = 1;

	rc_dev_open(&h->d);
	h->xrcd_fd = -1;
	if (!strcmp(h->kind, "xrc-tgt")) {
		h->xrcd = open_xrcd(h->d.ctx, iso.xrcd, &h->xrcd_fd);
		if (!h->xrcd)
			die("quota xrc-tgt: ibv_open_xrcd(%s): %s", iso.xrcd ? iso.xrcd : "new",
			    strerror(errno));
		return;
	}
	if (!strcmp(h->kind, "qp") || !strcmp(h->kind, "qmem")) {
		h->cq = ibv_create_cq(h->d.ctx, 16, NULL, NULL, 0);
		if (!h->cq)
			die("quota %s: ibv_create_cq: %s", h->kind, strerror(errno));
	}
	if (!strcmp(h->kind, "qmem")) {
		h->base_pages = iso_uverbs_pages();
		h->srq = ibv_create_srq(h->d.pd, &sa);
		if (!h->srq)
			die("quota qmem: ibv_create_srq: %s", strerror(errno));
		return;
	}
	if (!strcmp(h->kind, "mr-pages"))
		pages = iso.limit > 16384 ? 16384 : iso.limit;
	h->buf_len = pages * 4096;
	h->buf = mmap(NULL, h->buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (h->buf == MAP_FAILED)
		die("quota %s: mmap %zu bytes: %s", h->kind, h->buf_len, strerror(errno));
	/* Huge pages would make a region a few page addresses. */
	madvise(h->buf, h->buf_len, MADV_NOHUGEPAGE);
	memset(h->buf, 0x25, h->buf_len);
}

static void report(struct hold *h, long counted, int want_err)
{
	const char *unit = !strcmp(h->kind, "qmem") || !strcmp(h->kind, "mr-pages") ? " pages" : "";

	if (h->err != want_err)
		not_ok("quota %s: refused after %ld%s with %s (%d), not %s", h->kind, h->reached, unit,
		       strerror(h->err), h->err, strerror(want_err));
	else if (h->reached != iso.limit)
		not_ok("quota %s: refused (%s) after %ld%s, but the limit is %ld", h->kind,
		       strerror(h->err), h->reached, unit, iso.limit);
	else
		ok("quota %s: %ld%s reached, the limit, then %s; %d refusal(s), ctx_over_quota +%ld",
		   h->kind, h->reached, unit, strerror(h->err), h->refusals, counted);
	if (counted < 0)
		not_ok("quota %s: hw counter ctx_over_quota not readable", h->kind);
	/* The driver limits XRC domains: the device does not know them. */
	if (!strcmp(h->kind, "xrcd") && counted)
		not_ok("quota xrcd: the driver refused, yet ctx_over_quota moved by %ld", counted);
	/* Contexts are not a quota: the device has no doorbell page left. */
	if (strncmp(h->kind, "ctx", 3) && strcmp(h->kind, "xrcd") && counted != h->refusals)
		not_ok("quota %s: %d refusal(s) but ctx_over_quota moved by %ld: not all were the device's quota",
		       h->kind, h->refusals, counted);
}

static const char *const kinds[] = { "pd", "cq", "qp", "srq", "mr", "mw", "qmem", "mr-pages",
				      "ctx", "ctx-cgroup", "xrcd", "xrc-tgt" };

/* XRC_TGT QPs in another process's domain count against that process's
 * context: this one still has all its QPs. */
static void own_qp_after_xrc(struct hold *h)
{
	struct ibv_qp *qp;

	h->cq = ibv_create_cq(h->d.ctx, 16, NULL, NULL, 0);
	qp = h->cq ? small_qp(h, 1, NULL) : NULL;
	if (qp)
		ok("quota xrc-tgt: this context still creates an RC QP (its XRC_TGT QPs count against the domain's owner)");
	else
		not_ok("quota xrc-tgt: this context's own RC QP: %s (XRC_TGT QPs of another's domain were charged here)",
		       strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
}

int mode_quota(const char *kind)
{
	struct hold h = { .kind = kind };
	long before, after;
	size_t i;
	char text[128];

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && strcmp(kind, kinds[i]); i++)
		;
	if (i == sizeof(kinds) / sizeof(kinds[0]) || iso.limit < 1) {
		fprintf(stderr, "qrnic-isolation: quota KIND (%s) needs a known KIND and --limit\n",
			kind);
		return 2;
	}
	setup(&h);
	before = iso_hw_counter(&h.d, "ctx_over_quota");
	if (!strcmp(kind, "qmem"))
		fill_greedy(&h, h.d.attr.max_qp_wr);
	else if (!strcmp(kind, "mr-pages"))
		fill_greedy(&h, h.buf_len / 4096);
	else
		fill_count(&h, iso.limit + 64);
	after = iso_hw_counter(&h.d, "ctx_over_quota");
	if (!strcmp(kind, "xrc-tgt") && iso.xrcd)
		own_qp_after_xrc(&h);
	report(&h, before < 0 || after < 0 ? -1 : after - before, !strcmp(kind, "ctx-cgroup") ? EAGAIN : ENOMEM);
	snprintf(text, sizeof(text), "%s %ld refusals %d errno %d\n", kind, h.reached, h.refusals,
		 h.err);
	if (iso.ready && iso_write_file(iso.ready, text))
		return -1;
	iso_hold(kind);
	while (h.n)
		free_one(&h, h.obj[--h.n]);
	if (h.xrcd && ibv_close_xrcd(h.xrcd))
		not_ok("quota %s: ibv_close_xrcd: %s", kind, strerror(errno));
	if (h.xrcd_fd >= 0)
		close(h.xrcd_fd);
	if (h.srq)
		ibv_destroy_srq(h.srq);
	if (h.cq)
		ibv_destroy_cq(h.cq);
	rc_dev_close(&h.d);
	free(h.obj);
	if (h.buf)
		munmap(h.buf, h.buf_len);
	return 0;
}

/* ---- victim ------------------------------------------------------------------ */

int mode_victim(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct rc_conn a = { 0 }, b = { 0 };
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct rc_dev d;
	uint8_t *buf;
	uint32_t seed = lrand48();
	struct ibv_sge sge;
	struct ibv_recv_wr wr = { .wr_id = 0x77, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r = -1;

	rc_dev_open(&d);
	buf = rc_alloc(8 * KIB);
	mr = rc_reg(&d, buf, 8 * KIB, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	srq = ibv_create_srq(d.pd, &sa);
	mw = ibv_alloc_mw(d.pd, IBV_MW_TYPE_1);
	if (!srq || !mw) {
		not_ok("victim: %s: %s", srq ? "ibv_alloc_mw" : "ibv_create_srq", strerror(errno));
		return -1;
	}
	if (iso_pair(&d, &a, &b, "victim", 16, srq))
		return -1;
	sge = (struct ibv_sge){ (uintptr_t)buf + 4 * KIB, 4 * KIB, mr->lkey };
	pat_fill(buf, 4 * KIB, seed);
	if (ibv_post_srq_recv(srq, &wr, &bad))
		not_ok("victim: ibv_post_srq_recv: %s", strerror(errno));
	else if (!iso_send_check(&a, &b, mr, buf, 4 * KIB, 0x77, "victim") &&
		 !pat_check(buf + 4 * KIB, 4 * KIB, seed, "victim"))
		r = 0;
	if (!r)
		ok("victim: a PD, 4 CQs, 2 QPs, an SRQ, an MR and an MW created; 4 KiB SENT through the SRQ arrived intact");
	else
		not_ok("victim: the SEND through the SRQ did not arrive intact");
	rc_conn_destroy(&b);
	rc_conn_destroy(&a);
	ibv_destroy_srq(srq);
	ibv_dealloc_mw(mw);
	ibv_dereg_mr(mr);
	rc_dev_close(&d);
	free(buf);
	return r;
}

int mode_victim_xrc(void)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 }, .srq_type = IBV_SRQT_XRC,
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ };
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq;
	struct rc_dev d;
	uint32_t srqn = 0;
	int fd, r = -1;

	rc_dev_open(&d);
	sa.pd = d.pd;
	sa.xrcd = open_xrcd(d.ctx, NULL, &fd);
	cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	sa.cq = cq;
	if (sa.xrcd && cq)
		srq = ibv_create_srq_ex(d.ctx, &sa);
	if (srq && !ibv_get_srq_num(srq, &srqn))
		qp = xrc_tgt_qp(d.ctx, sa.xrcd);
	if (qp) {
		ok("victim-xrc: an XRC domain, an XRC SRQ (number %u) and an XRC_TGT QP (%#x) created",
		   srqn, qp->qp_num);
		r = 0;
	} else {
		not_ok("victim-xrc: %s: %s", !sa.xrcd ? "ibv_open_xrcd" : !cq ? "ibv_create_cq" :
		       !srq ? "ibv_create_srq_ex" : "ibv_create_qp_ex(XRC_TGT)", strerror(errno));
	}
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	if (cq)
		ibv_destroy_cq(cq);
	if (sa.xrcd)
		ibv_close_xrcd(sa.xrcd);
	rc_dev_close(&d);
	return r;
}
