/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's trace: a line per event, in the form of QEMU's "log"
 * trace backend (thread id @ wall-clock seconds . microseconds : event and
 * its arguments), so the server's events and QEMU's (vfio_user_region_rw,
 * vfio_msi_interrupt) merge into one timeline.  Turned on and off from the
 * control socket (`trace FILE`, `trace off`); every call runs under the
 * device's lock.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>
#include "qrnic_vu.h"

int qvu_trace_open(struct qvu *q, const char *path)
{
    FILE *f = fopen(path, "we");

    if (!f) {
        return -1;
    }
    qvu_trace_close(q);
    q->trace = f;
    return 0;
}

void qvu_trace_close(struct qvu *q)
{
    if (q->trace) {
        fclose(q->trace);
        q->trace = NULL;
    }
}

void qvu_trace_event(struct qvu *q, const char *event, const char *fmt, ...)
{
    struct timeval tv;
    va_list ap;

    gettimeofday(&tv, NULL);
    fprintf(q->trace, "%d@%ld.%06ld:%s ", gettid(), (long)tv.tv_sec,
            (long)tv.tv_usec, event);
    va_start(ap, fmt);
    vfprintf(q->trace, fmt, ap);
    va_end(ap);
    fputc('\n', q->trace);
}
