/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the responder answers to packets out of order (qrnic_resp.c), as
 * rdma_rxe as requester needs it:
 * - resent SEND/WRITE packets it already executed: the ACKs of two
 *   4-packet WRITEs are lost and the requester resends both; only the
 *   packets asking for an ACK (each message's last) draw one, each
 *   carrying its own PSN, never the last PSN executed.  An ACK ahead of
 *   the resending made rxe stop for good (ibv_rc_pingpong in
 *   vm-loss-interop-6.12).  Nothing is executed twice, and the ACKs
 *   complete both WRITEs.
 * - a gap: one sequence NAK, nothing for the packets after it, and
 *   before the NAK an ACK of the last PSN in order when no ACK went out
 *   since the previous NAK: rxe ignores a NAK that no ACK preceded since
 *   its last resend began.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_wire.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define MSG 4096u               /* 4 packets at MTU 1024 */
#define NPKT 8u
#define BTH (14 + 20 + 8)       /* IPv4-mapped GIDs: Ethernet, IPv4, UDP */

static struct pair p;
static struct frame sent[NPKT];

static uint64_t dups(void)
{
    return nodes[1].d.e.stats.v[QRNIC_STAT_DUP_REQS];
}

static uint32_t frame_psn(const uint8_t *f)
{
    return qrnic_ld32_be(f + BTH + 8) & 0xffffff;
}

static void post_write(uint64_t wr_id, uint32_t off, uint32_t seed)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova + off,
                         MSG, p.mr[0]->key);

    mr_fill(p.mr[0], p.mr[0]->iova + off, MSG, seed);
    wr.remote_addr = p.mr[1]->iova + off;
    wr.rkey = p.mr[1]->key;
    qp_post_send(p.qp[0], &wr, true);
}

/* Node 1 takes frame i again; the frames it answers, the first one's PSN. */
static uint32_t resend(uint32_t i, uint32_t *psn, uint8_t *op)
{
    uint32_t n = 0;

    qf_receive(&nodes[1].d, sent[i].data, sent[i].len);
    qf_run_bh(&nodes[1].d);
    while (wire.count) {
        const struct frame *fr = &wire.q[wire.head];

        if (fr->to == 0 && !n++) {
            *psn = frame_psn(fr->data);
            *op = fr->data[BTH];
        }
        wire.head = (wire.head + 1) % MAX_FRAMES;
        wire.count--;
    }
    return n;
}

static void test_resent(void)
{
    uint32_t i, n, psn = 0, quiet = 0;
    uint8_t op = 0;
    bool right = true;
    struct frame ack[2];
    struct hwc wc;
    uint64_t before;

    if (!pair_setup(&p, 5, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }
    post_write(1, 0, 11);
    post_write(2, MSG, 12);
    qf_run_bh(&nodes[0].d);
    CHECK_EQ(wire.count, NPKT, "two 4-packet WRITEs: 8 frames on the wire");
    for (i = 0; i < NPKT && i < wire.count; i++) {
        sent[i] = wire.q[(wire.head + i) % MAX_FRAMES];
        right &= sent[i].to == 1 &&
                 !!(sent[i].data[BTH + 8] & 0x80) == (i % 4 == 3);
    }
    CHECK(right, "to node 1, AckReq on each message's last packet only");

    /* First delivery: executed, ACKed; the ACKs are lost. */
    for (i = 0; i < NPKT; i++) {
        harness_deliver_one();
        qf_run_bh(&nodes[1].d);
    }
    for (i = 0; wire.count; i++) {
        if (i < 2) {
            ack[i] = wire.q[wire.head];
        }
        wire.head = (wire.head + 1) % MAX_FRAMES;
        wire.count--;
    }
    CHECK(i == 2 && frame_psn(ack[0].data) == frame_psn(sent[3].data) &&
          frame_psn(ack[1].data) == frame_psn(sent[7].data),
          "first delivery: one ACK per message, of its last PSN (%u ACKs)",
          i);
    CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, MSG, 11) &&
          !mr_verify(p.mr[1], p.mr[1]->iova + MSG, MSG, 12),
          "both WRITEs landed");

    /* The requester resends everything; nothing may execute again. */
    mr_fill(p.mr[1], p.mr[1]->iova, 2 * MSG, 99);
    before = dups();
    for (i = 0; i < NPKT; i++) {
        n = resend(i, &psn, &op);
        if (i % 4 != 3) {
            quiet += n == 0;
            continue;
        }
        CHECK(n == 1 && op == QRNIC_OP_ACK &&
              psn == frame_psn(sent[i].data),
              "resent last packet of WRITE %u: one ACK of its own PSN "
              "0x%06x (got %u frame(s), op 0x%02x, PSN 0x%06x; the last "
              "executed is 0x%06x)", i / 4 + 1, frame_psn(sent[i].data),
              n, op, psn, frame_psn(sent[NPKT - 1].data));
    }
    CHECK_EQ(quiet, NPKT - 2, "the 6 resent packets without AckReq draw "
             "no answer");
    CHECK_EQ(dups() - before, NPKT, "dup_reqs counts all 8");
    CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, 2 * MSG, 99),
          "no resent packet was executed again");

    /* One of the ACKs reaches the requester: both WRITEs complete. */
    qf_receive(&nodes[0].d, ack[1].data, ack[1].len);
    harness_run(now_ns + SEC);
    right = true;
    for (i = 1; i <= 2; i++) {
        right &= cq_poll(p.cq[0], &wc) && wc.wr_id == i &&
                 wc.status == QRNIC_WC_SUCCESS;
    }
    CHECK(right && !cq_poll(p.cq[0], &wc),
          "the second WRITE's ACK completes both, in order, once");
}

/* Node 1 takes the frames on the wire, all but the lost-th. */
static void deliver_but(uint32_t lost)
{
    uint32_t i, n = wire.count;

    for (i = 0; i < n; i++) {
        if (i == lost) {
            wire.head = (wire.head + 1) % MAX_FRAMES;
            wire.count--;
            continue;
        }
        harness_deliver_one();
        qf_run_bh(&nodes[1].d);
    }
}

/* The answers on the wire: "A<psn> " for an ACK, "N<psn> " for a NAK. */
static const char *answers(uint32_t base)
{
    static char buf[64];
    size_t len = 0;
    uint32_t i;

    buf[0] = 0;
    for (i = 0; i < wire.count && len + 8 < sizeof(buf); i++) {
        const struct frame *fr = &wire.q[(wire.head + i) % MAX_FRAMES];
        uint8_t syn = fr->data[BTH + 12];

        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%c%u ",
                                fr->to != 0 || fr->data[BTH] != QRNIC_OP_ACK ?
                                '?' : syn == (QRNIC_AETH_NAK |
                                              QRNIC_NAK_PSN_SEQ) ? 'N' :
                                (syn & QRNIC_AETH_KIND_MASK) ==
                                QRNIC_AETH_ACK ? 'A' : '?',
                                (frame_psn(fr->data) - base) & 0xffffff);
    }
    return buf;
}

static bool completes(uint64_t wr_id, uint32_t off, uint32_t seed)
{
    struct hwc wc;

    return harness_wait_cqe(p.cq[0], &wc, now_ns + SEC) &&
           wc.wr_id == wr_id && wc.status == QRNIC_WC_SUCCESS &&
           !mr_verify(p.mr[1], p.mr[1]->iova + off, MSG, seed);
}

static void test_gap(void)
{
    const char *got;
    uint32_t base;

    if (!pair_setup(&p, 6, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }
    post_write(1, 0, 21);
    qf_run_bh(&nodes[0].d);
    base = frame_psn(wire.q[wire.head].data);
    deliver_but(1);
    got = answers(base);
    CHECK(!strcmp(got, "A0 N1 "), "packet 1 of 4 lost, no ACK sent yet: "
          "an ACK of packet 0, then one NAK of packet 1, nothing for "
          "packet 3 (answers: %s)", got);
    CHECK_EQ(nodes[1].d.e.stats.v[QRNIC_STAT_SEQ_NAKS_TX], 1,
             "seq_naks_tx 1");
    CHECK(completes(1, 0, 21), "the requester resends from the gap: the "
          "WRITE completes, data right");

    post_write(2, MSG, 22);
    qf_run_bh(&nodes[0].d);
    base = frame_psn(wire.q[wire.head].data);
    deliver_but(1);
    got = answers(base);
    CHECK(!strcmp(got, "N1 "), "the next WRITE loses packet 1, with an "
          "ACK sent since the last NAK: the NAK alone (answers: %s)", got);
    harness_deliver_one();
    qf_run_bh(&nodes[0].d);
    deliver_but(1);
    got = answers(base);
    CHECK(!strcmp(got, "A1 N2 "), "its resend loses packet 2, with no ACK "
          "since the last NAK: an ACK of packet 1 before the NAK (answers: "
          "%s)", got);
    CHECK(completes(2, MSG, 22), "the WRITE completes, data right");
}

int main(void)
{
    test_resent();
    test_gap();
    harness_fini();
    return TAP_DONE();
}
