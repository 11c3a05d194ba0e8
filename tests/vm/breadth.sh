#!/bin/sh
# Verbs beyond hand-connected RC between two guests, in one boot: the GSI QP
# is up (no ib_mad errors), UD datagrams, and rdma_cm programs.
#   breadth.sh [PART...]   default: gsi ud cm
dir=$(dirname "$0")
rc=0
echo "# $QRNIC_NIC guest $QRNIC_IDX, $QRNIC_IBDEV on $QRNIC_IFNAME, kernel $QRNIC_KVER"
for part in ${*:-gsi ud cm}; do
	echo "# $part"
	start=$(date +%s)
	sh "$dir/$part.sh" || rc=1
	echo "# $part: $(($(date +%s) - start)) s"
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
