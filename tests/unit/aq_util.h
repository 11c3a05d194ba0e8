/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Drive the engine's admin queue through fake guest RAM. */
#ifndef QRNIC_TEST_AQ_UTIL_H
#define QRNIC_TEST_AQ_UTIL_H

#include "fake.h"

#define AQ_SQ       (FAKE_RAM_BASE + 0x0000)
#define AQ_CQ       (FAKE_RAM_BASE + 0x1000)
#define RESP        (FAKE_RAM_BASE + 0x2000)
#define EQ_RING     (FAKE_RAM_BASE + 0x3000)
#define TX_RING     (FAKE_RAM_BASE + 0x8000)
#define RX_RING     (FAKE_RAM_BASE + 0x9000)
#define BUFS        (FAKE_RAM_BASE + 0x10000)
#define OUTSIDE     0x10000000ull

struct aq {
    struct fake f;
    struct qrnic_engine e;
    uint32_t pi;
    uint32_t ci;
    uint32_t log;
};

struct aq_result {
    int completed;
    uint8_t status;
    uint8_t opcode;
    uint16_t cookie;
    uint32_t result0;
    uint32_t result1;
    uint32_t phase;
};

/* Init the engine and enable it with an admin queue of 1 << log entries. */
void aq_setup(struct aq *q, uint32_t db_pages, uint32_t log);
/* Write a command at pi, ring the doorbell; does not run the queue. */
void aq_post(struct aq *q, const struct qrnic_cmd *cmd);
/* Read the completion at ci and return it to the device. */
struct aq_result aq_reap(struct aq *q);
/* Post, process, reap: one command, synchronously. */
struct aq_result aq_exec(struct aq *q, const struct qrnic_cmd *cmd);
uint8_t aq_status(struct aq *q, const struct qrnic_cmd *cmd);
struct qrnic_cmd mkcmd(uint8_t opcode);

#endif
