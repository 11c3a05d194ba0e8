/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Queue memory reaches a new owner cleared: whatever an earlier queue
 * (another context's, the kernel's) left in a slice, CREATE_QP,
 * CREATE_SRQ and an SRQ resize zero the pages they claim before anyone
 * can map them, and touch nothing else; a resize carries over only the
 * WQEs not yet taken.
 */
#include <string.h>
#include "rc_harness.h"
#include "qrnic_rdma.h"
#include "tap.h"

int tap_failures;

#define DIRT 0xa5

static struct node *n = &nodes[0];

/* Bytes of [off, off + len) of queue memory that are not byte b. */
static uint32_t count_not(uint32_t off, uint32_t len, uint8_t b)
{
    uint32_t i, c = 0;

    for (i = 0; i < len; i++) {
        c += n->d.qmem[off + i] != b;
    }
    return c;
}

static uint32_t bytes_of(uint8_t log_depth, uint8_t log_stride)
{
    return qrnic_qmem_pages(log_depth, log_stride) * QRNIC_QMEM_PAGE_SIZE;
}

static void test_qp(struct hcq *cq, const char *whose)
{
    uint32_t end = n->qmem_brk, sq, rq;
    struct hqp *qp;

    memset(n->d.qmem + end, DIRT, QMEM_SIZE - end);
    qp = node_create_qp(n, cq, cq, 5, 7, 4, 6);
    sq = bytes_of(5, 7);
    rq = bytes_of(4, 6);
    CHECK(qp && count_not(qp->sq_off, sq, 0) == 0 &&
          count_not(qp->rq_off, rq, 0) == 0,
          "%s QP: its SQ (%u bytes) and RQ (%u bytes) start cleared", whose,
          sq, rq);
    CHECK_EQ(count_not(n->qmem_brk, QMEM_SIZE - n->qmem_brk, DIRT), 0,
             "%s QP: nothing past its slice touched", whose);
}

static void test_srq(const char *whose)
{
    uint32_t stride = 1u << 6, off, i, end;
    struct qrnic_srqc *s;
    struct hsrq *srq;
    struct hsge sge = { 0x1000, 64, 0 };
    struct qrnic_cmd c;
    uint8_t st;

    end = n->qmem_brk;
    memset(n->d.qmem + end, DIRT, QMEM_SIZE - end);
    srq = node_create_srq(n, 3, 6, 0, &st);
    CHECK(srq && count_not(srq->off, bytes_of(3, 6), 0) == 0,
          "%s SRQ: its ring starts cleared", whose);
    for (i = 0; i < 3; i++) {
        srq_post_recv(srq, 0x900 + i, &sge, 1, i == 2);
    }
    s = srq ? qrnic_srq_get(&n->d.e, srq->srqn) : NULL;

    /* The new ring: past everything the harness handed out, dirty. */
    off = (n->qmem_brk + 3 * QRNIC_QMEM_PAGE_SIZE) & ~4095u;
    memset(n->d.qmem + off, DIRT, bytes_of(5, 6));
    c = harness_cmd(QRNIC_CMD_MODIFY_SRQ);
    c.modify_srq.srqn = srq ? srq->srqn : 0;
    c.modify_srq.mask = QRNIC_SRQ_MOD_RESIZE;
    c.modify_srq.offset = off;
    c.modify_srq.log_depth = 5;
    CHECK(node_cmd(n, &c, NULL) == QRNIC_ST_OK && s && s->off == off,
          "%s SRQ resized into a dirty slice", whose);
    CHECK(count_not(off, 3 * stride, DIRT) == 3 * stride &&
          count_not(off + 3 * stride, bytes_of(5, 6) - 3 * stride, 0) == 0,
          "%s SRQ: the new ring holds the 3 WQEs not taken and zeroes", whose);
    for (i = 0; i < 3; i++) {
        uint64_t wr_id = 0;

        memcpy(&wr_id, n->d.qmem + off + i * stride +
               offsetof(struct qrnic_rq_wqe, wr_id), 8);
        CHECK_EQ(wr_id, 0x900 + i, "%s SRQ: WQE %u carried over", whose, i);
    }
}

int main(void)
{
    struct hcq *cq;

    harness_init(11);
    cq = node_create_cq(n, 6);
    test_qp(cq, "a kernel");
    test_srq("a kernel");
    CHECK(node_use_uctx(n) == QRNIC_ST_OK, "a user context");
    cq = node_create_cq(n, 6);
    test_qp(cq, "a user context's");
    test_srq("a user context's");
    harness_fini();
    return tap_failures ? 1 : 0;
}
