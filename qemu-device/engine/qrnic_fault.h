/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: fault injection on RoCE frames (the x-drop-ppm, x-dup-ppm,
 * x-reorder-ppm, x-corrupt-ppm and x-fault-seed properties).  Frames the
 * device transmits are impaired before they reach the netdev, frames it
 * receives before the transport parses them; decisions come from a
 * generator of their own per direction, so a seed repeats them.
 */
#ifndef QRNIC_FAULT_H
#define QRNIC_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define QRNIC_FAULT_PPM_MAX     1000000u
/* A frame held back for reordering goes out by then at the latest. */
#define QRNIC_FAULT_HOLD_NS     500000ull

enum qrnic_fault_dir {
    QRNIC_FAULT_TX,
    QRNIC_FAULT_RX,
    QRNIC_FAULT_NDIR
};

struct qrnic_fault_cfg {
    uint32_t drop_ppm;          /* the frame vanishes */
    uint32_t dup_ppm;           /* delivered twice */
    uint32_t reorder_ppm;       /* held back, delivered after a later one */
    uint32_t corrupt_ppm;       /* a byte under the ICRC flipped */
    uint64_t seed;
};

struct qrnic_fault {
    struct qrnic_fault_cfg cfg;
    uint64_t rng[QRNIC_FAULT_NDIR];
    /* The frame held back in each direction (NULL: none). */
    uint8_t *held[QRNIC_FAULT_NDIR];
    uint16_t held_len[QRNIC_FAULT_NDIR];
    uint64_t held_until[QRNIC_FAULT_NDIR];
};

struct qrnic_engine;

/*
 * Set the rates and the seed (the generators start over); -1 if a rate
 * is over QRNIC_FAULT_PPM_MAX.  Any time, from outside the engine; a held
 * frame still goes out as planned.
 */
int qrnic_engine_set_fault(struct qrnic_engine *e,
                           const struct qrnic_fault_cfg *cfg);

/* Inside the engine, with it busy (depth 1). */
void qrnic_fault_tx(struct qrnic_engine *e, const uint8_t *frame,
                    size_t len);
void qrnic_fault_rx(struct qrnic_engine *e, const uint8_t *frame,
                    size_t len);
/* Release the held frames due at now. */
void qrnic_fault_expire(struct qrnic_engine *e, uint64_t now);
/* When the next held frame is due (UINT64_MAX: none held). */
uint64_t qrnic_fault_deadline(const struct qrnic_engine *e);
/* Device reset and teardown: held frames freed, generators reseeded. */
void qrnic_fault_reset(struct qrnic_engine *e);

#endif /* QRNIC_FAULT_H */
