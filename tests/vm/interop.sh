#!/bin/sh
# Interoperability between a qrnic guest and a virtio-net guest running
# rdma_rxe (run-vms qrnic virtio -- interop.sh), each side in both roles:
# ibv_rc_pingpong (guest 1 serving, then guest 0), ib_write_bw and
# ib_read_bw (each direction), and rc-check integrity (both directions).
dir=$(dirname "$0")
rc=0
echo "# guest $QRNIC_IDX: $QRNIC_NIC ($QRNIC_IBDEV on $QRNIC_IFNAME), kernel $QRNIC_KVER"
for part in nic "pingpong default default" "perftest write_bw read_bw" "integrity interop"; do
	echo "# $part"
	set -- $part
	name=$1; shift
	sh "$dir/$name.sh" "$@" || rc=1
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
