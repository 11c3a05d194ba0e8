/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * QRNIC_CMD_LIST, the one list of admin commands, against what is built
 * from it: every opcode 1..QRNIC_CMD_MAX - 1 is one row with a name and an
 * engine handler (qrnic_cmds[]), and an opcode outside the list completes
 * with BAD_OPCODE on the device (tests/fake/qfake.h).  The fuzz
 * generator of tests/fuzz/fuzz_mmio.c is a table built from the list too: a
 * row without its gen_<name> does not build there.
 */
#include <ctype.h>
#include <string.h>
#include "aq_util.h"
#include "qrnic_engine.h"
#include "tap.h"

int tap_failures;

struct row {
    const char *name;
    unsigned int opcode;
    unsigned int value;         /* QRNIC_CMD_<NAME> */
    const char *lname;
    const char *creates;
};

#define ROW(name, opcode, lname, creates) \
    { #name, opcode, QRNIC_CMD_##name, #lname, #creates },

static const struct row rows[] = {
    QRNIC_CMD_LIST(ROW)
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static const char *const kinds[] = {
    "NONE", "EQ", "CQ", "PD", "UCTX", "QP", "SRQ", "KEY",
};

static bool is_lower_of(const char *lname, const char *name)
{
    size_t i;

    if (strlen(lname) != strlen(name)) {
        return false;
    }
    for (i = 0; name[i]; i++) {
        if (lname[i] != tolower((unsigned char)name[i])) {
            return false;
        }
    }
    return true;
}

static bool known_kind(const char *kind)
{
    size_t i;

    for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (!strcmp(kind, kinds[i])) {
            return true;
        }
    }
    return false;
}

static void test_rows(void)
{
    unsigned int seen[256] = { 0 };
    unsigned int i, handlers = 0, wrong = 0;

    CHECK(NROWS == QRNIC_CMD_MAX - 1,
          "QRNIC_CMD_LIST has QRNIC_CMD_MAX - 1 rows (%zu, max 0x%02x)",
          NROWS, QRNIC_CMD_MAX);
    for (i = 0; i < NROWS; i++) {
        const struct row *r = &rows[i];
        const struct qrnic_cmd_desc *d;
        bool in_range = r->opcode >= 1 && r->opcode < QRNIC_CMD_MAX;

        seen[r->opcode & 0xff]++;
        d = &qrnic_cmds[in_range ? r->opcode : 0];
        CHECK(in_range && r->value == r->opcode && r->name[0] &&
              is_lower_of(r->lname, r->name) && known_kind(r->creates) &&
              d->exec && d->name && !strcmp(d->name, r->name),
              "0x%02x %s: in 1..QRNIC_CMD_MAX - 1, QRNIC_CMD_%s, name %s, "
              "creates %s; the engine's entry has its name and a handler",
              r->opcode, r->name, r->name, r->lname, r->creates);
    }
    for (i = 1; i < QRNIC_CMD_MAX; i++) {
        if (seen[i] != 1) {
            printf("# opcode 0x%02x: %u rows\n", i, seen[i]);
            wrong++;
        }
        handlers += qrnic_cmds[i].exec != NULL;
    }
    CHECK_EQ(wrong, 0, "every opcode 1..QRNIC_CMD_MAX - 1 is one row");
    CHECK(!qrnic_cmds[0].exec && !qrnic_cmds[0].name && handlers == NROWS,
          "qrnic_cmds[]: one handler per row, none for opcode 0");
}

static bool listed(unsigned int opcode)
{
    size_t i;

    for (i = 0; i < NROWS; i++) {
        if (rows[i].opcode == opcode) {
            return true;
        }
    }
    return false;
}

/* Every opcode through the admin queue, all-zero arguments. */
static void test_dispatch(void)
{
    struct aq q;
    unsigned int op, lost = 0, outside = 0, bad = 0, listed_bad = 0;

    memset(&q, 0, sizeof(q));
    aq_setup(&q, 64, 4);
    for (op = 0; op < 256; op++) {
        struct qrnic_cmd c = mkcmd((uint8_t)op);
        struct aq_result r = aq_exec(&q, &c);

        if (!r.completed || r.opcode != op) {
            lost++;
        } else if (listed(op)) {
            /* Refused maybe, but by its handler. */
            listed_bad += r.status == QRNIC_ST_BAD_OPCODE;
        } else {
            outside++;
            bad += r.status == QRNIC_ST_BAD_OPCODE && !r.result0 &&
                   !r.result1;
        }
    }
    CHECK_EQ(lost, 0, "every opcode completes, its opcode echoed");
    CHECK(outside == 256 - NROWS && bad == outside,
          "each of the %u opcodes outside QRNIC_CMD_LIST -> BAD_OPCODE, "
          "results 0", outside);
    CHECK_EQ(listed_bad, 0,
             "no opcode of QRNIC_CMD_LIST -> BAD_OPCODE (its handler ran)");
    aq_fini(&q);
}

int main(void)
{
    test_rows();
    test_dispatch();
    return TAP_DONE();
}
