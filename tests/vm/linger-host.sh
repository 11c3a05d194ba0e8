#!/bin/bash
# Host side of a scenario whose QEMUs each have a host CPU of their own
# (QRNIC_PIN): the device's main loop then polls the netdev after a
# doorbell's frames (x-linger-us, qemu-device/qrnic_linger.c).  Records
# the qrnic_linger trace event of each qrnic guest's QEMU over the run and
# checks that each polled (a virtio guest's QEMU has no such device: rxe
# is the peer); the guests' own checks show that everything still works.
set -u
. "$(dirname "$0")/host-lib.sh"
alive() { local p=QRNIC_QEMU_PID$1; kill -0 "${!p}" 2> /dev/null; }
is_qrnic() { local n=QRNIC_NIC$1; [ "${!n}" = qrnic ]; }

for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	is_qrnic "$i" || continue
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
	if ! is_qrnic "$i"; then
		echo "# linger: guest $i runs rxe (virtio), no qrnic device to check"
		continue
	fi
	# QEMU may exit between the two: its socket is gone then.
	! alive "$i" || mon "$i" "trace-event qrnic_linger off" "logfile /dev/null" 2> /dev/null
	n=$(grep -c 'qrnic_linger' "$QRNIC_OUTDIR/linger-g$i.log" 2> /dev/null)
	if [ "${n:-0}" -gt 0 ]; then
		echo "ok - linger: guest $i's QEMU, bound to one CPU, polled the netdev after doorbells or replies ($n times)"
	else
		echo "not ok - linger: guest $i's QEMU, bound to one CPU, never polled after a doorbell"
	fi
done
