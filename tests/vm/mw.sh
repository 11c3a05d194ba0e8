#!/bin/sh
# Memory windows and remote invalidation between two guests, each in turn
# the owner (tests/tools/rc-mw.c, `rc-check mw'): type 1 (ibv_bind_mw) and
# type 2 (IBV_WR_BIND_MW) windows carry RDMA WRITE/READ; a WRITE or READ
# outside a window, through an unbound type 1 window, after LOCAL_INV, after
# SEND_WITH_INV (whose receive reports IBV_WC_WITH_INV and the rkey) and
# after ibv_dealloc_mw fails with REM_ACCESS_ERR; binds beyond the MR, to an
# MR without MW_BIND and of a bound type 2 window fail (MW_BIND_ERR) and a
# fresh QP pair still works; ibv_dereg_mr of an MR with bound windows fails.
# On qrnic the device's resource counts are back afterwards (res_mw too if
# the driver shows it); no WARN or BUG in dmesg; the port is still ACTIVE.
#   mw.sh   (no options)
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "mw needs two guests"; finish; }
warn_before=$(dmesg | grep -cE 'WARNING:|BUG:|Oops')
if [ "$QRNIC_NIC" = qrnic ]; then
	names=$hw_names
	if [ -r "$hw/res_mw" ]; then
		names="$names mw"
	else
		echo "# note: no $hw/res_mw: the device's window count is not shown (regions are: res_mr)"
	fi
	before=$(hw_counts $names)
fi
run_tap "rc-check mw" timeout 600 rc-check -t 30 mw
check "RDMA port still ACTIVE after the memory window cases" port_active
if [ "$QRNIC_NIC" = qrnic ]; then
	# The last objects go when rc-check's device file is released.
	counts_back() { after=$(hw_counts $names); [ "$after" = "$before" ]; }
	if retry 10 counts_back; then
		pass "the device's resource counts are back ($after)"
	else
		fail "the device's resource counts are back ($after, before: $before)"
	fi
fi
warn_after=$(dmesg | grep -cE 'WARNING:|BUG:|Oops')
if [ "$warn_after" -eq "$warn_before" ]; then
	pass "no WARN or BUG in dmesg"
else
	fail "WARN or BUG in dmesg"
	dmesg | grep -E -A 20 'WARNING:|BUG:|Oops' | sed 's/^/    /' | tail -n 60
fi
finish
