/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * qrnic driver <-> provider ABI (udata of uverbs commands).  Both sides
 * include this file; the kernel through linux/types.h, rdma-core through
 * its kernel-headers copy (provider/build.sh installs it there).
 * WQE, CQE and doorbell layouts are the hardware's (qrnic_hw.h).
 */
#ifndef QRNIC_ABI_USER_H
#define QRNIC_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

#define QRNIC_UVERBS_ABI_VERSION	2

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

/*
 * CREATE_CQ: the provider allocates the CQ buffer: (1 << log_depth) CQEs of
 * QRNIC_CQE_SIZE bytes followed by the QRNIC_CQ_REC_SIZE-byte record,
 * page aligned, zeroed, and passes it here; the kernel pins it.
 */
struct qrnic_ureq_create_cq {
	__aligned_u64 buf_addr;
	__u32 buf_size;			/* bytes, a multiple of the page size */
	__u32 log_depth;		/* 1..QRNIC_CQ_MAX_LOG */
};

struct qrnic_uresp_create_cq {
	__u32 cqn;
	__u32 log_depth;		/* echoes the request */
};

/*
 * RESIZE_CQ (the device has QRNIC_CAP0_RESIZE_CQ): the provider allocates
 * the new buffer as for CREATE_CQ, for 1 << log_depth CQEs (at least the
 * rule's depth for the requested cqe), and with its CQ lock held until it
 * has switched:
 *  - writes its free running consumer index ci into the new record;
 *  - makes every CQE of the new ring look unwritten for the index it will
 *    hold next: for i in [ci, ci + depth), entry i % depth gets
 *    QRNIC_CQE_PHASE = (i >> log_depth) & 1 (a zeroed ring is right only
 *    while those indexes are in an even pass of the new depth);
 *  - calls resize_cq.  The kernel pins the new buffer and issues
 *    QRNIC_CMD_RESIZE_CQ; pi is the producer index at the switch;
 *  - copies CQEs ci..pi-1 from the old ring to entry i % depth of the new
 *    one, with QRNIC_CQE_PHASE = !((i >> log_depth) & 1), then polls the
 *    new ring.
 * On success the kernel has let go of the old buffer (the provider frees
 * it after the copy).  On failure nothing changed: the device still writes
 * the old buffer, the new one is unpinned; a depth below the CQEs not yet
 * consumed is EINVAL.
 */
struct qrnic_ureq_resize_cq {
	__aligned_u64 buf_addr;
	__u32 buf_size;			/* bytes, a multiple of the page size */
	__u32 log_depth;		/* 1..QRNIC_CQ_MAX_LOG */
};

struct qrnic_uresp_resize_cq {
	__u32 pi;			/* producer index at the switch */
	__u32 log_depth;		/* echoes the request */
};

/*
 * CREATE_QP: the kernel sizes the queues from the requested caps and maps
 * the QP's queue memory (SQ then RQ, sq_offset/rq_offset bytes from the
 * start of the mapping) write-combining at qmem_mmap_key.  Each queue
 * holds 1 << log_*_depth WQEs, all usable (full: pi - tail == depth);
 * qpn is the QP number the core reports.  A QP created with an SRQ has no
 * RQ: rq_offset, log_rq_depth, log_rq_stride and max_recv_sge are then 0
 * and the mapping holds the SQ only; so has an XRC_INI QP.  An XRC_TGT QP
 * has no queues and no response: the core creates it without udata, and
 * its number is the one the core reports.
 */
struct qrnic_uresp_create_qp {
	__aligned_u64 qmem_mmap_key;
	__u32 qmem_len;			/* bytes to map */
	__u32 qpn;
	__u32 sq_offset;
	__u32 rq_offset;
	__u8  log_sq_depth;
	__u8  log_sq_stride;
	__u8  log_rq_depth;
	__u8  log_rq_stride;
	__u32 max_send_sge;		/* the caps the queues really have */
	__u32 max_recv_sge;
	__u32 max_inline;
};

/*
 * CREATE_SRQ: like a QP's RQ, the SRQ's ring lives in queue memory that the
 * kernel allocates and maps write-combining at qmem_mmap_key (qmem_len
 * bytes, the ring at offset 0): 1 << log_depth receive WQEs
 * (struct qrnic_rq_wqe + SGEs) of 1 << log_stride bytes, rung with
 * QRNIC_DB_SRQ (srqn | pi << 32) on the context's doorbell page.  Receive
 * completions of its QPs carry QRNIC_CQE_F_SRQ and wqe_idx = the SRQ slot;
 * they arrive in any order, so a slot is reusable only once it and every
 * slot before it have completed (full: pi - tail == depth, tail advanced
 * over consecutive completed slots).  max_sge is what a WQE really holds.
 * There is no request data.  A QP holds at most one SRQ WQE (mid-message)
 * and RESET or DESTROY_QP would lose it: the kernel moves an RC or UC QP
 * with an SRQ to ERR first, so the device completes that WQE (flushed) into
 * the receive CQ; a provider dropping a destroyed or reset QP's completions
 * from its CQ must still free the SRQ slots they name.  An XRC SRQ
 * (IBV_SRQT_XRC) is created the same way; srqn is the number senders name
 * (ibv_get_srq_num), and its receive completions, whichever XRC_TGT QP
 * they came through, carry QRNIC_CQE_F_XRC with srqn in the CQE.
 */
struct qrnic_uresp_create_srq {
	__aligned_u64 qmem_mmap_key;
	__u32 qmem_len;			/* bytes to map */
	__u32 srqn;
	__u8  log_depth;
	__u8  log_stride;
	__u8  pad[2];
	__u32 max_sge;
};

/*
 * IBV_SRQ_MAX_WR (resize) is the driver's own uverbs method on the SRQ
 * object, QRNIC_IB_METHOD_SRQ_RESIZE (MODIFY_SRQ's write command has no
 * response, so it takes only IBV_SRQ_LIMIT): the SRQ handle (taken
 * exclusively: a second resize or modify at the same time gets EBUSY),
 * the request and the response below.  The kernel moves the SRQ to a
 * new ring of at least max_wr WQEs (the device carries over the WQEs it
 * has not taken) and maps it write-combining at qmem_mmap_key; with
 * QRNIC_SRQ_RESIZE_LIMIT it arms srq_limit too, checked against the new
 * depth.  The provider posts nothing while it runs, then maps the new
 * ring (the old mapping stays valid until unmapped) and keeps its
 * indexes.  On failure nothing changed, except after ENOMEM or EFAULT,
 * which come once the device has moved to the new ring: then the SRQ
 * can only be destroyed.
 */
enum qrnic_ib_srq_methods {
	QRNIC_IB_METHOD_SRQ_RESIZE = (1U << UVERBS_ID_NS_SHIFT),
};

enum qrnic_ib_srq_resize_attrs {
	QRNIC_IB_ATTR_SRQ_RESIZE_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	QRNIC_IB_ATTR_SRQ_RESIZE_REQ,
	QRNIC_IB_ATTR_SRQ_RESIZE_RESP,
};

#define QRNIC_SRQ_RESIZE_LIMIT		(1U << 0)

struct qrnic_ureq_resize_srq {
	__u32 max_wr;
	__u32 srq_limit;		/* with QRNIC_SRQ_RESIZE_LIMIT */
	__u32 flags;			/* QRNIC_SRQ_RESIZE_LIMIT */
	__u32 pad;
};

struct qrnic_uresp_resize_srq {
	__aligned_u64 qmem_mmap_key;
	__u32 qmem_len;
	__u8  log_depth;
	__u8  pad[3];
};

/*
 * CREATE_AH: address handles live in the provider, which copies the address
 * vector into every UD WQE (struct qrnic_ud_av); the kernel checks the
 * attributes and resolves the destination MAC, returned here.
 */
struct qrnic_uresp_create_ah {
	__u8  dmac[6];
	__u8  sgid_index;		/* the GID table index checked */
	__u8  pad;
};

#endif /* QRNIC_ABI_USER_H */
