/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user: the qrnic engine served to a QEMU that attaches it with
 * -device vfio-user-pci (docs/vfio-user.md).  Two threads: the client's,
 * which reads vfio-user messages (register, doorbell and config accesses,
 * DMA maps) and sends their replies, and the device's, which takes frames
 * from the link, runs the engine's timer, its deferred work (a doorbell's
 * larger transmit work among it) and the control socket.  Each holds the
 * device's lock while it touches the engine, the link or the server's
 * tables, never while it waits on a socket.
 */
#ifndef QRNIC_VU_H
#define QRNIC_VU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "qrnic_engine.h"
#include "qrnic_vu_link.h"
#include "qrnic_vu_pci.h"
#include "vfu_server.h"

struct qvu_config {
    const char *socket;         /* the vfio-user socket to listen on */
    const char *control;        /* the control socket (NULL: none) */
    const char *link;           /* qrnic_vu_link.h's spec */
    uint8_t mac[6];
    uint32_t db_pages;
    uint64_t qmem_size;
    uint32_t obj_max[QRNIC_OBJ_COUNT];
    uint32_t mtt_max;
    uint32_t ctx_max[QRNIC_CTX_RES_COUNT];
    uint64_t ctx_max_qmem;
    uint32_t win_kib;
    uint32_t win_pkts;
    uint32_t db_work;
    struct qrnic_fault_cfg fault;
    bool verbose;
};

struct qvu {
    struct qvu_config cfg;
    struct qrnic_engine eng;
    struct vfu_server *srv;
    struct qvu_pci pci;
    struct qvu_link *link;
    int timer_fd;
    bool work_pending;
    pthread_mutex_t lock;       /* the device's: see above */
    int wake_fd;                /* an eventfd the device thread polls */
    bool wake_posted;           /* written to, not yet read */
    short link_polled;          /* what the device thread polls the link for */
    bool quit;                  /* the device thread is to end */
    pthread_t client_thread, device_thread;
    bool threads_started;
    FILE *trace;                /* qrnic_vu_trace.c; NULL: off */
    struct qvu_thread_stats {
        uint64_t messages;      /* client: vfio-user messages handled */
        uint64_t doorbells;     /* client: BAR2 writes among them */
        uint64_t wakes;         /* device: the client's thread woke it */
        uint64_t frames_in;     /* frames the engine took from the link */
        uint64_t frames_out;    /* frames it sent */
    } stats;
    int msix_fd[QRNIC_NUM_MSIX];        /* the server's eventfds, or -1 */
    int qmem_fd;
    uint8_t *qmem;
    /* A frame the engine could not take yet (rx_ready delivers it). */
    uint8_t rx_frame[QVU_LINK_MAX_FRAME];
    int rx_len;
    bool in_rx, rx_again;       /* qvu_device_rx() running, asked again */
    uint64_t guest_errors;
    bool link_down;             /* set_link off: frames dropped both ways */
};

/* The control socket (qrnic_vu_ctl.c): one client, a line at a time. */
struct qvu_ctl {
    int listen_fd;
    int fd;
    char buf[512];
    size_t len;
};

/* qrnic_vu_main.c: what each thread did and the CPU time it took. */
void qvu_thread_stats(const struct qvu *q, char *buf, size_t len);

/* qrnic_vu_trace.c: events in QEMU's log trace format, under the lock. */
int qvu_trace_open(struct qvu *q, const char *path);
void qvu_trace_close(struct qvu *q);
void qvu_trace_event(struct qvu *q, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define qvu_trace(q, event, ...) \
    do { \
        if ((q)->trace) { \
            qvu_trace_event(q, event, __VA_ARGS__); \
        } \
    } while (0)

/* qrnic_vu_props.c: -device qrnic's properties. */
void qvu_config_defaults(struct qvu_config *c);
/* Set one; running: only those QEMU can change on a running device. */
int qvu_prop_set(struct qvu *q, const char *name, const char *value,
                 bool running, char *err, size_t errlen);
/* Their names (those marked * may change at run time). */
void qvu_props_list(FILE *f);

int qvu_ctl_open(struct qvu_ctl *c, const char *path);
void qvu_ctl_close(struct qvu_ctl *c);
int qvu_ctl_poll_fd(const struct qvu_ctl *c);
/* Input on the poll fd: accept a client, or run its complete lines. */
void qvu_ctl_ready(struct qvu *q, struct qvu_ctl *c);

/* qrnic_vu_device.c: the device behind the vfio-user server. */
int qvu_device_init(struct qvu *q, char *err, size_t errlen);
void qvu_device_fini(struct qvu *q);
/* Frames from the link while the engine takes them. */
void qvu_device_rx(struct qvu *q);
/* What the device thread is to poll the link for. */
short qvu_device_link_events(const struct qvu *q);
/*
 * After the client's thread changed the device: wake the device thread
 * if it has work now or polls the link for the wrong events.
 */
void qvu_device_kick(struct qvu *q);
/* Wake the device thread (to end it, or to look again). */
void qvu_device_wake(struct qvu *q);
void qvu_device_timer(struct qvu *q);
void qvu_device_work(struct qvu *q);
/* set_link: the engine sees the link change; frames stop both ways. */
void qvu_device_set_link(struct qvu *q, bool up);

#endif
