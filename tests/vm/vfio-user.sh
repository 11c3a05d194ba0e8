#!/bin/sh
# qrnic served by qrnic-vfio-user to an unpatched QEMU (issue 30), in one
# boot of three guests on one segment:
#   guest 0  qrnic-vu: stock QEMU 10.2, -device vfio-user-pci
#   guest 1  qrnic in the project's QEMU
#   guest 2  rxe on virtio-net
# The qrnic guests check their device (device.sh: lspci, rdma link,
# ibv_devinfo, GIDs) and guest 0's `lspci -vv` must read as guest 1's but
# for addresses and interrupt numbers.  Then guest 0 pairs with guest 1 and
# after that with guest 2: RC (ibv_rc_pingpong), rdma_cm (rping), UD
# (ibv_ud_pingpong), SRQ (ibv_srq_pingpong) and NVMe over RDMA both ways.
# With -H vfio-user-host.sh, the host then checks that both of the
# server's threads did their part.
#   vfio-user.sh [PARTS]   PARTS as pair_parts takes them (default: those)
. "$(dirname "$0")/lib.sh"

dir=$(dirname "$0")
parts=${1:-"pingpong.sh default s65536 chk|cm.sh rping|ud.sh pingpong|srquc.sh srq|nvme.sh 0 1"}
[ "$QRNIC_NGUESTS" = 3 ] || { fail "vfio-user: needs three guests"; finish; }
machine=$(cat /sys/class/dmi/id/product_version)
echo "# guest $QRNIC_IDX: $QRNIC_NIC on $QRNIC_KVER, machine $machine"

# lspci -vv of the device with what differs between two machines masked.
lspci_masked() {
	lspci -vv -d 1b36:0130 | sed -E \
		-e 's/^[0-9a-f:.]+ /BDF /' \
		-e 's/Memory at [0-9a-f]+/Memory at ADDR/' \
		-e 's/(Address:|Vector table:|PBA:).*//' \
		-e 's/IRQ [0-9]+/IRQ N/' \
		-e 's/(Latency|Bus:|LnkSta:|Interrupt:).*//'
}

if [ "$QRNIC_NIC" = qrnic ]; then
	run_tap "vfio-user: device.sh" sh "$dir/device.sh"
	lspci_masked > "$QRNIC_SHARE/lspci-$QRNIC_IDX"
fi
if [ "$QRNIC_IDX" = 0 ]; then
	check "vfio-user: guest 0 runs in QEMU 10.2's q35 ($machine)" test "$machine" = pc-q35-10.2
fi
barrier vfio-user-device 600
if [ "$QRNIC_IDX" = 0 ]; then
	if diff -u "$QRNIC_SHARE/lspci-1" "$QRNIC_SHARE/lspci-0" > /tmp/lspci.diff; then
		pass "vfio-user: lspci -vv reads as the in-QEMU device's ($(wc -l < "$QRNIC_SHARE/lspci-0") lines)"
	else
		sed 's/^/#   /' /tmp/lspci.diff
		fail "vfio-user: lspci -vv differs from the in-QEMU device's"
	fi
fi

pair_parts 0 1 "$parts"
pair_parts 0 2 "$parts"
# The host reads qrnic-vfio-user's `info threads` (vfio-user-host.sh).
if [ "$QRNIC_IDX" = 0 ]; then
	touch "$QRNIC_SHARE/vfio-user-threads-req"
	wait_for vfio-user-threads-done 60 ||
		fail "vfio-user: the host never read qrnic-vfio-user's threads"
fi
finish
