#!/bin/bash
# Host side of tests/vm/soak.sh: each guest's QEMU resident memory (VmRSS
# of the QEMU process, QRNIC_QEMU_PID0..) from when guest 0 starts the
# soak traffic (it writes soak-start, holding how many seconds into the
# traffic the reference is taken) until it ends (soak-end); QEMU must not
# have grown by more than 16 MiB since the reference.  After the reload
# cycles (reload-end) the guest's RAM and TCG's translation cache are left
# out: each new driver instance may touch guest pages never touched before
# and run code at new addresses, which QEMU then holds, but QEMU's own
# memory (everything else) must be within 16 MiB of where it was when the
# traffic ended.
set -u
limit_kb=$((16 * 1024))
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
pids=()
for ((i = 0; i < QRNIC_NGUESTS; i++)); do
	v=QRNIC_QEMU_PID$i
	pids[$i]=${!v}
done
# outside PID: resident KiB outside the guest's RAM (the largest
# writable mapping) and TCG's translation cache (the large executable one,
# which fills as the guest runs code it had not run before).
outside() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { m++; x[m] = ($2 ~ /x/) }
	     /^Size:/ { sz[m] = $2 } /^Rss:/ { rss[m] = $2; t += $2 }
	     END { for (i in sz) {
			if (x[i] && sz[i] >= 65536) { t -= rss[i] }
			else if (!x[i] && sz[i] > big) { big = sz[i]; b = i } }
		   print t - rss[b] }' "/proc/$1/smaps" 2>/dev/null
}
outside_all() { local i s=; for ((i = 0; i < QRNIC_NGUESTS; i++)); do s+=" $(outside "${pids[$i]}")"; done; echo "${s# }"; }
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
read -r -a own <<< "$(outside_all)"
echo "soak-host: $(($(date +%s) - t0)) s: traffic over, QEMU RSS (KiB): ${fin[*]}; outside guest RAM and TCG's cache: ${own[*]}"
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
		read -r -a own2 <<< "$(outside_all)"
		echo "soak-host: after the reload cycles, QEMU RSS (KiB): $(rss_all); outside guest RAM and TCG's cache: ${own2[*]}"
		for ((i = 0; i < QRNIC_NGUESTS; i++)); do
			d=$((own2[i] - own[i]))
			msg="guest $i: QEMU's memory outside guest RAM and TCG's cache $(mib "${own[i]}") MiB when the traffic ended, $(mib "${own2[i]}") MiB after the reload cycles ($( [ $d -ge 0 ] && echo +)$(mib $d) MiB, limit +16 MiB)"
			if [ "$d" -le "$limit_kb" ]; then echo "ok - $msg"; else echo "not ok - $msg"; rc=1; fi
		done
		touch "$QRNIC_SHARE/reload-rss-done"
		break
	fi
	[ -e "$QRNIC_SHARE/finished-0" ] && break
	sleep 0.5
done
exit $rc
