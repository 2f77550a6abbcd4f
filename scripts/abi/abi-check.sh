#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make abi-check`: compare the ABI of the current tree with the committed
# baseline in abi/baseline/ and fail on any incompatible change. Prints one
# result line per rule ("ok - abi/..." / "not ok - abi/... # why"):
#
#   abi/headers/<h>     each public header compiles on its own (userspace,
#                       gcc; the umbrella header also with clang and g++)
#   abi/functions       declared functions: none removed, signatures equal
#   abi/structs         public struct layouts (scripts/abi/abi.py: append
#                       only to size-carrying structs, reserved fields reusable)
#   abi/constants       DMAGUARD_* macro values
#   abi/abidiff         libabigail's abidiff of the two abidw corpora: no
#                       change it classes as incompatible (its full report
#                       is kept in OUT/abidiff.txt)
#   abi/exports/<kver>  dmaguard.ko's Module.symvers, per kernel: baseline
#                       exports present, same namespace, declared == exported
#   abi/flavours/<kver>/...  (the tree's own check only) the production
#                       module exports no DMAGUARD_INTERNAL symbol, the test
#                       flavour (DMAGUARD_TEST_HOOKS=1) does, both export the
#                       same DMAGUARD_V1 CRCs and no variable
#                       (scripts/abi/flavours.py)
#   abi/dwarf-opaque/<kver>  (likewise) the object exporting the calls that
#                       take size-carrying structs has them as declarations
#                       only in its DWARF, which gendwarfksyms (6.14+)
#                       versions (scripts/abi/dwarf-opaque.py)
#
# The representation (abi.py dump) is built from the public headers alone,
# in userspace, so it is the same for every kernel; the exports come from
# the module built for each kernel (scripts/build-modules.sh, incremental).
#
# Usage: abi-check.sh [--src DIR] [--name NAME] [--out DIR] [--baseline DIR]
#   --src       tree to check (default: this repository); used by the
#               planted-change tests on a copy
#   --name      build directory name for build-modules.sh (default: main,
#               the production build `make modules` and the consumers
#               use: dmaguard.ko alone, whatever tests/ holds)
#   --out       where the current representation goes (default: build/abi)
#   --baseline  baseline directory (default: <src>/abi/baseline)
#   --no-modules  skip the module build and the exports check
# KVER= limits the kernels (scripts/kernels.sh).
# `abi-check.sh --update` rewrites abi/baseline/ from the current tree
# (a deliberate act, reviewed in the diff: `make abi-baseline`).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
src=$top
name=main
out=
baseline=
modules=1
update=0
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$(cd "$2" && pwd); shift 2 ;;
	--name) name=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--baseline) baseline=$2; shift 2 ;;
	--no-modules) modules=0; shift ;;
	--update) update=1; shift ;;
	*) echo "abi-check: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
out=${out:-$top/build/abi}
baseline=${baseline:-$src/abi/baseline}
abipy=$top/scripts/abi/abi.py
inc=$src/abi/include
rc=0
mkdir -p "$out"

line() {
	echo "$1"
	case $1 in not\ ok*) rc=1 ;; esac
}

# Every public header on its own, as a C11 userspace translation unit.
for h in "$inc"/dmaguard/*.h; do
	hn=$(basename "$h")
	if msg=$(printf '#include <dmaguard/%s>\n' "$hn" |
		 ${CC:-gcc} -std=gnu11 -Wall -Wextra -Werror -I"$inc" \
			-fsyntax-only -x c - 2>&1); then
		line "ok - abi/headers/$hn"
	else
		echo "$msg" >&2
		line "not ok - abi/headers/$hn # does not compile on its own"
	fi
done

# The umbrella header as bindgen (clang) and a C++ translation unit see it.
for tool in "clang -std=gnu11 -x c" "g++ -x c++"; do
	command -v "${tool%% *}" >/dev/null || continue
	# shellcheck disable=SC2086
	if msg=$(echo '#include <dmaguard/dmaguard.h>' |
		 $tool -Wall -Wextra -Werror -I"$inc" -fsyntax-only - 2>&1); then
		line "ok - abi/headers/dmaguard.h-${tool%% *}"
	else
		echo "$msg" >&2
		line "not ok - abi/headers/dmaguard.h-${tool%% *} # does not compile"
	fi
done

rm -rf "$out/current"
if ! python3 "$abipy" dump --include "$inc" --out "$out/current"; then
	line "not ok - abi/dump # could not build the ABI representation"
	exit 1
fi

# Module builds: Module.symvers per kernel. The tree's own check takes
# the production flavour from the main build (dmaguard.ko alone: the
# consumers link against the same) and builds the test flavour from a
# copy under OUT whose Kbuild has no tests/, so that an unrelated test
# module that does not build cannot fail the ABI.
declare -A symvers
flavours=0 iso=
if [ "$modules" = 1 ] && [ "$src" = "$top" ] && [ "$name" = main ]; then
	iso=$out/tree
	rm -rf "$iso"
	mkdir -p "$iso"
	cp -rp "$top/abi" "$top/c-core" "$iso/"
	sed '/^obj-m += tests\//d' "$top/Kbuild" > "$iso/Kbuild"
	flavours=1
fi
if [ "$modules" = 1 ]; then
	for kver in $("$top/scripts/kernels.sh" --distro); do
		# The production flavour, whatever the caller's environment.
		if DMAGUARD_TEST_HOOKS= KVER=$kver "$top/scripts/build-modules.sh" \
			--src "$src" --name "$name" >&2; then
			symvers[$kver]=$top/build/kernel/$kver/$name/src/Module.symvers
		else
			line "not ok - abi/exports/$kver # dmaguard.ko did not build"
		fi
	done
fi

if [ "$update" = 1 ]; then
	newest=$(printf '%s\n' "${!symvers[@]}" | sort -V | tail -n1)
	[ -n "$newest" ] || { echo "abi-check: --update needs a module build" >&2; exit 1; }
	mkdir -p "$baseline"
	cp "$out/current/abi.xml" "$out/current/functions.txt" \
		"$out/current/constants.txt" "$baseline/"
	python3 "$abipy" export-list "${symvers[$newest]}" DMAGUARD_V1 \
		> "$baseline/exports.txt"
	echo "abi-check: baseline written to $baseline (exports from $newest);" \
		"review with git diff" >&2
	exit $rc
fi

python3 "$abipy" compare "$baseline" "$out/current" > "$out/compare.txt"
cat "$out/compare.txt"
grep -q '^not ok' "$out/compare.txt" && rc=1

# libabigail's own verdict: bit 3 (8) = incompatible change, bits 0/1 =
# tool error. Bit 2 (4) is any change, which the policy above judges.
abidiff --no-default-suppression "$baseline/abi.xml" "$out/current/abi.xml" \
	> "$out/abidiff.txt" 2>&1
arc=$?
if [ $((arc & 11)) -ne 0 ]; then
	sed 's/^/  abidiff: /' "$out/abidiff.txt" >&2
	line "not ok - abi/abidiff # exit $arc: incompatible change or error (see $out/abidiff.txt)"
else
	line "ok - abi/abidiff # exit $arc$([ $arc -ne 0 ] && echo ', changes judged by abi/structs')"
fi

for kver in $(printf '%s\n' "${!symvers[@]}" | sort -V); do
	python3 "$abipy" exports "$baseline/exports.txt" "$out/current" \
		"$kver" "${symvers[$kver]}" || rc=1
	[ "$flavours" = 1 ] || continue
	python3 "$top/scripts/abi/dwarf-opaque.py" "$kver" \
		"$top/build/kernel/$kver/$name/src" || rc=1
	# The test flavour of the same copy (dmaguard.ko with its hooks; the
	# copy's Kbuild has no tests/): its exports against production's.
	b=$top/build/kernel/$kver
	if DMAGUARD_TEST_HOOKS=1 KVER=$kver "$top/scripts/build-modules.sh" \
		--src "$iso" --name abi-test >&2; then
		python3 "$top/scripts/abi/flavours.py" "$kver" \
			"${symvers[$kver]}" "$b/$name/ko/dmaguard.ko" \
			"$b/abi-test/src/Module.symvers" \
			"$b/abi-test/ko/dmaguard.ko" || rc=1
	else
		line "not ok - abi/flavours/$kver # test flavour did not build"
	fi
done
exit $rc
