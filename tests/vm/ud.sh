#!/bin/sh
# UD between two guests, each side serving in turn: ibv_ud_pingpong (the
# datagram size at the active MTU's limit and a small one) and
# ib_send_bw -c UD.  Both sides must exit 0; the client prints its figures.
#   ud.sh [TEST...]   default: all of   pingpong pingpong_small send_bw
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "ud needs two guests"; finish; }
rdma_gid || finish

# ud K TEST SERVER
ud() {
	k=$1 test=$2 server=$3
	out=/tmp/ud-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role=server; else role=client; fi
	desc="($role g$QRNIC_IDX $QRNIC_IBDEV, server g$server)"
	case "$test" in
	pingpong|pingpong_small)
		size=1024 iters=500
		[ "$test" = pingpong_small ] && size=1
		desc="ibv_ud_pingpong -s $size $desc"
		pair_run "ud-$k" "$server" $((18800 + k)) "$out" \
			ibv_ud_pingpong -d "$QRNIC_IBDEV" -g "$gid" -s "$size" -n "$iters"
		rc=$?
		if [ "$rc" -eq 0 ] &&
			grep -Eq "^$((size * iters * 2)) bytes in [0-9.]+ seconds" "$out" &&
			grep -Eq "^$iters iters in " "$out"; then
			pass "$desc: $((size * iters * 2)) bytes, $iters iters"
		else
			fail "$desc: status $rc"
			sed 's/^/    /' "$out"
		fi
		;;
	send_bw)
		desc="ib_send_bw -c UD $desc"
		pair_run "ud-$k" "$server" $((18800 + k)) "$out" \
			ib_send_bw -d "$QRNIC_IBDEV" -x "$gid" -c UD -F -n 200 -s 1024
		rc=$?
		row=$(awk '$1 == 1024 && $2 == 200 && NF >= 5 { print; exit }' "$out")
		if [ "$rc" -eq 0 ] && { [ "$role" = server ] || [ -n "$row" ]; }; then
			pass "$desc: exit 0${row:+, $row}"
		else
			fail "$desc: status $rc"
			sed 's/^/    /' "$out"
		fi
		;;
	esac
}

k=0
for t in ${*:-pingpong pingpong_small send_bw}; do
	for server in 1 0; do
		ud "$k" "$t" "$server"
		k=$((k + 1))
	done
done
finish
