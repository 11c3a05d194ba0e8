/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A vfio-user client for the unit tests: builds each message as QEMU's
 * client would, hands it to vfu_server_handle() on srv and checks that
 * the reply says what the return value says (bad_replies counts those
 * that do not).  Used by test_vfio_user.c (the protocol core on a fake
 * device) and test_vu_device.c (qrnic-vfio-user's device).
 */
#ifndef QRNIC_TEST_VFU_CLIENT_H
#define QRNIC_TEST_VFU_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vfu_server.h"

/* The capabilities QEMU 10.2's client sends in VERSION. */
#define QEMU_CAPS "{\"capabilities\":{\"migration\":{\"pgsize\":4096," \
                  "\"max_bitmap_size\":268435456},\"max_msg_fds\":16," \
                  "\"max_data_xfer_size\":1048576,\"pgsizes\":4096," \
                  "\"max_dma_maps\":65535,\"write_multiple\":true}}"

#define MSIX            VFIO_PCI_MSIX_IRQ_INDEX
#define EVENTFD_TRIGGER \
    (VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER)

extern struct vfu_server *srv;  /* the server messages go to */
extern struct vfu_reply rep;    /* the last reply */
extern int bad_replies;         /* replies that did not match the result */
extern uint8_t msgbuf[1 << 21]; /* the message being built */

struct vfu_hdr rep_hdr(void);
const void *rep_payload(void);

/* Each returns vfu_server_handle()'s result: 0 or -errno. */
int send_msg_fds(uint16_t cmd, uint32_t flags, const void *payload,
                 size_t plen, int *fds, size_t nfds);
int send_msg(uint16_t cmd, const void *payload, size_t plen);
/* VERSION 0.0 with json (NULL: none) as its capabilities. */
int version(const char *json);
int dma_map(uint64_t iova, uint64_t size, uint64_t offset, uint32_t flags,
            int *fds, size_t nfds);
/* Map [iova, iova + size) of a dup of ram_fd at offset, read-write. */
int dma_map_fd(int ram_fd, uint64_t iova, uint64_t size, uint64_t offset);
int dma_unmap(uint64_t iova, uint64_t size, uint32_t flags);
/* The data read is at rep_payload() + sizeof(struct vfu_region_rw). */
int region_read(uint32_t region, uint64_t offset, uint32_t count);
int region_write(uint32_t region, uint64_t offset, const void *data,
                 uint32_t count, uint32_t flags);
int region_info(uint32_t index, struct vfu_region_info *out);
int set_irqs(uint32_t flags, uint32_t index, uint32_t start, uint32_t count,
             const uint8_t *bools, int *fds, size_t nfds);

bool fd_open(int fd);
/* Entries in /proc/self/fd. */
int count_fds(void);
/* A memfd of size bytes: guest RAM as a memory-backend-memfd gives it. */
int guest_ram(size_t size);

#endif
