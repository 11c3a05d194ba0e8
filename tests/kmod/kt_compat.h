/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kernel self-test modules' differences between the guest kernels,
 * as the driver's qrnic_compat.h has them.
 */
#ifndef KT_COMPAT_H
#define KT_COMPAT_H

#include <linux/slab.h>

/* Since 7.0 the typed allocators; before, the same by hand. */
#ifndef kzalloc_obj
#define kzalloc_obj(obj, gfp) kzalloc(sizeof(obj), gfp)
#endif

#endif /* KT_COMPAT_H */
