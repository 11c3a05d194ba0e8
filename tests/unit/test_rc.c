/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RC transport tests: two engines back to back (rc_harness.c) exchange
 * messages of every opcode and size class, with and without a wire that
 * drops, duplicates and reorders frames; every byte and every completion
 * is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_le.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define MR_BYTES (6u << 20)
#define MAX_MSGS 64

/* What one message must produce. */
struct expect {
    uint64_t wr_id;
    uint8_t wr_op;
    uint32_t len;
    bool signaled;
    bool recv;                  /* the responder completes a receive */
    uint64_t recv_wr_id;
    uint32_t imm;
    uint64_t dst_va;            /* where the data lands */
    struct hmr *dst_mr;
    uint32_t seed;
    uint64_t atomic_before;     /* atomics: remote value before */
    uint64_t atomic_after;
};

/* One direction of traffic: requester QP, responder QP and their buffers. */
struct stream {
    struct hqp *req;
    struct hqp *resp;
    struct hmr *lmr;            /* requester's buffer */
    struct hmr *rmr;            /* responder's buffer */
    uint64_t loff, roff;        /* bump offsets in lmr / rmr this round */
    uint64_t base;              /* this direction's half of each MR */
    struct expect exp[MAX_MSGS];
    int n;
    uint64_t next_wr_id;
    uint32_t msgs_ok;
    uint32_t msgs;
    uint32_t failures;
    char what[96];
};

static uint64_t rng = 88172645463325252ull;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static struct pair pr;
static struct hcq **cq = pr.cq;
static struct hqp **qp = pr.qp;
static struct hmr **mr = pr.mr;

static bool setup(uint64_t seed, uint8_t path_mtu, uint8_t timeout,
                  uint8_t retry, uint8_t rnr_retry)
{
    return pair_setup(&pr, seed, path_mtu, timeout, retry, rnr_retry, 1,
                      MR_BYTES);
}

static void stream_init(struct stream *s, int from)
{
    memset(s, 0, sizeof(*s));
    s->req = qp[from];
    s->resp = qp[1 - from];
    s->lmr = mr[from];
    s->rmr = mr[1 - from];
    s->next_wr_id = 0x1000 * (from + 1);
    s->base = from ? MR_BYTES / 2 : 0;
    s->loff = s->roff = s->base;
}

static uint64_t take(struct hmr *m, uint64_t *off, uint32_t len)
{
    uint64_t va = m->iova + *off;

    *off += (len + 63) & ~63u;
    return va;
}

/* Split [va, va + len) into num SGEs of the MR. */
static int split(struct hsge *sge, int num, uint64_t va, uint32_t len,
                 uint32_t key)
{
    int i;

    for (i = 0; i < num; i++) {
        uint32_t part = i == num - 1 ? len : len / (uint32_t)(num - i);

        if (num > 1 && i < num - 1 && part > 1) {
            part = (uint32_t)(rnd() % part) + 1;
        }
        sge[i].addr = va;
        sge[i].len = part;
        sge[i].lkey = key;
        va += part;
        len -= part;
    }
    return num;
}

static uint8_t inline_buf[2][MAX_MSGS][QRNIC_MAX_INLINE];

/*
 * Post one message of opcode op and length len on the stream.  nsge
 * SGEs on each side; inline if asked and possible.  False if it does not
 * fit this round.
 */
static bool post_msg(struct stream *s, uint8_t op, uint32_t len, int nsge,
                     bool inl, bool signaled)
{
    struct expect *x;
    struct hwr wr;
    struct hsge rsge[QRNIC_MAX_SGE];
    int dir = s->req == qp[0] ? 0 : 1;
    bool atomic = op >= QRNIC_WR_ATOMIC_CMP_AND_SWP;

    if (s->n == MAX_MSGS || s->loff + len + 128 > s->base + MR_BYTES / 2 ||
        s->roff + len + 128 > s->base + MR_BYTES / 2) {
        return false;
    }
    x = &s->exp[s->n];
    memset(x, 0, sizeof(*x));
    memset(&wr, 0, sizeof(wr));
    wr.raw_num_sge = -1;
    x->wr_id = wr.wr_id = s->next_wr_id++;
    x->wr_op = wr.opcode = op;
    x->len = atomic ? 8 : len;
    x->signaled = signaled;
    x->seed = (uint32_t)rnd();
    wr.flags = signaled ? QRNIC_WQE_F_SIGNALED : 0;
    if (op == QRNIC_WR_SEND_IMM || op == QRNIC_WR_RDMA_WRITE_IMM) {
        x->imm = wr.imm = (uint32_t)rnd();
    }

    if (op == QRNIC_WR_RDMA_READ) {
        uint64_t src = take(s->rmr, &s->roff, len);

        x->dst_va = take(s->lmr, &s->loff, len);
        x->dst_mr = s->lmr;
        mr_fill(s->rmr, src, len, x->seed);
        wr.remote_addr = src;
        wr.rkey = s->rmr->key;
        wr.num_sge = split(wr.sge, nsge, x->dst_va, len, s->lmr->key);
    } else if (atomic) {
        uint64_t target = take(s->rmr, &s->roff, 8);
        uint64_t before = rnd();

        x->dst_va = take(s->lmr, &s->loff, 8);
        x->dst_mr = s->lmr;
        memcpy(mr_at(s->rmr, target), &before, 8);
        x->atomic_before = before;
        wr.remote_addr = target;
        wr.rkey = s->rmr->key;
        if (op == QRNIC_WR_ATOMIC_FETCH_AND_ADD) {
            wr.compare_add = rnd();
            x->atomic_after = before + wr.compare_add;
        } else {
            bool hit = rnd() & 1;

            wr.compare_add = hit ? before : before ^ 1;
            wr.swap = rnd();
            x->atomic_after = hit ? wr.swap : before;
        }
        wr.num_sge = split(wr.sge, 1, x->dst_va, 8, s->lmr->key);
        x->seed = (uint32_t)(target - s->rmr->iova);
    } else {
        uint64_t src = take(s->lmr, &s->loff, len);

        mr_fill(s->lmr, src, len, x->seed);
        x->dst_va = take(s->rmr, &s->roff, len);
        x->dst_mr = s->rmr;
        if (inl && len <= QRNIC_MAX_INLINE &&
            (op == QRNIC_WR_SEND || op == QRNIC_WR_SEND_IMM ||
             op == QRNIC_WR_RDMA_WRITE || op == QRNIC_WR_RDMA_WRITE_IMM)) {
            uint8_t *b = inline_buf[dir][s->n];
            uint32_t i;

            for (i = 0; i < len; i++) {
                b[i] = *mr_at(s->lmr, src + i);
            }
            wr.flags |= QRNIC_WQE_F_INLINE;
            wr.num_sge = 1;
            wr.sge[0].addr = (uint64_t)(uintptr_t)b;
            wr.sge[0].len = len;
        } else {
            wr.num_sge = split(wr.sge, nsge, src, len, s->lmr->key);
        }
        if (op == QRNIC_WR_RDMA_WRITE || op == QRNIC_WR_RDMA_WRITE_IMM) {
            wr.remote_addr = x->dst_va;
            wr.rkey = s->rmr->key;
        }
        if (op == QRNIC_WR_SEND || op == QRNIC_WR_SEND_IMM ||
            op == QRNIC_WR_RDMA_WRITE_IMM) {
            int rn = op == QRNIC_WR_RDMA_WRITE_IMM ? 0 :
                     split(rsge, nsge, x->dst_va, len, s->rmr->key);

            x->recv = true;
            x->recv_wr_id = 0x80000000ull + x->wr_id;
            qp_post_recv(s->resp, x->recv_wr_id, rsge, rn, true);
        }
    }
    qp_post_send(s->req, &wr, false);
    s->n++;
    s->msgs++;
    return true;
}

static uint8_t wc_opcode(uint8_t wr_op)
{
    switch (wr_op) {
    case QRNIC_WR_RDMA_WRITE:
    case QRNIC_WR_RDMA_WRITE_IMM:
        return QRNIC_CQE_OP_RDMA_WRITE;
    case QRNIC_WR_RDMA_READ:
        return QRNIC_CQE_OP_RDMA_READ;
    case QRNIC_WR_ATOMIC_CMP_AND_SWP:
        return QRNIC_CQE_OP_COMP_SWAP;
    case QRNIC_WR_ATOMIC_FETCH_AND_ADD:
        return QRNIC_CQE_OP_FETCH_ADD;
    default:
        return QRNIC_CQE_OP_SEND;
    }
}

static void fail(struct stream *s, const char *why, int i)
{
    if (s->failures++ < 5) {
        printf("# %s: message %d (wr_id 0x%llx op %u len %u): %s\n",
               s->what, i, (unsigned long long)s->exp[i].wr_id,
               s->exp[i].wr_op, s->exp[i].len, why);
    }
}

/* Completions arrive on each node's single CQ; sort them by direction. */
struct cqe_log {
    struct hwc send[2][MAX_MSGS * 2];
    int nsend[2];
    struct hwc recv[2][MAX_MSGS * 2];
    int nrecv[2];
    int other;
};

static void drain(struct cqe_log *log)
{
    struct hwc wc;
    int i;

    memset(log, 0, sizeof(*log));
    for (i = 0; i < 2; i++) {
        while (cq_poll(cq[i], &wc)) {
            if (wc.flags & QRNIC_CQE_F_SEND) {
                if (log->nsend[i] < MAX_MSGS * 2) {
                    log->send[i][log->nsend[i]++] = wc;
                }
            } else if (log->nrecv[1 - i] < MAX_MSGS * 2) {
                log->recv[1 - i][log->nrecv[1 - i]++] = wc;
            } else {
                log->other++;
            }
        }
    }
}

/* Check every expected completion and byte of the round; reset it. */
static void verify(struct stream *s, const struct cqe_log *log, int dir)
{
    int i, si = 0, ri = 0;

    for (i = 0; i < s->n; i++) {
        struct expect *x = &s->exp[i];
        bool ok = true;

        if (x->signaled) {
            const struct hwc *w = &log->send[dir][si];

            if (si >= log->nsend[dir]) {
                fail(s, "no send completion", i);
                ok = false;
            } else if (w->wr_id != x->wr_id ||
                       w->status != QRNIC_WC_SUCCESS ||
                       w->opcode != wc_opcode(x->wr_op) ||
                       w->qpn != s->req->qpn ||
                       ((x->wr_op == QRNIC_WR_RDMA_READ ||
                         x->wr_op >= QRNIC_WR_ATOMIC_CMP_AND_SWP) &&
                        w->byte_len != x->len)) {
                char why[96];

                snprintf(why, sizeof(why),
                         "send CQE wr_id 0x%llx status %u opcode %u len %u",
                         (unsigned long long)w->wr_id, w->status, w->opcode,
                         w->byte_len);
                fail(s, why, i);
                ok = false;
            }
            si++;
        }
        if (x->recv) {
            const struct hwc *w = &log->recv[dir][ri];
            uint8_t op = x->wr_op == QRNIC_WR_RDMA_WRITE_IMM ?
                         QRNIC_CQE_OP_RECV_RDMA_IMM : QRNIC_CQE_OP_RECV;
            bool imm = x->wr_op == QRNIC_WR_SEND_IMM ||
                       x->wr_op == QRNIC_WR_RDMA_WRITE_IMM;

            if (ri >= log->nrecv[dir]) {
                fail(s, "no receive completion", i);
                ok = false;
            } else if (w->wr_id != x->recv_wr_id ||
                       w->status != QRNIC_WC_SUCCESS || w->opcode != op ||
                       w->byte_len != x->len || w->qpn != s->resp->qpn ||
                       !!(w->flags & QRNIC_CQE_F_IMM) != imm ||
                       (imm && w->imm != x->imm)) {
                char why[96];

                snprintf(why, sizeof(why),
                         "recv CQE wr_id 0x%llx status %u opcode %u len %u",
                         (unsigned long long)w->wr_id, w->status, w->opcode,
                         w->byte_len);
                fail(s, why, i);
                ok = false;
            }
            ri++;
        }
        if (x->wr_op >= QRNIC_WR_ATOMIC_CMP_AND_SWP) {
            uint64_t got, remote;

            memcpy(&got, mr_at(x->dst_mr, x->dst_va), 8);
            memcpy(&remote, mr_at(s->rmr, s->rmr->iova + x->seed), 8);
            if (got != x->atomic_before || remote != x->atomic_after) {
                fail(s, "atomic result or target wrong", i);
                ok = false;
            }
        } else if (mr_verify(x->dst_mr, x->dst_va, x->len, x->seed)) {
            fail(s, "data differs", i);
            ok = false;
        }
        s->msgs_ok += ok;
    }
    if (si != log->nsend[dir] || ri != log->nrecv[dir]) {
        fail(s, "unexpected extra completions", 0);
    }
    s->n = 0;
    s->loff = s->roff = s->base;
}

static const uint8_t ops[] = {
    QRNIC_WR_SEND, QRNIC_WR_SEND_IMM, QRNIC_WR_RDMA_WRITE,
    QRNIC_WR_RDMA_WRITE_IMM, QRNIC_WR_RDMA_READ,
    QRNIC_WR_ATOMIC_CMP_AND_SWP, QRNIC_WR_ATOMIC_FETCH_AND_ADD,
};

/* Every opcode x size class x SGE shape x inline, one path MTU. */
static void test_matrix(uint8_t path_mtu)
{
    uint32_t mtu = 128u << path_mtu;
    const uint32_t sizes[] = { 0, 1, 3, 64, 255, mtu - 1, mtu, mtu + 1,
                               3 * mtu + 5, 65536, 1u << 20 };
    struct stream s;
    struct cqe_log log;
    unsigned int o, z, shape, total = 0, ok = 0, bad = 0;

    if (!setup(path_mtu * 7919, path_mtu, 14, 7, 7)) {
        CHECK(0, "matrix mtu %u: setup", mtu);
        return;
    }
    stream_init(&s, 0);
    snprintf(s.what, sizeof(s.what), "matrix mtu %u", mtu);
    for (o = 0; o < sizeof(ops); o++) {
        for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
            for (shape = 0; shape < 4; shape++) {
                bool atomic = ops[o] >= QRNIC_WR_ATOMIC_CMP_AND_SWP;

                if (atomic && (z || shape > 1)) {
                    continue;
                }
                if (!post_msg(&s, ops[o], sizes[z], shape == 1 ? 3 : 1,
                              shape == 2, shape != 3)) {
                    qp_ring_sq(s.req);
                    harness_run(now_ns + 10 * SEC);
                    drain(&log);
                    verify(&s, &log, 0);
                    post_msg(&s, ops[o], sizes[z], shape == 1 ? 3 : 1,
                             shape == 2, shape != 3);
                }
            }
        }
        /* A signalled WQE last, so unsignalled ones before are reaped. */
        post_msg(&s, QRNIC_WR_SEND, 1, 1, false, true);
        qp_ring_sq(s.req);
        harness_run(now_ns + 10 * SEC);
        drain(&log);
        verify(&s, &log, 0);
    }
    total = s.msgs;
    ok = s.msgs_ok;
    bad = s.failures;
    CHECK(total > 150 && ok == total && !bad,
          "matrix mtu %u: %u messages of every opcode and size class "
          "(0 B .. 1 MiB, 1 or 3 SGEs, inline, unsignalled), all data and "
          "completions right (%u ok)", mtu, total, ok);
    CHECK_EQ(wire.bad_icrc, 0, "matrix mtu %u: every frame's ICRC matches "
             "an independent bitwise CRC (%llu frames)", mtu,
             (unsigned long long)wire.sent);
    CHECK_EQ(nodes[0].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS] +
             nodes[1].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS], 0,
             "matrix mtu %u: a clean wire needs no retransmission", mtu);
}

/* Random traffic both ways at once through an unreliable wire. */
static void test_random(uint64_t seed, uint8_t path_mtu, unsigned int drop,
                        unsigned int dup, unsigned int reorder,
                        unsigned int rounds)
{
    uint32_t mtu = 128u << path_mtu;
    struct stream s[2];
    struct cqe_log log;
    unsigned int r, d;
    uint64_t retrans, dups;

    rng = seed * 2654435761u + 1;
    if (!setup(seed, path_mtu, 10, 7, 7)) {
        CHECK(0, "random seed %llu: setup", (unsigned long long)seed);
        return;
    }
    wire.drop_pct = drop;
    wire.dup_pct = dup;
    wire.reorder_pct = reorder;
    for (d = 0; d < 2; d++) {
        stream_init(&s[d], (int)d);
        snprintf(s[d].what, sizeof(s[d].what), "random seed %llu dir %u",
                 (unsigned long long)seed, d);
    }
    for (r = 0; r < rounds; r++) {
        for (d = 0; d < 2; d++) {
            int k, n = 1 + (int)(rnd() % 24);

            for (k = 0; k < n; k++) {
                uint8_t op = ops[rnd() % sizeof(ops)];
                uint32_t cls = (uint32_t)(rnd() % 10), len;

                len = cls < 5 ? (uint32_t)(rnd() % 300) :
                      cls < 8 ? (uint32_t)(rnd() % (4 * mtu)) :
                      cls < 9 ? (uint32_t)(rnd() % 70000) :
                                (uint32_t)(rnd() % (1200 * 1024));
                if (!post_msg(&s[d], op, len, 1 + (int)(rnd() % 3),
                              rnd() % 4 == 0, k == n - 1 || rnd() % 2)) {
                    break;
                }
            }
            qp_ring_sq(s[d].req);
        }
        harness_run(now_ns + 60 * SEC);
        drain(&log);
        verify(&s[0], &log, 0);
        verify(&s[1], &log, 1);
    }
    retrans = nodes[0].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS] +
              nodes[1].d.e.stats.v[QRNIC_STAT_RETRANS_PKTS];
    dups = nodes[0].d.e.stats.v[QRNIC_STAT_DUP_REQS] +
           nodes[1].d.e.stats.v[QRNIC_STAT_DUP_REQS];
    CHECK(s[0].msgs_ok == s[0].msgs && s[1].msgs_ok == s[1].msgs &&
          !s[0].failures && !s[1].failures &&
          s[0].msgs + s[1].msgs > 8 * rounds,
          "random seed %llu mtu %u, drop %u%% dup %u%% reorder %u%%: "
          "%u + %u messages both ways, all data and completions right",
          (unsigned long long)seed, mtu, drop, dup, reorder, s[0].msgs,
          s[1].msgs);
    if (drop || dup || reorder) {
        CHECK((!drop || (wire.dropped > 0 && retrans > 0)) &&
              (!dup || dups > 0),
              "random seed %llu: the wire really lost frames (%llu dropped, "
              "%llu retransmitted, %llu duplicate requests seen)",
              (unsigned long long)seed, (unsigned long long)wire.dropped,
              (unsigned long long)retrans, (unsigned long long)dups);
    }
    CHECK_EQ(wire.bad_icrc, 0, "random seed %llu: all %llu frames carry a "
             "correct ICRC", (unsigned long long)seed,
             (unsigned long long)wire.sent);
}

/*
 * test_rc soak N [FIRST]: N more seeds (from FIRST, default 1000) with
 * random impairment, for bug hunting.
 */
static void soak(unsigned int n, unsigned int first)
{
    unsigned int i;

    for (i = 0; i < n; i++) {
        uint64_t seed = first + i;

        rng = seed;
        test_random(seed, (uint8_t)(1 + rnd() % 5), (unsigned int)(rnd() % 20),
                    (unsigned int)(rnd() % 10), (unsigned int)(rnd() % 20),
                    20);
    }
}

int main(int argc, char **argv)
{
    unsigned int rounds = argc > 1 ? (unsigned int)atoi(argv[1]) : 60;

    if (argc > 2 && !strcmp(argv[1], "soak")) {
        soak((unsigned int)atoi(argv[2]),
             argc > 3 ? (unsigned int)atoi(argv[3]) : 1000);
        harness_fini();
        return TAP_DONE();
    }

    test_matrix(1);
    test_matrix(3);
    test_matrix(5);
    test_random(1, 3, 0, 0, 0, rounds);
    test_random(2, 3, 5, 3, 5, rounds);
    test_random(3, 5, 3, 2, 10, rounds);
    test_random(4, 1, 10, 5, 5, rounds / 2);
    harness_fini();
    return TAP_DONE();
}
