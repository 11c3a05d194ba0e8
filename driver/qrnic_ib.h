/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qrnic: RDMA objects (user contexts, PDs, CQs, MRs, QPs) and the verbs the
 * driver's parts offer each other.
 */
#ifndef QRNIC_IB_H
#define QRNIC_IB_H

#include <linux/kref.h>
#include <linux/refcount.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "qrnic.h"

#define QRNIC_PORT		1

/* AHs are software only; this bounds how many there may be. */
#define QRNIC_MAX_AH		BIT(20)

/* SRQs of a device that does not report its limit (max_srq 0). */
#define QRNIC_MAX_SRQ_UNREPORTED	1023

/* What a receive WQE of the largest stride holds. */
#define QRNIC_MAX_RECV_SGE	(((1U << QRNIC_RQ_MAX_LOG_STRIDE) - \
				  sizeof(struct qrnic_rq_wqe)) / \
				 sizeof(struct qrnic_sge))

/*
 * The hardware interface takes the verbs values as they are (opcodes,
 * statuses, access flags, QP states and attribute masks): checked here.
 */
#define qrnic_same_value(a, b)	((int)(a) == (int)(b))

static_assert(qrnic_same_value(IB_ACCESS_LOCAL_WRITE, QRNIC_ACCESS_LOCAL_WRITE));
static_assert(qrnic_same_value(IB_ACCESS_REMOTE_WRITE, QRNIC_ACCESS_REMOTE_WRITE));
static_assert(qrnic_same_value(IB_ACCESS_REMOTE_READ, QRNIC_ACCESS_REMOTE_READ));
static_assert(qrnic_same_value(IB_ACCESS_REMOTE_ATOMIC, QRNIC_ACCESS_REMOTE_ATOMIC));
static_assert(qrnic_same_value(IB_WR_RDMA_WRITE, QRNIC_WR_RDMA_WRITE));
static_assert(qrnic_same_value(IB_WR_RDMA_WRITE_WITH_IMM, QRNIC_WR_RDMA_WRITE_IMM));
static_assert(qrnic_same_value(IB_WR_SEND, QRNIC_WR_SEND));
static_assert(qrnic_same_value(IB_WR_SEND_WITH_IMM, QRNIC_WR_SEND_IMM));
static_assert(qrnic_same_value(IB_WR_RDMA_READ, QRNIC_WR_RDMA_READ));
static_assert(qrnic_same_value(IB_WR_ATOMIC_CMP_AND_SWP, QRNIC_WR_ATOMIC_CMP_AND_SWP));
static_assert(qrnic_same_value(IB_WR_ATOMIC_FETCH_AND_ADD, QRNIC_WR_ATOMIC_FETCH_AND_ADD));
static_assert(qrnic_same_value(IB_WR_LOCAL_INV, QRNIC_WR_LOCAL_INV));
static_assert(qrnic_same_value(IB_WR_SEND_WITH_INV, QRNIC_WR_SEND_WITH_INV));
static_assert(qrnic_same_value(IB_WR_REG_MR, QRNIC_WR_REG_MR));
static_assert(qrnic_same_value(IB_ACCESS_MW_BIND, QRNIC_ACCESS_MW_BIND));
static_assert(qrnic_same_value(IB_WC_BIND_MW, QRNIC_CQE_OP_BIND_MW));
static_assert(qrnic_same_value(IB_WC_LOCAL_INV, QRNIC_CQE_OP_LOCAL_INV));
static_assert(qrnic_same_value(IB_WC_MW_BIND_ERR, QRNIC_WC_MW_BIND_ERR));
static_assert(qrnic_same_value(IB_WC_SEND, QRNIC_CQE_OP_SEND));
static_assert(qrnic_same_value(IB_WC_RDMA_WRITE, QRNIC_CQE_OP_RDMA_WRITE));
static_assert(qrnic_same_value(IB_WC_RDMA_READ, QRNIC_CQE_OP_RDMA_READ));
static_assert(qrnic_same_value(IB_WC_COMP_SWAP, QRNIC_CQE_OP_COMP_SWAP));
static_assert(qrnic_same_value(IB_WC_FETCH_ADD, QRNIC_CQE_OP_FETCH_ADD));
static_assert(qrnic_same_value(IB_WC_RECV, QRNIC_CQE_OP_RECV));
static_assert(qrnic_same_value(IB_WC_RECV_RDMA_WITH_IMM, QRNIC_CQE_OP_RECV_RDMA_IMM));
static_assert(qrnic_same_value(IB_WC_WR_FLUSH_ERR, QRNIC_WC_WR_FLUSH_ERR));
static_assert(qrnic_same_value(IB_WC_RNR_RETRY_EXC_ERR, QRNIC_WC_RNR_RETRY_EXC_ERR));
static_assert(qrnic_same_value(IB_WC_GENERAL_ERR, QRNIC_WC_GENERAL_ERR));
static_assert(qrnic_same_value(IB_QPS_ERR, QRNIC_QPS_ERR));
static_assert(qrnic_same_value(IB_MTU_4096, 5));
static_assert(qrnic_same_value(IB_QP_STATE, QRNIC_QP_ATTR_STATE));
static_assert(qrnic_same_value(IB_QP_EN_SQD_ASYNC_NOTIFY, QRNIC_QP_ATTR_EN_SQD_ASYNC));
static_assert(qrnic_same_value(IB_QP_AV, QRNIC_QP_ATTR_AV));
static_assert(qrnic_same_value(IB_QP_MIN_RNR_TIMER, QRNIC_QP_ATTR_MIN_RNR_TIMER));
static_assert(qrnic_same_value(IB_QP_DEST_QPN, QRNIC_QP_ATTR_DEST_QPN));
static_assert(qrnic_same_value(IB_QP_QKEY, QRNIC_QP_ATTR_QKEY));
static_assert(qrnic_same_value(IB_QPT_GSI, QRNIC_QPT_GSI));
static_assert(qrnic_same_value(IB_QPT_RC, QRNIC_QPT_RC));
static_assert(qrnic_same_value(IB_QPT_UC, QRNIC_QPT_UC));
static_assert(qrnic_same_value(IB_QPT_UD, QRNIC_QPT_UD));
static_assert(qrnic_same_value(IB_QPT_XRC_INI, QRNIC_QPT_XRC_INI));
static_assert(qrnic_same_value(IB_QPT_XRC_TGT, QRNIC_QPT_XRC_TGT));
static_assert(sizeof(struct qrnic_sq_wqe) == 64);
static_assert(sizeof(struct qrnic_rq_wqe) == 16);
static_assert(sizeof(struct qrnic_sge) == 16);
static_assert(sizeof(struct qrnic_cqe) == QRNIC_CQE_SIZE);
static_assert(sizeof(struct qrnic_cq_rec) == QRNIC_CQ_REC_SIZE);
static_assert(sizeof(struct qrnic_qp_attr) == 128);
static_assert(sizeof(struct qrnic_ud_av) == 40);

/*
 * UD and GSI QPs, AHs and MADs need the device's QRNIC_CAP0_UD on top of
 * the RC verbs; without it the port has no QP1 and claims no MAD or CM.
 */
static inline bool qrnic_has_ud(const struct qrnic_dev *qdev)
{
	return (qdev->cap0 & QRNIC_CAP0_RC) && (qdev->cap0 & QRNIC_CAP0_UD);
}

/* Shared receive queues: QRNIC_CAP0_SRQ on top of the RC verbs. */
static inline bool qrnic_has_srq(const struct qrnic_dev *qdev)
{
	return (qdev->cap0 & QRNIC_CAP0_RC) && (qdev->cap0 & QRNIC_CAP0_SRQ);
}

/*
 * XRC domains, XRC SRQs and XRC_INI/XRC_TGT QPs: QRNIC_CAP0_XRC on top of
 * the SRQ verbs (an XRC receive is always an SRQ's).
 */
static inline bool qrnic_has_xrc(const struct qrnic_dev *qdev)
{
	return qrnic_has_srq(qdev) && (qdev->cap0 & QRNIC_CAP0_XRC);
}

/* UC QPs: QRNIC_CAP0_UC on top of the RC verbs. */
static inline bool qrnic_has_uc(const struct qrnic_dev *qdev)
{
	return (qdev->cap0 & QRNIC_CAP0_RC) && (qdev->cap0 & QRNIC_CAP0_UC);
}

/* UD multicast: QRNIC_CAP0_MCAST on top of UD QPs. */
static inline bool qrnic_has_mcast(const struct qrnic_dev *qdev)
{
	return qrnic_has_ud(qdev) && (qdev->cap0 & QRNIC_CAP0_MCAST);
}

/* Memory windows: QRNIC_CAP0_MW on top of the RC verbs. */
static inline bool qrnic_has_mw(const struct qrnic_dev *qdev)
{
	return (qdev->cap0 & QRNIC_CAP0_RC) && (qdev->cap0 & QRNIC_CAP0_MW);
}

/* Fast registration and invalidation: QRNIC_CAP0_FAST_REG on top of RC. */
static inline bool qrnic_has_fast_reg(const struct qrnic_dev *qdev)
{
	return (qdev->cap0 & QRNIC_CAP0_RC) &&
	       (qdev->cap0 & QRNIC_CAP0_FAST_REG);
}

/* CQ resize: QRNIC_CAP0_RESIZE_CQ on top of the RC verbs. */
static inline bool qrnic_has_resize_cq(const struct qrnic_dev *qdev)
{
	return (qdev->cap0 & QRNIC_CAP0_RC) &&
	       (qdev->cap0 & QRNIC_CAP0_RESIZE_CQ);
}

enum qrnic_mmap_type {
	QRNIC_MMAP_DB,		/* a doorbell page in BAR2, uncached */
	QRNIC_MMAP_QMEM,	/* a QP's or SRQ's queue memory in BAR4, WC */
};

struct qrnic_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;
	size_t length;
	enum qrnic_mmap_type type;
};

/*
 * A user context as the device knows it (ALLOC_UCTX's number).  Its
 * ib_ucontext holds one reference and each XRC domain allocated in it one
 * more: XRC_TGT QPs count against the context that allocated their domain,
 * a domain shared through a file can outlive that context, and so
 * DEALLOC_UCTX waits for the last reference.
 */
struct qrnic_dev_uctx {
	struct kref ref;
	struct qrnic_dev *qdev;
	u32 id;
	atomic_t xrcds;		/* XRC domains allocated in the context */
};

struct qrnic_ucontext {
	struct ib_ucontext ibucontext;
	u32 uctx_id;
	u32 db_page;
	struct rdma_user_mmap_entry *db_entry;
	struct qrnic_dev_uctx *dev_uctx;
};

struct qrnic_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct qrnic_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u32 log_depth;
	struct ib_umem *umem;		/* user CQ: the pinned buffer */
	void *buf;			/* kernel CQ: ring + record */
	dma_addr_t dma;
	size_t size;
	struct qrnic_cqe *ring;		/* kernel CQ only */
	struct qrnic_cq_rec *rec;	/* kernel CQ only */
	spinlock_t lock;		/* ci, polling, arming, the ring */
	u32 ci;				/* free running consumer index */
	struct mutex resize_mutex;	/* one resize or destroy at a time */
	refcount_t refcnt;		/* lookups from event handlers */
	struct completion free;
};

struct qrnic_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	u32 key;
	int access;			/* user region: IB_ACCESS_* it has */
	__le64 *pages;			/* fast registration: the page list */
	dma_addr_t pages_dma;
	u32 npages;			/* filled by map_mr_sg */
	u32 max_pages;
};

/*
 * An XRC domain: a number (1..QRNIC_XRCD_MASK) the device compares, and
 * the context its XRC_TGT QPs count against (NULL: the kernel's domain).
 */
struct qrnic_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
	struct qrnic_dev_uctx *owner;
};

/* The device context an XRC_TGT QP of the domain counts against. */
static inline u32 qrnic_xrcd_uctx(const struct qrnic_xrcd *xrcd)
{
	return xrcd->owner ? xrcd->owner->id : 0;
}

/* Windows hold nothing of their own; ib_core sizes objects by driver type. */
struct qrnic_mw {
	struct ib_mw ibmw;
};

/* One work queue of a QP, or an SRQ's ring; kernel ones post through buf. */
struct qrnic_wq {
	void __iomem *buf;		/* kernel queue: its slot 0 in BAR4 */
	u32 offset;			/* BAR4 byte offset (SQ: the slice's) */
	u32 bytes;			/* whole pages */
	u8 log_depth;
	u8 log_stride;
	u16 pi;				/* free running, as the device sees it */
	u16 tail;			/* oldest slot not yet completed */
};

/*
 * A shared receive queue.  Its QPs' receive completions arrive in any
 * order: a kernel SRQ marks completed slots in done and moves wq.tail over
 * consecutive ones, so a slot is posted again only once it and every slot
 * before it have completed.
 */
struct qrnic_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	struct qrnic_wq wq;		/* pi, tail: kernel SRQ only */
	u32 max_sge;			/* what a WQE really holds */
	unsigned long *done;		/* kernel SRQ: completed slots */
	struct rdma_user_mmap_entry *qmem_entry;	/* user SRQ */
	spinlock_t lock;		/* kernel post path, pi, tail, done */
	struct mutex mutex;		/* one modify, query or destroy */
	refcount_t refcnt;		/* lookups from event handlers */
	struct completion free;
};

/*
 * A QP.  An XRC_INI QP has no RQ (a send side only, receives at the target
 * go to XRC SRQs); an XRC_TGT QP has no queues, PD or CQs at all (ibqp.pd,
 * send_cq and recv_cq are NULL): its receives take the WQE of the XRC SRQ
 * each request names and complete on that SRQ's CQ.
 */
struct qrnic_qp {
	struct ib_qp ibqp;
	u32 qpn;
	u8 qp_type;			/* QRNIC_QPT_* (= IB_QPT_*) */
	struct qrnic_wq sq;		/* none (0 bytes) for XRC_TGT */
	struct qrnic_wq rq;		/* none with an SRQ, for XRC */
	struct qrnic_srq *srq;		/* receives from it, or NULL */
	u32 qmem_len;			/* the slice: SQ pages, then RQ pages;
					 * 0 for XRC_TGT
					 */
	struct rdma_user_mmap_entry *qmem_entry;	/* user QP */
	u32 max_send_sge;		/* what the queues really hold */
	u32 max_recv_sge;
	u32 max_inline;
	bool sig_all;
	u8 state;			/* last known enum ib_qp_state */
	u32 resets;			/* MODIFY_QPs to RESET that succeeded */
	bool en_sqd_async;
	spinlock_t lock;		/* kernel post path, pi, state */
	struct mutex mutex;		/* one modify, query or destroy */
	refcount_t refcnt;		/* lookups from event handlers */
	struct completion free;
};

/*
 * An address handle: the address vector of UD send WQEs, dest_qpn and
 * qkey left 0 (they come with each work request).
 */
struct qrnic_ah {
	struct ib_ah ibah;
	struct qrnic_ud_av av;
};

/* An XRC_TGT QP has no SQ; no other type lacks one. */
static inline bool qrnic_qp_has_sq(const struct qrnic_qp *qp)
{
	return qp->qp_type != QRNIC_QPT_XRC_TGT;
}

/* A QP with an SRQ and the XRC QPs have no RQ of their own. */
static inline bool qrnic_qp_has_rq(const struct qrnic_qp *qp)
{
	return !qp->srq && qp->qp_type != QRNIC_QPT_XRC_INI &&
	       qp->qp_type != QRNIC_QPT_XRC_TGT;
}

static inline struct qrnic_ucontext *to_quctx(struct ib_ucontext *uctx)
{
	return container_of(uctx, struct qrnic_ucontext, ibucontext);
}

static inline struct qrnic_pd *to_qpd(struct ib_pd *pd)
{
	return container_of(pd, struct qrnic_pd, ibpd);
}

static inline struct qrnic_cq *to_qcq(struct ib_cq *cq)
{
	return container_of(cq, struct qrnic_cq, ibcq);
}

static inline struct qrnic_mr *to_qmr(struct ib_mr *mr)
{
	return container_of(mr, struct qrnic_mr, ibmr);
}

static inline struct qrnic_qp *to_qqp(struct ib_qp *qp)
{
	return container_of(qp, struct qrnic_qp, ibqp);
}

static inline struct qrnic_srq *to_qsrq(struct ib_srq *srq)
{
	return container_of(srq, struct qrnic_srq, ibsrq);
}

static inline struct qrnic_xrcd *to_qxrcd(struct ib_xrcd *xrcd)
{
	return container_of(xrcd, struct qrnic_xrcd, ibxrcd);
}

static inline struct qrnic_ah *to_qah(struct ib_ah *ah)
{
	return container_of(ah, struct qrnic_ah, ibah);
}

static inline struct qrnic_user_mmap_entry *
to_qentry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct qrnic_user_mmap_entry, rdma_entry);
}

/*
 * The uverbs rules for driver data.  A verb that defines no request data
 * takes none but zeroes (a newer provider may send fields this driver
 * does not know, only if they are unset); a response goes whole through
 * the udata, never cut short.
 */
static inline int qrnic_udata_no_input(struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EOPNOTSUPP;
	return 0;
}

static inline int qrnic_udata_respond(struct ib_udata *udata,
				      const void *resp, size_t len)
{
	if (udata->outlen < len)
		return -EINVAL;
	return ib_copy_to_udata(udata, (void *)resp, len);
}

/* The owning context of an object created with udata, 0 for the kernel. */
static inline u32 qrnic_uctx_id(struct ib_udata *udata)
{
	struct qrnic_ucontext *uctx;

	uctx = rdma_udata_to_drv_context(udata, struct qrnic_ucontext,
					 ibucontext);
	return uctx ? uctx->uctx_id : 0;
}

/*
 * A destroy command failed.  Only BAD_STATE means the device still holds
 * the object (and may write its memory); keep it then.  Any other failure
 * means the object is gone or the device is dead: free it.
 */
static inline bool qrnic_destroy_kept(int ret)
{
	return ret == -EBUSY;
}

/* qrnic_verbs.c */
struct rdma_user_mmap_entry *
qrnic_mmap_entry_insert(struct ib_ucontext *uctx, phys_addr_t address,
			size_t length, enum qrnic_mmap_type type, u64 *key);

/* qrnic_pbl.c: page lists for CREATE_CQ and REG_MR */
struct qrnic_pbl_buf {
	__le64 *top;			/* LEVEL1: pages; LEVEL2: leaf pages */
	dma_addr_t top_dma;
	size_t top_size;
	u32 nleaves;			/* LEVEL2 */
	__le64 **leaves;
	dma_addr_t *leaf_dma;
};

int qrnic_pbl_build(struct qrnic_dev *qdev, struct ib_umem *umem,
		    unsigned long pgsz, struct qrnic_pbl *pbl,
		    struct qrnic_pbl_buf *buf);
void qrnic_pbl_release(struct qrnic_dev *qdev, struct qrnic_pbl_buf *buf);

/* qrnic_cq.c */
int qrnic_create_cq_udata(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata);
int qrnic_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int qrnic_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
void qrnic_cq_comp_event(struct qrnic_dev *qdev, u32 cqn);
void qrnic_cq_async_event(struct qrnic_dev *qdev, u32 cqn);

/* qrnic_mr.c */
int qrnic_mr_key_cmd(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
		     struct qrnic_mr *mr);
struct ib_mr *qrnic_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *qrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata);
struct ib_mr *qrnic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
int qrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* qrnic_mw.c: memory windows and fast-registration regions */
int qrnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int qrnic_dealloc_mw(struct ib_mw *ibmw);
struct ib_mr *qrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg);
void qrnic_free_fast_reg(struct qrnic_dev *qdev, struct qrnic_mr *mr);
int qrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
int qrnic_build_reg_mr(const struct ib_reg_wr *wr, struct qrnic_sq_wqe *hdr);

/* qrnic_mcast.c: UD multicast groups */
int qrnic_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int qrnic_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* qrnic_ah.c: address handles (software only) */
int qrnic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int qrnic_destroy_ah(struct ib_ah *ibah, u32 flags);
int qrnic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);

/* qrnic_qp.c */
int qrnic_wq_log_depth(struct qrnic_dev *qdev, u32 wr, u8 *log);
void qrnic_wq_init(struct qrnic_wq *wq, u8 log_depth, u8 log_stride);
void qrnic_qp_caps(const struct qrnic_qp *qp, struct ib_qp_cap *cap);
int qrnic_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		    struct ib_udata *udata);
int qrnic_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
void qrnic_qp_async_event(struct qrnic_dev *qdev, u32 qpn,
			  enum ib_event_type type, u32 resets);

/* qrnic_srq.c: shared receive queues */
int qrnic_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		     struct ib_udata *udata);
int qrnic_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask attr_mask, struct ib_udata *udata);
int qrnic_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int qrnic_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
void qrnic_srq_async_event(struct qrnic_dev *qdev, u32 srqn);
extern const struct uapi_definition qrnic_srq_uapi_defs[];

/* qrnic_qp_attr.c */
bool qrnic_qp_may_hold_srq_wqe(struct qrnic_qp *qp);
int qrnic_qp_flush_srq_wqe(struct qrnic_qp *qp);
int qrnic_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    int attr_mask, struct ib_udata *udata);
int qrnic_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		   int attr_mask, struct ib_qp_init_attr *init_attr);

/* qrnic_post.c: the kernel consumers' data path */
int qrnic_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int qrnic_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int qrnic_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
void qrnic_qp_erase_srq(struct qrnic_dev *qdev, struct qrnic_qp *qp);
int qrnic_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int qrnic_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* qrnic_stats.c */
struct rdma_hw_stats *qrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int qrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* QRNIC_IB_H */
