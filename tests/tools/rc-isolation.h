/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * qrnic-isolation: shared pieces of the isolation checks (issue 25): one
 * guest, a hostile unprivileged user beside a victim of another user.
 */
#ifndef RC_ISOLATION_H
#define RC_ISOLATION_H

#include <stdint.h>
#include <infiniband/verbs.h>

#include "rc-common.h"

#define KIB		1024u
#define MIB		(1024u * 1024u)

/*
 * What the victim writes into its queues (fill): inline payload words,
 * wr_ids, and remote and local addresses in a buffer mapped at MARK_BASE,
 * so a stale WQE is recognisable wherever it lands.
 */
#define MARK_WORD	0x2525c0dec0de2525ull
#define MARK_BASE	0x2525c0de0000ull
#define MARK_MASK	(~0xffffull)

/* What a kernel pointer looks like: the upper canonical half. */
#define KPTR_MASK	0xffff800000000000ull

/* Options of the subcommands (parsed once in main). */
struct iso_opts {
	int threads;		/* srq-race: resizing threads */
	int iters;		/* srq-race: resizes per thread */
	int qps;		/* scan: QPs; freeze: attacker QPs */
	int timeout;		/* freeze: the attackers' QP timeout (0..31) */
	int runs;		/* freeze: the victim's timed runs under attack */
	int destroyed;		/* freeze: the attackers' peers are destroyed */
	long limit;		/* quota: the device's limit for the kind */
	const char *xrcd;	/* quota xrcd, xrc-tgt: the shared XRC domain's file */
	const char *ready;	/* a file written once set up (quota, fill, scan) */
	const char *release;	/* a file whose appearance ends the hold */
};

extern struct iso_opts iso;

/* ---- shared helpers (rc-isolation.c) ---- */
/* A loopback RC pair on d: a sends to b; b may receive from srq. */
int iso_pair(struct rc_dev *d, struct rc_conn *a, struct rc_conn *b, const char *name,
	     int depth, struct ibv_srq *srq);
/* Post one SEND of len bytes from src and wait for both completions; the
 * receive (posted by the caller) must carry recv_wr_id. */
int iso_send_check(struct rc_conn *a, struct rc_conn *b, struct ibv_mr *mr, void *src,
		   uint32_t len, uint64_t recv_wr_id, const char *what);
/* The hw counter NAME of the device (hw_counters), or -1. */
long iso_hw_counter(struct rc_dev *d, const char *name);
/* Write "text" to path atomically (ready files). */
int iso_write_file(const char *path, const char *text);
/* Wait until path exists (or seconds pass: -1). */
int iso_wait_file(const char *path, double seconds);
/* Keep everything until the release file appears (iso.release). */
void iso_hold(const char *what);
/* The uverbs device's mappings in this process (rc-iso-mem.c). */
struct iso_map {
	uintptr_t start, end;
	int readable;
};
int iso_uverbs_maps(struct iso_map *m, int max);
/* Their pages in all (4 KiB). */
long iso_uverbs_pages(void);

/* ---- subcommands ---- */
int mode_victim(void);
int mode_victim_xrc(void);
int mode_fill(void);
int mode_scan(void);
int mode_bar4(const char *what);
int mode_quota(const char *kind);
int mode_freeze_victim(void);
int mode_freeze_attacker(void);
int mode_srq_race(void);
int mode_udata(void);

/* ---- raw uverbs (rc-iso-uverbs.c): what a process can send without the
 * provider, on the context's command file ---- */
/* One write() command: the core request (req_len bytes, its first u64 the
 * response address if resp_len), then extra bytes of driver data filled
 * with fill; the response buffer is resp_len bytes.  0 or errno. */
int uv_write(struct ibv_context *ctx, uint32_t cmd, void *req, size_t req_len,
	     size_t extra, uint8_t fill, void *resp, size_t resp_len);
/* The driver's SRQ resize method, straight to the kernel.  0 or errno. */
int uv_srq_resize(struct ibv_context *ctx, uint32_t srq_handle, uint32_t max_wr);
/* The kernel's view of the SRQ (QUERY_SRQ through write()).  0 or errno. */
int uv_query_srq(struct ibv_context *ctx, uint32_t srq_handle, uint32_t *max_wr,
		 uint32_t *srq_limit);
/* MODIFY_SRQ through write(), with extra bytes of driver data.  0 or errno. */
int uv_modify_srq(struct ibv_context *ctx, uint32_t srq_handle, uint32_t mask,
		  uint32_t max_wr, uint32_t limit, size_t extra, uint8_t fill);

#endif
