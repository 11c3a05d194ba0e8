#!/bin/sh
# The qrnic function as a user of one guest sees it: lspci, rdma link,
# ibv_devinfo, GIDs following IP addresses.  Runs in every guest.
. "$(dirname "$0")/lib.sh"

pci=$(lspci -vv -d 1b36:0130)
printf '%s\n' "$pci" | sed 's/^/    /'
expect_match "lspci: Ethernet controller class, our IDs" \
	'^[0-9a-f:.]+ Ethernet controller: Red Hat, Inc\. Device 0130 \(rev 01\)' "$pci"
expect_match "lspci: subsystem 1b36:0001" 'Subsystem: Red Hat, Inc\. Device 0001' "$pci"
expect_match "lspci: BAR0 64-bit 16K" 'Region 0: Memory at [0-9a-f]+ \(64-bit, non-prefetchable\) \[size=16K\]' "$pci"
expect_match "lspci: BAR2 doorbell pages 4M (1024 by default)" 'Region 2: Memory at [0-9a-f]+ \(64-bit, non-prefetchable\) \[size=4M\]' "$pci"
expect_match "dmesg: the per-context limits at probe (1023 contexts, a quarter of each table)" \
	'1023 user contexts, each at most 16384 PDs, 16384 CQs, 16384 QPs, 16384 SRQs, 65536 MRs, 65536 MWs, 16384 queue memory pages, 2097152 MR pages' \
	"$(dmesg)"
expect_match "lspci: BAR4 prefetchable queue memory 256M" 'Region 4: Memory at [0-9a-f]+ \(64-bit, prefetchable\) \[size=256M\]' "$pci"
expect_match "lspci: MSI-X enabled with 16 vectors" 'MSI-X: Enable\+ Count=16' "$pci"
expect_match "lspci: PCI Express endpoint" 'Express \(v2\) Endpoint' "$pci"
expect_match "lspci: driver in use" 'Kernel driver in use: qrnic' "$pci"

link=$(rdma link show)
echo "    $link"
expect_match "rdma link: qrnic0 ACTIVE on $QRNIC_IFNAME" \
	"^link qrnic0/1 state ACTIVE physical_state LINK_UP netdev $QRNIC_IFNAME *\$" "$link"

info=$(ibv_devinfo -v -d qrnic0)
printf '%s\n' "$info" | grep -E 'hca_id|state|link_layer|GID|max_qp:|max_pd|vendor_part' | sed 's/^/    /'
expect_match "ibv_devinfo: qrnic0 present" '^hca_id:[[:space:]]+qrnic0$' "$info"
expect_match "ibv_devinfo: PORT_ACTIVE" 'state:[[:space:]]+PORT_ACTIVE' "$info"
expect_match "ibv_devinfo: link layer Ethernet" 'link_layer:[[:space:]]+Ethernet' "$info"
expect_match "ibv_devinfo: vendor part id 0x0130" 'vendor_part_id:[[:space:]]+304' "$info"
expect_match "ibv_devinfo: max_qp 65536 (max-qps)" 'max_qp:[[:space:]]+65536$' "$info"
expect_match "ibv_devinfo: max_cq 65536 (max-cqs)" 'max_cq:[[:space:]]+65536$' "$info"
expect_match "ibv_devinfo: max_srq 65536 (max-srqs)" 'max_srq:[[:space:]]+65536$' "$info"
expect_match "ibv_devinfo: max_mr 262144 (max-keys)" 'max_mr:[[:space:]]+262144$' "$info"
expect_match "ibv_devinfo: max_mw 262144 (max-keys)" 'max_mw:[[:space:]]+262144$' "$info"
expect_match "ibv_devinfo: max_pd 65536 (max-pds)" 'max_pd:[[:space:]]+65536$' "$info"
expect_match "ibv_devinfo: max_cqe 4194304 (QRNIC_CQ_MAX_LOG)" 'max_cqe:[[:space:]]+4194304$' "$info"
expect_match "ibv_devinfo: IPv4-mapped RoCE v2 GID for $QRNIC_IP" \
	"GID\[ *[0-9]+\]:[[:space:]]+::ffff:$QRNIC_IP, RoCE v2" "$info"

# A GID follows an address: add one, see it, remove it, see it go.
extra=10.12.0.$((QRNIC_IDX + 1))
has_gid() { ibv_devinfo -v -d qrnic0 | grep -q "::ffff:$extra, RoCE v2"; }
lacks_gid() { ! has_gid; }
ip addr add "$extra/24" dev "$QRNIC_IFNAME"
check "GID for a new address $extra appears" retry 10 has_gid
ip addr del "$extra/24" dev "$QRNIC_IFNAME"
check "GID for removed address $extra disappears" retry 10 lacks_gid

# More QPs in one context than the whole device held before its limits
# became properties (1022); `make scale` holds 60000.
run_tap "rc-check qps 1500" rc-check qps 1500

# Both ends of 8 RC QPs on this device (its loopback, as an NVMe target and
# host in one guest use it): the device holds its senders back rather
# than drop, so nothing is dropped, and the counter that would
# tell of a drop is one rdma statistic shows.
gid=$(gid_index)
drops0=$(hwc backlog_drop) gaps0=$(hwc seq_naks_tx) resent0=$(hwc retrans_pkts) rto0=$(hwc ack_timeouts)
ib_write_bw -d qrnic0 -x "$gid" -q 8 -s 65536 -D 2 -F > /tmp/loopback-server.log 2>&1 &
server=$!
lb_client() {
	ib_write_bw -d qrnic0 -x "$gid" -q 8 -s 65536 -D 2 -F 127.0.0.1 > /tmp/loopback-client.log 2>&1
}
check "loopback: ib_write_bw -q 8 to this device's own GID completes" retry 20 lb_client
wait "$server"
sed -n '/#bytes/,$p' /tmp/loopback-client.log | sed 's/^/    /'
drops1=$(hwc backlog_drop) gaps1=$(hwc seq_naks_tx) resent1=$(hwc retrans_pkts) rto1=$(hwc ack_timeouts)
# A gap in a QP's packet sequence is what a drop leaves; a resend after an
# ACK timeout (a host too busy to run the device in time) is not one.
check "loopback: no frame dropped (backlog_drop $drops0 -> $drops1), no gap seen (seq_naks_tx $gaps0 -> $gaps1)" \
	[ "$drops1.$gaps1" = "$drops0.$gaps0" ]
echo "    retrans_pkts $resent0 -> $resent1, ack_timeouts $rto0 -> $rto1"
expect_match "rdma statistic: backlog_drop among qrnic0's counters" \
	'backlog_drop [0-9]+' "$(rdma statistic show link qrnic0/1)"

finish
