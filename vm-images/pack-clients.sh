#!/bin/bash
# pack-clients.sh: build/image/clients.cpio.zst, an initramfs layer with the
# RDMA middleware tests/vm/clients.sh runs (UCX, libfabric, qperf), to be
# appended to any kernel's initrd (run-vms: QRNIC_INITRD_EXTRA_I).  Only the
# files that differ from the base root are in it, so the other scenarios'
# guests do not unpack them at every boot.  Re-running with nothing changed
# does nothing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
cache=${QRNIC_CACHE:-$HOME/.cache/qrnic}
die() { echo "pack-clients: $*" >&2; exit 1; }
. "$here/guest-root.sh"

CLIENT_PKGS=ucx-utils,libfabric-bin,qperf,open-iscsi,openmpi-bin,python3-mpi4py
# libucx0 depends on AMD's and Intel's GPU runtimes for UCX modules a guest
# never loads (libamdhip64 pulls in LLVM, comgr and z3: 240 MB); their
# libraries are left out, and UCX skips the modules that cannot load.
lib=/usr/lib/x86_64-linux-gnu
CLIENT_EXCLUDE=("$lib/libLLVM-17.so*" "$lib/libamd_comgr.so*" "$lib/libz3.so*"
	"$lib/libamdhip64.so*" "$lib/libhsa-runtime64.so*" "$lib/libze_*.so*")

out=$top/build/image/clients.cpio.zst
stamp=$top/build/image/.clients-stamp
key=$( { cat "$0" "$here/guest-root.sh"; echo "$CLIENT_PKGS ${CLIENT_EXCLUDE[*]}"; } |
	sha256sum | cut -c1-16)
if [ -f "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

"$here/host-deps.sh"
base=$(guest_root_tar) || die "no base root"
full=$(guest_root_tar "$CLIENT_PKGS" "${CLIENT_EXCLUDE[@]}") || die "no clients root"

mkdir -p "$top/build/image"
stage=$(mktemp -d "$top/build/image/.clients-XXXXXX")
trap 'rm -rf "$stage"' EXIT
tar -C "$stage" -xf "$full"
# Drop what the base root has as it is: regular files of the same content,
# links to the same target.  Directories stay (cpio restores their modes).
python3 - "$base" "$stage" <<'EOF'
import hashlib, os, sys, tarfile

base, stage = sys.argv[1], sys.argv[2]
dropped = 0
with tarfile.open(base) as t:
    for m in t:
        p = os.path.join(stage, m.name.lstrip('./'))
        if m.isfile() and os.path.isfile(p) and not os.path.islink(p):
            if os.path.getsize(p) != m.size:
                continue
            with open(p, 'rb') as f:
                mine = hashlib.sha256(f.read()).digest()
            if hashlib.sha256(t.extractfile(m).read()).digest() == mine:
                os.unlink(p)
                dropped += 1
        elif m.issym() and os.path.islink(p) and os.readlink(p) == m.linkname:
            os.unlink(p)
            dropped += 1
print(f"pack-clients: {dropped} files as in the base root left out")
EOF
for f in ucx_perftest ucx_info fi_pingpong fi_info qperf; do
	[ -x "$stage/usr/bin/$f" ] || die "no /usr/bin/$f in the clients layer"
done
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --quiet --reproducible) |
	zstd -q -T0 -10 -f -o "$out.tmp"
mv "$out.tmp" "$out"
echo "$key" > "$stamp"
echo "pack-clients: $out ($(du -h "$out" | cut -f1))"
