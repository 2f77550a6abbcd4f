#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The public headers as a Rust driver will see them: bindgen (Debian's
# 0.60) over the umbrella header, no_std style (--use-core). Checks, one
# result line each:
#   - bindgen accepts the header,
#   - every function of the ABI baseline (abi/baseline/functions.txt) and
#     every public struct comes out in the bindings,
#   - the bindings compile with rustc and their layout tests (sizes,
#     alignments, field offsets as clang computed them for C) pass.
# Prints "ok - ..." / "not ok - ..." on stdout, details on stderr.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
inc=$top/abi/include
out=$top/build/abi/bindgen
rs=$out/dmaguard.rs
mkdir -p "$out"

line() { echo "$1"; }

if ! bindgen --use-core --ctypes-prefix core::ffi \
	--allowlist-function 'dmaguard_.*' --allowlist-type 'dmaguard_.*' \
	--allowlist-var 'DMAGUARD_.*' \
	"$inc/dmaguard/dmaguard.h" -o "$rs" -- -I"$inc" >&2; then
	line "not ok - abi/bindgen/generate # bindgen rejected dmaguard.h"
	exit 1
fi
line "ok - abi/bindgen/generate"

missing=""
while read -r fn; do
	[ -n "$fn" ] || continue
	grep -q "pub fn $fn(" "$rs" || missing="$missing $fn"
done < "$top/abi/baseline/functions.txt"
for st in dmaguard_pool dmaguard_pool_opts dmaguard_pool_stats; do
	grep -q "pub struct $st " "$rs" || missing="$missing struct:$st"
done
if [ -z "$missing" ]; then
	line "ok - abi/bindgen/complete"
else
	line "not ok - abi/bindgen/complete # missing:$missing"
fi

# rustc comes with rustup, not from Debian: look where rustup puts it.
rustc=$(PATH="$PATH:$HOME/.cargo/bin:/root/.cargo/bin" command -v rustc) || {
	line "not ok - abi/bindgen/layout # rustc not found (rustup's ~/.cargo/bin)"
	exit 1
}
if ! "$rustc" --edition 2021 --test -A warnings -o "$out/layout-test" \
	--crate-name dmaguard_bindings "$rs" >&2; then
	line "not ok - abi/bindgen/layout # generated bindings do not compile"
	exit 1
fi
n=$(grep -c '^fn bindgen_test_layout_' "$rs")
if "$out/layout-test" >&2 && [ "$n" -gt 0 ]; then
	line "ok - abi/bindgen/layout ($n layout tests)"
else
	line "not ok - abi/bindgen/layout # layout tests failed or none generated"
fi
