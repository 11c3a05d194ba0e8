/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Play the driver of one qrnic on the fake platform (tests/fake/qfake.h):
 * registers and doorbells through MMIO, commands and completions in guest
 * RAM, the device's work through its bottom half.
 */
#ifndef QRNIC_TEST_AQ_UTIL_H
#define QRNIC_TEST_AQ_UTIL_H

#include "qfake.h"

#define RAM_SIZE    (256 * 1024)
#define QMEM_SIZE   (16 * QRNIC_QMEM_PAGE_SIZE)
#define AQ_SQ       (QF_RAM_BASE + 0x0000)
#define AQ_CQ       (QF_RAM_BASE + 0x1000)
#define RESP        (QF_RAM_BASE + 0x2000)
#define EQ_RING     (QF_RAM_BASE + 0x3000)
#define TX_RING     (QF_RAM_BASE + 0x8000)
#define RX_RING     (QF_RAM_BASE + 0x9000)
#define BUFS        (QF_RAM_BASE + 0x10000)
#define OUTSIDE     0x10000000ull   /* neither RAM nor a BAR */

extern const uint8_t aq_mac[6];     /* 52:54:00:12:34:56 */

struct aq {
    struct qf_dev d;
    uint64_t clock;
    uint32_t pi;
    uint32_t ci;
    uint32_t log;
};

/* A fresh device (the previous one, if any, is freed): not enabled. */
void aq_init(struct aq *q, uint32_t db_pages);
/*
 * Program the admin queue registers and set CTRL.ENABLE (after clearing
 * it if set).  Returns INIT_ERR: 0 when STATUS shows READY; ~0 if STATUS
 * shows neither or both of READY and FATAL.
 */
uint32_t aq_enable(struct aq *q, uint64_t sq, uint64_t cq, uint32_t log);
/* aq_init, aq_enable with AQ_SQ/AQ_CQ and 1 << log entries, link up. */
void aq_setup(struct aq *q, uint32_t db_pages, uint32_t log);
void aq_fini(struct aq *q);

struct aq_result {
    int completed;
    uint8_t status;
    uint8_t opcode;
    uint16_t cookie;
    uint32_t result0;
    uint32_t result1;
    uint32_t phase;
};

/* Write a command at pi, without ringing AQ_DB. */
void aq_write(struct aq *q, const struct qrnic_cmd *cmd);
/* aq_write, then ring AQ_DB: the device runs it before the write returns. */
void aq_post(struct aq *q, const struct qrnic_cmd *cmd);
/* Run the device's bottom half until it is idle. */
void aq_run(struct aq *q);
/* Read the completion at ci and, if written, hand it back (AQ_CQ_CI). */
struct aq_result aq_reap(struct aq *q);
/* Post, run, reap: one command, synchronously. */
struct aq_result aq_exec(struct aq *q, const struct qrnic_cmd *cmd);
uint8_t aq_status(struct aq *q, const struct qrnic_cmd *cmd);
struct qrnic_cmd mkcmd(uint8_t opcode);

uint32_t aq_reg(struct aq *q, uint32_t reg);
void aq_set_reg(struct aq *q, uint32_t reg, uint32_t val);
/* The STAT_BAD_DB register. */
uint32_t aq_bad_db(struct aq *q);

#endif
