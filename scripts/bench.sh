#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks (`make bench`, `make bench-vm`, `make bench-native`). They
# are not tests: nothing here passes or fails on a number; the output says
# how the figures compare with the targets of the hardened-pool issue.
#
#   bench.sh vm       for every installed kernel (scripts/kernels.sh; KVER=
#                     picks), build dmaguard.ko + tests/kmod/dmaguard_bench.ko,
#                     boot once (TCG, 1 vCPU, 1 GiB) with
#                     tests/vm/bench/pool.vmtest through the VM harness, and
#                     print the module's BENCH lines, a geomean line and a
#                     table. Kernel dma_pool vs dmaguard, dmapool_test protocol.
#   bench.sh native   build/bench/pool_bench: dmaguard's core vs the in-band
#                     reference pool (tests/bench/ref_pool.c), plus
#                     instructions per alloc+free pair from callgrind.
#   bench.sh all      both (what `make bench` runs).
#
# Environment:
#   KVER=V            only this kernel (space-separated list allowed)
#   BENCH_ARGS=...    extra dmaguard_bench.ko parameters, e.g. "fresh=1",
#                     "reps=9", "row=0" (see the module's header comment)
#   BENCH_DG_ARGS=... extra dmaguard.ko parameters, e.g. reclaim_delay_ms=
#   NATIVE_ARGS=...   extra pool_bench arguments (default reps 9)
#   CALLGRIND=0       skip the callgrind part of the native benchmark
#   CG_ROUNDS=N       rounds counted under callgrind per row (default 5)
#   BENCH_REV=REV     measure the core (c-core/, abi/, Kbuild) of that commit
#                     instead of the working tree; the benchmark sources
#                     (tests/kmod/dmaguard_bench.c, tests/bench/) stay the
#                     working tree's
#   BENCH_ICOUNT=1    boot with -icount shift=0: the guest's clock counts
#                     guest instructions (1 ns each), so "us" become
#                     thousands of guest instructions: deterministic, and
#                     blind to how much each instruction costs under TCG
#   BENCH_SRC=DIR     the same for a directory holding Kbuild, c-core/ and
#                     abi/ (a candidate patch of the core, say)
#
# Outputs under build/bench/: <kver>.bench (BENCH lines of that kernel),
# native.bench, vm/<kver>/bench-pool.log (full serial log), callgrind/.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
what=${1:-all}
mkdir -p "$out"
start=$(date +%s)

die() { echo "bench: $*" >&2; exit 1; }

# BENCH lines of one kernel's console (not the final dmesg dump, which
# repeats them), prefix and timestamps removed.
bench_lines() {
	sed -e 's/\r$//' -e '/^DMAGUARD-VM: dmesg begin/,$d' "$1" |
		sed -n 's/^.*dmaguard_bench: \(BENCH .*\)$/\1/p'
}

# Geomean line and readable table of one kernel's BENCH lines on stdin.
vm_summary() {
	awk -v kver="$1" '
	function val(k,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return ""
	}
	$1 == "BENCH" && $2 == "start" { mode = val("mode"); reps = val("reps") }
	$1 == "BENCH" && $2 == "pool" && val("kernel_us") != "" {
		n++
		size[n] = val("size"); align[n] = val("align")
		blocks[n] = val("blocks"); k[n] = val("kernel_us")
		d[n] = val("dmaguard_us"); r[n] = d[n] / k[n]
		logsum += log(r[n])
		if (r[n] > 1.0005) over++
	}
	$1 == "BENCH" && $2 == "meta" { meta[val("size")] = val("bytes_per_block") }
	# Median of the per-repetition ratios (a pair of measurements made
	# together shares the host noise): a second opinion, not the target.
	$1 == "BENCH" && $2 == "reps" {
		nk = split(val("kernel_us"), ka, ",")
		split(val("dmaguard_us"), da, ",")
		for (i = 1; i <= nk; i++) pr[i] = da[i] / ka[i]
		for (i = 2; i <= nk; i++)
			for (j = i; j > 1 && pr[j - 1] > pr[j]; j--) {
				t = pr[j]; pr[j] = pr[j - 1]; pr[j - 1] = t
			}
		pm[val("size")] = nk % 2 ? pr[(nk + 1) / 2] : (pr[nk / 2] + pr[nk / 2 + 1]) / 2
		lo[val("size")] = pr[1]; hi[val("size")] = pr[nk]
	}
	$1 == "BENCH" && $2 == "pairs" {
		rq[val("size")] = sprintf("%.3f [%.3f..%.3f]  %.3f", val("median_round_ratio"),
					  val("p25"), val("p75"), val("min_ratio"))
	}
	END {
		if (!n) { print "bench: no BENCH pool line for " kver > "/dev/stderr"; exit 1 }
		g = exp(logsum / n)
		printf "BENCH pool kernel=%s geomean=%.3f\n", kver, g
		printf "\n%s: kernel dma_pool vs dmaguard, %s reps (medians), mode %s\n", kver, reps, mode
		printf "%6s %6s %7s %11s %11s %6s %6s  %-16s %s\n", "size", "align", "blocks",
		       "kernel_us", "dmaguard_us", "ratio", "meta", "rep ratios",
		       "round pairs: median [p25..p75]  min-round ratio"
		for (i = 1; i <= n; i++)
			printf "%6s %6s %7s %11s %11s %6.3f %6s  %.2f..%.2f=%.2f  %s\n",
			       size[i], align[i], blocks[i], k[i], d[i], r[i], meta[size[i]],
			       lo[size[i]], hi[size[i]], pm[size[i]], rq[size[i]]
		printf "%6s %6s %7s %11s %11s %6.3f\n", "", "", "", "", "geomean", g
		printf "(ratio: median dmaguard_us / median kernel_us, the target figure; meta: dmaguard\n"
		printf " bookkeeping bytes per block; rep ratios: lowest..highest=median of the per-\n"
		printf " repetition ratios; round pairs: quartiles of the ratios of all timed pairs of\n"
		printf " adjacent rounds; min-round: fastest dmaguard round / fastest kernel round)\n"
		printf "targets (issue 3, 6.12): every row <= 1.00: %s (%d over); geomean <= 0.90: %s; meta at 16 B <= 0.5: %s\n\n",
		       over ? "MISSED" : "met", over, g <= 0.9005 ? "met" : "MISSED",
		       meta[16] != "" && meta[16] + 0 <= 0.5 ? "met" : "MISSED"
	}'
}

vm_bench() {
	local kver kb ko spec log lines t0 rc=0
	for kver in $("$top/scripts/kernels.sh"); do
		# A private Kbuild tree with dmaguard.ko and the bench module
		# only: other test modules being edited cannot break the bench.
		kb=$out/kbuild/$kver
		rm -rf "$kb"
		mkdir -p "$kb/tests/kmod"
		cp -rs "$src/Kbuild" "$src/c-core" "$src/abi" "$kb/"
		{ grep -v '^obj-m' "$top/tests/kmod/Kbuild"
		  echo 'obj-m += dmaguard_bench.o'; } > "$kb/tests/kmod/Kbuild"
		ln -s "$top/tests/kmod/dmaguard_bench.c" "$top"/tests/kmod/*.h \
			"$kb/tests/kmod/"
		echo "  MODULES bench for $kver" >&2
		make -s -C "/lib/modules/$kver/build" M="$kb" -j"$(nproc)" \
			modules >"$kb/build.log" 2>&1 ||
			{ cat "$kb/build.log" >&2; die "module build failed for $kver"; }
		ko=$kb/ko
		mkdir -p "$ko"
		cp "$kb/dmaguard.ko" "$kb/tests/kmod/dmaguard_bench.ko" "$ko/"

		spec=$out/vm/$kver/bench-pool.vmtest
		mkdir -p "$(dirname "$spec")"
		sed -e "s|\(insmod \$KO/dmaguard\.ko\)|\1 ${BENCH_DG_ARGS:-}|" \
		    -e "s|\(insmod \$KO/dmaguard_bench\.ko\)|\1 ${BENCH_ARGS:-}|" \
			"$top/tests/vm/bench/pool.vmtest" > "$spec"
		if [ "${BENCH_ICOUNT:-0}" = 1 ]; then
			# Guest clock = guest instructions (1 ns each): a
			# deterministic count, blind to what each costs in TCG.
			echo "qemu: -icount shift=0,sleep=off" >> "$spec"
		fi
		log=$out/vm/$kver/bench-pool.log
		echo "  BOOT    $kver (TCG, 1 vCPU, 1 GiB)" >&2
		t0=$(date +%s)
		if ! python3 "$top/scripts/vm/vmtest.py" --kver "$kver" \
			--name bench-pool --out "$out/vm/$kver" --ko-dir "$ko" \
			"$spec" > "$out/vm/$kver/bench-pool.verdict"; then
			echo "bench: the $kver boot was not clean:" >&2
			grep '^not ok' "$out/vm/$kver/bench-pool.verdict" >&2 || true
			rc=1
		fi
		lines=$(bench_lines "$log")
		{ echo "$lines" | grep -v '^BENCH \(start\|done\|reps\|pairs\)' || true
		  echo "$lines" | vm_summary "$kver" | head -1
		  echo "$lines" | grep '^BENCH \(reps\|pairs\)' || true
		} > "$out/$kver.bench"
		grep '^BENCH \(pool\|meta\)' "$out/$kver.bench"
		echo "$lines" | vm_summary "$kver" | tail -n +2
		echo "  tree: $tree" 
		grep '^BENCH \(reps\|pairs\)' "$out/$kver.bench" | sed 's/^/  /'
		grep '^BENCHVM' "$log" | sed -e 's/\r$//' -e 's/^/  /' | sort -u
		echo "  ($kver: boot and benchmark took $(( $(date +%s) - t0 )) s;" \
			"log $log)"
		echo
	done
	return $rc
}

native_bench() {
	local i n ref dg cgout
	[ -x "$bin" ] || die "$bin not built (make bench-native builds it)"
	# shellcheck disable=SC2086
	"$bin" ${NATIVE_ARGS:-} | tee "$out/native.bench"
	echo "  tree: $tree"
	[ "${CALLGRIND:-1}" = 0 ] && return 0
	command -v valgrind >/dev/null || die "valgrind not installed (make deps)"
	cgout=$out/callgrind
	rm -rf "$cgout"
	mkdir -p "$cgout"
	n=${CG_ROUNDS:-5}
	for i in 0 1 2 3 4 5; do
		local size pairs tot ref dg
		for which in ref dmaguard; do
			# --cache-sim adds data reads and writes (Dr, Dw): under
			# TCG every guest memory access is a softmmu lookup, so
			# they weigh more than other instructions there.
			valgrind --tool=callgrind --instr-atstart=no --dump-instr=yes \
				--cache-sim=yes \
				--callgrind-out-file="$cgout/$which-row$i.out" \
				"$bin" -c "$which" -R "$i" -n "$n" \
				> "$cgout/$which-row$i.txt" 2> "$cgout/$which-row$i.log" ||
				die "callgrind run failed, see $cgout/$which-row$i.log"
			size=$(sed -n 's/^CALLGRIND .* size=\([0-9]*\) .*/\1/p' "$cgout/$which-row$i.txt")
			pairs=$(sed -n 's/^CALLGRIND .* pairs=\([0-9]*\)$/\1/p' "$cgout/$which-row$i.txt")
			# totals: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
			tot=$(sed -n 's/^totals: //p' "$cgout/$which-row$i.out")
			[ -n "$tot" ] && [ -n "$pairs" ] ||
				die "no callgrind totals in $cgout/$which-row$i.out"
			tot=$(echo "$tot" | awk -v p="$pairs" \
				'{ printf "%.1f %.1f", $1 / p, ($2 + $3) / p }')
			if [ "$which" = ref ]; then ref=$tot; else dg=$tot; fi
		done
		echo "BENCH callgrind size=$size ref_ir_per_pair=${ref% *} dmaguard_ir_per_pair=${dg% *} ref_mem_per_pair=${ref#* } dmaguard_mem_per_pair=${dg#* }" |
			tee -a "$out/native.bench"
	done
	echo "  (callgrind profiles: $cgout/*.out, e.g. callgrind_annotate --inclusive=yes" \
		"$cgout/dmaguard-row0.out)"
}

# What is measured: the working tree (and whether its core has local
# changes), or with BENCH_REV the core of that commit, exported aside so
# that work in progress in the tree cannot leak in.
src=$top
bin=$out/pool_bench
if [ -n "${BENCH_REV:-}" ]; then
	rev=$(git -C "$top" rev-parse --short "$BENCH_REV^{commit}") ||
		die "BENCH_REV=$BENCH_REV is not a commit"
	src=$out/rev/$rev
	rm -rf "$src"
	mkdir -p "$src"
	git -C "$top" archive "$rev" Kbuild c-core abi | tar -x -C "$src"
	tree="$rev (BENCH_REV=$BENCH_REV)"
elif [ -n "${BENCH_SRC:-}" ]; then
	src=$(cd "$BENCH_SRC" && pwd) || die "BENCH_SRC=$BENCH_SRC: no such directory"
	[ -f "$src/Kbuild" ] && [ -d "$src/c-core" ] && [ -d "$src/abi" ] ||
		die "BENCH_SRC=$src must hold Kbuild, c-core/ and abi/"
	tree="$src (BENCH_SRC)"
fi
if [ "$src" != "$top" ]; then
	if [ "$what" != vm ]; then
		# The flags of scripts/mk/core.mk's -O2 library.
		bin=$src/pool_bench
		${CC:-cc} -I"$src/c-core" -I"$src/c-core/platform/user" \
			-I"$src/abi/include" -I"$top/tests/bench" -std=gnu11 -g \
			-Wall -Wextra -Werror -Wno-unused-parameter \
			-Wno-sign-compare -fno-strict-aliasing -O2 -o "$bin" \
			"$top/tests/bench/pool_bench.c" "$top/tests/bench/ref_pool.c" \
			"$src"/c-core/*.c "$src"/c-core/platform/user/*.c \
			-lm || die "pool_bench does not build against $tree"
	fi
else
	tree="$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown) (working tree)"
	if ! git -C "$top" diff --quiet HEAD -- c-core abi Kbuild 2>/dev/null; then
		tree="$tree + uncommitted changes in c-core/, abi/ or Kbuild ($(git -C "$top" diff HEAD -- c-core abi Kbuild | sha1sum | cut -c1-8))"
	fi
fi

rc=0
case $what in
vm) vm_bench || rc=$? ;;
native) native_bench || rc=$? ;;
all) vm_bench || rc=$?; native_bench || rc=$? ;;
*) die "usage: bench.sh vm|native|all" ;;
esac
echo "bench ($what) took $(( $(date +%s) - start )) s"
exit $rc
