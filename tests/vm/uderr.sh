#!/bin/sh
# Error cases on the guest's own device (loopback between two QPs of it,
# tests/vm/lib/uderr.py with pyverbs): an address handle naming a GID index
# beyond the table fails with EINVAL, one naming an empty slot with EINVAL
# or ENODATA (the kernel core refuses it before the driver); a UD datagram with
# the wrong Q_Key is dropped (no receive completion; on qrnic rx_qkey_err
# grows by 1) and then one with the right Q_Key arrives intact; an RC SEND
# to a QP whose SRQ is empty with rnr_retry 0 completes with
# RNR_RETRY_EXC_ERR (on qrnic rnr_naks_tx grows), a fresh pair with an SRQ
# WQE works, and a good datagram still arrives.  On qrnic the device's
# resource counts are back afterwards; no WARN or BUG in dmesg.
#   uderr.sh   (no options)
. "$(dirname "$0")/lib.sh"

rdma_gid || finish
py=$(cd "$(dirname "$0")" && pwd)/lib/uderr.py
warn_before=$(dmesg | grep -cE 'WARNING:|BUG:|Oops')
if [ "$QRNIC_NIC" = qrnic ]; then
	before=$(hw_counts $hw_names srq)
fi
run_tap "uderr.py" timeout 120 python3 "$py" "$QRNIC_IBDEV" "$gid" "$QRNIC_NIC"
if [ "$QRNIC_NIC" = qrnic ]; then
	after=$(hw_counts $hw_names srq)
	check "the device's resource counts are back ($after)" test "$after" = "$before"
fi
warn_after=$(dmesg | grep -cE 'WARNING:|BUG:|Oops')
if [ "$warn_after" -eq "$warn_before" ]; then
	pass "no WARN or BUG in dmesg"
else
	fail "WARN or BUG in dmesg"
	dmesg | grep -E -A 20 'WARNING:|BUG:|Oops' | sed 's/^/    /' | tail -n 60
fi
finish
