#!/bin/bash
# provider/tests/run.sh [VERSION]: build and run the provider's host-side
# data path test against the cached rdma-core tree of that version (default
# 56.1) that `provider/build.sh VERSION` prepares (run that first).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${QRNIC_CACHE:-$HOME/.cache/qrnic}
RDMA_VER=${1:-56.1}
[[ $RDMA_VER =~ ^[0-9]+\.[0-9]+$ ]] || { echo "usage: provider/tests/run.sh [VERSION]" >&2; exit 2; }
BLD=$CACHE/rdma-core/rdma-core-$RDMA_VER/build-qrnic
OUT=$TOP/build/provider-test/$RDMA_VER
[ -f "$BLD/lib/libibverbs.so" ] || { echo "run provider/build.sh $RDMA_VER first" >&2; exit 1; }
mkdir -p "$OUT"
# The feature macros the tree's build gave the provider (CMakeLists.txt).
mapfile -t features < <(grep -o -- '-DQRNIC_[A-Z_]*' "$BLD/build.ninja" | sort -u)
# The tree's warning flags (see build.ninja), plus the sanitizers.
cc -std=gnu11 -O1 -g -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter \
	-Wmissing-prototypes -Wshadow -Wstrict-prototypes -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined \
	"${features[@]}" -I"$BLD/include" -I"$TOP/include" \
	"$HERE/dp_test.c" -o "$OUT/dp_test" \
	-L"$BLD/lib" -Wl,-rpath,"$BLD/lib" -libverbs -lpthread
# Test objects are left allocated on purpose.
ASAN_OPTIONS=detect_leaks=0 "$OUT/dp_test"
