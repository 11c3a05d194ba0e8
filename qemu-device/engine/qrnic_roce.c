/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: RoCEv2 frame classification, ICRC and the receive entry
 * point, which hands a checked RC packet to its QP's responder (requests)
 * or completer (responses), and a UD datagram to its UD or GSI QP.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

/*
 * The ICRC covers the packet from the IP header on, preceded by 8 bytes of
 * 0xff standing for the masked LRH of an IB packet; starting the CRC from
 * 0xdebb20e3 (crc32_le(0xffffffff, ff*8)) accounts for them.
 */
#define QRNIC_ICRC_SEED         0xdebb20e3u
#define QRNIC_MAX_IPV4_HDR      60

/* Offset of the IP header and the ethertype, skipping one VLAN tag. */
static bool l2_parse(const uint8_t *f, size_t len, size_t *l3, uint16_t *proto)
{
    size_t off = offsetof(struct qrnic_ethhdr, proto);
    uint16_t p;

    if (len < sizeof(struct qrnic_ethhdr)) {
        return false;
    }
    p = qrnic_ld16_be(f + off);
    off += 2;
    if (p == QRNIC_ETH_P_8021Q) {
        if (len < off + sizeof(struct qrnic_vlanhdr)) {
            return false;
        }
        p = qrnic_ld16_be(f + off + offsetof(struct qrnic_vlanhdr, proto));
        off += sizeof(struct qrnic_vlanhdr);
    }
    *l3 = off;
    *proto = p;
    return true;
}

/*
 * Locate the IP and UDP headers of an unfragmented UDP datagram to port
 * 4791.  ip_end is where the IP packet ends according to its header.
 */
static bool l3_parse(const uint8_t *f, size_t len, struct qrnic_roce_pkt *pkt)
{
    uint16_t proto;
    size_t l3;

    if (!l2_parse(f, len, &l3, &proto)) {
        return false;
    }
    pkt->l3 = l3;
    if (proto == QRNIC_ETH_P_IPV4) {
        const uint8_t *ip = f + l3;
        size_t ihl;

        if (len < l3 + sizeof(struct qrnic_ipv4hdr) || (ip[0] >> 4) != 4) {
            return false;
        }
        ihl = (size_t)(ip[0] & 0xf) * 4;
        if (ihl < sizeof(struct qrnic_ipv4hdr) ||
            ip[offsetof(struct qrnic_ipv4hdr, protocol)] != QRNIC_IPPROTO_UDP ||
            (qrnic_ld16_be(ip + offsetof(struct qrnic_ipv4hdr, frag_off)) &
             0x3fff)) {
            return false;
        }
        pkt->ipv6 = false;
        pkt->l3_len = ihl;
        pkt->end = l3 + qrnic_ld16_be(ip + offsetof(struct qrnic_ipv4hdr,
                                                    tot_len));
    } else if (proto == QRNIC_ETH_P_IPV6) {
        const uint8_t *ip = f + l3;

        if (len < l3 + sizeof(struct qrnic_ipv6hdr) || (ip[0] >> 4) != 6 ||
            ip[offsetof(struct qrnic_ipv6hdr, nexthdr)] != QRNIC_IPPROTO_UDP) {
            return false;
        }
        pkt->ipv6 = true;
        pkt->l3_len = sizeof(struct qrnic_ipv6hdr);
        pkt->end = l3 + sizeof(struct qrnic_ipv6hdr) +
                   qrnic_ld16_be(ip + offsetof(struct qrnic_ipv6hdr,
                                               payload_len));
    } else {
        return false;
    }
    pkt->l4 = l3 + pkt->l3_len;
    if (len < pkt->l4 + sizeof(struct qrnic_udphdr)) {
        return false;
    }
    pkt->bth = pkt->l4 + sizeof(struct qrnic_udphdr);
    return qrnic_ld16_be(f + pkt->l4 + offsetof(struct qrnic_udphdr, dport)) ==
           QRNIC_ROCE_UDP_PORT;
}

bool qrnic_roce_is_roce_frame(const uint8_t *frame, size_t len)
{
    struct qrnic_roce_pkt pkt;

    return l3_parse(frame, len, &pkt);
}

bool qrnic_roce_parse(const uint8_t *frame, size_t len,
                      struct qrnic_roce_pkt *pkt)
{
    size_t udp_len;

    if (!l3_parse(frame, len, pkt) || pkt->end > len ||
        pkt->l3_len > QRNIC_MAX_IPV4_HDR) {
        return false;
    }
    udp_len = qrnic_ld16_be(frame + pkt->l4 +
                            offsetof(struct qrnic_udphdr, len));
    /* UDP must fill the IP packet and hold a BTH and the ICRC. */
    return pkt->l4 + udp_len == pkt->end &&
           udp_len >= sizeof(struct qrnic_udphdr) + sizeof(struct qrnic_bth) +
                      QRNIC_ICRC_LEN;
}

bool qrnic_roce_peek(const uint8_t *frame, size_t len, uint8_t *opcode,
                     uint32_t *dqpn, uint32_t *psn)
{
    struct qrnic_roce_pkt pkt;
    const uint8_t *b;

    if (!qrnic_roce_parse(frame, len, &pkt)) {
        return false;
    }
    b = frame + pkt.bth;
    *opcode = b[0];
    *dqpn = (uint32_t)b[5] << 16 | (uint32_t)b[6] << 8 | b[7];
    *psn = (uint32_t)b[9] << 16 | (uint32_t)b[10] << 8 | b[11];
    return true;
}

uint32_t qrnic_icrc_compute(const uint8_t *frame,
                            const struct qrnic_roce_pkt *pkt)
{
    uint8_t hdr[QRNIC_MAX_IPV4_HDR + sizeof(struct qrnic_udphdr) +
                sizeof(struct qrnic_bth)];
    size_t hlen = pkt->l3_len + sizeof(struct qrnic_udphdr) +
                  sizeof(struct qrnic_bth);
    size_t udp = pkt->l3_len;
    size_t bth = udp + sizeof(struct qrnic_udphdr);
    uint32_t crc;

    memcpy(hdr, frame + pkt->l3, hlen);
    if (pkt->ipv6) {
        /* Traffic class and flow label; version stays. */
        hdr[0] |= 0x0f;
        hdr[1] = hdr[2] = hdr[3] = 0xff;
        hdr[offsetof(struct qrnic_ipv6hdr, hop_limit)] = 0xff;
    } else {
        hdr[offsetof(struct qrnic_ipv4hdr, tos)] = 0xff;
        hdr[offsetof(struct qrnic_ipv4hdr, ttl)] = 0xff;
        hdr[offsetof(struct qrnic_ipv4hdr, check)] = 0xff;
        hdr[offsetof(struct qrnic_ipv4hdr, check) + 1] = 0xff;
    }
    hdr[udp + offsetof(struct qrnic_udphdr, check)] = 0xff;
    hdr[udp + offsetof(struct qrnic_udphdr, check) + 1] = 0xff;
    hdr[bth + offsetof(struct qrnic_bth, qpn)] = 0xff;     /* resv8a */

    crc = qrnic_crc32_le(QRNIC_ICRC_SEED, hdr, hlen);
    crc = qrnic_crc32_le(crc, frame + pkt->l3 + hlen,
                         pkt->end - QRNIC_ICRC_LEN - (pkt->l3 + hlen));
    return ~crc;
}

bool qrnic_icrc_check(const uint8_t *frame, const struct qrnic_roce_pkt *pkt)
{
    return qrnic_ld32(frame + pkt->end - QRNIC_ICRC_LEN) ==
           qrnic_icrc_compute(frame, pkt);
}

static void drop(struct qrnic_engine *e, enum qrnic_stat why)
{
    qrnic_stat(e, why);
    e->stats.rx_drop++;
}

void qrnic_roce_rx(struct qrnic_engine *e, const uint8_t *frame, size_t len)
{
    struct qrnic_roce_pkt pkt;
    struct qrnic_rx rx;
    struct qrnic_qpc *qp;

    e->stats.rx_roce++;
    qrnic_stat(e, QRNIC_STAT_RX_ROCE_PKTS);
    if (!qrnic_roce_parse(frame, len, &pkt)) {
        drop(e, QRNIC_STAT_RX_BAD_PKT);
        return;
    }
    if (!qrnic_icrc_check(frame, &pkt)) {
        e->stats.rx_icrc_err++;
        drop(e, QRNIC_STAT_RX_ICRC_ERR);
        return;
    }
    if (!qrnic_wire_parse(frame, &pkt, &rx)) {
        drop(e, QRNIC_STAT_RX_BAD_PKT);
        return;
    }
    if ((rx.opf & QRNIC_OPF_DETH) && rx.dqpn == QRNIC_MCAST_QPN) {
        qrnic_mcast_rx(e, &rx);
        return;
    }
    qp = qrnic_qp_get(e, rx.dqpn);
    if (rx.opf & QRNIC_OPF_DETH) {
        /* A datagram, from anyone, to one of our addresses. */
        if (!qp || !qrnic_qp_is_ud(qp) || !qrnic_gid_is_local(e, rx.dgid)) {
            drop(e, QRNIC_STAT_RX_BAD_PKT);
            return;
        }
        qrnic_ud_rx(e, qp, &rx);
        return;
    }
    /* A connected QP takes packets from its peer's address only. */
    if (!qp || qrnic_qp_is_ud(qp) ||
        !!(rx.opf & QRNIC_OPF_UC) != (qp->type == QRNIC_QPT_UC) ||
        !!(rx.opf & QRNIC_OPF_XRC) != qrnic_qp_is_xrc(qp) ||
        (qp->type == QRNIC_QPT_XRC_INI && (rx.opf & QRNIC_OPF_REQ)) ||
        (qp->type == QRNIC_QPT_XRC_TGT && !(rx.opf & QRNIC_OPF_REQ)) ||
        qp->state < QRNIC_QPS_RTR ||
        qp->state == QRNIC_QPS_ERR ||
        memcmp(rx.sgid, qp->attr.dgid, 16) ||
        memcmp(rx.dgid, qp->attr.sgid, 16)) {
        drop(e, QRNIC_STAT_RX_BAD_PKT);
        return;
    }
    if (rx.opf & QRNIC_OPF_REQ) {
        qrnic_resp_rx(e, qp, &rx);
    } else if (qp->state == QRNIC_QPS_RTS || qp->state == QRNIC_QPS_SQD) {
        qrnic_comp_rx(e, qp, &rx);
    } else {
        drop(e, QRNIC_STAT_RX_BAD_PKT);
    }
}
