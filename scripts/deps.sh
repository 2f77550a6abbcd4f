#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what dmaguard needs on Debian bookworm, then extract the few kernel
# tools we use from the linux-source tarball. Idempotent: when everything is
# present this is a silent no-op that takes a few milliseconds.
#
#   scripts/deps.sh           packages (as root) + tools extraction
#
# Missing packages and not root: one message listing them, exit 1.
# Tools extracted into build/tools/linux/ (one tar pass, xz decompressed once):
#   tools/testing/kunit/       kunit.py parse (KTAP parser of the VM harness)
#   scripts/checkpatch.pl      plus spelling.txt and const_structs.checkpatch
#   scripts/kernel-doc         with Documentation/sphinx/kerneldoc.py and
#                              kernellog.py: make docs (the API reference)
#   tools/include/, tools/arch/x86/include/, tools/lib/find_bit.c,
#   tools/lib/rbtree.c
#                              the kernel's own userspace headers (list.h,
#                              bitops, find_bit, hash.h, log2.h, spinlock.h,
#                              rbtree and interval_tree_generic.h)
#                              under the core's userspace build, as
#                              tools/testing/radix-tree uses them
#   mm/dmapool_test.c          mainline's dma_pool timing test, which
#                              `make bench` runs beside its conversion
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

PACKAGES=(
	linux-image-amd64 linux-headers-amd64
	linux-image-6.12-amd64 linux-headers-6.12-amd64
	qemu-system-x86 busybox-static cpio
	sparse coccinelle libcmocka-dev abigail-tools musl-tools
	clang libclang-rt-14-dev bindgen kmod python3 valgrind
	linux-source-6.12 linux-source-6.1	# drivers for make real-drivers, vm-drivers
	xz-utils	# tar -J for the linux-source tarball
	liburcu-dev	# make bench-table: the kernel's radix-tree test harness
	# The debug and rt kernels built here (scripts/kernel/): clang 14 and
	# Debian's rustc with its library source (CONFIG_RUST).
	clang-14 lld-14 llvm-14 flex bison libelf-dev libssl-dev bc rustc-web
	rust-web-src
	# `make run`'s report (plots, and the screenshot test of the page)
	# and the DKMS packaging check.
	gnuplot-nox chromium dkms
	python3-sphinx	# make docs: the API reference
	initramfs-tools	# check-dkms: the early-load files of dmaguard_inplace.ko
)

die() { echo "deps: error: $*" >&2; exit 1; }

missing_packages() {
	local installed
	# Unknown packages make dpkg-query exit 1; they simply stay missing.
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' \
		"${PACKAGES[@]}" 2>/dev/null | awk '$2 == "ii" { print $1 }') || true
	local p
	for p in "${PACKAGES[@]}"; do
		grep -qxF "$p" <<<"$installed" || echo "$p"
	done
}

install_packages() {
	command -v dpkg-query >/dev/null ||
		die "dpkg-query not found: dmaguard expects Debian bookworm (see README.md)"
	local missing
	missing=$(missing_packages)
	[ -z "$missing" ] && return 0
	# shellcheck disable=SC2086
	if [ "$(id -u)" -ne 0 ]; then
		echo "deps: these Debian packages are missing:" >&2
		echo "  $(echo $missing)" >&2
		echo "deps: run 'make deps' as root, or: sudo apt-get update &&" \
			"sudo apt-get install --no-install-recommends $(echo $missing)" >&2
		exit 1
	fi
	echo "deps: installing $(echo $missing | wc -w) Debian packages: $(echo $missing)"
	echo "deps: on a fresh machine that is two kernels and their headers, QEMU, clang,"
	echo "      Chromium and the kernel source: several minutes, apt's progress follows"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
	missing=$(missing_packages)
	[ -z "$missing" ] || die "still missing after apt-get install: $(echo $missing)"
}

extract_tools() {
	local tarball dest stamp want top_dir
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1)
	[ -n "$tarball" ] || die "no /usr/src/linux-source-*.tar.xz (package linux-source-6.12)"
	dest="$top/build/tools/linux"
	stamp="$dest/.extracted"
	# The list of extracted paths is part of the stamp: adding one re-extracts.
	local paths=(
		tools/testing/kunit scripts/checkpatch.pl scripts/spelling.txt
		scripts/const_structs.checkpatch tools/include tools/arch/x86/include
		tools/lib/find_bit.c tools/lib/rbtree.c
		mm/dmapool_test.c	# mainline's timing test (make bench)
		# make docs: the kernel's kernel-doc and its Sphinx directive
		scripts/kernel-doc Documentation/sphinx/kerneldoc.py
		Documentation/sphinx/kernellog.py
	)
	want="$tarball $(stat -c %Y "$tarball") ${paths[*]}"
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0

	# Several makes may get here at once: one extracts, the others wait.
	mkdir -p "$top/build/tools"
	exec 9>"$top/build/tools/.lock"
	flock 9
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && return 0
	top_dir=$(basename "$tarball" .tar.xz)	# linux-source-6.12
	echo "deps: extracting kunit.py, checkpatch.pl, kernel-doc, tools/include and mm/dmapool_test.c from $tarball (about 20 s)"
	rm -rf "$dest"
	mkdir -p "$dest"
	tar -xJf "$tarball" -C "$dest" --strip-components=1 \
		"${paths[@]/#/$top_dir/}" ||
		die "extracting tools from $tarball failed"
	echo "$want" > "$stamp"
}

install_packages
extract_tools
