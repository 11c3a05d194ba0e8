#!/bin/bash
# Host side of a traced qrnic-vu NVMe run (docs/performance.md, "Where a
# qrnic-vu I/O's time goes"): once the target guest has exported its disk
# and fio has had QRNIC_VUT_WAIT seconds (default 12) to start, turn on for
# QRNIC_VUT_SECS seconds (default 2) in each guest's QEMU the vfio-user
# client's region writes and the MSI injections, and in each qrnic-vfio-user
# its own events (trace FILE on the control socket); the logs land in
# OUTDIR/vut-qemuI.log and OUTDIR/vut-serverI.log for vu-trace-analyze.
# Prints each QEMU thread's CPU share over that time.  With in-QEMU qrnic
# guests, QEMU's qrnic_doorbell, qrnic_irq, qrnic_tx_frame and
# qrnic_rx_frame events instead (vu-trace-analyze counts the requests in
# flight from them).
#   QRNIC_QEMU_ARGS="-msg timestamp=on" QRNIC_VCPU_NICE=0 QRNIC_SMP=2 \
#     tests/vm/run-vms -k 6.12 -l stream -o OUTDIR \
#     -H tests/bench/vu-trace-host.sh qrnic-vu qrnic-vu -- \
#     tests/vm/nvme-bench.sh 1 20
set -u
. "$(dirname "$0")/../vm/host-lib.sh"
hmp=$(dirname "$0")/../vm/hmp

await nvme-bench-target 300 || { echo "vu-trace: the target never came up"; exit 1; }
# cpu_ticks I: "thread-name ticks" (user + system) of guest I's QEMU.
cpu_ticks() {
	local pid=QRNIC_QEMU_PID$1 t
	echo "@time $(date +%s.%N)"
	for t in /proc/"${!pid}"/task/*; do
		awk '{ sub(/^[^(]*\(/, ""); name = $0; sub(/\).*/, "", name)
			gsub(/ /, "_", name); sub(/^[^)]*\) /, "")
			print name, $12 + $13 }' "$t/stat" 2> /dev/null
	done
}

sleep "${QRNIC_VUT_WAIT:-12}"
for i in 0 1; do
	nic=QRNIC_NIC$i ctl=QRNIC_VU_CTL$i
	cpu_ticks "$i" > "$QRNIC_OUTDIR/vut-cpu$i.before"
	if [ "${!nic}" = qrnic-vu ]; then
		mon "$i" "logfile $QRNIC_OUTDIR/vut-qemu$i.log" \
			"trace-event vfio_user_region_rw on" "trace-event vfio_msi_interrupt on"
		"$hmp" "${!ctl}" "trace $QRNIC_OUTDIR/vut-server$i.log" > /dev/null
	else
		mon "$i" "logfile $QRNIC_OUTDIR/vut-qemu$i.log" \
			"trace-event qrnic_doorbell on" "trace-event qrnic_irq on" \
			"trace-event qrnic_tx_frame on" "trace-event qrnic_rx_frame on"
	fi
done
sleep "${QRNIC_VUT_SECS:-2}"
for i in 0 1; do
	nic=QRNIC_NIC$i ctl=QRNIC_VU_CTL$i
	[ "${!nic}" = qrnic-vu ] && "$hmp" "${!ctl}" "trace off" > /dev/null
	mon "$i" "trace-event vfio_user_region_rw off" \
		"trace-event vfio_msi_interrupt off" "trace-event qrnic_* off" \
		"logfile /dev/null"
	cpu_ticks "$i" > "$QRNIC_OUTDIR/vut-cpu$i.after"
	# Each QEMU thread's share of one host CPU over the traced time.
	echo "vu-trace: guest $i's QEMU threads, % of a CPU: $(awk -v hz="$(getconf CLK_TCK)" \
		'NR == FNR { b[$1] += $2; next } { a[$1] += $2 }
		END { s = a["@time"] - b["@time"]; printf "(over %.1f s) ", s
			for (n in a) if (n != "@time" && a[n] > b[n])
				printf "%s %.0f  ", n, 100 * (a[n] - b[n]) / hz / s }' \
		"$QRNIC_OUTDIR/vut-cpu$i.before" "$QRNIC_OUTDIR/vut-cpu$i.after")"
done
echo "vu-trace: traced ${QRNIC_VUT_SECS:-2} s"
