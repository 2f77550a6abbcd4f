#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS POST_INSTALL / POST_REMOVE hook (dkms.conf), run from the package's
# source tree: put in place (or take away) what loads dmaguard_inplace.ko
# early on boot, from abi/inplace/boot/:
#   /etc/modules-load.d/dmaguard_inplace.conf
#   /etc/initramfs-tools/hooks/dmaguard_inplace         (puts the modules in)
#   /etc/initramfs-tools/scripts/init-top/dmaguard_inplace (loads them
#                                                        before udev)
# then regenerate the kernel's initramfs (update-initramfs, where there is
# one). ROOT= (environment) installs under another root and regenerates
# nothing: `make check-dkms` uses it.
# Usage (from dkms.conf): dkms-inplace.sh install|remove KERNELVER
set -eu
what=$1
kernelver=$2
root=${ROOT:-}
src=abi/inplace/boot
files="modules-load.d/dmaguard_inplace.conf
initramfs-tools/hooks/dmaguard_inplace
initramfs-tools/scripts/init-top/dmaguard_inplace"

for f in $files; do
	case $what in
	install)
		mkdir -p "$root/etc/$(dirname "$f")"
		cp "$src/$f" "$root/etc/$f"
		;;
	remove)
		rm -f "$root/etc/$f"
		;;
	*)
		echo "dkms-inplace.sh: install or remove, not '$what'" >&2
		exit 2
		;;
	esac
done
if [ -z "$root" ] && command -v update-initramfs >/dev/null &&
   [ -e "/boot/initrd.img-$kernelver" ]; then
	update-initramfs -u -k "$kernelver"
fi
