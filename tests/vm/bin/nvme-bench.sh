#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BENCH nvme (make bench, tests/vm/bench/nvme.vmtest): Debian's stock NVMe
# driver, the same driver converted to dmaguard, and its unconverted
# rebuild (same compiler and flags as the converted one: the noise floor),
# loaded one at a time on the same controller, in a rotating order, ROUNDS
# times. Each load times "blk-io.sh time": MIB MiB written by 4 O_DIRECT
# writers in 128 KiB requests, then read back in 128 KiB requests, 6
# times over. Where dmaguard_inplace.ko was built, a fourth turn: the
# stock driver again with it loaded (driver=inplace: the kernel's own
# dma_pool_*() served by dmaguard).
# Prints one line per load:
#   BENCH nvme-run kernel=K backend=B round=R driver=D seconds=S
# scripts/bench.sh takes the medians and the ratios.
#
#   nvme-bench.sh ROUNDS MIB SERIAL
set -eu
rounds=$1 mib=$2 serial=$3
kernel=$(uname -r)
drivers="stock dmaguard rebuild"
[ ! -e "$KO/dmaguard_inplace.ko" ] || drivers="$drivers inplace"
n=$(echo $drivers | wc -w)
for r in $(seq "$rounds"); do
	# rotate the order by one each round
	order=$(echo $drivers $drivers | cut -d' ' -f$((r % n + 1))-$((r % n + n)))
	for d in $order; do
		if [ "$d" = inplace ]; then
			insmod "$KO/dmaguard_inplace.ko"
			insmod "$KO/nvme/nvme-stock.ko" sgl_threshold=0
		else
			insmod "$KO/nvme/nvme-$d.ko" sgl_threshold=0
		fi
		dev=$(blk-io.sh disk "$serial")
		s=$(blk-io.sh time "$dev" "$mib" 6)
		rmmod nvme
		[ "$d" != inplace ] || rmmod dmaguard_inplace
		echo "BENCH nvme-run kernel=$kernel backend=${BACKEND:-direct} round=$r driver=$d seconds=$s"
	done
done
