#!/bin/bash
# qemu-device/build.sh [VERSION]: build QEMU with the qrnic device grafted in
# as hw/net/qrnic/.
#
# VERSION 10.0 (the default) is Debian's bookworm-backports source, the QEMU
# the project runs.  Result: build/qemu -> the QEMU build tree, so
# build/qemu/qemu-system-x86_64 runs and finds its firmware in
# build/qemu/pc-bios/ (no -L needed).
#
# VERSION 10.2 is Debian sid's source (qemu 1:10.2.2+ds-1, downloaded with
# vm-images/apt-private), built only to show that the one device source
# builds and works there too (qrnic_compat.h holds the differences).
# Result: build/compat/qemu-10.2 -> its build tree, with
# qemu-system-x86_64 and the same firmware links.
#
# Idempotent: the extracted, configured tree is cached in
# ${QRNIC_CACHE:-$HOME/.cache/qrnic}/qemu-<hash>/ (10.2: qemu-10.2-<hash>/,
# under its own lock), keyed by the tarball name, the graft logic and the
# configure flags.  Every run copies the device sources into the tree where
# their content changed, then runs ninja, so an edit rebuilds one object and
# an unchanged tree does nothing.
#
# QRNIC_QEMU_FLAVOUR=stock builds QEMU 10.2 as Debian ships its source: no
# qrnic graft, no device sources, no patches; the QEMU a user installs, which
# attaches qrnic through its vfio-user client (-device vfio-user-pci, issue
# 30).  Its own tree ${QRNIC_CACHE}/qemu-10.2-stock-<hash>/; result:
# build/stock/qemu-10.2 -> the build tree.
#
# QRNIC_QEMU_FLAVOUR=fuzz builds QEMU's libFuzzer harness qemu-fuzz-x86_64
# instead (clang 14, --enable-fuzzing, ASan, UBSan; the same graft and device
# sources) in its own tree ${QRNIC_CACHE}/qemu-fuzz-<hash>/, keyed the same
# way, under its own lock, and points build/fuzz-qemu/qemu at it.  That
# flavour also applies tests/fuzz/qemu-*.patch (patches to QEMU's fuzz
# harness) to pristine copies of the files they touch on every run.  Used by
# tests/fuzz/qemu-generic-fuzz.sh (`make fuzz-qemu`); QEMU 10.0 only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}
jobs=${QRNIC_JOBS:-2}

say() { echo "qemu-device/build.sh: $*"; }
die() { echo "qemu-device/build.sh: error: $*" >&2; exit 1; }

CONFIGURE_FLAGS=(
	--target-list=x86_64-softmmu
	--without-default-features
	--enable-tcg --enable-kvm
	--enable-slirp --enable-virtfs --enable-attr --enable-cap-ng
	--enable-pixman
	--disable-fdt --disable-docs --disable-werror --disable-install-blobs
)
# Added to CONFIGURE_FLAGS for the fuzz flavour.
FUZZ_CONFIGURE_FLAGS=(
	--cc=clang-14 --cxx=clang++-14
	--enable-fuzzing --enable-asan --enable-ubsan
)

flavour=${QRNIC_QEMU_FLAVOUR:-system}

# The QEMU version: where its source comes from.
version=${1:-10.0}
case $version in
10.0)
	suite=bookworm-backports
	package=qemu/bookworm-backports
	;;
10.2)
	suite=sid
	package=qemu=1:10.2.2+ds-1
	;;
*)	die "QEMU version must be 10.0 or 10.2, not '$version'" ;;
esac
[ $# -le 1 ] || die "usage: qemu-device/build.sh [10.0|10.2]"

# ---- host tools -------------------------------------------------------------
check_host() {
	local v
	v=$(dpkg-query -W -f='${Version}' meson 2>/dev/null || echo 0)
	dpkg --compare-versions "$v" ge 1.5 ||
		die "meson >= 1.5 needed (have $v): run vm-images/host-deps.sh"
	/usr/bin/python3 -c 'import pycotap' 2>/dev/null ||
		die "python3-pycotap missing: run vm-images/host-deps.sh"
	[ -f /usr/share/seabios/bios-256k.bin ] ||
		die "seabios missing: run vm-images/host-deps.sh"
	if [ "$flavour" = fuzz ]; then
		command -v clang-14 >/dev/null &&
			[ -f "$(clang-14 --print-runtime-dir)/libclang_rt.fuzzer-x86_64.a" ] ||
			die "clang-14 and libFuzzer needed: apt-get install clang libclang-rt-14-dev"
	fi
	return 0
}

# ---- source -----------------------------------------------------------------
find_tarball() {
	local f
	for f in "$dl"/qemu_"$version".*.orig.tar.*; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

fetch_source() {
	dl=$cache/src/qemu
	mkdir -p "$dl"
	# The flavours build under different locks; downloads take this one.
	exec 8>"$dl/fetch.lock"
	flock 8
	if ! tarball=$(find_tarball); then
		if [ "$version" = 10.0 ]; then
			say "downloading the QEMU 10.0 source (apt-get source qemu/bookworm-backports)"
			# The .dsc 404s and apt exits non-zero; only the tarball matters.
			(cd "$dl" && apt-get source --download-only qemu/bookworm-backports) \
				>"$dl/apt-source.log" 2>&1 || true
		else
			say "downloading the QEMU $version source ($package from $suite)"
			# In an empty directory, through a private apt configuration
			# naming only that suite; only the upstream tarball is kept.
			rm -rf "$dl/$suite.tmp"
			mkdir -p "$dl/$suite.tmp"
			(cd "$dl/$suite.tmp" &&
				"$top/vm-images/apt-private" "$suite" source --download-only "$package") \
				>"$dl/apt-source-$version.log" 2>&1 || true
			mv "$dl/$suite.tmp"/qemu_"$version".*.orig.tar.* "$dl"/ 2>/dev/null || true
			rm -rf "$dl/$suite.tmp"
		fi
		tarball=$(find_tarball) ||
			die "no qemu_$version.*.orig.tar.* in $dl (see $dl/apt-source*.log)"
	fi
	exec 8>&-
}

# ---- graft: make the tree build hw/net/qrnic/ -------------------------------
# Every edit is guarded, so running it again changes nothing.
graft() {
	local s=$1
	mkdir -p "$s/hw/net/qrnic"
	grep -q "^subdir('qrnic')" "$s/hw/net/meson.build" ||
		printf "\nsubdir('qrnic')\n" >> "$s/hw/net/meson.build"
	grep -q '^config QRNIC$' "$s/hw/net/Kconfig" ||
		printf '\nconfig QRNIC\n    bool\n    default y if PCI_DEVICES\n    depends on PCI_EXPRESS && MSI_NONBROKEN\n' \
			>> "$s/hw/net/Kconfig"
	grep -q "'hw/net/qrnic'" "$s/meson.build" ||
		sed -i "s|^trace_events_subdirs = \[|&\n  'hw/net/qrnic',|" "$s/meson.build"
	grep -q "'hw/net/qrnic'" "$s/meson.build" ||
		die "could not add hw/net/qrnic to trace_events_subdirs"
	# The +ds tarball ships no firmware; configure wants the EDK2 archives.
	local f
	for f in aarch64-code arm-code arm-vars riscv-code riscv-vars i386-code \
		 i386-secure-code i386-vars x86_64-code x86_64-secure-code \
		 loongarch64-code loongarch64-vars; do
		[ -e "$s/pc-bios/edk2-$f.fd.bz2" ] || : > "$s/pc-bios/edk2-$f.fd.bz2"
	done
}

# The stock tree gets only what configure needs of graft(): the EDK2
# archive placeholders.
graft_stock() {
	local s=$1 f
	for f in aarch64-code arm-code arm-vars riscv-code riscv-vars i386-code \
		 i386-secure-code i386-vars x86_64-code x86_64-secure-code \
		 loongarch64-code loongarch64-vars; do
		[ -e "$s/pc-bios/edk2-$f.fd.bz2" ] || : > "$s/pc-bios/edk2-$f.fd.bz2"
	done
}

# QEMU 10.2's pc-bios/dtb/meson.build installs the prebuilt .dtb files,
# which the +ds tarball strips, whenever dtc is not found, even with
# --disable-install-blobs, and configure fails ("File bamboo.dtb does not
# exist").  They are for PowerPC and MicroBlaze boards only; empty
# placeholders, like the EDK2 archives above, satisfy configure (nothing
# is installed).  In the cache key only for the versions that run it.
graft_dtb() {
	local s=$1 f
	for f in "$s"/pc-bios/dtb/*.dts; do
		[ -f "$f" ] || continue
		[ -e "${f%.dts}.dtb" ] || : > "${f%.dts}.dtb"
	done
}

# ---- copy the device sources where their content differs ----------------------
copy_if_changed() {
	local from=$1 to=$2
	if ! cmp -s "$from" "$to"; then
		cp "$from" "$to"
		say "updated ${to#"$src"/}"
	fi
}

sync_sources() {
	local d=$src/hw/net/qrnic f
	mkdir -p "$d/engine"
	declare -A want=()
	for f in "$here"/*.c "$here"/*.h "$here"/meson.build "$here"/trace-events; do
		[ -f "$f" ] || continue
		copy_if_changed "$f" "$d/${f##*/}"
		want["$d/${f##*/}"]=1
	done
	for f in "$here"/engine/*.c "$here"/engine/*.h "$top/include/qrnic_hw.h"; do
		[ -f "$f" ] || continue
		copy_if_changed "$f" "$d/engine/${f##*/}"
		want["$d/engine/${f##*/}"]=1
	done
	# Drop files that no longer exist in qemu-device/.
	for f in "$d"/* "$d"/engine/*; do
		[ -f "$f" ] && [ -z "${want[$f]:-}" ] && { rm -f "$f"; say "removed ${f#"$src"/}"; }
	done
	# The device's qtest, registered beside rtl8139-test as the patch
	# series does (tools/make-patches.sh); `ninja tests/qtest/qrnic-test`
	# builds it.  Not in graft(): that would change the cache key.
	copy_if_changed "$here/qtest/qrnic-test.c" "$src/tests/qtest/qrnic-test.c"
	grep -q "'qrnic-test'" "$src/tests/qtest/meson.build" ||
		sed -i "/'CONFIG_RTL8139_PCI') ? \['rtl8139-test'\]/i\\
  (config_all_devices.has_key('CONFIG_QRNIC') ? ['qrnic-test'] : []) +                      \\\\" \
			"$src/tests/qtest/meson.build"
	grep -q "'qrnic-test'" "$src/tests/qtest/meson.build" ||
		die "could not register qrnic-test in tests/qtest/meson.build"
	return 0
}

# ---- patches to QEMU itself ------------------------------------------------
# qemu-device/qemu-fixes/VERSION/*.patch: fixes of QEMU bugs the tests run
# into (each file says which, and where upstream fixed it); the fuzz
# flavour adds tests/fuzz/qemu-*.patch (patches to QEMU's fuzz harness).
# Each patch (-p1 against the QEMU tree) is applied to a pristine copy of
# the files it touches (saved in $root/pristine/ the first time), and the
# result copied in where it differs; a file whose patch is gone gets its
# pristine copy back.  Editing a patch rebuilds only what it touches.
qemu_patches() {
	local p
	for p in "$here/qemu-fixes/$version"/*.patch; do
		[ -f "$p" ] && echo "$p"
	done
	[ "$flavour" = system ] && return 0
	for p in "$top"/tests/fuzz/qemu-*.patch; do
		[ -f "$p" ] && echo "$p"
	done
	return 0
}

apply_patches() {
	local p t f out=$root/patched
	declare -A want=()
	rm -rf "$out"
	mkdir -p "$out"
	for p in $(qemu_patches); do
		for t in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$p"); do
			if [ ! -f "$root/pristine/$t" ]; then
				mkdir -p "$(dirname "$root/pristine/$t")"
				cp "$src/$t" "$root/pristine/$t"
			fi
			if [ ! -f "$out/$t" ]; then
				mkdir -p "$(dirname "$out/$t")"
				cp "$root/pristine/$t" "$out/$t"
			fi
			want["$t"]=1
		done
		patch -d "$out" -p1 -s --no-backup-if-mismatch < "$p" > "$root/patch.log" 2>&1 ||
			die "${p#"$top"/} does not apply to QEMU, see $root/patch.log"
	done
	[ -d "$root/pristine" ] || return 0
	while IFS= read -r f; do
		t=${f#"$root/pristine/"}
		if [ -n "${want[$t]:-}" ]; then
			copy_if_changed "$out/$t" "$src/$t"
		else
			copy_if_changed "$f" "$src/$t"
		fi
	done < <(find "$root/pristine" -type f)
	return 0
}

# ---- firmware the +ds tarball lacks -------------------------------------------
# QEMU run from its build tree looks for data files in
# qemu-bundle/<datadir>; link each blob there and into pc-bios/.
link_blob() {
	local name=$1 target=$2 d
	for d in "$bld/pc-bios" "$bld/qemu-bundle/usr/local/share/qemu"; do
		mkdir -p "$d"
		[ "$(readlink "$d/$name" 2>/dev/null)" = "$target" ] ||
			ln -sfn "$target" "$d/$name"
	done
}

link_firmware() {
	local pcb=$bld/pc-bios f t
	if [ ! -f "$pcb/optionrom/linuxboot_dma.bin" ] || [ ! -f "$pcb/optionrom/kvmvapic.bin" ]; then
		say "building the x86 option ROMs (linuxboot_dma, kvmvapic, multiboot, pvh)"
		# configure only writes config.mak when it finds a 32-bit capable
		# toolchain (gcc-multilib); the ROMs are -m16 freestanding code
		# that the host gcc builds fine.
		[ -f "$pcb/optionrom/config.mak" ] ||
			printf 'TOPSRC_DIR=%s\nEXTRA_CFLAGS=\nCC=cc\nCCAS=cc\nOBJCOPY=objcopy\nPYTHON=/usr/bin/python3\n' \
				"$src" > "$pcb/optionrom/config.mak"
		make -C "$pcb/optionrom" > "$root/optionrom.log" 2>&1 ||
			die "option ROM build failed, see $root/optionrom.log"
	fi
	for f in linuxboot.bin linuxboot_dma.bin kvmvapic.bin multiboot.bin \
		 multiboot_dma.bin pvh.bin; do
		link_blob "$f" "$pcb/optionrom/$f"
	done
	for t in /usr/share/seabios/*.bin /usr/lib/ipxe/qemu/*.rom; do
		[ -f "$t" ] && link_blob "${t##*/}" "$t"
	done
	return 0
}

# ---- main ---------------------------------------------------------------------
# Graft steps beyond graft(), by version (10.0's key stays what it was).
extra_graft=
case $flavour in
system)
	flags=("${CONFIGURE_FLAGS[@]}")
	name=qemu target=qemu-system-x86_64 link=$top/build/qemu
	what=QEMU took="5-10 min"
	if [ "$version" != 10.0 ]; then
		name=qemu-$version link=$top/build/compat/qemu-$version
		what="QEMU $version"
		extra_graft=graft_dtb
	fi
	;;
stock)
	[ "$version" = 10.2 ] || die "the stock flavour builds QEMU 10.2 only"
	flags=("${CONFIGURE_FLAGS[@]}")
	name=qemu-$version-stock target=qemu-system-x86_64
	link=$top/build/stock/qemu-$version
	what="stock QEMU $version (no qrnic)" took="5-10 min"
	extra_graft=graft_dtb
	;;
fuzz)
	[ "$version" = 10.0 ] || die "the fuzz flavour builds QEMU 10.0 only"
	flags=("${CONFIGURE_FLAGS[@]}" "${FUZZ_CONFIGURE_FLAGS[@]}")
	name=qemu-fuzz target=qemu-fuzz-x86_64 link=$top/build/fuzz-qemu/qemu
	what="QEMU's fuzzer $target" took="5-7 min"
	;;
*)	die "QRNIC_QEMU_FLAVOUR must be system, stock or fuzz, not '$flavour'" ;;
esac

check_host
mkdir -p "$cache"
# One build at a time per cache and flavour (several engineers / CI share it).
exec 9>"$cache/$name-build.lock"
flock -n 9 || { say "waiting for another build.sh run"; flock 9; }
fetch_source

grafter=graft
[ "$flavour" = stock ] && grafter=graft_stock
key=$( { echo "${tarball##*/}"; declare -f "$grafter"; echo "${flags[*]}"
	  [ -z "$extra_graft" ] || declare -f "$extra_graft"; } |
	sha256sum | cut -c1-16)
root=$cache/$name-$key
src=$root/src
bld=$root/build

if [ ! -f "$root/.extracted" ]; then
	say "extracting ${tarball##*/} into $root"
	rm -rf "$root"
	mkdir -p "$src"
	tar -xf "$tarball" -C "$src" --strip-components=1
	touch "$root/.extracted"
fi

$grafter "$src"
[ -z "$extra_graft" ] || "$extra_graft" "$src"
if [ "$flavour" != stock ]; then
	sync_sources
	apply_patches
fi

if [ ! -f "$root/.configured" ]; then
	say "configuring QEMU in $bld"
	rm -rf "$bld"
	mkdir -p "$bld"
	(cd "$bld" && "$src/configure" --python=/usr/bin/python3 "${flags[@]}") \
		> "$root/configure.log" 2>&1 ||
		die "configure failed, see $root/configure.log"
	touch "$root/.configured"
fi

# qemu-version.h is regenerated on every run; only real work is shown.
if [ ! -x "$bld/$target" ]; then
	say "building $what (ninja -j$jobs in $bld; takes $took on 2 cores)"
fi
if ! ninja -C "$bld" -j"$jobs" "$target" 2>&1 |
	{ grep -v 'Entering directory\|qemu-version.h\|no work to do' || true; }; then
	die "ninja failed"
fi
[ -x "$bld/$target" ] || die "ninja did not produce $target"

link_firmware

mkdir -p "$(dirname "$link")"
if [ "$(readlink "$link" 2>/dev/null)" != "$bld" ]; then
	ln -sfn "$bld" "$link"
	say "${link#"$top"/} -> $bld"
fi
say "ok: $link/$target"
