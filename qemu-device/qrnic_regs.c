/*
 * QEMU qrnic: BAR0 registers and BAR2 doorbell pages as MemoryRegionOps.
 * The register file and the doorbells themselves are in the engine
 * (engine/qrnic_regfile.c, engine/qrnic_engine.c); see docs/hardware.md.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qrnic.h"
#include "trace.h"

static uint64_t qrnic_bar0_read(void *opaque, hwaddr addr, unsigned size)
{
    QrnicState *s = opaque;
    uint32_t val = qrnic_engine_reg_read(&s->eng, addr);

    trace_qrnic_reg_read(addr, val);
    return val;
}

static void qrnic_bar0_write(void *opaque, hwaddr addr, uint64_t data,
                             unsigned size)
{
    QrnicState *s = opaque;

    trace_qrnic_reg_write(addr, data);
    qrnic_engine_reg_write(&s->eng, addr, data);
}

const MemoryRegionOps qrnic_regs_ops = {
    .read = qrnic_bar0_read,
    .write = qrnic_bar0_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static uint64_t qrnic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

/* Anything but an aligned 64-bit write is counted in STAT_BAD_DB. */
static void qrnic_db_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    QrnicState *s = opaque;

    trace_qrnic_doorbell(addr, val, size);
    qrnic_engine_db_write(&s->eng, addr, val, size);
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
