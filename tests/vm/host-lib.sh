#!/bin/bash
# Helpers for host scripts (run-vms -H): sourced, not run.

# mon I CMD...: HMP commands to guest I's monitor, each executed before
# mon returns (tests/vm/hmp); fails if the monitor cannot be reached or
# does not answer.  A qrnic-vu guest's NIC commands (set_link, qom-set:
# the first command decides) go to qrnic-vfio-user's control socket, which
# takes them in the same form.
mon() {
	local m=QRNIC_MON$1 nic=QRNIC_NIC$1 ctl=QRNIC_VU_CTL$1 sock
	shift
	sock=${!m}
	if [ "${!nic:-}" = qrnic-vu ]; then
		case "$1" in set_link\ *|qom-set\ *) sock=${!ctl} ;; esac
	fi
	"$(dirname "${BASH_SOURCE[0]}")/hmp" "$sock" "$@" > /dev/null
}

# await NAME [SECONDS]: wait for guest 0's file NAME in QRNIC_SHARE, up to
# SECONDS (default 600); fails at once if guest 0's script has finished.
await() {
	local _
	for _ in $(seq $((${2:-600} * 5))); do
		[ -e "$QRNIC_SHARE/$1" ] && return 0
		[ -e "$QRNIC_SHARE/finished-0" ] && return 1
		sleep 0.2
	done
	return 1
}
