# SPDX-License-Identifier: GPL-2.0
#
# `make deps`: install missing Debian packages (root) and extract kunit.py and
# checkpatch.pl from the linux-source tarball. Fast no-op when done already.
# Every target needing kernels, QEMU or the extracted tools depends on it.

KSRC_TOOLS	:= $(BUILD)/tools/linux
KUNIT_PY	:= $(KSRC_TOOLS)/tools/testing/kunit/kunit.py
CHECKPATCH	:= $(KSRC_TOOLS)/scripts/checkpatch.pl

.PHONY: deps
deps:
	@scripts/deps.sh
