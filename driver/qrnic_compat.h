/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qrnic: differences between the kernels the driver builds for (6.1 and
 * 6.12), kept in this one place.  Kbuild derives the QRNIC_* feature
 * macros from the kernel version.
 */
#ifndef QRNIC_COMPAT_H
#define QRNIC_COMPAT_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "qrnic_ib.h"

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
