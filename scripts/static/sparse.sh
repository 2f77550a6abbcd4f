#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse gate (make sparse / make check-sparse).
#
# 1. The tree: dmaguard.ko (test flavour) and tests/kmod/ built with C=2 for every
#    installed kernel (scripts/kernels.sh) in build/sparse/<kver>/tree, a
#    symlink farm, so the normal build in build/kernel/ is never touched.
#    Any sparse (or compiler) warning or error fails the kernel's case.
#    Consumer drivers (tests/consumers/*/Kbuild) likewise, each in its own
#    M= directory against abi/include and the tree's Module.symvers.
# 2. The planted fixture tests/static/sparse/dma_misuse.c, built with C=2
#    in its own M= directory (build/sparse/<kver>/fixture): its warnings
#    must be exactly those of tests/static/sparse/dma_misuse.expected
#    (file:line:col: warning: text, one a line; a multiset). One result
#    line per expected warning, plus one for "nothing unexpected".
#
# 3. The userspace build of the core (c-core/*.c over c-core/platform/user),
#    sparse run directly: the same __dma discipline in the user platform.
#
# Prints one "ok - ..." / "not ok - ..." line per case on stdout, details
# on stderr; exits 1 when any case failed.
# SPARSE_CF: sparse flags (kbuild CF=); default -Wcast-from-as, so a
# detour of __dma memory through an integer is reported too.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/sparse
fixture_src=tests/static/sparse
expected=$top/$fixture_src/dma_misuse.expected
jobs=$(nproc 2>/dev/null || echo 2)
fail=0

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }

command -v sparse >/dev/null || { notok "sparse: sparse not installed (make deps)"; exit 1; }
kvers=$("$top/scripts/kernels.sh" --distro) || { notok "sparse: no kernel to build for"; exit 1; }

# Refresh a symlink farm of the listed top-level paths: drop old links,
# link again (new files appear, deleted ones go), keep kbuild's objects.
farm() {
	local dst=$1 p
	shift
	mkdir -p "$dst"
	find "$dst" -type l -delete
	for p in "$@"; do
		cp -rs "$top/$p" "$dst/" || return 1
	done
}

# Warning/error lines of a build log, path made relative to the farm.
diagnostics() {
	awk -v pre="$2/" 'index($0, pre) == 1 { $0 = substr($0, length(pre) + 1) }
		/^[^ ]+:[0-9]+:[0-9]+: (warning|error):/' "$1"
}

for kver in $kvers; do
	kdir=/lib/modules/$kver/build
	tree=$out/$kver/tree
	log=$out/$kver/tree.log

	# 1. the tree
	if ! farm "$tree" Kbuild c-core abi tests; then
		notok "sparse $kver: tree: cannot make the symlink farm"
		continue
	fi
	# The test flavour (DMAGUARD_TEST_HOOKS=1): every file of the
	# production module, plus the test hooks and tests/kmod/. No
	# MAKEFLAGS: an outer "make -s" would make kbuild quiet and hide the
	# CHECK lines counted below.
	# shellcheck disable=SC2086
	MAKEFLAGS= make -C "$kdir" M="$tree" C=2 CF="${SPARSE_CF--Wcast-from-as}" -j"$jobs" \
		DMAGUARD_TEST_HOOKS=1 modules > "$log" 2>&1
	rc=$?
	# kbuild of 6.12 may run the checker twice on a file it rebuilds
	files=$(grep '^ *CHECK ' "$log" | sort -u | grep -c .)
	diags=$(diagnostics "$log" "$tree" | sort -u)
	# Inside the kernel's own headers (absolute paths), e.g. 6.1's
	# access_ok() casting its __user argument under -Wcast-from-as: the
	# kernel's, reported but not counted against us.
	grep '^/' <<<"$diags" | sed "s/^/  ($kver, kernel header, not counted) /" >&2
	diags=$(grep -v '^/' <<<"$diags")
	n=$(printf '%s' "$diags" | grep -c '^' || true)
	if [ $rc -ne 0 ]; then
		grep -E 'error|Error' "$log" | head -20 >&2
		notok "sparse $kver: tree: build failed (exit $rc, log $log)"
	elif [ "$n" -ne 0 ] || [ "$files" -eq 0 ]; then
		printf '%s\n' "$diags" >&2
		notok "sparse $kver: tree: $n warnings in $files files checked (log $log)"
	else
		ok "sparse $kver: tree: 0 warnings in $files files checked"
	fi

	# 1b. consumer drivers (tests/consumers/*/ with a Kbuild and C files),
	# against dmaguard's headers. Only the objects are built (single-target
	# builds, no modpost): linking is judged by the ABI checks, and
	# no-import fails modpost on purpose.
	for cdir in "$top"/tests/consumers/*/; do
		[ -f "$cdir/Kbuild" ] && ls "$cdir"*.c >/dev/null 2>&1 || continue
		cname=$(basename "$cdir")
		cfarm=$out/$kver/consumers/$cname
		clog=$out/$kver/consumer-$cname.log
		rm -rf "$cfarm"
		mkdir -p "$cfarm"
		cp -rs "$cdir". "$cfarm/"
		objs=$(cd "$cfarm" && ls *.c | sed 's/\.c$/.o/')
		# shellcheck disable=SC2086
		MAKEFLAGS= make -C "$kdir" M="$cfarm" C=2 CF="${SPARSE_CF--Wcast-from-as}" \
			DMAGUARD_INCLUDE="$top/abi/include" $objs \
			> "$clog" 2>&1
		rc=$?
		cfiles=$(grep '^ *CHECK ' "$clog" | sort -u | grep -c .)
		cdiags=$(diagnostics "$clog" "$cfarm" | sort -u)
		cn=$(printf '%s' "$cdiags" | grep -c '^' || true)
		if [ $rc -ne 0 ]; then
			notok "sparse $kver: consumer $cname: build failed (exit $rc, log $clog)"
		elif [ "$cn" -ne 0 ] || [ "$cfiles" -eq 0 ]; then
			printf '%s\n' "$cdiags" >&2
			notok "sparse $kver: consumer $cname: $cn warnings in $cfiles files checked (log $clog)"
		else
			ok "sparse $kver: consumer $cname: 0 warnings in $cfiles files checked"
		fi
	done

	# 2. the planted fixture
	fix=$out/$kver/fixture
	flog=$out/$kver/fixture.log
	rm -rf "$fix"		# built from scratch: the checker runs exactly once
	if ! farm "$fix" c-core tests; then
		notok "sparse $kver: fixture: cannot make the symlink farm"
		continue
	fi
	MAKEFLAGS= make -C "$kdir" M="$fix/$fixture_src" C=2 CF="${SPARSE_CF--Wcast-from-as}" modules \
		> "$flog" 2>&1
	rc=$?
	got=$(diagnostics "$flog" "$fix/$fixture_src")
	if [ $rc -ne 0 ] || ! grep -q '^ *CHECK ' "$flog"; then
		notok "sparse $kver: fixture: build failed or sparse did not run (log $flog)"
		continue
	fi
	# Each expected line must be matched once; what is left over is extra.
	left=$got
	declare -A seen=()
	while IFS= read -r want; do
		case $want in '' | '#'*) continue ;; esac
		seen[$want]=$(( ${seen[$want]:-0} + 1 ))
		tag=${want%%: warning:*}
		msg=${want#*: warning: }
		[ "${seen[$want]}" -gt 1 ] && msg="$msg (#${seen[$want]})"
		if grep -qxF -- "$want" <<<"$left"; then
			left=$(awk -v w="$want" '!done && $0 == w { done = 1; next } 1' <<<"$left")
			ok "sparse $kver: fixture catches $tag $msg"
		else
			notok "sparse $kver: fixture misses $tag $msg"
		fi
	done < "$expected"
	unset seen
	extra=$(printf '%s' "$left" | grep -c '^' || true)
	if [ "$extra" -eq 0 ]; then
		ok "sparse $kver: fixture has no unexpected warning"
	else
		printf '%s\n' "$left" >&2
		notok "sparse $kver: fixture has $extra unexpected warnings"
	fi
done

# 3. the userspace side of the core
mapfile -t ufiles < <(cd "$top" && ls c-core/*.c c-core/platform/user/*.c 2>/dev/null)
ulog=$out/user.log
mkdir -p "$out"
: > "$ulog"
for f in "${ufiles[@]}"; do
	# The userspace kernel of the exported shim (abi_user.c) is built
	# with the shim's flags, in their order (scripts/mk/core.mk,
	# ABI_LIB_CPPFLAGS).
	pre=() post=()
	if [ "$f" = c-core/platform/user/abi_user.c ]; then
		pre=(-Ic-core/platform/user/include)
		post=(-Iabi/shim -Ic-core/platform/kernel "-DKBUILD_MODNAME=\"dmaguard\"")
	fi
	# -Wno-context: tools/include's spinlock.h (a pthread mutex) carries
	# no lock annotations; the kernel pass above checks the lock context.
	(cd "$top" && sparse -Wno-unknown-attribute -Wno-context -D_GNU_SOURCE \
		"${pre[@]}" -Ic-core -Ic-core/platform/user -Iabi/include \
		-Ibuild/tools/linux/tools/include \
		-Ibuild/tools/linux/tools/arch/x86/include "${post[@]}" "$f") >> "$ulog" 2>&1
done
udiags=$(grep -E '^[^ ]+:[0-9]+:[0-9]+: (warning|error):' "$ulog")
un=$(printf '%s' "$udiags" | grep -c '^' || true)
if [ ${#ufiles[@]} -eq 0 ]; then
	notok "sparse userspace: no file found"
elif [ "$un" -eq 0 ]; then
	ok "sparse userspace: 0 warnings in ${#ufiles[@]} files checked"
else
	printf '%s\n' "$udiags" >&2
	notok "sparse userspace: $un warnings in ${#ufiles[@]} files checked (log $ulog)"
fi
exit $fail
