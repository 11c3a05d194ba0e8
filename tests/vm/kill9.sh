#!/bin/sh
# kill -9 of a process holding a context, PD, CQs, MRs and QPs (one with
# sends in flight) frees them all: `rdma resource show` counts, and on
# qrnic the device's own counts (hw_counters/res_*), return to where they
# were.  Runs in every guest on its own.
. "$(dirname "$0")/lib.sh"

# rdma_counts: "ctx N pd N cq N qp N mr N" for $QRNIC_IBDEV.
rdma_counts() {
	_l=$(rdma resource show "$QRNIC_IBDEV") || return 1
	set -- $_l
	_c= _p= _q= _r= _m=
	while [ $# -ge 2 ]; do
		case "$1" in
		ctx) _c=$2 ;; pd) _p=$2 ;; cq) _q=$2 ;; qp) _r=$2 ;; mr) _m=$2 ;;
		esac
		shift
	done
	echo "ctx $_c pd $_p cq $_q qp $_r mr $_m"
}

# value KEY COUNTS: the number after KEY.
value() {
	set -- "$1" $2
	_k=$1; shift
	while [ $# -ge 2 ]; do
		[ "$1" = "$_k" ] && { echo "$2"; return; }
		shift 2
	done
}

# grew BASE NOW KEY=DELTA...: each KEY grew by exactly DELTA (DELTA "+": by >= 1).
grew() {
	_b=$1 _n=$2; shift 2
	for _kd in "$@"; do
		_k=${_kd%=*} _d=${_kd#*=}
		_bv=$(value "$_k" "$_b") _nv=$(value "$_k" "$_n")
		[ -n "$_bv" ] && [ -n "$_nv" ] || return 1
		if [ "$_d" = + ]; then
			[ "$_nv" -gt "$_bv" ] || return 1
		else
			[ "$_nv" -eq $((_bv + _d)) ] || return 1
		fi
	done
}
counts_are() { [ "$($1)" = "$2" ]; }

qrnic=0
[ "$QRNIC_NIC" = qrnic ] && qrnic=1
base=$(rdma_counts)
echo "    before: $base"
if [ $qrnic = 1 ]; then
	if hw_base=$(hw_counts); then
		echo "    device before: $hw_base"
	else
		fail "qrnic: $hw/res_{$(echo $hw_names | tr ' ' ,)} readable"
		qrnic=0
	fi
fi

rm -f /tmp/hold.ready
rc-check hold /tmp/hold.ready > /tmp/hold.out 2>&1 &
pid=$!
if ! retry 60 test -e /tmp/hold.ready; then
	fail "rc-check hold set up its resources"
	sed 's/^/    /' /tmp/hold.out
	kill -9 "$pid" 2>/dev/null
	finish
fi
echo "    rc-check hold: $(cat /tmp/hold.ready)"
during=$(rdma_counts)
echo "    holding: $during"
check "rdma resource: +1 ctx, +1 pd, +3 cq, +3 qp, +3 mr while held" \
	grew "$base" "$during" ctx=1 pd=1 cq=3 qp=3 mr=3
if [ $qrnic = 1 ]; then
	hw_during=$(hw_counts)
	echo "    device holding: $hw_during"
	check "device counts: +1 uctx, +1 pd, +3 cq, +3 qp, +3 mr, more mr_pages while held" \
		grew "$hw_base" "$hw_during" uctx=1 pd=1 cq=3 qp=3 mr=3 mr_pages=+
fi
kill -9 "$pid"
wait "$pid" 2>/dev/null
st=$?
check "rc-check hold died of SIGKILL (status $st)" test "$st" -eq 137
check "rdma resource counts back to '$base' after kill -9" retry 30 counts_are rdma_counts "$base"
[ "$(rdma_counts)" = "$base" ] || echo "    now: $(rdma_counts)"
if [ $qrnic = 1 ]; then
	check "device counts back to '$hw_base' after kill -9" retry 30 counts_are hw_counts "$hw_base"
	[ "$(hw_counts)" = "$hw_base" ] || echo "    device now: $(hw_counts)"
fi
check "RDMA port still ACTIVE after kill -9" port_active
finish
