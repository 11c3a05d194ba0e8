#!/bin/bash
# DKMS, as a user installs the driver (README, "DKMS"): driver/dkms/build.sh
# makes qrnic-dkms_*.deb; `dpkg -i` of it in a Debian trixie system with
# Linux 7.3's headers and Debian's dkms (vm-images/kbuild-root.sh, changes
# thrown away) must build and install qrnic.ko for that kernel; then a 7.3
# guest loads that module with modprobe (tests/vm/dkms.sh).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=$top/build/dkms
kver=$(vm-images/kver 7.3)
rc=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; rc=1; }

deb=$(driver/dkms/build.sh "$out") || { fail "driver/dkms/build.sh"; exit 1; }
pass "driver/dkms/build.sh: $(basename "$deb")"
rm -f "$out/qrnic.ko"
log=$out/install.log
vm-images/kbuild-root.sh -t "$kver" /bin/sh -ec '
	dpkg -i "$1"
	dkms status qrnic
	cp "/lib/modules/$2/updates/dkms/qrnic.ko" "$3/qrnic.ko"
	dpkg -r qrnic-dkms
	[ ! -e "/lib/modules/$2/updates/dkms/qrnic.ko" ] && echo "removed with the package"
' sh "$deb" "$kver" "$out" > "$log" 2>&1
status=$(grep -E "^qrnic/" "$log" || true)
if [ -f "$out/qrnic.ko" ] && echo "$status" | grep -q "$kver.*installed"; then
	pass "dpkg -i $(basename "$deb"): DKMS built and installed qrnic.ko for $kver ($status)"
else
	fail "dpkg -i $(basename "$deb"): DKMS built qrnic.ko for $kver (see $log)"
	tail -n 20 "$log" | sed 's/^/    /'
	exit 1
fi
if grep -q "removed with the package" "$log"; then
	pass "dpkg -r qrnic-dkms takes the module away"
else
	fail "dpkg -r qrnic-dkms takes the module away (see $log)"
fi
QRNIC_DKMS_KO=$out/qrnic.ko tests/vm/run-vms -k 7.3 -t 300 -H tests/vm/dkms-host.sh \
	qrnic -- tests/vm/dkms.sh || rc=1
exit $rc
