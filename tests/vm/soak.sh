#!/bin/sh
# The soak (issue 10): two qrnic guests run `rc-check soak` at once for
# SECONDS: random opcodes, sizes and QP counts, QPs created and destroyed
# throughout, every byte and completion checked (tests/tools/rc-soak.c);
# run it with loss injected by the devices (QRNIC_DEVICE_PROPS=
# x-drop-ppm=10000,...).  Afterwards each guest's resource counts
# (hw_counters/res_*, `rdma resource show`) are back where they were and
# dmesg is clean.  With RSS_AFTER > 0 the host script tests/vm/soak-host.sh
# (run-vms -H) takes each QEMU's resident memory RSS_AFTER seconds into the
# traffic and again at its end, and checks that it grew by at most 16 MiB.
# Then RELOADS cycles: both guests `rmmod qrnic; modprobe qrnic`, bring
# the link up, ping, and run a one-round `rc-check soak` (fresh QPs, every
# opcode possible, every byte checked) between them; counts and dmesg
# checked again at the end.
# LOSS 1: the devices inject loss, so their fault_drop_* counters must move.
#   soak.sh [SECONDS [SEED [QPS [RELOADS [RSS_AFTER [LOSS]]]]]]   (120 1 8 0 0 0)
. "$(dirname "$0")/lib.sh"
# The host script stops waiting once guest 0 is done.
end() { signal "finished-$QRNIC_IDX"; finish; }

secs=${1:-120} seed=${2:-1} qps=${3:-8} reloads=${4:-0} rss_after=${5:-0} loss=${6:-0}
[ "$QRNIC_NGUESTS" = 2 ] || { fail "soak needs two guests"; end; }

# rdma_counts: what `rdma resource show` counts for $QRNIC_IBDEV.
rdma_counts() {
	_l=$(rdma resource show "$QRNIC_IBDEV") || return 1
	echo "${_l#*: $QRNIC_IBDEV: }"
}
counts() { echo "hw: $(hw_counts); rdma: $(rdma_counts)"; }
counts_are() { [ "$(counts)" = "$1" ]; }
dmesg_bad() {
	dmesg | grep -E 'WARNING|BUG|Oops|leak|general protection|refcount|use-after-free|hung task' || true
}
check_dmesg() {
	_bad=$(dmesg_bad)
	[ -z "$_bad" ] || printf '%s\n' "$_bad" | head -20 | sed 's/^/    dmesg: /'
	check "$1" test -z "$_bad"
}

rdma_gid || end
base=$(counts)
echo "# guest $QRNIC_IDX: before: $base"
barrier soak-begin
if [ "$QRNIC_IDX" = 0 ] && [ "$rss_after" -gt 0 ]; then
	echo "$rss_after" > "$QRNIC_SHARE/soak-start.tmp" && mv "$QRNIC_SHARE/soak-start.tmp" "$QRNIC_SHARE/soak-start"
fi
t0=$(date +%s)
run_tap "rc-check soak ($secs s, seed $seed, up to $qps QPs)" \
	timeout $((secs + 300)) rc-check -T soak -D "$secs" -S "$seed" -q "$qps" soak
echo "# guest $QRNIC_IDX: rc-check soak took $(($(date +%s) - t0)) s"
for c in fault_drop_tx fault_drop_rx retrans_pkts ack_timeouts rx_roce_pkts tx_roce_pkts; do
	[ -r "$hw/$c" ] && printf '# guest %s: %s %s\n' "$QRNIC_IDX" "$c" "$(cat "$hw/$c")"
done
if [ "$loss" = 1 ]; then
	check "the device dropped RoCE frames both ways (fault_drop_tx $(cat "$hw/fault_drop_tx"), fault_drop_rx $(cat "$hw/fault_drop_rx"))" \
		test "$(cat "$hw/fault_drop_tx")" -gt 0 -a "$(cat "$hw/fault_drop_rx")" -gt 0
fi
barrier soak-traffic-end 900
check "device and rdma resource counts back to '$base' after the soak" retry 30 counts_are "$base"
counts_are "$base" || echo "# guest $QRNIC_IDX: now: $(counts)"
check_dmesg "dmesg has no WARN, BUG, Oops or leak after the soak"
if [ "$rss_after" -gt 0 ]; then
	[ "$QRNIC_IDX" = 0 ] && signal soak-end
	check "the host measured QEMU's memory" wait_for rss-done 120
fi

[ "$reloads" -gt 0 ] || end

# --- reload cycles -------------------------------------------------------------
peer=${QRNIC_PEER_IPS%% *}
active() { rdma link show 2>/dev/null | grep -q "^link $QRNIC_IBDEV/1 state ACTIVE .* netdev $QRNIC_IFNAME *\$"; }
reload() {
	rmmod qrnic || { echo "# cycle $1: rmmod failed"; return 1; }
	[ -e "/sys/class/infiniband/$QRNIC_IBDEV" ] && { echo "# cycle $1: $QRNIC_IBDEV still there"; return 1; }
	modprobe qrnic || { echo "# cycle $1: modprobe failed"; return 1; }
	retry 20 test -e "/sys/class/net/$QRNIC_IFNAME" || { echo "# cycle $1: no $QRNIC_IFNAME"; return 1; }
	ip addr add "$QRNIC_IP/24" dev "$QRNIC_IFNAME" && ip link set "$QRNIC_IFNAME" up || return 1
	retry 20 active || { echo "# cycle $1: $QRNIC_IBDEV not ACTIVE"; return 1; }
	retry 30 ping -c 1 -W 2 "$peer" >/dev/null || { echo "# cycle $1: no ping to $peer"; return 1; }
}
t0=$(date +%s)
done_n=0
traffic_n=0
i=1
while [ $i -le "$reloads" ]; do
	reload $i || break
	out=/tmp/soak-rl.$i
	if ! timeout 120 rc-check -T "rl$i" -D 1 -S "$i" -q 2 -t 60 soak > "$out" 2>&1; then
		sed 's/^/    /' "$out"
		echo "# cycle $i: traffic after the reload failed"
		break
	fi
	traffic_n=$((traffic_n + $(grep -c '^ok - soak' "$out")))
	rm -f "$out"
	done_n=$i
	[ $((i % 10)) = 0 ] && echo "# guest $QRNIC_IDX: $i reloads, $(($(date +%s) - t0)) s"
	i=$((i + 1))
done
echo "# guest $QRNIC_IDX: $done_n reload cycles in $(($(date +%s) - t0)) s"
check "$reloads rmmod/modprobe cycles, each followed by a checked rc-check soak round (passed $done_n, traffic $traffic_n)" \
	test "$done_n" -eq "$reloads" -a "$traffic_n" -eq "$reloads"
barrier soak-reload-end 900
check "device and rdma resource counts back to '$base' after the reloads" retry 30 counts_are "$base"
counts_are "$base" || echo "# guest $QRNIC_IDX: now: $(counts)"
check_dmesg "dmesg has no WARN, BUG, Oops or leak after $done_n reloads"
if [ "$rss_after" -gt 0 ]; then	# both QEMUs still up for the host's figure
	[ "$QRNIC_IDX" = 0 ] && signal reload-end
	wait_for reload-rss-done 60
fi
end
