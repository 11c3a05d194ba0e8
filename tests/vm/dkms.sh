#!/bin/sh
# The driver as a DKMS user gets it: the qrnic.ko that `dpkg -i
# qrnic-dkms_*.deb` built with DKMS for this kernel (tests/dkms.sh, handed
# over through the share by tests/vm/dkms-host.sh) replaces the image's;
# depmod and `modprobe qrnic` load it, and the RDMA link comes up ACTIVE
# with a device that answers ibv_devinfo.
. "$(dirname "$0")/lib.sh"

kver=$(uname -r)
if ! wait_for dkms-ready 120; then
	fail "the DKMS-built module arrived in the share"
	finish
fi
ko=$QRNIC_SHARE/qrnic.ko
check "the DKMS-built module is for this kernel ($kver)" \
	sh -c "modinfo -F vermagic '$ko' | grep -q '^$kver '"
rmmod qrnic
rm -f "/lib/modules/$kver/updates/qrnic.ko"
mkdir -p "/lib/modules/$kver/updates/dkms"
cp "$ko" "/lib/modules/$kver/updates/dkms/qrnic.ko"
depmod -a
where=$(modinfo -n qrnic 2>/dev/null)
check "modinfo -n qrnic names the DKMS module ($where)" \
	test "$where" = "/lib/modules/$kver/updates/dkms/qrnic.ko"
check "modprobe qrnic" modprobe qrnic
active() { rdma link show 2>/dev/null | grep -q "^link qrnic0/1 state ACTIVE .* netdev $QRNIC_IFNAME *\$"; }
retry 20 test -e "/sys/class/net/$QRNIC_IFNAME" &&
	ip addr add "$QRNIC_IP/24" dev "$QRNIC_IFNAME" && ip link set "$QRNIC_IFNAME" up
check "rdma link: qrnic0/1 ACTIVE on $QRNIC_IFNAME" retry 20 active
check "ibv_devinfo -d qrnic0: PORT_ACTIVE" \
	sh -c "ibv_devinfo -d qrnic0 | grep -q 'state:.*PORT_ACTIVE'"
bad=$(dmesg | grep -E 'WARNING|BUG|Oops|general protection|refcount|use-after-free' || true)
[ -z "$bad" ] || printf '%s\n' "$bad" | sed 's/^/    dmesg: /'
check "dmesg has no WARN, BUG or Oops" test -z "$bad"
finish
