// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qrnic-isolation srq-race: resizing one SRQ from many threads at once
 * must not corrupt the kernel, the device or the SRQ.
 *
 * The provider serialises its own resizes (its lock covers the kernel
 * call), so a hostile process goes around it: besides ibv_modify_srq the
 * threads call the driver's resize method and MODIFY_SRQ and QUERY_SRQ
 * straight through ioctl()/write() on the command file, where only
 * ib_core's object lock and the driver's SRQ mutex stand between them.
 *
 *  1. provider: --threads threads each call ibv_modify_srq(IBV_SRQ_MAX_WR)
 *     --iters times with depths from 16 to 1024 while a thread posts
 *     receive WQEs and the main thread sends SENDs from a loopback RC QP
 *     to a QP on the SRQ (each checked: the receive in posting order, the
 *     bytes); every resize returns 0 or EINVAL (the WQEs outstanding do
 *     not fit; EBUSY would be ib_core's lock); the provider and the kernel
 *     then report the same depth;
 *  2. raw: the threads mix the driver's resize method, MODIFY_SRQ
 *     (IBV_SRQ_LIMIT), QUERY_SRQ and ibv_modify_srq, --iters calls each,
 *     nothing posted meanwhile: 0, EBUSY or EINVAL only;
 *  3. one more resize through the provider (it maps the kernel's latest
 *     ring): ibv_query_srq and the kernel's QUERY_SRQ both report its
 *     depth, and every WQE posted in 1 (carried from ring to ring by the
 *     device through all the resizes) and 64 more receive the remaining
 *     SENDs, in order, bytes right;
 *  4. a second SRQ is destroyed while the threads resize it: each call
 *     returns 0, EBUSY, or (once it is gone) EINVAL or ENOENT, and the
 *     destroy succeeds (after EBUSY while a resize holds it).  Resizes
 *     that sleep in the kernel for the device's answer can keep one of
 *     them in flight at every try on a slow guest, so after 100 tries the
 *     threads pause between calls until the SRQ is gone: the destroy
 *     must then get through once the resizes in flight end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rc-isolation.h"

#define R_MSG		64
#define R_POST_MAX	512	/* receives posted in phase 1 */
#define R_MORE		64	/* and after the last resize */
#define R_FINAL		1024	/* the last resize: holds them all */
#define R_SLOTS		(R_POST_MAX + R_MORE)

enum { RES_OK, RES_BUSY, RES_INVAL, RES_GONE, RES_OTHER, RES_N };

struct race;

struct worker {
	struct race *r;
	pthread_t tid;
	unsigned int seed;
};

struct race {
	struct rc_dev d;
	struct ibv_srq *srq;
	struct rc_conn a, b;
	uint8_t *buf;		/* R_SLOTS receive slots, then the send source */
	struct ibv_mr *mr;
	int phase;
	struct worker w[64];
	pthread_t post;
	atomic_int running;	/* resizing threads not done yet */
	atomic_uint posted;	/* receive i: wr_id i, slot i */
	unsigned int sent;	/* SENDs received and checked */
	atomic_long res[RES_N];
	atomic_int other;	/* the last unexpected errno */
	struct ibv_srq *victim;	/* phase 4's SRQ */
	atomic_int gone;	/* phase 4: it is destroyed */
	atomic_int hold;	/* phase 4: resizers pause until it is gone */
};

static uint32_t pick_depth(unsigned int *seed)
{
	return 16u << (rand_r(seed) % 7);	/* 16 .. 1024 */
}

/* Phase 4's EINVAL and ENOENT: the handle of an SRQ that is gone. */
static void count(struct race *r, int e)
{
	int k = e == 0 ? RES_OK : e == EBUSY ? RES_BUSY : RES_OTHER;

	if (e == EINVAL)
		k = r->phase == 4 ? RES_GONE : RES_INVAL;
	else if (e == ENOENT && r->phase == 4)
		k = RES_GONE;
	if (k == RES_OTHER)
		atomic_store(&r->other, e);
	atomic_fetch_add(&r->res[k], 1);
}

static int provider_resize(struct ibv_srq *srq, uint32_t depth)
{
	struct ibv_srq_attr a = { .max_wr = depth };

	return ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR);
}

/* One call of phase 2's mix on the SRQ. */
static int raw_call(struct race *r, unsigned int *seed)
{
	struct ibv_context *ctx = r->d.ctx;
	uint32_t h = r->srq->handle, mw, lim;

	switch (rand_r(seed) % 5) {
	case 0:
	case 1:
		return uv_srq_resize(ctx, h, pick_depth(seed));
	case 2:
		return uv_modify_srq(ctx, h, IBV_SRQ_LIMIT, 0, rand_r(seed) % 8, 0, 0);
	case 3:
		return uv_query_srq(ctx, h, &mw, &lim);
	default:
		return provider_resize(r->srq, pick_depth(seed));
	}
}

static void *resizer(void *arg)
{
	struct worker *w = arg;
	struct race *r = w->r;
	int i, after = 0;

	for (i = 0; r->phase == 4 ? after < 16 : i < iso.iters; i++) {
		if (r->phase == 1) {
			count(r, provider_resize(r->srq, pick_depth(&w->seed)));
		} else if (r->phase == 2) {
			count(r, raw_call(r, &w->seed));
		} else if (atomic_load(&r->hold) && !atomic_load(&r->gone)) {
			struct timespec nap = { 0, 1000000 };

			nanosleep(&nap, NULL);
			i--;
		} else {
			after += atomic_load(&r->gone);
			count(r, uv_srq_resize(r->d.ctx, r->victim->handle, pick_depth(&w->seed)));
		}
	}
	atomic_fetch_sub(&r->running, 1);
	return NULL;
}

static void *poster(void *arg)
{
	struct race *r = arg;
	struct timespec nap = { 0, 100000 };

	while (atomic_load(&r->running) && atomic_load(&r->posted) < R_POST_MAX) {
		unsigned int i = atomic_load(&r->posted);
		struct ibv_sge sge = { (uintptr_t)r->buf + i * R_MSG, R_MSG, r->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;
		int e = ibv_post_srq_recv(r->srq, &wr, &bad);

		if (!e)
			atomic_store(&r->posted, i + 1);
		else if (e == ENOMEM)	/* full: a resize or the sender makes room */
			nanosleep(&nap, NULL);
		else
			atomic_store(&r->other, e);
	}
	return NULL;
}

/* SEND number r->sent: it must land in receive r->sent, bytes right. */
static int send_one(struct race *r)
{
	uint8_t *src = r->buf + R_SLOTS * R_MSG;
	uint32_t seed = 0x5eed0000 + r->sent;
	char what[64];

	snprintf(what, sizeof(what), "srq-race SEND %u", r->sent);
	pat_fill(src, R_MSG, seed);
	if (iso_send_check(&r->a, &r->b, r->mr, src, R_MSG, r->sent, what) ||
	    pat_check(r->buf + r->sent * R_MSG, R_MSG, seed, what))
		return -1;
	r->sent++;
	return 0;
}

static void start_threads(struct race *r, int phase, int with_poster)
{
	int i;

	r->phase = phase;
	for (i = 0; i < RES_N; i++)
		atomic_store(&r->res[i], 0);
	atomic_store(&r->running, iso.threads);
	if (with_poster && pthread_create(&r->post, NULL, poster, r))
		die("srq-race: pthread_create: %s", strerror(errno));
	for (i = 0; i < iso.threads; i++) {
		r->w[i] = (struct worker){ .r = r, .seed = getpid() * 31 + i * 7919 + phase };
		if (pthread_create(&r->w[i].tid, NULL, resizer, &r->w[i]))
			die("srq-race: pthread_create: %s", strerror(errno));
	}
}

static void join_threads(struct race *r, int with_poster)
{
	int i;

	for (i = 0; i < iso.threads; i++)
		pthread_join(r->w[i].tid, NULL);
	if (with_poster)
		pthread_join(r->post, NULL);
}

/*
 * Phase 1: the main thread sends while the others resize and post, so
 * the device takes WQEs from rings that are being replaced; it takes half
 * of them at most, so the rest ride through phase 2's resizes.
 */
static void phase1(struct race *r)
{
	struct timespec nap = { 0, 200000 };
	int bad = 0;

	start_threads(r, 1, 1);
	while (atomic_load(&r->running) && !bad) {
		if (r->sent < atomic_load(&r->posted) && r->sent < R_POST_MAX / 2)
			bad = send_one(r);
		else
			nanosleep(&nap, NULL);
	}
	join_threads(r, 1);
}

static void report(struct race *r, const char *what, long calls)
{
	long ok_ = r->res[RES_OK], busy = r->res[RES_BUSY], inval = r->res[RES_INVAL];
	long gone = r->res[RES_GONE], other = r->res[RES_OTHER];

	if (!other && ok_ + busy + inval + gone >= calls)
		ok("srq-race %s: %ld calls: %ld succeeded, %ld EBUSY, %ld EINVAL, %ld on a destroyed SRQ",
		   what, ok_ + busy + inval + gone, ok_, busy, inval, gone);
	else
		not_ok("srq-race %s: %ld calls: %ld succeeded, %ld EBUSY, %ld EINVAL, %ld gone, %ld other (last: %s)",
		       what, ok_ + busy + inval + gone + other, ok_, busy, inval, gone, other,
		       strerror(r->other));
	if (!ok_)
		not_ok("srq-race %s: no call succeeded", what);
}

/* The provider's depth (ibv_query_srq) and the kernel's (QUERY_SRQ). */
static int depths_agree(struct race *r, uint32_t want, const char *what)
{
	struct ibv_srq_attr a;
	uint32_t kwr = 0, lim;
	int e = ibv_query_srq(r->srq, &a), k = uv_query_srq(r->d.ctx, r->srq->handle, &kwr, &lim);

	if (!e && !k && a.max_wr == kwr && (!want || kwr == want)) {
		ok("srq-race %s: ibv_query_srq and the kernel's QUERY_SRQ both say max_wr %u", what,
		   kwr);
		return 0;
	}
	not_ok("srq-race %s: ibv_query_srq %s max_wr %u, QUERY_SRQ %s max_wr %u, want %u", what,
	       strerror(e), a.max_wr, strerror(k), kwr, want);
	return -1;
}

/* Phase 3: one last resize through the provider, then every WQE used. */
static void finish(struct race *r)
{
	unsigned int i, before = r->sent, posted1 = atomic_load(&r->posted);
	int e = provider_resize(r->srq, R_FINAL);

	if (e) {
		not_ok("srq-race: the last resize to %u: %s", R_FINAL, strerror(e));
		return;
	}
	depths_agree(r, R_FINAL, "after the last resize");
	r->phase = 3;
	for (i = 0; i < R_MORE; i++) {
		unsigned int n = atomic_load(&r->posted);
		struct ibv_sge sge = { (uintptr_t)r->buf + n * R_MSG, R_MSG, r->mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = n, .sg_list = &sge, .num_sge = 1 }, *bad;

		if (ibv_post_srq_recv(r->srq, &wr, &bad)) {
			not_ok("srq-race: posting receive %u after the last resize: %s", n,
			       strerror(errno));
			return;
		}
		atomic_store(&r->posted, n + 1);
	}
	while (r->sent < atomic_load(&r->posted))
		if (send_one(r))
			return;
	ok("srq-race: after the resizes the SRQ took SENDs %u..%u into receives %u..%u in order (%u of them posted before phase 2), every byte right",
	   before, r->sent - 1, before, r->sent - 1, posted1 - before);
}

/* Phase 4: destroy an SRQ while the threads resize it. */
static void destroy_race(struct race *r)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct timespec nap = { 0, 1000000 }, head = { 0, 20000000 };
	int e = EBUSY, tries = 0;

	r->victim = ibv_create_srq(r->d.pd, &sa);
	if (!r->victim) {
		not_ok("srq-race: the SRQ to destroy: %s", strerror(errno));
		return;
	}
	atomic_store(&r->gone, 0);
	atomic_store(&r->hold, 0);
	start_threads(r, 4, 0);
	nanosleep(&head, NULL);	/* some resizes first */
	while (e == EBUSY && tries++ < 1000) {
		e = ibv_destroy_srq(r->victim);
		if (e == EBUSY)
			nanosleep(&nap, NULL);
		if (tries == 100)
			atomic_store(&r->hold, 1);
	}
	atomic_store(&r->gone, 1);
	join_threads(r, 0);
	report(r, "resize method on an SRQ being destroyed", 16L * iso.threads);
	if (e)
		not_ok("srq-race: destroying the SRQ while it was resized: %s after %d tries",
		       strerror(e), tries);
	else
		ok("srq-race: the SRQ destroyed while %d threads resized it (%d tries%s)",
		   iso.threads, tries, tries > 100 ? ", the resizers paused from the 100th" : "");
}

int mode_srq_race(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	static struct race r;
	long calls = (long)iso.threads * iso.iters;

	rc_dev_open(&r.d);
	r.buf = rc_alloc((R_SLOTS + 1) * R_MSG);
	r.mr = rc_reg(&r.d, r.buf, (R_SLOTS + 1) * R_MSG, IBV_ACCESS_LOCAL_WRITE);
	r.srq = ibv_create_srq(r.d.pd, &sa);
	if (!r.srq || iso_pair(&r.d, &r.a, &r.b, "srq-race", 64, r.srq))
		die("srq-race: SRQ and loopback pair: %s", strerror(errno));
	phase1(&r);
	report(&r, "provider resizes, receives posted and SENDs taken meanwhile", calls);
	diag("srq-race: %u receives posted, %u SENDs received in order during phase 1; %u ride through phase 2",
	     atomic_load(&r.posted), r.sent, atomic_load(&r.posted) - r.sent);
	depths_agree(&r, 0, "after the provider's resizes");
	start_threads(&r, 2, 0);
	join_threads(&r, 0);
	report(&r, "raw resize method, MODIFY_SRQ, QUERY_SRQ and ibv_modify_srq at once", calls);
	finish(&r);
	destroy_race(&r);
	rc_conn_destroy(&r.b);
	rc_conn_destroy(&r.a);
	ibv_destroy_srq(r.srq);
	ibv_dereg_mr(r.mr);
	rc_dev_close(&r.d);
	return 0;
}
