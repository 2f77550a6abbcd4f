#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make kernels`: build the kernels of scripts/kernel/lib.sh (debug, rt) from
# Debian's linux-source-6.12 tarball into the cache, unless the cache already
# holds them for the current inputs. About 4 min (debug) + 3 min (rt) on a
# 2-core machine; a no-op taking well under a second when cached.
#
#   build.sh [FLAVOUR...]     default: every flavour
#
# Per flavour: tinyconfig, then base.config and <flavour>.config merged over
# it (scripts/kconfig/merge_config.sh), olddefconfig, and a check that every
# line of both fragments is in the final .config (an option whose
# dependencies are missing is dropped silently by kconfig: here it fails).
# Then `make bzImage modules` with clang 14 (LLVM=-14: KASAN with Rust
# needs it, and modules built against the tree must use it too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

die() { echo "kernels: error: $*" >&2; exit 1; }

flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=("${kernel_flavours[@]}")
for f in "${flavours[@]}"; do
	[ -f "$here/$f.config" ] || die "unknown flavour '$f' (have: ${kernel_flavours[*]})"
done

tarball=$(kernel_tarball) || die "no /usr/src/linux-source-6.12.tar.xz: run 'make deps' as root"
for p in "${kernel_packages[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		die "package $p is missing: run 'make deps' as root"
done

mkdir -p "$kernel_cache"
exec 9>"$kernel_cache/.lock"
flock -n 9 || { echo "kernels: waiting for another kernel build..."; flock 9; }

key=$(kernel_key)
src=$kernel_cache/src-$key/linux
jobs=$(nproc 2>/dev/null || echo 2)

# The source: extracted once per key, adjusted, then renamed into place so
# that an interrupted extraction is never mistaken for a tree.
prepare_source() {
	[ -f "$src/.adjusted" ] && return 0
	local tmp=$kernel_cache/src-$key/tmp t0=$SECONDS
	echo "  KERNEL  extracting $(basename "$tarball") (about 15 s)"
	rm -rf "$tmp" "$src"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp"
	"$here/adjust-source.sh" "$tmp/linux-source-6.12"
	touch "$tmp/linux-source-6.12/.adjusted"
	mv "$tmp/linux-source-6.12" "$src"
	rmdir "$tmp"
	echo "  KERNEL  source ready in $((SECONDS - t0)) s: $src"
}

# check_config OBJ FRAGMENT...: every CONFIG_ line of the fragments is in
# OBJ/.config ("=n" lines: not set).
check_config() {
	local obj=$1 frag line opt val bad=0
	shift
	for frag in "$@"; do
		while IFS= read -r line; do
			case $line in CONFIG_*=*) ;; *) continue ;; esac
			opt=${line%%=*}
			val=${line#*=}
			if [ "$val" = n ]; then
				grep -q "^$opt=" "$obj/.config" || continue
			else
				grep -qxF "$line" "$obj/.config" && continue
			fi
			echo "kernels: $(basename "$frag"): $line did not stick; .config has:" \
				"$(grep -E "^(# )?$opt[= ]" "$obj/.config" || echo nothing)" >&2
			bad=1
		done < "$frag"
	done
	return $bad
}

build_flavour() {
	local f=$1 obj=$kernel_cache/$1-$key t0=$SECONDS kmake
	if [ -s "$obj/.release" ]; then
		echo "  KERNEL  $f: $(cat "$obj/.release") (cached in $obj)"
		return 0
	fi
	prepare_source
	rm -rf "$obj"
	mkdir -p "$obj"
	kmake=(make -C "$src" O="$obj" "${kernel_make_args[@]}")
	echo "  KERNEL  $f: configuring and building (several minutes on $jobs CPUs; log: $obj/build.log)"
	if ! {
		"${kmake[@]}" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"$here/base.config" "$here/$f.config" &&
		"${kmake[@]}" olddefconfig
	} > "$obj/build.log" 2>&1; then
		tail -n 20 "$obj/build.log" >&2
		die "$f: configuration failed (log: $obj/build.log)"
	fi
	check_config "$obj" "$here/base.config" "$here/$f.config" ||
		die "$f: the configuration lacks options its fragments ask for"
	if ! "${kmake[@]}" -j"$jobs" bzImage modules >> "$obj/build.log" 2>&1; then
		tail -n 30 "$obj/build.log" >&2
		die "$f: build failed (log: $obj/build.log)"
	fi
	"${kmake[@]}" -s kernelrelease > "$obj/.release.tmp"
	mv "$obj/.release.tmp" "$obj/.release"
	echo "  KERNEL  $f: $(cat "$obj/.release") built in $((SECONDS - t0)) s"
}

for f in "${flavours[@]}"; do
	build_flavour "$f"
done

# Drop what an older key left behind (a debug tree is a few GiB).
for d in "$kernel_cache"/*-*; do
	[ -d "$d" ] || continue
	case $(basename "$d") in *-"$key") continue ;; esac
	echo "  KERNEL  removing stale $d"
	rm -rf "$d"
done
