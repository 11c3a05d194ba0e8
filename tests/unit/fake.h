/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fake platform for engine tests: guest RAM is one buffer at FAKE_RAM_BASE;
 * DMA anywhere else fails.  Interrupts and transmitted frames are recorded.
 */
#ifndef QRNIC_TEST_FAKE_H
#define QRNIC_TEST_FAKE_H

#include <stdint.h>
#include <stddef.h>
#include "qrnic_engine.h"

#define FAKE_RAM_BASE   0x100000ull
#define FAKE_RAM_SIZE   (256 * 1024)

struct fake {
    uint8_t ram[FAKE_RAM_SIZE];
    unsigned int irqs[QRNIC_NUM_MSIX];
    unsigned int tx_count;
    size_t tx_len;
    uint8_t tx_last[QRNIC_ETH_MAX_FRAME];
    unsigned int dma_errors;
};

extern const struct qrnic_engine_ops fake_ops;

/* Host pointer for a guest address inside fake RAM (asserts it is). */
uint8_t *fake_ptr(struct fake *f, uint64_t gpa);
void fake_init(struct fake *f, struct qrnic_engine *e, uint32_t db_pages);

#endif
