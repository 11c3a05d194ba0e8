#!/bin/bash
# tests/patches.sh: the upstream patch series tools/make-patches.sh makes
# (build/patches/{qemu,linux,rdma-core}/): their shape, that each applies
# to a fresh pristine tree, that what they add is the project's files,
# and that they build there: qrnic.ko in Linux 7.3 with
# CONFIG_INFINIBAND_QRNIC=m (Debian's config), libqrnic in rdma-core, and
# the QEMU series' qtest, built in the compat QEMU tree and run against
# its qemu-system-x86_64.  Prints "ok - patches: ..." / "not ok -
# patches: ..." lines.  The build trees come from `make compat`
# (tools/make-patches.sh prepare); without it the first run prepares them.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
gen=tools/make-patches.sh
logs=build/patches-test
mkdir -p build
# One run at a time: the applied trees are rebuilt between the generator's
# steps.
exec 8> build/.patches-test.lock
flock 8
rm -rf "$logs"
mkdir -p "$logs"
started=$SECONDS
failed=0

pass() { echo "ok - patches: $*"; }
fail() { echo "not ok - patches: $*"; failed=1; }
# show FILE: its last lines, indented, after a failure.
show() { tail -n 15 "$1" | sed 's/^/    /'; }

compat() { sed -n "s/^COMPAT_$1 := //p" Makefile; }
qemu_version=$(compat QEMU)
rdma_core_version=$(compat RDMA_CORE)

# ---- generation ----------------------------------------------------------------
if ! "$gen" > "$logs/generate.log" 2>&1; then
	fail "tools/make-patches.sh generates the series"
	show "$logs/generate.log"
	exit 1
fi
cp -r build/patches "$logs/first"
"$gen" > "$logs/generate-again.log" 2>&1 || true
if diff -r "$logs/first" build/patches > "$logs/again.diff" 2>&1; then
	pass "tools/make-patches.sh generates the three series, the same files when run again"
else
	fail "a second run of tools/make-patches.sh gives other files (see $logs/again.diff)"
fi

# series_shape STACK: numbered git format-patch files with a cover letter,
# each with its author, a [PATCH n/N] subject and a sign-off.
series_shape() {
	local stack=$1 dir=build/patches/$1 p n bad=
	n=$(find "$dir" -name '0*.patch' ! -name '0000-cover-letter.patch' | wc -l)
	[ -f "$dir/0000-cover-letter.patch" ] || bad="no cover letter"
	for p in "$dir"/0*.patch; do
		grep -q '^From: qrnic developers <qrnic@localhost>$' "$p" &&
			grep -qE "^Subject: \[PATCH .*[0-9]+/$n\]" "$p" || bad="${p##*/}: From or Subject"
		case ${p##*/} in 0000-*) continue ;; esac
		grep -q '^Signed-off-by: qrnic developers <qrnic@localhost>$' "$p" || bad="${p##*/}: no Signed-off-by"
	done
	if [ "$n" -ge 1 ] && [ -z "$bad" ]; then
		pass "$stack: $n patches and a cover letter, each with From, a [PATCH n/$n] subject and Signed-off-by"
	else
		fail "$stack: series shape: ${bad:-no patches}"
	fi
}

# apply STACK WHAT: tools/make-patches.sh tree STACK (fresh pristine copy,
# git apply --check, git apply, patch by patch); sets $tree.
apply() {
	local stack=$1 what=$2
	if tree=$("$gen" tree "$stack" 2> "$logs/tree-$stack.log"); then
		pass "$stack: the series applies to a fresh $what tree (git apply --check, then applied)"
	else
		fail "$stack: the series applies to a fresh $what tree"
		show "$logs/tree-$stack.log"
		return 1
	fi
}

# same WHAT EXPECTED_DIR_LISTING: every file pair (project file, tree file)
# on stdin is equal; none missing.
same() {
	local what=$1 from to n=0 bad=
	while read -r from to; do
		n=$((n + 1))
		cmp -s "$from" "$to" || bad="$bad ${to#"$tree"/}"
	done
	if [ -z "$bad" ] && [ "$n" -gt 0 ]; then
		pass "$what ($n files)"
	else
		fail "$what: differ or missing:${bad:- nothing compared}"
	fi
}

# only_files DIR FILE...: DIR holds exactly these file names.
only_files() {
	local dir=$1
	shift
	[ "$(cd "$dir" && find . -type f | sed 's|^\./||' | sort)" = "$(printf '%s\n' "$@" | sort)" ]
}

# ---- QEMU -----------------------------------------------------------------------
# added OLD NEW: the non-empty lines NEW adds to OLD, unindented, sorted.
added() { diff "$1" "$2" | sed -n 's/^> *//p' | sed '/^$/d' | sort; }

# Where the QEMU series imports the hardware header, as Linux has it.
qemu_hw_header=include/standard-headers/drivers/infiniband/hw/qrnic/qrnic_hw.h
# hw_include INCLUDED: stdin with "#include INCLUDED" naming the import.
hw_include() { sed "s|^#include $1\$|#include \"${qemu_hw_header#include/}\"|"; }

qemu_checks() {
	local pristine compat_src f files=() p name out n qtest
	series_shape qemu
	apply qemu "QEMU $qemu_version" || return 0
	pristine=$("$gen" pristine qemu)

	# hw/net/qrnic/: what qemu-device/build.sh's sync_sources() copies,
	# less the .c files meson.build does not build.
	for f in qemu-device/*.c qemu-device/*.h qemu-device/meson.build qemu-device/trace-events; do
		case $f in *.c) grep -qF "'${f##*/}'" qemu-device/meson.build || continue ;; esac
		files+=("${f##*/}")
		echo "$f $tree/hw/net/qrnic/${f##*/}"
	done > "$logs/qemu-pairs"
	for f in qemu-device/engine/*.c qemu-device/engine/*.h; do
		case $f in *.c) grep -qF "'engine/${f##*/}'" qemu-device/meson.build || continue ;; esac
		files+=("engine/${f##*/}")
		case $f in
		*/qrnic_engine.h)
			# Its include of the hardware header names the import.
			hw_include '"qrnic_hw.h"' < "$f" > "$logs/qrnic_engine.h"
			echo "$logs/qrnic_engine.h $tree/hw/net/qrnic/engine/${f##*/}" ;;
		*)	echo "$f $tree/hw/net/qrnic/engine/${f##*/}" ;;
		esac
	done >> "$logs/qemu-pairs"
	echo "include/qrnic_hw.h $tree/$qemu_hw_header" >> "$logs/qemu-pairs"
	same "qemu: hw/net/qrnic/ is qemu-device/ with engine/, $qemu_hw_header is include/qrnic_hw.h" \
		< "$logs/qemu-pairs"
	if only_files "$tree/hw/net/qrnic" "${files[@]}"; then
		pass "qemu: hw/net/qrnic/ holds nothing else (engine .c files meson.build does not build left out)"
	else
		fail "qemu: hw/net/qrnic/ holds other files than qemu-device/'s"
	fi
	hw_include '"hw/net/qrnic/engine/qrnic_hw.h"' < qemu-device/qtest/qrnic-test.c > "$logs/qrnic-test.c"
	printf '%s %s\n' "$logs/qrnic-test.c" "$tree/tests/qtest/qrnic-test.c" \
		docs/qemu/qrnic.rst "$tree/docs/system/devices/qrnic.rst" |
		same "qemu: tests/qtest/qrnic-test.c and docs/system/devices/qrnic.rst are the project's"
	if grep -qx '   devices/qrnic.rst' "$tree/docs/system/device-emulation.rst"; then
		pass "qemu: docs/system/device-emulation.rst's toctree lists devices/qrnic.rst"
	else
		fail "qemu: docs/system/device-emulation.rst's toctree lacks devices/qrnic.rst"
	fi

	# The build files: the lines the series adds are those
	# qemu-device/build.sh grafts into the compat tree (indentation and
	# place aside).
	compat_src=$(readlink -f "build/compat/qemu-$qemu_version" || true)/../src
	if [ -d "$compat_src" ]; then
		out=
		for f in hw/net/Kconfig hw/net/meson.build meson.build tests/qtest/meson.build; do
			[ "$(added "$pristine/$f" "$tree/$f")" = "$(added "$pristine/$f" "$compat_src/$f")" ] ||
				out="$out $f"
		done
		if [ -z "$out" ]; then
			pass "qemu: Kconfig and meson lines are those qemu-device/build.sh grafts (hw/net/Kconfig, hw/net/meson.build, meson.build, tests/qtest/meson.build)"
		else
			fail "qemu: lines added differ from qemu-device/build.sh's graft in:$out"
		fi
	else
		fail "qemu: no build/compat/qemu-$qemu_version tree to compare the graft with (make compat)"
	fi

	if python3 -c 'import docutils' 2> /dev/null; then
		if python3 - "$tree/docs/system/devices/qrnic.rst" > "$logs/rst.log" 2>&1 <<-'EOF'
		import sys, docutils.core, docutils.utils
		docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
		                              settings_overrides={'report_level': 2, 'halt_level': 2})
		EOF
		then
			pass "qemu: docs/system/devices/qrnic.rst parses without warnings (docutils)"
		else
			fail "qemu: docs/system/devices/qrnic.rst: docutils reports problems"
			show "$logs/rst.log"
		fi
	fi

	# QEMU's checkpatch.pl: every patch clean, but for the two warnings a
	# header imported from Linux gets in a patch of its own (was it made by
	# scripts/update-linux-headers.sh, as it will be once Linux has it; and
	# does MAINTAINERS need updating, which that patch may not do).
	for p in build/patches/qemu/0*.patch; do
		name=${p##*/}
		case $name in 0000-*) continue ;; esac
		(cd "$pristine" && perl scripts/checkpatch.pl "$top/$p") > "$logs/checkpatch-$name.log" 2>&1 || true
		n=$(sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings.*/\1 errors, \2 warnings/p' "$logs/checkpatch-$name.log" || true)
		if [ "$n" = "0 errors, 0 warnings" ]; then
			pass "qemu: QEMU's checkpatch.pl: $name clean"
		elif [ "$n" = "0 errors, 2 warnings" ] &&
			grep -q '^WARNING: added, moved or deleted file(s) imported from Linux' "$logs/checkpatch-$name.log" &&
			grep -qx 'WARNING: added, moved or deleted file(s):' "$logs/checkpatch-$name.log" &&
			[ "$(grep -c '^+++ b/' "$p")" = "$(grep -c "^+++ b/include/standard-headers/" "$p")" ]; then
			pass "qemu: QEMU's checkpatch.pl: $name clean but for the header-import notices"
		else
			fail "qemu: QEMU's checkpatch.pl: $name: ${n:-did not run}"
			show "$logs/checkpatch-$name.log"
		fi
	done

	# The qtest, built in the compat tree and run against its QEMU.
	if ! qtest=$("$gen" build qemu 2> "$logs/build-qemu.log"); then
		fail "qemu: tests/qtest/qrnic-test builds in build/compat/qemu-$qemu_version"
		show "$logs/build-qemu.log"
		return 0
	fi
	pass "qemu: tests/qtest/qrnic-test builds in build/compat/qemu-$qemu_version"
	if QTEST_QEMU_BINARY="build/compat/qemu-$qemu_version/qemu-system-x86_64" \
		timeout 120 "$qtest" --tap > "$logs/qtest.log" 2>&1; then
		n=ok
	else
		n=failed
	fi
	sed -n 's/^ok [0-9]* \(.*\)/ok - patches: qemu qtest \1/p; s/^not ok [0-9]* \(.*\)/not ok - patches: qemu qtest \1/p' \
		"$logs/qtest.log"
	if [ "$n" = ok ] && grep -q '^ok ' "$logs/qtest.log"; then
		pass "qemu: qrnic-test passes against build/compat/qemu-$qemu_version/qemu-system-x86_64"
	else
		fail "qemu: qrnic-test against build/compat/qemu-$qemu_version/qemu-system-x86_64"
		show "$logs/qtest.log"
	fi
}

# ---- Linux ----------------------------------------------------------------------
# A qrnic-y list (with its continuation lines) as one sorted word list.
objects() { sed -n '/^qrnic-y :=/,/[^\\]$/p' "$1" | tr -d '\\' | sed 's/qrnic-y :=//' | tr -s ' \t' '\n' | sed '/^$/d' | sort; }

linux_checks() {
	local d f names=() ko log checkpatch features n
	series_shape linux
	apply linux "Linux 7.3" || return 0
	d=$tree/drivers/infiniband/hw/qrnic

	# The driver's files, but for the include lines the generator rewrites.
	for f in driver/*.c driver/*.h; do
		names+=("${f##*/}")
		sed -e 's|^#include <rdma/qrnic-abi\.h>$|#include <qrnic-abi.h>|' \
		    -e 's|^#include "qrnic_hw\.h"$|#include <qrnic_hw.h>|' "$d/${f##*/}" > "$logs/linux-${f##*/}" 2>/dev/null || true
		echo "$f $logs/linux-${f##*/}"
	done > "$logs/linux-pairs"
	echo "include/qrnic_hw.h $d/qrnic_hw.h" >> "$logs/linux-pairs"
	echo "include/qrnic-abi.h $tree/include/uapi/rdma/qrnic-abi.h" >> "$logs/linux-pairs"
	same "linux: drivers/infiniband/hw/qrnic is driver/ (include lines aside), qrnic_hw.h and include/uapi/rdma/qrnic-abi.h are include/'s" \
		< "$logs/linux-pairs"
	if only_files "$d" "${names[@]}" qrnic_hw.h Makefile Kconfig &&
		[ -n "$(objects driver/Kbuild)" ] && [ "$(objects "$d/Makefile")" = "$(objects driver/Kbuild)" ] &&
		grep -qx 'obj-$(CONFIG_INFINIBAND_QRNIC) += qrnic.o' "$d/Makefile" &&
		! grep -qE 'QRNIC_INCLUDE|-Werror' "$d/Makefile"; then
		pass "linux: the in-tree Makefile has driver/Kbuild's objects, obj-\$(CONFIG_INFINIBAND_QRNIC), no -I of include/ or -Werror"
	else
		fail "linux: drivers/infiniband/hw/qrnic/Makefile is not driver/Kbuild in-tree (or other files in the directory)"
	fi
	if grep -qx 'config INFINIBAND_QRNIC' "$d/Kconfig" && grep -qP '^\ttristate ' "$d/Kconfig" &&
		grep -qx 'source "drivers/infiniband/hw/qrnic/Kconfig"' "$tree/drivers/infiniband/Kconfig" &&
		grep -qP '^obj-\$\(CONFIG_INFINIBAND_QRNIC\)\t+\+= qrnic/$' "$tree/drivers/infiniband/hw/Makefile"; then
		pass "linux: Kconfig (tristate INFINIBAND_QRNIC, sourced from drivers/infiniband/Kconfig) and the drivers/infiniband/hw/Makefile line"
	else
		fail "linux: Kconfig or drivers/infiniband/hw/Makefile lines missing"
	fi

	# checkpatch.pl --strict on the series: nothing but in qrnic_hw.h, the
	# header shared with QEMU and user space (C99 types, 1u << n).
	# (Run outside the work tree: in a git tree's top it leaves a CamelCase
	# cache file behind.)
	log=$logs/checkpatch-linux.log
	checkpatch=$("$gen" pristine linux)/scripts/checkpatch.pl
	(cd "$logs" && perl "$checkpatch" --strict --no-tree --show-types \
		"$top"/build/patches/linux/000[1-9]*.patch) > "$log" 2>&1 || true
	n=$(awk '/^(ERROR|WARNING|CHECK):/ { msg = $0; getline; if ($0 !~ /qrnic_hw\.h/) print msg }' "$log" | wc -l)
	if [ "$n" -eq 0 ] && grep -q '^total: ' "$log"; then
		pass "linux: checkpatch.pl --strict on the series: nothing outside qrnic_hw.h ($(grep -cE '^(ERROR|WARNING|CHECK):' "$log") there)"
	else
		fail "linux: checkpatch.pl --strict on the series: $n report(s) outside qrnic_hw.h (see $log)"
	fi

	if ! ko=$("$gen" build linux 2> "$logs/build-linux.log"); then
		fail "linux: qrnic.ko builds in the patched 7.3 tree"
		show "$logs/build-linux.log"
		return 0
	fi
	if grep -qx 'CONFIG_INFINIBAND_QRNIC=m' "$(dirname "$tree")/obj/.config"; then
		pass "linux: CONFIG_INFINIBAND_QRNIC=m stays after olddefconfig of Debian's 7.3 config"
	else
		fail "linux: CONFIG_INFINIBAND_QRNIC=m not in the tree's .config"
	fi
	log=$(dirname "$tree")/build.log
	if [ -f "$ko" ] && [ "$(/sbin/modinfo -F name "$ko")" = qrnic ] &&
		/sbin/modinfo -F vermagic "$ko" | grep -q '^7\.3\.' &&
		/sbin/modinfo -F alias "$ko" | grep -q '^pci:v00001B36d00000130' &&
		! grep -qE 'warning:|WARNING:|error:' "$log"; then
		pass "linux: qrnic.ko built in the tree (make M=drivers/infiniband/hw/qrnic), modinfo: name qrnic, vermagic $(/sbin/modinfo -F vermagic "$ko" | cut -d' ' -f1), PCI alias; no warnings, modpost found every symbol in Debian's Module.symvers"
	else
		fail "linux: qrnic.ko built in the tree with the right modinfo and no warnings (see $log)"
		grep -E 'warning:|WARNING:|error:' "$log" | head -n 10 | sed 's/^/    /'
	fi
	# The Makefile's probes read $(srctree): all five differences are 7.3's.
	features=$(grep -ho -- '-DQRNIC_[A-Z_]*' "$d"/.qrnic_*.o.cmd 2> /dev/null | sed 's/^-D//' | sort -u | xargs || true)
	if [ "$features" = "QRNIC_CREATE_CQ_ATTRS QRNIC_HAS_FLUSH QRNIC_REG_USER_MR_DMAH QRNIC_RESIZE_USER_CQ QRNIC_UMEM_GET_VA" ]; then
		pass "linux: the Makefile's feature probes find all five in the tree: $features"
	else
		fail "linux: the Makefile's feature probes found '$features'"
	fi
}

# ---- rdma-core ------------------------------------------------------------------
rdma_core_checks() {
	local d f names=() lib log features missing=
	series_shape rdma-core
	apply rdma-core "rdma-core $rdma_core_version" || return 0
	d=$tree/providers/qrnic

	for f in provider/*.c provider/*.h provider/CMakeLists.txt; do
		names+=("${f##*/}")
		echo "$f $d/${f##*/}"
	done > "$logs/rdma-core-pairs"
	echo "include/qrnic_hw.h $d/qrnic_hw.h" >> "$logs/rdma-core-pairs"
	echo "include/qrnic-abi.h $tree/kernel-headers/rdma/qrnic-abi.h" >> "$logs/rdma-core-pairs"
	same "rdma-core: providers/qrnic is provider/ with qrnic_hw.h, kernel-headers/rdma/qrnic-abi.h is include/'s" \
		< "$logs/rdma-core-pairs"
	only_files "$d" "${names[@]}" qrnic_hw.h || missing="$missing providers/qrnic/(other files)"
	grep -qx 'add_subdirectory(providers/qrnic)' "$tree/CMakeLists.txt" || missing="$missing CMakeLists.txt"
	[ "$(grep -cx '  rdma/qrnic-abi.h' "$tree/kernel-headers/CMakeLists.txt")" = 2 ] ||
		missing="$missing kernel-headers/CMakeLists.txt"
	grep -q '^  - qrnic: ' "$tree/debian/control" || missing="$missing debian/control"
	grep -qx 'Files: providers/qrnic/\*' "$tree/debian/copyright" || missing="$missing debian/copyright"
	grep -q '^- libqrnic: ' "$tree/redhat/rdma-core.spec" || missing="$missing redhat/rdma-core.spec"
	grep -q '^- libqrnic: ' "$tree/suse/rdma-core.spec" || missing="$missing suse/rdma-core.spec"
	grep -qP '^F:\tproviders/qrnic/$' "$tree/MAINTAINERS" || missing="$missing MAINTAINERS"
	grep -qx ' - qrnic.ko' "$tree/README.md" || missing="$missing README.md"
	if [ -z "$missing" ]; then
		pass "rdma-core: the provider's lines in CMakeLists.txt, kernel-headers/CMakeLists.txt (2), debian/control, debian/copyright, the redhat and suse specs, MAINTAINERS, README.md"
	else
		fail "rdma-core: missing:$missing"
	fi

	if ! lib=$("$gen" build rdma-core 2> "$logs/build-rdma-core.log"); then
		fail "rdma-core: libqrnic builds in the patched tree"
		show "$logs/build-rdma-core.log"
		return 0
	fi
	log=$(dirname "$tree")/build.log
	if [ -f "$lib" ] && readelf -d "$lib" | grep -q 'NEEDED.*libibverbs\.so\.1' &&
		[ -f "$(dirname "$tree")/build/include/kernel-abi/qrnic-abi.h" ] &&
		! grep -qE 'warning:|error:' "$log"; then
		pass "rdma-core: ${lib##*/} built in the patched tree (cmake, ninja), kernel-abi/qrnic-abi.h generated, no warnings"
	else
		fail "rdma-core: ${lib##*/} built in the patched tree without warnings (see $log)"
	fi
	# provider/CMakeLists.txt's probes of libibverbs/driver.h: both
	# differences are 65.0's.
	features=$(grep -o -- '-DQRNIC_[A-Z_]*' "$(dirname "$tree")/build/build.ninja" 2> /dev/null | sed 's/^-D//' | sort -u | xargs || true)
	if [ "$features" = "QRNIC_CREATE_CQ_PROV_ATTR QRNIC_GET_CONTEXT_FD_ARR" ]; then
		pass "rdma-core: the provider's CMakeLists.txt probes find both in the tree: $features"
	else
		fail "rdma-core: the provider's CMakeLists.txt probes found '$features'"
	fi
}

qemu_checks
linux_checks
rdma_core_checks

# ---- a missing pristine source ---------------------------------------------------
empty=$(mktemp -d)
if QRNIC_CACHE=$empty "$gen" > "$logs/missing.log" 2>&1; then
	fail "make-patches.sh with an empty cache (QRNIC_CACHE): succeeded"
elif grep -q "error: no QEMU $qemu_version source tarball" "$logs/missing.log" &&
	[ -f build/patches/qemu/0000-cover-letter.patch ]; then
	pass "make-patches.sh with an empty cache fails naming the missing QEMU tarball, the series left as they were"
else
	fail "make-patches.sh with an empty cache: unclear failure"
	show "$logs/missing.log"
fi
rmdir "$empty"

echo "# tests/patches.sh: $((SECONDS - started)) s"
exit "$failed"
