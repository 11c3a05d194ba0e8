// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check integrity: every RC opcode at sizes from 1 B to just over 1 MiB,
 * in both directions over one QP pair; every byte and every completion is
 * verified.
 *
 * The two sides run the same deterministic plan.  In phase 0 guest 0 is the
 * requester (R) and guest 1 the responder (S); in phase 1 the roles swap.
 * For each step S prepares its memory (guard bytes, READ source, atomic
 * slot), posts the receives the step needs and a receive for R's DONE, then
 * sends READY.  R, on READY, posts the step's work requests followed by a
 * signalled DONE SEND and checks its completions and local data; S checks
 * its receive completions, DONE, and its memory.  The control messages ride
 * on the same QP, so RC ordering guarantees S sees every write before DONE.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc-common.h"

enum op {
	OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ, OP_ATOMIC,
	OP_SEND_INLINE, OP_WRITE_INLINE, OP_BATCH_WRITE, OP_BATCH_SEND, OP__N
};

static const char *const op_name[OP__N] = {
	"SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ",
	"ATOMIC (FETCH_AND_ADD, CMP_AND_SWP)", "SEND inline", "RDMA_WRITE inline",
	"96 RDMA_WRITEs of 700 B, 1 in 16 signalled",
	"24 SENDs/SEND_WITH_IMMs of 1..2866 B in one post list, 1 in 4 signalled",
};

static const uint32_t sizes[] = { 1, 2, 63, 1024, 1025, 4096, 4097, 65536, 131071,
				  (1 << 20) + 17 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

#define MIB		(1u << 20)
#define A_LEN		(6 * MIB)	/* landing [0, 3 MiB), source [3 MiB, 6 MiB) */
#define A_SRC		(3 * MIB)
#define B_LEN		(2 * MIB)
#define C_LEN		4096
#define U_LEN		4096		/* inline source: never registered */
#define SLACK		256		/* receive space beyond the message */
#define GUARD		64
#define BATCH_W		96
#define BATCH_W_CHUNK	16
#define BATCH_W_STRIDE	1024
#define BATCH_S		24
#define BATCH_S_STRIDE	4096
#define INLINE_WANT	64

enum kind { K_DATA = 1, K_DONE, K_READY, K_RECV, K_CTRLRECV, K_END };
enum msg_type { MSG_READY = 1, MSG_DONE, MSG_END };
#define MSG_MAGIC 0x51524e43u

struct msg {
	uint32_t magic, type, phase, step, op, size;
};

struct step {
	enum op op;
	uint32_t size;
	uint32_t off;		/* 0..7: misalignment of landing and source */
	uint32_t seed;
	int sig;		/* data WRs signalled */
	int nsge;		/* SGEs on the sending side (1..3) */
	int rsge;		/* SGEs on the receiving side (1..2) */
};

struct integ {
	struct rc_dev dev;
	struct rc_conn c;
	uint8_t *a, *b, *ctl, *u;
	struct ibv_mr *mra, *mrb, *mrc;
	int phase;
	int max_ssge, max_rsge;
	uint32_t inline_max;
	struct step plan[128];
	int nsteps;
	int results[2][OP__N][2];	/* [requester?][op][ok, failed] */
	uint32_t minsz[OP__N], maxsz[OP__N];
};

static uint64_t wrid(int phase, int step, enum kind k, int j)
{
	return (uint64_t)phase << 40 | (uint64_t)step << 16 | (uint64_t)k << 8 | (uint64_t)j;
}

static void make_plan(struct integ *t)
{
	static const enum op sized[] = { OP_SEND, OP_SEND_IMM, OP_WRITE, OP_WRITE_IMM, OP_READ };
	uint32_t inl[3] = { 1, 17, t->inline_max };
	unsigned int s, o;
	int k = 0, i;

#define ADD(OP, SZ) do { t->plan[k].op = (OP); t->plan[k].size = (SZ); k++; } while (0)
	for (s = 0; s < NSIZES; s++)
		for (o = 0; o < sizeof(sized) / sizeof(sized[0]); o++)
			ADD(sized[o], sizes[s]);
	for (i = 0; i < 3; i++)
		ADD(OP_ATOMIC, 8);
	for (i = 0; i < 3; i++) {
		if (!t->inline_max || (i && inl[i] <= inl[i - 1]))
			continue;
		ADD(OP_SEND_INLINE, inl[i]);
		ADD(OP_WRITE_INLINE, inl[i]);
	}
	ADD(OP_BATCH_WRITE, 700);
	ADD(OP_BATCH_SEND, 0);
#undef ADD
	t->nsteps = k;
	for (i = 0; i < k; i++) {
		struct step *st = &t->plan[i];

		st->off = (i * 3) % 8;
		st->seed = (t->phase + 1) * 0x10000u + i * 0x101u + 7;
		st->sig = i % 3 != 1;
		st->nsge = (st->size >= 3 && i % 2 == 0) ? t->max_ssge : 1;
		st->rsge = (st->size >= 2 && i % 4 < 2) ? t->max_rsge : 1;
	}
}

/* ---- control messages ---- */

static int post_ctrl_recv(struct integ *t, int phase, int step)
{
	struct ibv_sge sge = { (uintptr_t)(t->ctl + 64), sizeof(struct msg), t->mrc->lkey };
	struct ibv_recv_wr wr = { .wr_id = wrid(phase, step, K_CTRLRECV, 0),
				  .sg_list = &sge, .num_sge = 1 }, *bad;

	memset(t->ctl + 64, 0, sizeof(struct msg));
	if (ibv_post_recv(t->c.qp, &wr, &bad)) {
		diag("ibv_post_recv (control): %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Fills the control send WR; the caller links and posts it. */
static void ctrl_wr(struct integ *t, struct ibv_send_wr *wr, struct ibv_sge *sge,
		    enum msg_type type, int step, enum kind k)
{
	struct msg *m = (struct msg *)t->ctl;
	const struct step *st = step < t->nsteps ? &t->plan[step] : NULL;

	m->magic = MSG_MAGIC;
	m->type = type;
	m->phase = t->phase;
	m->step = step;
	m->op = st ? st->op : 0;
	m->size = st ? st->size : 0;
	sge->addr = (uintptr_t)m;
	sge->length = sizeof(*m);
	sge->lkey = t->mrc->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wrid(t->phase, step, k, 0);
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
}

/* Waits for the control message posted for step; checks type and step. */
static int expect_ctrl(struct integ *t, int step, enum msg_type type, const char *what)
{
	struct rc_want w = { .wr_id = wrid(t->phase, step, K_CTRLRECV, 0), .status = IBV_WC_SUCCESS,
			     .opcode = IBV_WC_RECV, .check_len = 1, .len = sizeof(struct msg) };
	struct msg *m = (struct msg *)(t->ctl + 64);
	const struct step *st = step < t->nsteps ? &t->plan[step] : NULL;

	if (rc_expect(t->c.rcq, t->c.local.qpn, &w, what))
		return -1;
	if (m->magic != MSG_MAGIC || m->type != type || m->phase != (uint32_t)t->phase ||
	    m->step != (uint32_t)step || m->op != (st ? st->op : 0u) ||
	    m->size != (st ? st->size : 0u)) {
		diag("%s: control message type %u phase %u step %u op %u size %u, want %u %d %d %u %u",
		     what, m->type, m->phase, m->step, m->op, m->size, type, t->phase, step,
		     st ? st->op : 0, st ? st->size : 0);
		return -1;
	}
	return 0;
}

static int post(struct integ *t, struct ibv_send_wr *wr, const char *what)
{
	struct ibv_send_wr *bad;
	int r = ibv_post_send(t->c.qp, wr, &bad);

	if (r)
		diag("%s: ibv_post_send: %s", what, strerror(r));
	return r ? -1 : 0;
}

static int send_ctrl(struct integ *t, enum msg_type type, int step, enum kind k, const char *what)
{
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	struct rc_want w = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND };

	ctrl_wr(t, &wr, &sge, type, step, k);
	w.wr_id = wr.wr_id;
	if (post(t, &wr, what))
		return -1;
	return rc_expect(t->c.scq, t->c.local.qpn, &w, what);
}

/* ---- memory layout ---- */

struct piece {
	uint8_t *p;
	uint32_t len;
	uint32_t lkey;
	uint64_t so;		/* offset in the message */
};

/* Where the sender's bytes come from: up to three slices in two MRs (or in
 * the unregistered buffer U for inline sends). */
static int src_pieces(struct integ *t, const struct step *st, int inl, struct piece *pc)
{
	uint32_t n = st->size, l0, l1;

	if (inl) {
		if (st->nsge == 1) {
			pc[0] = (struct piece){ t->u + 1 + st->off, n, 0, 0 };
			return 1;
		}
		l0 = n / 3;
		l1 = n / 3;
		pc[0] = (struct piece){ t->u + 1 + st->off, l0, 0, 0 };
		pc[1] = (struct piece){ t->u + 1024 + 5, l1, 0, l0 };
		pc[2] = (struct piece){ t->u + 2048 + 3, n - l0 - l1, 0, l0 + l1 };
		return 3;
	}
	if (st->nsge == 1) {
		pc[0] = (struct piece){ t->a + A_SRC + 1 + st->off, n, t->mra->lkey, 0 };
		return 1;
	}
	l0 = n / 3;
	l1 = st->nsge == 3 ? n / 3 : n - l0;
	pc[0] = (struct piece){ t->a + A_SRC + 1 + st->off, l0, t->mra->lkey, 0 };
	pc[1] = (struct piece){ t->b + 4097, l1, t->mrb->lkey, l0 };
	if (st->nsge == 2)
		return 2;
	pc[2] = (struct piece){ t->a + A_SRC + MIB + 65536 + 3, n - l0 - l1, t->mra->lkey, l0 + l1 };
	return 3;
}

/* Where received (or READ) bytes land: B then A's landing area, with room
 * for SLACK bytes more than the message. */
static int dst_pieces(struct integ *t, const struct step *st, struct piece *pc)
{
	uint32_t n = st->size, l0;

	if (st->rsge == 1) {
		pc[0] = (struct piece){ t->a + GUARD + st->off, n + SLACK, t->mra->lkey, 0 };
		return 1;
	}
	l0 = n / 2;
	pc[0] = (struct piece){ t->b + GUARD + 5 + st->off, l0, t->mrb->lkey, 0 };
	pc[1] = (struct piece){ t->a + GUARD + st->off, n - l0 + SLACK, t->mra->lkey, l0 };
	return 2;
}

static void guard_pieces(struct piece *pc, int n, uint8_t g)
{
	int i;

	for (i = 0; i < n; i++)
		memset(pc[i].p - GUARD, g, pc[i].len + 2 * GUARD);
}

/* Checks that the message landed in the pieces, nothing more (the last
 * piece may be longer than its share), and the guards are intact. */
static int check_pieces(struct piece *pc, int n, uint32_t size, uint32_t seed, uint8_t g,
			const char *what)
{
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		uint32_t want = pc[i].so + pc[i].len <= size ? pc[i].len : size - pc[i].so;
		char w[160];

		snprintf(w, sizeof(w), "%s, SGE %d", what, i);
		bad |= pat_check_at(pc[i].p, want, seed, pc[i].so, w);
		bad |= byte_check(pc[i].p - GUARD, GUARD, g, "guard before");
		bad |= byte_check(pc[i].p + want, pc[i].len - want + GUARD, g, "guard after");
	}
	return bad ? -1 : 0;
}

static void to_sges(struct piece *pc, int n, struct ibv_sge *sg)
{
	int i;

	for (i = 0; i < n; i++) {
		sg[i].addr = (uintptr_t)pc[i].p;
		sg[i].length = pc[i].len;
		sg[i].lkey = pc[i].lkey;
	}
}

static uint8_t guard_byte(const struct step *st)
{
	return 0xa5 ^ (st->seed & 0x5a);
}

static uint32_t imm_of(const struct step *st)
{
	return st->seed ^ 0xc0de0000u;
}

static uint64_t atomic_v0(const struct step *st)
{
	return (uint64_t)st->seed << 32 | (st->seed ^ 0x5a5a5a5au);
}

static uint64_t atomic_add(int step)
{
	return 0x100000001ull * (step + 1);
}

static uint8_t *atomic_slot(struct integ *t, int step)
{
	return t->a + GUARD + 8 * (step % 4);
}

/* ---- requester ---- */

static int req_batch_write(struct integ *t, int k, const struct step *st, const char *what)
{
	const struct rc_region *ra = &t->c.peer.region[0];
	struct ibv_send_wr wr[BATCH_W_CHUNK];
	struct ibv_sge sge[BATCH_W_CHUNK];
	struct rc_want w = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RDMA_WRITE };
	int c, j, nchunks = BATCH_W / BATCH_W_CHUNK;

	for (c = 0; c < nchunks + 3; c++) {
		if (c >= 3) {	/* at most three chunks in the SQ */
			w.wr_id = wrid(t->phase, k, K_DATA, (c - 3) * BATCH_W_CHUNK + BATCH_W_CHUNK - 1);
			if (rc_expect(t->c.scq, t->c.local.qpn, &w, what))
				return -1;
		}
		if (c >= nchunks)
			continue;
		for (j = 0; j < BATCH_W_CHUNK; j++) {
			int i = c * BATCH_W_CHUNK + j;
			uint8_t *src = t->a + A_SRC + i * BATCH_W_STRIDE + 1;

			pat_fill(src, st->size, st->seed + i);
			sge[j] = (struct ibv_sge){ (uintptr_t)src, st->size, t->mra->lkey };
			memset(&wr[j], 0, sizeof(wr[j]));
			wr[j].wr_id = wrid(t->phase, k, K_DATA, i);
			wr[j].sg_list = &sge[j];
			wr[j].num_sge = 1;
			wr[j].opcode = IBV_WR_RDMA_WRITE;
			wr[j].send_flags = j == BATCH_W_CHUNK - 1 ? IBV_SEND_SIGNALED : 0;
			wr[j].wr.rdma.remote_addr = ra->addr + GUARD + (uint64_t)i * BATCH_W_STRIDE;
			wr[j].wr.rdma.rkey = ra->rkey;
			wr[j].next = j < BATCH_W_CHUNK - 1 ? &wr[j + 1] : NULL;
		}
		if (post(t, wr, what))
			return -1;
	}
	return send_ctrl(t, MSG_DONE, k, K_DONE, what);
}

static uint32_t batch_send_size(int j)
{
	return 1 + (j * 191) % 3000;
}

static int req_batch_send(struct integ *t, int k, const struct step *st, const char *what)
{
	struct ibv_send_wr wr[BATCH_S + 1];
	struct ibv_sge sge[BATCH_S + 1];
	struct rc_want w = { .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND };
	int j;

	for (j = 0; j < BATCH_S; j++) {
		uint8_t *src = t->a + A_SRC + j * BATCH_S_STRIDE;

		pat_fill(src, batch_send_size(j), st->seed + j);
		sge[j] = (struct ibv_sge){ (uintptr_t)src, batch_send_size(j), t->mra->lkey };
		memset(&wr[j], 0, sizeof(wr[j]));
		wr[j].wr_id = wrid(t->phase, k, K_DATA, j);
		wr[j].sg_list = &sge[j];
		wr[j].num_sge = 1;
		wr[j].opcode = j % 2 ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND;
		wr[j].imm_data = htonl(st->seed + j);
		wr[j].send_flags = j % 4 == 3 ? IBV_SEND_SIGNALED : 0;
		wr[j].next = &wr[j + 1];
	}
	ctrl_wr(t, &wr[BATCH_S], &sge[BATCH_S], MSG_DONE, k, K_DONE);
	if (post(t, wr, what))
		return -1;
	for (j = 3; j < BATCH_S; j += 4) {
		w.wr_id = wrid(t->phase, k, K_DATA, j);
		if (rc_expect(t->c.scq, t->c.local.qpn, &w, what))
			return -1;
	}
	w.wr_id = wr[BATCH_S].wr_id;
	return rc_expect(t->c.scq, t->c.local.qpn, &w, what);
}

static int req_atomic(struct integ *t, int k, const struct step *st, const char *what)
{
	const struct rc_region *ra = &t->c.peer.region[0];
	uint64_t slot = ra->addr + (atomic_slot(t, k) - t->a);
	uint64_t v0 = atomic_v0(st), add = atomic_add(k), x = ~v0, *res = (uint64_t *)(t->b + 64);
	struct ibv_send_wr wr[5];
	struct ibv_sge sge[5];
	static const enum ibv_wc_opcode wop[4] = { IBV_WC_FETCH_ADD, IBV_WC_COMP_SWAP,
						   IBV_WC_COMP_SWAP, IBV_WC_RDMA_READ };
	uint64_t want[4] = { v0, v0 + add, x, x };
	int j, bad = 0;

	memset(t->b, 0xee, 128 + GUARD);
	memset(wr, 0, sizeof(wr));
	for (j = 0; j < 4; j++) {
		sge[j] = (struct ibv_sge){ (uintptr_t)&res[j], 8, t->mrb->lkey };
		wr[j].wr_id = wrid(t->phase, k, K_DATA, j);
		wr[j].sg_list = &sge[j];
		wr[j].num_sge = 1;
		wr[j].send_flags = st->sig ? IBV_SEND_SIGNALED : 0;
		wr[j].next = &wr[j + 1];
	}
	wr[0].opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr[0].wr.atomic = (typeof(wr[0].wr.atomic)){ slot, add, 0, ra->rkey };
	wr[1].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr[1].wr.atomic = (typeof(wr[1].wr.atomic)){ slot, v0 + add, x, ra->rkey };
	wr[2].opcode = IBV_WR_ATOMIC_CMP_AND_SWP;	/* compare fails: no swap */
	wr[2].wr.atomic = (typeof(wr[2].wr.atomic)){ slot, v0, 0x1234, ra->rkey };
	wr[3].opcode = IBV_WR_RDMA_READ;
	wr[3].wr.rdma.remote_addr = slot;
	wr[3].wr.rdma.rkey = ra->rkey;
	ctrl_wr(t, &wr[4], &sge[4], MSG_DONE, k, K_DONE);
	/* Without a fence the responder may run DONE (and reuse the memory)
	 * before it has read the data for our READ. */
	wr[4].send_flags |= IBV_SEND_FENCE;
	if (post(t, wr, what))
		return -1;
	for (j = 0; j < 4 && st->sig; j++) {
		struct rc_want w = { wr[j].wr_id, IBV_WC_SUCCESS, wop[j], 1, 8, 0, 0 };

		if (rc_expect(t->c.scq, t->c.local.qpn, &w, what))
			return -1;
	}
	{
		struct rc_want w = { wr[4].wr_id, IBV_WC_SUCCESS, IBV_WC_SEND, 0, 0, 0, 0 };

		if (rc_expect(t->c.scq, t->c.local.qpn, &w, what))
			return -1;
	}
	for (j = 0; j < 4; j++) {
		if (res[j] != want[j]) {
			diag("%s: result %d is %#llx, want %#llx", what, j,
			     (unsigned long long)res[j], (unsigned long long)want[j]);
			bad = 1;
		}
	}
	if (byte_check(t->b, 64, 0xee, "atomic result guard before") ||
	    byte_check(t->b + 96, GUARD, 0xee, "atomic result guard after"))
		bad = 1;
	return bad;
}

/* Returns 0 passed, 1 data wrong, -1 completions wrong (the run stops). */
static int req_step(struct integ *t, int k)
{
	const struct step *st = &t->plan[k];
	const struct rc_region *ra = &t->c.peer.region[0];
	struct piece pc[3];
	struct ibv_sge sge[3], dsge;
	struct ibv_send_wr wr = {}, done;
	struct rc_want w = { .status = IBV_WC_SUCCESS };
	int n, inl = st->op == OP_SEND_INLINE || st->op == OP_WRITE_INLINE;
	uint8_t g = guard_byte(st);
	char what[128];

	snprintf(what, sizeof(what), "step %d %s %u B (requester)", k, op_name[st->op], st->size);
	if (st->op == OP_BATCH_WRITE)
		return req_batch_write(t, k, st, what);
	if (st->op == OP_BATCH_SEND)
		return req_batch_send(t, k, st, what);
	if (st->op == OP_ATOMIC)
		return req_atomic(t, k, st, what);

	if (st->op == OP_READ) {
		n = dst_pieces(t, st, pc);
		pc[n - 1].len -= SLACK;
		guard_pieces(pc, n, g);
	} else {
		n = src_pieces(t, st, inl, pc);
		for (int i = 0; i < n; i++)
			pat_fill_at(pc[i].p, pc[i].len, st->seed, pc[i].so);
	}
	to_sges(pc, n, sge);
	wr.wr_id = wrid(t->phase, k, K_DATA, 0);
	wr.sg_list = sge;
	wr.num_sge = n;
	wr.send_flags = (st->sig ? IBV_SEND_SIGNALED : 0) | (inl ? IBV_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = ra->addr + GUARD + st->off;
	wr.wr.rdma.rkey = ra->rkey;
	switch (st->op) {
	case OP_SEND:
	case OP_SEND_INLINE:
		wr.opcode = IBV_WR_SEND;
		w.opcode = IBV_WC_SEND;
		break;
	case OP_SEND_IMM:
		wr.opcode = IBV_WR_SEND_WITH_IMM;
		wr.imm_data = htonl(imm_of(st));
		w.opcode = IBV_WC_SEND;
		break;
	case OP_WRITE:
	case OP_WRITE_INLINE:
		wr.opcode = IBV_WR_RDMA_WRITE;
		w.opcode = IBV_WC_RDMA_WRITE;
		break;
	case OP_WRITE_IMM:
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(imm_of(st));
		w.opcode = IBV_WC_RDMA_WRITE;
		break;
	case OP_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		w.opcode = IBV_WC_RDMA_READ;
		w.check_len = 1;
		w.len = st->size;
		break;
	default:
		return -1;
	}
	ctrl_wr(t, &done, &dsge, MSG_DONE, k, K_DONE);
	if (st->op == OP_READ)	/* see req_atomic */
		done.send_flags |= IBV_SEND_FENCE;
	wr.next = &done;
	if (post(t, &wr, what))
		return -1;
	if (inl)	/* inline data is copied at post time: the buffer is free */
		memset(t->u, 0, U_LEN);
	if (st->sig) {
		w.wr_id = wr.wr_id;
		if (rc_expect(t->c.scq, t->c.local.qpn, &w, what))
			return -1;
	}
	w = (struct rc_want){ .wr_id = done.wr_id, .status = IBV_WC_SUCCESS, .opcode = IBV_WC_SEND };
	if (rc_expect(t->c.scq, t->c.local.qpn, &w, what))
		return -1;
	if (st->op == OP_READ)
		return check_pieces(pc, n, st->size, st->seed, g, what) ? 1 : 0;
	return 0;
}

/* ---- responder ---- */

static int resp_post_recvs(struct integ *t, int k, const struct step *st, struct piece *pc,
			   int *npc)
{
	struct ibv_recv_wr wr[BATCH_S], *bad;
	struct ibv_sge sge[BATCH_S][2];
	int j, n = 0;

	memset(wr, 0, sizeof(wr));
	switch (st->op) {
	case OP_SEND:
	case OP_SEND_IMM:
	case OP_SEND_INLINE:
		*npc = dst_pieces(t, st, pc);
		guard_pieces(pc, *npc, guard_byte(st));
		to_sges(pc, *npc, sge[0]);
		wr[0].sg_list = sge[0];
		wr[0].num_sge = *npc;
		n = 1;
		break;
	case OP_WRITE_IMM:	/* the immediate consumes a receive without SGEs */
		n = 1;
		break;
	case OP_BATCH_SEND:
		memset(t->a, guard_byte(st), BATCH_S * BATCH_S_STRIDE + GUARD);
		for (j = 0; j < BATCH_S; j++) {
			sge[j][0] = (struct ibv_sge){ (uintptr_t)(t->a + GUARD + j * BATCH_S_STRIDE),
						      BATCH_S_STRIDE - GUARD, t->mra->lkey };
			wr[j].sg_list = sge[j];
			wr[j].num_sge = 1;
		}
		n = BATCH_S;
		break;
	default:
		return 0;
	}
	for (j = 0; j < n; j++) {
		wr[j].wr_id = wrid(t->phase, k, K_RECV, j);
		wr[j].next = j < n - 1 ? &wr[j + 1] : NULL;
	}
	if (ibv_post_recv(t->c.qp, wr, &bad)) {
		diag("step %d: ibv_post_recv: %s", k, strerror(errno));
		return -1;
	}
	return 0;
}

static int resp_step(struct integ *t, int k)
{
	const struct step *st = &t->plan[k];
	struct piece pc[3];
	int npc = 0, j, bad = 0;
	uint8_t g = guard_byte(st);
	char what[128];

	snprintf(what, sizeof(what), "step %d %s %u B (responder)", k, op_name[st->op], st->size);
	/* Prepare what the requester will touch. */
	switch (st->op) {
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_WRITE_INLINE:
		memset(t->a, g, st->size + st->off + 2 * GUARD);
		break;
	case OP_READ:
		memset(t->a, g, st->size + st->off + 2 * GUARD);
		pat_fill(t->a + GUARD + st->off, st->size, st->seed);
		break;
	case OP_ATOMIC: {
		uint64_t v0 = atomic_v0(st);

		memset(t->a, g, 2 * GUARD + 32);
		memcpy(atomic_slot(t, k), &v0, 8);
		break;
	}
	case OP_BATCH_WRITE:
		memset(t->a, g, BATCH_W * BATCH_W_STRIDE + 2 * GUARD);
		break;
	default:
		break;
	}
	if (resp_post_recvs(t, k, st, pc, &npc) || post_ctrl_recv(t, t->phase, k) ||
	    send_ctrl(t, MSG_READY, k, K_READY, what))
		return -1;

	/* Receive completions, in order, then DONE. */
	if (st->op == OP_SEND || st->op == OP_SEND_IMM || st->op == OP_SEND_INLINE ||
	    st->op == OP_WRITE_IMM) {
		struct rc_want w = { .wr_id = wrid(t->phase, k, K_RECV, 0), .status = IBV_WC_SUCCESS,
				     .opcode = st->op == OP_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM
								      : IBV_WC_RECV,
				     .check_len = 1, .len = st->size,
				     .imm = st->op == OP_SEND_IMM || st->op == OP_WRITE_IMM,
				     .imm_val = imm_of(st) };

		if (rc_expect(t->c.rcq, t->c.local.qpn, &w, what))
			return -1;
	}
	if (st->op == OP_BATCH_SEND) {
		for (j = 0; j < BATCH_S; j++) {
			struct rc_want w = { .wr_id = wrid(t->phase, k, K_RECV, j),
					     .status = IBV_WC_SUCCESS, .opcode = IBV_WC_RECV,
					     .check_len = 1, .len = batch_send_size(j),
					     .imm = j % 2, .imm_val = st->seed + j };

			if (rc_expect(t->c.rcq, t->c.local.qpn, &w, what))
				return -1;
		}
	}
	if (expect_ctrl(t, k, MSG_DONE, what))
		return -1;

	/* Memory. */
	switch (st->op) {
	case OP_SEND:
	case OP_SEND_IMM:
	case OP_SEND_INLINE:
		bad = check_pieces(pc, npc, st->size, st->seed, g, what);
		break;
	case OP_WRITE:
	case OP_WRITE_IMM:
	case OP_WRITE_INLINE:
		pc[0] = (struct piece){ t->a + GUARD + st->off, st->size, 0, 0 };
		bad = check_pieces(pc, 1, st->size, st->seed, g, what);
		break;
	case OP_READ:	/* READ must not change the source */
		bad = pat_check(t->a + GUARD + st->off, st->size, st->seed, what);
		break;
	case OP_ATOMIC: {
		uint64_t v, x = ~atomic_v0(st);
		uint8_t *slot = atomic_slot(t, k);

		memcpy(&v, slot, 8);
		if (v != x) {
			diag("%s: atomic target holds %#llx, want %#llx", what,
			     (unsigned long long)v, (unsigned long long)x);
			bad = 1;
		}
		bad |= byte_check(t->a, slot - t->a, g, "guard before the atomic target");
		bad |= byte_check(slot + 8, GUARD, g, "guard after the atomic target");
		break;
	}
	case OP_BATCH_WRITE:
		for (j = 0; j < BATCH_W; j++) {
			uint8_t *p = t->a + GUARD + j * BATCH_W_STRIDE;

			bad |= pat_check(p, st->size, st->seed + j, what);
			bad |= byte_check(p + st->size, BATCH_W_STRIDE - st->size, g, "gap between writes");
		}
		bad |= byte_check(t->a, GUARD, g, "guard before the first write");
		break;
	case OP_BATCH_SEND:
		for (j = 0; j < BATCH_S; j++) {
			uint8_t *p = t->a + GUARD + j * BATCH_S_STRIDE;
			uint32_t n = batch_send_size(j);

			bad |= pat_check(p, n, st->seed + j, what);
			bad |= byte_check(p + n, BATCH_S_STRIDE - GUARD - n, g, "receive slack");
		}
		break;
	default:
		break;
	}
	return bad ? 1 : 0;
}

/* ---- phases ---- */

static int run_phase(struct integ *t)
{
	int req = t->phase == opt.idx, k, r = 0;
	char what[64];

	make_plan(t);
	for (k = 0; k < t->nsteps; k++) {
		const struct step *st = &t->plan[k];

		if (req) {
			snprintf(what, sizeof(what), "READY for step %d", k);
			if (expect_ctrl(t, k, MSG_READY, what) || post_ctrl_recv(t, t->phase, k + 1)) {
				r = -1;
			} else {
				r = req_step(t, k);
			}
		} else {
			r = resp_step(t, k);
		}
		if (r < 0) {
			not_ok("integrity guest %d -> guest %d: stopped at step %d (%s, %u B) as %s: completion missing or wrong",
			       t->phase, 1 - t->phase, k, op_name[st->op], st->size,
			       req ? "requester" : "responder");
			rc_abort();
			return -1;
		}
		t->results[req][st->op][r]++;
		if (!t->minsz[st->op] || st->size < t->minsz[st->op])
			t->minsz[st->op] = st->size;
		if (st->size > t->maxsz[st->op])
			t->maxsz[st->op] = st->size;
		if (r)
			not_ok("integrity guest %d -> guest %d: %s %u B (%s): data wrong",
			       t->phase, 1 - t->phase, op_name[st->op], st->size,
			       req ? "requester" : "responder");
	}
	/* END; the responder first posts its receive for the next phase. */
	if (req) {
		if (expect_ctrl(t, t->nsteps, MSG_END, "END"))
			goto end_fail;
	} else {
		if ((t->phase == 0 && post_ctrl_recv(t, 1, 0) < 0) ||
		    send_ctrl(t, MSG_END, t->nsteps, K_END, "END"))
			goto end_fail;
	}
	return 0;
end_fail:
	rc_abort();
	not_ok("integrity guest %d -> guest %d: END of the phase not exchanged", t->phase, 1 - t->phase);
	return -1;
}

static void report(struct integ *t, int phase)
{
	int req = phase == opt.idx, o;

	for (o = 0; o < OP__N; o++) {
		int good = t->results[req][o][0], bad = t->results[req][o][1];

		if (!good || bad)
			continue;
		if (o == OP_BATCH_WRITE || o == OP_BATCH_SEND)
			ok("integrity guest %d -> guest %d, %s as %s: every byte and completion right",
			   phase, 1 - phase, op_name[o], req ? "requester" : "responder");
		else
			ok("integrity guest %d -> guest %d, %s as %s: %d step(s), %u..%u B, every byte and completion right",
			   phase, 1 - phase, op_name[o], req ? "requester" : "responder", good,
			   t->minsz[o], t->maxsz[o]);
	}
	memset(t->results, 0, sizeof(t->results));
	memset(t->minsz, 0, sizeof(t->minsz));
	memset(t->maxsz, 0, sizeof(t->maxsz));
}

int mode_integrity(void)
{
	struct integ *t = calloc(1, sizeof(*t));
	struct rc_qp_params par;
	int full = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	double t0 = now_s();

	if (!t)
		die("out of memory");
	rc_dev_open(&t->dev);
	if (t->dev.attr.atomic_cap == IBV_ATOMIC_NONE)
		not_ok("%s reports no atomic support (atomic_cap NONE)", opt.ibdev);
	else
		full |= IBV_ACCESS_REMOTE_ATOMIC;
	t->max_ssge = min_i(3, t->dev.attr.max_sge);
	t->max_rsge = min_i(2, t->dev.attr.max_sge);
	t->a = rc_alloc(A_LEN);
	t->b = rc_alloc(B_LEN);
	t->ctl = rc_alloc(C_LEN);
	t->u = rc_alloc(U_LEN);
	t->mra = rc_reg(&t->dev, t->a, A_LEN, full);
	t->mrb = rc_reg(&t->dev, t->b, B_LEN, full);
	t->mrc = rc_reg(&t->dev, t->ctl, C_LEN, IBV_ACCESS_LOCAL_WRITE);

	rc_default_params(&par);
	par.max_send_sge = t->max_ssge;
	par.max_recv_sge = t->max_rsge;
	par.max_inline = INLINE_WANT;
	if (rc_conn_create(&t->c, &t->dev, "integrity", &par)) {
		diag("retrying without inline data");
		rc_conn_destroy(&t->c);
		par.max_inline = 0;
		if (rc_conn_create(&t->c, &t->dev, "integrity", &par))
			return 1;
	}
	t->inline_max = t->c.max_inline < INLINE_WANT ? t->c.max_inline : INLINE_WANT;
	if (!t->inline_max)
		not_ok("%s: no inline data on RC QPs (max_inline_data 0)", opt.ibdev);
	rc_add_region(&t->c, t->mra, t->a, A_LEN);
	/* Guest 0 is the first requester: its READY receive must be posted
	 * before the peer can send. */
	if (opt.idx == 0 && post_ctrl_recv(t, 0, 0)) {
		not_ok("integrity: cannot post the first receive");
		return 1;
	}
	if (rc_conn_connect(&t->c))
		return 1;
	diag("integrity: QP %#x <-> %#x, %d send / %d receive SGEs, inline %u B, path MTU %d",
	     t->c.local.qpn, t->c.peer.qpn, t->max_ssge, t->max_rsge, t->inline_max,
	     128 << (t->c.local.mtu < t->c.peer.mtu ? t->c.local.mtu : t->c.peer.mtu));
	for (t->phase = 0; t->phase < 2; t->phase++) {
		double p0 = now_s();

		if (run_phase(t))
			break;
		report(t, t->phase);
		diag("integrity: phase %d (%d steps) in %.1f s", t->phase, t->nsteps, now_s() - p0);
	}
	if (t->phase == 2) {
		if (rc_expect_none(t->c.scq, 0.05, "send CQ after the run") ||
		    rc_expect_none(t->c.rcq, 0.05, "receive CQ after the run"))
			not_ok("integrity: completions left over after the run");
		else
			ok("integrity: no stray completions after the run");
	}
	/* Nobody destroys a QP the other may still send to. */
	rv_barrier("integrity-end");
	rc_conn_destroy(&t->c);
	ibv_dereg_mr(t->mra);
	ibv_dereg_mr(t->mrb);
	ibv_dereg_mr(t->mrc);
	rc_dev_close(&t->dev);
	diag("integrity: %.1f s", now_s() - t0);
	return rc_failures ? 1 : 0;
}
