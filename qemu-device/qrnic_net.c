/*
 * QEMU qrnic: the NIC backend side - receive and link state
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/main-loop.h"
#include "net/net.h"
#include "qrnic.h"
#include "trace.h"

static bool qrnic_can_receive(NetClientState *nc)
{
    QrnicState *s = qemu_get_nic_opaque(nc);

    return qrnic_engine_can_receive(&s->eng);
}

static ssize_t qrnic_receive(NetClientState *nc, const uint8_t *buf,
                             size_t size)
{
    QrnicState *s = qemu_get_nic_opaque(nc);
    size_t ret;

    if (trace_event_get_state_backends(TRACE_QRNIC_RX_FRAME)) {
        qrnic_trace_frame(true, buf, size);
    }
    ret = qrnic_engine_receive(&s->eng, buf, size);
    if (ret) {
        s->rx_count++;
    } else {
        trace_qrnic_rx_refused(size);
    }
    return ret;
}

/*
 * The monitor calls this with no re-entrancy guard engaged; the engine
 * posts the link event from a guarded bottom half instead.
 */
static void qrnic_link_status_changed(NetClientState *nc)
{
    QrnicState *s = qemu_get_nic_opaque(nc);

    trace_qrnic_link(!nc->link_down);
    qemu_bh_schedule(s->link_bh);
}

NetClientInfo qrnic_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = qrnic_can_receive,
    .receive = qrnic_receive,
    .link_status_changed = qrnic_link_status_changed,
};

void qrnic_link_bh(void *opaque)
{
    QrnicState *s = opaque;

    qrnic_engine_set_link(&s->eng, !qemu_get_queue(s->nic)->link_down);
}

void qrnic_rx_flush(QrnicState *s)
{
    if (s->nic) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}
