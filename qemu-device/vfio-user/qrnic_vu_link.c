/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's Ethernet link (see qrnic_vu_link.h).  Sockets are
 * non-blocking: the device's thread never waits for a peer.  A stream
 * link sends whole frames only, so what the socket did not take of a
 * frame waits in the transmit buffer (POLLOUT), and frames that do not
 * fit behind it are dropped.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "qrnic_vu_link.h"

#define RECONNECT_NS    (100 * 1000 * 1000ull)
#define STREAM_BUF      (4 * (QVU_LINK_MAX_FRAME + 4))
/*
 * What a stream link holds that the socket has not taken: more than the
 * engine's largest congestion window (QRNIC_ENG_WINDOW_MAX_BYTES, 4 MiB),
 * so a window the link is told is lossless (window-kib) never overflows it.
 */
#define STREAM_TX_BUF   (8u << 20)

enum link_kind { LINK_STREAM_SERVER, LINK_STREAM_CLIENT, LINK_DGRAM };

struct qvu_link {
    enum link_kind kind;
    int listen_fd;              /* stream server */
    int fd;                     /* the connection or datagram socket */
    struct sockaddr_un path;    /* stream */
    struct sockaddr_in remote;  /* dgram over UDP */
    bool connected_dgram;       /* dgram,fd=: the pair needs no address */
    uint64_t reconnect_at;      /* stream client while away */
    uint8_t *rbuf, *tbuf;       /* stream: received, not yet sent */
    size_t rlen, tlen, thead;   /* tbuf's bytes: [thead, thead + tlen) */
    uint64_t dropped;
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);

    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* "key=value" in a comma-separated spec: the value's length, -1 if none. */
static int spec_get(const char *spec, const char *key, char *val, size_t cap)
{
    size_t klen = strlen(key);
    const char *p = spec;

    while (p && *p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);

        if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
            len -= klen + 1;
            if (len >= cap) {
                return -1;
            }
            memcpy(val, p + klen + 1, len);
            val[len] = '\0';
            return (int)len;
        }
        p = end ? end + 1 : NULL;
    }
    return -1;
}

int qvu_parse_u64(const char *s, uint64_t *v)
{
    uint64_t n = 0;

    if (*s < '0' || *s > '9') {
        return -1;
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10) {
            return -1;
        }
        n = n * 10 + (uint64_t)(*s - '0');
    }
    *v = n;
    return *s ? -1 : 0;
}

static bool parse_inet(const char *s, struct sockaddr_in *sa)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    uint64_t port;

    if (!colon || (size_t)(colon - s) >= sizeof(host)) {
        return false;
    }
    memcpy(host, s, colon - s);
    host[colon - s] = '\0';
    memset(sa, 0, sizeof(*sa));
    sa->sin_family = AF_INET;
    if (qvu_parse_u64(colon + 1, &port) || !port || port > 65535) {
        return false;
    }
    sa->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host, &sa->sin_addr) == 1;
}

static void stream_drop_peer(struct qvu_link *l)
{
    if (l->fd >= 0) {
        close(l->fd);
    }
    l->fd = -1;
    l->rlen = 0;
    l->tlen = 0;
    l->thead = 0;
    l->reconnect_at = now_ns() + RECONNECT_NS;
}

/* Non-blocking: a server whose backlog is full fails it (EAGAIN). */
static void stream_connect(struct qvu_link *l)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

    if (fd < 0) {
        return;
    }
    if (connect(fd, (struct sockaddr *)&l->path, sizeof(l->path))) {
        close(fd);
        l->reconnect_at = now_ns() + RECONNECT_NS;
        return;
    }
    l->fd = fd;
}

static int open_stream(struct qvu_link *l, const char *spec, char *err,
                       size_t errlen)
{
    char path[sizeof(l->path.sun_path)], server[8];

    if (spec_get(spec, "path", path, sizeof(path)) <= 0) {
        snprintf(err, errlen, "stream: path=PATH (shorter than %zu bytes)",
                 sizeof(path));
        return -1;
    }
    if (spec_get(spec, "server", server, sizeof(server)) < 0) {
        strcpy(server, "off");
    }
    l->path.sun_family = AF_UNIX;
    memcpy(l->path.sun_path, path, strlen(path) + 1);
    l->rbuf = malloc(STREAM_BUF);
    l->tbuf = malloc(STREAM_TX_BUF);
    if (!l->rbuf || !l->tbuf) {
        snprintf(err, errlen, "stream: out of memory");
        return -1;
    }
    if (!strcmp(server, "off")) {
        l->kind = LINK_STREAM_CLIENT;
        stream_connect(l);
        return 0;
    }
    if (strcmp(server, "on")) {
        snprintf(err, errlen, "stream: server=on|off, not '%s'", server);
        return -1;
    }
    l->kind = LINK_STREAM_SERVER;
    unlink(path);
    l->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l->listen_fd < 0 ||
        bind(l->listen_fd, (struct sockaddr *)&l->path, sizeof(l->path)) ||
        listen(l->listen_fd, 1) || set_nonblock(l->listen_fd)) {
        snprintf(err, errlen, "stream: listening on %s: %s", path,
                 strerror(errno));
        return -1;
    }
    return 0;
}

static int open_dgram(struct qvu_link *l, const char *spec, char *err,
                      size_t errlen)
{
    char fdstr[16], local[80], remote[80];
    struct sockaddr_in la;

    l->kind = LINK_DGRAM;
    if (spec_get(spec, "fd", fdstr, sizeof(fdstr)) > 0) {
        uint64_t fd;
        int type;
        socklen_t tl = sizeof(type);

        if (qvu_parse_u64(fdstr, &fd) || fd > 65535 ||
            getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &tl) ||
            type != SOCK_DGRAM || set_nonblock((int)fd)) {
            snprintf(err, errlen, "dgram: fd=%s is not a datagram socket",
                     fdstr);
            return -1;
        }
        l->fd = (int)fd;
        l->connected_dgram = true;
        return 0;
    }
    if (spec_get(spec, "local", local, sizeof(local)) <= 0 ||
        spec_get(spec, "remote", remote, sizeof(remote)) <= 0 ||
        !parse_inet(local, &la) || !parse_inet(remote, &l->remote)) {
        snprintf(err, errlen,
                 "dgram: local=IPV4:PORT,remote=IPV4:PORT or fd=N");
        return -1;
    }
    l->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (l->fd < 0 || bind(l->fd, (struct sockaddr *)&la, sizeof(la))) {
        snprintf(err, errlen, "dgram: binding %s: %s", local,
                 strerror(errno));
        return -1;
    }
    return 0;
}

struct qvu_link *qvu_link_open(const char *spec, char *err, size_t errlen)
{
    struct qvu_link *l = calloc(1, sizeof(*l));
    int r;

    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->fd = -1;
    l->listen_fd = -1;
    if (!strncmp(spec, "stream,", 7)) {
        r = open_stream(l, spec + 7, err, errlen);
    } else if (!strncmp(spec, "dgram,", 6)) {
        r = open_dgram(l, spec + 6, err, errlen);
    } else {
        snprintf(err, errlen, "a link is stream,... or dgram,..., not '%s'",
                 spec);
        r = -1;
    }
    if (r) {
        qvu_link_close(l);
        return NULL;
    }
    return l;
}

void qvu_link_close(struct qvu_link *l)
{
    if (!l) {
        return;
    }
    if (l->fd >= 0) {
        close(l->fd);
    }
    if (l->listen_fd >= 0) {
        close(l->listen_fd);
        unlink(l->path.sun_path);
    }
    free(l->rbuf);
    free(l->tbuf);
    free(l);
}

int qvu_link_poll_fd(const struct qvu_link *l)
{
    if (l->kind == LINK_STREAM_SERVER && l->fd < 0) {
        return l->listen_fd;
    }
    return l->fd;
}

short qvu_link_poll_events(const struct qvu_link *l)
{
    return POLLIN | (l->tlen ? POLLOUT : 0);
}

int qvu_link_timeout_ms(const struct qvu_link *l)
{
    uint64_t now;

    if (l->kind != LINK_STREAM_CLIENT || l->fd >= 0) {
        return -1;
    }
    now = now_ns();
    return now >= l->reconnect_at ? 0 :
           (int)((l->reconnect_at - now) / 1000000 + 1);
}

void qvu_link_tick(struct qvu_link *l)
{
    if (l->kind == LINK_STREAM_CLIENT && l->fd < 0 &&
        now_ns() >= l->reconnect_at) {
        stream_connect(l);
    }
}

int qvu_link_is_up(const struct qvu_link *l)
{
    return l->fd >= 0;
}

uint64_t qvu_link_dropped(const struct qvu_link *l)
{
    return l->dropped;
}

/* One complete frame at the head of rbuf: copied out and removed. */
static int stream_take(struct qvu_link *l, uint8_t *buf, size_t cap)
{
    uint32_t be, len;

    /* An empty frame carries nothing: skipped. */
    while (l->rlen >= 4 && !memcmp(l->rbuf, "\0\0\0\0", 4)) {
        l->rlen -= 4;
        memmove(l->rbuf, l->rbuf + 4, l->rlen);
    }
    if (l->rlen < 4) {
        return 0;
    }
    memcpy(&be, l->rbuf, 4);
    len = ntohl(be);
    if (len > QVU_LINK_MAX_FRAME) {
        fprintf(stderr, "qrnic-vfio-user: link: a %u-byte frame: peer "
                "dropped\n", len);
        stream_drop_peer(l);
        return -1;
    }
    if (l->rlen < 4 + (size_t)len) {
        return 0;
    }
    if (len <= cap) {
        memcpy(buf, l->rbuf + 4, len);
    } else {
        l->dropped++;
    }
    l->rlen -= 4 + len;
    memmove(l->rbuf, l->rbuf + 4 + len, l->rlen);
    return len <= cap ? (int)len : 0;
}

static int stream_read(struct qvu_link *l, uint8_t *buf, size_t cap)
{
    ssize_t n;
    int got = stream_take(l, buf, cap);

    if (got || l->fd < 0) {
        return got;
    }
    n = recv(l->fd, l->rbuf + l->rlen, STREAM_BUF - l->rlen, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        stream_drop_peer(l);
        return -1;
    }
    if (n > 0) {
        l->rlen += (size_t)n;
    }
    return stream_take(l, buf, cap);
}

int qvu_link_read(struct qvu_link *l, uint8_t *buf, size_t cap)
{
    ssize_t n;

    if (l->kind == LINK_STREAM_SERVER && l->fd < 0) {
        int fd = accept4(l->listen_fd, NULL, NULL,
                         SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd >= 0) {
            l->fd = fd;
        }
        return 0;
    }
    if (l->kind != LINK_DGRAM) {
        return stream_read(l, buf, cap);
    }
    n = recv(l->fd, buf, cap, MSG_TRUNC);
    if (n < 0 || (size_t)n > cap) {
        if (n > 0) {
            l->dropped++;
        }
        return 0;
    }
    return (int)n;
}

int qvu_link_pending(const struct qvu_link *l)
{
    uint32_t be;

    if (l->kind == LINK_DGRAM || l->rlen < 4) {
        return 0;
    }
    memcpy(&be, l->rbuf, 4);
    return l->rlen >= 4 + (size_t)ntohl(be);
}

void qvu_link_flush(struct qvu_link *l)
{
    ssize_t n;

    if (!l->tlen || l->fd < 0) {
        return;
    }
    n = send(l->fd, l->tbuf + l->thead, l->tlen, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
        stream_drop_peer(l);
        return;
    }
    if (n > 0) {
        l->tlen -= (size_t)n;
        l->thead = l->tlen ? l->thead + (size_t)n : 0;
    }
}

void qvu_link_send(struct qvu_link *l, const uint8_t *frame, size_t len)
{
    uint32_t be = htonl((uint32_t)len);
    ssize_t n;

    if (l->fd < 0 || len > QVU_LINK_MAX_FRAME) {
        l->dropped++;
        return;
    }
    if (l->kind == LINK_DGRAM) {
        n = l->connected_dgram ?
            send(l->fd, frame, len, MSG_NOSIGNAL) :
            sendto(l->fd, frame, len, MSG_NOSIGNAL,
                   (struct sockaddr *)&l->remote, sizeof(l->remote));
        if (n != (ssize_t)len) {
            l->dropped++;
        }
        return;
    }
    if (l->thead + l->tlen + 4 + len > STREAM_TX_BUF) {
        qvu_link_flush(l);
        if (l->tlen + 4 + len > STREAM_TX_BUF) {
            l->dropped++;
            return;
        }
        memmove(l->tbuf, l->tbuf + l->thead, l->tlen);
        l->thead = 0;
    }
    memcpy(l->tbuf + l->thead + l->tlen, &be, 4);
    memcpy(l->tbuf + l->thead + l->tlen + 4, frame, len);
    l->tlen += 4 + len;
    qvu_link_flush(l);
}
