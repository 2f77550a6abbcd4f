#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the consumer modules of tests/consumers/ out of tree, for every
# kernel (scripts/kernels.sh; KVER= for some), the way a driver outside
# dmaguard builds: its own directory, dmaguard's public headers only
# (DMAGUARD_INCLUDE), dmaguard's exports through KBUILD_EXTRA_SYMBOLS.
#
#   c-driver     example driver, against a copy of the current abi/include
#   frozen-v1.0  the same driver frozen at v1.0, against the headers frozen
#                at v1.0 (tests/consumers/frozen-v1.0/include), never
#                updated: the current module must keep serving it
#   no-import    forgets DMAGUARD_IMPORT_NS(): modpost must refuse it; then
#                built with KBUILD_NSDEPS=1 so the VM can show the kernel
#                refusing to load it
#   rust-driver  the example driver in Rust, over the safe layer of
#                bindings/ (kernels with CONFIG_RUST only: the debug one)
#   readme-c     the C module of README.md's "Use it from a C driver" (its
#                first c code block, built by that section's Kbuild lines,
#                W=1, warning-free), so the README's example builds
#   readme-rust  the Rust module of README.md's "Using dmaguard from Rust"
#                (its first rust code block), so the README's code builds
#                (CONFIG_RUST kernels only)
#   rust-misuse  Rust modules that misuse the safe layer: each file must
#                be refused by rustc with exactly one error, of the code
#                its "// expect: Ennnn" line names, saying what its
#                "// expect-message:" line says (CONFIG_RUST kernels only)
#
# They link against the production dmaguard.ko's Module.symvers
# (build/kernel/<kver>/main/, `make modules`), as a driver outside dmaguard
# does, and each .ko goes where the VM harness takes the guest's $KO from,
# next to the test flavour of dmaguard.ko that every boot loads:
# build/kernel/<kver>/test/ko/, and also build/kernel/<kver>/test/src/
# .consumers/, because scripts/build-modules.sh refills ko/ on each build
# (check-vm builds after its VM_DEPS). Loading them there also proves that
# both flavours export DMAGUARD_V1 with the same symbol versions. The specs
# tests/vm/consumer-*.vmtest load $KO/<module>.ko.
# Prints one result line per build:
#   ok - abi/consumers/<kver>/<consumer>
# --keep-going: exit 0 even if a build failed (as a VM dependency: the
# specs then fail on the missing module, the other specs still run).
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/consumers
keep=0
[ "${1:-}" = build ] && shift
[ "${1:-}" = --keep-going ] && keep=1
rc=0
mkdir -p "$work"
# One consumer build at a time in this tree (check-abi and every check-vm's
# VM_DEPS run this script).
exec 8>"$work/.lock"
flock -n 8 || { echo "consumers: waiting for another consumer build..." >&2; flock 8; }

result() {
	echo "$1"
	case $1 in not\ ok*) rc=1 ;; esac
}

# kbuild KVER DIR INCLUDE SYMVERS [VAR=VALUE...]
kbuild() {
	local kver=$1 dir=$2 inc=$3 sym=$4
	shift 4
	# shellcheck disable=SC2046
	make -s -C "$("$top/scripts/kernels.sh" --kdir "$kver")" \
		$("$top/scripts/kernels.sh" --make-args "$kver") M="$dir" DMAGUARD_INCLUDE="$inc" \
		KBUILD_EXTRA_SYMBOLS="$sym" "$@" modules 2>&1 |
		grep -v '^Skipping BTF generation for .* unavailability of vmlinux$'
	return "${PIPESTATUS[0]}"
}

# install_ko KVER FILE...: put each module (a path: copy it; a bare name:
# remove it) into that kernel's ko/ and src/.consumers/, under the lock
# scripts/build-modules.sh holds while it refills ko/, each replaced
# atomically.
install_ko() {
	local kver=$1 out f k
	shift
	out=$top/build/kernel/$kver/test
	mkdir -p "$out/ko" "$out/src/.consumers"
	(
		flock 9
		for f in "$@"; do
			for k in "$out/ko" "$out/src/.consumers"; do
				if [ -f "$f" ]; then
					cp "$f" "$k/.$(basename "$f").tmp" &&
						mv -f "$k/.$(basename "$f").tmp" "$k/$(basename "$f")"
				else
					rm -f "$k/$f"
				fi
			done
		done
	) 9>"$out/.lock"
}

# The include directory a consumer sees: a copy, so nothing but the
# public headers is reachable from it.
inc=$work/include
rm -rf "$inc"
mkdir -p "$inc"
cp -r "$top/abi/include/dmaguard" "$inc/"

# rust_moddir DIR NAME: a fresh build directory for the one-file Rust
# module NAME.rs, with bindings/ reachable as the module takes it.
rust_moddir() {
	rm -rf "$1"
	mkdir -p "$1"
	ln -s "$top/bindings" "$1/bindings"
	echo "obj-m += $2.o" > "$1/Kbuild"
}

# rust_misuse KVER DIR SYMVERS: build each misuse fixture alone; each must
# fail to compile with its expected error, for that reason only.
rust_misuse() {
	local kver=$1 d=$2 sym=$3 f name want
	for f in "$top"/tests/consumers/rust-misuse/*.rs; do
		name=$(basename "$f" .rs)
		want=$(sed -n 's#^// expect: \(E[0-9]\{4\}\)$#\1#p' "$f")
		msg=$(sed -n 's#^// expect-message: ##p' "$f")
		rust_moddir "$d/$name" "$name"
		cp "$f" "$d/$name/"
		if [ -z "$want" ] || [ -z "$msg" ]; then
			result "not ok - abi/consumers/$kver/rust-misuse/$name # no '// expect: Ennnn' or '// expect-message:' line"
		elif kbuild "$kver" "$d/$name" "$inc" "$sym" > "$d/$name/build.log" 2>&1; then
			result "not ok - abi/consumers/$kver/rust-misuse/$name # compiled, but must not"
		elif grep -q "^error\[$want\]" "$d/$name/build.log" &&
		     grep -qF -- "$msg" "$d/$name/build.log" &&
		     [ "$(grep '^error' "$d/$name/build.log" | grep -vc '^error: aborting due to')" = 1 ]; then
			result "ok - abi/consumers/$kver/rust-misuse/$name # refused: $(grep -m1 "^error\[$want\]" "$d/$name/build.log")"
		else
			cat "$d/$name/build.log" >&2
			result "not ok - abi/consumers/$kver/rust-misuse/$name # failed, but not with exactly one error, error[$want] saying '$msg'"
		fi
	done
}

# readme_block SECTION LANG: the code blocks of language LANG in README.md's
# section SECTION (a "## " heading), fences removed.
readme_block() {
	sed -n "/^## $1/,/^## /p" "$top/README.md" |
		sed -n '/^```'"$2"'$/,/^```$/{/^```/d;p}'
}

# readme_c KVER DIR SYMVERS: README.md's C module builds with its Kbuild
# lines, W=1 and warning-free.
readme_c() {
	local kver=$1 d=$2 sym=$3
	rm -rf "$d"
	mkdir -p "$d"
	readme_block 'Use it from a C driver' c > "$d/example.c"
	readme_block 'Use it from a C driver' make > "$d/Kbuild"
	if ! grep -q 'module_init' "$d/example.c" ||
	   ! grep -q '^obj-m += example.o$' "$d/Kbuild"; then
		result "not ok - abi/consumers/$kver/readme-c # no module (c block) or Kbuild (make block) in README.md's C section"
	elif kbuild "$kver" "$d" "$inc" "$sym" DMAGUARD="$top" W=1 > "$d/build.log" 2>&1 &&
	     [ -f "$d/example.ko" ] && ! grep -q 'warning' "$d/build.log"; then
		result "ok - abi/consumers/$kver/readme-c"
	else
		cat "$d/build.log" >&2
		result "not ok - abi/consumers/$kver/readme-c # see $d/build.log"
	fi
}

# readme_rust KVER DIR SYMVERS: README.md's Rust module builds, warning-free.
readme_rust() {
	local kver=$1 d=$2 sym=$3
	rust_moddir "$d" ring_example
	readme_block 'Using dmaguard from Rust' rust > "$d/ring_example.rs"
	if ! grep -q 'module!' "$d/ring_example.rs"; then
		result "not ok - abi/consumers/$kver/readme-rust # no module in README.md's Rust section"
	elif kbuild "$kver" "$d" "$inc" "$sym" > "$d/build.log" 2>&1 &&
	     [ -f "$d/ring_example.ko" ] && ! grep -q '^warning' "$d/build.log"; then
		result "ok - abi/consumers/$kver/readme-rust"
	else
		cat "$d/build.log" >&2
		result "not ok - abi/consumers/$kver/readme-rust # see $d/build.log"
	fi
}

# build_consumer KVER C SYMVERS: build consumer C, install its modules,
# print its result lines.
build_consumer() {
	local kver=$1 c=$2 sym=$3 d i extra
	d=$work/$kver/$c
	rm -rf "$d"
	mkdir -p "$d"
	find "$top/tests/consumers/$c" -maxdepth 1 -type f -exec cp {} "$d/" \;
	# The Rust safe layer is used from the tree, as a driver would
	# take bindings/ (README: "Using dmaguard from Rust").
	[ "$c" = rust-driver ] && ln -s "$top/bindings" "$d/bindings"
	i=$inc
	[ "$c" = frozen-v1.0 ] && i=$top/tests/consumers/frozen-v1.0/include
	extra=()
	if [ "$c" = no-import ]; then
		if kbuild "$kver" "$d" "$i" "$sym" > "$d/strict.log" 2>&1; then
			result "not ok - abi/consumers/$kver/no-import-modpost # modpost accepted a consumer without DMAGUARD_IMPORT_NS()"
		elif grep -q 'uses symbol .* from namespace DMAGUARD_V1, but does not import it' "$d/strict.log"; then
			result "ok - abi/consumers/$kver/no-import-modpost # refused: $(grep -m1 -o 'module .* but does not import it' "$d/strict.log")"
		else
			cat "$d/strict.log" >&2
			result "not ok - abi/consumers/$kver/no-import-modpost # build failed for another reason"
		fi
		extra=(KBUILD_NSDEPS=1)
	fi
	if kbuild "$kver" "$d" "$i" "$sym" "${extra[@]}" > "$d/build.log" 2>&1 &&
	   ls "$d"/*.ko >/dev/null 2>&1; then
		# rustc's warnings (lines of their own) fail the build.
		grep -q '^warning' "$d/build.log" &&
			result "not ok - abi/consumers/$kver/$c-warnings # see $d/build.log"
		install_ko "$kver" "$d"/*.ko
		result "ok - abi/consumers/$kver/$c"
	else
		cat "$d/build.log" >&2
		# No stale module of an earlier build may stand in for it.
		install_ko "$kver" $(sed -n 's/^obj-m *+= *\(.*\)\.o$/\1.ko/p' "$d/Kbuild")
		result "not ok - abi/consumers/$kver/$c # build failed (see $d/build.log)"
	fi
}

# consumer_key KVER C SYMVERS: a hash of everything consumer C's build reads:
# its sources, the public headers, the Rust layer, dmaguard's and the
# kernel's symbol versions, the kernel's configuration, this script.
consumer_key() {
	local kver=$1 c=$2 sym=$3 kdir
	kdir=$("$top/scripts/kernels.sh" --kdir "$kver")
	{
		echo "$kver $("$top/scripts/kernels.sh" --make-args "$kver")"
		cat "$0" "$sym" "$kdir/.config" "$kdir/Module.symvers" 2>/dev/null
		find "$top/tests/consumers/$c" "$inc" -type f -print0 | sort -z |
			xargs -0 sha256sum
		[ "$c" != rust-driver ] ||
			find "$top/bindings" -path '*/target' -prune -o -type f -print0 |
			sort -z | xargs -0 sha256sum
	} | sha256sum | cut -c1-32
}

# consumer KVER C SYMVERS: build_consumer, unless the last build of C for
# KVER passed with the same inputs (consumer_key): then its modules are
# installed again and its result lines repeated (check-abi builds them,
# each check-vm's VM_DEPS then finds them built).
consumer() {
	local d=$work/$1/$2 key
	key=$(consumer_key "$@")
	if [ -f "$d.key" ] && [ "$(cat "$d.key")" = "$key" ] && [ -f "$d.results" ] &&
	   ls "$d"/*.ko >/dev/null 2>&1; then
		install_ko "$1" "$d"/*.ko
		cat "$d.results"
		return
	fi
	rm -f "$d.key"
	mkdir -p "$(dirname "$d")"
	build_consumer "$@" > "$d.results"
	cat "$d.results"
	if grep -q '^not ok' "$d.results"; then
		rc=1
	else
		echo "$key" > "$d.key"
	fi
}

# kernel_consumers KVER: every consumer of one kernel, in order; exits 1
# when one failed.
kernel_consumers() {
	local kver=$1 consumers rust=0 sym c
	consumers="c-driver frozen-v1.0 no-import"
	if grep -qx 'CONFIG_RUST=y' "$("$top/scripts/kernels.sh" --kdir "$kver")/.config" 2>/dev/null; then
		rust=1 consumers="$consumers rust-driver"
	elif [[ $kver == *-dmaguard-debug ]]; then
		# scripts/kernel/debug.config asks for it: its absence is a failure,
		# not a reason to skip the Rust consumers.
		result "not ok - abi/consumers/$kver/rust # no CONFIG_RUST=y in the debug kernel's .config"
	fi
	if ! DMAGUARD_TEST_HOOKS= KVER=$kver "$top/scripts/build-modules.sh" >&2; then
		for c in $consumers; do
			result "not ok - abi/consumers/$kver/$c # dmaguard.ko did not build"
		done
		return 1
	fi
	sym=$top/build/kernel/$kver/main/src/Module.symvers
	for c in $consumers; do
		consumer "$kver" "$c" "$sym"
	done
	[ $keep = 1 ] || readme_c "$kver" "$work/$kver/readme-c" "$sym"
	if [ $rust = 1 ] && [ $keep = 0 ]; then
		readme_rust "$kver" "$work/$kver/readme-rust" "$sym"
		rust_misuse "$kver" "$work/$kver/rust-misuse" "$sym"
	fi
	return $rc
}

# Two kernels at a time (each kernel's kbuild calls follow one another and
# keep one CPU busy), the built kernels first (their kbuild calls cost the
# most); the result lines in kernels.sh's order.
mapfile -t kernels < <("$top/scripts/kernels.sh")
for kver in $(printf '%s\n' "${kernels[@]}" | grep -e '-dmaguard-'; \
	      printf '%s\n' "${kernels[@]}" | grep -v -e '-dmaguard-'); do
	[ "$(jobs -r | wc -l)" -lt 2 ] || wait -n || true
	mkdir -p "$work/$kver"
	rm -f "$work/$kver.rc"
	{ kernel_consumers "$kver" > "$work/$kver.results"
	  echo $? > "$work/$kver.rc"; } &
done
wait
for kver in "${kernels[@]}"; do
	cat "$work/$kver.results"
	[ "$(cat "$work/$kver.rc" 2>/dev/null)" = 0 ] || rc=1
done
[ "$keep" = 1 ] && exit 0
exit $rc
