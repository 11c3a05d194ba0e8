/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user: the engine's ops table over the vfio-user server (guest
 * memory through the client's DMA mappings, MSI-X through its eventfds),
 * the link and a timerfd; and the device's regions as the server's
 * callbacks: config space, BAR0 registers, BAR2 doorbells, BAR4 queue
 * memory (a memfd the client maps, so WQE writes never reach the server).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/vfio.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>
#include "qrnic_vu.h"

/* ---- the engine's ops ------------------------------------------------ */

/*
 * A client that shrinks a file it mapped for DMA makes the next access to
 * the cut pages raise SIGBUS: inside a DMA that access fails as a DMA to
 * an unmapped address does; anywhere else the signal does what it would.
 * Either thread may be the one inside a DMA (SIGBUS goes to the thread
 * that faulted).
 */
static __thread sigjmp_buf *dma_fault_jmp;

static void on_sigbus(int sig)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL };

    if (dma_fault_jmp) {
        siglongjmp(*dma_fault_jmp, 1);
    }
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/*
 * Guest memory through the client's mappings: the whole range if one
 * mapping holds it, else page by page (a range may cross from one
 * mapping into the next).
 */
static int dma_copy_ranges(struct qvu *q, uint64_t addr, uint8_t *buf,
                           size_t len, bool to_guest)
{
    while (len) {
        size_t chunk = len;
        uint8_t *p = vfu_dma_ptr(q->srv, addr, chunk, to_guest);

        if (!p) {
            chunk = 4096 - (addr & 4095);
            chunk = chunk < len ? chunk : len;
            p = vfu_dma_ptr(q->srv, addr, chunk, to_guest);
            if (!p) {
                return -1;
            }
        }
        if (to_guest) {
            memcpy(p, buf, chunk);
        } else {
            memcpy(buf, p, chunk);
        }
        addr += chunk;
        buf += chunk;
        len -= chunk;
    }
    return 0;
}

static int dma_copy(struct qvu *q, uint64_t addr, uint8_t *buf, size_t len,
                    bool to_guest)
{
    sigjmp_buf fault;
    int r;

    if (addr + len < addr) {
        return -1;
    }
    /* SA_NODEFER: the handler leaves no signal blocked to restore. */
    if (sigsetjmp(fault, 0)) {
        dma_fault_jmp = NULL;
        return -1;
    }
    dma_fault_jmp = &fault;
    atomic_signal_fence(memory_order_seq_cst);  /* set before the copy */
    r = dma_copy_ranges(q, addr, buf, len, to_guest);
    atomic_signal_fence(memory_order_seq_cst);  /* cleared after it */
    dma_fault_jmp = NULL;
    return r;
}

static int qvu_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    return dma_copy(opaque, addr, buf, len, false);
}

static int qvu_dma_write(void *opaque, uint64_t addr, const void *buf,
                         size_t len)
{
    return dma_copy(opaque, addr, (uint8_t *)buf, len, true);
}

static void qvu_raise_irq(void *opaque, unsigned int vector)
{
    struct qvu *q = opaque;
    uint64_t one = 1;

    qvu_trace(q, "qvu_irq", "vector %u", vector);
    if (q->msix_fd[vector] >= 0 &&
        write(q->msix_fd[vector], &one, sizeof(one)) != sizeof(one) &&
        q->cfg.verbose) {
        fprintf(stderr, "qrnic-vfio-user: MSI-X vector %u: %s\n", vector,
                strerror(errno));
    }
}

static void qvu_tx_frame(void *opaque, const uint8_t *frame, size_t len)
{
    struct qvu *q = opaque;

    if (!q->link_down) {
        qvu_trace(q, "qvu_tx", "len %zu", len);
        qvu_link_send(q->link, frame, len);
        q->stats.frames_out++;
    }
}

static uint64_t qvu_now_ns(void *opaque)
{
    struct timespec ts;

    (void)opaque;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void qvu_timer_mod(void *opaque, uint64_t deadline_ns)
{
    struct qvu *q = opaque;
    struct itimerspec its = { { 0, 0 }, { 0, 0 } };

    if (deadline_ns != UINT64_MAX) {
        deadline_ns = deadline_ns ? deadline_ns : 1;    /* 0 disarms */
        its.it_value.tv_sec = (time_t)(deadline_ns / 1000000000ull);
        its.it_value.tv_nsec = (long)(deadline_ns % 1000000000ull);
    }
    timerfd_settime(q->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void qvu_schedule(void *opaque)
{
    struct qvu *q = opaque;

    q->work_pending = true;
}

static void qvu_rx_ready(void *opaque)
{
    qvu_device_rx(opaque);
}

static void qvu_event(void *opaque, const struct qrnic_event *ev)
{
    struct qvu *q = opaque;

    if (ev->kind != QRNIC_EV_GUEST_ERROR) {
        return;
    }
    q->guest_errors++;
    fprintf(stderr, "qrnic-vfio-user: guest error: %s: %s: 0x%llx, 0x%llx\n",
            ev->guest_error.name, ev->guest_error.what,
            (unsigned long long)ev->guest_error.a,
            (unsigned long long)ev->guest_error.b);
}

/* Pages of the memfd go back to the host; both mappings then read 0. */
static bool qvu_qmem_discard(void *opaque, uint64_t off, uint64_t len)
{
    struct qvu *q = opaque;

    return !((off | len) & 4095) &&
           !fallocate(q->qmem_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                      (off_t)off, (off_t)len);
}

static const struct qrnic_engine_ops qvu_engine_ops = {
    .dma_read = qvu_dma_read,
    .dma_write = qvu_dma_write,
    .raise_irq = qvu_raise_irq,
    .tx_frame = qvu_tx_frame,
    .now_ns = qvu_now_ns,
    .timer_mod = qvu_timer_mod,
    .schedule = qvu_schedule,
    .rx_ready = qvu_rx_ready,
    .event = qvu_event,
    .qmem_discard = qvu_qmem_discard,
};

/* ---- the regions --------------------------------------------------------- */

static uint64_t get_le(const uint8_t *b, uint32_t n)
{
    uint64_t v = 0;

    while (n--) {
        v = v << 8 | b[n];
    }
    return v;
}

static void put_le(uint8_t *b, uint64_t v, uint32_t n)
{
    uint32_t i;

    for (i = 0; i < n; i++) {
        b[i] = (uint8_t)(v >> (8 * i));
    }
}

/*
 * BAR0 as the in-QEMU device's MemoryRegionOps: aligned 4- and 8-byte
 * accesses, an 8-byte one as two 4-byte ones.  The MSI-X table and PBA
 * are the client's (it emulates them): reads there are 0, writes ignored.
 */
static int bar0_access(struct qvu *q, uint64_t off, uint8_t *buf,
                       uint32_t count, bool is_write)
{
    uint32_t i;

    if ((count != 4 && count != 8) || (off & (count - 1))) {
        return -EINVAL;
    }
    for (i = 0; i < count; i += 4) {
        uint32_t addr = (uint32_t)off + i;

        if (addr >= QRNIC_MSIX_TABLE_OFF) {
            if (!is_write) {
                put_le(buf + i, 0, 4);
            }
        } else if (is_write) {
            qrnic_engine_reg_write(&q->eng, addr,
                                   (uint32_t)get_le(buf + i, 4));
        } else {
            put_le(buf + i, qrnic_engine_reg_read(&q->eng, addr), 4);
        }
    }
    return 0;
}

static int qvu_region_access(void *opaque, uint32_t index, uint64_t offset,
                             void *buf, uint32_t count, bool is_write)
{
    struct qvu *q = opaque;

    if (index != VFIO_PCI_CONFIG_REGION_INDEX) {
        qvu_trace(q, "qvu_region_rw", "region %u offset 0x%llx count %u %s",
                  index, (unsigned long long)offset, count,
                  is_write ? "write" : "read");
    }
    switch (index) {
    case VFIO_PCI_CONFIG_REGION_INDEX:
        if (is_write) {
            qvu_pci_write(&q->pci, offset, buf, count);
        } else {
            qvu_pci_read(&q->pci, offset, buf, count);
        }
        return 0;
    case VFIO_PCI_BAR0_REGION_INDEX + QRNIC_BAR_REGS:
        return bar0_access(q, offset, buf, count, is_write);
    case VFIO_PCI_BAR0_REGION_INDEX + QRNIC_BAR_DB:
        if (count > 8) {
            return -EINVAL;
        }
        if (is_write) {
            q->stats.doorbells++;
            /* The engine counts anything but an aligned 8-byte write. */
            qrnic_engine_db_write(&q->eng, offset, get_le(buf, count),
                                  count);
        } else {
            memset(buf, 0, count);
        }
        return 0;
    case VFIO_PCI_BAR0_REGION_INDEX + QRNIC_BAR_QMEM:
        if (is_write) {
            memcpy(q->qmem + offset, buf, count);
        } else {
            memcpy(buf, q->qmem + offset, count);
        }
        return 0;
    default:
        return -EINVAL;
    }
}

/*
 * MSI-X only (the server checked the range).  The client emulates the
 * table and masking; it gives an eventfd per vector, or -1 to disconnect.
 */
static int qvu_set_irqs(void *opaque, uint32_t index, uint32_t start,
                        uint32_t count, uint32_t flags, const int *fds,
                        const uint8_t *bools)
{
    struct qvu *q = opaque;
    uint32_t data = flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
    uint32_t i;

    if (index != VFIO_PCI_MSIX_IRQ_INDEX ||
        !(flags & VFIO_IRQ_SET_ACTION_TRIGGER)) {
        return -EINVAL;
    }
    if (!count) {
        for (i = 0; i < QRNIC_NUM_MSIX; i++) {
            q->msix_fd[i] = -1;
        }
        return 0;
    }
    for (i = 0; i < count; i++) {
        if (data == VFIO_IRQ_SET_DATA_EVENTFD) {
            q->msix_fd[start + i] = fds[i];
        } else if (data == VFIO_IRQ_SET_DATA_NONE || bools[i]) {
            qvu_raise_irq(q, start + i);
        }
    }
    return 0;
}

static int qvu_reset(void *opaque)
{
    struct qvu *q = opaque;

    qrnic_engine_reset(&q->eng);
    return 0;
}

static const struct vfu_device_ops qvu_vfu_ops = {
    .region_access = qvu_region_access,
    .set_irqs = qvu_set_irqs,
    .reset = qvu_reset,
};

/* ---- set-up ------------------------------------------------------------ */

static void describe(struct qvu *q, struct vfu_device_desc *d)
{
    const uint32_t rw = VFIO_REGION_INFO_FLAG_READ |
                        VFIO_REGION_INFO_FLAG_WRITE;
    struct vfu_region_desc *qmem;

    memset(d, 0, sizeof(*d));
    d->flags = VFIO_DEVICE_FLAGS_PCI | VFIO_DEVICE_FLAGS_RESET;
    d->num_regions = VFIO_PCI_NUM_REGIONS;
    d->region[VFIO_PCI_CONFIG_REGION_INDEX].size = QVU_PCI_CONFIG_SIZE;
    d->region[VFIO_PCI_CONFIG_REGION_INDEX].flags = rw;
    d->region[QRNIC_BAR_REGS].size = QRNIC_BAR0_SIZE;
    d->region[QRNIC_BAR_REGS].flags = rw;
    d->region[QRNIC_BAR_DB].size =
        (uint64_t)q->cfg.db_pages * QRNIC_DB_PAGE_SIZE;
    d->region[QRNIC_BAR_DB].flags = rw;
    qmem = &d->region[QRNIC_BAR_QMEM];
    qmem->size = q->cfg.qmem_size;
    qmem->flags = rw | VFIO_REGION_INFO_FLAG_MMAP;
    qmem->mmap_fd = q->qmem_fd;
    d->num_irqs = VFIO_PCI_NUM_IRQS;
    d->irq[VFIO_PCI_MSIX_IRQ_INDEX].count = QRNIC_NUM_MSIX;
    d->irq[VFIO_PCI_MSIX_IRQ_INDEX].flags = VFIO_IRQ_INFO_EVENTFD |
                                            VFIO_IRQ_INFO_NORESIZE;
}

static int setup_qmem(struct qvu *q, char *err, size_t errlen)
{
    /*
     * The client maps BAR4 from this fd: sealed against resizing, so it
     * cannot cut pages from under the engine (SIGBUS).
     */
    q->qmem_fd = memfd_create("qrnic-qmem", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (q->qmem_fd < 0 || ftruncate(q->qmem_fd, (off_t)q->cfg.qmem_size) ||
        fcntl(q->qmem_fd, F_ADD_SEALS,
              F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
        snprintf(err, errlen, "queue memory: %s", strerror(errno));
        return -1;
    }
    q->qmem = mmap(NULL, q->cfg.qmem_size, PROT_READ | PROT_WRITE,
                   MAP_SHARED, q->qmem_fd, 0);
    if (q->qmem == MAP_FAILED) {
        q->qmem = NULL;
        snprintf(err, errlen, "queue memory: mmap: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int qvu_device_init(struct qvu *q, char *err, size_t errlen)
{
    const struct qvu_config *c = &q->cfg;
    struct sigaction bus = { .sa_handler = on_sigbus,
                             .sa_flags = SA_NODEFER };
    struct vfu_device_desc desc;
    int i;

    sigaction(SIGBUS, &bus, NULL);
    pthread_mutex_init(&q->lock, NULL);
    q->timer_fd = -1;
    q->wake_fd = -1;
    q->qmem_fd = -1;
    for (i = 0; i < QRNIC_NUM_MSIX; i++) {
        q->msix_fd[i] = -1;
    }
    if (setup_qmem(q, err, errlen)) {
        return -1;
    }
    q->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (q->timer_fd < 0) {
        snprintf(err, errlen, "timerfd: %s", strerror(errno));
        return -1;
    }
    q->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (q->wake_fd < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        return -1;
    }
    q->link = qvu_link_open(c->link, err, errlen);
    if (!q->link) {
        return -1;
    }
    qvu_pci_init(&q->pci, (uint64_t)c->db_pages * QRNIC_DB_PAGE_SIZE,
                 c->qmem_size);
    describe(q, &desc);
    q->srv = vfu_server_create(&desc, &qvu_vfu_ops, q);
    if (!q->srv) {
        snprintf(err, errlen, "vfio-user server: %s", strerror(errno));
        return -1;
    }

    qrnic_engine_init(&q->eng, &qvu_engine_ops, q, c->db_pages, c->mac);
    for (i = 0; i < QRNIC_OBJ_COUNT; i++) {
        qrnic_objects_set_limit(&q->eng, i, c->obj_max[i]);
    }
    q->eng.mtt_max = c->mtt_max;
    memcpy(q->eng.ctx_max, c->ctx_max, sizeof(c->ctx_max));
    q->eng.ctx_max[QRNIC_CTX_QMEM_PAGES] =
        (uint32_t)((c->ctx_max_qmem + QRNIC_QMEM_PAGE_SIZE - 1) /
                   QRNIC_QMEM_PAGE_SIZE);
    q->eng.win_bytes = c->win_kib * 1024;
    q->eng.win_pkts = c->win_pkts;
    q->eng.db_work = c->db_work;
    if (qrnic_engine_set_fault(&q->eng, &c->fault) ||
        qrnic_engine_set_qmem(&q->eng, q->qmem, c->qmem_size)) {
        snprintf(err, errlen, "the engine refused the fault injection "
                 "settings or %llu bytes of queue memory",
                 (unsigned long long)c->qmem_size);
        return -1;
    }
    qrnic_engine_set_link(&q->eng, true);
    return 0;
}

void qvu_device_fini(struct qvu *q)
{
    if (q->srv) {
        vfu_server_destroy(q->srv);
        qrnic_engine_fini(&q->eng);
    }
    qvu_link_close(q->link);
    if (q->timer_fd >= 0) {
        close(q->timer_fd);
    }
    if (q->wake_fd >= 0) {
        close(q->wake_fd);
    }
    qvu_trace_close(q);
    if (q->qmem) {
        munmap(q->qmem, q->cfg.qmem_size);
    }
    if (q->qmem_fd >= 0) {
        close(q->qmem_fd);
    }
}

/* ---- what the main loop drives ------------------------------------------- */

static void device_rx_frames(struct qvu *q)
{
    for (;;) {
        if (!q->rx_len) {
            q->rx_len = qvu_link_read(q->link, q->rx_frame,
                                      sizeof(q->rx_frame));
            if (q->rx_len <= 0) {
                q->rx_len = 0;
                return;
            }
        }
        if (!q->link_down &&
            (!qrnic_engine_can_receive(&q->eng) ||
             !qrnic_engine_receive(&q->eng, q->rx_frame,
                                   (size_t)q->rx_len))) {
            return;     /* held until rx_ready */
        }
        q->stats.frames_in += !q->link_down;
        qvu_trace(q, "qvu_rx", "len %d", q->rx_len);
        q->rx_len = 0;  /* taken, or dropped while the link is down */
        if (!qvu_link_pending(q->link)) {
            return;
        }
    }
}

void qvu_device_rx(struct qvu *q)
{
    /* rx_ready from inside a receive: the outer call goes on instead. */
    if (q->in_rx) {
        q->rx_again = true;
        return;
    }
    q->in_rx = true;
    do {
        q->rx_again = false;
        device_rx_frames(q);
    } while (q->rx_again);
    q->in_rx = false;
}

short qvu_device_link_events(const struct qvu *q)
{
    short events = qvu_link_poll_events(q->link);

    if (q->rx_len) {
        /* Held until rx_ready: not even a hang-up wakes us for it. */
        events &= (short)~POLLIN;
    }
    return events;
}

void qvu_device_wake(struct qvu *q)
{
    uint64_t one = 1;

    if (!q->wake_posted) {
        q->wake_posted = write(q->wake_fd, &one, sizeof(one)) ==
                         sizeof(one);
    }
}

void qvu_device_kick(struct qvu *q)
{
    if (q->work_pending || qvu_device_link_events(q) != q->link_polled) {
        qvu_device_wake(q);
    }
}

void qvu_device_set_link(struct qvu *q, bool up)
{
    q->link_down = !up;
    qrnic_engine_set_link(&q->eng, up);
}

void qvu_device_timer(struct qvu *q)
{
    uint64_t n;

    if (read(q->timer_fd, &n, sizeof(n)) == sizeof(n)) {
        qrnic_engine_timer(&q->eng);
    }
}

void qvu_device_work(struct qvu *q)
{
    qvu_trace(q, "qvu_work", "%s", "start");
    q->work_pending = false;
    qrnic_engine_work(&q->eng);
}
