#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Rust test modules (tests/kmod-rust/) for every kernel with
# CONFIG_RUST=y (scripts/kernels.sh; KVER= picks some): today the debug
# kernel of scripts/kernel/; Debian's kernels have no Rust. Objects in
# build/kernel/<kver>/rust/, the modules copied to build/vm-ko/<kver>/,
# where every VM boot on that kernel finds them (/ko).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

rc=0
for kver in $("$top/scripts/kernels.sh"); do
	kdir=$("$top/scripts/kernels.sh" --kdir "$kver")
	grep -qx 'CONFIG_RUST=y' "$kdir/.config" 2>/dev/null || continue
	out=$top/build/kernel/$kver/rust
	mkdir -p "$out" "$top/build/vm-ko/$kver"
	ln -sfn "$top"/tests/kmod-rust/* "$out/"
	echo "  RUST    tests/kmod-rust for $kver"
	# shellcheck disable=SC2046
	if ! make -s -C "$kdir" $("$top/scripts/kernels.sh" --make-args "$kver") \
		M="$out" modules; then
		echo "build-rust-kmod: tests/kmod-rust failed for $kver" >&2
		rc=1
		continue
	fi
	sed 's/\.o$/.ko/' "$out/modules.order" |
		(cd "$out" && xargs -r cp -t "$top/build/vm-ko/$kver/")
done
exit $rc
