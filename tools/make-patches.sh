#!/bin/bash
# tools/make-patches.sh [COMMAND]: the project as upstream-shaped patch
# series, generated from its files on every run (never committed copies):
#
#   build/patches/qemu/       QEMU (COMPAT_QEMU in the Makefile): hw/net/qrnic,
#                             the docs page, the qtest
#   build/patches/linux/      Linux 7.3: the uapi header, drivers/infiniband/hw/qrnic
#   build/patches/rdma-core/  rdma-core (COMPAT_RDMA_CORE): the kernel header,
#                             providers/qrnic and the packaging lines
#
# Each series is made in a throwaway git repository holding the pristine
# upstream versions of the files it changes (the patches are the same as
# against the whole tree), one commit per logical change, then written by
# git format-patch: 0000-cover-letter.patch, 0001-..., dated by the
# project's HEAD commit so that an unchanged project gives the same files.
#
# Pristine trees: QEMU and rdma-core are extracted once from the upstream
# tarballs make compat downloads (qemu-device/build.sh, provider/build.sh)
# into ${QRNIC_CACHE:-$HOME/.cache/qrnic}/patches-pristine/; Linux is
# vm-images/linux-source.sh's tree, only read.
#
# COMMAND
#   generate        (the default; `make patches`) the three series
#   pristine STACK  print the pristine tree of STACK: qemu, linux or rdma-core
#   tree STACK      a fresh copy of that pristine tree in
#                   build/patches-trees/STACK-VERSION/src with the series
#                   applied, each patch checked by `git apply --check`
#                   first; prints the tree's path
#   build STACK     build in the applied tree; prints what it built:
#                   linux: qrnic.ko, CONFIG_INFINIBAND_QRNIC=m in Debian's
#                     7.3 config, in the kbuild root; the configured,
#                     modules_prepare'd output tree (linux-7.3/obj) is kept
#                     and redone only when the config's inputs change
#                   rdma-core: libqrnic in a cmake build of the tree
#                   qemu: the qtest in the compat QEMU tree, where
#                     qemu-device/build.sh grafts it beside the device
#   prepare         (make compat) generate, then tree and build for each
#                   stack, so that tests/patches.sh finds warm caches
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}
out=$top/build/patches
trees=$top/build/patches-trees
jobs=${QRNIC_JOBS:-2}

say() { echo "make-patches: $*" >&2; }
die() { echo "make-patches: error: $*" >&2; exit 1; }

compat_version() {
	local v
	v=$(sed -n "s/^COMPAT_$1 := //p" "$top/Makefile")
	[ -n "$v" ] || die "no COMPAT_$1 in the Makefile"
	echo "$v"
}
QEMU_VERSION=$(compat_version QEMU)
RDMA_CORE_VERSION=$(compat_version RDMA_CORE)
LINUX_SERIES=7.3
LINUX_KVER=$("$top/vm-images/kver" "$LINUX_SERIES")
# Debian's 7.3 kernel was built with this compiler; in the kbuild root it
# is the only gcc (there is no plain `gcc`).
LINUX_CC=x86_64-linux-gnu-gcc-14

AUTHOR_NAME="qrnic developers"
AUTHOR_EMAIL="qrnic@localhost"
SIGNED_OFF="Signed-off-by: $AUTHOR_NAME <$AUTHOR_EMAIL>"

# The generator's git must not follow the user's configuration (diff
# prefixes, format.* settings) nor find the project's repository.
git_clean() {
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git "$@"
}

# ---- pristine trees -----------------------------------------------------------
one_file() {
	local f
	for f in "$@"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# extract_once TARBALL NAME: the tarball's tree in patches-pristine/NAME.
extract_once() {
	local tarball=$1 dir=$cache/patches-pristine/$2
	if [ ! -f "$dir/.qrnic-pristine" ]; then
		say "extracting ${tarball##*/} into $dir"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		tar -xf "$tarball" -C "$dir.tmp" --strip-components=1 ||
			die "cannot extract $tarball"
		echo "${tarball##*/}" > "$dir.tmp/.qrnic-pristine"
		mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}

pristine_qemu() {
	local tarball name
	tarball=$(one_file "$cache"/src/qemu/qemu_"$QEMU_VERSION".*.orig.tar.*) ||
		die "no QEMU $QEMU_VERSION source tarball (qemu_$QEMU_VERSION.*.orig.tar.*) in $cache/src/qemu: run make compat (qemu-device/build.sh $QEMU_VERSION downloads it)"
	name=${tarball##*/}
	extract_once "$tarball" "${name%.orig.tar.*}"
}

pristine_rdma_core() {
	local tarball
	tarball=$(one_file "$cache"/src/rdma-core-"$RDMA_CORE_VERSION"/rdma-core_"$RDMA_CORE_VERSION".orig.tar.*) ||
		die "no rdma-core $RDMA_CORE_VERSION source tarball in $cache/src/rdma-core-$RDMA_CORE_VERSION: run make compat (provider/build.sh $RDMA_CORE_VERSION downloads it)"
	extract_once "$tarball" "rdma-core_$RDMA_CORE_VERSION"
}

pristine_linux() {
	local tree
	tree=$("$top/vm-images/linux-source.sh" "$LINUX_SERIES") ||
		die "no Linux $LINUX_SERIES source tree (vm-images/linux-source.sh $LINUX_SERIES failed)"
	[ -f "$tree/MAINTAINERS" ] || die "$tree is not a Linux source tree"
	echo "$tree"
}

pristine() {
	case $1 in
	qemu) pristine_qemu ;;
	linux) pristine_linux ;;
	rdma-core) pristine_rdma_core ;;
	*) die "unknown stack '$1' (qemu, linux or rdma-core)" ;;
	esac
}

stack_version() {
	case $1 in
	qemu) echo "$QEMU_VERSION" ;;
	linux) echo "$LINUX_SERIES" ;;
	rdma-core) echo "$RDMA_CORE_VERSION" ;;
	esac
}

# ---- the throwaway repository ---------------------------------------------------
# start_repo REPO PRISTINE FILE...: a repository whose first commit holds
# the pristine versions of the files the series changes.
start_repo() {
	local repo=$1 pristine=$2 f
	shift 2
	git_clean init -q -b qrnic "$repo"
	for f in "$@"; do
		[ -f "$pristine/$f" ] || die "$f is not in the pristine tree $pristine"
		mkdir -p "$repo/$(dirname "$f")"
		cp "$pristine/$f" "$repo/$f"
	done
	git_clean -C "$repo" add -A
	commit_as_author "$repo" "pristine $(basename "$pristine")"
	git_clean -C "$repo" tag pristine
}

# git as the series' author at the series' date (the cover letter too).
git_as_author() {
	GIT_AUTHOR_NAME=$AUTHOR_NAME GIT_AUTHOR_EMAIL=$AUTHOR_EMAIL \
	GIT_COMMITTER_NAME=$AUTHOR_NAME GIT_COMMITTER_EMAIL=$AUTHOR_EMAIL \
	GIT_AUTHOR_DATE=$series_date GIT_COMMITTER_DATE=$series_date \
		git_clean "$@"
}

commit_as_author() {
	git_as_author -C "$1" commit -q --allow-empty -m "$2"
}

# commit REPO: everything changed, with the message on stdin (subject,
# blank line, body) and the sign-off.
commit() {
	local repo=$1 msg
	msg="$(cat)

$SIGNED_OFF"
	git_clean -C "$repo" add -A
	[ -n "$(git_clean -C "$repo" status --porcelain)" ] || die "nothing to commit in $repo"
	commit_as_author "$repo" "$msg"
}

# write_series REPO STACK PREFIX: format-patch everything after the
# pristine commit into build/patches/STACK/, the branch description (on
# stdin: subject, blank line, body) as the cover letter.
write_series() {
	local repo=$1 stack=$2 prefix=$3 dest=$out/$2
	git_clean -C "$repo" config branch.qrnic.description "$(cat)"
	rm -rf "$dest.tmp"
	git_as_author -C "$repo" format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="$prefix" --signature="$signature" \
		-o "$dest.tmp" pristine..HEAD
	rm -rf "$dest"
	mv "$dest.tmp" "$dest"
	say "$stack: $(find "$dest" -name '0*.patch' ! -name '0000-*' | wc -l) patches in ${dest#"$top"/}"
}

# ---- file edits -------------------------------------------------------------------
# Each edit says what it expects, so a changed upstream file fails here
# with the file named rather than making a patch without the line.
# insert_after FILE LINE_REGEX TEXT [COUNT]: TEXT as a line after each line
# matching the ERE; COUNT (1) such lines must exist.
insert_after() {
	local file=$1 re=$2 text=$3 count=${4:-1} n
	n=$(grep -cE "$re" "$file" || true)
	[ "$n" = "$count" ] || die "${file##*/}: $n lines match /$re/, expected $count"
	awk -v re="$re" -v text="$text" '{ print } $0 ~ re { print text }' "$file" > "$file.new"
	mv "$file.new" "$file"
}

# insert_before FILE LINE_REGEX TEXT: TEXT as a line before the one line
# matching the ERE.
insert_before() {
	local file=$1 re=$2 text=$3 n
	n=$(grep -cE "$re" "$file" || true)
	[ "$n" = 1 ] || die "${file##*/}: $n lines match /$re/, expected 1"
	awk -v re="$re" -v text="$text" '$0 ~ re { print text } { print }' "$file" > "$file.new"
	mv "$file.new" "$file"
}

# maintainers_entry FILE AFTER: the entry on stdin (header line first) as
# a paragraph of its own after the entry whose header is AFTER (entries
# are paragraphs whose second line is "X:"; the caller names the
# alphabetical predecessor: the files have misplaced entries).
maintainers_entry() {
	local file=$1 after=$2 entry
	entry=$(cat)
	awk -v entry="$entry" -v after="$after" '
		{ line[NR] = $0 }
		END {
			at = 0
			for (i = 2; i < NR && !at; i++) {
				if (line[i - 1] != "" || line[i] != after || line[i + 1] !~ /^[A-Z]:[ \t]/)
					continue
				for (j = i; j <= NR && line[j] != ""; j++)
					;
				at = j + 1
			}
			if (!at)
				exit 1
			for (i = 1; i < at; i++)
				print line[i]
			print entry
			print ""
			for (i = at; i <= NR; i++)
				print line[i]
		}' "$file" > "$file.new" || die "${file##*/}: no entry '$after' to put '${entry%%$'\n'*}' after"
	mv "$file.new" "$file"
}

# maintainers_file FILE HEADER LINE: LINE ("F:<sep>path") into the entry
# HEADER, among its F: lines in sorted order.
maintainers_file() {
	local file=$1 header=$2 new=$3
	LC_ALL=C awk -v header="$header" -v new="$new" '
		$0 == header { in_entry = 1 }
		in_entry && ($0 == "" || (/^F:/ && $0 > new)) { print new; in_entry = 0; done = 1 }
		{ print }
		END {
			if (in_entry) { print new; done = 1 }
			if (!done) exit 1
		}' "$file" > "$file.new" || die "${file##*/}: no entry '$header'"
	mv "$file.new" "$file"
}

# ---- QEMU ---------------------------------------------------------------------------
QEMU_MAINTAINERS="qrnic"

# The device's files as qemu-device/build.sh's sync_sources() places them
# (hw/net/qrnic/, engine/ with the hardware header), without .c files
# meson.build does not build (tests/engine-sources.mk refuses such an
# engine file; test-only code lives under tests/).
qemu_device_files() {
	local repo=$1 f d=$1/hw/net/qrnic
	mkdir -p "$d/engine"
	for f in "$top"/qemu-device/*.c "$top"/qemu-device/*.h \
		 "$top"/qemu-device/meson.build "$top"/qemu-device/trace-events; do
		[ -f "$f" ] || continue
		case $f in
		*.c) grep -qF "'${f##*/}'" "$top/qemu-device/meson.build" || continue ;;
		esac
		cp "$f" "$d/"
	done
	for f in "$top"/qemu-device/engine/*.c "$top"/qemu-device/engine/*.h; do
		[ -f "$f" ] || continue
		case $f in
		*.c) grep -qF "'engine/${f##*/}'" "$top/qemu-device/meson.build" || continue ;;
		esac
		cp "$f" "$d/engine/"
	done
	[ -f "$d/qrnic.c" ] && [ -f "$d/engine/qrnic_engine.h" ] || die "qemu-device/ sources missing"
	# The hardware header is the Linux driver's (drivers/infiniband/hw/
	# qrnic/qrnic_hw.h), imported into include/standard-headers by patch 1
	# as QEMU imports pvrdma's; the one include of it names that path.
	qemu_hw_include "$d/engine/qrnic_engine.h" '"qrnic_hw.h"'
}

QEMU_HW_HEADER=include/standard-headers/drivers/infiniband/hw/qrnic/qrnic_hw.h

# qemu_hw_include FILE INCLUDED: FILE's one #include INCLUDED now names
# the imported header.
qemu_hw_include() {
	local file=$1 from=$2 n
	n=$(grep -cxF "#include $from" "$file" || true)
	[ "$n" = 1 ] || die "${file##*/}: $n lines '#include $from', expected 1"
	sed -i "s|^#include $from\$|#include \"${QEMU_HW_HEADER#include/}\"|" "$file"
}

generate_qemu() {
	local src repo=$work/qemu qtest=$top/qemu-device/qtest/qrnic-test.c rst=$top/docs/qemu/qrnic.rst
	src=$(pristine_qemu)
	[ -f "$qtest" ] || die "missing ${qtest#"$top"/}"
	[ -f "$rst" ] || die "missing ${rst#"$top"/}"
	start_repo "$repo" "$src" hw/net/Kconfig hw/net/meson.build meson.build MAINTAINERS \
		docs/system/device-emulation.rst tests/qtest/meson.build

	mkdir -p "$repo/$(dirname "$QEMU_HW_HEADER")"
	cp "$top/include/qrnic_hw.h" "$repo/$QEMU_HW_HEADER"
	commit "$repo" <<-'EOF'
	standard-headers: Import the qrnic hardware interface from Linux

	drivers/infiniband/hw/qrnic/qrnic_hw.h is the qrnic device's register,
	command, queue and work request layout, shared by the Linux driver, the
	rdma-core provider and the device model (patch 2), as pvrdma's
	pvrdma_dev_api.h was. It uses fixed-width C types only, so it is
	imported as it is.
	EOF

	qemu_device_files "$repo"
	# The Kconfig entry is qemu-device/build.sh's graft() one.
	printf '\nconfig QRNIC\n    bool\n    default y if PCI_DEVICES\n    depends on PCI_EXPRESS && MSI_NONBROKEN\n' \
		>> "$repo/hw/net/Kconfig"
	insert_after "$repo/hw/net/meson.build" "^subdir\('can'\)$" "subdir('qrnic')"
	insert_after "$repo/meson.build" "^ +'hw/net/can',$" "    'hw/net/qrnic',"
	grep -qE "^    'hw/net/can',$" "$repo/meson.build" || die "meson.build: 'hw/net/can' is not indented by 4"
	maintainers_entry "$repo/MAINTAINERS" igb <<-EOF
	$QEMU_MAINTAINERS
	M: $AUTHOR_NAME <$AUTHOR_EMAIL>
	S: Maintained
	F: hw/net/qrnic/
	EOF
	commit "$repo" <<-'EOF'
	hw/net: Add the qrnic RoCEv2 RDMA NIC

	qrnic is an emulated PCI Express RDMA NIC. One function carries both
	Ethernet and RDMA, like a production RoCE NIC, and the device speaks
	RoCEv2 (UDP port 4791, with ICRC) itself on any netdev: RDMA software
	runs and can be tested in guests without RDMA hardware, and without
	proxying to an adapter of the host as pvrdma did. Guests running Linux's
	software RoCE (rdma_rxe) are its interoperability reference.

	It has RC queue pairs (every opcode: SEND, RDMA WRITE and READ, atomics,
	with immediate and inline data), UC, UD and the GSI QP, shared receive
	queues, UD multicast, CQ resize, memory windows, fast registration,
	RDMA FLUSH and ATOMIC WRITE.

	The engine in hw/net/qrnic/engine/ is plain C without QEMU headers;
	the hardware interface is the Linux driver's qrnic_hw.h, imported by
	patch 1. The files in hw/net/qrnic/ are the
	glue: the PCI function (three 64-bit BARs: registers with MSI-X, doorbell
	pages, RAM-backed queue memory), DMA, MSI-X, the netdev, a virtual clock
	timer and bottom halves, all created with the device's re-entrancy
	guard. Properties bound what one guest user context may hold; x-*
	properties inject faults (drop, duplicate, reorder, corrupt) and tune
	work scheduling.

	Usage:
	  -device pcie-root-port,id=rp0 -netdev user,id=n0
	  -device qrnic,bus=rp0,netdev=n0
	EOF

	mkdir -p "$repo/docs/system/devices"
	cp "$rst" "$repo/docs/system/devices/qrnic.rst"
	insert_after "$repo/docs/system/device-emulation.rst" '^   devices/nvme\.rst$' '   devices/qrnic.rst'
	maintainers_file "$repo/MAINTAINERS" "$QEMU_MAINTAINERS" "F: docs/system/devices/qrnic.rst"
	commit "$repo" <<-'EOF'
	docs/system: Document the qrnic device

	How to use the qrnic RDMA NIC, its properties, the guest software it
	needs, an outline of its hardware interface, tracing and its qtest.
	EOF

	cp "$qtest" "$repo/tests/qtest/qrnic-test.c"
	qemu_hw_include "$repo/tests/qtest/qrnic-test.c" '"hw/net/qrnic/engine/qrnic_hw.h"'
	# As qemu-device/build.sh's sync_sources() registers it.
	insert_before "$repo/tests/qtest/meson.build" "'CONFIG_RTL8139_PCI'\) \? \['rtl8139-test'\]" \
		"  (config_all_devices.has_key('CONFIG_QRNIC') ? ['qrnic-test'] : []) +                      \\"
	maintainers_file "$repo/MAINTAINERS" "$QEMU_MAINTAINERS" "F: tests/qtest/qrnic-test.c"
	commit "$repo" <<-'EOF'
	tests/qtest: Add a qtest for the qrnic device

	Checks the PCI identity, the BARs' sizes and types and the capabilities
	in config space, the BAR0 registers, the reset and enable handshake
	(and its failure with a bad admin queue depth), and admin commands
	through the admin queue in guest RAM: QUERY_DEVICE, commands refused
	with BAD_OPCODE, BAD_PARAM and BAD_HANDLE, and more commands than the
	ring holds.
	EOF

	write_series "$repo" qemu PATCH <<-EOF
	hw/net: the qrnic RoCEv2 RDMA NIC

	qrnic is an emulated PCI Express RDMA NIC that speaks RoCEv2 itself on
	any netdev, so RDMA software runs in guests without RDMA hardware. The
	Linux driver (drivers/infiniband/hw/qrnic) and the rdma-core provider
	(providers/qrnic) are posted to their projects.

	Patch 1 imports the hardware interface header the Linux driver defines,
	patch 2 adds the device, patch 3 its documentation, patch 4 a qtest.
	Against QEMU $(basename "$src" | sed 's/^qemu_//; s/+ds$//').
	EOF
}

# ---- Linux --------------------------------------------------------------------------
LINUX_MAINTAINERS="QRNIC EMULATED ROCE NIC DRIVER"

# The in-tree Makefile is driver/Kbuild with the out-of-tree lines
# changed: no -I of the project's include/ (the headers sit beside the
# sources or in include/uapi) nor -Werror (CONFIG_WERROR), and obj-m
# becomes the Kconfig symbol. The feature probes stay: they read
# $(srctree)/include, which in-tree is the tree itself.
linux_makefile() {
	local kbuild=$top/driver/Kbuild
	grep -qx 'ccflags-y := -I$(QRNIC_INCLUDE) -Werror' "$kbuild" &&
		grep -qx 'obj-m := qrnic.o' "$kbuild" ||
		die "driver/Kbuild: its ccflags-y := or obj-m := line changed; update linux_makefile()"
	sed -e '/^ccflags-y := -I$(QRNIC_INCLUDE) -Werror$/d' \
	    -e 's/^obj-m := qrnic\.o$/obj-$(CONFIG_INFINIBAND_QRNIC) += qrnic.o/' "$kbuild" | cat -s
}

# In-tree include paths: the uapi header is <rdma/qrnic-abi.h>, the
# hardware header sits beside the sources ("qrnic_hw.h").  Out of tree
# both come from the project's include/ (-I$(QRNIC_INCLUDE)).
linux_rewrite_includes() {
	local f
	for f in "$@"; do
		sed -i -e 's|^#include <qrnic-abi\.h>$|#include <rdma/qrnic-abi.h>|' \
		       -e 's|^#include <qrnic_hw\.h>$|#include "qrnic_hw.h"|' "$f"
	done
	if grep -n '#include <qrnic' "$@"; then
		die "driver sources include a project header in a way linux_rewrite_includes() does not know"
	fi
}

generate_linux() {
	local src repo=$work/linux d f
	src=$(pristine_linux)
	start_repo "$repo" "$src" drivers/infiniband/Kconfig drivers/infiniband/hw/Makefile MAINTAINERS

	mkdir -p "$repo/include/uapi/rdma"
	cp "$top/include/qrnic-abi.h" "$repo/include/uapi/rdma/qrnic-abi.h"
	maintainers_entry "$repo/MAINTAINERS" "QORIQ DPAA2 FSL-MC BUS DRIVER" <<-EOF
	$LINUX_MAINTAINERS
	M:	$AUTHOR_NAME <$AUTHOR_EMAIL>
	L:	linux-rdma@vger.kernel.org
	S:	Maintained
	F:	include/uapi/rdma/qrnic-abi.h
	EOF
	commit "$repo" <<-'EOF'
	RDMA/qrnic: Add the user verbs ABI header

	The udata of the uverbs commands between the qrnic driver and its
	rdma-core provider: the context's doorbell page and limits, the CQ
	buffer the provider allocates, the queue memory slices of QPs and
	SRQs and their mmap keys. WQE, CQE and doorbell layouts are the
	hardware's and are not part of this ABI.
	EOF

	d=$repo/drivers/infiniband/hw/qrnic
	mkdir -p "$d"
	for f in "$top"/driver/*.c "$top"/driver/*.h; do
		cp "$f" "$d/"
	done
	cp "$top/include/qrnic_hw.h" "$d/qrnic_hw.h"
	linux_rewrite_includes "$d"/*.c "$d"/*.h
	linux_makefile > "$d/Makefile"
	cat > "$d/Kconfig" <<'EOF'
# SPDX-License-Identifier: GPL-2.0-only
config INFINIBAND_QRNIC
	tristate "QEMU qrnic emulated RoCEv2 NIC support"
	depends on PCI && PCI_MSI && INET && 64BIT
	depends on INFINIBAND_USER_ACCESS
	help
	  This is the driver for qrnic, the RoCEv2 RDMA NIC that QEMU
	  emulates (-device qrnic, PCI ID 1b36:0130). One PCI function
	  carries an Ethernet interface and an RDMA device linked to
	  it, so RDMA software runs in virtual machines without RDMA
	  hardware. User space verbs need rdma-core's qrnic provider.

	  To compile this driver as a module, choose M here. The
	  module will be called qrnic.
EOF
	insert_after "$repo/drivers/infiniband/Kconfig" '^source "drivers/infiniband/hw/qedr/Kconfig"$' \
		'source "drivers/infiniband/hw/qrnic/Kconfig"'
	printf 'obj-$(CONFIG_INFINIBAND_QRNIC)\t\t+= qrnic/\n' >> "$repo/drivers/infiniband/hw/Makefile"
	maintainers_file "$repo/MAINTAINERS" "$LINUX_MAINTAINERS" "F:	drivers/infiniband/hw/qrnic/"
	commit "$repo" <<-'EOF'
	RDMA/qrnic: Add a driver for the qrnic emulated RoCEv2 NIC

	qrnic is an RDMA NIC that QEMU emulates (-device qrnic, 1b36:0130): a
	PCI Express function with one Ethernet port that speaks RoCEv2 itself,
	so RDMA software runs and can be tested in virtual machines without
	RDMA hardware.

	The driver registers a net_device (NAPI on the device's Ethernet rings)
	and an ib_device linked to it with ib_device_set_netdev(), so the GID
	table follows the interface's addresses. Everything else goes through
	the device's admin queue: event queues, CQs (user buffers pinned, or
	coherent kernel buffers), PDs, MRs with page lists, memory windows, RC,
	UC, UD and GSI QPs with their rings in the BAR4 queue memory, SRQs and
	multicast groups. The kernel data path posts WQEs and polls CQEs
	itself; user space maps its context's doorbell page and its queues.
	Supports fast registration, RDMA FLUSH and ATOMIC WRITE, and hardware
	counters.

	qrnic_hw.h is the hardware interface, the one definition the QEMU device
	model, this driver and the rdma-core provider share.
	EOF

	write_series "$repo" linux "PATCH for-next" <<-EOF
	RDMA/qrnic: a driver for the qrnic emulated RoCEv2 NIC

	qrnic is an RDMA NIC that QEMU emulates (hw/net/qrnic, posted to QEMU):
	it speaks RoCEv2 itself on any QEMU netdev, so RDMA software and ULPs
	(NVMe over RDMA, NFS over RDMA, rdma_cm applications) run between
	virtual machines without RDMA hardware. The rdma-core provider is
	posted to rdma-core.

	Patch 1 adds the uverbs ABI header, patch 2 the driver.
	Against Linux $(sed -n 's/^VERSION = //p' "$src/Makefile").$(sed -n 's/^PATCHLEVEL = //p' "$src/Makefile").$(sed -n 's/^SUBLEVEL = //p' "$src/Makefile").
	EOF
}

# ---- rdma-core ----------------------------------------------------------------------
RDMA_CORE_MAINTAINERS="QRNIC USERSPACE PROVIDER (for qrnic.ko)"

generate_rdma_core() {
	local src repo=$work/rdma-core d f year
	src=$(pristine_rdma_core)
	start_repo "$repo" "$src" CMakeLists.txt kernel-headers/CMakeLists.txt MAINTAINERS README.md \
		debian/control debian/copyright redhat/rdma-core.spec suse/rdma-core.spec

	mkdir -p "$repo/kernel-headers/rdma"
	cp "$top/include/qrnic-abi.h" "$repo/kernel-headers/rdma/qrnic-abi.h"
	# Both lists: the headers published for the build and those turned
	# into kernel-abi/ wrappers.
	insert_after "$repo/kernel-headers/CMakeLists.txt" '^  rdma/qedr-abi\.h$' '  rdma/qrnic-abi.h' 2
	commit "$repo" <<-'EOF'
	kernel-headers: Add the qrnic ABI header

	From the qrnic driver's include/uapi/rdma/qrnic-abi.h, posted to Linux.
	EOF

	d=$repo/providers/qrnic
	mkdir -p "$d"
	for f in "$top"/provider/*.c "$top"/provider/*.h "$top/provider/CMakeLists.txt"; do
		cp "$f" "$d/"
	done
	cp "$top/include/qrnic_hw.h" "$d/qrnic_hw.h"
	insert_after "$repo/CMakeLists.txt" '^add_subdirectory\(providers/qedr\)$' 'add_subdirectory(providers/qrnic)'
	insert_after "$repo/debian/control" '^  - qedr: ' '  - qrnic: QEMU qrnic emulated RoCEv2 NIC'
	insert_after "$repo/redhat/rdma-core.spec" '^- libqedr: ' '- libqrnic: QEMU qrnic emulated RoCEv2 NIC'
	insert_after "$repo/suse/rdma-core.spec" '^- libqedr: ' '- libqrnic: QEMU qrnic emulated RoCEv2 NIC'
	insert_after "$repo/README.md" '^ - qedr\.ko$' ' - qrnic.ko'
	year=${series_date:0:4}
	insert_before "$repo/debian/copyright" '^Files: providers/rxe/\*$' "Files: providers/qrnic/*
Copyright: $year, $AUTHOR_NAME
License: BSD-MIT or GPL-2

Files: providers/qrnic/qrnic_hw.h
Copyright: $year, $AUTHOR_NAME
License: BSD-2-clause or GPL-2
"
	maintainers_entry "$repo/MAINTAINERS" "QEDR USERSPACE PROVIDER (for qedr.ko)" <<-EOF
	$RDMA_CORE_MAINTAINERS
	M:	$AUTHOR_NAME <$AUTHOR_EMAIL>
	S:	Maintained
	F:	providers/qrnic/
	EOF
	commit "$repo" <<-'EOF'
	providers/qrnic: Add a provider for the qrnic emulated RoCEv2 NIC

	qrnic is an RDMA NIC that QEMU emulates (-device qrnic), driven by
	qrnic.ko (drivers/infiniband/hw/qrnic). The provider posts WQEs to
	the queue memory the kernel maps, rings the context's doorbell page
	and polls CQs in buffers it allocates itself: RC, UC and UD QPs,
	SRQs, memory windows, the extended post and CQ APIs, parent and
	thread domains.

	qrnic_hw.h is the hardware interface the QEMU device model, the
	driver and this provider share.
	EOF

	write_series "$repo" rdma-core "PATCH rdma-core" <<-EOF
	providers/qrnic: the qrnic emulated RoCEv2 NIC

	qrnic is an RDMA NIC that QEMU emulates, so RDMA software runs in
	virtual machines without RDMA hardware; its kernel driver is
	drivers/infiniband/hw/qrnic. Patch 1 adds its kernel ABI header,
	patch 2 the provider and its packaging lines.
	Against rdma-core $RDMA_CORE_VERSION.
	EOF
}

generate() {
	local stack
	series_date=$(git -C "$top" log -1 --format=%cI HEAD 2>/dev/null) ||
		die "the project's HEAD commit gives the series' date: is $top a git work tree?"
	signature="qrnic $(git -C "$top" describe --always --dirty 2>/dev/null), tools/make-patches.sh"
	work=$(mktemp -d "${TMPDIR:-/tmp}/make-patches.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	# Every pristine tree first: a missing one fails before any series.
	pristine_qemu > /dev/null
	pristine_rdma_core > /dev/null
	pristine_linux > /dev/null
	mkdir -p "$out"
	for stack in qemu linux rdma-core; do
		"generate_${stack//-/_}"
	done
	rm -rf "$work"
	trap - EXIT
}

# ---- applied trees --------------------------------------------------------------------
series_patches() {
	local p found=
	for p in "$out/$1"/0*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		[ -f "$p" ] || continue
		echo "$p"
		found=1
	done
	[ -n "$found" ] || die "no ${out#"$top"/}/$1 series: run tools/make-patches.sh"
}

tree_dir() { echo "$trees/$1-$(stack_version "$1")"; }

# fresh_tree STACK: the pristine tree, hard-linked (git apply writes new
# files, so the pristine tree is never written through a link), then each
# patch checked and applied.
fresh_tree() {
	local stack=$1 pristine dir p
	pristine=$(pristine "$stack")
	dir=$(tree_dir "$stack")/src
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	cp -al "$pristine" "$dir"
	while read -r p; do
		# The ceiling keeps git from taking the project's repository for
		# the tree's: it would then skip every path outside build/.
		(cd "$dir" && GIT_CEILING_DIRECTORIES=$(dirname "$dir") git_clean apply --check "$p") ||
			die "${p#"$top"/} does not apply to a fresh $stack tree (git apply --check)"
		(cd "$dir" && GIT_CEILING_DIRECTORIES=$(dirname "$dir") git_clean apply "$p") ||
			die "${p#"$top"/} failed to apply"
	done < <(series_patches "$stack")
	echo "$dir"
}

# ---- builds -----------------------------------------------------------------------------
# The Linux build tree: Debian's config with CONFIG_INFINIBAND_QRNIC=m,
# olddefconfig, modules_prepare, Debian's Module.symvers (modpost then
# checks every symbol the module uses against the real kernel's).  Redone
# when its inputs change; the host tools' build dependencies are installed
# in a scratch overlay of the kbuild root (kbuild-root.sh -t), dropped
# afterwards: only their results, in obj/, stay.
prepare_linux_obj() {
	local dir=$1 root headers stamp key
	root=$("$top/vm-images/kbuild-root.sh" "$LINUX_KVER")
	headers=/usr/src/linux-headers-$LINUX_KVER
	[ -f "$root$headers/.config" ] || die "no $headers/.config in the kbuild root $root"
	stamp=$dir/obj/.qrnic-prepared
	key=$( { cat "$root$headers/.config" "$dir/src/drivers/infiniband/Kconfig" \
		"$dir/src/drivers/infiniband/hw/qrnic/Kconfig"; declare -f prepare_linux_obj; } |
		sha256sum | cut -c1-16)
	[ "$(cat "$stamp" 2>/dev/null)" = "$key" ] && return 0
	say "linux: configuring and preparing $dir/obj (olddefconfig, modules_prepare; a few minutes the first time)"
	mkdir -p "$dir/obj"
	rm -f "$stamp"
	cp "$root$headers/.config" "$dir/obj/.config"
	echo CONFIG_INFINIBAND_QRNIC=m >> "$dir/obj/.config"
	cp "$root$headers/Module.symvers" "$dir/obj/Module.symvers"
	nice -n 5 "$top/vm-images/kbuild-root.sh" -t "$LINUX_KVER" /bin/sh -ec '
		dir=$1 cc=$2 jobs=$3
		apt-get -q update > "$dir/obj/apt.log" 2>&1
		DEBIAN_FRONTEND=noninteractive apt-get -qy install --no-install-recommends \
			flex bison bc libelf-dev libssl-dev python3 >> "$dir/obj/apt.log" 2>&1
		make -C "$dir/src" O="$dir/obj" CC="$cc" HOSTCC="$cc" olddefconfig
		make -C "$dir/src" O="$dir/obj" CC="$cc" HOSTCC="$cc" -j"$jobs" modules_prepare
	' sh "$dir" "$LINUX_CC" "$jobs" > "$dir/prepare.log" 2>&1 ||
		die "preparing the Linux build tree failed, see ${dir#"$top"/}/prepare.log (and obj/apt.log)"
	grep -qx 'CONFIG_INFINIBAND_QRNIC=m' "$dir/obj/.config" ||
		die "olddefconfig dropped CONFIG_INFINIBAND_QRNIC=m: its Kconfig dependencies are not met by Debian's config"
	echo "$key" > "$stamp"
}

build_linux() {
	local dir
	dir=$(tree_dir linux)
	[ -f "$dir/src/drivers/infiniband/hw/qrnic/Kconfig" ] ||
		die "no applied Linux tree in $dir/src: run tools/make-patches.sh tree linux"
	prepare_linux_obj "$dir"
	nice -n 5 "$top/vm-images/kbuild-root.sh" -r "$LINUX_KVER" \
		make -C "$dir/obj" CC="$LINUX_CC" HOSTCC="$LINUX_CC" -j"$jobs" \
		M="$dir/src/drivers/infiniband/hw/qrnic" modules > "$dir/build.log" 2>&1 ||
		{ tail -n 30 "$dir/build.log" >&2; die "the in-tree qrnic.ko build failed, see ${dir#"$top"/}/build.log"; }
	echo "$dir/src/drivers/infiniband/hw/qrnic/qrnic.ko"
}

# As provider/build.sh configures rdma-core on this host.
mapfile -t RDMA_CORE_CMAKE_ARGS < "$top/provider/rdma-core-cmake-args"

build_rdma_core() {
	local dir bld pabi
	dir=$(tree_dir rdma-core)
	bld=$dir/build
	[ -f "$dir/src/providers/qrnic/CMakeLists.txt" ] ||
		die "no applied rdma-core tree in $dir/src: run tools/make-patches.sh tree rdma-core"
	pabi=$("$top/provider/tree-version" "$dir/src/CMakeLists.txt" IBVERBS_PABI_VERSION) ||
		die "no provider ABI version"
	if [ ! -f "$bld/build.ninja" ] || [ "$(cat "$bld/qrnic-cmake-args" 2>/dev/null)" != "${RDMA_CORE_CMAKE_ARGS[*]}" ]; then
		say "rdma-core: configuring $bld"
		rm -rf "$bld"
		mkdir -p "$bld"
		(cd "$bld" && cmake "${RDMA_CORE_CMAKE_ARGS[@]}" "$dir/src") > "$dir/cmake.log" 2>&1 ||
			{ rm -f "$bld/build.ninja"; die "cmake failed, see ${dir#"$top"/}/cmake.log"; }
		echo "${RDMA_CORE_CMAKE_ARGS[*]}" > "$bld/qrnic-cmake-args"
	fi
	nice -n 5 ninja -C "$bld" -j"$jobs" "qrnic-rdmav$pabi" > "$dir/build.log" 2>&1 ||
		{ tail -n 30 "$dir/build.log" >&2; die "building libqrnic in the patched rdma-core failed, see ${dir#"$top"/}/build.log"; }
	echo "$bld/lib/libqrnic-rdmav$pabi.so"
}

# The qtest, built in the compat QEMU tree (qemu-device/build.sh grafts
# it there with the device), under build.sh's lock for that tree.
build_qemu() {
	local bld
	"$top/qemu-device/build.sh" "$QEMU_VERSION" >&2
	bld=$(readlink -f "$top/build/compat/qemu-$QEMU_VERSION") ||
		die "no build/compat/qemu-$QEMU_VERSION"
	flock "$cache/qemu-$QEMU_VERSION-build.lock" \
		nice -n 5 ninja -C "$bld" -j"$jobs" tests/qtest/qrnic-test > "$bld/qrnic-test-build.log" 2>&1 ||
		{ tail -n 30 "$bld/qrnic-test-build.log" >&2; die "building tests/qtest/qrnic-test failed"; }
	echo "$bld/tests/qtest/qrnic-test"
}

# ---- main ---------------------------------------------------------------------------------
cmd=${1:-generate}
mkdir -p "$top/build"
# One run at a time: the series and the trees are shared.
exec 7>"$top/build/.make-patches.lock"
flock -n 7 || { say "waiting for another make-patches run"; flock 7; }
case $cmd in
generate)
	[ $# -le 1 ] || die "usage: tools/make-patches.sh generate"
	generate
	;;
pristine)
	[ $# -eq 2 ] || die "usage: tools/make-patches.sh pristine qemu|linux|rdma-core"
	pristine "$2"
	;;
tree)
	[ $# -eq 2 ] || die "usage: tools/make-patches.sh tree qemu|linux|rdma-core"
	fresh_tree "$2"
	;;
build)
	[ $# -eq 2 ] || die "usage: tools/make-patches.sh build qemu|linux|rdma-core"
	case $2 in
	qemu) build_qemu ;;
	linux) build_linux ;;
	rdma-core) build_rdma_core ;;
	*) die "unknown stack '$2' (qemu, linux or rdma-core)" ;;
	esac
	;;
prepare)
	[ $# -eq 1 ] || die "usage: tools/make-patches.sh prepare"
	echo "== the patch series (build/patches/) and their build trees (build/patches-trees/)"
	generate
	for stack in linux rdma-core; do
		fresh_tree "$stack" > /dev/null
		"build_${stack//-/_}" > /dev/null
	done
	build_qemu > /dev/null
	say "ok: series in ${out#"$top"/}, build trees in ${trees#"$top"/}"
	;;
*)	die "unknown command '$cmd' (generate, pristine STACK, tree STACK, build STACK, prepare)" ;;
esac
