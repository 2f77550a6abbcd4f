# SPDX-License-Identifier: GPL-2.0
# The kernels dmaguard builds itself (sourced, not run; scripts/kernel/build.sh
# builds them, scripts/kernels.sh lists them next to Debian's).
#
# Flavours: one config fragment each, scripts/kernel/<flavour>.config, merged
# over tinyconfig + base.config. The cache lives outside the source tree,
# in $DMAGUARD_KERNEL_CACHE (default ~/.cache/dmaguard/kernels):
#
#   src-<key>/linux/      the extracted, adjusted linux-source tree
#   <flavour>-<key>/      its O= build directory (out-of-tree modules build
#                         against it); .release holds `make kernelrelease`,
#                         written last, when the build succeeded
#
# <key> hashes what decides the result: the linux-source tarball and the
# toolchain package versions, adjust-source.sh, every fragment. Change one
# and the next `make kernels` builds anew (and drops the stale directories);
# otherwise nothing is rebuilt.

kernel_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
kernel_cache=${DMAGUARD_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dmaguard/kernels}
kernel_flavours=(debug rt)
# Packages whose version goes into the key (and that the build needs).
kernel_packages=(linux-source-6.12 clang-14 lld-14 llvm-14 rustc-web
		 rust-web-src bindgen)
# What the kernels and the modules built against them are compiled with.
kernel_make_args=(LLVM=-14 RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc
		  BINDGEN=bindgen)

kernel_tarball() {
	ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null
}

# kernel_key: the cache key (16 hex digits) of the current inputs.
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
		cat "$kernel_dir/adjust-source.sh" "$kernel_dir/base.config"
		local f
		for f in "${kernel_flavours[@]}"; do
			cat "$kernel_dir/$f.config"
		done
	} | sha256sum | cut -c1-16
}

# kernel_built: "<release> <O= directory>" of each flavour built with the
# current key, in flavour order.
kernel_built() {
	local key f d
	[ -d "$kernel_cache" ] || return 0
	key=$(kernel_key)
	for f in "${kernel_flavours[@]}"; do
		d=$kernel_cache/$f-$key
		[ -s "$d/.release" ] && echo "$(cat "$d/.release") $d"
	done
	return 0
}
