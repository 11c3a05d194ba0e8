#!/bin/sh
# QEMU's set_link takes the port down and up; rdma link and carrier follow.
# Guest 0 asks tests/vm/link-host.sh (on the host) to flip its link.
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_IDX" = 0 ] || { wait_for link-test-done 180; finish; }

state() { rdma link show qrnic0/1 | grep -q "state $1 "; }
signal link-off-req
wait_for link-off-done 60
check "rdma link: DOWN after set_link off" retry 20 state DOWN
expect_match "netdev: NO-CARRIER after set_link off" 'NO-CARRIER' "$(ip link show "$QRNIC_IFNAME")"
rdma link show qrnic0/1 | sed 's/^/    /'
signal link-on-req
wait_for link-on-done 60
check "rdma link: ACTIVE after set_link on" retry 20 state ACTIVE
rdma link show qrnic0/1 | sed 's/^/    /'
peer=${QRNIC_PEER_IPS%% *}
check "ping after link comes back" retry 30 ping -c 1 -W 2 "$peer"
signal link-test-done
finish
