#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print, one per line in version order, the kernel versions dmaguard can be
# built and booted for: those with both /lib/modules/V/build (headers) and
# /boot/vmlinuz-V (image). Versions are discovered, never hard-coded.
#
# KVER=V (environment, may be a space-separated list) restricts the list to
# V; asking for a version that is not installed is an error.
set -euo pipefail

avail=()
for build in /lib/modules/*/build; do
	[ -d "$build" ] || continue
	v=$(basename "$(dirname "$build")")
	[ -f "/boot/vmlinuz-$v" ] && avail+=("$v")
done

if [ ${#avail[@]} -eq 0 ]; then
	echo "kernels: no kernel has both /lib/modules/V/build and /boot/vmlinuz-V;" \
		"run 'make deps' as root" >&2
	exit 1
fi

if [ -n "${KVER:-}" ]; then
	for v in $KVER; do
		printf '%s\n' "${avail[@]}" | grep -qxF "$v" || {
			echo "kernels: KVER=$v has no headers + image;" \
				"available: ${avail[*]}" >&2
			exit 1
		}
		echo "$v"
	done
	exit 0
fi
printf '%s\n' "${avail[@]}" | sort -V
