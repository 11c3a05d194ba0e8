/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel verbs self-test's shared state: two RC QPs of one device
 * connected to each other, each with a CQ and an 8 KiB DMA-mapped buffer.
 */
#ifndef QRNIC_KVERBS_H
#define QRNIC_KVERBS_H

#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <rdma/ib_verbs.h>

#include "kt_compat.h"

#define BUF_SIZE	8192
#define WAIT_MS		5000

struct kt_side {
	struct ib_cq *cq;
	struct ib_qp *qp;
	void *buf;
	u64 dma;
	struct completion event;
};

struct kt {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_mr *atomic_mr;
	struct kt_side s[2];
	const struct ib_gid_attr *gid;
	u8 mac[ETH_ALEN];
	int failed;
};

#define check(t, cond, fmt, ...) do {					\
	bool __ok = (cond);						\
	pr_info("%s - " fmt "\n", __ok ? "ok" : "not ok", ##__VA_ARGS__);	\
	if (!__ok)							\
		(t)->failed++;						\
} while (0)

int kt_modify(struct kt *t, int i);
int kt_reconnect(struct kt *t);
int kt_wait(struct kt *t, int i, struct ib_wc *wc, bool *evented);
int kt_post_wait(struct kt *t, int from, struct ib_send_wr *wr);
void kt_sge(struct kt *t, struct ib_sge *sge, int i, u32 off, u32 len);
void kt_sync(struct kt *t, int i, bool for_cpu);
void kt_fill(struct kt *t, int i, u8 seed);
int kt_rdma(struct kt *t, int from, enum ib_wr_opcode op, u32 loff,
	    u32 roff, u32 len, u64 add_or_cmp, u64 swap, int flags, u32 rkey);

/* kverbs_fastreg.c */
void kt_fastreg(struct kt *t);

#endif
