#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks (`make bench`, `make bench-vm`, `make bench-native`). They
# are not tests: nothing here passes or fails on a number; the output says
# how the figures compare with what the README claims.
#
#   bench.sh vm       for every installed kernel (scripts/kernels.sh; KVER=
#                     picks), build dmaguard.ko + the dmaguard_bench.ko
#                     module (tests/kmod/dmaguard_bench_*.c) and boot
#                     tests/vm/bench/pool.vmtest through the VM harness
#                     (TCG, 1 GiB, q35 with QEMU's edu device as the pools'
#                     device) once per backend and vCPU count: direct and
#                     iommu (intel-iommu, intel_iommu=on) x -smp 1 and 2
#                     (never more vCPUs than the host has cores: a
#                     preempted vCPU holding a spinlock inflates the
#                     kernel pool's cost, which flatters any design
#                     without that lock).
#                     -smp 1 boots run the six single-CPU rows (kernel
#                     dma_pool vs dmaguard, dmapool_test protocol; BENCH
#                     pool lines, a geomean line and a table per kernel and
#                     backend), mainline's own mm/dmapool_test.c unchanged,
#                     converted, and with dmaguard_inplace.ko loaded (BENCH
#                     mainline and BENCH inplace lines; mainline_step) and
#                     the multi-CPU measurement on one CPU;
#                     -smp 2 the multi-CPU measurement (every CPU on one
#                     shared pool; BENCH pool-mt lines and one table).
#                     One boot at a time.
#   bench.sh native   build/bench/pool_bench: dmaguard's core vs the in-band
#                     reference pool (tests/bench/ref_pool.c), one thread
#                     (the six rows, each against its claim) and 1 and 2
#                     threads on one pool (BENCH native-mt), plus
#                     instructions per alloc+free pair from callgrind;
#                     build/bench/pin_bench: the pin cache's hit (get +
#                     put) against a locked interval tree, 4 KiB to 1 GiB,
#                     and two threads on one cache (BENCH pin-native:
#                     per size, same-range and own-range).
#   bench.sh pin      the pin cache: for every Debian kernel, boot
#                     tests/vm/bench/pin.vmtest (test flavour modules,
#                     tests/vm/bin/pin_bench) direct and under the strict
#                     Intel IOMMU: pin_user_pages_fast + unpin (+ a DMA
#                     mapping, "pin-map") against a cache hit, 4 KiB to a
#                     2 MiB THP range, medians (BENCH pin / pin-map lines
#                     and a table; build/bench/pin.bench).
#   bench.sh nvme     the kernel's NVMe driver: for every Debian kernel,
#                     boot tests/vm/bench/nvme.vmtest direct and under the
#                     strict Intel IOMMU: Debian's module, the same driver
#                     converted to dmaguard, its unconverted rebuild
#                     (make vm-drivers) and Debian's module with
#                     dmaguard_inplace.ko loaded (BENCH nvme-inplace) take
#                     turns, NVME_ROUNDS rounds
#                     (default 5) of NVME_MIB MiB (default 32) O_DIRECT
#                     writes and reads; medians, ratio = converted / stock
#                     beside the rebuild's ratio, the noise floor (BENCH
#                     nvme lines and a table; build/bench/nvme.bench).
#   bench.sh inkernel the kernel's own dma_pool, hardened by the series of
#                     `make kernel-series` against the same 6.12 without
#                     it (scripts/kernels.sh --inkernel: baseline and
#                     hardened, `make kernels`): INKERNEL_BOOTS boots each
#                     (default 5), the two kernels alternating (the order
#                     flips every round), each boot loading mainline's
#                     mm/dmapool_test.ko 5 times (tests/vm/bench/
#                     inkernel.vmtest); per row the median of every load
#                     of a kernel, ratio = hardened / baseline (BENCH
#                     inkernel lines, a geomean line and a table). Once in
#                     wall time and once under -icount shift=0
#                     (INKERNEL_MODES, default "wall icount nvme"). Mode
#                     nvme: the stock NVMe driver built into each kernel
#                     (tests/vm/bench/inkernel-nvme.vmtest), rounds of
#                     three boots, baseline, hardened, baseline again,
#                     each timing INKERNEL_NVME_MIB MiB (default 128) of
#                     O_DIRECT writes and reads, twice, 3 times a boot; per round hardened /
#                     baseline, and the second baseline / the first: the
#                     noise floor (BENCH inkernel-nvme line and a table).
#   bench.sh all      all five (what `make bench` runs).
#
# BENCH_DRY=1: the dry run `make check-bench` makes of every target. Each
# part builds what it would (programs, modules, specs, each boot's
# initramfs) and checks that every boot would find what it needs
# (DMAGUARD_VM_DRY=1, scripts/vm/vmtest.py); nothing boots, nothing is
# timed, no table or report page is written, and what it writes goes to
# build/bench/dry-run/, never over a real run's results.
#
# Environment:
#   KVER=V            only this kernel (space-separated list allowed)
#   BENCH_ARGS=...    extra dmaguard_bench.ko parameters, e.g. "fresh=1",
#                     "reps=9", "row=0", "mt_ms=1000", "mt_reps=9" (see
#                     the header comments of tests/kmod/dmaguard_bench_*.c)
#   BENCH_BACKENDS=.. backends to boot (default "direct iommu")
#   BENCH_SMP=...     vCPU counts to boot (default "1 2"; 1 runs the rows;
#                     counts above the host's cores are refused)
#   BENCH_DG_ARGS=... extra dmaguard.ko parameters, e.g. reclaim_delay_ms=
#   BENCH_APPEND=...  extra kernel command line of the pool boots, e.g.
#                     "init_on_alloc=0" (both pools then skip the zeroing
#                     Debian's kernels do by default: the allocators alone)
#   NATIVE_ARGS=...   extra pool_bench arguments (default reps 9)
#   NATIVE_MT_ARGS=.. the multi-thread run's pool_bench arguments
#                     (default "-t 1,2": 1 and 2 threads; -m MS, -r REPS;
#                     more threads than the host's cores are refused)
#   NATIVE_PIN_ARGS=. pin_bench arguments (-r REPS, -n ITERS, -m MS,
#                     -s MAX_BYTES)
#   CALLGRIND=0       skip the callgrind part of the native benchmark
#   CG_ROUNDS=N       rounds counted under callgrind per row (default 5)
#   BENCH_REV=REV     measure the core (c-core/, abi/, Kbuild) of that commit
#                     instead of the working tree; the benchmark sources
#                     (tests/kmod/dmaguard_bench_*.c, tests/bench/) stay the
#                     working tree's
#   BENCH_ICOUNT=1    boot with -icount shift=0 (pool and pin boots): the
#                     guest's clock counts guest instructions (1 ns each),
#                     so "us" become thousands of guest instructions:
#                     deterministic, and blind to how much each instruction
#                     costs under TCG
#   BENCH_SRC=DIR     the same for a directory holding Kbuild, c-core/ and
#                     abi/ (a candidate patch of the core, say)
#   BENCH_OUT=DIR     outputs go there, and the native programs are looked
#                     for there (default build/bench, where make builds
#                     them and where the report page reads the results)
#
# Outputs under build/bench/: vm/<kver>/bench-<backend>-smp<n>.{bench,log}
# (BENCH lines and full serial log of each boot), vm.bench (all BENCH
# lines), vm-rows.txt and vm-mt.txt (the tables), native.bench,
# callgrind/. Then scripts/report/make-report.py writes them, as tables and
# plots, into the "Full benchmark" section of build/report/index.html.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
progs=${BENCH_OUT:-$top/build/bench}
out=$progs
what=${1:-all}
mkdir -p "$out"
start=$(date +%s)

die() { echo "bench: $*" >&2; exit 1; }
dry() { [ "${BENCH_DRY:-0}" = 1 ]; }
if dry; then
	# Never over the last real run's results and logs.
	export DMAGUARD_VM_DRY=1
	out=$progs/dry-run
	mkdir -p "$out"
fi

# BENCH lines of one kernel's console (not the final dmesg dump, which
# repeats them), prefix and timestamps removed.
bench_lines() {
	sed -e 's/\r$//' -e '/^DMAGUARD-VM: dmesg begin/,$d' "$1" |
		sed -n 's/^.*dmaguard_bench: \(BENCH .*\)$/\1/p'
}

# awk: the value of "key=value" field k of the current line, or "".
# shellcheck disable=SC2016
awk_val='function val(k,   i) {
		for (i = 1; i <= NF; i++)
			if (index($i, k "=") == 1)
				return substr($i, length(k) + 2)
		return ""
	}'

# awk: the median of the comma-separated numbers of s.
# shellcheck disable=SC2016
awk_median='function median(s,   a, n, i, j, t) {
		n = split(s, a, ",")
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}'

# Geomean line and readable table of one kernel's BENCH lines on stdin.
vm_summary() {
	awk -v kver="$1" -v backend="$2" "$awk_val"'
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
		# The README claims these on 6.12 only.
		tgt = kver ~ /^6\.12\./
		printf "BENCH pool kernel=%s backend=%s geomean=%.3f\n", kver, backend, g
		printf "\n%s, %s backend, 1 CPU: kernel dma_pool vs dmaguard, %s reps (medians), mode %s\n",
		       kver, backend, reps, mode
		printf "%6s %6s %7s %11s %11s %6s %-6s %6s  %-16s %s\n", "size", "align", "blocks",
		       "kernel_us", "dmaguard_us", "ratio", "<=1.00", "meta", "rep ratios",
		       "round pairs: median [p25..p75]  min-round ratio"
		for (i = 1; i <= n; i++)
			printf "%6s %6s %7s %11s %11s %6.3f %-6s %6s  %.2f..%.2f=%.2f  %s\n",
			       size[i], align[i], blocks[i], k[i], d[i], r[i],
			       (!tgt ? "-" : (r[i] > 1.0005 ? "MISSED" : "met")), meta[size[i]],
			       lo[size[i]], hi[size[i]], pm[size[i]], rq[size[i]]
		printf "%6s %6s %7s %11s %11s %6.3f %-6s\n", "", "", "", "", "geomean", g,
		       (!tgt ? "-" : (g <= 0.9005 ? "met" : "MISSED"))
		printf "(ratio: median dmaguard_us / median kernel_us, the claimed figure; meta: dmaguard\n"
		printf " bookkeeping bytes per block; rep ratios: lowest..highest=median of the per-\n"
		printf " repetition ratios; round pairs: quartiles of the ratios of all timed pairs of\n"
		printf " adjacent rounds; min-round: fastest dmaguard round / fastest kernel round)\n"
		if (!tgt) {
			printf "claims: the single-CPU figures are claimed on 6.12 only\n\n"
			exit 0
		}
		printf "claim (6.12, %s): every row <= 1.00: %s (%d over); geomean <= 0.90: %s; bookkeeping at 16 B: %s bytes a block\n\n",
		       backend, over ? "MISSED" : "met", over, g <= 0.9005 ? "met" : "MISSED",
		       meta[16] != "" ? meta[16] : "?"
	}'
}

# The VM configurations: backend, vCPUs, what the module runs. The
# single-CPU boots run the six rows and the one-CPU pool-mt measurement;
# the others pool-mt only. BENCH_BACKENDS / BENCH_SMP pick a subset.
vm_configs() {
	local b n
	for b in ${BENCH_BACKENDS:-direct iommu}; do
		for n in ${BENCH_SMP:-1 2}; do
			[ "$n" -le "$(nproc)" ] ||
				die "BENCH_SMP: $n vCPUs on a host of $(nproc) cores measures the host's scheduler, not the pools"
			echo "$b $n $([ "$n" = 1 ] && echo all || echo mt)"
		done
	done
}

# QEMU arguments and kernel command line of a backend: the same q35
# machine and edu device (the module's bench_dev) for both; the IOMMU
# device must come before the device it translates.
backend_qemu() {
	case $1 in
	direct) echo "-M q35 -device edu,dma_mask=0xffffffff" ;;
	iommu) echo "-M q35 -device intel-iommu,intremap=off -device edu,dma_mask=0xffffffff" ;;
	*) die "unknown backend $1 (direct or iommu)" ;;
	esac
}

backend_append() {
	if [ "$1" = iommu ]; then echo "intel_iommu=on"; fi
}

# Build dmaguard.ko and the bench module of one kernel into $out/kbuild.
vm_build() {
	local kver=$1 kb=$out/kbuild/$1
	# A private Kbuild tree with dmaguard.ko and the bench module only:
	# other test modules being edited cannot break the bench.
	rm -rf "$kb"
	mkdir -p "$kb/tests/kmod"
	cp -rs "$src/Kbuild" "$src/c-core" "$src/abi" "$kb/"
	{ grep -v '^obj-m' "$top/tests/kmod/Kbuild"
	  echo 'obj-m += dmaguard_bench.o'
	  echo 'obj-m += dmapool_test_kernel.o dmapool_test_dmaguard.o'
	} > "$kb/tests/kmod/Kbuild"
	ln -s "$top"/tests/kmod/dmaguard_bench*.c "$top"/tests/kmod/*.h \
		"$kb/tests/kmod/"
	mainline_sources "$kb/tests/kmod"
	echo "  MODULES bench for $kver" >&2
	make -s -C "/lib/modules/$kver/build" M="$kb" -j"$(nproc)" \
		DMAGUARD_TEST_HOOKS=1 modules >"$kb/build.log" 2>&1 ||
		{ cat "$kb/build.log" >&2; die "module build failed for $kver"; }
	mkdir -p "$kb/ko"
	cp "$kb/dmaguard.ko" "$kb"/tests/kmod/*.ko "$kb/ko/"
	# where ftrace can redirect (Kbuild): mainline's test with it in place
	[ ! -e "$kb/dmaguard_inplace.ko" ] || cp "$kb/dmaguard_inplace.ko" "$kb/ko/"
}

# Mainline's own timing test, mm/dmapool_test.c of the linux-source
# tarball (make deps extracts it), into $1 twice: unchanged
# (dmapool_test_kernel.c) and converted to dmaguard by the project's
# semantic patch, nothing else edited (dmapool_test_dmaguard.c). 6.1 has
# no such test: both kernels run 6.12's.
mainline_sources() {
	local t=$top/build/tools/linux/mm/dmapool_test.c dg=$1/dmapool_test_dmaguard.c
	[ -f "$t" ] || die "$t missing: make deps extracts it"
	cp "$t" "$1/dmapool_test_kernel.c"
	cp "$t" "$dg"
	spatch --very-quiet -D patch --in-place \
		--sp-file "$top/semantic-patches/dma_pool-to-dmaguard.cocci" \
		"$dg" > /dev/null || die "spatch could not convert $t"
	if grep -q 'dma_pool_\(create\|alloc\|free\|destroy\)' "$dg" ||
	   ! grep -q 'DMAGUARD_IMPORT_NS' "$dg"; then
		die "the conversion of $t is incomplete: $dg"
	fi
}

# The guest step that loads the two builds of mainline's test one after
# the other, 5 times each, the order alternating, and prints each load's
# lines ("dmapool test: size:... time:<us>") as BENCHVM lines. Where
# dmaguard_inplace.ko was built, the unchanged test is also loaded with it
# in place (pool=inplace): the kernel's own dma_pool_*() served by
# dmaguard, against the same test without it (pool=kernel) in this boot.
mainline_step() {
	cat <<-'EOF'
	test: mainline-dmapool-test: ip=; [ -e $KO/dmaguard_inplace.ko ] && ip=inplace; for r in $(seq 1 5); do o="kernel dmaguard $ip"; [ $((r % 2)) = 1 ] || o="$ip dmaguard kernel"; for m in $o; do n=$(dmesg | grep -c 'dmapool test:'); t=kernel; [ $m = dmaguard ] && t=dmaguard; if [ $m = inplace ]; then insmod $KO/dmaguard_inplace.ko || exit 1; fi; insmod $KO/dmapool_test_$t.ko || exit 1; rmmod dmapool_test_$t || exit 1; if [ $m = inplace ]; then rmmod dmaguard_inplace || exit 1; fi; dmesg | grep 'dmapool test:' | tail -n +$((n + 1)) | sed "s/^.*dmapool test: /BENCHVM: mainline pool=$m rep=$r /"; done; done
	EOF
}

# One boot: kernel $1, backend $2, $3 vCPUs, module run=$4. Writes
# $out/vm/<kver>/bench-<backend>-smp<n>.{log,verdict,bench}.
vm_boot() {
	local kver=$1 backend=$2 smp=$3 what=$4 name spec log t0 rc=0
	name=bench-$backend-smp$smp
	spec=$out/vm/$kver/$name.vmtest
	log=$out/vm/$kver/$name.log
	mkdir -p "$(dirname "$spec")"
	{ sed -e "s|\(insmod \$KO/dmaguard\.ko\)|\1 ${BENCH_DG_ARGS:-}|" \
	      -e "s|\(insmod \$KO/dmaguard_bench\.ko\)|\1 run=$what ${BENCH_ARGS:-}|" \
		"$top/tests/vm/bench/pool.vmtest" |
		if [ "$what" = all ]; then
			# the one-CPU boots also run mainline's own test
			awk -v step="$(mainline_step)" \
				'/^run: rmmod dmaguard$/ { print step } { print }'
		else
			cat
		fi
	  echo "smp: $smp"
	  echo "qemu: $(backend_qemu "$backend")"
	  [ -z "$(backend_append "$backend")" ] ||
		echo "append: $(backend_append "$backend")"
	  [ -z "${BENCH_APPEND:-}" ] || echo "append: $BENCH_APPEND"
	  if [ "${BENCH_ICOUNT:-0}" = 1 ]; then
		# Guest clock = guest instructions (1 ns each): a
		# deterministic count, blind to what each costs in TCG.
		echo "qemu: -icount shift=0,sleep=off"
	  fi
	} > "$spec"
	echo "  BOOT    $kver $backend (TCG, $smp vCPU, 1 GiB, run=$what)" >&2
	t0=$(date +%s)
	if ! python3 "$top/scripts/vm/vmtest.py" --kver "$kver" \
		--name "$name" --out "$out/vm/$kver" --ko-dir "$out/kbuild/$kver/ko" \
		"$spec" > "$out/vm/$kver/$name.verdict"; then
		echo "bench: the $kver $backend -smp $smp boot was not clean:" >&2
		grep '^not ok' "$out/vm/$kver/$name.verdict" >&2 || true
		grep -a 'BENCH error' "$log" | sed -e 's/\r$//' -e 's/^/  /' \
			-e '/dmesg begin/,$d' | sort -u >&2 || true
		rc=1
	fi
	dry || bench_lines "$log" > "$out/vm/$kver/$name.bench"
	dry || echo "  ($kver $backend -smp $smp: boot and benchmark took" \
		"$(( $(date +%s) - t0 )) s; log $log)" >&2
	return $rc
}

# Mainline's test of one boot (the BENCHVM mainline lines of its log $3):
# per row, the median of each pool's load times; the BENCH mainline lines
# and whether it keeps the README's claim.
mainline_report() {
	sed -e 's/\r$//' -e '/^DMAGUARD-VM: dmesg begin/,$d' "$3" |
		grep -a '^BENCHVM: mainline ' | tr ':' ' ' |
	awk -v kver="$1" -v backend="$2" "$awk_median"'
	# Per row, the median of @pool (m[i]) and its ratio to the kernel
	# (q[i], k[i] the kernel'"'"'s), the rows over 1.00 (over); the geomean.
	function ratios(pool,   i, logsum) {
		over = 0
		for (i = 1; i <= n; i++) {
			m[i] = median(t[order[i], pool]); q[i] = m[i] / k[i]
			logsum += log(q[i])
			if (q[i] > 1.0005) over++
		}
		return exp(logsum / n)
	}
	# BENCHVM  mainline pool=P rep=R size S align A blocks B time T
	{
		pool = substr($3, 6); row = $6 "/" $8
		if (!(row in blocks)) { order[++n] = row; blocks[row] = $10 }
		t[row, pool] = t[row, pool] (t[row, pool] == "" ? "" : ",") $12
		nrep[row, pool]++
	}
	END {
		if (!n) { print "bench: no output of mainline dmapool_test for " kver " " backend; exit 0 }
		tgt = kver ~ /^6\.12\./
		for (i = 1; i <= n; i++)
			k[i] = median(t[order[i], "kernel"])
		g = ratios("dmaguard")
		for (i = 1; i <= n; i++) {
			row = order[i]
			split(row, sa, "/")
			printf "BENCH mainline kernel=%s backend=%s size=%s align=%s blocks=%s kernel_us=%s dmaguard_us=%s ratio=%.3f\n",
			       kver, backend, sa[1], sa[2], blocks[row], k[i], m[i], q[i]
		}
		printf "\n%s, %s backend, 1 CPU: mainline mm/dmapool_test.c, unchanged (kernel) and converted by\n", kver, backend
		printf "semantic-patches/dma_pool-to-dmaguard.cocci (dmaguard), loaded alternately in one boot\n"
		printf "%10s %7s %9s %11s %6s %5s  %s\n", "size/align", "blocks", "kernel_us",
		       "dmaguard_us", "ratio", "loads", "kernel / dmaguard load times (us)"
		for (i = 1; i <= n; i++) {
			row = order[i]
			printf "%10s %7s %9s %11s %6.3f %5s  %s / %s\n", row, blocks[row], k[i], m[i], q[i],
			       nrep[row, "kernel"] "+" nrep[row, "dmaguard"], t[row, "kernel"], t[row, "dmaguard"]
		}
		printf "%10s %7s %9s %11s %6.3f\n", "", "", "", "geomean", g
		printf "claim (mainline dmapool_test, %s %s): every row <= 1.00: %s (%d over)",
		       kver, backend, over ? "MISSED" : "met", over
		if (tgt)
			printf "; geomean <= 0.85: %s", g <= 0.8505 ? "met" : "MISSED"
		printf "\n"
		if (!nrep[order[1], "inplace"])
			exit 0
		# the unchanged test with dmaguard_inplace.ko loaded
		g = ratios("inplace")
		for (i = 1; i <= n; i++)
			printf "BENCH inplace kernel=%s backend=%s row=%s ratio=%.3f\n", kver, backend, order[i], q[i]
		printf "BENCH inplace kernel=%s backend=%s geomean=%.3f\n", kver, backend, g
		printf "\n%s, %s backend, 1 CPU: the same unchanged test with dmaguard_inplace.ko loaded\n", kver, backend
		printf "(the kernel'"'"'s own dma_pool_*() served by dmaguard), against it without, same boot\n"
		printf "%10s %7s %9s %10s %6s %5s  %s\n", "size/align", "blocks", "kernel_us",
		       "inplace_us", "ratio", "loads", "inplace load times (us)"
		for (i = 1; i <= n; i++) {
			row = order[i]
			printf "%10s %7s %9s %10s %6.3f %5s  %s\n", row, blocks[row], k[i], m[i], q[i],
			       nrep[row, "inplace"], t[row, "inplace"]
		}
		printf "%10s %7s %9s %10s %6.3f\n", "", "", "", "geomean", g
		printf "claim (in place, %s %s): every row <= 1.00: %s (%d over); geomean <= 0.85: %s\n",
		       kver, backend, over ? "MISSED" : "met", over, g <= 0.8505 ? "met" : "MISSED"
	}'
}

# The single-CPU rows of one boot ($1: its .bench file), as before.
vm_rows_report() {
	local kver=$1 backend=$2 f=$3 log=${3%.bench}.log
	grep -q '^BENCH pool ' "$f" || {
		echo "bench: no single-CPU rows for $kver $backend (see $log)"
		echo
		return 0
	}
	grep -v '^BENCH \(start\|done\|reps\|pairs\|pool-mt\)' "$f" |
		sed "s/^BENCH \(pool\|meta\) kernel=\S*/& backend=$backend/"
	vm_summary "$kver" "$backend" < "$f" | head -1
	vm_summary "$kver" "$backend" < "$f" | tail -n +2
	echo "  tree: $tree"
	grep '^BENCH \(reps\|pairs\)' "$f" | sed 's/^/  /'
	grep -a '^BENCHVM' "$log" | grep -av '^BENCHVM: mainline ' |
		sed -e 's/\r$//' -e 's/^/  /' | sort -u
	mainline_report "$kver" "$backend" "$log"
	echo
}

# Every pool-mt line, a table and the claim: dmaguard serves at least as
# many operations as the kernel's pool at every vCPU count up to the
# host's cores (dmaguard ops / kernel ops >= 1.0, higher is better).
mt_report() {
	awk -v boots="$1" -v host_cpus="$(nproc)" "$awk_val"'
	$1 == "BENCH" && $2 == "pool-mt" {
		key = val("kernel") " " val("backend") " " val("cpus")
		line[key] = $0
		ko[key] = val("kernel_ops"); dgo[key] = val("dmaguard_ops")
		r[key] = val("ratio")
	}
	$1 == "BENCH" && $2 == "pool-mt-reps" {
		key = val("kernel") " " val("backend") " " val("cpus")
		reps[key] = "k=" val("kernel_ops") " dg=" val("dmaguard_ops")
		pairm[key] = val("median_pair_ratio")
		ms = val("ms"); batch = val("batch"); size = val("size")
	}
	END {
		n = split(boots, b, ";")
		for (i = 1; i <= n; i++) {
			split(b[i], f, " ")
			k = f[1] " " f[2] " " f[3]
			if (k in line) print line[k]
		}
		printf "\npool-mt: every online CPU allocating and freeing batches of %s %s-byte blocks on one\n", batch, size
		printf "shared pool for %s ms; ops = alloc+free pairs of all CPUs; medians of the repetitions;\n", ms
		printf "ratio = dmaguard_ops / kernel_ops (higher is better for dmaguard), the claimed figure;\n"
		printf "pairs: median ratio of the two back-to-back measurements of each repetition\n"
		printf "%-22s %-7s %4s %11s %12s %6s %6s  %-7s %-6s %s\n", "kernel", "backend", "cpus",
		       "kernel_ops", "dmaguard_ops", "ratio", "pairs", "claim", "", "repetitions"
		for (i = 1; i <= n; i++) {
			split(b[i], f, " ")
			k = f[1] " " f[2] " " f[3]
			tgt = 1.0
			if (!(k in line)) {
				printf "%-22s %-7s %4s %11s %12s %6s %6s  %-7s %-6s %s\n", f[1], f[2], f[3],
				       "-", "-", "-", "-", tgt ? sprintf(">= %.1f", tgt) : "none",
				       tgt ? "MISSED" : "", "(no measurement: see the boot log)"
				if (tgt) missed++
				continue
			}
			v = tgt ? (r[k] + 0 >= tgt - 0.0005 ? "met" : "MISSED") : ""
			if (v == "met") met++
			if (v == "MISSED") missed++
			printf "%-22s %-7s %4s %11s %12s %6s %6s  %-7s %-6s %s\n", f[1], f[2], f[3],
			       ko[k], dgo[k], r[k], pairm[k], tgt ? sprintf(">= %.1f", tgt) : "none", v, reps[k]
		}
		printf "pool-mt claim (dmaguard at least the kernel'"'"'s operations, ratio >= 1.0, at 1 to %s vCPUs): %d met, %d missed\n\n",
		       host_cpus, met, missed
	}'
}

vm_bench() {
	local kver backend smp what rc=0 boots="" f
	local -a files=()
	for kver in $("$top/scripts/kernels.sh" --distro); do
		vm_build "$kver"
		while read -r backend smp what; do
			f=$out/vm/$kver/bench-$backend-smp$smp.bench
			rm -f "$f"	# never report an earlier run's figures
			vm_boot "$kver" "$backend" "$smp" "$what" || rc=1
			boots+="$kver $backend $smp;"
			files+=("$f")
		done < <(vm_configs)
	done
	! dry || return $rc
	echo
	# The single-CPU rows: the -smp 1 boots of this run.
	for f in "${files[@]}"; do
		case $f in *-smp1.bench) ;; *) continue ;; esac
		backend=${f##*/bench-}
		backend=${backend%-smp1.bench}
		kver=$(basename "$(dirname "$f")")
		vm_rows_report "$kver" "$backend" "$f"
	done | tee "$out/vm-rows.txt"
	cat "${files[@]}" > "$out/vm.bench" 2>/dev/null || true
	mt_report "${boots%;}" < "$out/vm.bench" | tee "$out/vm-mt.txt"
	echo "What the README claims, as measured here:"
	grep -h '^claim (\|^pool-mt claim' "$out/vm-rows.txt" \
		"$out/vm-mt.txt" | sed 's/^/  /'
	[ "$rc" = 0 ] || echo "  (some boots were not clean: rows or lines above are missing)"
	echo
	return $rc
}

# One boot of a bench spec through the VM harness (test flavour modules,
# guest programs): spec_boot KVER BACKEND NAME SPEC WHAT; 1 when the boot
# was not clean (its "not ok" lines on stderr). Log: $out/vm/KVER/NAME.log.
spec_boot() {
	local kver=$1 b=$2 name=$3 spec=$4 what=$5
	python3 "$top/scripts/vm/vmtest.py" --kver "$kver" \
		--name "$name" --out "$out/vm/$kver" --backend "$b" \
		--ko-dir "$top/build/kernel/$kver/test/ko" \
		--bin-dir "$top/build/vm-bin" \
		"$spec" > "$out/vm/$kver/$name.verdict" && return 0
	echo "bench: the $kver $b $what boot was not clean:" >&2
	grep '^not ok' "$out/vm/$kver/$name.verdict" >&2 || true
	return 1
}

# The native single-thread rows against their claim: every row <= 1.00
# (dmaguard ns / reference ns per alloc+free pair).
# The pin cache: one boot per Debian kernel and backend; the
# plain pin rows from the direct boot, pin-map rows from both.
pin_bench() {
	local kver b name spec=$top/tests/vm/bench/pin.vmtest rc=0
	: > "$out/pin.bench"
	if [ "${BENCH_ICOUNT:-0}" = 1 ]; then
		spec=$out/vm/pin-icount.vmtest
		mkdir -p "$out/vm"
		{ cat "$top/tests/vm/bench/pin.vmtest"
		  echo "qemu: -icount shift=0,sleep=off"; } > "$spec"
	fi
	for kver in $("$top/scripts/kernels.sh" --distro); do
		mkdir -p "$out/vm/$kver"
		for b in direct iommu-strict; do
			name=pin-$b
			echo "  BOOT    $kver $b (TCG, pin cache: pin_bench)" >&2
			spec_boot "$kver" "$b" "$name" "$spec" pin || rc=1
			dry || grep -a '^BENCH pin' "$out/vm/$kver/$name.log" | sed 's/\r$//' |
				if [ "$b" = direct ]; then cat; else grep '^BENCH pin-map'; fi \
				>> "$out/pin.bench" || true
		done
	done
	! dry || return $rc
	awk "$awk_val"'
	$1 == "BENCH" && ($2 == "pin" || $2 == "pin-map") {
		if (!n++) {
			printf "\npin cache: per-I/O cost, pin + unpin (no cache) vs a cache hit (get + put), ns, medians\n"
			printf "%-24s %-8s %-13s %8s %3s %13s %9s %7s\n", "kernel", "what", "backend",
			       "bytes", "thp", "pin_unpin_ns", "hit_ns", "hit/pin"
		}
		printf "%-24s %-8s %-13s %8s %3s %13s %9s %7.4f\n", val("kernel"), $2,
		       val("backend") == "" ? "direct" : val("backend"), val("bytes"),
		       val("thp"), val("pin_unpin_ns"), val("hit_ns"), val("ratio")
	}
	END { if (!n) print "bench: no BENCH pin line" > "/dev/stderr" }' "$out/pin.bench" |
		tee "$out/pin.txt"
	echo
	return $rc
}

# BENCH nvme: per Debian kernel and backend, one boot of
# tests/vm/bench/nvme.vmtest in which the stock, converted and rebuilt NVMe
# drivers take turns (make vm-drivers builds them). Per round, ratio =
# converted / stock and the rebuild's ratio; their medians, and the range
# of the rebuild's ratios: the noise floor (the rebuild is the stock
# driver's code, so any distance from 1 there is noise). The converted
# driver is "inside" when its median ratio lies within that range.
nvme_bench() {
	local kver b name spec=$out/vm/nvme.vmtest rc=0
	mkdir -p "$out/vm"
	{ cat "$top/tests/vm/bench/nvme.vmtest"
	  echo "run: nvme-bench.sh ${NVME_ROUNDS:-5} ${NVME_MIB:-32} dgbench"
	  echo "run: rmmod dmaguard"; } > "$spec"
	: > "$out/nvme.bench"
	for kver in $("$top/scripts/kernels.sh" --distro); do
		[ -d "$top/build/vm-ko/$kver/nvme" ] || {
			echo "bench: no NVMe drivers for $kver (make vm-drivers; linux-source of its series)" >&2
			rc=1; continue; }
		mkdir -p "$out/vm/$kver"
		for b in ${BENCH_BACKENDS_NVME:-direct iommu-strict}; do
			name=nvme-$b
			echo "  BOOT    $kver $b (TCG, NVMe: stock, converted, rebuilt; ${NVME_ROUNDS:-5} rounds)" >&2
			spec_boot "$kver" "$b" "$name" "$spec" NVMe || rc=1
			dry || grep -a '^BENCH nvme-run' "$out/vm/$kver/$name.log" |
				sed 's/\r$//' >> "$out/nvme.bench" || true
		done
	done
	! dry || return $rc
	awk "$awk_val"'
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$2 == "nvme-run" {
		k = val("kernel") " " val("backend")
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		t[k, val("round"), val("driver")] = val("seconds")
		if (val("round") > rounds[k]) rounds[k] = val("round")
	}
	END {
		if (!nk) { print "bench: no BENCH nvme-run line" > "/dev/stderr"; exit }
		for (i = 1; i <= nk; i++) {
			k = keys[i]; n = 0; lo = 1e9; hi = 0
			delete S; delete D; delete R; delete dr; delete rr
			for (r = 1; r <= rounds[k]; r++) {
				s = t[k, r, "stock"]; d = t[k, r, "dmaguard"]; q = t[k, r, "rebuild"]
				if (s == "" || d == "" || q == "" || s <= 0) continue
				n++; S[n] = s; D[n] = d; R[n] = q
				dr[n] = d / s; rr[n] = q / s
				if (rr[n] < lo) lo = rr[n]
				if (rr[n] > hi) hi = rr[n]
			}
			if (!n) continue
			split(k, kb, " ")
			ratio = median(dr, n); rebuild = median(rr, n)
			printf "BENCH nvme kernel=%s backend=%s rounds=%d stock_s=%.2f dmaguard_s=%.2f rebuild_s=%.2f ratio=%.3f rebuild_ratio=%.3f rebuild_min=%.3f rebuild_max=%.3f noise=%s\n",
			       kb[1], kb[2], n, median(S, n), median(D, n), median(R, n),
			       ratio, rebuild, lo, hi,
			       (ratio >= lo && ratio <= hi) ? "inside" : "outside"
			# the stock driver with dmaguard_inplace.ko loaded
			m = 0; delete I; delete ir
			for (r = 1; r <= rounds[k]; r++) {
				s = t[k, r, "stock"]; p = t[k, r, "inplace"]
				if (s == "" || p == "" || s <= 0) continue
				m++; I[m] = p; ir[m] = p / s
			}
			if (!m) continue
			ratio = median(ir, m)
			printf "BENCH nvme-inplace kernel=%s backend=%s rounds=%d inplace_s=%.2f ratio=%.3f rebuild_min=%.3f rebuild_max=%.3f noise=%s\n",
			       kb[1], kb[2], m, median(I, m), ratio, lo, hi,
			       (ratio >= lo && ratio <= hi) ? "inside" : "outside"
		}
	}' "$out/nvme.bench" | tee -a "$out/nvme.bench" | awk "$awk_val"'
	$2 == "nvme" {
		if (!n++) {
			printf "\nNVMe: the kernel'"'"'s driver, stock vs converted to dmaguard vs its unconverted rebuild, seconds per run (medians)\n"
			printf "%-24s %-13s %6s %8s %9s %8s %7s %8s %15s %s\n", "kernel", "backend",
			       "rounds", "stock", "dmaguard", "rebuild", "ratio", "rebuild", "rebuild range", "converted is"
		}
		printf "%-24s %-13s %6s %8s %9s %8s %7s %8s %7s-%-7s %s the noise floor\n",
		       val("kernel"), val("backend"), val("rounds"), val("stock_s"),
		       val("dmaguard_s"), val("rebuild_s"), val("ratio"),
		       val("rebuild_ratio"), val("rebuild_min"), val("rebuild_max"), val("noise")
	}
	$2 == "nvme-inplace" {
		inplace[++ni] = sprintf("%-24s %-13s %6s %9s %7s %7s-%-7s %s the noise floor",
			val("kernel"), val("backend"), val("rounds"), val("inplace_s"),
			val("ratio"), val("rebuild_min"), val("rebuild_max"), val("noise"))
	}
	END {
		if (!ni) exit
		printf "\nNVMe: the stock driver with dmaguard_inplace.ko loaded (its pools served by dmaguard), against it without\n"
		printf "%-24s %-13s %6s %9s %7s %15s %s\n", "kernel", "backend", "rounds", "inplace", "ratio", "rebuild range", "in place is"
		for (i = 1; i <= ni; i++) print inplace[i]
	}' | tee "$out/nvme.txt"
	echo
	return $rc
}

# inkernel_boot KVER NAME SPEC WHAT TAGS: one boot of bench-inkernel; its
# "BENCHVM: WHAT ..." lines, tagged, go to $out/inkernel.bench. 1 when
# the boot was not clean (its "not ok" lines on stderr).
inkernel_boot() {
	local kver=$1 name=$2 spec=$3 what=$4 tags=$5 rc=0
	python3 "$top/scripts/vm/vmtest.py" --kver "$kver" \
		--image "$("$top/scripts/kernels.sh" --image "$kver")" \
		--name "$name" --out "$out/vm/$kver" \
		--bin-dir "$top/build/vm-bin" \
		--ko-dir "$out/kbuild/$kver/ko" "$spec" \
		> "$out/vm/$kver/$name.verdict" || {
		echo "bench: the $kver boot $name was not clean:" >&2
		grep '^not ok' "$out/vm/$kver/$name.verdict" >&2 || true
		rc=1; }
	dry || sed -e 's/\r$//' -e '/^DMAGUARD-VM: dmesg begin/,$d' \
		"$out/vm/$kver/$name.log" | grep -a "^BENCHVM: $what " |
		sed "s/^BENCHVM: $what /BENCHVM $what $tags /" \
		>> "$out/inkernel.bench" || true
	return $rc
}

# mainline's dmapool_test on the in-kernel pair: see the header.
inkernel_bench() {
	local base hard mode round k kver spec rc=0 n=${INKERNEL_BOOTS:-5}
	! dry || n=1	# every round boots the same: one shows they can start
	base=$("$top/scripts/kernels.sh" --inkernel | grep -e '-dmaguard-baseline$' || true)
	hard=$("$top/scripts/kernels.sh" --inkernel | grep -e '-dmaguard-hardened$' || true)
	[ -n "$base" ] && [ -n "$hard" ] || {
		echo "bench: the baseline and hardened kernels are not built (make kernels)" >&2
		return 1; }
	for kver in "$base" "$hard"; do
		mkdir -p "$out/kbuild/$kver/ko" "$out/vm/$kver"
		cp "$("$top/scripts/kernels.sh" --kdir "$kver")/mm/dmapool_test.ko" \
			"$out/kbuild/$kver/ko/" || return 1
	done
	: > "$out/inkernel.bench"
	for mode in ${INKERNEL_MODES:-wall icount nvme}; do
		if [ "$mode" = nvme ]; then
			inkernel_nvme "$base" "$hard" "$n" || rc=1
			continue
		fi
		spec=$out/vm/inkernel-$mode.vmtest
		{ cat "$top/tests/vm/bench/inkernel.vmtest"
		  [ "$mode" != icount ] || echo "qemu: -icount shift=0,sleep=off"
		} > "$spec"
		for round in $(seq "$n"); do
			if [ $((round % 2)) = 1 ]; then set -- "$base" "$hard"; else set -- "$hard" "$base"; fi
			for kver; do
				k=baseline
				[ "$kver" != "$hard" ] || k=hardened
				echo "  BOOT    $kver ($mode, round $round of $n)" >&2
				inkernel_boot "$kver" "inkernel-$mode-$round" "$spec" inkernel \
					"mode=$mode kernel=$k boot=$round" || rc=1
			done
		done
	done
	! dry || return $rc
	inkernel_report "$base" "$hard" < "$out/inkernel.bench" | tee "$out/inkernel.txt"
	inkernel_nvme_report "$base" "$hard" < "$out/inkernel.bench" | tee -a "$out/inkernel.txt"
	echo
	return $rc
}

# inkernel_nvme BASE HARD ROUNDS: the NVMe boots of bench-inkernel, their
# BENCHVM inkernel-nvme lines into $out/inkernel.bench.
inkernel_nvme() {
	local base=$1 hard=$2 n=$3 round i kver k spec=$out/vm/inkernel-nvme.vmtest rc=0
	{ cat "$top/tests/vm/bench/inkernel-nvme.vmtest"
	  echo "test: nvme-time: d=\$(blk-io.sh disk dgbench) && for r in 1 2 3; do t=\$(blk-io.sh time \$d ${INKERNEL_NVME_MIB:-128} 2) || exit 1; echo \"BENCHVM: inkernel-nvme rep=\$r seconds=\$t\"; done"
	} > "$spec"
	for round in $(seq "$n"); do
		i=0
		for kver in "$base" "$hard" "$base"; do
			i=$((i + 1))
			k=baseline
			[ "$kver" != "$hard" ] || k=hardened
			[ "$i" != 3 ] || k=baseline2
			echo "  BOOT    $kver (NVMe, round $round of $n, $k)" >&2
			inkernel_boot "$kver" "inkernel-nvme-$round-$i" "$spec" \
				inkernel-nvme "kernel=$k round=$round" || rc=1
		done
	done
	return $rc
}

# BENCHVM inkernel-nvme lines on stdin: per round the median seconds of
# each boot, hardened / baseline and baseline again / baseline (the noise
# floor); the medians and whether hardened lies inside that floor.
inkernel_nvme_report() {
	awk -v base="$1" -v hard="$2" "$awk_val$awk_median"'
	$1 == "BENCHVM" && $2 == "inkernel-nvme" {
		r = val("round"); k = val("kernel")
		s[r, k] = s[r, k] (s[r, k] == "" ? "" : ",") val("seconds")
		if (r > nr) nr = r
	}
	END {
		if (!nr) exit 0
		lo = 1e9; hi = 0; n = 0
		for (r = 1; r <= nr; r++) {
			if (s[r, "baseline"] == "" || s[r, "hardened"] == "" || s[r, "baseline2"] == "") continue
			b = median(s[r, "baseline"]); h = median(s[r, "hardened"]); b2 = median(s[r, "baseline2"])
			if (b <= 0) continue
			n++; R = R (R == "" ? "" : ",") h / b; q = b2 / b; F = F (F == "" ? "" : ",") q
			B = B (B == "" ? "" : ",") b; H = H (H == "" ? "" : ",") h
			if (q < lo) lo = q
			if (q > hi) hi = q
		}
		if (!n) { print "bench: no complete NVMe round"; exit 0 }
		# The floor: how far baseline strays from itself, either way.
		fl = hi - 1 > 1 - lo ? hi - 1 : 1 - lo
		ratio = median(R)
		verdict = ratio > 1 + fl ? "above" : ratio < 1 - fl ? "below" : "inside"
		printf "BENCH inkernel-nvme rounds=%d baseline_s=%.2f hardened_s=%.2f ratio=%.3f noise_min=%.3f noise_max=%.3f noise=%s\n",
		       n, median(B), median(H), ratio, lo, hi, verdict
		printf "\nNVMe: the stock driver built into %s and %s, seconds per run (medians of %d rounds)\n", base, hard, n
		printf "%8s %9s %7s %20s %s\n", "baseline", "hardened", "ratio", "baseline again", "hardened is"
		printf "%8.2f %9.2f %7.3f %9.3f-%-10.3f %s the noise floor (1 +- %.3f)\n", median(B), median(H), ratio, lo, hi,
		       verdict, fl
	}'
}

# BENCHVM inkernel lines on stdin ("... mode=M kernel=K boot=B rep=R size:S
# align:A blocks:N time:T"): per mode and row the median of each kernel's
# loads, the ratio, the geomean and the claim.
inkernel_report() {
	tr ':' '=' | awk -v base="$1" -v hard="$2" "$awk_val$awk_median"'
	$1 == "BENCHVM" && $2 == "inkernel" {
		m = val("mode"); row = val("size") "/" val("align")
		if (!(m in seenm)) { seenm[m] = 1; modes[++nm] = m }
		if (!((m, row) in seen)) { seen[m, row] = 1; rows[m, ++nr[m]] = row; blocks[m, row] = val("blocks") }
		k = val("kernel")
		t[m, row, k] = t[m, row, k] (t[m, row, k] == "" ? "" : ",") val("time")
		cnt[m, row, k]++
	}
	END {
		if (!nm) { print "bench: no output of dmapool_test on the in-kernel kernels"; exit 0 }
		for (i = 1; i <= nm; i++) {
			m = modes[i]; logsum = 0; over = 0
			unit = m == "icount" ? "thousands of guest instructions" : "us"
			printf "\nmainline mm/dmapool_test.c: %s (baseline) vs %s (hardened: the series),\n", base, hard
			printf "%s, loads of every boot, kernels alternating; times in %s\n", m, unit
			printf "%10s %7s %11s %11s %6s %5s\n", "size/align", "blocks", "baseline", "hardened", "ratio", "loads"
			for (j = 1; j <= nr[m]; j++) {
				row = rows[m, j]
				b = median(t[m, row, "baseline"]); h = median(t[m, row, "hardened"])
				r = b > 0 ? h / b : 0; logsum += log(r > 0 ? r : 1)
				if (r > 1.0005) over++
				printf "BENCH inkernel mode=%s row=%s blocks=%s baseline=%s hardened=%s ratio=%.3f loads=%d+%d\n",
				       m, row, blocks[m, row], b, h, r, cnt[m, row, "baseline"], cnt[m, row, "hardened"] > "/dev/stderr"
				printf "%10s %7s %11s %11s %6.3f %5s\n", row, blocks[m, row], b, h, r,
				       cnt[m, row, "baseline"] "+" cnt[m, row, "hardened"]
			}
			g = exp(logsum / nr[m])
			printf "BENCH inkernel mode=%s geomean=%.3f\n", m, g > "/dev/stderr"
			printf "%10s %7s %11s %11s %6.3f\n", "", "", "", "geomean", g
			printf "claim (the hardened kernel, mainline dmapool_test, %s): every row <= 1.00: %s (%d over); geomean <= 0.85: %s\n",
			       m, over ? "MISSED" : "met", over, g <= 0.8505 ? "met" : "MISSED"
		}
	}' 2>&1
}

native_rows_report() {
	awk "$awk_val"'
	$1 == "BENCH" && $2 == "native" && val("ratio") != "" && val("ref") != "mutex" {
		n++; line[n] = sprintf("%6s %6s %7s %9s %11s %6.3f  %s", val("size"),
			val("align"), val("blocks"), val("ref_ns_per_pair"),
			val("dmaguard_ns_per_pair"), val("ratio"),
			val("ratio") + 0 > 1.0005 ? "MISSED" : "met")
		if (val("ratio") + 0 > 1.0005) over++
		logsum += log(val("ratio"))
	}
	END {
		if (!n) exit 0
		printf "\nnative, one thread: dmaguard vs the in-band reference under a spinlock, each side\n"
		printf "paying the kernel lock costs (ns per alloc+free pair, medians)\n"
		printf "%6s %6s %7s %9s %11s %6s  %s\n", "size", "align", "blocks", "ref_ns",
		       "dmaguard_ns", "ratio", "claim <= 1.00"
		for (i = 1; i <= n; i++)
			print line[i]
		printf "%6s %6s %7s %9s %11s %6.3f\n", "", "", "", "", "geomean", exp(logsum / n)
		printf "native single-thread claim (every row <= 1.00): %s (%d of %d rows over)\n\n",
		       over ? "MISSED" : "met", over, n
	}'
}

native_bench() {
	local i n ref dg cgout mt_args
	[ -x "$bin" ] || die "$bin not built (make bench-native builds it)"
	if dry; then
		# the programs were checked before the first part (below)
		[ -x "$top/scripts/bench/locked-instructions.py" ] ||
			die "scripts/bench/locked-instructions.py is not executable"
		[ "${CALLGRIND:-1}" = 0 ] || command -v valgrind >/dev/null ||
			die "valgrind not installed (make deps)"
		return 0
	fi
	# shellcheck disable=SC2086
	"$bin" ${NATIVE_ARGS:-} | tee "$out/native.bench"
	native_rows_report < "$out/native.bench"
	# Second opinion, labelled ref=mutex: the reference under the
	# platform's lock (a mutex whose atomics glibc elides on one thread).
	"$bin" -P -r 3 | grep '^BENCH native \(size\|ref\)' | tee -a "$out/native.bench"
	# Third, labelled ref=spinlock-noirq: the reference's spinlock without
	# the flags. Userspace has no cli/sti, so the default line charges the
	# kernel's interrupt toggle as pushf/popf; here the reference pays
	# nothing for it, a bound the kernel's dma_pool cannot reach.
	# shellcheck disable=SC2086
	"$bin" -N ${NATIVE_ARGS:-} | grep '^BENCH native \(size\|ref\)' | tee -a "$out/native.bench"
	# The multi-thread runs: every thread on one pool (pool_bench_mt.c).
	mt_args=${NATIVE_MT_ARGS:--t 1,2}
	for n in $(echo "$mt_args" | sed -n 's/.*-t *\([0-9,]*\).*/\1/p' | tr , ' '); do
		[ "$n" -le "$(nproc)" ] ||
			die "NATIVE_MT_ARGS: $n threads on a host of $(nproc) cores measures the host's scheduler, not the pools"
	done
	# shellcheck disable=SC2086
	"$mt_bin" $mt_args | tee -a "$out/native.bench"
	# The pin cache's hit path against a locked interval tree (pin_bench.c).
	if [ -z "$pin_bin" ]; then
		echo "  (pin cache hit path: measured for the working tree only)"
	else
		[ -x "$pin_bin" ] || die "$pin_bin not built (make bench-native builds it)"
		# shellcheck disable=SC2086
		"$pin_bin" ${NATIVE_PIN_ARGS:-} | tee -a "$out/native.bench"
	fi
	echo "  tree: $tree"
	[ "${CALLGRIND:-1}" = 0 ] && return 0
	command -v valgrind >/dev/null || die "valgrind not installed (make deps)"
	cgout=$out/callgrind
	rm -rf "$cgout"
	mkdir -p "$cgout"
	n=${CG_ROUNDS:-5}
	for i in 0 1 2 3 4 5; do
		local size pairs tot ref dg locked rir rmem rlock dir dmem dlock
		for which in ref dmaguard; do
			# --cache-sim adds data reads and writes (Dr, Dw): under
			# TCG every guest memory access is a softmmu lookup, so
			# they weigh more than other instructions there.
			valgrind --tool=callgrind --instr-atstart=no --dump-instr=yes \
				--cache-sim=yes --compress-pos=no --compress-strings=no \
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
			locked=$("$top/scripts/bench/locked-instructions.py" \
				"$cgout/$which-row$i.out" | sed -n 's/^locked=\([0-9]*\) .*/\1/p')
			[ -n "$locked" ] || die "no atomic count for $cgout/$which-row$i.out"
			tot=$(echo "$tot $locked" | awk -v p="$pairs" \
				'{ printf "%.1f %.1f %.2f", $1 / p, ($2 + $3) / p, $NF / p }')
			if [ "$which" = ref ]; then ref=$tot; else dg=$tot; fi
		done
		read -r rir rmem rlock <<< "$ref"
		read -r dir dmem dlock <<< "$dg"
		echo "BENCH callgrind size=$size ref_ir_per_pair=$rir dmaguard_ir_per_pair=$dir ref_mem_per_pair=$rmem dmaguard_mem_per_pair=$dmem ref_locked_per_pair=$rlock dmaguard_locked_per_pair=$dlock ir_ratio=$(awk -v r="$rir" -v d="$dir" 'BEGIN { printf "%.3f", d / r }')" |
			tee -a "$out/native.bench"
	done
	echo "  (callgrind profiles: $cgout/*.out, e.g. callgrind_annotate --inclusive=yes" \
		"$cgout/dmaguard-row0.out)"
}

# What is measured: the working tree (and whether its core has local
# changes), or with BENCH_REV the core of that commit, exported aside so
# that work in progress in the tree cannot leak in.
src=$top
bin=$progs/pool_bench
mt_bin=$progs/pool_bench_mt
pin_bin=$progs/pin_bench
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
		# The flags of scripts/mk/core.mk's -O2 library; cores
		# since pool v2 build on the kernel's tools/include.
		bin=$src/pool_bench
		mt_bin=$src/pool_bench_mt
		pin_bin=	# the pin cache's bench: the working tree only
		ktools=$top/build/tools/linux/tools
		libs=()
		if grep -q 'linux/find.h' "$src/c-core/platform/user/dg_platform.h"; then
			libs=("$ktools/lib/find_bit.c")
		fi
		[ ! -f "$src/c-core/pincache.c" ] || libs+=("$ktools/lib/rbtree.c")
		# the core alone: abi_user.c is the ABI's (libdmaguard.a)
		srcs=("$src"/c-core/*.c)
		for f in "$src"/c-core/platform/user/*.c; do
			[ "${f##*/}" = abi_user.c ] || srcs+=("$f")
		done
		# One-thread rows at the kernel's lock costs where that core
		# knows how (DG_USER_PCP_KERNEL_COST, before it
		# DG_USER_PCP_IRQ_COST), multi-thread runs as is.
		irq=()
		for m in DG_USER_PCP_KERNEL_COST DG_USER_PCP_IRQ_COST; do
			if grep -q $m "$src/c-core/platform/user/dg_platform.h"; then
				irq=(-D$m -mpopcnt)
				break
			fi
		done
		for b in "$bin" "$mt_bin"; do
			${CC:-cc} -I"$src/c-core" -I"$src/c-core/platform/user" \
				-I"$src/abi/include" -I"$top/tests/bench" \
				-I"$ktools/include" -I"$ktools/arch/x86/include" \
				-std=gnu11 -g -Wall -Wextra -Werror \
				-Wno-unused-parameter -Wno-sign-compare \
				-Wno-type-limits -fno-strict-aliasing -O2 \
				"${irq[@]}" -o "$b" "$top"/tests/bench/*.c \
				"${srcs[@]}" "${libs[@]}" -lm -pthread ||
				die "pool_bench does not build against $tree"
			irq=()
		done
	fi
else
	tree="$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown) (working tree)"
	if ! git -C "$top" diff --quiet HEAD -- c-core abi Kbuild 2>/dev/null; then
		tree="$tree + uncommitted changes in c-core/, abi/ or Kbuild ($(git -C "$top" diff HEAD -- c-core abi Kbuild | sha1sum | cut -c1-8))"
	fi
fi

# Every native program before the first boot: a missing one must not
# wait for the VM part to fail.
if [ "$what" = all ] || [ "$what" = native ]; then
	for b in "$bin" "$mt_bin" $pin_bin; do
		[ -x "$b" ] || die "$b not built (make bench-native builds it)"
	done
fi

rc=0
case $what in
vm) vm_bench || rc=$? ;;
native) native_bench || rc=$? ;;
pin) pin_bench || rc=$? ;;
nvme) nvme_bench || rc=$? ;;
inkernel) inkernel_bench || rc=$? ;;
all) vm_bench || rc=$?; pin_bench || rc=$?; nvme_bench || rc=$?
     inkernel_bench || rc=$?; native_bench || rc=$? ;;
*) die "usage: bench.sh vm|native|pin|nvme|inkernel|all" ;;
esac
if dry; then
	if [ "$rc" = 0 ]; then
		echo "bench ($what): dry run ok: every part prepared, every boot would find what it needs"
	else
		echo "bench ($what): dry run FAILED (above)"
	fi
	exit $rc
fi
# The report page (make run's build/report/index.html) with these results
# in its "Full benchmark" section.
# make-report.py exits 1 when a report boot of make run failed (that page
# still gets written); anything else is its own failure.
page=$top/build/report/index.html
rrc=0
"$top/scripts/report/make-report.py" --html "$page" > /dev/null || rrc=$?
if [ $rrc -gt 1 ]; then
	echo "bench: writing $page failed (make-report.py exited $rrc)" >&2
	rc=1
elif grep -q 'id="bench"' "$page" 2>/dev/null; then
	echo "tables and plots: build/report/index.html (Full benchmark)"
fi
echo "bench ($what) took $(( $(date +%s) - start )) s"
exit $rc
