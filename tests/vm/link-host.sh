#!/bin/bash
# Host side of tests/vm/link.sh: flips guest 0's link through its monitor.
set -u
. "$(dirname "$0")/host-lib.sh"

await link-off-req 180 || { echo "link-host: guest 0 never asked for link off"; exit 1; }
mon 0 'set_link n0 off' && touch "$QRNIC_SHARE/link-off-done"
await link-on-req 180 || { echo "link-host: guest 0 never asked for link on"; exit 1; }
mon 0 'set_link n0 on' && touch "$QRNIC_SHARE/link-on-done"
