/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * rc-check: shared pieces of the RC test tool (device, connections,
 * rendezvous through the guests' shared directory, completion checks).
 */
#ifndef RC_COMMON_H
#define RC_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#define RC_MAX_REGIONS 4

struct rc_opts {
	const char *ibdev;	/* -d, $QRNIC_IBDEV */
	const char *share;	/* -s, $QRNIC_SHARE */
	const char *tag;	/* -T: prefix of the rendezvous files */
	const char *peer_ip;	/* -p, first of $QRNIC_PEER_IPS */
	int idx;		/* -i, $QRNIC_IDX: 0 or 1 */
	int gid_idx;		/* -g, or -1: the RoCE v2 GID of an IPv4 address */
	double timeout;		/* -t: seconds for any single wait */
	int verbose;		/* -v */
};

extern struct rc_opts opt;

static inline int min_i(int a, int b)
{
	return a < b ? a : b;
}

struct rc_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	int gid_idx;
	union ibv_gid gid;
};

/* A memory region a peer may access: published in the connection file. */
struct rc_region {
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
};

/* What one side publishes about its QP. */
struct rc_info {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
	int mtu;		/* enum ibv_mtu: our port's active MTU */
	int rd_atom;		/* READ/atomic requests we accept as responder */
	char nic[16];		/* $QRNIC_NIC: qrnic, virtio (rdma_rxe) */
	int nregions;
	struct rc_region region[RC_MAX_REGIONS];
};

/* QP parameters that differ between the test cases. */
struct rc_qp_params {
	int max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline;
	int sq_sig_all;
	uint8_t timeout, retry_cnt, rnr_retry, min_rnr_timer;
	struct ibv_srq *srq;	/* receives from this SRQ (no RQ of its own) */
	struct ibv_cq *cq;	/* one CQ of the caller's for both queues */
};

struct rc_conn {
	struct rc_dev *dev;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct rc_qp_params par;
	struct rc_info local, peer;
	char name[64];
	uint32_t max_inline;	/* what the QP really got */
};

/* rdma_rxe (virtio guests) deviates from the IBTA statuses in a few error
 * cases; the checks accept its statuses only when it is involved. */
int rc_is_rxe(const char *nic);

/* An environment variable, NULL if unset or empty. */
const char *rc_env(const char *name);

/* ---- output ---- */
extern int rc_failures;
void ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void not_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
double now_s(void);

/* ---- device ---- */
void rc_dev_open(struct rc_dev *d);
void rc_dev_close(struct rc_dev *d);
int rc_gid_for_ipv4(const char *ip, union ibv_gid *gid);
void *rc_alloc(size_t len);
struct ibv_mr *rc_reg(struct rc_dev *d, void *buf, size_t len, int access);

/* ---- connections ---- */
void rc_default_params(struct rc_qp_params *p);
/* Create the QP (RESET -> INIT) and its CQs; returns 0 or -1 (message printed). */
int rc_conn_create(struct rc_conn *c, struct rc_dev *d, const char *name,
		   const struct rc_qp_params *p);
/* Publish local info, read the peer's, move to RTR and RTS, then wait until
 * the peer is in RTS too.  Returns 0 or -1. */
int rc_conn_connect(struct rc_conn *c);
/* Move to RTR and RTS towards c->peer (already filled in).  0 or -1. */
int rc_conn_rtr_rts(struct rc_conn *c);
/* Connect two QPs of one device to each other (loopback).  0 or -1. */
int rc_conn_loopback(struct rc_conn *a, struct rc_conn *b);
void rc_conn_destroy(struct rc_conn *c);
void rc_add_region(struct rc_conn *c, struct ibv_mr *mr, void *addr, size_t len);

/* ---- rendezvous through $QRNIC_SHARE ---- */
int rv_publish(const char *name, const char *text);
/* Wait for the peer's file NAME; its content goes to buf. 0 or -1 (timeout). */
int rv_await(const char *name, char *buf, size_t len, double timeout);
/* Both sides reach NAME before either goes on. */
int rv_barrier(const char *name);
/* Remove our own file NAME (the peer has read it). */
void rv_unlink(const char *name);
/* Tell the peer we gave up: its waits end at once instead of timing out. */
void rc_abort(void);

/* ---- completions ---- */
struct rc_want {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	int check_len;		/* byte_len must equal len */
	uint32_t len;
	int imm;		/* 1: IBV_WC_WITH_IMM and imm_data == imm_val; 0: no imm */
	uint32_t imm_val;
};
/* Poll one completion within timeout seconds: 1 got, 0 timed out, -1 error. */
int rc_poll(struct ibv_cq *cq, struct ibv_wc *wc, double timeout);
/* Poll the next completion and compare it with w; prints "# ..." lines on
 * mismatch.  0 matches, -1 mismatch, -2 nothing arrived in time. */
int rc_expect(struct ibv_cq *cq, uint32_t qpn, const struct rc_want *w, const char *what);
/* 0 if no completion arrives within secs seconds. */
int rc_expect_none(struct ibv_cq *cq, double secs, const char *what);
const char *wc_opcode_str(enum ibv_wc_opcode op);

/* ---- data patterns ---- */
void pat_fill(uint8_t *p, size_t n, uint32_t seed);
/* Bytes [start, start + n) of the stream for seed. */
void pat_fill_at(uint8_t *p, size_t n, uint32_t seed, uint64_t start);
int pat_check_at(const uint8_t *p, size_t n, uint32_t seed, uint64_t start, const char *what);
/* 0 if p holds the pattern; else prints the first bad offsets, returns -1. */
int pat_check(const uint8_t *p, size_t n, uint32_t seed, const char *what);
/* 0 if every byte of p is b. */
int byte_check(const uint8_t *p, size_t n, uint8_t b, const char *what);

/* ---- modes ---- */
int mode_integrity(void);
int mode_errors(void);
int mode_gone(const char *go_file);
int mode_hold(const char *ready_file);
int mode_qps(int count, const char *ready_file, const char *go_file);
int mode_mw(void);
int mode_soak(double seconds, uint64_t seed, int max_qps);

#endif
