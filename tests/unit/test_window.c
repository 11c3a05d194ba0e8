/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The caps of the congestion window (struct qrnic_engine.win_bytes and
 * win_pkts, window-kib and x-window-pkts in QEMU): packets in flight
 * never pass min(win_bytes / cost per packet, win_pkts); at path MTU
 * 4096 a packet costs 8 KiB, so the default 256 KiB allow 32 and the
 * 1 MiB a lossless link gets allow 128; at path MTU 1024 (2 KiB a
 * packet) those 1 MiB leave the packet cap, 256, to bind; caps changed
 * in the middle of traffic take effect at once, and every byte arrives.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull
#define MSG (1u << 20)
#define MR_BYTES (MSG + 4096)

static struct pair p;

/* WRITE MSG bytes n times; the most PSNs the device had in flight. */
static uint32_t run(int n, uint32_t first_id, bool *ok)
{
    uint32_t most = 0;
    int i;

    *ok = true;
    for (i = 0; i < n; i++) {
        struct hwr wr = mkwr(first_id + i, QRNIC_WR_RDMA_WRITE, p.mr[0]->iova,
                             MSG, p.mr[0]->key);
        struct hwc wc;
        uint64_t end = now_ns + 2000 * MS;
        bool got;

        wr.remote_addr = p.mr[1]->iova;
        wr.rkey = p.mr[1]->key;
        qp_post_send(p.qp[0], &wr, true);
        for (;;) {
            if ((got = cq_poll(p.cq[0], &wc))) {
                break;
            }
            if (nodes[0].d.e.cc.inflight > most) {
                most = nodes[0].d.e.cc.inflight;
            }
            /* Idle (true) or out of time: the completion is there or not. */
            if (harness_run_steps(end, 1) || now_ns >= end) {
                got = cq_poll(p.cq[0], &wc);
                break;
            }
        }
        if (!got || wc.wr_id != first_id + (uint32_t)i ||
            wc.status != QRNIC_WC_SUCCESS) {
            *ok = false;
            break;
        }
    }
    return most;
}

int main(void)
{
    uint32_t most;
    bool ok;

    CHECK(pair_setup(&p, 31, 5, 14, 7, 7, 1, MR_BYTES),
          "pair set up, path MTU 4096");
    CHECK(nodes[0].d.e.win_bytes == 256 * 1024 && nodes[0].d.e.win_pkts == 256,
          "default caps: 256 KiB, 256 packets");
    mr_fill(p.mr[0], p.mr[0]->iova, MSG, 5);
    most = run(12, 100, &ok);
    CHECK(ok && most <= 32,
          "default caps at MTU 4096: at most 32 packets in flight (%u)", most);
    CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, MSG, 5), "the data arrived");

    nodes[0].d.e.win_bytes = (1024 * 1024);
    most = run(40, 200, &ok);
    CHECK(ok && most > 32 && most <= 128,
          "1 MiB cap at MTU 4096: more than 32 packets in flight, at most 128 (%u)",
          most);

    nodes[0].d.e.win_pkts = 48;
    most = run(4, 300, &ok);
    CHECK(ok && most <= 48,
          "packet cap 48 set in the middle: at most 48 in flight (%u)", most);

    nodes[0].d.e.win_bytes = 64 * 1024;
    most = run(4, 400, &ok);
    CHECK(ok && most <= 8,
          "64 KiB cap: at most 8 packets of 8 KiB in flight (%u)", most);
    CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, MSG, 5),
          "every byte arrived after all changes");
    harness_fini();

    CHECK(pair_setup(&p, 32, 3, 14, 7, 7, 1, MR_BYTES),
          "pair set up, path MTU 1024");
    nodes[0].d.e.win_bytes = (1024 * 1024);
    mr_fill(p.mr[0], p.mr[0]->iova, MSG, 6);
    most = run(48, 500, &ok);
    CHECK(ok && most > 128 && most <= 256,
          "1 MiB cap at MTU 1024: more than 128 packets in flight, at most 256 (%u)",
          most);
    CHECK(!mr_verify(p.mr[1], p.mr[1]->iova, MSG, 6), "the data arrived");
    harness_fini();
    return tap_failures ? 1 : 0;
}
