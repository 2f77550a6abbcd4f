# SPDX-License-Identifier: GPL-2.0
# The kernels dmaguard builds itself (sourced, not run; scripts/kernel/build.sh
# builds them, scripts/kernels.sh lists them next to Debian's).
#
# Flavours: config fragments merged over tinyconfig + base.config
# (kernel_fragments). The cache lives outside the source tree, in
# $DMAGUARD_KERNEL_CACHE (default ~/.cache/dmaguard/kernels):
#
#   src-<key>/linux/      the extracted, adjusted linux-source tree
#   <flavour>-<fkey>/     its O= build directory (out-of-tree modules build
#                         against it); .release holds `make kernelrelease`,
#                         written last, when the build succeeded
#   <flavour>-<fkey>.src/linux/  for a flavour of kernel_series_flavours
#                         (hardened, and debug: the hardened dma_pool under
#                         KASAN, lockdep, kmemleak and DMA-API debugging):
#                         the tree with the series of `make kernel-series`
#                         applied (hard links to src-<key> but the files
#                         the series changes)
#
# <key> hashes what decides the source: the linux-source tarball and the
# toolchain package versions, adjust-source.sh. <fkey> adds the flavour's
# fragments and, for a series flavour, every input of the series. Change
# one and the next `make kernels` builds that flavour anew (and drops the
# stale directories); otherwise nothing is rebuilt.
#
# The module's kernels (kernel_flavours: debug, rt) are booted by every
# spec that does not say otherwise; the in-kernel pair (kernel_inkernel:
# baseline and hardened, which has no dmaguard module) only by the specs
# of tests/vm/inkernel/ and `make bench-inkernel`; the KCSAN kernel
# (kernel_kcsan: KCSAN cannot share a kernel with KASAN) only by the
# KCSAN copies of the specs with a kcsan-smp: line (scripts/vm/lib.sh:
# vm_kcsan_specs).

kernel_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kernel_cache=${DMAGUARD_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dmaguard/kernels}
kernel_flavours=(debug rt)
kernel_inkernel=(baseline hardened)
kernel_kcsan=(kcsan)
kernel_series_flavours=(hardened debug)
# Packages whose version goes into the key (and that the build needs).
kernel_packages=(linux-source-6.12 clang-14 lld-14 llvm-14 rustc-web
		 rust-web-src bindgen)
# What the kernels and the modules built against them are compiled with.
kernel_make_args=(LLVM=-14 RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc
		  BINDGEN=bindgen)

kernel_tarball() {
	ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null
}

# kernel_key: the cache key (16 hex digits) of the source tree.
# DMAGUARD_KERNEL_KEY, when set, is taken as it: scripts/check.sh computes
# it once (a dpkg query each time scripts/kernels.sh runs, hundreds of
# times a check, cost about 0.2 s each; nothing it hashes changes then).
kernel_key() {
	if [ -n "${DMAGUARD_KERNEL_KEY:-}" ]; then
		echo "$DMAGUARD_KERNEL_KEY"
		return
	fi
	{
		dpkg-query -W -f='${Package}=${Version}\n' \
			"${kernel_packages[@]}" 2>/dev/null || true
		cat "$kernel_dir/adjust-source.sh"
	} | sha256sum | cut -c1-16
}

# kernel_fragments FLAVOUR: its config fragments, in merge order.
kernel_fragments() {
	echo "$kernel_dir/base.config"
	case $1 in
	hardened) echo "$kernel_dir/baseline.config" ;;
	esac
	echo "$kernel_dir/$1.config"
}

# kernel_is_series FLAVOUR: whether its tree gets the series.
kernel_is_series() {
	printf '%s\n' "${kernel_series_flavours[@]}" | grep -qxF -- "$1"
}

# kernel_series_inputs: every file `make kernel-series` reads from dmaguard.
kernel_series_inputs() {
	python3 "$kernel_dir/../kernel-series/generate.py" --inputs
}

# kernel_flavour_key FLAVOUR: the cache key of its build.
# KERNEL_SERIES_UPTO=NNNN builds (and finds) series flavours with the
# patches up to NNNN only, under a key of their own: a step of the series
# booted and measured on its own (`KERNEL_SERIES_UPTO=0002 make kernels
# bench-inkernel`).
# DMAGUARD_KERNEL_FKEYS ("flavour=key ..."), when set, is taken as it:
# scripts/check.sh computes every key once, after `make kernels`, so that
# the many scripts/kernels.sh calls of a check all see the kernels built
# for it (a key computed anew hashes the series inputs each time).
kernel_flavour_key() {
	local f=$1 frag v
	for v in ${DMAGUARD_KERNEL_FKEYS:-}; do
		if [ "${v%%=*}" = "$f" ]; then
			echo "${v#*=}"
			return
		fi
	done
	{
		kernel_key
		while read -r frag; do
			cat "$frag"
		done < <(kernel_fragments "$f")
		if kernel_is_series "$f"; then
			(cd "$kernel_dir/../.." && kernel_series_inputs | xargs cat)
			[ -z "${KERNEL_SERIES_UPTO:-}" ] ||
				echo "series up to $KERNEL_SERIES_UPTO"
		fi
	} | sha256sum | cut -c1-16
}

# kernel_built [FLAVOUR...]: "<release> <O= directory>" of each flavour
# (default: kernel_flavours) built with the current key, in flavour order.
kernel_built() {
	local f d
	[ -d "$kernel_cache" ] || return 0
	[ $# -gt 0 ] || set -- "${kernel_flavours[@]}"
	for f in "$@"; do
		d=$kernel_cache/$f-$(kernel_flavour_key "$f")
		[ -s "$d/.release" ] && echo "$(cat "$d/.release") $d"
	done
	return 0
}
