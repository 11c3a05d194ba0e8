#!/bin/sh
# scale-cm.sh [HELD [LOOP [SECONDS]]]: many rdma_cm connections between two
# guests (tests/tools/cm-flood.c; guest 1 serves, guest 0 connects):
#   - HELD (default 1000) RC connections established and held at once,
#     then a message each way on each (every byte checked at both ends),
#     then all disconnected; the server checks that all HELD were
#     established at the same time;
#   - LOOP (default 200) times in a row: connect, a message each way,
#     disconnect; the client prints connections per second and the mean
#     time of each step (resolve, create_qp, connect, message, disconnect).
# Each run gives up after SECONDS (default 900) and says where its
# connections were.  Afterwards both guests' QP and cm_id counts are back
# where they were and dmesg has no WARN or BUG.
. "$(dirname "$0")/lib.sh"

held=${1:-1000}
loop=${2:-200}
secs=${3:-900}
[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "scale-cm needs two guests"; finish; }
rdma_gid || finish
peer=${QRNIC_PEER_IPS%% *}
PAIR_TIMEOUT=$((secs + 60))

# res_count KIND: how many objects of KIND (qp, cm_id) this guest's
# device holds.
res_count() {
	rdma resource show 2>/dev/null |
		sed -n "s/^[0-9]*: $QRNIC_IBDEV: .* $1 \([0-9]*\).*/\1/p"
}
qp0=$(res_count qp) cm0=$(res_count cm_id)
echo "    $QRNIC_IBDEV before: $qp0 QPs, $cm0 cm_ids"

# flood K WHAT ARGS: one cm-flood pair on port 19000 + K with ARGS on both
# sides; prints both sides' output and counts its checks.
flood() {
	k=$1 what=$2; shift 2
	port=$((19000 + k))
	out=/tmp/scale-cm-$k.out
	t0=$(date +%s)
	cm_run "scale-cm-$k" 1 "$port" "$out" \
		"cm-flood -s -b $QRNIC_IP -p $port -t $secs $*" \
		"cm-flood -a $peer -b $QRNIC_IP -p $port -t $secs $*"
	rc=$?
	echo "    $what: $(($(date +%s) - t0)) s (guest $QRNIC_IDX, status $rc)"
	tap_result "cm-flood $what (guest $QRNIC_IDX)" "$rc" "$out"
	if [ "$rc" -ne 0 ]; then
		echo "--- rdma statistic show link $QRNIC_IBDEV/1"
		rdma statistic show link "$QRNIC_IBDEV/1"
		device_state
	fi
	barrier "scale-cm-done-$k" "$PAIR_TIMEOUT"
}

flood 0 "$held connections held at once" -n "$held" -c
flood 1 "$loop connect/message/disconnect cycles" -n "$loop" -l

# Every QP and cm_id is gone with the processes (the kernel's CM may keep
# an id in timewait for a moment).
back() { [ "$(res_count qp)" = "$qp0" ] && [ "$(res_count cm_id)" = "$cm0" ]; }
if retry 60 back; then
	pass "$QRNIC_IBDEV: QPs and cm_ids back to $qp0 and $cm0"
else
	fail "$QRNIC_IBDEV: $(res_count qp) QPs and $(res_count cm_id) cm_ids, were $qp0 and $cm0"
fi
if dmesg | grep -Eq 'WARNING|BUG|Oops|general protection'; then
	fail "dmesg has a WARN, BUG or Oops"
	dmesg | grep -E -A5 'WARNING|BUG|Oops|general protection' | head -40
else
	pass "dmesg has no WARN, BUG or Oops"
fi
if [ -d "$hw" ]; then
	for c in retrans_pkts seq_naks_rx backlog_drop ack_timeouts; do
		[ -r "$hw/$c" ] && printf '%s %s ' "$c" "$(cat "$hw/$c")"
	done | sed 's/^/    counters: /; s/ $//'
	echo
fi
finish
