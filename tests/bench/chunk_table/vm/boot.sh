#!/bin/sh
# Build a minimal busybox initramfs holding xbench.ko and boot it in QEMU TCG.
set -e
KVER=${KVER:?KVER: the Debian 6.12 kernel to boot (run.sh sets it)}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(mktemp -d)
mkdir -p "$ROOT/bin" "$ROOT/proc" "$ROOT/sys" "$ROOT/dev"
cp /bin/busybox "$ROOT/bin/busybox"
cp "$HERE/init" "$ROOT/init"
cp "$HERE/../kmod/xbench.ko" "$ROOT/xbench.ko"
(cd "$ROOT" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet | gzip -1) > "$HERE/initramfs.cpio.gz"
rm -rf "$ROOT"
timeout 150 qemu-system-x86_64 -nic none -accel tcg -cpu max -m 1024M -smp 1 \
	-nographic -no-reboot -kernel /boot/vmlinuz-$KVER \
	-initrd "$HERE/initramfs.cpio.gz" \
	-append 'console=ttyS0 panic=-1 softlockup_panic=1 quiet tsc=reliable' \
	</dev/null | tee "$HERE/guest.log"
grep 'XBENCH' "$HERE/guest.log" | sed 's/^\[[ 0-9.]*\] //' > "$HERE/results-guest.txt"
