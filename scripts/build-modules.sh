#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of a Kbuild tree for every installed kernel (see
# scripts/kernels.sh; KVER= picks one), each kernel in its own directory so
# kernels never clobber each other and the source tree stays clean:
#
#   build/kernel/<kver>/<name>/src/   symlink farm of the sources; kbuild
#                                     writes its objects here (M=)
#   build/kernel/<kver>/<name>/ko/    every module of this build, copied
#                                     flat (and consumer modules that
#                                     scripts/abi/consumers.sh put in
#                                     src/.consumers/)
#
# Usage: build-modules.sh [--src DIR] [--name NAME]
#   --src   tree holding the Kbuild file (default: the repository root)
#   --name  build directory name (default: main, or test for the test
#           flavour)
# DMAGUARD_TEST_HOOKS=1 (environment, as `make modules DMAGUARD_TEST_HOOKS=1`
# sets it) builds the test flavour: dmaguard.ko with the DMAGUARD_INTERNAL
# test hooks, plus tests/kmod/ (see ./Kbuild). Without it, the production
# dmaguard.ko alone. The two flavours never share a build directory.
# Extra kbuild variables come from KBUILD_ARGS (e.g. KBUILD_ARGS="C=2 W=1").
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=$top
hooks=${DMAGUARD_TEST_HOOKS:-}
case $hooks in
1) name=test ;;
''|0) name=main; hooks= ;;
*) echo "build-modules: DMAGUARD_TEST_HOOKS=$hooks: 1 or nothing" >&2; exit 2 ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	--src) src=$(cd "$2" && pwd); shift 2 ;;
	--name) name=$2; shift 2 ;;
	*) echo "build-modules: unknown argument '$1'" >&2; exit 2 ;;
	esac
done
[ -f "$src/Kbuild" ] || { echo "build-modules: no Kbuild in $src" >&2; exit 1; }

# The files to mirror: tracked and untracked-but-not-ignored files of a git
# checkout (so work in progress builds too), else everything but build/.
list_sources() {
	if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 &&
	   [ "$(git -C "$src" rev-parse --show-prefix)" = "" ]; then
		git -C "$src" ls-files -z --cached --others --exclude-standard
	else
		(cd "$src" && find . -path ./build -prune -o -path ./.git -prune \
			-o -type f -printf '%P\0')
	fi
}

# Mirror $src into $1 as symlinks: add what is new, drop what vanished, keep
# kbuild's objects so rebuilds stay incremental.
sync_farm() {
	local farm=$1 f
	mkdir -p "$farm"
	while IFS= read -r -d '' f; do
		[ -f "$src/$f" ] || continue		# deleted, not yet staged
		case $f in build/*) continue ;; esac
		if [ ! -L "$farm/$f" ]; then
			mkdir -p "$farm/$(dirname "$f")"
			ln -sfn "$src/$f" "$farm/$f"
		fi
	done < <(list_sources)
	find "$farm" -xtype l -delete		# sources that disappeared
}

jobs=$(nproc 2>/dev/null || echo 2)
rc=0
# No list, no build: an empty loop would exit 0 having built nothing.
kvers=$("$top/scripts/kernels.sh") || {
	echo "build-modules: scripts/kernels.sh gave no kernel list" >&2
	exit 1
}
for kver in $kvers; do
	out=$top/build/kernel/$kver/$name
	mkdir -p "$out"
	# One build per directory at a time (several engineers, one tree).
	exec 9>"$out/.lock"
	flock -n 9 || { echo "  (waiting for another build of $out)"; flock 9; }
	sync_farm "$out/src"
	echo "  MODULES $name for $kver${hooks:+ (test hooks)}"
	# Headers packages ship no vmlinux: drop kbuild's note about BTF.
	# The flavour goes on the command line, so that an environment
	# variable of the same name cannot contradict it inside kbuild.
	# shellcheck disable=SC2086
	if ! make -s -C "$("$top/scripts/kernels.sh" --kdir "$kver")" \
		$("$top/scripts/kernels.sh" --make-args "$kver") M="$out/src" -j"$jobs" \
		DMAGUARD_TEST_HOOKS="$hooks" ${KBUILD_ARGS:-} modules 2>&1 |
		grep -v '^Skipping BTF generation for .* unavailability of vmlinux$'
	   [ "${PIPESTATUS[0]}" -ne 0 ]; then
		echo "build-modules: $name failed for $kver" >&2
		rc=1
		continue
	fi
	rm -rf "$out/ko"
	mkdir -p "$out/ko"
	# The modules of this build (modules.order: *.o from 6.2 on, *.ko
	# before), not every .ko lying in src/ from an earlier flavour.
	sed 's/\.o$/.ko/' "$out/src/modules.order" |
		(cd "$out/src" && xargs -r cp -t "$out/ko/")
	find "$out/src/.consumers" -maxdepth 1 -name '*.ko' \
		-exec cp {} "$out/ko/" \; 2>/dev/null || true
	echo "  KO      $(cd "$out/ko" && ls | tr '\n' ' ')"
	exec 9>&-
done
exit $rc
