/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The responder's answer to resent SEND/WRITE packets it already executed
 * (qrnic_resp.c, duplicate()).  The ACKs of two 4-packet WRITEs are lost
 * and the requester resends both: only the packets asking for an ACK
 * (each message's last) draw one, each carrying its own PSN, never the
 * last PSN executed.  An ACK ahead of the resending made rdma_rxe, as
 * requester, stop for good (ibv_rc_pingpong in vm-loss-interop-6.12).
 * Nothing is executed twice, and the ACKs complete both WRITEs.
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

int main(void)
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
    harness_fini();
    return TAP_DONE();
}
