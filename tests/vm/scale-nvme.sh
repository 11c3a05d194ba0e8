#!/bin/sh
# scale-nvme.sh [CTRLS [IOQ]]: NVMe over RDMA at scale (issue 28): one
# kernel target (nvmet-rdma) serving CTRLS controllers (default 8) of IOQ
# I/O queues each (default 8), all connected from the other guest at once.
#
# Guest 1 is the target: CTRLS RAM disks (brd), each the namespace of its
# own subsystem (nqn.2026-11.org.qrnic:scale-I), all on one port
# ($QRNIC_IP:4420).  Guest 0 is the host: it connects to every subsystem
# with `nvme connect -t rdma`, so the target holds CTRLS x (IOQ + 1) RC
# QPs (an admin queue and IOQ I/O queues per controller), each I/O
# queue's send ring sized by nvmet at 4096 WQEs of 512 bytes (2 MiB of the
# device's queue memory, BAR4).  The device's default, 256 MiB, is meant
# to hold 8 x 8 of them (docs/hardware.md, "Queue memory").
#
# How a controller gets 8 I/O queues: nvme-rdma (Linux 6.12,
# nvmf_nr_io_queues) caps each of nr_io_queues, nr_write_queues and
# nr_poll_queues at the host's online CPUs, so 2 vCPUs allow at most
# 2 + 2 + 2 = 6.  run-vms gives every guest the same vCPU count
# (QRNIC_SMP), so both guests run with QRNIC_SMP=4 and the host connects
# with --nr-io-queues=IOQ/2 --nr-write-queues=IOQ/2 (4 default + 4 read
# queues, no poll queues); the script refuses to start with fewer than
# IOQ/2 vCPUs.  The target's vCPU count changes nothing it allocates.
#
# Checks:
#   host: every `nvme connect` succeeds; each controller's queue_count
#     (sysfs) is IOQ + 1 and its kernel log says "creating IOQ I/O queues"
#     and "mapped IOQ/2/IOQ/2/0 default/read/poll queues"; on every
#     namespace at once: 4 MiB of random data written with dd
#     oflag=direct reads back identical, then fio (randwrite, 16 KiB,
#     queue depth 8, 4 jobs of 2 MiB per namespace, verify=crc32c) passes;
#     every controller disconnects; no "failed to connect" in its log;
#   target: with everything connected, `rdma resource show qp` lists
#     CTRLS x (IOQ + 1) RC QPs more on the device and the device's own
#     count (hw_counters/res_qp) grew by as many; no "failed to
#     create_qp" in its log; each RAM disk holds the host's dd data (md5);
#     after the host disconnected the QP counts are back;
#   both: no WARN, BUG or Oops in dmesg.
# Both print `rdma statistic show`'s non-zero counters at the end.
#
#   QRNIC_SMP=4 run-vms -k 6.12 qrnic qrnic -- scale-nvme.sh 8 8
. "$(dirname "$0")/lib.sh"

ctrls=${1:-8}
ioq=${2:-8}
half=$((ioq / 2))
port=4420
cfg=/sys/kernel/config/nvmet
DISK_MIB=16		# per RAM disk: 0..3 dd, 4..11 fio (4 jobs x 2 MiB)
DD_MIB=4
qps_want=$((ctrls * (ioq + 1)))
[ $((ioq % 2)) -eq 0 ] || { echo "# scale-nvme: IOQ ($ioq) must be even"; exit 2; }

nqn() { echo "nqn.2026-11.org.qrnic:scale-$1"; }
hostnqn="nqn.2026-11.org.qrnic:scale-host-$QRNIC_IDX"

# RC QPs on this guest's device (the target has no others than
# nvmet-rdma's; rdma_cm creates them, so `comm [rdma_cm]`).
rc_qps() {
	rdma resource show qp 2>/dev/null | grep -F "link $QRNIC_IBDEV/" | grep -c ' type RC '
}

# ---- target (guest 1) ---------------------------------------------------------
target_up() {
	modprobe brd rd_nr="$ctrls" rd_size=$((DISK_MIB * 1024)) || return 1
	modprobe nvmet_rdma || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
		return 1
	mkdir "$cfg/ports/1" &&
		echo rdma > "$cfg/ports/1/addr_trtype" &&
		echo ipv4 > "$cfg/ports/1/addr_adrfam" &&
		echo "$QRNIC_IP" > "$cfg/ports/1/addr_traddr" &&
		echo "$port" > "$cfg/ports/1/addr_trsvcid" || return 1
	_i=0
	while [ "$_i" -lt "$ctrls" ]; do
		_s=$cfg/subsystems/$(nqn "$_i")
		mkdir "$_s" &&
			echo 1 > "$_s/attr_allow_any_host" &&
			mkdir "$_s/namespaces/1" &&
			echo -n "/dev/ram$_i" > "$_s/namespaces/1/device_path" &&
			echo 1 > "$_s/namespaces/1/enable" &&
			ln -s "$_s" "$cfg/ports/1/subsystems/$(nqn "$_i")" || return 1
		_i=$((_i + 1))
	done
	retry 20 cm_listening "$port"
}

target_down() {
	_i=0
	while [ "$_i" -lt "$ctrls" ]; do
		_s=$cfg/subsystems/$(nqn "$_i")
		rm -f "$cfg/ports/1/subsystems/$(nqn "$_i")"
		[ -d "$_s/namespaces/1" ] && echo 0 > "$_s/namespaces/1/enable"
		rmdir "$_s/namespaces/1" "$_s" 2>/dev/null
		_i=$((_i + 1))
	done
	rmdir "$cfg/ports/1" 2>/dev/null
	modprobe -r nvmet_rdma nvmet
}

# counters WHO: the device's non-zero counters (rdma statistic), for the log.
counters() {
	echo "# $1: rdma statistic show link $QRNIC_IBDEV/1 (non-zero):"
	rdma statistic show link "$QRNIC_IBDEV/1" 2>/dev/null | tr ' ' '\n' |
		awk 'prev != "" && $1 ~ /^[0-9]+$/ && $1 != 0 { out = out " " prev " " $1 } { prev = $1 }
			END { print "#  " out }'
}

rc_back() { [ "$(rc_qps)" -eq "$base_rc" ]; }

target() {
	base_hw=$(hwc res_qp)
	base_rc=$(rc_qps)
	if target_up; then
		pass "target: $ctrls subsystems (/dev/ram0..$((ctrls - 1))) on $QRNIC_IP:$port, nvmet-rdma listening"
		echo up > "$QRNIC_SHARE/scale-target"
	else
		fail "target: setup ($(dmesg | tail -n 3 | tr '\n' ' '))"
		echo failed > "$QRNIC_SHARE/scale-target"
		target_down
		return
	fi
	if wait_for scale-connected 1800; then
		got_rc=$(rc_qps)
		got_hw=$(hwc res_qp)
		echo "# target: rdma resource: $(rdma resource show 2>/dev/null | grep -F " $QRNIC_IBDEV:")"
		check "target: rdma resource show qp: $qps_want RC QPs more ($ctrls x ($ioq + 1)): $base_rc -> $got_rc" \
			test "$((got_rc - base_rc))" -eq "$qps_want"
		[ "$QRNIC_NIC" = qrnic ] && echo "# target: $QRNIC_IBDEV holds: $(hw_counts)" &&
			check "target: the device's res_qp grew by $qps_want ($base_hw -> $got_hw)" \
				test "$((got_hw - base_hw))" -eq "$qps_want"
	else
		fail "target: the host never reported its connections"
	fi
	signal scale-counted
	if wait_for scale-io-done 1800; then
		i=0
		while [ "$i" -lt "$ctrls" ]; do
			if [ -f "$QRNIC_SHARE/scale-sum-$i" ]; then
				read -r want < "$QRNIC_SHARE/scale-sum-$i"
				got=$(dd if="/dev/ram$i" bs=1M count="$DD_MIB" iflag=direct 2>/dev/null |
					md5sum | cut -d' ' -f1)
				check "target: /dev/ram$i holds the host's $DD_MIB MiB (md5 $got)" \
					test "$got" = "$want"
			else
				fail "target: no dd data from the host for controller $i"
			fi
			i=$((i + 1))
		done
	else
		fail "target: the host never finished its I/O"
	fi
	wait_for scale-host-done 1800 || fail "target: the host never disconnected"
	check "target: the RC QPs gone after the host disconnected (back to $base_rc)" retry 60 rc_back
	check "target: the device's res_qp back to $base_hw (now $(hwc res_qp))" \
		retry 60 sh -c "[ \$(cat $hw/res_qp) -eq $base_hw ]"
	if dmesg | grep -q 'failed to create_qp'; then
		fail "target: dmesg: $(dmesg | grep 'failed to create_qp' | head -n 1) ($(dmesg | grep -c 'failed to create_qp') times)"
	else
		pass "target: no \"failed to create_qp\" in dmesg"
	fi
	target_down
}

# ---- host (guest 0) -------------------------------------------------------------
# ctrl_of I: the controller (nvmeK) connected to subsystem I.
ctrl_of() {
	for _c in /sys/class/nvme/nvme*; do
		[ "$(cat "$_c/subsysnqn" 2>/dev/null)" = "$(nqn "$1")" ] && { echo "${_c##*/}"; return 0; }
	done
	return 1
}

# ns_dev CTRL: the block device of CTRL's namespace (with native multipath
# the controller holds the path nvmeXcKnY, the device node is nvmeXnY).
ns_dev() {
	for _n in /sys/class/nvme/"$1"/nvme*n*; do
		[ -e "$_n" ] || continue
		_n=${_n##*/}
		case "$_n" in
		nvme*c*n*) _n=$(echo "$_n" | sed 's/c[0-9]*n/n/') ;;
		esac
		[ -b "/dev/$_n" ] && { echo "/dev/$_n"; return 0; }
	done
	return 1
}

host() {
	tip=${QRNIC_PEER_IPS%% *}
	if ! wait_for scale-target 600 || [ "$(cat "$QRNIC_SHARE/scale-target")" != up ]; then
		fail "host: no target"
		signal scale-connected; signal scale-io-done; signal scale-host-done
		return
	fi
	modprobe nvme_rdma
	start=$(date +%s)
	i=0
	connected=0
	while [ "$i" -lt "$ctrls" ]; do
		mark=$(dmesg | wc -l)
		if timeout 180 nvme connect -t rdma -a "$tip" -s "$port" -n "$(nqn "$i")" \
			--hostnqn="$hostnqn" --nr-io-queues="$half" --nr-write-queues="$half" \
			> /tmp/connect.out 2>&1 && c=$(retry 20 ctrl_of "$i") &&
			retry 20 ns_dev "$c" > /dev/null; then
			connected=$((connected + 1))
			dev=$(ns_dev "$c")
			echo "$c $dev" > "/tmp/scale-ctrl-$i"
			dmesg | tail -n +$((mark + 1)) > "/tmp/scale-dmesg-$i"
			qc=$(cat "/sys/class/nvme/$c/queue_count")
			pass "host: controller $i: nvme connect to $(nqn "$i"): $c, $dev, queue_count $qc, sqsize $(cat "/sys/class/nvme/$c/sqsize")"
			check "host: controller $i ($c): queue_count $qc is $((ioq + 1)) (admin + $ioq I/O)" \
				test "$qc" -eq $((ioq + 1))
			expect_match "host: controller $i ($c): kernel log: creating $ioq I/O queues" \
				"$c: creating $ioq I/O queues" "$(cat "/tmp/scale-dmesg-$i")"
			expect_match "host: controller $i ($c): kernel log: mapped $half/$half/0 default/read/poll queues" \
				"$c: mapped $half/$half/0 default/read/poll queues" "$(cat "/tmp/scale-dmesg-$i")"
		else
			held=
			[ "$QRNIC_NIC" = qrnic ] && held="; $QRNIC_IBDEV holds $(hw_counts)"
			fail "host: controller $i: nvme connect -t rdma -a $tip -n $(nqn "$i") ($(tail -n 2 /tmp/connect.out | tr '\n' ' '); kernel: $(dmesg | tail -n +$((mark + 1)) | tail -n 3 | tr '\n' ' ')$held)"
		fi
		i=$((i + 1))
	done
	echo "# host: $connected of $ctrls controllers connected in $(($(date +%s) - start)) s"
	[ "$QRNIC_NIC" = qrnic ] && echo "# host: $QRNIC_IBDEV holds: $(hw_counts)"
	signal scale-connected

	# I/O on every namespace at once: dd, then fio.
	i=0
	while [ "$i" -lt "$ctrls" ]; do
		if [ -f "/tmp/scale-ctrl-$i" ]; then
			read -r c dev < "/tmp/scale-ctrl-$i"
			(
				dd if=/dev/urandom of="/tmp/scale-data-$i" bs=1M count="$DD_MIB" 2>/dev/null
				md5sum < "/tmp/scale-data-$i" | cut -d' ' -f1 > "$QRNIC_SHARE/scale-sum-$i"
				timeout 300 dd if="/tmp/scale-data-$i" of="$dev" bs=1M count="$DD_MIB" \
					oflag=direct conv=notrunc 2> "/tmp/scale-dd-$i.err" &&
					timeout 300 dd if="$dev" of="/tmp/scale-back-$i" bs=1M count="$DD_MIB" \
						iflag=direct 2>> "/tmp/scale-dd-$i.err" &&
					cmp -s "/tmp/scale-data-$i" "/tmp/scale-back-$i"
				echo $? > "/tmp/scale-dd-$i.rc"
			) &
		fi
		i=$((i + 1))
	done
	wait
	fio_jobs=
	i=0
	while [ "$i" -lt "$ctrls" ]; do
		if [ -f "/tmp/scale-ctrl-$i" ]; then
			read -r c dev < "/tmp/scale-ctrl-$i"
			read -r st < "/tmp/scale-dd-$i.rc"
			check "host: controller $i ($c): $DD_MIB MiB written with oflag=direct read back identical ($(tail -n 1 "/tmp/scale-dd-$i.err"))" \
				test "$st" = 0
			fio_jobs="$fio_jobs --name=c$i --filename=$dev"
		fi
		i=$((i + 1))
	done
	if [ -n "$fio_jobs" ]; then
		t0=$(date +%s)
		# Global options first; each --name starts a job on its namespace.
		timeout 600 fio --direct=1 --ioengine=libaio --iodepth=8 --rw=randwrite --bs=16k \
			--numjobs=4 --size=2M --offset="${DD_MIB}M" --offset_increment=2M \
			--verify=crc32c --verify_fatal=1 --group_reporting $fio_jobs > /tmp/fio.out 2>&1
		st=$?
		if [ "$st" -eq 0 ] && grep -q 'err= 0' /tmp/fio.out && ! grep -qE '^verify: |bad magic|err=[ ]*[1-9]' /tmp/fio.out; then
			pass "host: fio on all $connected namespaces at once (randwrite 16k qd 8, 4 x 2 MiB each, verify=crc32c) in $(($(date +%s) - t0)) s"
		else
			fail "host: fio on all namespaces (status $st)"
			sed 's/^/    /' /tmp/fio.out | tail -n 30
		fi
	fi
	signal scale-io-done
	wait_for scale-counted 600 || fail "host: the target never counted its QPs"

	i=0
	while [ "$i" -lt "$ctrls" ]; do
		if [ -f "/tmp/scale-ctrl-$i" ]; then
			check "host: controller $i: nvme disconnect" \
				timeout 120 nvme disconnect -n "$(nqn "$i")" > /dev/null
		fi
		i=$((i + 1))
	done
	check "host: no controller left" retry 30 sh -c '! ls /sys/class/nvme | grep -q .'
	if dmesg | grep -qiE 'failed to connect|failed to create'; then
		fail "host: dmesg: $(dmesg | grep -iE 'failed to connect|failed to create' | head -n 1)"
	else
		pass "host: no \"failed to connect\" in dmesg"
	fi
	modprobe -r nvme_rdma nvme_fabrics 2>/dev/null
	signal scale-host-done
}

# ---- both guests ----------------------------------------------------------------
[ "$QRNIC_NGUESTS" -eq 2 ] || { echo "# scale-nvme: needs two guests"; exit 2; }
cpus=$(nproc)
if [ "$QRNIC_IDX" = 0 ] && [ "$cpus" -lt "$half" ]; then
	# nvme-rdma would quietly make fewer queues.
	fail "host: $cpus vCPUs, $ioq I/O queues need $half (QRNIC_SMP=$half)"
	signal scale-connected; signal scale-io-done; signal scale-host-done
	finish
fi
rm -f /dev/nvme*	# no stale files where device nodes appear
rdma_gid || finish
dmesg -C
echo "# guest $QRNIC_IDX: $cpus vCPUs, $QRNIC_IBDEV, queue memory (BAR4) $(lspci -vv -d 1b36:0130 2>/dev/null |
	sed -n 's/.*Region 4: .*\[size=\(.*\)\]/\1/p')"
if [ "$QRNIC_IDX" = 1 ]; then target; else host; fi
counters "guest $QRNIC_IDX ($([ "$QRNIC_IDX" = 1 ] && echo target || echo host))"
check "guest $QRNIC_IDX: no WARN, BUG or Oops in dmesg" sh -c '! dmesg | grep -qE "WARNING:|BUG:|Oops"'
finish
