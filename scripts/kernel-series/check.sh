#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-kernel-series`: the patch series of `make kernel-series`
# regenerated and judged, one line per case:
#
#   kernel-series/generate      generate.py wrote it from today's sources
#   kernel-series/reproducible  a second run writes the same bytes
#   kernel-series/hardened      the hardened kernel of the cache was built
#                               from exactly these patches (each patch
#                               compiled with W=1 -Werror on its own:
#                               scripts/kernel/build.sh), so no drift
#   kernel-series/checkpatch/<patch>   checkpatch.pl --strict clean, but for
#                               the entries of checkpatch-exceptions.txt
#   kernel-series/sparse        sparse -Wcast-from-as over the hardened
#                               kernel's mm/dmapool.c: no report (chunk
#                               memory is the __dma address space: never
#                               dereferenced, never cast but through the
#                               two helpers)
#   kernel-series/api           the series touches mm/dmapool.c and
#                               mm/dmapool_test.c only (include/linux/
#                               dmapool.h stays as it is), exports what the
#                               tree exported, keeps the sysfs "pools"
#                               header and line format
#   kernel-series/planted/<case>  each of these checks fails on a series
#                               with a planted violation
#
#   check.sh RESULTS_FILE
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/scripts/kernel-series
. "$top/scripts/kernel/lib.sh"
results=${1:?usage: check.sh RESULTS_FILE}
checkpatch=$top/build/tools/linux/scripts/checkpatch.pl
out=$top/build/kernel-series/6.12
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
: > "$results"

ok() { echo "ok - kernel-series/$1" >> "$results"; }
notok() { echo "not ok - kernel-series/$1${2:+ # $2}" >> "$results"; }
judge() {
	local name=$1
	shift
	if "$@" > "$work/log" 2>&1; then
		ok "$name"
	else
		notok "$name" "$(tail -n 3 "$work/log" | tr '\n' ' ')"
	fi
}

src=$("$top/scripts/kernel/build.sh" --source) || { notok generate "no linux-source tree"; exit 1; }

judge generate python3 "$here/generate.py" --src "$src" --out "$out"
judge reproducible bash -c "python3 '$here/generate.py' --src '$src' --out '$work/again' > /dev/null &&
	diff -r '$out' '$work/again'"

hardened=$kernel_cache/hardened-$(kernel_flavour_key hardened)
if [ ! -s "$hardened/.release" ]; then
	notok hardened "no hardened kernel for this series in the cache: make kernels"
else
	# The cover letter is not built; its text is not in the key.
	judge hardened diff -r -x 0000-cover-letter.patch "$out" "$hardened.src/series"
fi

# checkpatch_series DIR: every patch of DIR clean but for the exceptions;
# prints the offending lines.
checkpatch_one() {
	local p=$1
	perl "$checkpatch" --strict --no-tree --terse --show-types "$p" 2>&1 |
	python3 -c '
import re, sys
name = re.sub(r"^\d{4}-", "", sys.argv[1].rsplit("/", 1)[-1])
excuses = []
for ln in open(sys.argv[2]):
    if ln.strip() and not ln.startswith("#"):
        f = ln.rstrip("\n").split("|")
        if f[0] == name:
            excuses.append((f[1], f[2]))
for ln in sys.stdin:
    m = re.match(r"^\S+:\d+: (ERROR|WARNING|CHECK):([A-Z_0-9]+): (.*)$", ln.rstrip("\n"))
    if not m:
        continue
    key = (m.group(2), m.group(3))
    if key in excuses:
        excuses.remove(key)	# one entry, one occurrence
    else:
        print(ln.rstrip("\n"))
' "$p" "$here/checkpatch-exceptions.txt"
}

for p in "$out"/*.patch; do
	[ "$(basename "$p")" != 0000-cover-letter.patch ] || continue
	bad=$(checkpatch_one "$p")
	if [ -z "$bad" ]; then
		ok "checkpatch/$(basename "$p" .patch)"
	else
		notok "checkpatch/$(basename "$p" .patch)" "$(head -n 2 <<<"$bad" | tr '\n' ' ')"
	fi
done

# sparse_line: the sparse command kbuild runs on the hardened kernel's
# mm/dmapool.c (C=2 V=1), run from its O= directory, without the
# dependency file it would write there.
sparse_line() {
	# Not silent even under `make -s`: the command line is the point.
	env -u MAKEFLAGS -u MFLAGS make -C "$hardened.src/linux" O="$hardened" \
		"${kernel_make_args[@]}" C=2 V=1 CHECK="sparse -Wcast-from-as" \
		mm/dmapool.o 2>&1 |
		grep -E '^ *sparse .*/mm/dmapool\.c$' | tail -n 1 |
		sed -e 's/^ *//' -e 's/ -Wp,-MMD,[^ ]*//'
}

# sparse_clean LINE FILE: sparse LINE run on FILE reports nothing.
sparse_clean() {
	local out
	out=$(cd "$hardened" && eval "${1% *} '$2'" 2>&1 | grep -F "$(basename "$2"):" || true)
	[ -z "$out" ] || { echo "$out"; return 1; }
}

if [ -s "$hardened/.release" ]; then
	line=$(sparse_line)
	if [ -z "$line" ]; then
		notok sparse "kbuild ran no sparse on mm/dmapool.c"
	else
		judge sparse sparse_clean "$line" "$hardened.src/linux/mm/dmapool.c"
		# Planted: a block's memory cast to a plain pointer.
		cp "$hardened.src/linux/mm/dmapool.c" "$work/dmapool.c"
		printf '\nstatic char __maybe_unused planted(struct dma_chunk *c)\n{\n\treturn *(char *)c->blocks;\n}\n' \
			>> "$work/dmapool.c"
		if sparse_clean "$line" "$work/dmapool.c" > "$work/log" 2>&1; then
			notok planted/sparse "sparse passed a cast that removes __dma"
		elif grep -q "removes address space '__dma'" "$work/log"; then
			ok planted/sparse
		else
			notok planted/sparse "sparse failed otherwise: $(head -n 2 "$work/log" | tr '\n' ' ')"
		fi
	fi
fi

# api_check TREE_ORIG TREE_NEW PATCHDIR: what the kernel's users see stays.
api_check() {
	local orig=$1 new=$2 dir=$3 files
	files=$(grep -h '^+++ b/' "$dir"/0*.patch | sed 's|^+++ b/||' | sort -u)
	if [ "$files" != "$(printf 'mm/dmapool.c\nmm/dmapool_test.c')" ]; then
		echo "the series touches: $(echo $files)"
		return 1
	fi
	local e1 e2
	e1=$(grep -oE '^EXPORT_SYMBOL[A-Z_]*\([a-z_]+\)' "$orig/mm/dmapool.c" | sort)
	e2=$(grep -oE '^EXPORT_SYMBOL[A-Z_]*\([a-z_]+\)' "$new/mm/dmapool.c" | sort)
	if [ "$e1" != "$e2" ]; then
		echo "exports differ: $(diff <(echo "$e1") <(echo "$e2") | grep '^[<>]' | tr '\n' ' ')"
		return 1
	fi
	# The sysfs file: same header, same field widths per pool line.
	grep -q '"poolinfo - 0.1\\n"' "$new/mm/dmapool.c" || { echo "no poolinfo header"; return 1; }
	local f1 f2
	f1=$(grep -oE '"%-16s %4[a-z]+ %4[a-z]+ %4[a-z]+ %2[a-z]+\\n"' "$orig/mm/dmapool.c" |
	     sed -E 's/%([-0-9]+)[a-z]+/%\1/g')
	f2=$(grep -oE '"%-16s %4[a-z]+ %4[a-z]+ %4[a-z]+ %2[a-z]+\\n"' "$new/mm/dmapool.c" |
	     sed -E 's/%([-0-9]+)[a-z]+/%\1/g')
	[ -n "$f1" ] && [ "$f1" = "$f2" ] || { echo "pools line format: '$f1' -> '$f2'"; return 1; }
}

# apply_series DIR DEST: the two files of the tree with DIR's patches applied.
apply_series() {
	mkdir -p "$2/mm"
	cp "$src/mm/dmapool.c" "$src/mm/dmapool_test.c" "$2/mm/"
	local p
	for p in "$1"/0*.patch; do
		[ "$(basename "$p")" != 0000-cover-letter.patch ] || continue
		patch -d "$2" -p1 --fuzz=0 -s < "$p" || return 1
	done
}

if apply_series "$out" "$work/new" > "$work/log" 2>&1; then
	judge api api_check "$src" "$work/new" "$out"
else
	notok api "the series does not apply: $(tail -n 2 "$work/log" | tr '\n' ' ')"
fi

# Planted violations: each check above must fail on its own.
planted() {
	local name=$1
	shift
	if "$@" > "$work/log" 2>&1; then
		notok "planted/$name" "the check passed a planted violation"
	else
		ok "planted/$name"
	fi
}
# patch_with ERE: the last patch of the series with a line matching ERE.
patch_with() { grep -l -E "$1" "$out"/0*.patch | tail -n 1; }
# An export dropped from the final file.
cp -r "$work/new" "$work/no-export"
sed -i '/^EXPORT_SYMBOL(dma_pool_free);$/d' "$work/no-export/mm/dmapool.c"
planted export-dropped api_check "$src" "$work/no-export" "$out"
# A wider pools line.
cp -r "$work/new" "$work/wide"
sed -i 's/"%-16s %4llu /"%-20s %4llu /' "$work/wide/mm/dmapool.c"
planted pools-format api_check "$src" "$work/wide" "$out"
# A public header touched.
cp -r "$out" "$work/header"
sed -i '0,/^+++ b\/mm\/dmapool_test.c$/s//+++ b\/include\/linux\/dmapool.h/' \
	"$work/header/$(basename "$(patch_with '^\+\+\+ b/mm/dmapool_test.c$')")"
planted header-touched api_check "$src" "$work/new" "$work/header"
# Trailing whitespace on an added line.
cp "$(patch_with '^\+	int ret = 0;$')" "$work/style.patch"
sed -i '0,/^+\tint ret = 0;$/s//+\tint ret = 0; /' "$work/style.patch"
style_clean() { [ -z "$(checkpatch_one "$1")" ]; }
planted checkpatch style_clean "$work/style.patch"
# A series the hardened kernel was not built from.
cp -r "$out" "$work/drift"
sed -i '0,/^+ \* Chunk memory/s//+ * Chunk  memory/' \
	"$work/drift/$(basename "$(patch_with '^\+ \* Chunk memory')")"
planted drift diff -r "$work/drift" "$out"

! grep -q '^not ok' "$results"
