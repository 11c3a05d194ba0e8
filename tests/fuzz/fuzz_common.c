/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by the engine fuzz targets; see fuzz_common.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "qrnic_hw.h"
#include "qrnic_le.h"
#include "qrnic_roce.h"
#include "rc_harness.h"

uint8_t fz_u8(struct fz *f)
{
    if (!f->n) {
        return 0;
    }
    f->n--;
    return *f->p++;
}

uint16_t fz_u16(struct fz *f)
{
    uint16_t lo = fz_u8(f);

    return (uint16_t)(lo | fz_u8(f) << 8);
}

uint32_t fz_u32(struct fz *f)
{
    uint32_t lo = fz_u16(f);

    return lo | (uint32_t)fz_u16(f) << 16;
}

uint64_t fz_u64(struct fz *f)
{
    uint64_t lo = fz_u32(f);

    return lo | (uint64_t)fz_u32(f) << 32;
}

void fz_bytes(struct fz *f, void *buf, size_t len)
{
    size_t n = len < f->n ? len : f->n;

    memcpy(buf, f->p, n);
    memset((uint8_t *)buf + n, 0, len - n);
    f->p += n;
    f->n -= n;
}

void fzw_u8(struct fzw *w, uint8_t v)
{
    if (w->n == sizeof(w->b)) {
        fz_fail("seed longer than %zu bytes", sizeof(w->b));
    }
    w->b[w->n++] = v;
}

void fzw_u16(struct fzw *w, uint16_t v)
{
    fzw_u8(w, (uint8_t)v);
    fzw_u8(w, (uint8_t)(v >> 8));
}

void fzw_u32(struct fzw *w, uint32_t v)
{
    fzw_u16(w, (uint16_t)v);
    fzw_u16(w, (uint16_t)(v >> 16));
}

void fzw_u64(struct fzw *w, uint64_t v)
{
    fzw_u32(w, (uint32_t)v);
    fzw_u32(w, (uint32_t)(v >> 32));
}

void fzw_bytes(struct fzw *w, const void *buf, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        fzw_u8(w, ((const uint8_t *)buf)[i]);
    }
}

void fzw_fill(struct fzw *w, uint8_t v, size_t len)
{
    while (len--) {
        fzw_u8(w, v);
    }
}

static size_t l3_off(const struct fz_l3 *l3)
{
    return 14 + (l3->vlan ? 4 : 0);
}

static size_t l4_off(const struct fz_l3 *l3)
{
    return l3_off(l3) + (l3->ipv6 ? 40 : 20);
}

size_t fz_roce_begin(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
                     const struct fz_l3 *l3)
{
    size_t ip = l3_off(l3), udp = l4_off(l3);

    memcpy(f, dmac, 6);
    memcpy(f + 6, smac, 6);
    if (l3->vlan) {
        qrnic_st16_be(f + 12, QRNIC_ETH_P_8021Q);
        qrnic_st16_be(f + 14, 5);
    }
    qrnic_st16_be(f + ip - 2, l3->ipv6 ? QRNIC_ETH_P_IPV6 : QRNIC_ETH_P_IPV4);
    memset(f + ip, 0, udp - ip);
    if (l3->ipv6) {
        f[ip] = 0x60;
        f[ip + 6] = QRNIC_IPPROTO_UDP;
        f[ip + 7] = 64;
        memcpy(f + ip + 8, l3->sgid, 16);
        memcpy(f + ip + 24, l3->dgid, 16);
    } else {
        f[ip] = 0x45;
        qrnic_st16_be(f + ip + 6, 0x4000);      /* DF */
        f[ip + 8] = 64;
        f[ip + 9] = QRNIC_IPPROTO_UDP;
        memcpy(f + ip + 12, l3->sgid + 12, 4);
        memcpy(f + ip + 16, l3->dgid + 12, 4);
    }
    qrnic_st16_be(f + udp, 0xc000);
    qrnic_st16_be(f + udp + 2, QRNIC_ROCE_UDP_PORT);
    qrnic_st32_be(f + udp + 4, 0);
    return udp + 8;
}

void fz_icrc_fix(uint8_t *f, size_t len)
{
    struct qrnic_roce_pkt pkt;

    if (qrnic_roce_parse(f, len, &pkt)) {
        qrnic_st32(f + pkt.end - QRNIC_ICRC_LEN, qrnic_icrc_compute(f, &pkt));
    }
}

size_t fz_roce_finish(uint8_t *f, size_t len, const struct fz_l3 *l3,
                      bool fix_icrc)
{
    size_t ip = l3_off(l3), udp = l4_off(l3), end = len + QRNIC_ICRC_LEN;

    if (l3->ipv6) {
        qrnic_st16_be(f + ip + 4, (uint16_t)(end - udp));
    } else {
        qrnic_st16_be(f + ip + 2, (uint16_t)(end - ip));
    }
    qrnic_st16_be(f + udp + 4, (uint16_t)(end - udp));
    qrnic_st32(f + len, 0);
    if (fix_icrc) {
        fz_icrc_fix(f, end);
    }
    return end;
}

void fz_v6_gid(int idx, uint8_t *gid)
{
    static const uint8_t v6[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
                                    0x50, 0x54, 0x00, 0xff, 0xfe, 0, 0, 0 };

    memcpy(gid, v6, 16);
    gid[15] = (uint8_t)(idx + 1);
}

uint8_t fz_add_v6_gid(struct node *n)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ADD_GID);

    c.add_gid.index = 1;
    c.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
    fz_v6_gid(n->idx, c.add_gid.gid);
    return node_cmd(n, &c, NULL);
}

uint8_t fz_ud_up(struct hqp *qp, uint32_t qkey, bool gsi, uint8_t state)
{
    struct qrnic_qp_attr a;
    uint8_t st;

    memset(&a, 0, sizeof(a));
    a.qp_state = QRNIC_QPS_INIT;
    a.port_num = 1;
    a.qkey = qkey;
    st = qp_modify(qp, QRNIC_QP_ATTR_STATE | QRNIC_QP_ATTR_PKEY_INDEX |
                   QRNIC_QP_ATTR_QKEY | (gsi ? 0 : QRNIC_QP_ATTR_PORT), &a);
    if (st || state == QRNIC_QPS_INIT) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTR;
    st = qp_modify(qp, QRNIC_QP_ATTR_STATE, &a);
    if (st || state == QRNIC_QPS_RTR) {
        return st;
    }
    a.qp_state = QRNIC_QPS_RTS;
    a.sq_psn = qkey & 0xffffff;
    return qp_modify(qp, QRNIC_QP_ATTR_STATE | QRNIC_QP_ATTR_SQ_PSN, &a);
}

void fz_fail(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: ", fuzz_target_name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    abort();
}
