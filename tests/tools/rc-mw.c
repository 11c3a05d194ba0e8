// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check mw: memory windows and remote invalidation between two guests.
 * Two rounds: guest 1 is the owner (it registers memory and binds windows
 * over it) and guest 0 the user (it reaches the owner's memory through
 * the windows' rkeys), then the other way round.  Each round:
 *
 *  bind     a type 1 window (ibv_bind_mw) over 4 KiB inside a 32 KiB MR with
 *           MW_BIND access, a type 2 window (IBV_WR_BIND_MW, new rkey
 *           ibv_inc_rkey(mw->rkey)) over the MR's last 8 KiB; the user
 *           WRITEs a pattern through each and READs it back; a WRITE ending
 *           one byte beyond the type 2 window -> IBV_WC_REM_ACCESS_ERR
 *  oob      a WRITE ending one byte beyond the type 1 window and a READ
 *           starting one byte before it (both inside the MR) ->
 *           REM_ACCESS_ERR; nothing outside the windows changed
 *  unbind   ibv_bind_mw with length 0: WRITEs through the old and the new
 *           rkey -> REM_ACCESS_ERR
 *  linv     IBV_WR_LOCAL_INV of a type 2 window: a WRITE through it works
 *           before, fails with REM_ACCESS_ERR after
 *  rinv     IBV_WR_SEND_WITH_INV naming a type 2 window: the owner's receive
 *           completes with IBV_WC_WITH_INV and invalidated_rkey == the rkey;
 *           the user's next WRITE through it -> REM_ACCESS_ERR
 *  bad      binds that must fail on the owner (IBV_WC_MW_BIND_ERR, QP in
 *           ERR): a range reaching past the MR, an MR without MW_BIND, a
 *           type 2 window that is already bound; after each a fresh QP
 *           pair carries a SEND each way
 *  dealloc  ibv_dereg_mr of an MR with bound windows fails (EBUSY or
 *           EINVAL); ibv_dealloc_mw of a bound type 2 window: the user's
 *           WRITE through it -> REM_ACCESS_ERR; the MR then deregisters
 *
 * Every failing access gets a fresh QP pair (the failed one is in ERR).
 * Type 2 windows serve only the QP that bound them, so the owner binds them
 * on the pair the user reaches them through, and deallocates them before
 * it destroys that QP (rdma_rxe holds a QP reference in a bound type 2
 * window).  Only libibverbs calls: the mode runs on rdma_rxe as well.
 *
 * rdma_rxe (6.12) as the owner deviates three ways; each is accepted for
 * rxe only, with a "# note:" line:
 *  - it checks a window access against the bounds of the window's MR, not
 *    of the window (rxe_resp.c check_rkey): an access outside the window
 *    but inside the MR succeeds;
 *  - a failed bind completes with WR_FLUSH_ERR, not MW_BIND_ERR (the QP
 *    error it raises flushes the bind WQE as well);
 *  - the receive of a SEND_WITH_INV carries the kernel's
 *    IB_WC_WITH_INVALIDATE (1 << 2) in wc_flags, which libibverbs reads as
 *    IBV_WC_IP_CSUM_OK; IBV_WC_WITH_INV (1 << 3) is missing.
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
/* The owner's buffer: MR M [0, 32K) with MW_BIND access ... */
#define O_LEN		(64 * KIB)
#define M_LEN		(32 * KIB)
#define W1_OFF		(4 * KIB)	/* the type 1 window */
#define W1_LEN		(4 * KIB)
#define W3_OFF		(16 * KIB)	/* the later type 2 windows */
#define W3_LEN		(4 * KIB)
#define W2_OFF		(24 * KIB)	/* the first type 2 window: M's end */
#define W2_LEN		(8 * KIB)
#define N_OFF		(36 * KIB)	/* MR N: no MW_BIND access */
#define N_LEN		(4 * KIB)
#define X_OFF		(40 * KIB)	/* MR X: windows, then deregistered */
#define X_LEN		(8 * KIB)
#define CHK_LEN		(56 * KIB)	/* [0, 56K) is checked byte for byte */
#define R_OFF		(56 * KIB)	/* MR R: receive and send buffers */
#define R_LEN		(8 * KIB)
/* The user's buffer, one MR: sources, READ targets, messages. */
#define U_LEN		(64 * KIB)
#define U_SRC		0
#define U_DST		(32 * KIB)
#define U_MSG		(56 * KIB)

#define REMOTE_RW	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/* Windows whose rkeys the owner hands to the user. */
enum { K_W1, K_W2, K_W1_OLD, K_W1_NEW, K_W3, K_W4, K_W8, K_MAX };

struct wkey {
	int valid;
	uint64_t addr, len;
	uint32_t rkey;
};

struct round {
	struct rc_dev *d;
	int owner;		/* this round's owner: 1, then 0 */
	int own;		/* we are the owner */
	int rxe_owner;		/* the owner is rdma_rxe */
	char p[8];		/* prefix of the rendezvous names */
	char who[40];		/* "owner g1" or "user g0, owner g1" */
	uint32_t can;		/* seed of the owner's canary pattern */
	struct wkey k[K_MAX];
	/* owner */
	uint8_t *ob, *exp;	/* its buffer and what it should hold */
	struct ibv_mr *mm, *mn, *mrr;
	struct ibv_mw *mw1;
	/* user */
	uint8_t *ub;
	struct ibv_mr *um;
};

/* Data seeds: one per round and purpose. */
static uint32_t seed(const struct round *r, int k)
{
	return 0x6d770000u + r->owner * 0x100u + k;
}

static const char *st_str(int st)
{
	return st < 0 ? "no completion" : ibv_wc_status_str((enum ibv_wc_status)st);
}

static const char *qp_state_str(int s)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return s >= 0 && (unsigned int)s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

/* The QP reaches ERR within 5 s: 0, else its last state. */
static int wait_qp_err(struct ibv_qp *qp)
{
	double end = now_s() + 5;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int st = -1;

	do {
		if (!ibv_query_qp(qp, &a, IBV_QP_STATE, &ia)) {
			st = a.qp_state;
			if (st == IBV_QPS_ERR)
				return 0;
		}
		usleep(10000);
	} while (now_s() < end);
	return st < 0 ? -1 : st;
}

/* ---- rendezvous ---- */

/* Both sides reach WHAT (longer wait than rv_barrier: the peer may be
 * running several operations meanwhile).  On a timeout the round ends. */
static int meet(struct round *r, const char *what)
{
	char name[64], buf[16];

	snprintf(name, sizeof(name), "%s-%s", r->p, what);
	if (rv_publish(name, "x\n") || rv_await(name, buf, sizeof(buf), opt.timeout * 4)) {
		not_ok("mw: %s: the peer did not reach %s within %.0f s", r->who, name,
		       opt.timeout * 4);
		return -1;
	}
	return 0;
}

/* The owner publishes its window keys; the user reads them. */
static int keys_publish(struct round *r, const char *step)
{
	char name[64], buf[1024];
	size_t o = 0;
	int i;

	for (i = 0; i < K_MAX; i++)
		o += snprintf(buf + o, sizeof(buf) - o, "k %d %d %llx %llx %x\n", i, r->k[i].valid,
			      (unsigned long long)r->k[i].addr, (unsigned long long)r->k[i].len,
			      r->k[i].rkey);
	snprintf(name, sizeof(name), "keys-%s-%s", r->p, step);
	return rv_publish(name, buf);
}

static int keys_read(struct round *r, const char *step)
{
	char name[64], buf[1024], *line, *save = NULL;

	snprintf(name, sizeof(name), "keys-%s-%s", r->p, step);
	if (rv_await(name, buf, sizeof(buf), opt.timeout)) {
		not_ok("mw: %s: no window keys from the owner (%s)", r->who, name);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, l;
		unsigned int key;
		int i, v;

		if (sscanf(line, "k %d %d %llx %llx %x", &i, &v, &a, &l, &key) == 5 && i >= 0 &&
		    i < K_MAX)
			r->k[i] = (struct wkey){ v, a, l, key };
	}
	return 0;
}

/* ---- QP pairs ---- */

static int pair_open(struct round *r, struct rc_conn *c, const char *step)
{
	struct rc_qp_params par;
	char name[48];

	rc_default_params(&par);
	par.max_send_wr = 16;
	par.max_recv_wr = 16;
	snprintf(name, sizeof(name), "%s-%s", r->p, step);
	if (rc_conn_create(c, r->d, name, &par) || rc_conn_connect(c)) {
		rc_conn_destroy(c);
		return -1;
	}
	r->rxe_owner = rc_is_rxe(r->own ? c->local.nic : c->peer.nic);
	return 0;
}

/* ---- the user's operations ---- */

/* One signalled WR on the user's QP: RDMA WRITE or READ of len bytes at
 * U + loff to/from raddr through rkey, or SEND_WITH_INV of len bytes naming
 * rkey.  Returns the completion's status, -1 if none. */
static int user_op(struct round *r, struct rc_conn *c, enum ibv_wr_opcode op, uint32_t loff,
		   uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)(r->ub + loff), len, r->um->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x700 + op, .sg_list = &sge, .num_sge = 1,
				  .opcode = op, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	int e;

	if (op == IBV_WR_SEND_WITH_INV) {
		wr.invalidate_rkey = rkey;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if ((e = ibv_post_send(c->qp, &wr, &bad))) {
		diag("%s: ibv_post_send (opcode %d): %s", c->name, op, strerror(e));
		return -1;
	}
	e = rc_poll(c->scq, &wc, opt.timeout);
	if (e != 1) {
		diag("%s: no completion for opcode %d within %.0f s", c->name, op, opt.timeout);
		return -1;
	}
	if (wc.wr_id != wr.wr_id || wc.qp_num != c->local.qpn) {
		diag("%s: completion of wr_id %#llx qp %#x, want %#llx qp %#x", c->name,
		     (unsigned long long)wc.wr_id, wc.qp_num, (unsigned long long)wr.wr_id,
		     c->local.qpn);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS && opt.verbose)
		diag("%s: opcode %d: %s, vendor_err %#x", c->name, op, ibv_wc_status_str(wc.status),
		     wc.vendor_err);
	return wc.status;
}

/* The user WRITEs/READs through a window and must get want. */
static int user_expect(struct round *r, struct rc_conn *c, enum ibv_wr_opcode op, uint32_t loff,
		       uint32_t len, uint64_t raddr, uint32_t rkey, enum ibv_wc_status want,
		       const char *what)
{
	int st = user_op(r, c, op, loff, len, raddr, rkey);

	if (st == (int)want) {
		ok("mw: %s: %s -> %s", r->who, what, ibv_wc_status_str(want));
		return 0;
	}
	not_ok("mw: %s: %s -> %s (got %s)", r->who, what, ibv_wc_status_str(want), st_str(st));
	return -1;
}

/* An access outside a window but inside its MR: IBTA says REM_ACCESS_ERR;
 * rdma_rxe as the owner lets it through (it checks the MR's bounds). */
static void user_expect_oob(struct round *r, struct rc_conn *c, enum ibv_wr_opcode op,
			    uint32_t loff, uint32_t len, uint64_t raddr, uint32_t rkey,
			    const char *what)
{
	int st = user_op(r, c, op, loff, len, raddr, rkey);

	if (st == IBV_WC_REM_ACCESS_ERR) {
		ok("mw: %s: %s -> %s", r->who, what, ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	} else if (st == IBV_WC_SUCCESS && r->rxe_owner) {
		diag("note: rdma_rxe (the owner) checks a window access against its MR's bounds only "
		     "(rxe_resp.c check_rkey), so an access outside the window but inside the MR "
		     "succeeds; accepted for rxe only");
		ok("mw: %s: %s -> %s (rdma_rxe owner: succeeded, tolerated)", r->who, what,
		   ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	} else {
		not_ok("mw: %s: %s -> %s (got %s)", r->who, what,
		       ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR), st_str(st));
	}
}

/* ---- the owner's operations ---- */

/* The completion of the owner's local WR wr_id (bind or LOCAL_INV):
 * its status, -1 if none or a successful one with the wrong opcode. */
static int owner_wc(struct rc_conn *c, uint64_t wr_id, enum ibv_wc_opcode op)
{
	struct ibv_wc wc;

	if (rc_poll(c->scq, &wc, opt.timeout) != 1) {
		diag("%s: no completion for wr_id %#llx within %.0f s", c->name,
		     (unsigned long long)wr_id, opt.timeout);
		return -1;
	}
	if (wc.wr_id != wr_id || wc.qp_num != c->local.qpn) {
		diag("%s: completion of wr_id %#llx qp %#x (%s), want wr_id %#llx qp %#x", c->name,
		     (unsigned long long)wc.wr_id, wc.qp_num, ibv_wc_status_str(wc.status),
		     (unsigned long long)wr_id, c->local.qpn);
		return -1;
	}
	if (wc.status == IBV_WC_SUCCESS && wc.opcode != op) {
		diag("%s: wr_id %#llx completed with opcode %d, want %d", c->name,
		     (unsigned long long)wr_id, wc.opcode, op);
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("%s: wr_id %#llx: %s, vendor_err %#x", c->name, (unsigned long long)wr_id,
		     ibv_wc_status_str(wc.status), wc.vendor_err);
	return wc.status;
}

/* Type 1: ibv_bind_mw (the provider gives the window its next rkey). */
static int bind1(struct rc_conn *c, struct ibv_mw *mw, struct ibv_mr *mr, void *addr,
		 uint64_t len, unsigned int access)
{
	struct ibv_mw_bind b = {
		.wr_id = 0xb1, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = (uintptr_t)addr, .length = len,
			       .mw_access_flags = access },
	};
	int e = ibv_bind_mw(c->qp, mw, &b);

	if (e) {
		diag("%s: ibv_bind_mw: %s", c->name, strerror(e));
		return -1;
	}
	return owner_wc(c, 0xb1, IBV_WC_BIND_MW);
}

/* Type 2: an IBV_WR_BIND_MW WR giving the window rkey.  After a successful
 * bind the window's key is rkey: mw->rkey follows (as ibv_bind_mw does for
 * type 1), so a later bind or invalidation names the current key. */
static int bind2(struct rc_conn *c, struct ibv_mw *mw, uint32_t rkey, struct ibv_mr *mr,
		 void *addr, uint64_t len, unsigned int access)
{
	struct ibv_send_wr wr = { .wr_id = 0xb2, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int e, st;

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	if ((e = ibv_post_send(c->qp, &wr, &bad))) {
		diag("%s: ibv_post_send IBV_WR_BIND_MW: %s", c->name, strerror(e));
		return -1;
	}
	st = owner_wc(c, 0xb2, IBV_WC_BIND_MW);
	if (st == IBV_WC_SUCCESS)
		mw->rkey = rkey;
	return st;
}

static int local_inv(struct rc_conn *c, uint32_t rkey)
{
	struct ibv_send_wr wr = { .wr_id = 0x11, .opcode = IBV_WR_LOCAL_INV,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	int e;

	wr.invalidate_rkey = rkey;
	if ((e = ibv_post_send(c->qp, &wr, &bad))) {
		diag("%s: ibv_post_send IBV_WR_LOCAL_INV: %s", c->name, strerror(e));
		return -1;
	}
	return owner_wc(c, 0x11, IBV_WC_LOCAL_INV);
}

static struct ibv_mw *alloc_mw(struct round *r, enum ibv_mw_type type)
{
	struct ibv_mw *mw = ibv_alloc_mw(r->d->pd, type);

	if (!mw)
		not_ok("mw: %s: ibv_alloc_mw type %d: %s", r->who, type == IBV_MW_TYPE_1 ? 1 : 2,
		       strerror(errno));
	return mw;
}

static void dealloc_mw(struct round *r, struct ibv_mw **mw, const char *what)
{
	int e;

	if (!*mw)
		return;
	e = ibv_dealloc_mw(*mw);
	if (e)
		not_ok("mw: %s: ibv_dealloc_mw (%s): %s", r->who, what, strerror(e));
	*mw = NULL;
}

/* The owner's pattern expectations: [off, off + len) of its buffer holds
 * the stream of seed s. */
static void exp_set(struct round *r, uint32_t off, uint32_t len, uint32_t s)
{
	pat_fill_at(r->exp + off, len, s, 0);
}

/* The owner's checked range holds exactly what it should. */
static int owner_check(struct round *r, const char *what)
{
	size_t k, bad = 0, first = 0;

	for (k = 0; k < CHK_LEN; k++)
		if (r->ob[k] != r->exp[k] && !bad++)
			first = k;
	if (!bad) {
		ok("mw: %s: %s (%u KiB checked byte for byte)", r->who, what, CHK_LEN / KIB);
		return 0;
	}
	not_ok("mw: %s: %s: %zu bytes differ, first at offset %#zx: 0x%02x, want 0x%02x",
	       r->who, what, bad, first, r->ob[first], r->exp[first]);
	memcpy(r->ob, r->exp, CHK_LEN);	/* one report per difference */
	return -1;
}

/* A bind that must fail: IBV_WC_MW_BIND_ERR.  rdma_rxe moves the QP to
 * ERR and then flushes the failed bind with the rest (as it does a WQE
 * with a bad lkey, see rc-errors.c): WR_FLUSH_ERR, accepted for rxe only. */
static int bind_err_ok(struct round *r, int st)
{
	if (st == IBV_WC_MW_BIND_ERR)
		return 1;
	if (st == IBV_WC_WR_FLUSH_ERR && r->rxe_owner) {
		diag("note: rdma_rxe completes the failed bind with WR_FLUSH_ERR, not MW_BIND_ERR (its QP error flushes the bind WQE too); accepted for rxe only");
		return 1;
	}
	return 0;
}

/* ---- cases ---- */

/* Case 1: both window types, data through them, a WRITE past the type 2
 * window (also past the MR) on the pair that bound it. */
static int case_bind(struct round *r)
{
	struct rc_conn c;
	struct ibv_mw *mw2 = NULL;
	int st;

	if (pair_open(r, &c, "bind"))
		return -1;
	if (r->own) {
		r->mw1 = alloc_mw(r, IBV_MW_TYPE_1);
		mw2 = alloc_mw(r, IBV_MW_TYPE_2);
		if (r->mw1) {
			uint32_t old = r->mw1->rkey;

			st = bind1(&c, r->mw1, r->mm, r->ob + W1_OFF, W1_LEN, REMOTE_RW);
			if (st == IBV_WC_SUCCESS && r->mw1->rkey != old) {
				ok("mw: %s: type 1 window bound with ibv_bind_mw over 4 KiB inside a 32 KiB MR (remote write+read): IBV_WC_BIND_MW, rkey %#x -> %#x",
				   r->who, old, r->mw1->rkey);
				r->k[K_W1] = (struct wkey){ 1, (uintptr_t)(r->ob + W1_OFF), W1_LEN,
							    r->mw1->rkey };
			} else {
				not_ok("mw: %s: type 1 window bound with ibv_bind_mw -> SUCCESS (got %s, rkey %#x -> %#x)",
				       r->who, st_str(st), old, r->mw1->rkey);
			}
		}
		if (mw2) {
			uint32_t old = mw2->rkey, nk = ibv_inc_rkey(mw2->rkey);

			st = bind2(&c, mw2, nk, r->mm, r->ob + W2_OFF, W2_LEN, REMOTE_RW);
			if (st == IBV_WC_SUCCESS) {
				ok("mw: %s: type 2 window bound with IBV_WR_BIND_MW over the MR's last 8 KiB: IBV_WC_BIND_MW, rkey %#x -> ibv_inc_rkey %#x",
				   r->who, old, nk);
				r->k[K_W2] = (struct wkey){ 1, (uintptr_t)(r->ob + W2_OFF), W2_LEN, nk };
			} else {
				not_ok("mw: %s: type 2 window bound with IBV_WR_BIND_MW -> SUCCESS (got %s)",
				       r->who, st_str(st));
			}
		}
		keys_publish(r, "bind");
	}
	if (meet(r, "bind-keys"))
		goto fail;
	if (!r->own) {
		if (keys_read(r, "bind"))
			goto fail;
		if (r->k[K_W1].valid) {
			int bad = 0;

			pat_fill(r->ub + U_SRC, W1_LEN, seed(r, 1));
			memset(r->ub + U_DST, 0, W1_LEN);
			bad |= user_op(r, &c, IBV_WR_RDMA_WRITE, U_SRC, W1_LEN, r->k[K_W1].addr,
				       r->k[K_W1].rkey) != IBV_WC_SUCCESS;
			bad |= user_op(r, &c, IBV_WR_RDMA_READ, U_DST, W1_LEN, r->k[K_W1].addr,
				       r->k[K_W1].rkey) != IBV_WC_SUCCESS;
			bad |= pat_check(r->ub + U_DST, W1_LEN, seed(r, 1), "READ through the type 1 window");
			if (!bad)
				ok("mw: %s: RDMA WRITE of 4 KiB through the type 1 window, READ back through it: data right",
				   r->who);
			else
				not_ok("mw: %s: RDMA WRITE of 4 KiB through the type 1 window, READ back through it",
				       r->who);
		}
		if (r->k[K_W2].valid) {
			int bad = 0;

			pat_fill(r->ub + U_SRC + 4 * KIB, W2_LEN, seed(r, 2));
			memset(r->ub + U_DST + 4 * KIB, 0, W2_LEN);
			bad |= user_op(r, &c, IBV_WR_RDMA_WRITE, U_SRC + 4 * KIB, W2_LEN,
				       r->k[K_W2].addr, r->k[K_W2].rkey) != IBV_WC_SUCCESS;
			bad |= user_op(r, &c, IBV_WR_RDMA_READ, U_DST + 4 * KIB, W2_LEN,
				       r->k[K_W2].addr, r->k[K_W2].rkey) != IBV_WC_SUCCESS;
			bad |= pat_check(r->ub + U_DST + 4 * KIB, W2_LEN, seed(r, 2),
					 "READ through the type 2 window");
			if (!bad)
				ok("mw: %s: RDMA WRITE of 8 KiB through the type 2 window, READ back through it: data right",
				   r->who);
			else
				not_ok("mw: %s: RDMA WRITE of 8 KiB through the type 2 window, READ back through it",
				       r->who);
		}
	} else {
		if (r->k[K_W1].valid)
			exp_set(r, W1_OFF, W1_LEN, seed(r, 1));
		if (r->k[K_W2].valid)
			exp_set(r, W2_OFF, W2_LEN, seed(r, 2));
	}
	if (meet(r, "bind-rw"))
		goto fail;
	if (r->own) {
		owner_check(r, "its memory holds what the user wrote through both windows, nothing else changed");
	} else if (r->k[K_W2].valid) {
		/* 16 bytes the window already holds, then one past its end
		 * (and its MR's) unlike what is there. */
		uint8_t b;

		pat_fill_at(r->ub + U_SRC + 16 * KIB, 16, seed(r, 2), W2_LEN - 16);
		pat_fill_at(&b, 1, r->can, W2_OFF + W2_LEN);
		r->ub[U_SRC + 16 * KIB + 16] = ~b;
		user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC + 16 * KIB, 17,
			    r->k[K_W2].addr + r->k[K_W2].len - 16, r->k[K_W2].rkey,
			    IBV_WC_REM_ACCESS_ERR,
			    "RDMA WRITE of 17 B ending 1 B beyond the type 2 window (and its MR)");
	}
	if (meet(r, "bind-oob"))
		goto fail;
	dealloc_mw(r, &mw2, "type 2 window of case 1");
	rc_conn_destroy(&c);
	return 0;
fail:
	dealloc_mw(r, &mw2, "type 2 window of case 1");
	rc_conn_destroy(&c);
	return -1;
}

/* Case 1, continued: accesses just outside the type 1 window, inside its MR;
 * each on a fresh pair. */
static int case_oob(struct round *r)
{
	struct rc_conn c;
	uint8_t b;

	if (pair_open(r, &c, "oob-w"))
		return -1;
	if (!r->own && r->k[K_W1].valid) {
		pat_fill_at(r->ub + U_SRC + 16 * KIB, 16, seed(r, 1), W1_LEN - 16);
		pat_fill_at(&b, 1, r->can, W1_OFF + W1_LEN);
		r->ub[U_SRC + 16 * KIB + 16] = ~b;
		user_expect_oob(r, &c, IBV_WR_RDMA_WRITE, U_SRC + 16 * KIB, 17,
				r->k[K_W1].addr + r->k[K_W1].len - 16, r->k[K_W1].rkey,
				"RDMA WRITE of 17 B ending 1 B beyond the type 1 window (inside its MR)");
	}
	if (meet(r, "oob-w")) {
		rc_conn_destroy(&c);
		return -1;
	}
	rc_conn_destroy(&c);

	if (pair_open(r, &c, "oob-r"))
		return -1;
	if (!r->own && r->k[K_W1].valid)
		user_expect_oob(r, &c, IBV_WR_RDMA_READ, U_DST, 16, r->k[K_W1].addr - 1,
				r->k[K_W1].rkey,
				"RDMA READ of 16 B starting 1 B before the type 1 window (inside its MR)");
	if (meet(r, "oob-r")) {
		rc_conn_destroy(&c);
		return -1;
	}
	if (r->own) {
		uint32_t o = W1_OFF + W1_LEN;

		if (r->rxe_owner && (uint8_t)(r->ob[o] ^ r->exp[o]) == 0xff) {
			diag("note: rdma_rxe wrote the byte after the type 1 window (inside the MR); accepted for rxe only");
			r->exp[o] = r->ob[o];
		}
		owner_check(r, "nothing landed outside the windows");
	}
	rc_conn_destroy(&c);
	return 0;
}

/* Case 2: rebinding the type 1 window with length 0 unbinds it. */
static int case_unbind(struct round *r)
{
	struct rc_conn c;
	int st;

	if (pair_open(r, &c, "unbind"))
		return -1;
	if (r->own && r->mw1 && r->k[K_W1].valid) {
		uint32_t old = r->mw1->rkey;

		st = bind1(&c, r->mw1, r->mm, r->ob + W1_OFF, 0, 0);
		if (st == IBV_WC_SUCCESS) {
			ok("mw: %s: ibv_bind_mw of the type 1 window with length 0 (unbind): IBV_WC_BIND_MW, rkey %#x -> %#x",
			   r->who, old, r->mw1->rkey);
			r->k[K_W1_OLD] = (struct wkey){ 1, (uintptr_t)(r->ob + W1_OFF), W1_LEN, old };
			r->k[K_W1_NEW] = (struct wkey){ 1, (uintptr_t)(r->ob + W1_OFF), W1_LEN,
							r->mw1->rkey };
		} else {
			not_ok("mw: %s: ibv_bind_mw of the type 1 window with length 0 (unbind) -> SUCCESS (got %s)",
			       r->who, st_str(st));
		}
	}
	if (r->own)
		keys_publish(r, "unbind");
	if (meet(r, "unbind-keys"))
		goto fail;
	if (!r->own) {
		if (keys_read(r, "unbind"))
			goto fail;
		if (r->k[K_W1_OLD].valid) {
			pat_fill(r->ub + U_SRC, 64, seed(r, 3));
			user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, 64, r->k[K_W1_OLD].addr,
				    r->k[K_W1_OLD].rkey, IBV_WC_REM_ACCESS_ERR,
				    "RDMA WRITE through the unbound type 1 window's old rkey");
		}
	}
	if (meet(r, "unbind-old"))
		goto fail;
	rc_conn_destroy(&c);

	if (pair_open(r, &c, "unbind-new"))
		return -1;
	if (!r->own && r->k[K_W1_NEW].valid)
		user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, 64, r->k[K_W1_NEW].addr,
			    r->k[K_W1_NEW].rkey, IBV_WC_REM_ACCESS_ERR,
			    "RDMA WRITE through the unbound type 1 window's new rkey (zero length)");
	if (meet(r, "unbind-new"))
		goto fail;
	if (r->own) {
		owner_check(r, "the WRITEs through the unbound window changed nothing");
		dealloc_mw(r, &r->mw1, "unbound type 1 window");
	}
	rc_conn_destroy(&c);
	return 0;
fail:
	rc_conn_destroy(&c);
	return -1;
}

/* Case 3: LOCAL_INV of a type 2 window. */
static int case_linv(struct round *r)
{
	struct rc_conn c;
	struct ibv_mw *mw = NULL;
	int st;

	if (pair_open(r, &c, "linv"))
		return -1;
	if (r->own) {
		mw = alloc_mw(r, IBV_MW_TYPE_2);
		if (mw) {
			uint32_t nk = ibv_inc_rkey(mw->rkey);

			st = bind2(&c, mw, nk, r->mm, r->ob + W3_OFF, W3_LEN, REMOTE_RW);
			if (st == IBV_WC_SUCCESS)
				r->k[K_W3] = (struct wkey){ 1, (uintptr_t)(r->ob + W3_OFF), W3_LEN, nk };
			else
				not_ok("mw: %s: a fresh type 2 window bound with IBV_WR_BIND_MW -> SUCCESS (got %s)",
				       r->who, st_str(st));
		}
		keys_publish(r, "linv");
	}
	if (meet(r, "linv-keys"))
		goto fail;
	if (!r->own) {
		if (keys_read(r, "linv"))
			goto fail;
		if (r->k[K_W3].valid) {
			pat_fill(r->ub + U_SRC, W3_LEN, seed(r, 4));
			user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, W3_LEN, r->k[K_W3].addr,
				    r->k[K_W3].rkey, IBV_WC_SUCCESS,
				    "RDMA WRITE of 4 KiB through a fresh type 2 window");
		}
	} else if (r->k[K_W3].valid) {
		exp_set(r, W3_OFF, W3_LEN, seed(r, 4));
	}
	if (meet(r, "linv-w"))
		goto fail;
	if (r->own && r->k[K_W3].valid) {
		st = local_inv(&c, r->k[K_W3].rkey);
		if (st == IBV_WC_SUCCESS)
			ok("mw: %s: IBV_WR_LOCAL_INV of the type 2 window's rkey %#x: IBV_WC_LOCAL_INV",
			   r->who, r->k[K_W3].rkey);
		else
			not_ok("mw: %s: IBV_WR_LOCAL_INV of the type 2 window's rkey %#x -> SUCCESS (got %s)",
			       r->who, r->k[K_W3].rkey, st_str(st));
	}
	if (meet(r, "linv-inv"))
		goto fail;
	if (!r->own && r->k[K_W3].valid) {
		pat_fill(r->ub + U_SRC, W3_LEN, seed(r, 5));
		user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, W3_LEN, r->k[K_W3].addr, r->k[K_W3].rkey,
			    IBV_WC_REM_ACCESS_ERR,
			    "RDMA WRITE through the type 2 window after the owner's LOCAL_INV");
	}
	if (meet(r, "linv-after"))
		goto fail;
	if (r->own)
		owner_check(r, "its memory holds the WRITE before LOCAL_INV, not the one after");
	dealloc_mw(r, &mw, "invalidated type 2 window");
	rc_conn_destroy(&c);
	return 0;
fail:
	dealloc_mw(r, &mw, "type 2 window of case 3");
	rc_conn_destroy(&c);
	return -1;
}

/* Case 4: SEND_WITH_INV naming a type 2 window. */
static int case_rinv(struct round *r)
{
	struct rc_conn c;
	struct ibv_mw *mw = NULL;
	int st, posted = 0;

	if (pair_open(r, &c, "rinv"))
		return -1;
	if (r->own) {
		struct ibv_sge sge = { (uintptr_t)(r->ob + R_OFF), 256, r->mrr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 0x4e, .sg_list = &sge, .num_sge = 1 }, *bad;

		memset(r->ob + R_OFF, 0, 256);
		mw = alloc_mw(r, IBV_MW_TYPE_2);
		if (mw) {
			uint32_t nk = ibv_inc_rkey(mw->rkey);

			st = bind2(&c, mw, nk, r->mm, r->ob + W3_OFF, W3_LEN, REMOTE_RW);
			if (st == IBV_WC_SUCCESS)
				r->k[K_W4] = (struct wkey){ 1, (uintptr_t)(r->ob + W3_OFF), W3_LEN, nk };
			else
				not_ok("mw: %s: a fresh type 2 window bound with IBV_WR_BIND_MW -> SUCCESS (got %s)",
				       r->who, st_str(st));
		}
		if ((st = ibv_post_recv(c.qp, &wr, &bad))) {
			not_ok("mw: %s: ibv_post_recv: %s", r->who, strerror(st));
			r->k[K_W4].valid = 0;
		} else {
			posted = 1;
		}
		keys_publish(r, "rinv");
	}
	if (meet(r, "rinv-keys"))
		goto fail;
	if (!r->own) {
		if (keys_read(r, "rinv"))
			goto fail;
		if (r->k[K_W4].valid) {
			pat_fill(r->ub + U_SRC, W3_LEN, seed(r, 6));
			pat_fill(r->ub + U_MSG, 16, seed(r, 7));
			user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, W3_LEN, r->k[K_W4].addr,
				    r->k[K_W4].rkey, IBV_WC_SUCCESS,
				    "RDMA WRITE of 4 KiB through a fresh type 2 window");
			user_expect(r, &c, IBV_WR_SEND_WITH_INV, U_MSG, 16, 0, r->k[K_W4].rkey,
				    IBV_WC_SUCCESS, "IBV_WR_SEND_WITH_INV of 16 B naming the window's rkey");
			pat_fill(r->ub + U_SRC + W3_LEN, 64, seed(r, 8));
			user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC + W3_LEN, 64, r->k[K_W4].addr,
				    r->k[K_W4].rkey, IBV_WC_REM_ACCESS_ERR,
				    "RDMA WRITE through the window after SEND_WITH_INV");
		}
	} else if (posted && r->k[K_W4].valid) {
		struct ibv_wc wc;
		int n = rc_poll(c.rcq, &wc, opt.timeout * 2), inv;

		exp_set(r, W3_OFF, W3_LEN, seed(r, 6));
		/* rdma_rxe copies the kernel's IB_WC_WITH_INVALIDATE (1 << 2)
		 * into user CQEs, where bit 2 is IBV_WC_IP_CSUM_OK and
		 * IBV_WC_WITH_INV is 1 << 3: accepted for rxe only. */
		inv = n == 1 && ((wc.wc_flags & IBV_WC_WITH_INV) ||
				 (r->rxe_owner && (wc.wc_flags & IBV_WC_IP_CSUM_OK)));
		if (n != 1)
			not_ok("mw: %s: the receive of SEND_WITH_INV completes (no completion)", r->who);
		else if (wc.wr_id != 0x4e || wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV ||
			 wc.byte_len != 16 || !inv || wc.invalidated_rkey != r->k[K_W4].rkey)
			not_ok("mw: %s: the receive of SEND_WITH_INV completes with IBV_WC_WITH_INV and invalidated_rkey %#x (got wr_id %#llx %s opcode %d byte_len %u wc_flags %#x invalidated_rkey %#x)",
			       r->who, r->k[K_W4].rkey, (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status), wc.opcode, wc.byte_len, wc.wc_flags,
			       wc.invalidated_rkey);
		else if (pat_check(r->ob + R_OFF, 16, seed(r, 7), "SEND_WITH_INV payload"))
			not_ok("mw: %s: the SEND_WITH_INV payload arrived intact", r->who);
		else {
			if (!(wc.wc_flags & IBV_WC_WITH_INV))
				diag("note: rdma_rxe flags the receive with bit 2 (the kernel's IB_WC_WITH_INVALIDATE, libibverbs' IBV_WC_IP_CSUM_OK), not IBV_WC_WITH_INV (wc_flags %#x); accepted for rxe only",
				     wc.wc_flags);
			ok("mw: %s: the receive completes with IBV_WC_WITH_INV, invalidated_rkey %#x (the window's), 16 B intact",
			   r->who, wc.invalidated_rkey);
		}
	}
	if (meet(r, "rinv-done"))
		goto fail;
	if (r->own)
		owner_check(r, "its memory holds the WRITE before SEND_WITH_INV, not the one after");
	dealloc_mw(r, &mw, "remotely invalidated type 2 window");
	rc_conn_destroy(&c);
	return 0;
fail:
	dealloc_mw(r, &mw, "type 2 window of case 4");
	rc_conn_destroy(&c);
	return -1;
}

/* A SEND of 64 B each way on the fresh pair of step STEP. */
static void send_check(struct round *r, struct rc_conn *c, const char *step, const char *after)
{
	uint8_t *buf = r->own ? r->ob + R_OFF + 4 * KIB : r->ub + U_MSG + 1 * KIB;
	uint32_t lkey = r->own ? r->mrr->lkey : r->um->lkey;
	struct ibv_sge rsge = { (uintptr_t)buf, 64, lkey };
	struct ibv_sge ssge = { (uintptr_t)(buf + 256), 64, lkey };
	struct ibv_recv_wr rwr = { .wr_id = 0x5e1, .sg_list = &rsge, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .wr_id = 0x5e2, .sg_list = &ssge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct rc_want sw = { 0x5e2, IBV_WC_SUCCESS, IBV_WC_SEND, 0, 0, 0, 0 };
	struct rc_want rw = { 0x5e1, IBV_WC_SUCCESS, IBV_WC_RECV, 1, 64, 0, 0 };
	/* Each side's message: its role and its QP number in the seed. */
	uint32_t mine = seed(r, 0x40 + !r->own) ^ c->local.qpn;
	uint32_t theirs = seed(r, 0x40 + r->own) ^ c->peer.qpn;
	char name[64], what[128];
	int e;

	snprintf(what, sizeof(what), "a fresh QP pair after %s", after);
	memset(buf, 0, 64);
	pat_fill(buf + 256, 64, mine);
	if ((e = ibv_post_recv(c->qp, &rwr, &rbad))) {
		not_ok("mw: %s: %s: ibv_post_recv: %s", r->who, what, strerror(e));
		return;
	}
	/* Both receives are posted before either side sends. */
	snprintf(name, sizeof(name), "%s-send", step);
	if (meet(r, name))
		return;
	if ((e = ibv_post_send(c->qp, &swr, &sbad))) {
		not_ok("mw: %s: %s: ibv_post_send: %s", r->who, what, strerror(e));
		return;
	}
	if (rc_expect(c->scq, c->local.qpn, &sw, what) || rc_expect(c->rcq, c->local.qpn, &rw, what) ||
	    pat_check(buf, 64, theirs, what)) {
		not_ok("mw: %s: %s carries a SEND each way", r->who, what);
		return;
	}
	ok("mw: %s: %s carries a SEND each way, data right", r->who, what);
}

/* Case 5: binds that must fail, on the owner alone; a fresh pair after each. */
static int case_bad(struct round *r)
{
	struct rc_conn c;
	struct ibv_mw *mw5 = NULL, *mw6 = NULL, *mw7 = NULL;
	int st, qs;

	/* A type 1 window reaching 4 KiB past the end of M. */
	if (pair_open(r, &c, "bad-range"))
		return -1;
	if (r->own && (mw5 = alloc_mw(r, IBV_MW_TYPE_1))) {
		st = bind1(&c, mw5, r->mm, r->ob + M_LEN - 4 * KIB, 8 * KIB, REMOTE_RW);
		qs = wait_qp_err(c.qp);
		if (bind_err_ok(r, st) && !qs)
			ok("mw: %s: ibv_bind_mw of a type 1 window reaching 4 KiB past its MR -> IBV_WC_MW_BIND_ERR%s, QP in ERR",
			   r->who, st == IBV_WC_MW_BIND_ERR ? "" : " (rdma_rxe: WR_FLUSH_ERR)");
		else
			not_ok("mw: %s: ibv_bind_mw of a type 1 window reaching 4 KiB past its MR -> IBV_WC_MW_BIND_ERR, QP in ERR (got %s, QP %s)",
			       r->who, st_str(st), qp_state_str(qs ? qs : IBV_QPS_ERR));
	}
	if (meet(r, "bad-range"))
		goto fail;
	rc_conn_destroy(&c);

	/* A type 2 window over an MR without MW_BIND access. */
	if (pair_open(r, &c, "bad-access"))
		goto fail_nopair;
	send_check(r, &c, "bad-access", "a bind beyond the MR");
	if (r->own && (mw6 = alloc_mw(r, IBV_MW_TYPE_2))) {
		st = bind2(&c, mw6, ibv_inc_rkey(mw6->rkey), r->mn, r->ob + N_OFF, N_LEN, REMOTE_RW);
		qs = wait_qp_err(c.qp);
		if (bind_err_ok(r, st) && !qs)
			ok("mw: %s: IBV_WR_BIND_MW of a type 2 window to an MR without MW_BIND access -> IBV_WC_MW_BIND_ERR%s, QP in ERR",
			   r->who, st == IBV_WC_MW_BIND_ERR ? "" : " (rdma_rxe: WR_FLUSH_ERR)");
		else
			not_ok("mw: %s: IBV_WR_BIND_MW of a type 2 window to an MR without MW_BIND access -> IBV_WC_MW_BIND_ERR, QP in ERR (got %s, QP %s)",
			       r->who, st_str(st), qp_state_str(qs ? qs : IBV_QPS_ERR));
	}
	if (meet(r, "bad-access"))
		goto fail;
	rc_conn_destroy(&c);

	/* A type 2 window bound twice. */
	if (pair_open(r, &c, "bad-twice"))
		goto fail_nopair;
	send_check(r, &c, "bad-twice", "a bind to an MR without MW_BIND");
	if (r->own && (mw7 = alloc_mw(r, IBV_MW_TYPE_2))) {
		st = bind2(&c, mw7, ibv_inc_rkey(mw7->rkey), r->mm, r->ob + W3_OFF, W3_LEN, REMOTE_RW);
		if (st != IBV_WC_SUCCESS) {
			not_ok("mw: %s: a fresh type 2 window bound with IBV_WR_BIND_MW -> SUCCESS (got %s)",
			       r->who, st_str(st));
		} else {
			st = bind2(&c, mw7, ibv_inc_rkey(mw7->rkey), r->mm, r->ob + W3_OFF, W3_LEN,
				   REMOTE_RW);
			qs = wait_qp_err(c.qp);
			/* Any error of its own (IBTA: MW_BIND_ERR); a flush
			 * only from rdma_rxe (bind_err_ok). */
			if (st > IBV_WC_SUCCESS && (st != IBV_WC_WR_FLUSH_ERR || bind_err_ok(r, st)) &&
			    !qs) {
				if (st != IBV_WC_MW_BIND_ERR && st != IBV_WC_WR_FLUSH_ERR)
					diag("note: binding a bound type 2 window completed with %s, not MW_BIND_ERR",
					     st_str(st));
				ok("mw: %s: IBV_WR_BIND_MW of a type 2 window that is already bound -> %s, QP in ERR",
				   r->who, st_str(st));
			} else {
				not_ok("mw: %s: IBV_WR_BIND_MW of a type 2 window that is already bound -> an error completion, QP in ERR (got %s, QP %s)",
				       r->who, st_str(st), qp_state_str(qs ? qs : IBV_QPS_ERR));
			}
		}
	}
	if (meet(r, "bad-twice"))
		goto fail;
	dealloc_mw(r, &mw7, "type 2 window bound twice");
	dealloc_mw(r, &mw6, "type 2 window never bound");
	dealloc_mw(r, &mw5, "type 1 window never bound");
	rc_conn_destroy(&c);

	if (pair_open(r, &c, "bad-after"))
		return -1;
	send_check(r, &c, "bad-after", "binding a bound type 2 window");
	rc_conn_destroy(&c);
	return 0;
fail:
	rc_conn_destroy(&c);
fail_nopair:
	dealloc_mw(r, &mw7, "type 2 window bound twice");
	dealloc_mw(r, &mw6, "type 2 window never bound");
	dealloc_mw(r, &mw5, "type 1 window never bound");
	return -1;
}

/* ibv_dereg_mr of an MR with bound windows must fail (EBUSY or EINVAL). */
static void dereg_refused(struct round *r, struct ibv_mr **x, const char *what)
{
	int e = ibv_dereg_mr(*x);

	if (e == EBUSY || e == EINVAL) {
		ok("mw: %s: ibv_dereg_mr of an MR with %s fails with %s", r->who, what,
		   e == EBUSY ? "EBUSY" : "EINVAL");
		return;
	}
	if (!e) {
		*x = NULL;	/* gone: the windows' fate is the device's */
		not_ok("mw: %s: ibv_dereg_mr of an MR with %s fails with EBUSY or EINVAL (it succeeded)",
		       r->who, what);
	} else {
		not_ok("mw: %s: ibv_dereg_mr of an MR with %s fails with EBUSY or EINVAL (got %s)",
		       r->who, what, strerror(e));
	}
}

/* Case 6: ibv_dealloc_mw of a bound type 2 window; ibv_dereg_mr of an MR
 * with bound windows. */
static int case_dealloc(struct round *r)
{
	struct rc_conn c;
	struct ibv_mw *mw8 = NULL, *mw9 = NULL;
	struct ibv_mr *x = NULL;
	int st, e;

	if (pair_open(r, &c, "dealloc"))
		return -1;
	if (r->own) {
		x = ibv_reg_mr(r->d->pd, r->ob + X_OFF, X_LEN,
			       IBV_ACCESS_LOCAL_WRITE | REMOTE_RW | IBV_ACCESS_MW_BIND);
		if (!x)
			not_ok("mw: %s: ibv_reg_mr with MW_BIND: %s", r->who, strerror(errno));
		mw8 = x ? alloc_mw(r, IBV_MW_TYPE_2) : NULL;
		mw9 = x ? alloc_mw(r, IBV_MW_TYPE_1) : NULL;
		if (mw8 && mw9) {
			uint32_t nk = ibv_inc_rkey(mw8->rkey);
			int st1;

			st = bind2(&c, mw8, nk, x, r->ob + X_OFF, 4 * KIB, REMOTE_RW);
			st1 = bind1(&c, mw9, x, r->ob + X_OFF + 4 * KIB, 4 * KIB, REMOTE_RW);
			if (st != IBV_WC_SUCCESS || st1 != IBV_WC_SUCCESS) {
				not_ok("mw: %s: a type 2 and a type 1 window bound to a new MR -> SUCCESS (got %s, %s)",
				       r->who, st_str(st), st_str(st1));
			} else {
				r->k[K_W8] = (struct wkey){ 1, (uintptr_t)(r->ob + X_OFF), 4 * KIB, nk };
				dereg_refused(r, &x, "a type 1 and a type 2 window bound");
				dealloc_mw(r, &mw9, "bound type 1 window");
				if (x)
					dereg_refused(r, &x, "a type 2 window bound (the type 1 one deallocated)");
			}
		}
		keys_publish(r, "dealloc");
	}
	if (meet(r, "dealloc-keys"))
		goto fail;
	if (!r->own) {
		if (keys_read(r, "dealloc"))
			goto fail;
		if (r->k[K_W8].valid) {
			pat_fill(r->ub + U_SRC, 4 * KIB, seed(r, 9));
			user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, 4 * KIB, r->k[K_W8].addr,
				    r->k[K_W8].rkey, IBV_WC_SUCCESS,
				    "RDMA WRITE of 4 KiB through a type 2 window");
		}
	} else if (r->k[K_W8].valid) {
		exp_set(r, X_OFF, 4 * KIB, seed(r, 9));
	}
	if (meet(r, "dealloc-w"))
		goto fail;
	if (r->own && mw8) {
		e = ibv_dealloc_mw(mw8);
		if (e)
			not_ok("mw: %s: ibv_dealloc_mw of a bound type 2 window: %s", r->who, strerror(e));
		else
			ok("mw: %s: ibv_dealloc_mw of a bound type 2 window succeeds", r->who);
		mw8 = NULL;
	}
	if (meet(r, "dealloc-gone"))
		goto fail;
	if (!r->own && r->k[K_W8].valid) {
		pat_fill(r->ub + U_SRC, 4 * KIB, seed(r, 10));
		user_expect(r, &c, IBV_WR_RDMA_WRITE, U_SRC, 4 * KIB, r->k[K_W8].addr, r->k[K_W8].rkey,
			    IBV_WC_REM_ACCESS_ERR,
			    "RDMA WRITE through the type 2 window after ibv_dealloc_mw");
	}
	if (meet(r, "dealloc-after"))
		goto fail;
	if (r->own) {
		owner_check(r, "its memory holds the WRITE before ibv_dealloc_mw, not the one after");
		if (x) {
			e = ibv_dereg_mr(x);
			if (e)
				not_ok("mw: %s: ibv_dereg_mr once no window is bound: %s", r->who, strerror(e));
			else
				ok("mw: %s: ibv_dereg_mr succeeds once no window is bound", r->who);
			x = NULL;
		}
	}
	rc_conn_destroy(&c);
	return 0;
fail:
	dealloc_mw(r, &mw8, "type 2 window of case 6");
	dealloc_mw(r, &mw9, "type 1 window of case 6");
	rc_conn_destroy(&c);
	if (x)
		ibv_dereg_mr(x);
	return -1;
}

static int run_round(struct rc_dev *d, int owner)
{
	struct round *r = calloc(1, sizeof(*r));
	int (*const cases[])(struct round *) = {
		case_bind, case_oob, case_unbind, case_linv, case_rinv, case_bad, case_dealloc,
	};
	unsigned int i;
	int ret = 0, e;

	if (!r)
		die("out of memory");
	r->d = d;
	r->owner = owner;
	r->own = opt.idx == owner;
	r->can = 0xca7a0000u + owner;
	snprintf(r->p, sizeof(r->p), "o%d", owner);
	if (r->own)
		snprintf(r->who, sizeof(r->who), "owner g%d", opt.idx);
	else
		snprintf(r->who, sizeof(r->who), "user g%d, owner g%d", opt.idx, owner);
	if (r->own) {
		r->ob = rc_alloc(O_LEN);
		r->exp = rc_alloc(O_LEN);
		pat_fill(r->ob, O_LEN, r->can);
		memcpy(r->exp, r->ob, O_LEN);
		r->mm = rc_reg(d, r->ob, M_LEN, IBV_ACCESS_LOCAL_WRITE | REMOTE_RW | IBV_ACCESS_MW_BIND);
		r->mn = rc_reg(d, r->ob + N_OFF, N_LEN, IBV_ACCESS_LOCAL_WRITE | REMOTE_RW);
		r->mrr = rc_reg(d, r->ob + R_OFF, R_LEN, IBV_ACCESS_LOCAL_WRITE);
	} else {
		r->ub = rc_alloc(U_LEN);
		r->um = rc_reg(d, r->ub, U_LEN, IBV_ACCESS_LOCAL_WRITE);
	}
	diag("mw: round with guest %d as the owner, guest %d as the user", owner, 1 - owner);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i](r)) {
			/* A lost rendezvous or QP pair: the rest would only
			 * wait out timeouts. */
			not_ok("mw: %s: the round stopped in case %u of %u", r->who, i + 1,
			       (unsigned int)(sizeof(cases) / sizeof(cases[0])));
			rc_abort();
			ret = -1;
			break;
		}
	}
	if (r->mw1)
		dealloc_mw(r, &r->mw1, "type 1 window");
	{
		struct ibv_mr *mrs[] = { r->mm, r->mn, r->mrr, r->um };

		for (i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
			if (mrs[i] && (e = ibv_dereg_mr(mrs[i])))
				not_ok("mw: %s: ibv_dereg_mr at the end of the round: %s", r->who,
				       strerror(e));
	}
	free(r->ob);
	free(r->exp);
	free(r->ub);
	free(r);
	return ret;
}

int mode_mw(void)
{
	struct rc_dev d;

	rc_dev_open(&d);
	if (!(d.attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW) && d.attr.max_mw == 0)
		diag("mw: %s reports no memory window support (max_mw 0); trying anyway", opt.ibdev);
	if (opt.verbose)
		diag("mw: %s: max_mw %d, device_cap_flags %#x", opt.ibdev, d.attr.max_mw,
		     d.attr.device_cap_flags);
	if (!run_round(&d, 1))
		run_round(&d, 0);
	rv_barrier("mw-end");
	rc_dev_close(&d);
	return rc_failures ? 1 : 0;
}
