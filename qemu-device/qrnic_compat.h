/*
 * QEMU qrnic: what differs between the QEMU versions the device builds in
 * (10.0, the project's, and 10.2), in one place; the other files use the
 * names defined here and hold no version tests.
 *
 * Detected from the tree's config-host.h (QEMU_VERSION_MAJOR, _MINOR),
 * which qemu/osdep.h, included first by every .c file, brings in.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_NET_QRNIC_COMPAT_H
#define HW_NET_QRNIC_COMPAT_H

#define QRNIC_QEMU_AT_LEAST(major, minor)                               \
    (QEMU_VERSION_MAJOR > (major) ||                                    \
     (QEMU_VERSION_MAJOR == (major) && QEMU_VERSION_MINOR >= (minor)))

/*
 * QEMU 10.1 made class data const: TypeInfo.class_init takes
 * (ObjectClass *, const void *data).  QrnicClassData is what data points
 * to, for the device's class_init.
 */
#if QRNIC_QEMU_AT_LEAST(10, 1)
typedef const void QrnicClassData;
#else
typedef void QrnicClassData;
#endif

/* QEMU 10.1 moved ram_block_discard_range() to system/ramblock.h. */
#if QRNIC_QEMU_AT_LEAST(10, 1)
#include "system/ramblock.h"
#endif

#endif /* HW_NET_QRNIC_COMPAT_H */
