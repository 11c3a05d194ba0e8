#!/bin/sh
# NVMe over RDMA between two guests, as a user sets it up: one guest exports
# a RAM disk (brd) with the kernel target (nvmet, nvmet-rdma, configfs) on
# its address, port 4420; the other connects with `nvme connect -t rdma`
# (2 read + 2 write I/O queues on 2 vCPUs: QRNIC_SMP=2) and
#   - writes 64 MiB of random data with dd oflag=direct, reads it back and
#     compares; the target compares its backing store too (at the end);
#   - runs fio with --verify=crc32c, random read/write, queue depth 16,
#     4 jobs, for 20 seconds;
#   - disconnects, then 10 connect/write/read/compare/disconnect cycles;
#   - writes while the target guest's link is down for 10 seconds (the host
#     side, tests/vm/nvme-host.sh, runs `set_link n0 off` on its monitor):
#     the host reconnects and every byte reads back.
# Afterwards, in both guests: the RDMA resources (rdma resource show, less
# ib_core's idle shared CQ pool) back to what they were, no WARN/BUG/Oops in
# dmesg.
#
#   run-vms -H tests/vm/nvme-host.sh NIC NIC -- nvme.sh [ROUND...]
#
# ROUND 0: guest 1 is the target, guest 0 the host; ROUND 1 the other way
# round (default: both).  NVME_QUICK=1 (tests/vm/newest.sh) keeps a round
# to connect (the default queues, any vCPU count), dd write, read back,
# compare on both sides, disconnect: no fio, cycles or outage.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvme-lib.sh"

rounds=${*:-0 1}
# The RAM disk's layout, in MiB: what each part of the test writes.
DD_MIB=64		# 0..63: dd, checked on the target's RAM disk
FIO_OFF=64		# 64..127: fio, 4 jobs x 16 MiB
CYCLE_OFF=128		# 128..137: one MiB per connect cycle
FLAP_OFF=144		# 144..167: written across the link outage
FLAP_MIB=24
RAM_MIB=192

# ---- target -------------------------------------------------------------------
# MiB OFF..OFF+N-1 of the RAM disk as the target sees it.
ram_sum() {
	dd if=/dev/ram0 bs=1M skip="$1" count="$2" iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1
}

say_target() {
	echo "$2" > "$QRNIC_SHARE/nvme-target-$1.tmp"
	mv "$QRNIC_SHARE/nvme-target-$1.tmp" "$QRNIC_SHARE/nvme-target-$1"
}

target_round() {
	r=$1
	if target_up "$r"; then
		pass "nvme round $r: target $(nqn_of "$r") on $QRNIC_IP:$port (nvmet-rdma, /dev/ram0)"
		say_target "$r" up
	else
		fail "nvme round $r: target setup"
		say_target "$r" failed
		target_down "$r"
		return
	fi
	if ! wait_for "nvme-host-done-$r" 1200; then
		fail "nvme round $r: the host never finished"
	fi
	for part in dd flap; do
		[ -f "$QRNIC_SHARE/nvme-sum-$part-$r" ] || continue
		read -r off n sum < "$QRNIC_SHARE/nvme-sum-$part-$r"
		got=$(ram_sum "$off" "$n")
		check "nvme round $r: the target's RAM disk holds the host's $part data (MiB $off+$n, md5 $got)" \
			test "$got" = "$sum"
	done
	target_down "$r"
}

# ---- host ---------------------------------------------------------------------
# put FILE MIB_OFF MIB / same FILE MIB_OFF MIB: write FILE at MIB_OFF of the
# namespace, and compare it with what reads back.
put() { timeout 120 dd if="$1" of="$dev" bs=1M seek="$2" count="$3" oflag=direct conv=notrunc 2>/tmp/dd.err; }
same() {
	timeout 120 dd if="$dev" of=/tmp/nvme-back bs=1M skip="$2" count="$3" iflag=direct 2>/tmp/dd.err &&
		cmp -s "$1" /tmp/nvme-back
}

host_round() {
	r=$1
	tip=${QRNIC_PEER_IPS%% *}
	if ! wait_for "nvme-target-$r" 300 || [ "$(cat "$QRNIC_SHARE/nvme-target-$r")" != up ]; then
		fail "nvme round $r: no target"
		signal "nvme-host-done-$r"
		return
	fi
	modprobe nvme_rdma
	mark=$(dmesg | wc -l)
	queues="--nr-io-queues=2 --nr-write-queues=2"
	[ "${NVME_QUICK:-0}" = 1 ] && queues=
	if ! connect "$r" $queues; then
		fail "nvme round $r: nvme connect -t rdma -a $tip -s $port ($(tail -n 3 /tmp/nvme-connect.out))"
		signal "nvme-host-done-$r"
		return
	fi
	pass "nvme round $r: nvme connect -t rdma to $tip: $dev"
	[ -n "$queues" ] && check "nvme round $r: 4 I/O queues (2 default, 2 read)" \
		sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'creating 4 I/O queues'"

	dd if=/dev/urandom of=/tmp/nvme-data bs=1M count="$DD_MIB" 2>/dev/null
	if put /tmp/nvme-data 0 "$DD_MIB" && same /tmp/nvme-data 0 "$DD_MIB"; then
		pass "nvme round $r: $DD_MIB MiB written with oflag=direct read back identical"
	else
		fail "nvme round $r: $DD_MIB MiB write/read back ($(tail -n 1 /tmp/dd.err))"
	fi
	echo "0 $DD_MIB $(md5sum < /tmp/nvme-data | cut -d' ' -f1)" > "$QRNIC_SHARE/nvme-sum-dd-$r"
	if [ "${NVME_QUICK:-0}" = 1 ]; then
		check "nvme round $r: nvme disconnect" disconnect "$r"
		signal "nvme-host-done-$r"
		return
	fi

	timeout 120 fio --name=nvme-verify --filename="$dev" --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randrw --bs=4k --numjobs=4 --size=16M \
		--offset="${FIO_OFF}M" --offset_increment=16M --time_based --runtime=20 \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 --group_reporting \
		> /tmp/fio.out 2>&1
	st=$?
	if [ "$st" -eq 0 ] && grep -q 'err= 0' /tmp/fio.out && ! grep -qE '^verify: |bad magic' /tmp/fio.out; then
		pass "nvme round $r: fio randrw qd 16, 4 jobs, 20 s, verify=crc32c: $(grep -E '^ +(READ|WRITE):' /tmp/fio.out | sed 's/^ *//; s/,.*//' | tr '\n' ' ')"
	else
		fail "nvme round $r: fio (status $st)"
		sed 's/^/    /' /tmp/fio.out | tail -n 30
	fi
	if disconnect "$r"; then
		pass "nvme round $r: nvme disconnect"
	else
		fail "nvme round $r: nvme disconnect ($(cat /tmp/nvme-disconnect.out))"
	fi

	ok=0
	i=0
	while [ "$i" -lt 10 ]; do
		dd if=/dev/urandom of=/tmp/nvme-cycle bs=1M count=1 2>/dev/null
		if connect "$r" && put /tmp/nvme-cycle $((CYCLE_OFF + i)) 1 &&
			same /tmp/nvme-cycle $((CYCLE_OFF + i)) 1 && disconnect "$r"; then
			ok=$((ok + 1))
		else
			echo "# nvme round $r: cycle $i failed"
			disconnect "$r"
		fi
		i=$((i + 1))
	done
	check "nvme round $r: 10 connect/write/read/disconnect cycles ($ok passed)" test "$ok" = 10

	# Writes across a 10-second outage of the target's link.
	dd if=/dev/urandom of=/tmp/nvme-flap bs=1M count="$FLAP_MIB" 2>/dev/null
	echo "$FLAP_OFF $FLAP_MIB $(md5sum < /tmp/nvme-flap | cut -d' ' -f1)" > "$QRNIC_SHARE/nvme-sum-flap-$r"
	mark=$(dmesg | wc -l)
	# The host must notice the outage while it lasts.  rxe never gives up
	# retrying at retry_cnt 7 (nvme-rdma's), so there only the keep-alive
	# notices: with the default 5 s timeout, a keep-alive sent late in the
	# outage is answered once the link is back, and nothing reconnects.
	# With 2 s, one times out within about 4 s of the outage's start.
	if connect "$r" --reconnect-delay=1 --ctrl-loss-tmo=120 --keep-alive-tmo=2; then
		k=0
		st=0
		down_at=never
		while [ "$k" -lt "$FLAP_MIB" ] && [ "$st" -eq 0 ]; do
			if [ "$k" = 4 ]; then
				echo "$target" > "$QRNIC_SHARE/nvme-flap-req-$r"
				wait_for "nvme-flap-off-$r" 30 && down_at=$(cut -d' ' -f1 /proc/uptime)
				echo "# nvme round $r: the target's link went down by uptime $down_at s"
			fi
			timeout 180 dd if=/tmp/nvme-flap of="$dev" bs=1M skip="$k" seek=$((FLAP_OFF + k)) \
				count=1 oflag=direct conv=notrunc 2>/tmp/dd.err || st=$?
			k=$((k + 1))
		done
		done_at=$(cut -d' ' -f1 /proc/uptime)
		up_at=never
		wait_for "nvme-flap-on-$r" 60 && up_at=$(cut -d' ' -f1 /proc/uptime)
		echo "# nvme round $r: writes done by uptime $done_at s, the target's link up again by $up_at s"
		check "nvme round $r: $FLAP_MIB MiB written across the target's 10 s link outage (status $st)" \
			test "$st" -eq 0
		dmesg | tail -n +$((mark + 1)) > /tmp/nvme-flap.dmesg
		if grep -qi reconnected /tmp/nvme-flap.dmesg; then
			pass "nvme round $r: the host reconnected"
		else
			# What a CI log's list of failures shows, without the log.
			fail "nvme round $r: the host reconnected (link down by $down_at s, writes done by $done_at, link up by $up_at; last of its kernel log: '$(tail -n 1 /tmp/nvme-flap.dmesg)')"
		fi
		echo "# nvme round $r: the host's kernel log since the outage's connect:"
		sed 's/^/#    /' /tmp/nvme-flap.dmesg | tail -n 40
		check "nvme round $r: the data written across the outage reads back identical" \
			same /tmp/nvme-flap "$FLAP_OFF" "$FLAP_MIB"
		disconnect "$r" || fail "nvme round $r: nvme disconnect after the outage"
	else
		fail "nvme round $r: connect for the link outage ($(tail -n 3 /tmp/nvme-connect.out))"
	fi
	signal "nvme-host-done-$r"
}

# ---- both guests ----------------------------------------------------------------
[ "$QRNIC_NGUESTS" -eq 2 ] || { echo "# nvme: needs two guests"; exit 2; }
rm -f /dev/nvme*	# no stale files where device nodes appear
rdma_gid || finish
modprobe brd rd_nr=1 rd_size=$((RAM_MIB * 1024)) || { fail "nvme: modprobe brd"; finish; }
before=$(res_counts)
dmesg -C
for r in $rounds; do
	target=$((1 - r))
	if [ "$QRNIC_IDX" = "$target" ]; then
		target_round "$r"
	else
		host_round "$r"
	fi
done
modprobe -r nvme_rdma nvme_fabrics 2>/dev/null
after=$(res_counts)
check "nvme: $QRNIC_IBDEV's resources back to '$before' (now '$after')" test "$after" = "$before"
check "nvme: no WARN, BUG or Oops in dmesg" sh -c '! dmesg | grep -qE "WARNING:|BUG:|Oops"'
finish
