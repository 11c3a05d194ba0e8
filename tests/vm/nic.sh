#!/bin/sh
# Which RDMA device the RC checks run on, so a run cannot silently test
# something else: on qrnic guests $QRNIC_IBDEV must be the qrnic PCI
# function's (driver qrnic, lspci "Kernel driver in use: qrnic"); on virtio
# guests an rdma_rxe link on the virtio-net netdev.  Both: port ACTIVE with
# $QRNIC_IFNAME as its netdev.
. "$(dirname "$0")/lib.sh"

link=$(rdma link show "$QRNIC_IBDEV/1" 2>&1)
echo "    $link"
expect_match "rdma link: $QRNIC_IBDEV/1 ACTIVE on $QRNIC_IFNAME" \
	"^link $QRNIC_IBDEV/1 state ACTIVE physical_state LINK_UP netdev $QRNIC_IFNAME *\$" "$link"
case "$QRNIC_NIC" in
qrnic)
	drv=$(readlink "/sys/class/infiniband/$QRNIC_IBDEV/device/driver")
	check "$QRNIC_IBDEV is bound to the qrnic driver (${drv##*/})" test "${drv##*/}" = qrnic
	expect_match "lspci: qrnic function, Kernel driver in use: qrnic" \
		'Kernel driver in use: qrnic' "$(lspci -vv -d 1b36:0130)"
	;;
virtio)
	check "$QRNIC_IBDEV is an rdma_rxe device" test -d /sys/module/rdma_rxe
	;;
*) fail "unknown NIC kind '$QRNIC_NIC'" ;;
esac
finish
