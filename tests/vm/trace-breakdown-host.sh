#!/bin/bash
# Host side of tests/bench/trace-breakdown (run-vms -H): for each phase the
# guests run (tests/vm/trace-breakdown.sh), when guest 0 asks
# (PHASE.req): point each QEMU's log at OUTDIR/trace-PHASE-gI.log, turn the
# phase's trace events on through the monitor, sample every QEMU thread's
# /proc schedstat (tests/bench/trace-analyze sample), say go; when both
# guests are done, stop both and say end.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${QRNIC_TB_OUT:-$QRNIC_OUTDIR}
phases=${QRNIC_TB_PHASES:?}
all_events="qrnic_doorbell qrnic_work_sched qrnic_work_start qrnic_work_end qrnic_tx_frame qrnic_tx_done qrnic_rx_frame qrnic_rx_refused qrnic_cqe qrnic_irq qrnic_timer_fire"

. "$top/tests/vm/host-lib.sh"

# prop_default NAME: the device's own value of property NAME, read before
# any phase changes it (a phase that sets one leaves it changed).
prop_default() {
	local v
	for _ in $(seq 100); do
		v=$("$top/tests/vm/hmp" "$QRNIC_MON0" "qom-get /machine/peripheral/nic0 $1" 2> /dev/null |
			grep -E '^[0-9]+$' | head -n1)
		[ -n "$v" ] && break
		sleep 0.2
	done
	echo "tb-host: the device's $1 is ${v:-unknown}" >&2
	echo "$v"
}
db_default=$(prop_default x-db-work)
wpkts_default=$(prop_default x-window-pkts)
wkib_default=$(prop_default window-kib)

pids=
for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	p=QRNIC_QEMU_PID$i
	pids+="${pids:+,}${!p}"
done

for ph in $phases; do
	for _ in $(seq 3000); do
		[ -e "$QRNIC_SHARE/$ph.req" ] && break
		[ -e "$QRNIC_SHARE/finished-0" ] && { echo "tb-host: guest 0 finished before $ph"; exit 0; }
		sleep 0.1
	done
	[ -e "$QRNIC_SHARE/$ph.req" ] || { echo "tb-host: $ph never asked for"; exit 1; }
	case "$ph" in
	*.trace*) events=$all_events ;;
	*) events=qrnic_admin_cmd ;;	# rare: QP set up and torn down
	esac
	# .bh: x-db-work 0; .dbK: x-db-work K; else the device's default.
	dbw=${db_default:-default}
	case ".$ph." in
	*.bh.*) dbw=0 ;;
	*.db[0-9]*) dbw=$(echo ".$ph." | sed -n 's/.*\.db\([0-9][0-9]*\)\..*/\1/p') ;;
	esac
	# .pin: every thread of QEMU I on host CPU I (mod the CPU count) for
	# this phase; else on any CPU.
	ncpu=$(nproc)
	for ((i = 0; i < QRNIC_NGUESTS; i++)); do
		p=QRNIC_QEMU_PID$i
		case ".$ph." in
		*.pin.*) cpus=$((i % ncpu)) ;;
		*) cpus=0-$((ncpu - 1)) ;;
		esac
		taskset -a -p -c "$cpus" "${!p}" > /dev/null
	done
	# .wK, .pK: the congestion window's caps, window-kib, x-window-pkts
	# (else what the run started with; left alone if it could not be
	# read, as x-db-work is).
	part() { echo ".$ph." | sed -n "s/.*\.$1\([0-9][0-9]*\)\..*/\1/p"; }
	wkib=$(part w) wpkts=$(part p)
	wkib=${wkib:-$wkib_default} wpkts=${wpkts:-$wpkts_default}
	for ((i = 0; i < QRNIC_NGUESTS; i++)); do
		cmds=("logfile $out/trace-$ph-g$i.log")
		[ -z "$wkib" ] || cmds+=("qom-set /machine/peripheral/nic0 window-kib $wkib")
		[ -z "$wpkts" ] || cmds+=("qom-set /machine/peripheral/nic0 x-window-pkts $wpkts")
		[ "$dbw" = default ] || cmds+=("qom-set /machine/peripheral/nic0 x-db-work $dbw")
		for ev in $events; do cmds+=("trace-event $ev on"); done
		mon "$i" "${cmds[@]}"
	done
	python3 "$top/tests/bench/trace-analyze" sample "$pids" > "$out/sched-$ph.txt" &
	sampler=$!
	perfs=()
	# QRNIC_TB_PERF: phases to profile too (perf record per QEMU; its
	# events QRNIC_TB_PERF_EVENTS, default cpu-clock sampling).  perf stamps
	# with CLOCK_MONOTONIC here (it refuses CLOCK_REALTIME), the trace lines
	# with the wall clock: perf-clock-offset holds realtime - monotonic, s.
	if [[ " ${QRNIC_TB_PERF:-} " == *" $ph "* ]]; then
		python3 -c 'import time; print("%.6f" % (time.clock_gettime(time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)))' \
			> "$out/perf-clock-offset"
		for ((i = 0; i < QRNIC_NGUESTS; i++)); do
			p=QRNIC_QEMU_PID$i
			# shellcheck disable=SC2086 # a list of perf options
			perf record -q -k monotonic ${QRNIC_TB_PERF_EVENTS:--e cpu-clock -F 4000} -p "${!p}" -o "$out/perf-$ph-g$i.data" \
				> /dev/null 2>&1 &
			perfs+=($!)
		done
	fi
	sleep 0.1
	touch "$QRNIC_SHARE/$ph.go"
	echo "tb-host: $ph: x-db-work $dbw, window $wkib KiB $wpkts packets, CPUs $cpus, tracing ($events), sampling"
	for _ in $(seq 6000); do
		[ -e "$QRNIC_SHARE/$ph.done-0" ] && [ -e "$QRNIC_SHARE/$ph.done-1" ] && break
		sleep 0.05
	done
	kill "$sampler"
	wait "$sampler" 2> /dev/null
	for p in ${perfs[@]+"${perfs[@]}"}; do kill -INT "$p"; wait "$p"; done
	for ((i = 0; i < QRNIC_NGUESTS; i++)); do
		mon "$i" "trace-event qrnic_* off" "logfile /dev/null"
	done
	touch "$QRNIC_SHARE/$ph.end"
	echo "tb-host: $ph: done"
done
