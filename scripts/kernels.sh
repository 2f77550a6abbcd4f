#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernels dmaguard is built and booted for, one version per line:
#
#   Debian's ("distro"): those with both /lib/modules/V/build (headers) and
#       /boot/vmlinuz-V (image), in version order. Discovered, never
#       hard-coded.
#   built here: the debug and rt kernels of scripts/kernel/ (`make kernels`),
#       when the cache holds them for the current inputs, in that order.
#   in-kernel: the baseline and hardened kernels (6.12 without and with
#       the series of `make kernel-series`), which no dmaguard module is
#       built for: listed by --inkernel only (tests/vm/inkernel/, `make
#       bench-inkernel`), known to --kdir, --image and --make-args.
#   KCSAN: the kcsan kernel (the race specs on it: the "kcsan-smp:" line
#       of scripts/vm/vmtest.py), listed by --kcsan, and by the default
#       list when KVER= names it.
#
# Usage:
#   kernels.sh              every kernel: Debian's, then the built ones
#   kernels.sh --distro     Debian's only (speed, sparse, static checks)
#   kernels.sh --built      the built ones only
#   kernels.sh --inkernel   baseline and hardened (those built)
#   kernels.sh --kcsan      the KCSAN kernel (if built)
#   kernels.sh --kdir V     the tree to build modules against (make -C)
#   kernels.sh --image V    the bootable image
#   kernels.sh --make-args V   extra make arguments modules for V need
#                           (the built kernels: clang 14, Debian's rustc)
#
# KVER=V (environment, may be a space-separated list) restricts the lists
# to V; asking for a version that is not available is an error.
set -euo pipefail
. "$(dirname "$0")/kernel/lib.sh"

distro=()
for build in /lib/modules/*/build; do
	[ -d "$build" ] || continue
	v=$(basename "$(dirname "$build")")
	[ -f "/boot/vmlinuz-$v" ] && distro+=("$v")
done
if [ ${#distro[@]} -gt 0 ]; then
	mapfile -t distro < <(printf '%s\n' "${distro[@]}" | sort -V)
fi
declare -A built_dir
built=()
while read -r v d; do
	built+=("$v")
	built_dir[$v]=$d
done < <(kernel_built)
inkernel=()
while read -r v d; do
	inkernel+=("$v")
	built_dir[$v]=$d
done < <(kernel_built "${kernel_inkernel[@]}")
kcsan=()
while read -r v d; do
	kcsan+=("$v")
	built_dir[$v]=$d
done < <(kernel_built "${kernel_kcsan[@]}")

# The kernel V must be known: print nothing and fail otherwise.
# Membership tests read the whole list (grep without -q): with pipefail,
# grep -q leaving at the first line makes printf's next write fail, and
# the pipeline with it (seen under load: "KVER=<first kernel> has no
# headers + image").
known() {
	[ -n "${built_dir[$1]:-}" ] && return 0
	printf '%s\n' "${distro[@]}" | grep -xF -- "$1" >/dev/null && return 0
	echo "kernels: unknown kernel '$1'" >&2
	exit 1
}

case ${1:-} in
--kdir|--image|--make-args)
	v=${2:?usage: kernels.sh $1 VERSION}
	known "$v"
	d=${built_dir[$v]:-}
	case $1 in
	--kdir) echo "${d:-/lib/modules/$v/build}" ;;
	--image)
		if [ -n "$d" ]; then
			echo "$d/arch/x86/boot/bzImage"
		else
			echo "/boot/vmlinuz-$v"
		fi ;;
	--make-args) [ -z "$d" ] || echo "${kernel_make_args[*]}" ;;
	esac
	exit 0 ;;
--distro) avail=("${distro[@]}") ;;
--built) avail=("${built[@]}") ;;
--inkernel) avail=("${inkernel[@]}") ;;
--kcsan) avail=("${kcsan[@]}") ;;
'') avail=("${distro[@]}" "${built[@]}")
    # Named by KVER=, the KCSAN kernel is in the list (its modules build).
    [ -z "${KVER:-}" ] || avail+=("${kcsan[@]}") ;;
*) echo "usage: kernels.sh [--distro|--built|--inkernel|--kcsan|--kdir V|--image V|--make-args V]" >&2
   exit 2 ;;
esac

if [ ${#avail[@]} -eq 0 ]; then
	case ${1:-} in --built|--inkernel|--kcsan) exit 0 ;; esac
	echo "kernels: no kernel has both /lib/modules/V/build and /boot/vmlinuz-V;" \
		"run 'make deps' as root" >&2
	exit 1
fi

if [ -n "${KVER:-}" ]; then
	for v in $KVER; do
		printf '%s\n' "${distro[@]}" "${built[@]}" "${inkernel[@]}" "${kcsan[@]}" | grep -xF -- "$v" >/dev/null || {
			echo "kernels: KVER=$v has no headers + image;" \
				"available: ${distro[*]} ${built[*]}" >&2
			exit 1
		}
		# A list asked for stays that list.
		printf '%s\n' "${avail[@]}" | grep -xF -- "$v" >/dev/null && echo "$v"
	done
	exit 0
fi
printf '%s\n' "${avail[@]}"
