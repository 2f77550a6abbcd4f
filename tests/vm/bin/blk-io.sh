#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest helper of the real-driver specs (tests/vm/nvme.vmtest,
# tests/vm/xhci.vmtest) and of BENCH nvme: block I/O through a driver
# converted to dmaguard, judged by checksums and by dmaguard's debugfs.
#
#   blk-io.sh load SET             insmod the stock modules $KO/SET/ needs
#                                  ($KO/SET/deps: in load order)
#   blk-io.sh disk NAME            print the /dev/ name of the disk whose
#                                  device's serial (NVMe) or model (SCSI)
#                                  starts with NAME (waits 30 s)
#   blk-io.sh integrity DEV direct|cached MIB OFFSET_MIB [KIB]
#                                  write MIB MiB of random bytes at OFFSET
#                                  (O_DIRECT, or through the page cache,
#                                  synced, then the cache dropped) and read
#                                  them back the same way: same sha256;
#                                  KIB: O_DIRECT's request size (1024)
#   blk-io.sh busy DEV WRITERS POOLRE
#                                  WRITERS concurrent O_DIRECT writers of
#                                  64 KiB blocks; fails unless some sample of
#                                  debugfs shows a pool matching POOLRE with
#                                  blocks in use, or unless every writer's
#                                  data reads back. Without dmaguard's
#                                  debugfs (the in-kernel kernels: the
#                                  kernel's own dma_pool), the samples are
#                                  of the devices' sysfs "pools" files
#   blk-io.sh kpools POOLRE N      exactly N pools of the devices' sysfs
#                                  "pools" files match POOLRE
#   blk-io.sh pools POOLRE N       exactly N pools match POOLRE and none has
#                                  a bad free
#   blk-io.sh attack DEV POOL [edu]  with dmaguard_driver_attack.ko
#                                  loaded before the driver: forge a link
#                                  in the pool POOL of DEV's device (the
#                                  CPU's writes, or with "edu" QEMU's edu
#                                  device's), write and read back 1 MiB
#                                  (O_DIRECT, 64 KiB requests), check;
#                                  print the module's verdict
#   blk-io.sh scribble DEV POOL WRITERS  with dmaguard_driver_attack.ko
#                                  watch=1 loaded before the converted
#                                  driver: while WRITERS loops of O_DIRECT
#                                  64 KiB writes keep DEV busy (their data
#                                  is not judged: the device's writes may
#                                  land in their PRP lists), the edu device
#                                  scribbles over every chunk of POOL; print
#                                  the module's verdict
#   blk-io.sh time DEV MIB PASSES  seconds to write MIB MiB of random
#                                  bytes (4 O_DIRECT writers, 128 KiB
#                                  requests) and read them back, PASSES
#                                  times
set -eu
POOLS=/sys/kernel/debug/dmaguard/pools

die() { echo "blk-io: $*"; exit 1; }

pool_lines() { tail -n +2 "$POOLS" | grep -E "^($1) [0-9]" || true; }

# The kernel's sysfs "pools" lines (poolinfo 0.1: name, in use, total,
# size, chunks) of every device.
kpool_lines() {
	cat /sys/bus/*/devices/*/pools 2>/dev/null | grep -E "^($1) +[0-9]" || true
}

# blocks_in_use: the 11th field from the end (pool names may have spaces)
# of dmaguard's debugfs, else the 4th from the end of sysfs.
in_use() {
	if [ -e "$POOLS" ]; then
		pool_lines "$1" | awk '{ s += $(NF - 10) } END { print s + 0 }'
	else
		kpool_lines "$1" | awk '{ s += $(NF - 3) } END { print s + 0 }'
	fi
}

# The PCI device (its sysfs name) of block device $1.
pci_of() {
	p=$(readlink -f "/sys/block/${1#/dev/}/device/device")
	echo "${p##*/}"
}

ATTACK=/sys/kernel/debug/dmaguard_driver_attack/attack

case "$1" in
load)
	for m in $(cat "$KO/$2/deps"); do insmod "$KO/$2/$m.ko"; done ;;
disk)
	for i in $(seq 300); do
		for b in /sys/block/*; do
			s=$(cat "$b/device/serial" 2>/dev/null ||
			    cat "$b/device/model" 2>/dev/null || true)
			case "$s" in "$2"*) echo "/dev/${b##*/}"; exit 0 ;; esac
		done
		sleep 0.1
	done
	die "no disk named $2" ;;
integrity)
	dev=$2 mode=$3 mib=$4 off=$5 k=${6:-1024}
	head -c $((mib << 20)) /dev/urandom > /tmp/pat
	if [ "$mode" = direct ]; then
		dd if=/tmp/pat of="$dev" bs="${k}k" seek=$((off * 1024 / k)) \
			oflag=direct status=none
		dd if="$dev" of=/tmp/back bs="${k}k" skip=$((off * 1024 / k)) \
			count=$((mib * 1024 / k)) iflag=direct status=none
	else
		dd if=/tmp/pat of="$dev" bs=1M seek="$off" conv=fsync status=none
		echo 3 > /proc/sys/vm/drop_caches
		dd if="$dev" of=/tmp/back bs=1M skip="$off" count="$mib" status=none
	fi
	a=$(sha256sum < /tmp/pat) b=$(sha256sum < /tmp/back)
	rm -f /tmp/pat /tmp/back
	echo "$mode $mib MiB: wrote ${a%% *}, read ${b%% *}"
	[ "$a" = "$b" ] ;;
busy)
	dev=$2 n=$3 re=$4 max=0
	head -c $((n << 20)) /dev/urandom > /tmp/pat
	rm -rf /tmp/busy && mkdir /tmp/busy
	for i in $(seq 0 $((n - 1))); do
		{ dd if=/tmp/pat of="$dev" bs=64k skip=$((i * 16)) \
			seek=$((i * 16)) count=16 oflag=direct status=none
		  echo $? > /tmp/busy/$i; } &
	done
	# a finished writer is a file (a zombie still answers kill -0)
	while [ "$(ls /tmp/busy | wc -l)" -lt "$n" ]; do
		u=$(in_use "$re")
		[ "$u" -le "$max" ] || max=$u
		sleep 0.05
	done
	wait
	[ -z "$(grep -v '^0$' /tmp/busy/*)" ] || die "a writer failed"
	dd if="$dev" of=/tmp/back bs=1M count="$n" iflag=direct status=none
	cmp /tmp/pat /tmp/back || die "$n writers: data differs"
	rm -f /tmp/pat /tmp/back
	echo "$n writers: at most $max blocks in use at once in pools /$re/"
	[ "$max" -gt 0 ] || die "no sample saw a block in use" ;;
pools)
	pool_lines "$2"
	n=$(pool_lines "$2" | wc -l)
	[ "$n" = "$3" ] || die "$n pools match /$2/, expected $3"
	bad=$(pool_lines "$2" | awk '{ s += $(NF) + $(NF-1) + $(NF-2) + $(NF-3) } END { print s + 0 }')
	[ "$bad" = 0 ] || die "$bad bad frees" ;;
kpools)
	kpool_lines "$2"
	n=$(kpool_lines "$2" | wc -l)
	[ "$n" = "$3" ] || die "$n pools match /$2/ in sysfs, expected $3" ;;
attack)
	dev=$2 pool=$3 pci=$(pci_of "$2")
	forge=forge
	[ "${4:-}" != edu ] || forge=edu-forge
	echo "$forge $pci $pool" > "$ATTACK" || die "$forge $pci $pool failed"
	"$0" integrity "$dev" direct 1 0 64 || die "I/O after the forge failed"
	echo "check $pci $pool" > "$ATTACK" || die "check $pci $pool failed"
	dmesg | grep "driver-attack dev=$pci pool=\"$pool\"" | tail -n 1 ;;
scribble)
	dev=$2 pool=$3 n=$4 pci=$(pci_of "$2")
	blocks=$(($(blockdev --getsize64 "$dev") >> 16))
	rm -f /tmp/scribble.stop
	for i in $(seq "$n"); do
		while [ ! -e /tmp/scribble.stop ]; do
			dd if=/dev/urandom of="$dev" bs=64k count=8 \
				seek=$(((i * 8) % blocks)) oflag=direct \
				status=none || true
		done &
	done
	r=0
	echo "scribble $pci $pool" > "$ATTACK" || r=$?
	touch /tmp/scribble.stop
	wait
	[ "$r" = 0 ] || die "scribble $pci $pool failed"
	dmesg | grep "driver-attack dev=$pci pool=\"$pool\" device=edu" |
		tail -n 1 ;;
time)
	dev=$2 mib=$3 passes=$4 q=$(($3 / 4))
	head -c $((mib << 20)) /dev/urandom > /tmp/pat
	t0=$(cut -d" " -f1 /proc/uptime)
	for p in $(seq "$passes"); do
		for i in 0 1 2 3; do
			dd if=/tmp/pat of="$dev" bs=128k skip=$((i * q * 8)) \
				seek=$((i * q * 8)) count=$((q * 8)) \
				oflag=direct status=none &
		done
		wait
		dd if="$dev" of=/dev/null bs=128k count=$((mib * 8)) \
			iflag=direct status=none
	done
	t1=$(cut -d" " -f1 /proc/uptime)
	rm -f /tmp/pat
	echo "$t0 $t1" | awk '{ printf "%.2f\n", $2 - $1 }' ;;
*)
	die "unknown command $1" ;;
esac
