// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qrnic-isolation fill, scan, bar4: no byte another user or the kernel
 * wrote into queue memory is readable by the next owner of the pages.
 *
 *  fill   (the victim) RC loopback pair, one QP on an SRQ, and a UD QP
 *         sending to itself: inline SENDs and WRITEs whose payload words,
 *         wr_ids and addresses (a buffer mapped at MARK_BASE) carry the
 *         marker; the marker must then be in its own rings, or the test
 *         would prove nothing.  Holds until released, then exits.
 *  scan   (the attacker) creates QPs and SRQs of the victim's sizes and
 *         others, so the driver's first-fit allocator hands it the pages
 *         the victim (and the kernel) left; before posting anything reads
 *         every mapping of the uverbs device in its address space (the
 *         context's doorbell page and its queue slices): every byte must
 *         be 0.
 *  bar4   (root, kernel booted with iomem=relaxed) the device's queue
 *         memory as a whole through sysfs resource4: which pages hold the
 *         marker, kernel-pointer words or anything at all, so the script
 *         can show the scan's pages held the victim's and the kernel's
 *         data before the scan claimed them.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc-isolation.h"

#define MARK_LEN	(64 * KIB)
#define QKEY		0x11110025u
#define MAX_MAPS	4096

/* What reading some memory found. */
struct found {
	size_t bytes, nonzero, marker, kptr;
	int maps;
};

static void look_word(struct found *f, uint64_t w)
{
	int i;

	f->bytes += 8;
	if (!w)
		return;
	for (i = 0; i < 8; i++)
		f->nonzero += ((w >> (8 * i)) & 0xff) != 0;
	if (w == MARK_WORD || (w & MARK_MASK) == MARK_BASE)
		f->marker++;
	if ((w & KPTR_MASK) == KPTR_MASK)
		f->kptr++;
}

/* 8-byte loads only: the doorbell BAR takes 4- and 8-byte accesses. */
static void look_range(struct found *f, const volatile uint64_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len / 8; i++)
		look_word(f, p[i]);
}

/* The mappings of the uverbs device in this process. */
int iso_uverbs_maps(struct iso_map *m, int max)
{
	char line[512], perms[8], path[256];
	unsigned long s, e;
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		die("cannot open /proc/self/maps: %s", strerror(errno));
	while (fgets(line, sizeof(line), f) && n < max) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &s, &e, perms, path) < 3)
			continue;
		if (strncmp(path, "/dev/infiniband/uverbs", 22))
			continue;
		m[n].start = s;
		m[n].end = e;
		m[n].readable = perms[0] == 'r';
		n++;
	}
	fclose(f);
	return n;
}

long iso_uverbs_pages(void)
{
	struct iso_map m[MAX_MAPS];
	int i, n = iso_uverbs_maps(m, MAX_MAPS);
	long pages = 0;

	for (i = 0; i < n; i++)
		pages += (m[i].end - m[i].start) / 4096;
	return pages;
}

static int in_list(const struct iso_map *m, int n, uintptr_t start)
{
	while (n--)
		if (m[n].start == start)
			return 1;
	return 0;
}

/*
 * Read every uverbs mapping: those in db[0..ndb) (the doorbell page, the
 * context's first mapping) into *fdb, the rest (queue slices) into *fq.
 * The provider maps the doorbell page write-only; this is the context's
 * own mapping, so the attacker may make it readable.
 */
static void read_maps(const struct iso_map *db, int ndb, struct found *fdb, struct found *fq)
{
	struct iso_map m[MAX_MAPS];
	int i, n = iso_uverbs_maps(m, MAX_MAPS);

	for (i = 0; i < n; i++) {
		struct found *f = in_list(db, ndb, m[i].start) ? fdb : fq;
		size_t len = m[i].end - m[i].start;

		if (!m[i].readable && mprotect((void *)m[i].start, len, PROT_READ | PROT_WRITE)) {
			not_ok("mprotect PROT_READ of the uverbs mapping at %#lx: %s",
			       (unsigned long)m[i].start, strerror(errno));
			continue;
		}
		look_range(f, (const volatile uint64_t *)m[i].start, len);
		f->maps++;
	}
}

/* ---- fill --------------------------------------------------------------- */

struct fill {
	struct rc_dev d;
	uint8_t *mark;
	struct ibv_mr *mr;
	struct ibv_srq *srq;
	struct rc_conn a, b;
	struct ibv_cq *ucq;
	struct ibv_qp *uqp;
	struct ibv_ah *ah;
};

static void fill_mark_buffer(struct fill *t)
{
	uint64_t *w;
	size_t i;

	t->mark = mmap((void *)MARK_BASE, MARK_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (t->mark == MAP_FAILED || t->mark != (void *)MARK_BASE)
		die("cannot map the marker buffer at %#llx: %s", MARK_BASE, strerror(errno));
	w = (uint64_t *)t->mark;
	for (i = 0; i < MARK_LEN / 8; i++)
		w[i] = MARK_WORD;
	t->mr = rc_reg(&t->d, t->mark, MARK_LEN, IBV_ACCESS_LOCAL_WRITE |
		       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

/* n receives of 256 bytes each into the marker buffer, marked wr_ids. */
static int fill_post_recvs(struct fill *t, struct ibv_qp *qp, struct ibv_srq *srq, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { MARK_BASE + 256 * i, 256, t->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = MARK_WORD + i, .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		if (srq ? ibv_post_srq_recv(srq, &wr, &bad) : ibv_post_recv(qp, &wr, &bad)) {
			not_ok("fill: posting receive %d: %s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Inline SENDs to the SRQ and inline WRITEs into the marker buffer. */
static int fill_rc(struct fill *t, int n)
{
	struct ibv_wc wc;
	int i, got;

	for (i = 0; i < 2 * n; i++) {
		struct ibv_sge sge = { MARK_BASE + 32 * KIB, 64, t->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = MARK_WORD + i, .sg_list = &sge, .num_sge = 1,
					  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE }, *bad;

		wr.opcode = i % 2 ? IBV_WR_RDMA_WRITE : IBV_WR_SEND;
		wr.wr.rdma.remote_addr = MARK_BASE + 40 * KIB + 64 * i;
		wr.wr.rdma.rkey = t->mr->rkey;
		if (ibv_post_send(t->a.qp, &wr, &bad)) {
			not_ok("fill: posting SEND/WRITE %d: %s", i, strerror(errno));
			return -1;
		}
	}
	for (got = 0; got < 2 * n; got++)
		if (rc_poll(t->a.scq, &wc, opt.timeout) != 1 || wc.status != IBV_WC_SUCCESS) {
			not_ok("fill: RC send completion %d of %d missing or failed", got, 2 * n);
			return -1;
		}
	for (got = 0; got < n; got++)
		if (rc_poll(t->b.rcq, &wc, opt.timeout) != 1 || wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != MARK_WORD + got) {
			not_ok("fill: SRQ receive completion %d of %d missing or wrong", got, n);
			return -1;
		}
	return 0;
}

static int fill_ud_create(struct fill *t)
{
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_UD, .sq_sig_all = 1,
				       .cap = { 16, 16, 1, 1, 64 } };
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = QKEY };
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1 };

	t->ucq = ibv_create_cq(t->d.ctx, 64, NULL, NULL, 0);
	ia.send_cq = ia.recv_cq = t->ucq;
	t->uqp = t->ucq ? ibv_create_qp(t->d.pd, &ia) : NULL;
	if (!t->uqp) {
		not_ok("fill: UD QP: %s", strerror(errno));
		return -1;
	}
	if (ibv_modify_qp(t->uqp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(t->uqp, &qa, IBV_QP_STATE))
		return -1;
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = 0;
	if (ibv_modify_qp(t->uqp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return -1;
	ah.grh.dgid = t->d.gid;
	ah.grh.sgid_index = t->d.gid_idx;
	ah.grh.hop_limit = 64;
	t->ah = ibv_create_ah(t->d.pd, &ah);
	return t->ah ? 0 : -1;
}

/* n inline datagrams to itself, each received. */
static int fill_ud(struct fill *t, int n)
{
	struct ibv_wc wc;
	int i, got;

	if (fill_ud_create(t)) {
		not_ok("fill: UD QP to RTS with an AH to itself: %s", strerror(errno));
		return -1;
	}
	if (fill_post_recvs(t, t->uqp, NULL, n))
		return -1;
	for (i = 0; i < n; i++) {
		struct ibv_sge sge = { MARK_BASE + 32 * KIB, 64, t->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = MARK_WORD + i, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE }, *bad;

		wr.wr.ud.ah = t->ah;
		wr.wr.ud.remote_qpn = t->uqp->qp_num;
		wr.wr.ud.remote_qkey = QKEY;
		if (ibv_post_send(t->uqp, &wr, &bad)) {
			not_ok("fill: posting datagram %d: %s", i, strerror(errno));
			return -1;
		}
	}
	for (got = 0; got < 2 * n; got++)
		if (rc_poll(t->ucq, &wc, opt.timeout) != 1 || wc.status != IBV_WC_SUCCESS) {
			not_ok("fill: UD completion %d of %d missing or failed", got, 2 * n);
			return -1;
		}
	return 0;
}

static void fill_destroy(struct fill *t)
{
	if (t->ah)
		ibv_destroy_ah(t->ah);
	if (t->uqp)
		ibv_destroy_qp(t->uqp);
	if (t->ucq)
		ibv_destroy_cq(t->ucq);
	rc_conn_destroy(&t->b);
	rc_conn_destroy(&t->a);
	if (t->srq)
		ibv_destroy_srq(t->srq);
	ibv_dereg_mr(t->mr);
	rc_dev_close(&t->d);
}

int mode_fill(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct found fdb = { 0 }, fq = { 0 };
	struct fill t = { 0 };
	char text[128];

	rc_dev_open(&t.d);
	fill_mark_buffer(&t);
	t.srq = ibv_create_srq(t.d.pd, &sa);
	if (!t.srq)
		die("fill: ibv_create_srq: %s", strerror(errno));
	if (iso_pair(&t.d, &t.a, &t.b, "fill", 64, t.srq) ||
	    fill_post_recvs(&t, NULL, t.srq, 48) || fill_post_recvs(&t, t.a.qp, NULL, 48) ||
	    fill_rc(&t, 24) || fill_ud(&t, 12))
		die("fill: the victim's traffic failed");
	read_maps(NULL, 0, &fdb, &fq);
	if (fq.marker)
		ok("fill: the victim's RC, SRQ and UD queues (%d mappings, %zu bytes) hold %zu marker words",
		   fq.maps, fq.bytes, fq.marker);
	else
		not_ok("fill: no marker word in the victim's own queues (%d mappings, %zu bytes)",
		       fq.maps, fq.bytes);
	snprintf(text, sizeof(text), "pid %d marker %zu\n", (int)getpid(), fq.marker);
	if (iso.ready && iso_write_file(iso.ready, text))
		return -1;
	iso_hold("fill");
	fill_destroy(&t);
	return 0;
}

/* ---- scan ----------------------------------------------------------------- */

/* QP shapes: the victim's (depth 64, inline 64, with an RQ or on the SRQ;
 * the UD QP's 16) first, then others. */
static const struct { int depth, inline_len, on_srq; enum ibv_qp_type type; } shapes[] = {
	{ 64, 64, 0, IBV_QPT_RC }, { 64, 64, 1, IBV_QPT_RC }, { 16, 64, 0, IBV_QPT_UD },
	{ 16, 0, 0, IBV_QPT_RC }, { 128, 64, 0, IBV_QPT_RC }, { 256, 0, 1, IBV_QPT_RC },
	{ 32, 128, 0, IBV_QPT_UD }, { 512, 0, 0, IBV_QPT_RC },
};

static struct ibv_qp *scan_qp(struct rc_dev *d, struct ibv_cq *cq, struct ibv_srq *srq, int i)
{
	int k = i % (sizeof(shapes) / sizeof(shapes[0]));
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = shapes[k].type };

	ia.cap.max_send_wr = shapes[k].depth;
	ia.cap.max_recv_wr = shapes[k].on_srq ? 0 : shapes[k].depth;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	ia.cap.max_inline_data = shapes[k].inline_len;
	ia.srq = shapes[k].on_srq ? srq : NULL;
	return ibv_create_qp(d->pd, &ia);
}

int mode_scan(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_srq *srq[3] = { 0 };
	struct ibv_qp *qp[256] = { 0 };
	struct found fdb = { 0 }, fq = { 0 };
	struct iso_map db[4];
	struct rc_dev d;
	struct ibv_cq *cq;
	int i, nq = 0, ndb;
	char text[128];

	rc_dev_open(&d);
	ndb = iso_uverbs_maps(db, 4);
	cq = ibv_create_cq(d.ctx, 256, NULL, NULL, 0);
	if (!cq)
		die("scan: ibv_create_cq: %s", strerror(errno));
	for (i = 0; i < 3; i++) {
		sa.attr.max_wr = 64 << (2 * i);
		srq[i] = ibv_create_srq(d.pd, &sa);
		if (!srq[i])
			diag("scan: SRQ %d (max_wr %u): %s", i, sa.attr.max_wr, strerror(errno));
	}
	for (i = 0; i < iso.qps; i++) {
		qp[i] = scan_qp(&d, cq, srq[0], i);
		if (qp[i])
			nq++;
		else
			diag("scan: QP %d: %s (the context's limits)", i, strerror(errno));
	}
	read_maps(db, ndb, &fdb, &fq);
	if (!fdb.maps || !fq.maps)
		not_ok("scan: found %d doorbell and %d queue mappings of the uverbs device",
		       fdb.maps, fq.maps);
	if (fdb.nonzero || fq.nonzero)
		not_ok("scan: %zu of %zu doorbell bytes and %zu of %zu queue bytes (%d QPs, %d mappings) were not 0; marker words %zu, kernel-pointer words %zu",
		       fdb.nonzero, fdb.bytes, fq.nonzero, fq.bytes, nq, fq.maps,
		       fdb.marker + fq.marker, fdb.kptr + fq.kptr);
	else
		ok("scan: all %zu doorbell bytes and %zu queue bytes (%d QPs, %d SRQs, %d mappings) read 0: no marker, no kernel pointer",
		   fdb.bytes, fq.bytes, nq, !!srq[0] + !!srq[1] + !!srq[2], fq.maps);
	snprintf(text, sizeof(text), "pid %d qps %d bytes %zu nonzero %zu\n", (int)getpid(), nq,
		 fq.bytes, fq.nonzero);
	if (iso.ready && iso_write_file(iso.ready, text))
		return -1;
	iso_hold("scan");
	for (i = 0; i < iso.qps; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	for (i = 0; i < 3; i++)
		if (srq[i])
			ibv_destroy_srq(srq[i]);
	ibv_destroy_cq(cq);
	rc_dev_close(&d);
	return 0;
}

/* ---- bar4 ------------------------------------------------------------------- */

static void print_pages(const char *label, const uint8_t *flag, size_t pages, uint8_t bit)
{
	size_t p;

	printf("%s", label);
	for (p = 0; p < pages; p++)
		if (flag[p] & bit)
			printf(" %zu", p);
	putchar('\n');
}

/*
 * Prints three lines, "nonzero P...", "marker P..." and "kptr P...": the
 * queue memory pages holding anything, the marker, kernel-pointer words.
 * Exit status 3 if BAR4 cannot be mapped (no iomem=relaxed).
 */
int mode_bar4(const char *what)
{
	char path[256];
	struct stat st;
	struct found all = { 0 };
	uint8_t *flag, *bar;
	size_t pages, p;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/resource4",
		 opt.ibdev ? opt.ibdev : "qrnic0");
	fd = open(path, O_RDONLY);
	bar = fd < 0 || fstat(fd, &st) ? MAP_FAILED :
	      mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (bar == MAP_FAILED) {
		printf("# bar4 %s: cannot map %s (%s): boot with iomem=relaxed\n", what, path,
		       strerror(errno));
		return 3;
	}
	pages = st.st_size / 4096;
	flag = calloc(pages, 1);
	for (p = 0; p < pages; p++) {
		struct found f = { 0 };

		look_range(&f, (const volatile uint64_t *)(bar + 4096 * p), 4096);
		flag[p] = (f.nonzero ? 1 : 0) | (f.marker ? 2 : 0) | (f.kptr ? 4 : 0);
		all.nonzero += !!f.nonzero;
		all.marker += !!f.marker;
		all.kptr += !!f.kptr;
	}
	printf("# bar4 %s: %zu pages, %zu hold something, %zu the marker, %zu kernel-pointer words\n",
	       what, pages, all.nonzero, all.marker, all.kptr);
	print_pages("nonzero", flag, pages, 1);
	print_pages("marker", flag, pages, 2);
	print_pages("kptr", flag, pages, 4);
	munmap(bar, st.st_size);
	close(fd);
	free(flag);
	return 0;
}
