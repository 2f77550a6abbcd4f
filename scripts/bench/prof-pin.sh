#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make prof-pin`: the guest instructions of a pin cache hit, per function
# of the guest kernel and modules, on each Debian kernel (KVER= for one):
# the pin bench's hit loop (tests/vm/bench/pin-prof.vmtest) under a QEMU
# plugin that counts the blocks run between its markers
# (scripts/bench/guestprof.c, tests/kmod/dg_prof.h), then named by
# guestprof.py from the guest's kallsyms. Output: build/bench/prof/.
# Deterministic (instruction counts, not time): a diff of two profiles
# shows what a change to the hit path cost or saved.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bench/prof
mkdir -p "$out"
cc -O2 -shared -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
	-o "$out/guestprof.so" "$top/scripts/bench/guestprof.c"
kernels=${KVER:-$("$top/scripts/kernels.sh" --distro)}
for kver in $kernels; do
	mkdir -p "$out/$kver"
	spec=$out/$kver/pin-prof.vmtest
	{ cat "$top/tests/vm/bench/pin-prof.vmtest"
	  echo "qemu: -plugin $out/guestprof.so,out=$out/$kver/blocks"; } > "$spec"
	rm -f "$out/$kver/blocks"
	echo "  BOOT    $kver (TCG, pin hit profile)" >&2
	if ! python3 "$top/scripts/vm/vmtest.py" --kver "$kver" --name pin-prof \
		--out "$out/$kver" --backend direct \
		--ko-dir "$top/build/kernel/$kver/test/ko" \
		--bin-dir "$top/build/vm-bin" "$spec" > "$out/$kver/verdict"; then
		echo "prof-pin: the $kver boot was not clean:" >&2
		grep '^not ok' "$out/$kver/verdict" >&2 || true
		exit 1
	fi
	echo "# $kver"
	python3 "$top/scripts/bench/guestprof.py" "$out/$kver/blocks" \
		"$out/$kver/pin-prof.log" --per dmaguard_pin_get --top 12 |
		tee "$out/$kver/profile.txt"
done
