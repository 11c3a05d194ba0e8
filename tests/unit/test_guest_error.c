/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QRNIC_GUEST_ERR_LIST, the causes a refused guest action is reported
 * with (ops->guest_error: LOG_GUEST_ERROR and a trace event in QEMU): each
 * row is provoked here the way a guest would, and must be reported once,
 * with its values, and nothing else; an action the device takes reports
 * nothing.  A row this test does not provoke fails it, and so does a row
 * docs/hardware.md does not list.
 */
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

#define MS 1000000ull

static struct pair p;
static bool provoked[QRNIC_GUEST_ERR_MAX];

static uint64_t total(const struct qf_dev *d)
{
    uint64_t n = 0;
    int i;

    for (i = 0; i < QRNIC_GUEST_ERR_MAX; i++) {
        n += d->guest_errs[i];
    }
    return n;
}

/*
 * What happened on node 0's device since before was taken: exactly one
 * report, of cause with values a and b (b not looked at if ~0).
 */
static void expect(const char *action, uint64_t before,
                   enum qrnic_guest_err cause, uint64_t a, uint64_t b)
{
    const struct qf_dev *d = &nodes[0].d;

    provoked[cause] = true;
    CHECK(total(d) == before + 1 && d->last_guest_err == cause &&
          d->guest_err_a == a && (b == ~0ull || d->guest_err_b == b),
          "%s: reported once as %s (0x%llx, 0x%llx)", action,
          qrnic_guest_err_name(cause), (unsigned long long)d->guest_err_a,
          (unsigned long long)d->guest_err_b);
}

static void test_doorbells(void)
{
    struct qf_dev *d = &nodes[0].d;
    struct hqp *qp = p.qp[0];
    uint64_t n;

    n = total(d);
    qf_mmio_write(d, QF_BAR2_BASE + QRNIC_DB_SQ, qp->qpn, 4);
    expect("a 4-byte doorbell write", n, QRNIC_GUEST_ERR_DB_ACCESS,
           QRNIC_DB_SQ, 4);
    n = total(d);
    qf_doorbell(d, 5, QRNIC_DB_SQ, qp->qpn);
    expect("a doorbell on a page with no context", n,
           QRNIC_GUEST_ERR_DB_PAGE, 5, QRNIC_DB_SQ);
    n = total(d);
    qf_doorbell(d, 0, 0x38, 0);
    expect("a doorbell at an offset with none", n,
           QRNIC_GUEST_ERR_DB_OFFSET, 0, 0x38);
    n = total(d);
    qf_doorbell(d, 0, QRNIC_DB_SQ, 0x3ff);
    expect("an SQ doorbell of a QP that does not exist", n,
           QRNIC_GUEST_ERR_DB_QUEUE, 0, 0x3ff);
    n = total(d);
    qf_doorbell(d, 0, QRNIC_DB_CQ, p.cq[0]->cqn | (1ull << 30));
    expect("a CQ doorbell with reserved bits", n, QRNIC_GUEST_ERR_DB_VALUE,
           0, p.cq[0]->cqn | (1ull << 30));
    n = total(d);
    qf_doorbell(d, 0, QRNIC_DB_CQ, p.cq[0]->cqn |
                (uint64_t)(p.cq[0]->ci + 0x10000) << 32);
    expect("a CQ doorbell past the producer by 1 << 16", n,
           QRNIC_GUEST_ERR_DB_INDEX, 0, p.cq[0]->cqn |
           (uint64_t)(p.cq[0]->ci + 0x10000) << 32);
    n = total(d);
    qf_doorbell(d, 0, QRNIC_DB_SQ,
                qp->qpn | (uint64_t)(uint16_t)(qp->sq_pi + 1000) << 32);
    expect("an SQ doorbell past the ring", n, QRNIC_GUEST_ERR_DB_INDEX, 0,
           qp->qpn | (uint64_t)(uint16_t)(qp->sq_pi + 1000) << 32);
    n = total(d);
    qf_doorbell(d, 0, QRNIC_DB_CQ, p.cq[0]->cqn |
                (uint64_t)p.cq[0]->ci << 32);
    CHECK(total(d) == n, "a good CQ doorbell reports nothing");
    n = total(d);
    qf_reg_write(d, QRNIC_REG_AQ_DB, nodes[0].aq_pi + 1000);
    expect("an admin doorbell past the ring", n,
           QRNIC_GUEST_ERR_AQ_DOORBELL, QRNIC_REG_AQ_DB,
           nodes[0].aq_pi + 1000);
}

static void test_commands(void)
{
    struct qrnic_cmd c;
    uint64_t n;
    uint8_t st;

    n = total(&nodes[0].d);
    c = harness_cmd(0x7f);
    st = node_cmd(&nodes[0], &c, NULL);
    CHECK_EQ(st, QRNIC_ST_BAD_OPCODE, "opcode 0x7f: BAD_OPCODE");
    expect("an unknown admin opcode", n, QRNIC_GUEST_ERR_COMMAND, 0x7f,
           QRNIC_ST_BAD_OPCODE);
    n = total(&nodes[0].d);
    c = harness_cmd(QRNIC_CMD_DESTROY_CQ);
    c.destroy_cq.cqn = 1000;
    st = node_cmd(&nodes[0], &c, NULL);
    expect("DESTROY_CQ of a CQ that does not exist", n,
           QRNIC_GUEST_ERR_COMMAND, QRNIC_CMD_DESTROY_CQ, st);
    n = total(&nodes[0].d);
    c = harness_cmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = 0x10000000ull;   /* no guest memory */
    st = node_cmd(&nodes[0], &c, NULL);
    CHECK_EQ(st, QRNIC_ST_DMA_ERROR, "QUERY_DEVICE to no memory: DMA_ERROR");
    expect("QUERY_DEVICE to no memory", n, QRNIC_GUEST_ERR_DMA,
           0x10000000ull, ~0ull);
    n = total(&nodes[0].d);
    c = harness_cmd(QRNIC_CMD_QUERY_DEVICE);
    c.query_device.resp_addr = node_alloc(&nodes[0], 4096, 64);
    CHECK_EQ(node_cmd(&nodes[0], &c, NULL), QRNIC_ST_OK, "QUERY_DEVICE");
    CHECK(total(&nodes[0].d) == n, "a command that succeeds reports nothing");
}

/* A WQE with an opcode no QP takes: the error CQE and one report. */
static void test_wqe(void)
{
    struct hwr wr = mkwr(77, 0x1f, p.mr[0]->iova, 8, p.mr[0]->key);
    struct hwc wc;
    uint64_t n = total(&nodes[0].d);

    qp_post_send(p.qp[0], &wr, true);
    CHECK(harness_wait_cqe(p.cq[0], &wc, now_ns + 100 * MS) &&
          wc.status == QRNIC_WC_LOC_QP_OP_ERR &&
          wc.vendor_err == QRNIC_VERR_BAD_OPCODE, "opcode 0x1f completes "
          "LOC_QP_OP_ERR, BAD_OPCODE");
    expect("a send WQE with an unknown opcode", n, QRNIC_GUEST_ERR_WQE,
           p.qp[0]->qpn, QRNIC_VERR_BAD_OPCODE);
}

/* Enabled with a log depth of 0: INIT_ERR, FATAL, one report. */
static void test_init(void)
{
    struct qf_dev *d = &nodes[0].d;
    uint64_t n;

    qf_reg_write(d, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
    qf_reg_write(d, QRNIC_REG_AQ_LOG_DEPTH, 0);
    n = total(d);
    qf_reg_write(d, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    CHECK(qf_reg_read(d, QRNIC_REG_STATUS) & QRNIC_STATUS_FATAL,
          "enabled with an admin queue of depth 1 << 0: FATAL");
    expect("enable with a bad admin queue depth", n, QRNIC_GUEST_ERR_AQ_INIT,
           QRNIC_INIT_ERR_AQ_DEPTH, 0);
    n = total(d);
    qf_reg_write(d, QRNIC_REG_AQ_CQ_CI, 1);
    expect("an admin completion doorbell while not ready", n,
           QRNIC_GUEST_ERR_AQ_DOORBELL, QRNIC_REG_AQ_CQ_CI, 1);
}

/* Every row provoked above, and listed in docs/hardware.md. */
static void test_rows(void)
{
    char path[512], *doc = NULL, *sec;
    const char *src = __FILE__, *slash = strrchr(src, '/');
    size_t len = 0;
    FILE *f;
    int i;

    snprintf(path, sizeof(path), "%.*s/../../docs/hardware.md",
             slash ? (int)(slash - src) : 1, slash ? src : ".");
    f = fopen(path, "r");
    if (f) {
        doc = calloc(1, 1 << 20);
        len = fread(doc, 1, (1 << 20) - 1, f);
        fclose(f);
    }
    sec = doc ? strstr(doc, "### Refused guest actions") : NULL;
    CHECK(sec != NULL, "docs/hardware.md (%zu bytes) has the section "
          "\"Refused guest actions\"", len);
    for (i = QRNIC_GUEST_OK + 1; i < QRNIC_GUEST_ERR_MAX; i++) {
        const char *name = qrnic_guest_err_name(i);
        char cell[64];

        snprintf(cell, sizeof(cell), "| `%s` |", name);
        CHECK(provoked[i], "cause %s: provoked by this test", name);
        CHECK(sec && strstr(sec, cell), "cause %s: docs/hardware.md lists it",
              name);
        CHECK(qrnic_guest_err_what(i) && *qrnic_guest_err_what(i),
              "cause %s: says what it is", name);
    }
    CHECK(!qrnic_guest_err_name(QRNIC_GUEST_ERR_MAX),
          "no name past the list");
    free(doc);
}

int main(void)
{
    CHECK(pair_setup(&p, 31, 3, 10, 3, 0, 1, 64u << 10), "two nodes");
    test_doorbells();
    test_commands();
    test_wqe();
    test_init();
    test_rows();
    harness_fini();
    return TAP_DONE();
}
