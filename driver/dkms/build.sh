#!/bin/bash
# driver/dkms/build.sh [OUTDIR]: the driver as DKMS wants it, from this tree.
#
#   OUTDIR/qrnic-VERSION/            the DKMS source tree: driver/*.c *.h,
#                                    Kbuild, dkms.conf, include/ (the
#                                    hardware and ABI headers)
#   OUTDIR/qrnic-dkms_VERSION_all.deb  it, packaged: installs the tree in
#                                    /usr/src and builds the module with
#                                    DKMS for every kernel with headers
#
# OUTDIR defaults to build/dkms.  VERSION is 0.N, N the number of commits
# (0.0 outside git).  Install without the package:
#   cp -r OUTDIR/qrnic-VERSION /usr/src/ && dkms install qrnic/VERSION
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${1:-$top/build/dkms}

n=$(git -C "$top" rev-list --count HEAD 2>/dev/null || echo 0)
version=0.$n
src=$out/qrnic-$version
pkg=$out/pkg

rm -rf "$src" "$pkg"
mkdir -p "$src/include"
cp "$top"/driver/*.c "$top"/driver/*.h "$top/driver/Kbuild" "$src/"
cp "$top/include/qrnic_hw.h" "$top/include/qrnic-abi.h" "$src/include/"
sed "s/@VERSION@/$version/" "$here/dkms.conf" > "$src/dkms.conf"

mkdir -p "$pkg/DEBIAN" "$pkg/usr/src"
cp -r "$src" "$pkg/usr/src/"
for f in postinst prerm; do
	sed "s/@VERSION@/$version/" "$here/$f" > "$pkg/DEBIAN/$f"
	chmod 755 "$pkg/DEBIAN/$f"
done
cat > "$pkg/DEBIAN/control" <<CTRL
Package: qrnic-dkms
Version: $version
Architecture: all
Maintainer: qrnic developers <qrnic@localhost>
Depends: dkms (>= 3)
Section: kernel
Priority: optional
Description: qrnic RoCE v2 NIC driver (DKMS)
 The Linux driver for qrnic, QEMU's emulated RoCE v2 RDMA NIC, as DKMS
 source: the module is built for every installed kernel with headers.
CTRL
dpkg-deb --root-owner-group --build "$pkg" "$out/qrnic-dkms_${version}_all.deb" >/dev/null
rm -rf "$pkg"
echo "$out/qrnic-dkms_${version}_all.deb"
