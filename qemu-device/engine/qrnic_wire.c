/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: RC and UD packet formats.  Header layouts follow the IBTA spec
 * (volume 1, chapter 9) and its RoCEv2 annex; every multi-byte field on
 * the wire is big endian.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define F(x) QRNIC_OPF_##x
#define REQ_(x) (F(VALID) | F(REQ) | (x))
#define RSP_(x) (F(VALID) | (x))

static const uint32_t op_flags[] = {
    [QRNIC_OP_SEND_FIRST] = REQ_(F(SEND) | F(FIRST) | F(PAYLOAD)),
    [QRNIC_OP_SEND_MIDDLE] = REQ_(F(SEND) | F(MIDDLE) | F(PAYLOAD)),
    [QRNIC_OP_SEND_LAST] = REQ_(F(SEND) | F(LAST) | F(PAYLOAD)),
    [QRNIC_OP_SEND_LAST_IMM] = REQ_(F(SEND) | F(LAST) | F(PAYLOAD) | F(IMM)),
    [QRNIC_OP_SEND_ONLY] = REQ_(F(SEND) | F(ONLY) | F(PAYLOAD)),
    [QRNIC_OP_SEND_ONLY_IMM] = REQ_(F(SEND) | F(ONLY) | F(PAYLOAD) | F(IMM)),
    [QRNIC_OP_WRITE_FIRST] = REQ_(F(WRITE) | F(FIRST) | F(PAYLOAD) | F(RETH)),
    [QRNIC_OP_WRITE_MIDDLE] = REQ_(F(WRITE) | F(MIDDLE) | F(PAYLOAD)),
    [QRNIC_OP_WRITE_LAST] = REQ_(F(WRITE) | F(LAST) | F(PAYLOAD)),
    [QRNIC_OP_WRITE_LAST_IMM] = REQ_(F(WRITE) | F(LAST) | F(PAYLOAD) |
                                     F(IMM)),
    [QRNIC_OP_WRITE_ONLY] = REQ_(F(WRITE) | F(ONLY) | F(PAYLOAD) | F(RETH)),
    [QRNIC_OP_WRITE_ONLY_IMM] = REQ_(F(WRITE) | F(ONLY) | F(PAYLOAD) |
                                     F(RETH) | F(IMM)),
    [QRNIC_OP_READ_REQ] = REQ_(F(READ) | F(ONLY) | F(RETH)),
    [QRNIC_OP_READ_RESP_FIRST] = RSP_(F(READ) | F(FIRST) | F(PAYLOAD) |
                                      F(AETH)),
    [QRNIC_OP_READ_RESP_MIDDLE] = RSP_(F(READ) | F(MIDDLE) | F(PAYLOAD)),
    [QRNIC_OP_READ_RESP_LAST] = RSP_(F(READ) | F(LAST) | F(PAYLOAD) |
                                     F(AETH)),
    [QRNIC_OP_READ_RESP_ONLY] = RSP_(F(READ) | F(ONLY) | F(PAYLOAD) |
                                     F(AETH)),
    [QRNIC_OP_ACK] = RSP_(F(AETH)),
    [QRNIC_OP_ATOMIC_ACK] = RSP_(F(AETH) | F(ATOMIC_ACK)),
    [QRNIC_OP_CMP_SWAP] = REQ_(F(ONLY) | F(ATOMIC)),
    [QRNIC_OP_FETCH_ADD] = REQ_(F(ONLY) | F(ATOMIC)),
    [QRNIC_OP_FLUSH] = REQ_(F(ONLY) | F(FETH) | F(RETH) | F(FLUSH)),
    [QRNIC_OP_ATOMIC_WRITE] = REQ_(F(ONLY) | F(PAYLOAD) | F(RETH) |
                                   F(ATOMIC_WRITE)),
    [QRNIC_OP_SEND_LAST_INV] = REQ_(F(SEND) | F(LAST) | F(PAYLOAD) | F(IETH)),
    [QRNIC_OP_SEND_ONLY_INV] = REQ_(F(SEND) | F(ONLY) | F(PAYLOAD) | F(IETH)),
#define UC_(op) [QRNIC_OP_UC_BASE + QRNIC_OP_##op] = F(UC)
    UC_(SEND_FIRST) | REQ_(F(SEND) | F(FIRST) | F(PAYLOAD)),
    UC_(SEND_MIDDLE) | REQ_(F(SEND) | F(MIDDLE) | F(PAYLOAD)),
    UC_(SEND_LAST) | REQ_(F(SEND) | F(LAST) | F(PAYLOAD)),
    UC_(SEND_LAST_IMM) | REQ_(F(SEND) | F(LAST) | F(PAYLOAD) | F(IMM)),
    UC_(SEND_ONLY) | REQ_(F(SEND) | F(ONLY) | F(PAYLOAD)),
    UC_(SEND_ONLY_IMM) | REQ_(F(SEND) | F(ONLY) | F(PAYLOAD) | F(IMM)),
    UC_(WRITE_FIRST) | REQ_(F(WRITE) | F(FIRST) | F(PAYLOAD) | F(RETH)),
    UC_(WRITE_MIDDLE) | REQ_(F(WRITE) | F(MIDDLE) | F(PAYLOAD)),
    UC_(WRITE_LAST) | REQ_(F(WRITE) | F(LAST) | F(PAYLOAD)),
    UC_(WRITE_LAST_IMM) | REQ_(F(WRITE) | F(LAST) | F(PAYLOAD) | F(IMM)),
    UC_(WRITE_ONLY) | REQ_(F(WRITE) | F(ONLY) | F(PAYLOAD) | F(RETH)),
    UC_(WRITE_ONLY_IMM) | REQ_(F(WRITE) | F(ONLY) | F(PAYLOAD) | F(RETH) |
                              F(IMM)),
#undef UC_
    [QRNIC_OP_UD_SEND_ONLY] = REQ_(F(SEND) | F(ONLY) | F(PAYLOAD) | F(DETH)),
    [QRNIC_OP_UD_SEND_ONLY_IMM] = REQ_(F(SEND) | F(ONLY) | F(PAYLOAD) |
                                       F(DETH) | F(IMM)),
};

/* An RC opcode's flags in its XRC form: not FLUSH nor ATOMIC WRITE. */
static uint32_t xrc_op_flags(uint8_t rc_opcode)
{
    uint32_t opf = op_flags[rc_opcode];

    if (!(opf & F(VALID)) || (opf & (F(FLUSH) | F(ATOMIC_WRITE)))) {
        return 0;
    }
    return opf | F(XRC) | ((opf & F(REQ)) ? F(XRCETH) : 0);
}

uint32_t qrnic_op_flags(uint8_t opcode)
{
    if (opcode >= QRNIC_OP_XRC_BASE && opcode < QRNIC_OP_XRC_BASE + 0x20) {
        return xrc_op_flags(opcode - QRNIC_OP_XRC_BASE);
    }
    return opcode < sizeof(op_flags) / sizeof(op_flags[0]) ?
           op_flags[opcode] : 0;
}

bool qrnic_gid_is_v4(const uint8_t *gid)
{
    static const uint8_t prefix[12] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
    };

    return !memcmp(gid, prefix, sizeof(prefix));
}

static void v4_to_gid(uint8_t *gid, const uint8_t *addr)
{
    memset(gid, 0, 10);
    gid[10] = gid[11] = 0xff;
    memcpy(gid + 12, addr, 4);
}

bool qrnic_wire_parse(const uint8_t *f, const struct qrnic_roce_pkt *pkt,
                      struct qrnic_rx *rx)
{
    const uint8_t *b = f + pkt->bth;
    const uint8_t *ip = f + pkt->l3;
    size_t off = pkt->bth + QRNIC_BTH_LEN;
    size_t end;
    uint32_t w;

    memset(rx, 0, sizeof(*rx));
    rx->frame = f;
    rx->pkt = *pkt;
    rx->opcode = b[0];
    rx->opf = qrnic_op_flags(rx->opcode);
    if (!(rx->opf & F(VALID)) || (b[1] & 0x0f) != 0 ||
        (qrnic_ld16_be(b + 2) & 0x7fff) != 0x7fff) {
        return false;       /* not RC, UC, XRC or UD SEND, version, P_Key */
    }
    if (rx->opf & F(XRC)) {
        rx->opcode -= QRNIC_OP_XRC_BASE;
    }
    rx->se = b[1] & QRNIC_BTH_SE;
    rx->dqpn = qrnic_ld32_be(b + 4) & QRNIC_PSN_MASK;
    w = qrnic_ld32_be(b + 8);
    rx->ackreq = w & QRNIC_BTH_ACKREQ;
    rx->psn = w & QRNIC_PSN_MASK;
    end = pkt->end - QRNIC_ICRC_LEN;
    if ((size_t)((b[1] >> 4) & 3) > end - off) {
        return false;
    }
    end -= (b[1] >> 4) & 3;

#define NEED(n) do { if (end - off < (n)) { return false; } } while (0)
    if (rx->opf & F(XRCETH)) {
        NEED(QRNIC_XRCETH_LEN);
        rx->xrc_srqn = qrnic_ld32_be(f + off) & QRNIC_PSN_MASK;
        off += QRNIC_XRCETH_LEN;
    }
    if (rx->opf & F(DETH)) {
        NEED(QRNIC_DETH_LEN);
        rx->qkey = qrnic_ld32_be(f + off);
        rx->src_qp = qrnic_ld32_be(f + off + 4) & QRNIC_PSN_MASK;
        off += QRNIC_DETH_LEN;
    }
    if (rx->opf & F(FETH)) {
        NEED(QRNIC_FETH_LEN);
        w = qrnic_ld32_be(f + off);
        rx->flush_type = w & QRNIC_FETH_PLT_MASK;
        rx->flush_level = (w & QRNIC_FETH_SEL_MASK) >> QRNIC_FETH_SEL_SHIFT;
        off += QRNIC_FETH_LEN;
    }
    if (rx->opf & F(RETH)) {
        NEED(QRNIC_RETH_LEN);
        rx->va = qrnic_ld64_be(f + off);
        rx->rkey = qrnic_ld32_be(f + off + 8);
        rx->dma_len = qrnic_ld32_be(f + off + 12);
        off += QRNIC_RETH_LEN;
    }
    if (rx->opf & F(ATOMIC)) {
        NEED(QRNIC_ATOMIC_ETH_LEN);
        rx->va = qrnic_ld64_be(f + off);
        rx->rkey = qrnic_ld32_be(f + off + 8);
        rx->swap_add = qrnic_ld64_be(f + off + 12);
        rx->compare = qrnic_ld64_be(f + off + 20);
        off += QRNIC_ATOMIC_ETH_LEN;
    }
    if (rx->opf & F(AETH)) {
        NEED(QRNIC_AETH_LEN);
        w = qrnic_ld32_be(f + off);
        rx->syndrome = (uint8_t)(w >> 24);
        rx->msn = w & QRNIC_PSN_MASK;
        off += QRNIC_AETH_LEN;
    }
    if (rx->opf & F(ATOMIC_ACK)) {
        NEED(QRNIC_ATOMIC_ACK_LEN);
        rx->orig = qrnic_ld64_be(f + off);
        off += QRNIC_ATOMIC_ACK_LEN;
    }
    if (rx->opf & F(IETH)) {
        NEED(QRNIC_IETH_LEN);
        rx->ieth = qrnic_ld32_be(f + off);
        off += QRNIC_IETH_LEN;
    }
    if (rx->opf & F(IMM)) {
        NEED(QRNIC_IMM_LEN);
        memcpy(&rx->imm, f + off, QRNIC_IMM_LEN);
        off += QRNIC_IMM_LEN;
    }
#undef NEED
    if (!(rx->opf & F(PAYLOAD)) && off != end) {
        return false;
    }
    rx->payload = f + off;
    rx->paylen = (uint32_t)(end - off);

    if (pkt->ipv6) {
        memcpy(rx->sgid, ip + offsetof(struct qrnic_ipv6hdr, saddr), 16);
        memcpy(rx->dgid, ip + offsetof(struct qrnic_ipv6hdr, daddr), 16);
    } else {
        v4_to_gid(rx->sgid, ip + offsetof(struct qrnic_ipv4hdr, saddr));
        v4_to_gid(rx->dgid, ip + offsetof(struct qrnic_ipv4hdr, daddr));
    }
    return true;
}

static uint16_t ipv4_checksum(const uint8_t *h, size_t len)
{
    uint32_t sum = 0;
    size_t i;

    for (i = 0; i < len; i += 2) {
        sum += qrnic_ld16_be(h + i);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return (uint16_t)~sum;
}

static size_t l3_len(bool ipv4)
{
    return ipv4 ? sizeof(struct qrnic_ipv4hdr) : sizeof(struct qrnic_ipv6hdr);
}

uint16_t qrnic_wire_sport(uint32_t flow_label, uint32_t qpn, uint32_t dqpn)
{
    uint32_t fl = flow_label;

    if (!fl) {
        uint64_t v = (uint64_t)qpn * dqpn;

        v ^= v >> 20;
        v ^= v >> 40;
        fl = (uint32_t)v & QRNIC_FLOW_LABEL_MASK;
    }
    return (uint16_t)(0xc000 | ((fl ^ (fl >> 14)) & 0x3fff));
}

size_t qrnic_wire_begin(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                        uint8_t *f, uint8_t opcode, uint32_t psn, bool se,
                        bool ackreq)
{
    struct qrnic_av av;
    size_t pos;

    memcpy(av.dmac, qp->attr.dmac, 6);
    memcpy(av.sgid, qp->attr.sgid, 16);
    memcpy(av.dgid, qp->attr.dgid, 16);
    av.ipv4 = qp->attr.ipv4;
    av.tclass = qp->attr.tclass;
    av.hop_limit = qp->attr.hop_limit;
    av.flow_label = qp->attr.flow_label;
    av.sport = qp->attr.sport;
    av.dest_qpn = qp->attr.dest_qpn;
    if (!qrnic_qp_is_xrc(qp)) {
        return qrnic_wire_begin_av(e, &av, f, opcode, psn, se, ackreq);
    }
    pos = qrnic_wire_begin_av(e, &av, f, opcode + QRNIC_OP_XRC_BASE, psn, se,
                              ackreq);
    if (qrnic_op_flags(opcode + QRNIC_OP_XRC_BASE) & F(XRCETH)) {
        pos += qrnic_put_xrceth(f + pos, qp->req.cur.xrc_srqn);
    }
    return pos;
}

size_t qrnic_wire_begin_av(struct qrnic_engine *e, const struct qrnic_av *av,
                           uint8_t *f, uint8_t opcode, uint32_t psn, bool se,
                           bool ackreq)
{
    size_t l3 = sizeof(struct qrnic_ethhdr);
    size_t l4 = l3 + l3_len(av->ipv4);
    uint8_t *ip = f + l3;
    uint8_t *udp = f + l4;
    uint8_t *b = udp + sizeof(struct qrnic_udphdr);

    memcpy(f, av->dmac, 6);
    memcpy(f + 6, e->mac, 6);
    qrnic_st16_be(f + 12, av->ipv4 ? QRNIC_ETH_P_IPV4 : QRNIC_ETH_P_IPV6);
    if (av->ipv4) {
        memset(ip, 0, sizeof(struct qrnic_ipv4hdr));
        ip[0] = 0x45;
        ip[offsetof(struct qrnic_ipv4hdr, tos)] = av->tclass;
        qrnic_st16_be(ip + offsetof(struct qrnic_ipv4hdr, id), e->ip_id++);
        qrnic_st16_be(ip + offsetof(struct qrnic_ipv4hdr, frag_off), 0x4000);
        ip[offsetof(struct qrnic_ipv4hdr, ttl)] = av->hop_limit;
        ip[offsetof(struct qrnic_ipv4hdr, protocol)] = QRNIC_IPPROTO_UDP;
        memcpy(ip + offsetof(struct qrnic_ipv4hdr, saddr), av->sgid + 12, 4);
        memcpy(ip + offsetof(struct qrnic_ipv4hdr, daddr), av->dgid + 12, 4);
    } else {
        qrnic_st32_be(ip, 6u << 28 | (uint32_t)av->tclass << 20 |
                      (av->flow_label & QRNIC_FLOW_LABEL_MASK));
        ip[offsetof(struct qrnic_ipv6hdr, nexthdr)] = QRNIC_IPPROTO_UDP;
        ip[offsetof(struct qrnic_ipv6hdr, hop_limit)] = av->hop_limit;
        memcpy(ip + offsetof(struct qrnic_ipv6hdr, saddr), av->sgid, 16);
        memcpy(ip + offsetof(struct qrnic_ipv6hdr, daddr), av->dgid, 16);
    }
    qrnic_st16_be(udp, av->sport);
    qrnic_st16_be(udp + 2, QRNIC_ROCE_UDP_PORT);
    qrnic_st32_be(udp + 4, 0);          /* length later, checksum 0 */
    b[0] = opcode;
    b[1] = se ? QRNIC_BTH_SE : 0;
    qrnic_st16_be(b + 2, QRNIC_DEFAULT_PKEY);
    qrnic_st32_be(b + 4, av->dest_qpn & QRNIC_PSN_MASK);
    qrnic_st32_be(b + 8, (psn & QRNIC_PSN_MASK) |
                  (ackreq ? QRNIC_BTH_ACKREQ : 0));
    return (size_t)(b + QRNIC_BTH_LEN - f);
}

size_t qrnic_wire_finish(const struct qrnic_qpc *qp, uint8_t *f, size_t len)
{
    return qrnic_wire_finish_ip(qp->attr.ipv4, f, len);
}

size_t qrnic_wire_finish_ip(bool ipv4, uint8_t *f, size_t len)
{
    struct qrnic_roce_pkt pkt;
    size_t pad;

    pkt.ipv6 = !ipv4;
    pkt.l3 = sizeof(struct qrnic_ethhdr);
    pkt.l3_len = l3_len(ipv4);
    pkt.l4 = pkt.l3 + pkt.l3_len;
    pkt.bth = pkt.l4 + sizeof(struct qrnic_udphdr);
    pad = (4 - ((len - pkt.bth) & 3)) & 3;
    memset(f + len, 0, pad);
    f[pkt.bth + 1] |= (uint8_t)(pad << 4);
    len += pad;
    pkt.end = len + QRNIC_ICRC_LEN;

    if (ipv4) {
        uint8_t *ip = f + pkt.l3;

        qrnic_st16_be(ip + offsetof(struct qrnic_ipv4hdr, tot_len),
                      (uint16_t)(pkt.end - pkt.l3));
        qrnic_st16_be(ip + offsetof(struct qrnic_ipv4hdr, check), 0);
        qrnic_st16_be(ip + offsetof(struct qrnic_ipv4hdr, check),
                      ipv4_checksum(ip, sizeof(struct qrnic_ipv4hdr)));
    } else {
        qrnic_st16_be(f + pkt.l3 + offsetof(struct qrnic_ipv6hdr,
                                            payload_len),
                      (uint16_t)(pkt.end - pkt.l4));
    }
    qrnic_st16_be(f + pkt.l4 + offsetof(struct qrnic_udphdr, len),
                  (uint16_t)(pkt.end - pkt.l4));
    qrnic_st32(f + len, qrnic_icrc_compute(f, &pkt));
    return pkt.end;
}

size_t qrnic_put_reth(uint8_t *p, uint64_t va, uint32_t rkey, uint32_t len)
{
    qrnic_st64_be(p, va);
    qrnic_st32_be(p + 8, rkey);
    qrnic_st32_be(p + 12, len);
    return QRNIC_RETH_LEN;
}

size_t qrnic_put_aeth(uint8_t *p, uint8_t syndrome, uint32_t msn)
{
    qrnic_st32_be(p, (uint32_t)syndrome << 24 | (msn & QRNIC_PSN_MASK));
    return QRNIC_AETH_LEN;
}

size_t qrnic_put_atomic_eth(uint8_t *p, uint64_t va, uint32_t rkey,
                            uint64_t swap_add, uint64_t compare)
{
    qrnic_st64_be(p, va);
    qrnic_st32_be(p + 8, rkey);
    qrnic_st64_be(p + 12, swap_add);
    qrnic_st64_be(p + 20, compare);
    return QRNIC_ATOMIC_ETH_LEN;
}

size_t qrnic_put_imm(uint8_t *p, uint32_t imm)
{
    memcpy(p, &imm, QRNIC_IMM_LEN);
    return QRNIC_IMM_LEN;
}

size_t qrnic_put_ieth(uint8_t *p, uint32_t rkey)
{
    qrnic_st32_be(p, rkey);
    return QRNIC_IETH_LEN;
}

size_t qrnic_put_deth(uint8_t *p, uint32_t qkey, uint32_t src_qp)
{
    qrnic_st32_be(p, qkey);
    qrnic_st32_be(p + 4, src_qp & QRNIC_PSN_MASK);
    return QRNIC_DETH_LEN;
}

size_t qrnic_put_feth(uint8_t *p, uint8_t type, uint8_t level)
{
    qrnic_st32_be(p, (type & QRNIC_FETH_PLT_MASK) |
                  (((uint32_t)level << QRNIC_FETH_SEL_SHIFT) &
                   QRNIC_FETH_SEL_MASK));
    return QRNIC_FETH_LEN;
}

size_t qrnic_put_xrceth(uint8_t *p, uint32_t srqn)
{
    qrnic_st32_be(p, srqn & QRNIC_PSN_MASK);
    return QRNIC_XRCETH_LEN;
}
