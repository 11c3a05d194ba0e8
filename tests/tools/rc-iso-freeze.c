// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qrnic-isolation freeze-victim, freeze-attacker: another user's RC QPs
 * whose peers never answer must not freeze the victim's RC traffic.
 *
 * The attacker (user 1002, -i 1) waits until the victim has timed its
 * traffic alone, then connects --qps K RC QPs of its own, each to a peer
 * QP it leaves in RESET (--destroyed: destroys), with timeout --timeout
 * (0: infinite), retry_cnt 7 and rnr_retry 7, and posts a 1 MiB RDMA
 * WRITE on each: their packets go unanswered for as long as the test
 * runs.  The victim (user 1001, -i 0) times 32 RDMA WRITEs of 16 KiB on
 * its own loopback RC pair, every byte checked: five times alone, then
 * --runs times over a few seconds while the attacker's QPs are stuck.
 * Before the device's fix the victim completed 0 of the 32 in 25 s
 * (timeout 0) and stalled 6.45 s (timeout 18).
 *
 * The bound: every run under attack within max(3 x alone, alone + 0.5 s),
 * alone being the median of the runs alone.  Why the design keeps it:
 * the victim's context has a window of its own and, whatever the
 * attacker's context holds, its fair share of the device's caps (half of
 * them with two contexts sending); an unanswered QP's packets stop
 * counting once its probe timer has declared them lost, at most four
 * probe times (2 ms each, more only if the measured round trip is longer)
 * after its last answer; and a QP found starved rather than lost holds
 * the others back at most twice for a probe time each.  So K dead QPs
 * cost the victim a few probe times per QP, once, and again only when a
 * timeout resends (timeout 18: every ~1.07 s per QP): tens of
 * milliseconds, well inside 0.5 s, while a frozen or throttled victim
 * (the old behaviour) misses it by seconds.  3 x alone covers TCG noise
 * (a run alone takes some 50-300 ms here and varies from run to run).
 * The attacker checks its side too: at the end of the victim's runs every
 * one of its QPs is still in RTS with its WRITE outstanding (the freeze
 * was really going on); with timeout 18 the retries last 8 x 1.07 s,
 * longer than the victim's runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rc-isolation.h"

#define V_MSGS		32
#define V_LEN		(16 * KIB)
#define V_ALONE		5
#define V_RUN_LIMIT	10.0	/* seconds: a frozen run gives up */
#define A_LEN		(1 * MIB)

struct vpair {
	struct rc_dev d;
	struct rc_conn a, b;
	uint8_t *buf;
	struct ibv_mr *mr;
};

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static double median(const double *v, int n)
{
	double s[64];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return s[n / 2];
}

static int post_writes(struct vpair *v)
{
	struct ibv_sge sge[V_MSGS];
	struct ibv_send_wr wr[V_MSGS], *bad;
	int i;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < V_MSGS; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)v->buf + i * V_LEN, V_LEN, v->mr->lkey };
		wr[i].wr_id = i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_RDMA_WRITE;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].wr.rdma.remote_addr = (uintptr_t)v->buf + (V_MSGS + i) * V_LEN;
		wr[i].wr.rdma.rkey = v->mr->rkey;
		wr[i].next = i + 1 < V_MSGS ? &wr[i + 1] : NULL;
	}
	return ibv_post_send(v->a.qp, wr, &bad);
}

/* One timed run: seconds, or -1 (message printed). */
static double victim_run(struct vpair *v, uint32_t seed, const char *what)
{
	uint8_t *dst = v->buf + V_MSGS * V_LEN;
	double t0, end;
	struct ibv_wc wc;
	int i;

	pat_fill(v->buf, V_MSGS * V_LEN, seed);
	memset(dst, 0, V_MSGS * V_LEN);
	t0 = now_s();
	end = t0 + V_RUN_LIMIT;
	if (post_writes(v)) {
		not_ok("freeze %s: ibv_post_send: %s", what, strerror(errno));
		return -1;
	}
	for (i = 0; i < V_MSGS; i++) {
		if (rc_poll(v->a.scq, &wc, end - now_s()) != 1) {
			not_ok("freeze %s: %d of %d RDMA WRITEs of 16 KiB completed in %.0f s",
			       what, i, V_MSGS, V_RUN_LIMIT);
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i ||
		    wc.opcode != IBV_WC_RDMA_WRITE) {
			not_ok("freeze %s: WRITE %d completed as wr_id %llu, %s", what, i,
			       (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
			return -1;
		}
	}
	t0 = now_s() - t0;
	if (pat_check(dst, V_MSGS * V_LEN, seed, what)) {
		not_ok("freeze %s: the written data is wrong", what);
		return -1;
	}
	return t0;
}

static void vpair_open(struct vpair *v)
{
	rc_dev_open(&v->d);
	v->buf = rc_alloc(2 * V_MSGS * V_LEN);
	v->mr = rc_reg(&v->d, v->buf, 2 * V_MSGS * V_LEN,
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (iso_pair(&v->d, &v->a, &v->b, "freeze-victim", 64, NULL))
		die("freeze: the victim's loopback pair");
}

static void vpair_close(struct vpair *v)
{
	rc_conn_destroy(&v->b);
	rc_conn_destroy(&v->a);
	ibv_dereg_mr(v->mr);
	rc_dev_close(&v->d);
	free(v->buf);
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/* Times of n runs into t[]; 0 or -1. */
static int victim_runs(struct vpair *v, double *t, int n, double gap, const char *what)
{
	int i;

	for (i = 0; i < n; i++) {
		t[i] = victim_run(v, lrand48(), what);
		if (t[i] < 0)
			return -1;
		if (gap > 0 && i + 1 < n)
			nap(gap);
	}
	return 0;
}

static void list_times(char *buf, size_t len, const double *t, int n)
{
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < n && o < len; i++)
		o += snprintf(buf + o, len - o, "%s%.3f", i ? " " : "", t[i]);
}

int mode_freeze_victim(void)
{
	double alone[V_ALONE], hit[64], ref, bound, worst = 0;
	char buf[16], la[256], lh[512];
	struct vpair v = { 0 };
	int i, n = iso.runs < 64 ? iso.runs : 64;

	vpair_open(&v);
	if (victim_runs(&v, alone, V_ALONE, 0, "victim alone"))
		return -1;
	ref = median(alone, V_ALONE);
	if (rv_publish("alone", "x\n") || rv_await("stuck", buf, sizeof(buf), opt.timeout)) {
		not_ok("freeze: the attacker did not get its QPs stuck within %.0f s", opt.timeout);
		return -1;
	}
	/* Spread over a few seconds: the attacker's first packets, their
	 * probes, and (timeout 18) their first resends. */
	i = victim_runs(&v, hit, n, 2.5 / n, "victim under attack");
	rv_publish("done", "x\n");	/* the attacker reports either way */
	if (i)
		return -1;
	for (i = 0; i < n; i++)
		worst = hit[i] > worst ? hit[i] : worst;
	bound = 3 * ref > ref + 0.5 ? 3 * ref : ref + 0.5;
	list_times(la, sizeof(la), alone, V_ALONE);
	list_times(lh, sizeof(lh), hit, n);
	if (worst <= bound)
		ok("freeze: victim's 32 x 16 KiB RDMA WRITEs: alone %s s (median %.3f), under attack %s s: worst %.3f <= bound %.3f s, data right",
		   la, ref, lh, worst, bound);
	else
		not_ok("freeze: victim's 32 x 16 KiB RDMA WRITEs: alone %s s (median %.3f), under attack %s s: worst %.3f > bound %.3f s",
		       la, ref, lh, worst, bound);
	vpair_close(&v);
	return 0;
}

/* ---- attacker --------------------------------------------------------------- */

struct attacker {
	struct rc_dev d;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct rc_conn qp[128];
	struct ibv_qp *peer[128];
	int n;
};

/* QP i towards a peer QP that never answers; its 1 MiB WRITE posted. */
static int attacker_qp(struct attacker *t, int i)
{
	struct ibv_qp_init_attr ia = { .send_cq = t->cq, .recv_cq = t->cq, .qp_type = IBV_QPT_RC,
				       .cap = { 4, 1, 1, 1, 0 } };
	struct ibv_sge sge = { (uintptr_t)t->buf, A_LEN, t->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct rc_conn *c = &t->qp[i];
	struct rc_qp_params p;
	char name[32];

	rc_default_params(&p);
	p.max_send_wr = 4;
	p.max_recv_wr = 1;
	p.cq = t->cq;
	p.timeout = iso.timeout;
	snprintf(name, sizeof(name), "attacker-%d", i);
	t->peer[i] = ibv_create_qp(t->d.pd, &ia);
	if (!t->peer[i] || rc_conn_create(c, &t->d, name, &p)) {
		not_ok("freeze attacker: QP pair %d: %s", i, strerror(errno));
		return -1;
	}
	c->peer = c->local;
	c->peer.qpn = t->peer[i]->qp_num;
	if (iso.destroyed && !ibv_destroy_qp(t->peer[i]))
		t->peer[i] = NULL;
	if (rc_conn_rtr_rts(c))
		return -1;
	wr.wr.rdma.remote_addr = (uintptr_t)t->buf;
	wr.wr.rdma.rkey = t->mr->rkey;
	if (ibv_post_send(c->qp, &wr, &bad)) {
		not_ok("freeze attacker: posting the 1 MiB WRITE on QP %d: %s", i, strerror(errno));
		return -1;
	}
	t->n++;
	return 0;
}

/* After the victim's runs: nothing completed, every QP still in RTS, and
 * the device kept resending their packets (the attack was live). */
static void attacker_check(struct attacker *t, double since, long resent0)
{
	long resent = iso_hw_counter(&t->d, "retrans_pkts") - resent0;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	int i, done = 0, rts = 0;

	while (ibv_poll_cq(t->cq, 1, &wc) > 0) {
		diag("freeze attacker: WRITE %llu completed: %s", (unsigned long long)wc.wr_id,
		     ibv_wc_status_str(wc.status));
		done++;
	}
	for (i = 0; i < t->n; i++)
		rts += !ibv_query_qp(t->qp[i].qp, &qa, IBV_QP_STATE, &ia) &&
		       qa.qp_state == IBV_QPS_RTS;
	if (!done && rts == t->n && resent > 0)
		ok("freeze attacker: %d QPs (timeout %d, peers %s) stuck for %.1f s: no WRITE completed, all still in RTS, %ld packets resent",
		   t->n, iso.timeout, iso.destroyed ? "destroyed" : "in RESET", now_s() - since,
		   resent);
	else
		not_ok("freeze attacker: after %.1f s %d of %d WRITEs completed, %d of %d QPs were in RTS, %ld packets resent: the attack was not going on throughout",
		       now_s() - since, done, t->n, rts, t->n, resent);
}

int mode_freeze_attacker(void)
{
	static struct attacker t;
	char buf[16];
	double since;
	long resent0;
	int i;

	if (iso.qps > 128)
		die("freeze attacker: at most 128 QPs");
	rc_dev_open(&t.d);
	t.cq = ibv_create_cq(t.d.ctx, 2 * iso.qps + 16, NULL, NULL, 0);
	if (!t.cq)
		die("freeze attacker: ibv_create_cq: %s", strerror(errno));
	t.buf = rc_alloc(A_LEN);
	t.mr = rc_reg(&t.d, t.buf, A_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (rv_await("alone", buf, sizeof(buf), opt.timeout))
		die("freeze attacker: the victim never finished its runs alone");
	resent0 = iso_hw_counter(&t.d, "retrans_pkts");
	for (i = 0; i < iso.qps; i++)
		if (attacker_qp(&t, i))
			break;
	since = now_s();
	rv_publish("stuck", "x\n");
	if (rv_await("done", buf, sizeof(buf), opt.timeout))
		not_ok("freeze attacker: the victim did not finish within %.0f s", opt.timeout);
	else
		attacker_check(&t, since, resent0);
	for (i = 0; i < t.n; i++) {
		rc_conn_destroy(&t.qp[i]);
		if (t.peer[i])
			ibv_destroy_qp(t.peer[i]);
	}
	ibv_destroy_cq(t.cq);
	ibv_dereg_mr(t.mr);
	rc_dev_close(&t.d);
	return 0;
}
