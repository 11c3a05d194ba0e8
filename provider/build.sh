#!/bin/bash
# provider/build.sh [VERSION]: build libqrnic (the rdma-core provider for
# qrnic) inside an rdma-core source tree: by default 56.1, the version the
# guests run (Debian trixie); another (65.0: Debian sid's) checks that the
# one source builds there too.
#
# Outputs (repo-top build/provider/, for another VERSION
# build/compat/provider-VERSION/):
#   libqrnic-rdmavN.so    the provider library (N: the tree's private ABI,
#                         read from its CMakeLists.txt)
#   qrnic.driver          its libibverbs.d entry
#
# Slow, input-keyed state lives in ${QRNIC_CACHE:-$HOME/.cache/qrnic}:
#   src/       the rdma-core source package (downloaded once)
#   rdma-core/ the extracted, patched tree and its ninja build directory
# A second run with nothing changed does nothing.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/.." && pwd)
CACHE=${QRNIC_CACHE:-$HOME/.cache/qrnic}

log() { echo "provider: $*"; }
die() { echo "provider: error: $*" >&2; exit 1; }

RDMA_VER=${1:-56.1}
[[ $RDMA_VER =~ ^[0-9]+\.[0-9]+$ ]] || die "usage: provider/build.sh [VERSION] (e.g. 65.0)"
# The Debian suite whose source package has that version.
case "$RDMA_VER" in
56.1) SUITE=trixie; OUT=$TOP/build/provider ;;
*) SUITE=sid; OUT=$TOP/build/compat/provider-$RDMA_VER ;;
esac
SRCDIR=$CACHE/src/rdma-core-$RDMA_VER
TREE=$CACHE/rdma-core/rdma-core-$RDMA_VER
BLD=$TREE/build-qrnic

# The upstream tarball in the source package, empty when not downloaded.
orig_tarball() {
	local f
	for f in "$SRCDIR"/rdma-core_"$RDMA_VER".orig.tar.*; do
		[ -s "$f" ] && { echo "$f"; return 0; }
	done
	return 0
}

# ---- 1. fetch the source package (vm-images/apt-private) -------------------
fetch_source() {
	[ -n "$(orig_tarball)" ] && return 0

	mkdir -p "$SRCDIR"
	log "downloading the rdma-core source of $SUITE"
	(cd "$SRCDIR" && "$TOP/vm-images/apt-private" "$SUITE" source --download-only \
		"rdma-core/$SUITE") >"$SRCDIR/source.log" 2>&1 || true
	# The .dsc or the Debian tarball may be missing from the mirror: judge
	# by the upstream tarball, not by apt-get's exit code.
	[ -n "$(orig_tarball)" ] || { cat "$SRCDIR/source.log" >&2; die "rdma-core $RDMA_VER orig tarball not downloaded ($SUITE has another version?)"; }
}

# ---- 2. extract and graft the provider in ---------------------------------
extract_tree() {
	[ -f "$TREE/CMakeLists.txt" ] && return 0
	local orig
	orig=$(orig_tarball)
	log "extracting $(basename "$orig")"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xf "$orig" -C "$TREE.tmp" --strip-components=1
	rm -rf "$TREE"
	mv "$TREE.tmp" "$TREE"
}

# Copy $1 to $2 only when the content differs (keeps mtimes, so ninja
# rebuilds only what changed).
sync_file() {
	cmp -s "$1" "$2" 2>/dev/null && return 0
	mkdir -p "$(dirname "$2")"
	cp "$1" "$2"
}

graft() {
	local f dst=$TREE/providers/qrnic
	mkdir -p "$dst"
	for f in "$HERE"/*.c "$HERE"/*.h "$HERE"/CMakeLists.txt; do
		[ -e "$f" ] && sync_file "$f" "$dst/$(basename "$f")"
	done
	# Files removed from provider/ must leave the tree too.
	for f in "$dst"/*; do
		case $(basename "$f") in qrnic_hw.h) continue ;; esac
		[ -e "$HERE/$(basename "$f")" ] || rm -f "$f"
	done
	sync_file "$TOP/include/qrnic_hw.h" "$dst/qrnic_hw.h"
	sync_file "$TOP/include/qrnic-abi.h" "$TREE/kernel-headers/rdma/qrnic-abi.h"

	# Register the ABI header so <rdma/qrnic-abi.h> is installed into the
	# build's include dir like the other providers' headers.
	grep -q 'rdma/qrnic-abi.h' "$TREE/kernel-headers/CMakeLists.txt" ||
		sed -i 's|^\(\s*\)rdma/mlx5-abi.h$|&\n\1rdma/qrnic-abi.h|' \
			"$TREE/kernel-headers/CMakeLists.txt"
	grep -q 'rdma/qrnic-abi.h' "$TREE/kernel-headers/CMakeLists.txt" ||
		die "could not register qrnic-abi.h in kernel-headers/CMakeLists.txt"

	grep -q '^add_subdirectory(providers/qrnic)' "$TREE/CMakeLists.txt" ||
		sed -i 's|^add_subdirectory(providers/mlx5)$|&\nadd_subdirectory(providers/qrnic)|' \
			"$TREE/CMakeLists.txt"
	grep -q '^add_subdirectory(providers/qrnic)' "$TREE/CMakeLists.txt" ||
		die "could not add providers/qrnic to CMakeLists.txt"
}

# ---- 3. configure once, then build only our provider ----------------------
# Debian's paths, no man pages or pyverbs (one argument per line; tools/
# make-patches.sh builds the patched tree with the same).
mapfile -t CMAKE_ARGS < "$HERE/rdma-core-cmake-args"

configure() {
	# Reconfigure only when the options above change.
	local stamp=$BLD/qrnic-cmake-args
	if [ -f "$BLD/build.ninja" ] &&
	   [ "$(cat "$stamp" 2>/dev/null)" = "${CMAKE_ARGS[*]}" ]; then
		return 0
	fi
	log "configuring rdma-core (cmake -GNinja)"
	rm -rf "$BLD"
	mkdir -p "$BLD"
	(cd "$BLD" && cmake "${CMAKE_ARGS[@]}" ..) >"$BLD/cmake.log" 2>&1 ||
		{ tail -n 40 "$BLD/cmake.log" >&2; rm -f "$BLD/build.ninja"; die "cmake failed"; }
	echo "${CMAKE_ARGS[*]}" >"$stamp"
}

tree_version() { "$TOP/provider/tree-version" "$TREE/CMakeLists.txt" "$1"; }

build() {
	# ninja decides itself whether anything is out of date.
	local steps target=qrnic-rdmav$PABI
	steps=$(ninja -C "$BLD" -n "$target" 2>/dev/null | grep -c '^\[' || true)
	[ "$steps" = 0 ] || log "building $target ($steps steps)"
	ninja -C "$BLD" "$target" >"$BLD/ninja.log" 2>&1 ||
		{ cat "$BLD/ninja.log" >&2; die "ninja failed"; }
	grep -E 'warning' "$BLD/ninja.log" >&2 || true
}

install_out() {
	local f drv lib=libqrnic-rdmav$PABI.so
	mkdir -p "$OUT"
	sync_file "$BLD/lib/$lib" "$OUT/$lib"
	# One library only: one built with an older tree's ABI must not be packed.
	for f in "$OUT"/libqrnic-rdmav*.so; do
		[ "$f" = "$OUT/$lib" ] || rm -f "$f"
	done
	drv=$(mktemp)
	chmod 644 "$drv"
	echo "driver qrnic" >"$drv"
	sync_file "$drv" "$OUT/qrnic.driver"
	rm -f "$drv"
}

fetch_source
extract_tree
[ "$(tree_version PACKAGE_VERSION)" = "$RDMA_VER" ] ||
	die "$TREE/CMakeLists.txt sets PACKAGE_VERSION '$(tree_version PACKAGE_VERSION)', not $RDMA_VER"
PABI=$(tree_version IBVERBS_PABI_VERSION) || die "no provider ABI version"
graft
configure
build
install_out
