#!/bin/sh
# Runs in the guest (tests/blktests/run-blktests): blktests' check with the
# given tests or groups, from a copy in /tmp; its results directory goes
# to the share.
. "$(dirname "$0")/lib.sh"

mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# The test image runs no udev daemon and leaves out udevadm's library;
# blktests calls `udevadm settle`, which with no daemon has nothing to
# wait for and returns at once, as this stand-in does.
if ! udevadm --version > /dev/null 2>&1; then
	mkdir -p /tmp/bin
	printf '#!/bin/sh\n# no udev daemon in this guest: nothing to settle or trigger\nexit 0\n' > /tmp/bin/udevadm
	chmod +x /tmp/bin/udevadm
	PATH=/tmp/bin:$PATH
fi
cp -a /scripts/blktests /tmp/blktests || exit 1
cd /tmp/blktests || exit 1
echo "# blktests on $QRNIC_NIC ($QRNIC_IBDEV), $(uname -r), $(nproc) vCPUs: $*"
./check -o /tmp/blktests-results "$@" 2>&1
rc=$?
cp -a /tmp/blktests-results "$QRNIC_SHARE/results-$QRNIC_NIC" 2>/dev/null
exit "$rc"
