#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch gate (make checkpatch / make check-checkpatch).
#
# checkpatch.pl --strict --no-tree (extracted from the linux-source tarball
# into build/tools/linux/ by scripts/deps.sh) over every kernel C file and
# header of the tree. One result line per file: "ok" when every message
# of the file is excused by one entry of the exceptions file, else "not
# ok" with the messages left on stderr.
#
# Exceptions (scripts/static/checkpatch-exceptions.txt), one a line:
#   <path>|<TYPE>|<message as checkpatch prints it>|<reason>
# An entry excuses one occurrence (list it twice for two); line numbers
# are not part of it, so edits elsewhere in a file do not invalidate it.
# Entries that match nothing are printed as stale on stderr.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
checkpatch=$top/build/tools/linux/scripts/checkpatch.pl
exceptions=$top/scripts/static/checkpatch-exceptions.txt
fail=0

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

[ -x "$checkpatch" ] || [ -f "$checkpatch" ] ||
	{ notok "checkpatch: $checkpatch missing (make deps)"; exit 1; }

# Kernel C: the core and its kernel glue, the ABI, in-kernel tests,
# consumer drivers, and the static-analysis fixtures. The userspace side
# (c-core/platform/user, tests/unit, tests/bench, fuzz) is not kernel code.
kernel_files() {
	git ls-files -co --exclude-standard -- \
		'c-core/*.c' 'c-core/*.h' \
		'abi/*.c' 'abi/*.h' \
		'tests/kmod/*.c' 'tests/kmod/*.h' 'tests/kmod-rust/*.rs' \
		'tests/consumers/*.c' 'tests/consumers/*.h' \
		'tests/static/*.c' 'tests/static/*.h' |
		grep -v -e '^c-core/platform/user/' -e '^tests/static/checkpatch/' |
		while IFS= read -r f; do [ -f "$f" ] && echo "$f"; done | sort -u
}

files=$(kernel_files)
[ -n "$files" ] || { notok "checkpatch: no kernel C file found"; exit 1; }

# Exceptions, minus comments, as "path|TYPE|message" -> reason.
declare -A budget=()
if [ -f "$exceptions" ]; then
	while IFS='|' read -r path type msg reason; do
		case $path in '' | '#'*) continue ;; esac
		if [ -z "${reason// /}" ]; then
			notok "checkpatch: exception without a reason: $path|$type|$msg"
			continue
		fi
		key="$path|$type|$msg"
		budget[$key]=$(( ${budget[$key]:-0} + 1 ))
	done < "$exceptions"
fi

# checkpatch.pl takes about a second a file: run them side by side, one
# output file each, then judge in order.
outdir=$top/build/checkpatch
rm -rf "$outdir"
mkdir -p "$outdir"
export checkpatch outdir
printf '%s\n' $files | xargs -P "$(nproc 2>/dev/null || echo 2)" -I{} \
	sh -c 'mkdir -p "$outdir/$(dirname "{}")" &&
	       perl "$checkpatch" --strict --no-tree -f --terse --show-types \
		--no-summary --color=never "{}" > "$outdir/{}.out" 2>&1'

nfiles=0
nexcused=0
for f in $files; do
	nfiles=$((nfiles + 1))
	# "file:line: LEVEL:TYPE: message" with --terse --show-types
	if [ ! -f "$outdir/$f.out" ]; then
		notok "checkpatch $f: checkpatch.pl did not run"
		continue
	fi
	out=$(cat "$outdir/$f.out")
	left=()
	excused=0
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		# file:line: LEVEL:TYPE: message
		rest=${line#"$f":*: }
		level_type=${rest%%: *}
		msg=${rest#*: }
		type=${level_type#*:}
		key="$f|$type|$msg"
		if [ "${budget[$key]:-0}" -gt 0 ]; then
			budget[$key]=$(( budget[$key] - 1 ))
			excused=$((excused + 1))
		else
			left+=("$line")
		fi
	done <<<"$out"
	nexcused=$((nexcused + excused))
	if [ ${#left[@]} -eq 0 ]; then
		if [ "$excused" -gt 0 ]; then
			ok "checkpatch $f ($excused excused)"
		else
			ok "checkpatch $f"
		fi
	else
		printf '%s\n' "${left[@]}" >&2
		notok "checkpatch $f: ${#left[@]} messages"
	fi
done

# The gate itself: the planted fixture must give exactly its messages.
planted=tests/static/checkpatch/planted.c
want=$(grep -v '^#' "${planted%.c}.expected" | sort | paste -sd' ' -)
have=$(perl "$checkpatch" --strict --no-tree -f --terse --show-types \
	--no-summary --color=never "$planted" 2>&1 |
	sed -n -E 's/^[^:]+:([0-9]+): [A-Z]+:([A-Z0-9_]+): .*/\1:\2/p' |
	sort | paste -sd' ' -)
if [ -n "$want" ] && [ "$want" = "$have" ]; then
	ok "checkpatch planted fixture: exactly $want"
else
	notok "checkpatch planted fixture: want [$want], got [$have]"
fi

for key in "${!budget[@]}"; do
	[ "${budget[$key]}" -gt 0 ] &&
		echo "checkpatch: stale exception (matched nothing): $key" >&2
done
echo "checkpatch: $nfiles files, $nexcused messages excused" >&2
exit $fail
