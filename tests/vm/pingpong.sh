#!/bin/sh
# ibv_rc_pingpong between two guests, one variant after another; the server
# role alternates between guest 1 and guest 0.  Each side checks its own run:
# exit status 0, "BYTES bytes in ..." with BYTES = size x iterations x 2,
# "ITERS iters in ...", and no error or validation message.
#   pingpong.sh [VARIANT...]   default: all of
#   default events s1 s4096 s65536 s1m m1024 m4096 chk
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "pingpong needs two guests"; finish; }
rdma_gid || finish

# pp_variant NAME: the options of variant NAME.
pp_variant() {
	case "$1" in
	default) o= ;;
	events) o=-e ;;
	s1) o="-s 1" ;;
	s4096) o="-s 4096" ;;
	s65536) o="-s 65536 -n 200" ;;
	s1m) o="-s 1048576 -n 20" ;;
	m1024) o="-m 1024" ;;
	m4096) o="-m 4096" ;;
	chk) o=-c ;;
	*) return 1 ;;
	esac
	printf '%s\n' "$o"
}

# pingpong K SERVER OPTIONS...: run number K, guest SERVER serving.
pingpong() {
	k=$1 server=$2; shift 2
	size=4096 iters=1000 prev=
	for a in "$@"; do
		case "$prev" in -s) size=$a ;; -n) iters=$a ;; esac
		prev=$a
	done
	bytes=$((size * iters * 2))
	out=/tmp/pingpong-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role="server"; else role="client"; fi
	role="$role g$QRNIC_IDX $QRNIC_IBDEV"
	desc="ibv_rc_pingpong${*:+ $*} ($role)"
	pair_run "pingpong-$k" "$server" $((18600 + k)) "$out" \
		ibv_rc_pingpong -d "$QRNIC_IBDEV" -g "$gid" "$@"
	rc=$?
	t=$(sed -n 's/^[0-9]* iters in [0-9.]* seconds = \([0-9.]*\) usec\/iter$/\1/p' "$out")
	if [ "$rc" -eq 0 ] &&
		grep -Eq "^$bytes bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec\$" "$out" &&
		grep -Eq "^$iters iters in [0-9.]+ seconds = [0-9.]+ usec/iter\$" "$out" &&
		! grep -Eiq 'invalid|fail|error|couldn|unable' "$out"; then
		pass "$desc: $bytes bytes, $iters iters, $t usec/iter"
	else
		fail "$desc: status $rc, want \"$bytes bytes in\" and \"$iters iters in\" lines and no errors"
		sed 's/^/    /' "$out"
	fi
}

k=0
for v in ${*:-default events s1 s4096 s65536 s1m m1024 m4096 chk}; do
	if ! opts=$(pp_variant "$v"); then
		fail "unknown pingpong variant '$v'"
		continue
	fi
	server=$((1 - k % 2))
	if [ "$v" = m4096 ]; then
		# A 4096-byte path MTU needs an active MTU of 4096: netdev MTU 9000
		# on both guests (qrnic's maximum).
		check "netdev MTU 9000, RoCE active MTU 4096" set_mtu 9000 4096
		barrier "mtu9000-$k" 120
		pingpong "$k" "$server" $opts
		barrier "pp-done-$k" 300
		check "netdev MTU back to 1500, RoCE active MTU 1024" set_mtu 1500 1024
		barrier "mtu1500-$k" 120
	else
		pingpong "$k" "$server" $opts
	fi
	k=$((k + 1))
done
finish
