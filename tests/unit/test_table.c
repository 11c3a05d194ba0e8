/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The handle tables (qrnic_table.c) and the object kinds that live in them
 * (qrnic_objects.c): lowest-free and rotating index choice, generations,
 * chunks allocated only where objects are, iteration across chunks, a full
 * table; then through admin commands: every kind has a table with a name
 * and room, a destroyed QP's or key's handle does not come back with its
 * index, a freed CQ index is reused, and a reset frees every kind.
 */
#include <string.h>
#include "rc_harness.h"
#include "tap.h"

int tap_failures;

static uint32_t chunks_allocated(const struct qrnic_table *t)
{
    uint32_t c, n = 0;

    for (c = 0; t->chunk && c * QRNIC_TABLE_CHUNK < t->size; c++) {
        n += t->chunk[c] != NULL;
    }
    return n;
}

static void test_lowest_free(void)
{
    struct qrnic_table t;
    int obj[8];
    uint32_t a, b, c, i, n;
    void *o;

    qrnic_table_setup(&t, "test", 1, 4 * QRNIC_TABLE_CHUNK, false);
    CHECK(!t.chunk && qrnic_table_get(&t, 1) == NULL &&
          qrnic_table_next(&t, 0) == t.size,
          "an empty table allocates nothing and holds nothing");
    a = qrnic_table_insert(&t, &obj[0]);
    b = qrnic_table_insert(&t, &obj[1]);
    c = qrnic_table_insert(&t, &obj[2]);
    CHECK(a == 1 && b == 2 && c == 3 && t.used == 3,
          "lowest first: indices 1, 2, 3 (%u %u %u)", a, b, c);
    CHECK(qrnic_table_get(&t, 2) == &obj[1] && qrnic_table_gen(&t, 2) == 1,
          "get finds the object; its slot's generation is 1");
    qrnic_table_remove(&t, 2);
    CHECK(!qrnic_table_get(&t, 2) && t.used == 2, "removed: the slot is empty");
    CHECK_EQ(qrnic_table_insert(&t, &obj[3]), 2,
             "the freed index is the lowest free one again");
    CHECK_EQ(qrnic_table_gen(&t, 2), 2, "and its generation went on to 2");
    CHECK_EQ(chunks_allocated(&t), 1, "objects in one chunk: one allocated");
    CHECK(qrnic_table_insert_at(&t, 3 * QRNIC_TABLE_CHUNK + 5, &obj[4]) &&
          !qrnic_table_insert_at(&t, 3 * QRNIC_TABLE_CHUNK + 5, &obj[5]) &&
          !qrnic_table_insert_at(&t, t.size, &obj[5]),
          "insert_at: a free index taken, a taken or out of range one refused");
    CHECK_EQ(chunks_allocated(&t), 2,
             "an object in a far chunk allocates that chunk only");
    n = 0;
    QRNIC_TABLE_FOR_EACH(&t, i, o) {
        n += o == &obj[0] || o == &obj[3] || o == &obj[2] || o == &obj[4];
    }
    CHECK(n == 4 && t.used == 4,
          "iteration visits the 4 objects across the empty chunks between");
    qrnic_table_replace(&t, 1, &obj[6]);
    CHECK(qrnic_table_get(&t, 1) == &obj[6] && qrnic_table_gen(&t, 1) == 1,
          "replace: the new object, the same generation");
    QRNIC_TABLE_FOR_EACH(&t, i, o) {
        qrnic_table_remove(&t, i);
    }
    CHECK(t.used == 0 && qrnic_table_next(&t, 0) == t.size,
          "removing each during the iteration empties the table");
    qrnic_table_fini(&t);
    CHECK(!t.chunk, "fini frees the chunks");
}

static void test_rotate_and_full(void)
{
    struct qrnic_table t;
    int obj[4];
    uint32_t a, b, c;

    qrnic_table_setup(&t, "test", 2, 5, true);
    a = qrnic_table_insert(&t, &obj[0]);
    b = qrnic_table_insert(&t, &obj[1]);
    qrnic_table_remove(&t, a);
    c = qrnic_table_insert(&t, &obj[2]);
    CHECK(a == 2 && b == 3 && c == 4,
          "rotating: a freed index is not the next one handed out (%u %u %u)",
          a, b, c);
    qrnic_table_remove(&t, c);
    CHECK_EQ(qrnic_table_insert(&t, &obj[2]), 2,
             "nor is the index just freed: the search goes on after it");
    qrnic_table_remove(&t, 2);
    CHECK_EQ(qrnic_table_insert(&t, &obj[2]), 4, "and wraps at the end");
    CHECK_EQ(qrnic_table_insert(&t, &obj[3]), 2,
             "after the last index the search wraps to the first");
    CHECK_EQ(qrnic_table_insert(&t, &obj[0]), 0, "a full table: 0");
    CHECK(qrnic_table_insert_at(&t, 1, &obj[0]) && t.used == 4,
          "an index below the first one can still be placed (the GSI QP)");
    qrnic_table_set_gen(&t, 3, 0x41);
    qrnic_table_remove(&t, 3);
    CHECK(qrnic_table_insert(&t, &obj[1]) == 3 &&
          qrnic_table_gen(&t, 3) == 0x42,
          "a generation set by the kind goes on from there");
    qrnic_table_fini(&t);
}

static void test_kinds(void)
{
    struct qrnic_engine *e = &nodes[0].d.e;
    uint32_t k;

    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        CHECK(e->obj[k].kind && e->obj[k].kind[0] &&
              qrnic_obj_capacity(e, (enum qrnic_obj_kind)k) > 0,
              "object kind %u (%s) has a table with room", k,
              e->obj[k].kind ? e->obj[k].kind : "no name");
    }
}

static uint8_t destroy_qp(struct node *n, uint32_t qpn)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_QP);

    c.destroy_qp.qpn = qpn;
    return node_cmd(n, &c, NULL);
}

static uint8_t destroy_cq(struct node *n, uint32_t cqn)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DESTROY_CQ);

    c.destroy_cq.cqn = cqn;
    return node_cmd(n, &c, NULL);
}

static void test_handles(void)
{
    struct node *n = &nodes[0];
    struct qrnic_engine *e = &n->d.e;
    uint32_t mask = (1u << e->qpn_idx_bits) - 1, qpn, cqn, key, i;
    struct hcq *cq = node_create_cq(n, 6), *cq2;
    struct hqp *qp;
    struct hmr *mr;
    uint8_t st;

    qp = node_create_qp(n, cq, cq, 4, 6, 4, 6);
    CHECK(qp != NULL, "a QP");
    qpn = qp ? qp->qpn : 0;
    CHECK(qp && destroy_qp(n, qpn) == QRNIC_ST_OK, "DESTROY_QP");
    qp = node_create_qp(n, cq, cq, 4, 6, 4, 6);
    CHECK(qp && (qp->qpn & mask) != (qpn & mask),
          "the next QP takes the next index (0x%x then 0x%x)", qpn,
          qp ? qp->qpn : 0);
    /* As when the search has gone round the whole table. */
    e->obj[QRNIC_OBJ_QP].next = qpn & mask;
    qp = node_create_qp(n, cq, cq, 4, 6, 4, 6);
    CHECK(qp && (qp->qpn & mask) == (qpn & mask) && qp->qpn != qpn,
          "a QP index used again names a new QPN: 0x%x then 0x%x", qpn,
          qp ? qp->qpn : 0);
    CHECK(qp && destroy_qp(n, qpn) == QRNIC_ST_BAD_HANDLE,
          "the old QPN is a bad handle, though its index is in use");

    mr = node_mr(n, 8192, QRNIC_ACCESS_LOCAL_WRITE);
    key = mr->key;
    CHECK_EQ(node_dereg_mr(mr), QRNIC_ST_OK, "DEREG_MR");
    e->obj[QRNIC_OBJ_KEY].next = QRNIC_KEY_INDEX(key);
    mr = node_mr(n, 8192, QRNIC_ACCESS_LOCAL_WRITE);
    CHECK(mr->status == QRNIC_ST_OK && mr->key != key &&
          QRNIC_KEY_INDEX(mr->key) == QRNIC_KEY_INDEX(key),
          "a key index used again has a new key: 0x%x then 0x%x", key,
          mr->key);

    cq2 = node_create_cq(n, 6);
    cqn = cq2 ? cq2->cqn : 0;
    CHECK(cq2 && destroy_cq(n, cqn) == QRNIC_ST_OK, "a second CQ, destroyed");
    cq2 = node_create_cq(n, 6);
    CHECK(cq2 && cq2->cqn == cqn,
          "CQ numbers: the lowest free one is handed out again (%u, %u)",
          cqn, cq2 ? cq2->cqn : 0);

    node_use_uctx(n);
    CHECK(node_create_srq(n, 4, 6, 0, &st) != NULL, "an SRQ in a context (%u)",
          st);
    for (i = 0; i < QRNIC_OBJ_COUNT; i++) {
        CHECK(e->obj[i].used > 0, "before the reset: %s objects live (%u)",
              e->obj[i].kind, e->obj[i].used);
    }
    qf_reset(&n->d);
    for (i = 0; i < QRNIC_OBJ_COUNT; i++) {
        CHECK_EQ(e->obj[i].used, 0, "after the reset: no %s left",
                 e->obj[i].kind);
    }
    node_use_kernel(n);
}

/*
 * With 1022 QPs the index takes 10 bits: index 1023 in its last
 * generation would make QPN 0xffffff, which names multicast, not a QP.
 */
static void test_mcast_qpn(void)
{
    struct node *n = &nodes[0];
    struct qrnic_table *t = &n->d.e.obj[QRNIC_OBJ_QP];
    uint32_t last = (1u << n->d.e.qpn_idx_bits) - 1, qpn;
    struct hcq *cq = node_create_cq(n, 6);
    struct hqp *qp;

    CHECK_EQ(n->d.e.qpn_idx_bits, 10, "1022 QPs: 10 index bits");
    t->next = last;
    qp = node_create_qp(n, cq, cq, 4, 6, 4, 6);
    CHECK(qp && (qp->qpn & last) == last, "a QP at index 0x%x (0x%x)", last,
          qp ? qp->qpn : 0);
    if (!qp) {
        return;
    }
    CHECK_EQ(destroy_qp(n, qp->qpn), QRNIC_ST_OK, "destroyed");
    /* The next use of the slot would be generation 0x3fff. */
    qrnic_table_set_gen(t, last, 0x3ffe);
    t->next = last;
    qp = node_create_qp(n, cq, cq, 4, 6, 4, 6);
    qpn = qp ? qp->qpn : 0;
    CHECK(qp && qpn != QRNIC_MCAST_QPN && (qpn & last) == last,
          "a QP at index 0x%x in its last generation: QPN 0x%x, not 0x%x",
          last, qpn, QRNIC_MCAST_QPN);
    CHECK(qp && destroy_qp(n, qpn) == QRNIC_ST_OK, "destroyed");
    t->next = last;
    qp = node_create_qp(n, cq, cq, 4, 6, 4, 6);
    CHECK(qp && qp->qpn != qpn && qp->qpn != QRNIC_MCAST_QPN &&
          (qp->qpn & last) == last,
          "the slot's next QP has a new QPN again (0x%x)", qp ? qp->qpn : 0);
}

int main(void)
{
    test_lowest_free();
    test_rotate_and_full();
    harness_init(11);
    test_kinds();
    test_handles();
    harness_fini();
    harness_small_tables();
    harness_init(12);
    test_mcast_qpn();
    harness_fini();
    return tap_failures ? 1 : 0;
}
