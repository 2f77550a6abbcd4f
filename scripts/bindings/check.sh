#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Rust bindings against the headers, for the abi group of `make check`
# (scripts/mk/abi.mk). One result line each on stdout, details on stderr:
#
#   abi/bindings/drift            scripts/bindings/generate.sh into build/
#                                 gives byte for byte the committed
#                                 bindings.rs and layout.rs
#   abi/bindings/drift-planted    the same from a copy of the headers with a
#                                 field appended to struct dmaguard_pin_opts
#                                 (and its size assert moved) differs: the
#                                 drift check fires
#   abi/bindings/coverage         every function the headers declare,
#                                 static inline ones too, has a binding
#                                 (`pub fn <name>(` in bindings.rs) or a
#                                 Rust equivalent in the safe layer
#                                 (`#[doc(alias = "<name>")]`)
#   abi/bindings/coverage-planted a copy of the headers with one more
#                                 static inline function: the check names it
#   abi/bindings/compile/<rustc>  bindings.rs + layout.rs as one module of a
#                                 no_std crate, edition 2021, -D warnings,
#                                 with rustup's rustc (cargo) and Debian's
#                                 (the kernel's): the layout asserts hold
#   abi/bindings/compile-planted  the same with one offset in layout.rs off
#                                 by 4 does not compile
#
# Usage: scripts/bindings/check.sh
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/bindings
sys=$top/bindings/dmaguard-sys/src
safe=$top/bindings/dmaguard/src
rm -rf "$out"
mkdir -p "$out"

# drift_diff INCLUDE_DIR GEN_DIR: generate from the headers under
# INCLUDE_DIR into GEN_DIR and compare with the committed files. Exit 0
# when equal, 1 when they differ, 2 when generation failed.
drift_diff() {
	local rc=0
	"$top/scripts/bindings/generate.sh" "$2" "$1" >&2 || return 2
	diff -u "$sys/bindings.rs" "$2/bindings.rs" >&2 || rc=1
	diff -u "$sys/layout.rs" "$2/layout.rs" >&2 || rc=1
	return $rc
}

drift_diff "$top/abi/include" "$out/gen"
case $? in
0) echo "ok - abi/bindings/drift" ;;
1) echo "not ok - abi/bindings/drift # headers changed: run make bindings, commit the result" ;;
*) echo "not ok - abi/bindings/drift # generation failed" ;;
esac

planted=$out/planted-field/include
mkdir -p "$planted"
cp -r "$top/abi/include/dmaguard" "$planted/"
sed -i -e '/^struct dmaguard_pin_opts {$/,/^};$/s/^};$/\t__aligned_u64 planted;\n};/' \
	-e 's/^DMAGUARD_ASSERT_SIZE(dmaguard_pin_opts, 24);$/DMAGUARD_ASSERT_SIZE(dmaguard_pin_opts, 32);/' \
	"$planted/dmaguard/pin.h"
if ! grep -q 'planted;' "$planted/dmaguard/pin.h"; then
	echo "not ok - abi/bindings/drift-planted # the planted field did not apply"
else
	drift_diff "$planted" "$out/planted-field/gen" 2> "$out/planted-field.log"
	case $? in
	1) echo "ok - abi/bindings/drift-planted (field appended: $(grep -c '^[-+][^-+]' "$out/planted-field.log") lines differ)" ;;
	0) echo "not ok - abi/bindings/drift-planted # an appended field went unnoticed" ;;
	*) echo "not ok - abi/bindings/drift-planted # generation failed" ;;
	esac
fi

# header_functions INCLUDE_DIR: every function the public headers declare
# or define, one a line: declarations start at column 0 (kernel style);
# comments, preprocessor lines and bodies are indented or start with
# '/', '*' or '#'.
header_functions() {
	grep -hv '^[[:space:]/*#]' "$1"/dmaguard/*.h |
		grep -o '\bdmaguard_[a-z0-9_]*(' | tr -d '(' | sort -u
}

# coverage INCLUDE_DIR BINDINGS SAFE_DIR: prints the functions with
# neither a binding nor an alias; fails when there are any.
coverage() {
	local fn miss=""
	for fn in $(header_functions "$1"); do
		grep -q "pub fn $fn(" "$2" && continue
		grep -qF "#[doc(alias = \"$fn\")]" "$3"/*.rs && continue
		miss="$miss $fn"
	done
	echo "$miss"
	[ -z "$miss" ]
}

fns=$(header_functions "$top/abi/include")
# The listing must see every exported function of the ABI baseline.
unseen=$(comm -13 <(echo "$fns") <(sort -u "$top/abi/baseline/functions.txt"))
if [ -n "$unseen" ]; then
	echo "not ok - abi/bindings/coverage # the header scan missed:" $unseen
elif miss=$(coverage "$top/abi/include" "$sys/bindings.rs" "$safe"); then
	n=$(echo "$fns" | wc -l)
	inl=$(for f in $fns; do grep -q "pub fn $f(" "$sys/bindings.rs" || echo "$f"; done)
	echo "ok - abi/bindings/coverage ($n functions; Rust equivalents for:" $inl")"
else
	echo "not ok - abi/bindings/coverage # neither bound nor aliased:$miss"
fi

planted=$out/planted-inline/include
mkdir -p "$planted"
cp -r "$top/abi/include/dmaguard" "$planted/"
sed -i 's/^#endif \/\* _DMAGUARD_POOL_H \*\/$/#ifdef __KERNEL__\nstatic inline int dmaguard_pool_planted(struct dmaguard_pool *pool)\n{\n\treturn 0;\n}\n#endif\n\n&/' \
	"$planted/dmaguard/pool.h"
if miss=$(coverage "$planted" "$sys/bindings.rs" "$safe"); then
	echo "not ok - abi/bindings/coverage-planted # a new static inline function went unnoticed"
elif [ "$miss" = " dmaguard_pool_planted" ]; then
	echo "ok - abi/bindings/coverage-planted (named:$miss)"
else
	echo "not ok - abi/bindings/coverage-planted # expected dmaguard_pool_planted, got:$miss"
fi

# The committed files as one module, the way a kernel crate includes them.
cat > "$out/sys-module.rs" <<RS
#![no_std]
#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code)]
pub mod sys {
    include!("$sys/bindings.rs");
    include!("$sys/layout.rs");
}
RS
# sys_compile RUSTC MODULE: metadata only (const asserts are evaluated).
sys_compile() {
	"$1" --edition 2021 --crate-type rlib --emit metadata -D warnings \
		-o "${2%.rs}.rmeta" "$2" >&2
}

for rustc in "${CARGO_HOME:-$HOME/.cargo}/bin/rustc" /usr/bin/rustc; do
	name=$(basename "$(dirname "$(dirname "$rustc")")")
	[ "$name" = usr ] && name=debian || name=rustup
	ver=$("$rustc" --version 2>/dev/null | cut -d' ' -f2)
	if [ -z "$ver" ]; then
		echo "not ok - abi/bindings/compile/$name # $rustc not found"
	elif sys_compile "$rustc" "$out/sys-module.rs"; then
		echo "ok - abi/bindings/compile/$name (rustc $ver)"
	else
		echo "not ok - abi/bindings/compile/$name # rustc $ver rejects the bindings or a layout assert"
	fi
done

sed 's/offset_of!(dmaguard_pool_stats, chunks) == 20/offset_of!(dmaguard_pool_stats, chunks) == 24/' \
	"$sys/layout.rs" > "$out/layout-planted.rs"
sed "s#$sys/layout.rs#$out/layout-planted.rs#" "$out/sys-module.rs" > "$out/sys-planted.rs"
if cmp -s "$sys/layout.rs" "$out/layout-planted.rs"; then
	echo "not ok - abi/bindings/compile-planted # the planted offset did not apply"
elif sys_compile "${CARGO_HOME:-$HOME/.cargo}/bin/rustc" "$out/sys-planted.rs" 2> "$out/sys-planted.log"; then
	echo "not ok - abi/bindings/compile-planted # a wrong offset compiled"
elif grep -q 'E0080' "$out/sys-planted.log"; then
	echo "ok - abi/bindings/compile-planted (wrong offset: E0080)"
else
	echo "not ok - abi/bindings/compile-planted # failed, but not on the assert"
fi
