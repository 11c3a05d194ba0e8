#!/bin/bash
# Host side of tests/vm/vfio-user.sh: once guest 0 has run its traffic,
# qrnic-vfio-user's `info threads` must show both threads at work (vfio-user
# messages and doorbells on the client's thread, frames in and out on the
# device's, CPU time on each), and prints it.
set -u
. "$(dirname "$0")/host-lib.sh"

await vfio-user-threads-req ||
	{ echo "not ok - vfio-user threads: guest 0 never asked"; exit 1; }
out=$("$(dirname "$0")/hmp" "$QRNIC_VU_CTL0" 'info threads')
touch "$QRNIC_SHARE/vfio-user-threads-done"
echo "# qrnic-vfio-user: $out"
if echo "$out" | awk '/^client thread: [0-9]+ messages \([0-9]+ doorbells\), [0-9.]+ s CPU.*device thread: [0-9]+ frames in, [0-9]+ out, [0-9]+ wakes, [0-9.]+ s CPU/ {
	split($0, a, /[^0-9.]+/)
	# a[2] messages, a[3] doorbells, a[4] CPU; a[6] frames in, a[7] out, a[9] CPU
	found = a[2] > 0 && a[3] > 0 && a[4] > 0 && a[6] > 0 && a[7] > 0 && a[9] > 0
} END { exit !found }'; then
	echo "ok - vfio-user threads: the client thread handled messages and doorbells, the device thread frames in and out, each took CPU time"
else
	echo "not ok - vfio-user threads: info threads shows a thread idle or no figures: $out"
	exit 1
fi
