/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <assert.h>
#include <string.h>
#include "fake.h"

int tap_failures;

static int fake_in_ram(uint64_t addr, size_t len)
{
    return addr >= FAKE_RAM_BASE && len <= FAKE_RAM_SIZE &&
           addr - FAKE_RAM_BASE <= FAKE_RAM_SIZE - len;
}

static int fake_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
    struct fake *f = opaque;

    if (!fake_in_ram(addr, len)) {
        f->dma_errors++;
        return -1;
    }
    memcpy(buf, f->ram + (addr - FAKE_RAM_BASE), len);
    return 0;
}

static int fake_dma_write(void *opaque, uint64_t addr, const void *buf,
                          size_t len)
{
    struct fake *f = opaque;

    if (!fake_in_ram(addr, len)) {
        f->dma_errors++;
        return -1;
    }
    memcpy(f->ram + (addr - FAKE_RAM_BASE), buf, len);
    return 0;
}

static void fake_raise_irq(void *opaque, unsigned int vector)
{
    struct fake *f = opaque;

    assert(vector < QRNIC_NUM_MSIX);
    f->irqs[vector]++;
}

static void fake_tx_frame(void *opaque, const uint8_t *frame, size_t len)
{
    struct fake *f = opaque;

    assert(len <= sizeof(f->tx_last));
    memcpy(f->tx_last, frame, len);
    f->tx_len = len;
    f->tx_count++;
}

/* The admin and Ethernet tests need no time and no transport work. */
static uint64_t fake_now_ns(void *opaque)
{
    (void)opaque;
    return 0;
}

static void fake_timer_mod(void *opaque, uint64_t deadline_ns)
{
    (void)opaque;
    (void)deadline_ns;
}

static void fake_schedule(void *opaque)
{
    (void)opaque;
}

const struct qrnic_engine_ops fake_ops = {
    .dma_read = fake_dma_read,
    .dma_write = fake_dma_write,
    .raise_irq = fake_raise_irq,
    .tx_frame = fake_tx_frame,
    .now_ns = fake_now_ns,
    .timer_mod = fake_timer_mod,
    .schedule = fake_schedule,
};

uint8_t *fake_ptr(struct fake *f, uint64_t gpa)
{
    assert(fake_in_ram(gpa, 1));
    return f->ram + (gpa - FAKE_RAM_BASE);
}

void fake_init(struct fake *f, struct qrnic_engine *e, uint32_t db_pages)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

    memset(f, 0, sizeof(*f));
    qrnic_engine_init(e, &fake_ops, f, db_pages, mac);
}
