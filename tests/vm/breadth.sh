#!/bin/sh
# Verbs beyond hand-connected RC between two guests, in one boot: the GSI QP
# is up (no ib_mad errors), UD datagrams, shared receive queues and UC,
# rdma_cm programs, a kernel consumer connecting through rdma_cm
# (qrnic_kcm_test), UD multicast through rdma_cm (mckey), and error cases
# on the device itself (uderr: bad AHs, a wrong Q_Key, RC RNR on an empty SRQ),
# and memory windows with local and remote invalidation (mw).
#   breadth.sh [PART...]   default: gsi ud srquc uderr cm kcm mcast mw
dir=$(dirname "$0")
rc=0
echo "# $QRNIC_NIC guest $QRNIC_IDX, $QRNIC_IBDEV on $QRNIC_IFNAME, kernel $QRNIC_KVER"
for part in ${*:-gsi ud srquc uderr cm kcm mcast mw}; do
	echo "# $part"
	start=$(date +%s)
	sh "$dir/$part.sh" || rc=1
	echo "# $part: $(($(date +%s) - start)) s"
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
