#!/bin/sh
# RDMA middleware from Debian between two guests, guest 0 serving: UCX's
# ucx_perftest over rc_verbs (UCT: am_lat, put_bw, get_bw; UCP: tag_lat,
# tag_bw), libfabric's fi_pingpong over a verbs MSG endpoint and over
# verbs;ofi_rxm RDM with data checks, ibv_xsrq_pingpong (XRC), iSER
# (iser.sh), qperf's RC READ, atomics and latency through rdma_cm.  Needs the clients layer (vm-images/pack-clients.sh) in
# both guests.  Each command exits 0 and prints its result; on qrnic the
# device's QP count is back afterwards.
#   clients.sh [PART...]   default: all of   ucx ucp fabric rdm mpi xrc iser qperf
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "clients needs two guests"; finish; }
command -v ucx_perftest > /dev/null ||
	{ fail "no ucx_perftest: the clients layer is missing"; finish; }
rdma_gid || finish
[ "$QRNIC_NIC" = qrnic ] && read -r qp_before < "$hw/res_qp"
peer=${QRNIC_PEER_IPS%% *}
k=0
PAIR_TIMEOUT=${PAIR_TIMEOUT:-180}

# duo NAME PORT SERVER_CMD CLIENT_CMD RESULT_REGEX [DONE]: guest 0 runs
# SERVER_CMD, guest 1 CLIENT_CMD once the server listens on TCP PORT; both
# exit 0 and the client's output has a line matching RESULT_REGEX.  The
# client then signals DONE, if given.
duo() {
	k=$((k + 1))
	out=/tmp/clients-$k.out
	case $QRNIC_IDX in
	0) role=server ;;
	1) role=client ;;
	*) return 0 ;;
	esac
	tcp_run "clients-$k" 0 "$2" "$out" "$3" "$4"
	rc=$?
	[ "$role" = client ] && [ -n "${6:-}" ] && signal "$6"
	if [ "$rc" -eq 0 ] && { [ "$role" = server ] || grep -Eq -- "$5" "$out"; }; then
		pass "$1 ($role): $(grep -E -- "$5" "$out" | tail -1 | tr -s ' ' | cut -c1-100)"
	else
		fail "$1 ($role): status $rc"
		{ grep -E 'UCX +(ERROR|WARN)|warn>|rror' "$out" | head -n 20
		  grep -Ev 'UCX +(ERROR|WARN)|warn>|rror' "$out" | tail -n 10; } |
			sed 's/^/    /'
	fi
}

# UCX on RoCE: the device and port, the RC and UD transports over verbs.
# UCX 1.18's UD transport tells an IPv4 packet from an IPv6 one by wc.sl,
# as mlx5 reports it, and otherwise drops every packet it receives as one
# for another GID (on rxe alike; UCX 1.19 reads the GRH instead): with its
# destination GID check off, UD works.
export UCX_NET_DEVICES="$QRNIC_IBDEV:1" UCX_UD_ETH_DGID_CHECK=n
ucx() {
	# ucx_perftest TEST [ARGS]: a few iterations, the last line its totals.
	for tl_t in rc_verbs:am_lat rc_verbs:put_bw rc_verbs:get_bw ud_verbs:am_lat; do
		tl=${tl_t%:*} t=${tl_t#*:}
		uct="-d $QRNIC_IBDEV:1 -x $tl"
		layout=
		[ "$t" = get_bw ] && layout="-D zcopy -s 65536"
		duo "ucx uct $tl $t" 13337 \
			"ucx_perftest -P 0 -p 13337 $uct -t $t $layout -n 1000 -w 10" \
			"ucx_perftest $peer -P 0 -p 13337 $uct -t $t $layout -n 1000 -w 10" \
			'^Final:'
	done
}

# UCP needs a second transport to set up connections: UD on the same port
# (UCX's own choice), or TCP on the RoCE netdev; the messages must go over
# RoCE all the same.
ucp() {
	for tls_t in default:tag_lat rc_verbs,tcp:tag_lat rc_verbs,tcp:tag_bw; do
		tls=${tls_t%:*} t=${tls_t#*:}
		ucp_env=env
		[ "$tls" = default ] ||
			ucp_env="env UCX_NET_DEVICES=$QRNIC_IBDEV:1,$QRNIC_IFNAME UCX_TLS=$tls"
		[ "$QRNIC_NIC" = qrnic ] && read -r rx_before < "$hw/rx_roce_pkts"
		duo "ucx ucp ($tls) $t" 13337 \
			"$ucp_env ucx_perftest -P 0 -p 13337 -t $t -n 1000 -w 10" \
			"$ucp_env ucx_perftest $peer -P 0 -p 13337 -t $t -n 1000 -w 10" \
			'^Final:'
		# Guest 0 receives the messages (the sender may get fewer ACKs).
		[ "$QRNIC_NIC" = qrnic ] && [ "$QRNIC_IDX" = 0 ] || continue
		read -r rx_after < "$hw/rx_roce_pkts"
		[ $((rx_after - rx_before)) -ge 1000 ] &&
			pass "ucx ucp ($tls) $t: its 1000 messages came over RoCE ($((rx_after - rx_before)) packets)" ||
			fail "ucx ucp ($tls) $t: only $((rx_after - rx_before)) RoCE packets for 1000 messages"
	done
}

# pingpong EP PROVIDER: fi_pingpong, 100 round trips of 4 KiB, data checked.
# RDM (ofi_rxm over verbs) sizes its verbs CQ by the universe size: 262144
# CQEs by default, which qrnic takes; rxe stops at 32767, so an rxe guest
# runs it with the universe rxe's users set (FI_UNIVERSE_SIZE=16).
pingpong() {
	fi_env="env FI_LOG_LEVEL=warn"
	[ "$1" = rdm ] && [ "$QRNIC_NIC" != qrnic ] &&
		fi_env="$fi_env FI_UNIVERSE_SIZE=16"
	duo "fi_pingpong $1" 47592 \
		"$fi_env fi_pingpong -p '$2' -e $1 -d $QRNIC_IBDEV -I 100 -S 4096 -c" \
		"$fi_env fi_pingpong -p '$2' -e $1 -d $QRNIC_IBDEV -I 100 -S 4096 -c $peer" \
		'^4k +[0-9]'
}

# qperf's server serves until it is killed: here, once the client is done.
qperf_tests() {
	for t in rc_rdma_read_bw rc_fetch_add_mr rc_compare_swap_mr rc_lat; do
		fin=clients-$((k + 1))-done
		duo "qperf $t" 19765 \
			"qperf -lp 19765 & q=\$!; wait_for $fin 300; kill \$q; wait \$q; true" \
			"qperf -lp 19765 -cm1 -t 3 $peer $t" \
			'(bw|msg_rate|latency) +=' "$fin"
	done
}

# mpi_job NAME MPIRUN_ARG...: Open MPI's mpirun on guest 0 runs
# mpi-allreduce.py in one rank on each guest; the daemon on guest 1 is
# started through mpi-rsh.sh (no ssh in the guests), which hands guest 1
# the command here.  Each rank must print the right sums, and on qrnic the
# 2 MiB allreduce must have come over RoCE.
mpi_job() {
	name=$1
	shift
	k=$((k + 1))
	tag=clients-$k-mpi
	case $QRNIC_IDX in
	0) ;;
	1)
		retry 600 sh -c "[ -e $QRNIC_SHARE/$tag.cmd ] || [ -e $QRNIC_SHARE/$tag.over ]"
		[ -e "$QRNIC_SHARE/$tag.cmd" ] || return 0
		timeout $((PAIR_TIMEOUT + 60)) sh -c "$(cat "$QRNIC_SHARE/$tag.cmd")" > "/tmp/$tag.out" 2>&1
		rc=$?
		echo $rc > "$QRNIC_SHARE/$tag.tmp" && mv "$QRNIC_SHARE/$tag.tmp" "$QRNIC_SHARE/$tag.done"
		[ "$rc" -eq 0 ] || { echo "# mpi $name: the daemon here exited $rc"; sed 's/^/    /' "/tmp/$tag.out"; }
		return 0 ;;
	*) return 0 ;;
	esac
	out=/tmp/$tag.out
	[ "$QRNIC_NIC" = qrnic ] && read -r rx_before < "$hw/rx_roce_pkts"
	QRNIC_MPI_TAG=$tag PRTE_MCA_plm_ssh_agent=$here/mpi-rsh.sh \
		timeout "$PAIR_TIMEOUT" mpirun --allow-run-as-root -np 2 \
		--host "$(hostname):1,$peer:1" --map-by node "$@" \
		python3 "$here/mpi-allreduce.py" > "$out" 2>&1
	rc=$?
	signal "$tag.over"
	ok=0
	for r in 0 1; do
		grep -Eq "^rank $r of 2 on guest$r: allreduce 3, 2 MiB allreduce 262144 of 262144 right" "$out" &&
			ok=$((ok + 1))
	done
	if [ "$rc" -eq 0 ] && [ "$ok" -eq 2 ]; then
		pass "mpi $name: rank 0 on guest0 and rank 1 on guest1, both allreduces right"
	else
		fail "mpi $name: status $rc, $ok of 2 ranks right"
		head -n 30 "$out" | sed "s/^/    /"
	fi
	[ "$QRNIC_NIC" = qrnic ] || return 0
	read -r rx_after < "$hw/rx_roce_pkts"
	[ $((rx_after - rx_before)) -ge 512 ] &&
		pass "mpi $name: the 2 MiB allreduce came over RoCE ($((rx_after - rx_before)) packets)" ||
		fail "mpi $name: only $((rx_after - rx_before)) RoCE packets for a 2 MiB allreduce"
}

# Open MPI over UCX (pml ucx on rc_verbs) and over libfabric (mtl ofi on
# verbs;ofi_rxm), with the settings a RoCE user gives them.
mpi() {
	mpi_job ucx --mca pml ucx \
		-x UCX_NET_DEVICES="$QRNIC_IBDEV:1,$QRNIC_IFNAME" \
		-x UCX_TLS=rc_verbs,tcp,self
	mpi_job ofi --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include 'verbs;ofi_rxm'
}

# XRC: guest 0 serves two clients of guest 1 through one XRC SRQ, each
# client with its own XRC_INI and XRC_TGT QPs, polling and on CQ events.
xrc() {
	for ev in '' -e; do
		xsrq="ibv_xsrq_pingpong -d $QRNIC_IBDEV -g $gid -n 20 $ev"
		duo "xrc ibv_xsrq_pingpong, 2 clients${ev:+, events}" 18515 \
			"$xsrq -c 2" \
			"sh -c '$xsrq $peer & a=\$!; $xsrq $peer; b=\$?; wait \$a && [ \$b = 0 ]'" \
			'remote: .*SRQN'
	done
}

# iSER: tests/vm/iser.sh, two sessions (login, 64 MiB checked, fio with
# verify, logout), guest 0 the LIO target, guest 1 the initiator.
iser() {
	sh "$here/iser.sh" 2 3 > /tmp/clients-iser.out 2>&1
	tap_result "iser.sh" $? /tmp/clients-iser.out
}

here=$(dirname "$0")
parts=${*:-ucx ucp fabric rdm mpi xrc iser qperf}
for part in $parts; do
	echo "# $part"
	case $part in
	ucx) ucx ;;
	ucp) ucp ;;
	fabric) pingpong msg verbs ;;
	rdm) pingpong rdm 'verbs;ofi_rxm' ;;
	mpi) mpi ;;
	xrc) xrc ;;
	iser) iser ;;
	qperf) qperf_tests ;;
	*) fail "unknown part $part" ;;
	esac
done
if [ "$QRNIC_NIC" = qrnic ]; then
	retry 20 sh -c "[ \"\$(cat $hw/res_qp)\" = $qp_before ]" &&
		pass "the device's QP count is back to $qp_before" ||
		fail "the device holds $(cat "$hw/res_qp") QPs, $qp_before before"
fi
finish
