#!/bin/bash
# Host side of tests/vm/loss.sh: when guest 0 asks, every qrnic guest's
# device drops all RoCE frames from then on (x-drop-ppm=1000000, set at
# run time from its monitor).  A virtio guest's monitor answers "no such
# device"; that is harmless.
set -u
. "$(dirname "$0")/host-lib.sh"

for _ in $(seq 3000); do
	[ -e "$QRNIC_SHARE/drop-all-req" ] && break
	if [ -e "$QRNIC_SHARE/finished-0" ]; then
		echo "loss-host: guest 0 finished without asking for total loss"
		exit 0
	fi
	sleep 0.2
done
[ -e "$QRNIC_SHARE/drop-all-req" ] || { echo "loss-host: never asked"; exit 1; }
for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	mon "$i" 'qom-set /machine/peripheral/nic0 x-drop-ppm 1000000' || exit 1
	echo "loss-host: guest $i: qom-set x-drop-ppm 1000000"
done
touch "$QRNIC_SHARE/drop-all-done"
