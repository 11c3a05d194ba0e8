#!/bin/bash
# Host side of a scenario whose QEMUs each have a host CPU of their own
# (QRNIC_PIN): the device's main loop then polls the netdev after a
# doorbell's frames (x-linger-us, qemu-device/qrnic_linger.c).  Records
# each QEMU's qrnic_linger trace event over the run and checks that both
# polled; the guests' own checks show that everything still works.
set -u
. "$(dirname "$0")/host-lib.sh"
alive() { local p=QRNIC_QEMU_PID$1; kill -0 "${!p}" 2> /dev/null; }

for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	m=QRNIC_MON$i
	for _ in $(seq 100); do
		[ -S "${!m}" ] && break
		sleep 0.1
	done
	mon "$i" "logfile $QRNIC_OUTDIR/linger-g$i.log" "trace-event qrnic_linger on" ||
		{ echo "not ok - linger: guest $i's monitor did not answer"; exit 1; }
done
# Until guest 0 is done (guest 1 may power off first: rc.sh's "gone").
for _ in $(seq 9000); do
	[ -e "$QRNIC_SHARE/finished-0" ] && break
	alive 0 || break
	sleep 0.1
done
for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	! alive "$i" || mon "$i" "trace-event qrnic_linger off" "logfile /dev/null"
	n=$(grep -c 'qrnic_linger' "$QRNIC_OUTDIR/linger-g$i.log" 2> /dev/null)
	if [ "${n:-0}" -gt 0 ]; then
		echo "ok - linger: guest $i's QEMU, bound to one CPU, polled the netdev after doorbells ($n times)"
	else
		echo "not ok - linger: guest $i's QEMU, bound to one CPU, never polled after a doorbell"
	fi
done
