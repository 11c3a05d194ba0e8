#!/bin/sh
# NFS over RDMA between two guests: guest 1 exports a tmpfs with the
# kernel's NFS server (nfsd, NFSv3) and adds an RDMA listener on port 20049
# (/proc/fs/nfsd/portlist); guest 0 mounts it with `mount -o
# rdma,port=20049`, checks the mount uses RDMA, writes 32 MiB of random data,
# remounts (so nothing comes from its page cache), reads it back and
# compares; the server compares its copy too.  Then both guests' RDMA
# resources are back and dmesg has no WARN/BUG/Oops.
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -eq 2 ] || { echo "# nfs: needs two guests"; exit 2; }
rdma_gid || finish
before=$(rdma resource show 2>/dev/null | grep -F " $QRNIC_IBDEV:")
MIB=32

if [ "$QRNIC_IDX" = 1 ]; then
	st=failed
	mkdir -p /srv/nfs /run/rpcbind /var/lib/nfs/rpc_pipefs
	if modprobe nfsd && modprobe rpcrdma &&
		mount -t nfsd nfsd /proc/fs/nfsd &&
		mount -t tmpfs -o size=128m tmpfs /srv/nfs &&
		echo "/srv/nfs *(rw,no_root_squash,insecure,no_subtree_check,fsid=1)" > /etc/exports &&
		rpcbind && exportfs -ra && rpc.mountd && rpc.nfsd 4 &&
		echo "rdma 20049" > /proc/fs/nfsd/portlist &&
		grep -q '^rdma 20049' /proc/fs/nfsd/portlist; then
		st=up
		pass "nfs: server exports /srv/nfs (tmpfs), RDMA listener on port 20049"
	else
		fail "nfs: server setup ($(cat /proc/fs/nfsd/portlist 2>/dev/null | tr '\n' ' '))"
	fi
	echo "$st" > "$QRNIC_SHARE/nfs-server.tmp" && mv "$QRNIC_SHARE/nfs-server.tmp" "$QRNIC_SHARE/nfs-server"
	wait_for nfs-client-done 600 || fail "nfs: the client never finished"
	if [ -f "$QRNIC_SHARE/nfs-sum" ]; then
		read -r sum < "$QRNIC_SHARE/nfs-sum"
		got=$(md5sum < /srv/nfs/data | cut -d' ' -f1)
		check "nfs: the server's copy matches the client's data (md5 $got)" test "$got" = "$sum"
	fi
	rpc.nfsd 0
	exportfs -ua
	killall rpc.mountd rpcbind 2>/dev/null
	umount /proc/fs/nfsd
	modprobe -r nfsd rpcrdma 2>/dev/null
else
	srv=${QRNIC_PEER_IPS%% *}
	if ! wait_for nfs-server 300 || [ "$(cat "$QRNIC_SHARE/nfs-server")" != up ]; then
		fail "nfs: no server"
		signal nfs-client-done
		finish
	fi
	mkdir -p /mnt/nfs
	modprobe rpcrdma
	opts=rdma,port=20049,vers=3,nolock
	if timeout 60 mount -t nfs -o "$opts" "$srv:/srv/nfs" /mnt/nfs 2>/tmp/mount.err; then
		pass "nfs: mount -t nfs -o $opts $srv:/srv/nfs"
		check "nfs: the mount's transport is RDMA ($(grep ' /mnt/nfs ' /proc/mounts | grep -o ',proto=[a-z]*' | cut -c2-))" \
			sh -c "grep ' /mnt/nfs ' /proc/mounts | grep -q ,proto=rdma"
		dd if=/dev/urandom of=/tmp/nfs-data bs=1M count=$MIB 2>/dev/null
		md5sum < /tmp/nfs-data | cut -d' ' -f1 > "$QRNIC_SHARE/nfs-sum"
		check "nfs: $MIB MiB written to the server" \
			timeout 120 dd if=/tmp/nfs-data of=/mnt/nfs/data bs=1M conv=fsync status=none
		umount /mnt/nfs
		if timeout 60 mount -t nfs -o "$opts" "$srv:/srv/nfs" /mnt/nfs 2>>/tmp/mount.err; then
			check "nfs: after a remount, the $MIB MiB read back identical" \
				timeout 120 cmp -s /tmp/nfs-data /mnt/nfs/data
			umount /mnt/nfs
		else
			fail "nfs: remount ($(tail -n 2 /tmp/mount.err))"
		fi
	else
		fail "nfs: mount -t nfs -o $opts ($(tail -n 3 /tmp/mount.err))"
	fi
	signal nfs-client-done
	modprobe -r nfsv3 nfs rpcrdma 2>/dev/null
fi
sleep 1
after=$(rdma resource show 2>/dev/null | grep -F " $QRNIC_IBDEV:")
check "nfs: $QRNIC_IBDEV's resources back ('${after#*: }')" test "$after" = "$before"
check "nfs: no WARN, BUG or Oops in dmesg" sh -c '! dmesg | grep -qE "WARNING:|BUG:|Oops"'
finish
