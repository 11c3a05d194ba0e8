#!/bin/sh
# run-vms -H for tests/vm/dkms.sh: hand the DKMS-built module
# ($QRNIC_DKMS_KO) to the guest through the share.
set -e
cp "$QRNIC_DKMS_KO" "$QRNIC_SHARE/qrnic.ko"
: > "$QRNIC_SHARE/dkms-ready"
