/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Frames that reach a busy device: a peer on a hub (QEMU's hub netdev, two
 * NICs of one QEMU) answers from inside the device's own transmit, and
 * those frames wait in its backlog (QRNIC_ENG_BACKLOG of them).  When the
 * backlog is full the device takes no more (can_receive false, receive
 * returns 0), so QEMU's queue holds them until the device asks for them
 * again: the ACKs of 8 QPs' WRITEs, sent back while the device is still
 * sending, lose nothing and nothing is resent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define SEC 1000000000ull
#define NQP 40
#define MSG 1024u               /* one packet at MTU 1024 */
#define NMSG 24                 /* WRITEs per QP, each ACKed, then a READ */

static uint64_t stat(int node, int k)
{
    return nodes[node].d.e.stats.v[k];
}

int main(void)
{
    struct hqp *tx[NQP], *rx[NQP];
    struct hcq *cq0, *cq1;
    struct hmr *src, *dst;
    uint64_t span = (uint64_t)NQP * (NMSG + 1) * MSG;
    int i, k, done, bad, wrong = 0;

    harness_init(41);
    harness_hub(true);
    cq0 = node_create_cq(&nodes[0], 12);
    cq1 = node_create_cq(&nodes[1], 12);
    dst = node_mr(&nodes[0], span, QRNIC_ACCESS_LOCAL_WRITE);
    src = node_mr(&nodes[1], span, QRNIC_ACCESS_LOCAL_WRITE |
                  QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ);
    if (!cq0 || !cq1 || dst->status != QRNIC_ST_OK ||
        src->status != QRNIC_ST_OK) {
        abort();
    }
    for (i = 0; i < NQP; i++) {
        tx[i] = node_create_qp(&nodes[0], cq0, cq0, 6, 9, 2, 6);
        rx[i] = node_create_qp(&nodes[1], cq1, cq1, 6, 9, 2, 6);
        if (!tx[i] || !rx[i] ||
            !qp_connect(tx[i], rx[i], 3, 14, 7, 7, 1) ||
            !qp_connect(rx[i], tx[i], 3, 14, 7, 7, 1)) {
            abort();
        }
    }
    /* QP i WRITEs its slices to node 1's region, then READs one back. */
    for (i = 0; i < NQP; i++) {
        for (k = 0; k <= NMSG; k++) {
            uint64_t off = ((uint64_t)i * (NMSG + 1) + k) * MSG;
            bool write = k < NMSG;
            struct hwr wr = mkwr((uint64_t)i << 8 | k,
                                 write ? QRNIC_WR_RDMA_WRITE :
                                         QRNIC_WR_RDMA_READ,
                                 dst->iova + off, MSG, dst->key);

            if (write) {
                mr_fill(dst, dst->iova + off, MSG, 300 + i * 32 + k);
            } else {
                mr_fill(src, src->iova + off, MSG, 400 + i);
            }
            wr.remote_addr = src->iova + off;
            wr.rkey = src->key;
            qp_post_send(tx[i], &wr, false);
        }
    }
    done = harness_ring_and_drain(tx, NQP, cq0, now_ns + 30 * SEC, &bad);
    for (i = 0; i < NQP; i++) {
        for (k = 0; k <= NMSG; k++) {
            uint64_t off = ((uint64_t)i * (NMSG + 1) + k) * MSG;

            wrong += k < NMSG ?
                     mr_verify(src, src->iova + off, MSG,
                               300 + i * 32 + k) != 0 :
                     mr_verify(dst, dst->iova + off, MSG, 400 + i) != 0;
        }
    }
    CHECK(done == NQP * (NMSG + 1) && !bad && !wrong,
          "%d QPs, each %d %u-byte WRITEs and a READ across a hub whose "
          "peer answers inside the device's send: all complete, data "
          "right (%d completions, %d failed, %d messages wrong)", NQP, NMSG,
          MSG, done, bad, wrong);
    CHECK(stat(0, QRNIC_STAT_BACKLOG_DROP) == 0 &&
          stat(1, QRNIC_STAT_BACKLOG_DROP) == 0,
          "nothing dropped on receive (backlog_drop %llu, %llu)",
          (unsigned long long)stat(0, QRNIC_STAT_BACKLOG_DROP),
          (unsigned long long)stat(1, QRNIC_STAT_BACKLOG_DROP));
    CHECK(stat(0, QRNIC_STAT_RETRANS_PKTS) == 0 &&
          stat(1, QRNIC_STAT_RETRANS_PKTS) == 0,
          "nothing resent (retrans %llu, %llu)",
          (unsigned long long)stat(0, QRNIC_STAT_RETRANS_PKTS),
          (unsigned long long)stat(1, QRNIC_STAT_RETRANS_PKTS));
    CHECK(nodes[0].d.queued_total > 0,
          "the busy device refused frames once its backlog was full (%llu "
          "held by the platform)",
          (unsigned long long)nodes[0].d.queued_total);
    CHECK(nodes[0].d.nqueued == 0 && nodes[1].d.nqueued == 0 &&
          nodes[0].d.queue_drops == 0 && nodes[1].d.queue_drops == 0,
          "the platform's queue held what the device refused and lost "
          "none of it (lost %llu, %llu)",
          (unsigned long long)nodes[0].d.queue_drops,
          (unsigned long long)nodes[1].d.queue_drops);
    harness_fini();
    return TAP_DONE();
}
