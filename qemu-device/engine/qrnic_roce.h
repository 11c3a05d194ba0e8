/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: RoCEv2 wire format (Ethernet / IPv4 or IPv6 / UDP 4791 /
 * BTH ... / ICRC), frame classification and the invariant CRC.
 *
 * The header structs describe the wire layout (network byte order, no
 * padding); the code reads fields from byte buffers with the qrnic_ld*_be
 * helpers and uses the structs only for offsets and sizes.
 */
#ifndef QRNIC_ROCE_H
#define QRNIC_ROCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qrnic_ethhdr {
    uint8_t dst[6];
    uint8_t src[6];
    uint16_t proto;
};

struct qrnic_vlanhdr {
    uint16_t tci;
    uint16_t proto;
};

struct qrnic_ipv4hdr {
    uint8_t ver_ihl;
    uint8_t tos;
    uint16_t tot_len;
    uint16_t id;
    uint16_t frag_off;
    uint8_t ttl;
    uint8_t protocol;
    uint16_t check;
    uint32_t saddr;
    uint32_t daddr;
};

struct qrnic_ipv6hdr {
    uint32_t ver_tc_flow;       /* version 4, traffic class 8, flow 20 */
    uint16_t payload_len;
    uint8_t nexthdr;
    uint8_t hop_limit;
    uint8_t saddr[16];
    uint8_t daddr[16];
};

struct qrnic_udphdr {
    uint16_t sport;
    uint16_t dport;
    uint16_t len;
    uint16_t check;
};

/* Base Transport Header */
struct qrnic_bth {
    uint8_t opcode;
    uint8_t flags;              /* SE, M, pad count, transport version */
    uint16_t pkey;
    uint32_t qpn;               /* resv8a (byte 4) | destination QP */
    uint32_t psn;               /* AckReq | resv7 | PSN */
};

#define QRNIC_ETH_P_IPV4        0x0800
#define QRNIC_ETH_P_IPV6        0x86dd
#define QRNIC_ETH_P_8021Q       0x8100
#define QRNIC_IPPROTO_UDP       17
#define QRNIC_ICRC_LEN          4

/* Where the layers of a well formed RoCEv2 frame start. */
struct qrnic_roce_pkt {
    bool ipv6;
    size_t l3;                  /* IP header */
    size_t l3_len;              /* IP header length */
    size_t l4;                  /* UDP header */
    size_t bth;                 /* BTH */
    size_t end;                 /* end of the IP packet (ICRC included) */
};

/* Any IPv4/IPv6 UDP frame to port 4791 (well formed or not). */
bool qrnic_roce_is_roce_frame(const uint8_t *frame, size_t len);
/* Well formed: lengths consistent, room for BTH and ICRC. */
bool qrnic_roce_parse(const uint8_t *frame, size_t len,
                      struct qrnic_roce_pkt *pkt);
/*
 * BTH opcode, destination QP and PSN of a well formed RoCEv2 frame (for
 * tracing); false if it is none.
 */
bool qrnic_roce_peek(const uint8_t *frame, size_t len, uint8_t *opcode,
                     uint32_t *dqpn, uint32_t *psn);
/* ICRC of a parsed frame, as the value stored (little endian) on the wire. */
uint32_t qrnic_icrc_compute(const uint8_t *frame,
                            const struct qrnic_roce_pkt *pkt);
bool qrnic_icrc_check(const uint8_t *frame, const struct qrnic_roce_pkt *pkt);

/* CRC-32, polynomial 0x04C11DB7 reflected, no pre/post inversion. */
uint32_t qrnic_crc32_le(uint32_t crc, const uint8_t *p, size_t len);
/* The same by table lookups only, and whether the first one is faster. */
uint32_t qrnic_crc32_le_table(uint32_t crc, const uint8_t *p, size_t len);
bool qrnic_crc32_le_accelerated(void);

struct qrnic_engine;
void qrnic_roce_rx(struct qrnic_engine *e, const uint8_t *frame, size_t len);

#endif /* QRNIC_ROCE_H */
