#!/bin/bash
# Helpers for host scripts (run-vms -H): sourced, not run.

# mon I CMD...: HMP commands to guest I's monitor, in one connection;
# fails if the monitor cannot be reached.
mon() {
	local m=QRNIC_MON$1
	shift
	{ printf '%s\n' "$@"; sleep 0.3; } | socat - "UNIX-CONNECT:${!m}" > /dev/null
}
