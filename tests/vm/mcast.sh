#!/bin/sh
# UD multicast through rdma_cm between two guests, each guest sending in
# turn: mckey joins an IPv4 group (RoCE v2 MGID ::ffff:239.x.y.z; the
# kernel's rdma_cm joins it by IGMP, librdmacm attaches the UD QP with
# ibv_attach_mcast) on the receiving guest, which waits for every datagram;
# the other guest joins the same group and sends to it (QPN 0xffffff), then
# both leave (ibv_detach_mcast).  Cases: one receiving QP; two receiving QPs
# (each must get every datagram).  Both sides must exit 0 and print what
# mckey prints when all went through.  The sender joins as a full member
# (attached, its own datagrams looped back to it and dropped for want of a
# receive): mckey destroys its QP right after posting its unsignalled sends,
# and a send-only sender (-o) has no DETACH_MCAST command in between, so on
# a busy host the device may see DESTROY_QP before it has sent them all.
# An rdma_rxe guest only receives: as mckey's sender next to another guest,
# rxe got 1 of its 20 datagrams out (sent_pkts 1) before mckey tore its QP
# down (alone, with nobody to receive, it sends all 20).
#   mcast.sh [TEST...]   default: all of   one two
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "mcast needs two guests"; finish; }
modprobe rdma_ucm 2>/dev/null
rdma_gid || finish
MCAST_TIMEOUT=${MCAST_TIMEOUT:-90}
other=$((1 - QRNIC_IDX))
echo "$QRNIC_NIC" > "$QRNIC_SHARE/mcast-nic-$QRNIC_IDX"
wait_for "mcast-nic-$other" 600 || { fail "mcast: guest $other never started mcast.sh"; finish; }
read -r other_nic < "$QRNIC_SHARE/mcast-nic-$other"

# group_joined GROUP: the netdev has joined the IPv4 group (rdma_cm's IGMP
# join, done when the receiver's join reaches the kernel).
group_joined() {
	ip maddr show dev "$QRNIC_IFNAME" |
		awk -v g="$1" '$1 == "inet" && $2 == g { f = 1 } END { exit !f }'
}

# mckey's output line by line, so a run cut short still shows how far it got.
linebuf=
command -v stdbuf > /dev/null 2>&1 && linebuf="stdbuf -oL"

# mc K TEST RECEIVER
mc() {
	k=$1 test=$2 recv=$3
	group=239.1.0.$((10 + k))
	out=/tmp/mcast-$k.out
	count=20 size=1000
	if [ "$QRNIC_IDX" = "$recv" ]; then snic=$other_nic; else snic=$QRNIC_NIC; fi
	if [ "$snic" = virtio ]; then
		echo "# mckey $test to $group: not with an rdma_rxe sender (see the top)"
		return 0
	fi
	case "$test" in
	one) rargs="" ;;
	two) rargs="-c 2" ;;
	esac
	if [ "$QRNIC_IDX" = "$recv" ]; then
		role=receiver
		desc="mckey $test, g$QRNIC_IDX $QRNIC_IBDEV receives $group"
		timeout "$MCAST_TIMEOUT" $linebuf mckey -m "$group" -b "$QRNIC_IP" \
			-C "$count" -S "$size" $rargs > "$out" 2>&1 &
		pid=$!
		st=failed
		i=0
		while [ "$i" -lt 150 ] && kill -0 "$pid" 2>/dev/null; do
			group_joined "$group" && { st=joined; break; }
			sleep 0.2
			i=$((i + 1))
		done
		echo "$st" > "$QRNIC_SHARE/mcast-$k.tmp" &&
			mv "$QRNIC_SHARE/mcast-$k.tmp" "$QRNIC_SHARE/mcast-$k"
		wait "$pid"
		rc=$?
		want="^data transfers complete"
		joins=$(grep -c "^mckey: joined dgid: ::ffff:$group " "$out")
		njoin=1
		[ "$test" = two ] && njoin=2
	else
		role=sender
		desc="mckey $test, g$QRNIC_IDX $QRNIC_IBDEV sends to $group"
		: > "$out"
		if ! wait_for "mcast-$k" 180; then
			echo "mcast: the receiver never reported" >> "$out"
			rc=1
		elif read -r st < "$QRNIC_SHARE/mcast-$k" && [ "$st" != joined ]; then
			echo "mcast: the receiver did not join $group" >> "$out"
			rc=1
		else
			timeout "$MCAST_TIMEOUT" $linebuf mckey -m "$group" -b "$QRNIC_IP" -s \
				-C "$count" -S "$size" > "$out" 2>&1
			rc=$?
		fi
		want="^data transfers complete"
		joins=$(grep -c "^mckey: joined dgid: ::ffff:$group " "$out")
		njoin=1
	fi
	if [ "$rc" -eq 0 ] && [ "$joins" -eq "$njoin" ] && grep -Eq "$want" "$out" &&
		! grep -Eiq 'fail|error|unable' "$out"; then
		pass "$desc: exit 0, $joins join(s), $count x $size bytes"
	else
		fail "$desc: status $rc, $joins of $njoin join(s), want /$want/ and no error"
		sed 's/^/    /' "$out" | tail -n 30
	fi
}

k=0
for t in ${*:-one two}; do
	for recv in 1 0; do
		mc "$k" "$t" "$recv"
		barrier "mcast-done-$k" 300
		k=$((k + 1))
	done
done
finish
