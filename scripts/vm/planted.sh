#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Planted core regressions: proof that the VM specs catch a known bug in the
# core. Each tests/vm/planted/<case>.patch is a change to the sources of
# dmaguard.ko; comment lines before its diff say where it must show:
#
#   #spec: NAME       a spec to boot (tests/vm/NAME.vmtest, or a KCSAN
#                     copy, "<spec>-smp<N>": scripts/vm/lib.sh,
#                     vm_kcsan_specs); may repeat
#   #backend: NAME    the DMA backend to boot it under (vmtest.py)
#   #expect: PCRE     some result line of those boots must match; may repeat
#   #with: NAME       a spec booted before the #spec: ones, sharing their
#                     boot as in check-vm (vmtest.py, SHARED BOOTS), so
#                     that the case proves a shared boot pins the finding
#                     on its spec, not on the spec before it (before: a
#                     red spec sends the specs after it to a new boot,
#                     which the harness self-test proves); it must stay
#                     green; may repeat
#   #kernel: ERE      boot the first kernel of scripts/kernels.sh (then
#                     --kcsan) whose
#                     version matches (e.g. "-dmaguard-debug$" for a KASAN,
#                     lockdep or kmemleak finding); default: the KVER the
#                     script is given (the newest Debian kernel)
#
# For each case, the patch is applied to a copy of the sources of
# dmaguard.ko (Kbuild without tests/, abi/, c-core/: build/vm-planted/.tree/
# <kver>, one per kernel, made pristine again before each case; never to
# the tree; no fuzz), dmaguard.ko (test flavour) is built from it for the
# case's kernel and each spec boots with the tree's test modules and that
# dmaguard.ko. One line per case:
#
#   ok - vm-planted/<case>: <spec>@<backend> red: <first line matched>
#   not ok - vm-planted/<case> # <why>
#
# It is "not ok" when the patch does not apply (regenerate it against the
# current core: it then proves nothing), when that dmaguard.ko does not
# build, when an #expect line matches nothing, when no kernel matches its
# #kernel: line (a KVER= list that leaves it out gives an "ok ... # SKIP"
# line instead), or when the same boot of the
# unpatched tree (check-vm's, if it has one) matches it too: a spec that is
# red anyway proves nothing. Logs: build/vm/<kver>/planted/<case>/.
#
# Usage: planted.sh [KVER]          prepare, boot and judge every case (the
#                                   tree's own modules must be built:
#                                   `make vm-planted` does it)
#        planted.sh prepare KVER    copy, patch and build (always exits 0;
#                                   failures are judged)
#        planted.sh jobs KVER       print the boot commands (for a pool)
#        planted.sh judge KVER      print the result lines
#        PLANTED=GLOB planted.sh ...  only the cases whose name matches
#        planted.sh applies         only whether each patch still applies
#                                   to the tree (no fuzz, no build, no
#                                   boot): "ok - planted-applies/<case>",
#                                   in seconds (make check-planted)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cases=$top/tests/vm/planted
work=$top/build/vm-planted

# header PATCH KEY: the values of the "#KEY: value" lines of a patch.
header() {
	sed -n "s/^#$2: //p" "$1"
}

# kver_of PATCH KVER: the kernel a case boots (its #kernel: line, or KVER);
# nothing if no kernel matches.
kver_of() {
	local re
	re=$(header "$1" kernel)
	if [ -z "$re" ]; then
		echo "$2"
	else
		# Both lists first: a grep that stops reading would kill the
		# second kernels.sh (SIGPIPE, fatal under pipefail).
		printf '%s\n' "$("$top/scripts/kernels.sh")" \
			"$("$top/scripts/kernels.sh" --kcsan)" |
			grep -E -m1 -- "$re" || true
	fi
}

# spec_file NAME: the spec a "#spec:" or "#with:" line names: tests/vm/
# NAME.vmtest, or a KCSAN copy (vm_kcsan_specs: NAME is "<spec>-smp<N>").
spec_file() {
	if [ -f "$top/tests/vm/$1.vmtest" ]; then
		echo "$top/tests/vm/$1.vmtest"
	else
		vm_kcsan_specs | awk -v n="$1" '$1 == n { print $2 }'
	fi
}

# case_kver KVER PATCH: a fresh build/vm-planted/<case>/ holding the case's
# kernel (file kver), or the reason it has none (file status).
case_kver() {
	local kver c re
	c=$(basename "$2" .patch)
	rm -rf "${work:?}/$c"
	mkdir -p "$work/$c"
	kver=$(kver_of "$2" "$1")
	if [ -n "$kver" ]; then
		echo "$kver" > "$work/$c/kver"
		return
	fi
	re=$(header "$2" kernel)
	if [ -n "${KVER:-}" ] &&
	   printf '%s\n' "$(KVER= "$top/scripts/kernels.sh")" \
		   "$(KVER= "$top/scripts/kernels.sh" --kcsan)" | grep -E -- "$re" >/dev/null; then
		echo "skip: KVER=$KVER leaves out its kernel /$re/" > "$work/$c/status"
	else
		echo "no kernel matches #kernel: $re (make kernels)" > "$work/$c/status"
	fi
}

# restore TREE: make TREE the pristine copy again. A file that differs is
# copied back with a new time stamp, so that kbuild rebuilds what the case
# before changed; a file the pristine copy lacks is removed.
restore() {
	local f
	(cd "$1" && find . -type f) | while IFS= read -r f; do
		if [ ! -f "$work/.pristine/$f" ]; then
			rm -f "$1/$f"
		elif ! cmp -s "$work/.pristine/$f" "$1/$f"; then
			cp "$work/.pristine/$f" "$1/$f"
		fi
	done
	cp -rn "$work/.pristine/." "$1/"
}

# prepare_kernel KVER PATCH...: build the cases of one kernel one after
# another in one build directory (build/kernel/KVER/planted/), each from
# the pristine tree with its patch applied, so that kbuild compiles again
# only the files this case and the one before it changed; each case's
# modules are copied to build/kernel/KVER/planted-<case>/ko/.
prepare_kernel() {
	local kver=$1 p c t=$work/.tree/$1 out=$top/build/kernel/$1
	shift
	mkdir -p "$t"
	for p in "$@"; do
		c=$(basename "$p" .patch)
		restore "$t"
		if ! patch -p1 -F0 -N -s --no-backup-if-mismatch -r - -d "$t" < "$p" \
			> "$work/$c/patch.log" 2>&1; then
			echo "patch does not apply to the current core: $(head -c 300 "$work/$c/patch.log" | tr '\n' ' ')" > "$work/$c/status"
			continue
		fi
		# The test flavour: the tree's test modules use its hooks.
		if ! DMAGUARD_TEST_HOOKS=1 KVER=$kver "$top/scripts/build-modules.sh" \
			--src "$t" --name planted > "$work/$c/build.log" 2>&1; then
			echo "dmaguard.ko did not build with the patch (see $work/$c/build.log)" > "$work/$c/status"
			continue
		fi
		rm -rf "$out/planted-$c"
		mkdir -p "$out/planted-$c"
		cp -r "$out/planted/ko" "$out/planted-$c/"
		echo ok > "$work/$c/status"
	done
}

prepare() {
	local p k n=0 jobs
	local -A by_kver=()
	jobs=$(nproc 2>/dev/null || echo 2)
	# The pristine sources of dmaguard.ko: Kbuild without tests/.
	rm -rf "$work/.pristine"
	mkdir -p "$work/.pristine"
	(cd "$top" && git ls-files -co --exclude-standard -- abi c-core Kbuild 2>/dev/null ||
		find abi c-core Kbuild -type f) |
		(cd "$top" && xargs cp --parents -t "$work/.pristine")
	sed -i '/^obj-m += tests\//d' "$work/.pristine/Kbuild"
	for p in "$cases"/${PLANTED:-*}.patch; do
		[ -f "$p" ] || continue
		case_kver "$1" "$p"
		k=$(cat "$work/$(basename "$p" .patch)/kver" 2>/dev/null) || continue
		by_kver[$k]+=" $p"
	done
	# One kernel's cases after each other, two kernels at a time (a small
	# module: kbuild's own start and modpost keep one CPU busy), the
	# kernel with the most cases first.
	for k in $(for k in "${!by_kver[@]}"; do
			echo "$(wc -w <<<"${by_kver[$k]}") $k"
		done | sort -rn | cut -d' ' -f2); do
		[ $((n++)) -lt "$jobs" ] || wait -n
		# shellcheck disable=SC2086
		prepare_kernel "$k" ${by_kver[$k]} &
	done
	wait
}

# boots PATCH [KEY]: the boot names of a case's "#spec:" lines (KEY=with:
# its "#with:" lines), "planted/<case>/<spec>@<backend>".
boots() {
	local c s
	c=$(basename "$1" .patch)
	for s in $(header "$1" "${2:-spec}"); do
		echo "planted/$c/$s@$(header "$1" backend)"
	done
}

jobs() {
	local p n c s k
	for p in "$cases"/${PLANTED:-*}.patch; do
		[ -f "$p" ] || continue
		c=$(basename "$p" .patch)
		[ "$(cat "$work/$c/status" 2>/dev/null)" = ok ] || continue
		k=$(cat "$work/$c/kver")
		for n in $(boots "$p" with) $(boots "$p"); do
			s=${n#planted/"$c"/}
			rm -f "$vm_out/$k/$n.results"
			echo "$n $(spec_file "${s%@*}")"
		done | vm_shared_jobs "$k" "$top/build/kernel/$k/test/ko" \
			"$top/build/kernel/$k/planted-$c/ko"
	done
}

judge() {
	local p c n res ctl re hit first why status k
	for p in "$cases"/${PLANTED:-*}.patch; do
		[ -f "$p" ] || continue
		c=$(basename "$p" .patch)
		status=$(cat "$work/$c/status" 2>/dev/null || echo "not prepared")
		case $status in
		ok) ;;
		skip:*) echo "ok - vm-planted/$c # SKIP ${status#skip: }"; continue ;;
		*) echo "not ok - vm-planted/$c # $status"; continue ;;
		esac
		k=$(cat "$work/$c/kver")
		res=$(for n in $(boots "$p"); do vm_results "$k" "$n"; done)
		# The unpatched tree's own boots of the same specs, if any.
		ctl=$(for n in $(boots "$p"); do
			n=${n#planted/"$c"/}
			n=${n%@direct}
			cat "$vm_out/$k/$n.results" 2>/dev/null || true
		done)
		why=
		first=
		while IFS= read -r re; do
			hit=$(grep -m1 -P -- "$re" <<<"$res" || true)
			if [ -z "$hit" ]; then
				why+="${why:+; }no result line matches /$re/"
			elif grep -qP -- "$re" <<<"$ctl"; then
				why+="${why:+; }the unpatched tree fails /$re/ too"
			fi
			first=${first:-$hit}
		done < <(header "$p" expect)
		[ -n "$(header "$p" expect)" ] || why="no #expect: line"
		# A #with: spec shares the boot to show the finding is not
		# blamed on it: it must stay green.
		for n in $(boots "$p" with); do
			hit=$(vm_results "$k" "$n" | grep -m1 '^not ok' || true)
			[ -z "$hit" ] || why+="${why:+; }the #with: spec is red too: ${hit#not ok - }"
		done
		n=$(boots "$p" | sed 's|^planted/[^/]*/||' | tr '\n' ' ')
		if [ -z "$why" ]; then
			echo "ok - vm-planted/$c: $k ${n% } red: ${first#not ok - }"
		else
			echo "not ok - vm-planted/$c # $k ${n% }: $why (logs: $vm_out/$k/planted/$c/)"
		fi
	done
}

# applies: a refactor of the core that moves a planted patch's context
# shows here in seconds instead of after every boot of check-vm.
applies() {
	local p c fail=0 log
	for p in "$cases"/${PLANTED:-*}.patch; do
		[ -f "$p" ] || continue
		c=$(basename "$p" .patch)
		if log=$(patch -p1 -F0 -N --dry-run -s -r - -d "$top" < "$p" 2>&1); then
			echo "ok - planted-applies/$c"
		else
			echo "not ok - planted-applies/$c # $(head -c 200 <<<"$log" | tr '\n' ' ')"
			fail=1
		fi
	done
	return $fail
}

if [ "${1:-}" = applies ]; then
	applies
	exit
fi
vm_fixture_main "$@"
