/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: Ethernet TX and RX rings.  Descriptors live in guest RAM;
 * the device consumes them in order and writes each one back with DONE
 * (TX: ERR for a bad length or DMA failure; RX: the frame length).
 */
#include <string.h>
#include "qrnic_engine.h"
#include "qrnic_le.h"
#include "qrnic_roce.h"

#define ETH_HDR_LEN 14

static uint64_t desc_addr(const struct qrnic_ring *r, uint16_t idx)
{
    return r->base + (uint64_t)(idx & ((1u << r->log_depth) - 1)) *
           QRNIC_ETH_DESC_SIZE;
}

/* Write back len and flags (bytes 8..11) of a descriptor. */
static void desc_done(struct qrnic_engine *e, uint64_t addr, uint16_t len,
                      uint16_t flags)
{
    uint8_t wb[4];

    qrnic_st16(wb, len);
    qrnic_st16(wb + 2, flags);
    addr += offsetof(struct qrnic_eth_desc, len);
    qrnic_dma_write(e, addr, wb, sizeof(wb));
}

void qrnic_eth_tx_process(struct qrnic_engine *e)
{
    struct qrnic_ring *r = &e->eth.tx;
    bool done = false;

    while (e->ready && e->eth.active && r->ci != r->pi) {
        uint8_t d[QRNIC_ETH_DESC_SIZE];
        uint64_t addr = desc_addr(r, r->ci);
        uint64_t buf;
        uint16_t len, flags = QRNIC_ETH_DONE;

        r->ci++;
        done = true;
        if (qrnic_dma_read(e, addr, d, sizeof(d))) {
            /* Unreadable descriptor: nothing to write back to either. */
            e->stats.tx_err++;
            continue;
        }
        buf = qrnic_ld64(d + offsetof(struct qrnic_eth_desc, addr));
        len = qrnic_ld16(d + offsetof(struct qrnic_eth_desc, len));
        if (len < ETH_HDR_LEN || len > QRNIC_ETH_MAX_FRAME) {
            flags |= QRNIC_ETH_ERR;
        } else if (qrnic_dma_read(e, buf, e->frame, len)) {
            flags |= QRNIC_ETH_ERR;
        } else if (e->link_up) {
            if (qrnic_roce_is_roce_frame(e->frame, len)) {
                qrnic_fault_tx(e, e->frame, len);
            } else {
                e->ops->tx_frame(e->opaque, e->frame, len);
            }
            e->stats.tx_frames++;
        }
        if (flags & QRNIC_ETH_ERR) {
            e->stats.tx_err++;
        }
        desc_done(e, addr, len, flags);
    }
    if (done) {
        qrnic_engine_raise(e, e->eth.vector);
    }
}

bool qrnic_eth_can_rx(const struct qrnic_engine *e)
{
    /* Without rings the device drops; with rings it waits for a buffer. */
    if (!e->ready || !e->eth.active) {
        return true;
    }
    return e->eth.rx.ci != e->eth.rx.pi;
}

static bool rx_accept_dst(const struct qrnic_engine *e, const uint8_t *dst)
{
    /* Our unicast address, broadcast and multicast. */
    return (dst[0] & 1) || !memcmp(dst, e->mac, 6);
}

/*
 * Returns the number of bytes consumed (the frame was delivered or
 * dropped), or 0 if the frame must wait for an RX buffer.
 */
size_t qrnic_eth_rx(struct qrnic_engine *e, const uint8_t *frame, size_t len)
{
    struct qrnic_ring *r = &e->eth.rx;
    uint8_t d[QRNIC_ETH_DESC_SIZE];
    uint64_t addr, buf;
    uint16_t size;

    if (!e->ready || len < ETH_HDR_LEN || !rx_accept_dst(e, frame)) {
        e->stats.rx_filtered++;
        return len;
    }
    /* RDMA needs no Ethernet rings; everything else does. */
    if (qrnic_roce_is_roce_frame(frame, len)) {
        qrnic_fault_rx(e, frame, len);
        return len;
    }
    if (!e->eth.active) {
        e->stats.rx_filtered++;
        return len;
    }
    if (len > QRNIC_ETH_MAX_FRAME) {
        e->stats.rx_too_big++;
        return len;
    }
    if (r->ci == r->pi) {
        return 0;
    }
    addr = desc_addr(r, r->ci);
    if (qrnic_dma_read(e, addr, d, sizeof(d))) {
        r->ci++;                /* unusable descriptor: skip it */
        return len;
    }
    buf = qrnic_ld64(d + offsetof(struct qrnic_eth_desc, addr));
    size = qrnic_ld16(d + offsetof(struct qrnic_eth_desc, len));
    if (len > size) {
        /* Larger than the buffer: drop the frame, keep the buffer. */
        e->stats.rx_too_big++;
        return len;
    }
    r->ci++;
    if (qrnic_dma_write(e, buf, frame, len)) {
        desc_done(e, addr, 0, QRNIC_ETH_DONE | QRNIC_ETH_ERR);
    } else {
        e->stats.rx_frames++;
        desc_done(e, addr, (uint16_t)len, QRNIC_ETH_DONE);
    }
    qrnic_engine_raise(e, e->eth.vector);
    return len;
}
