#!/bin/sh
# Guest side of tests/bench/trace-breakdown: guest 1 serves, guest 0 runs
# each phase once; the host (tests/vm/trace-breakdown-host.sh) turns the
# device's trace events on and samples the QEMU threads' schedstat around
# each phase.  Prints "tb: PHASE RESULT-ROW" lines; not a test.
#   trace-breakdown.sh ITERS SECS MTU PHASE...   (MTU: the netdev's)
# PHASE is NAME.MODE: NAME pp (ibv_rc_pingpong 4 KiB, ITERS iterations),
# lat (ib_send_lat 2 B, ITERS), wlat, rlat (ib_write_lat, ib_read_lat 2 B,
# ITERS), bw (ib_write_bw 64 KiB, SECS seconds) or rate (ib_send_bw 64 B,
# SECS seconds: messages from the doorbell);
# MODE plain (only qrnic_admin_cmd traced: QP setup and teardown mark
# the window) or trace (every
# stage traced); NAME.MODE.bh and NAME.MODE.dbK run with the device's
# x-db-work 0 or K (the host sets it).
. "$(dirname "$0")/lib.sh"

iters=${1:-1000} secs=${2:-3} mtu=${3:-1500}
shift 3
[ "$QRNIC_NGUESTS" = 2 ] || { echo "tb: FAILED needs two guests"; exit 1; }
if [ "$mtu" != 1500 ]; then
	# The RoCE MTU that fits (iboe_get_mtu: 96 bytes of headers).
	want=256
	for m in 512 1024 2048 4096; do [ $((m + 96)) -le "$mtu" ] && want=$m; done
	set_mtu "$mtu" "$want" || { echo "tb: FAILED MTU $mtu: active MTU not $want"; exit 1; }
	barrier tb-mtu 60
fi
gid=$(retry 20 gid_index) || { echo "tb: FAILED no RoCE v2 GID"; exit 1; }
echo "tb: nic $QRNIC_NIC mtu $(cat "/sys/class/net/$QRNIC_IFNAME/mtu") active_mtu $(active_mtu)"

rc=0
n=0
for ph in "$@"; do
	name=${ph%%.*}
	case "$name" in
	pp) cmd="ibv_rc_pingpong -d $QRNIC_IBDEV -g $gid -s 4096 -n $iters" ;;
	lat) cmd="ib_send_lat -d $QRNIC_IBDEV -x $gid -F -s 2 -n $iters" ;;
	wlat) cmd="ib_write_lat -d $QRNIC_IBDEV -x $gid -F -s 2 -n $iters" ;;
	rlat) cmd="ib_read_lat -d $QRNIC_IBDEV -x $gid -F -s 2 -n $iters" ;;
	bw) cmd="ib_write_bw -d $QRNIC_IBDEV -x $gid -F -s 65536 -D $secs" ;;
	rate) cmd="ib_send_bw -d $QRNIC_IBDEV -x $gid -F -s 64 -D $secs" ;;
	*) echo "tb: FAILED unknown phase $ph"; exit 1 ;;
	esac
	# The host starts tracing and sampling, then says go.
	[ "$QRNIC_IDX" = 0 ] && signal "$ph.req"
	wait_for "$ph.go" 120 || { echo "tb: FAILED the host never started $ph"; exit 1; }
	out=/tmp/tb-$ph.out
	# shellcheck disable=SC2086
	pair_run "tb-$ph" 1 $((18900 + n)) "$out" $cmd
	st=$?
	n=$((n + 1))
	signal "$ph.done-$QRNIC_IDX"
	wait_for "$ph.end" 120
	if [ "$st" != 0 ]; then
		echo "tb: FAILED $ph (guest $QRNIC_IDX, status $st):"
		sed 's/^/    /' "$out"
		rc=1
		continue
	fi
	[ "$QRNIC_IDX" = 0 ] || continue
	case "$name" in
	pp) sed -n 's/^\([0-9]* iters in [0-9.]* seconds = [0-9.]* usec\/iter\)$/tb: '"$ph"' \1/p' "$out" ;;
	lat | wlat | rlat) awk -v p="$ph" -v n="$iters" '$1 == 2 && $2 == n { print "tb: " p " typical " $5 " usec, average " $6 " usec" }' "$out" ;;
	bw) awk -v p="$ph" '$1 == 65536 && $2 ~ /^[0-9]+$/ { print "tb: " p " average " $4 " MiB/s, " $5 " Mpps"; exit }' "$out" ;;
	rate) awk -v p="$ph" '$1 == 64 && $2 ~ /^[0-9]+$/ { print "tb: " p " average " $4 " MiB/s, " $5 " Mpps"; exit }' "$out" ;;
	esac
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
