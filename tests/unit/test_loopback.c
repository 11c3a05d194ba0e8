/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RC between QPs of one device: its frames to itself wait in its backlog
 * (qrnic_sched.c), which holds QRNIC_ENG_BACKLOG of them.  A requester
 * or a responder with READ responses to send to itself waits while half
 * of it is taken, so nothing is dropped and nothing resent on this
 * lossless path, however many QPs send at once; a frame the backlog does
 * drop is counted in STAT_BACKLOG_DROP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define NQP 8                   /* senders, each with its own receiver */
#define MSG (64u * 1024)        /* 64 packets at MTU 1024 */
#define NMSG 4                  /* WRITEs per sender, then one READ */

static uint64_t stat(int k)
{
    return nodes[0].d.e.stats.v[k];
}

int main(void)
{
    struct node *n = &nodes[0];
    struct hqp *tx[NQP], *rx[NQP];
    struct hcq *cq;
    struct hmr *mr;
    uint64_t half = (uint64_t)NQP * (NMSG + 1) * MSG;
    int i, k, done, bad, wrong = 0;

    harness_init(31);
    cq = node_create_cq(n, 12);
    mr = node_mr(n, 2 * half, QRNIC_ACCESS_LOCAL_WRITE |
                 QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ);
    if (!cq || !mr || mr->status != QRNIC_ST_OK) {
        abort();
    }
    for (i = 0; i < NQP; i++) {
        tx[i] = node_create_qp(n, cq, cq, 6, 9, 2, 6);
        rx[i] = node_create_qp(n, cq, cq, 6, 9, 2, 6);
        if (!tx[i] || !rx[i] ||
            !qp_connect(tx[i], rx[i], 3, 14, 7, 7, 1) ||
            !qp_connect(rx[i], tx[i], 3, 14, 7, 7, 1)) {
            abort();
        }
    }
    /*
     * Sender i WRITEs [0, half) slices to the same offsets + half, and
     * READs one slice back from there; every doorbell before any work.
     */
    for (i = 0; i < NQP; i++) {
        for (k = 0; k <= NMSG; k++) {
            uint64_t here = mr->iova + ((uint64_t)i * (NMSG + 1) + k) * MSG;
            bool write = k < NMSG;
            struct hwr wr = mkwr((uint64_t)i << 8 | k,
                                 write ? QRNIC_WR_RDMA_WRITE :
                                         QRNIC_WR_RDMA_READ,
                                 here, MSG, mr->key);

            if (write) {
                mr_fill(mr, here, MSG, 100 + i * 8 + k);
            } else {
                mr_fill(mr, here + half, MSG, 200 + i);
            }
            wr.remote_addr = here + half;
            wr.rkey = mr->key;
            qp_post_send(tx[i], &wr, false);
        }
    }
    done = harness_ring_and_drain(tx, NQP, cq, now_ns + 30 * SEC, &bad);
    for (i = 0; i < NQP; i++) {
        for (k = 0; k <= NMSG; k++) {
            uint64_t off = ((uint64_t)i * (NMSG + 1) + k) * MSG;

            wrong += k < NMSG ?
                     mr_verify(mr, mr->iova + off + half, MSG,
                               100 + i * 8 + k) != 0 :
                     mr_verify(mr, mr->iova + off, MSG, 200 + i) != 0;
        }
    }
    CHECK(done == NQP * (NMSG + 1) && !bad && !wrong,
          "%d QPs of one device, each with %d 64 KiB WRITEs and a 64 KiB "
          "READ to a QP of the same device: all complete, data right "
          "(%d completions, %d failed, %d messages wrong)", NQP, NMSG, done,
          bad, wrong);
    CHECK(stat(QRNIC_STAT_BACKLOG_DROP) == 0,
          "the loopback dropped nothing (backlog_drop %llu)",
          (unsigned long long)stat(QRNIC_STAT_BACKLOG_DROP));
    CHECK(stat(QRNIC_STAT_RETRANS_PKTS) == 0 &&
          stat(QRNIC_STAT_SEQ_NAKS_TX) == 0,
          "nothing resent, no sequence NAK (retrans %llu, seq NAKs %llu)",
          (unsigned long long)stat(QRNIC_STAT_RETRANS_PKTS),
          (unsigned long long)stat(QRNIC_STAT_SEQ_NAKS_TX));
    harness_fini();
    return TAP_DONE();
}
