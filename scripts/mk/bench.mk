# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks, not tests (scripts/bench.sh says what each one measures):
#   make bench          all of the below but the profiles
#   make bench-vm       kernel dma_pool vs dmaguard in TCG boots: per kernel,
#                       direct and IOMMU backend, 1 and 2 vCPUs (one CPU:
#                       dmapool_test rows, and mainline's dmapool_test
#                       converted and with dmaguard_inplace.ko; all CPUs
#                       on one pool: pool-mt)
#   make bench-native   dmaguard's core vs the in-band reference pool,
#                       natively, plus callgrind instruction counts; the
#                       pin cache's hit path vs a locked interval tree
#   make bench-nvme     the kernel's NVMe driver: stock vs converted vs
#                       its unconverted rebuild vs stock with
#                       dmaguard_inplace.ko, one boot per kernel and
#                       backend (NVME_ROUNDS, NVME_MIB)
#   make bench-inkernel the kernel's own dma_pool hardened by the series of
#                       `make kernel-series` vs the same 6.12 without it:
#                       mainline's dmapool_test, alternating boots of the
#                       two kernels, wall time and -icount (INKERNEL_BOOTS,
#                       INKERNEL_MODES)
#   make bench-pin      the pin cache: a pin (and map) per I/O vs a cache
#                       hit, per Debian kernel and backend
#   make bench-table    the pool's chunk table beside the kernel's xarray,
#                       natively and in one 6.12 TCG boot
#   make prof-pin       a pin cache hit's guest instructions per function
#                       (a QEMU plugin, scripts/bench/prof.sh)
#   make prof-pool      the same for an alloc + free pair, dma_pool beside
#                       dmaguard (ROW= picks the dmapool_test row)
#   make check-bench    check group "bench": every target above starts
#                       (BENCH_DRY=1: prepared, nothing booted or timed;
#                       scripts/bench/check-dry.sh), planted unbuilt parts
# Knobs (environment): KVER, BENCH_BACKENDS, BENCH_SMP, BENCH_ARGS,
# BENCH_DG_ARGS, BENCH_APPEND, NATIVE_ARGS, NATIVE_MT_ARGS, CALLGRIND,
# CG_ROUNDS. The module's load-and-print smoke test is a VM spec of
# `make check` (tests/vm/bench-smoke.vmtest).

BENCH_OUT	:= $(BUILD)/bench
BENCH_SRCS	:= tests/bench/pool_bench.c tests/bench/pool_bench_mt.c \
		   tests/bench/ref_pool.c tests/bench/ref_pool_spin.c \
		   tests/bench/ref_pool_bare.c
BENCH_HDRS	:= tests/bench/ref_pool.h tests/bench/pool_bench.h

.PHONY: bench bench-vm bench-native bench-pin bench-nvme bench-table prof-pin \
	prof-pool bench-inkernel check-bench

bench: deps kernels $(BENCH_OUT)/pool_bench $(BENCH_OUT)/pool_bench_mt \
       $(BENCH_OUT)/pin_bench modules-test vm-bins vm-drivers
	@scripts/bench.sh all

bench-inkernel: deps kernels vm-bins
	@scripts/bench.sh inkernel

bench-nvme: deps modules-test vm-bins vm-drivers
	@scripts/bench.sh nvme

bench-pin: deps modules-test vm-bins
	@scripts/bench.sh pin

prof-pin: deps modules-test vm-bins
	@scripts/bench/prof.sh pin

prof-pool: deps modules-test
	@scripts/bench/prof.sh pool

bench-vm: deps
	@scripts/bench.sh vm

# The chunk table beside the kernel's xarray (tests/bench/chunk_table).
bench-table: deps
	@tests/bench/chunk_table/run.sh

bench-native: $(BENCH_OUT)/pool_bench $(BENCH_OUT)/pool_bench_mt \
	      $(BENCH_OUT)/pin_bench
	@scripts/bench.sh native

# The pin cache's hit path against a locked interval tree (pin_bench.c).
$(BENCH_OUT)/pin_bench: tests/bench/pin_bench.c \
			$(wildcard c-core/*.h c-core/platform/user/*.h) \
			$(BUILD)/user/libdmaguard-core.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -O2 -o $@ $< \
		$(USER_OUT)/libdmaguard-core.a -pthread

# pool_bench, the one-thread rows: the core built with the kernel's cost of
# its per-CPU cache lock (DG_USER_PCP_KERNEL_COST, dg_platform.h), which excludes
# nothing, and of hweight_long() (-mpopcnt: the kernel's is one popcnt
# where the CPU has it, patched in by alternatives, not a libgcc call);
# pool_bench_mt, the multi-thread runs: the plain core library, whose
# per-CPU caches have a real lock.
# (core.mk comes after this file: its lists are empty here, but not in
# the recipes, which expand when they run.)
$(BENCH_OUT)/pool_bench: $(BENCH_SRCS) $(BENCH_HDRS) \
			 $(wildcard c-core/*.[ch] c-core/platform/user/*.[ch])
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) -Itests/bench $(USER_CFLAGS) -O2 -mpopcnt \
		-DDG_USER_PCP_KERNEL_COST -o $@ $(BENCH_SRCS) $(CORE_SRCS) -lm -pthread

$(BENCH_OUT)/pool_bench_mt: $(BENCH_SRCS) $(BENCH_HDRS) \
			    $(wildcard c-core/*.h c-core/platform/user/*.h) \
			    $(BUILD)/user/libdmaguard-core.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) -Itests/bench $(USER_CFLAGS) -O2 \
		-o $@ $(BENCH_SRCS) $(USER_OUT)/libdmaguard-core.a -lm -pthread

# After the others: it builds the same modules and VM parts the vm group
# builds, and must not race it.
CHECK_GROUPS_LAST += bench
check-bench: deps
	@scripts/bench/check-dry.sh $(RESULTS)/bench
