#!/bin/sh
# The newest stack against the ones users run beside it, in one boot of
# three guests:
#   guest 0  qrnic, Linux KERNEL, QEMU QEMU_VERSION, rdma-core RDMA_CORE
#            (run-vms -k with QRNIC_QEMU_0 and QRNIC_INITRD_EXTRA_0)
#   guest 1  qrnic, the project's kernel, QEMU and rdma-core
#   guest 2  rxe on virtio-net
# Guest 0 checks that it runs what it should; the qrnic guests check their
# device (device.sh: lspci, rdma link, ibv_devinfo, GIDs).  Then guest 0
# pairs with guest 1, and after that with guest 2, for the RC data path
# (ibv_rc_pingpong), rdma_cm (rping), UD (ibv_ud_pingpong), SRQ
# (ibv_srq_pingpong) and NVMe over RDMA both ways (nvme.sh, NVME_QUICK);
# the guest not in the pair waits.  Each part script sees a world of two:
# QRNIC_IDX 0 or 1, its partner in QRNIC_PEER_IPS, a share of the pair's
# own; its check names are prefixed with the pair.
#   newest.sh KERNEL QEMU_VERSION RDMA_CORE PROVIDER
#   e.g. newest.sh 7.3 10.2 65.0 libqrnic-rdmav65.so
. "$(dirname "$0")/lib.sh"

dir=$(dirname "$0")
want_kernel=$1 want_qemu=$2 want_rdma_core=$3 want_provider=$4
[ "$QRNIC_NGUESTS" = 3 ] || { fail "newest: needs three guests"; finish; }
echo "# guest $QRNIC_IDX: $QRNIC_NIC on $QRNIC_KVER, machine $(cat /sys/class/dmi/id/product_version)," \
	"$(readlink /usr/lib/x86_64-linux-gnu/libibverbs.so.1)"

# The providers libibverbs loads (it loads every configured one).
loaded_providers() {
	LD_DEBUG=libs ibv_devinfo -l 2>&1 |
		sed -n 's|.*calling init: .*/libibverbs/\(lib[a-z0-9_]*-rdmav[0-9]*\.so\)$|\1|p'
}

if [ "$QRNIC_IDX" = 0 ]; then
	case "$QRNIC_KVER" in
	"$want_kernel".*) pass "newest: guest 0 runs Linux $QRNIC_KVER" ;;
	*) fail "newest: guest 0 runs Linux $QRNIC_KVER, not $want_kernel" ;;
	esac
	machine=$(cat /sys/class/dmi/id/product_version)
	check "newest: guest 0's machine is QEMU $want_qemu's q35 ($machine)" \
		test "$machine" = "pc-q35-$want_qemu"
	lib=$(readlink /usr/lib/x86_64-linux-gnu/libibverbs.so.1)
	case "$lib" in
	libibverbs.so.1.*."$want_rdma_core") pass "newest: libibverbs is rdma-core $want_rdma_core's ($lib)" ;;
	*) fail "newest: libibverbs is $lib, not rdma-core $want_rdma_core's" ;;
	esac
	loaded=$(loaded_providers)
	check "newest: libibverbs loads $want_provider ($(echo $loaded | wc -w) providers loaded)" \
		sh -c 'printf "%s\n" "$1" | grep -qx "$2"' sh "$loaded" "$want_provider"
	devices=$(ibv_devinfo -l 2>&1)
	check "newest: ibv_devinfo -l lists qrnic0 and prints no warning" \
		sh -c 'printf "%s\n" "$1" | grep -qx "[[:space:]]*qrnic0" && ! printf "%s\n" "$1" | grep -qi warning' \
		sh "$devices"
fi
if [ "$QRNIC_NIC" = qrnic ]; then
	run_tap "newest: device.sh" sh "$dir/device.sh"
fi
barrier newest-device 600

parts="pingpong.sh default s65536 chk|cm.sh rping|ud.sh pingpong|srquc.sh srq|nvme.sh 0 1"
pair_parts 0 1 "$parts"
pair_parts 0 2 "$parts"
finish
