#!/bin/sh
# Shared receive queues and UC QPs between two guests, each side serving in
# turn: ibv_srq_pingpong (defaults, 4 QPs on one SRQ with 1-byte messages,
# 64 KiB messages), ibv_uc_pingpong (defaults, 64 KiB), ib_send_bw and
# ib_write_bw over UC, ib_send_bw --use-srq over RC, UC and UD.  Both sides
# exit 0; pingpongs print exactly size x iters x 2 bytes, perftest's client
# its result row.  On qrnic the device's SRQ count is back afterwards.
#   srquc.sh [PART...]   default: all of   srq uc perftest
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "srquc needs two guests"; finish; }
rdma_gid || finish
[ "$QRNIC_NIC" = qrnic ] && read -r srq_before < "$hw/res_srq"

# pp K NAME SERVER BYTES ITERS CMD...: a pingpong pair; both sides exit 0
# and print BYTES bytes and ITERS iters.
pp() {
	k=$1 name=$2 server=$3 bytes=$4 iters=$5; shift 5
	out=/tmp/pp-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role=server; else role=client; fi
	desc="$name ($role g$QRNIC_IDX, server g$server)"
	pair_run "srquc-$k" "$server" $((19100 + k)) "$out" "$@"
	rc=$?
	if [ "$rc" -eq 0 ] && grep -Eq "^$bytes bytes in [0-9.]+ seconds" "$out" &&
		grep -Eq "^$iters iters in " "$out"; then
		pass "$desc: $bytes bytes, $iters iters"
	else
		fail "$desc: status $rc"
		sed 's/^/    /' "$out"
	fi
}

# bw K NAME SERVER SIZE ITERS CMD...: a perftest pair; both exit 0, the
# client prints its row.
bw() {
	k=$1 name=$2 server=$3 size=$4 iters=$5; shift 5
	out=/tmp/bw-$k.out
	if [ "$QRNIC_IDX" = "$server" ]; then role=server; else role=client; fi
	desc="$name ($role g$QRNIC_IDX, server g$server)"
	pair_run "srquc-$k" "$server" $((19100 + k)) "$out" "$@"
	rc=$?
	row=$(awk -v s="$size" -v n="$iters" '$1 == s && $2 == n && NF >= 5 { print; exit }' "$out")
	if [ "$rc" -eq 0 ] && { [ "$role" = server ] || [ -n "$row" ]; }; then
		pass "$desc: exit 0${row:+, $row}"
	else
		fail "$desc: status $rc"
		sed 's/^/    /' "$out"
	fi
}

parts=" ${*:-srq uc perftest} "
for part in $parts; do
	case "$part" in srq|uc|perftest) ;; *) fail "unknown srquc part '$part'"; finish ;; esac
done
part() { case "$parts" in *" $1 "*) return 0 ;; esac; return 1; }

D="-d $QRNIC_IBDEV"
k=0
for server in 1 0; do
	part srq || continue
	pp $k "ibv_srq_pingpong" $server $((4096 * 500 * 2)) 500 \
		ibv_srq_pingpong $D -g "$gid" -n 500; k=$((k + 1))
	pp $k "ibv_srq_pingpong -q 4 -r 8 -s 1" $server $((1 * 1000 * 2)) 1000 \
		ibv_srq_pingpong $D -g "$gid" -q 4 -r 8 -s 1 -n 1000; k=$((k + 1))
	pp $k "ibv_srq_pingpong -s 65536 -m 1024" $server $((65536 * 200 * 2)) 200 \
		ibv_srq_pingpong $D -g "$gid" -s 65536 -m 1024 -n 200; k=$((k + 1))
done
for server in 1 0; do
	part uc || continue
	pp $k "ibv_uc_pingpong" $server $((4096 * 500 * 2)) 500 \
		ibv_uc_pingpong $D -g "$gid" -n 500; k=$((k + 1))
	pp $k "ibv_uc_pingpong -s 65536 -m 1024" $server $((65536 * 100 * 2)) 100 \
		ibv_uc_pingpong $D -g "$gid" -s 65536 -m 1024 -n 100; k=$((k + 1))
done
for server in 1 0; do
	part perftest || continue
	bw $k "ib_send_bw -c UC" $server 1024 200 \
		ib_send_bw $D -x "$gid" -c UC -F -n 200 -s 1024; k=$((k + 1))
	bw $k "ib_write_bw -c UC" $server 65536 200 \
		ib_write_bw $D -x "$gid" -c UC -F -n 200 -s 65536; k=$((k + 1))
	bw $k "ib_send_bw --use-srq" $server 1024 200 \
		ib_send_bw $D -x "$gid" --use-srq -F -n 200 -s 1024; k=$((k + 1))
	bw $k "ib_send_bw -c UC --use-srq" $server 1024 200 \
		ib_send_bw $D -x "$gid" -c UC --use-srq -F -n 200 -s 1024; k=$((k + 1))
	bw $k "ib_send_bw -c UD --use-srq" $server 1024 200 \
		ib_send_bw $D -x "$gid" -c UD --use-srq -F -n 200 -s 1024; k=$((k + 1))
done
if [ "$QRNIC_NIC" = qrnic ]; then
	read -r srq_after < "$hw/res_srq"
	check "the device's SRQ count is back to $srq_before ($srq_after)" \
		test "$srq_after" = "$srq_before"
fi
finish
