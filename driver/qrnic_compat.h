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

#endif /* QRNIC_COMPAT_H */
