/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the engine fuzz targets (fuzz_rx.c, fuzz_mmio.c, fuzz_wqe.c) share:
 * reading an input as a stream of fields, writing one (their seed
 * generators), RoCEv2 frame headers, and the interface the replay runner
 * (fuzz_replay.c) and libFuzzer use.
 *
 * An input is a short program of operations; every field is read at a
 * fixed place, so a mutation changes one field and leaves the rest of the
 * program as it was.  A selector byte below FZ_RAW picks from the valid
 * choices ("mostly valid"); FZ_RAW and above take a raw value instead.
 * Past the end of the input every field reads 0.
 */
#ifndef QRNIC_FUZZ_COMMON_H
#define QRNIC_FUZZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FZ_RAW          0xf0    /* selector bytes from here: raw value */
#define FZ_SEED_MAX     8192    /* bytes in one generated seed */

/* ---- reading an input ---------------------------------------------------- */

struct fz {
    const uint8_t *p;
    size_t n;
};

static inline bool fz_more(const struct fz *f)
{
    return f->n != 0;
}

uint8_t fz_u8(struct fz *f);
uint16_t fz_u16(struct fz *f);
uint32_t fz_u32(struct fz *f);
uint64_t fz_u64(struct fz *f);
void fz_bytes(struct fz *f, void *buf, size_t len);

/* ---- writing one (seed generators) ---------------------------------------- */

struct fzw {
    size_t n;
    uint8_t b[FZ_SEED_MAX];
};

void fzw_u8(struct fzw *w, uint8_t v);
void fzw_u16(struct fzw *w, uint16_t v);
void fzw_u32(struct fzw *w, uint32_t v);
void fzw_u64(struct fzw *w, uint64_t v);
void fzw_bytes(struct fzw *w, const void *buf, size_t len);
void fzw_fill(struct fzw *w, uint8_t v, size_t len);

/* ---- RoCEv2 frames ---------------------------------------------------------- */

struct fz_l3 {
    bool ipv6;
    bool vlan;
    const uint8_t *sgid;        /* 16 bytes; IPv4 takes the last 4 */
    const uint8_t *dgid;
};

/*
 * Ethernet (one VLAN tag if asked), IPv4 or IPv6 and UDP to port 4791;
 * returns where the BTH starts.  fz_roce_finish() fills in the lengths
 * for a frame whose transport headers and payload end at len, appends the
 * ICRC (correct if fix_icrc) and returns the frame length.
 */
size_t fz_roce_begin(uint8_t *f, const uint8_t *dmac, const uint8_t *smac,
                     const struct fz_l3 *l3);
size_t fz_roce_finish(uint8_t *f, size_t len, const struct fz_l3 *l3,
                      bool fix_icrc);
/* Recompute the ICRC of a frame that still parses as RoCEv2. */
void fz_icrc_fix(uint8_t *f, size_t len);

/* ---- UD and GSI QPs on the rc harness (fuzz_rx, fuzz_wqe) -------------- */

struct node;
struct hqp;

#define FZ_UD_QKEY      0x11223344u     /* the fixtures' UD QPs */
#define FZ_GSI_QKEY     0x80010000u     /* QP 1's, a controlled Q_Key */

/* The IPv6 GID (fe80::5054:ff:fe00:<idx + 1>) the targets give node idx. */
void fz_v6_gid(int idx, uint8_t *gid);
/* ADD_GID of that GID at index 1; the command's status. */
uint8_t fz_add_v6_gid(struct node *n);
/*
 * A UD or GSI QP from RESET through INIT (PKEY_INDEX, QKEY, PORT unless
 * GSI) and RTR up to state (INIT, RTR or RTS, with SQ_PSN); the status of
 * the first transition that failed, or QRNIC_ST_OK.
 */
uint8_t fz_ud_up(struct hqp *qp, uint32_t qkey, bool gsi, uint8_t state);

/* ---- SRQs and UC QPs on the rc harness (fuzz_rx, fuzz_wqe) ------------- */

struct hsrq;
struct hwc;
struct hcq;

/*
 * A UC QP from RESET through INIT (remote write), RTR (towards peer, this
 * path MTU, RQ PSN from the peer's QPN) to RTS (SQ PSN from its own); the
 * status of the first transition that failed, or QRNIC_ST_OK.
 */
uint8_t fz_uc_connect(struct hqp *qp, const struct hqp *peer,
                      uint8_t path_mtu);
/*
 * DESTROY_SRQ (an XRC SRQ: the XRC_TGT QPs that borrow it let go; the
 * command's bottom half may complete receives of it first), then
 * CREATE_SRQ of an XRC SRQ in its place (queue memory, depth, stride,
 * owner) of domain xrcd completing on cq, its producer index 0 (srqn the
 * new one's if it succeeded): the commands' statuses.
 */
uint8_t fz_srq_destroy(struct hsrq *srq);
uint8_t fz_xrc_srq_create(struct hsrq *srq, uint32_t xrcd,
                          const struct hcq *cq);

/*
 * What a target checks of an SRQ, besides the engine's invariants: every
 * receive completion of a QP on it carries F_SRQ, names one of its QPs and
 * a slot the device took and did not complete before; completions of
 * other QPs have no F_SRQ; each WQE the device took is, when the node is
 * idle, completed or held by exactly one QP of the SRQ (none in ERR); the
 * limit event comes once per arming, when a take leaves fewer WQEs posted
 * than the limit, and the limit is disarmed then and only then.  An
 * XRC_TGT QP counts as one of an XRC SRQ's QPs while it holds a WQE of
 * it (it takes them from any XRC SRQ of its domain).  A node's async
 * events are consumed by whichever SRQ looks first: only one SRQ of a
 * node may have its limit armed.
 */
#define FZ_SRQ_QPS      4

struct fz_srq {
    struct hsrq *srq;
    uint32_t qpn[FZ_SRQ_QPS];   /* the QPs receiving from it */
    int nqp;
    uint32_t armed;             /* the limit the target believes armed */
    uint64_t eq_overflow;       /* the engine's count when last looked */
    uint32_t events;            /* limit events seen */
    uint32_t completed;         /* receive completions of its WQEs */
    uint8_t done[65536 / 8];    /* completed, by free-running slot index */
};

void fz_srq_init(struct fz_srq *s, struct hsrq *srq, uint32_t limit);
void fz_srq_add_qp(struct fz_srq *s, const struct hqp *qp);
bool fz_srq_has_qp(const struct fz_srq *s, uint32_t qpn);
/* A receive completion of a QP on s (fails if it is not one). */
void fz_srq_cqe(struct fz_srq *s, const struct hwc *wc);
/*
 * After every operation: the node's async events (all of them are
 * consumed), the limit, the WQEs the SRQ's QPs hold.
 */
void fz_srq_step(struct fz_srq *s);
/* MODIFY_SRQ of the limit; the status. */
uint8_t fz_srq_arm(struct fz_srq *s, uint32_t limit);
/* QUERY_SRQ: its results must match the engine; the status. */
uint8_t fz_srq_query(struct fz_srq *s);
/* When the node is idle: every WQE taken is completed or held. */
void fz_srq_check_idle(const struct fz_srq *s);

/* ---- fault injection (engine/qrnic_fault.c) ------------------------------ */

#define FZ_FAULT_DROP       1
#define FZ_FAULT_DUP        2
#define FZ_FAULT_REORDER    4
#define FZ_FAULT_CORRUPT    8
#define FZ_FAULT_ALL        16      /* the rates picked at 100%, not 20% */

struct qrnic_engine;

/* The device's x-*-ppm properties from bits of sel (0: none), seed sel. */
void fz_faults(struct qrnic_engine *e, uint8_t sel);

/* ---- the interface of a target ------------------------------------------ */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Each target's name ("fuzz_rx") and its seed corpus generator. */
extern const char fuzz_target_name[];
typedef void (*fz_emit_fn)(const char *name, const struct fzw *w);
void fuzz_make_seeds(fz_emit_fn emit);

/* A broken property the platform does not check itself: abort. */
void fz_fail(const char *fmt, ...)
    __attribute__((noreturn, format(printf, 1, 2)));

#endif
