/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transport-independent core of a vfio-user server (docs/vfio-user.md).
 *
 * vfu_server_handle() takes one message as it came off the socket (its
 * bytes and the file descriptors that came with it) and prepares one reply
 * (bytes and file descriptors to send back), calling the device's
 * callbacks.  Nothing from the client is trusted: every failure becomes
 * the protocol's error reply (no reply for a no-reply message), and every
 * fd that came with a message is either kept by the server or closed.
 *
 * One thread (the message thread) calls vfu_server_handle(),
 * vfu_server_disconnect() and vfu_server_destroy(); the device callbacks
 * run on it.  Any thread may call vfu_dma_ptr() (see there).
 */
#ifndef VFU_SERVER_H
#define VFU_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vfu_proto.h"

#define VFU_MAX_REGIONS         VFIO_PCI_NUM_REGIONS
#define VFU_MAX_IRQS            VFIO_PCI_NUM_IRQS
#define VFU_MAX_IRQ_VECTORS     2048    /* MSI-X's limit */
/* The max_msg_fds the server offers; QEMU's client refuses more than 16. */
#define VFU_MAX_FDS             16
/* Largest max_data_xfer_size the server takes; QEMU's client: 64 MiB. */
#define VFU_MAX_DATA_XFER_LIMIT (64u * 1024u * 1024u)
/* Longest JSON capabilities text accepted in VERSION, NUL included. */
#define VFU_MAX_VERSION_JSON    4096

struct vfu_region_desc {
    uint64_t size;              /* 0: the device has no such region */
    uint32_t flags;             /* VFIO_REGION_INFO_FLAG_READ/_WRITE/_MMAP */
    int mmap_fd;                /* _MMAP: the client maps this; duplicated */
    uint64_t mmap_offset;       /* _MMAP: where the region is in mmap_fd */
};

struct vfu_irq_desc {
    uint32_t count;             /* vectors; 0: none of this type */
    uint32_t flags;             /* VFIO_IRQ_INFO_* as GET_IRQ_INFO says */
};

struct vfu_device_desc {
    uint32_t flags;             /* VFIO_DEVICE_FLAGS_PCI, _RESET */
    uint32_t num_regions;       /* up to VFU_MAX_REGIONS */
    struct vfu_region_desc region[VFU_MAX_REGIONS];
    uint32_t num_irqs;          /* up to VFU_MAX_IRQS */
    struct vfu_irq_desc irq[VFU_MAX_IRQS];
    uint32_t max_data_xfer;     /* 0: VFU_DEFAULT_MAX_DATA_XFER */
    uint32_t max_dma_maps;      /* 0: VFU_DEFAULT_MAX_DMA_MAPS */
};

/*
 * The device.  Each callback may be NULL: then the command it serves
 * fails with ENOTSUP (region_access, set_irqs, reset) or is only recorded
 * (dma_map, dma_unmap).  Callbacks returning int return 0 or -errno; the
 * errno goes to the client.
 */
struct vfu_device_ops {
    /* count bytes at offset of region index, 1 <= count, inside it. */
    int (*region_access)(void *opaque, uint32_t index, uint64_t offset,
                         void *buf, uint32_t count, bool is_write);
    /*
     * A new mapping, already in the table; host is NULL when the client
     * gave no fd (reachable by DMA_READ/WRITE messages only).  prot is
     * VFIO_DMA_MAP_FLAG_READ/_WRITE.  An error undoes the mapping.
     */
    int (*dma_map)(void *opaque, uint64_t iova, uint64_t size, uint32_t prot,
                   void *host);
    /*
     * Called when a mapping goes, after vfu_dma_ptr() stopped finding it
     * and before it is unmapped: when it returns, the device must have
     * stopped using every pointer into it it got before.
     */
    void (*dma_unmap)(void *opaque, uint64_t iova, uint64_t size);
    /*
     * DEVICE_SET_IRQS, validated: flags has one VFIO_IRQ_SET_DATA_* and
     * one _ACTION_* bit; [start, start + count) lies inside the index,
     * or count is 0 with DATA_NONE (every vector of the index).
     * DATA_EVENTFD (with ACTION_TRIGGER only): fds[count], each an
     * eventfd to signal or -1 to disconnect that vector; the server owns
     * them and closes each when it is replaced, disconnected or the server
     * goes, so the device must not close them and must stop writing a
     * vector's old fd when this returns.  DATA_BOOL: bools[count].
     */
    int (*set_irqs)(void *opaque, uint32_t index, uint32_t start,
                    uint32_t count, uint32_t flags, const int *fds,
                    const uint8_t *bools);
    int (*reset)(void *opaque);
};

/* What to send back: len 0 means nothing.  fds stay the server's. */
struct vfu_reply {
    const void *buf;            /* valid until the next call on the server */
    size_t len;
    int fds[1];
    size_t nfds;
};

struct vfu_server;

/* NULL with errno set (EINVAL: a bad description). */
struct vfu_server *vfu_server_create(const struct vfu_device_desc *desc,
                                     const struct vfu_device_ops *ops,
                                     void *opaque);
/* Unmaps every DMA mapping (dma_unmap first), closes every fd it holds. */
void vfu_server_destroy(struct vfu_server *s);

/*
 * Handle one message of len bytes with the nfds fds that came with it
 * (fds_dropped: more came than the transport could take; it closed them).
 * The server takes every fd: it keeps it or closes it.  reply says what
 * to send.  Returns 0 if the command succeeded, -errno if it failed (the
 * reply is the error reply, or nothing for a no-reply message), -EPROTO
 * for a reply-flagged message (the server sends no commands, so it
 * expects none: nothing to send; the caller may log or disconnect) and
 * -EBADMSG for fewer bytes than a header (nothing to send).
 */
int vfu_server_handle(struct vfu_server *s, const void *msg, size_t len,
                      int *fds, size_t nfds, bool fds_dropped,
                      struct vfu_reply *reply);

/*
 * The client went: drop its DMA mappings and interrupt fds, as the
 * document asks, and expect a new VERSION.  The device state stays.
 */
void vfu_server_disconnect(struct vfu_server *s);

/* The largest message vfu_server_handle() can accept (header included). */
size_t vfu_server_max_msg_size(const struct vfu_server *s);
bool vfu_server_negotiated(const struct vfu_server *s);

/*
 * A host pointer to [iova, iova + len) if it lies inside one mapping that
 * the server mmapped, readable (and writable if asked); NULL otherwise.
 * Any thread may call it: the table is read under a read lock, changed
 * under the write lock.  The pointer stays valid until the dma_unmap
 * callback for its mapping returns; the device stops using it there.
 */
void *vfu_dma_ptr(struct vfu_server *s, uint64_t iova, uint64_t len,
                  bool writable);

#endif
