/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user: options and the two threads' loops (see qrnic_vu.h).
 *
 *   qrnic-vfio-user --socket PATH --link SPEC [--mac MAC] [PROP=VALUE...]
 *
 * PROP are the in-QEMU device's properties of the same names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
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

/*
 * One message from the client; false if the client is to go.  The device's
 * lock is held while the server handles it, not while it is read or its
 * reply sent.
 */
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
    pthread_mutex_lock(&q->lock);
    q->stats.messages++;
    r = vfu_server_handle(q->srv, m.buf, m.len, m.fds, m.nfds,
                          m.fds_dropped, &reply);
    qvu_device_kick(q);
    pthread_mutex_unlock(&q->lock);
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

/* The client's thread: one client at a time, a message at a time. */
static void serve_clients(struct qvu *q, int listen_fd)
{
    struct pollfd p;
    int client = -1;

    while (!stop) {
        p = (struct pollfd){ client >= 0 ? client : listen_fd, POLLIN, 0 };
        /* A signal ends the wait; the timeout only bounds a missed one. */
        if (poll(&p, 1, 1000) < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("qrnic-vfio-user: poll");
            break;
        }
        if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) {
            continue;
        }
        if (client < 0) {
            client = accept_client(listen_fd);
        } else if (!serve_one(q, client)) {
            close(client);
            client = -1;
            pthread_mutex_lock(&q->lock);
            vfu_server_disconnect(q->srv);
            qrnic_engine_reset(&q->eng);
            qvu_device_kick(q);
            pthread_mutex_unlock(&q->lock);
        }
    }
    if (client >= 0) {
        close(client);
    }
}

enum { PFD_LINK, PFD_TIMER, PFD_CTL, PFD_WAKE, PFD_COUNT };

struct device_thread_arg {
    struct qvu *q;
    struct qvu_ctl *ctl;
};

/* The device's thread: the link, the timer, deferred work, the control. */
static void *device_thread(void *opaque)
{
    struct device_thread_arg *a = opaque;
    struct qvu *q = a->q;
    struct pollfd p[PFD_COUNT];
    uint64_t n;
    int timeout, r;

    pthread_mutex_lock(&q->lock);
    while (!q->quit) {
        if (q->work_pending) {
            qvu_device_work(q);
        }
        q->link_polled = qvu_device_link_events(q);
        p[PFD_LINK] = (struct pollfd){
            q->link_polled ? qvu_link_poll_fd(q->link) : -1,
            q->link_polled, 0 };
        p[PFD_TIMER] = (struct pollfd){ q->timer_fd, POLLIN, 0 };
        p[PFD_CTL] = (struct pollfd){ qvu_ctl_poll_fd(a->ctl), POLLIN, 0 };
        p[PFD_WAKE] = (struct pollfd){ q->wake_fd, POLLIN, 0 };
        timeout = q->work_pending ? 0 : qvu_link_timeout_ms(q->link);
        pthread_mutex_unlock(&q->lock);
        r = poll(p, PFD_COUNT, timeout);
        pthread_mutex_lock(&q->lock);
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("qrnic-vfio-user: poll");
            stop = 1;
            break;
        }
        if (p[PFD_WAKE].revents & POLLIN) {
            if (read(q->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN) {
                perror("qrnic-vfio-user: eventfd");
            }
            q->wake_posted = false;
            q->stats.wakes++;
        }
        qvu_link_tick(q->link);
        if (p[PFD_CTL].revents & (POLLIN | POLLHUP | POLLERR)) {
            qvu_ctl_ready(q, a->ctl);
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
    }
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

/* The device thread takes no signal: SIGTERM and SIGINT end the client's. */
static int start_device_thread(struct qvu *q, struct device_thread_arg *a)
{
    sigset_t block, old;
    int r;

    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    pthread_mutex_lock(&q->lock);
    q->client_thread = pthread_self();
    r = pthread_create(&q->device_thread, NULL, device_thread, a);
    q->threads_started = !r;
    pthread_mutex_unlock(&q->lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return r;
}

static void stop_device_thread(struct qvu *q)
{
    char stats[320];

    pthread_mutex_lock(&q->lock);
    q->quit = true;
    qvu_device_wake(q);
    qvu_thread_stats(q, stats, sizeof(stats));
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->device_thread, NULL);
    fprintf(stderr, "qrnic-vfio-user: %s\n", stats);
}

static double thread_cpu_s(pthread_t t)
{
    struct timespec ts;
    clockid_t clk;

    if (pthread_getcpuclockid(t, &clk) || clock_gettime(clk, &ts)) {
        return 0;
    }
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What each thread did, its CPU time, and that time per message or frame. */
void qvu_thread_stats(const struct qvu *q, char *buf, size_t len)
{
    const struct qvu_thread_stats *s = &q->stats;
    double client = 0, device = 0;

    if (q->threads_started) {
        client = thread_cpu_s(q->client_thread);
        device = thread_cpu_s(q->device_thread);
    }
    snprintf(buf, len,
             "client thread: %llu messages (%llu doorbells), %.3f s CPU, "
             "%.1f us per message; device thread: %llu frames in, %llu "
             "out, %llu wakes, %.3f s CPU, %.1f us per frame",
             (unsigned long long)s->messages,
             (unsigned long long)s->doorbells, client,
             s->messages ? client * 1e6 / (double)s->messages : 0.0,
             (unsigned long long)s->frames_in,
             (unsigned long long)s->frames_out,
             (unsigned long long)s->wakes, device,
             s->frames_in + s->frames_out ?
             device * 1e6 / (double)(s->frames_in + s->frames_out) : 0.0);
}

int main(int argc, char **argv)
{
    static struct qvu q;
    struct qvu_ctl ctl = { .listen_fd = -1, .fd = -1 };
    struct device_thread_arg dev_arg;
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
    dev_arg = (struct device_thread_arg){ &q, &ctl };
    rc = start_device_thread(&q, &dev_arg);
    if (rc) {
        fprintf(stderr, "qrnic-vfio-user: thread: %s\n", strerror(rc));
        rc = 1;
        close(listen_fd);
        goto out;
    }
    serve_clients(&q, listen_fd);
    stop_device_thread(&q);
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
