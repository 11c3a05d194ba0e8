#!/bin/sh
# rc-check errors between two guests (guest 0 requests, guest 1 responds):
# bad lkey -> LOC_PROT_ERR; stale rkey, rkey without write access and
# out-of-bounds WRITE/READ -> REM_ACCESS_ERR with nothing written on the
# responder; no receive with rnr_retry 0 -> RNR_RETRY_EXC_ERR; a SEND larger
# than the receive -> REM_INV_REQ_ERR.  After each case a second QP pair
# between the same guests must still carry data (tests/tools/rc-errors.c).
. "$(dirname "$0")/lib.sh"

[ "$QRNIC_NGUESTS" -ge 2 ] || { fail "errors needs two guests"; finish; }
run_tap "rc-check errors" timeout 600 rc-check -t 30 errors
check "RDMA port still ACTIVE after the error cases" port_active
finish
