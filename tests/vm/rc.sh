#!/bin/sh
# The RC data path between two guests, in one boot.  Parts run in order in
# both guests; "gone" must be last (guest 1 powers off during it).
#   rc.sh [PART...]   default: nic kverbs pingpong perftest integrity errors kill9 gone
dir=$(dirname "$0")
rc=0
echo "# $QRNIC_NIC guest $QRNIC_IDX, $QRNIC_IBDEV on $QRNIC_IFNAME, kernel $QRNIC_KVER"
for part in ${*:-nic kverbs pingpong perftest integrity errors kill9 gone}; do
	echo "# $part"
	start=$(date +%s)
	sh "$dir/$part.sh" || rc=1
	echo "# $part: $(($(date +%s) - start)) s"
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
