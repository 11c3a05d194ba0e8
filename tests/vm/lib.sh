# Shared helpers for scripts that run inside a guest (POSIX sh).
# Each check prints "ok - NAME" or "not ok - NAME"; tests/run-tests counts them.

failures=0

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }

# check NAME CMD... : run CMD, pass if it exits 0.
check() {
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# expect_match NAME PATTERN TEXT : extended regex PATTERN must match a line of TEXT.
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1 (no line matches /$2/)"
	fi
}

# retry SECONDS CMD... : run CMD every half second until it succeeds.
retry() {
	deadline=$(($(date +%s) + $1)); shift
	until "$@"; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.5
	done
}

# Rendezvous through the share all guests see.
signal() { : > "$QRNIC_SHARE/$1"; }
wait_for() { retry "${2:-120}" test -e "$QRNIC_SHARE/$1"; }

finish() {
	[ "$failures" -eq 0 ] || echo "guest $QRNIC_IDX: $failures check(s) failed"
	exit "$failures"
}

# --- RDMA helpers -------------------------------------------------------------

# tap_result NAME STATUS FILE: show FILE (output of a command that prints its
# own ok/not ok lines) and count its failures; a non-zero STATUS without any
# "not ok" line counts as one failure.
tap_result() {
	cat "$3"
	_tn=$(grep -c '^not ok - ' "$3")
	failures=$((failures + _tn))
	if [ "$2" -ne 0 ] && [ "$_tn" -eq 0 ]; then
		if [ "$2" -eq 124 ]; then fail "$1 timed out"; else fail "$1 exited with status $2"; fi
	fi
}

# run_tap NAME CMD... : run CMD that prints ok/not ok lines, then tap_result.
run_tap() {
	_rname=$1; shift
	_rout=/tmp/run_tap.$$
	"$@" > "$_rout" 2>&1
	_rrc=$?
	tap_result "$_rname" "$_rrc" "$_rout"
	rm -f "$_rout"
	return "$_rrc"
}

# ipv4_gid A.B.C.D: the IPv4-mapped GID as sysfs prints it.
ipv4_gid() {
	_ifs=$IFS; IFS=.; set -- $1; IFS=$_ifs
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

# gid_index [IP]: the index of the RoCE v2 GID ::ffff:IP (default $QRNIC_IP)
# of $QRNIC_IBDEV port 1.  Shell built-ins only: a process per GID file
# costs seconds under TCG.  Empty slots fail to read and are skipped.
gid_index() {
	_gw=$(ipv4_gid "${1:-$QRNIC_IP}")
	_gp=/sys/class/infiniband/$QRNIC_IBDEV/ports/1
	for _gf in "$_gp"/gids/*; do
		{ read -r _gg < "$_gf"; } 2>/dev/null || continue
		[ "$_gg" = "$_gw" ] || continue
		_gi=${_gf##*/}
		{ read -r _gt < "$_gp/gid_attrs/types/$_gi"; } 2>/dev/null || continue
		[ "$_gt" = "RoCE v2" ] && { echo "$_gi"; return 0; }
	done
	return 1
}

# rdma_gid: sets $gid to the RoCE v2 GID index of $QRNIC_IP (waits for the
# GID table to follow the address), or fails the check.
rdma_gid() {
	gid=$(retry 20 gid_index)
	if [ -n "$gid" ]; then
		pass "RoCE v2 GID ::ffff:$QRNIC_IP on $QRNIC_IBDEV is index $gid"
	else
		fail "no RoCE v2 GID ::ffff:$QRNIC_IP on $QRNIC_IBDEV"
		return 1
	fi
}

# port_listening PORT: a TCP socket (IPv4 or IPv6) listens on PORT.
port_listening() {
	_ph=$(printf '%04X' "$1")
	for _pf in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$_pf" ] || continue
		while read -r _ _pl _ _pst _; do
			[ "$_pst" = 0A ] && [ "${_pl##*:}" = "$_ph" ] && return 0
		done < "$_pf"
	done
	return 1
}

# barrier NAME: every guest reaches NAME before any goes on.
barrier() {
	signal "$1-$QRNIC_IDX"
	_bi=0
	while [ "$_bi" -lt "$QRNIC_NGUESTS" ]; do
		wait_for "$1-$_bi" "${2:-300}" || return 1
		_bi=$((_bi + 1))
	done
}

# active_mtu: the RoCE active MTU of $QRNIC_IBDEV port 1 (256..4096).
active_mtu() {
	ibv_devinfo -d "$QRNIC_IBDEV" -i 1 | sed -n 's/.*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}

# port_active: port 1 of $QRNIC_IBDEV is ACTIVE.
port_active() {
	ibv_devinfo -d "$QRNIC_IBDEV" -i 1 | grep -q 'state:.*PORT_ACTIVE'
}

# The device's own counters (qrnic): hw_counts [NAME...] prints
# "NAME N ..." for hw_counters/res_NAME (default: every resource count).
hw=/sys/class/infiniband/$QRNIC_IBDEV/ports/1/hw_counters
# hwc NAME: one hw_counters value (qrnic's or rxe's), 0 if there is none.
hwc() { cat "$hw/$1" 2>/dev/null || echo 0; }
hw_names="uctx pd cq qp mr mr_pages"
hw_counts() {
	_s=
	for _n in ${*:-$hw_names}; do
		read -r _v < "$hw/res_$_n" || return 1
		_s="$_s${_s:+ }$_n $_v"
	done
	echo "$_s"
}

# perftest_uncalibrated OUT: perftest said it could not measure the CPU
# clock (r^2 < 0.9 on a busy TCG host) and so printed "inf" figures.
perftest_uncalibrated() { grep -qF 'Correlation coefficient r^2' "$1"; }

# set_mtu NETDEV_MTU RDMA_MTU: set this guest's netdev MTU and wait until the
# port's active MTU follows.
set_mtu() {
	ip link set "$QRNIC_IFNAME" mtu "$1" || return 1
	retry 20 mtu_is "$2"
}
mtu_is() { [ "$(active_mtu)" = "$1" ]; }

# pair_run TAG SERVER PORT OUT CMD [ARGS...]: run an RDMA client/server pair
# such as ibv_rc_pingpong or perftest between two guests: guest SERVER runs
# "CMD ARGS -p PORT", the other guest "CMD ARGS -p PORT SERVER_IP" once the
# server listens (announced through $QRNIC_SHARE/TAG), retrying while the
# connection is refused.  Output goes to OUT; the status is CMD's (124 if it
# ran longer than $PAIR_TIMEOUT seconds, default 120).  Once a run has hung,
# later runs in the same boot are skipped at once (status 125): a stalled
# data path must not cost a timeout per run.
pair_run() {
	_pt=$1 _ps=$2 _pp=$3 _po=$4; shift 4
	: > "$_po"
	if [ -e "$QRNIC_SHARE/pair-run-hung" ]; then
		echo "pair_run: skipped: an earlier run ($(cat "$QRNIC_SHARE/pair-run-hung")) hung" > "$_po"
		return 125
	fi
	if [ "$QRNIC_IDX" = "$_ps" ]; then
		watched "${PAIR_TIMEOUT:-120}" "$@" -p "$_pp" > "$_po" 2>&1 &
		_ppid=$!
		_pst=failed
		_pi=0
		while [ "$_pi" -lt 300 ] && kill -0 "$_ppid" 2>/dev/null; do
			port_listening "$_pp" && { _pst=listening; break; }
			sleep 0.2
			_pi=$((_pi + 1))
		done
		echo "$_pst" > "$QRNIC_SHARE/$_pt.tmp" && mv "$QRNIC_SHARE/$_pt.tmp" "$QRNIC_SHARE/$_pt"
		wait "$_ppid"
		_prc=$?
		[ "$_prc" -eq 124 ] && pair_hung "$_pt"
		return "$_prc"
	fi
	if ! wait_for "$_pt" 180; then
		echo "pair_run: the server never reported on $_pt" >> "$_po"
		return 1
	fi
	read -r _pst < "$QRNIC_SHARE/$_pt"
	if [ "$_pst" != listening ]; then
		echo "pair_run: the server did not listen on port $_pp" >> "$_po"
		return 1
	fi
	_pi=0
	while :; do
		watched "${PAIR_TIMEOUT:-120}" "$@" -p "$_pp" "${QRNIC_PEER_IPS%% *}" > "$_po" 2>&1
		_prc=$?
		[ "$_prc" -ne 0 ] && [ "$_pi" -lt 20 ] && grep -q "Couldn't connect" "$_po" || break
		_pi=$((_pi + 1))
		sleep 0.5
	done
	[ "$_prc" -eq 124 ] && pair_hung "$_pt"
	return "$_prc"
}

# pair_hung TAG: pair_run's run TAG hung: later runs in this boot are
# skipped.
pair_hung() { echo "$1" > "$QRNIC_SHARE/pair-run-hung"; }

# device_state: what the device and the kernel say now (QPs, SRQs, CQs,
# the port's non-zero counters, the kernel's last lines), for a log.
device_state() {
	echo "--- the device's state"
	rdma -d resource show qp 2>&1 | grep -F "$QRNIC_IBDEV" | tail -40
	rdma resource show srq 2>&1 | grep -F "$QRNIC_IBDEV" | tail -10
	rdma resource show cq 2>&1 | grep -F "$QRNIC_IBDEV" | tail -20
	for _hf in "$hw"/*; do
		read -r _hv < "$_hf" 2>/dev/null && [ "$_hv" != 0 ] &&
			echo "${_hf##*/} $_hv"
	done
	dmesg | tail -10
}

# watched SECS CMD [ARGS...]: CMD with a time limit, its status, or 124
# once SECS ran out: then device_state is printed with CMD still running
# (what it waits for), and CMD is killed.
watched() {
	_ws=$1; shift
	_wm=$(mktemp)
	"$@" &
	_wp=$!
	(
		sleep "$_ws"
		kill -0 "$_wp" 2>/dev/null || exit 0
		echo fired > "$_wm"
		echo "watched: still running after $_ws s: $*"
		device_state
		kill "$_wp"
	) &
	_wd=$!
	wait "$_wp"
	_wrc=$?
	kill "$_wd" 2>/dev/null
	wait "$_wd" 2>/dev/null
	[ -s "$_wm" ] && _wrc=124
	rm -f "$_wm"
	return "$_wrc"
}

# cm_listening PORT: an RDMA CM id of this guest listens on PORT.
cm_listening() {
	rdma res show cm_id 2>/dev/null | grep -F LISTEN | grep -Eq ":$1( |\$)"
}

# cm_run TAG SERVER PORT OUT SERVER_CMD CLIENT_CMD: an rdma_cm client/server
# pair (rping, ucmatose, perftest -R ...): guest SERVER runs SERVER_CMD (a
# shell command line), the other guest CLIENT_CMD once an RDMA CM id of the
# server listens on PORT.  Output goes to OUT; the status is the command's
# (124 if it ran longer than $PAIR_TIMEOUT seconds, default 120).
cm_run() { duo_run cm_listening "$@"; }

# tcp_run TAG SERVER PORT OUT SERVER_CMD CLIENT_CMD: the same for a pair
# that meets over TCP first (ucx_perftest, fi_pingpong, qperf): the client
# starts once a TCP socket of the server listens on PORT.
tcp_run() { duo_run port_listening "$@"; }

# duo_run LISTENING TAG SERVER PORT OUT SERVER_CMD CLIENT_CMD: cm_run and
# tcp_run, with LISTENING PORT telling that the server is ready.
duo_run() {
	_cl=$1 _ct=$2 _cs=$3 _cp=$4 _co=$5 _csrv=$6 _ccli=$7
	: > "$_co"
	if [ "$QRNIC_IDX" = "$_cs" ]; then
		eval "timeout ${PAIR_TIMEOUT:-120} $_csrv" > "$_co" 2>&1 &
		_cpid=$!
		_cst=failed
		_ci=0
		while [ "$_ci" -lt 150 ] && kill -0 "$_cpid" 2>/dev/null; do
			"$_cl" "$_cp" && { _cst=listening; break; }
			sleep 0.2
			_ci=$((_ci + 1))
		done
		echo "$_cst" > "$QRNIC_SHARE/$_ct.tmp" && mv "$QRNIC_SHARE/$_ct.tmp" "$QRNIC_SHARE/$_ct"
		wait "$_cpid"
		return $?
	fi
	if ! wait_for "$_ct" 180; then
		echo "$_cl: the server never reported on $_ct" >> "$_co"
		return 1
	fi
	read -r _cst < "$QRNIC_SHARE/$_ct"
	if [ "$_cst" != listening ]; then
		echo "$_cl: the server did not listen on port $_cp" >> "$_co"
		return 1
	fi
	eval "timeout ${PAIR_TIMEOUT:-120} $_ccli" > "$_co" 2>&1
}

# pair_parts A B PARTS: guests A and B run the part scripts PARTS ("|"
# between them, each "SCRIPT ARGS") together; any other guest waits.  Each
# part sees a world of two: QRNIC_IDX 0 or 1, its partner in
# QRNIC_PEER_IPS, a share of the pair's own; its check names are
# prefixed with the pair ("gA-gB: ").
pair_parts() {
	_pa=$1 _pb=$2 _pparts=$3
	_pshare=$QRNIC_SHARE/pair-$_pa-$_pb
	mkdir -p "$_pshare"
	case "$QRNIC_IDX" in
	"$_pa") _pme=0 _pother=$_pb ;;
	"$_pb") _pme=1 _pother=$_pa ;;
	*)
		echo "# pair g$_pa-g$_pb: waiting"
		wait_for "pair-$_pa-$_pb/finished-0" 1800 && wait_for "pair-$_pa-$_pb/finished-1" 60 ||
			fail "pair g$_pa-g$_pb never finished"
		return
		;;
	esac
	_ptag="g$_pa-g$_pb"
	_pifs=$IFS
	IFS='|'
	set -- $_pparts
	IFS=$_pifs
	for _ppart in "$@"; do
		echo "# pair $_ptag: $_ppart"
		_pstart=$(date +%s)
		# shellcheck disable=SC2086  # the part's words
		QRNIC_IDX=$_pme QRNIC_NGUESTS=2 QRNIC_PEER_IPS="${QRNIC_IP%.*}.$((_pother + 1))" \
			QRNIC_SHARE=$_pshare NVME_QUICK=1 sh "$(dirname "$0")"/$_ppart > /tmp/pair-part.out 2>&1
		_pst=$?
		sed "s/^\(\(not \)\{0,1\}ok - \)/\1$_ptag: /" /tmp/pair-part.out
		_pn=$(grep -c '^not ok - ' /tmp/pair-part.out)
		failures=$((failures + _pn))
		[ "$_pst" -eq 0 ] || [ "$_pn" -gt 0 ] || fail "$_ptag: $_ppart exited with status $_pst"
		echo "# pair $_ptag: $_ppart: $(($(date +%s) - _pstart)) s"
	done
	signal "pair-$_pa-$_pb/finished-$_pme"
}
