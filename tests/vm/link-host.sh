#!/bin/bash
# Host side of tests/vm/link.sh: flips guest 0's link through its monitor.
set -u
. "$(dirname "$0")/host-lib.sh"

await() {
	for _ in $(seq 900); do
		[ -e "$QRNIC_SHARE/$1" ] && return 0
		[ -e "$QRNIC_SHARE/finished-0" ] && return 1
		sleep 0.2
	done
	return 1
}

await link-off-req || { echo "link-host: guest 0 never asked for link off"; exit 1; }
mon 0 'set_link n0 off' && touch "$QRNIC_SHARE/link-off-done"
await link-on-req || { echo "link-host: guest 0 never asked for link on"; exit 1; }
mon 0 'set_link n0 on' && touch "$QRNIC_SHARE/link-on-done"
