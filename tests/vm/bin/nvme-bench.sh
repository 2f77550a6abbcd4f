#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# BENCH nvme (make bench, tests/vm/bench/nvme.vmtest): Debian's stock NVMe
# driver, the same driver converted to dmaguard, and its unconverted
# rebuild (same compiler and flags as the converted one: the noise floor),
# loaded one at a time on the same controller, in a rotating order, ROUNDS
# times. Each load times "blk-io.sh time": MIB MiB written by 4 O_DIRECT
# writers in 128 KiB requests, then read back in 128 KiB requests, 6
# times over.
# Prints one line per load:
#   BENCH nvme-run kernel=K backend=B round=R driver=D seconds=S
# scripts/bench.sh takes the medians and the ratios.
#
#   nvme-bench.sh ROUNDS MIB SERIAL
set -eu
rounds=$1 mib=$2 serial=$3
kernel=$(uname -r)
for r in $(seq "$rounds"); do
	case $((r % 3)) in
	1) order="stock dmaguard rebuild" ;;
	2) order="dmaguard rebuild stock" ;;
	0) order="rebuild stock dmaguard" ;;
	esac
	for d in $order; do
		insmod "$KO/nvme/nvme-$d.ko" sgl_threshold=0
		dev=$(blk-io.sh disk "$serial")
		s=$(blk-io.sh time "$dev" "$mib" 6)
		rmmod nvme
		echo "BENCH nvme-run kernel=$kernel backend=${BACKEND:-direct} round=$r driver=$d seconds=$s"
	done
done
