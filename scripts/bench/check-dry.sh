#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Check group "bench": every benchmark and profile target can start. Each
# runs as `make <target> BENCH_DRY=1`: it builds what it needs (programs,
# modules, specs, each boot's initramfs) and checks that every boot would
# find its kernel, modules and plugins (scripts/vm/vmtest.py with
# DMAGUARD_VM_DRY=1); nothing boots and nothing is timed, so a target
# missing a prerequisite fails here and not after the VM part of a long
# run. A real run's results are left as they were. Planted: a bench run
# whose native programs were never built, and a boot that loads a module
# no target builds, must each fail the dry run.
#
# Usage: check-dry.sh RESULTS_FILE
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
res=$1
logs=$top/build/bench/dry-run/check
rm -rf "$logs"
mkdir -p "$logs" "$(dirname "$res")"
: > "$res"
result() { echo "$1" | tee -a "$res"; }

# What a real run left (results, tables, logs, profiles): the dry runs
# must not touch it.
results() {
	find "$top/build/bench" -path "$top/build/bench/dry-run" -prune -o \
		-path '*/kbuild' -prune -o \
		-path "$top/build/bench/chunk_table/linux" -prune -o -type f \
		\( -name '*.bench' -o -name '*.txt' -o -name '*.log' -o \
		   -name '*.results' -o -name '*.verdict' -o -name blocks \) \
		-printf '%P %s %T@\n' | sort
}
before=$(results)

# The first, `make bench`, builds what it needs; the others find those
# prerequisites built (the same rules) and are not made to check them
# again, which would only repeat a few seconds of make per kernel.
built=()
for t in bench bench-vm bench-native bench-nvme bench-inkernel bench-pin \
	 bench-table prof-pin prof-pool; do
	if make -C "$top" --no-print-directory "${built[@]}" "$t" BENCH_DRY=1 \
		> "$logs/$t.log" 2>&1 &&
	   grep -q 'dry run ok' "$logs/$t.log" &&
	   ! grep -q 'dry run FAILED' "$logs/$t.log"; then
		result "ok - bench/dry/$t"
		[ "$t" != bench ] || built=(-o deps -o kernels -o modules-test -o vm-bins -o vm-drivers)
	else
		result "not ok - bench/dry/$t # see $logs/$t.log: $(grep -m1 -e 'not ok' -e 'bench: ' -e 'Error' "$logs/$t.log" | cut -c1-160)"
	fi
done

if [ "$(results)" = "$before" ]; then
	result "ok - bench/dry/results-untouched"
else
	result "not ok - bench/dry/results-untouched # a dry run changed a real run's files: $(diff <(echo "$before") <(results) | grep -m3 '^[<>]' | tr '\n' ' ')"
fi

# Planted: programs never built (make bench once lacked pin_bench).
empty=$logs/planted-empty
mkdir -p "$empty"
if BENCH_DRY=1 BENCH_OUT=$empty "$top/scripts/bench.sh" all \
	> "$logs/planted-unbuilt.log" 2>&1; then
	result "not ok - bench/dry/planted/unbuilt-programs # the dry run passed without build/bench's programs"
elif grep -q 'not built' "$logs/planted-unbuilt.log"; then
	result "ok - bench/dry/planted/unbuilt-programs"
else
	result "not ok - bench/dry/planted/unbuilt-programs # failed, but not for the missing programs: see $logs/planted-unbuilt.log"
fi

# Planted: a boot that loads a module nothing builds.
kver=$("$top/scripts/kernels.sh" --distro | head -n 1)
spec=$logs/planted-module.vmtest
printf 'run: insmod $KO/dmaguard_never_built.ko\n' > "$spec"
if DMAGUARD_VM_DRY=1 python3 "$top/scripts/vm/vmtest.py" --kver "$kver" \
	--name planted-module --out "$logs/vm" --ko-dir "$top/build/kernel/$kver/test/ko" \
	"$spec" > "$logs/planted-module.log" 2>&1; then
	result "not ok - bench/dry/planted/unbuilt-module # the dry boot passed"
elif grep -q 'dry run: no \$KO/dmaguard_never_built.ko' "$logs/planted-module.log"; then
	result "ok - bench/dry/planted/unbuilt-module"
else
	result "not ok - bench/dry/planted/unbuilt-module # failed, but not for the module: see $logs/planted-module.log"
fi
! grep -q '^not ok' "$res"
