#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# VM harness self-test: prove the harness fails when it should. Boots each
# fixture spec tests/vm/harness-selftest/*.vmtest with the planted-failure
# module (tests/vm/harness-selftest/planted.c, built on its own M= dir, never
# in a normal spec) and checks the harness's result lines against the
# fixture's own comment lines:
#
#   #expect: PCRE     some result line must match
#   #reject: PCRE     no result line may match
#
# One line per fixture: "ok - vm-harness/<fixture>: harness verdict as
# expected", else "not ok - ... # what was missed". A fixture with a
# "backends:" line boots once per backend; its lines are judged together.
#
# Usage: selftest.sh [KVER]            build, boot all fixtures, judge
#        selftest.sh prepare KVER      build the fixture module
#        selftest.sh jobs KVER         print the boot commands (for a pool)
#        selftest.sh judge KVER        print the result lines
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fixtures=$top/tests/vm/harness-selftest

prepare() {
	KVER=$1 "$top/scripts/build-modules.sh" --src "$fixtures" --name selftest
}

# Every fixture boots under every backend it lists, whatever $BACKEND says;
# the shared-* fixtures share one boot (VM_SHARED=0 cannot split them).
jobs() {
	local f n shared=
	for f in "$fixtures"/*.vmtest; do
		for n in $(BACKEND='' vm_boots "harness-selftest/$(basename "$f" .vmtest)" "$f"); do
			rm -f "$vm_out/$1/$n.results"
			case $n in
			harness-selftest/shared-*) shared+="$n $f"$'\n' ;;
			*) vm_job "$1" "$n" "$f" "$top/build/kernel/$1/selftest/ko" ;;
			esac
		done
	done
	printf '%s' "$shared" |
		VM_SHARED=1 vm_shared_jobs "$1" "$top/build/kernel/$1/selftest/ko"
}

judge() {
	local f n fx res line kind re miss
	for f in "$fixtures"/*.vmtest; do
		fx=$(basename "$f" .vmtest)
		res=$(for n in $(BACKEND='' vm_boots "harness-selftest/$fx" "$f"); do
			vm_results "$1" "$n"
		done)
		n=harness-selftest/$fx
		miss=
		while IFS= read -r line; do
			kind=${line%%:*}
			re=${line#*: }
			case $kind in
			'#expect')
				grep -qP -- "$re" <<<"$res" ||
					miss+="${miss:+; }no line matches /$re/" ;;
			'#reject')
				! grep -qP -- "$re" <<<"$res" ||
					miss+="${miss:+; }a line matches /$re/" ;;
			esac
		done < <(grep -E '^#(expect|reject): ' "$f")
		if [ -z "$miss" ]; then
			echo "ok - vm-harness/$fx: harness verdict as expected"
		else
			echo "not ok - vm-harness/$fx # $miss (log: $vm_out/$1/$n.log)"
		fi
	done
}

vm_fixture_main "$@"
