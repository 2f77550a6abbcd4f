#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Coccinelle gate (make coccicheck / make check-cocci), spatch run directly
# (the headers packages carry no scripts/coccicheck).
#
# 1. Tree: every rule of semantic-patches/*.cocci in report mode over the
#    kernel C files (c-core, abi, tests/kmod, tests/consumers); any report
#    not excused by scripts/static/cocci-exceptions.txt fails the rule's
#    line. Every file must also parse (a function spatch cannot parse is a
#    function no rule looks at), unless excused there too.
# 2. Planted fixtures (tests/static/cocci/**/*.c): every rule over every
#    fixture, the report lines compared with <fixture>.expected
#    ("<rule>:<line>", one per report): one result line per fixture/rule.
# 3. Conversion: dma_pool-to-dmaguard in patch mode over the sample
#    driver, the result compared with sample_drv.converted, checked free of
#    dma_pool by the same rule in report mode, and built against the newest
#    kernel's headers with dmaguard's Module.symvers (so that modpost checks
#    every symbol and the DMAGUARD_V1 namespace import).
# 4. A whole driver directory: scripts/convert-driver.py over
#    tests/static/cocci/convert-dir (a pool held in a local header), built
#    the same way, and its planted case (the rule alone misses files).
#
# Prints one "ok - ..." / "not ok - ..." line per case on stdout, details on
# stderr; exits 1 when any case failed. COCCI_JOBS: spatch -j (default 2).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
rules_dir=semantic-patches
fixtures=tests/static/cocci
exceptions=scripts/static/cocci-exceptions.txt
out=$top/build/cocci
jobs=${COCCI_JOBS:-2}
fail=0

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

command -v spatch >/dev/null || { notok "cocci: spatch not installed (make deps)"; exit 1; }
rm -rf "$out"
mkdir -p "$out"

SPATCH=(spatch --very-quiet --no-show-diff -j "$jobs"
	--macro-file scripts/static/cocci-macros.h
	-I abi/include -I c-core -I c-core/platform/kernel)

# Run one rule in report mode over files; print "path:line: message" lines.
# spatch's exit status goes to $out/<rule>.rc, its stderr to <rule>.err.
report() {
	local rule=$1 rc
	shift
	"${SPATCH[@]}" -D report --sp-file "$rules_dir/$rule.cocci" "$@" \
		> "$out/$rule.out" 2> "$out/$rule.err"
	rc=$?
	echo $rc > "$out/$rule.rc"
	grep -E "^[^ :]+:[0-9]+:[0-9]+: $rule: " "$out/$rule.out" |
		sort -t: -k1,1 -k2,2n
}

# Did the last report() of the rule fail? Then say why on stderr.
spatch_failed() {
	local rule=$1
	if [ "$(cat "$out/$rule.rc" 2>/dev/null)" != 0 ] ||
	   grep -qE 'Error|error|exception|Failure|failure|parse error' "$out/$rule.err"; then
		cat "$out/$rule.err" >&2
		return 0
	fi
	return 1
}

files_in() {
	git ls-files -co --exclude-standard -- "$@" |
		while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done
}

mapfile -t rules < <(cd "$rules_dir" && ls *.cocci | sed 's/\.cocci$//')
[ ${#rules[@]} -gt 0 ] || { notok "cocci: no rule in $rules_dir"; exit 1; }
mapfile -t tree < <(files_in 'c-core/*.c' 'abi/*.c' 'tests/kmod/*.c' \
	'tests/consumers/*.c' | grep -v '^c-core/platform/user/')

# ---- 1. the tree ---------------------------------------------------------
bad_parse=()
parse_excused=()
for f in "${tree[@]}"; do
	spatch --parse-c --macro-file scripts/static/cocci-macros.h \
		-I abi/include -I c-core -I c-core/platform/kernel "$f" \
		> "$out/parse.log" 2>&1
	grep -q 'nb bad = 0 ' "$out/parse.log" && continue
	if grep -q "^parse|$f|." "$exceptions" 2>/dev/null; then
		parse_excused+=("$f")
	else
		grep -A3 'parse error' "$out/parse.log" | head -8 >&2
		bad_parse+=("$f")
	fi
done
if [ ${#bad_parse[@]} -eq 0 ]; then
	if [ ${#parse_excused[@]} -eq 0 ]; then
		ok "cocci: all ${#tree[@]} tree files parse"
	else
		ok "cocci: $(( ${#tree[@]} - ${#parse_excused[@]} )) of ${#tree[@]} tree files parse, excused: ${parse_excused[*]}"
	fi
else
	notok "cocci: spatch cannot parse all of: ${bad_parse[*]}"
fi

for rule in "${rules[@]}"; do
	got=$(report "$rule" "${tree[@]}")
	excused=0
	left=()
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		path=${line%%:*}
		if grep -q "^$rule|$path|." "$exceptions" 2>/dev/null; then
			excused=$((excused + 1))
		else
			left+=("$line")
		fi
	done <<<"$got"
	if spatch_failed "$rule"; then
		notok "cocci $rule: tree: spatch failed"
	elif [ ${#left[@]} -eq 0 ]; then
		ok "cocci $rule: tree: 0 reports in ${#tree[@]} files ($excused excused)"
	else
		printf '%s\n' "${left[@]}" >&2
		notok "cocci $rule: tree: ${#left[@]} reports"
	fi
done

# ---- 2. planted fixtures ----------------------------------------------------
mapfile -t fixture_files < <(files_in "$fixtures/*.c")
for rule in "${rules[@]}"; do
	got=$(report "$rule" "${fixture_files[@]}")
	if spatch_failed "$rule"; then
		notok "cocci $rule: fixtures: spatch failed"
		continue
	fi
	for fx in "${fixture_files[@]}"; do
		expected=${fx%.c}.expected
		if [ ! -f "$expected" ]; then
			notok "cocci $rule on $fx: no $expected"
			continue
		fi
		want=$(sed -n "s/^$rule:\([0-9][0-9]*\)\$/\1/p" "$expected" | sort -n | paste -sd, -)
		have=$(grep -F "$fx:" <<<"$got" | cut -d: -f2 | sort -n | paste -sd, -)
		n=$(printf '%s' "$want" | tr ',' '\n' | grep -c . || true)
		if [ "$want" = "$have" ]; then
			ok "cocci $rule on $fx: $n reports${want:+ at lines $want}"
		else
			grep -F "$fx:" <<<"$got" >&2
			notok "cocci $rule on $fx: want lines [${want}], got [${have}]"
		fi
	done
done

# ---- 3. conversion of the sample driver -------------------------------------
conv_src=$fixtures/convert/sample_drv.c
conv_want=$fixtures/convert/sample_drv.converted
conv=$out/convert
mkdir -p "$conv"
if spatch --very-quiet -D patch --sp-file "$rules_dir/dma_pool-to-dmaguard.cocci" \
	"$conv_src" -o "$conv/sample_drv.c" > "$conv/spatch.log" 2>&1 &&
   [ -s "$conv/sample_drv.c" ]; then
	if diff -u "$conv_want" "$conv/sample_drv.c" >&2; then
		ok "cocci dma_pool-to-dmaguard: sample driver converted as in $conv_want"
	else
		notok "cocci dma_pool-to-dmaguard: conversion differs from $conv_want"
	fi
	left=$(report dma_pool-to-dmaguard "$conv/sample_drv.c" | grep -c . || true)
	if [ "$left" -eq 0 ] && ! grep -qE '\bdma_pool_[a-z_]+\(|struct dma_pool\b' "$conv/sample_drv.c"; then
		ok "cocci dma_pool-to-dmaguard: converted driver has no dma_pool left"
	else
		notok "cocci dma_pool-to-dmaguard: converted driver still uses dma_pool"
	fi
else
	cat "$conv/spatch.log" >&2
	notok "cocci dma_pool-to-dmaguard: spatch -D patch failed on $conv_src"
fi

# Build it: dmaguard's Module.symvers from the normal build if there is one,
# else from a build of dmaguard.ko made here.
kver=$(scripts/kernels.sh --distro | tail -n1)
symvers=$top/build/kernel/$kver/main/src/Module.symvers
if [ -n "$kver" ] && [ -s "$conv/sample_drv.c" ]; then
	if ! grep -q dmaguard_pool_alloc "$symvers" 2>/dev/null; then
		dgb=$out/dmaguard-$kver
		mkdir -p "$dgb"
		cp -rs "$top"/{Kbuild,c-core,abi,tests} "$dgb/"
		make -s -C "/lib/modules/$kver/build" M="$dgb" modules \
			> "$out/dmaguard-build.log" 2>&1
		symvers=$dgb/Module.symvers
	fi
	cp "$fixtures/convert/Kbuild" "$conv/Kbuild"
	if make -C "/lib/modules/$kver/build" M="$conv" \
		DG_ABI_INCLUDE="$top/abi/include" \
		KBUILD_EXTRA_SYMBOLS="$symvers" modules > "$conv/build.log" 2>&1 &&
	   [ -f "$conv/sample_drv.ko" ] &&
	   ! grep -qE 'warning:|WARNING:|error:|ERROR:' "$conv/build.log"; then
		ok "cocci dma_pool-to-dmaguard: converted sample driver builds for $kver"
	else
		grep -E 'warning|WARNING|error|ERROR' "$conv/build.log" >&2
		notok "cocci dma_pool-to-dmaguard: converted sample driver does not build for $kver (log $conv/build.log)"
	fi
fi

# ---- 4. conversion of a whole driver directory ------------------------------
# scripts/convert-driver.py (make convert) on a module whose pool pointer
# is in a local header and one of whose files only allocates: every file
# converted, one import in the module that calls dmaguard and none in the
# one that only names the struct, and both build with modpost checking.
# Planted: the rule alone on the file that creates the pool (the
# single-file way) leaves the header and the allocating file behind.
dir_src=$fixtures/convert-dir
dir_out=$out/convert-dir
if scripts/convert-driver.py "$dir_src" "$dir_out" > "$out/convert-dir.log" 2>&1; then
	left=$(grep -rlE '\bdma_pool_[a-z_]+\(|struct dma_pool\b' "$dir_out" | grep -c . || true)
	imports=$(grep -l 'DMAGUARD_IMPORT_NS()' "$dir_out"/*.c | xargs -r -n1 basename | paste -sd, -)
	if [ "$left" -eq 0 ] && [ "$imports" = ringdrv_main.c ] &&
	   grep -q 'dmaguard/dmaguard.h' "$dir_out/ringdrv_ring.c" &&
	   grep -q 'dmaguard/dmaguard.h' "$dir_out/ringdrv.h"; then
		ok "cocci convert-driver: $dir_src: every file converted, one import (ringdrv_main.c)"
	else
		cat "$out/convert-dir.log" >&2
		notok "cocci convert-driver: $dir_src: $left files keep dma_pool, imports in [$imports]"
	fi
	if [ -n "$kver" ]; then
		if make -C "/lib/modules/$kver/build" M="$dir_out" \
			KCFLAGS="-I$top/abi/include" \
			KBUILD_EXTRA_SYMBOLS="$symvers" modules > "$dir_out/build.log" 2>&1 &&
		   [ -f "$dir_out/ringdrv.ko" ] && [ -f "$dir_out/ringstat.ko" ] &&
		   ! grep -qE 'warning:|WARNING:|error:|ERROR:' "$dir_out/build.log" &&
		   [ "$(modinfo -F import_ns "$dir_out/ringdrv.ko")" = DMAGUARD_V1 ] &&
		   [ -z "$(modinfo -F import_ns "$dir_out/ringstat.ko")" ]; then
			ok "cocci convert-driver: converted $dir_src builds for $kver with 0 warnings (ringdrv imports DMAGUARD_V1, ringstat nothing)"
		else
			grep -E 'warning|WARNING|error|ERROR' "$dir_out/build.log" >&2
			notok "cocci convert-driver: converted $dir_src does not build for $kver (log $dir_out/build.log)"
		fi
	fi
else
	cat "$out/convert-dir.log" >&2
	notok "cocci convert-driver: $dir_src: the tool failed"
fi
planted=$out/convert-dir-planted
cp -r "$dir_src" "$planted"
spatch --very-quiet -D patch --in-place --sp-file "$rules_dir/dma_pool-to-dmaguard.cocci" \
	"$planted/ringdrv_main.c" > "$planted/spatch.log" 2>&1
missed=$(grep -lE '\bdma_pool_[a-z_]+\(|struct dma_pool\b' "$planted"/*.[ch] | xargs -r -n1 basename | paste -sd, -)
if [ "$missed" = "ringdrv.h,ringdrv_ring.c" ]; then
	ok "cocci convert-driver: planted: the rule on ringdrv_main.c alone leaves $missed, which the tool converts"
else
	notok "cocci convert-driver: planted: the rule alone left [$missed], not the header and the allocating file"
fi
exit $fail
