#!/bin/sh
# The GSI QP (QP 1) the kernel's MAD layer creates on the device: ib_mad
# and ib_cm registered without an error, QP 1 listed as a GSI QP, and the
# port advertises connection management.
. "$(dirname "$0")/lib.sh"

modprobe rdma_cm 2>/dev/null
modprobe rdma_ucm 2>/dev/null
if dmesg | grep -Ei 'ib_mad|ib_cm|mad' | grep -Eiq 'error|fail|couldn'; then
	fail "the MAD layer reported an error for $QRNIC_IBDEV"
	dmesg | grep -Ei 'mad|ib_cm' | sed 's/^/    /'
else
	pass "no ib_mad/ib_cm error in dmesg"
fi
qps=$(rdma res show qp link "$QRNIC_IBDEV/1" 2>&1)
expect_match "QP 1 is a GSI QP of $QRNIC_IBDEV" "lqpn 1 .*type GSI" "$qps"
# IB_PORT_CM_SUP is bit 16 of port_cap_flags.
flags=$(ibv_devinfo -v -d "$QRNIC_IBDEV" | sed -n 's/^[[:space:]]*port_cap_flags:[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' | head -n 1)
if [ -n "$flags" ] && [ $((0x$flags >> 16 & 1)) -eq 1 ]; then
	pass "port 1 advertises connection management (port_cap_flags 0x$flags)"
else
	fail "port 1 does not advertise CM_SUP (port_cap_flags 0x$flags)"
fi
finish
