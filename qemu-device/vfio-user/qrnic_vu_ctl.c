/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's control socket (--control PATH): the few monitor
 * commands QEMU offers for a NIC, in the monitor's own text form, so that
 * scripts (tests/vm/hmp) drive both the same way:
 *
 *   set_link NAME on|off                 the link goes down (frames are
 *                                        dropped both ways) or up
 *   qom-set PATH PROPERTY VALUE          a property QEMU lets a running
 *                                        device change (x-*-ppm,
 *                                        x-fault-seed, window-kib, ...)
 *   info link | info threads | help
 *   trace FILE | trace off               the server's trace events
 *                                        (qrnic_vu_trace.c) to FILE
 *
 * NAME and PATH are not checked: the server has one NIC.  One client at a
 * time; each command is echoed, and its answer followed by the "(qemu) "
 * prompt, as the monitor does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "qrnic_vu.h"

#define PROMPT "(qemu) "

int qvu_ctl_open(struct qvu_ctl *c, const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };

    c->listen_fd = -1;
    c->fd = -1;
    c->len = 0;
    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    unlink(path);
    c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->listen_fd < 0 ||
        bind(c->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(c->listen_fd, 1)) {
        return -1;
    }
    return 0;
}

void qvu_ctl_close(struct qvu_ctl *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    if (c->listen_fd >= 0) {
        close(c->listen_fd);
    }
    c->fd = c->listen_fd = -1;
}

int qvu_ctl_poll_fd(const struct qvu_ctl *c)
{
    return c->fd >= 0 ? c->fd : c->listen_fd;
}

/* A client that does not read its answers is dropped, never waited for. */
static void say(struct qvu_ctl *c, const char *text)
{
    size_t len = strlen(text);

    if (send(c->fd, text, len, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)len) {
        close(c->fd);
        c->fd = -1;
    }
}

static void run_command(struct qvu *q, struct qvu_ctl *c, char *line)
{
    char *argv[5], *save = NULL, *tok;
    char err[160], out[320];
    int argc = 0;

    for (tok = strtok_r(line, " \t\r", &save); tok && argc < 5;
         tok = strtok_r(NULL, " \t\r", &save)) {
        argv[argc++] = tok;
    }
    if (!argc) {
        return;
    }
    if (!strcmp(argv[0], "set_link") && argc == 3 &&
        (!strcmp(argv[2], "on") || !strcmp(argv[2], "off"))) {
        qvu_device_set_link(q, !strcmp(argv[2], "on"));
        return;
    }
    if (!strcmp(argv[0], "qom-set") && argc == 4) {
        if (qvu_prop_set(q, argv[2], argv[3], true, err, sizeof(err))) {
            snprintf(out, sizeof(out), "Error: %s\r\n", err);
            say(c, out);
        }
        return;
    }
    if (!strcmp(argv[0], "info") && argc == 2 && !strcmp(argv[1], "link")) {
        snprintf(out, sizeof(out), "link %s, %llu frames dropped\r\n",
                 q->link_down ? "down" : "up",
                 (unsigned long long)qvu_link_dropped(q->link));
        say(c, out);
        return;
    }
    if (!strcmp(argv[0], "info") && argc == 2 &&
        !strcmp(argv[1], "threads")) {
        qvu_thread_stats(q, out, sizeof(out) - 2);
        strcat(out, "\r\n");
        say(c, out);
        return;
    }
    if (!strcmp(argv[0], "trace") && argc == 2) {
        if (!strcmp(argv[1], "off")) {
            qvu_trace_close(q);
        } else if (qvu_trace_open(q, argv[1])) {
            snprintf(out, sizeof(out), "Error: %s: %s\r\n", argv[1],
                     strerror(errno));
            say(c, out);
        }
        return;
    }
    say(c, "set_link NAME on|off\r\nqom-set PATH PROPERTY VALUE\r\n"
        "info link\r\ninfo threads\r\ntrace FILE|off\r\n");
}

void qvu_ctl_ready(struct qvu *q, struct qvu_ctl *c)
{
    ssize_t n;
    char *nl;

    if (c->fd < 0) {
        c->fd = accept4(c->listen_fd, NULL, NULL,
                        SOCK_CLOEXEC | SOCK_NONBLOCK);
        c->len = 0;
        if (c->fd >= 0) {
            say(c, "qrnic-vfio-user control\r\n" PROMPT);
        }
        return;
    }
    n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len,
             MSG_DONTWAIT);
    if (n <= 0) {
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            close(c->fd);
            c->fd = -1;
        }
        return;
    }
    c->len += (size_t)n;
    c->buf[c->len] = '\0';
    while (c->fd >= 0 && (nl = strchr(c->buf, '\n'))) {
        *nl = '\0';
        say(c, c->buf);         /* the monitor echoes what it reads */
        if (c->fd >= 0) {
            say(c, "\r\n");
            run_command(q, c, c->buf);
        }
        if (c->fd >= 0) {
            say(c, PROMPT);
        }
        c->len -= (size_t)(nl + 1 - c->buf);
        memmove(c->buf, nl + 1, c->len + 1);
    }
    if (c->len == sizeof(c->buf) - 1 && c->fd >= 0) {
        say(c, "line too long\r\n");
        close(c->fd);
        c->fd = -1;
    }
}
