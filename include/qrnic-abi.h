/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * qrnic driver <-> provider ABI (udata of uverbs commands).  Both sides
 * include this file; the kernel through linux/types.h, rdma-core through
 * its kernel-headers copy (provider/build.sh installs it there).
 */
#ifndef QRNIC_ABI_USER_H
#define QRNIC_ABI_USER_H

#include <linux/types.h>

#define QRNIC_UVERBS_ABI_VERSION	1

struct qrnic_ureq_alloc_ucontext {
	__u32 rsvd;
	__u32 pad;
};

struct qrnic_uresp_alloc_ucontext {
	__aligned_u64 db_mmap_key;	/* mmap offset of the context's doorbell page */
	__u32 db_page_index;		/* its index in BAR2 */
	__u32 uctx_id;
	__u32 max_inline;
	__u32 pad;
};

struct qrnic_uresp_alloc_pd {
	__u32 pdn;
	__u32 pad;
};

#endif /* QRNIC_ABI_USER_H */
