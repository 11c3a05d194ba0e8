#!/bin/sh
# rc-check integrity between two guests: SEND, SEND_WITH_IMM, RDMA_WRITE,
# RDMA_WRITE_WITH_IMM, RDMA_READ, atomics, inline data, several SGEs,
# signalled and unsignalled WRs, post lists, 1 B .. 1 MiB+17, both ways;
# every byte and every completion (status, opcode, byte_len, imm, wr_id)
# is checked (tests/tools/rc-integrity.c).
#   integrity.sh [TAG]   TAG: rendezvous prefix, new for each run in one boot
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "integrity needs two guests"; finish; }
run_tap "rc-check integrity" timeout 600 rc-check -T "${1:-integrity}" integrity
finish
