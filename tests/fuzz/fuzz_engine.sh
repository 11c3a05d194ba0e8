#!/bin/bash
# The engine fuzz targets' long runs, called by tests/fuzz/Makefile (which
# builds the binaries and sets OUT, HERE, ENGINE):
#
#   fuzz_engine.sh fuzz TARGET...      libFuzzer, FUZZ_SECONDS per target on
#                                      a copy of its corpus, FUZZ_JOBS
#                                      processes; then coverage
#   fuzz_engine.sh coverage TARGET...  engine line coverage of the
#                                      checked-in corpora and reproducers
#
# New inputs libFuzzer finds stay in build/fuzz/corpus/<target>, crashes in
# build/fuzz/crashes/<target>; neither goes into git (a crash that shows a
# real bug is minimised and committed to tests/fuzz/repro/<target>/).
set -u
mode=$1
shift
targets="$*"
: "${OUT:?}" "${HERE:?}" "${ENGINE:?}"
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_JOBS=${FUZZ_JOBS:-1}

# Run the --coverage build of every target on the given corpus root
# (DIR/<target>), then print a table of line coverage per engine file.
coverage() {
	local root=$1 repro=$2 title=$3 t gcov_out
	rm -f "$OUT"/cov/obj/*.gcda
	for t in $targets; do
		"$OUT/cov/$t" "$root/$t" ${repro:+"$repro/$t"} >/dev/null 2>&1 ||
			echo "  ($t: some inputs failed in the coverage build)"
	done
	mkdir -p "$OUT/cov/gcov"
	gcov_out=$(cd "$OUT/cov/gcov" && gcov -f -o "$OUT/cov/obj" \
		"$ENGINE"/*.c 2>/dev/null)
	echo "== engine line coverage, $title"
	awk -v engine="$ENGINE/" '
		/^Function / { fn = substr($2, 2, length($2) - 2); next }
		/^File /     { fn = ""; file = substr($2, 2, length($2) - 2); next }
		/^Lines executed:/ {
			split($2, a, ":"); pct = a[2] + 0; n = $4 + 0
			if (fn != "") {
				if (pct == 0 && n > 0) never[++nn] = fn " (" n " lines)"
				fn = ""; next
			}
			f = file; file = ""
			if (index(f, engine) != 1 || f !~ /\.c$/) next
			hit = int(pct * n / 100 + 0.5)
			name = substr(f, length(engine) + 1)
			printf "  %-18s %5d / %5d  %6.2f%%\n", name, hit, n, pct
			th += hit; tn += n
		}
		END {
			printf "  %-18s %5d / %5d  %6.2f%%\n", "total", th, tn,
				tn ? 100 * th / tn : 0
			if (nn) {
				printf "  functions never run:"
				for (i = 1; i <= nn; i++) printf " %s", never[i]
				printf "\n"
			}
		}' <<<"$gcov_out"
	echo "  (per-line detail: $OUT/cov/gcov/*.gcov)"
}

fuzz_one() {
	local t=$1 corpus="$OUT/corpus/$1" crashes="$OUT/crashes/$1/"
	local log="$OUT/logs/$1.log" before after start end last execs secs
	local repro=()
	[ -d "$HERE/repro/$t" ] && repro=("$HERE/repro/$t")
	mkdir -p "$corpus" "$crashes" "$OUT/logs"
	cp -n "$HERE/corpus/$t"/* "$corpus"/ 2>/dev/null
	before=$(ls "$corpus" | wc -l)
	echo "== $t: $FUZZ_SECONDS s, $FUZZ_JOBS job(s), corpus $corpus ($before files)"
	start=$(date +%s)
	# Fork mode keeps going after a crash, so every target gets its time.
	(cd "$OUT/logs" && "$OUT/lf/$t" -fork="$FUZZ_JOBS" -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1 -timeout=30 -rss_limit_mb=3072 \
		-max_total_time="$FUZZ_SECONDS" -print_final_stats=1 \
		-artifact_prefix="$crashes" "$corpus" "${repro[@]}" \
		>"$log" 2>&1)
	end=$(date +%s)
	after=$(ls "$corpus" | wc -l)
	last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1)
	execs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
	secs=$((end - start > 0 ? end - start : 1))
	echo "  ${execs:-0} runs in ${secs} s: $(( ${execs:-0} / secs )) execs/s;" \
		"corpus $before -> $after files;" \
		"$(sed -E 's/.*(cov: [0-9]+ ft: [0-9]+).*(oom\/timeout\/crash: [0-9\/]+).*/\1, \2/' <<<"$last")"
	summarize "$t"
}

# What each input in build/fuzz/crashes/<target> makes the target say,
# details after " -- " dropped and long numbers masked, grouped: one line
# per distinct failure, with an example.
summarize() {
	local t=$1 f msg
	for f in "$OUT/crashes/$t"/*; do
		[ -f "$f" ] || continue
		msg=$("$OUT/lf/$t" -timeout=30 -rss_limit_mb=3072 "$f" 2>&1 |
			grep -m1 -E '^(fuzz_[a-z]+|qfake): |ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' |
			sed -E 's/ -- .*//; s/\b0x[0-9a-f]+\b/0x?/g;
				s/\b[0-9a-f]{4,}\b/?/g; s/\b[0-9]{2,}\b/?/g')
		printf '%s\t%s\n' "${msg:-(no message)}" "$f"
	done | sort | awk -F'\t' '
		{ n[$1]++; if (!($1 in ex)) ex[$1] = $2 }
		END { for (m in n) printf "  found %d x: %s\n    e.g. %s\n", n[m], m, ex[m] }'
}

case $mode in
coverage)
	coverage "$HERE/corpus" "$HERE/repro" "checked-in corpora and reproducers"
	;;
fuzz)
	found=0
	for t in $targets; do
		fuzz_one "$t"
	done
	for t in $targets; do
		n=$(ls "$OUT/crashes/$t" 2>/dev/null | wc -l)
		found=$((found + n))
	done
	coverage "$HERE/corpus" "$HERE/repro" "checked-in corpora and reproducers"
	coverage "$OUT/corpus" "" "corpora grown by this and earlier runs (build/fuzz/corpus)"
	echo "== $found crash/timeout/oom input(s) in $OUT/crashes (logs: $OUT/logs)"
	[ "$found" -eq 0 ]
	;;
*)
	echo "usage: $0 fuzz|coverage TARGET..." >&2
	exit 2
	;;
esac
