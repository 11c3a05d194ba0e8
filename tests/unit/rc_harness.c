/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two qrnic engines back to back (see rc_harness.h).  Commands and WQEs are
 * built with the shared header's structs: the host is little endian like
 * the device interface.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rc_harness.h"
#include "qrnic_le.h"
#include "qrnic_roce.h"

struct node nodes[2];
struct wire wire;
uint64_t now_ns;

/* Handles the harness gave out (CQs, QPs, MRs); freed by harness_fini. */
static void **owned;
static size_t nowned, owned_cap;

static void *own(void *p)
{
    assert(p);
    if (nowned == owned_cap) {
        owned_cap = owned_cap ? 2 * owned_cap : 256;
        owned = realloc(owned, owned_cap * sizeof(*owned));
        assert(owned);
    }
    owned[nowned++] = p;
    return p;
}

#define AQ_LOG 6
#define CEQ_LOG 10
#define AEQ_LOG 6
#define FRAME_NS 1000           /* each delivered frame takes 1 us */

static uint64_t rng_next(void)
{
    /* xorshift64*: deterministic for a seed */
    wire.rng ^= wire.rng >> 12;
    wire.rng ^= wire.rng << 25;
    wire.rng ^= wire.rng >> 27;
    return wire.rng * 0x2545f4914f6cdd1dull;
}

static bool chance(unsigned int pct)
{
    return pct && rng_next() % 100 < pct;
}

uint8_t *node_ptr(struct node *n, uint64_t gpa)
{
    return qf_ram(&n->d, gpa, 1);
}

uint64_t node_alloc(struct node *n, uint64_t len, uint64_t align)
{
    uint64_t a = (n->brk + align - 1) & ~(align - 1);

    assert(a + len <= RAM_BASE + RAM_SIZE);
    n->brk = a + len;
    memset(node_ptr(n, a), 0, len);
    return a;
}

/* Reference ICRC: bit at a time, masking done here, not by the engine. */
static uint32_t ref_crc(uint32_t crc, const uint8_t *p, size_t len)
{
    size_t i;
    int b;

    for (i = 0; i < len; i++) {
        crc ^= p[i];
        for (b = 0; b < 8; b++) {
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
        }
    }
    return crc;
}

static bool ref_icrc_ok(const uint8_t *f, size_t len)
{
    static uint8_t m[QRNIC_ETH_MAX_FRAME];
    static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff,
                                    0xff, 0xff, 0xff, 0xff };
    bool v6 = f[12] == 0x86;
    size_t ip = 14, udp = ip + (v6 ? 40 : 20), bth = udp + 8;
    uint32_t crc;

    if (len < bth + 12 + 4) {
        return false;
    }
    memcpy(m, f + ip, len - ip - 4);
    if (v6) {
        m[0] |= 0x0f;
        m[1] = m[2] = m[3] = 0xff;
        m[7] = 0xff;
    } else {
        m[1] = 0xff;                /* TOS */
        m[8] = 0xff;                /* TTL */
        m[10] = m[11] = 0xff;       /* checksum */
    }
    m[udp - ip + 6] = m[udp - ip + 7] = 0xff;
    m[bth - ip + 4] = 0xff;
    crc = ref_crc(0xffffffffu, lrh, 8);
    crc = ~ref_crc(crc, m, len - ip - 4);
    return qrnic_ld32(f + len - 4) == crc;
}

static void wire_put(int to, const uint8_t *frame, size_t len)
{
    struct frame *fr;

    if (wire.count == MAX_FRAMES) {
        wire.dropped++;
        return;
    }
    fr = &wire.q[(wire.head + wire.count++) % MAX_FRAMES];
    fr->to = to;
    fr->len = (uint16_t)len;
    memcpy(fr->data, frame, len);
    if (wire.count > 1 && chance(wire.reorder_pct)) {
        /* Overtake the frame queued before it. */
        static struct frame tmp;
        struct frame *prev = &wire.q[(wire.head + wire.count - 2) %
                                     MAX_FRAMES];

        tmp = *prev;
        *prev = *fr;
        *fr = tmp;
    }
}

/* QRNIC_TRACE=FILE: one line per frame, to debug a failing seed. */
static void trace(const struct node *n, const uint8_t *f, size_t len,
                  const char *fate)
{
    static FILE *out;
    static bool checked;
    size_t bth = 14 + (f[12] == 0x86 ? 40 : 20) + 8;

    if (!checked) {
        checked = true;
        out = getenv("QRNIC_TRACE") ? fopen(getenv("QRNIC_TRACE"), "w") : NULL;
    }
    if (!out || len < bth + 12) {
        return;
    }
    fprintf(out, "%llu n%d op %02x qp %06x psn %06x%s len %zu syn %02x %s\n",
            (unsigned long long)now_ns, n->idx, f[bth],
            qrnic_ld32_be(f + bth + 4) & 0xffffff,
            qrnic_ld32_be(f + bth + 8) & 0xffffff,
            (f[bth + 8] & 0x80) ? " A" : "", len,
            (f[bth] >= 0x0d && f[bth] <= 0x12 && f[bth] != 0x0e) ?
            f[bth + 12] : 0, fate);
}

static void wire_tx(void *opaque, struct qf_dev *from, const uint8_t *frame,
                    size_t len)
{
    struct node *n = opaque;
    int to = 1 - n->idx;

    (void)from;
    assert(len <= QRNIC_ETH_MAX_FRAME);
    wire.sent++;
    if (!ref_icrc_ok(frame, len)) {
        wire.bad_icrc++;
    }
    if (memcmp(frame, nodes[to].mac, 6) && !(frame[0] & 1)) {
        wire.dropped++;             /* to nobody we know */
        return;
    }
    if (wire.cut || chance(wire.drop_pct)) {
        trace(n, frame, len, "DROP");
        wire.dropped++;
        return;
    }
    trace(n, frame, len, "");
    wire_put(to, frame, len);
    if (chance(wire.dup_pct)) {
        wire_put(to, frame, len);
    }
}

/* ---- admin queue --------------------------------------------------------- */

uint8_t node_cmd(struct node *n, struct qrnic_cmd *cmd, uint32_t *r0)
{
    uint64_t sq = RAM_BASE, cq = RAM_BASE + (64u << AQ_LOG);
    uint32_t slot = n->aq_pi & ((1u << AQ_LOG) - 1);
    const uint8_t *c;

    memcpy(node_ptr(n, sq + slot * 64ull), cmd, sizeof(*cmd));
    n->aq_pi++;
    qf_reg_write(&n->d, QRNIC_REG_AQ_DB, n->aq_pi);
    qf_run_bh(&n->d);
    c = node_ptr(n, cq + (n->aq_ci & ((1u << AQ_LOG) - 1)) * 32ull);
    assert((qrnic_ld32(c + 28) & 1) == !((n->aq_ci >> AQ_LOG) & 1));
    n->aq_ci++;
    qf_reg_write(&n->d, QRNIC_REG_AQ_CQ_CI, n->aq_ci);
    if (r0) {
        *r0 = qrnic_ld32(c + 4);
    }
    return c[2];
}

struct qrnic_cmd harness_cmd(uint8_t opcode)
{
    struct qrnic_cmd c;

    memset(&c, 0, sizeof(c));
    c.opcode = opcode;
    return c;
}

/* Enable the device and create its EQs, GID and PD (node_init, restart). */
static void node_up(struct node *n)
{
    struct qrnic_cmd c;
    uint32_t eqn;

    n->brk = RAM_BASE + (96u << AQ_LOG);
    qf_reg_write(&n->d, QRNIC_REG_AQ_SQ_BASE_LO, (uint32_t)RAM_BASE);
    qf_reg_write(&n->d, QRNIC_REG_AQ_CQ_BASE_LO,
                 (uint32_t)(RAM_BASE + (64u << AQ_LOG)));
    qf_reg_write(&n->d, QRNIC_REG_AQ_LOG_DEPTH, AQ_LOG);
    qf_reg_write(&n->d, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
    assert(qf_reg_read(&n->d, QRNIC_REG_STATUS) & QRNIC_STATUS_READY);
    qf_set_link(&n->d, true);

    c = harness_cmd(QRNIC_CMD_CREATE_EQ);
    n->aeq_base = node_alloc(n, 16u << AEQ_LOG, 4096);
    c.create_eq.base = n->aeq_base;
    c.create_eq.log_depth = AEQ_LOG;
    c.create_eq.flags = QRNIC_EQ_ASYNC;
    assert(node_cmd(n, &c, &eqn) == QRNIC_ST_OK);
    n->aeq = eqn;

    n->ceq_base = node_alloc(n, 16u << CEQ_LOG, 4096);
    c = harness_cmd(QRNIC_CMD_CREATE_EQ);
    c.create_eq.base = n->ceq_base;
    c.create_eq.log_depth = CEQ_LOG;
    c.create_eq.vector = 2;
    assert(node_cmd(n, &c, &n->ceq) == QRNIC_ST_OK);

    c = harness_cmd(QRNIC_CMD_ADD_GID);
    c.add_gid.index = 0;
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    memcpy(c.add_gid.gid, n->gid, 16);
    assert(node_cmd(n, &c, NULL) == QRNIC_ST_OK);

    c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    assert(node_cmd(n, &c, &n->kernel_pd) == QRNIC_ST_OK);
    n->pd = n->kernel_pd;
}

uint8_t node_use_uctx(struct node *n)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_UCTX);
    uint32_t uctx, pd;
    uint8_t st;

    st = node_cmd(n, &c, &uctx);
    if (st != QRNIC_ST_OK) {
        return st;
    }
    c = harness_cmd(QRNIC_CMD_ALLOC_PD);
    c.alloc_pd.uctx = uctx;
    st = node_cmd(n, &c, &pd);
    if (st == QRNIC_ST_OK) {
        n->uctx = uctx;
        n->pd = pd;
    }
    return st;
}

void node_use_kernel(struct node *n)
{
    n->uctx = 0;
    n->pd = n->kernel_pd;
}

uint32_t harness_limits[QRNIC_OBJ_COUNT];
uint32_t harness_mtt_max;
uint8_t harness_rd_atomic = 8;
uint32_t harness_flow_label;

void harness_small_tables(void)
{
    harness_limits[QRNIC_OBJ_QP] = 1022;
    harness_limits[QRNIC_OBJ_SRQ] = 1023;
    harness_limits[QRNIC_OBJ_KEY] = 4095;
    harness_limits[QRNIC_OBJ_CQ] = 1023;
    harness_limits[QRNIC_OBJ_PD] = 1024;
    harness_mtt_max = 1u << 20;
}

static void set_limits(struct qf_dev *d)
{
    uint32_t k;

    if (harness_mtt_max) {
        d->e.mtt_max = harness_mtt_max;
    }
    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        if (harness_limits[k] &&
            qrnic_objects_set_limit(&d->e, (enum qrnic_obj_kind)k,
                                    harness_limits[k])) {
            abort();
        }
    }
}

static void node_init(struct node *n, int idx)
{
    static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

    memset(n, 0, sizeof(*n));
    n->idx = idx;
    n->mac[0] = 0x52;
    n->mac[1] = 0x54;
    n->mac[5] = (uint8_t)(idx + 1);
    memcpy(n->gid, v4, 12);
    n->gid[12] = 10;
    n->gid[15] = (uint8_t)(idx + 1);
    qf_init(&n->d, RAM_SIZE, QMEM_SIZE, 4, n->mac, &now_ns);
    set_limits(&n->d);
    n->d.wire = wire_tx;
    n->d.wire_opaque = n;
    node_up(n);
}

void harness_init(uint64_t seed)
{
    harness_fini();
    memset(&wire, 0, sizeof(wire));
    wire.rng = seed | 1;
    wire.q = calloc(MAX_FRAMES, sizeof(*wire.q));
    assert(wire.q);
    now_ns = 1000000;
    node_init(&nodes[0], 0);
    node_init(&nodes[1], 1);
}

void harness_fini(void)
{
    int i;

    for (i = 0; i < 2; i++) {
        if (nodes[i].d.ram) {
            qf_fini(&nodes[i].d);
        }
    }
    free(wire.q);
    wire.q = NULL;
    while (nowned) {
        free(owned[--nowned]);
    }
    free(owned);
    owned = NULL;
    owned_cap = 0;
}

/* ---- the event loop ------------------------------------------------------ */

static void fire_timers(void)
{
    int i;

    for (i = 0; i < 2; i++) {
        qf_run_timer(&nodes[i].d);
    }
}

/* One step; false when idle (nothing to do before some deadline). */
static bool step(void)
{
    bool did = false;
    int i;

    fire_timers();
    for (i = 0; i < 2; i++) {
        did |= qf_run_bh(&nodes[i].d);
    }
    if (wire.count) {
        struct frame *fr = &wire.q[wire.head];

        /* Delivery may send (into other slots): the slot stays ours. */
        wire.head = (wire.head + 1) % MAX_FRAMES;
        wire.count--;
        now_ns += FRAME_NS;
        qf_receive(&nodes[fr->to].d, fr->data, fr->len);
        did = true;
    }
    return did;
}

bool harness_deliver_one(void)
{
    struct frame *fr;

    if (!wire.count) {
        return false;
    }
    fr = &wire.q[wire.head];
    wire.head = (wire.head + 1) % MAX_FRAMES;
    wire.count--;
    qf_receive(&nodes[fr->to].d, fr->data, fr->len);
    return true;
}

void harness_hub(bool on)
{
    nodes[0].d.hub_peer = on ? &nodes[1].d : NULL;
    nodes[1].d.hub_peer = on ? &nodes[0].d : NULL;
}

/*
 * Idle: advance virtual time to the earliest engine deadline.  False (the
 * clock untouched) when that deadline lies past limit_ns.
 */
static bool advance_to_deadline(uint64_t limit_ns)
{
    uint64_t t = nodes[0].d.deadline < nodes[1].d.deadline ?
                 nodes[0].d.deadline : nodes[1].d.deadline;

    if (t > limit_ns) {
        return false;
    }
    now_ns = t > now_ns ? t : now_ns;
    return true;
}

void harness_run(uint64_t limit_ns)
{
    while (now_ns <= limit_ns) {
        if (step()) {
            continue;
        }
        if (!advance_to_deadline(limit_ns)) {
            return;
        }
    }
}

int harness_ring_and_drain(struct hqp **qps, int n, struct hcq *cq,
                           uint64_t limit_ns, int *failed)
{
    struct hwc wc;
    int i, done = 0;

    *failed = 0;
    for (i = 0; i < n; i++) {
        qp_ring_sq(qps[i]);
    }
    harness_run(limit_ns);
    while (cq_poll(cq, &wc)) {
        done++;
        if (wc.status != QRNIC_WC_SUCCESS && !(*failed)++) {
            printf("# first failure: wr_id 0x%llx status %u\n",
                   (unsigned long long)wc.wr_id, wc.status);
        }
    }
    return done;
}

bool harness_wait_cqe(struct hcq *cq, struct hwc *wc, uint64_t limit_ns)
{
    while (!cq_poll(cq, wc)) {
        if (now_ns > limit_ns) {
            return false;
        }
        if (step()) {
            continue;
        }
        if (!advance_to_deadline(limit_ns)) {
            return cq_poll(cq, wc);
        }
    }
    return true;
}

/* ---- memory regions ------------------------------------------------------ */

uint8_t pattern_byte(uint32_t seed, uint64_t i)
{
    uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ seed;

    return (uint8_t)(x >> 29);
}

uint8_t *mr_at(struct hmr *mr, uint64_t va)
{
    uint64_t off = va - mr->iova + (mr->iova & 4095);

    assert(va >= mr->iova && va < mr->iova + mr->len);
    return node_ptr(mr->n, mr->pages[off >> 12] + (off & 4095));
}

/* Host bytes of the region from va to the end of its page (at most len). */
static uint8_t *mr_run(struct hmr *mr, uint64_t va, uint64_t len,
                       uint64_t *n)
{
    uint64_t in = (va - mr->iova + (mr->iova & 4095)) & 4095;

    *n = 4096 - in < len ? 4096 - in : len;
    return mr_at(mr, va);
}

void mr_fill(struct hmr *mr, uint64_t va, uint64_t len, uint32_t seed)
{
    uint64_t i = 0, n, k;

    while (i < len) {
        uint8_t *p = mr_run(mr, va + i, len - i, &n);

        for (k = 0; k < n; k++) {
            p[k] = pattern_byte(seed, i + k);
        }
        i += n;
    }
}

uint64_t mr_verify(struct hmr *mr, uint64_t va, uint64_t len, uint32_t seed)
{
    uint64_t i = 0, n, k;

    while (i < len) {
        const uint8_t *p = mr_run(mr, va + i, len - i, &n);

        for (k = 0; k < n; k++) {
            if (p[k] != pattern_byte(seed, i + k)) {
                return va + i + k;
            }
        }
        i += n;
    }
    return 0;
}

struct hmr *node_mr(struct node *n, uint64_t len, uint32_t access)
{
    struct hmr *mr = own(calloc(1, sizeof(*mr)));
    uint64_t base, pbl;
    struct qrnic_cmd c;
    uint32_t i;

    mr->n = n;
    mr->len = len;
    /* An address far from the guest's, starting inside a page. */
    mr->iova = 0x7f0000000000ull + 0x10000ull * (rng_next() % 4096) +
               8 * (rng_next() % 512);
    mr->npages = (uint32_t)(((mr->iova & 4095) + len + 4095) >> 12);
    mr->pages = own(calloc(mr->npages, sizeof(uint64_t)));
    base = node_alloc(n, (uint64_t)mr->npages * 4096, 4096);
    for (i = 0; i < mr->npages; i++) {
        mr->pages[i] = base + (uint64_t)i * 4096;
    }
    for (i = mr->npages; i > 1; i--) {       /* shuffle */
        uint32_t j = (uint32_t)(rng_next() % i);
        uint64_t t = mr->pages[i - 1];

        mr->pages[i - 1] = mr->pages[j];
        mr->pages[j] = t;
    }
    c = harness_cmd(QRNIC_CMD_REG_MR);
    c.reg_mr.iova = mr->iova;
    c.reg_mr.length = len;
    c.reg_mr.pdn = n->pd;
    c.reg_mr.access = access;
    c.reg_mr.pbl.npages = mr->npages;
    c.reg_mr.pbl.page_shift = 12;
    if (mr->npages <= QRNIC_PBL_PER_PAGE) {
        pbl = node_alloc(n, mr->npages * 8ull, 8);
        memcpy(node_ptr(n, pbl), mr->pages, mr->npages * 8ull);
        c.reg_mr.pbl.levels = QRNIC_PBL_LEVEL1;
    } else {
        uint32_t leaves = (mr->npages + 511) / 512;

        pbl = node_alloc(n, leaves * 8ull, 8);
        for (i = 0; i < leaves; i++) {
            uint64_t leaf = node_alloc(n, 4096, 4096);
            uint32_t k = mr->npages - i * 512 < 512 ? mr->npages - i * 512 :
                                                      512;

            memcpy(node_ptr(n, leaf), mr->pages + i * 512ull, k * 8ull);
            memcpy(node_ptr(n, pbl + i * 8ull), &leaf, 8);
        }
        c.reg_mr.pbl.levels = QRNIC_PBL_LEVEL2;
    }
    c.reg_mr.pbl.addr = pbl;
    mr->status = node_cmd(n, &c, &mr->key);
    return mr;
}

uint8_t node_dereg_mr(struct hmr *mr)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DEREG_MR);

    c.dereg_mr.key = mr->key;
    return node_cmd(mr->n, &c, NULL);
}

/* ---- CQs ----------------------------------------------------------------- */

struct hcq *node_create_cq(struct node *n, uint8_t log)
{
    struct hcq *cq = own(calloc(1, sizeof(*cq)));
    uint32_t bytes = (32u << log) + 64;
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_CQ);

    cq->n = n;
    cq->uctx = n->uctx;
    cq->log = log;
    cq->base = node_alloc(n, (bytes + 4095) & ~4095u, 4096);
    c.create_cq.pbl.addr = cq->base;
    c.create_cq.pbl.npages = (bytes + 4095) / 4096;
    c.create_cq.pbl.levels = QRNIC_PBL_CONTIG;
    c.create_cq.pbl.page_shift = 12;
    c.create_cq.eqn = n->ceq;
    c.create_cq.log_depth = log;
    c.create_cq.uctx = n->uctx;
    return node_cmd(n, &c, &cq->cqn) == QRNIC_ST_OK ? cq : NULL;
}

bool cq_poll(struct hcq *cq, struct hwc *wc)
{
    uint32_t depth = 1u << cq->log;
    const uint8_t *p = node_ptr(cq->n, cq->base +
                                (cq->ci & (depth - 1)) * 32ull);
    uint32_t phase = ((cq->ci >> cq->log) & 1) ? 0 : 1;

    if ((qrnic_ld32(p + offsetof(struct qrnic_cqe, owner)) & 1) != phase) {
        return false;
    }
    wc->wr_id = qrnic_ld64(p);
    wc->byte_len = qrnic_ld32(p + offsetof(struct qrnic_cqe, byte_len));
    memcpy(&wc->imm, p + offsetof(struct qrnic_cqe, imm_data), 4);
    wc->qpn = qrnic_ld32(p + offsetof(struct qrnic_cqe, qpn));
    wc->wqe_idx = qrnic_ld16(p + offsetof(struct qrnic_cqe, wqe_idx));
    wc->opcode = p[offsetof(struct qrnic_cqe, opcode)];
    wc->status = p[offsetof(struct qrnic_cqe, status)];
    wc->flags = p[offsetof(struct qrnic_cqe, flags)];
    wc->vendor_err = p[offsetof(struct qrnic_cqe, vendor_err)];
    wc->src_qp = qrnic_ld32(p + offsetof(struct qrnic_cqe, owner)) >>
                 QRNIC_CQE_SRC_QP_SHIFT;
    cq->ci++;
    qrnic_st32(node_ptr(cq->n, cq->base + depth * 32ull), cq->ci);
    return true;
}

void cq_arm(struct hcq *cq, bool solicited)
{
    uint64_t v = cq->cqn | QRNIC_DB_ARM |
                 (solicited ? QRNIC_DB_ARM_SOLICITED : 0) |
                 (uint64_t)cq->ci << 32;
    qf_doorbell(&cq->n->d, cq->uctx, QRNIC_DB_CQ, v);
}

/* Count events of type for data0 on an EQ, consuming all; ring its doorbell. */
static uint32_t eq_drain(struct node *n, uint32_t eqn, uint64_t base,
                         uint8_t log, uint32_t *ci, uint8_t type,
                         uint32_t data0)
{
    uint32_t count = 0, depth = 1u << log;

    for (;;) {
        const uint8_t *p = node_ptr(n, base + (*ci & (depth - 1)) * 16ull);
        uint32_t phase = ((*ci >> log) & 1) ? 0 : 1;

        if ((qrnic_ld32(p + 12) & 1) != phase) {
            break;
        }
        if (p[0] == type && qrnic_ld32(p + 4) == data0) {
            count++;
        }
        (*ci)++;
    }
    qf_doorbell(&n->d, 0, QRNIC_DB_EQ, eqn | (uint64_t)(*ci & 0xffff) << 32);
    return count;
}

uint32_t node_cq_events(struct node *n, uint32_t cqn)
{
    return eq_drain(n, n->ceq, n->ceq_base, CEQ_LOG, &n->ceq_ci,
                    QRNIC_EVENT_CQ, cqn);
}

uint32_t node_async_events(struct node *n, uint8_t type, uint32_t data0)
{
    return eq_drain(n, n->aeq, n->aeq_base, AEQ_LOG, &n->aeq_ci, type, data0);
}

/* ---- QPs ----------------------------------------------------------------- */

static uint32_t qmem_take(struct node *n, uint8_t log_depth, uint8_t log_stride)
{
    uint32_t bytes = ((1u << (log_depth + log_stride)) + 4095) & ~4095u;
    uint32_t off = n->qmem_brk;

    assert(off + bytes <= QMEM_SIZE);
    n->qmem_brk += bytes;
    return off;
}

struct hqp *node_create_qp(struct node *n, struct hcq *scq, struct hcq *rcq,
                           uint8_t log_sq, uint8_t log_ss, uint8_t log_rq,
                           uint8_t log_rs)
{
    uint8_t st;

    return node_create_qp_type(n, QRNIC_QPT_RC, scq, rcq, log_sq, log_ss,
                               log_rq, log_rs, &st);
}

/* CREATE_QP; with srq the QP has no RQ of its own. */
static struct hqp *create_qp(struct node *n, uint8_t type, struct hcq *scq,
                             struct hcq *rcq, uint8_t log_sq, uint8_t log_ss,
                             uint8_t log_rq, uint8_t log_rs, struct hsrq *srq,
                             uint8_t *st)
{
    struct hqp *qp = own(calloc(1, sizeof(*qp)));
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_QP);

    qp->n = n;
    qp->uctx = n->uctx;
    qp->scq = scq;
    qp->rcq = rcq;
    qp->log_sq = log_sq;
    qp->log_ss = log_ss;
    qp->sq_off = qmem_take(n, log_sq, log_ss);
    if (!srq) {
        qp->log_rq = log_rq;
        qp->log_rs = log_rs;
        qp->rq_off = qmem_take(n, log_rq, log_rs);
    }
    c.create_qp.pdn = n->pd;
    c.create_qp.uctx = n->uctx;
    c.create_qp.send_cqn = scq->cqn;
    c.create_qp.recv_cqn = rcq->cqn;
    c.create_qp.sq_offset = qp->sq_off;
    c.create_qp.rq_offset = qp->rq_off;
    c.create_qp.qp_type = type;
    c.create_qp.log_sq_depth = log_sq;
    c.create_qp.log_sq_stride = log_ss;
    c.create_qp.log_rq_depth = qp->log_rq;
    c.create_qp.log_rq_stride = srq ? QRNIC_RQ_MIN_LOG_STRIDE : log_rs;
    c.create_qp.srqn = srq ? srq->srqn : 0;
    *st = node_cmd(n, &c, &qp->qpn);
    return *st == QRNIC_ST_OK ? qp : NULL;
}

struct hqp *node_create_qp_type(struct node *n, uint8_t type,
                                struct hcq *scq, struct hcq *rcq,
                                uint8_t log_sq, uint8_t log_ss, uint8_t log_rq,
                                uint8_t log_rs, uint8_t *st)
{
    return create_qp(n, type, scq, rcq, log_sq, log_ss, log_rq, log_rs, NULL,
                     st);
}

uint8_t qp_modify(struct hqp *qp, uint32_t mask,
                  const struct qrnic_qp_attr *attr)
{
    uint64_t a = node_alloc(qp->n, sizeof(*attr), 64);
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_MODIFY_QP);

    memcpy(node_ptr(qp->n, a), attr, sizeof(*attr));
    c.modify_qp.qpn = qp->qpn;
    c.modify_qp.attr_mask = mask;
    c.modify_qp.attr_addr = a;
    return node_cmd(qp->n, &c, NULL);
}

uint8_t qp_query(struct hqp *qp, struct qrnic_qp_attr *attr)
{
    uint64_t a = node_alloc(qp->n, sizeof(*attr), 64);
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_QUERY_QP);
    uint8_t st;

    c.query_qp.qpn = qp->qpn;
    c.query_qp.attr_addr = a;
    st = node_cmd(qp->n, &c, NULL);
    memcpy(attr, node_ptr(qp->n, a), sizeof(*attr));
    return st;
}

#define A(x) QRNIC_QP_ATTR_##x

uint8_t qp_connect_uc_psn(struct hqp *qp, const struct hqp *peer,
                          uint8_t path_mtu, uint32_t rq_psn, uint32_t sq_psn)
{
    struct qrnic_qp_attr a;
    uint8_t st;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.access_flags = QRNIC_ACCESS_REMOTE_WRITE;
    st = qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                   &a);
    if (st) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTR;
    a.path_mtu = path_mtu;
    a.dest_qpn = peer->qpn;
    a.rq_psn = rq_psn;
    a.hop_limit = 64;
    memcpy(a.dgid, peer->n->gid, 16);
    memcpy(a.dmac, peer->n->mac, 6);
    st = qp_modify(qp, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                   A(RQ_PSN), &a);
    if (st) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTS;
    a.sq_psn = sq_psn;
    return qp_modify(qp, A(STATE) | A(SQ_PSN), &a);
}

uint8_t qp_connect_uc(struct hqp *qp, const struct hqp *peer)
{
    /* MTU 1024; PSNs that wrap during a test. */
    return qp_connect_uc_psn(qp, peer, 3, 0xfffff0, 0xfffff0);
}

uint8_t qp_up_ud_to(struct hqp *qp, uint32_t qkey, bool gsi, uint8_t state,
                    uint32_t sq_psn)
{
    struct qrnic_qp_attr a;
    uint8_t st;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.qkey = qkey;
    st = qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(QKEY) |
                   (gsi ? 0 : A(PORT)), &a);
    if (st || state == QRNIC_QPS_INIT) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTR;
    st = qp_modify(qp, A(STATE), &a);
    if (st || state == QRNIC_QPS_RTR) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTS;
    a.sq_psn = sq_psn;
    return qp_modify(qp, A(STATE) | A(SQ_PSN), &a);
}

uint8_t qp_up_ud(struct hqp *qp, uint32_t qkey, bool gsi)
{
    return qp_up_ud_to(qp, qkey, gsi, QRNIC_QPS_RTS, 100);
}

struct qrnic_ud_av node_av(int n, uint32_t qpn, uint32_t qkey)
{
    struct qrnic_ud_av av;

    memset(&av, 0, sizeof(av));
    av.dest_qpn = qpn;
    av.qkey = qkey;
    memcpy(av.dgid, nodes[n].gid, 16);
    memcpy(av.dmac, nodes[n].mac, 6);
    av.hop_limit = 64;
    return av;
}

bool qp_connect(struct hqp *qp, const struct hqp *peer, uint8_t path_mtu,
                uint8_t timeout, uint8_t retry, uint8_t rnr_retry,
                uint8_t min_rnr)
{
    struct qrnic_qp_attr a;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.access_flags = QRNIC_ACCESS_REMOTE_WRITE | QRNIC_ACCESS_REMOTE_READ |
                     QRNIC_ACCESS_REMOTE_ATOMIC | QRNIC_ACCESS_FLUSH_GLOBAL;
    if (qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                  &a)) {
        return false;
    }
    a.qp_state = QRNIC_QPS_RTR;
    a.path_mtu = path_mtu;
    a.dest_qpn = peer->qpn;
    a.rq_psn = (0x123456 + peer->qpn * 1000) & 0xffffff;  /* any start */
    a.max_dest_rd_atomic = harness_rd_atomic;
    a.flow_label = harness_flow_label;
    a.min_rnr_timer = min_rnr;
    a.sgid_index = 0;
    a.hop_limit = 64;
    memcpy(a.dgid, peer->n->gid, 16);
    memcpy(a.dmac, peer->n->mac, 6);
    if (qp_modify(qp, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                  A(RQ_PSN) | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER), &a)) {
        return false;
    }
    a.qp_state = QRNIC_QPS_RTS;
    a.sq_psn = (0x123456 + qp->qpn * 1000) & 0xffffff;
    a.timeout = timeout;
    a.retry_cnt = retry;
    a.rnr_retry = rnr_retry;
    a.max_rd_atomic = harness_rd_atomic;
    return qp_modify(qp, A(STATE) | A(SQ_PSN) | A(TIMEOUT) | A(RETRY_CNT) |
                     A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC), &a) == QRNIC_ST_OK;
}

void qp_ring_sq(struct hqp *qp)
{
    qf_doorbell(&qp->n->d, qp->uctx, QRNIC_DB_SQ,
                qp->qpn | (uint64_t)qp->sq_pi << 32);
}

void qp_post_send(struct hqp *qp, const struct hwr *wr, bool ring)
{
    uint32_t stride = 1u << qp->log_ss;
    uint8_t *slot = qp->n->d.qmem + qp->sq_off +
                    (qp->sq_pi & ((1u << qp->log_sq) - 1)) * stride;
    struct qrnic_sq_wqe h;
    int i;

    memset(&h, 0, sizeof(h));
    h.wr_id = wr->wr_id;
    h.opcode = wr->opcode;
    h.flags = wr->flags;
    h.num_sge = (uint8_t)(wr->raw_num_sge >= 0 ? wr->raw_num_sge :
                          wr->num_sge);
    h.imm_data = wr->imm;
    h.remote_addr = wr->remote_addr;
    h.rkey = wr->rkey;
    h.compare_add = wr->compare_add;
    h.swap = wr->swap;
    h.xrc_srqn = wr->xrc_srqn;
    if (wr->ud) {
        h.ud = *wr->ud;
    }
    memset(slot, 0, stride);
    if (wr->flags & QRNIC_WQE_F_INLINE) {
        uint32_t off = sizeof(h);

        /* Inline SGEs name host memory, as a provider's would. */
        for (i = 0; i < wr->num_sge; i++) {
            memcpy(slot + off, (void *)(uintptr_t)wr->sge[i].addr,
                   wr->sge[i].len);
            off += wr->sge[i].len;
        }
        h.inline_len = off - (uint32_t)sizeof(h);
        h.num_sge = 0;
    } else {
        for (i = 0; i < wr->num_sge; i++) {
            struct qrnic_sge s = { wr->sge[i].addr, wr->sge[i].len,
                                   wr->sge[i].lkey };

            memcpy(slot + sizeof(h) + i * sizeof(s), &s, sizeof(s));
        }
    }
    memcpy(slot, &h, sizeof(h));
    qp->sq_pi++;
    if (ring) {
        qp_ring_sq(qp);
    }
}

static void write_rqe(uint8_t *slot, uint32_t stride, uint64_t wr_id,
                      const struct hsge *sge, int num_sge)
{
    struct qrnic_rq_wqe h;
    int i;

    memset(&h, 0, sizeof(h));
    h.wr_id = wr_id;
    h.num_sge = (uint8_t)num_sge;
    memset(slot, 0, stride);
    memcpy(slot, &h, sizeof(h));
    for (i = 0; i < num_sge; i++) {
        struct qrnic_sge s = { sge[i].addr, sge[i].len, sge[i].lkey };

        memcpy(slot + sizeof(h) + i * sizeof(s), &s, sizeof(s));
    }
}

void qp_post_recv(struct hqp *qp, uint64_t wr_id, const struct hsge *sge,
                  int num_sge, bool ring)
{
    uint32_t stride = 1u << qp->log_rs;

    write_rqe(qp->n->d.qmem + qp->rq_off +
              (qp->rq_pi & ((1u << qp->log_rq) - 1)) * stride, stride,
              wr_id, sge, num_sge);
    qp->rq_pi++;
    if (ring) {
        qf_doorbell(&qp->n->d, qp->uctx, QRNIC_DB_RQ,
                    qp->qpn | (uint64_t)qp->rq_pi << 32);
    }
}

/* An SRQ; with xrcd an XRC SRQ of that domain, completing on cq. */
static struct hsrq *create_srq(struct node *n, uint8_t log, uint8_t log_stride,
                               uint32_t limit, uint32_t xrcd, struct hcq *cq,
                               uint8_t *st)
{
    struct hsrq *srq = own(calloc(1, sizeof(*srq)));
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_SRQ);

    srq->n = n;
    srq->uctx = n->uctx;
    srq->log = log;
    srq->log_stride = log_stride;
    srq->off = qmem_take(n, log, log_stride);
    c.create_srq.pdn = n->pd;
    c.create_srq.uctx = n->uctx;
    c.create_srq.offset = srq->off;
    c.create_srq.log_depth = log;
    c.create_srq.log_stride = log_stride;
    c.create_srq.limit = limit;
    c.create_srq.xrcd = xrcd;
    c.create_srq.cqn = cq ? cq->cqn : 0;
    *st = node_cmd(n, &c, &srq->srqn);
    return *st == QRNIC_ST_OK ? srq : NULL;
}

struct hsrq *node_create_srq(struct node *n, uint8_t log, uint8_t log_stride,
                             uint32_t limit, uint8_t *st)
{
    return create_srq(n, log, log_stride, limit, 0, NULL, st);
}

void srq_post_recv(struct hsrq *srq, uint64_t wr_id, const struct hsge *sge,
                   int num_sge, bool ring)
{
    uint32_t stride = 1u << srq->log_stride;

    write_rqe(srq->n->d.qmem + srq->off +
              (srq->pi & ((1u << srq->log) - 1)) * stride, stride, wr_id,
              sge, num_sge);
    srq->pi++;
    if (ring) {
        qf_doorbell(&srq->n->d, srq->uctx, QRNIC_DB_SRQ,
                    srq->srqn | (uint64_t)srq->pi << 32);
    }
}

struct hsrq *node_create_xrc_srq(struct node *n, uint32_t xrcd,
                                 struct hcq *cq, uint8_t log, uint8_t *st)
{
    return create_srq(n, log, 6, 0, xrcd, cq, st);
}

struct hqp *node_create_xrc_ini(struct node *n, struct hcq *scq,
                                uint8_t log_sq, uint8_t *st)
{
    struct hqp *qp = own(calloc(1, sizeof(*qp)));
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_QP);

    qp->n = n;
    qp->uctx = n->uctx;
    qp->scq = scq;
    qp->log_sq = log_sq;
    qp->log_ss = 7;
    qp->sq_off = qmem_take(n, log_sq, qp->log_ss);
    c.create_qp.pdn = n->pd;
    c.create_qp.uctx = n->uctx;
    c.create_qp.send_cqn = scq->cqn;
    c.create_qp.sq_offset = qp->sq_off;
    c.create_qp.qp_type = QRNIC_QPT_XRC_INI;
    c.create_qp.log_sq_depth = log_sq;
    c.create_qp.log_sq_stride = qp->log_ss;
    *st = node_cmd(n, &c, &qp->qpn);
    return *st == QRNIC_ST_OK ? qp : NULL;
}

struct hqp *node_create_xrc_tgt(struct node *n, uint32_t xrcd, uint8_t *st)
{
    struct hqp *qp = own(calloc(1, sizeof(*qp)));
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_CREATE_QP);

    qp->n = n;
    c.create_qp.qp_type = QRNIC_QPT_XRC_TGT;
    c.create_qp.xrcd = xrcd;
    c.create_qp.uctx = n->uctx;
    *st = node_cmd(n, &c, &qp->qpn);
    return *st == QRNIC_ST_OK ? qp : NULL;
}

uint8_t qp_connect_xrc_to(struct hqp *qp, const struct hqp *peer,
                          uint8_t path_mtu, uint8_t timeout, uint8_t retry,
                          uint8_t rnr_retry)
{
    bool tgt = !qp->scq;
    struct qrnic_qp_attr a;
    uint8_t st;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.access_flags = tgt ? QRNIC_ACCESS_REMOTE_WRITE |
                           QRNIC_ACCESS_REMOTE_READ |
                           QRNIC_ACCESS_REMOTE_ATOMIC : 0;
    st = qp_modify(qp, A(STATE) | A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS),
                   &a);
    if (st) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTR;
    a.path_mtu = path_mtu;
    a.dest_qpn = peer->qpn;
    a.rq_psn = (0x123456 + peer->qpn * 1000) & 0xffffff;
    a.max_dest_rd_atomic = harness_rd_atomic;
    a.min_rnr_timer = 1;
    a.hop_limit = 64;
    memcpy(a.dgid, peer->n->gid, 16);
    memcpy(a.dmac, peer->n->mac, 6);
    st = qp_modify(qp, A(STATE) | A(AV) | A(PATH_MTU) | A(DEST_QPN) |
                   A(RQ_PSN) |
                   (tgt ? A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER) : 0), &a);
    if (st) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTS;
    a.sq_psn = (0x123456 + qp->qpn * 1000) & 0xffffff;
    a.timeout = timeout;
    a.retry_cnt = retry;
    a.rnr_retry = rnr_retry;
    a.max_rd_atomic = harness_rd_atomic;
    return qp_modify(qp, A(STATE) | A(SQ_PSN) | A(TIMEOUT) |
                     (tgt ? 0 : A(RETRY_CNT) | A(RNR_RETRY) |
                      A(MAX_QP_RD_ATOMIC)), &a);
}

bool qp_connect_xrc(struct hqp *qp, const struct hqp *peer, uint8_t path_mtu)
{
    return qp_connect_xrc_to(qp, peer, path_mtu, 10, 7, 7) == QRNIC_ST_OK;
}

struct hqp *node_create_qp_srq(struct node *n, uint8_t type, struct hcq *scq,
                               struct hcq *rcq, uint8_t log_sq,
                               uint8_t log_ss, struct hsrq *srq, uint8_t *st)
{
    return create_qp(n, type, scq, rcq, log_sq, log_ss, 0, 0, srq, st);
}

/* ---- fixtures ------------------------------------------------------------ */

#define ALL_ACCESS (QRNIC_ACCESS_LOCAL_WRITE | QRNIC_ACCESS_REMOTE_WRITE | \
                    QRNIC_ACCESS_REMOTE_READ | QRNIC_ACCESS_REMOTE_ATOMIC)

bool pair_setup(struct pair *p, uint64_t seed, uint8_t path_mtu,
                uint8_t timeout, uint8_t retry, uint8_t rnr_retry,
                uint8_t min_rnr, uint64_t mr_bytes)
{
    int i;

    harness_init(seed);
    memset(p, 0, sizeof(*p));
    for (i = 0; i < 2; i++) {
        p->cq[i] = node_create_cq(&nodes[i], 10);
        p->qp[i] = p->cq[i] ? node_create_qp(&nodes[i], p->cq[i], p->cq[i],
                                             7, 9, 7, 6) : NULL;
        p->mr[i] = node_mr(&nodes[i], mr_bytes, ALL_ACCESS);
        if (!p->qp[i] || p->mr[i]->status != QRNIC_ST_OK) {
            return false;
        }
    }
    return qp_connect(p->qp[0], p->qp[1], path_mtu, timeout, retry,
                      rnr_retry, min_rnr) &&
           qp_connect(p->qp[1], p->qp[0], path_mtu, timeout, retry,
                      rnr_retry, min_rnr);
}

struct hwr mkwr(uint64_t wr_id, uint8_t opcode, uint64_t addr, uint32_t len,
                uint32_t lkey)
{
    struct hwr wr;

    memset(&wr, 0, sizeof(wr));
    wr.raw_num_sge = -1;
    wr.wr_id = wr_id;
    wr.opcode = opcode;
    wr.flags = QRNIC_WQE_F_SIGNALED;
    wr.num_sge = 1;
    wr.sge[0].addr = addr;
    wr.sge[0].len = len;
    wr.sge[0].lkey = lkey;
    return wr;
}

void pair_post_rdma(struct pair *p, uint64_t wr_id, uint8_t opcode,
                    uint32_t off, uint32_t len, uint32_t rkey, uint32_t imm)
{
    struct hwr wr = mkwr(wr_id, opcode, p->mr[0]->iova + off, len,
                         p->mr[0]->key);

    wr.remote_addr = p->mr[1]->iova + off;
    wr.rkey = rkey;
    wr.imm = imm;
    if (!len) {
        wr.num_sge = 0;
    }
    qp_post_send(p->qp[0], &wr, true);
    qf_run_bh(&nodes[0].d);
}

bool harness_completes(struct hcq *cq, uint64_t wr_id, uint8_t status,
                       uint64_t limit_ns)
{
    struct hwc wc;

    return harness_wait_cqe(cq, &wc, limit_ns) && wc.wr_id == wr_id &&
           wc.status == status;
}

/* ---- starting over many times (fuzz targets) ----------------------------- */

/*
 * A device rebuilt as qf_init builds it, on the memory it already has:
 * queue memory and the guest RAM the harness handed out (below the bump
 * allocator: the devices reach RAM only through addresses it gave them)
 * are cleared, then it is brought up as node_init does.
 */
static void node_restart(struct node *n)
{
    struct qf_dev *d = &n->d;
    uint8_t *ram = d->ram, *qmem = d->qmem;
    struct qf_frame *queued = d->queued;
    const struct qrnic_engine_ops *ops = d->e.ops;

    qrnic_engine_fini(&d->e);
    memset(ram, 0, n->brk - RAM_BASE);
    memset(qmem, 0, QMEM_SIZE);
    memset(d, 0, sizeof(*d));
    d->ram = ram;
    d->ram_size = RAM_SIZE;
    d->qmem = qmem;
    d->qmem_size = QMEM_SIZE;
    d->queued = queued;
    d->clock = &now_ns;
    d->deadline = UINT64_MAX;
    qrnic_engine_init(&d->e, ops, d, 4, n->mac);
    set_limits(d);
    d->db_pages = d->e.db_pages;
    if (qrnic_engine_set_qmem(&d->e, qmem, QMEM_SIZE)) {
        abort();
    }
    d->wire = wire_tx;
    d->wire_opaque = n;
    n->qmem_brk = 0;
    n->uctx = 0;
    n->aq_pi = n->aq_ci = n->ceq_ci = n->aeq_ci = 0;
    node_up(n);
}

void harness_restart(uint64_t seed)
{
    struct frame *q = wire.q;

    if (!nodes[0].d.ram) {
        harness_init(seed);
        return;
    }
    while (nowned) {
        free(owned[--nowned]);
    }
    memset(&wire, 0, sizeof(wire));
    wire.rng = seed | 1;
    wire.q = q;
    now_ns = 1000000;
    node_restart(&nodes[0]);
    node_restart(&nodes[1]);
}

bool harness_run_steps(uint64_t limit_ns, uint64_t max_steps)
{
    while (now_ns <= limit_ns) {
        if (step()) {
            if (!max_steps--) {
                return false;
            }
            continue;
        }
        if (!advance_to_deadline(limit_ns)) {
            return true;
        }
    }
    return false;
}

uint8_t qp_state(struct hqp *qp)
{
    struct qrnic_qp_attr a;

    return qp_query(qp, &a) == QRNIC_ST_OK ? a.qp_state : 0xff;
}
