# SPDX-License-Identifier: GPL-2.0
#
# `make kernels`: the debug and PREEMPT_RT 6.12 kernels dmaguard is tested
# on besides Debian's, the KCSAN one its race specs boot, and the in-kernel
# pair (baseline: 6.12 as it is;
# hardened: the same with the series below, which the debug kernel's tree
# has too), built from the linux-source-6.12
# tarball with the config fragments and source adjustments of scripts/kernel/
# (see scripts/kernel/lib.sh for the cache, outside the tree, and its key).
# Cached: a no-op when nothing they are made of changed. `make check` and
# `make run` build them first; scripts/kernels.sh lists debug and rt after
# Debian's, baseline and hardened with --inkernel, kcsan with --kcsan.
#
#   make kernels                 every flavour (debug, rt, baseline,
#                                hardened, kcsan)
#   make kernels FLAVOUR=rt      one
#
#   make kernel-series           dmaguard's pool core as a patch series for
#                                the kernel's mm/dmapool.c
#
# `make kernel-series` writes it to build/kernel-series/6.12/ (git
# format-patch, cover letter first) against Debian's linux-source-6.12,
# generated from c-core/ by scripts/kernel-series/generate.py. Apply it to
# a 6.12 tree with `git am build/kernel-series/6.12/*.patch` (or patch -p1).
# `make check-kernel-series` regenerates it and judges it
# (scripts/kernel-series/check.sh).

.PHONY: kernels kernel-series check-kernel-series
kernels: deps
	@scripts/kernel/build.sh $(FLAVOUR)

kernel-series: deps
	@python3 scripts/kernel-series/generate.py \
		--src "$$(scripts/kernel/build.sh --source)" \
		--out $(BUILD)/kernel-series/6.12

CHECK_GROUPS	+= kernel-series
check-kernel-series: deps
	@mkdir -p $(RESULTS)
	@scripts/kernel-series/check.sh $(RESULTS)/kernel-series; rc=$$?; \
		cat $(RESULTS)/kernel-series; exit $$rc
