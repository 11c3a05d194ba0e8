// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check: device setup, RC connections, file rendezvous, completion checks
 * and data patterns shared by the modes.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rc-common.h"

int rc_failures;

static void vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

void ok(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("ok - ", fmt, ap);
	va_end(ap);
}

void not_ok(const char *fmt, ...)
{
	va_list ap;

	rc_failures++;
	va_start(ap, fmt);
	vline("not ok - ", fmt, ap);
	va_end(ap);
}

void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("# ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	rc_failures++;
	/* The program's name: rc-check or qrnic-isolation. */
	snprintf(prefix, sizeof(prefix), "not ok - %s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vline(prefix, fmt, ap);
	va_end(ap);
	if (opt.share && opt.tag)
		rc_abort();
	exit(1);
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static void rv_path(char *buf, size_t len, const char *name, int idx, const char *suffix);
static int peer_aborted(void);

const char *rc_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int rc_is_rxe(const char *nic)
{
	return nic && !strcmp(nic, "virtio");
}

/* ---- device ------------------------------------------------------------- */

static int gid_is_v4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

/* The RoCE v2 GID ::ffff:ip (ip NULL: the first IPv4-mapped RoCE v2 GID). */
static int find_gid(struct rc_dev *d, const char *ip, int *index, union ibv_gid *gid)
{
	struct ibv_gid_entry *tbl;
	struct in_addr a;
	ssize_t n, i;
	size_t len = d->port.gid_tbl_len ? d->port.gid_tbl_len : 256;

	if (ip && inet_pton(AF_INET, ip, &a) != 1)
		return -1;
	tbl = calloc(len, sizeof(*tbl));
	if (!tbl)
		return -1;
	n = ibv_query_gid_table(d->ctx, tbl, len, 0);
	for (i = 0; i < n; i++) {
		if (tbl[i].port_num != 1 || tbl[i].gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    !gid_is_v4(&tbl[i].gid))
			continue;
		if (ip && memcmp(&tbl[i].gid.raw[12], &a, 4))
			continue;
		*index = tbl[i].gid_index;
		*gid = tbl[i].gid;
		free(tbl);
		return 0;
	}
	free(tbl);
	return -1;
}

int rc_gid_for_ipv4(const char *ip, union ibv_gid *gid)
{
	struct in_addr a;

	if (inet_pton(AF_INET, ip, &a) != 1)
		return -1;
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &a, 4);
	return 0;
}

void rc_dev_open(struct rc_dev *d)
{
	struct ibv_device **list;
	int i, n;
	const char *ip = getenv("QRNIC_IP");

	memset(d, 0, sizeof(*d));
	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!opt.ibdev || !strcmp(ibv_get_device_name(list[i]), opt.ibdev))
			break;
	if (i == n)
		die("RDMA device %s not found (%d devices)", opt.ibdev ? opt.ibdev : "(any)", n);
	d->ctx = ibv_open_device(list[i]);
	if (!d->ctx)
		die("ibv_open_device %s: %s", ibv_get_device_name(list[i]), strerror(errno));
	ibv_free_device_list(list);
	if (ibv_query_device(d->ctx, &d->attr))
		die("ibv_query_device: %s", strerror(errno));
	if (ibv_query_port(d->ctx, 1, &d->port))
		die("ibv_query_port: %s", strerror(errno));
	if (d->port.state != IBV_PORT_ACTIVE)
		die("port 1 is not ACTIVE (state %d)", d->port.state);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	if (opt.gid_idx >= 0) {
		d->gid_idx = opt.gid_idx;
		if (ibv_query_gid(d->ctx, 1, d->gid_idx, &d->gid))
			die("ibv_query_gid index %d: %s", d->gid_idx, strerror(errno));
	} else {
		double end = now_s() + opt.timeout;

		/* The GID table follows the netdev's addresses asynchronously. */
		while (find_gid(d, ip, &d->gid_idx, &d->gid)) {
			if (now_s() > end)
				die("no RoCE v2 GID for %s on %s", ip ? ip : "an IPv4 address",
				    opt.ibdev);
			nap_us(100000);
		}
	}
	if (opt.verbose)
		diag("%s: GID index %d, active MTU %d, max_sge %d, max_qp_rd_atom %d, atomic_cap %d",
		     opt.ibdev, d->gid_idx, 128 << d->port.active_mtu, d->attr.max_sge,
		     d->attr.max_qp_rd_atom, d->attr.atomic_cap);
}

void rc_dev_close(struct rc_dev *d)
{
	if (d->pd && ibv_dealloc_pd(d->pd))
		not_ok("ibv_dealloc_pd: %s", strerror(errno));
	if (d->ctx && ibv_close_device(d->ctx))
		not_ok("ibv_close_device: %s", strerror(errno));
	memset(d, 0, sizeof(*d));
}

void *rc_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		die("out of memory (%zu bytes)", len);
	memset(p, 0, len);
	return p;
}

struct ibv_mr *rc_reg(struct rc_dev *d, void *buf, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(d->pd, buf, len, access);

	if (!mr)
		die("ibv_reg_mr %zu bytes, access 0x%x: %s", len, access, strerror(errno));
	return mr;
}

/* ---- connections ---------------------------------------------------------- */

void rc_default_params(struct rc_qp_params *p)
{
	memset(p, 0, sizeof(*p));
	p->max_send_wr = 64;
	p->max_recv_wr = 64;
	p->max_send_sge = 1;
	p->max_recv_sge = 1;
	p->timeout = 14;
	p->retry_cnt = 7;
	p->rnr_retry = 7;
	p->min_rnr_timer = 12;
	p->sq_sig_all = 0;
}

int rc_conn_create(struct rc_conn *c, struct rc_dev *d, const char *name,
		   const struct rc_qp_params *p)
{
	struct ibv_qp_init_attr ia = {};
	struct ibv_qp_attr qa = {};
	int scqe = min_i(p->max_send_wr * 2 + 16, d->attr.max_cqe);
	int rcqe = min_i(p->max_recv_wr * 2 + 16, d->attr.max_cqe);
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	memset(c, 0, sizeof(*c));
	c->dev = d;
	c->par = *p;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->scq = p->cq ? p->cq : ibv_create_cq(d->ctx, scqe, NULL, NULL, 0);
	c->rcq = p->cq ? p->cq : ibv_create_cq(d->ctx, rcqe, NULL, NULL, 0);
	if (!c->scq || !c->rcq) {
		not_ok("%s: ibv_create_cq (%d/%d entries): %s", name, scqe, rcqe, strerror(errno));
		return -1;
	}
	ia.send_cq = c->scq;
	ia.recv_cq = c->rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = p->sq_sig_all;
	ia.cap.max_send_wr = p->max_send_wr;
	ia.cap.max_recv_wr = p->max_recv_wr;
	ia.cap.max_send_sge = p->max_send_sge;
	ia.cap.max_recv_sge = p->max_recv_sge;
	ia.cap.max_inline_data = p->max_inline;
	ia.srq = p->srq;
	c->qp = ibv_create_qp(d->pd, &ia);
	if (!c->qp) {
		not_ok("%s: ibv_create_qp (wr %d/%d, sge %d/%d, inline %d): %s", name,
		       p->max_send_wr, p->max_recv_wr, p->max_send_sge, p->max_recv_sge,
		       p->max_inline, strerror(errno));
		return -1;
	}
	c->max_inline = ia.cap.max_inline_data;
	if (d->attr.atomic_cap != IBV_ATOMIC_NONE)
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	qa.qp_state = IBV_QPS_INIT;
	qa.pkey_index = 0;
	qa.port_num = 1;
	qa.qp_access_flags = access;
	if (ibv_modify_qp(c->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS)) {
		not_ok("%s: modify QP %#x to INIT: %s", name, c->qp->qp_num, strerror(errno));
		return -1;
	}
	c->local.qpn = c->qp->qp_num;
	c->local.psn = lrand48() & 0xffffff;
	c->local.gid = d->gid;
	c->local.mtu = d->port.active_mtu;
	c->local.rd_atom = min_i(d->attr.max_qp_rd_atom, 16);
	snprintf(c->local.nic, sizeof(c->local.nic), "%s",
		 getenv("QRNIC_NIC") && *getenv("QRNIC_NIC") ? getenv("QRNIC_NIC") : "unknown");
	return 0;
}

void rc_add_region(struct rc_conn *c, struct ibv_mr *mr, void *addr, size_t len)
{
	struct rc_region *r;

	if (c->local.nregions >= RC_MAX_REGIONS)
		die("too many regions");
	r = &c->local.region[c->local.nregions++];
	r->addr = (uintptr_t)addr;
	r->len = len;
	r->rkey = mr ? mr->rkey : 0;
}

static void info_format(const struct rc_info *in, char *buf, size_t len)
{
	size_t o;
	int i;

	o = snprintf(buf, len, "qpn %u\npsn %u\nmtu %d\nrd %d\nnic %s\ngid ", in->qpn, in->psn,
		     in->mtu, in->rd_atom, in->nic);
	for (i = 0; i < 16; i++)
		o += snprintf(buf + o, len - o, "%02x", in->gid.raw[i]);
	o += snprintf(buf + o, len - o, "\n");
	for (i = 0; i < in->nregions; i++)
		o += snprintf(buf + o, len - o, "region %d %llx %llx %x\n", i,
			      (unsigned long long)in->region[i].addr,
			      (unsigned long long)in->region[i].len, in->region[i].rkey);
}

static int info_parse(struct rc_info *in, char *buf)
{
	char *line, *save = NULL;
	int seen = 0;

	memset(in, 0, sizeof(*in));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char hex[33];
		unsigned long long a, l;
		unsigned int k;
		int r, i;

		if (sscanf(line, "qpn %u", &in->qpn) == 1)
			seen |= 1;
		else if (sscanf(line, "psn %u", &in->psn) == 1)
			seen |= 2;
		else if (sscanf(line, "mtu %d", &in->mtu) == 1)
			seen |= 4;
		else if (sscanf(line, "rd %d", &in->rd_atom) == 1)
			seen |= 8;
		else if (sscanf(line, "nic %15s", in->nic) == 1)
			;
		else if (sscanf(line, "gid %32s", hex) == 1 && strlen(hex) == 32) {
			for (i = 0; i < 16; i++) {
				unsigned int b;

				if (sscanf(hex + 2 * i, "%2x", &b) != 1)
					return -1;
				in->gid.raw[i] = b;
			}
			seen |= 16;
		} else if (sscanf(line, "region %d %llx %llx %x", &r, &a, &l, &k) == 4 &&
			   r >= 0 && r < RC_MAX_REGIONS) {
			in->region[r].addr = a;
			in->region[r].len = l;
			in->region[r].rkey = k;
			if (r >= in->nregions)
				in->nregions = r + 1;
		}
	}
	return seen == 31 ? 0 : -1;
}

int rc_conn_rtr_rts(struct rc_conn *c)
{
	struct rc_dev *d = c->dev;
	struct ibv_qp_attr qa = {};
	int mask;

	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = min_i(c->local.mtu, c->peer.mtu);
	qa.dest_qp_num = c->peer.qpn;
	qa.rq_psn = c->peer.psn;
	qa.max_dest_rd_atomic = c->local.rd_atom;
	qa.min_rnr_timer = c->par.min_rnr_timer;
	qa.ah_attr.is_global = 1;
	qa.ah_attr.grh.dgid = c->peer.gid;
	qa.ah_attr.grh.sgid_index = d->gid_idx;
	qa.ah_attr.grh.hop_limit = 64;
	qa.ah_attr.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	       IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	if (ibv_modify_qp(c->qp, &qa, mask)) {
		not_ok("%s: modify QP %#x to RTR (dest %#x, mtu %d): %s", c->name, c->local.qpn,
		       c->peer.qpn, 128 << qa.path_mtu, strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.sq_psn = c->local.psn;
	qa.timeout = c->par.timeout;
	qa.retry_cnt = c->par.retry_cnt;
	qa.rnr_retry = c->par.rnr_retry;
	qa.max_rd_atomic = min_i(min_i(d->attr.max_qp_init_rd_atom, c->peer.rd_atom), 16);
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	       IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
	if (ibv_modify_qp(c->qp, &qa, mask)) {
		not_ok("%s: modify QP %#x to RTS: %s", c->name, c->local.qpn, strerror(errno));
		return -1;
	}
	return 0;
}

int rc_conn_connect(struct rc_conn *c)
{
	char buf[1024], fname[96];

	info_format(&c->local, buf, sizeof(buf));
	snprintf(fname, sizeof(fname), "conn-%s", c->name);
	if (rv_publish(fname, buf))
		return -1;
	if (rv_await(fname, buf, sizeof(buf), opt.timeout)) {
		not_ok("%s: no connection data from the peer within %.0f s", c->name, opt.timeout);
		return -1;
	}
	if (info_parse(&c->peer, buf)) {
		not_ok("%s: cannot parse the peer's connection data", c->name);
		return -1;
	}
	if (rc_conn_rtr_rts(c))
		return -1;
	snprintf(fname, sizeof(fname), "rts-%s", c->name);
	if (rv_barrier(fname)) {
		not_ok("%s: the peer did not reach RTS within %.0f s", c->name, opt.timeout);
		return -1;
	}
	if (opt.verbose)
		diag("%s: QP %#x <-> peer QP %#x, path MTU %d", c->name, c->local.qpn,
		     c->peer.qpn, 128 << min_i(c->local.mtu, c->peer.mtu));
	return 0;
}

int rc_conn_loopback(struct rc_conn *a, struct rc_conn *b)
{
	a->peer = b->local;
	b->peer = a->local;
	return rc_conn_rtr_rts(a) || rc_conn_rtr_rts(b) ? -1 : 0;
}

void rc_conn_destroy(struct rc_conn *c)
{
	if (c->qp && ibv_destroy_qp(c->qp))
		not_ok("%s: ibv_destroy_qp: %s", c->name, strerror(errno));
	if (c->par.cq)
		c->scq = c->rcq = NULL;	/* the caller's */
	if (c->scq && ibv_destroy_cq(c->scq))
		not_ok("%s: ibv_destroy_cq: %s", c->name, strerror(errno));
	if (c->rcq && ibv_destroy_cq(c->rcq))
		not_ok("%s: ibv_destroy_cq: %s", c->name, strerror(errno));
	c->qp = NULL;
	c->scq = c->rcq = NULL;
}

/* ---- rendezvous ------------------------------------------------------------- */

static void rv_path(char *buf, size_t len, const char *name, int idx, const char *suffix)
{
	snprintf(buf, len, "%s/rc-%s-%s.%d%s", opt.share, opt.tag, name, idx, suffix);
}

int rv_publish(const char *name, const char *text)
{
	char tmp[512], path[512];
	size_t len = strlen(text);
	int fd;

	rv_path(tmp, sizeof(tmp), name, opt.idx, ".tmp");
	rv_path(path, sizeof(path), name, opt.idx, "");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || close(fd)) {
		not_ok("cannot write %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (rename(tmp, path)) {
		not_ok("cannot rename %s: %s", tmp, strerror(errno));
		return -1;
	}
	return 0;
}

int rv_await(const char *name, char *buf, size_t len, double timeout)
{
	char path[512];
	double end = now_s() + timeout;

	rv_path(path, sizeof(path), name, 1 - opt.idx, "");
	for (;;) {
		int fd = open(path, O_RDONLY);

		if (fd >= 0) {
			ssize_t n = read(fd, buf, len - 1);

			close(fd);
			buf[n > 0 ? n : 0] = 0;
			return 0;
		}
		if (now_s() > end)
			return -1;
		if (strcmp(name, "abort") && peer_aborted()) {
			diag("the peer aborted while we waited for %s", name);
			return -1;
		}
		nap_us(10000);
	}
}

void rv_unlink(const char *name)
{
	char path[512];

	rv_path(path, sizeof(path), name, opt.idx, "");
	unlink(path);
}

int rv_barrier(const char *name)
{
	char buf[16];

	if (rv_publish(name, "x\n"))
		return -1;
	return rv_await(name, buf, sizeof(buf), opt.timeout);
}

/* ---- completions ------------------------------------------------------------ */

const char *wc_opcode_str(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_BIND_MW: return "BIND_MW";
	case IBV_WC_LOCAL_INV: return "LOCAL_INV";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "?";
	}
}

static int peer_aborted(void)
{
	char path[512];

	if (!opt.share)
		return 0;
	rv_path(path, sizeof(path), "abort", 1 - opt.idx, "");
	return access(path, F_OK) == 0;
}

void rc_abort(void)
{
	rv_publish("abort", "x\n");
}

int rc_poll(struct ibv_cq *cq, struct ibv_wc *wc, double timeout)
{
	double start = now_s(), t, next_check = start + 1;
	unsigned int spins = 0;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return -1;
		if (n > 0)
			return 1;
		/* Busy-poll briefly, then back off: on one emulated CPU a
		 * spinning poller starves soft-RoCE's kernel threads. */
		if (++spins < 64) {
			sched_yield();
			continue;
		}
		t = now_s();
		if (t - start > timeout)
			return 0;
		if (t > next_check) {	/* the peer gave up: so do we */
			if (peer_aborted()) {
				diag("the peer aborted");
				return 0;
			}
			next_check = t + 1;
		}
		nap_us(t - start < 0.01 ? 20 : 200);
	}
}

int rc_expect(struct ibv_cq *cq, uint32_t qpn, const struct rc_want *w, const char *what)
{
	struct ibv_wc wc = {};
	int r = rc_poll(cq, &wc, opt.timeout), bad = 0;

	if (r < 0) {
		diag("%s: ibv_poll_cq failed", what);
		return -1;
	}
	if (r == 0) {
		diag("%s: no completion (wr_id %#llx, want %s %s) within %.0f s", what,
		     (unsigned long long)w->wr_id, ibv_wc_status_str(w->status),
		     wc_opcode_str(w->opcode), opt.timeout);
		return -2;
	}
	if (wc.wr_id != w->wr_id || wc.status != w->status || wc.qp_num != qpn)
		bad = 1;
	if (w->status == IBV_WC_SUCCESS && !bad) {
		/* Immediate data is defined on receive completions only. */
		int recv = w->opcode & IBV_WC_RECV;
		int has_imm = recv && (wc.wc_flags & IBV_WC_WITH_IMM);

		if (wc.opcode != w->opcode || (w->check_len && wc.byte_len != w->len) ||
		    (recv && has_imm != !!w->imm) || (recv && w->imm && ntohl(wc.imm_data) != w->imm_val))
			bad = 1;
	}
	if (bad) {
		diag("%s: got wr_id %#llx status %s (%d) opcode %s (%d) byte_len %u qp %#x flags %#x imm %#x",
		     what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status), wc.status,
		     wc_opcode_str(wc.opcode), wc.opcode, wc.byte_len, wc.qp_num, wc.wc_flags,
		     ntohl(wc.imm_data));
		diag("%s: want wr_id %#llx status %s opcode %s byte_len %s%u qp %#x imm %s%#x",
		     what, (unsigned long long)w->wr_id, ibv_wc_status_str(w->status),
		     wc_opcode_str(w->opcode), w->check_len ? "" : "(any) ", w->len, qpn,
		     w->imm ? "" : "(none) ", w->imm_val);
		return -1;
	}
	return 0;
}

int rc_expect_none(struct ibv_cq *cq, double secs, const char *what)
{
	struct ibv_wc wc;
	int r = rc_poll(cq, &wc, secs);

	if (r == 0)
		return 0;
	if (r > 0)
		diag("%s: unexpected completion wr_id %#llx status %s opcode %s byte_len %u",
		     what, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status),
		     wc_opcode_str(wc.opcode), wc.byte_len);
	return -1;
}

/* ---- data patterns ---------------------------------------------------------- */

/* Word i of the stream for seed: a stateless hash, so any slice of a message
 * can be produced or checked on its own. */
static inline uint32_t pat_word(uint32_t seed, uint64_t i)
{
	uint32_t h = (uint32_t)i * 0x9e3779b1u ^ (uint32_t)(i >> 32) ^ seed * 0x85ebca6bu;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	h *= 0x297a2d39u;
	h ^= h >> 15;
	return h;
}

static inline uint8_t pat_byte(uint32_t seed, uint64_t j)
{
	return pat_word(seed, j >> 2) >> (8 * (j & 3));
}

void pat_fill_at(uint8_t *p, size_t n, uint32_t seed, uint64_t start)
{
	size_t k = 0;

	while (k < n && ((start + k) & 3))
		p[k] = pat_byte(seed, start + k), k++;
	for (; k + 4 <= n; k += 4) {
		uint32_t w = pat_word(seed, (start + k) >> 2);

		memcpy(p + k, &w, 4);	/* little-endian: byte j = bits 8*(j&3) */
	}
	for (; k < n; k++)
		p[k] = pat_byte(seed, start + k);
}

int pat_check_at(const uint8_t *p, size_t n, uint32_t seed, uint64_t start, const char *what)
{
	size_t k, bad = 0, first = 0;

	for (k = 0; k < n; k++) {
		if (p[k] != pat_byte(seed, start + k)) {
			if (!bad++)
				first = k;
		}
	}
	if (!bad)
		return 0;
	diag("%s: %zu of %zu bytes wrong, first at offset %zu: got 0x%02x want 0x%02x",
	     what, bad, n, first, p[first], pat_byte(seed, start + first));
	return -1;
}

void pat_fill(uint8_t *p, size_t n, uint32_t seed)
{
	pat_fill_at(p, n, seed, 0);
}

int pat_check(const uint8_t *p, size_t n, uint32_t seed, const char *what)
{
	return pat_check_at(p, n, seed, 0, what);
}

int byte_check(const uint8_t *p, size_t n, uint8_t b, const char *what)
{
	size_t k, bad = 0, first = 0;

	for (k = 0; k < n; k++)
		if (p[k] != b && !bad++)
			first = k;
	if (!bad)
		return 0;
	diag("%s: %zu of %zu bytes changed, first at offset %zu: 0x%02x, want 0x%02x",
	     what, bad, n, first, p[first], b);
	return -1;
}
