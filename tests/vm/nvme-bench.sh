#!/bin/sh
# make bench, NVMe over RDMA (tests/bench/run-bench): guest 1 exports a RAM
# disk with nvmet-rdma, guest 0 connects and measures with fio, REPS times
# each: 4 KiB random reads at queue depth 16 (IOPS) and 128 KiB sequential
# reads at queue depth 16 (MiB/s), SECS seconds per run.  Prints
# "bench: KEY VALUE" lines; fails only if a run fails, never on a figure.
#   nvme-bench.sh [REPS [SECS]]   defaults 3 and 10
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvme-lib.sh"

reps=${1:-3} secs=${2:-10}
[ "$QRNIC_NGUESTS" -eq 2 ] || { echo "bench: FAILED needs two guests"; exit 1; }
rdma_gid > /dev/null || { echo "bench: FAILED no RoCE v2 GID on $QRNIC_IBDEV"; exit 1; }
modprobe brd rd_nr=1 rd_size=131072 || { echo "bench: FAILED modprobe brd"; exit 1; }
if [ "$QRNIC_IDX" = 1 ]; then
	if target_up 0; then st=up; else st=failed; fi
	echo "$st" > "$QRNIC_SHARE/nvme-bench-target.tmp"
	mv "$QRNIC_SHARE/nvme-bench-target.tmp" "$QRNIC_SHARE/nvme-bench-target"
	wait_for nvme-bench-done 1800
	target_down 0
	exit 0
fi

wait_for nvme-bench-target 300 && [ "$(cat "$QRNIC_SHARE/nvme-bench-target")" = up ] ||
	{ echo "bench: FAILED the target guest did not export its RAM disk"; signal nvme-bench-done; exit 1; }
tip=${QRNIC_PEER_IPS%% *}
modprobe nvme_rdma
rc=0
if connect 0; then
	echo "bench: nvme $QRNIC_IBDEV $dev, $(grep -c ^processor /proc/cpuinfo) vCPUs"
	# KEY RW BS FIELD: fio's terse output, read bandwidth (KiB/s, field 7)
	# or read IOPS (field 8).
	for spec in "nvme_randread_4k_iops randread 4k 8" "nvme_seqread_128k_mibps read 128k 7"; do
		set -- $spec
		i=0
		while [ "$i" -lt "$reps" ]; do
			if ! timeout $((secs + 60)) fio --name=bench --filename="$dev" --direct=1 \
				--ioengine=libaio --iodepth=16 --rw="$2" --bs="$3" --size=128M \
				--time_based --runtime="$secs" --output-format=terse > /tmp/fio.out 2>&1; then
				echo "bench: FAILED fio $2 $3"
				sed 's/^/    /' /tmp/fio.out
				rc=1
				break
			fi
			awk -F';' -v f="$4" -v k="$1" 'NF > 8 {
				v = $f; if (f == 7) v = v / 1024; printf "bench: %s %.1f\n", k, v; exit }' /tmp/fio.out
			i=$((i + 1))
		done
	done
	disconnect 0 || { echo "bench: FAILED nvme disconnect"; rc=1; }
else
	echo "bench: FAILED nvme connect -t rdma -a $tip: $(tail -n 2 /tmp/nvme-connect.out)"
	rc=1
fi
signal nvme-bench-done
exit "$rc"
