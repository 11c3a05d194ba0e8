#!/bin/sh
# perftest between two guests, each test twice: guest 1 serving, then guest 0.
# Both sides must exit 0; the client must print its result row (size,
# iteration count and positive figures).  Few iterations: rxe under TCG is slow.
#   perftest.sh [TEST...]   default: all of
#   send_bw write_bw read_bw atomic_bw send_lat write_lat read_lat
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "perftest needs two guests"; finish; }
rdma_gid || finish

# perf K TEST SERVER
perf() {
	k=$1 test=$2 server=$3
	case "$test" in
	*_lat) size=2 iters=100 ;;
	atomic_bw) size=8 iters=100 ;;
	*_bw) size=65536 iters=100 ;;
	esac
	sizeopt="-s $size"
	[ "$test" = atomic_bw ] && sizeopt=
	out=/tmp/perftest-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role=server; else role=client; fi
	desc="ib_$test, server g$server, client g$((1 - server)) ($role g$QRNIC_IDX $QRNIC_IBDEV)"
	pair_run "perftest-$k" "$server" $((18700 + k)) "$out" \
		"ib_$test" -d "$QRNIC_IBDEV" -x "$gid" -F -n "$iters" $sizeopt
	rc=$?
	# The result row: "SIZE ITERS ..."; bw: peak, average, msg rate;
	# lat: min, max, typical, average (the later columns can be -nan).
	row=$(awk -v s="$size" -v n="$iters" '$1 == s && $2 == n && NF >= 5 { print; exit }' "$out")
	case "$test" in
	*_bw) last=5 fig=$(echo "$row" | awk '{ print $4 " MiB/s average, " $5 " Mpps" }') ;;
	*_lat) last=6 fig=$(echo "$row" | awk '{ print $5 " usec typical, " $6 " average" }') ;;
	esac
	if [ "$rc" -ne 0 ]; then
		fail "$desc: status $rc"
		sed 's/^/    /' "$out"
	elif [ "$role" = server ]; then
		pass "$desc: exit 0"
	elif [ -n "$row" ] && echo "$row" | awk -v l="$last" '{
		for (i = 3; i <= l; i++) if ($i !~ /^[0-9]+(\.[0-9]+)?$/) exit 1
		exit !($5 + 0 > 0) }'; then
		pass "$desc: $size B x $iters, $fig"
	elif [ -n "$row" ] && perftest_uncalibrated "$out"; then
		# The run itself (exit 0, all iterations) is fine; only
		# perftest's conversion of cycles to usec failed.
		pass "$desc: $size B x $iters (perftest could not calibrate its clock: figures inf)"
	else
		fail "$desc: no result row \"$size $iters ...\" with numeric figures"
		sed 's/^/    /' "$out"
	fi
}

k=0
for t in ${*:-send_bw write_bw read_bw atomic_bw send_lat write_lat read_lat}; do
	for server in 1 0; do
		perf "$k" "$t" "$server"
		k=$((k + 1))
	done
done
finish
