// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check errors: work requests that must fail, each on a fresh QP pair,
 * with the expected completion status on the requester (guest 0), nothing
 * written on the responder (guest 1), and after each case a round of traffic
 * on a second, long-lived QP pair between the same guests.
 *
 * rc-check gone: a QP whose peer guest has gone away: the requester's send
 * completes with IBV_WC_RETRY_EXC_ERR after timeout x (retry_cnt + 1).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc-common.h"

#define KIB		1024u
#define H_LAND		0		/* healthy QP: landing [0, 64K) */
#define H_SRC		(64 * KIB)	/* source [64K, 128K) */
#define H_CTL		(128 * KIB)	/* 4-byte messages */
#define H_LEN		(132 * KIB)
#define H_XFER		(64 * KIB)
#define L_LEN		(16 * KIB)	/* responder buffer; the MR covers [4K, 12K) */
#define L_MR_OFF	(4 * KIB)
#define L_MR_LEN	(8 * KIB)
#define RO_LEN		(4 * KIB)
#define S_LEN		(64 * KIB)	/* requester source */

struct healthy {
	struct rc_conn c;
	uint8_t *h;
	struct ibv_mr *mr;
	int round;
};

/* Healthy: both sides write 64 KiB into the other's buffer and follow with
 * a SEND_WITH_IMM; each checks its completions and the bytes it received. */
static int healthy_round(struct healthy *hq, const char *after)
{
	struct rc_conn *c = &hq->c;
	uint32_t r = hq->round++, mine = r * 2 + opt.idx, theirs = r * 2 + 1 - opt.idx;
	struct ibv_sge rsge = { (uintptr_t)(hq->h + H_CTL), 64, hq->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 0x1000 + r, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_sge wsge = { (uintptr_t)(hq->h + H_SRC), H_XFER, hq->mr->lkey };
	struct ibv_sge ssge = { (uintptr_t)(hq->h + H_CTL + 64), 4, hq->mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 0x2000 + r, .sg_list = &ssge, .num_sge = 1,
				   .opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED,
				   .imm_data = htonl(mine) };
	struct ibv_send_wr wwr = { .wr_id = 0x3000 + r, .sg_list = &wsge, .num_sge = 1,
				   .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
				   .next = &swr }, *sbad;
	struct rc_want ww = { 0x3000 + r, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0, 0, 0, 0 };
	struct rc_want sw = { 0x2000 + r, IBV_WC_SUCCESS, IBV_WC_SEND, 0, 0, 0, 0 };
	struct rc_want rw = { 0x1000 + r, IBV_WC_SUCCESS, IBV_WC_RECV, 1, 4, 1, theirs };
	char name[64], what[128];
	uint32_t v;

	snprintf(what, sizeof(what), "healthy QP after %s", after);
	memset(hq->h + H_LAND, 0, H_XFER);
	pat_fill(hq->h + H_SRC, H_XFER, 0x4ea1 + mine);
	v = htonl(mine);
	memcpy(hq->h + H_CTL + 64, &v, 4);
	wwr.wr.rdma.remote_addr = c->peer.region[0].addr;
	wwr.wr.rdma.rkey = c->peer.region[0].rkey;
	if (ibv_post_recv(c->qp, &rwr, &rbad)) {
		not_ok("%s: ibv_post_recv: %s", what, strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "healthy-%u", r);
	if (rv_barrier(name)) {
		not_ok("%s: the peer did not arrive within %.0f s", what, opt.timeout);
		return -1;
	}
	if (ibv_post_send(c->qp, &wwr, &sbad)) {
		not_ok("%s: ibv_post_send: %s", what, strerror(errno));
		return -1;
	}
	if (rc_expect(c->scq, c->local.qpn, &ww, what) || rc_expect(c->scq, c->local.qpn, &sw, what) ||
	    rc_expect(c->rcq, c->local.qpn, &rw, what)) {
		not_ok("%s: completions wrong or missing", what);
		return -1;
	}
	memcpy(&v, hq->h + H_CTL, 4);
	if (ntohl(v) != theirs || pat_check(hq->h + H_LAND, H_XFER, 0x4ea1 + theirs, what)) {
		not_ok("%s: received data wrong", what);
		return -1;
	}
	ok("%s: 64 KiB RDMA WRITE + SEND_WITH_IMM each way, data right", what);
	return 0;
}

static int healthy_open(struct healthy *hq, struct rc_dev *d, const char *name, int retry_cnt)
{
	struct rc_qp_params par;

	hq->h = rc_alloc(H_LEN);
	hq->mr = rc_reg(d, hq->h, H_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	rc_default_params(&par);
	par.retry_cnt = retry_cnt;
	if (rc_conn_create(&hq->c, d, name, &par))
		return -1;
	rc_add_region(&hq->c, hq->mr, hq->h + H_LAND, H_XFER);
	return rc_conn_connect(&hq->c);
}

static void healthy_close(struct healthy *hq)
{
	rc_conn_destroy(&hq->c);
	ibv_dereg_mr(hq->mr);
	free(hq->h);
}

/* ---- error cases ---- */

struct errs {
	struct rc_dev dev;
	struct healthy hq;
	/* requester (guest 0) */
	uint8_t *src;
	struct ibv_mr *mrs;
	uint32_t stale_lkey;
	/* responder (guest 1) */
	uint8_t *l, *ro;
	struct ibv_mr *mrl, *mrro;
	uint32_t stale_rkey;
};

enum { R_L, R_STALE, R_RO };	/* the responder's published regions */

#define NONE ((enum ibv_wc_status)-1)

struct ecase {
	const char *name;
	const char *title;
	enum ibv_wc_status want, want2;	/* requester status (either) */
	enum ibv_wc_status rxe, rxe2;	/* what rdma_rxe reports instead, if it does */
	int rnr_retry;
	int resp_recvs;			/* receives the responder posts */
	uint32_t resp_recv_len;
};

static const struct ecase cases[] = {
	/* rdma_rxe completes the failed WQE as flushed (6.12) or with a
	 * local QP operation error (6.1). */
	{ "bad-lkey", "SEND with the lkey of a deregistered MR",
	  IBV_WC_LOC_PROT_ERR, NONE, IBV_WC_WR_FLUSH_ERR, IBV_WC_LOC_QP_OP_ERR, 7, 1, 4096 },
	{ "stale-rkey", "RDMA WRITE with the rkey of a deregistered MR",
	  IBV_WC_REM_ACCESS_ERR, NONE, NONE, NONE, 7, 0, 0 },
	{ "no-write-access", "RDMA WRITE to an MR without remote write access",
	  IBV_WC_REM_ACCESS_ERR, NONE, NONE, NONE, 7, 0, 0 },
	{ "oob-write-end", "RDMA WRITE 4 KiB across the end of an 8 KiB MR",
	  IBV_WC_REM_ACCESS_ERR, NONE, NONE, NONE, 7, 0, 0 },
	{ "oob-write-start", "RDMA WRITE 256 B starting 128 B before an MR",
	  IBV_WC_REM_ACCESS_ERR, NONE, NONE, NONE, 7, 0, 0 },
	{ "oob-read", "RDMA READ 4 KiB across the end of an 8 KiB MR",
	  IBV_WC_REM_ACCESS_ERR, NONE, NONE, NONE, 7, 0, 0 },
	{ "rnr", "SEND with no receive posted, rnr_retry 0",
	  IBV_WC_RNR_RETRY_EXC_ERR, NONE, NONE, NONE, 0, 0, 0 },
	/* The responder NAKs (invalid request or remote operational error,
	 * docs/hardware.md); its receive completes with LOC_LEN_ERR. */
	{ "recv-too-small", "SEND of 1 KiB into a 64 B receive",
	  IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_OP_ERR, NONE, NONE, 7, 1, 64 },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const char *qp_state_str(enum ibv_qp_state s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned int)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* Requester: post the failing WR and a second one behind it; the first must
 * complete with the case's status, the second with WR_FLUSH_ERR, and the QP
 * must be in ERR. */
static void run_requester(struct errs *e, struct rc_conn *c, const struct ecase *k)
{
	const struct rc_region *rg = c->peer.region;
	struct ibv_sge sge = { (uintptr_t)e->src, 4096, e->mrs->lkey };
	struct ibv_sge sge2 = { (uintptr_t)(e->src + 8192), 64, e->mrs->lkey };
	struct ibv_send_wr wr2 = { .wr_id = 0xe2, .sg_list = &sge2, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr wr = { .wr_id = 0xe1, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED, .next = &wr2 }, *bad;
	struct rc_want w2 = { .wr_id = 0xe2, .status = IBV_WC_WR_FLUSH_ERR };
	struct ibv_wc wc;
	int rxe = rc_is_rxe(c->local.nic) || rc_is_rxe(c->peer.nic);
	char want[160];
	double t0;
	int st, r;

	if (!strcmp(k->name, "bad-lkey")) {
		wr.opcode = IBV_WR_SEND;
		sge.length = 1024;
		sge.lkey = e->stale_lkey;
	} else if (!strcmp(k->name, "stale-rkey")) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = rg[R_STALE].addr;
		wr.wr.rdma.rkey = rg[R_STALE].rkey;
	} else if (!strcmp(k->name, "no-write-access")) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		sge.length = 2048;
		wr.wr.rdma.remote_addr = rg[R_RO].addr;
		wr.wr.rdma.rkey = rg[R_RO].rkey;
	} else if (!strcmp(k->name, "oob-write-end")) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = rg[R_L].addr + rg[R_L].len - 2048;
		wr.wr.rdma.rkey = rg[R_L].rkey;
	} else if (!strcmp(k->name, "oob-write-start")) {
		wr.opcode = IBV_WR_RDMA_WRITE;
		sge.length = 256;
		wr.wr.rdma.remote_addr = rg[R_L].addr - 128;
		wr.wr.rdma.rkey = rg[R_L].rkey;
	} else if (!strcmp(k->name, "oob-read")) {
		wr.opcode = IBV_WR_RDMA_READ;
		sge.addr = (uintptr_t)(e->src + 16384);
		wr.wr.rdma.remote_addr = rg[R_L].addr + rg[R_L].len - 1024;
		wr.wr.rdma.rkey = rg[R_L].rkey;
	} else if (!strcmp(k->name, "rnr")) {
		wr.opcode = IBV_WR_SEND;
		sge.length = 64;
	} else {	/* recv-too-small */
		wr.opcode = IBV_WR_SEND;
		sge.length = 1024;
	}
	t0 = now_s();
	if ((r = ibv_post_send(c->qp, &wr, &bad))) {
		not_ok("%s: ibv_post_send: %s", k->title, strerror(r));
		return;
	}
	snprintf(want, sizeof(want), "%s%s%s", ibv_wc_status_str(k->want),
		 k->want2 != NONE ? " or " : "", k->want2 != NONE ? ibv_wc_status_str(k->want2) : "");
	r = rc_poll(c->scq, &wc, opt.timeout);
	t0 = now_s() - t0;
	if (r != 1) {
		not_ok("%s -> requester gets %s (no completion within %.0f s)", k->title, want, opt.timeout);
		return;
	}
	if (wc.wr_id != 0xe1 || wc.qp_num != c->local.qpn ||
	    !(wc.status == k->want || wc.status == k->want2 ||
	      (rxe && (wc.status == k->rxe || wc.status == k->rxe2)))) {
		not_ok("%s -> requester gets %s (got %s, wr_id %#llx, qp %#x)", k->title, want,
		       ibv_wc_status_str(wc.status), (unsigned long long)wc.wr_id, wc.qp_num);
		return;
	}
	if (wc.status == k->rxe || wc.status == k->rxe2)
		diag("%s: rdma_rxe reports %s here, not %s (a known rxe deviation, accepted for rxe only)",
		     k->name, ibv_wc_status_str(wc.status), want);
	if (rc_expect(c->scq, c->local.qpn, &w2, k->name)) {
		not_ok("%s -> the WR behind it is flushed (WR_FLUSH_ERR)", k->title);
		return;
	}
	st = qp_state(c->qp);
	if (st != IBV_QPS_ERR) {
		not_ok("%s -> requester QP in ERR state (it is %s)", k->title, qp_state_str(st));
		return;
	}
	ok("%s -> requester gets %s after %.3f s, the next WR WR_FLUSH_ERR, QP in ERR",
	   k->title, ibv_wc_status_str(wc.status), t0);
}

/* Responder: nothing of the failed request may land; the receive CQ shows
 * only what the case expects. */
static void run_responder(struct errs *e, struct rc_conn *c, const struct ecase *k)
{
	int bad = 0;
	size_t rb = L_MR_OFF + 512;

	if (!strcmp(k->name, "recv-too-small")) {
		/* What lands in the failed receive's own 64 B is undefined. */
		if (pat_check_at(e->l, rb, 0x1000, 0, "responder buffer before the receive") ||
		    pat_check_at(e->l + rb + 64, L_LEN - rb - 64, 0x1000, rb + 64,
				 "responder buffer after the receive"))
			bad = 1;
	} else if (pat_check(e->l, L_LEN, 0x1000, "responder buffer (16 KiB around the MR)")) {
		bad = 1;
	}
	if (pat_check(e->ro, RO_LEN, 0x2000, "read-only MR"))
		bad = 1;
	if (bad) {
		not_ok("%s -> nothing written on the responder", k->title);
		return;
	}
	if (!strcmp(k->name, "recv-too-small")) {
		struct ibv_wc wc;
		int r = rc_poll(c->rcq, &wc, opt.timeout);

		/* The responder's receive completes with Local Length Error;
		 * rdma_rxe reports a local QP operation error instead. */
		if (r != 1 || wc.wr_id != 0xd0 ||
		    !(wc.status == IBV_WC_LOC_LEN_ERR ||
		      (rc_is_rxe(c->local.nic) && wc.status == IBV_WC_LOC_QP_OP_ERR))) {
			not_ok("%s -> responder's receive completes with LOC_LEN_ERR (%s)", k->title,
			       r == 1 ? ibv_wc_status_str(wc.status) : "no completion");
			return;
		}
		if (wc.status != IBV_WC_LOC_LEN_ERR)
			diag("%s: rdma_rxe reports %s here, not local length error (a known rxe deviation, accepted for rxe only)",
			     k->name, ibv_wc_status_str(wc.status));
		ok("%s -> responder's receive completes with %s, memory around it intact",
		   k->title, ibv_wc_status_str(wc.status));
		return;
	}
	if (rc_expect_none(c->rcq, 0.2, k->name)) {
		not_ok("%s -> no receive completion on the responder", k->title);
		return;
	}
	ok("%s -> nothing written on the responder (16 KiB around the MR and the read-only MR checked), no receive completion",
	   k->title);
}

/* Returns the healthy QP's verdict afterwards: 0 or -1. */
static int run_case(struct errs *e, const struct ecase *k)
{
	struct rc_qp_params par;
	struct rc_conn c;
	char name[64];

	rc_default_params(&par);
	par.rnr_retry = k->rnr_retry;
	par.min_rnr_timer = 1;
	snprintf(name, sizeof(name), "e-%s", k->name);
	if (rc_conn_create(&c, &e->dev, name, &par)) {
		rc_conn_destroy(&c);
		return healthy_round(&e->hq, k->name);
	}
	if (opt.idx == 1) {
		rc_add_region(&c, e->mrl, e->l + L_MR_OFF, L_MR_LEN);
		c.local.region[R_STALE] = (struct rc_region){ (uintptr_t)(e->l + L_MR_OFF), L_MR_LEN,
							      e->stale_rkey };
		c.local.region[R_RO] = (struct rc_region){ (uintptr_t)e->ro, RO_LEN, e->mrro->rkey };
		c.local.nregions = 3;
		pat_fill(e->l, L_LEN, 0x1000);
		pat_fill(e->ro, RO_LEN, 0x2000);
		if (k->resp_recvs) {
			struct ibv_sge sge = { (uintptr_t)(e->l + L_MR_OFF + 512), k->resp_recv_len,
					       e->mrl->lkey };
			struct ibv_recv_wr wr = { .wr_id = 0xd0, .sg_list = &sge, .num_sge = 1 }, *bad;

			/* The receive writes nothing unless a message arrives;
			 * recv-too-small checks its buffer stays intact. */
			if (ibv_post_recv(c.qp, &wr, &bad))
				not_ok("%s: ibv_post_recv: %s", k->name, strerror(errno));
		}
	}
	if (rc_conn_connect(&c)) {
		rc_conn_destroy(&c);
		return healthy_round(&e->hq, k->name);
	}
	snprintf(name, sizeof(name), "done-%s", k->name);
	if (opt.idx == 0) {
		run_requester(e, &c, k);
		rv_publish(name, "x\n");
	} else {
		char buf[8];

		if (rv_await(name, buf, sizeof(buf), opt.timeout * 2))
			not_ok("%s: the requester did not finish within %.0f s", k->title, opt.timeout * 2);
		else
			run_responder(e, &c, k);
	}
	snprintf(name, sizeof(name), "checked-%s", k->name);
	rv_barrier(name);
	rc_conn_destroy(&c);
	return healthy_round(&e->hq, k->name);
}

int mode_errors(void)
{
	struct errs *e = calloc(1, sizeof(*e));
	struct ibv_mr *tmp;
	unsigned int i;

	if (!e)
		die("out of memory");
	rc_dev_open(&e->dev);
	if (opt.idx == 0) {
		e->src = rc_alloc(S_LEN);
		pat_fill(e->src, S_LEN, 0x3000);
		e->mrs = rc_reg(&e->dev, e->src, S_LEN, IBV_ACCESS_LOCAL_WRITE);
		tmp = rc_reg(&e->dev, e->src, 4096, IBV_ACCESS_LOCAL_WRITE);
		e->stale_lkey = tmp->lkey;
		ibv_dereg_mr(tmp);
	} else {
		e->l = rc_alloc(L_LEN);
		e->ro = rc_alloc(RO_LEN);
		e->mrl = rc_reg(&e->dev, e->l + L_MR_OFF, L_MR_LEN,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
		e->mrro = rc_reg(&e->dev, e->ro, RO_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
		tmp = rc_reg(&e->dev, e->l + L_MR_OFF, L_MR_LEN,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
		e->stale_rkey = tmp->rkey;
		ibv_dereg_mr(tmp);
	}
	if (healthy_open(&e->hq, &e->dev, "healthy", 7)) {
		not_ok("errors: the healthy QP pair could not be connected");
		return 1;
	}
	/* Without a working QP pair the cases prove nothing: stop early
	 * rather than wait out every timeout. */
	if (healthy_round(&e->hq, "connecting")) {
		rc_abort();
		return 1;
	}
	for (i = 0; i < NCASES; i++) {
		if (run_case(e, &cases[i])) {
			if (i + 1 < NCASES)
				not_ok("errors: the healthy QP pair failed after %s; %u case(s) not run",
				       cases[i].name, (unsigned int)(NCASES - i - 1));
			rc_abort();
			break;
		}
	}
	rv_barrier("errors-end");
	healthy_close(&e->hq);
	if (e->mrs)
		ibv_dereg_mr(e->mrs);
	if (e->mrl)
		ibv_dereg_mr(e->mrl);
	if (e->mrro)
		ibv_dereg_mr(e->mrro);
	rc_dev_close(&e->dev);
	return rc_failures ? 1 : 0;
}

/* ---- gone ---- */

int mode_gone(const char *go_file)
{
	struct rc_dev d;
	struct healthy hq = {};
	double t0, el, saved = opt.timeout, nominal;
	int st, retry_cnt = 7;

	rc_dev_open(&d);
	/* rdma_rxe treats retry_cnt 7 as "retry forever" (IBTA: that holds
	 * for rnr_retry only); give it 6. */
	if (rc_is_rxe(getenv("QRNIC_NIC"))) {
		retry_cnt = 6;
		diag("gone: rdma_rxe retries forever with retry_cnt 7; using 6");
	}
	if (healthy_open(&hq, &d, "gone", retry_cnt)) {
		not_ok("gone: the QP pair could not be connected");
		return 1;
	}
	if (healthy_round(&hq, "connecting (peer-gone QP pair)"))
		return 1;
	if (opt.idx == 1) {
		/* Let guest 0 read our last words, then leave. */
		rv_barrier("gone-leaving");
		diag("gone: guest 1 leaves; its QP (%#x) goes with it", hq.c.local.qpn);
		return rc_failures ? 1 : 0;
	}
	rv_barrier("gone-leaving");
	{
		struct ibv_sge sge = { (uintptr_t)(hq.h + H_SRC), 64, hq.mr->lkey };
		struct ibv_send_wr wr2 = { .wr_id = 0x72, .sg_list = &sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
		struct ibv_send_wr wr = { .wr_id = 0x71, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
					  .next = &wr2 }, *bad;
		struct rc_want w1 = { .wr_id = 0x71, .status = IBV_WC_RETRY_EXC_ERR };
		struct rc_want w2 = { .wr_id = 0x72, .status = IBV_WC_WR_FLUSH_ERR };

		/* The script creates go_file once the peer no longer answers. */
		t0 = now_s();
		while (access(go_file, F_OK)) {
			if (now_s() - t0 > 300) {
				not_ok("gone: %s never appeared (is the peer gone?)", go_file);
				return 1;
			}
			usleep(20000);
		}
		opt.timeout = 180;
		t0 = now_s();
		if ((st = ibv_post_send(hq.c.qp, &wr, &bad))) {
			not_ok("gone: ibv_post_send: %s", strerror(st));
			return 1;
		}
		if (rc_expect(hq.c.scq, hq.c.local.qpn, &w1, "gone")) {
			not_ok("peer gone -> IBV_WC_RETRY_EXC_ERR");
			return 1;
		}
		el = now_s() - t0;
		opt.timeout = saved;
		/* timeout 14: 4.096 us << 14 = 67 ms per try; retry_cnt + 1
		 * tries (0.54 s for 7).  Fail if the device gave up at once or
		 * took far longer than any sane emulation would. */
		nominal = 4.096e-6 * (1 << 14) * (retry_cnt + 1);
		if (el < nominal / 2 || el > 60)
			not_ok("peer gone -> IBV_WC_RETRY_EXC_ERR after %.2f s, want %.2f..60 s (timeout 14, retry_cnt %d: %.2f s nominal)",
			       el, nominal / 2, retry_cnt, nominal);
		else
			ok("peer gone -> IBV_WC_RETRY_EXC_ERR after %.2f s (timeout 14, retry_cnt %d: %.2f s nominal)",
			   el, retry_cnt, nominal);
		if (rc_expect(hq.c.scq, hq.c.local.qpn, &w2, "gone"))
			not_ok("peer gone -> the next WR completes with WR_FLUSH_ERR");
		else
			ok("peer gone -> the next WR completes with WR_FLUSH_ERR");
		st = qp_state(hq.c.qp);
		if (st == IBV_QPS_ERR)
			ok("peer gone -> QP in ERR state");
		else
			not_ok("peer gone -> QP in ERR state (it is %s)", qp_state_str(st));
	}
	healthy_close(&hq);
	/* The device still takes new work: a fresh QP reaches INIT. */
	{
		struct rc_qp_params par;
		struct rc_conn c;
		struct ibv_port_attr pa;

		rc_default_params(&par);
		if (!rc_conn_create(&c, &d, "after-gone", &par) && !ibv_query_port(d.ctx, 1, &pa) &&
		    pa.state == IBV_PORT_ACTIVE)
			ok("after the peer left: a new QP reaches INIT, port ACTIVE");
		else
			not_ok("after the peer left: a new QP reaches INIT, port ACTIVE");
		rc_conn_destroy(&c);
	}
	rc_dev_close(&d);
	return rc_failures ? 1 : 0;
}
