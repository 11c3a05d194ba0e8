/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reply_sent observer (qrnic_resp.c, qrnic_resp_work()): told once per
 * reply to a READ, atomic or FLUSH request, after its last packet went
 * out, and traced (qrnic_reply_sent): the requester's next request
 * follows it.  Not told of a request the responder
 * refused, nor of a SEND or WRITE (their ACKs are no replies).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qrnic_wire.h"
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define MSG 4096u               /* 4 packets at MTU 1024 */
#define BTH (14 + 20 + 8)       /* IPv4-mapped GIDs: Ethernet, IPv4, UDP */

static struct pair p;

static uint64_t replies(void)
{
    return nodes[1].d.replies_sent;
}

/* Node 0 asks node 1: a READ into node 0's MR at off, len bytes. */
static void post_read(uint64_t wr_id, uint32_t off, uint32_t len,
                      uint32_t rkey)
{
    pair_post_rdma(&p, wr_id, QRNIC_WR_RDMA_READ, off, len, rkey, 0);
}

static bool completes(struct hcq *cq, uint64_t wr_id, uint8_t status)
{
    return harness_completes(cq, wr_id, status, now_ns + SEC);
}

/* Frames on the wire whose BTH opcode is op. */
static uint32_t frames_of(uint8_t op)
{
    uint32_t i, n = 0;

    for (i = 0; i < wire.count; i++) {
        n += wire.q[(wire.head + i) % MAX_FRAMES].data[BTH] == op;
    }
    return n;
}

int main(void)
{
    struct hwr wr;
    uint64_t v = 0x1122334455667788ull;

    if (!pair_setup(&p, 9, 3, 14, 7, 7, 1, 1u << 20)) {
        abort();
    }

    /* A 4-packet READ: the request, then the responder's work call. */
    mr_fill(p.mr[1], p.mr[1]->iova, MSG, 31);
    post_read(1, 0, MSG, p.mr[1]->key);
    CHECK(harness_deliver_one() && replies() == 0,
          "the READ request taken: nothing told before the reply is sent");
    qf_run_bh(&nodes[1].d);
    CHECK(frames_of(QRNIC_OP_READ_RESP_FIRST) == 1 &&
          frames_of(QRNIC_OP_READ_RESP_MIDDLE) == 2 &&
          frames_of(QRNIC_OP_READ_RESP_LAST) == 1,
          "the reply: 4 packets on the wire");
    CHECK(replies() == 1 && nodes[1].d.replied_qpn == p.qp[1]->qpn,
          "told once for the 4-packet reply, of the responder's QP 0x%x "
          "(%llu times, QP 0x%x)", p.qp[1]->qpn,
          (unsigned long long)replies(), nodes[1].d.replied_qpn);
    CHECK(completes(p.cq[0], 1, QRNIC_WC_SUCCESS) &&
          !mr_verify(p.mr[0], p.mr[0]->iova, MSG, 31),
          "the READ completes with the responder's bytes");

    /* A zero-length READ is answered by one empty packet. */
    post_read(2, 0, 0, p.mr[1]->key);
    CHECK(completes(p.cq[0], 2, QRNIC_WC_SUCCESS) && replies() == 2,
          "a zero-length READ: told once (%llu)",
          (unsigned long long)replies());

    /* An atomic. */
    memcpy(mr_at(p.mr[1], p.mr[1]->iova + 2 * MSG), &v, 8);
    wr = mkwr(3, QRNIC_WR_ATOMIC_FETCH_AND_ADD, p.mr[0]->iova + 2 * MSG, 8,
              p.mr[0]->key);
    wr.remote_addr = p.mr[1]->iova + 2 * MSG;
    wr.rkey = p.mr[1]->key;
    wr.compare_add = 1;
    qp_post_send(p.qp[0], &wr, true);
    CHECK(completes(p.cq[0], 3, QRNIC_WC_SUCCESS) && replies() == 3,
          "a fetch-and-add: told once (%llu)", (unsigned long long)replies());

    /* A SEND and a WRITE draw ACKs, which are no replies. */
    qp_post_recv(p.qp[1], 77, NULL, 0, true);
    wr = mkwr(4, QRNIC_WR_SEND, p.mr[0]->iova, 0, p.mr[0]->key);
    wr.num_sge = 0;
    qp_post_send(p.qp[0], &wr, true);
    pair_post_rdma(&p, 5, QRNIC_WR_RDMA_WRITE, 3 * MSG, 100, p.mr[1]->key, 0);
    CHECK(completes(p.cq[0], 4, QRNIC_WC_SUCCESS) &&
          completes(p.cq[0], 5, QRNIC_WC_SUCCESS) && replies() == 3,
          "a SEND and a WRITE: not told (%llu)",
          (unsigned long long)replies());

    /* A READ of a key node 1 does not have: NAKed, not told. */
    post_read(6, 0, MSG, p.mr[1]->key ^ 0x100);
    CHECK(completes(p.cq[0], 6, QRNIC_WC_REM_ACCESS_ERR) && replies() == 3,
          "a READ of a bad rkey: an access error, not told (%llu)",
          (unsigned long long)replies());
    harness_fini();
    return TAP_DONE();
}
