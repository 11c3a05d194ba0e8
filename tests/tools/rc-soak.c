// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check soak: mixed RC traffic between two guests for a given time, with
 * QPs created and destroyed throughout; every byte and completion checked.
 *
 * Both guests run the same plan, drawn round by round from the seed (-S):
 * round r picks how many QP slots are active (1 .. -q), which of them are
 * torn down and connected anew, and for each direction (guest 0 as the
 * requester, then guest 1) and each active slot a list of operations:
 * SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,
 * CMP_AND_SWP (hit or miss), FETCH_AND_ADD, of 1 B .. 1 MiB+4 KiB (most of
 * them small), signalled or not (a slot's last always).  Each operation
 * gets its own place in the responder's inbound region (IN) and in the
 * requester's outbound region (OUT), with guard bytes between them.
 *
 * A round: "go" (both still within the time: else both stop), QP churn and
 * connections, each side fills its IN (fill byte, READ sources, atomic
 * initial values) and OUT (fill byte, SEND/WRITE sources), posts the
 * receives the peer's operations need, "ready", posts its operations, checks
 * every send completion (status, opcode, wr_id, QP; byte_len of READs and
 * atomics) and every receive completion (also byte_len and immediate),
 * "done" (so the peer's writes are all placed), then checks every byte of
 * both regions up to the end of the round's last operation plus a guard:
 * payloads, READ results, atomic results and targets, and the fill byte
 * everywhere else.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc-common.h"

enum sop { S_SEND, S_SEND_IMM, S_WRITE, S_WRITE_IMM, S_READ, S_CSWAP, S_FADD, S__N };

static const char *const sop_name[S__N] = {
	"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ",
	"CMP_AND_SWP", "FETCH_AND_ADD",
};

#define MIB		(1u << 20)
#define REGION_LEN	(12 * MIB)	/* IN and OUT each */
#define ROUND_CAP	(8 * MIB)	/* bytes one direction may use in a round */
#define MAX_SLOTS	64
#define MAX_OPS_SLOT	12
#define QP_WR		32		/* > MAX_OPS_SLOT: a round never fills a queue */
#define GUARD		64
#define SLACK		64		/* receive buffer beyond the message */
#define MAX_SIZE	(MIB + 4096)

struct sop_plan {
	enum sop op;
	int slot;
	int sig;
	uint32_t size;		/* payload bytes (8 for atomics) */
	uint32_t seed;		/* data pattern */
	uint32_t imm;
	uint64_t in_off;	/* in the responder's IN */
	uint32_t in_len;	/* reserved there (receives: size + SLACK) */
	uint64_t out_off;	/* in the requester's OUT */
	uint64_t v0, arg, swap;	/* atomics: target's initial value, compare/add, swap */
	int hit;		/* CMP_AND_SWP: compare equals v0 */
};

struct dir_plan {
	struct sop_plan *ops;
	int n;
	uint64_t in_end, out_end;
};

struct soak {
	struct rc_dev dev;
	uint8_t *in, *out, *scratch;
	struct ibv_mr *mr_in, *mr_out;
	uint64_t peer_in_addr;
	uint32_t peer_in_rkey;
	struct rc_conn conn[MAX_SLOTS];
	int active[MAX_SLOTS];
	int nslots;
	uint64_t seed;
	struct dir_plan dir[2];
	/* figures */
	unsigned long rounds, qps_created, qps_destroyed, max_active;
	unsigned long ops[2][S__N];	/* [1: we were the requester][op] */
	unsigned long long bytes[2];	/* payload bytes checked [requester?] */
	unsigned long long checked;	/* bytes compared in IN and OUT */
	unsigned long send_cqes, recv_cqes;
};

/* ---- the plan ---- */

static uint64_t mix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_for(uint64_t seed, uint64_t round, uint64_t what)
{
	uint64_t s = seed * 0x100000001b3ull ^ round * 0x9e3779b1ull ^ what << 56;

	mix64(&s);
	return s;
}

static uint32_t pick_size(uint64_t *s)
{
	uint32_t u = mix64(s) % 100, x = mix64(s);

	if (u < 55)
		return 1 + x % 256;
	if (u < 80)
		return 257 + x % (16384 - 256);
	if (u < 95)
		return 16385 + x % (256 * 1024 - 16384);
	return 256 * 1024 + 1 + x % (MAX_SIZE - 256 * 1024);
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The operations of direction d (d = the requester's index) in round r. */
static void plan_dir(struct soak *t, unsigned long r, int d)
{
	struct dir_plan *p = &t->dir[d];
	uint64_t s = rng_for(t->seed, r, 16 + d);
	int slot, k;

	p->n = 0;
	p->in_end = p->out_end = 0;
	for (slot = 0; slot < t->nslots; slot++) {
		int nops;

		if (!t->active[slot])
			continue;
		nops = 1 + mix64(&s) % MAX_OPS_SLOT;
		for (k = 0; k < nops; k++) {
			struct sop_plan *o = &p->ops[p->n];
			uint64_t in_off, out_off;

			memset(o, 0, sizeof(*o));
			o->op = mix64(&s) % S__N;
			o->slot = slot;
			o->sig = mix64(&s) % 4 != 0;
			o->seed = mix64(&s);
			o->imm = mix64(&s);
			if (o->op == S_CSWAP || o->op == S_FADD) {
				o->size = o->in_len = 8;
				o->v0 = mix64(&s);
				o->arg = mix64(&s);
				o->swap = mix64(&s);
				o->hit = mix64(&s) & 1;
				if (o->op == S_CSWAP && o->hit)
					o->arg = o->v0;
				else if (o->op == S_CSWAP && o->arg == o->v0)
					o->arg = ~o->v0;
				in_off = align_up(p->in_end + GUARD, 8);
				out_off = align_up(p->out_end + GUARD, 8);
			} else {
				o->size = pick_size(&s);
				o->in_len = o->size + (o->op == S_SEND || o->op == S_SEND_IMM ? SLACK : 0);
				in_off = align_up(p->in_end + GUARD, 64) + mix64(&s) % 8;
				out_off = align_up(p->out_end + GUARD, 64) + mix64(&s) % 8;
			}
			if (in_off + o->in_len + GUARD > ROUND_CAP ||
			    out_off + o->size + GUARD > ROUND_CAP)
				break;	/* this slot is done; smaller ones may still fit later */
			o->in_off = in_off;
			o->out_off = out_off;
			p->in_end = in_off + o->in_len;
			p->out_end = out_off + o->size;
			p->n++;
		}
		if (p->n && p->ops[p->n - 1].slot == slot)	/* the slot's last is signalled */
			p->ops[p->n - 1].sig = 1;
	}
}

/* ---- rendezvous with a flag ---- */

static int sync_flag(const char *fmt, unsigned long r, int mine, int *theirs)
{
	char name[64], buf[32];

	snprintf(name, sizeof(name), fmt, r);
	snprintf(buf, sizeof(buf), "%d\n", mine);
	if (rv_publish(name, buf))
		return -1;
	if (rv_await(name, buf, sizeof(buf), opt.timeout)) {
		not_ok("soak: round %lu: the peer did not reach %s within %.0f s", r, name,
		       opt.timeout);
		return -1;
	}
	if (theirs)
		*theirs = atoi(buf);
	return 0;
}

static void unlink_own(const char *fmt, unsigned long r, int slot)
{
	char name[64];

	snprintf(name, sizeof(name), fmt, r, slot);
	rv_unlink(name);
}

/* ---- QPs ---- */

static int slot_create(struct soak *t, int slot, unsigned long r)
{
	struct rc_qp_params par;
	char name[32];

	rc_default_params(&par);
	par.max_send_wr = QP_WR;
	par.max_recv_wr = QP_WR;
	snprintf(name, sizeof(name), "q%dr%lu", slot, r);
	if (rc_conn_create(&t->conn[slot], &t->dev, name, &par))
		return -1;
	t->active[slot] = 1;
	t->qps_created++;
	return 0;
}

static void slot_destroy(struct soak *t, int slot)
{
	rc_conn_destroy(&t->conn[slot]);
	t->active[slot] = 0;
	t->qps_destroyed++;
}

/* Churn: the same decisions on both sides.  Returns 0 or -1. */
static int churn(struct soak *t, unsigned long r)
{
	uint64_t s = rng_for(t->seed, r, 1);
	int want = 1 + mix64(&s) % t->nslots, slot, fresh[MAX_SLOTS] = { 0 }, n = 0;

	for (slot = 0; slot < t->nslots; slot++) {
		int renew = mix64(&s) % 100 < 20;

		if (t->active[slot] && (slot >= want || renew))
			slot_destroy(t, slot);
		if (slot < want && !t->active[slot]) {
			if (slot_create(t, slot, r))
				return -1;
			fresh[slot] = 1;
		}
	}
	for (slot = 0; slot < t->nslots; slot++) {
		if (!fresh[slot])
			continue;
		if (rc_conn_connect(&t->conn[slot]))
			return -1;
		unlink_own("conn-q%2$dr%1$lu", r, slot);
	}
	for (slot = 0; slot < t->nslots; slot++)
		n += t->active[slot];
	if ((unsigned long)n > t->max_active)
		t->max_active = n;
	return 0;
}

/* ---- one round ---- */

static void prepare(struct soak *t, uint8_t fill_in, uint8_t fill_out)
{
	const struct dir_plan *rx = &t->dir[1 - opt.idx], *tx = &t->dir[opt.idx];
	int k;

	memset(t->in, fill_in, rx->in_end + GUARD);
	for (k = 0; k < rx->n; k++) {
		const struct sop_plan *o = &rx->ops[k];

		if (o->op == S_READ)
			pat_fill(t->in + o->in_off, o->size, o->seed);
		else if (o->op == S_CSWAP || o->op == S_FADD)
			memcpy(t->in + o->in_off, &o->v0, 8);
	}
	memset(t->out, fill_out, tx->out_end + GUARD);
	for (k = 0; k < tx->n; k++) {
		const struct sop_plan *o = &tx->ops[k];

		if (o->op == S_SEND || o->op == S_SEND_IMM || o->op == S_WRITE || o->op == S_WRITE_IMM)
			pat_fill(t->out + o->out_off, o->size, o->seed);
	}
}

static int post_recvs(struct soak *t, unsigned long r)
{
	const struct dir_plan *rx = &t->dir[1 - opt.idx];
	int k;

	for (k = 0; k < rx->n; k++) {
		const struct sop_plan *o = &rx->ops[k];
		struct ibv_sge sge = { (uintptr_t)(t->in + o->in_off), o->in_len, t->mr_in->lkey };
		struct ibv_recv_wr wr = { .wr_id = r << 32 | k, .sg_list = &sge }, *bad;
		int e;

		if (o->op == S_SEND || o->op == S_SEND_IMM)
			wr.num_sge = 1;
		else if (o->op != S_WRITE_IMM)
			continue;
		e = ibv_post_recv(t->conn[o->slot].qp, &wr, &bad);
		if (e) {
			not_ok("soak: round %lu: ibv_post_recv on slot %d: %s", r, o->slot, strerror(e));
			return -1;
		}
	}
	return 0;
}

static int post_sends(struct soak *t, unsigned long r)
{
	const struct dir_plan *tx = &t->dir[opt.idx];
	static struct ibv_send_wr wr[MAX_OPS_SLOT];
	static struct ibv_sge sge[MAX_OPS_SLOT];
	int k = 0;

	while (k < tx->n) {
		int slot = tx->ops[k].slot, j = 0, e;
		struct ibv_send_wr *bad;

		for (; k < tx->n && tx->ops[k].slot == slot; k++, j++) {
			const struct sop_plan *o = &tx->ops[k];
			struct ibv_send_wr *w = &wr[j];
			uint64_t raddr = t->peer_in_addr + o->in_off;

			memset(w, 0, sizeof(*w));
			sge[j] = (struct ibv_sge){ (uintptr_t)(t->out + o->out_off), o->size,
						   t->mr_out->lkey };
			w->wr_id = r << 32 | k;
			w->sg_list = &sge[j];
			w->num_sge = 1;
			w->send_flags = o->sig ? IBV_SEND_SIGNALED : 0;
			switch (o->op) {
			case S_SEND: w->opcode = IBV_WR_SEND; break;
			case S_SEND_IMM:
				w->opcode = IBV_WR_SEND_WITH_IMM;
				w->imm_data = htonl(o->imm);
				break;
			case S_WRITE: w->opcode = IBV_WR_RDMA_WRITE; break;
			case S_WRITE_IMM:
				w->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
				w->imm_data = htonl(o->imm);
				break;
			case S_READ: w->opcode = IBV_WR_RDMA_READ; break;
			case S_CSWAP: w->opcode = IBV_WR_ATOMIC_CMP_AND_SWP; break;
			case S_FADD: w->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; break;
			default: break;
			}
			if (o->op == S_CSWAP || o->op == S_FADD) {
				w->wr.atomic.remote_addr = raddr;
				w->wr.atomic.rkey = t->peer_in_rkey;
				w->wr.atomic.compare_add = o->arg;
				w->wr.atomic.swap = o->swap;
			} else if (o->op != S_SEND && o->op != S_SEND_IMM) {
				w->wr.rdma.remote_addr = raddr;
				w->wr.rdma.rkey = t->peer_in_rkey;
			}
			if (j)
				wr[j - 1].next = w;
		}
		e = ibv_post_send(t->conn[slot].qp, wr, &bad);
		if (e) {
			not_ok("soak: round %lu: ibv_post_send of %d WRs on slot %d: %s", r, j, slot,
			       strerror(e));
			return -1;
		}
	}
	return 0;
}

static int wait_sends(struct soak *t, unsigned long r)
{
	const struct dir_plan *tx = &t->dir[opt.idx];
	static const enum ibv_wc_opcode wop[S__N] = {
		IBV_WC_SEND, IBV_WC_SEND, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ,
		IBV_WC_COMP_SWAP, IBV_WC_FETCH_ADD,
	};
	int k;

	for (k = 0; k < tx->n; k++) {
		const struct sop_plan *o = &tx->ops[k];
		struct rc_conn *c = &t->conn[o->slot];
		struct rc_want w = { .wr_id = r << 32 | k, .status = IBV_WC_SUCCESS,
				     .opcode = wop[o->op] };
		char what[96];

		t->ops[1][o->op]++;
		if (!o->sig)
			continue;
		if (o->op == S_READ || o->op == S_CSWAP || o->op == S_FADD) {
			w.check_len = 1;
			w.len = o->size;
		}
		snprintf(what, sizeof(what), "soak: round %lu slot %d QP %#x op %d %s %u B", r,
			 o->slot, c->local.qpn, k, sop_name[o->op], o->size);
		if (rc_expect(c->scq, c->local.qpn, &w, what)) {
			not_ok("%s: send completion", what);
			return -1;
		}
		t->send_cqes++;
	}
	return 0;
}

static int wait_recvs(struct soak *t, unsigned long r)
{
	const struct dir_plan *rx = &t->dir[1 - opt.idx];
	int k;

	for (k = 0; k < rx->n; k++) {
		const struct sop_plan *o = &rx->ops[k];
		struct rc_conn *c = &t->conn[o->slot];
		struct rc_want w = { .wr_id = r << 32 | k, .status = IBV_WC_SUCCESS,
				     .opcode = IBV_WC_RECV, .check_len = 1, .len = o->size };
		char what[96];

		t->ops[0][o->op]++;
		if (o->op != S_SEND && o->op != S_SEND_IMM && o->op != S_WRITE_IMM)
			continue;
		if (o->op == S_WRITE_IMM)
			w.opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		if (o->op != S_SEND) {
			w.imm = 1;
			w.imm_val = o->imm;
		}
		snprintf(what, sizeof(what), "soak: round %lu slot %d QP %#x peer op %d %s %u B", r,
			 o->slot, c->local.qpn, k, sop_name[o->op], o->size);
		if (rc_expect(c->rcq, c->local.qpn, &w, what)) {
			not_ok("%s: receive completion", what);
			return -1;
		}
		t->recv_cqes++;
	}
	/* Nothing more may arrive: every receive we posted is accounted for. */
	for (k = 0; k < t->nslots; k++) {
		struct ibv_wc wc;

		if (t->active[k] && ibv_poll_cq(t->conn[k].rcq, 1, &wc)) {
			not_ok("soak: round %lu slot %d: unexpected receive completion wr_id %#llx status %s",
			       r, k, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
			return -1;
		}
		if (t->active[k] && ibv_poll_cq(t->conn[k].scq, 1, &wc)) {
			not_ok("soak: round %lu slot %d: unexpected send completion wr_id %#llx status %s",
			       r, k, (unsigned long long)wc.wr_id, ibv_wc_status_str(wc.status));
			return -1;
		}
	}
	return 0;
}

/* [p + from, p + to) must be the fill byte. */
static int check_fill(struct soak *t, const uint8_t *p, uint64_t from, uint64_t to, uint8_t fill,
		      const char *what)
{
	if (to <= from)
		return 0;
	t->checked += to - from;
	return byte_check(p + from, to - from, fill, what);
}

/* [p, p + n) must be the pattern for seed (compared against a copy: fast). */
static int check_pat(struct soak *t, const uint8_t *p, uint32_t n, uint32_t seed, const char *what)
{
	t->checked += n;
	pat_fill(t->scratch, n, seed);
	if (!memcmp(p, t->scratch, n))
		return 0;
	return pat_check(p, n, seed, what);
}

static int check_u64(struct soak *t, const uint8_t *p, uint64_t want, const char *what)
{
	uint64_t v;

	t->checked += 8;
	memcpy(&v, p, 8);
	if (v == want)
		return 0;
	diag("%s: holds %#llx, want %#llx", what, (unsigned long long)v, (unsigned long long)want);
	return -1;
}

static int check_memory(struct soak *t, unsigned long r, uint8_t fill_in, uint8_t fill_out)
{
	const struct dir_plan *rx = &t->dir[1 - opt.idx], *tx = &t->dir[opt.idx];
	uint64_t end = 0;
	int k, bad = 0;
	char what[128];

	for (k = 0; k < rx->n && !bad; k++) {	/* IN: what the peer did to us */
		const struct sop_plan *o = &rx->ops[k];
		const uint8_t *p = t->in + o->in_off;

		snprintf(what, sizeof(what), "soak: round %lu slot %d peer op %d %s %u B (IN +%#llx)",
			 r, o->slot, k, sop_name[o->op], o->size, (unsigned long long)o->in_off);
		bad |= check_fill(t, t->in, end, o->in_off, fill_in, "guard/fill before") ? 1 : 0;
		if (o->op == S_CSWAP)
			bad |= check_u64(t, p, o->hit ? o->swap : o->v0, what);
		else if (o->op == S_FADD)
			bad |= check_u64(t, p, o->v0 + o->arg, what);
		else
			bad |= check_pat(t, p, o->size, o->seed, what);
		end = o->in_off + o->size;
		if (bad)
			diag("%s: IN is wrong", what);
		else
			t->bytes[0] += o->size;
	}
	if (!bad && check_fill(t, t->in, end, rx->in_end + GUARD, fill_in, "IN guard after the last"))
		bad = 1;
	end = 0;
	for (k = 0; k < tx->n && !bad; k++) {	/* OUT: our sources and results */
		const struct sop_plan *o = &tx->ops[k];
		const uint8_t *p = t->out + o->out_off;

		snprintf(what, sizeof(what), "soak: round %lu slot %d op %d %s %u B (OUT +%#llx)",
			 r, o->slot, k, sop_name[o->op], o->size, (unsigned long long)o->out_off);
		bad |= check_fill(t, t->out, end, o->out_off, fill_out, "guard/fill before") ? 1 : 0;
		if (o->op == S_CSWAP || o->op == S_FADD)
			bad |= check_u64(t, p, o->v0, what);
		else
			bad |= check_pat(t, p, o->size, o->seed, what);
		end = o->out_off + o->size;
		if (bad)
			diag("%s: OUT is wrong", what);
		else
			t->bytes[1] += o->size;
	}
	if (!bad && check_fill(t, t->out, end, tx->out_end + GUARD, fill_out, "OUT guard after the last"))
		bad = 1;
	if (bad)
		not_ok("soak: round %lu: memory check", r);
	return bad ? -1 : 0;
}

static int round_run(struct soak *t, unsigned long r)
{
	uint8_t fill_in = 0x5a ^ (uint8_t)(r * 7), fill_out = 0xa5 ^ (uint8_t)(r * 13);
	int slot;

	if (churn(t, r))
		return -1;
	plan_dir(t, r, 0);
	plan_dir(t, r, 1);
	prepare(t, fill_in, fill_out);
	if (post_recvs(t, r) || sync_flag("ready-%lu", r, 1, NULL))
		return -1;
	if (post_sends(t, r) || wait_sends(t, r) || wait_recvs(t, r))
		return -1;
	if (sync_flag("done-%lu", r, 1, NULL))
		return -1;
	if (check_memory(t, r, fill_in, fill_out))
		return -1;
	/* The peer has read these files (it reached "done" after them). */
	unlink_own("go-%lu", r, 0);
	unlink_own("ready-%lu", r, 0);
	for (slot = 0; slot < t->nslots; slot++)
		unlink_own("rts-q%2$dr%1$lu", r, slot);
	return 0;
}

int mode_soak(double seconds, uint64_t seed, int max_qps)
{
	struct soak *t = calloc(1, sizeof(*t));
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	char buf[256];
	unsigned long long a;
	unsigned int k;
	double start, end, next_note;
	unsigned long r;
	int slot, bad = 0, theirs, op;

	if (!t)
		die("out of memory");
	if (max_qps < 1 || max_qps > MAX_SLOTS)
		die("soak: QPs must be 1..%d", MAX_SLOTS);
	t->seed = seed;
	t->nslots = max_qps;
	t->dir[0].ops = calloc(MAX_SLOTS * MAX_OPS_SLOT, sizeof(struct sop_plan));
	t->dir[1].ops = calloc(MAX_SLOTS * MAX_OPS_SLOT, sizeof(struct sop_plan));
	if (!t->dir[0].ops || !t->dir[1].ops)
		die("out of memory");
	rc_dev_open(&t->dev);
	if (t->dev.attr.atomic_cap == IBV_ATOMIC_NONE)
		die("soak: %s has no atomics", opt.ibdev);
	access |= IBV_ACCESS_REMOTE_ATOMIC;
	t->in = rc_alloc(REGION_LEN);
	t->out = rc_alloc(REGION_LEN);
	t->scratch = rc_alloc(MAX_SIZE);
	t->mr_in = rc_reg(&t->dev, t->in, REGION_LEN, access);
	t->mr_out = rc_reg(&t->dev, t->out, REGION_LEN, IBV_ACCESS_LOCAL_WRITE);
	snprintf(buf, sizeof(buf), "%llx %x %llx %d\n", (unsigned long long)(uintptr_t)t->in,
		 t->mr_in->rkey, (unsigned long long)seed, max_qps);
	if (rv_publish("mem", buf))
		die("soak: cannot publish the region");
	if (rv_await("mem", buf, sizeof(buf), opt.timeout))
		die("soak: no region from the peer within %.0f s", opt.timeout);
	{
		unsigned long long ps;
		int pq;

		if (sscanf(buf, "%llx %x %llx %d", &a, &k, &ps, &pq) != 4)
			die("soak: cannot parse the peer's region '%s'", buf);
		if (ps != seed || pq != max_qps)
			die("soak: the peer runs seed %llu with %d QPs, we %llu with %d", ps, pq,
			    (unsigned long long)seed, max_qps);
	}
	t->peer_in_addr = a;
	t->peer_in_rkey = k;
	diag("soak: %.0f s, seed %llu, up to %d QPs; IN %#llx rkey %#x, peer's IN %#llx rkey %#x",
	     seconds, (unsigned long long)seed, max_qps, (unsigned long long)(uintptr_t)t->in,
	     t->mr_in->rkey, a, k);

	start = now_s();
	end = start + seconds;
	next_note = start + 30;
	for (r = 0;; r++) {
		double tn = now_s();

		if (sync_flag("go-%lu", r, tn < end, &theirs)) {
			bad = 1;
			break;
		}
		if (r)
			unlink_own("done-%lu", r - 1, 0);
		if (!(tn < end) || !theirs)
			break;
		if (round_run(t, r)) {
			bad = 1;
			break;
		}
		t->rounds++;
		if (tn >= next_note) {
			diag("soak: %.0f s: %lu rounds, %lu QPs created, %lu send and %lu receive completions, %llu MiB checked",
			     tn - start, t->rounds, t->qps_created, t->send_cqes, t->recv_cqes,
			     t->checked >> 20);
			next_note += 30;
		}
	}
	if (bad)
		rc_abort();
	for (slot = 0; slot < t->nslots; slot++)
		if (t->active[slot])
			slot_destroy(t, slot);
	if (ibv_dereg_mr(t->mr_in) || ibv_dereg_mr(t->mr_out))
		not_ok("soak: ibv_dereg_mr: %s", strerror(errno));
	rc_dev_close(&t->dev);

	diag("soak: %.1f s, %lu rounds, QPs: %lu created, %lu destroyed, up to %lu at once",
	     now_s() - start, t->rounds, t->qps_created, t->qps_destroyed, t->max_active);
	for (op = 0; op < S__N; op++)
		diag("soak: %-20s %8lu sent, %8lu received", sop_name[op], t->ops[1][op],
		     t->ops[0][op]);
	diag("soak: payload bytes checked: %llu as requester, %llu as responder; %llu bytes compared in all (guards and fill included)",
	     t->bytes[1], t->bytes[0], t->checked);
	diag("soak: completions checked: %lu send, %lu receive", t->send_cqes, t->recv_cqes);
	if (!bad && t->rounds)
		ok("soak: %lu rounds in %.0f s, %lu QPs created and destroyed, every byte and completion right",
		   t->rounds, seconds, t->qps_created);
	else if (!bad)
		not_ok("soak: not a single round ran");
	bad = bad || !t->rounds;
	free(t->dir[0].ops);
	free(t->dir[1].ops);
	free(t->in);
	free(t->out);
	free(t->scratch);
	free(t);
	return bad;
}
