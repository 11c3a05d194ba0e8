/*
 * QEMU qrnic: the NIC backend side - receive, transmit bottom half, link
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "net/net.h"
#include "qrnic.h"
#include "trace.h"

static bool qrnic_can_receive(NetClientState *nc)
{
    QrnicState *s = qemu_get_nic_opaque(nc);

    return qrnic_eth_can_rx(&s->eng);
}

static ssize_t qrnic_receive(NetClientState *nc, const uint8_t *buf,
                             size_t size)
{
    QrnicState *s = qemu_get_nic_opaque(nc);
    size_t ret = qrnic_eth_rx(&s->eng, buf, size);

    trace_qrnic_rx_frame(size, ret);
    return ret;
}

static void qrnic_link_status_changed(NetClientState *nc)
{
    QrnicState *s = qemu_get_nic_opaque(nc);

    trace_qrnic_link(!nc->link_down);
    qrnic_engine_set_link(&s->eng, !nc->link_down);
}

NetClientInfo qrnic_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = qrnic_can_receive,
    .receive = qrnic_receive,
    .link_status_changed = qrnic_link_status_changed,
};

void qrnic_tx_bh(void *opaque)
{
    QrnicState *s = opaque;

    qrnic_eth_tx_process(&s->eng);
}

void qrnic_rx_flush(QrnicState *s)
{
    if (s->nic && qrnic_eth_can_rx(&s->eng)) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}
