#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest instruction profiles, per function of the guest kernel and its
# modules, on each Debian kernel (KVER= for one), from a QEMU plugin that
# counts the blocks run between the markers of tests/kmod/dg_prof.h
# (scripts/bench/guestprof.c), named by guestprof.py from the guest's
# kallsyms. Deterministic (instruction counts, not time): a diff of two
# profiles shows what a change cost or saved.
#
#   prof.sh pin    `make prof-pin`: a pin cache hit (get + put), the pin
#                  bench's hit loop (tests/vm/bench/pin-prof.vmtest)
#   prof.sh pool   `make prof-pool`: an alloc + free pair of the
#                  dmapool_test protocol, the kernel's dma_pool beside
#                  dmaguard's (tests/vm/bench/pool-prof.vmtest); ROW= picks
#                  the row (0: 16 B, the default; 1: 64 B ... 5: 68/32/4096)
#
# Output: build/bench/prof/<what>/<kver>/.
# BENCH_DRY=1 (`make check-bench`): build the plugin and each boot's
# initramfs, check that the boot would find what it needs
# (DMAGUARD_VM_DRY=1, scripts/vm/vmtest.py); nothing boots.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
what=${1:-}
case $what in
pin|pool) ;;
*) echo "usage: $0 pin|pool" >&2; exit 2 ;;
esac
out=$top/build/bench/prof/$what
if [ "${BENCH_DRY:-0}" = 1 ]; then
	export DMAGUARD_VM_DRY=1
	out=$top/build/bench/dry-run/prof/$what	# not over a real profile
fi
mkdir -p "$out"
cc -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
	-o "$out/guestprof.so" "$top/scripts/bench/guestprof.c"
kernels=${KVER:-$("$top/scripts/kernels.sh" --distro)}
for kver in $kernels; do
	mkdir -p "$out/$kver"
	spec=$out/$kver/$what-prof.vmtest
	{ sed "s/row=ROW/row=${ROW:-0}/" "$top/tests/vm/bench/$what-prof.vmtest"
	  echo "qemu: -plugin $out/guestprof.so,out=$out/$kver/blocks"; } > "$spec"
	rm -f "$out/$kver/blocks"
	echo "  BOOT    $kver (TCG, $what profile)" >&2
	if ! python3 "$top/scripts/vm/vmtest.py" --kver "$kver" \
		--name "$what-prof" --out "$out/$kver" --backend direct \
		--ko-dir "$top/build/kernel/$kver/test/ko" \
		--bin-dir "$top/build/vm-bin" "$spec" > "$out/$kver/verdict"; then
		echo "prof: the $kver boot was not clean:" >&2
		grep '^not ok' "$out/$kver/verdict" >&2 || true
		exit 1
	fi
	if [ "${BENCH_DRY:-0}" = 1 ]; then
		echo "prof ($what, $kver): dry run ok: the boot would find what it needs"
		continue
	fi
	prof() {
		python3 "$top/scripts/bench/guestprof.py" "$out/$kver/blocks" \
			"$out/$kver/$what-prof.log" --top 12 "$@"
	}
	{
		echo "# $kver"
		if [ "$what" = pin ]; then
			prof --per dmaguard_pin_get
		else
			echo "# the kernel's dma_pool, row ${ROW:-0}"
			prof --channel 0 --per dma_pool_alloc
			echo "# dmaguard, row ${ROW:-0}"
			prof --channel 1 --per dmaguard_pool_alloc
		fi
	} | tee "$out/$kver/profile.txt"
done
