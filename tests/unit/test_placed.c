/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The write_placed observer (qrnic_resp.c, do_write()): told once per
 * inbound RDMA WRITE without immediate, when its last packet is placed,
 * and traced (qrnic_write_placed), as a receive completion is: a guest
 * waiting for such a WRITE watches memory.
 * Not told of a first or middle packet, of a WRITE with immediate (a CQE
 * tells of that one), of a resent packet already executed, or of a WRITE
 * the responder refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define MSG 4096u               /* 4 packets at MTU 1024 */

static struct pair p;

static uint64_t placed(void)
{
    return nodes[1].d.writes_placed;
}

/* A WRITE from node 0's MR at off to node 1's, len bytes of seed. */
static void post_write(uint64_t wr_id, uint8_t opcode, uint32_t off,
                       uint32_t len, uint32_t rkey, uint32_t seed)
{
    mr_fill(p.mr[0], p.mr[0]->iova + off, len, seed);
    pair_post_rdma(&p, wr_id, opcode, off, len, rkey, 0x1234);
}

static bool completes(struct hcq *cq, uint64_t wr_id, uint8_t status)
{
    return harness_completes(cq, wr_id, status, now_ns + SEC);
}

int main(void)
{
    struct frame last;
    uint32_t i, n;
    bool quiet = true;
    struct hwc wc;
    uint64_t before;

    if (!pair_setup(&p, 7, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }

    /* A 4-packet WRITE, delivered one packet at a time. */
    post_write(1, QRNIC_WR_RDMA_WRITE, 0, MSG, p.mr[1]->key, 21);
    n = wire.count;
    CHECK_EQ(n, 4, "a 4 KiB WRITE at MTU 1024: 4 frames on the wire");
    for (i = 0; i < n; i++) {
        if (i == n - 1) {
            last = wire.q[wire.head];
        }
        harness_deliver_one();
        qf_run_bh(&nodes[1].d);
        if (i < n - 1) {
            quiet &= placed() == 0;
        }
    }
    CHECK(quiet, "no placement told before the last packet");
    CHECK(placed() == 1 && nodes[1].d.placed_qpn == p.qp[1]->qpn,
          "the last packet: told once, of the responder's QP 0x%x "
          "(%llu times, QP 0x%x)", p.qp[1]->qpn,
          (unsigned long long)placed(), nodes[1].d.placed_qpn);
    CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, MSG, 21),
          "the WRITE's bytes are in place when told");
    CHECK(completes(p.cq[0], 1, QRNIC_WC_SUCCESS),
          "the requester's WRITE completes");

    /* The last packet again: a duplicate, not executed, not told. */
    before = nodes[1].d.e.stats.v[QRNIC_STAT_DUP_REQS];
    qf_receive(&nodes[1].d, last.data, last.len);
    harness_run(now_ns + SEC);
    CHECK(nodes[1].d.e.stats.v[QRNIC_STAT_DUP_REQS] == before + 1 &&
          placed() == 1, "a resent last packet: a duplicate, not told");

    /* With immediate: a receive completion tells of it instead. */
    qp_post_recv(p.qp[1], 77, NULL, 0, true);
    post_write(2, QRNIC_WR_RDMA_WRITE_IMM, MSG, 100, p.mr[1]->key, 22);
    CHECK(completes(p.cq[0], 2, QRNIC_WC_SUCCESS) &&
          cq_poll(p.cq[1], &wc) && wc.wr_id == 77 &&
          wc.opcode == QRNIC_CQE_OP_RECV_RDMA_IMM && placed() == 1,
          "a WRITE with immediate: a receive CQE, no placement told");

    /* A zero-length WRITE is a whole message too. */
    post_write(3, QRNIC_WR_RDMA_WRITE, 0, 0, p.mr[1]->key, 23);
    CHECK(completes(p.cq[0], 3, QRNIC_WC_SUCCESS) && placed() == 2,
          "a zero-length WRITE: told once (%llu)",
          (unsigned long long)placed());

    /* A WRITE to a key node 1 does not have: NAKed, not told. */
    post_write(4, QRNIC_WR_RDMA_WRITE, 2 * MSG, MSG, p.mr[1]->key ^ 0x100,
               24);
    CHECK(completes(p.cq[0], 4, QRNIC_WC_REM_ACCESS_ERR) && placed() == 2,
          "a WRITE to a bad rkey: an access error, no placement told "
          "(%llu)", (unsigned long long)placed());
    harness_fini();
    return TAP_DONE();
}
