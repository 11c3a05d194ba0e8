/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vfio-user wire format, from QEMU's docs/interop/vfio-user.rst
 * (protocol version 0.0, the one QEMU 10.x's client speaks).
 *
 * Every message is a 16-byte header followed by a payload whose layout
 * depends on the command.  Fields are fixed-width integers in the host's
 * byte order, as the document says ("all data is in the endianness of the
 * host system"); every host qrnic builds for is little-endian.  The
 * structures hold the payload only (offsets in the document are counted
 * from the end of the header).  Flag values of regions, IRQs, devices and
 * DMA maps are the Linux VFIO ones the document reuses (<linux/vfio.h>).
 */
#ifndef VFU_PROTO_H
#define VFU_PROTO_H

#include <stdint.h>
#include <linux/vfio.h>

#define VFU_SIZE(type, size) \
    _Static_assert(sizeof(struct type) == (size), #type " size")

#define VFU_VERSION_MAJOR       0
#define VFU_VERSION_MINOR       0

/* ---- header ------------------------------------------------------------- */

struct vfu_hdr {
    uint16_t msg_id;            /* echoed in the reply */
    uint16_t command;           /* VFU_CMD_* */
    uint32_t msg_size;          /* header included */
    uint32_t flags;             /* VFU_F_* */
    uint32_t error;             /* errno of an error reply; 0 in a command */
};
VFU_SIZE(vfu_hdr, 16);

#define VFU_F_TYPE_MASK         0x0000000fu
#define VFU_F_TYPE_COMMAND      0x0
#define VFU_F_TYPE_REPLY        0x1
#define VFU_F_NO_REPLY          0x00000010u
#define VFU_F_ERROR             0x00000020u
#define VFU_F_KNOWN             (VFU_F_TYPE_MASK | VFU_F_NO_REPLY | \
                                 VFU_F_ERROR)

enum vfu_command {
    VFU_CMD_VERSION             = 1,
    VFU_CMD_DMA_MAP             = 2,
    VFU_CMD_DMA_UNMAP           = 3,
    VFU_CMD_DEVICE_GET_INFO     = 4,
    VFU_CMD_DEVICE_GET_REGION_INFO = 5,
    VFU_CMD_DEVICE_GET_REGION_IO_FDS = 6,
    VFU_CMD_DEVICE_GET_IRQ_INFO = 7,
    VFU_CMD_DEVICE_SET_IRQS     = 8,
    VFU_CMD_REGION_READ         = 9,
    VFU_CMD_REGION_WRITE        = 10,
    VFU_CMD_DMA_READ            = 11,   /* server to client */
    VFU_CMD_DMA_WRITE           = 12,   /* server to client */
    VFU_CMD_DEVICE_RESET        = 13,
    VFU_CMD_REGION_WRITE_MULTI  = 15,
    VFU_CMD_DEVICE_FEATURE      = 16,
    VFU_CMD_MIG_DATA_READ       = 17,
    VFU_CMD_MIG_DATA_WRITE      = 18,
};

/* ---- VERSION: request and reply ----------------------------------------- */

/* Followed by optional JSON capabilities, NUL-terminated. */
struct vfu_version {
    uint16_t major;
    uint16_t minor;
};
VFU_SIZE(vfu_version, 4);

/* Capability defaults when a peer does not name them. */
#define VFU_DEFAULT_MAX_MSG_FDS         1
#define VFU_DEFAULT_MAX_DATA_XFER       (1024u * 1024u)
#define VFU_DEFAULT_MAX_DMA_MAPS        65535u
#define VFU_DEFAULT_PGSIZES             4096u

/* ---- DMA_MAP (reply: no payload) ---------------------------------------- */

struct vfu_dma_map {
    uint32_t argsz;             /* sizeof(struct vfu_dma_map) */
    uint32_t flags;             /* VFIO_DMA_MAP_FLAG_READ / _WRITE */
    uint64_t offset;            /* in the fd; 0 without one */
    uint64_t address;           /* the DMA (IOVA) address */
    uint64_t size;
};
VFU_SIZE(vfu_dma_map, 32);

/* ---- DMA_UNMAP (reply: the request's payload) --------------------------- */

struct vfu_dma_unmap {
    uint32_t argsz;
    uint32_t flags;             /* 0 or VFIO_DMA_UNMAP_FLAG_ALL */
    uint64_t address;
    uint64_t size;
};
VFU_SIZE(vfu_dma_unmap, 24);

/* ---- DEVICE_GET_INFO: request and reply --------------------------------- */

struct vfu_device_info {
    uint32_t argsz;
    uint32_t flags;             /* VFIO_DEVICE_FLAGS_RESET / _PCI */
    uint32_t num_regions;
    uint32_t num_irqs;
};
VFU_SIZE(vfu_device_info, 16);

/* ---- DEVICE_GET_REGION_INFO: request and reply -------------------------- */

struct vfu_region_info {
    uint32_t argsz;
    uint32_t flags;             /* VFIO_REGION_INFO_FLAG_* */
    uint32_t index;
    uint32_t cap_offset;
    uint64_t size;
    uint64_t offset;            /* mmap() offset of an MMAP region */
};
VFU_SIZE(vfu_region_info, 32);

/* ---- DEVICE_GET_IRQ_INFO: request and reply ----------------------------- */

struct vfu_irq_info {
    uint32_t argsz;
    uint32_t flags;             /* VFIO_IRQ_INFO_* */
    uint32_t index;
    uint32_t count;
};
VFU_SIZE(vfu_irq_info, 16);

/* ---- DEVICE_SET_IRQS (reply: no payload) -------------------------------- */

/* DATA_BOOL: followed by count bytes; DATA_EVENTFD: fds out of band. */
struct vfu_irq_set {
    uint32_t argsz;             /* the payload's size, data included */
    uint32_t flags;             /* one VFIO_IRQ_SET_DATA_*, one _ACTION_* */
    uint32_t index;
    uint32_t start;
    uint32_t count;
};
VFU_SIZE(vfu_irq_set, 20);

/* ---- REGION_READ / REGION_WRITE ----------------------------------------- */

/*
 * A read request and a write reply are this alone; a read reply and a
 * write request are followed by count bytes of data.
 */
struct vfu_region_rw {
    uint64_t offset;
    uint32_t region;
    uint32_t count;
};
VFU_SIZE(vfu_region_rw, 16);

/* ---- DMA_READ / DMA_WRITE (server to client; not used yet) -------------- */

/*
 * As the document gives them: a read reply and a write request are
 * followed by count bytes of data.  The document's DMA_WRITE reply has a
 * 4-byte count, and QEMU 10.2's client reads and writes a 4-byte count
 * with the data right after it (12 bytes) in both directions: whoever
 * first sends these must follow the client, not this structure.
 */
struct vfu_dma_rw {
    uint64_t address;
    uint64_t count;
};
VFU_SIZE(vfu_dma_rw, 16);

#endif
