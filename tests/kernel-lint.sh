#!/bin/bash
# The kernel code (driver/, tests/kmod/) against every guest kernel: built
# with -Werror and sparse (make C=2: every file checked) for 6.12, 6.1 and
# 7.3, each with the compiler its kernel was built with; then the newest
# kernel's checkpatch.pl --strict on every file and on include/qrnic_hw.h
# (less what a header shared with QEMU and user space must keep, below).
# Any warning fails.
# Scratch output in build/lint/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/lint
mkdir -p "$out"
rc=0

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; rc=1; }

# lint_build WHAT KVER LOG MAKE-ARGS...: a C=2 build; no warning or error.
lint_build() {
	local what=$1 kver=$2 log=$3 n
	shift 3
	if ! make --no-print-directory "$@" C=2 > "$log" 2>&1; then
		fail "$what for $kver: builds with -Werror (see $log)"
		tail -n 20 "$log" | sed 's/^/    /'
		return
	fi
	n=$(grep -cE 'warning:|error:' "$log")
	if [ "$n" -eq 0 ] && grep -qE '^ *CHECK|sparse ' "$log"; then
		pass "$what for $kver: builds with -Werror, sparse checked $(grep -cE '^ *CHECK |^ *sparse ' "$log") files, no warning"
	else
		fail "$what for $kver: $n sparse warning(s) (or sparse did not run)"
		grep -E 'warning:|error:' "$log" | head -n 20 | sed 's/^/    /'
	fi
}

# What Kbuild's probes (driver/Kbuild) must find in each kernel's headers:
# a probe that stops matching (a header reworded) fails here, not in a
# guest.
declare -A features=(
	[6.1]=""
	[6.12]="QRNIC_CREATE_CQ_ATTRS QRNIC_HAS_FLUSH"
	[7.3]="QRNIC_CREATE_CQ_ATTRS QRNIC_HAS_FLUSH QRNIC_REG_USER_MR_DMAH QRNIC_RESIZE_USER_CQ QRNIC_UMEM_GET_VA"
)

for series in 6.12 6.1 7.3; do
	kver=$(vm-images/kver "$series")
	lint_build qrnic.ko "$kver" "$out/driver-$kver.log" \
		-C driver KVER="$kver" OUT="$top/$out/driver" V=1
	found=$(grep -o -- '-DQRNIC_[A-Z_]*' "$out/driver-$kver.log" | sed 's/^-D//' |
		sort -u | tr '\n' ' ')
	want=$(printf '%s\n' ${features[$series]} | sed '/^$/d' | sort -u | tr '\n' ' ')
	if [ "$found" = "$want" ]; then
		pass "driver/Kbuild probes of $kver's headers: ${found:-none}"
	else
		fail "driver/Kbuild probes of $kver's headers: found '${found}', want '${want}'"
	fi
	lint_build "kernel test modules" "$kver" "$out/kmod-$kver.log" \
		-C tests/kmod KVER="$kver" BLD="$top/$out/kmod/$kver"
done

src=$(vm-images/linux-source.sh 7.3) || { fail "no Linux 7.3 source for checkpatch.pl"; exit 1; }
# checkpatch FILES-WHAT LOG [OPTION...] -- FILE...: nothing may be reported.
checkpatch() {
	local what=$1 log=$2 n
	shift 2
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	"$src/scripts/checkpatch.pl" --strict --no-tree --terse --show-types "${opts[@]}" -f "$@" > "$log" 2>&1
	n=$(grep -cE ': (ERROR|WARNING|CHECK):' "$log")
	if [ "$n" -eq 0 ]; then
		pass "checkpatch.pl --strict (Linux 7.3): $what: $# files, nothing reported"
	else
		fail "checkpatch.pl --strict (Linux 7.3): $what: $n report(s)"
		grep -E ': (ERROR|WARNING|CHECK):' "$log" | head -n 20 | sed 's/^/    /'
	fi
}
checkpatch driver "$out/checkpatch.log" -- driver/*.[ch] tests/kmod/*.[ch]
# The hardware interface is also compiled by QEMU and the provider: it
# keeps fixed-width types and (1u << n) (no u8 or BIT() outside the
# kernel), _Static_assert, and X-macro lists (a row list is no
# parenthesised value, repeats X, and a row's expander may use only some
# of the row).  Everything else is checked as for the driver.
checkpatch "shared header" "$out/checkpatch-hw.log" \
	--ignore PREFER_KERNEL_TYPES,BIT_MACRO,CAMELCASE,COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED \
	-- include/qrnic_hw.h
exit $rc
