#!/bin/sh
# Ten rmmod/modprobe cycles of qrnic in guest 0 with traffic in between; the
# device comes back ACTIVE each time and the kernel log stays clean.
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_IDX" = 0 ] || { wait_for reload-done 600; finish; }

peer=${QRNIC_PEER_IPS%% *}
active() { rdma link show 2>/dev/null | grep -q "^link qrnic0/1 state ACTIVE .* netdev $QRNIC_IFNAME *\$"; }
ok=0
i=1
while [ $i -le 10 ]; do
	rmmod qrnic || break
	[ -e /sys/class/infiniband/qrnic0 ] && break
	modprobe qrnic || break
	retry 20 test -e "/sys/class/net/$QRNIC_IFNAME" || break
	ip addr add "$QRNIC_IP/24" dev "$QRNIC_IFNAME" && ip link set "$QRNIC_IFNAME" up || break
	retry 20 active || break
	retry 30 ping -c 1 -W 2 "$peer" >/dev/null || break
	ok=$i
	i=$((i + 1))
done
# Out-of-range module parameters are refused with a message naming them.
rmmod qrnic
for bad in eth_ring_log=3 aq_log_depth=9; do
	if modprobe qrnic "$bad" 2>/dev/null; then
		fail "modprobe qrnic $bad refused"
		rmmod qrnic
	else
		check "modprobe qrnic $bad refused with a clear message" \
			sh -c "dmesg | grep -q 'qrnic: $bad out of range'"
	fi
done
modprobe qrnic && ip addr add "$QRNIC_IP/24" dev "$QRNIC_IFNAME" &&
	ip link set "$QRNIC_IFNAME" up
retry 20 active
signal reload-done
check "10 rmmod/modprobe cycles with ping after each (completed $ok)" test "$ok" -eq 10
check "qrnic0 ACTIVE after reloads" active
bad=$(dmesg | grep -E 'WARNING|BUG|Oops|leak|general protection|refcount|use-after-free' || true)
[ -z "$bad" ] || printf '%s\n' "$bad" | sed 's/^/    dmesg: /'
check "dmesg has no WARN, BUG, Oops or leak" test -z "$bad"
finish
