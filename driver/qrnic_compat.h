/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qrnic: differences between the kernels the driver builds for (6.1 to
 * 7.3), kept in this one place.  Kbuild derives the QRNIC_* feature macros
 * from the target kernel's own headers (see Kbuild), never from its
 * version: a backported interface is found where it is.
 */
#ifndef QRNIC_COMPAT_H
#define QRNIC_COMPAT_H

#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "qrnic_ib.h"

/*
 * Since 7.0 the typed allocators (kzalloc_obj() and kin) are the kernel's
 * way to allocate one object; before, the same by hand.
 */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, gfp) kzalloc(sizeof(obj), gfp)
#endif

/* Since 6.11 create_cq gets the uverbs attribute bundle, not the udata. */
#ifdef QRNIC_CREATE_CQ_ATTRS
static inline int qrnic_create_cq(struct ib_cq *ibcq,
				  const struct ib_cq_init_attr *attr,
				  struct uverbs_attr_bundle *attrs)
{
	return qrnic_create_cq_udata(ibcq, attr,
				     attrs ? &attrs->driver_udata : NULL);
}
#else
static inline int qrnic_create_cq(struct ib_cq *ibcq,
				  const struct ib_cq_init_attr *attr,
				  struct ib_udata *udata)
{
	return qrnic_create_cq_udata(ibcq, attr, udata);
}
#endif

/*
 * Since 6.17 reg_user_mr may name a DMA handle (TLP processing hints); the
 * device has no use for one, so a region asking for one is refused.
 */
#ifdef QRNIC_REG_USER_MR_DMAH
static inline struct ib_mr *qrnic_reg_user_mr_op(struct ib_pd *ibpd,
						 u64 start, u64 length,
						 u64 virt_addr, int access,
						 struct ib_dmah *dmah,
						 struct ib_udata *udata)
{
	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);
	return qrnic_reg_user_mr(ibpd, start, length, virt_addr, access,
				 udata);
}
#else
static inline struct ib_mr *qrnic_reg_user_mr_op(struct ib_pd *ibpd,
						 u64 start, u64 length,
						 u64 virt_addr, int access,
						 struct ib_udata *udata)
{
	return qrnic_reg_user_mr(ibpd, start, length, virt_addr, access,
				 udata);
}
#endif

/*
 * Since 7.1 only user CQs are resized, through resize_user_cq, with an
 * unsigned entry count.
 */
#ifdef QRNIC_RESIZE_USER_CQ
static inline int qrnic_resize_user_cq_op(struct ib_cq *ibcq,
					  unsigned int cqe,
					  struct ib_udata *udata)
{
	if (cqe > INT_MAX)
		return -EINVAL;
	return qrnic_resize_cq(ibcq, cqe, udata);
}

static inline void qrnic_set_resize_cq_ops(struct ib_device *ibdev)
{
	static const struct ib_device_ops ops = {
		.resize_user_cq = qrnic_resize_user_cq_op,
	};

	ib_set_device_ops(ibdev, &ops);
}
#else
static inline void qrnic_set_resize_cq_ops(struct ib_device *ibdev)
{
	static const struct ib_device_ops ops = {
		.resize_cq = qrnic_resize_cq,
	};

	ib_set_device_ops(ibdev, &ops);
}
#endif

/* Since 7.2 user memory by address is pinned with ib_umem_get_va(). */
static inline struct ib_umem *qrnic_umem_get(struct ib_device *ibdev,
					     unsigned long addr, size_t size,
					     int access)
{
#ifdef QRNIC_UMEM_GET_VA
	return ib_umem_get_va(ibdev, addr, size, access);
#else
	return ib_umem_get(ibdev, addr, size, access);
#endif
}

/*
 * RDMA FLUSH and ATOMIC WRITE exist since 6.2; older kernels neither ask
 * for them nor have the flags to offer them.
 */
#ifdef QRNIC_HAS_FLUSH
static_assert(qrnic_same_value(IB_ACCESS_FLUSH_GLOBAL, QRNIC_ACCESS_FLUSH_GLOBAL));
static_assert(qrnic_same_value(IB_WR_FLUSH, QRNIC_WR_FLUSH));
static_assert(qrnic_same_value(IB_WR_ATOMIC_WRITE, QRNIC_WR_ATOMIC_WRITE));
static_assert(qrnic_same_value(IB_WC_FLUSH, QRNIC_CQE_OP_FLUSH));
static_assert(qrnic_same_value(IB_WC_ATOMIC_WRITE, QRNIC_CQE_OP_ATOMIC_WRITE));

static inline void qrnic_query_device_flush(struct qrnic_dev *qdev,
					    struct ib_device_attr *attr)
{
	if (!(qdev->cap0 & QRNIC_CAP0_RC))
		return;
	if (qdev->cap0 & QRNIC_CAP0_FLUSH)
		attr->device_cap_flags |= IB_DEVICE_FLUSH_GLOBAL;
	if (qdev->cap0 & QRNIC_CAP0_ATOMIC_WRITE)
		attr->device_cap_flags |= IB_DEVICE_ATOMIC_WRITE;
}
#else
static inline void qrnic_query_device_flush(struct qrnic_dev *qdev,
					    struct ib_device_attr *attr)
{
}
#endif

#endif /* QRNIC_COMPAT_H */
