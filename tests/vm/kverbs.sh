#!/bin/sh
# Kernel verbs: load tests/kmod's qrnic_kverbs_test, which runs a kernel
# consumer's sequence on $QRNIC_IBDEV (PD with a DMA MR, CQs with event
# handlers, two RC QPs looped back through the device, SEND_WITH_IMM, RDMA
# WRITE/READ, inline, atomics, a bad lkey, flush; fast registration over a
# scatter list with LOCAL_INV, SEND_WITH_INV, a new key byte and rights,
# tests/kmod/kverbs_fastreg.c) and prints ok/not ok lines to the kernel
# log; the load fails if a check failed.  Then the device's resource counts
# must be back to where they were.  qrnic only (rxe passes the fast
# registration part too, but has no page-list limit and another bad-lkey
# status).
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NIC" = qrnic ] || { echo "# kverbs: qrnic guests only"; exit 0; }
before=$(hw_counts)
dmesg -C
modprobe qrnic_kverbs_test "ibdev=$QRNIC_IBDEV" > /tmp/kverbs.err 2>&1
status=$?
dmesg | sed -n 's/^.*qrnic_kverbs_test: //p' > /tmp/kverbs.out
tap_result "qrnic_kverbs_test" "$status" /tmp/kverbs.out
if [ "$status" -ne 0 ]; then
	sed 's/^/    /' /tmp/kverbs.err
fi
check "kernel verbs: at least 45 checks ran" test "$(grep -c '^ok - ' /tmp/kverbs.out)" -ge 45
modprobe -r qrnic_kverbs_test 2>/dev/null
after=$(hw_counts)
check "kernel verbs: device counts back to '$before'" test "$after" = "$before"
check "kernel verbs: no WARN or BUG in dmesg" sh -c '! dmesg | grep -qE "WARNING:|BUG:|Oops"'
finish
