#!/bin/sh
# rdma-core's own test suite (pyverbs; trixie's python3-pyverbs, kept in the
# image at /usr/share/doc/rdma-core/tests) on this guest's RDMA device: every
# module (test_*.py) in a python process of its own, with a time limit; every
# test runs both of its ends on this one device.  Per test: passed, failed,
# error or skipped, parsed from unittest's -v output (tests/vm/lib/
# pyverbs-results.py); results in $QRNIC_SHARE/pyverbs-IDX/ (MODULE.out, the
# raw output; MODULE.res, one line per test).
#
#   run-vms qrnic virtio -- pyverbs.sh [-t SECONDS] [MODULE...]   (make pyverbs)
#
# -t: the limit per module (default 300 s).  A qrnic guest prints "ok" per
# module whose python did not die by a signal or time out ("not ok"
# otherwise); an rxe guest only notes its crashes (the reference: rxe crashes
# Python in test_flow and test_parent_domain).  With two or more guests,
# guest 0 waits for guest 1 and compares: both totals, a line per module, the
# tests that pass on guest 1 (rxe) but not on guest 0 (qrnic); that check
# fails if there is any.  A qrnic guest must also pass every XRC test (rxe
# has no XRC to compare with).
. "$(dirname "$0")/lib.sh"

results=$(cd "$(dirname "$0")" && pwd)/lib/pyverbs-results.py
suite=/usr/share/doc/rdma-core/tests
tmo=300
if [ "${1:-}" = -t ]; then tmo=$2; shift 2; fi
case "$QRNIC_NIC" in virtio) name=rxe ;; *) name=$QRNIC_NIC ;; esac
dir=$QRNIC_SHARE/pyverbs-$QRNIC_IDX
rm -rf "$dir"
mkdir -p "$dir"
echo "$name $QRNIC_IBDEV" > "$dir/nic"
echo "# pyverbs: $name guest $QRNIC_IDX ($QRNIC_IBDEV on $QRNIC_IFNAME), kernel $QRNIC_KVER, $tmo s per module"

done_file() { : > "$QRNIC_SHARE/pyverbs-done-$QRNIC_IDX"; }

if [ ! -f "$suite/run_tests.py" ]; then
	fail "pyverbs: no rdma-core test suite in $suite (image without python3-pyverbs?)"
	done_file; finish
fi
if ! rdma_gid; then done_file; finish; fi
# A few 2 MiB huge pages (8 MiB of the guest's memory): test_parent_domain's
# huge page allocator and test_odp's huge page tests skip without them.
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ -w "$hp" ]; then echo 4 > "$hp" 2>/dev/null; fi
echo "# pyverbs: $(cat "$hp" 2>/dev/null || echo no) 2 MiB huge pages"

mods=${*:-$(cd "$suite" && ls test_*.py | sed 's/\.py$//')}
cd "$suite" || exit 1
start=$(date +%s)
# Every test's name, so that tests a crash or a time limit kept from running
# still count (as errors).
timeout "$tmo" python3 run_tests.py --dev "$QRNIC_IBDEV" --gid "$gid" --list-tests \
	> "$dir/tests.list" 2> "$dir/tests.list.err"
grep -q '^tests\.' "$dir/tests.list" ||
	echo "# pyverbs: --list-tests listed nothing (see $dir/tests.list.err); counting tests from the output only"
echo "# pyverbs: $(grep -c '^tests\.' "$dir/tests.list") tests listed in $(($(date +%s) - start)) s"

for mod in $mods; do
	t0=$(date +%s)
	# -X faulthandler: a crash prints the Python stack (the test) first.
	timeout -k 10 "$tmo" python3 -X faulthandler run_tests.py --dev "$QRNIC_IBDEV" \
		--gid "$gid" -v "$mod" > "$dir/$mod.out" 2>&1
	rc=$?
	secs=$(($(date +%s) - t0))
	echo "$rc $secs $tmo" > "$dir/$mod.rc"
	# MODULE P F E S T HOW
	set -- $(python3 "$results" parse "$dir" "$mod")
	if [ $# -ne 7 ]; then
		fail "pyverbs $QRNIC_IBDEV $mod: cannot parse its results (status $rc)"
		continue
	fi
	line="$mod: $2 passed, $3 failed, $4 errors, $5 skipped of $6 in $secs s"
	case "$7" in
	exit-*) crash= ;;
	timeout) crash="timed out after $tmo s" ;;
	signal-*) crash="python died by signal ${7#signal-} (SIG$(kill -l "${7#signal-}" 2>/dev/null))" ;;
	*) crash="no exit status" ;;
	esac
	if [ -n "$crash" ]; then
		# Where: after unittest's summary (at exit), or the test that was
		# running (faulthandler's stack, else the last test started).
		if grep -q '^Ran [0-9]* tests\? in ' "$dir/$mod.out"; then
			at="at exit, after its tests"
			grep -q '^  Garbage-collecting' "$dir/$mod.out" && at="$at (garbage collection)"
		else
			at=$(grep -E '^ +File ".*/tests/test_[a-z0-9_]+\.py", line [0-9]+ in test' "$dir/$mod.out" |
				tail -n 1 | sed -E 's/.*\/(test_[a-z0-9_]+\.py)", line ([0-9]+) in (.*)/in \1:\2 \3/')
			[ -n "$at" ] || at=$(grep -E '^ *test[a-z0-9_]* \(tests\.' "$dir/$mod.out" | tail -n 1 |
				sed 's/ \.\.\..*//; s/^ */in /')
		fi
		crash="$crash${at:+ $at}"
	fi
	if [ "$QRNIC_NIC" = qrnic ]; then
		if [ -z "$crash" ]; then pass "pyverbs $QRNIC_IBDEV $line"
		else fail "pyverbs $QRNIC_IBDEV $line: $crash"; fi
	else
		echo "# pyverbs $QRNIC_IBDEV $line${crash:+: $crash (reference NIC: not counted)}"
	fi
done
echo "# pyverbs: $name: all modules in $(($(date +%s) - start)) s"
if [ "$QRNIC_NIC" = qrnic ]; then
	# rxe has no XRC, so the comparison below cannot ask for these;
	# test_odp's XRC test needs ODP, which qrnic has not.
	out=/tmp/pyverbs-require.$$
	python3 "$results" require "$dir" "$name" '\.test_(?!odp)\w*xrc\w*$' XRC > "$out" 2>&1
	tap_result "pyverbs: XRC tests" $? "$out"
	rm -f "$out"
fi
done_file

if [ "$QRNIC_IDX" = 0 ] && [ "$QRNIC_NGUESTS" -ge 2 ]; then
	# Guest 1 may be far slower (rxe works on the guest's own emulated CPU).
	if wait_for pyverbs-done-1 "${PYVERBS_WAIT:-36000}"; then
		read -r name1 _ < "$QRNIC_SHARE/pyverbs-1/nic"
		[ "$name1" = "$name" ] && name1="$name1(g1)"
		out=/tmp/pyverbs-compare.$$
		python3 "$results" compare "$dir" "$name" "$QRNIC_SHARE/pyverbs-1" "$name1" > "$out" 2>&1
		tap_result "pyverbs: comparison with guest 1" $? "$out"
		rm -f "$out"
	else
		fail "pyverbs: guest 1 did not finish"
	fi
fi
finish
