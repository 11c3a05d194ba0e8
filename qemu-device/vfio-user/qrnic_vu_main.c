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
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "qrnic_vu.h"
#include "vfu_socket.h"

#define DEFAULT_DB_PAGES    1024
#define DEFAULT_QMEM_SIZE   (256ull << 20)
#define MIN_QMEM_SIZE       (64ull << 10)
#define MAX_QMEM_SIZE       (2ull << 30)
#define MIN_WINDOW_KIB      16
#define MAX_WINDOW_KIB      4096

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

struct prop {
    const char *name;
    size_t offset;      /* in struct qvu_config */
    int bytes;          /* 4 or 8 */
    uint64_t min, max;
};

#define P32(n, f, lo, hi) { n, offsetof(struct qvu_config, f), 4, lo, hi }
#define P64(n, f, lo, hi) { n, offsetof(struct qvu_config, f), 8, lo, hi }

static const struct prop props[] = {
    P32("db-pages", db_pages, QRNIC_ENG_MIN_DB_PAGES, QRNIC_ENG_MAX_DB_PAGES),
    P64("qmem-size", qmem_size, MIN_QMEM_SIZE, MAX_QMEM_SIZE),
    P32("max-qps", obj_max[QRNIC_OBJ_QP], 1, QRNIC_ENG_MAX_OBJECTS),
    P32("max-cqs", obj_max[QRNIC_OBJ_CQ], 1, QRNIC_ENG_MAX_OBJECTS),
    P32("max-srqs", obj_max[QRNIC_OBJ_SRQ], 1, QRNIC_ENG_MAX_OBJECTS),
    P32("max-keys", obj_max[QRNIC_OBJ_KEY], 1, QRNIC_ENG_MAX_OBJECTS),
    P32("max-pds", obj_max[QRNIC_OBJ_PD], 1, QRNIC_ENG_MAX_OBJECTS),
    P32("max-mr-pages", mtt_max, 1, QRNIC_ENG_MAX_MTT),
    P32("ctx-max-pds", ctx_max[QRNIC_CTX_PD], 0, UINT32_MAX),
    P32("ctx-max-cqs", ctx_max[QRNIC_CTX_CQ], 0, UINT32_MAX),
    P32("ctx-max-qps", ctx_max[QRNIC_CTX_QP], 0, UINT32_MAX),
    P32("ctx-max-srqs", ctx_max[QRNIC_CTX_SRQ], 0, UINT32_MAX),
    P32("ctx-max-mrs", ctx_max[QRNIC_CTX_MR], 0, UINT32_MAX),
    P32("ctx-max-mws", ctx_max[QRNIC_CTX_MW], 0, UINT32_MAX),
    P32("ctx-max-mr-pages", ctx_max[QRNIC_CTX_MR_PAGES], 0, UINT32_MAX),
    P64("ctx-max-qmem", ctx_max_qmem, 0, MAX_QMEM_SIZE),
    P32("window-kib", win_kib, MIN_WINDOW_KIB, MAX_WINDOW_KIB),
    P32("x-drop-ppm", fault.drop_ppm, 0, 1000000),
    P32("x-dup-ppm", fault.dup_ppm, 0, 1000000),
    P32("x-reorder-ppm", fault.reorder_ppm, 0, 1000000),
    P32("x-corrupt-ppm", fault.corrupt_ppm, 0, 1000000),
    P64("x-fault-seed", fault.seed, 0, UINT64_MAX),
};

static void usage(FILE *f)
{
    size_t i;

    fprintf(f, "usage: qrnic-vfio-user --socket PATH --link SPEC [--mac MAC] "
            "[-v] [PROP=VALUE...]\n"
            "  --socket PATH  the vfio-user socket QEMU connects to "
            "(-device vfio-user-pci,socket=PATH)\n"
            "  --link SPEC    stream,path=P,server=on|off; "
            "dgram,local=IP:PORT,remote=IP:PORT; dgram,fd=N\n"
            "  --mac MAC      the NIC's MAC (52:54:00:12:34:56)\n"
            "  -v             log MSI-X write failures\n"
            "PROP (as -device qrnic's; numbers are decimal, sizes take K, M "
            "or G):");
    for (i = 0; i < sizeof(props) / sizeof(props[0]); i++) {
        fprintf(f, "%s %s", i % 6 ? "" : "\n ", props[i].name);
    }
    fprintf(f, "\n");
}

/* A decimal number with an optional K, M or G (binary) suffix. */
static int parse_size(const char *s, uint64_t *v)
{
    static const char suffixes[] = "KMG";
    char digits[24];
    size_t len = strlen(s);
    const char *sfx = len ? strchr(suffixes, s[len - 1] & ~0x20) : NULL;
    int shift = 0;

    if (sfx && *sfx) {
        shift = 10 * (int)(sfx - suffixes + 1);
        len--;
    }
    if (!len || len >= sizeof(digits)) {
        return -1;
    }
    memcpy(digits, s, len);
    digits[len] = '\0';
    if (qvu_parse_u64(digits, v) || (shift && *v > (UINT64_MAX >> shift))) {
        return -1;
    }
    *v <<= shift;
    return 0;
}

static int set_prop(struct qvu_config *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t i;
    uint64_t v;

    for (i = 0; eq && i < sizeof(props) / sizeof(props[0]); i++) {
        const struct prop *p = &props[i];
        uint8_t *field = (uint8_t *)c + p->offset;

        if (strlen(p->name) != (size_t)(eq - arg) ||
            strncmp(arg, p->name, eq - arg)) {
            continue;
        }
        if (parse_size(eq + 1, &v) || v < p->min || v > p->max) {
            fprintf(stderr, "qrnic-vfio-user: %s must be in %" PRIu64 "..%"
                    PRIu64 "\n", p->name, p->min, p->max);
            return -1;
        }
        if (p->bytes == 4) {
            uint32_t v32 = (uint32_t)v;

            memcpy(field, &v32, 4);
        } else {
            memcpy(field, &v, 8);
        }
        return 0;
    }
    fprintf(stderr, "qrnic-vfio-user: unknown property '%s'\n", arg);
    return -1;
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

static int parse_args(int argc, char **argv, struct qvu_config *c)
{
    static const uint8_t default_mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
    int i;

    memset(c, 0, sizeof(*c));
    memcpy(c->mac, default_mac, 6);
    c->db_pages = DEFAULT_DB_PAGES;
    c->qmem_size = DEFAULT_QMEM_SIZE;
    c->obj_max[QRNIC_OBJ_QP] = QRNIC_ENG_DEFAULT_QPS;
    c->obj_max[QRNIC_OBJ_CQ] = QRNIC_ENG_DEFAULT_CQS;
    c->obj_max[QRNIC_OBJ_SRQ] = QRNIC_ENG_DEFAULT_SRQS;
    c->obj_max[QRNIC_OBJ_KEY] = QRNIC_ENG_DEFAULT_KEYS;
    c->obj_max[QRNIC_OBJ_PD] = QRNIC_ENG_DEFAULT_PDS;
    c->mtt_max = QRNIC_ENG_DEFAULT_MTT;
    c->win_kib = QRNIC_ENG_WINDOW_BYTES / 1024;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];

        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        } else if (!strcmp(a, "-v")) {
            c->verbose = true;
        } else if ((!strcmp(a, "--socket") || !strcmp(a, "--link") ||
                    !strcmp(a, "--mac")) && i + 1 < argc) {
            const char *v = argv[++i];

            if (a[2] == 's') {
                c->socket = v;
            } else if (a[2] == 'l') {
                c->link = v;
            } else if (parse_mac(v, c->mac)) {
                fprintf(stderr, "qrnic-vfio-user: bad MAC '%s'\n", v);
                return -1;
            }
        } else if (set_prop(c, a)) {
            return -1;
        }
    }
    if (!c->socket || !c->link) {
        usage(stderr);
        return -1;
    }
    if ((c->qmem_size & (c->qmem_size - 1)) || c->ctx_max_qmem > c->qmem_size) {
        fprintf(stderr, "qrnic-vfio-user: qmem-size must be a power of two "
                "and at least ctx-max-qmem\n");
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

enum { PFD_CLIENT, PFD_LINK, PFD_TIMER, PFD_COUNT };

static void run(struct qvu *q, int listen_fd)
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
            p[PFD_LINK].events &= (short)~POLLIN;   /* held: rx_ready */
        }
        p[PFD_TIMER] = (struct pollfd){ q->timer_fd, POLLIN, 0 };
        timeout = q->work_pending ? 0 : qvu_link_timeout_ms(q->link);
        if (poll(p, PFD_COUNT, timeout) < 0) {
            if (errno == EINTR) {
                continue;
            }
            perror("qrnic-vfio-user: poll");
            break;
        }
        qvu_link_tick(q->link);
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
                client = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
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
    char err[256];
    int listen_fd, rc = 1;
    struct sigaction sa = { .sa_handler = on_signal };

    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
    if (parse_args(argc, argv, &q.cfg)) {
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
    fprintf(stderr, "qrnic-vfio-user: listening on %s, link %s\n",
            q.cfg.socket, q.cfg.link);
    run(&q, listen_fd);
    close(listen_fd);
    unlink(q.cfg.socket);
    rc = 0;
out:
    qvu_device_fini(&q);
    return rc;
}
