#!/bin/bash
# linux-source.sh SERIES: the pristine Linux source tree of a guest kernel
# series (Debian's linux-source-SERIES, the version the guest runs), for
# the kernel's own scripts (checkpatch.pl) and the patch series checks.
# Prints the tree's path:
#   ${QRNIC_CACHE:-$HOME/.cache/qrnic}/linux/linux-source-SERIES/
# Downloaded and unpacked once (about 170 MB, then 1.5 GB on disk).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}

die() { echo "linux-source: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: linux-source.sh SERIES (7.3)"
series=$1
kver=$("$here/kver" "$series") || die "unknown series $series"
case "$kver" in
*+deb13-*) suites=trixie,trixie-backports ;;
*+deb12-*) suites=bookworm,bookworm-backports ;;
*) suites=bookworm ;;
esac
tree=$cache/linux/linux-source-$series
if [ -f "$tree/.qrnic-done" ] && [ "$(cat "$tree/.qrnic-done")" = "$kver" ]; then
	echo "$tree"
	exit 0
fi

echo "linux-source: downloading and unpacking linux-source-$series (for $kver)" >&2
mkdir -p "$cache/linux"
dl=$(mktemp -d "$cache/linux/dl-XXXXXX")
trap 'rm -rf "$dl"' EXIT
(cd "$dl" && "$here/apt-private" "$suites" download "linux-source-$series" >/dev/null) ||
	die "cannot download linux-source-$series"
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
dpkg-deb --fsys-tarfile "$dl"/linux-source-"$series"_*.deb |
	tar -xO "./usr/src/linux-source-$series.tar.xz" |
	tar -xJ -C "$tree.tmp" --strip-components=1
[ -f "$tree.tmp/scripts/checkpatch.pl" ] || die "no scripts/checkpatch.pl in linux-source-$series"
echo "$kver" > "$tree.tmp/.qrnic-done"
mv "$tree.tmp" "$tree"
echo "$tree"
