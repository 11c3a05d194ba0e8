/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The tests' vfio-user client (vfu_client.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "vfu_client.h"

struct vfu_server *srv;
struct vfu_reply rep;
int bad_replies;
uint8_t msgbuf[1 << 21];
static uint16_t next_id = 100;

struct vfu_hdr rep_hdr(void)
{
    struct vfu_hdr h;

    memcpy(&h, rep.buf, sizeof(h));
    return h;
}

const void *rep_payload(void)
{
    return (const uint8_t *)rep.buf + sizeof(struct vfu_hdr);
}

/* The reply must say what the return value says. */
static void check_reply(int ret, uint16_t id, uint16_t cmd, uint32_t flags)
{
    struct vfu_hdr h;

    if (flags & VFU_F_NO_REPLY) {
        bad_replies += rep.len != 0;
        return;
    }
    h = rep_hdr();
    if (rep.len < sizeof(h) || h.msg_size != rep.len || h.msg_id != id ||
        h.command != cmd) {
        bad_replies++;
    } else if (ret && (h.flags != (VFU_F_TYPE_REPLY | VFU_F_ERROR) ||
                       h.error != (uint32_t)-ret || rep.len != sizeof(h) ||
                       rep.nfds)) {
        bad_replies++;
    } else if (!ret && (h.flags != VFU_F_TYPE_REPLY || h.error)) {
        bad_replies++;
    }
}

int send_msg_fds(uint16_t cmd, uint32_t flags, const void *payload,
                 size_t plen, int *fds, size_t nfds)
{
    struct vfu_hdr h = {
        .msg_id = next_id++, .command = cmd,
        .msg_size = (uint32_t)(sizeof(h) + plen), .flags = flags,
    };
    int ret;

    memcpy(msgbuf, &h, sizeof(h));
    if (plen) {
        memcpy(msgbuf + sizeof(h), payload, plen);
    }
    ret = vfu_server_handle(srv, msgbuf, sizeof(h) + plen, fds, nfds, false,
                            &rep);
    check_reply(ret, h.msg_id, cmd, flags);
    return ret;
}

int send_msg(uint16_t cmd, const void *payload, size_t plen)
{
    return send_msg_fds(cmd, 0, payload, plen, NULL, 0);
}

int version(const char *json)
{
    uint8_t p[4 + 512];
    struct vfu_version v = { VFU_VERSION_MAJOR, VFU_VERSION_MINOR };
    size_t n = json ? strlen(json) + 1 : 0;

    memcpy(p, &v, sizeof(v));
    if (json) {
        memcpy(p + sizeof(v), json, n);
    }
    return send_msg(VFU_CMD_VERSION, p, sizeof(v) + n);
}

bool fd_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1;
}

int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    while (d && readdir(d)) {
        n++;
    }
    if (d) {
        closedir(d);
    }
    return n;
}

int guest_ram(size_t size)
{
    int fd = memfd_create("guest-ram", MFD_CLOEXEC);

    if (fd >= 0 && ftruncate(fd, (off_t)size)) {
        close(fd);
        return -1;
    }
    return fd;
}

int dma_map(uint64_t iova, uint64_t size, uint64_t offset, uint32_t flags,
            int *fds, size_t nfds)
{
    struct vfu_dma_map m = {
        .argsz = sizeof(m), .flags = flags, .offset = offset,
        .address = iova, .size = size,
    };

    return send_msg_fds(VFU_CMD_DMA_MAP, 0, &m, sizeof(m), fds, nfds);
}

int dma_map_fd(int ram_fd, uint64_t iova, uint64_t size, uint64_t offset)
{
    int fd = dup(ram_fd);

    return dma_map(iova, size, offset, VFIO_DMA_MAP_FLAG_READ |
                   VFIO_DMA_MAP_FLAG_WRITE, &fd, 1);
}

int dma_unmap(uint64_t iova, uint64_t size, uint32_t flags)
{
    struct vfu_dma_unmap u = {
        .argsz = sizeof(u), .flags = flags, .address = iova, .size = size,
    };

    return send_msg(VFU_CMD_DMA_UNMAP, &u, sizeof(u));
}

int region_read(uint32_t region, uint64_t offset, uint32_t count)
{
    struct vfu_region_rw rw = { offset, region, count };

    return send_msg(VFU_CMD_REGION_READ, &rw, sizeof(rw));
}

int region_write(uint32_t region, uint64_t offset, const void *data,
                 uint32_t count, uint32_t flags)
{
    static uint8_t p[sizeof(struct vfu_region_rw) + 65536];
    struct vfu_region_rw rw = { offset, region, count };

    memcpy(p, &rw, sizeof(rw));
    memcpy(p + sizeof(rw), data, count);
    return send_msg_fds(VFU_CMD_REGION_WRITE, flags, p, sizeof(rw) + count,
                        NULL, 0);
}

int set_irqs(uint32_t flags, uint32_t index, uint32_t start, uint32_t count,
             const uint8_t *bools, int *fds, size_t nfds)
{
    uint8_t p[sizeof(struct vfu_irq_set) + 64];
    size_t extra = bools ? count : 0;
    struct vfu_irq_set s = {
        .argsz = (uint32_t)(sizeof(s) + extra), .flags = flags,
        .index = index, .start = start, .count = count,
    };

    memcpy(p, &s, sizeof(s));
    if (bools) {
        memcpy(p + sizeof(s), bools, extra);
    }
    return send_msg_fds(VFU_CMD_DEVICE_SET_IRQS, 0, p, sizeof(s) + extra,
                        fds, nfds);
}

int region_info(uint32_t index, struct vfu_region_info *out)
{
    struct vfu_region_info ri = { .argsz = sizeof(ri), .index = index };
    int ret = send_msg(VFU_CMD_DEVICE_GET_REGION_INFO, &ri, sizeof(ri));

    if (!ret) {
        memcpy(out, rep_payload(), sizeof(*out));
    }
    return ret;
}
