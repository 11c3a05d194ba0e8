/*
 * QEMU qrnic: BAR2 doorbell pages
 *
 * Each 4 KiB page has the QRNIC_DB_* layout.  A doorbell is a single
 * aligned 64-bit write; anything else, and any doorbell the engine rejects
 * (wrong page, unknown queue, index out of range), is counted in
 * STAT_BAD_DB and ignored.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "qrnic.h"
#include "trace.h"

static uint64_t qrnic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static void qrnic_db_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    QrnicState *s = opaque;
    uint32_t page = addr / QRNIC_DB_PAGE_SIZE;
    uint32_t off = addr % QRNIC_DB_PAGE_SIZE;
    enum qrnic_db_work work = QRNIC_DB_WORK_NONE;
    bool ok;

    if (size != 8) {
        s->eng.stats.bad_db++;
        ok = false;
    } else {
        ok = qrnic_engine_doorbell(&s->eng, page, off, val, &work);
    }
    trace_qrnic_doorbell(page, off, val, ok);

    switch (work) {
    case QRNIC_DB_WORK_ETH_TX:
        qemu_bh_schedule(s->tx_bh);
        break;
    case QRNIC_DB_WORK_ETH_RX:
        qrnic_rx_flush(s);
        break;
    case QRNIC_DB_WORK_NONE:
        break;
    }
}

const MemoryRegionOps qrnic_db_ops = {
    .read = qrnic_db_read,
    .write = qrnic_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};
