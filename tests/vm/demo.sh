#!/bin/sh
# make run: what a user came to see, in each of two qrnic guests.
echo "## guest $QRNIC_IDX ($QRNIC_IP), kernel $(uname -r)"
echo "\$ lspci -vv -d 1b36:0130"; lspci -vv -d 1b36:0130
echo "\$ rdma link show"; rdma link show
echo "\$ ibv_devinfo"; ibv_devinfo
rc=0
for peer in $QRNIC_PEER_IPS; do
	echo "\$ ping -c 3 $peer"
	i=0
	until ping -c 1 -W 2 "$peer" >/dev/null 2>&1 || [ $i -ge 30 ]; do i=$((i + 1)); done
	ping -c 3 "$peer" || rc=1
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
