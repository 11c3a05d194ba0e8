#!/bin/sh
# The peer goes away: guest 1 connects a QP pair with guest 0, proves it
# works, then ends its script (run-vms powers the guest off).  Guest 0 waits
# until the peer no longer answers ping, then sends: the send must complete
# with IBV_WC_RETRY_EXC_ERR after about timeout x (retry_cnt + 1) = 0.54 s
# (generous bounds under TCG), and the device must still take new work.
# Must be the last part of a boot for both guests.
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "gone needs two guests"; finish; }
peer=${QRNIC_PEER_IPS%% *}
if [ "$QRNIC_IDX" = 1 ]; then
	run_tap "rc-check gone (leaving side)" timeout 300 rc-check gone /dev/null
	signal gone-left
	finish
fi
rm -f /tmp/peer-gone
timeout 600 rc-check gone /tmp/peer-gone > /tmp/gone.out 2>&1 &
pid=$!
peer_silent() { ! ping -c 1 -W 1 "$peer" > /dev/null 2>&1; }
if wait_for gone-left 300 && retry 120 peer_silent; then
	pass "guest 1 ($peer) is gone: no ping reply"
else
	fail "guest 1 ($peer) is gone: no ping reply"
fi
: > /tmp/peer-gone
wait "$pid"
tap_result "rc-check gone" $? /tmp/gone.out
finish
