/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's device properties: -device qrnic's names and ranges,
 * set on the command line and, for those QEMU lets qom-set change on a
 * running device, from the control socket.
 */
#include <stdio.h>
#include <string.h>
#include "qrnic_vu.h"

#define DEFAULT_DB_PAGES    1024
#define DEFAULT_QMEM_SIZE   (256ull << 20)
#define MIN_QMEM_SIZE       (64ull << 10)
#define MAX_QMEM_SIZE       (2ull << 30)
#define MIN_WINDOW_KIB      16

enum prop_live { AT_START, LIVE_FAULT, LIVE_WINDOW, LIVE_PKTS, LIVE_DB_WORK };

struct prop {
    const char *name;
    size_t offset;      /* in struct qvu_config */
    int bytes;          /* 4 or 8 */
    uint64_t min, max;
    enum prop_live live;
};

#define P32(n, f, lo, hi, l) { n, offsetof(struct qvu_config, f), 4, lo, hi, l }
#define P64(n, f, lo, hi, l) { n, offsetof(struct qvu_config, f), 8, lo, hi, l }

static const struct prop props[] = {
    P32("db-pages", db_pages, QRNIC_ENG_MIN_DB_PAGES, QRNIC_ENG_MAX_DB_PAGES,
        AT_START),
    P64("qmem-size", qmem_size, MIN_QMEM_SIZE, MAX_QMEM_SIZE, AT_START),
    P32("max-qps", obj_max[QRNIC_OBJ_QP], 1, QRNIC_ENG_MAX_OBJECTS, AT_START),
    P32("max-cqs", obj_max[QRNIC_OBJ_CQ], 1, QRNIC_ENG_MAX_OBJECTS, AT_START),
    P32("max-srqs", obj_max[QRNIC_OBJ_SRQ], 1, QRNIC_ENG_MAX_OBJECTS,
        AT_START),
    P32("max-keys", obj_max[QRNIC_OBJ_KEY], 1, QRNIC_ENG_MAX_OBJECTS,
        AT_START),
    P32("max-pds", obj_max[QRNIC_OBJ_PD], 1, QRNIC_ENG_MAX_OBJECTS, AT_START),
    P32("max-mr-pages", mtt_max, 1, QRNIC_ENG_MAX_MTT, AT_START),
    P32("ctx-max-pds", ctx_max[QRNIC_CTX_PD], 0, UINT32_MAX, AT_START),
    P32("ctx-max-cqs", ctx_max[QRNIC_CTX_CQ], 0, UINT32_MAX, AT_START),
    P32("ctx-max-qps", ctx_max[QRNIC_CTX_QP], 0, UINT32_MAX, AT_START),
    P32("ctx-max-srqs", ctx_max[QRNIC_CTX_SRQ], 0, UINT32_MAX, AT_START),
    P32("ctx-max-mrs", ctx_max[QRNIC_CTX_MR], 0, UINT32_MAX, AT_START),
    P32("ctx-max-mws", ctx_max[QRNIC_CTX_MW], 0, UINT32_MAX, AT_START),
    P32("ctx-max-mr-pages", ctx_max[QRNIC_CTX_MR_PAGES], 0, UINT32_MAX,
        AT_START),
    P64("ctx-max-qmem", ctx_max_qmem, 0, MAX_QMEM_SIZE, AT_START),
    P32("window-kib", win_kib, MIN_WINDOW_KIB,
        QRNIC_ENG_WINDOW_MAX_BYTES / 1024, LIVE_WINDOW),
    P32("x-window-pkts", win_pkts, 2, QRNIC_ENG_WINDOW_MAX_PKTS, LIVE_PKTS),
    P32("x-db-work", db_work, 0, QRNIC_DB_WORK_MAX, LIVE_DB_WORK),
    P32("x-drop-ppm", fault.drop_ppm, 0, QRNIC_FAULT_PPM_MAX, LIVE_FAULT),
    P32("x-dup-ppm", fault.dup_ppm, 0, QRNIC_FAULT_PPM_MAX, LIVE_FAULT),
    P32("x-reorder-ppm", fault.reorder_ppm, 0, QRNIC_FAULT_PPM_MAX,
        LIVE_FAULT),
    P32("x-corrupt-ppm", fault.corrupt_ppm, 0, QRNIC_FAULT_PPM_MAX,
        LIVE_FAULT),
    P64("x-fault-seed", fault.seed, 0, UINT64_MAX, LIVE_FAULT),
};

void qvu_config_defaults(struct qvu_config *c)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };

    memset(c, 0, sizeof(*c));
    memcpy(c->mac, mac, sizeof(mac));
    c->db_pages = DEFAULT_DB_PAGES;
    c->qmem_size = DEFAULT_QMEM_SIZE;
    c->obj_max[QRNIC_OBJ_QP] = QRNIC_ENG_DEFAULT_QPS;
    c->obj_max[QRNIC_OBJ_CQ] = QRNIC_ENG_DEFAULT_CQS;
    c->obj_max[QRNIC_OBJ_SRQ] = QRNIC_ENG_DEFAULT_SRQS;
    c->obj_max[QRNIC_OBJ_KEY] = QRNIC_ENG_DEFAULT_KEYS;
    c->obj_max[QRNIC_OBJ_PD] = QRNIC_ENG_DEFAULT_PDS;
    c->mtt_max = QRNIC_ENG_DEFAULT_MTT;
    c->win_kib = QRNIC_ENG_WINDOW_BYTES / 1024;
    c->win_pkts = QRNIC_ENG_WINDOW_PKTS;
    c->db_work = QRNIC_DB_WORK_DEFAULT;
}

void qvu_props_list(FILE *f)
{
    size_t i;

    for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
        fprintf(f, "%s %s%s", i % 6 ? "" : "\n ", props[i].name,
                props[i].live == AT_START ? "" : "*");
    }
    fprintf(f, "\n");
}

/* A decimal number with an optional K, M or G (binary) suffix. */
static int parse_size(const char *s, uint64_t *v)
{
    static const char suffixes[] = "KMG";
    char digits[24];
    size_t len = strlen(s);
    const char *sfx = len ? strchr(suffixes, s[len - 1] & ~0x20) : NULL;
    int shift = 0;

    if (sfx && *sfx) {
        shift = 10 * (int)(sfx - suffixes + 1);
        len--;
    }
    if (!len || len >= sizeof(digits)) {
        return -1;
    }
    memcpy(digits, s, len);
    digits[len] = '\0';
    if (qvu_parse_u64(digits, v) || (shift && *v > (UINT64_MAX >> shift))) {
        return -1;
    }
    *v <<= shift;
    return 0;
}

/* What a property changed on a running device does to the engine. */
static void apply_live(struct qvu *q, enum prop_live live)
{
    switch (live) {
    case LIVE_FAULT:
        qrnic_engine_set_fault(&q->eng, &q->cfg.fault);
        break;
    case LIVE_WINDOW:
        q->eng.win_bytes = q->cfg.win_kib * 1024;
        break;
    case LIVE_PKTS:
        q->eng.win_pkts = q->cfg.win_pkts;
        break;
    case LIVE_DB_WORK:
        q->eng.db_work = q->cfg.db_work;
        break;
    case AT_START:
        break;
    }
}

int qvu_prop_set(struct qvu *q, const char *name, const char *value,
                 bool running, char *err, size_t errlen)
{
    size_t i;
    uint64_t v;

    for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
        const struct prop *p = &props[i];
        uint8_t *field = (uint8_t *)&q->cfg + p->offset;

        if (strcmp(name, p->name)) {
            continue;
        }
        if (running && p->live == AT_START) {
            snprintf(err, errlen, "property '%s' is set at start only",
                     name);
            return -1;
        }
        if (parse_size(value, &v) || v < p->min || v > p->max) {
            snprintf(err, errlen, "property '%s' is %llu..%llu, not '%s'",
                     name, (unsigned long long)p->min,
                     (unsigned long long)p->max, value);
            return -1;
        }
        if (p->bytes == 4) {
            uint32_t v32 = (uint32_t)v;

            memcpy(field, &v32, 4);
        } else {
            memcpy(field, &v, 8);
        }
        if (running) {
            apply_live(q, p->live);
        }
        return 0;
    }
    snprintf(err, errlen, "no property '%s'", name);
    return -1;
}
