#!/bin/bash
# Fuzz the qrnic device with QEMU's own libFuzzer harness, generic-fuzz.
#
#   tests/fuzz/qemu-generic-fuzz.sh            fuzz for FUZZ_SECONDS (make fuzz-qemu)
#   tests/fuzz/qemu-generic-fuzz.sh FILE...    replay inputs (e.g. a crash-* file)
#
# Builds qemu-fuzz-x86_64 (QRNIC_QEMU_FLAVOUR=fuzz qemu-device/build.sh:
# clang 14, --enable-fuzzing, ASan, UBSan, the qrnic graft) in the cache,
# installing clang, libclang-rt-14-dev and llvm-14 (llvm-symbolizer) first if
# they are missing, then runs --fuzz-target=generic-fuzz against -device
# qrnic: MMIO on every qrnic BAR (registers, MSI-X, doorbells and, through
# tests/fuzz/qemu-generic-fuzz-ram.patch, the RAM-backed queue memory), PCI
# config space, DMA answered from fuzzer patterns, and virtual clock steps.
#
# Environment:
#   FUZZ_SECONDS   total fuzzing time (60)
#   FUZZ_CONFIG    hub:  two qrnic NICs and a slirp (-netdev user) port on one
#                        hub, so a frame one sends is delivered synchronously to
#                        the other, whose answer comes back re-entrantly inside
#                        the sender's transmit; slirp answers ARP/IP (default)
#                  hub-buffered: the same with a filter-buffer on the second
#                        NIC's port, so frames cross on (virtual) timer ticks
#                        and never nest, as between two QEMUs
#                  user: one qrnic on -netdev user
#   FUZZ_MAX_CRASHES  after a crash libFuzzer stops; it is restarted on the
#                  same corpus until the time is spent or this many crashes
#                  were found (5)
#   FUZZ_FLAGS     extra libFuzzer flags (e.g. "-seed=1 -use_value_profile=1")
#   QEMU_FUZZ_ARGS / QEMU_FUZZ_OBJECTS override the configuration's.
#
# libFuzzer starts from the corpus of earlier runs and from seeds written by
# tests/fuzz/qemu-generic-fuzz-seeds.py (device bring-up, every admin
# command, Ethernet frames between the NICs, an RC connection with traffic).
#
# Output in build/fuzz-qemu/: corpus-<config>/ (kept between runs), seeds/,
# crashes/<config>-{crash,timeout,oom,leak}-<sha1> (reproducers),
# logs/<time>-<config>.log (libFuzzer's and ASan's output).  Exit status 1
# if this run found a crash, 2 if it could not run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/fuzz-qemu
fuzzer=$out/qemu/qemu-fuzz-x86_64
seconds=${FUZZ_SECONDS:-60}
config=${FUZZ_CONFIG:-hub}
max_crashes=${FUZZ_MAX_CRASHES:-5}

say() { echo "qemu-generic-fuzz: $*"; }
die() { echo "qemu-generic-fuzz: error: $*" >&2; exit 2; }

[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -gt 0 ] ||
	die "FUZZ_SECONDS must be a positive number of seconds, not '$seconds'"

# A replayed file's configuration comes from its name (<config>-crash-...).
if [ $# -gt 0 ] && [ -z "${FUZZ_CONFIG:-}" ]; then
	case ${1##*/} in
	user-*) config=user ;;
	hub-buffered-*) config=hub-buffered ;;
	esac
fi

# ---- configuration --------------------------------------------------------------
# Devices sit on pcie.0: generic-fuzz reaches config space only on bus 0.
# Small queue memory and few doorbell pages make random offsets land on
# live rings and doorbells more often.
qrnic_props=qmem-size=64K,db-pages=4
case $config in
hub)
	args="-M q35 -nodefaults"
	args+=" -netdev hubport,id=p0,hubid=0"
	args+=" -device qrnic,netdev=p0,mac=52:54:00:12:34:01,$qrnic_props"
	args+=" -netdev hubport,id=p1,hubid=0"
	args+=" -device qrnic,netdev=p1,mac=52:54:00:12:34:02,$qrnic_props"
	args+=" -netdev user,id=u0 -netdev hubport,id=p2,hubid=0,netdev=u0"
	;;
hub-buffered)
	args="-M q35 -nodefaults"
	args+=" -netdev hubport,id=p0,hubid=0"
	args+=" -device qrnic,netdev=p0,mac=52:54:00:12:34:01,$qrnic_props"
	args+=" -netdev hubport,id=p1,hubid=0"
	args+=" -object filter-buffer,id=fb1,netdev=p1,interval=100,queue=all"
	args+=" -device qrnic,netdev=p1,mac=52:54:00:12:34:02,$qrnic_props"
	args+=" -netdev user,id=u0 -netdev hubport,id=p2,hubid=0,netdev=u0"
	;;
user)
	args="-M q35 -nodefaults -netdev user,id=u0"
	args+=" -device qrnic,netdev=u0,mac=52:54:00:12:34:01,$qrnic_props"
	;;
*)	die "FUZZ_CONFIG must be hub, hub-buffered or user, not '$config'" ;;
esac
export QEMU_FUZZ_ARGS=${QEMU_FUZZ_ARGS:-$args}
# The qrnic devices (type match: every MemoryRegion they own, and their PCI
# config space) plus any region named qrnic-*.
export QEMU_FUZZ_OBJECTS=${QEMU_FUZZ_OBJECTS:-qrnic*}
export QEMU_FUZZ_RAM=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-14/bin/llvm-symbolizer}

# ---- build --------------------------------------------------------------------
need=()
for p in clang libclang-rt-14-dev llvm-14; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" ||
		{ apt-get update && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y --no-install-recommends "${need[@]}"; } ||
		die "could not install ${need[*]}"
fi

build_start=$SECONDS
QRNIC_QEMU_FLAVOUR=fuzz "$top/qemu-device/build.sh" || die "building qemu-fuzz-x86_64 failed"
build_secs=$((SECONDS - build_start))
[ -x "$fuzzer" ] || die "$fuzzer missing"

mkdir -p "$out/crashes" "$out/logs" "$out/corpus-$config"
# Seeds that bring the devices up and move traffic (see the generator).
rm -rf "$out/seeds"
python3 "$here/qemu-generic-fuzz-seeds.py" "$out/seeds" || die "seed generation failed"
run_env="QEMU_FUZZ_ARGS='$QEMU_FUZZ_ARGS' QEMU_FUZZ_OBJECTS='$QEMU_FUZZ_OBJECTS' QEMU_FUZZ_RAM=1 ASAN_OPTIONS=$ASAN_OPTIONS"

# ---- replay -------------------------------------------------------------------
if [ $# -gt 0 ]; then
	say "replaying $* (config $config)"
	echo "$run_env ${fuzzer#"$top"/} --fuzz-target=generic-fuzz $*"
	exec "$fuzzer" --fuzz-target=generic-fuzz "$@"
fi

# ---- fuzz ---------------------------------------------------------------------
stamp=$(date +%Y%m%d-%H%M%S)
log=$out/logs/$stamp-$config.log
: > "$log"
declare -A before=()
for f in "$out"/crashes/*; do [ -f "$f" ] && before[$f]=1; done

# shellcheck disable=SC2206
flags=(-timeout=20 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1
       -artifact_prefix="$out/crashes/$config-" ${FUZZ_FLAGS:-})
cmd="$run_env ${fuzzer#"$top"/} --fuzz-target=generic-fuzz -max_total_time=N ${flags[*]} build/fuzz-qemu/corpus-$config build/fuzz-qemu/seeds"
say "fuzzing for ${seconds}s: ${cmd//$out/build/fuzz-qemu}"
say "log: ${log#"$top"/}"

execs=0 runs=0 crashes=0 cov=0 ft=0 rate=0 report=()
part=$out/logs/.run
deadline=$((SECONDS + seconds))
fuzz_start=$SECONDS
while left=$((deadline - SECONDS)); [ "$left" -gt 0 ]; do
	runs=$((runs + 1))
	echo "==== run $runs: -max_total_time=$left" >> "$log"
	at=$(stat -c %s "$log")
	set +e
	"$fuzzer" --fuzz-target=generic-fuzz -max_total_time="$left" "${flags[@]}" \
		"$out/corpus-$config" "$out/seeds" >> "$log" 2>&1
	rc=$?
	set -e
	tail -c +$((at + 1)) "$log" > "$part"
	# Executions: the final stats, or after a crash the last status line.
	n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$part" | tail -1)
	[ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$part" | tail -1)
	execs=$((execs + ${n:-0}))
	last=$(grep -E '^#[0-9]+[[:space:]].* cov: ' "$part" | tail -1 || true)
	c=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	t=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	[ "${c:-0}" -gt "$cov" ] && cov=$c
	[ "${t:-0}" -gt "$ft" ] && ft=$t
	r=$(sed -n 's/^stat::average_exec_per_sec: *\([0-9]*\).*/\1/p' "$part" | tail -1)
	[ -n "$r" ] && rate=$r
	[ "$rc" -eq 0 ] && break	# the time is spent
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$part" | tail -1)
	if [ -z "$art" ]; then
		tail -20 "$part" >&2
		die "qemu-fuzz-x86_64 exited $rc without a crash report (see ${log#"$top"/})"
	fi
	crashes=$((crashes + 1))
	what=$(grep -m1 -E '^SUMMARY: |ERROR: libFuzzer: |==[0-9]+==ERROR: ' "$part" || true)
	top0=$(grep -m1 -E '^ *#0 ' "$part" | sed 's/^ *//' || true)
	mine=$(grep -m1 -E '^ *#[0-9]+ .*hw/net/qrnic/' "$part" | sed 's/^ *//' || true)
	report+=("${art#"$top"/}"
		"    ${what:-?}"
		"    top frame:   ${top0:-?}"
		"    qrnic frame: ${mine:-none (not in hw/net/qrnic/)}")
	[ "$crashes" -lt "$max_crashes" ] || break
done
rm -f "$part"
fuzz_secs=$((SECONDS - fuzz_start))
# libFuzzer's own average when one run took all the time, else the overall one.
if [ "$runs" -gt 1 ] || [ "$rate" -eq 0 ]; then
	rate=$((execs / (fuzz_secs > 0 ? fuzz_secs : 1)))
fi

# Coverage of hw/net/qrnic/ alone: replay the inputs with -print_coverage=1
# and add up the edges of every qrnic function.  The engine keeps QP numbers
# and MR keys across resets, so in one process the RC seed's QPs only exist
# when it runs first: the seeds are also replayed alone.
qrnic_cov() {
	"$fuzzer" --fuzz-target=generic-fuzz -runs=0 -print_coverage=1 "$@" \
		> "$covfile" 2>&1 || true
	awk '/_FUNC: .*hw\/net\/qrnic\// {
		split($5, e, "/"); c += e[1]; t += e[2]; n++; if (e[1] > 0) h++
	} END { if (t) printf "%d/%d edges (%d%%), %d/%d functions", c, t, 100 * c / t, h, n }' \
		"$covfile"
}
covfile=$out/logs/$stamp-$config.seeds.coverage
qcov_seeds=$(qrnic_cov "$out/seeds")
covfile=$out/logs/$stamp-$config.coverage
qcov=$(qrnic_cov "$out/corpus-$config" "$out/seeds")

new=()
for f in "$out"/crashes/*; do
	[ -f "$f" ] && [ -z "${before[$f]:-}" ] && new+=("$f")
done

# ---- summary ------------------------------------------------------------------
echo
echo "==== qemu generic-fuzz summary (-device qrnic, config $config)"
echo "build:        ${build_secs}s (qemu-device/build.sh, QRNIC_QEMU_FLAVOUR=fuzz)"
echo "fuzzing:      ${fuzz_secs}s in $runs libFuzzer run(s)"
echo "executions:   $execs (~$rate/s)"
echo "coverage:     cov $cov edges, ft $ft features (libFuzzer; instrumented: hw/, net/, slirp)"
echo "qrnic:        hw/net/qrnic/ on replaying the corpus: ${qcov:-unknown};"
echo "              the seeds alone, in a fresh process: ${qcov_seeds:-unknown}"
echo "              (per function: grep qrnic ${out#"$top"/}/logs/$stamp-$config*.coverage)"
echo "corpus:       $(find "$out/corpus-$config" -type f | wc -l) inputs in build/fuzz-qemu/corpus-$config/"
ubsan=$(grep -c 'runtime error:' "$log" || true)
echo "UBSan:        $ubsan runtime error report(s)$([ "$ubsan" -gt 0 ] && echo ": grep 'runtime error:' ${log#"$top"/}")"
if [ ${#new[@]} -eq 0 ]; then
	echo "crashes:      no"
else
	echo "crashes:      yes, ${#new[@]}:"
	for f in "${new[@]}"; do echo "  ${f#"$top"/}"; done
	printf '%s\n' "${report[@]}" | sed 's/^/  /'
	echo "stack traces: ${log#"$top"/}"
	echo "replay one:   tests/fuzz/qemu-generic-fuzz.sh ${new[0]#"$top"/}"
fi
echo "log:          ${log#"$top"/}"
[ ${#new[@]} -eq 0 ] || exit 1
