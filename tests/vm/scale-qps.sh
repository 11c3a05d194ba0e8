#!/bin/sh
# scale-qps.sh PROCS PER_PROC: one guest holds PROCS x PER_PROC RC QPs at
# once, PROCS processes (user contexts) of PER_PROC each (rc-check qps:
# smallest rings, INIT, a checked WRITE and SEND beside them), then frees
# them all.  A context may hold a quarter of the device's QPs and queue
# memory (docs/hardware.md), so many QPs take several processes and a
# device with room for them (run-tests' scale group sets max-qps and
# qmem-size).  Checks the QP count the kernel reports while they are held
# and after, and that no process failed.
. "$(dirname "$0")/lib.sh"

procs=${1:-2}
per=${2:-1000}
total=$((procs * per))
dir=/tmp/scale-qps
rm -rf "$dir"
mkdir -p "$dir"

qp_count() {
	rdma resource show 2>/dev/null | sed -n 's/.*qrnic0: .* qp \([0-9]*\) .*/\1/p'
}

limits=$(dmesg | grep -o '[0-9]* user contexts, each at most .*' | tail -1)
echo "    device: $limits"
base=$(qp_count)
echo "    QPs before: $base"

start=$(date +%s)
i=0
while [ "$i" -lt "$procs" ]; do
	rc-check -t 3600 qps "$per" "$dir/ready.$i" "$dir/go" > "$dir/out.$i" 2>&1 &
	echo $! > "$dir/pid.$i"
	i=$((i + 1))
done

all_ready() {
	for _i in $(seq 0 $((procs - 1))); do
		[ -e "$dir/ready.$_i" ] || return 1
	done
}
check "$procs processes each hold their $per QPs" retry 3000 all_ready
held=$(qp_count)
echo "    QPs held: $held after $(($(date +%s) - start)) s"
check "rdma resource: $total QPs more than before ($base -> $held)" \
	[ "$((held - base))" -ge "$total" ]
: > "$dir/go"

i=0
while [ "$i" -lt "$procs" ]; do
	wait "$(cat "$dir/pid.$i")"
	tap_result "rc-check qps $per (process $i)" $? "$dir/out.$i"
	i=$((i + 1))
done
echo "    all done after $(($(date +%s) - start)) s"
after=$(qp_count)
check "rdma resource: back to $base QPs after all were destroyed (got $after)" \
	[ "$after" = "$base" ]
finish
