/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's Ethernet link: the wire formats of QEMU's own netdevs,
 * so the server's NIC sits on the same segment as in-QEMU NICs.
 *
 *   stream,path=P,server=on|off   QEMU's stream netdev on a Unix socket:
 *                                 each frame a 4-byte big-endian length
 *                                 and the frame.  server=on listens and
 *                                 takes one peer at a time; server=off
 *                                 connects, and again every 100 ms while
 *                                 the peer is away.
 *   dgram,local=H:P,remote=H:P    QEMU's dgram netdev on UDP/IPv4: one
 *                                 frame per datagram.
 *   dgram,fd=N                    the same on an inherited datagram socket
 *                                 (one end of a Unix socket pair).
 *
 * Frames to a peer that is away, or that the socket cannot take now, are
 * dropped and counted, as a switch port drops them: the RoCE transport
 * resends what it needs.
 */
#ifndef QRNIC_VU_LINK_H
#define QRNIC_VU_LINK_H

#include <stddef.h>
#include <stdint.h>

#define QVU_LINK_MAX_FRAME 65536

struct qvu_link;

/* NULL with a message in err. */
struct qvu_link *qvu_link_open(const char *spec, char *err, size_t errlen);
void qvu_link_close(struct qvu_link *l);

/* The fd to poll, -1 while there is none (reconnect), and for what. */
int qvu_link_poll_fd(const struct qvu_link *l);
short qvu_link_poll_events(const struct qvu_link *l);
/* POLLOUT: send what the socket could not take before. */
void qvu_link_flush(struct qvu_link *l);
/* Milliseconds until qvu_link_tick() wants to run, -1: never. */
int qvu_link_timeout_ms(const struct qvu_link *l);
/* Reconnect when due. */
void qvu_link_tick(struct qvu_link *l);
/*
 * Input on the poll fd: accept a peer, or read.  Returns the length of one
 * complete frame now in buf, 0 if none is complete yet (call again after
 * the next POLLIN), -1 if the peer went (the link waits for another).
 */
int qvu_link_read(struct qvu_link *l, uint8_t *buf, size_t cap);
/* Is there more buffered input (another frame may be complete)? */
int qvu_link_pending(const struct qvu_link *l);
void qvu_link_send(struct qvu_link *l, const uint8_t *frame, size_t len);
uint64_t qvu_link_dropped(const struct qvu_link *l);
int qvu_link_is_up(const struct qvu_link *l);
/* A decimal number that is the whole of s; -1 if not (or too large). */
int qvu_parse_u64(const char *s, uint64_t *v);

#endif
