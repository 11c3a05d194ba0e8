# Shared by tests/vm/nvme.sh and nvme-bench.sh (POSIX sh, after lib.sh):
# an NVMe/RDMA target exporting /dev/ram0 through nvmet's configfs, and the
# host's connect/disconnect.
cfg=/sys/kernel/config/nvmet
port=4420

# The device's resources as `rdma resource show` counts them, but for the
# CQs of ib_core's shared pool (ib_cq_pool_get, used by nvme-rdma and
# nvmet-rdma): ib_core keeps those, idle, until the device goes away.
res_counts() {
	_pool=$(rdma resource show cq dev "$QRNIC_IBDEV" 2>/dev/null |
		grep -c ' users 0 .*comm \[ib_core\]')
	rdma resource show 2>/dev/null | grep -F " $QRNIC_IBDEV:" |
		sed 's/^[0-9]*: [^ ]* //' |
		awk -v pool="$_pool" '{ for (i = 1; i < NF; i++) if ($i == "cq") $(i + 1) -= pool; print }'
}

nqn_of() { echo "nqn.2026-11.org.qrnic:nvme-round$1"; }
hostnqn="nqn.2026-11.org.qrnic:host-$QRNIC_IDX"

# target_up R: export /dev/ram0 as round R's subsystem (any host may
# connect) on this guest's address, port 4420; nvmet-rdma listening.
target_up() {
	_nqn=$(nqn_of "$1")
	modprobe nvmet_rdma || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
		return 1
	mkdir "$cfg/subsystems/$_nqn" &&
		echo 1 > "$cfg/subsystems/$_nqn/attr_allow_any_host" &&
		mkdir "$cfg/subsystems/$_nqn/namespaces/1" &&
		echo -n /dev/ram0 > "$cfg/subsystems/$_nqn/namespaces/1/device_path" &&
		echo 1 > "$cfg/subsystems/$_nqn/namespaces/1/enable" &&
		mkdir "$cfg/ports/1" &&
		echo rdma > "$cfg/ports/1/addr_trtype" &&
		echo ipv4 > "$cfg/ports/1/addr_adrfam" &&
		echo "$QRNIC_IP" > "$cfg/ports/1/addr_traddr" &&
		echo "$port" > "$cfg/ports/1/addr_trsvcid" &&
		ln -s "$cfg/subsystems/$_nqn" "$cfg/ports/1/subsystems/$_nqn" &&
		retry 20 cm_listening "$port"
}

# target_down R: undo target_up, unload the target.
target_down() {
	_nqn=$(nqn_of "$1")
	rm -f "$cfg/ports/1/subsystems/$_nqn"
	rmdir "$cfg/ports/1" 2>/dev/null
	[ -d "$cfg/subsystems/$_nqn/namespaces/1" ] &&
		echo 0 > "$cfg/subsystems/$_nqn/namespaces/1/enable"
	rmdir "$cfg/subsystems/$_nqn/namespaces/1" "$cfg/subsystems/$_nqn" 2>/dev/null
	modprobe -r nvmet_rdma nvmet
}

# The namespace's block device (nvme0n1; with native multipath the
# per-path nvme0c0n1 has no device node).
nvme_dev() {
	for _d in $(ls /sys/block | grep -E '^nvme[0-9]+n[0-9]+$'); do
		[ -b "/dev/$_d" ] && { echo "/dev/$_d"; return 0; }
	done
	return 1
}

# connect R [OPTS...]: connect to round R's target at $tip (nvme connect
# options OPTS); the namespace's device in $dev.
connect() {
	_r=$1; shift
	timeout 60 nvme connect -t rdma -a "$tip" -s "$port" -n "$(nqn_of "$_r")" \
		--hostnqn="$hostnqn" "$@" > /tmp/nvme-connect.out 2>&1 || return 1
	retry 20 nvme_dev > /dev/null && dev=$(nvme_dev)
}

disconnect() {
	timeout 60 nvme disconnect -n "$(nqn_of "$1")" > /tmp/nvme-disconnect.out 2>&1 &&
		retry 20 sh -c '! ls /sys/block | grep -q ^nvme'
}

