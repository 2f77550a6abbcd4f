# SPDX-License-Identifier: GPL-2.0
#
# `make modules`: build dmaguard.ko out of tree for every kernel that has
# headers and an image (scripts/kernels.sh), or for KVER=. Two flavours
# (see ./Kbuild), each kernel's in its own directory, a symlink farm of the
# sources in src/ (so the tree stays clean) and the .ko files copied flat
# to ko/:
#
#   make modules                        production dmaguard.ko, exports in
#                                       DMAGUARD_V1 only:
#                                       $(call ko_dir,<kver>)
#   make modules DMAGUARD_TEST_HOOKS=1  test flavour: dmaguard.ko with the
#   (make modules-test)                 DMAGUARD_INTERNAL test hooks, and
#                                       tests/kmod/; what every VM boot
#                                       loads: $(call test_ko_dir,<kver>)
#
# KBUILD_ARGS passes extra kbuild variables (e.g. make modules KBUILD_ARGS=C=2).

export KVER DMAGUARD_TEST_HOOKS
ko_dir		= $(BUILD)/kernel/$(1)/main/ko
test_ko_dir	= $(BUILD)/kernel/$(1)/test/ko

.PHONY: modules modules-test
modules: deps
	@scripts/build-modules.sh

modules-test: deps
	@DMAGUARD_TEST_HOOKS=1 scripts/build-modules.sh

# The benchmark module reads pool internals through the test hooks, so
# scripts/bench.sh builds the test flavour of its private tree.
bench bench-vm: export DMAGUARD_TEST_HOOKS := 1

# Rust test modules (tests/kmod-rust/) for the kernels with CONFIG_RUST; the
# VM boots find them in build/vm-ko/<kver>/.
.PHONY: kmod-rust
kmod-rust: deps kernels
	@scripts/build-rust-kmod.sh
VM_DEPS		+= kmod-rust
