# SPDX-License-Identifier: GPL-2.0
#
# dmaguard top-level make. The README's two commands are `make run` and
# `make check`; everything else here is what they are made of. The kernel
# side is described in ./Kbuild; each area keeps its rules in
# scripts/mk/<area>.mk and adds its check group to CHECK_GROUPS.
#
# Check groups: `make check-<group>` runs one group and writes one line
# per test case ("ok - name" / "not ok - name") to build/results/<group>;
# scripts/check.sh runs them all, in this order, and prints the closing
# tally. A group reading what others made goes in CHECK_GROUPS_LAST.

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
RESULTS		:= $(BUILD)/results
CHECK_GROUPS	:=
CHECK_GROUPS_LAST :=

.DEFAULT_GOAL	:= all
.PHONY: all check clean

include $(sort $(wildcard scripts/mk/*.mk))

all: modules lib

check: deps kernels
	@scripts/check.sh $(CHECK_GROUPS) $(CHECK_GROUPS_LAST)

clean:
	rm -rf $(BUILD)
