# SPDX-License-Identifier: GPL-2.0
#
# `make kernels`: the debug and PREEMPT_RT 6.12 kernels dmaguard is tested
# on besides Debian's, built from the linux-source-6.12 tarball with the
# config fragments and source adjustments of scripts/kernel/ (see
# scripts/kernel/lib.sh for the cache, outside the tree, and its key).
# Cached: a no-op when nothing they are made of changed. `make check` and
# `make run` build them first; scripts/kernels.sh lists them after Debian's.
#
#   make kernels                 every flavour (debug, rt)
#   make kernels FLAVOUR=rt      one

.PHONY: kernels
kernels: deps
	@scripts/kernel/build.sh $(FLAVOUR)
