# SPDX-License-Identifier: GPL-2.0
#
# dmaguard top-level make. The README's two commands are `make run` and
# `make check`; everything else here is what they are made of (`make
# help` lists every target, from these head comments). The kernel
# side is described in ./Kbuild; each area keeps its rules in
# scripts/mk/<area>.mk and adds its check group to CHECK_GROUPS.
#
# Check groups: `make check-<group>` runs one group and writes one line
# per test case ("ok - name" / "not ok - name") to build/results/<group>;
# scripts/check.sh runs them all and prints the closing tally.
# CHECK_GROUPS_FIRST (the VM boots, which keep every CPU busy most of the
# time) start first, at normal priority. Beside them, at idle priority
# (on the CPU time they leave): CHECK_PREP (the userspace programs more
# than one group would otherwise build at once), then the groups of
# CHECK_GROUPS as many at a time as there are CPUs (none of them keeps
# two busy alone). Then CHECK_GROUPS_LAST (a group reading what others
# made).

#   make check          every check group, then the tally (README's test
#                       command; .ci/run)
#   make help           every target, one line each
#   make clean          remove build/ (the kernel cache outside it stays)

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
RESULTS		:= $(BUILD)/results
CHECK_GROUPS	:=
CHECK_GROUPS_FIRST :=
CHECK_GROUPS_LAST :=
CHECK_PREP	:=
NPROC		:= $(shell nproc 2>/dev/null || echo 2)

# pyenv's python3 is a shell shim that runs pyenv before the interpreter:
# about a second and 0.7 CPU-seconds a call, and the harness calls python3
# a few hundred times. Recipes and the scripts they run find the
# interpreter itself first (build/bin/python3, a link to it); nothing else
# on PATH moves.
PYTHON3		:= $(shell python3 -c 'import os, sys; print(os.path.realpath(sys.executable))' 2>/dev/null)
ifneq ($(PYTHON3),)
$(shell mkdir -p $(BUILD)/bin && ln -sfn $(PYTHON3) $(BUILD)/bin/python3)
# Once: a recursive make inherits it.
ifeq ($(filter $(BUILD)/bin,$(subst :, ,$(PATH))),)
export PATH	:= $(BUILD)/bin:$(PATH)
endif
endif

.DEFAULT_GOAL	:= all
.PHONY: all check check-prep clean help

include $(sort $(wildcard scripts/mk/*.mk))

all: modules lib

check: deps kernels
	@scripts/check.sh --prep check-prep $(addprefix +,$(CHECK_GROUPS_FIRST)) \
		$(CHECK_GROUPS) -- $(CHECK_GROUPS_LAST)

# What more than one group uses, built before those groups start, beside
# the first (scripts/check.sh --prep; a failure here is the failing
# group's to report, when it builds again). The VM group builds its own
# before its first boot.
check-prep: $(CHECK_PREP)

clean:
	rm -rf $(BUILD)

help:
	@python3 scripts/docs/targets.py --help-text
