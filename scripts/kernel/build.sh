#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make kernels`: build the kernels of scripts/kernel/lib.sh (debug, rt,
# baseline, hardened) from Debian's linux-source-6.12 tarball into the
# cache, unless the cache already holds them for the current inputs. About
# 4 min (debug) + 3 min (rt) + 3 min each (baseline, hardened) on a 2-core
# machine; a no-op taking a second when cached.
#
#   build.sh [FLAVOUR...]     default: every flavour
#   build.sh --source         only the extracted tree; prints its path
#
# Per flavour: tinyconfig, then its fragments (lib.sh: kernel_fragments)
# merged over it (scripts/kconfig/merge_config.sh), olddefconfig, and a
# check that every line of the fragments is in the final .config (an option
# whose dependencies are missing is dropped silently by kconfig: here it
# fails). A series flavour (hardened, debug) builds from a copy of the
# tree with the series of `make kernel-series` applied one patch at a
# time, each compiled with W=1 before the next (the series must bisect).
# Then `make bzImage modules` with clang 14 (LLVM=-14: KASAN with Rust
# needs it, and modules built against the tree must use it too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

die() { echo "kernels: error: $*" >&2; exit 1; }

all=("${kernel_flavours[@]}" "${kernel_inkernel[@]}" "${kernel_kcsan[@]}")
source_only=0
[ "${1:-}" != --source ] || { source_only=1; shift; }
flavours=("$@")
[ ${#flavours[@]} -gt 0 ] || flavours=("${all[@]}")
for f in "${flavours[@]}"; do
	printf '%s\n' "${all[@]}" | grep -qxF -- "$f" ||
		die "unknown flavour '$f' (have: ${all[*]})"
done

tarball=$(kernel_tarball) || die "no /usr/src/linux-source-6.12.tar.xz: run 'make deps' as root"
for p in "${kernel_packages[@]}"; do
	dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' ||
		die "package $p is missing: run 'make deps' as root"
done

key=$(kernel_key)
src=$kernel_cache/src-$key/linux
# A tree already there is never changed: no need to wait for a build.
if [ "$source_only" = 1 ] && [ -f "$src/.adjusted" ]; then
	echo "$src"
	exit 0
fi

mkdir -p "$kernel_cache"
exec 9>"$kernel_cache/.lock"
flock -n 9 || { echo "kernels: waiting for another kernel build..." >&2; flock 9; }
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
# OBJ/.config ("=n" lines: not set), but where a later fragment sets the
# same option.
check_config() {
	local obj=$1 frag line opt val bad=0
	shift
	for frag in "$@"; do
		while IFS= read -r line; do
			case $line in CONFIG_*=*) ;; *) continue ;; esac
			opt=${line%%=*}
			val=${line#*=}
			# A later fragment sets it anew (merge_config.sh: last wins).
			if [ "$frag" != "${@: -1}" ] &&
			   cat "${@:$(( $(printf '%s\n' "$@" | grep -nxF -- "$frag" | cut -d: -f1) + 1 ))}" |
			   grep -q "^$opt="; then
				continue
			fi
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

# series_apply FLAVOUR OBJ: on the tree of a series flavour, $OBJ.src/linux
# (hard links to $src), the series (written to $OBJ.src/series) applied
# patch by patch, each compiled with W=1 in OBJ (configured) before the next.
series_apply() {
	local f=$1 obj=$2 tree=$2.src/linux p n
	local -a kmake=(make -C "$tree" O="$obj" "${kernel_make_args[@]}")
	python3 "$here/../kernel-series/generate.py" --src "$src" \
		--out "$obj.src/series" > /dev/null ||
		die "$f: make kernel-series failed"
	"${kmake[@]}" -j"$jobs" prepare >> "$obj/build.log" 2>&1 ||
		die "$f: make prepare failed (log: $obj/build.log)"
	for p in "$obj.src/series"/[0-9][0-9][0-9][0-9]-*.patch; do
		case $p in */0000-cover-letter.patch) continue ;; esac
		n=$(basename "$p" | cut -c1-4)
		[ -z "${KERNEL_SERIES_UPTO:-}" ] || [ "$n" -le "$KERNEL_SERIES_UPTO" ] ||
			continue
		echo "  KERNEL  $f: $(basename "$p")"
		patch -d "$tree" -p1 --fuzz=0 -N -s < "$p" >> "$obj/build.log" 2>&1 ||
			die "$f: $(basename "$p") does not apply (log: $obj/build.log)"
		"${kmake[@]}" -j"$jobs" W=1 \
			KCFLAGS=-Werror mm/dmapool.o mm/dmapool_test.o \
			>> "$obj/build.log" 2>&1 ||
			{ tail -n 30 "$obj/build.log" >&2
			  die "$f: $(basename "$p") does not build (log: $obj/build.log)"; }
	done
}

build_flavour() {
	local f=$1 obj t0=$SECONDS kmake tree=$src
	local -a frags
	obj=$kernel_cache/$f-$(kernel_flavour_key "$f")
	mapfile -t frags < <(kernel_fragments "$f")
	if [ -s "$obj/.release" ]; then
		echo "  KERNEL  $f: $(cat "$obj/.release") (cached in $obj)"
		return 0
	fi
	prepare_source
	rm -rf "$obj"
	mkdir -p "$obj"
	if kernel_is_series "$f"; then
		tree=$obj.src/linux
		rm -rf "$obj.src"
		mkdir -p "$obj.src"
		cp -al "$src" "$tree"
	fi
	kmake=(make -C "$tree" O="$obj" "${kernel_make_args[@]}")
	echo "  KERNEL  $f: configuring and building (several minutes on $jobs CPUs; log: $obj/build.log)"
	if ! {
		"${kmake[@]}" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"${frags[@]}" &&
		"${kmake[@]}" olddefconfig
	} > "$obj/build.log" 2>&1; then
		tail -n 20 "$obj/build.log" >&2
		die "$f: configuration failed (log: $obj/build.log)"
	fi
	check_config "$obj" "${frags[@]}" ||
		die "$f: the configuration lacks options its fragments ask for"
	! kernel_is_series "$f" || series_apply "$f" "$obj"
	if ! "${kmake[@]}" -j"$jobs" bzImage modules >> "$obj/build.log" 2>&1; then
		tail -n 30 "$obj/build.log" >&2
		die "$f: build failed (log: $obj/build.log)"
	fi
	"${kmake[@]}" -s kernelrelease > "$obj/.release.tmp"
	mv "$obj/.release.tmp" "$obj/.release"
	echo "  KERNEL  $f: $(cat "$obj/.release") built in $((SECONDS - t0)) s"
}

if [ "$source_only" = 1 ]; then
	prepare_source >&2
	echo "$src"
	exit 0
fi
for f in "${flavours[@]}"; do
	build_flavour "$f"
done

# Drop what older keys left behind (a debug tree is a few GiB); a build of
# a step of the series (KERNEL_SERIES_UPTO) is one beside the others.
[ -z "${KERNEL_SERIES_UPTO:-}" ] || exit 0
keep=("src-$key")
for f in "${all[@]}"; do
	fk=$(kernel_flavour_key "$f")
	keep+=("$f-$fk" "$f-$fk.src")
done
for d in "$kernel_cache"/*-*; do
	[ -d "$d" ] || continue
	printf '%s\n' "${keep[@]}" | grep -qxF -- "$(basename "$d")" && continue
	echo "  KERNEL  removing stale $d"
	rm -rf "$d"
done
