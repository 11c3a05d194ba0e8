/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_vfu: the vfio-user server core (qemu-device/vfio-user/) as a
 * hostile client drives it - any sequence of messages, each with 0 to 3
 * fds (eventfds or copies of a guest RAM memfd), fds the transport
 * dropped, a size field that lies, a message cut short.
 *
 * The fake device checks that every call the server makes was validated
 * (regions, ranges, IRQ vectors, fds still open, DMA pointers inside the
 * mapping); every reply must be well formed; after the server is
 * destroyed every fd the input created must be closed.
 *
 * Input: flags (1: negotiate with QEMU 10.2's capabilities first, 2: a
 * device with max_data_xfer 4096), then messages:
 *   ctl u8     bits 0-1: fds, bit 2: memfd (else eventfd), bit 3: fds
 *              dropped, bit 4: a msg_size field follows, bit 5: a byte
 *              count to cut the message to follows, bit 6: a DMA probe
 *              (iova u64, len u16) follows the message
 *   command u16, flags u32, [msg_size u32], payload length u16 (up to
 *   8192), payload, [cut u8], [iova u64, len u16]
 *
 * FUZZ_VFU_TRACE=1 in the environment prints each message's result.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_common.h"
#include "vfu_server.h"

const char fuzz_target_name[] = "fuzz_vfu";

#define MAX_PAYLOAD     8192
#define MAX_MSGS        256
#define MAX_CREATED     (MAX_MSGS * 3)
#define RAM_SIZE        0x10000
#define BAR4_SIZE       0x10000
#define MSIX_VECTORS    16

#define CTL_NFDS        0x03
#define CTL_MEMFD       0x04
#define CTL_DROPPED     0x08
#define CTL_SIZE        0x10
#define CTL_CUT         0x20
#define CTL_PROBE       0x40

#define QEMU_CAPS "{\"capabilities\":{\"migration\":{\"pgsize\":4096," \
                  "\"max_bitmap_size\":268435456},\"max_msg_fds\":16," \
                  "\"max_data_xfer_size\":1048576,\"pgsizes\":4096," \
                  "\"max_dma_maps\":65535,\"write_multiple\":true}}"

static uint8_t bar0[4096], bar2[4096], bar4[BAR4_SIZE], cfg[256];
static struct vfu_device_desc desc;
static struct vfu_server *srv;

static uint8_t *region_mem(uint32_t index)
{
    switch (index) {
    case VFIO_PCI_BAR0_REGION_INDEX:
        return bar0;
    case VFIO_PCI_BAR2_REGION_INDEX:
        return bar2;
    case VFIO_PCI_BAR4_REGION_INDEX:
        return bar4;
    case VFIO_PCI_CONFIG_REGION_INDEX:
        return cfg;
    }
    return NULL;
}

static int dev_access(void *opaque, uint32_t index, uint64_t offset,
                      void *buf, uint32_t count, bool is_write)
{
    const struct vfu_region_desc *r;
    uint8_t *mem = region_mem(index);

    (void)opaque;
    if (index >= desc.num_regions || !mem) {
        fz_fail("access to region %u", index);
    }
    r = &desc.region[index];
    if (!count || count > r->size || offset > r->size - count) {
        fz_fail("access of %u at 0x%llx past region %u", count,
                (unsigned long long)offset, index);
    }
    if (!(r->flags & (is_write ? VFIO_REGION_INFO_FLAG_WRITE :
                                 VFIO_REGION_INFO_FLAG_READ))) {
        fz_fail("access against region %u's flags", index);
    }
    if (is_write) {
        memcpy(mem + offset, buf, count);
    } else {
        memcpy(buf, mem + offset, count);
    }
    return offset == 0xff0 ? -EIO : 0;
}

/* A mapping the server made must be all there. */
static void touch(uint8_t *p, uint64_t size, uint32_t prot)
{
    volatile uint8_t *v = p;    /* the accesses must happen */

    if (prot & VFIO_DMA_MAP_FLAG_WRITE) {
        v[0] = v[0];
        v[size - 1] = v[size - 1];
    } else {
        (void)v[0];
        (void)v[size - 1];
    }
}

static int dev_dma_map(void *opaque, uint64_t iova, uint64_t size,
                       uint32_t prot, void *host)
{
    (void)opaque;
    if (!size || iova + (size - 1) < iova) {
        fz_fail("dma_map of a bad range");
    }
    if (host) {
        touch(host, size, prot);
        if (vfu_dma_ptr(srv, iova, size, false) != host &&
            (prot & VFIO_DMA_MAP_FLAG_READ)) {
            fz_fail("a new mapping not found");
        }
    }
    return iova == 0xdead0000 ? -EIO : 0;
}

static void dev_dma_unmap(void *opaque, uint64_t iova, uint64_t size)
{
    (void)opaque;
    (void)iova;
    (void)size;
}

static int dev_set_irqs(void *opaque, uint32_t index, uint32_t start,
                        uint32_t count, uint32_t flags, const int *fds,
                        const uint8_t *bools)
{
    uint32_t data = flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
    uint32_t i;

    (void)opaque;
    if (index >= desc.num_irqs) {
        fz_fail("set_irqs of index %u", index);
    }
    if (count ? (uint64_t)start + count > desc.irq[index].count :
                (start || data != VFIO_IRQ_SET_DATA_NONE)) {
        fz_fail("set_irqs of %u at %u in index %u", count, start, index);
    }
    if ((fds != NULL) != (data == VFIO_IRQ_SET_DATA_EVENTFD) ||
        (bools != NULL) != (data == VFIO_IRQ_SET_DATA_BOOL)) {
        fz_fail("set_irqs data does not match flags 0x%x", flags);
    }
    for (i = 0; fds && i < count; i++) {
        if (fds[i] != -1 && fcntl(fds[i], F_GETFD) == -1) {
            fz_fail("set_irqs hands over a closed fd");
        }
    }
    for (i = 0; bools && i < count; i++) {
        /* Read each: ASan checks the server handed over count bytes. */
        (void)*(volatile const uint8_t *)&bools[i];
    }
    return 0;
}

static int dev_reset(void *opaque)
{
    (void)opaque;
    return 0;
}

static const struct vfu_device_ops ops = {
    .region_access = dev_access,
    .dma_map = dev_dma_map,
    .dma_unmap = dev_dma_unmap,
    .set_irqs = dev_set_irqs,
    .reset = dev_reset,
};

static int bar4_fd = -1;

static void make_desc(bool small_xfer)
{
    memset(&desc, 0, sizeof(desc));
    desc.flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
    desc.num_regions = VFIO_PCI_NUM_REGIONS;
    desc.region[VFIO_PCI_BAR0_REGION_INDEX].size = sizeof(bar0);
    desc.region[VFIO_PCI_BAR0_REGION_INDEX].flags =
        VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
    desc.region[VFIO_PCI_BAR2_REGION_INDEX].size = sizeof(bar2);
    desc.region[VFIO_PCI_BAR2_REGION_INDEX].flags =
        VFIO_REGION_INFO_FLAG_WRITE;
    desc.region[VFIO_PCI_BAR4_REGION_INDEX].size = BAR4_SIZE;
    desc.region[VFIO_PCI_BAR4_REGION_INDEX].flags =
        VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
        VFIO_REGION_INFO_FLAG_MMAP;
    desc.region[VFIO_PCI_BAR4_REGION_INDEX].mmap_fd = bar4_fd;
    desc.region[VFIO_PCI_CONFIG_REGION_INDEX].size = sizeof(cfg);
    desc.region[VFIO_PCI_CONFIG_REGION_INDEX].flags =
        VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE;
    desc.num_irqs = VFIO_PCI_NUM_IRQS;
    desc.irq[VFIO_PCI_INTX_IRQ_INDEX].count = 1;
    desc.irq[VFIO_PCI_INTX_IRQ_INDEX].flags = VFIO_IRQ_INFO_EVENTFD;
    desc.irq[VFIO_PCI_MSIX_IRQ_INDEX].count = MSIX_VECTORS;
    desc.irq[VFIO_PCI_MSIX_IRQ_INDEX].flags = VFIO_IRQ_INFO_EVENTFD;
    desc.max_data_xfer = small_xfer ? 4096 : 0;
}

static void check_reply(int ret, const struct vfu_hdr *req, size_t len,
                        const struct vfu_reply *rep)
{
    struct vfu_hdr h;

    if (ret == -EBADMSG || ret == -EPROTO ||
        (len >= sizeof(h) && (req->flags & VFU_F_NO_REPLY))) {
        if (rep->len || rep->nfds) {
            fz_fail("a reply where none is due (ret %d)", ret);
        }
        return;
    }
    if (rep->len < sizeof(h) || rep->len > vfu_server_max_msg_size(srv) ||
        rep->nfds > 1) {
        fz_fail("reply of %zu bytes, %zu fds", rep->len, rep->nfds);
    }
    memcpy(&h, rep->buf, sizeof(h));
    if (h.msg_size != rep->len || h.msg_id != req->msg_id ||
        h.command != req->command) {
        fz_fail("reply header does not match");
    }
    if (ret ? (h.flags != (VFU_F_TYPE_REPLY | VFU_F_ERROR) ||
               h.error != (uint32_t)-ret || rep->len != sizeof(h) ||
               rep->nfds) :
              (h.flags != VFU_F_TYPE_REPLY || h.error)) {
        fz_fail("reply flags 0x%x error %u for result %d", h.flags, h.error,
                ret);
    }
    if (rep->nfds && fcntl(rep->fds[0], F_GETFD) == -1) {
        fz_fail("reply fd is closed");
    }
}

static int created[MAX_CREATED];
static int ncreated;

static int new_fd(bool memfd, int ram)
{
    int fd = memfd ? dup(ram) : eventfd(0, EFD_CLOEXEC);

    if (fd < 0) {
        fz_fail("cannot make an fd");
    }
    created[ncreated++] = fd;
    return fd;
}

static void probe(struct fz *f)
{
    uint64_t iova = fz_u64(f);
    uint16_t len = fz_u16(f);
    /* volatile: the accesses must happen, through the mapping. */
    volatile uint8_t *p = vfu_dma_ptr(srv, iova, len, true);

    if (p) {
        p[0] = p[len - 1];
    }
    p = vfu_dma_ptr(srv, iova, len, false);
    if (p) {
        (void)p[0];
        (void)p[len - 1];
    }
}

static void version(void)
{
    static uint8_t m[sizeof(struct vfu_hdr) + 4 + sizeof(QEMU_CAPS)];
    struct vfu_hdr h = { .msg_id = 1, .command = VFU_CMD_VERSION,
                         .msg_size = sizeof(m) };
    struct vfu_reply rep;

    memcpy(m, &h, sizeof(h));
    memset(m + sizeof(h), 0, 4);
    memcpy(m + sizeof(h) + 4, QEMU_CAPS, sizeof(QEMU_CAPS));
    if (vfu_server_handle(srv, m, sizeof(m), NULL, 0, false, &rep)) {
        fz_fail("QEMU's VERSION refused");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t msg[sizeof(struct vfu_hdr) + MAX_PAYLOAD];
    struct fz f = { data, size };
    uint8_t flags = fz_u8(&f);
    int ram, n, i;

    if (bar4_fd < 0) {
        bar4_fd = memfd_create("bar4", MFD_CLOEXEC);
        if (bar4_fd < 0 || ftruncate(bar4_fd, BAR4_SIZE)) {
            fz_fail("no memfd");
        }
    }
    ram = memfd_create("ram", MFD_CLOEXEC);
    if (ram < 0 || ftruncate(ram, RAM_SIZE)) {
        fz_fail("no memfd");
    }
    make_desc(flags & 2);
    srv = vfu_server_create(&desc, &ops, NULL);
    if (!srv) {
        fz_fail("server not created");
    }
    if (flags & 1) {
        version();
    }
    ncreated = 0;
    for (n = 0; n < MAX_MSGS && fz_more(&f); n++) {
        uint8_t ctl = fz_u8(&f);
        struct vfu_hdr h = { .msg_id = (uint16_t)n };
        struct vfu_reply rep;
        int fds[3];
        size_t plen, len, nfds = ctl & CTL_NFDS;
        int ret;

        h.command = fz_u16(&f);
        h.flags = fz_u32(&f);
        if (ctl & CTL_SIZE) {
            h.msg_size = fz_u32(&f);
        }
        plen = fz_u16(&f) % (MAX_PAYLOAD + 1);
        fz_bytes(&f, msg + sizeof(h), plen);
        len = sizeof(h) + plen;
        if (!(ctl & CTL_SIZE)) {
            h.msg_size = (uint32_t)len;
        }
        memcpy(msg, &h, sizeof(h));
        if (ctl & CTL_CUT) {
            size_t cut = fz_u8(&f);

            len = cut < len ? cut : len;
        }
        for (i = 0; i < (int)nfds; i++) {
            fds[i] = new_fd(ctl & CTL_MEMFD, ram);
        }
        ret = vfu_server_handle(srv, msg, len, fds, nfds, ctl & CTL_DROPPED,
                                &rep);
        check_reply(ret, &h, len, &rep);
        if (getenv("FUZZ_VFU_TRACE")) {
            fprintf(stderr, "# msg %d: command %u, %zu bytes, %zu fds: %d\n",
                    n, h.command, len, nfds, ret);
        }
        if (ctl & CTL_PROBE) {
            probe(&f);
        }
    }
    vfu_server_destroy(srv);
    srv = NULL;
    close(ram);
    for (i = 0; i < ncreated; i++) {
        if (fcntl(created[i], F_GETFD) != -1) {
            fz_fail("fd %d of the input still open", created[i]);
        }
    }
    return 0;
}

/* ---- seeds -------------------------------------------------------------- */

static void m_begin(struct fzw *w, uint8_t ctl, uint16_t cmd, uint32_t flags,
                    uint16_t plen)
{
    fzw_u8(w, ctl);
    fzw_u16(w, cmd);
    fzw_u32(w, flags);
    fzw_u16(w, plen);
}

static void m_version(struct fzw *w, const char *json)
{
    m_begin(w, 0, VFU_CMD_VERSION, 0, (uint16_t)(4 + strlen(json) + 1));
    fzw_u32(w, 0);
    fzw_bytes(w, json, strlen(json) + 1);
}

static void m_dma_map(struct fzw *w, bool fd, uint64_t iova, uint64_t size,
                      uint64_t offset, uint32_t flags)
{
    m_begin(w, fd ? 1 | CTL_MEMFD | CTL_PROBE : CTL_PROBE, VFU_CMD_DMA_MAP,
            0, 32);
    fzw_u32(w, 32);
    fzw_u32(w, flags);
    fzw_u64(w, offset);
    fzw_u64(w, iova);
    fzw_u64(w, size);
    fzw_u64(w, iova + 8);
    fzw_u16(w, 8);
}

static void m_dma_unmap(struct fzw *w, uint64_t iova, uint64_t size,
                        uint32_t flags)
{
    m_begin(w, 0, VFU_CMD_DMA_UNMAP, 0, 24);
    fzw_u32(w, 24);
    fzw_u32(w, flags);
    fzw_u64(w, iova);
    fzw_u64(w, size);
}

static void m_info(struct fzw *w, uint16_t cmd, uint32_t index)
{
    uint16_t plen = cmd == VFU_CMD_DEVICE_GET_REGION_INFO ? 32 : 16;

    m_begin(w, 0, cmd, 0, plen);
    fzw_u32(w, plen);
    fzw_u32(w, 0);
    fzw_u32(w, cmd == VFU_CMD_DEVICE_GET_INFO ? 0 : index);
    fzw_fill(w, 0, plen - 12);
}

static void m_rw(struct fzw *w, bool write, uint32_t flags, uint32_t region,
                 uint64_t offset, uint32_t count)
{
    m_begin(w, 0, write ? VFU_CMD_REGION_WRITE : VFU_CMD_REGION_READ, flags,
            (uint16_t)(16 + (write ? count : 0)));
    fzw_u64(w, offset);
    fzw_u32(w, region);
    fzw_u32(w, count);
    if (write) {
        fzw_fill(w, 0x5a, count);
    }
}

static void m_irqs(struct fzw *w, uint8_t nfds, uint32_t flags,
                   uint32_t index, uint32_t start, uint32_t count)
{
    uint16_t extra = (flags & VFIO_IRQ_SET_DATA_BOOL) ? (uint16_t)count : 0;

    m_begin(w, nfds, VFU_CMD_DEVICE_SET_IRQS, 0, (uint16_t)(20 + extra));
    fzw_u32(w, 20u + extra);
    fzw_u32(w, flags);
    fzw_u32(w, index);
    fzw_u32(w, start);
    fzw_u32(w, count);
    fzw_fill(w, 1, extra);
}

#define RW_FLAGS (VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE)
#define TRIGGER_FD (VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER)

void fuzz_make_seeds(fz_emit_fn emit)
{
    static struct fzw w;
    uint32_t i;

    /* A QEMU-like bring-up: version, info, regions, IRQs, DMA. */
    w.n = 0;
    fzw_u8(&w, 0);
    m_version(&w, QEMU_CAPS);
    m_info(&w, VFU_CMD_DEVICE_GET_INFO, 0);
    for (i = 0; i < VFIO_PCI_NUM_REGIONS; i++) {
        m_info(&w, VFU_CMD_DEVICE_GET_REGION_INFO, i);
    }
    for (i = 0; i < VFIO_PCI_NUM_IRQS; i++) {
        m_info(&w, VFU_CMD_DEVICE_GET_IRQ_INFO, i);
    }
    m_dma_map(&w, true, 0x0, 0x8000, 0, RW_FLAGS);
    m_dma_map(&w, true, 0x100000, 0x8000, 0x8000, RW_FLAGS);
    m_dma_map(&w, false, 0x200000, 0x1000, 0, VFIO_DMA_MAP_FLAG_READ);
    m_irqs(&w, 3, TRIGGER_FD, VFIO_PCI_MSIX_IRQ_INDEX, 0, 3);
    m_rw(&w, true, 0, VFIO_PCI_BAR0_REGION_INDEX, 0x10, 4);
    m_rw(&w, false, 0, VFIO_PCI_CONFIG_REGION_INDEX, 0, 4);
    m_begin(&w, 0, VFU_CMD_DEVICE_RESET, 0, 0);
    m_dma_unmap(&w, 0x100000, 0x8000, 0);
    m_dma_unmap(&w, 0, 0, VFIO_DMA_UNMAP_FLAG_ALL);
    emit("bring-up", &w);

    /* Negotiated up front; DMA maps that must be refused. */
    w.n = 0;
    fzw_u8(&w, 1);
    m_dma_map(&w, true, 0x1000, 0x1000, 0, RW_FLAGS);
    m_dma_map(&w, true, 0x1000, 0x1000, 0, RW_FLAGS);
    m_dma_map(&w, true, 0xfffffffffffff000ull, 0x2000, 0, RW_FLAGS);
    m_dma_map(&w, true, 0x10000, 0, 0, RW_FLAGS);
    m_dma_map(&w, true, 0x10000, RAM_SIZE, 0x1000, RW_FLAGS);
    m_dma_map(&w, false, 0x10000, 0x1000, 0x1000, RW_FLAGS);
    m_dma_map(&w, true, 0xdead0000, 0x1000, 0, RW_FLAGS);
    m_dma_unmap(&w, 0x1000, 0x2000, 0);
    m_dma_unmap(&w, 0x5000, 0x1000, 0);
    emit("dma-refused", &w);

    /* Region accesses at and past the edges. */
    w.n = 0;
    fzw_u8(&w, 1);
    m_rw(&w, false, 0, VFIO_PCI_BAR0_REGION_INDEX, 4092, 4);
    m_rw(&w, false, 0, VFIO_PCI_BAR0_REGION_INDEX, 4093, 4);
    m_rw(&w, false, 0, VFIO_PCI_BAR0_REGION_INDEX, UINT64_MAX - 1, 4);
    m_rw(&w, false, 0, VFIO_PCI_BAR2_REGION_INDEX, 0, 4);
    m_rw(&w, true, 0, VFIO_PCI_BAR1_REGION_INDEX, 0, 4);
    m_rw(&w, true, 0, VFIO_PCI_BAR0_REGION_INDEX, 0xff0, 8);
    m_rw(&w, true, VFU_F_NO_REPLY, VFIO_PCI_BAR2_REGION_INDEX, 8, 8);
    m_rw(&w, false, 0, VFIO_PCI_BAR4_REGION_INDEX, 0, 8192);
    m_rw(&w, false, 0, 9, 0, 4);
    emit("region-edges", &w);

    /* A small max_data_xfer_size. */
    w.n = 0;
    fzw_u8(&w, 2);
    m_version(&w, "{\"capabilities\":{\"max_data_xfer_size\":16,"
              "\"max_msg_fds\":0,\"pgsizes\":2097152,\"max_dma_maps\":1}}");
    m_rw(&w, false, 0, VFIO_PCI_BAR0_REGION_INDEX, 0, 16);
    m_rw(&w, false, 0, VFIO_PCI_BAR0_REGION_INDEX, 0, 17);
    m_info(&w, VFU_CMD_DEVICE_GET_REGION_INFO, VFIO_PCI_BAR4_REGION_INDEX);
    m_dma_map(&w, false, 0x200000, 0x200000, 0, RW_FLAGS);
    m_dma_map(&w, false, 0x600000, 0x200000, 0, RW_FLAGS);
    emit("small-limits", &w);

    /* Interrupts: eventfds, replacements, disconnects, refusals. */
    w.n = 0;
    fzw_u8(&w, 1);
    m_irqs(&w, 2, TRIGGER_FD, VFIO_PCI_MSIX_IRQ_INDEX, 0, 2);
    m_irqs(&w, 1, TRIGGER_FD, VFIO_PCI_MSIX_IRQ_INDEX, 1, 1);
    m_irqs(&w, 0, TRIGGER_FD, VFIO_PCI_MSIX_IRQ_INDEX, 0, 1);
    m_irqs(&w, 1, TRIGGER_FD, VFIO_PCI_INTX_IRQ_INDEX, 0, 1);
    m_irqs(&w, 3, TRIGGER_FD, VFIO_PCI_MSIX_IRQ_INDEX, 15, 3);
    m_irqs(&w, 1, TRIGGER_FD, VFIO_PCI_NUM_IRQS, 0, 1);
    m_irqs(&w, 1, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_MASK,
           VFIO_PCI_MSIX_IRQ_INDEX, 0, 1);
    m_irqs(&w, 0, VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER,
           VFIO_PCI_MSIX_IRQ_INDEX, 2, 4);
    m_irqs(&w, 0, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
           VFIO_PCI_MSIX_IRQ_INDEX, 0, 0);
    emit("irqs", &w);

    /* Before VERSION, bad versions, VERSION twice. */
    w.n = 0;
    fzw_u8(&w, 0);
    m_info(&w, VFU_CMD_DEVICE_GET_INFO, 0);
    m_begin(&w, 0, VFU_CMD_VERSION, 0, 4);
    fzw_u16(&w, 1);
    fzw_u16(&w, 0);
    m_version(&w, "{\"capabilities\":{\"max_msg_fds\":-1}}");
    m_version(&w, "{\"capabilities\":{\"max_msg_fds\":1,\"max_msg_fds\":1}}");
    m_version(&w, "{\"a\":[[[[[[[[[[1]]]]]]]]]]}");
    m_version(&w, "{\"x\":[1,2.5e-3,true,null,{\"y\":\"\\u00e9\"}],"
              "\"capabilities\":{\"twin_socket\":{\"supported\":true}}}");
    m_version(&w, QEMU_CAPS);
    emit("versions", &w);

    /* Header trouble: lying sizes, cut messages, flags, replies, fds. */
    w.n = 0;
    fzw_u8(&w, 1);
    m_begin(&w, CTL_SIZE, VFU_CMD_DEVICE_GET_INFO, 0, 16);
    w.n -= 2;
    fzw_u32(&w, 48);
    fzw_u16(&w, 16);
    fzw_u32(&w, 16);
    fzw_fill(&w, 0, 12);
    m_begin(&w, CTL_CUT, VFU_CMD_DEVICE_GET_INFO, 0, 16);
    fzw_u32(&w, 16);
    fzw_fill(&w, 0, 12);
    fzw_u8(&w, 10);
    m_begin(&w, 2, VFU_CMD_DEVICE_GET_INFO, VFU_F_TYPE_REPLY, 0);
    m_begin(&w, 1, VFU_CMD_DEVICE_RESET, 0, 0);
    m_begin(&w, 1 | CTL_DROPPED, VFU_CMD_DEVICE_RESET, 0, 0);
    m_begin(&w, 0, VFU_CMD_DEVICE_RESET, VFU_F_ERROR, 0);
    m_begin(&w, 0, VFU_CMD_DEVICE_RESET, 0x100, 0);
    m_begin(&w, 0, VFU_CMD_REGION_WRITE_MULTI, 0, 0);
    m_begin(&w, 0, 0xffff, VFU_F_NO_REPLY, 0);
    emit("headers", &w);

    /* Single messages, each alone. */
    w.n = 0;
    fzw_u8(&w, 0);
    m_version(&w, "{}");
    emit("version-empty-caps", &w);
    w.n = 0;
    fzw_u8(&w, 1);
    m_begin(&w, 0, VFU_CMD_DEVICE_GET_REGION_IO_FDS, 0, 16);
    fzw_fill(&w, 0, 16);
    emit("unknown-command", &w);
    w.n = 0;
    fzw_u8(&w, 1);
    m_begin(&w, 1, VFU_CMD_DMA_MAP, VFU_F_TYPE_REPLY, 0);
    emit("reply-from-client", &w);
    w.n = 0;
    fzw_u8(&w, 1);
    m_dma_map(&w, true, 0x4000, 0x4000, 0x4000, RW_FLAGS);
    emit("dma-map", &w);
    w.n = 0;
    fzw_u8(&w, 1);
    m_rw(&w, true, VFU_F_NO_REPLY, VFIO_PCI_BAR0_REGION_INDEX, 0, 8);
    emit("posted-write", &w);
    w.n = 0;
    fzw_u8(&w, 1);
    m_begin(&w, 3 | CTL_MEMFD, VFU_CMD_DMA_MAP, 0, 32);
    fzw_u32(&w, 32);
    fzw_u32(&w, RW_FLAGS);
    fzw_fill(&w, 0, 8);
    fzw_u64(&w, 0x1000);
    fzw_u64(&w, 0x1000);
    emit("dma-map-three-fds", &w);
}
