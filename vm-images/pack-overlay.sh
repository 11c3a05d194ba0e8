#!/bin/bash
# pack-overlay.sh KVER: build/image/KVER/initrd.img = base.cpio.zst followed by
# a small overlay archive with this tree's driver and provider:
#
#   build/driver/KVER/qrnic.ko          -> /lib/modules/KVER/updates/qrnic.ko
#   build/kmod/KVER/qrnic_kverbs_test.ko -> the same (tests/kmod: kernel verbs test)
#   build/kmod/KVER/qrnic_kcm_test.ko    -> the same (tests/kmod: rdma_cm consumer test)
#   build/provider/libqrnic-rdmavN.so   -> /usr/lib/x86_64-linux-gnu/libibverbs/
#   build/provider/qrnic.driver         -> /etc/libibverbs.d/
#   build/tools/rc-check                -> /usr/local/bin/ (tests/tools: RC checks)
#   build/tools/qrnic-isolation         -> the same (tests/tools: isolation checks)
#   build/tools/cm-flood                -> the same (tests/tools: rdma_cm connections)
#   modules.dep* regenerated (depmod) for the base modules + qrnic.ko
#
# Linux unpacks concatenated initramfs archives in order; later files win.
# KVER may also be given as 6.12 or 6.1.  Takes about a second.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}
die() { echo "pack-overlay: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: pack-overlay.sh KVER (6.12.95+deb12-amd64, 6.1.0-N-amd64, 6.12 or 6.1)"
kver=$1
case "$kver" in 7.3|6.12|6.1) kver=$("$here/kver" "$kver") ;; esac
[ -n "$kver" ] || die "cannot determine the kernel ABI for '$1'"

img=$top/build/image/$kver
ko=$top/build/driver/$kver/qrnic.ko
# The provider library; N is the rdma-core tree's private ABI version.
lib=$(ls "$top"/build/provider/libqrnic-rdmav*.so 2>/dev/null | head -n 1 || true)
drv=$top/build/provider/qrnic.driver
tools=(rc-check qrnic-isolation cm-flood)

[ -f "$img/base.cpio.zst" ] && [ -d "$img/modules/lib/modules/$kver" ] ||
	die "$img/base.cpio.zst is missing: run vm-images/build-image.sh $kver (or make)"
[ -f "$ko" ] || die "$ko is missing: build the driver first (make -C driver KVER=$kver, or make)"
[ -f "$lib" ] || die "build/provider/libqrnic-rdmav*.so is missing: build the provider first (provider/build.sh, or make)"
[ -f "$drv" ] || die "$drv is missing: build the provider first (provider/build.sh, or make)"
# Without the test tools the image still boots; RC scenarios then fail.
for t in "${tools[@]}"; do
	[ -x "$top/build/tools/$t" ] ||
		echo "pack-overlay: warning: build/tools/$t is missing (make tools); the image lacks it" >&2
done
vermagic=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
[ "$vermagic" = "$kver" ] || die "$ko is built for '${vermagic:-?}', not $kver"

stage=$(mktemp -d "$top/build/image/.overlay-XXXXXX")
trap 'rm -rf "$stage"' EXIT

# Host staging tree: the image's modules + qrnic.ko, for depmod.
mods=$stage/lib/modules/$kver
mkdir -p "$stage/lib/modules"
cp -a "$img/modules/lib/modules/$kver" "$stage/lib/modules/"
mkdir -p "$mods/updates"
# Debug info is 90% of the module: leave it on the host (build/driver).
strip --strip-debug -o "$mods/updates/qrnic.ko" "$ko"
# The kernel self-test modules (tests/kmod), loaded by tests/vm/kverbs.sh
# and tests/vm/kcm.sh.
for m in qrnic_kverbs_test qrnic_kcm_test; do
	ktest=$top/build/kmod/$kver/$m.ko
	if [ -f "$ktest" ]; then
		strip --strip-debug -o "$mods/updates/$m.ko" "$ktest"
	else
		echo "pack-overlay: warning: $ktest is missing (make); the image lacks it" >&2
	fi
done

# Any dependency of qrnic.ko the base image lacks comes from the cached kernel.
extra=()
for dep in $(modinfo -F depends "$ko" | tr ',' ' '); do
	modprobe -d "$stage" -S "$kver" --show-depends "$dep" >/dev/null 2>&1 || extra+=("$dep")
done
if [ ${#extra[@]} -gt 0 ]; then
	kdir=$cache/kernels/$kver
	[ -d "$kdir/lib/modules/$kver" ] ||
		die "qrnic.ko needs ${extra[*]}, not in the base image; rerun vm-images/build-image.sh $kver"
	for dep in "${extra[@]}"; do
		modprobe -d "$kdir" -S "$kver" --show-depends "$dep" | while read -r kind path _; do
			[ "$kind" = insmod ] || continue
			rel=${path#"$kdir"/}
			case "$rel" in
			*.xz) dst=${rel%.xz}; xz -dc "$path" > "$stage/tmp.ko" ;;
			*.zst) dst=${rel%.zst}; zstd -qdc "$path" > "$stage/tmp.ko" ;;
			*) dst=$rel; cp "$path" "$stage/tmp.ko" ;;
			esac
			[ -f "$stage/$dst" ] || { mkdir -p "$(dirname "$stage/$dst")"; mv "$stage/tmp.ko" "$stage/$dst"; }
			rm -f "$stage/tmp.ko"
		done || die "cannot resolve $dep for $kver"
	done
	echo "pack-overlay: added modules the base lacked: ${extra[*]}"
fi
depmod -b "$stage" "$kver"
modprobe -d "$stage" -S "$kver" --show-depends qrnic >/dev/null ||
	die "modprobe cannot resolve qrnic in the staged tree"

# The overlay holds only what is new or changed: the module, the regenerated
# index files, any added dependency and the provider.
# The guest root is merged-/usr: /lib is a symlink, so every path here goes
# through usr/ (an archive entry "lib/" would replace the symlink).
ovl=$stage/overlay
omods=$ovl/usr/lib/modules/$kver
mkdir -p "$omods/updates" "$ovl/usr/lib/x86_64-linux-gnu/libibverbs" "$ovl/etc/libibverbs.d" \
	"$ovl/usr/local/bin"
cp "$mods"/updates/*.ko "$omods/updates/"
cp "$mods"/modules.* "$omods/"
(cd "$mods" && find . -name '*.ko' -newer "$img/modules/lib/modules/$kver/modules.dep" \
	! -path './updates/*' -exec cp --parents {} "$omods/" \;)
install -m 0755 "$lib" "$ovl/usr/lib/x86_64-linux-gnu/libibverbs/$(basename "$lib")"
install -m 0644 "$drv" "$ovl/etc/libibverbs.d/qrnic.driver"
for t in "${tools[@]}"; do
	if [ -x "$top/build/tools/$t" ]; then
		install -m 0755 "$top/build/tools/$t" "$ovl/usr/local/bin/$t"
	fi
done

(cd "$ovl" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --quiet --reproducible) |
	zstd -q -3 -f -o "$stage/overlay.cpio.zst"
cat "$img/base.cpio.zst" "$stage/overlay.cpio.zst" > "$img/initrd.img.tmp"
mv "$img/initrd.img.tmp" "$img/initrd.img"
echo "pack-overlay: $img/initrd.img (overlay $(du -k "$stage/overlay.cpio.zst" | cut -f1) KiB)"
