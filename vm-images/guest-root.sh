# Sourced by build-image.sh and pack-clients.sh: the guest's Debian root.
#
# Guest user space.  Changing this list changes the cached root's key.
# python3-pyverbs brings Python and rdma-core's own test suite
# (tests/vm/pyverbs.sh, `make pyverbs`); nvme-cli and fio are for NVMe over
# RDMA (tests/vm/nvme.sh), nfs-kernel-server (with nfs-common) for NFS over
# RDMA (tests/vm/nfs.sh); gawk, bsdextrautils (column) and xfsprogs for
# blktests (make blktests).
GUEST_PKGS=mount,util-linux,rdma-core,ibverbs-providers,ibverbs-utils,rdmacm-utils,perftest,pciutils,iproute2,kmod,iputils-ping,procps,ethtool,netcat-openbsd,tcpdump,strace,iperf3,less,psmisc,python3-pyverbs,nvme-cli,fio,nfs-kernel-server,gawk,bsdextrautils,xfsprogs
# Documentation is left out of the root, except rdma-core's test suite, which
# python3-pyverbs installs as documentation (partly gzipped; unpacked below).
# dpkg needs each directory on the way re-included too.
GUEST_DOC_KEEP=/usr/share/doc/rdma-core/tests
GUEST_SUITE=trixie

# guest_root_tar [EXTRA_PKGS [DPKG_PATH_EXCLUDE...]]: the path of a cached
# tarball of the root with GUEST_PKGS (and EXTRA_PKGS, comma separated, with
# files matching the further path-exclude patterns left out), built with
# mmdebstrap from the host's own mirror if it is not there yet.  Uses $cache.
guest_root_tar() {
	local extra=${1:-} pkgs=$GUEST_PKGS rkey main_uri tar opts=() p
	shift || true
	[ -z "$extra" ] || pkgs+=,$extra
	rkey=$(echo "$GUEST_SUITE $pkgs $GUEST_DOC_KEEP${*:+ $*}" | sha256sum | cut -c1-16)
	tar=$cache/roots/$GUEST_SUITE-$rkey.tar
	if [ -f "$tar" ]; then
		echo "$tar"
		return 0
	fi
	# The mirror comes from the host's own sources (never written into the
	# project).
	main_uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
	[ -n "$main_uri" ] || { echo "no URIs line in /etc/apt/sources.list.d/debian.sources" >&2; return 1; }
	for p in "$@"; do
		opts+=(--dpkgopt="path-exclude=$p")
	done
	mkdir -p "$cache/roots"
	echo "guest root: building $GUEST_SUITE with mmdebstrap (a minute or two)" >&2
	mmdebstrap --quiet --variant=essential --include="$pkgs" \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt="path-include=${GUEST_DOC_KEEP%/*}" \
		--dpkgopt="path-include=$GUEST_DOC_KEEP" \
		--dpkgopt="path-include=$GUEST_DOC_KEEP/*" \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		"${opts[@]}" \
		"$GUEST_SUITE" "$cache/roots/partial-$rkey.tar" "$main_uri" >&2 ||
		{ echo "mmdebstrap failed" >&2; return 1; }
	mv "$cache/roots/partial-$rkey.tar" "$tar"
	echo "$tar"
}
