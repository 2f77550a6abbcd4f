#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Planted ABI changes: each case copies the ABI-relevant part of the tree
# (Kbuild without tests/, abi/, c-core/) to build/abi-planted/<case>/,
# applies one change there (never to the tree), and runs abi-check.sh on the
# copy. An incompatible change must make abi-check fail on the rule named;
# the compatible controls must pass. One result line per case:
#
#   ok - abi/planted/<case>: <what>: caught by abi/<rule>
#   ok - abi/planted/<case>: <what>: accepted
#
# Module builds (needed by the export cases and the controls) use the
# newest kernel only; KVER= overrides.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/abi-planted
kver=${KVER:-$("$top/scripts/kernels.sh" --distro | tail -n1)}
rc=0

# copy CASE: fresh copy of the ABI-relevant sources.
copy() {
	local d=$work/$1/tree
	rm -rf "$work/$1"
	mkdir -p "$d"
	(cd "$top" && git ls-files -co --exclude-standard -- abi c-core Kbuild) |
		(cd "$top" && xargs cp --parents -t "$d")
	# Only dmaguard.ko: other engineers' test modules are not the subject.
	sed -i '/^obj-m += tests\//d' "$d/Kbuild"
	echo "$d"
}

# edit FILE PYTHON-EXPR: rewrite FILE with s = <expr over s>; fail if the
# change did not apply (the test would prove nothing).
edit() {
	python3 - "$1" "$2" <<'PY' || { echo "planted: edit of $1 did not apply" >&2; return 1; }
import sys
path, expr = sys.argv[1], sys.argv[2]
s = open(path).read()
n = eval(expr, {'s': s, 're': __import__('re')})
if n == s:
	sys.exit(1)
open(path, 'w').write(n)
PY
}

# swap A B in S (both must occur).
SWAP='lambda s, a, b: s.replace(a, "\0").replace(b, a).replace("\0", b)'

# run_case CASE WHAT EXPECT MODULES: run abi-check on the prepared copy.
# EXPECT is the rule that must fail ("abi/structs"), or "pass".
run_case() {
	local name=$1 what=$2 expect=$3 modules=$4 out log
	out=$work/$name/out
	log=$work/$name/abi-check.txt
	local args=(--src "$work/$name/tree" --name "abi-planted-$name" --out "$out")
	[ "$modules" = 1 ] || args+=(--no-modules)
	KVER=$kver "$top/scripts/abi/abi-check.sh" "${args[@]}" > "$log" 2> "$work/$name/abi-check.log"
	local crc=$?
	if [ "$expect" = pass ]; then
		if [ $crc -eq 0 ]; then
			echo "ok - abi/planted/$name: $what: accepted"
		else
			echo "not ok - abi/planted/$name: $what: abi-check failed on a compatible change: $(grep -m1 '^not ok' "$log")"
			rc=1
		fi
	else
		local hit
		hit=$(grep -m1 "^not ok - $expect\b" "$log")
		if [ $crc -ne 0 ] && [ -n "$hit" ]; then
			echo "ok - abi/planted/$name: $what: caught by ${hit#not ok - }"
		else
			echo "not ok - abi/planted/$name: $what: abi-check exit $crc, no \"not ok - $expect\" (see $log)"
			rc=1
		fi
	fi
}

prep_failed() {
	echo "not ok - abi/planted/$1: could not plant the change"
	rc=1
}

mkdir -p "$work"

# 1. Reordered field, asserts "fixed" along with it: only the baseline
#    comparison stands between this and every old consumer.
c=reorder-field
d=$(copy $c)
if edit "$d/abi/include/dmaguard/pool.h" "($SWAP)(s, '\t__u32 block_size;\n\t__u32 stride;', '\t__u32 stride;\n\t__u32 block_size;')" &&
   edit "$d/abi/include/dmaguard/pool.h" "($SWAP)(s, 'stats, block_size, 4)', 'stats, stride, 4)').replace('stats, stride, 8)', 'stats, block_size, 8)')"; then
	run_case $c "dmaguard_pool_stats.block_size and .stride swapped (asserts edited to match)" abi/structs 0
else prep_failed $c; fi

# 2. The same reorder with the asserts left alone: the header itself stops
#    compiling (the layout is pinned twice).
c=reorder-field-asserts
d=$(copy $c)
if edit "$d/abi/include/dmaguard/pool.h" "($SWAP)(s, '\t__u32 block_size;\n\t__u32 stride;', '\t__u32 stride;\n\t__u32 block_size;')"; then
	run_case $c "same swap, static asserts untouched" abi/headers/pool.h 0
else prep_failed $c; fi

# 3. Changed parameter type, header and shim changed consistently (it
#    builds): dmaguard_pool_create_node(..., int node) -> long node.
c=param-type
d=$(copy $c)
if edit "$d/abi/include/dmaguard/pool.h" "s.replace('size_t boundary, int node);', 'size_t boundary, long node);')" &&
   edit "$d/abi/shim/pool_abi.c" "s.replace('size_t boundary, int node)', 'size_t boundary, long node)')"; then
	run_case $c "dmaguard_pool_create_node() node: int -> long" abi/functions 0
else prep_failed $c; fi

# 4. Removed export: the function stays declared, DG_EXPORT() goes.
c=removed-export
d=$(copy $c)
if edit "$d/abi/shim/pool_abi.c" "s.replace('DG_EXPORT(dmaguard_pool_get_stats);\n', '')"; then
	run_case $c "DG_EXPORT(dmaguard_pool_get_stats) removed" "abi/exports/$kver" 1
else prep_failed $c; fi

# 5. Removed function: declaration, definition and export all gone.
c=removed-function
d=$(copy $c)
if edit "$d/abi/include/dmaguard/pool.h" "re.sub(r'/\*\*\n \* dmaguard_pool_get_stats\(\).*?struct dmaguard_pool_stats \*st\);\n', '', s, flags=re.S)"; then
	run_case $c "dmaguard_pool_get_stats() removed from the header" abi/functions 0
else prep_failed $c; fi

# 6. Namespace changed without a major version bump.
c=namespace
d=$(copy $c)
if edit "$d/c-core/platform/kernel/dg_kernel.h" "s.replace('DMAGUARD_V1', 'DMAGUARD_V2')"; then
	run_case $c "exports moved to namespace DMAGUARD_V2" "abi/exports/$kver" 1
else prep_failed $c; fi

# 7. A public constant changed value.
c=constant
d=$(copy $c)
if edit "$d/abi/include/dmaguard/pool.h" "s.replace('DMAGUARD_POOL_F_NODE\t\t0x00000001u', 'DMAGUARD_POOL_F_NODE\t\t0x00000002u').replace('DMAGUARD_POOL_F_ALL\t\t0x00000001u', 'DMAGUARD_POOL_F_ALL\t\t0x00000003u')"; then
	run_case $c "DMAGUARD_POOL_F_NODE 1 -> 2" abi/constants 0
else prep_failed $c; fi

# 8. Control, compatible: a new exported function, a field appended to the
#    size-carrying stats struct, a reserved field put to use, a new flag.
#    abi-check must pass, and the MODVERSIONS CRCs of the calls taking the
#    grown structs must not move (the file exporting them sees the structs
#    as incomplete types, see <dmaguard/pool.h>), so
#    modules built against the old Module.symvers still load.
c=compatible
d=$(copy $c)
if edit "$d/abi/include/dmaguard/pool.h" "s.replace('\t__aligned_u64 bad_free_double;\n};', '\t__aligned_u64 bad_free_double;\n\t__aligned_u64 planted_new;\n};').replace('DMAGUARD_ASSERT_SIZE(dmaguard_pool_stats, 104);', 'DMAGUARD_ASSERT_SIZE(dmaguard_pool_stats, 112);').replace(' * @__reserved0: must be 0\n', ' * @planted_flags2: a reserved field put to use\n', 1).replace('\t__u32 __reserved0;\n};\n\n/* Size of the first version; anything smaller is refused (-EINVAL). */\n#define DMAGUARD_POOL_OPTS_SIZE_VER0', '\t__u32 planted_flags2;\n};\n\n/* Size of the first version; anything smaller is refused (-EINVAL). */\n#define DMAGUARD_POOL_OPTS_SIZE_VER0').replace('(dmaguard_pool_opts, __reserved0, 44)', '(dmaguard_pool_opts, planted_flags2, 44)').replace('#define DMAGUARD_POOL_F_ALL\t\t0x00000001u', '#define DMAGUARD_POOL_F_PLANTED\t0x00000002u\n#define DMAGUARD_POOL_F_ALL\t\t0x00000003u').replace(' * @bad_free_double: rejected frees of a block that was already free\n', ' * @bad_free_double: rejected frees of a block that was already free\n * @planted_new: a field appended\n') + '\n/**\n * dmaguard_planted_new() - a function added in a minor version\n *\n * Return: 1.\n */\nunsigned int dmaguard_planted_new(void);\n'" &&
   edit "$d/abi/shim/dg_pool_conv.c" "s.replace('o->__reserved0', 'o->planted_flags2')" &&
   edit "$d/abi/shim/pool_abi.c" "s + '\nunsigned int dmaguard_planted_new(void)\n{\n\treturn 1;\n}\nDG_EXPORT(dmaguard_planted_new);\n'"; then
	run_case $c "added export, field appended to dmaguard_pool_stats, __reserved0 of the opts used, new flag" pass 1
	# The CRCs, against the tree's own build for the same kernel.
	main=$top/build/kernel/$kver/main/src/Module.symvers	# abi-check's build
	new=$top/build/kernel/$kver/abi-planted-$c/src/Module.symvers
	moved=
	for sym in dmaguard_pool_create_opts dmaguard_pool_get_stats; do
		a=$(awk -v s=$sym '$2 == s { print $1 }' "$main" 2>/dev/null)
		b=$(awk -v s=$sym '$2 == s { print $1 }' "$new" 2>/dev/null)
		if [ -z "$a" ] || [ "$a" != "$b" ]; then
			moved+=" $sym(${a:-?}->${b:-?})"
		fi
	done
	if [ -z "$moved" ]; then
		echo "ok - abi/planted/$c-crc: MODVERSIONS CRCs of dmaguard_pool_create_opts/_get_stats unchanged by the grown structs"
	else
		echo "not ok - abi/planted/$c-crc: MODVERSIONS CRC moved:$moved (old consumers would not load)"
		rc=1
	fi
else prep_failed $c; fi

exit $rc
