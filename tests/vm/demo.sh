#!/bin/sh
# make run: what a user came to see, in each of two qrnic guests.
. "$(dirname "$0")/lib.sh"
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
# RDMA: guest 1 serves, guest 0 connects.
if [ "$QRNIC_NGUESTS" -ge 2 ] && [ "$QRNIC_IDX" -le 1 ]; then
	if gid=$(retry 20 gid_index); then
		if [ "$QRNIC_IDX" = 1 ]; then
			echo "\$ ibv_rc_pingpong -d $QRNIC_IBDEV -g $gid"
		else
			echo "\$ ibv_rc_pingpong -d $QRNIC_IBDEV -g $gid ${QRNIC_PEER_IPS%% *}"
		fi
		PAIR_TIMEOUT=120 pair_run demo-pingpong 1 18515 /tmp/pingpong.out \
			ibv_rc_pingpong -d "$QRNIC_IBDEV" -g "$gid" || rc=1
		cat /tmp/pingpong.out
	else
		echo "no RoCE v2 GID for $QRNIC_IP on $QRNIC_IBDEV"
		rc=1
	fi
fi
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
