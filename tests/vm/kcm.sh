#!/bin/sh
# A kernel consumer connecting through rdma_cm: load tests/kmod's
# qrnic_kcm_test with this guest's address.  A kernel listener
# (rdma_bind_addr/rdma_listen) and a kernel client (rdma_resolve_addr,
# rdma_resolve_route, rdma_connect with private data) connect through the
# CM MADs on QP 1, looped back through the device; the listener accepts on
# the new cm_id with its own PD, CQ and QP (rdma_create_qp); each side sends
# the other a SEND and a SEND_WITH_IMM, the client RDMA-WRITEs into a server
# buffer whose address and rkey came in the server's SEND, every byte and
# completion is checked, and the client disconnects.  The module prints
# ok/not ok lines to the kernel log; the load fails if a check failed.  Then
# the device's resource counts must be back to where they were.  Each guest
# runs this on its own address; with two qrnic guests, guest 0 then also
# connects to a listener-only module in guest 1 (role=server/client).
# qrnic only.
. "$(dirname "$0")/lib.sh"

echo "$QRNIC_NIC" > "$QRNIC_SHARE/kcm-nic-$QRNIC_IDX"
[ "$QRNIC_NIC" = qrnic ] || { echo "# kcm: qrnic guests only"; exit 0; }
modprobe rdma_cm 2>/dev/null
rdma_gid || finish

# kcm_load TAG OUT ARGS...: load the module with ARGS, its dmesg lines in OUT.
kcm_load() {
	_kt=$1 _ko=$2; shift 2
	dmesg -C
	modprobe qrnic_kcm_test "ibdev=$QRNIC_IBDEV" "$@" > "/tmp/kcm-$_kt.err" 2>&1
	_ks=$?
	dmesg | sed -n 's/^.*qrnic_kcm_test: //p' > "$_ko"
	return "$_ks"
}

# kcm_result TAG STATUS OUT MIN BEFORE: the module's checks, at least MIN
# of them passed; unloaded, the device counts are back to BEFORE.
kcm_result() {
	tap_result "qrnic_kcm_test ($1)" "$2" "$3"
	if [ "$2" -ne 0 ]; then
		sed 's/^/    /' "/tmp/kcm-$1.err"
	fi
	check "kernel rdma_cm ($1): at least $4 checks ran" \
		test "$(grep -c '^ok - ' "$3")" -ge "$4"
	modprobe -r qrnic_kcm_test 2>/dev/null
	_ka=$(hw_counts)
	check "kernel rdma_cm ($1): device counts back to '$5'" test "$_ka" = "$5"
	check "kernel rdma_cm ($1): no WARN or BUG in dmesg" \
		sh -c '! dmesg | grep -qE "WARNING:|BUG:|Oops"'
}

before=$(hw_counts)
kcm_load loopback /tmp/kcm.out "addr=$QRNIC_IP"
kcm_result loopback $? /tmp/kcm.out 50 "$before"

# Between two qrnic guests: guest 1 listens (role=server), guest 0 connects.
[ "$QRNIC_NGUESTS" -eq 2 ] || finish
other=$((1 - QRNIC_IDX))
wait_for "kcm-nic-$other" 600 || { fail "kcm: guest $other never started kcm.sh"; finish; }
read -r pnic < "$QRNIC_SHARE/kcm-nic-$other"
[ "$pnic" = qrnic ] || { echo "# kcm: guest $other is $pnic: no guest-to-guest part"; finish; }
port=18516
before=$(hw_counts)
if [ "$QRNIC_IDX" = 1 ]; then
	kcm_load server /tmp/kcm-server.out role=server "addr=$QRNIC_IP" "port=$port" &
	pid=$!
	st=failed
	i=0
	while [ "$i" -lt 150 ] && kill -0 "$pid" 2>/dev/null; do
		cm_listening "$port" && { st=listening; break; }
		sleep 0.2
		i=$((i + 1))
	done
	echo "$st" > "$QRNIC_SHARE/kcm-peer.tmp" && mv "$QRNIC_SHARE/kcm-peer.tmp" "$QRNIC_SHARE/kcm-peer"
	wait "$pid"
	kcm_result server $? /tmp/kcm-server.out 25 "$before"
else
	if ! wait_for kcm-peer 600; then
		fail "kcm: guest 1 never reported on its listener"
		finish
	fi
	read -r st < "$QRNIC_SHARE/kcm-peer"
	if [ "$st" != listening ]; then
		fail "kcm: no kernel cm_id of guest 1 listened on port $port"
		finish
	fi
	kcm_load client /tmp/kcm-client.out role=client "addr=$QRNIC_IP" \
		"peer=${QRNIC_PEER_IPS%% *}" "port=$port"
	kcm_result client $? /tmp/kcm-client.out 25 "$before"
fi
finish
