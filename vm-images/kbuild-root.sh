#!/bin/bash
# kbuild-root.sh KVER: a build root for out-of-tree modules of a kernel whose
# headers the host cannot use (Debian's 7.x headers need the gcc they were
# built with, gcc 14, which bookworm lacks).  Prints the root's path.
#
#   ${QRNIC_CACHE:-$HOME/.cache/qrnic}/kbuild/KVER/   Debian trixie with
#       trixie-backports: linux-headers-KVER (and through it the kernel's
#       own compiler), make, dkms, and sid's sparse (make C=1)
#
# kbuild-root.sh -r KVER CMD...: run CMD in that root as root, with the
# project's directory mounted at the same path (a private mount namespace:
# nothing stays mounted afterwards).  -t instead of -r: the same, but what
# CMD changes in the root (packages it installs) goes to a scratch overlay,
# dropped afterwards.
#
# The mirror comes from the host's apt configuration; made once, cached.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}

die() { echo "kbuild-root: $*" >&2; exit 1; }

run= scratch=
case "${1:-}" in
-r) run=1; shift ;;
-t) run=1; scratch=1; shift ;;
esac
[ $# -ge 1 ] || die "usage: kbuild-root.sh [-r|-t] KVER [CMD...]"
kver=$1; shift
[ -n "$run" ] || [ $# -eq 0 ] || die "CMD needs -r"

# Debian's ABI names say where the headers live: +deb13 is trixie (or its
# backports).
case "$kver" in
*+deb13-*) suite=trixie ;;
*) die "no build root is known for $kver (only +deb13 kernels need one)" ;;
esac
pkgs=linux-headers-$kver,make,sparse,libc6-dev,kmod,dkms
root=$cache/kbuild/$kver
key=$( { cat "$0"; echo "$suite $pkgs"; } | sha256sum | cut -c1-16)

if [ "$(cat "$root/.qrnic-key" 2>/dev/null)" != "$key" ]; then
	main_uri=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
	[ -n "$main_uri" ] || die "no URIs line in /etc/apt/sources.list.d/debian.sources"
	echo "kbuild-root: building the $suite root for $kver with mmdebstrap (a few minutes)" >&2
	rm -rf "$root" "$root.tmp"
	mkdir -p "$cache/kbuild"
	mmdebstrap --quiet --variant=apt --include="$pkgs" \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		"$suite" "$root.tmp" \
		"deb $main_uri $suite main" "deb $main_uri $suite-backports main" >&2 ||
		die "mmdebstrap failed"
	[ -d "$root.tmp/usr/src/linux-headers-$kver" ] || die "no headers for $kver in the root"
	# Kbuild asks scripts/checker-valid.sh whether sparse works (it must
	# print 1) before C=1 checks anything; Debian's 7.x header packages
	# leave it out: this one runs the checker on an empty file.
	common=$(readlink -f "$root.tmp/usr/lib/modules/$kver/source" 2>/dev/null || true)
	checker=${common:+$root.tmp${common#"$root.tmp"}/scripts/checker-valid.sh}
	if [ -n "$checker" ] && [ ! -e "$checker" ]; then
		printf '#!/bin/sh\n# qrnic: does the checker run? (Debian ships no copy)\n%s\n' \
			'"$@" -x c /dev/null >/dev/null 2>&1 && echo 1' > "$checker"
		chmod +x "$checker"
	fi
	# trixie's sparse (0.6.4) predates __typeof_unqual__, which 7.x headers
	# use everywhere; sid's runs on trixie's libc.
	dl=$(mktemp -d)
	(cd "$dl" && "$here/apt-private" sid download sparse >/dev/null) ||
		die "cannot download sparse from sid"
	dpkg-deb --fsys-tarfile "$dl"/sparse_*.deb |
		tar -xO ./usr/bin/sparse > "$root.tmp/usr/local/bin/sparse"
	chmod 755 "$root.tmp/usr/local/bin/sparse"
	rm -rf "$dl"
	echo "$key" > "$root.tmp/.qrnic-key"
	mv "$root.tmp" "$root"
fi

if [ -z "$run" ]; then
	echo "$root"
	exit 0
fi
# The project at its own path, then the command; with -t over a scratch
# overlay (a tmpfs on a directory of ours, removed afterwards).
scratch_dir=
if [ -n "$scratch" ]; then
	scratch_dir=$(mktemp -d)
	trap 'rmdir "$scratch_dir"' EXIT
fi
unshare --mount --propagation private /bin/sh -ec '
	root=$1 top=$2 t=$3; shift 3
	if [ -n "$t" ]; then
		mount -t tmpfs tmpfs "$t"
		mkdir "$t/upper" "$t/work" "$t/root"
		mount -t overlay overlay -o "lowerdir=$root,upperdir=$t/upper,workdir=$t/work" "$t/root"
		root=$t/root
	fi
	mkdir -p "$root$top"
	mount --bind "$top" "$root$top"
	for d in proc dev; do mount --rbind "/$d" "$root/$d"; done
	exec chroot "$root" /usr/bin/env PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
' sh "$root" "$top" "$scratch_dir" "$@"
