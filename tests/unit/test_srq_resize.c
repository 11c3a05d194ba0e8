/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * MODIFY_SRQ: the mask (LIMIT, RESIZE; none or unknown bits refused) and
 * RESIZE - the WQEs posted and not taken move to the new ring and are
 * received afterwards, in order; the doorbell follows the new depth; the
 * old ring's pages are free again; a ring too small for the WQEs not
 * taken, overlapping queue memory, of a bad depth or not above an armed
 * limit is refused and changes nothing; resizing up and down between
 * messages, through many passes of the rings, loses and reorders nothing.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MR_BYTES (512u << 10)
#define BUF 4096u
#define NBUF 64u
#define LOG_STRIDE 5

static struct pair p;
static struct hsrq *srq;
static struct hqp *snd, *rcv;

/* The WQEs posted and not yet received, in order (a model of the SRQ). */
static uint64_t fifo[1024];
static unsigned int fifo_head, fifo_n;
static uint64_t next_wr_id;

static uint8_t modify(uint32_t mask, uint32_t limit, uint32_t off, uint8_t ld)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_MODIFY_SRQ);

    c.modify_srq.srqn = srq->srqn;
    c.modify_srq.mask = mask;
    c.modify_srq.limit = limit;
    c.modify_srq.offset = off;
    c.modify_srq.log_depth = ld;
    return node_cmd(&nodes[1], &c, NULL);
}

/* Queue memory nobody has used yet for a ring of 1 << ld WQEs. */
static uint32_t qmem_new(uint8_t ld)
{
    uint32_t off = nodes[1].qmem_brk;

    nodes[1].qmem_brk += ((1u << (ld + LOG_STRIDE)) + 4095) & ~4095u;
    return off;
}

/* RESIZE to a ring at off; on success the harness follows. */
static uint8_t resize(uint32_t off, uint8_t ld)
{
    uint8_t st = modify(QRNIC_SRQ_MOD_RESIZE, 0, off, ld);

    if (st == QRNIC_ST_OK) {
        srq->off = off;
        srq->log = ld;
    }
    return st;
}

/* QUERY_SRQ: the armed limit (all ones if refused); *posted its result1. */
static uint32_t query(uint32_t *posted)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_QUERY_SRQ);
    uint32_t limit = 0xffffffffu;

    c.query_srq.srqn = srq->srqn;
    if (node_cmd(&nodes[1], &c, &limit) != QRNIC_ST_OK) {
        return 0xffffffffu;
    }
    /* The completion node_cmd consumed (the harness's AQ: 64 entries). */
    memcpy(posted, node_ptr(&nodes[1], RAM_BASE + (64u << 6) +
                            32u * ((nodes[1].aq_ci - 1) & 63)) +
           offsetof(struct qrnic_cqe_admin, result1), 4);
    return limit;
}

static void post(int n, bool ring)
{
    int i;

    for (i = 0; i < n; i++) {
        uint64_t id = next_wr_id++;
        struct hsge s = { p.mr[1]->iova + (id % NBUF) * BUF, BUF,
                          p.mr[1]->key };

        srq_post_recv(srq, id, &s, 1, ring && i == n - 1);
        fifo[(fifo_head + fifo_n++) % 1024] = id;
    }
}

static void send_msg(uint64_t tag, uint32_t len)
{
    uint64_t off = (tag % NBUF) * BUF;
    struct hwr wr = mkwr(tag, QRNIC_WR_SEND, p.mr[0]->iova + off, len,
                         p.mr[0]->key);

    mr_fill(p.mr[0], p.mr[0]->iova + off, len, (uint32_t)tag);
    qp_post_send(snd, &wr, true);
}

/*
 * n messages (tags from *tag on) arrive in the WQEs at the head of the
 * model, in order, each with its data; false at the first one that does
 * not.
 */
static bool receive(int n, uint64_t *tag, const char *what)
{
    struct hwc wc;
    int i;

    for (i = 0; i < n; i++) {
        uint64_t t = (*tag)++, want = fifo[fifo_head];
        uint32_t len = 64 + (uint32_t)(t * 37 % 2000);

        send_msg(t, len);
        if (!harness_wait_cqe(p.cq[1], &wc, now_ns + 100 * MS) ||
            wc.status != QRNIC_WC_SUCCESS || wc.wr_id != want ||
            wc.byte_len != len || !(wc.flags & QRNIC_CQE_F_SRQ) ||
            wc.wqe_idx != (uint16_t)(want - 1000) ||
            mr_verify(p.mr[1], p.mr[1]->iova + (want % NBUF) * BUF, len,
                      (uint32_t)t)) {
            printf("# %s: message %llu: wr_id %llu (want %llu) status %u "
                   "idx %u len %u\n", what, (unsigned long long)t,
                   (unsigned long long)wc.wr_id, (unsigned long long)want,
                   wc.status, wc.wqe_idx, wc.byte_len);
            return false;
        }
        fifo_head = (fifo_head + 1) % 1024;
        fifo_n--;
        if (!harness_wait_cqe(p.cq[0], &wc, now_ns + 100 * MS) ||
            wc.status != QRNIC_WC_SUCCESS) {
            return false;
        }
    }
    return true;
}

static void setup(uint64_t seed, uint8_t log)
{
    uint8_t st;

    pair_setup(&p, seed, 3, 10, 3, 7, 1, MR_BYTES);
    srq = node_create_srq(&nodes[1], log, LOG_STRIDE, 0, &st);
    snd = node_create_qp(&nodes[0], p.cq[0], p.cq[0], 6, 7, 4, 5);
    rcv = srq ? node_create_qp_srq(&nodes[1], QRNIC_QPT_RC, p.cq[1], p.cq[1],
                                   6, 7, srq, &st) : NULL;
    if (!rcv || !qp_connect(snd, rcv, 3, 10, 3, 7, 1) ||
        !qp_connect(rcv, snd, 3, 10, 3, 7, 1)) {
        printf("not ok - fixture\n");
        exit(1);
    }
    fifo_head = fifo_n = 0;
    next_wr_id = 1000;              /* SRQ index = wr_id - 1000 */
}

static void test_mask(void)
{
    uint32_t posted;

    setup(81, 3);
    CHECK_EQ(modify(0, 2, 0, 0), QRNIC_ST_BAD_PARAM,
             "MODIFY_SRQ with mask 0: BAD_PARAM");
    CHECK_EQ(modify(4, 2, 0, 0), QRNIC_ST_BAD_PARAM,
             "MODIFY_SRQ with an unknown mask bit: BAD_PARAM");
    CHECK_EQ(modify(QRNIC_SRQ_MOD_LIMIT | 0x80000000u, 2, 0, 0),
             QRNIC_ST_BAD_PARAM, "MODIFY_SRQ LIMIT with bit 31: BAD_PARAM");
    CHECK(query(&posted) == 0, "nothing changed: no limit armed");
    CHECK_EQ(modify(QRNIC_SRQ_MOD_LIMIT, 5, 0xdead, 99), QRNIC_ST_OK,
             "MODIFY_SRQ LIMIT alone (offset and log_depth not looked at)");
    CHECK(query(&posted) == 5 && posted == 0, "limit 5 armed");
    CHECK_EQ(modify(QRNIC_SRQ_MOD_LIMIT, 8, 0, 0), QRNIC_ST_BAD_PARAM,
             "LIMIT of the depth: BAD_PARAM");
    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_MODIFY_SRQ);

        c.modify_srq.srqn = srq->srqn;
        c.modify_srq.mask = QRNIC_SRQ_MOD_LIMIT;
        c.modify_srq.limit = 1;
        c.modify_srq.rsvd[1] = 1;
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_PARAM,
                 "MODIFY_SRQ with a reserved byte set: BAD_PARAM");
        c.modify_srq.srqn = 999;
        c.modify_srq.rsvd[1] = 0;
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_BAD_HANDLE,
                 "MODIFY_SRQ of no SRQ: BAD_HANDLE");
    }
    CHECK(query(&posted) == 5, "the refused commands changed nothing");
    harness_fini();
}

static void test_grow(void)
{
    uint64_t tag = 1, bad_db;
    uint32_t old, posted = 0;
    uint8_t st;

    setup(82, 3);                   /* 8 WQEs */
    old = srq->off;
    post(7, true);
    CHECK(receive(2, &tag, "grow: before"), "grow: 2 of 7 WQEs taken");
    st = resize(qmem_new(5), 5);
    CHECK_EQ(st, QRNIC_ST_OK, "RESIZE 8 -> 32 WQEs with 5 posted, not taken");
    CHECK(query(&posted) == 0 && posted == 5,
          "QUERY_SRQ: still 5 posted, not taken");
    /* The old ring is free: another SRQ may have it. */
    {
        struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_SRQ);

        c.create_srq.pdn = nodes[1].pd;
        c.create_srq.offset = old;
        c.create_srq.log_depth = 3;
        c.create_srq.log_stride = LOG_STRIDE;
        CHECK_EQ(node_cmd(&nodes[1], &c, NULL), QRNIC_ST_OK,
                 "CREATE_SRQ on the old ring's pages");
    }
    /* 27 more: 32 posted, a doorbell the old depth would refuse. */
    bad_db = nodes[1].d.e.stats.bad_db;
    post(27, true);
    CHECK(nodes[1].d.e.stats.bad_db == bad_db && query(&posted) == 0 &&
          posted == 32, "the doorbell takes 32 posted (the new depth)");
    CHECK(receive(32, &tag, "grow: after"),
          "the 5 moved WQEs, then the 27 new ones receive in order, each "
          "its message");
    post(33, false);
    qf_doorbell(&nodes[1].d, 0, QRNIC_DB_SRQ,
                srq->srqn | (uint64_t)srq->pi << 32);
    CHECK(nodes[1].d.e.stats.bad_db == bad_db + 1,
          "33 posted: the doorbell is refused");
    harness_fini();
}

static void test_refused(void)
{
    uint64_t tag = 1;
    uint32_t posted, free_off;
    uint8_t st;

    setup(83, 4);                   /* 16 WQEs */
    post(10, true);
    CHECK(receive(3, &tag, "refused: before"), "refused: 3 of 10 taken");
    free_off = qmem_new(4);
    CHECK_EQ(resize(free_off, 2), QRNIC_ST_BAD_PARAM,
             "RESIZE to 4 WQEs with 7 not taken: BAD_PARAM");
    CHECK_EQ(resize(srq->off, 4), QRNIC_ST_BAD_PARAM,
             "RESIZE onto its own ring: BAD_PARAM");
    CHECK_EQ(resize(rcv->sq_off, 3), QRNIC_ST_BAD_PARAM,
             "RESIZE onto a QP's send queue: BAD_PARAM");
    CHECK_EQ(resize(free_off + 100, 3), QRNIC_ST_BAD_PARAM,
             "RESIZE to an offset not page aligned: BAD_PARAM");
    CHECK_EQ(resize(QMEM_SIZE - 4096, 8), QRNIC_ST_BAD_PARAM,
             "RESIZE to a ring past the end of queue memory: BAD_PARAM");
    CHECK_EQ(resize(free_off, QRNIC_QP_MAX_LOG + 1), QRNIC_ST_BAD_PARAM,
             "RESIZE to 1 << 15 WQEs: BAD_PARAM");
    CHECK(receive(5, &tag, "refused: drain"), "5 more taken (2 left)");
    CHECK_EQ(modify(QRNIC_SRQ_MOD_LIMIT, 6, 0, 0), QRNIC_ST_OK,
             "limit 6 armed (2 left: no take, no event yet)");
    CHECK_EQ(resize(free_off, 2), QRNIC_ST_BAD_PARAM,
             "RESIZE to 4 WQEs under the armed limit 6: BAD_PARAM");
    CHECK_EQ(modify(QRNIC_SRQ_MOD_LIMIT | QRNIC_SRQ_MOD_RESIZE, 4, free_off,
                    2), QRNIC_ST_BAD_PARAM,
             "RESIZE to 4 WQEs with a new limit of 4: BAD_PARAM");
    CHECK_EQ(modify(QRNIC_SRQ_MOD_LIMIT | QRNIC_SRQ_MOD_RESIZE, 1, srq->off,
                    2), QRNIC_ST_BAD_PARAM,
             "RESIZE onto its own ring with a new limit: BAD_PARAM");
    CHECK(query(&posted) == 6 && posted == 2 &&
          node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 0,
          "every refused command left the SRQ as it was (limit 6, 2 posted)");
    CHECK(receive(1, &tag, "refused: after") &&
          node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 1,
          "it still receives from the old ring (the limit fires, disarms)");
    st = modify(QRNIC_SRQ_MOD_LIMIT | QRNIC_SRQ_MOD_RESIZE, 3, free_off, 2);
    if (st == QRNIC_ST_OK) {
        srq->off = free_off;
        srq->log = 2;
    }
    CHECK(st == QRNIC_ST_OK && query(&posted) == 3 && posted == 1,
          "RESIZE to 4 WQEs (1 not taken) with limit 3 in one command");
    post(3, true);
    CHECK(receive(1, &tag, "refused: limit") &&
          node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 0 &&
          receive(1, &tag, "refused: limit") &&
          node_async_events(&nodes[1], QRNIC_EVENT_SRQ_LIMIT, srq->srqn) == 1,
          "the new ring receives; the new limit fires when 2 are left, once");
    harness_fini();
}

/* Shrink exactly to the WQEs not taken, then to one. */
static void test_shrink(void)
{
    uint64_t tag = 1;
    uint32_t posted;

    setup(84, 6);                   /* 64 WQEs */
    post(40, true);
    CHECK(receive(36, &tag, "shrink: before"), "shrink: 36 of 40 taken");
    CHECK_EQ(resize(qmem_new(2), 2), QRNIC_ST_OK,
             "RESIZE 64 -> 4 WQEs with 4 not taken (a full ring)");
    CHECK(query(&posted) == 0 && posted == 4, "4 posted, not taken");
    CHECK(receive(4, &tag, "shrink: after"), "they receive in order");
    CHECK_EQ(resize(qmem_new(0), 0), QRNIC_ST_OK, "RESIZE to 1 WQE, empty");
    post(1, true);
    CHECK(receive(1, &tag, "shrink: one"), "a ring of one receives");
    harness_fini();
}

/*
 * Between bursts of messages, resize up and down (2 to 128 WQEs) with a
 * random number of WQEs left not taken, between two areas of queue
 * memory; the rings go round many times.
 */
static void test_many(void)
{
    uint32_t area[2], posted;
    uint64_t rng = 0x9e3779b97f4a7c15ull, tag = 1;
    int round, ok = 1, cur = 0;

    setup(85, 4);
    area[0] = qmem_new(7);
    area[1] = qmem_new(7);
    for (round = 0; round < 60 && ok; round++) {
        uint8_t ld;
        int room, n;

        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        ld = (uint8_t)(1 + (rng >> 33) % 7);
        /* Post up to the new depth (not taken so far included). */
        if ((int)fifo_n > (1 << ld)) {
            ld = 7;
        }
        ok &= resize(area[cur], ld) == QRNIC_ST_OK;
        cur ^= 1;
        room = (1 << ld) - (int)fifo_n;
        n = room ? (int)((rng >> 20) % (unsigned)room) + 1 : 0;
        post(n, true);
        ok &= query(&posted) == 0 && posted == fifo_n;
        /* Take all but a few. */
        n = (int)fifo_n - (int)((rng >> 45) % 4);
        ok &= receive(n > 0 ? n : 0, &tag, "many");
    }
    CHECK(ok, "60 resizes between 2 and 128 WQEs with WQEs left over: "
          "%llu messages, all in order (round %d)",
          (unsigned long long)tag - 1, round);
    CHECK(receive((int)fifo_n, &tag, "many: rest"), "the rest receive too");
    CHECK(next_wr_id - 1000 > 4 * 128,
          "the rings went round many times (%llu WQEs)",
          (unsigned long long)(next_wr_id - 1000));
    harness_fini();
}

int main(void)
{
    test_mask();
    test_grow();
    test_refused();
    test_shrink();
    test_many();
    return TAP_DONE();
}
