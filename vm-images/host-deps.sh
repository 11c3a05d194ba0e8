#!/bin/bash
# Install everything the qrnic build needs on a fresh Debian 12 host.
# Apt source entries are derived from the machine's own debian.sources,
# so no mirror host name is written anywhere in the project.
set -euo pipefail

stamp_dir=${QRNIC_STATE:-/var/lib/qrnic}
mkdir -p "$stamp_dir"

PKGS=(build-essential pkg-config ninja-build flex bison git
      python3-venv python3-pycotap meson
      libglib2.0-dev libpixman-1-dev libslirp-dev libattr1-dev libcap-ng-dev
      linux-headers-amd64 linux-headers-6.12.95+deb12-amd64
      cmake libnl-3-dev libnl-route-3-dev libudev-dev
      libibverbs-dev librdmacm-dev
      mmdebstrap cpio zstd kmod dpkg-dev xz-utils bzip2 socat sparse
      seabios ipxe-qemu)

src=/etc/apt/sources.list.d/debian.sources
extra=/etc/apt/sources.list.d/qrnic.sources
# Pinned (snapshot-like) URIs: take the first URIs line of each stanza.
main_uri=$(awk '/^URIs:/ {print $2; exit}' "$src")
sec_uri=$(awk '/^URIs:/ {u=$2} /^Suites:.*security/ {print u; exit}' "$src")
[ -n "$main_uri" ] || { echo "host-deps: cannot find a URIs line in $src" >&2; exit 1; }
sec_uri=${sec_uri:-$main_uri}
keyring=$(awk '/^Signed-By:/ {print $2; exit}' "$src")
keyring=${keyring:-/usr/share/keyrings/debian-archive-keyring.gpg}

want=$(cat <<S
Types: deb deb-src
URIs: $main_uri
Suites: bookworm-backports
Components: main
Signed-By: $keyring

Types: deb-src
URIs: $main_uri
Suites: bookworm bookworm-updates
Components: main
Signed-By: $keyring

Types: deb-src
URIs: $sec_uri
Suites: bookworm-security
Components: main
Signed-By: $keyring
S
)
if [ ! -f "$extra" ] || [ "$(cat "$extra")" != "$want" ]; then
	echo "host-deps: adding bookworm-backports and deb-src entries ($extra)"
	printf '%s\n' "$want" > "$extra"
	rm -f "$stamp_dir/apt-updated"
fi

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# meson must be >= 1.5 (bookworm-backports) for QEMU 10.
if dpkg --compare-versions "$(dpkg-query -W -f='${Version}' meson 2>/dev/null || echo 0)" lt 1.5; then
	missing+=(meson)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ ! -f "$stamp_dir/apt-updated" ]; then
	echo "host-deps: apt-get update"
	apt-get update -qq
	touch "$stamp_dir/apt-updated"
fi
echo "host-deps: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -t bookworm-backports \
	meson python3-pycotap >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null
