#!/bin/sh
# Many QPs between two guests: ib_write_bw, ib_send_bw and ib_read_bw with
# -q 8, 32 and 64 (64 KiB messages), each guest serving once; both sides
# must exit 0 and the client print its result row.  Then the goodput with
# one QP and with 8 (ib_write_bw -D 4, guest 0 sending), and the transport
# counters of a qrnic sender (three rounds, medians compared).  With -g
# the 8 QPs together must carry at least half of what one does (three more
# rounds if three fall short): a guard against QPs starving each other, as
# 8 QPs once carried a sixth of one QP's goodput.  The figures themselves
# vary by a quarter from host load, so they are printed, not judged
# (make bench measures; tests/unit/test_load checks the sharing in
# simulated time).  Without -g the figures are printed only.  -u T gives
# every run the QP timeout T (perftest's -u; its default is 14, 67 ms).
#   multiqp.sh [-g] [-u T] [QPS...]   default 8 32 64
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "multiqp needs two guests"; finish; }
rdma_gid || finish
PAIR_TIMEOUT=240
gate= qp_timeout=
if [ "${1:-}" = -g ]; then gate=1; shift; fi
if [ "${1:-}" = -u ]; then qp_timeout="-u $2"; shift 2; fi

# counters NAME...: "name value" of this qrnic device's transport counters.
counters() {
	[ "$QRNIC_NIC" = qrnic ] || return 0
	for _c in "$@"; do
		[ -r "$hw/$_c" ] && printf '%s %s ' "$_c" "$(cat "$hw/$_c")"
	done
}

# show_run FILE: a failed run's output without its per-QP address lines,
# which push perftest's error (stderr, written before the buffered rest)
# out of sight with many QPs.
show_run() {
	grep -v -e 'GID:' -e 'remote address' -e 'local address' "$1" | tail -n 25 |
		sed 's/^/    /'
}

k=0
# mq TEST QPS ITERS SERVER
mq() {
	test=$1 q=$2 iters=$3 server=$4
	out=/tmp/multiqp-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role=server; else role=client; fi
	desc="ib_$test -q $q, server g$server ($role g$QRNIC_IDX $QRNIC_IBDEV)"
	pair_run "multiqp-$k" "$server" $((18900 + k)) "$out" \
		"ib_$test" -d "$QRNIC_IBDEV" -x "$gid" -F -q "$q" -s 65536 -n "$iters" $qp_timeout
	rc=$?
	k=$((k + 1))
	# perftest's iteration column counts every QP's iterations.
	row=$(awk -v n=$((iters * q)) '$1 == 65536 && $2 == n && NF >= 5 { print; exit }' "$out")
	if [ "$rc" -ne 0 ]; then
		fail "$desc: status $rc"
		show_run "$out"
	elif [ "$role" = server ]; then
		pass "$desc: exit 0"
	elif [ -n "$row" ]; then
		pass "$desc: 64 KiB x $iters per QP, $(echo "$row" | awk '{ print $4 }') MiB/s average"
	else
		fail "$desc: no result row"
		show_run "$out"
	fi
}

for q in ${*:-8 32 64}; do
	# About 20 MiB per run: rxe under TCG moves 10-20 MiB/s.
	iters=$((320 / q))
	for test in write_bw send_bw read_bw; do
		for server in 1 0; do
			mq "$test" "$q" "$iters" "$server"
		done
	done
done

# The receiver's load, to tell a slow peer from a slow sender: busy and
# all jiffies of this guest's CPUs, and the RoCE packets its device took in.
rx_load() {
	if [ -r "$hw/rcvd_pkts" ]; then _rx=$(hwc rcvd_pkts); else _rx=$(hwc rx_roce_pkts); fi
	awk -v rx="$_rx" '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $2 + $3 + $4 + $5 + $6 + $7 + $8, rx }' /proc/stat
}

# goodput QPS ROUND: ib_write_bw -D 4 from guest 0; sets bw (MiB/s
# average).  Each run has a rendezvous tag and a port of its own.  The
# receiving guest prints its CPU's busy share over the run (setup
# included) and its CPU time per packet received.
goodput() {
	out=/tmp/multiqp-gp-$1-$2.out
	_load=$(rx_load)
	pair_run "multiqp-gp-$1-$2" 1 $((18900 + 100 * $2 + $1)) "$out" \
		ib_write_bw -d "$QRNIC_IBDEV" -x "$gid" -F -q "$1" -s 65536 -D 4 $qp_timeout
	_rc=$?
	bw=$(awk '$1 == 65536 && NF >= 5 { print $4; exit }' "$out")
	[ "$QRNIC_IDX" = 1 ] && echo "$_load $(rx_load)" | awk -v q="$1" -v r="$2" '{
		busy = $4 - $1; all = $5 - $2; rx = $6 - $3
		if (all > 0 && rx > 0)
			printf "# goodput -q %d, round %d: receiver busy %.0f%%, %.1f us CPU per packet received (%d)\n",
				q, r, 100 * busy / all, busy * 10000 / rx, rx }'
	[ "$_rc" -eq 0 ] && [ -n "$bw" ]
}
# median FIGURE...: the middle figure (the mean of the middle two).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
		END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# rounds FROM TO: goodput rounds of one QP then 8; ok empty on failure.
rounds() {
	for round in $(seq "$1" "$2"); do
		if goodput 1 "$round"; then ones="$ones $bw"; else ok=; return; fi
		if goodput 8 "$round"; then eights="$eights $bw"; else ok=; return; fi
	done
}
# enough: do the medians of 8 QPs carry at least half of one's?
enough() {
	awk -v a="$(median $eights)" -v b="$(median $ones)" 'BEGIN { exit !(a >= 0.5 * b) }'
}
before=$(counters retrans_pkts ack_timeouts)
# Three rounds of one QP then 8, compared by their medians: a single pair
# of 4-second runs on a 2-core TCG host varies by a quarter from load, and
# a median of three still lands up to a sixth either side
# (docs/performance.md).  Short of half, three more rounds follow and the
# medians of all six decide; guest 0 tells guest 1 whether they run.
ones= eights= ok=1
rounds 1 3
n=3
if [ -n "$ok" ] && [ -n "$gate" ]; then
	if [ "$QRNIC_IDX" = 0 ]; then
		{ enough && echo 3 || echo 6; } > "$QRNIC_SHARE/multiqp-rounds.tmp"
		mv "$QRNIC_SHARE/multiqp-rounds.tmp" "$QRNIC_SHARE/multiqp-rounds"
	fi
	wait_for multiqp-rounds 120 && n=$(cat "$QRNIC_SHARE/multiqp-rounds")
	[ "$n" = 6 ] && rounds 4 6
fi
if [ -n "$ok" ]; then
	bw1=$(median $ones) bw8=$(median $eights)
	what="goodput, median of $n: 8 QPs $bw8 MiB/s ($eights ), 1 QP $bw1 MiB/s ($ones )"
	if [ "$QRNIC_IDX" = 0 ] && [ -n "$gate" ]; then
		check "$what: 8 QPs at least half of 1 (no starvation)" enough
	elif [ "$QRNIC_IDX" = 0 ]; then
		echo "# $what (not checked: no -g)"
	fi
	[ "$QRNIC_IDX" = 0 ] &&
		echo "# counters before: $before; after: $(counters retrans_pkts ack_timeouts)"
else
	fail "goodput runs (ib_write_bw -D 4, -q 1 and -q 8): status $_rc"
	show_run "$out"
fi
finish
