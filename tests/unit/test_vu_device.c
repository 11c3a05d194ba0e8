/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's device (qemu-device/vfio-user/qrnic_vu_device.c, its
 * PCI config space and its link) driven as QEMU's vfio-user client
 * drives it: messages into the server core, guest RAM as memfds mapped
 * with DMA_MAP, interrupts as eventfds, the link on a socket pair.  Then
 * the link alone: QEMU's stream and dgram netdev formats, reconnection,
 * refused peers and specs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/pci_regs.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tap.h"
#include "qrnic_vu.h"
#include "vfu_client.h"

int tap_failures;

#define CFG             VFIO_PCI_CONFIG_REGION_INDEX
#define BAR0            VFIO_PCI_BAR0_REGION_INDEX
#define BAR2            VFIO_PCI_BAR2_REGION_INDEX
#define BAR4            VFIO_PCI_BAR4_REGION_INDEX
#define DB_PAGES        8
#define QMEM_SIZE       0x10000
#define BAD_READ        0xbad0bad0bad0bad0ull
#define MSIX_CAP        0x40
#define EXP_CAP         0x4c

static struct qvu q;
static int peer = -1;           /* the other end of the device's link */
static const uint8_t our_mac[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };
static uint8_t frame[QVU_LINK_MAX_FRAME + 16], got[QVU_LINK_MAX_FRAME + 16];

/* ---- helpers ------------------------------------------------------------ */

/* A REGION_READ's value (little endian, as the host), BAD_READ if refused. */
static uint64_t rd(uint32_t region, uint64_t off, uint32_t count)
{
    uint64_t v = 0;

    if (region_read(region, off, count)) {
        return BAD_READ;
    }
    memcpy(&v, (const uint8_t *)rep_payload() + sizeof(struct vfu_region_rw),
           count);
    return v;
}

static int wr(uint32_t region, uint64_t off, uint64_t v, uint32_t count)
{
    return region_write(region, off, &v, count, 0);
}

static const uint8_t *rd_data(void)
{
    return (const uint8_t *)rep_payload() + sizeof(struct vfu_region_rw);
}

/* An eventfd's count, 0 if it was not signalled (the fd is non-blocking). */
static uint64_t ev_count(int fd)
{
    uint64_t n = 0;

    return read(fd, &n, sizeof(n)) == sizeof(n) ? n : 0;
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
    size_t i;

    for (i = 0; i < len; i++) {
        p[i] = (uint8_t)(i * 7 + seed + (i >> 8));
    }
}

/* A frame to dst from another station, of len bytes. */
static void eth_frame(uint8_t *p, size_t len, const uint8_t *dst,
                      unsigned int seed)
{
    static const uint8_t src[6] = { 0x52, 0x54, 0x00, 0x11, 0x22, 0x33 };

    fill(p, len, seed);
    memcpy(p, dst, 6);
    memcpy(p + 6, src, 6);
    p[12] = 0x88;               /* local experimental EtherType */
    p[13] = 0xb5;
}

static int device_open(void)
{
    static char spec[32];
    char err[256] = "";
    int sv[2], i;

    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
        return -1;
    }
    memset(&q, 0, sizeof(q));
    qvu_config_defaults(&q.cfg);
    snprintf(spec, sizeof(spec), "dgram,fd=%d", sv[0]);
    q.cfg.link = spec;
    memcpy(q.cfg.mac, our_mac, 6);
    q.cfg.db_pages = DB_PAGES;
    q.cfg.qmem_size = QMEM_SIZE;
    for (i = 0; i < QRNIC_OBJ_COUNT; i++) {
        q.cfg.obj_max[i] = 64;
    }
    q.cfg.mtt_max = 4096;
    peer = sv[1];
    if (qvu_device_init(&q, err, sizeof(err))) {
        printf("# qvu_device_init: %s\n", err);
        return -1;
    }
    srv = q.srv;
    return version(QEMU_CAPS);
}

/* ---- config space ------------------------------------------------------- */

static void test_config(void)
{
    static const struct {
        int bar;
        uint64_t size;
        uint32_t flags;
    } bars[] = {
        { 0, QRNIC_BAR0_SIZE, PCI_BASE_ADDRESS_MEM_TYPE_64 },
        { 2, DB_PAGES * QRNIC_DB_PAGE_SIZE, PCI_BASE_ADDRESS_MEM_TYPE_64 },
        { 4, QMEM_SIZE, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                        PCI_BASE_ADDRESS_MEM_PREFETCH },
    };
    struct vfu_region_info ri;
    uint64_t v;
    int i;

    CHECK(!region_info(CFG, &ri) && ri.size == QVU_PCI_CONFIG_SIZE &&
          ri.flags == (VFIO_REGION_INFO_FLAG_READ |
                       VFIO_REGION_INFO_FLAG_WRITE),
          "config region: 4 KiB, read-write");
    CHECK_EQ(rd(CFG, PCI_VENDOR_ID, 2), QRNIC_PCI_VENDOR_ID, "vendor ID");
    CHECK_EQ(rd(CFG, PCI_DEVICE_ID, 2), QRNIC_PCI_DEVICE_ID, "device ID");
    CHECK_EQ(rd(CFG, PCI_SUBSYSTEM_VENDOR_ID, 2), QRNIC_PCI_SUBSYS_VENDOR_ID,
             "subsystem vendor ID");
    CHECK_EQ(rd(CFG, PCI_SUBSYSTEM_ID, 2), QRNIC_PCI_SUBSYS_ID,
             "subsystem ID");
    CHECK_EQ(rd(CFG, PCI_REVISION_ID, 1), QRNIC_PCI_REVISION, "revision");
    CHECK_EQ(rd(CFG, PCI_CLASS_DEVICE, 2), QRNIC_PCI_CLASS,
             "class: Ethernet controller");
    CHECK_EQ(rd(CFG, PCI_HEADER_TYPE, 1), PCI_HEADER_TYPE_NORMAL,
             "header type 0");
    CHECK_EQ(rd(CFG, PCI_INTERRUPT_PIN, 1), 0, "no INTx pin");
    CHECK(rd(CFG, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST,
          "status: capability list");

    /* The chain: 0x34 -> Express at 0x4c -> MSI-X at 0x40 -> end. */
    CHECK_EQ(rd(CFG, PCI_CAPABILITY_LIST, 1), EXP_CAP,
             "capability pointer 0x4c");
    CHECK_EQ(rd(CFG, EXP_CAP, 2), PCI_CAP_ID_EXP | MSIX_CAP << 8,
             "0x4c: Express capability, next 0x40");
    v = rd(CFG, EXP_CAP + PCI_EXP_FLAGS, 2);
    CHECK((v & PCI_EXP_FLAGS_VERS) == 2 &&
          (v & PCI_EXP_FLAGS_TYPE) >> 4 == PCI_EXP_TYPE_ENDPOINT,
          "... version 2, endpoint (flags 0x%llx)", (unsigned long long)v);
    CHECK_EQ(rd(CFG, MSIX_CAP, 2), PCI_CAP_ID_MSIX,
             "0x40: MSI-X capability, end of the list");
    CHECK_EQ(rd(CFG, MSIX_CAP + PCI_MSIX_FLAGS, 2), QRNIC_NUM_MSIX - 1,
             "... 16 vectors, disabled");
    CHECK_EQ(rd(CFG, MSIX_CAP + PCI_MSIX_TABLE, 4),
             QRNIC_MSIX_TABLE_OFF | QRNIC_BAR_REGS,
             "... table in BAR0 at QRNIC_MSIX_TABLE_OFF");
    CHECK_EQ(rd(CFG, MSIX_CAP + PCI_MSIX_PBA, 4),
             QRNIC_MSIX_PBA_OFF | QRNIC_BAR_REGS,
             "... PBA in BAR0 at QRNIC_MSIX_PBA_OFF");
    CHECK_EQ(rd(CFG, 0x100, 4), 0, "no extended capability");

    for (i = 0; i < 3; i++) {
        uint32_t off = PCI_BASE_ADDRESS_0 + 4 * bars[i].bar;
        uint64_t want = ~(bars[i].size - 1) | bars[i].flags;

        CHECK_EQ(rd(CFG, off, 8), bars[i].flags,
                 "BAR%d: 64-bit%s, unassigned", bars[i].bar,
                 i == 2 ? " prefetchable" : "");
        CHECK_EQ(wr(CFG, off, UINT64_MAX, 4) | wr(CFG, off + 4, UINT64_MAX, 4),
                 0, "BAR%d: all ones written", bars[i].bar);
        CHECK_EQ(rd(CFG, off, 8), want, "... reads back its size mask "
                 "(%llu bytes) and flags", (unsigned long long)bars[i].size);
        CHECK_EQ(wr(CFG, off, 0xfebe0000, 8), 0, "... an address written");
        CHECK_EQ(rd(CFG, off, 8), (0xfebe0000 & ~(bars[i].size - 1)) |
                 bars[i].flags, "... reads back");
    }

    /* Read-only bytes keep their value. */
    wr(CFG, PCI_VENDOR_ID, UINT64_MAX, 4);
    wr(CFG, PCI_REVISION_ID, 0, 4);
    wr(CFG, PCI_SUBSYSTEM_VENDOR_ID, 0, 4);
    wr(CFG, PCI_CAPABILITY_LIST, 0, 1);
    wr(CFG, EXP_CAP, 0, 4);
    wr(CFG, MSIX_CAP + PCI_MSIX_TABLE, 0, 8);
    CHECK_EQ(rd(CFG, PCI_VENDOR_ID, 4),
             QRNIC_PCI_VENDOR_ID | QRNIC_PCI_DEVICE_ID << 16,
             "vendor and device IDs written: unchanged");
    CHECK_EQ(rd(CFG, PCI_REVISION_ID, 4),
             QRNIC_PCI_REVISION | (uint32_t)QRNIC_PCI_CLASS << 16,
             "revision and class written: unchanged");
    CHECK_EQ(rd(CFG, PCI_SUBSYSTEM_VENDOR_ID, 4),
             QRNIC_PCI_SUBSYS_VENDOR_ID | QRNIC_PCI_SUBSYS_ID << 16,
             "subsystem IDs written: unchanged");
    CHECK(rd(CFG, PCI_CAPABILITY_LIST, 1) == EXP_CAP &&
          rd(CFG, EXP_CAP, 2) == (PCI_CAP_ID_EXP | MSIX_CAP << 8) &&
          rd(CFG, MSIX_CAP + PCI_MSIX_TABLE, 8) ==
          (QRNIC_MSIX_TABLE_OFF | (uint64_t)QRNIC_MSIX_PBA_OFF << 32),
          "capability chain and MSI-X table written: unchanged");

    /* Writable bits. */
    CHECK_EQ(wr(CFG, PCI_COMMAND, UINT64_MAX, 4), 0,
             "command and status written with all ones");
    CHECK_EQ(rd(CFG, PCI_COMMAND, 2), PCI_COMMAND_IO | PCI_COMMAND_MEMORY |
             PCI_COMMAND_MASTER | PCI_COMMAND_SERR | PCI_COMMAND_INTX_DISABLE,
             "... command: I/O, memory, master, SERR, INTx disable");
    CHECK_EQ(rd(CFG, PCI_STATUS, 2), PCI_STATUS_CAP_LIST,
             "... status unchanged");
    wr(CFG, PCI_COMMAND, 0, 2);
    CHECK_EQ(rd(CFG, PCI_COMMAND, 2), 0, "command cleared");
    wr(CFG, MSIX_CAP + PCI_MSIX_FLAGS, 0xffff, 2);
    CHECK_EQ(rd(CFG, MSIX_CAP + PCI_MSIX_FLAGS, 2),
             PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL |
             (QRNIC_NUM_MSIX - 1), "MSI-X enable and mask-all writable, "
             "table size not");
    wr(CFG, MSIX_CAP + PCI_MSIX_FLAGS, 0, 2);
}

/* ---- BAR0: registers ---------------------------------------------------- */

static void test_bar0(void)
{
    static const uint32_t bad[][2] = {      /* offset, count */
        { 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 1 }, { 2, 2 }, { 2, 4 },
        { 4, 8 }, { QRNIC_REG_VERSION + 1, 3 },
    };
    uint32_t version = QRNIC_VERSION_MAJOR << 16 | QRNIC_VERSION_MINOR;
    uint8_t ones[8];
    size_t i;
    int bad_r = 0, bad_w = 0;

    CHECK_EQ(rd(BAR0, QRNIC_REG_VERSION, 4), version,
             "BAR0 VERSION: 4-byte read");
    CHECK_EQ(qrnic_engine_reg_read(&q.eng, QRNIC_REG_VERSION), version,
             "... what qrnic_engine_reg_read says");
    CHECK_EQ(rd(BAR0, QRNIC_REG_ID, 4), QRNIC_ID_MAGIC, "ID register");
    CHECK_EQ(rd(BAR0, QRNIC_REG_DB_PAGES, 4), DB_PAGES,
             "DB_PAGES: the configured %u", DB_PAGES);
    CHECK_EQ(rd(BAR0, QRNIC_REG_QMEM_PAGES, 4), QMEM_SIZE / 4096,
             "QMEM_PAGES: the configured queue memory");
    CHECK_EQ(rd(BAR0, QRNIC_REG_MAC_LO, 8),
             our_mac[0] | our_mac[1] << 8 | our_mac[2] << 16 |
             (uint64_t)our_mac[3] << 24 | (uint64_t)our_mac[4] << 32 |
             (uint64_t)our_mac[5] << 40, "MAC registers: the configured MAC");
    CHECK_EQ(rd(BAR0, QRNIC_REG_ID, 8),
             QRNIC_ID_MAGIC | (uint64_t)version << 32,
             "an 8-byte read: two registers");
    CHECK_EQ(wr(BAR0, QRNIC_REG_AQ_SQ_BASE_LO, 0x1122334455667740ull, 8), 0,
             "an 8-byte write");
    CHECK(qrnic_engine_reg_read(&q.eng, QRNIC_REG_AQ_SQ_BASE_LO) ==
          0x55667740 &&
          qrnic_engine_reg_read(&q.eng, QRNIC_REG_AQ_SQ_BASE_HI) ==
          0x11223344, "... both halves reached the engine");
    CHECK_EQ(wr(BAR0, QRNIC_REG_INTR_MASK, 0x8001, 4), 0, "a 4-byte write");
    CHECK_EQ(q.eng.regs.intr_mask, 0x8001, "... reached the engine");

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (region_read(BAR0, bad[i][0], bad[i][1]) != -EINVAL ||
            rep_hdr().error != EINVAL) {
            printf("# BAR0 read of %u at %u not refused\n", bad[i][1],
                   bad[i][0]);
            bad_r++;
        }
        if (wr(BAR0, QRNIC_REG_INIT_ERR + bad[i][0], UINT64_MAX,
               bad[i][1]) != -EINVAL || rep_hdr().error != EINVAL) {
            printf("# BAR0 write of %u at %u not refused\n", bad[i][1],
                   bad[i][0]);
            bad_w++;
        }
    }
    CHECK_EQ(bad_r, 0, "1-, 2-, 3-byte and misaligned reads: EINVAL replies");
    CHECK_EQ(bad_w, 0, "1-, 2-, 3-byte and misaligned writes: EINVAL "
             "replies");
    CHECK_EQ(q.eng.regs.intr_mask, 0x8001, "... none reached the engine");
    wr(BAR0, QRNIC_REG_INTR_MASK, 0, 4);

    /* The MSI-X table and PBA are the client's. */
    memset(ones, 0xa5, sizeof(ones));
    CHECK_EQ(region_write(BAR0, QRNIC_MSIX_TABLE_OFF, ones, 8, 0), 0,
             "a write to the MSI-X table is taken");
    CHECK_EQ(rd(BAR0, QRNIC_MSIX_TABLE_OFF, 8), 0,
             "... and the table reads 0");
    region_write(BAR0, QRNIC_MSIX_PBA_OFF, ones, 8, 0);
    CHECK_EQ(rd(BAR0, QRNIC_MSIX_PBA_OFF, 8), 0, "the PBA reads 0");
    region_write(BAR0, QRNIC_BAR0_SIZE - 8, ones, 8, 0);
    CHECK_EQ(rd(BAR0, QRNIC_BAR0_SIZE - 4, 4), 0,
             "the last register of BAR0 reads 0");
}

/* ---- BAR2: doorbells ---------------------------------------------------- */

static void test_bar2(void)
{
    uint64_t *access = &q.eng.stats.guest_err[QRNIC_GUEST_ERR_DB_ACCESS];
    uint64_t acc0 = *access;
    uint32_t bad0 = q.eng.stats.bad_db;
    uint8_t nine[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };

    CHECK_EQ(wr(BAR2, 0, 0x11223344, 4), 0, "a 4-byte doorbell write");
    CHECK_EQ(*access, acc0 + 1, "... counted as a bad doorbell access");
    CHECK_EQ(wr(BAR2, 3, 0x55, 1) | wr(BAR2, 6, 0x6666, 2) |
             wr(BAR2, QRNIC_DB_PAGE_SIZE + 4, UINT64_MAX, 8) |
             wr(BAR2, 8, 0x777777, 3), 0,
             "1-, 2-, 3-byte and misaligned 8-byte doorbell writes");
    CHECK_EQ(*access, acc0 + 5, "... each counted");
    CHECK_EQ(q.eng.stats.bad_db, bad0 + 5, "... in STAT_BAD_DB");
    CHECK_EQ(rd(BAR0, QRNIC_REG_STAT_BAD_DB, 4), q.eng.stats.bad_db,
             "... which BAR0 reads");
    CHECK_EQ(region_write(BAR2, 0, nine, 9, 0), -EINVAL,
             "a 9-byte doorbell write: EINVAL");
    CHECK_EQ(q.eng.stats.bad_db, bad0 + 5, "... not passed on");
    CHECK_EQ(wr(BAR2, QRNIC_DB_EQ, 0, 8), 0,
             "an aligned 8-byte doorbell (to a device not enabled)");
    CHECK(*access == acc0 + 5 && q.eng.stats.bad_db == bad0 + 6,
          "... refused by the engine for what it says, not its size");

    wr(BAR2, 0, 0x5a5a5a5a5a5a5a5aull, 8);
    CHECK_EQ(rd(BAR2, 0, 8), 0, "a doorbell read: 0");
    CHECK_EQ(rd(BAR2, DB_PAGES * QRNIC_DB_PAGE_SIZE - 4, 4), 0,
             "the last doorbell reads 0");
    CHECK_EQ(rd(BAR2, 5, 1), 0, "a 1-byte doorbell read: 0");
}

/* ---- BAR4: queue memory ------------------------------------------------- */

static void test_bar4(void)
{
    struct vfu_region_info ri;
    uint8_t pat[64];
    uint8_t *map = MAP_FAILED;

    fill(pat, sizeof(pat), 3);
    CHECK_EQ(region_write(BAR4, 0x1230, pat, sizeof(pat), 0), 0,
             "REGION_WRITE to BAR4");
    CHECK(!memcmp(q.qmem + 0x1230, pat, sizeof(pat)),
          "... the bytes are in the queue memory");
    CHECK(region_read(BAR4, 0x1230, sizeof(pat)) == 0 &&
          !memcmp(rd_data(), pat, sizeof(pat)), "... REGION_READ has them");
    memcpy(q.qmem + QMEM_SIZE - 8, "lastbyte", 8);
    CHECK(region_read(BAR4, QMEM_SIZE - 8, 8) == 0 &&
          !memcmp(rd_data(), "lastbyte", 8), "the last 8 bytes by REGION_READ");

    CHECK_EQ(region_info(BAR4, &ri), 0, "BAR4 region info");
    CHECK(ri.size == QMEM_SIZE && (ri.flags & VFIO_REGION_INFO_FLAG_MMAP) &&
          rep.nfds == 1, "... %u bytes, mmappable, with an fd", QMEM_SIZE);
    if (rep.nfds == 1) {
        map = mmap(NULL, QMEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
                   rep.fds[0], (off_t)ri.offset);
    }
    CHECK(map != MAP_FAILED, "... the client maps the fd");
    if (map == MAP_FAILED) {
        return;
    }
    CHECK(!memcmp(map + 0x1230, pat, sizeof(pat)),
          "... and sees what REGION_WRITE wrote");
    memcpy(map + 0x8000, "from the guest", 14);
    CHECK(!memcmp(q.qmem + 0x8000, "from the guest", 14),
          "the device sees what the client wrote into its mapping");
    CHECK(region_read(BAR4, 0x8000, 14) == 0 &&
          !memcmp(rd_data(), "from the guest", 14), "... so does REGION_READ");
    /* The file the client got an fd of (seals belong to the file). */
    CHECK(ftruncate(q.qmem_fd, 0) == -1 && errno == EPERM &&
          ftruncate(q.qmem_fd, 2 * QMEM_SIZE) == -1 && errno == EPERM,
          "the client cannot shrink or grow BAR4's memfd (sealed)");
    munmap(map, QMEM_SIZE);
}

/* ---- DMA ---------------------------------------------------------------- */

static void test_dma(void)
{
    static uint8_t big[0x3000], back[0x3000];
    uint64_t *dma_err = &q.eng.stats.guest_err[QRNIC_GUEST_ERR_DMA];
    uint64_t errs;
    int ram = guest_ram(0x10000), cut = guest_ram(0x4000);
    uint8_t buf[64], pat[64];
    uint8_t *p;
    pid_t pid;
    int status = 0;

    CHECK(ram >= 0 && cut >= 0, "memfds for guest RAM");
    CHECK_EQ(dma_map_fd(ram, 0x100000, 0x4000, 0), 0,
             "DMA_MAP of 16 KiB at 1 MiB");
    CHECK_EQ(dma_map_fd(ram, 0x104000, 0x4000, 0x8000), 0,
             "DMA_MAP of the next 16 KiB, from elsewhere in the file");

    CHECK_EQ(qrnic_dma_write(&q.eng, 0x100010, "hello", 5), 0,
             "qrnic_dma_write");
    CHECK(pread(ram, buf, 5, 0x10) == 5 && !memcmp(buf, "hello", 5),
          "... the bytes are in the memfd");
    CHECK(pwrite(ram, "world", 5, 0x9000) == 5 &&
          qrnic_dma_read(&q.eng, 0x105000, buf, 5) == 0 &&
          !memcmp(buf, "world", 5), "qrnic_dma_read from the second map");

    fill(pat, sizeof(pat), 9);
    CHECK_EQ(qrnic_dma_write(&q.eng, 0x103fe0, pat, sizeof(pat)), 0,
             "a DMA write across the two mappings");
    CHECK(pread(ram, buf, 32, 0x3fe0) == 32 && !memcmp(buf, pat, 32) &&
          pread(ram, buf + 32, 32, 0x8000) == 32 &&
          !memcmp(buf + 32, pat + 32, 32), "... each half in its mapping");
    memset(buf, 0, sizeof(buf));
    CHECK(qrnic_dma_read(&q.eng, 0x103fe0, buf, sizeof(buf)) == 0 &&
          !memcmp(buf, pat, sizeof(pat)), "... and read back across them");
    fill(big, sizeof(big), 17);
    CHECK(qrnic_dma_write(&q.eng, 0x102800, big, sizeof(big)) == 0 &&
          qrnic_dma_read(&q.eng, 0x102800, back, sizeof(back)) == 0 &&
          !memcmp(big, back, sizeof(big)), "12 KiB over both mappings, "
          "several pages each");

    errs = *dma_err;
    CHECK_EQ(qrnic_dma_read(&q.eng, 0x200000, buf, 8), -1,
             "a DMA read of an unmapped address: -1");
    CHECK_EQ(qrnic_dma_write(&q.eng, 0x200000, buf, 8), -1,
             "a DMA write to an unmapped address: -1");
    CHECK_EQ(qrnic_dma_read(&q.eng, 0x107ff0, buf, 0x20), -1,
             "a DMA past the end of the last mapping: -1");
    CHECK_EQ(qrnic_dma_read(&q.eng, 0xffff0, buf, 0x20), -1,
             "a DMA from before the first mapping: -1");
    CHECK_EQ(qrnic_dma_read(&q.eng, UINT64_MAX - 3, buf, 8), -1,
             "a DMA range that wraps: -1");
    CHECK_EQ(*dma_err, errs + 5, "... each a guest error");

    /* A client that shrinks the file under a live mapping. */
    CHECK_EQ(dma_map_fd(cut, 0x200000, 0x4000, 0), 0,
             "DMA_MAP of a 16 KiB memfd");
    CHECK_EQ(ftruncate(cut, 0x1000), 0, "... the client cuts it to 4 KiB");
    CHECK_EQ(qrnic_dma_write(&q.eng, 0x201000, "x", 1), -1,
             "a DMA write to a cut page: -1 (SIGBUS caught)");
    CHECK_EQ(qrnic_dma_read(&q.eng, 0x203ff8, buf, 8), -1,
             "a DMA read of a cut page: -1");
    CHECK_EQ(qrnic_dma_write(&q.eng, 0x200ff0, pat, 0x20), -1,
             "a DMA from a valid page into a cut one: -1");
    CHECK_EQ(qrnic_dma_read(&q.eng, 0x202000, buf, 8), -1,
             "... again: the guard stays");
    CHECK(qrnic_dma_write(&q.eng, 0x200100, "alive", 6) == 0 &&
          pread(cut, buf, 6, 0x100) == 6 && !memcmp(buf, "alive", 6),
          "a DMA to the page left works");
    CHECK(qrnic_dma_read(&q.eng, 0x100010, buf, 5) == 0 &&
          !memcmp(buf, "hello", 5), "so do DMAs to the other mappings");

    /* Outside a DMA the signal does what it would. */
    p = vfu_dma_ptr(srv, 0x202000, 1, false);
    pid = p ? fork() : -1;
    if (pid == 0) {
        struct rlimit no_core = { 0, 0 };

        setrlimit(RLIMIT_CORE, &no_core);
        alarm(5);
        /* volatile: the load must happen, the page is gone. */
        status = *(volatile uint8_t *)p;
        _exit(status);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid &&
          WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS,
          "a cut page touched outside a DMA: SIGBUS kills as it would");

    CHECK_EQ(dma_unmap(0x200000, 0x4000, 0), 0, "the cut mapping unmapped");
    CHECK_EQ(dma_unmap(0, 0, VFIO_DMA_UNMAP_FLAG_ALL), 0, "unmap all");
    CHECK_EQ(qrnic_dma_read(&q.eng, 0x100010, buf, 5), -1,
             "... then a DMA fails");
    close(ram);
    close(cut);
}

/* ---- MSI-X -------------------------------------------------------------- */

static void test_msix(void)
{
    int efd[2], fds[2], i, trap;
    const uint8_t bools[2] = { 0, 1 };
    bool none = true;

    for (i = 0; i < 2; i++) {
        efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        fds[i] = dup(efd[i]);
    }
    CHECK_EQ(set_irqs(EVENTFD_TRIGGER, MSIX, 0, 2, NULL, fds, 2), 0,
             "SET_IRQS: eventfds for MSI-X vectors 0 and 1");
    CHECK(q.msix_fd[0] >= 0 && q.msix_fd[1] >= 0 && q.msix_fd[2] == -1,
          "... the device has them");
    qrnic_engine_raise(&q.eng, 1);
    CHECK_EQ(ev_count(efd[1]), 1, "qrnic_engine_raise(1) signals vector 1");
    CHECK_EQ(ev_count(efd[0]), 0, "... not vector 0");
    qrnic_engine_raise(&q.eng, 2);
    qrnic_engine_raise(&q.eng, QRNIC_NUM_MSIX - 1);
    CHECK(!ev_count(efd[0]) && !ev_count(efd[1]),
          "vectors without an eventfd: nothing");

    wr(BAR0, QRNIC_REG_INTR_MASK, 1u << 1, 4);
    qrnic_engine_raise(&q.eng, 1);
    CHECK_EQ(ev_count(efd[1]), 0, "vector 1 masked in INTR_MASK: held");
    wr(BAR0, QRNIC_REG_INTR_MASK, 0, 4);
    CHECK_EQ(ev_count(efd[1]), 1, "... fires when unmasked");

    CHECK_EQ(set_irqs(EVENTFD_TRIGGER, MSIX, 0, 2, NULL, NULL, 0), 0,
             "vectors 0 and 1 disconnected (eventfd data, no fds)");
    CHECK(q.msix_fd[0] == -1 && q.msix_fd[1] == -1, "... the device let go");
    trap = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);  /* a freed number */
    qrnic_engine_raise(&q.eng, 1);
    CHECK(!ev_count(efd[1]) && !ev_count(trap),
          "raise after disconnect: nothing written anywhere");
    close(trap);

    fds[0] = dup(efd[0]);
    fds[1] = dup(efd[1]);
    set_irqs(EVENTFD_TRIGGER, MSIX, 0, 2, NULL, fds, 2);
    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_TRIGGER,
                      MSIX, 0, 2, bools, NULL, 0), 0,
             "DATA_BOOL trigger { 0, 1 }");
    CHECK(ev_count(efd[1]) == 1 && ev_count(efd[0]) == 0,
          "... vector 1 raised, vector 0 not");
    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                      MSIX, 0, 1, NULL, NULL, 0), 0, "DATA_NONE trigger");
    CHECK(ev_count(efd[0]) == 1 && ev_count(efd[1]) == 0,
          "... vector 0 raised");
    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_BOOL | VFIO_IRQ_SET_ACTION_UNMASK,
                      MSIX, 1, 1, bools + 1, NULL, 0), -EINVAL,
             "DATA_BOOL unmask: EINVAL (the client emulates masking)");
    CHECK_EQ(ev_count(efd[1]), 0, "... nothing raised");

    /* Only an eventfd: writing a full pipe would stop the device. */
    {
        int p[2];

        CHECK(!pipe(p) &&
              set_irqs(EVENTFD_TRIGGER, MSIX, 3, 1, NULL, &p[1], 1) ==
              -EINVAL && q.msix_fd[3] == -1 && !fd_open(p[1]),
              "SET_IRQS with a pipe for a vector: EINVAL, the fd closed");
        close(p[0]);
    }
    {
        int b = eventfd(0, EFD_CLOEXEC), bd = dup(b);

        CHECK(set_irqs(EVENTFD_TRIGGER, MSIX, 2, 1, NULL, &bd, 1) == 0 &&
              (fcntl(b, F_GETFL) & O_NONBLOCK),
              "a blocking eventfd for a vector is made non-blocking");
        set_irqs(EVENTFD_TRIGGER, MSIX, 2, 1, NULL, NULL, 0);
        close(b);
    }

    for (i = 0; i < 2; i++) {
        uint32_t index = i ? VFIO_PCI_MSI_IRQ_INDEX : VFIO_PCI_INTX_IRQ_INDEX;
        int fd = eventfd(0, EFD_CLOEXEC);

        if (set_irqs(EVENTFD_TRIGGER, index, 0, 1, NULL, &fd, 1) != -EINVAL ||
            rep_hdr().error != EINVAL || fd_open(fd)) {
            none = false;
        }
        if (set_irqs(VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                     index, 0, 0, NULL, NULL, 0) != -EINVAL) {
            none = false;
        }
    }
    CHECK(none, "INTx and MSI eventfds and triggers: EINVAL replies, "
          "fds closed");
    CHECK(q.msix_fd[0] >= 0 && q.msix_fd[1] >= 0,
          "... MSI-X untouched by them");

    CHECK_EQ(set_irqs(VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER,
                      MSIX, 0, 0, NULL, NULL, 0), 0, "MSI-X disabled");
    CHECK(q.msix_fd[0] == -1 && q.msix_fd[1] == -1, "... every vector let go");
    qrnic_engine_raise(&q.eng, 0);
    CHECK(!ev_count(efd[0]), "... raise: nothing");

    fds[0] = dup(efd[0]);
    set_irqs(EVENTFD_TRIGGER, MSIX, 3, 1, NULL, fds, 1);
    CHECK(q.msix_fd[3] >= 0, "vector 3 connected");
    vfu_server_disconnect(srv);
    CHECK_EQ(q.msix_fd[3], -1, "the client leaving: the device lets go");
    CHECK_EQ(version(QEMU_CAPS), 0, "a new client negotiates");
    for (i = 0; i < 2; i++) {
        close(efd[i]);
    }
}

/* ---- the engine through all of it --------------------------------------- */

#define SQ      0x100000        /* guest addresses, RAM at 1 MiB */
#define CQ      0x101000
#define RESP    0x102000
#define ETH_TX  0x103000
#define ETH_RX  0x104000
#define RX_BUF  0x105000
#define TX_BUF  0x106000
#define RAM     0x100000

static int ram_fd;
static uint16_t aq_pi;

/* One admin command through the queue: its completion's status, or -1. */
static int admin(struct qrnic_cmd *c, uint16_t cookie)
{
    struct qrnic_cqe_admin cqe;
    uint32_t slot = aq_pi & 3;
    uint32_t pi;

    c->cookie = cookie;
    if (pwrite(ram_fd, c, sizeof(*c), SQ - RAM + slot * QRNIC_CMD_SIZE) !=
        sizeof(*c)) {
        return -1;
    }
    pi = ++aq_pi;
    /* QEMU posts BAR writes: no reply. */
    if (region_write(BAR0, QRNIC_REG_AQ_DB, &pi, 4, VFU_F_NO_REPLY) ||
        pread(ram_fd, &cqe, sizeof(cqe), CQ - RAM + slot * QRNIC_ACQE_SIZE) !=
        sizeof(cqe) || cqe.cookie != cookie ||
        !(cqe.flags & QRNIC_ADMIN_CQE_PHASE)) {
        return -1;
    }
    wr(BAR0, QRNIC_REG_AQ_CQ_CI, pi, 4);
    return cqe.status;
}

/*
 * The trace of an RX doorbell, the held frame it delivers, its interrupt,
 * and a TX doorbell's deferred work and frame: each event a line in QEMU's
 * log trace format, "TID@SECONDS.MICROSECONDS:EVENT ARGS".
 */
static void check_trace(const char *path)
{
    static const char *const want[] = {
        "qvu_region_rw region 2 offset 0x", "qvu_rx len 60",
        "qvu_irq vector 1", "qvu_work start", "qvu_tx len 60",
    };
    bool seen[5] = { false };
    char line[256], event[200];
    unsigned long sec, usec;
    int tid, lines = 0, bad = 0;
    FILE *f = fopen(path, "r");
    size_t i;

    CHECK(f != NULL, "the trace file exists");
    while (f && fgets(line, sizeof(line), f)) {
        lines++;
        if (sscanf(line, "%d@%lu.%6lu:%199[^\n]", &tid, &sec, &usec,
                   event) != 4 || line[strcspn(line, ".") + 7] != ':') {
            bad++;
            continue;
        }
        for (i = 0; i < 5; i++) {
            seen[i] |= !strncmp(event, want[i], strlen(want[i]));
        }
    }
    if (f) {
        fclose(f);
    }
    CHECK(lines > 0 && !bad, "trace: %d lines, all in QEMU's log format "
          "(%d not)", lines, bad);
    for (i = 0; i < 5; i++) {
        CHECK(seen[i], "trace: a '%s...' line", want[i]);
    }
}

static void test_engine(void)
{
    char trace_path[64];
    struct qrnic_eth_desc d;
    struct qrnic_dev_attr attr;
    struct qrnic_cmd c;
    uint64_t filtered, frames;
    int efd[2], fds[2], i;

    ram_fd = guest_ram(0x10000);
    CHECK_EQ(dma_map_fd(ram_fd, RAM, 0x10000, 0), 0, "guest RAM mapped");
    for (i = 0; i < 2; i++) {
        efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        fds[i] = dup(efd[i]);
    }
    set_irqs(EVENTFD_TRIGGER, MSIX, 0, 2, NULL, fds, 2);

    wr(BAR0, QRNIC_REG_AQ_SQ_BASE_LO, SQ, 8);
    wr(BAR0, QRNIC_REG_AQ_CQ_BASE_LO, CQ, 8);
    wr(BAR0, QRNIC_REG_AQ_LOG_DEPTH, 2, 4);
    wr(BAR0, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE, 4);
    CHECK_EQ(rd(BAR0, QRNIC_REG_STATUS, 4),
             QRNIC_STATUS_READY | QRNIC_STATUS_LINK_UP,
             "enabled through BAR0: ready, link up");

    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_QUERY_DEVICE;
    c.query_device.resp_addr = RESP;
    CHECK_EQ(admin(&c, 0x1234), QRNIC_ST_OK,
             "QUERY_DEVICE through the admin queue in guest RAM");
    CHECK(pread(ram_fd, &attr, sizeof(attr), RESP - RAM) == sizeof(attr) &&
          attr.max_qp == qrnic_obj_capacity(&q.eng, QRNIC_OBJ_QP) &&
          attr.max_qp, "... its answer DMA'd into guest RAM (max_qp %u)",
          attr.max_qp);
    CHECK_EQ(ev_count(efd[0]), 1, "... and MSI-X vector 0 signalled");

    memset(&c, 0, sizeof(c));
    c.opcode = QRNIC_CMD_ETH_SETUP;
    c.eth_setup.tx_base = ETH_TX;
    c.eth_setup.rx_base = ETH_RX;
    c.eth_setup.tx_log_depth = 2;
    c.eth_setup.rx_log_depth = 2;
    c.eth_setup.vector = 1;
    CHECK_EQ(admin(&c, 0x2345), QRNIC_ST_OK, "ETH_SETUP on vector 1");
    ev_count(efd[0]);

    /* The trace (control socket's `trace FILE`) follows what comes next. */
    snprintf(trace_path, sizeof(trace_path), "/tmp/qrnic-vu-trace-%d",
             (int)getpid());
    CHECK_EQ(qvu_trace_open(&q, trace_path), 0, "trace on");

    /* A frame for us with no RX buffer: held. */
    frames = q.eng.stats.rx_frames;
    eth_frame(frame, 60, our_mac, 1);
    CHECK_EQ(send(peer, frame, 60, 0), 60, "a frame on the link");
    qvu_device_rx(&q);
    CHECK_EQ(q.rx_len, 60, "... no RX buffer: held in q.rx_len");
    CHECK_EQ(q.eng.stats.rx_frames, frames, "... not delivered");
    memset(&d, 0, sizeof(d));
    d.addr = RX_BUF;
    d.len = 2048;
    pwrite(ram_fd, &d, sizeof(d), ETH_RX - RAM);
    CHECK_EQ(wr(BAR2, QRNIC_DB_ETH_RX, 1, 8), 0, "an RX buffer posted");
    CHECK(q.rx_len == 0 && q.eng.stats.rx_frames == frames + 1,
          "... the held frame delivered (rx_ready)");
    CHECK(pread(ram_fd, got, 60, RX_BUF - RAM) == 60 &&
          !memcmp(got, frame, 60), "... into the buffer in guest RAM");
    CHECK(pread(ram_fd, &d, sizeof(d), ETH_RX - RAM) == sizeof(d) &&
          d.len == 60 && d.flags == QRNIC_ETH_DONE,
          "... its descriptor written back");
    CHECK_EQ(ev_count(efd[1]), 1, "... MSI-X vector 1 signalled");

    /* With a buffer free, a frame for another station is filtered. */
    d.addr = RX_BUF + 2048;
    d.len = 2048;
    d.flags = 0;
    pwrite(ram_fd, &d, sizeof(d), ETH_RX - RAM + sizeof(d));
    wr(BAR2, QRNIC_DB_ETH_RX, 2, 8);
    filtered = q.eng.stats.rx_filtered;
    eth_frame(frame, 60, (const uint8_t *)"\x52\x54\x00\x99\x99\x99", 2);
    send(peer, frame, 60, 0);
    qvu_device_rx(&q);
    CHECK(q.eng.stats.rx_filtered == filtered + 1 && q.rx_len == 0,
          "a frame for another station: consumed, filtered");
    qvu_device_rx(&q);
    CHECK(q.eng.stats.rx_filtered == filtered + 1 && q.rx_len == 0,
          "nothing on the link: nothing happens");

    /* A frame sent by the engine comes out of the link. */
    eth_frame(frame, 60, (const uint8_t *)"\x52\x54\x00\x99\x99\x99", 3);
    pwrite(ram_fd, frame, 60, TX_BUF - RAM);
    memset(&d, 0, sizeof(d));
    d.addr = TX_BUF;
    d.len = 60;
    pwrite(ram_fd, &d, sizeof(d), ETH_TX - RAM);
    wr(BAR2, QRNIC_DB_ETH_TX, 1, 8);
    for (i = 0; i < 10 && q.work_pending; i++) {
        qvu_device_work(&q);
    }
    CHECK(recv(peer, got, sizeof(got), MSG_DONTWAIT) == 60 &&
          !memcmp(got, frame, 60), "an Ethernet TX descriptor: the frame "
          "reaches the link's peer");
    CHECK(pread(ram_fd, &d, sizeof(d), ETH_TX - RAM) == sizeof(d) &&
          d.flags == QRNIC_ETH_DONE, "... the descriptor completed");
    qvu_trace_close(&q);
    check_trace(trace_path);
    unlink(trace_path);

    /* DEVICE_RESET is qrnic_engine_reset. */
    CHECK(rd(BAR0, QRNIC_REG_STAT_BAD_DB, 4) != 0 &&
          rd(BAR0, QRNIC_REG_AQ_SQ_BASE_LO, 4) == SQ,
          "before reset: a bad doorbell count, the admin queue base");
    CHECK_EQ(send_msg(VFU_CMD_DEVICE_RESET, NULL, 0), 0, "DEVICE_RESET");
    CHECK_EQ(rd(BAR0, QRNIC_REG_STATUS, 4), QRNIC_STATUS_LINK_UP,
             "... not ready, link still up");
    CHECK(rd(BAR0, QRNIC_REG_CTRL, 4) == 0 &&
          rd(BAR0, QRNIC_REG_AQ_SQ_BASE_LO, 4) == 0 &&
          rd(BAR0, QRNIC_REG_STAT_BAD_DB, 4) == 0 && !q.eng.eth.active,
          "... CTRL, AQ base, bad doorbell count and Ethernet rings cleared");
    eth_frame(frame, 60, our_mac, 4);
    send(peer, frame, 60, 0);
    qvu_device_rx(&q);
    CHECK(q.eng.stats.rx_filtered == 1 && q.rx_len == 0,
          "a frame to the reset device: consumed and counted (rx_filtered)");

    /* set_link off: the engine sees it, frames stop both ways. */
    qvu_device_set_link(&q, false);
    CHECK_EQ(rd(BAR0, QRNIC_REG_STATUS, 4), 0, "set_link off: link down");
    send(peer, frame, 60, 0);
    qvu_device_rx(&q);
    CHECK(q.eng.stats.rx_filtered == 1 && q.rx_len == 0 &&
          recv(peer, got, sizeof(got), MSG_DONTWAIT) < 0,
          "... a frame on the link: read and dropped before the engine");
    qvu_device_set_link(&q, true);
    CHECK_EQ(rd(BAR0, QRNIC_REG_STATUS, 4), QRNIC_STATUS_LINK_UP,
             "set_link on: link up");

    set_irqs(VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, MSIX, 0, 0,
             NULL, NULL, 0);
    dma_unmap(0, 0, VFIO_DMA_UNMAP_FLAG_ALL);
    for (i = 0; i < 2; i++) {
        close(efd[i]);
    }
    close(ram_fd);
}

/* ---- the link ----------------------------------------------------------- */

/* Read one frame on rx, flushing tx and waiting as the poll loop would. */
static int link_wait(struct qvu_link *rx, struct qvu_link *tx, uint8_t *buf,
                     size_t cap)
{
    int i, n;

    for (i = 0; i < 500; i++) {
        struct pollfd p = { qvu_link_poll_fd(rx), POLLIN, 0 };

        n = qvu_link_read(rx, buf, cap);
        if (n) {
            return n;
        }
        if (tx) {
            qvu_link_flush(tx);
        }
        poll(&p, 1, 2);
    }
    return 0;
}

static struct qvu_link *link_open(const char *fmt, const char *arg)
{
    char spec[300], err[256] = "";
    struct qvu_link *l;

    snprintf(spec, sizeof(spec), fmt, arg);
    l = qvu_link_open(spec, err, sizeof(err));
    if (!l) {
        printf("# %s: %s\n", spec, err);
    }
    return l;
}

/* A raw stream peer; its reads give up after 2 s. */
static int raw_connect(const struct sockaddr_un *sa)
{
    struct timeval tv = { 2, 0 };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd >= 0 &&
        (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
         connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool exchange(struct qvu_link *a, struct qvu_link *b, size_t len,
                     unsigned int seed)
{
    int n;

    fill(frame, len, seed);
    qvu_link_send(a, frame, len);
    n = link_wait(b, a, got, QVU_LINK_MAX_FRAME);
    return n == (int)len && !memcmp(got, frame, len);
}

static const size_t sizes[] = { 60, 1514, 9000, QVU_LINK_MAX_FRAME };

static void test_link_stream(const char *dir)
{
    struct qvu_link *s, *c;
    uint32_t be;
    int bad, raw, n, t;
    size_t i;
    uint64_t dropped;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    const char *path = sa.sun_path;

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/link.sock", dir);
    s = link_open("stream,path=%s,server=on", path);
    CHECK(s && !qvu_link_is_up(s), "stream server listening, no peer");
    if (!s) {
        return;
    }
    qvu_link_send(s, frame, 60);
    CHECK_EQ(qvu_link_dropped(s), 1,
             "a frame sent with no peer: dropped and counted");
    c = link_open("stream,path=%s,server=off", path);
    CHECK(c && qvu_link_is_up(c) && qvu_link_timeout_ms(c) == -1,
          "stream client connected at once, wants no tick");
    if (!c) {
        qvu_link_close(s);
        return;
    }
    CHECK(qvu_link_read(s, got, sizeof(got)) == 0 && qvu_link_is_up(s),
          "the server accepts it");

    for (bad = 0, i = 0; i < 4; i++) {
        bad += !exchange(c, s, sizes[i], (unsigned int)i);
        bad += !exchange(s, c, sizes[i], (unsigned int)i + 10);
    }
    CHECK_EQ(bad, 0, "frames of 60, 1514, 9000 and %u bytes both ways",
             QVU_LINK_MAX_FRAME);
    for (i = 0; i < 4; i++) {
        fill(frame, sizes[i], (unsigned int)i + 20);
        qvu_link_send(c, frame, sizes[i]);
    }
    for (bad = 0, i = 0; i < 4; i++) {
        fill(frame, sizes[i], (unsigned int)i + 20);
        n = link_wait(s, c, got, QVU_LINK_MAX_FRAME);
        bad += n != (int)sizes[i] || memcmp(got, frame, sizes[i]);
    }
    CHECK(bad == 0 && !qvu_link_pending(s) && !qvu_link_dropped(c),
          "the four sent back to back: all four, in order");
    dropped = qvu_link_dropped(c);
    qvu_link_send(c, frame, QVU_LINK_MAX_FRAME + 1);
    CHECK_EQ(qvu_link_dropped(c), dropped + 1,
             "a frame above QVU_LINK_MAX_FRAME: not sent, counted");
    fill(frame, 1514, 5);
    qvu_link_send(c, frame, 1514);
    qvu_link_send(c, frame, 60);
    dropped = qvu_link_dropped(s);
    n = link_wait(s, c, got, 100);
    CHECK(n == 60 && qvu_link_dropped(s) == dropped + 1,
          "a frame larger than the reader's buffer: dropped, counted, "
          "the next one read");

    /*
     * A peer that does not read: the socket fills, then the buffer (more
     * than the largest congestion window, 4 MiB).
     */
    dropped = qvu_link_dropped(c);
    for (i = 0; i < 256 && qvu_link_dropped(c) == dropped; i++) {
        fill(frame, QVU_LINK_MAX_FRAME, (unsigned int)i);
        qvu_link_send(c, frame, QVU_LINK_MAX_FRAME);
    }
    CHECK(qvu_link_dropped(c) == dropped + 1 && i > 64 &&
          (qvu_link_poll_events(c) & POLLOUT),
          "a peer not reading: frame %zu of 64 KiB dropped and counted "
          "(more than 4 MiB held), the rest waits for POLLOUT", i);
    for (bad = 0, n = 0; n < (int)i - 1; n++) {
        fill(frame, QVU_LINK_MAX_FRAME, (unsigned int)n);
        bad += link_wait(s, c, got, QVU_LINK_MAX_FRAME) !=
               QVU_LINK_MAX_FRAME || memcmp(got, frame, QVU_LINK_MAX_FRAME);
    }
    CHECK(bad == 0 && !(qvu_link_poll_events(c) & POLLOUT),
          "... the %d before it arrive whole, in order; nothing left to "
          "send", n);

    /* The peer goes; a raw one writes a frame a byte at a time. */
    qvu_link_close(c);
    CHECK(link_wait(s, NULL, got, sizeof(got)) == -1 && !qvu_link_is_up(s),
          "the client closes: the server's read says -1, no peer");
    raw = raw_connect(&sa);
    CHECK(raw >= 0 && qvu_link_read(s, got, sizeof(got)) == 0 &&
          qvu_link_is_up(s),
          "a raw peer connects, accepted");
    be = htonl(100);
    memcpy(frame, &be, 4);
    fill(frame + 4, 100, 6);
    for (bad = 0, i = 0; i < 104; i++) {
        n = send(raw, frame + i, 1, 0) == 1 ?
            qvu_link_read(s, got, sizeof(got)) : -2;
        bad += i < 103 ? n != 0 : n != 100;
    }
    CHECK(bad == 0 && !memcmp(got, frame + 4, 100),
          "a frame written byte by byte: read whole once complete");
    be = htonl(QVU_LINK_MAX_FRAME + 1);
    send(raw, &be, 4, 0);
    CHECK(qvu_link_read(s, got, sizeof(got)) == -1 && !qvu_link_is_up(s),
          "a length above QVU_LINK_MAX_FRAME: -1, the peer dropped");
    CHECK_EQ(recv(raw, got, 16, 0), 0, "... its connection closed");
    close(raw);
    raw = raw_connect(&sa);
    CHECK(raw >= 0 && qvu_link_read(s, got, sizeof(got)) == 0 &&
          qvu_link_is_up(s),
          "... the server accepts a new peer");
    fill(frame, 60, 7);
    qvu_link_send(s, frame, 60);
    CHECK(recv(raw, got, 64, MSG_WAITALL) == 64 &&
          !memcmp(got, "\0\0\0\x3c", 4) && !memcmp(got + 4, frame, 60),
          "... and sends it a 4-byte big-endian length and the frame");
    close(raw);
    link_wait(s, NULL, got, sizeof(got));

    /* The server restarts; the client reconnects. */
    c = link_open("stream,path=%s,server=off", path);
    qvu_link_read(s, got, sizeof(got));
    CHECK(c && qvu_link_is_up(s) && exchange(c, s, 60, 8),
          "a new client, a frame");
    if (!c) {
        qvu_link_close(s);
        return;
    }
    qvu_link_close(s);
    CHECK(access(path, F_OK) != 0, "the server closed: its socket file gone");
    CHECK(link_wait(c, NULL, got, sizeof(got)) == -1 && !qvu_link_is_up(c) &&
          qvu_link_poll_fd(c) == -1, "the client sees it: -1, down");
    t = qvu_link_timeout_ms(c);
    CHECK(t > 0 && t <= 101, "... it wants a tick in %d ms (100 ms)", t);
    dropped = qvu_link_dropped(c);
    qvu_link_send(c, frame, 60);
    CHECK_EQ(qvu_link_dropped(c), dropped + 1,
             "a frame sent while away: dropped and counted");
    s = link_open("stream,path=%s,server=on", path);
    qvu_link_tick(c);
    CHECK(s && !qvu_link_is_up(c), "the server back; a tick too early: "
          "still down");
    for (i = 0; i < 100 && !qvu_link_is_up(c); i++) {
        t = qvu_link_timeout_ms(c);
        poll(NULL, 0, t >= 0 && t <= 200 ? t : 10);
        qvu_link_tick(c);
    }
    CHECK(qvu_link_is_up(c) && qvu_link_timeout_ms(c) == -1,
          "... the tick when due: connected");
    if (s) {
        qvu_link_read(s, got, sizeof(got));
        CHECK(exchange(c, s, 1514, 9) && exchange(s, c, 9000, 10),
              "... frames both ways again");
    }
    qvu_link_close(c);
    qvu_link_close(s);

    c = link_open("stream,path=%s/nobody.sock,server=off", dir);
    CHECK(c && !qvu_link_is_up(c) && qvu_link_timeout_ms(c) > 0,
          "a client with no server: opened, down, retrying");
    qvu_link_close(c);
}

/* A client whose server's backlog is full must not wait in connect(). */
static void test_link_busy_server(const char *dir)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int lfd, fds[16], n = 0, status = -1;
    pid_t pid;

    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/busy.sock", dir);
    lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 0)) {
        CHECK(0, "a listening socket");
        close(lfd);
        return;
    }
    while (n < 16) {
        fds[n] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
                        0);
        if (connect(fds[n], (struct sockaddr *)&sa, sizeof(sa))) {
            close(fds[n]);
            break;
        }
        n++;
    }
    pid = fork();
    if (pid == 0) {
        struct qvu_link *l;

        alarm(5);
        l = link_open("stream,path=%s,server=off", sa.sun_path);
        _exit(l && !qvu_link_is_up(l) && qvu_link_timeout_ms(l) > 0 ? 0 : 1);
    }
    CHECK(n < 16 && pid > 0 && waitpid(pid, &status, 0) == pid &&
          WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "a server whose backlog is full: the client does not wait, "
          "retries later (status 0x%x)", status);
    while (n--) {
        close(fds[n]);
    }
    close(lfd);
    unlink(sa.sun_path);
}

static void test_link_dgram(void)
{
    struct sockaddr_in sin = { .sin_family = AF_INET };
    socklen_t sl = sizeof(sin);
    char spec[160], fdstr[16];
    struct qvu_link *l, *u[2];
    int sv[2], st[2], i, ports[2], tmp[2], bad;
    static uint8_t huge[70000];

    CHECK(!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv),
          "a datagram socket pair");
    snprintf(fdstr, sizeof(fdstr), "%d", sv[0]);
    l = link_open("dgram,fd=%s", fdstr);
    CHECK(l && qvu_link_is_up(l) && qvu_link_poll_fd(l) == sv[0] &&
          (fcntl(sv[0], F_GETFL) & O_NONBLOCK), "dgram,fd=N: up, "
          "non-blocking");
    if (!l) {
        close(sv[0]);
        close(sv[1]);
        return;
    }
    for (bad = 0, i = 0; i < 4; i++) {
        fill(frame, sizes[i], (unsigned int)i + 30);
        qvu_link_send(l, frame, sizes[i]);
        bad += recv(sv[1], got, sizeof(got), MSG_DONTWAIT) != (int)sizes[i] ||
               memcmp(got, frame, sizes[i]);
        fill(frame, sizes[i], (unsigned int)i + 40);
        send(sv[1], frame, sizes[i], 0);
        bad += qvu_link_read(l, got, QVU_LINK_MAX_FRAME) != (int)sizes[i] ||
               memcmp(got, frame, sizes[i]) || qvu_link_pending(l);
    }
    CHECK_EQ(bad, 0, "frames of 60 to %u bytes both ways, one a datagram",
             QVU_LINK_MAX_FRAME);
    CHECK_EQ(qvu_link_read(l, got, QVU_LINK_MAX_FRAME), 0,
             "nothing to read: 0");
    CHECK_EQ(send(sv[1], huge, sizeof(huge), 0), (ssize_t)sizeof(huge),
             "a 70000-byte datagram");
    CHECK(qvu_link_read(l, got, QVU_LINK_MAX_FRAME) == 0 &&
          qvu_link_dropped(l) == 1, "... dropped and counted by the reader");
    qvu_link_close(l);
    CHECK(!fd_open(sv[0]), "the link closes its fd");
    close(sv[1]);

    CHECK(!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, st),
          "a stream socket pair");
    snprintf(fdstr, sizeof(fdstr), "%d", st[0]);
    CHECK(!link_open("dgram,fd=%s", fdstr) && fd_open(st[0]),
          "dgram,fd= of a stream socket refused at open, fd left alone");
    close(st[0]);
    close(st[1]);

    /* UDP on the loopback, on two ports that were free a moment ago. */
    for (i = 0; i < 2; i++) {
        tmp[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sin.sin_port = 0;
        sl = sizeof(sin);
        bind(tmp[i], (struct sockaddr *)&sin, sizeof(sin));
        getsockname(tmp[i], (struct sockaddr *)&sin, &sl);
        ports[i] = ntohs(sin.sin_port);
    }
    close(tmp[0]);
    close(tmp[1]);
    for (i = 0; i < 2; i++) {
        char err[256];

        snprintf(spec, sizeof(spec),
                 "dgram,local=127.0.0.1:%d,remote=127.0.0.1:%d", ports[i],
                 ports[!i]);
        u[i] = qvu_link_open(spec, err, sizeof(err));
    }
    CHECK(u[0] && u[1], "two UDP links on the loopback");
    if (u[0] && u[1]) {
        CHECK(exchange(u[0], u[1], 1514, 50) && exchange(u[1], u[0], 9000, 51),
              "... frames both ways, one a datagram");
    }
    qvu_link_close(u[0]);
    qvu_link_close(u[1]);
}

static void test_link_specs(const char *dir)
{
    static const char *const specs[] = {
        "", "bogus,path=/tmp/x", "stream", "stream,server=on",
        "stream,path=,server=on", "stream,path=%s/x.sock,server=maybe",
        "stream,path=%s/no/such/dir/x.sock,server=on",
        "stream,path=/tmp/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.sock",
        "dgram,local=1.2.3:5000,remote=127.0.0.1:5001",
        "dgram,local=127.0.0.1:5000,remote=localhost:5001",
        "dgram,local=127.0.0.1,remote=127.0.0.1:5001",
        "dgram,local=127.0.0.1:0,remote=127.0.0.1:5001",
        "dgram,local=127.0.0.1:5000,remote=127.0.0.1:70000",
        "dgram,local=127.0.0.1:5000,remote=127.0.0.1:5x",
        "dgram,local=127.0.0.1:5000", "dgram,fd=abc", "dgram,fd=-1",
        "dgram,fd=99999", "dgram,fd=0x3",
    };
    size_t i;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        char spec[300], err[256] = "";
        struct qvu_link *l;

        snprintf(spec, sizeof(spec), specs[i], dir);
        l = qvu_link_open(spec, err, sizeof(err));
        CHECK(!l && err[0], "'%s' refused: %s", spec, err);
        qvu_link_close(l);
    }
}

int main(void)
{
    char dir[] = "/tmp/qrnic-vu-test-XXXXXX";
    int before;

    setvbuf(stdout, NULL, _IOLBF, 0);   /* lines out before any abort */
    signal(SIGPIPE, SIG_IGN);

    before = count_fds();
    CHECK_EQ(device_open(), 0, "qvu_device_init on a dgram,fd= link; "
             "VERSION");
    if (!srv) {
        return 1;
    }
    test_config();
    test_bar0();
    test_bar2();
    test_bar4();
    test_dma();
    test_msix();
    test_engine();
    CHECK_EQ(bad_replies, 0, "every reply matched its result");
    qvu_device_fini(&q);
    close(peer);
    srv = NULL;
    CHECK_EQ(count_fds(), before, "qvu_device_fini: no fd left open");

    CHECK(mkdtemp(dir) != NULL, "a directory for the stream sockets");
    before = count_fds();
    test_link_stream(dir);
    test_link_busy_server(dir);
    test_link_dgram();
    test_link_specs(dir);
    CHECK_EQ(count_fds(), before, "the link tests: no fd left open");
    rmdir(dir);
    return TAP_DONE();
}
