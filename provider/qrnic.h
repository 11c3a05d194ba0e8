/* SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file */
/*
 * libqrnic: user space provider for the qrnic emulated RoCEv2 NIC.
 *
 * Control path verbs go through the kernel (uverbs commands handled by
 * qrnic.ko).  The data path needs no system calls: WQEs are written into
 * the QP's slice of BAR4 (mapped write-combining) and the context's own
 * doorbell page in BAR2 (mapped uncached) is rung; CQEs are polled from a
 * ring in pinned host memory.
 *
 * Locking:
 *   ctx->lock   the qpn -> QP and srqn -> XRC SRQ tables (insert/remove);
 *               taken before CQ locks
 *   cq->lock    the CQ ring (poll, arm, clean, resize); pollers also
 *               advance the SQ/RQ tails of the QPs whose completions they
 *               consume; resize holds it across its kernel command, from
 *               writing the new record until the CQ polls the new ring
 *   wq->lock    one per work queue (post_send / post_recv, new post API,
 *               post_srq_recv for an SRQ's ring)
 *   srq->done_lock  an SRQ's completed-slot bitmap and the tail it moves:
 *               the QPs of one SRQ may complete into several CQs, so their
 *               pollers (each under its own CQ lock) serialise here
 * Order: ctx->lock -> cq->lock (send CQ and receive CQ by address) ->
 * sq.lock -> rq.lock, cq->lock -> srq->done_lock, and (SRQ resize only)
 * srq->wq.lock -> srq->done_lock.  Nothing takes a CQ lock while holding a
 * WQ lock.
 */
#ifndef QRNIC_PROV_H
#define QRNIC_PROV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>

#include <infiniband/driver.h>
#include <util/mmio.h>
#include <util/udma_barrier.h>

#include "qrnic_hw.h"

struct qrnic_device {
	struct verbs_device ibv_dev;
};

/* The qpn -> QP table: two levels over the 24-bit QPN, filled on demand. */
#define QRNIC_QPT_SHIFT		12
#define QRNIC_QPT_SIZE		(1u << QRNIC_QPT_SHIFT)
#define QRNIC_QPT_MASK		(QRNIC_QPT_SIZE - 1)

struct qrnic_qp;
struct qrnic_srq;
struct qrnic_cq;

/*
 * An entry of the srqn -> XRC SRQ table: the SRQ and the one CQ its
 * receives complete on.  Inserted with srq before cq, removed with cq
 * before srq, both under ctx->lock and (removal) that CQ's lock; a poller
 * of a CQ reads cq first and takes srq only when cq is its own (see
 * qrnic_find_xrc_srq).
 */
struct qrnic_xsrq_ent {
	struct qrnic_srq *srq;
	struct qrnic_cq *cq;
};

struct qrnic_context {
	struct verbs_context ibv_ctx;

	/* From the driver's alloc_ucontext response. */
	uint32_t uctx_id;
	uint32_t db_page_index;	/* our page in BAR2, for diagnostics */
	uint32_t max_inline;

	/*
	 * This context's doorbell page (QRNIC_DB_PAGE_SIZE bytes of BAR2).
	 * Only the queues this context owns may be rung through it.
	 */
	void *db;

	/* Serialises inserts into and removals from qp_table. */
	pthread_mutex_t lock;

	/*
	 * qp_table[qpn >> 12][qpn & 0xfff].  Pollers read it without ctx->lock
	 * (acquire loads); a QP is removed only while its CQs are locked, and
	 * second level pages live until the context is freed.
	 */
	struct qrnic_qp **qp_table[QRNIC_QPT_SIZE];

	/*
	 * xsrq_table[srqn >> 12][srqn & 0xfff]: the XRC SRQs of this context,
	 * which receive completions name by SRQ number (QRNIC_CQE_F_XRC)
	 * through XRC_RECV QPs the provider may have no object for.  Second
	 * level pages live until the context is freed.
	 */
	struct qrnic_xsrq_ent *xsrq_table[QRNIC_QPT_SIZE];
	/*
	 * Held across an XRC SRQ's creation (kernel, then table) and
	 * destruction (kernel, then table and CQ): an srqn the device hands
	 * out again at once never finds the table holding the old SRQ, nor
	 * loses its completions to the old SRQ's cleaning.  Taken before lock.
	 */
	pthread_mutex_t xsrq_lock;
};

/*
 * A thread domain: accepted and counted, nothing more.  The device has no
 * per-thread doorbell or queue resources for one to select, and the
 * provider's locks stay as they are.
 */
struct qrnic_td {
	struct ibv_td ibv_td;
	_Atomic(int) refcount;		/* 1 + parent domains using it */
};

/*
 * The parent domain allocators' resource types: qrnic has no direct verbs
 * header, so these are the provider's own values (RDMA_DRIVER_UNKNOWN in
 * the upper half, as a driver id would be).  The only host memory buffer
 * the device reads or writes is a CQ's ring and record: QP and SRQ rings
 * live in BAR4 queue memory and doorbells in BAR2, so nothing else goes
 * through the allocators.
 */
#define QRNIC_RES_TYPE_CQ	((uint64_t)RDMA_DRIVER_UNKNOWN << 32 | 1)

/*
 * A protection domain, or a parent domain over one (protection_domain
 * set).  The kernel knows only real PDs; a parent domain carries its PD's
 * handle, so every command that takes a PD (QP, SRQ, MR, MW, AH) works
 * with either.  A PD counts the parent domains over it; a parent domain
 * counts the CQs, QPs and SRQs created through it; neither is freed while
 * its count is above 1 (EBUSY).
 */
struct qrnic_pd {
	struct ibv_pd ibv_pd;
	uint32_t pdn;
	_Atomic(int) refcount;

	/* A parent domain only. */
	struct qrnic_pd *protection_domain;
	struct qrnic_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/*
 * An address handle lives in the provider: the address vector every UD
 * WQE through it carries, little endian as in the WQE, dest_qpn and qkey
 * left 0 (they come with each work request).
 */
struct qrnic_ah {
	struct ibv_ah ibv_ah;
	struct qrnic_ud_av av;
};

struct qrnic_cq {
	struct verbs_cq vcq;
	uint32_t cqn;
	uint32_t log_depth;
	uint32_t depth;			/* 1 << log_depth */

	void *buf;			/* ring + record, page aligned */
	size_t buf_size;
	struct qrnic_cqe *ring;
	struct qrnic_cq_rec *rec;	/* follows the ring */

	uint32_t ci;			/* free running consumer index */
	pthread_spinlock_t lock;
	bool single_threaded;		/* IBV_CREATE_CQ_ATTR_SINGLE_THREADED */

	/* The entry ibv_start_poll/ibv_next_poll returned (extended CQ). */
	struct qrnic_cqe cur;

	/* Created with a parent domain: buf may come from its allocator. */
	struct qrnic_pd *parent_domain;
	bool buf_custom;		/* buf is the allocator's */
};

/*
 * A work queue in queue memory.  pi is the producer index (free running,
 * under lock); tail is the index of the oldest WQE not known complete,
 * advanced by whoever polls the queue's CQ (for an SRQ: under its
 * done_lock).  Slots in [tail, pi) belong to the device.  Depth 0: no
 * queue (the RQ of a QP with an SRQ or of an XRC_SEND QP, both queues of
 * an XRC_RECV QP); its lock is initialised all the same.
 */
struct qrnic_wq {
	uint8_t *buf;			/* slot 0, inside the qmem mapping */
	uint32_t depth;			/* 1 << log_depth */
	uint32_t log_depth;
	uint32_t log_stride;
	uint32_t max_sge;
	uint32_t pi;
	_Atomic(uint32_t) tail;
	pthread_spinlock_t lock;
};

/*
 * A send (hdr) or receive (rq) WQE as built before it is copied into its
 * slot; SQ strides are the larger.
 */
union qrnic_wqe_buf {
	struct qrnic_sq_wqe hdr;
	struct qrnic_rq_wqe rq;
	uint8_t bytes[1u << QRNIC_SQ_MAX_LOG_STRIDE];
	uint64_t words[(1u << QRNIC_SQ_MAX_LOG_STRIDE) / 8];
} __attribute__((aligned(64)));

/*
 * A shared receive queue: a receive ring (RQ WQE format) in queue memory
 * of its own, rung with DB_SRQ.  wq.pi and the slots are the posters'
 * (wq.lock).  Receives of different QPs complete in any order, so a slot
 * is free again only when it and every slot before it have completed:
 * pollers set the slot's bit in done[] and advance wq.tail over the
 * consecutive completed slots (done_lock).  The CQE carries the WQE's
 * wr_id, so nothing else is kept per slot.  An XRC SRQ (xrc_cq set) is
 * the same ring; its receives complete on xrc_cq naming it by srqn, and
 * the context's xsrq_table finds it for that CQ's pollers.
 */
struct qrnic_srq {
	union {
		struct ibv_srq ibv_srq;
		struct verbs_srq vsrq;	/* an XRC SRQ's (ibv_get_srq_num) */
	};
	uint32_t srqn;
	struct qrnic_cq *xrc_cq;	/* an XRC SRQ's CQ; NULL: basic SRQ */
	struct qrnic_wq wq;
	pthread_spinlock_t done_lock;
	uint64_t *done;			/* wq.depth bits, slot-indexed */

	void *qmem;			/* the SRQ's queue memory mapping */
	size_t qmem_len;

	struct qrnic_pd *parent_domain;	/* created through it, or NULL */
};

struct qrnic_qp {
	struct verbs_qp vqp;
	uint32_t qpn;
	uint32_t max_inline;
	bool sig_all;

	/* Last state set through modify_qp (enum ibv_qp_state). */
	_Atomic(int) state;

	struct qrnic_wq sq;		/* depth 0: XRC_RECV */
	struct qrnic_wq rq;		/* depth 0: an SRQ, XRC_SEND, XRC_RECV */
	struct qrnic_srq *srq;		/* receives from it, or NULL */

	void *qmem;			/* the QP's queue memory mapping, NULL
					 * for XRC_RECV (no queues) */
	size_t qmem_len;

	struct qrnic_pd *parent_domain;	/* created through it, or NULL */

	/*
	 * New post API (ibv_wr_*), valid between wr_start and
	 * wr_complete/abort (sq.lock held): the WQE under construction.
	 * The QP is allocated 64-byte aligned for wr_buf.
	 */
	uint32_t wr_start_pi;
	uint32_t wr_len;		/* bytes of wr_buf in use, 0: none */
	int wr_err;
	bool wr_need_av;		/* UD WQE without wr_set_ud_addr yet */
	bool wr_need_srqn;		/* XRC WQE without wr_set_xrc_srqn yet */
	union qrnic_wqe_buf wr_buf;
};

static inline struct qrnic_context *to_qctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct qrnic_context, ibv_ctx.context);
}

static inline struct qrnic_pd *to_qpd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct qrnic_pd, ibv_pd);
}

static inline struct qrnic_td *to_qtd(struct ibv_td *ibtd)
{
	return container_of(ibtd, struct qrnic_td, ibv_td);
}

/* The parent domain ibpd is, or NULL if it is a plain PD. */
static inline struct qrnic_pd *to_qparent_domain(struct ibv_pd *ibpd)
{
	struct qrnic_pd *pd = to_qpd(ibpd);

	return pd->protection_domain ? pd : NULL;
}

static inline struct qrnic_ah *to_qah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct qrnic_ah, ibv_ah);
}

static inline struct qrnic_srq *to_qsrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct qrnic_srq, ibv_srq);
}

static inline struct qrnic_cq *to_qcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct qrnic_cq, vcq.cq);
}

static inline struct qrnic_cq *to_qcq_ex(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct qrnic_cq, vcq.cq_ex);
}

static inline struct qrnic_qp *to_qqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct qrnic_qp, vqp.qp);
}

static inline struct qrnic_qp *to_qqp_ex(struct ibv_qp_ex *ibqpx)
{
	return container_of(ibqpx, struct qrnic_qp, vqp.qp_ex);
}

/* A QP's CQ, NULL where it has none (XRC_SEND: no receive CQ; XRC_RECV). */
static inline struct qrnic_cq *qrnic_qp_cq(struct ibv_cq *ibcq)
{
	return ibcq ? to_qcq(ibcq) : NULL;
}

/*
 * An XRC_RECV QP (the IBTA's XRC_TGT) has no queues, no CQs and no PD:
 * nothing is mapped and no completion names it as its own.
 */
static inline bool qrnic_qp_has_queues(const struct qrnic_qp *qp)
{
	return qp->vqp.qp.qp_type != IBV_QPT_XRC_RECV;
}

/*
 * Ring a doorbell: one 64-bit store to offset QRNIC_DB_* of the context's
 * page.  Callers order their WQE/CQ updates before it (mmio_flush_writes
 * for WQEs in write-combining queue memory).
 */
static inline void qrnic_ring_db(struct qrnic_context *ctx, uint32_t offset,
				 uint64_t val)
{
	mmio_write64_le((uint8_t *)ctx->db + offset, htole64(val));
}

/* A queue's producer index is 16 bits on the doorbell, a CQ's index 32. */
static inline uint64_t qrnic_db_val(uint32_t qn, uint32_t flags, uint16_t pi)
{
	return (uint64_t)((qn & QRNIC_DB_QN_MASK) | flags) | (uint64_t)pi << 32;
}

static inline uint64_t qrnic_cq_db_val(uint32_t cqn, uint32_t flags,
				       uint32_t ci)
{
	return (uint64_t)((cqn & QRNIC_DB_QN_MASK) | flags) | (uint64_t)ci << 32;
}

static inline struct qrnic_qp *qrnic_find_qp(struct qrnic_context *ctx,
					     uint32_t qpn)
{
	struct qrnic_qp **page;

	page = __atomic_load_n(&ctx->qp_table[(qpn >> QRNIC_QPT_SHIFT) &
					      QRNIC_QPT_MASK],
			       __ATOMIC_ACQUIRE);
	if (!page)
		return NULL;
	return __atomic_load_n(&page[qpn & QRNIC_QPT_MASK], __ATOMIC_ACQUIRE);
}

/*
 * The XRC SRQ srqn of this context whose receives complete on cq, or NULL;
 * cq's lock held.  An SRQ is removed only under its CQ's lock, so once the
 * entry names cq the SRQ it holds stays until that lock is released; an
 * entry of another CQ is not followed at all.
 */
static inline struct qrnic_srq *qrnic_find_xrc_srq(struct qrnic_context *ctx,
						   uint32_t srqn,
						   struct qrnic_cq *cq)
{
	struct qrnic_xsrq_ent *page, *ent;

	page = __atomic_load_n(&ctx->xsrq_table[(srqn >> QRNIC_QPT_SHIFT) &
						QRNIC_QPT_MASK],
			       __ATOMIC_ACQUIRE);
	if (!page)
		return NULL;
	ent = &page[srqn & QRNIC_QPT_MASK];
	if (__atomic_load_n(&ent->cq, __ATOMIC_ACQUIRE) != cq)
		return NULL;
	return __atomic_load_n(&ent->srq, __ATOMIC_RELAXED);
}

/* Slot of free running index idx. */
static inline void *qrnic_wq_slot(struct qrnic_wq *wq, uint32_t idx)
{
	return wq->buf + ((size_t)(idx & (wq->depth - 1)) << wq->log_stride);
}

static inline bool qrnic_wq_full(struct qrnic_wq *wq)
{
	return wq->pi - atomic_load_explicit(&wq->tail, memory_order_acquire) >=
	       wq->depth;
}

/* Copy a verbs scatter list into a WQE's SGEs. */
static inline void qrnic_copy_sge(struct qrnic_sge *dst,
				  const struct ibv_sge *src, size_t num_sge)
{
	size_t i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = htole64(src[i].addr);
		dst[i].length = htole32(src[i].length);
		dst[i].lkey = htole32(src[i].lkey);
	}
}

static inline bool qrnic_qp_is_ud(struct qrnic_qp *qp)
{
	return qp->vqp.qp.qp_type == IBV_QPT_UD;
}

static inline bool qrnic_qp_is_xrc_send(struct qrnic_qp *qp)
{
	return qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND;
}

/*
 * Does a QP of type qpt (enum ibv_qp_type) take send opcode op (QRNIC_WR_*,
 * the ibv_wr_opcode values)?  QRNIC_WR_LIST says, but for opcodes only
 * kernel QPs may post.
 */
static inline bool qrnic_qpt_op_ok(unsigned int qpt, unsigned int op)
{
	struct qrnic_wr_info info = qrnic_wr_info(op);

	static_assert(IBV_QPT_RC == QRNIC_QPT_RC && IBV_QPT_UC == QRNIC_QPT_UC &&
		      IBV_QPT_UD == QRNIC_QPT_UD &&
		      IBV_QPT_XRC_SEND == QRNIC_QPT_XRC_INI &&
		      IBV_QPT_XRC_RECV == QRNIC_QPT_XRC_TGT,
		      "QP types are the verbs values");
	return (info.qp_types & QRNIC_WR_QPT(qpt)) &&
	       !(info.props & QRNIC_WR_P_KERNEL);
}

static inline bool qrnic_qp_op_ok(struct qrnic_qp *qp, unsigned int op)
{
	return qrnic_qpt_op_ok(qp->vqp.qp.qp_type, op);
}

/*
 * An XRC_SEND WQE names the XRC SRQ at the target (XRCETH): a nonzero
 * 24-bit number, for every opcode that goes on the wire (LOCAL_INV stays
 * in the device and needs none).
 */
static inline bool qrnic_xrc_needs_srqn(unsigned int op)
{
	return !(qrnic_wr_info(op).props & QRNIC_WR_P_LOCAL);
}

static inline bool qrnic_xrc_srqn_ok(uint32_t srqn)
{
	return srqn && !(srqn & ~QRNIC_QPN_MASK);
}

/* A UD WQE's address: the AH's vector, the WR's QP number and Q_Key. */
static inline void qrnic_set_ud_av(struct qrnic_sq_wqe *hdr,
				   struct ibv_ah *ah, uint32_t remote_qpn,
				   uint32_t remote_qkey)
{
	hdr->ud = to_qah(ah)->av;
	hdr->ud.dest_qpn = htole32(remote_qpn & QRNIC_QPN_MASK);
	/* Bit 31 set: the device uses the QP's Q_Key. */
	hdr->ud.qkey = htole32(remote_qkey);
}

/* WQE flags for the verbs send flags (IBV_SEND_INLINE is the caller's). */
static inline uint8_t qrnic_send_flags(struct qrnic_qp *qp, unsigned int flags)
{
	uint8_t f = 0;

	if ((flags & IBV_SEND_SIGNALED) || qp->sig_all)
		f |= QRNIC_WQE_F_SIGNALED;
	if (flags & IBV_SEND_SOLICITED)
		f |= QRNIC_WQE_F_SOLICITED;
	if (flags & IBV_SEND_FENCE)
		f |= QRNIC_WQE_F_FENCE;
	return f;
}

/* verbs.c */
int qrnic_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size);
int qrnic_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr);
struct ibv_pd *qrnic_alloc_pd(struct ibv_context *ibctx);
int qrnic_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_td *qrnic_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr);
int qrnic_dealloc_td(struct ibv_td *ibtd);
struct ibv_pd *qrnic_alloc_parent_domain(struct ibv_context *ibctx,
					 struct ibv_parent_domain_init_attr *attr);
struct qrnic_pd *qrnic_parent_domain_get(struct ibv_pd *ibpd);
void qrnic_parent_domain_put(struct qrnic_pd *parent_domain);
struct ibv_ah *qrnic_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int qrnic_destroy_ah(struct ibv_ah *ibah);
struct ibv_xrcd *qrnic_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr);
int qrnic_close_xrcd(struct ibv_xrcd *ibxrcd);

/* mr.c */
struct ibv_mr *qrnic_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			    uint64_t hca_va, int access);
int qrnic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		   void *addr, size_t length, int access);
int qrnic_dereg_mr(struct verbs_mr *vmr);

/* mw.c */
struct ibv_mw *qrnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int qrnic_dealloc_mw(struct ibv_mw *mw);
int qrnic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind);
int qrnic_set_bind(struct qrnic_sq_wqe *hdr, struct ibv_mw *mw, uint32_t rkey,
		   const struct ibv_mw_bind_info *info);

/* cq.c */
struct ibv_cq *qrnic_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
struct ibv_cq_ex *qrnic_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
int qrnic_destroy_cq(struct ibv_cq *ibcq);
int qrnic_resize_cq(struct ibv_cq *ibcq, int cqe);
int qrnic_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int qrnic_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void qrnic_cq_lock_pair(struct qrnic_cq *a, struct qrnic_cq *b);
void qrnic_cq_unlock_pair(struct qrnic_cq *a, struct qrnic_cq *b);
void qrnic_cq_clean(struct qrnic_cq *cq, uint32_t qpn, struct qrnic_srq *srq);
void qrnic_cq_clean_xrc_srq(struct qrnic_cq *cq, uint32_t srqn);

/* qp.c */
int qrnic_wq_init(struct qrnic_wq *wq, uint8_t *qmem, uint32_t offset,
		  uint32_t log_depth, uint32_t log_stride);
uint32_t qrnic_rq_max_sge(uint32_t log_stride, uint32_t max);
void *qrnic_mmap_qmem(struct ibv_context *ibctx, size_t len, uint64_t key,
		      const char *what, uint32_t qn);
struct ibv_qp *qrnic_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *qrnic_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);
int qrnic_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int qrnic_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int qrnic_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *qrnic_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr);
void qrnic_qp_table_free(struct qrnic_context *ctx);
int qrnic_attach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		       uint16_t lid);
int qrnic_detach_mcast(struct ibv_qp *ibqp, const union ibv_gid *gid,
		       uint16_t lid);

/* post.c */
int qrnic_post_send_mw(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		       struct ibv_send_wr **bad_wr, bool type1_bind);
int qrnic_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int qrnic_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int qrnic_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
bool qrnic_qp_can_send(struct qrnic_qp *qp);
void qrnic_sq_write(struct qrnic_qp *qp, union qrnic_wqe_buf *wqe,
		    uint32_t len);
void qrnic_sq_ring(struct qrnic_qp *qp);

/* srq.c */
struct ibv_srq *qrnic_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
struct ibv_srq *qrnic_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr);
int qrnic_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int qrnic_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int qrnic_destroy_srq(struct ibv_srq *ibsrq);
int qrnic_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
void qrnic_srq_complete(struct qrnic_srq *srq, uint16_t wqe_idx);
void qrnic_xsrq_table_free(struct qrnic_context *ctx);

/* wr.c */
#define QRNIC_SUPPORTED_SEND_OPS                                              \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |     \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                 \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |       \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |     \
	 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |              \
	 IBV_QP_EX_WITH_FLUSH | IBV_QP_EX_WITH_ATOMIC_WRITE)
/* UD QPs send messages only. */
#define QRNIC_UD_SEND_OPS (IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
/* UC QPs send messages and RDMA writes, and bind windows. */
#define QRNIC_UC_SEND_OPS                                                     \
	(QRNIC_UD_SEND_OPS | IBV_QP_EX_WITH_RDMA_WRITE |                      \
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_BIND_MW)
uint64_t qrnic_qpt_send_ops(unsigned int qpt);
void qrnic_qp_init_wr_ops(struct qrnic_qp *qp, uint64_t send_ops_flags);

#endif
