#!/bin/bash
# build-image.sh KVER: the guest kernel and base initramfs for one kernel ABI.
#
#   build/image/KVER/vmlinuz        the Debian kernel, as shipped
#   build/image/KVER/base.cpio.zst  Debian trixie root (rdma-core, perftest, ...)
#                                   + only the modules the guests need + /init
#
# KVER is 7.3.4+deb13-amd64 (trixie-backports), 6.12.95+deb12-amd64
# (bookworm-backports), the 6.1 ABI that linux-headers-amd64 depends on
# (see vm-images/kver), or the short forms 7.3 / 6.12 / 6.1.  Downloads (kernel .deb, root tarball keyed by its package list)
# are cached in ${QRNIC_CACHE:-$HOME/.cache/qrnic}.  Re-running with nothing
# changed does nothing.  The mirror comes from the host's apt configuration.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}

die() { echo "build-image: $*" >&2; exit 1; }
log() { echo "build-image: $*"; }
. "$here/guest-root.sh"

[ $# -eq 1 ] || die "usage: build-image.sh KVER (7.3.4+deb13-amd64, 6.12.95+deb12-amd64, 6.1.0-N-amd64, 7.3, 6.12 or 6.1)"
kver=$1
case "$kver" in
7.3|6.12|6.1) "$here/host-deps.sh"; kver=$("$here/kver" "$kver") ;;
esac
[ -n "$kver" ] || die "cannot determine the kernel ABI for '$1'"

# Modules the guests load (their dependencies come along); loop and xfs
# are blktests' (make blktests).  Missing or built-in ones are fine as
# long as modprobe can resolve them.
MODULES="ib_core ib_uverbs ib_cm iw_cm rdma_cm rdma_ucm rdma_rxe ib_umad
	crc32_generic crc32c_generic libcrc32c
	9p 9pnet 9pnet_virtio netfs fscache
	virtio virtio_ring virtio_pci virtio_pci_modern_dev virtio_net net_failover failover
	udp_tunnel ip6_udp_tunnel sch_netem
	configfs nvme_rdma nvmet_rdma brd nfsd nfs nfsv3 rpcrdma
	loop xfs
	ib_iser ib_isert iscsi_target_mod target_core_mod target_core_file target_core_iblock sd_mod"

out=$top/build/image/$kver
stamp=$out/.base-stamp
key=$( { cat "$0" "$here/init" "$here/guest-root.sh"; echo "$kver $GUEST_SUITE $GUEST_PKGS $MODULES"; } | sha256sum | cut -c1-16)
if [ -f "$out/base.cpio.zst" ] && [ -f "$out/vmlinuz" ] && [ -d "$out/modules" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
	# Same content: only refresh the time stamp if make would think it stale.
	for f in "$0" "$here/init" "$here/guest-root.sh"; do
		[ "$f" -nt "$out/base.cpio.zst" ] && touch "$out/base.cpio.zst"
	done
	exit 0
fi

"$here/host-deps.sh"
mkdir -p "$cache/kernels" "$cache/roots" "$out"

# --- kernel -----------------------------------------------------------------
kdir=$cache/kernels/$kver
if [ ! -f "$kdir/.extracted" ]; then
	log "downloading linux-image-$kver"
	rm -rf "$kdir"
	dl=$cache/kernels/dl-$kver
	rm -rf "$dl"; mkdir -p "$dl"
	# bookworm's kernels through the host's apt, trixie's (backports)
	# through a private configuration (vm-images/apt-private).
	case "$kver" in
	*+deb13-*) get=("$here/apt-private" trixie,trixie-backports download) ;;
	*bpo*|*+deb12*) get=(apt-get download -q -o APT::Sandbox::User=root -t bookworm-backports) ;;
	*) get=(apt-get download -q -o APT::Sandbox::User=root) ;;
	esac
	if ! (cd "$dl" && "${get[@]}" "linux-image-$kver" >/dev/null); then
		apt-get update -qq
		(cd "$dl" && "${get[@]}" "linux-image-$kver" >/dev/null) ||
			die "apt-get download linux-image-$kver failed"
	fi
	rm -rf "$kdir.tmp"; mkdir -p "$kdir.tmp"
	for deb in "$dl"/*.deb; do dpkg -x "$deb" "$kdir.tmp"; done
	# The image package ships the modules itself, through a dependency on
	# the unsigned one (some 6.x versions), or, since 7.x, in
	# linux-modules-KVER beside the kernel in linux-binary-KVER (and
	# modules.order and modules.builtin in linux-base-KVER).
	if [ ! -d "$kdir.tmp/lib/modules/$kver/kernel" ] && [ ! -d "$kdir.tmp/usr/lib/modules/$kver/kernel" ]; then
		if (cd "$dl" && "${get[@]}" "linux-binary-$kver" "linux-modules-$kver" \
				"linux-base-$kver" >/dev/null 2>&1); then
			split=("$dl"/linux-binary-*.deb "$dl"/linux-modules-*.deb "$dl"/linux-base-*.deb)
		else
			(cd "$dl" && "${get[@]}" "linux-image-$kver-unsigned" >/dev/null) ||
				die "no modules in linux-image-$kver, no linux-modules-$kver and no -unsigned package"
			split=("$dl"/*unsigned*.deb)
		fi
		for deb in "${split[@]}"; do dpkg -x "$deb" "$kdir.tmp"; done
	fi
	# Normalise to STAGE/lib/modules/KVER for modprobe -d / depmod -b.
	if [ -d "$kdir.tmp/usr/lib/modules" ] && [ ! -d "$kdir.tmp/lib/modules" ]; then
		mkdir -p "$kdir.tmp/lib"; mv "$kdir.tmp/usr/lib/modules" "$kdir.tmp/lib/modules"
	fi
	depmod -b "$kdir.tmp" "$kver"
	rm -rf "$dl"
	mv "$kdir.tmp" "$kdir"
	touch "$kdir/.extracted"
fi
vmlinuz=$(ls "$kdir"/boot/vmlinuz-"$kver" "$kdir/lib/modules/$kver/vmlinuz" 2>/dev/null || true)
vmlinuz=${vmlinuz%%$'\n'*}
[ -n "$vmlinuz" ] || die "no vmlinuz in linux-image-$kver"

# --- guest root (cached tarball keyed by suite + package list) ----------------
root_tar=$(guest_root_tar)
# --- assemble -----------------------------------------------------------------
stage=$(mktemp -d "$top/build/image/.stage-XXXXXX")
trap 'rm -rf "$stage"' EXIT
tar -C "$stage" -xf "$root_tar"
# Nothing in a test guest uses these (no udev, systemd or iconv), and every
# megabyte of initramfs is unpacked under TCG at each boot.
rm -rf "$stage"/usr/lib/udev/hwdb.bin "$stage"/usr/lib/udev/hwdb.d \
	"$stage"/usr/lib/x86_64-linux-gnu/gconv "$stage"/usr/lib/systemd \
	"$stage"/usr/lib/x86_64-linux-gnu/systemd "$stage"/var/cache/debconf/*-old \
	"$stage"/usr/share/zsh "$stage"/usr/share/lintian "$stage"/usr/share/bash-completion \
	"$stage"/usr/share/common-licenses "$stage"/var/lib/apt/lists/* "$stage"/var/cache/apt/*
# rdma-core's tests as Python can run them: dh_compress gzipped the larger
# modules (run_tests.py imports every test_*.py).
[ -f "$stage$GUEST_DOC_KEEP/run_tests.py" ] || die "no rdma-core test suite in $GUEST_DOC_KEEP"
find "$stage$GUEST_DOC_KEEP" -name '*.gz' -exec gunzip -f {} +

mdst=$stage/usr/lib/modules/$kver  # merged-/usr: /lib -> usr/lib
mkdir -p "$mdst"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$kdir/lib/modules/$kver/$f" ] && cp "$kdir/lib/modules/$kver/$f" "$mdst/"
done
n=0
for m in $MODULES; do
	deps=$(modprobe -d "$kdir" -S "$kver" --show-depends "$m" 2>/dev/null) || {
		log "note: module $m not found in $kver (skipped)"; continue; }
	while read -r kind path _; do
		[ "$kind" = insmod ] || continue
		rel=${path#"$kdir"/}
		rel=/${rel#/}
		# Store modules uncompressed: the cpio is compressed anyway, and
		# decompressing under TCG at every modprobe costs boot time.
		case "$rel" in
		*.ko.xz) dst=${rel%.xz}; unz=(xz -dc) ;;
		*.ko.zst) dst=${rel%.zst}; unz=(zstd -qdc) ;;
		*.ko.gz) dst=${rel%.gz}; unz=(gzip -dc) ;;
		*) dst=$rel; unz=(cat) ;;
		esac
		[ -f "$stage$dst" ] && continue
		mkdir -p "$(dirname "$stage$dst")"
		"${unz[@]}" "$path" > "$stage$dst"
		n=$((n + 1))
	done <<<"$deps"
done
depmod -b "$stage" "$kver"
log "$n modules copied for $kver"
# pack-overlay.sh regenerates modules.dep with qrnic.ko from this copy.
rm -rf "$out/modules"
mkdir -p "$out/modules/lib/modules"
cp -a "$mdst" "$out/modules/lib/modules/"

install -m 0755 "$here/init" "$stage/init"
echo qrnic-guest > "$stage/etc/hostname"
mkdir -p "$stage/host" "$stage/proc" "$stage/sys" "$stage/dev" "$stage/run" "$stage/tmp"
# Provider overlays go here; make sure the directories exist.
mkdir -p "$stage/etc/libibverbs.d" "$stage/usr/lib/x86_64-linux-gnu/libibverbs" "$mdst/updates"

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --quiet --reproducible) |
	zstd -q -T0 -10 -f -o "$out/base.cpio.zst.tmp"
mv "$out/base.cpio.zst.tmp" "$out/base.cpio.zst"
cp "$vmlinuz" "$out/vmlinuz"
echo "$key" > "$stamp"
log "$out/base.cpio.zst ($(du -h "$out/base.cpio.zst" | cut -f1)) and vmlinuz ready"
