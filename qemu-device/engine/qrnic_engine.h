/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the parts of the device model that need no QEMU headers
 * (admin command processor, object tables, event queues, Ethernet rings,
 * RoCEv2 receive checks).  Plain C99; it reaches the outside world only
 * through struct qrnic_engine_ops, so the same code runs inside QEMU and
 * in the host unit tests.
 *
 * Nothing the guest supplies is trusted: every index, address, length and
 * handle is range checked before use, and every guest memory access goes
 * through ops->dma_read/dma_write, which may fail.
 */
#ifndef QRNIC_ENGINE_H
#define QRNIC_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "qrnic_hw.h"

#define QRNIC_ENG_MAX_EQ            QRNIC_NUM_MSIX
#define QRNIC_ENG_GID_TBL_LEN       128
#define QRNIC_ENG_MAX_PD            1024
#define QRNIC_ENG_MIN_DB_PAGES      2
#define QRNIC_ENG_MAX_DB_PAGES      1024
#define QRNIC_ENG_DEFAULT_MTU       1500
#define QRNIC_ENG_MIN_MTU           68

/* Sizes of the guest-visible structures (checked against the header). */
#define QRNIC_CMD_SIZE              64
#define QRNIC_ACQE_SIZE             32
#define QRNIC_EQE_SIZE              16
#define QRNIC_ETH_DESC_SIZE         16

struct qrnic_engine_ops {
    /* 0 on success, -1 if [addr, addr + len) is not guest memory. */
    int (*dma_read)(void *opaque, uint64_t addr, void *buf, size_t len);
    int (*dma_write)(void *opaque, uint64_t addr, const void *buf,
                     size_t len);
    /* Vector is always < QRNIC_NUM_MSIX. */
    void (*raise_irq)(void *opaque, unsigned int vector);
    void (*tx_frame)(void *opaque, const uint8_t *frame, size_t len);
    /* Optional (may be NULL): observers for tracing and NIC info. */
    void (*cmd_done)(void *opaque, uint8_t opcode, uint16_t cookie,
                     uint8_t status, uint32_t result0, uint32_t result1);
    void (*mac_changed)(void *opaque, const uint8_t *mac);
};

/* A ring with free running 16-bit producer/consumer indices. */
struct qrnic_ring {
    uint64_t base;
    uint8_t log_depth;
    uint16_t pi;
    uint16_t ci;
};

struct qrnic_eq {
    bool valid;
    bool async;
    uint16_t vector;
    struct qrnic_ring ring;     /* pi: device, ci: driver */
};

struct qrnic_gid_entry {
    bool valid;
    uint32_t type;
    uint8_t gid[16];
};

struct qrnic_eth_state {
    bool active;
    uint16_t vector;
    struct qrnic_ring tx;       /* pi: driver doorbell, ci: device */
    struct qrnic_ring rx;
};

struct qrnic_admin_queue {
    uint64_t sq_base;
    uint64_t cq_base;
    uint8_t log_depth;
    uint16_t sq_pi;             /* last accepted doorbell */
    uint16_t sq_ci;             /* next command to execute */
    uint16_t cq_pi;             /* next completion slot */
    uint16_t cq_ci;             /* driver's consumer index */
};

struct qrnic_stats {
    uint32_t rx_drop;           /* STAT_RX_DROP: RoCE frames dropped */
    uint32_t bad_db;            /* STAT_BAD_DB */
    uint64_t rx_roce;
    uint64_t rx_icrc_err;
    uint64_t rx_frames;
    uint64_t rx_filtered;
    uint64_t rx_too_big;
    uint64_t tx_frames;
    uint64_t tx_err;
    uint64_t dma_err;
    uint64_t eq_overflow;
    uint64_t admin_cmds;
};

struct qrnic_engine {
    const struct qrnic_engine_ops *ops;
    void *opaque;
    uint32_t db_pages;          /* fixed at init: 2..1024 */
    uint8_t perm_mac[6];

    bool ready;
    bool link_up;
    uint8_t mac[6];
    uint32_t mtu;

    struct qrnic_admin_queue aq;
    struct qrnic_eq eq[QRNIC_ENG_MAX_EQ];
    int async_eqn;              /* -1: none */
    struct qrnic_gid_entry gid[QRNIC_ENG_GID_TBL_LEN];
    bool uctx_valid[QRNIC_ENG_MAX_DB_PAGES];
    uint32_t uctx_pds[QRNIC_ENG_MAX_DB_PAGES];
    bool pd_valid[QRNIC_ENG_MAX_PD];
    uint32_t pd_uctx[QRNIC_ENG_MAX_PD];
    struct qrnic_eth_state eth;
    struct qrnic_stats stats;

    uint8_t frame[QRNIC_ETH_MAX_FRAME];     /* TX bounce buffer */
};

/* What a doorbell asks the caller to do (work off the vCPU thread). */
enum qrnic_db_work {
    QRNIC_DB_WORK_NONE,
    QRNIC_DB_WORK_ETH_TX,       /* schedule qrnic_eth_tx_process() */
    QRNIC_DB_WORK_ETH_RX,       /* RX buffers posted: flush queued frames */
};

/* qrnic_engine.c: life cycle, doorbells, events */
void qrnic_engine_init(struct qrnic_engine *e,
                       const struct qrnic_engine_ops *ops, void *opaque,
                       uint32_t db_pages, const uint8_t *mac);
void qrnic_engine_reset(struct qrnic_engine *e);
uint32_t qrnic_engine_enable(struct qrnic_engine *e, uint64_t sq_base,
                             uint64_t cq_base, uint32_t log_depth);
void qrnic_engine_set_link(struct qrnic_engine *e, bool up);
bool qrnic_engine_doorbell(struct qrnic_engine *e, uint32_t page,
                           uint32_t offset, uint64_t val,
                           enum qrnic_db_work *work);
bool qrnic_eq_post(struct qrnic_engine *e, uint32_t eqn, uint8_t type,
                   uint32_t data0, uint32_t data1);
void qrnic_engine_raise(struct qrnic_engine *e, unsigned int vector);
bool qrnic_ring_advance_ok(const struct qrnic_ring *r, uint16_t new_pi,
                           uint16_t consumer);

/* qrnic_aq.c: admin queue ring */
bool qrnic_aq_doorbell(struct qrnic_engine *e, uint32_t pi);
bool qrnic_aq_cq_doorbell(struct qrnic_engine *e, uint32_t ci);
bool qrnic_aq_pending(const struct qrnic_engine *e);
void qrnic_aq_process(struct qrnic_engine *e);

/* qrnic_cmd.c: one admin command */
uint8_t qrnic_cmd_exec(struct qrnic_engine *e, const uint8_t *cmd,
                       uint32_t *result0, uint32_t *result1);
void qrnic_cmd_reset_objects(struct qrnic_engine *e);

/* qrnic_eth.c: Ethernet rings */
void qrnic_eth_tx_process(struct qrnic_engine *e);
bool qrnic_eth_can_rx(const struct qrnic_engine *e);
size_t qrnic_eth_rx(struct qrnic_engine *e, const uint8_t *frame,
                    size_t len);

#endif /* QRNIC_ENGINE_H */
