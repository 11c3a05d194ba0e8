#!/bin/sh
# Ethernet over the qrnic netdevs between two guests: ping, then a 16 MiB TCP
# transfer in each direction whose checksum must match on both sides.
. "$(dirname "$0")/lib.sh"

peer=${QRNIC_PEER_IPS%% *}
check "ping $peer over $QRNIC_IFNAME" retry 30 ping -c 1 -W 2 "$peer"
out=$(ping -c 5 -i 0.2 -W 2 "$peer")
expect_match "ping: 5 of 5 replies" ' 5 received, 0% packet loss' "$out"
echo "$out" | tail -1 | sed 's/^/    /'

# transfer FROM TO: guest FROM sends 16 MiB of random data to guest TO.
transfer() {
	tag=tcp-$1-to-$2
	if [ "$QRNIC_IDX" = "$2" ]; then
		rm -f /tmp/rx
		nc -4 -l 5001 > /tmp/rx &
		ncpid=$!
		retry 10 sh -c 'grep -q ":1389 " /proc/net/tcp' # 5001 = 0x1389, listening
		signal "$tag-listening"
		if wait "$ncpid"; then
			got=$(sha256sum < /tmp/rx | cut -d' ' -f1)
			wait_for "$tag-sent" 60
			want=$(cat "$QRNIC_SHARE/$tag-sent")
			size=$(stat -c %s /tmp/rx)
			if [ "$got" = "$want" ] && [ "$size" -eq 16777216 ]; then
				pass "16 MiB TCP guest $1 -> guest $2, sha256 matches"
			else
				fail "16 MiB TCP guest $1 -> guest $2: got $size bytes $got, sent $want"
			fi
		else
			fail "16 MiB TCP guest $1 -> guest $2: receiver failed"
		fi
		signal "$tag-checked"
	elif [ "$QRNIC_IDX" = "$1" ]; then
		head -c 16777216 /dev/urandom > /tmp/tx
		sha256sum < /tmp/tx | cut -d' ' -f1 > "$QRNIC_SHARE/$tag-sent.tmp"
		mv "$QRNIC_SHARE/$tag-sent.tmp" "$QRNIC_SHARE/$tag-sent"
		wait_for "$tag-listening" 60
		start=$(date +%s)
		check "send 16 MiB over TCP to $peer" nc -4 -N "$peer" 5001 < /tmp/tx
		echo "    16 MiB sent in $(($(date +%s) - start)) s"
		wait_for "$tag-checked" 120
	fi
}
transfer 0 1
transfer 1 0
finish
