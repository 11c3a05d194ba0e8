#!/bin/bash
# pack-rdma-core.sh VERSION: build/compat/rdma-core-VERSION/userspace.cpio.zst,
# an initramfs archive that puts rdma-core VERSION's user space over the
# guest root's own (Debian trixie's 56.1) when appended to a guest's
# initrd (tests/vm/run-vms: QRNIC_INITRD_EXTRA_I):
#
#   libibverbs.so.1, librdmacm.so.1      the libraries (the soname links
#                                        point at VERSION's files)
#   libibverbs/lib*-rdmavN.so, .driver   every provider of VERSION (its
#                                        private ABI N; qrnic: this tree's),
#                                        as its ibverbs-providers package:
#                                        libibverbs warns about each
#                                        configured provider it cannot load
#   ibv_devices ibv_devinfo ibv_*_pingpong rping ucmatose udaddy
#                                        the programs the scenarios run
#
# Built on the host from the tree provider/build.sh VERSION configured
# (prefix /usr, providers in /usr/lib/x86_64-linux-gnu/libibverbs, as
# Debian's), against the host's older C library, which the guest's newer
# one runs.  Everything else in the guest (perftest, nvme-cli, the
# kernel) is unchanged.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}
die() { echo "pack-rdma-core: error: $*" >&2; exit 1; }

[ $# -eq 1 ] && [[ $1 =~ ^[0-9]+\.[0-9]+$ ]] || die "usage: pack-rdma-core.sh VERSION (e.g. 65.0)"
version=$1
bld=$cache/rdma-core/rdma-core-$version/build-qrnic
out=$top/build/compat/rdma-core-$version
[ -f "$bld/build.ninja" ] || die "$bld is not configured: run provider/build.sh $version first"
pabi=$("$top/provider/tree-version" "$bld/../CMakeLists.txt" IBVERBS_PABI_VERSION) ||
	die "no provider ABI version"
grep -qx "CMAKE_INSTALL_LIBDIR:PATH=lib/x86_64-linux-gnu" "$bld/CMakeCache.txt" &&
	grep -qx "VERBS_PROVIDER_DIR:PATH=/usr/lib/x86_64-linux-gnu/libibverbs" "$bld/CMakeCache.txt" ||
	die "$bld is not configured with Debian's library paths"

programs=(ibv_devices ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong
	ibv_srq_pingpong rping ucmatose udaddy)
# The providers: one NAME.driver each in the build's etc/libibverbs.d; the
# library is lib/libNAME-rdmavN.so, or a link to a versioned library for
# providers with an API of their own (mlx5, efa, ...).
providers=()
for f in "$bld"/etc/libibverbs.d/*.driver; do
	[ -f "$f" ] && providers+=("$(basename "$f" .driver)")
done
[ "${#providers[@]}" -gt 1 ] || die "no providers in $bld/etc/libibverbs.d"
provider_file() {
	local link=$bld/lib/lib$1-rdmav$pabi.so
	if [ -L "$link" ]; then echo "lib/$(readlink "$link")"; else echo "lib/lib$1-rdmav$pabi.so"; fi
}
targets=(ibverbs rdmacm "${programs[@]}")
for p in "${providers[@]}"; do targets+=("$(provider_file "$p")"); done
ninja -C "$bld" "${targets[@]}" >"$bld/pack-rdma-core.log" 2>&1 ||
	{ tail -n 30 "$bld/pack-rdma-core.log" >&2; die "ninja failed"; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"	# the archive's "." entry sets the guest root's mode
libdir=usr/lib/x86_64-linux-gnu
mkdir -p "$stage/$libdir/libibverbs" "$stage/usr/bin"
# lib_with_link NAME: the versioned library and its soname link.
lib_with_link() {
	local real
	real=$(readlink -f "$bld/lib/$1.so.1")
	[ -f "$real" ] || die "$bld/lib/$1.so.1 is missing"
	strip --strip-debug -o "$stage/$libdir/${real##*/}" "$real"
	ln -s "${real##*/}" "$stage/$libdir/$1.so.1"
}
lib_with_link libibverbs
lib_with_link librdmacm
mkdir -p "$stage/etc/libibverbs.d"
for p in "${providers[@]}"; do
	f=$(provider_file "$p")
	if [ "$f" = "lib/lib$p-rdmav$pabi.so" ]; then
		strip --strip-debug -o "$stage/$libdir/libibverbs/${f#lib/}" "$bld/$f"
	else
		# The versioned library in the library directory, the provider
		# name a link to it, as Debian installs them.
		strip --strip-debug -o "$stage/$libdir/${f#lib/}" "$bld/$f"
		ln -s "../${f#lib/}" "$stage/$libdir/libibverbs/lib$p-rdmav$pabi.so"
		ln -s "${f#lib/}" "$stage/$libdir/lib$p.so.1"
	fi
	# As the package installs them (the build's own name the build directory).
	echo "driver $p" > "$stage/etc/libibverbs.d/$p.driver"
done
for p in "${programs[@]}"; do
	strip --strip-debug -o "$stage/usr/bin/$p" "$bld/bin/$p"
done
chmod 0755 "$stage/$libdir"/*.so.*.* "$stage/$libdir/libibverbs"/*.so "$stage/usr/bin"/*
chmod 0644 "$stage/etc/libibverbs.d"/*

mkdir -p "$out"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --quiet --reproducible) |
	zstd -q -3 -f -o "$out/userspace.cpio.zst.tmp"
mv "$out/userspace.cpio.zst.tmp" "$out/userspace.cpio.zst"
echo "pack-rdma-core: $out/userspace.cpio.zst (rdma-core $version, provider ABI $pabi," \
	"$(du -k "$out/userspace.cpio.zst" | cut -f1) KiB)"
