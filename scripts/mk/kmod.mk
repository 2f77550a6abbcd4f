# SPDX-License-Identifier: GPL-2.0
#
# `make modules`: build dmaguard.ko and tests/kmod/ out of tree for every
# kernel that has headers and an image (scripts/kernels.sh), or for KVER=.
# Each kernel builds in build/kernel/<kver>/main/src (a symlink farm of the
# sources, so the tree stays clean) and its .ko files are copied flat to:
#
#   $(call ko_dir,<kver>)   = build/kernel/<kver>/main/ko
#
# KBUILD_ARGS passes extra kbuild variables (e.g. make modules KBUILD_ARGS=C=2).

export KVER
kernels		= $(shell scripts/kernels.sh)
ko_dir		= $(BUILD)/kernel/$(1)/main/ko

.PHONY: modules
modules: deps
	@scripts/build-modules.sh
