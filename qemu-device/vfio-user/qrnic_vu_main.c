/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user: options and the one thread's loop (see qrnic_vu.h).
 *
 *   qrnic-vfio-user --socket PATH --link SPEC [--mac MAC] [PROP=VALUE...]
 *
 * PROP are the in-QEMU device's properties of the same names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "qrnic_vu.h"
#include "vfu_socket.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: qrnic-vfio-user --socket PATH --link SPEC [--mac MAC] "
            "[--control PATH] [-v] [PROP=VALUE...]\n"
            "  --socket PATH   the vfio-user socket QEMU connects to "
            "(-device vfio-user-pci,socket=PATH)\n"
            "  --link SPEC     stream,path=P,server=on|off; "
            "dgram,local=IP:PORT,remote=IP:PORT; dgram,fd=N\n"
            "  --mac MAC       the NIC's MAC (52:54:00:12:34:56)\n"
            "  --control PATH  a socket taking the monitor's set_link and "
            "qom-set commands\n"
            "  -v              log MSI-X write failures\n"
            "PROP (as -device qrnic's; numbers are decimal, sizes take K, M "
            "or G; * also at run time):");
    qvu_props_list(f);
}

static int parse_mac(const char *s, uint8_t *mac)
{
    unsigned int b[6];
    char tail;
    int i;

    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4],
               &b[5], &tail) != 6) {
        return -1;
    }
    for (i = 0; i < 6; i++) {
        if (b[i] > 0xff) {
            return -1;
        }
        mac[i] = (uint8_t)b[i];
    }
    return mac[0] & 1 ? -1 : 0;     /* not a multicast address */
}

static int parse_args(int argc, char **argv, struct qvu *q)
{
    struct qvu_config *c = &q->cfg;
    char err[160];
    int i;

    qvu_config_defaults(c);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "-v")) {
            c->verbose = true;
        } else if (!strcmp(a, "--socket") && i + 1 < argc) {
            c->socket = argv[++i];
        } else if (!strcmp(a, "--link") && i + 1 < argc) {
            c->link = argv[++i];
        } else if (!strcmp(a, "--control") && i + 1 < argc) {
            c->control = argv[++i];
        } else if (!strcmp(a, "--mac") && i + 1 < argc) {
            if (parse_mac(argv[++i], c->mac)) {
                fprintf(stderr, "qrnic-vfio-user: bad MAC '%s'\n", argv[i]);
                return -1;
            }
        } else if (eq && eq != a && eq - a < 32) {
            char name[32];

            memcpy(name, a, eq - a);
            name[eq - a] = '\0';
            if (qvu_prop_set(q, name, eq + 1, false, err, sizeof(err))) {
                fprintf(stderr, "qrnic-vfio-user: %s\n", err);
                return -1;
            }
        } else {
            fprintf(stderr, "qrnic-vfio-user: unknown argument '%s'\n", a);
            return -1;
        }
    }
    if (!c->socket || !c->link) {
        usage(stderr);
        return -1;
    }
    /* BAR sizes are powers of two. */
    if ((c->qmem_size & (c->qmem_size - 1)) || c->ctx_max_qmem > c->qmem_size ||
        (c->db_pages & (c->db_pages - 1))) {
        fprintf(stderr, "qrnic-vfio-user: qmem-size and db-pages must be "
                "powers of two, qmem-size at least ctx-max-qmem\n");
        return -1;
    }
    return 0;
}

static int listen_on(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    unlink(path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
        listen(fd, 1)) {
        if (fd >= 0) {
            close(fd);
        }
        return -1;
    }
    return fd;
}

/* One message from the client; false if the client is to go. */
static bool serve_one(struct qvu *q, int client)
{
    struct vfu_msg m;
    struct vfu_reply reply;
    int r;

    r = vfu_recv_msg(client, &m, vfu_server_max_msg_size(q->srv));
    if (r <= 0) {
        if (r < 0) {
            fprintf(stderr, "qrnic-vfio-user: client message: %s\n",
                    strerror(-r));
        }
        vfu_msg_release(&m);
        return false;
    }
    r = vfu_server_handle(q->srv, m.buf, m.len, m.fds, m.nfds,
                          m.fds_dropped, &reply);
    m.nfds = 0;         /* the server took them */
    vfu_msg_release(&m);
    if (r == -EPROTO || r == -EBADMSG) {
        return false;
    }
    if (reply.len &&
        vfu_send_msg(client, reply.buf, reply.len, reply.fds, reply.nfds)) {
        return false;
    }
    return true;
}

/*
 * A message is read and its reply sent in one go: a client that stops in
 * the middle of either is cut off after CLIENT_STALL_S, never waited for.
 */
#define CLIENT_STALL_S 2

static int accept_client(int listen_fd)
{
    struct timeval tv = { .tv_sec = CLIENT_STALL_S };
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);

    if (fd >= 0 &&
        (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
         setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

enum { PFD_CLIENT, PFD_LINK, PFD_TIMER, PFD_CTL, PFD_COUNT };

static void run(struct qvu *q, int listen_fd, struct qvu_ctl *ctl)
{
    struct pollfd p[PFD_COUNT];
    int client = -1, timeout;

    while (!stop) {
        if (q->work_pending) {
            qvu_device_work(q);
        }
        p[PFD_CLIENT] = (struct pollfd){ client >= 0 ? client : listen_fd,
                                         POLLIN, 0 };
        p[PFD_LINK] = (struct pollfd){ qvu_link_poll_fd(q->link),
                                       qvu_link_poll_events(q->link), 0 };
        if (q->rx_len) {
            /* Held until rx_ready: not even a hang-up wakes us for it. */
            p[PFD_LINK].events &= (short)~POLLIN;
            if (!p[PFD_LINK].events) {
                p[PFD_LINK].fd = -1;
            }
        }
        p[PFD_TIMER] = (struct pollfd){ q->timer_fd, POLLIN, 0 };
        p[PFD_CTL] = (struct pollfd){ qvu_ctl_poll_fd(ctl), POLLIN, 0 };
        timeout = q->work_pending ? 0 : qvu_link_timeout_ms(q->link);
        if (poll(p, PFD_COUNT, timeout) < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("qrnic-vfio-user: poll");
            break;
        }
        qvu_link_tick(q->link);
        if (p[PFD_CTL].revents & (POLLIN | POLLHUP | POLLERR)) {
            qvu_ctl_ready(q, ctl);
        }
        if (p[PFD_TIMER].revents & POLLIN) {
            qvu_device_timer(q);
        }
        if (p[PFD_LINK].revents & POLLOUT) {
            qvu_link_flush(q->link);
        }
        if (p[PFD_LINK].revents & (POLLIN | POLLHUP | POLLERR)) {
            qvu_device_rx(q);
        }
        if (p[PFD_CLIENT].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (client < 0) {
                client = accept_client(listen_fd);
            } else if (!serve_one(q, client)) {
                close(client);
                client = -1;
                vfu_server_disconnect(q->srv);
                qrnic_engine_reset(&q->eng);
            }
        }
    }
    if (client >= 0) {
        close(client);
    }
}

int main(int argc, char **argv)
{
    static struct qvu q;
    struct qvu_ctl ctl = { .listen_fd = -1, .fd = -1 };
    char err[256];
    int listen_fd, rc = 1;
    struct sigaction sa = { .sa_handler = on_signal };

    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    if (parse_args(argc, argv, &q)) {
        return 2;
    }
    if (qvu_device_init(&q, err, sizeof(err))) {
        fprintf(stderr, "qrnic-vfio-user: %s\n", err);
        goto out;
    }
    listen_fd = listen_on(q.cfg.socket);
    if (listen_fd < 0) {
        fprintf(stderr, "qrnic-vfio-user: listening on %s: %s\n",
                q.cfg.socket, strerror(errno));
        goto out;
    }
    if (q.cfg.control && qvu_ctl_open(&ctl, q.cfg.control)) {
        fprintf(stderr, "qrnic-vfio-user: control socket %s: %s\n",
                q.cfg.control, strerror(errno));
        close(listen_fd);
        goto out;
    }
    fprintf(stderr, "qrnic-vfio-user: listening on %s, link %s\n",
            q.cfg.socket, q.cfg.link);
    run(&q, listen_fd, &ctl);
    close(listen_fd);
    unlink(q.cfg.socket);
    rc = 0;
out:
    qvu_ctl_close(&ctl);
    if (q.cfg.control) {
        unlink(q.cfg.control);
    }
    qvu_device_fini(&q);
    return rc;
}
