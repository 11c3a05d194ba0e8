#!/bin/bash
# Host side of tests/vm/nvme.sh: when a guest asks (nvme-flap-req-ROUND holds
# the target guest's index), take that guest's link down for 10 seconds
# through its monitor.  Ends when every guest has finished.
set -u
. "$(dirname "$0")/host-lib.sh"

all_finished() {
	local i
	for ((i = 0; i < QRNIC_NGUESTS; i++)); do
		[ -e "$QRNIC_OUTDIR/out/guest$i.rc" ] || return 1
	done
}
declare -A done_req
while ! all_finished; do
	for req in "$QRNIC_SHARE"/nvme-flap-req-*; do
		# Seen before the guest's write lands (over the share) it is
		# empty: wait for the guest's index.
		[ -s "$req" ] || continue
		r=${req##*-}
		[ -n "${done_req[$r]:-}" ] && continue
		done_req[$r]=1
		read -r g < "$req"
		echo "nvme-host: round $r: guest $g's link off for 10 s"
		mon "$g" 'set_link n0 off' && touch "$QRNIC_SHARE/nvme-flap-off-$r"
		sleep 10
		mon "$g" 'set_link n0 on' && touch "$QRNIC_SHARE/nvme-flap-on-$r"
		echo "nvme-host: round $r: guest $g's link on"
	done
	sleep 0.2
done
