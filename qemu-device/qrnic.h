/*
 * QEMU qrnic: emulated PCIe RoCEv2 RDMA NIC - device state
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_NET_QRNIC_H
#define HW_NET_QRNIC_H

#include "hw/pci/pci_device.h"
#include "net/net.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "engine/qrnic_engine.h"
#include "qrnic_compat.h"

#define TYPE_QRNIC "qrnic"
OBJECT_DECLARE_SIMPLE_TYPE(QrnicState, QRNIC)

#define QRNIC_DEFAULT_DB_PAGES  1024
/*
 * Queue memory for an NVMe/RDMA target serving 8 hosts of 8 I/O queues
 * at nvmet's default sizes (docs/design.md, "Queue memory"); host pages
 * are spent only where queues are.  Queue offsets are 32 bit.
 */
#define QRNIC_DEFAULT_QMEM_SIZE (256 * MiB)
#define QRNIC_MIN_QMEM_SIZE     (64 * KiB)
#define QRNIC_MAX_QMEM_SIZE     (2 * GiB)

struct QrnicState {
    PCIDevice parent_obj;

    MemoryRegion bar0;          /* container: regs + MSI-X table/PBA */
    MemoryRegion regs;
    MemoryRegion db;
    MemoryRegion qmem;

    NICState *nic;
    NICConf conf;
    uint32_t db_pages;
    uint64_t qmem_size;
    /* max-qps, max-srqs, ...: how many of each kind (enum qrnic_obj_kind) */
    uint32_t obj_max[QRNIC_OBJ_COUNT];
    uint32_t mtt_max;           /* max-mr-pages: all regions' page addresses */
    /* ctx-max-*: one user context's limits (0: the engine's default). */
    uint32_t ctx_max[QRNIC_CTX_RES_COUNT];
    uint64_t ctx_max_qmem;      /* bytes, for ctx_max[QMEM_PAGES] */
    uint32_t db_work;           /* x-db-work: SQ doorbell work at once */
    uint32_t win_kib;           /* window-kib, */
    uint32_t win_pkts;          /* x-window-pkts: the window's caps */
    struct qrnic_fault_cfg fault;   /* x-*-ppm, x-fault-seed */

    /* All guarded by the device's re-entrancy guard. */
    QEMUBH *work_bh;            /* qrnic_engine_work() */
    QEMUBH *timer_bh;           /* qrnic_engine_timer() */
    QEMUBH *link_bh;            /* qrnic_engine_set_link() */
    QEMUTimer *rdma_timer;      /* schedules timer_bh */
    bool qmem_discard_failed;   /* queue memory pages cannot be given back */
    uint64_t tx_count;          /* frames sent, received: for the traces */
    uint64_t rx_count;

    struct qrnic_engine eng;
};

/* qrnic_regs.c */
extern const MemoryRegionOps qrnic_regs_ops;
extern const MemoryRegionOps qrnic_db_ops;

/* qrnic_ops.c */
extern const struct qrnic_engine_ops qrnic_engine_glue_ops;
void qrnic_work_bh(void *opaque);
void qrnic_timer_cb(void *opaque);
void qrnic_timer_bh(void *opaque);
/* Trace a frame sent or received (BTH opcode, QP and PSN if RoCE). */
void qrnic_trace_frame(bool rx, const uint8_t *frame, size_t len);

/* qrnic_fault_props.c */
extern PropertyInfo qrnic_prop_ppm;
extern PropertyInfo qrnic_prop_fault_seed;
extern PropertyInfo qrnic_prop_db_work;
extern PropertyInfo qrnic_prop_win_kib;
extern PropertyInfo qrnic_prop_win_pkts;
void qrnic_fault_props_init(void);
bool qrnic_fault_realize(QrnicState *s, Error **errp);

/* qrnic_net.c */
extern NetClientInfo qrnic_net_info;
void qrnic_link_bh(void *opaque);
void qrnic_rx_flush(QrnicState *s);

/* window-kib: the congestion window's byte cap (docs/hardware.md). */
#define QRNIC_WINDOW_DEFAULT_KIB (QRNIC_ENG_WINDOW_BYTES / 1024)
#define QRNIC_WINDOW_MIN_KIB    16

#endif /* HW_NET_QRNIC_H */
