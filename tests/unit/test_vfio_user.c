/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The vfio-user server core (qemu-device/vfio-user/vfu_server.c) and its
 * socket layer (vfu_socket.c), driven as a client would, and as a hostile
 * one would: every refusal must be an error reply with the right errno,
 * and no fd may stay open that the server does not keep.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tap.h"
#include "vfu_client.h"
#include "vfu_server.h"
#include "vfu_socket.h"

int tap_failures;

#define BAR0_SIZE       4096
#define BAR2_SIZE       4096
#define BAR4_SIZE       65536
#define CFG_SIZE        256
#define MSIX_VECTORS    8
#define GUEST_RAM       (1u << 20)

/* ---- a fake device ------------------------------------------------------ */

struct dev {
    uint8_t bar0[BAR0_SIZE];
    uint8_t bar2[BAR2_SIZE];
    uint8_t cfg[CFG_SIZE];
    int accesses;
    int maps, unmaps, resets;
    uint64_t last_map_iova;
    void *last_map_host;
    bool found_at_unmap;        /* vfu_dma_ptr() still found it in dma_unmap */
    int irq_calls;
    uint32_t irq_index, irq_start, irq_count, irq_flags;
    int irq_fds[MSIX_VECTORS];
    uint8_t irq_bools[MSIX_VECTORS];
    bool irq_had_fds, irq_had_bools;
    pthread_mutex_t lock;       /* what a device thread holds using DMA */
};

static struct dev dev = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int dev_access(void *opaque, uint32_t index, uint64_t offset,
                      void *buf, uint32_t count, bool is_write)
{
    struct dev *d = opaque;
    uint8_t *mem = index == VFIO_PCI_BAR0_REGION_INDEX ? d->bar0 :
                   index == VFIO_PCI_BAR2_REGION_INDEX ? d->bar2 :
                   index == VFIO_PCI_CONFIG_REGION_INDEX ? d->cfg : NULL;

    d->accesses++;
    if (!mem) {
        return -EIO;
    }
    if (index == VFIO_PCI_BAR0_REGION_INDEX && offset == 0xff0) {
        return -EIO;            /* a register the device refuses */
    }
    if (is_write) {
        memcpy(mem + offset, buf, count);
    } else {
        memcpy(buf, mem + offset, count);
    }
    return 0;
}

static int dev_dma_map(void *opaque, uint64_t iova, uint64_t size,
                       uint32_t prot, void *host)
{
    struct dev *d = opaque;

    (void)size;
    (void)prot;
    d->maps++;
    d->last_map_iova = iova;
    d->last_map_host = host;
    return iova == 0xdead0000 ? -EIO : 0;
}

static void dev_dma_unmap(void *opaque, uint64_t iova, uint64_t size)
{
    struct dev *d = opaque;

    pthread_mutex_lock(&d->lock);
    d->unmaps++;
    d->found_at_unmap = srv && vfu_dma_ptr(srv, iova, size, false) != NULL;
    pthread_mutex_unlock(&d->lock);
}

static int dev_set_irqs(void *opaque, uint32_t index, uint32_t start,
                        uint32_t count, uint32_t flags, const int *fds,
                        const uint8_t *bools)
{
    struct dev *d = opaque;

    d->irq_calls++;
    d->irq_index = index;
    d->irq_start = start;
    d->irq_count = count;
    d->irq_flags = flags;
    d->irq_had_fds = fds != NULL;
    d->irq_had_bools = bools != NULL;
    if (fds && count <= MSIX_VECTORS) {
        memcpy(d->irq_fds, fds, count * sizeof(int));
    }
    if (bools && count <= MSIX_VECTORS) {
        memcpy(d->irq_bools, bools, count);
    }
    return 0;
}

static int dev_reset(void *opaque)
{
    ((struct dev *)opaque)->resets++;
    return 0;
}

static const struct vfu_device_ops dev_ops = {
    .region_access = dev_access,
    .dma_map = dev_dma_map,
    .dma_unmap = dev_dma_unmap,
    .set_irqs = dev_set_irqs,
    .reset = dev_reset,
};

static int bar4_fd;

static struct vfu_device_desc make_desc(void)
{
    struct vfu_device_desc d;

    memset(&d, 0, sizeof(d));
    d.flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
    d.num_regions = VFIO_PCI_NUM_REGIONS;
    d.region[VFIO_PCI_BAR0_REGION_INDEX] = (struct vfu_region_desc) {
        .size = BAR0_SIZE,
        .flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE,
    };
    d.region[VFIO_PCI_BAR2_REGION_INDEX] = (struct vfu_region_desc) {
        .size = BAR2_SIZE, .flags = VFIO_REGION_INFO_FLAG_WRITE,
    };
    d.region[VFIO_PCI_BAR4_REGION_INDEX] = (struct vfu_region_desc) {
        .size = BAR4_SIZE,
        .flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE |
                 VFIO_REGION_INFO_FLAG_MMAP,
        .mmap_fd = bar4_fd, .mmap_offset = 0,
    };
    d.region[VFIO_PCI_CONFIG_REGION_INDEX] = (struct vfu_region_desc) {
        .size = CFG_SIZE,
        .flags = VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE,
    };
    d.num_irqs = VFIO_PCI_NUM_IRQS;
    d.irq[VFIO_PCI_INTX_IRQ_INDEX] = (struct vfu_irq_desc) {
        1, VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_MASKABLE |
           VFIO_IRQ_INFO_AUTOMASKED,
    };
    d.irq[VFIO_PCI_MSIX_IRQ_INDEX] = (struct vfu_irq_desc) {
        MSIX_VECTORS, VFIO_IRQ_INFO_EVENTFD | VFIO_IRQ_INFO_NORESIZE,
    };
    return d;
}

/* ---- a client (vfu_client.h) ------------------------------------------- */

static void new_server(const char *caps)
{
    struct vfu_device_desc d = make_desc();

    vfu_server_destroy(srv);
    srv = vfu_server_create(&d, &dev_ops, &dev);
    if (srv && caps) {
        version(caps);
    }
}

/* ---- negotiation -------------------------------------------------------- */

/* The value of "key": in the reply's JSON, or -1. */
static long long reply_cap(const char *key)
{
    const char *json = (const char *)rep_payload() + 4;
    char pat[64];
    const char *at;

    snprintf(pat, sizeof(pat), "\"%s\":", key);
    at = strstr(json, pat);
    return at ? atoll(at + strlen(pat)) : -1;
}

static void test_negotiation(void)
{
    static const char *const malformed[] = {
        "", "{", "}", "[]", "5", "{\"capabilities\":5}",
        "{\"capabilities\":{\"max_msg_fds\":\"16\"}}",
        "{\"capabilities\":{\"max_msg_fds\":-1}}",
        "{\"capabilities\":{\"max_msg_fds\":1.5}}",
        "{\"capabilities\":{\"max_msg_fds\":1e3}}",
        "{\"capabilities\":{\"max_msg_fds\":18446744073709551616}}",
        "{\"capabilities\":{\"max_msg_fds\":01}}",
        "{\"capabilities\":{\"max_msg_fds\":1,\"max_msg_fds\":2}}",
        "{\"capabilities\":{\"pgsizes\":512}}",
        "{\"capabilities\":{\"max_data_xfer_size\":0}}",
        "{\"capabilities\":{\"migration\":true}}",
        "{\"capabilities\":{\"twin_socket\":{\"supported\":1}}}",
        "{\"capabilities\":{\"write_multiple\":\"yes\"}}",
        "{\"capabilities\":{}} x", "{\"capabilities\":{},}",
        "{\"a\":[[[[[[[[[[1]]]]]]]]]]}", "{\"a\":\"\\q\"}",
        "{\"a\":\"\x01\"}", "{\"a\":\"unterminated}", "{\"a\":nul}",
        "{\"a\" 1}", "{\"a\":\"\\u12g4\"}", "{'a':1}",
    };
    struct vfu_version v = { 1, 0 };
    struct vfu_device_info info = { .argsz = sizeof(info) };
    const struct vfu_version *rv;
    uint8_t p[64];
    size_t i;
    int bad = 0;

    new_server(NULL);
    CHECK(srv, "server created");
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_INFO, &info, sizeof(info)), EINVAL,
             "a command before VERSION: EINVAL");
    CHECK_EQ(rep_hdr().error, EINVAL, "... in the error reply");
    CHECK_EQ(-send_msg(VFU_CMD_VERSION, &v, sizeof(v)), ENOTSUP,
             "major version 1: ENOTSUP");
    for (i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
        if (version(malformed[i]) != -EINVAL ||
            vfu_server_negotiated(srv)) {
            printf("# malformed capabilities accepted: %s\n", malformed[i]);
            bad++;
        }
    }
    CHECK_EQ(bad, 0, "%zu malformed capabilities: EINVAL each",
             sizeof(malformed) / sizeof(malformed[0]));

    /* The JSON must end with its NUL, and have no other. */
    memcpy(p, &(struct vfu_version){ 0, 0 }, 4);
    memcpy(p + 4, "{}", 2);
    CHECK_EQ(-send_msg(VFU_CMD_VERSION, p, 6), EINVAL, "JSON without NUL");
    memcpy(p + 4, "{}\0\0", 4);
    CHECK_EQ(-send_msg(VFU_CMD_VERSION, p, 8), EINVAL, "JSON with two NULs");
    CHECK_EQ(-send_msg(VFU_CMD_VERSION, p, 3), EINVAL, "VERSION too short");
    CHECK(!vfu_server_negotiated(srv), "still not negotiated");

    CHECK_EQ(version("{\"x\":[1,2.5e-3,true,null,{\"y\":\"\\u00e9\\n\"}],"
                     "\"capabilities\":{\"unknown\":{},\"twin_socket\":"
                     "{\"supported\":true},\"max_msg_fds\":4}}"), 0,
             "unknown keys and twin_socket accepted");
    new_server(NULL);
    CHECK_EQ(version(QEMU_CAPS), 0, "QEMU 10.2's capabilities accepted");
    CHECK(vfu_server_negotiated(srv), "negotiated");
    rv = rep_payload();
    CHECK(rv->major == 0 && rv->minor == 0, "reply is version 0.0");
    CHECK(((const char *)rep.buf)[rep.len - 1] == '\0' &&
          strlen((const char *)rep_payload() + 4) + 5 ==
          rep.len - sizeof(struct vfu_hdr), "reply JSON ends with its NUL");
    CHECK_EQ(reply_cap("max_msg_fds"), VFU_MAX_FDS, "reply max_msg_fds");
    CHECK_EQ(reply_cap("max_data_xfer_size"), 1048576,
             "reply max_data_xfer_size");
    CHECK_EQ(reply_cap("pgsizes"), 4096, "reply pgsizes");
    CHECK_EQ(reply_cap("max_dma_maps"), 65535, "reply max_dma_maps");
    CHECK(!strstr((const char *)rep_payload() + 4, "write_multiple") &&
          !strstr((const char *)rep_payload() + 4, "migration") &&
          !strstr((const char *)rep_payload() + 4, "twin_socket"),
          "reply offers no multi-write, migration or twin socket");
    CHECK_EQ(-version(QEMU_CAPS), EINVAL, "VERSION twice: EINVAL");
    CHECK_EQ(send_msg(VFU_CMD_DEVICE_GET_INFO, &info, sizeof(info)), 0,
             "GET_INFO after VERSION");

    new_server(NULL);
    CHECK_EQ(version(NULL), 0, "VERSION without capabilities");
    CHECK_EQ(rep.len, sizeof(struct vfu_hdr) + 4 + strlen(
             (const char *)rep_payload() + 4) + 1, "... replied with them");

    new_server("{\"capabilities\":{\"max_data_xfer_size\":4096}}");
    CHECK_EQ(reply_cap("max_data_xfer_size"), 4096,
             "a smaller max_data_xfer_size is taken");
    CHECK_EQ(region_read(VFIO_PCI_BAR0_REGION_INDEX, 0, 4096), 0,
             "a read of max_data_xfer_size");
    CHECK_EQ(-region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, 4097), E2BIG,
             "a read beyond it: E2BIG");

    new_server(NULL);
    vfu_server_disconnect(srv);
    CHECK(!vfu_server_negotiated(srv), "disconnect forgets the version");
    CHECK_EQ(version(QEMU_CAPS), 0, "a new client negotiates again");
}

/* ---- DMA ---------------------------------------------------------------- */

static void test_dma(void)
{
    const uint32_t rw = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE;
    int ram = guest_ram(GUEST_RAM), fds[2], unmaps, before;
    uint8_t *p, byte = 0;
    char buf[16] = "";

    new_server(QEMU_CAPS);
    CHECK(ram >= 0, "memfd for guest RAM");
    fds[0] = dup(ram);
    CHECK_EQ(dma_map(0x100000, 0x10000, 0x1000, rw, fds, 1), 0,
             "DMA_MAP of 64 KiB at offset 4 KiB of a memfd");
    CHECK(!fd_open(fds[0]), "the server closed the map's fd (mmap keeps it)");
    CHECK(dev.maps == 1 && dev.last_map_iova == 0x100000 &&
          dev.last_map_host, "dma_map callback with a host pointer");
    p = vfu_dma_ptr(srv, 0x100010, 5, true);
    CHECK(p, "vfu_dma_ptr inside the mapping");
    if (p) {
        memcpy(p, "hello", 5);
    }
    CHECK(pread(ram, buf, 5, 0x1010) == 5 && !memcmp(buf, "hello", 5),
          "bytes written through it are in the memfd");
    CHECK(pwrite(ram, "x", 1, 0x1000 + 0xffff) == 1, "write to the memfd");
    p = vfu_dma_ptr(srv, 0x10ffff, 1, false);
    if (p) {
        byte = *p;
    }
    CHECK_EQ(byte, 'x', "... seen through the mapping's last byte");

    /* vfu_dma_ptr bounds. */
    CHECK(!vfu_dma_ptr(srv, 0x10ffff, 2, false), "one byte past the end");
    CHECK(!vfu_dma_ptr(srv, 0xfffff, 2, false), "one byte before the start");
    CHECK(!vfu_dma_ptr(srv, 0x100000, 0, false), "zero length");
    CHECK(!vfu_dma_ptr(srv, UINT64_MAX, 2, false), "wrapping range");
    CHECK(!vfu_dma_ptr(srv, 0x100000, 0x10001, false), "longer than it");
    CHECK(vfu_dma_ptr(srv, 0x100000, 0x10000, true), "the whole mapping");

    /* Refusals. */
    fds[0] = dup(ram);
    CHECK_EQ(-dma_map(0x108000, 0x10000, 0, rw, fds, 1), EEXIST,
             "overlap with the end: EEXIST");
    CHECK(!fd_open(fds[0]), "... its fd closed");
    fds[0] = dup(ram);
    CHECK_EQ(-dma_map(0xf0000, 0x20000, 0, rw, fds, 1), EEXIST,
             "a map around it: EEXIST");
    CHECK_EQ(-dma_map(0x100000, 0x10000, 0, rw, NULL, 0), EEXIST,
             "the same range without fd: EEXIST");
    CHECK_EQ(-dma_map(0x108000, 0x1000, 0, rw, NULL, 0), EEXIST,
             "a map inside it: EEXIST");
    CHECK_EQ(-dma_map(0xfffffffffffff000ull, 0x2000, 0, rw, NULL, 0), EINVAL,
             "iova + size wraps: EINVAL");
    CHECK_EQ(-dma_map(0x200000, 0, 0, rw, NULL, 0), EINVAL, "size 0: EINVAL");
    CHECK_EQ(-dma_map(0x200800, 0x1000, 0, rw, NULL, 0), EINVAL,
             "iova not page-aligned: EINVAL");
    CHECK_EQ(-dma_map(0x200000, 0x1000, 0, 0, NULL, 0), EINVAL,
             "no READ or WRITE: EINVAL");
    CHECK_EQ(-dma_map(0x200000, 0x1000, 0, rw | 4, NULL, 0), EINVAL,
             "an unknown flag: EINVAL");
    CHECK_EQ(-dma_map(0x200000, 0x1000, 0x1000, rw, NULL, 0), EINVAL,
             "an offset without fd: EINVAL");
    fds[0] = dup(ram);
    fds[1] = dup(ram);
    CHECK_EQ(-dma_map(0x200000, 0x1000, 0, rw, fds, 2), EINVAL,
             "two fds: EINVAL");
    CHECK(!fd_open(fds[0]) && !fd_open(fds[1]), "... both closed");
    fds[0] = dup(ram);
    CHECK_EQ(-dma_map(0x200000, GUEST_RAM, 0x1000, rw, fds, 1), EINVAL,
             "past the end of the file: EINVAL");
    fds[0] = eventfd(0, EFD_CLOEXEC);
    CHECK_EQ(-dma_map(0x200000, 0x1000, 0, rw, fds, 1), EINVAL,
             "an fd that is not a file: EINVAL");
    CHECK(!fd_open(fds[0]), "... closed");
    fds[0] = dup(ram);
    CHECK_EQ(-dma_map(0x200000, 0x2000, 0xfffffffffffff000ull, rw, fds, 1),
             EINVAL, "offset + size wraps: EINVAL");
    {
        struct vfu_dma_map m = { .argsz = 16, .flags = rw,
                                 .address = 0x200000, .size = 0x1000 };

        CHECK_EQ(-send_msg(VFU_CMD_DMA_MAP, &m, sizeof(m)), EINVAL,
                 "argsz not 32: EINVAL");
        CHECK_EQ(-send_msg(VFU_CMD_DMA_MAP, &m, sizeof(m) - 1), EINVAL,
                 "payload short: EINVAL");
    }
    CHECK_EQ(dev.maps, 1, "no refused map reached the device");
    fds[0] = dup(ram);
    CHECK_EQ(-dma_map(0xdead0000, 0x1000, 0, rw, fds, 1), EIO,
             "the device refusing a map: its errno");
    CHECK(!vfu_dma_ptr(srv, 0xdead0000, 1, false), "... and it is gone");

    /* Mappings without fd, read-only ones, adjacent ones. */
    CHECK_EQ(dma_map(0x110000, 0x1000, 0, rw, NULL, 0), 0,
             "an adjacent map without fd");
    CHECK(dev.last_map_host == NULL, "... the device gets no pointer");
    CHECK(!vfu_dma_ptr(srv, 0x110000, 1, false),
          "... nor does vfu_dma_ptr");
    CHECK(!vfu_dma_ptr(srv, 0x10fff0, 0x20, false),
          "a range over two mappings: NULL");
    fds[0] = dup(ram);
    CHECK_EQ(dma_map(0x400000, 0x1000, 0, VFIO_DMA_MAP_FLAG_READ, fds, 1), 0,
             "a read-only map");
    CHECK(vfu_dma_ptr(srv, 0x400000, 8, false), "... readable");
    CHECK(!vfu_dma_ptr(srv, 0x400000, 8, true), "... not writable");

    /* Unmap. */
    unmaps = dev.unmaps;
    CHECK_EQ(-dma_unmap(0x100000, 0x8000, 0), ENOENT,
             "unmap of part of a mapping: ENOENT");
    CHECK_EQ(-dma_unmap(0x300000, 0x1000, 0), ENOENT,
             "unmap of nothing: ENOENT");
    CHECK_EQ(-dma_unmap(0, 0x1000, VFIO_DMA_UNMAP_FLAG_ALL), EINVAL,
             "unmap-all with a size: EINVAL");
    CHECK_EQ(-dma_unmap(0x100000, 0x10000, 1), EINVAL,
             "unmap with the dirty-bitmap flag: EINVAL");
    CHECK_EQ(dev.unmaps, unmaps, "no refused unmap reached the device");
    CHECK_EQ(dma_unmap(0x100000, 0x10000, 0), 0, "exact unmap");
    CHECK(dev.unmaps == unmaps + 1 && !dev.found_at_unmap,
          "dma_unmap callback ran once vfu_dma_ptr no longer found the "
          "mapping (no device thread can take a new pointer into it)");
    CHECK(!vfu_dma_ptr(srv, 0x100000, 1, false), "... then it was gone");
    CHECK(rep.len == sizeof(struct vfu_hdr) + sizeof(struct vfu_dma_unmap) &&
          ((const struct vfu_dma_unmap *)rep_payload())->address == 0x100000,
          "the reply echoes the unmapped entry");
    CHECK_EQ(dma_unmap(0, 0, VFIO_DMA_UNMAP_FLAG_ALL), 0, "unmap all");
    CHECK_EQ(dev.unmaps, unmaps + 3, "... every mapping told to the device");
    CHECK(!vfu_dma_ptr(srv, 0x400000, 1, false), "... none left");

    /* max_dma_maps */
    new_server("{\"capabilities\":{\"max_dma_maps\":2}}");
    CHECK_EQ(dma_map(0x1000, 0x1000, 0, rw, NULL, 0) |
             dma_map(0x3000, 0x1000, 0, rw, NULL, 0), 0, "two maps");
    fds[0] = dup(ram);
    CHECK_EQ(-dma_map(0x5000, 0x1000, 0, rw, fds, 1), ENOSPC,
             "a third one past max_dma_maps 2: ENOSPC");
    CHECK(!fd_open(fds[0]), "... its fd closed");

    /* pgsizes: a client of 2 MiB pages only */
    new_server("{\"capabilities\":{\"pgsizes\":2097152}}");
    CHECK_EQ(-dma_map(0x1000, 0x1000, 0, rw, NULL, 0), EINVAL,
             "pgsizes 2 MiB: a 4 KiB map refused");
    CHECK_EQ(dma_map(0x200000, 0x200000, 0, rw, NULL, 0), 0,
             "pgsizes 2 MiB: a 2 MiB map taken");

    /* Many maps, sorted in any order, each found. */
    new_server(QEMU_CAPS);
    before = 0;
    for (unmaps = 0; unmaps < 100; unmaps++) {
        uint64_t iova = (uint64_t)((unmaps * 37) % 100) * 0x2000;

        fds[0] = dup(ram);
        before |= dma_map(iova, 0x1000, (uint64_t)unmaps * 0x1000, rw, fds,
                          1);
    }
    CHECK_EQ(before, 0, "100 maps in scattered order");
    before = 0;
    for (unmaps = 0; unmaps < 100; unmaps++) {
        p = vfu_dma_ptr(srv, (uint64_t)unmaps * 0x2000 + 8, 8, true);
        if (!p) {
            before++;
        }
    }
    CHECK_EQ(before, 0, "... each found by vfu_dma_ptr");
    CHECK(!vfu_dma_ptr(srv, 0x1000, 1, false), "... the gaps are not");
    close(ram);
}

/* A device thread using DMA while the message thread maps and unmaps. */
static bool reader_stop;         /* under dev.lock */
static unsigned long reader_hits;

static void *dma_reader(void *arg)
{
    bool stop = false;

    (void)arg;
    while (!stop) {
        uint8_t *p;

        pthread_mutex_lock(&dev.lock);
        p = vfu_dma_ptr(srv, 0x10000, 8, true);
        if (p) {
            p[0]++;
            reader_hits++;
        }
        stop = reader_stop;
        pthread_mutex_unlock(&dev.lock);
    }
    return NULL;
}

static void test_dma_threads(void)
{
    int ram = guest_ram(0x100000), i, fd, bad = 0;
    pthread_t t;

    new_server(QEMU_CAPS);
    reader_stop = false;
    CHECK_EQ(pthread_create(&t, NULL, dma_reader, NULL), 0, "reader thread");
    for (i = 0; i < 300; i++) {
        /* Maps around it move the array (the table grows and shrinks). */
        fd = dup(ram);
        bad |= dma_map((uint64_t)(i % 40) * 0x100000 + 0x200000, 0x1000, 0,
                       VFIO_DMA_MAP_FLAG_READ, &fd, 1);
        fd = dup(ram);
        bad |= dma_map(0x10000, 0x1000, 0x1000, VFIO_DMA_MAP_FLAG_READ |
                       VFIO_DMA_MAP_FLAG_WRITE, &fd, 1);
        bad |= dma_unmap(0x10000, 0x1000, 0);
        if (i % 40 == 39) {
            bad |= dma_unmap(0, 0, VFIO_DMA_UNMAP_FLAG_ALL);
        }
    }
    pthread_mutex_lock(&dev.lock);
    reader_stop = true;
    pthread_mutex_unlock(&dev.lock);
    pthread_join(t, NULL);
    CHECK_EQ(bad, 0, "300 map/unmap rounds beside a thread writing "
             "through vfu_dma_ptr (%lu writes)", reader_hits);
    close(ram);
}

/* ---- device, region and IRQ information --------------------------------- */

static void test_info(void)
{
    struct vfu_device_info di = { .argsz = sizeof(di) };
    struct vfu_irq_info ii = { .argsz = sizeof(ii) };
    struct vfu_region_info ri, bad_ri = { .argsz = sizeof(ri) };
    struct stat a, b;
    int fd;

    new_server(QEMU_CAPS);
    CHECK_EQ(send_msg(VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di)), 0,
             "GET_INFO");
    memcpy(&di, rep_payload(), sizeof(di));
    CHECK(di.argsz == 16 && di.flags == (VFIO_DEVICE_FLAGS_PCI |
          VFIO_DEVICE_FLAGS_RESET) && di.num_regions == 9 && di.num_irqs == 5,
          "... PCI, reset, 9 regions, 5 IRQ types");
    di.num_irqs = 1;
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di)), EINVAL,
             "GET_INFO with a field set: EINVAL");
    di.argsz = 8;
    di.num_irqs = 0;
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_INFO, &di, sizeof(di)), EINVAL,
             "GET_INFO with argsz 8: EINVAL");
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_INFO, &di, 12), EINVAL,
             "GET_INFO payload short: EINVAL");

    CHECK_EQ(region_info(VFIO_PCI_BAR0_REGION_INDEX, &ri), 0, "BAR0 info");
    CHECK(ri.size == BAR0_SIZE && ri.flags == (VFIO_REGION_INFO_FLAG_READ |
          VFIO_REGION_INFO_FLAG_WRITE) && rep.nfds == 0,
          "... 4 KiB, read-write, no fd");
    CHECK_EQ(region_info(VFIO_PCI_BAR1_REGION_INDEX, &ri), 0, "BAR1 info");
    CHECK(ri.size == 0 && ri.flags == 0, "... absent");
    CHECK_EQ(region_info(VFIO_PCI_BAR4_REGION_INDEX, &ri), 0, "BAR4 info");
    CHECK(ri.size == BAR4_SIZE && (ri.flags & VFIO_REGION_INFO_FLAG_MMAP) &&
          rep.nfds == 1, "... mmappable, with an fd");
    fd = rep.nfds ? rep.fds[0] : -1;
    CHECK(fd >= 0 && !fstat(fd, &a) && !fstat(bar4_fd, &b) &&
          a.st_ino == b.st_ino && fd != bar4_fd,
          "... a copy of the device's BAR4 memfd");
    CHECK_EQ(region_info(VFIO_PCI_CONFIG_REGION_INDEX, &ri), 0,
             "config space info");
    CHECK(ri.size == CFG_SIZE, "... 256 bytes");
    CHECK_EQ(-region_info(VFIO_PCI_NUM_REGIONS, &ri), EINVAL,
             "region 9: EINVAL");
    bad_ri.index = 0;
    bad_ri.size = 1;
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_REGION_INFO, &bad_ri,
                       sizeof(bad_ri)), EINVAL, "region info with size set");
    bad_ri.size = 0;
    bad_ri.argsz = 16;
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_REGION_INFO, &bad_ri,
                       sizeof(bad_ri)), EINVAL, "region info argsz 16");

    new_server("{\"capabilities\":{\"max_msg_fds\":0}}");
    CHECK_EQ(region_info(VFIO_PCI_BAR4_REGION_INDEX, &ri), 0,
             "BAR4 info to a client taking no fds");
    CHECK(!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP) && rep.nfds == 0,
          "... not mmappable, no fd");

    new_server(QEMU_CAPS);
    ii.index = MSIX;
    CHECK_EQ(send_msg(VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii)), 0,
             "MSI-X info");
    memcpy(&ii, rep_payload(), sizeof(ii));
    CHECK(ii.count == MSIX_VECTORS && (ii.flags & VFIO_IRQ_INFO_EVENTFD),
          "... 8 vectors, eventfd");
    ii.index = VFIO_PCI_MSI_IRQ_INDEX;
    ii.count = 0;
    ii.flags = 0;
    CHECK_EQ(send_msg(VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii)), 0,
             "MSI info");
    CHECK_EQ(((const struct vfu_irq_info *)rep_payload())->count, 0,
             "... none");
    ii.index = VFIO_PCI_NUM_IRQS;
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_GET_IRQ_INFO, &ii, sizeof(ii)), EINVAL,
             "IRQ index 5: EINVAL");
}

/* ---- region access ------------------------------------------------------ */

static void test_region_access(void)
{
    uint32_t v = 0x12345678, got = 0;
    uint8_t big[8192];
    int acc;

    new_server(QEMU_CAPS);
    CHECK_EQ(region_write(VFIO_PCI_BAR0_REGION_INDEX, 8, &v, 4, 0), 0,
             "BAR0 write");
    CHECK(!memcmp(dev.bar0 + 8, &v, 4), "... reached the device");
    CHECK_EQ(rep.len, sizeof(struct vfu_hdr) + sizeof(struct vfu_region_rw),
             "... reply without data");
    CHECK_EQ(region_read(VFIO_PCI_BAR0_REGION_INDEX, 8, 4), 0, "BAR0 read");
    CHECK_EQ(rep.len, sizeof(struct vfu_hdr) + 16 + 4, "... 4 bytes back");
    memcpy(&got, (const uint8_t *)rep_payload() + 16, 4);
    CHECK_EQ(got, v, "... the value written");
    dev.cfg[0] = 0x36;
    CHECK_EQ(region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, 1), 0,
             "config space read");
    CHECK_EQ(((const uint8_t *)rep_payload())[16], 0x36, "... its byte");
    CHECK_EQ(region_read(VFIO_PCI_BAR0_REGION_INDEX, BAR0_SIZE - 4, 4), 0,
             "read of the last 4 bytes");

    acc = dev.accesses;
    CHECK_EQ(-region_read(VFIO_PCI_BAR0_REGION_INDEX, BAR0_SIZE - 3, 4),
             EINVAL, "read past the end: EINVAL");
    CHECK_EQ(-region_read(VFIO_PCI_BAR0_REGION_INDEX, UINT64_MAX - 1, 4),
             EINVAL, "offset + count wraps: EINVAL");
    CHECK_EQ(-region_read(VFIO_PCI_BAR0_REGION_INDEX, 0, 0), EINVAL,
             "count 0: EINVAL");
    CHECK_EQ(-region_read(VFIO_PCI_NUM_REGIONS, 0, 4), EINVAL,
             "region 9: EINVAL");
    CHECK_EQ(-region_read(0xffffffff, 0, 4), EINVAL,
             "region 0xffffffff: EINVAL");
    CHECK_EQ(-region_read(VFIO_PCI_BAR1_REGION_INDEX, 0, 4), EINVAL,
             "an absent region: EINVAL");
    CHECK_EQ(-region_read(VFIO_PCI_BAR2_REGION_INDEX, 0, 4), EACCES,
             "read of a write-only region: EACCES");
    CHECK_EQ(-region_read(VFIO_PCI_BAR4_REGION_INDEX, 0, 2 * 1048576),
             E2BIG, "count above max_data_xfer_size: E2BIG");
    memset(big, 0, sizeof(big));
    CHECK_EQ(-region_write(VFIO_PCI_CONFIG_REGION_INDEX, 0, big, CFG_SIZE + 1,
                           0), EINVAL, "write past config space: EINVAL");
    {
        uint8_t p[16 + 4];
        struct vfu_region_rw rw = { 0, VFIO_PCI_BAR0_REGION_INDEX, 8 };

        memcpy(p, &rw, sizeof(rw));
        CHECK_EQ(-send_msg(VFU_CMD_REGION_WRITE, p, sizeof(p)), EINVAL,
                 "write of count 8 with 4 bytes: EINVAL");
        rw.count = 2;
        memcpy(p, &rw, sizeof(rw));
        CHECK_EQ(-send_msg(VFU_CMD_REGION_WRITE, p, sizeof(p)), EINVAL,
                 "write of count 2 with 4 bytes: EINVAL");
        CHECK_EQ(-send_msg(VFU_CMD_REGION_READ, p, sizeof(p)), EINVAL,
                 "read request with data: EINVAL");
        CHECK_EQ(-send_msg(VFU_CMD_REGION_WRITE, p, 8), EINVAL,
                 "write request shorter than its header: EINVAL");
    }
    CHECK_EQ(dev.accesses, acc, "no refused access reached the device");
    CHECK_EQ(-region_write(VFIO_PCI_BAR0_REGION_INDEX, 0xff0, &v, 4, 0), EIO,
             "the device's error comes back");
    CHECK_EQ(region_write(VFIO_PCI_BAR2_REGION_INDEX, 0, &v, 4, 0), 0,
             "write to a write-only region");
    CHECK_EQ(region_read(VFIO_PCI_BAR4_REGION_INDEX, 0, 4), -EIO,
             "a read of the mmappable region still reaches the device");
}

/* ---- interrupts --------------------------------------------------------- */

static void test_irqs(void)
{
    uint8_t bools[3] = { 1, 0, 1 };
    int efd[4], fds[3], i, before, after, bad;

    new_server(QEMU_CAPS);
    for (i = 0; i < 4; i++) {
        efd[i] = eventfd(0, EFD_CLOEXEC);
    }
    memcpy(fds, efd, sizeof(fds));
    CHECK_EQ(set_irqs(EVENTFD_TRIGGER, MSIX, 0, 3, NULL, fds, 3), 0,
             "three MSI-X eventfds");
    CHECK(dev.irq_index == MSIX && dev.irq_start == 0 && dev.irq_count == 3 &&
          dev.irq_flags == EVENTFD_TRIGGER && dev.irq_had_fds &&
          !memcmp(dev.irq_fds, efd, 3 * sizeof(int)),
          "... the device got them");
    CHECK(fd_open(efd[0]) && fd_open(efd[1]) && fd_open(efd[2]),
          "... the server keeps them open");
    CHECK(eventfd_write(dev.irq_fds[1], 1) == 0, "... the device signals one");

    fds[0] = efd[3];
    CHECK_EQ(set_irqs(EVENTFD_TRIGGER, MSIX, 1, 1, NULL, fds, 1), 0,
             "vector 1 replaced");
    CHECK(!fd_open(efd[1]) && fd_open(efd[3]), "... the old fd closed");
    CHECK_EQ(set_irqs(EVENTFD_TRIGGER, MSIX, 2, 1, NULL, NULL, 0), 0,
             "vector 2 disconnected (eventfd data, no fds)");
    CHECK(dev.irq_count == 1 && dev.irq_fds[0] == -1,
          "... the device got -1");
    CHECK(!fd_open(efd[2]), "... the old fd closed");

    /* Refusals close what came with them. */
    bad = 0;
    for (i = 0; i < 9; i++) {
        static const struct {
            uint32_t flags, index, start, count;
            size_t nfds;
            int err;
        } t[] = {
            { EVENTFD_TRIGGER, VFIO_PCI_NUM_IRQS, 0, 1, 1, EINVAL },
            { EVENTFD_TRIGGER, MSIX, 7, 2, 2, EINVAL },
            { EVENTFD_TRIGGER, MSIX, 0xffffffff, 2, 2, EINVAL },
            { EVENTFD_TRIGGER, MSIX, 0, 2, 1, EINVAL },
            { EVENTFD_TRIGGER, VFIO_PCI_MSI_IRQ_INDEX, 0, 1, 1, EINVAL },
            { VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, MSIX, 0,
              1, 1, EINVAL },
            { VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_UNMASK, MSIX,
              0, 1, 1, ENOTSUP },
            { EVENTFD_TRIGGER | VFIO_IRQ_SET_DATA_NONE, MSIX, 0, 1, 1,
              EINVAL },
            { EVENTFD_TRIGGER | VFIO_IRQ_SET_ACTION_MASK, MSIX, 0, 1, 1,
              EINVAL },
        };
        int f[2] = { eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC) };
        int calls = dev.irq_calls;

        if (-set_irqs(t[i].flags, t[i].index, t[i].start, t[i].count, NULL,
                      f, t[i].nfds) != t[i].err ||
            dev.irq_calls != calls || (t[i].nfds > 0 && fd_open(f[0])) ||
            (t[i].nfds > 1 && fd_open(f[1]))) {
            printf("# SET_IRQS refusal %d wrong\n", i);
            bad++;
        }
        if (t[i].nfds < 2) {
            close(f[1]);
        }
        if (t[i].nfds < 1) {
            close(f[0]);
        }
    }
    CHECK_EQ(bad, 0, "9 bad SET_IRQS (index, range, wrap, fd count, "
             "flags): refused, fds closed, device not called");
    {
        struct vfu_irq_set s = { .argsz = 24, .flags = EVENTFD_TRIGGER,
                                 .index = MSIX, .count = 1 };

        CHECK_EQ(-send_msg(VFU_CMD_DEVICE_SET_IRQS, &s, sizeof(s)), EINVAL,
                 "argsz not the payload size: EINVAL");
        CHECK_EQ(-send_msg(VFU_CMD_DEVICE_SET_IRQS, &s, 16), EINVAL,
                 "payload short: EINVAL");
    }
    CHECK_EQ(-set_irqs(VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER,
                       MSIX, 0, 0, NULL, NULL, 0), EINVAL,
             "count 0 with bool data: EINVAL");

    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER,
                      MSIX, 4, 3, bools, NULL, 0), 0, "bool data");
    CHECK(dev.irq_had_bools && !dev.irq_had_fds && dev.irq_start == 4 &&
          !memcmp(dev.irq_bools, bools, 3), "... the device got the bools");
    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                      VFIO_PCI_INTX_IRQ_INDEX, 0, 1, NULL, NULL, 0), 0,
             "INTx triggered by the client");
    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                      MSIX, 0, 0, NULL, NULL, 0), 0, "MSI-X disabled");
    CHECK(dev.irq_count == 0 && !fd_open(efd[0]) && !fd_open(efd[3]),
          "... the device told, every fd closed");

    /* 1000 refused messages with fds leak none. */
    before = count_fds();
    for (i = 0; i < 1000; i++) {
        int f = eventfd(0, EFD_CLOEXEC);

        set_irqs(EVENTFD_TRIGGER, MSIX, MSIX_VECTORS, 1, NULL, &f, 1);
    }
    after = count_fds();
    CHECK_EQ(after, before, "1000 refused SET_IRQS: no fd left open");

    /* The server closes the fds it holds when it goes. */
    efd[0] = eventfd(0, EFD_CLOEXEC);
    efd[1] = eventfd(0, EFD_CLOEXEC);
    fds[0] = efd[0];
    set_irqs(EVENTFD_TRIGGER, MSIX, 5, 1, NULL, fds, 1);
    fds[0] = efd[1];
    set_irqs(EVENTFD_TRIGGER, VFIO_PCI_INTX_IRQ_INDEX, 0, 1, NULL, fds, 1);
    CHECK(fd_open(efd[0]) && fd_open(efd[1]), "two fds held");
    vfu_server_destroy(srv);
    srv = NULL;
    CHECK(!fd_open(efd[0]) && !fd_open(efd[1]),
          "vfu_server_destroy closed them");
}

/* ---- headers, fds, commands --------------------------------------------- */

static void test_messages(void)
{
    struct vfu_device_info di = { .argsz = sizeof(di) };
    struct vfu_device_desc d;
    struct vfu_hdr h;
    uint32_t v = 7;
    int fd, before, i, acc;

    new_server(QEMU_CAPS);
    fd = eventfd(0, EFD_CLOEXEC);
    CHECK_EQ(-send_msg_fds(VFU_CMD_DEVICE_GET_INFO, 0, &di, sizeof(di), &fd,
                           1), EINVAL, "an fd with GET_INFO: EINVAL");
    CHECK(!fd_open(fd), "... closed");
    fd = eventfd(0, EFD_CLOEXEC);
    h = (struct vfu_hdr){ .msg_id = 9, .command = VFU_CMD_DEVICE_GET_INFO,
                          .msg_size = 32 };
    memcpy(msgbuf, &h, sizeof(h));
    memcpy(msgbuf + 16, &di, sizeof(di));
    CHECK_EQ(vfu_server_handle(srv, msgbuf, 32, &fd, 1, true, &rep), -EINVAL,
             "fds dropped by the transport: EINVAL");
    CHECK(!fd_open(fd) && rep_hdr().error == EINVAL, "... fds closed");

    h.msg_size = 48;
    memcpy(msgbuf, &h, sizeof(h));
    CHECK_EQ(vfu_server_handle(srv, msgbuf, 32, NULL, 0, false, &rep),
             -EINVAL, "msg_size above the bytes received: EINVAL");
    CHECK(rep.len == 16 && rep_hdr().msg_id == 9, "... replied to its id");
    h.msg_size = 8;
    memcpy(msgbuf, &h, sizeof(h));
    CHECK_EQ(vfu_server_handle(srv, msgbuf, 32, NULL, 0, false, &rep),
             -EINVAL, "msg_size below the header: EINVAL");
    fd = eventfd(0, EFD_CLOEXEC);
    CHECK_EQ(vfu_server_handle(srv, msgbuf, 15, &fd, 1, false, &rep),
             -EBADMSG, "15 bytes: EBADMSG");
    CHECK(rep.len == 0 && !fd_open(fd), "... nothing sent, fd closed");
    CHECK_EQ(-send_msg_fds(VFU_CMD_DEVICE_GET_INFO, 0x40, &di, sizeof(di),
                           NULL, 0), EINVAL, "an unknown flag: EINVAL");
    CHECK_EQ(-send_msg_fds(VFU_CMD_DEVICE_GET_INFO, VFU_F_ERROR, &di,
                           sizeof(di), NULL, 0), EINVAL,
             "a command with the error flag: EINVAL");
    CHECK_EQ(-send_msg_fds(VFU_CMD_DEVICE_GET_INFO, 2, &di, sizeof(di),
                           NULL, 0), EINVAL, "message type 2: EINVAL");

    fd = eventfd(0, EFD_CLOEXEC);
    h = (struct vfu_hdr){ .msg_id = 3, .command = VFU_CMD_DEVICE_GET_INFO,
                          .msg_size = 16, .flags = VFU_F_TYPE_REPLY };
    memcpy(msgbuf, &h, sizeof(h));
    CHECK_EQ(vfu_server_handle(srv, msgbuf, 16, &fd, 1, false, &rep),
             -EPROTO, "a reply from the client: EPROTO");
    CHECK(rep.len == 0 && !fd_open(fd), "... nothing sent, fd closed");

    for (i = 0; i < 5; i++) {
        static const uint16_t unknown[] = {
            0, VFU_CMD_DEVICE_GET_REGION_IO_FDS, VFU_CMD_DMA_READ,
            VFU_CMD_REGION_WRITE_MULTI, 999,
        };

        CHECK_EQ(-send_msg(unknown[i], NULL, 0), ENOTSUP,
                 "command %u: ENOTSUP", unknown[i]);
    }

    acc = dev.accesses;
    CHECK_EQ(region_write(VFIO_PCI_BAR0_REGION_INDEX, 0, &v, 4,
                          VFU_F_NO_REPLY), 0, "a posted (no-reply) write");
    CHECK(rep.len == 0 && dev.accesses == acc + 1 && dev.bar0[0] == 7,
          "... done, nothing to send");
    CHECK_EQ(-region_write(VFIO_PCI_NUM_REGIONS, 0, &v, 4, VFU_F_NO_REPLY),
             EINVAL, "a failing no-reply write");
    CHECK_EQ(rep.len, 0, "... nothing to send either");

    CHECK_EQ(send_msg(VFU_CMD_DEVICE_RESET, NULL, 0), 0, "reset");
    CHECK_EQ(dev.resets, 1, "... reached the device");
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_RESET, &v, 4), EINVAL,
             "reset with a payload: EINVAL");
    CHECK_EQ(dev.resets, 1, "... did not");

    d = make_desc();
    d.flags = VFIO_DEVICE_FLAGS_PCI;
    vfu_server_destroy(srv);
    srv = vfu_server_create(&d, &dev_ops, &dev);
    version(QEMU_CAPS);
    CHECK_EQ(-send_msg(VFU_CMD_DEVICE_RESET, NULL, 0), ENOTSUP,
             "reset of a device without the reset flag: ENOTSUP");

    /* Bad descriptions. */
    d = make_desc();
    d.num_regions = VFU_MAX_REGIONS + 1;
    CHECK(!vfu_server_create(&d, &dev_ops, &dev) && errno == EINVAL,
          "10 regions refused");
    d = make_desc();
    d.region[VFIO_PCI_BAR4_REGION_INDEX].mmap_fd = -1;
    CHECK(!vfu_server_create(&d, &dev_ops, &dev) && errno == EINVAL,
          "an mmappable region without fd refused");
    d = make_desc();
    d.irq[MSIX].count = VFU_MAX_IRQ_VECTORS + 1;
    CHECK(!vfu_server_create(&d, &dev_ops, &dev) && errno == EINVAL,
          "2049 MSI-X vectors refused");

    /* Create, map, destroy: nothing left behind. */
    vfu_server_destroy(srv);
    srv = NULL;
    before = count_fds();
    for (i = 0; i < 50; i++) {
        int ram = guest_ram(0x10000);

        new_server(QEMU_CAPS);
        dma_map_fd(ram, 0x10000, 0x10000, 0);
        fd = eventfd(0, EFD_CLOEXEC);
        set_irqs(EVENTFD_TRIGGER, MSIX, 0, 1, NULL, &fd, 1);
        close(ram);
    }
    vfu_server_destroy(srv);
    srv = NULL;
    CHECK_EQ(count_fds(), before, "50 servers with maps and IRQs destroyed: "
             "no fd left");
    CHECK_EQ(bad_replies, 0, "every reply matched its result");
}

/* ---- the socket layer --------------------------------------------------- */

static void test_socket(void)
{
    struct vfu_device_info di = { .argsz = sizeof(di) };
    struct vfu_region_info ri = { .argsz = sizeof(ri),
                                  .index = VFIO_PCI_BAR4_REGION_INDEX };
    uint8_t buf[64];
    struct vfu_hdr h;
    struct vfu_msg m;
    struct stat a, b;
    int sv[2], fds[20], i, before, ret;
    uint8_t ver[4 + sizeof(QEMU_CAPS)];

    CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
          "socketpair");
    new_server(NULL);

    /* A whole exchange: VERSION, then region info with BAR4's fd. */
    h = (struct vfu_hdr){ .msg_id = 1, .command = VFU_CMD_VERSION,
                          .msg_size = (uint32_t)(16 + sizeof(ver)) };
    memcpy(ver, &(struct vfu_version){ 0, 0 }, 4);
    memcpy(ver + 4, QEMU_CAPS, sizeof(QEMU_CAPS));
    memcpy(msgbuf, &h, 16);
    memcpy(msgbuf + 16, ver, sizeof(ver));
    CHECK_EQ(vfu_send_msg(sv[0], msgbuf, h.msg_size, NULL, 0), 0,
             "client sends VERSION");
    ret = vfu_recv_msg(sv[1], &m, vfu_server_max_msg_size(srv));
    CHECK(ret == 1 && m.len == h.msg_size && !m.nfds &&
          !memcmp(m.buf + 16, ver, sizeof(ver)), "server receives it whole");
    ret = vfu_server_handle(srv, m.buf, m.len, m.fds, m.nfds, m.fds_dropped,
                            &rep);
    vfu_msg_release(&m);
    CHECK_EQ(vfu_send_msg(sv[1], rep.buf, rep.len, rep.fds, rep.nfds) | ret,
             0, "server replies");
    ret = vfu_recv_msg(sv[0], &m, 4096);
    CHECK(ret == 1 && m.hdr.msg_id == 1 && m.hdr.flags == VFU_F_TYPE_REPLY,
          "client receives the version reply");
    vfu_msg_release(&m);

    h = (struct vfu_hdr){ .msg_id = 2,
                          .command = VFU_CMD_DEVICE_GET_REGION_INFO,
                          .msg_size = 16 + sizeof(ri) };
    memcpy(msgbuf, &h, 16);
    memcpy(msgbuf + 16, &ri, sizeof(ri));
    vfu_send_msg(sv[0], msgbuf, h.msg_size, NULL, 0);
    ret = vfu_recv_msg(sv[1], &m, vfu_server_max_msg_size(srv));
    ret |= vfu_server_handle(srv, m.buf, m.len, m.fds, m.nfds, m.fds_dropped,
                             &rep);
    vfu_msg_release(&m);
    vfu_send_msg(sv[1], rep.buf, rep.len, rep.fds, rep.nfds);
    ret = vfu_recv_msg(sv[0], &m, 4096);
    CHECK(ret == 1 && m.nfds == 1 && !fstat(m.fds[0], &a) &&
          !fstat(bar4_fd, &b) && a.st_ino == b.st_ino,
          "BAR4's fd arrives at the client");
    vfu_msg_release(&m);

    /* A message with fds. */
    for (i = 0; i < 20; i++) {
        fds[i] = eventfd(0, EFD_CLOEXEC);
    }
    h = (struct vfu_hdr){ .msg_id = 5, .command = VFU_CMD_DEVICE_GET_INFO,
                          .msg_size = 32 };
    memcpy(buf, &h, 16);
    memcpy(buf + 16, &di, 16);
    CHECK_EQ(vfu_send_msg(sv[0], buf, 32, fds, 2), 0, "send with 2 fds");
    ret = vfu_recv_msg(sv[1], &m, 4096);
    CHECK(ret == 1 && m.nfds == 2 && !m.fds_dropped && m.fds[0] != fds[0] &&
          !fstat(m.fds[0], &a) && !fstat(fds[0], &b) && a.st_ino == b.st_ino,
          "... received with both");
    vfu_msg_release(&m);

    /* More fds than the layer takes. */
    before = count_fds();
    {
        char ctl[CMSG_SPACE(sizeof(int) * 20)];
        struct iovec iov = { buf, 32 };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
                             .msg_control = ctl,
                             .msg_controllen = sizeof(ctl) };
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

        memset(ctl, 0, sizeof(ctl));
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * 20);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * 20);
        CHECK_EQ(sendmsg(sv[0], &mh, 0), 32, "send with 20 fds");
    }
    ret = vfu_recv_msg(sv[1], &m, 4096);
    CHECK(ret == 1 && m.fds_dropped && m.nfds <= VFU_SOCKET_MAX_FDS,
          "... received, marked as having lost fds (%zu kept)", m.nfds);
    ret = vfu_server_handle(srv, m.buf, m.len, m.fds, m.nfds, m.fds_dropped,
                            &rep);
    CHECK_EQ(ret, -EINVAL, "... the server refuses it");
    vfu_msg_release(&m);
    CHECK_EQ(count_fds(), before, "... and no fd is left");
    for (i = 0; i < 20; i++) {
        close(fds[i]);
    }

    /* Sizes. */
    h = (struct vfu_hdr){ .msg_id = 6, .command = VFU_CMD_DEVICE_GET_INFO,
                          .msg_size = 0xffffffff };
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    vfu_send_msg(sv[0], &h, 16, NULL, 0);
    ret = vfu_recv_msg(sv[1], &m, 4096);
    CHECK(ret == -EMSGSIZE && !m.buf && m.hdr.msg_id == 6,
          "a 4 GiB header refused before reading or allocating the body");
    h.msg_size = 15;
    vfu_send_msg(sv[0], &h, 16, NULL, 0);
    CHECK_EQ(vfu_recv_msg(sv[1], &m, 4096), -EBADMSG,
             "a size below the header: EBADMSG");
    CHECK_EQ(vfu_recv_msg(sv[1], &m, 4096), -EAGAIN,
             "nothing more to read (non-blocking)");
    fcntl(sv[1], F_SETFL, 0);

    /* End of file. */
    h.msg_size = 64;
    vfu_send_msg(sv[0], &h, 16, NULL, 0);
    vfu_send_msg(sv[0], buf, 8, NULL, 0);
    shutdown(sv[0], SHUT_WR);
    CHECK_EQ(vfu_recv_msg(sv[1], &m, 4096), -ECONNRESET,
             "end of file inside a body: ECONNRESET");
    CHECK_EQ(vfu_recv_msg(sv[1], &m, 4096), 0, "then end of file: 0");
    close(sv[0]);
    close(sv[1]);

    CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv),
          "socketpair");
    vfu_send_msg(sv[0], &h, 10, NULL, 0);
    close(sv[0]);
    CHECK_EQ(vfu_recv_msg(sv[1], &m, 4096), -ECONNRESET,
             "end of file inside a header: ECONNRESET");
    CHECK_EQ(vfu_send_msg(sv[1], &h, 16, NULL, 0), -EPIPE,
             "send to a closed peer: EPIPE, no SIGPIPE");
    close(sv[1]);
    vfu_server_destroy(srv);
    srv = NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);   /* lines out before any abort */
    bar4_fd = memfd_create("bar4", MFD_CLOEXEC);
    if (bar4_fd < 0 || ftruncate(bar4_fd, BAR4_SIZE)) {
        printf("not ok - memfd for BAR4\n");
        return 1;
    }
    test_negotiation();
    test_dma();
    test_dma_threads();
    test_info();
    test_region_access();
    test_irqs();
    test_messages();
    test_socket();
    close(bar4_fd);
    return TAP_DONE();
}
