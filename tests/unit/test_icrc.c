/* SPDX-License-Identifier: GPL-2.0-or-later */
/* CRC-32, RoCEv2 classification and ICRC tests. */
#include <string.h>
#include "qrnic_roce.h"
#include "icrc_vectors.h"
#include "tap.h"

int tap_failures;

static uint8_t buf[256];

/* Copy a vector, flip one byte, and report whether its ICRC still holds. */
static int icrc_ok_after(const uint8_t *frame, size_t len, size_t off,
                         uint8_t xor)
{
    struct qrnic_roce_pkt pkt;

    memcpy(buf, frame, len);
    buf[off] ^= xor;
    return qrnic_roce_parse(buf, len, &pkt) && qrnic_icrc_check(buf, &pkt);
}

static void test_crc32(void)
{
    const uint8_t check[] = "123456789";
    const uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

    CHECK_EQ(~qrnic_crc32_le(0xffffffffu, check, 9), 0xcbf43926u,
             "crc32 check value of \"123456789\"");
    CHECK_EQ(qrnic_crc32_le(0xffffffffu, ff, 8), 0xdebb20e3u,
             "crc32 of the masked LRH is the rxe seed 0xdebb20e3");
}

/*
 * The carry-less multiply path (when the host has one) against the table
 * path: every length up to 2100 bytes, at every alignment mod 16, from
 * seeded pseudo-random data and CRC seeds.
 */
static void test_crc32_paths(void)
{
    static uint8_t data[2200];
    uint32_t x = 0x2545f491u, seed;
    size_t len, off, bad = 0, first_bad = 0;

    for (len = 0; len < sizeof(data); len++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[len] = (uint8_t)x;
    }
    for (len = 0; len <= 2100; len++) {
        off = len % 16;
        seed = len * 0x9e3779b9u;
        if (qrnic_crc32_le(seed, data + off, len) !=
            qrnic_crc32_le_table(seed, data + off, len) && !bad++) {
            first_bad = len;
        }
    }
    CHECK(bad == 0, "crc32 (%s) equals the table CRC for 0..2100 bytes, all "
          "alignments (%zu differ, first at %zu bytes)",
          qrnic_crc32_le_accelerated() ? "PCLMULQDQ" : "table only",
          bad, first_bad);
}

static void test_vector(const char *name, const uint8_t *f, size_t len,
                        uint32_t want, int v6)
{
    struct qrnic_roce_pkt pkt;
    size_t l3 = 14, l4 = l3 + (v6 ? 40 : 20), bth = l4 + 8;

    CHECK(qrnic_roce_is_roce_frame(f, len), "%s: classified as RoCEv2", name);
    CHECK(qrnic_roce_parse(f, len, &pkt) && pkt.ipv6 == v6 &&
          pkt.l3 == l3 && pkt.l4 == l4 && pkt.bth == bth && pkt.end == len,
          "%s: parsed layer offsets", name);
    CHECK_EQ(qrnic_icrc_compute(f, &pkt), want, "%s: ICRC matches zlib", name);
    CHECK(qrnic_icrc_check(f, &pkt), "%s: ICRC check passes", name);
    if (v6) {
        CHECK(icrc_ok_after(f, len, l3 + 1, 0xf0), "%s: traffic class masked", name);
        CHECK(icrc_ok_after(f, len, l3 + 3, 0x55), "%s: flow label masked", name);
        CHECK(icrc_ok_after(f, len, l3 + 7, 0x01), "%s: hop limit masked", name);
        CHECK(!icrc_ok_after(f, len, l3 + 8, 0x01), "%s: source address covered",
              name);
    } else {
        CHECK(icrc_ok_after(f, len, l3 + 1, 0xfc), "%s: TOS masked", name);
        CHECK(icrc_ok_after(f, len, l3 + 8, 0x01), "%s: TTL masked", name);
        CHECK(icrc_ok_after(f, len, l3 + 10, 0x12), "%s: IP checksum masked", name);
        CHECK(!icrc_ok_after(f, len, l3 + 4, 0x01), "%s: IP id covered", name);
    }
    CHECK(icrc_ok_after(f, len, l4 + 6, 0xff), "%s: UDP checksum masked", name);
    CHECK(icrc_ok_after(f, len, bth + 4, 0x81), "%s: BTH resv8a masked", name);
    CHECK(!icrc_ok_after(f, len, bth + 5, 0x01), "%s: destination QP covered", name);
    CHECK(!icrc_ok_after(f, len, bth + 12, 0x01), "%s: payload covered", name);
    CHECK(!icrc_ok_after(f, len, len - 1, 0x01), "%s: ICRC byte flip detected",
          name);
}

static void test_classify(void)
{
    struct qrnic_roce_pkt pkt;
    size_t len = sizeof(frame_v4);

    memcpy(buf, frame_v4, len);
    buf[14 + 20 + 3] = 0xb8;    /* dport 4792 */
    CHECK(!qrnic_roce_is_roce_frame(buf, len), "UDP port 4792 is not RoCE");
    memcpy(buf, frame_v4, len);
    buf[14 + 9] = 6;            /* TCP */
    CHECK(!qrnic_roce_is_roce_frame(buf, len), "TCP is not RoCE");
    memcpy(buf, frame_v4, len);
    buf[14 + 6] = 0x20;         /* more fragments */
    CHECK(!qrnic_roce_is_roce_frame(buf, len), "IPv4 fragment is not RoCE");
    memcpy(buf, frame_v4, len);
    buf[12] = 0x08;
    buf[13] = 0x06;             /* ARP */
    CHECK(!qrnic_roce_is_roce_frame(buf, len), "ARP is not RoCE");
    CHECK(!qrnic_roce_is_roce_frame(frame_v4, 14 + 20 + 7),
          "truncated UDP header is not RoCE");
    CHECK(qrnic_roce_is_roce_frame(frame_v4, len - 10) &&
          !qrnic_roce_parse(frame_v4, len - 10, &pkt),
          "frame shorter than its IP length is malformed");
    memcpy(buf, frame_v4, len);
    buf[14 + 20 + 5] -= 1;      /* UDP length one short */
    CHECK(!qrnic_roce_parse(buf, len, &pkt), "UDP length mismatch is malformed");
    memcpy(buf, frame_v4, len);
    buf[14] = 0x44;             /* IHL 4 */
    CHECK(!qrnic_roce_is_roce_frame(buf, len), "IHL < 5 rejected");

    /* With Ethernet padding after the IP packet. */
    memset(buf, 0xee, sizeof(buf));
    memcpy(buf, frame_v4, len);
    CHECK(qrnic_roce_parse(buf, len + 6, &pkt) && pkt.end == len &&
          qrnic_icrc_check(buf, &pkt), "padding after the IP packet ignored");

    /* Behind an 802.1Q tag. */
    memcpy(buf, frame_v6, 12);
    buf[12] = 0x81;
    buf[13] = 0x00;
    buf[14] = 0x00;
    buf[15] = 0x05;
    memcpy(buf + 16, frame_v6 + 12, sizeof(frame_v6) - 12);
    CHECK(qrnic_roce_parse(buf, sizeof(frame_v6) + 4, &pkt) && pkt.l3 == 18 &&
          qrnic_icrc_check(buf, &pkt), "VLAN tagged IPv6 RoCE frame");
}

/* The BTH fields the trace events show (qrnic_roce_peek). */
static void test_peek(void)
{
    const uint8_t *b6 = frame_v6 + 14 + 40 + 8;
    uint32_t qpn = 0, psn = 0;
    uint8_t op = 0xff;

    CHECK(qrnic_roce_peek(frame_v4, sizeof(frame_v4), &op, &qpn, &psn) &&
          op == 0x04 && qpn == 0x000123 && psn == 0x00abcd,
          "peek ipv4: SEND_ONLY to QP 0x123, PSN 0xabcd (AckReq not in it)");
    CHECK(qrnic_roce_peek(frame_v6, sizeof(frame_v6), &op, &qpn, &psn) &&
          op == b6[0] &&
          qpn == ((uint32_t)b6[5] << 16 | (uint32_t)b6[6] << 8 | b6[7]) &&
          psn == ((uint32_t)b6[9] << 16 | (uint32_t)b6[10] << 8 | b6[11]),
          "peek ipv6: opcode, QP and PSN from the BTH");
    CHECK(!qrnic_roce_peek(frame_v4, 40, &op, &qpn, &psn),
          "peek: a frame cut short is no RoCE frame");
}

int main(void)
{
    test_crc32();
    test_crc32_paths();
    test_vector("ipv4", frame_v4, sizeof(frame_v4), ICRC_V4, 0);
    test_vector("ipv6", frame_v6, sizeof(frame_v6), ICRC_V6, 1);
    test_classify();
    test_peek();
    return TAP_DONE();
}
