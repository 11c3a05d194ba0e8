#!/bin/bash
# Host side of tests/vm/soak.sh: each guest's QEMU resident memory (VmRSS
# of the QEMU process, QRNIC_QEMU_PID0..) from when guest 0 starts the
# soak traffic (it writes soak-start, holding how many seconds into the
# traffic the reference is taken) until it ends (soak-end); QEMU must not
# have grown by more than 16 MiB since the reference.  Also shown after the
# reload cycles (reload-end), for information.
set -u
limit_kb=$((16 * 1024))
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
pids=()
for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	v=QRNIC_QEMU_PID$i
	pids[$i]=${!v}
done
rss_all() { local i s=; for ((i = 0; i < QRNIC_NGUESTS; i++)); do s+=" $(rss "${pids[$i]}")"; done; echo "${s# }"; }

for _ in $(seq 3000); do
	[ -e "$QRNIC_SHARE/soak-start" ] && break
	[ -e "$QRNIC_SHARE/finished-0" ] && { echo "soak-host: guest 0 finished without starting the soak"; exit 0; }
	sleep 0.2
done
[ -e "$QRNIC_SHARE/soak-start" ] || { echo "not ok - soak-host: the soak never started"; exit 1; }
read -r after < "$QRNIC_SHARE/soak-start"
t0=$(date +%s)
echo "soak-host: traffic started; QEMU RSS (KiB) at start: $(rss_all); reference after ${after} s"
base=() next_log=$((t0 + 30))
while [ ! -e "$QRNIC_SHARE/soak-end" ]; do
	now=$(date +%s)
	if [ ${#base[@]} = 0 ] && [ $((now - t0)) -ge "$after" ]; then
		read -r -a base <<< "$(rss_all)"
		echo "soak-host: $((now - t0)) s: reference QEMU RSS (KiB): ${base[*]}"
	fi
	if [ "$now" -ge "$next_log" ]; then
		echo "soak-host: $((now - t0)) s: QEMU RSS (KiB): $(rss_all)"
		next_log=$((next_log + 30))
	fi
	if [ $((now - t0)) -gt 7200 ] || [ -e "$QRNIC_SHARE/finished-0" ]; then
		echo "not ok - soak-host: the soak never ended"; exit 1
	fi
	sleep 1
done
read -r -a fin <<< "$(rss_all)"
echo "soak-host: $(($(date +%s) - t0)) s: traffic over, QEMU RSS (KiB): ${fin[*]}"
rc=0
for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	if [ ${#base[@]} = 0 ]; then
		echo "not ok - guest $i: QEMU RSS: the soak ended before the reference at ${after} s"
		rc=1
		continue
	fi
	d=$((fin[i] - base[i]))
	msg="guest $i: QEMU RSS $(mib "${base[i]}") MiB after ${after} s of traffic, $(mib "${fin[i]}") MiB at the end ($( [ $d -ge 0 ] && echo +)$(mib $d) MiB, limit +16 MiB)"
	if [ "$d" -le "$limit_kb" ]; then echo "ok - $msg"; else echo "not ok - $msg"; rc=1; fi
done
touch "$QRNIC_SHARE/rss-done"
for _ in $(seq 36000); do
	if [ -e "$QRNIC_SHARE/reload-end" ]; then
		echo "soak-host: after the reload cycles, QEMU RSS (KiB): $(rss_all)"
		touch "$QRNIC_SHARE/reload-rss-done"
		break
	fi
	[ -e "$QRNIC_SHARE/finished-0" ] && break
	sleep 0.5
done
exit $rc
