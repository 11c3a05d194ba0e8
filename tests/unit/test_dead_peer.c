/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Another user's QPs whose peers never answer cost a victim nothing it
 * would notice (qrnic_sched.c).  An attacker context puts K RC QPs in RTS
 * towards peers left in RESET, or destroyed, with timeout 0 (infinite),
 * 1 (the 1 ms floor), 18 (1.07 s) or 31, retry 7, and posts a 1 MiB
 * WRITE on each; they fill
 * the device's caps before the victim (the kernel's context) starts.
 * Then:
 *  - the victim's 32 WRITEs of 16 KiB complete, intact, within one probe
 *    time: its context always has its fair share of the caps;
 *  - four probe times after its last answer (none), an attacker QP's
 *    packets count no more (the next one takes its turn in the
 *    attacker's window, which their losses shrink), and after all of them
 *    the victim has the caps to itself;
 *  - the victim's window is untouched, while the attacker's window is the
 *    only one a loss on the attacker's QPs shrinks.
 */
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define ATTACK_LEN (1u << 20)
#define VICTIM_LEN (16u << 10)
#define VICTIM_WRS 32
#define NATTACK 4

static struct pair p;

static struct qrnic_engine *eng(void)
{
    return &nodes[0].d.e;
}

/*
 * The victim's WRITEs, all posted at once: true if every one completed
 * successfully and the data arrived; *took is the virtual time they took.
 */
static bool victim_run(uint32_t seed, uint64_t *took)
{
    uint64_t start = now_ns, end = now_ns + 1000 * MS;
    struct hwc wc;
    uint32_t i, done = 0;

    mr_fill(p.mr[0], p.mr[0]->iova, VICTIM_WRS * VICTIM_LEN, seed);
    for (i = 0; i < VICTIM_WRS; i++) {
        struct hwr wr = mkwr(i, QRNIC_WR_RDMA_WRITE,
                             p.mr[0]->iova + i * VICTIM_LEN, VICTIM_LEN,
                             p.mr[0]->key);

        wr.remote_addr = p.mr[1]->iova + i * VICTIM_LEN;
        wr.rkey = p.mr[1]->key;
        qp_post_send(p.qp[0], &wr, i + 1 == VICTIM_WRS);
    }
    while (done < VICTIM_WRS && harness_wait_cqe(p.cq[0], &wc, end)) {
        if (wc.status != QRNIC_WC_SUCCESS || wc.wr_id != done) {
            break;
        }
        done++;
    }
    *took = now_ns - start;
    return done == VICTIM_WRS &&
           !mr_verify(p.mr[1], p.mr[1]->iova, VICTIM_WRS * VICTIM_LEN, seed);
}

/* The attacker's context on node 0: a CQ and a region of ATTACK_LEN. */
struct attacker {
    uint32_t uctx, pd;
    struct hcq *cq;
    struct hmr *mr;
};

static void attacker_init(struct attacker *a)
{
    struct node *n = &nodes[0];

    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "the attacker's context");
    a->uctx = n->uctx;
    a->pd = n->pd;
    a->cq = node_create_cq(n, 8);
    a->mr = node_mr(n, ATTACK_LEN, QRNIC_ACCESS_LOCAL_WRITE);
    node_use_kernel(n);
}

/*
 * One attacker QP towards a node 1 QP left in RESET (destroyed too if
 * gone), with a WRITE of len posted.
 */
static void attacker_qp(const struct attacker *a, uint32_t k, uint32_t len,
                        uint8_t timeout, bool gone)
{
    struct node *n = &nodes[0];
    struct hqp *peer = node_create_qp(&nodes[1], p.cq[1], p.cq[1], 4, 6, 4, 6);
    struct hwr wr = mkwr(k, QRNIC_WR_RDMA_WRITE, a->mr->iova, len,
                         a->mr->key);
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_QP);
    struct hqp *qp;

    n->uctx = a->uctx;
    n->pd = a->pd;
    qp = node_create_qp(n, a->cq, a->cq, 4, 7, 4, 6);
    node_use_kernel(n);
    CHECK(peer && qp && qp_connect(qp, peer, 3, timeout, 7, 7, 1),
          "attacker QP %u in RTS towards a peer in RESET", k);
    if (gone && peer) {
        c.destroy_qp.qpn = peer->qpn;
        CHECK(node_cmd(&nodes[1], &c, NULL) == QRNIC_ST_OK,
              "its peer destroyed");
    }
    wr.remote_addr = 0x10000;
    wr.rkey = 0x1234;
    if (qp) {
        qp_post_send(qp, &wr, true);
    }
}

/* K attacker QPs with a 1 MiB WRITE each, all at once. */
static uint32_t attack(uint8_t timeout, bool gone)
{
    struct attacker a;
    uint32_t k;

    attacker_init(&a);
    for (k = 0; k < NATTACK; k++) {
        attacker_qp(&a, k, ATTACK_LEN, timeout, gone);
    }
    harness_run_steps(now_ns + 10000, 100000);
    return a.uctx;
}

static void scenario(uint8_t timeout, bool gone, uint32_t seed)
{
    const char *how = gone ? "destroyed" : "in RESET";
    uint64_t alone, with, later, start;
    uint32_t cap, cwnd, a;

    CHECK(pair_setup(&p, seed, 3, 14, 7, 7, 1,
                     VICTIM_WRS * VICTIM_LEN + 4096),
          "victim pair set up (timeout 14, path MTU 1024)");
    cap = eng()->win_bytes / qrnic_pkt_cost(1024);
    CHECK(victim_run(seed, &alone), "timeout %u, peers %s: the victim alone",
          timeout, how);
    cwnd = eng()->uctx[0].cwnd;
    /* As if some context had grown its window to the caps. */
    eng()->cc.cwnd = eng()->win_pkts * QRNIC_CWND_ONE;
    start = now_ns;
    a = attack(timeout, gone);
    CHECK(eng()->uctx[a].cc_inflight >= cap && eng()->cc.inflight >= cap,
          "timeout %u, peers %s: the attackers fill the caps (%u of %u)",
          timeout, how, eng()->uctx[a].cc_inflight, cap);
    CHECK(victim_run(seed + 1, &with) && with <= QRNIC_PROBE_NS,
          "timeout %u, peers %s: the victim's 32 x 16 KiB complete, intact, "
          "within a probe time (%llu us; alone %llu us)", timeout, how,
          (unsigned long long)(with / 1000),
          (unsigned long long)(alone / 1000));
    /* Each attacker QP sends what its context's window lets it, in turn. */
    harness_run(start + 4 * NATTACK * QRNIC_PROBE_NS + 2 * MS);
    CHECK(eng()->uctx[a].cc_inflight == 0 &&
          eng()->cc.inflight == eng()->uctx[0].cc_inflight &&
          eng()->uctx[a].cwnd < cap * QRNIC_CWND_ONE,
          "timeout %u, peers %s: 4 probe times a QP on, the attackers' "
          "packets count no more (%u), their window shrank to %u",
          timeout, how, eng()->uctx[a].cc_inflight,
          eng()->uctx[a].cwnd / QRNIC_CWND_ONE);
    CHECK(victim_run(seed + 2, &later) && eng()->uctx[0].cwnd >= cwnd,
          "timeout %u, peers %s: the victim again (%llu us), its window "
          "untouched (%u, was %u)", timeout, how,
          (unsigned long long)(later / 1000), eng()->uctx[0].cwnd, cwnd);
    harness_fini();
}

/*
 * WRITEs of VICTIM_LEN completed in span, VICTIM_DEPTH outstanding; with
 * a, a new attacker QP towards a peer in RESET every probe time, each
 * posting a 1 KiB WRITE (its QPs keep their packets counted for their
 * first probe times, and may be judged starved: the holds must stay in
 * the attacker's context).
 */
#define VICTIM_DEPTH 16

static uint32_t victim_stream(struct attacker *a, uint64_t span)
{
    uint64_t start = now_ns, next_attack = now_ns;
    uint32_t posted = 0, done = 0, k = 0;
    struct hwc wc;

    for (;;) {
        uint64_t limit = a && next_attack < start + span ? next_attack :
                         start + span;

        while (posted - done < VICTIM_DEPTH) {
            uint32_t off = (posted % VICTIM_WRS) * VICTIM_LEN;
            struct hwr wr = mkwr(posted, QRNIC_WR_RDMA_WRITE,
                                 p.mr[0]->iova + off, VICTIM_LEN,
                                 p.mr[0]->key);

            wr.remote_addr = p.mr[1]->iova + off;
            wr.rkey = p.mr[1]->key;
            qp_post_send(p.qp[0], &wr, true);
            posted++;
        }
        if (harness_wait_cqe(p.cq[0], &wc, limit)) {
            if (wc.status != QRNIC_WC_SUCCESS) {
                return 0;
            }
            done++;
            continue;
        }
        if (now_ns < limit) {
            now_ns = limit;     /* nothing left to happen before it */
        }
        if (now_ns >= start + span) {
            return done;
        }
        if (a && now_ns >= next_attack) {
            attacker_qp(a, k++, 1024, 14, false);
            next_attack += QRNIC_PROBE_NS;
        }
    }
}

static void staggered(void)
{
    struct attacker a;
    uint32_t alone, with;

    CHECK(pair_setup(&p, 55, 3, 14, 7, 7, 1, VICTIM_WRS * VICTIM_LEN + 4096),
          "victim pair set up");
    victim_stream(NULL, 10 * MS);     /* its window grows first */
    alone = victim_stream(NULL, 40 * MS);
    attacker_init(&a);
    with = victim_stream(&a, 40 * MS);
    CHECK(alone && with * 10 >= alone * 9,
          "a new attacker QP towards a peer in RESET every probe time for "
          "40 ms: the victim's 16 KiB WRITEs %u, alone %u (at least 90%%)",
          with, alone);
    harness_fini();
}

/* A loss on the attacker's QPs shrinks its context's window only. */
static void loss_is_the_contexts_own(void)
{
    struct qrnic_qpc *aq = NULL;
    uint32_t a, i, victim, attacker;

    CHECK(pair_setup(&p, 77, 3, 14, 7, 7, 1, VICTIM_WRS * VICTIM_LEN + 4096),
          "victim pair set up");
    a = attack(14, false);
    for (i = 0; i < eng()->obj[QRNIC_OBJ_QP].size && !aq; i++) {
        struct qrnic_qpc *q = qrnic_table_get(&eng()->obj[QRNIC_OBJ_QP], i);

        aq = q && q->uctx == a ? q : NULL;
    }
    victim = eng()->uctx[0].cwnd;
    attacker = eng()->uctx[a].cwnd;
    if (aq) {
        qrnic_cc_loss(eng(), aq, false);
    }
    CHECK(aq && eng()->uctx[a].cwnd < attacker &&
          eng()->uctx[0].cwnd == victim,
          "a loss on an attacker QP: its context's window %u -> %u, the "
          "victim's stays %u", attacker / QRNIC_CWND_ONE,
          eng()->uctx[a].cwnd / QRNIC_CWND_ONE, victim / QRNIC_CWND_ONE);
    harness_fini();
}

int main(void)
{
    static const uint8_t timeouts[] = { 0, 1, 18, 31 };
    uint32_t i;

    for (i = 0; i < sizeof(timeouts); i++) {
        scenario(timeouts[i], false, 100 + i);
        scenario(timeouts[i], true, 200 + i);
    }
    staggered();
    loss_is_the_contexts_own();
    return tap_failures ? 1 : 0;
}
