/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One vfio-user message over a connected AF_UNIX SOCK_STREAM socket, with
 * its file descriptors as SCM_RIGHTS.  Blocking; EINTR is retried.
 */
#ifndef VFU_SOCKET_H
#define VFU_SOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vfu_proto.h"

/* The most fds taken with one message; more are closed (fds_dropped). */
#define VFU_SOCKET_MAX_FDS      16

struct vfu_msg {
    struct vfu_hdr hdr;         /* also set when the size was refused */
    uint8_t *buf;               /* the whole message, header first */
    size_t len;
    int fds[VFU_SOCKET_MAX_FDS];
    size_t nfds;
    bool fds_dropped;           /* more came than fds[] holds */
};

/*
 * Receive one message of at most max_size bytes into m (m->buf malloc'd:
 * vfu_msg_release() frees it and closes fds the caller did not take).
 * Returns 1 for a message, 0 for end of file before one began, and
 * -errno: -ECONNRESET for end of file inside a message, -EBADMSG for a
 * size below the header's, -EMSGSIZE above max_size (refused before
 * allocating; m->hdr holds the header, the fds are closed).  After an
 * error the stream cannot be trusted: the caller disconnects.
 */
int vfu_recv_msg(int sock, struct vfu_msg *m, size_t max_size);
void vfu_msg_release(struct vfu_msg *m);

/* Send len bytes with nfds fds (the caller keeps them); 0 or -errno. */
int vfu_send_msg(int sock, const void *buf, size_t len, const int *fds,
                 size_t nfds);

#endif
