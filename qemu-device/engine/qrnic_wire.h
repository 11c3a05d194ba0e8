/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: RC packets on the wire.  Opcode table, parsing of a
 * received RoCEv2 frame into struct qrnic_rx, and building of frames for a
 * QP (Ethernet / IP / UDP / BTH, extension headers by the caller, then
 * padding, lengths, checksum and ICRC).
 */
#ifndef QRNIC_WIRE_H
#define QRNIC_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qrnic_roce.h"

/* RC opcodes (BTH opcode, transport 000). */
enum qrnic_rc_opcode {
    QRNIC_OP_SEND_FIRST         = 0x00,
    QRNIC_OP_SEND_MIDDLE        = 0x01,
    QRNIC_OP_SEND_LAST          = 0x02,
    QRNIC_OP_SEND_LAST_IMM      = 0x03,
    QRNIC_OP_SEND_ONLY          = 0x04,
    QRNIC_OP_SEND_ONLY_IMM      = 0x05,
    QRNIC_OP_WRITE_FIRST        = 0x06,
    QRNIC_OP_WRITE_MIDDLE       = 0x07,
    QRNIC_OP_WRITE_LAST         = 0x08,
    QRNIC_OP_WRITE_LAST_IMM     = 0x09,
    QRNIC_OP_WRITE_ONLY         = 0x0a,
    QRNIC_OP_WRITE_ONLY_IMM     = 0x0b,
    QRNIC_OP_READ_REQ           = 0x0c,
    QRNIC_OP_READ_RESP_FIRST    = 0x0d,
    QRNIC_OP_READ_RESP_MIDDLE   = 0x0e,
    QRNIC_OP_READ_RESP_LAST     = 0x0f,
    QRNIC_OP_READ_RESP_ONLY     = 0x10,
    QRNIC_OP_ACK                = 0x11,
    QRNIC_OP_ATOMIC_ACK         = 0x12,
    QRNIC_OP_CMP_SWAP           = 0x13,
    QRNIC_OP_FETCH_ADD          = 0x14,
    QRNIC_OP_SEND_LAST_INV      = 0x16,     /* SEND_LAST_WITH_INVALIDATE */
    QRNIC_OP_SEND_ONLY_INV      = 0x17,     /* SEND_ONLY_WITH_INVALIDATE */
    QRNIC_OP_FLUSH              = 0x1c,     /* IBA A19: FETH, RETH */
    QRNIC_OP_ATOMIC_WRITE       = 0x1d,     /* IBA A19: RETH, 8 bytes */
};

/* UC opcodes (transport 001): the RC SEND and WRITE ones plus this. */
#define QRNIC_OP_UC_BASE            0x20

/*
 * XRC opcodes (transport 101): the RC ones but FLUSH and ATOMIC WRITE plus
 * this; every request carries an XRCETH after the BTH.  Parsing gives the
 * RC opcode and QRNIC_OPF_XRC.
 */
#define QRNIC_OP_XRC_BASE           0xa0

/* UD opcodes (transport 011): the only two a UD QP sends or accepts. */
#define QRNIC_OP_UD_SEND_ONLY       0x64
#define QRNIC_OP_UD_SEND_ONLY_IMM   0x65

/* What an opcode carries and means (qrnic_op_flags). */
#define QRNIC_OPF_VALID         (1u << 0)
#define QRNIC_OPF_REQ           (1u << 1)   /* requester -> responder */
#define QRNIC_OPF_FIRST         (1u << 2)
#define QRNIC_OPF_MIDDLE        (1u << 3)
#define QRNIC_OPF_LAST          (1u << 4)
#define QRNIC_OPF_PAYLOAD       (1u << 5)
#define QRNIC_OPF_RETH          (1u << 6)
#define QRNIC_OPF_IMM           (1u << 7)
#define QRNIC_OPF_AETH          (1u << 8)
#define QRNIC_OPF_ATOMIC        (1u << 9)   /* AtomicETH */
#define QRNIC_OPF_ATOMIC_ACK    (1u << 10)  /* AtomicAckETH */
#define QRNIC_OPF_SEND          (1u << 11)
#define QRNIC_OPF_WRITE         (1u << 12)
#define QRNIC_OPF_READ          (1u << 13)  /* request or response */
#define QRNIC_OPF_DETH          (1u << 14)  /* UD: Q_Key and source QP */
#define QRNIC_OPF_UC            (1u << 15)  /* a UC opcode */
#define QRNIC_OPF_IETH          (1u << 16)  /* the rkey to invalidate */
#define QRNIC_OPF_FETH          (1u << 20)  /* FLUSH extended header */
#define QRNIC_OPF_FLUSH         (1u << 21)
#define QRNIC_OPF_ATOMIC_WRITE  (1u << 22)
#define QRNIC_OPF_XRC           (1u << 23)  /* an XRC opcode */
#define QRNIC_OPF_XRCETH        (1u << 24)  /* XRC request: the XRC SRQ */
#define QRNIC_OPF_ONLY          (QRNIC_OPF_FIRST | QRNIC_OPF_LAST)

uint32_t qrnic_op_flags(uint8_t opcode);

#define QRNIC_BTH_LEN           12
#define QRNIC_RETH_LEN          16
#define QRNIC_AETH_LEN          4
#define QRNIC_ATOMIC_ETH_LEN    28
#define QRNIC_ATOMIC_ACK_LEN    8
#define QRNIC_IMM_LEN           4
#define QRNIC_DETH_LEN          8
#define QRNIC_FETH_LEN          4
#define QRNIC_XRCETH_LEN        4

/* FETH (big endian): placement type in bits 3..0, selectivity in 5..4. */
#define QRNIC_FETH_PLT_MASK     0x0fu
#define QRNIC_FETH_SEL_SHIFT    4
#define QRNIC_FETH_SEL_MASK     0x30u

#define QRNIC_IETH_LEN          4

#define QRNIC_BTH_SE            0x80
#define QRNIC_BTH_ACKREQ        0x80000000u
#define QRNIC_DEFAULT_PKEY      0xffff

/* AETH syndromes (top three bits: kind). */
#define QRNIC_AETH_ACK          0x00    /* | credits */
#define QRNIC_AETH_RNR_NAK      0x20    /* | timer code */
#define QRNIC_AETH_NAK          0x60    /* | NAK code */
#define QRNIC_AETH_KIND_MASK    0x60
#define QRNIC_AETH_VALUE_MASK   0x1f
#define QRNIC_AETH_CREDITS_INVALID 0x1f /* no end-to-end credits */
#define QRNIC_NAK_PSN_SEQ       0
#define QRNIC_NAK_INVALID_REQ   1
#define QRNIC_NAK_REM_ACCESS    2
#define QRNIC_NAK_REM_OP        3

/* A received RC or UD packet, its headers decoded. */
struct qrnic_rx {
    const uint8_t *frame;       /* the whole frame, pkt locates its layers */
    struct qrnic_roce_pkt pkt;
    uint8_t opcode;
    uint32_t opf;
    bool se;
    bool ackreq;
    uint32_t dqpn;
    uint32_t psn;
    uint64_t va;                /* RETH or AtomicETH */
    uint32_t rkey;
    uint32_t dma_len;           /* RETH */
    uint64_t swap_add;          /* AtomicETH */
    uint64_t compare;
    uint32_t imm;               /* ImmDt, raw network order bytes */
    uint32_t ieth;              /* IETH: the rkey to invalidate */
    uint8_t syndrome;           /* AETH */
    uint32_t msn;
    uint64_t orig;              /* AtomicAckETH */
    uint32_t qkey;              /* DETH */
    uint32_t src_qp;
    uint32_t xrc_srqn;          /* XRCETH */
    uint8_t flush_type;         /* FETH: QRNIC_FLUSH_GLOBAL etc. */
    uint8_t flush_level;        /* FETH: QRNIC_FLUSH_RANGE, _MR */
    const uint8_t *payload;
    uint32_t paylen;
    uint8_t sgid[16];           /* IP source and destination as GIDs */
    uint8_t dgid[16];
};

/*
 * Decode a well formed frame (qrnic_roce_parse and the ICRC already
 * checked).  False if the BTH or extension headers are malformed or the
 * opcode is none of RC, UC, XRC or a UD SEND.
 */
bool qrnic_wire_parse(const uint8_t *f, const struct qrnic_roce_pkt *pkt,
                      struct qrnic_rx *rx);

struct qrnic_engine;
struct qrnic_qpc;

/* Where a frame goes and how: a connected QP's path or a UD WQE's AV. */
struct qrnic_av {
    uint8_t dmac[6];
    uint8_t sgid[16];
    uint8_t dgid[16];
    bool ipv4;
    uint8_t tclass;
    uint8_t hop_limit;
    uint32_t flow_label;
    uint16_t sport;
    uint32_t dest_qpn;
};

/*
 * Start a frame: headers up to the BTH.  Returns the offset where
 * extension headers go.  qrnic_wire_begin() takes the QP's path; on an
 * XRC QP it sends the opcode's XRC form, and a request its XRCETH (the
 * current WQE's XRC SRQ).
 */
size_t qrnic_wire_begin_av(struct qrnic_engine *e, const struct qrnic_av *av,
                           uint8_t *f, uint8_t opcode, uint32_t psn, bool se,
                           bool ackreq);
size_t qrnic_wire_begin(struct qrnic_engine *e, const struct qrnic_qpc *qp,
                        uint8_t *f, uint8_t opcode, uint32_t psn, bool se,
                        bool ackreq);
/* Pad, fill in lengths, IP checksum and ICRC; returns the frame length. */
size_t qrnic_wire_finish_ip(bool ipv4, uint8_t *f, size_t len);
size_t qrnic_wire_finish(const struct qrnic_qpc *qp, uint8_t *f, size_t len);

size_t qrnic_put_reth(uint8_t *p, uint64_t va, uint32_t rkey, uint32_t len);
size_t qrnic_put_aeth(uint8_t *p, uint8_t syndrome, uint32_t msn);
size_t qrnic_put_atomic_eth(uint8_t *p, uint64_t va, uint32_t rkey,
                            uint64_t swap_add, uint64_t compare);
size_t qrnic_put_imm(uint8_t *p, uint32_t imm);
size_t qrnic_put_ieth(uint8_t *p, uint32_t rkey);
size_t qrnic_put_deth(uint8_t *p, uint32_t qkey, uint32_t src_qp);
size_t qrnic_put_feth(uint8_t *p, uint8_t type, uint8_t level);
size_t qrnic_put_xrceth(uint8_t *p, uint32_t srqn);
/* RoCEv2's UDP source port: a hash of the flow label or the QP numbers. */
uint16_t qrnic_wire_sport(uint32_t flow_label, uint32_t qpn, uint32_t dqpn);

/* True if the GID is an IPv4-mapped IPv6 address (::ffff:a.b.c.d). */
bool qrnic_gid_is_v4(const uint8_t *gid);

#endif /* QRNIC_WIRE_H */
