#!/bin/sh
# The loss matrix: RC traffic between two guests while the qrnic device(s)
# inject faults on RoCE frames both ways (run-vms passes the properties):
#   QRNIC_DEVICE_PROPS=x-drop-ppm=100000,x-reorder-ppm=50000,x-dup-ppm=10000,x-corrupt-ppm=10000 \
#   tests/vm/run-vms -H tests/vm/loss-host.sh qrnic qrnic|virtio -- tests/vm/loss.sh
# Parts, in order (default: all):
#   pingpong   ibv_rc_pingpong -c (buffers checked) at 1 B, 4 KiB, 64 KiB, 1 MiB
#   integrity  rc-check integrity (every opcode, byte and completion, both ways)
#   perftest   ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_bw
#   counters   each qrnic guest's fault counters moved, ICRC errors counted
#   total      tests/vm/loss-host.sh sets x-drop-ppm=1000000 from the monitor;
#              a qrnic guest's ibv_rc_pingpong client ends in RETRY_EXC_ERR
#              (status 12) after its retries (timeout 14, retry_cnt 7: 8 x
#              67 ms); an rdma_rxe client (retry_cnt 7 is "forever" to rxe)
#              and the servers complete nothing
# Every command runs under a timeout.
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "loss needs two guests"; finish; }
rdma_gid || finish
PAIR_TIMEOUT=${PAIR_TIMEOUT:-180}
k=0

role() { [ "$QRNIC_IDX" = "$1" ] && echo server || echo client; }

# pingpong SERVER SIZE ITERS
# ibv_rc_pingpong has no closing handshake: a side exits once its last
# SEND is acknowledged and its last receive is in, so if the ACK of the
# other side's last SEND is lost, that side resends to a QP that is gone
# and ends in RETRY_EXC_ERR (rxe: resends forever, retry_cnt 7).  That
# ending is accepted when the peer completed every iteration with its
# buffers checked (so every one of our SENDs arrived); the peers report
# their results through the share.
#
# The accepted ending can take a side the whole timeout (rxe resends
# until it), so each run starts once both sides are done with the one
# before: a server that started listening earlier would spend its own
# timeout waiting for the client.
pp_prev=
pingpong() {
	out=/tmp/loss-pp-$k.out
	bytes=$(($2 * $3 * 2))
	peer=$((1 - QRNIC_IDX))
	desc="ibv_rc_pingpong -c -s $2 -n $3 under loss ($(role "$1") g$QRNIC_IDX $QRNIC_IBDEV)"
	if [ -n "$pp_prev" ] && ! wait_for "loss-pp-$pp_prev-done-$peer" 150; then
		echo "# pingpong: g$peer never finished run $pp_prev"
	fi
	pp_prev=$k
	PAIR_TIMEOUT=90 pair_run "loss-pp-$k" "$1" $((18800 + k)) "$out" \
		ibv_rc_pingpong -d "$QRNIC_IBDEV" -g "$gid" -c -s "$2" -n "$3"
	rc=$?
	if [ "$rc" -eq 0 ] &&
		grep -Eq "^$bytes bytes in [0-9.]+ seconds" "$out" &&
		grep -Eq "^$3 iters in [0-9.]+ seconds" "$out" &&
		! grep -Eiq 'invalid|fail|error|couldn|unable|mismatch' "$out"; then
		signal "loss-pp-$k-ok-$QRNIC_IDX"
		pass "$desc: $bytes bytes, every buffer checked"
	elif { grep -q 'Failed status .*(12) for wr_id 2' "$out" ||
		{ [ "$rc" -eq 124 ] && [ "$QRNIC_NIC" != qrnic ]; }; } &&
		wait_for "loss-pp-$k-done-$peer" 100 &&
		[ -e "$QRNIC_SHARE/loss-pp-$k-ok-$peer" ]; then
		rm -f "$QRNIC_SHARE/pair-run-hung"
		pass "$desc: the peer completed all $3 iterations, buffers checked; the ACK of our last SEND was lost as it exited (status $rc)"
	else
		fail "$desc: status $rc"
		sed 's/^/    /' "$out"
		# Which side stalled: the device's counters (rxe's too) right away.
		echo "    $QRNIC_IBDEV hw_counters:$(ls "$hw" 2>/dev/null |
			while read -r n; do v=$(hwc "$n")
				[ "$v" = 0 ] || printf ' %s %s' "$n" "$v"; done)"
	fi
	signal "loss-pp-$k-done-$QRNIC_IDX"
	k=$((k + 1))
}

# perf SERVER TEST ITERS [SIZE]
perf() {
	out=/tmp/loss-perf-$k.out
	size=${4:-8}
	desc="ib_$2 -n $3${4:+ -s $4} under loss ($(role "$1") g$QRNIC_IDX $QRNIC_IBDEV)"
	pair_run "loss-perf-$k" "$1" $((18900 + k)) "$out" \
		"ib_$2" -d "$QRNIC_IBDEV" -x "$gid" -F -n "$3" ${4:+-s "$4"}
	rc=$?
	row=$(awk -v s="$size" -v n="$3" '$1 == s && $2 == n && NF >= 5 { print; exit }' "$out")
	if [ "$rc" -eq 0 ] && { [ "$(role "$1")" = server ] || [ -n "$row" ]; }; then
		pass "$desc: exit 0${row:+, $row}"
	else
		fail "$desc: status $rc${row:+, $row}"
		sed 's/^/    /' "$out"
	fi
	k=$((k + 1))
}

counters() {
	[ "$QRNIC_NIC" = qrnic ] || return 0
	s=
	for n in fault_drop_tx fault_drop_rx fault_dup_tx fault_dup_rx \
		fault_reorder_tx fault_reorder_rx fault_corrupt_tx fault_corrupt_rx \
		rx_icrc_err retrans_pkts ack_timeouts dup_reqs; do
		s="$s $n $(hwc $n)"
	done
	echo "# g$QRNIC_IDX counters:$s"
	for a in drop dup reorder corrupt; do
		n=$(($(hwc fault_${a}_tx) + $(hwc fault_${a}_rx)))
		if [ "$n" -gt 0 ]; then
			pass "g$QRNIC_IDX fault_${a}_tx + fault_${a}_rx = $n"
		else
			fail "g$QRNIC_IDX: no $a fault counted"
		fi
	done
	if [ "$(hwc rx_icrc_err)" -ge "$(hwc fault_corrupt_rx)" ] &&
		[ "$(hwc rx_icrc_err)" -gt 0 ]; then
		pass "g$QRNIC_IDX: corrupted frames dropped as ICRC errors ($(hwc rx_icrc_err))"
	else
		fail "g$QRNIC_IDX: rx_icrc_err $(hwc rx_icrc_err) below fault_corrupt_rx $(hwc fault_corrupt_rx)"
	fi
}

# All RoCE frames of the qrnic guests dropped from now on; the client of
# each run gives up with RETRY_EXC_ERR, the server never hears from it.
total() {
	barrier loss-total 300 || { fail "the other guest never reached the total loss part"; return; }
	[ "$QRNIC_IDX" = 0 ] && signal drop-all-req
	if ! wait_for drop-all-done 60; then
		fail "loss-host.sh never set x-drop-ppm=1000000 (run-vms -H tests/vm/loss-host.sh)"
		return
	fi
	for server in 1 0; do
		out=/tmp/loss-total-$k.out
		t0=$(date +%s.%N)
		PAIR_TIMEOUT=25 pair_run "loss-total-$k" "$server" $((18800 + k)) "$out" \
			ibv_rc_pingpong -d "$QRNIC_IBDEV" -g "$gid" -n 5
		rc=$?
		t=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')
		desc="x-drop-ppm=1000000: ibv_rc_pingpong ($(role "$server") g$QRNIC_IDX $QRNIC_IBDEV)"
		if [ "$(role "$server")" = server ] || [ "$QRNIC_NIC" != qrnic ]; then
			# rdma_rxe takes retry_cnt 7 (ibv_rc_pingpong's) as "forever".
			if [ "$rc" -ne 0 ]; then
				pass "$desc: no exchange completes (status $rc)"
			else
				fail "$desc: completed"; sed 's/^/    /' "$out"
			fi
		elif [ "$rc" -ne 0 ] && grep -q 'Failed status .*(12)' "$out" &&
			awk -v t="$t" 'BEGIN { exit !(t >= 0.5) }'; then
			pass "$desc: $(grep -m1 'Failed status' "$out") after $t s"
		else
			fail "$desc: status $rc after $t s, want \"Failed status ... (12)\" after >= 8 x 67 ms"
			sed 's/^/    /' "$out"
		fi
		# Both sides done before the next run; the server's hang is expected.
		rm -f "$QRNIC_SHARE/pair-run-hung"
		barrier "loss-total-done-$k" 120
		k=$((k + 1))
	done
}

for part in ${*:-pingpong integrity perftest counters total}; do
	start=$(date +%s)
	case "$part" in
	pingpong)
		pingpong 1 1 100
		pingpong 0 4096 50
		pingpong 1 65536 10
		pingpong 0 1048576 3
		;;
	integrity)
		run_tap "rc-check integrity under loss" timeout 600 \
			rc-check -T loss-integrity -t 120 integrity
		;;
	perftest)
		perf 1 write_bw 20 65536
		perf 0 read_bw 20 65536
		perf 1 atomic_bw 100
		perf 0 send_bw 20 65536
		;;
	counters) counters ;;
	total) total ;;
	*) fail "unknown part $part" ;;
	esac
	echo "# $part: $(($(date +%s) - start)) s"
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
finish
