#!/bin/sh
# make bench, in each guest of a pair (tests/bench/run-bench): guest 1
# serves, guest 0 measures ibv_rc_pingpong 4 KiB, ib_write_bw 64 KiB,
# ib_send_lat 2 B and rdma_cm connections per second (cm-flood -l: CONNS
# times connect, a 64-byte message each way, disconnect), REPS times each,
# and prints "bench: KEY VALUE" lines.
# Not a test: it fails only if a run fails, never because of a figure.
#   bench.sh [REPS [ITERS [MTU [SECS [CONNS]]]]]   defaults 3, 500, 1500, 3
#   and 100 (0: no rdma_cm runs)
# ITERS is the iteration count of the latency runs; ib_write_bw runs SECS
# seconds (perftest -D: its average leaves out start-up, and a 500-message
# run at a few hundred MiB/s lasts too short to be a rate).
. "$(dirname "$0")/lib.sh"

reps=${1:-3} iters=${2:-500} mtu=${3:-1500} secs=${4:-3} conns=${5:-100}
[ "$QRNIC_NGUESTS" -ge 2 ] || { echo "bench: FAILED needs two guests"; exit 1; }
# The port's active MTU follows the netdev's (1500: 1024, 9000: 4096); wait
# for it to change, then use it as every run's path MTU (-m: ibv_rc_pingpong
# would use 1024 otherwise).
amtu=$(active_mtu)
if [ "$mtu" != 1500 ]; then
	ip link set "$QRNIC_IFNAME" mtu "$mtu" || { echo "bench: FAILED cannot set MTU $mtu"; exit 1; }
	retry 10 sh -c "[ \"\$(cat /sys/class/net/$QRNIC_IFNAME/mtu)\" = $mtu ]"
	amtu_changed() { [ "$(active_mtu)" != "$amtu" ]; }
	retry 10 amtu_changed
	amtu=$(active_mtu)
fi
rdma_gid > /dev/null || { echo "bench: FAILED no RoCE v2 GID on $QRNIC_IBDEV"; exit 1; }
echo "bench: nic $QRNIC_NIC $QRNIC_IBDEV mtu $(cat "/sys/class/net/$QRNIC_IFNAME/mtu") active_mtu $amtu"

rc=0
# bench_run NAME PARSE CMD...: PARSE (a function) prints "KEY VALUE" lines
# from the client's output; $pair runs CMD in both guests.
pair=pair_run
bench_run() {
	name=$1 parse=$2; shift 2
	out=/tmp/bench-$name.out
	port=$((18800 + n))
	n=$((n + 1))
	if ! $pair "bench-$name" 1 "$port" "$out" "$@"; then
		echo "bench: FAILED $name (guest $QRNIC_IDX):"
		sed 's/^/    /' "$out"
		rc=1
		return
	fi
	[ "$QRNIC_IDX" = 0 ] || return
	vals=$($parse "$out")
	if [ -z "$vals" ] && perftest_uncalibrated "$out"; then
		echo "bench: note: $name: perftest could not calibrate its clock, no figure"
		return
	fi
	if [ -z "$vals" ]; then
		echo "bench: FAILED $name: no figures in the output"
		sed 's/^/    /' "$out"
		rc=1
		return
	fi
	echo "$vals" | sed 's/^/bench: /'
}
num() { awk '{ for (i = 1; i <= NF; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) exit 1 }'; }
parse_pp() {
	v=$(sed -n 's/^[0-9]* iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter$/\1/p' "$1")
	echo "$v" | num && [ -n "$v" ] && echo "pingpong_4k_usec $v"
}
parse_bw() {
	v=$(awk '$1 == 65536 && $2 ~ /^[0-9]+$/ && $2 > 0 { print $4; exit }' "$1")
	echo "$v" | num && [ -n "$v" ] && echo "write_bw_64k_mibps $v"
}
parse_lat() {
	v=$(awk -v n="$iters" '$1 == 2 && $2 == n { print $5, $6; exit }' "$1")
	echo "$v" | num && [ -n "$v" ] && echo "send_lat_2_usec ${v% *}" && echo "send_lat_2_avg_usec ${v#* }"
}

# cm_pair TAG SERVER PORT OUT CONNS: pair_run's part for cm-flood, whose
# server listens through rdma_cm (lib.sh's cm_run waits for that).
cm_pair() {
	cm_run "$1" "$2" "$3" "$4" "cm-flood -s -l -n $5 -b $QRNIC_IP -p $3 -t 100" \
		"cm-flood -l -n $5 -b $QRNIC_IP -p $3 -t 100 -a ${QRNIC_PEER_IPS%% *}"
}
parse_cm() {
	v=$(sed -n 's/^ok - cm-flood: [0-9]* connect, .* s: \([0-9.]*\) conns\/s$/\1/p' "$1")
	echo "$v" | num && [ -n "$v" ] && echo "cm_conns_per_s $v"
}

n=0
r=1
while [ "$r" -le "$reps" ]; do
	bench_run "pp-$r" parse_pp ibv_rc_pingpong -d "$QRNIC_IBDEV" -g "$gid" -m "$amtu" -s 4096 -n "$iters"
	bench_run "wbw-$r" parse_bw ib_write_bw -d "$QRNIC_IBDEV" -x "$gid" -m "$amtu" -F -s 65536 -D "$secs"
	bench_run "lat-$r" parse_lat ib_send_lat -d "$QRNIC_IBDEV" -x "$gid" -m "$amtu" -F -s 2 -n "$iters"
	if [ "$conns" -gt 0 ]; then
		pair=cm_pair
		bench_run "cm-$r" parse_cm "$conns"
		pair=pair_run
	fi
	r=$((r + 1))
done
# The path MTU each tool used: ibv_rc_pingpong prints none, perftest does.
if [ "$QRNIC_IDX" = 0 ]; then
	pmtu() { sed -n 's/^ *Mtu *: *\([0-9]*\)\[B\].*/\1/p' "/tmp/bench-$1-1.out" | head -n 1; }
	echo "bench: path MTU: ibv_rc_pingpong -m $amtu, ib_write_bw $(pmtu wbw), ib_send_lat $(pmtu lat)"
fi
# The device's transport counters tell where bandwidth went (drops, resends).
if [ -d "$hw" ]; then
	for c in tx_roce_pkts rx_roce_pkts retrans_pkts ack_timeouts seq_naks_rx seq_naks_tx dup_reqs; do
		[ -r "$hw/$c" ] && printf '%s %s ' "$c" "$(cat "$hw/$c")"
	done | sed 's/^/bench: counters guest '"$QRNIC_IDX"': /; s/ $//'
	echo
fi
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
