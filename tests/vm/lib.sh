# Shared helpers for scripts that run inside a guest (POSIX sh).
# Each check prints "ok - NAME" or "not ok - NAME"; tests/run-tests counts them.

failures=0

pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }

# check NAME CMD... : run CMD, pass if it exits 0.
check() {
	name=$1; shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# expect_match NAME PATTERN TEXT : extended regex PATTERN must match a line of TEXT.
expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1 (no line matches /$2/)"
	fi
}

# retry SECONDS CMD... : run CMD every half second until it succeeds.
retry() {
	deadline=$(($(date +%s) + $1)); shift
	until "$@"; do
		[ "$(date +%s)" -ge "$deadline" ] && return 1
		sleep 0.5
	done
}

# Rendezvous through the share all guests see.
signal() { : > "$QRNIC_SHARE/$1"; }
wait_for() { retry "${2:-120}" test -e "$QRNIC_SHARE/$1"; }

finish() {
	[ "$failures" -eq 0 ] || echo "guest $QRNIC_IDX: $failures check(s) failed"
	exit "$failures"
}
