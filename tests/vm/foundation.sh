#!/bin/sh
# The foundation scenario, one boot of two qrnic guests: device view, Ethernet
# traffic, link changes, driver reload.  Sub-scripts print ok/not ok lines.
dir=$(dirname "$0")
rc=0
for part in device net link reload; do
	[ "$QRNIC_NGUESTS" -ge 2 ] || [ "$part" = device ] || continue
	echo "# $part"
	sh "$dir/$part.sh" || rc=1
done
: > "$QRNIC_SHARE/finished-$QRNIC_IDX"
exit $rc
