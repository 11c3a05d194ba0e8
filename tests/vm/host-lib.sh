#!/bin/bash
# Helpers for host scripts (run-vms -H): sourced, not run.

# mon I CMD...: HMP commands to guest I's monitor, each executed before
# mon returns (tests/vm/hmp); fails if the monitor cannot be reached or
# does not answer.
mon() {
	local m=QRNIC_MON$1
	shift
	"$(dirname "${BASH_SOURCE[0]}")/hmp" "${!m}" "$@" > /dev/null
}
