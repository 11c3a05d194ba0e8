/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * vfio-user messages over an AF_UNIX stream socket (vfu_socket.h).
 *
 * The fds of a message may come with any of its bytes, so every recvmsg()
 * collects them.  The kernel closes those that do not fit the control
 * buffer and says so with MSG_CTRUNC.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include "vfu_socket.h"

#define FDS_SPACE       CMSG_SPACE(sizeof(int) * VFU_SOCKET_MAX_FDS)

static void close_fds(struct vfu_msg *m)
{
    size_t i;

    for (i = 0; i < m->nfds; i++) {
        if (m->fds[i] >= 0) {
            close(m->fds[i]);
            m->fds[i] = -1;
        }
    }
    m->nfds = 0;
}

static void take_fds(struct vfu_msg *m, struct msghdr *mh)
{
    struct cmsghdr *c;

    if (mh->msg_flags & MSG_CTRUNC) {
        m->fds_dropped = true;
    }
    for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
        size_t i, n;
        int fd;

        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
            c->cmsg_len < CMSG_LEN(0)) {
            continue;
        }
        n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (i = 0; i < n; i++) {
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
            if (m->nfds < VFU_SOCKET_MAX_FDS) {
                m->fds[m->nfds++] = fd;
            } else {
                close(fd);
                m->fds_dropped = true;
            }
        }
    }
}

/*
 * len bytes into buf: 1, or 0 for end of file before the first byte of a
 * message (at_start), -ECONNRESET for end of file later, -errno.
 */
static int recv_full(int sock, void *buf, size_t len, struct vfu_msg *m,
                     bool at_start)
{
    union {
        struct cmsghdr align;
        char buf[FDS_SPACE];
    } ctl;
    size_t got = 0;

    while (got < len) {
        struct iovec iov = {
            .iov_base = (char *)buf + got,
            .iov_len = len - got,
        };
        struct msghdr mh = {
            .msg_iov = &iov,
            .msg_iovlen = 1,
            .msg_control = ctl.buf,
            .msg_controllen = sizeof(ctl.buf),
        };
        ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        take_fds(m, &mh);
        if (n == 0) {
            return at_start && !got ? 0 : -ECONNRESET;
        }
        got += (size_t)n;
    }
    return 1;
}

int vfu_recv_msg(int sock, struct vfu_msg *m, size_t max_size)
{
    int ret;

    memset(m, 0, sizeof(*m));
    ret = recv_full(sock, &m->hdr, sizeof(m->hdr), m, true);
    if (ret <= 0) {
        close_fds(m);
        return ret;
    }
    if (m->hdr.msg_size < sizeof(m->hdr)) {
        close_fds(m);
        return -EBADMSG;
    }
    if (m->hdr.msg_size > max_size) {
        close_fds(m);
        return -EMSGSIZE;
    }
    m->buf = malloc(m->hdr.msg_size);
    if (!m->buf) {
        close_fds(m);
        return -ENOMEM;
    }
    m->len = m->hdr.msg_size;
    memcpy(m->buf, &m->hdr, sizeof(m->hdr));
    ret = recv_full(sock, m->buf + sizeof(m->hdr),
                    m->len - sizeof(m->hdr), m, false);
    if (ret < 0) {
        vfu_msg_release(m);
        return ret;
    }
    return 1;
}

void vfu_msg_release(struct vfu_msg *m)
{
    close_fds(m);
    free(m->buf);
    m->buf = NULL;
    m->len = 0;
}

int vfu_send_msg(int sock, const void *buf, size_t len, const int *fds,
                 size_t nfds)
{
    union {
        struct cmsghdr align;
        char buf[FDS_SPACE];
    } ctl;
    size_t sent = 0;

    if (nfds > VFU_SOCKET_MAX_FDS || (nfds && !len)) {
        return -EINVAL;
    }
    while (sent < len) {
        struct iovec iov = {
            .iov_base = (char *)buf + sent,
            .iov_len = len - sent,
        };
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
        ssize_t n;

        /* The fds go with the first byte. */
        if (!sent && nfds) {
            struct cmsghdr *c;

            memset(&ctl, 0, sizeof(ctl));
            mh.msg_control = ctl.buf;
            mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
            c = CMSG_FIRSTHDR(&mh);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
            memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
        }
        n = sendmsg(sock, &mh, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        sent += (size_t)n;
    }
    return 0;
}
