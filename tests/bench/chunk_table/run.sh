#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The chunk table (c-core/chunk_table.c) beside the kernel's xarray, side
# by side: natively (the kernel's own lib/xarray.c built through its
# tools/testing/radix-tree harness) and in a 6.12 guest (one TCG boot,
# a second opinion). `make bench-table`; README.txt says what it measures.
# BENCH_DRY=1 (`make check-bench`): build both sides and check the guest's
# kernel is there; nothing is timed or booted.
set -e
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
SRC=$TOP/tests/bench/chunk_table
OUT=$TOP/build/bench/chunk_table
# a dry run builds aside, never over a real run's results
[ "${BENCH_DRY:-0}" != 1 ] || OUT=$TOP/build/bench/dry-run/chunk_table
KVER=${KVER:-$("$TOP/scripts/kernels.sh" --distro | grep '^6\.12\.' | head -n 1)}
[ -f "/boot/vmlinuz-$KVER" ] || { echo "bench-table: no Debian 6.12 kernel (KVER=$KVER)" >&2; exit 1; }
export KVER
LINUX=$TOP/build/bench/chunk_table/linux
mkdir -p "$OUT"
if [ ! -f "$LINUX/lib/xarray.c" ]; then
	mkdir -p "$LINUX"
	tar -xJf /usr/src/linux-source-6.12.tar.xz -C "$LINUX" --strip-components=1 \
		linux-source-6.12/tools/testing/radix-tree linux-source-6.12/tools/testing/shared \
		linux-source-6.12/tools/include linux-source-6.12/tools/lib \
		linux-source-6.12/tools/arch/x86 linux-source-6.12/tools/scripts \
		linux-source-6.12/tools/build linux-source-6.12/lib \
		linux-source-6.12/include/linux linux-source-6.12/include/asm-generic \
		linux-source-6.12/include/uapi
fi
rm -rf "$OUT/native" "$OUT/kmod" "$OUT/vm"
cp -r "$SRC/native" "$SRC/kmod" "$SRC/vm" "$OUT/"
ln -sf "$TOP/c-core/chunk_table.c" "$OUT/kmod/chunk_table.c"
make -C "$OUT/native" MAIN="$TOP" LINUX="$LINUX"
make -C "/lib/modules/$KVER/build" M="$OUT/kmod" DG_MAIN="$TOP" modules
if [ "${BENCH_DRY:-0}" = 1 ]; then
	echo "bench-table: dry run ok: both sides built for $KVER"
	exit 0
fi
cpu=$(($(nproc) - 1))
taskset -c $cpu "$OUT/native/xbench" -r 11 -m 65536 > "$OUT/native/results-native.txt"
taskset -c $cpu "$OUT/native/xbench" -r 11 -m 65536 -s 16 > "$OUT/native/results-native-64k.txt"
taskset -c $cpu "$OUT/native/xbench" -r 11 -m 65536 -D 4 > "$OUT/native/results-native-dense.txt"
taskset -c $cpu "$OUT/native/xbench" -r 11 -m 65536 > "$OUT/native/results-native-run2.txt"
KVER=$KVER "$OUT/vm/boot.sh" > "$OUT/vm/boot.out" 2>&1
cd "$OUT" && python3 "$SRC/tables.py" > "$OUT/tables.txt"
cat "$OUT/tables.txt"
