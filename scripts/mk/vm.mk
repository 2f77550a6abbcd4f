# SPDX-License-Identifier: GPL-2.0
#
# VM harness (scripts/vm/): every spec in tests/vm/*.vmtest and
# tests/vm/report/*.vmtest boots once per kernel in QEMU (TCG), and once per
# DMA backend of its "backends:" line. Spec format, backends and verdict
# rules: scripts/vm/vmtest.py. Full serial logs: build/vm/<kver>/.
#
#   make check-vm       all specs on all kernels + harness self-test and
#                       planted regressions (KVER= one kernel, BACKEND= some
#                       DMA backends, e.g. BACKEND=iommu-strict,
#                       VM_SELFTEST=0 skips the self-test and the planted
#                       regressions, VM_JOBS= parallel boots, default: CPU
#                       count)
#   make run            the dmaguard report: tests/vm/report/*.vmtest on
#                       Debian's kernels (KVER= others, e.g. the built
#                       debug kernel), printing their "REPORT ..." lines and
#                       tables, and writing build/report/index.html
#                       (scripts/vm/run.sh, scripts/report/)
#   make vm-selftest    only the harness self-test (planted failures)
#   make vm-planted     only the planted core regressions (scripts/vm/planted.sh)
#   make check-planted  only whether every planted patch still applies (seconds;
#                       its own check group, so a stale one is red early)
#   make vm-kcsan [SPEC=tests/vm/x.vmtest]   the KCSAN copies of the race
#                       specs (their kcsan-smp: line), or of the one named,
#                       on the KCSAN kernel
#   make vm-spec SPEC=tests/vm/x.vmtest [KVER=] [BACKEND=]   boot one spec
#                       (under each of its backends, or those named), print
#                       results
#
# Every boot loads the test flavour of the modules (make modules-test,
# build/kernel/<kver>/test/ko: dmaguard.ko with its test hooks and
# tests/kmod/). Static userspace test binaries for the guest go into
# $(VM_BIN_DIR) (they appear on the guest's PATH as /vmbin/*); modules built outside the top
# Kbuild go into $(call vm_ko_dir,<kver>) (they appear in /ko next to
# dmaguard.ko). A target producing either adds itself to VM_DEPS, which is
# built before any boot.

VM_BIN_DIR	:= $(BUILD)/vm-bin
vm_ko_dir	= $(BUILD)/vm-ko/$(1)
VM_DEPS		?=
CHECK_GROUPS	+= planted
CHECK_GROUPS_FIRST += vm
export VM_BIN_DIR VM_JOBS VM_SELFTEST BACKEND

# Guest programs: every tests/vm/bin/*.c, static with musl, and every
# tests/vm/bin/*.sh (busybox sh) as it is.
VM_BIN_SRCS	:= $(wildcard tests/vm/bin/*.c)
VM_BINS		:= $(VM_BIN_SRCS:tests/vm/bin/%.c=$(VM_BIN_DIR)/%) \
		   $(patsubst tests/vm/bin/%,$(VM_BIN_DIR)/%,$(wildcard tests/vm/bin/*.sh))
VM_DEPS		+= vm-bins

.PHONY: vm-bins
vm-bins: $(VM_BINS)

$(VM_BIN_DIR)/%.sh: tests/vm/bin/%.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(VM_BIN_DIR)/%: tests/vm/bin/%.c $(wildcard tests/kmod/*.h tests/vm/bin/*.h)
	@mkdir -p $(dir $@)
	musl-gcc -static -O2 -Wall -Wextra -Werror -o $@ $<

.PHONY: check-vm check-planted run vm-selftest vm-planted vm-spec vm-deps \
	vm-kcsan
check-planted:
	@mkdir -p $(RESULTS)
	@scripts/vm/planted.sh applies | tee $(RESULTS)/planted; \
		! grep -q '^not ok' $(RESULTS)/planted

# In parallel: the consumers' kbuild calls one after another keep one CPU
# busy, the others fill the second.
vm-deps: deps
	$(if $(strip $(VM_DEPS)),@$(MAKE) --no-print-directory -j$(NPROC) $(VM_DEPS))

# check-vm builds the modules itself, per kernel, so that a kernel whose
# build fails is reported and the other one still boots; beside the other
# dependencies first (vm-modules: a failure there is check-vm's to report).
check-vm: deps
	@$(MAKE) --no-print-directory -j$(NPROC) $(VM_DEPS) vm-modules
	@scripts/vm/check-vm.sh

.PHONY: vm-modules
vm-modules: deps
	@DMAGUARD_TEST_HOOKS=1 scripts/build-modules.sh || true

# The report specs load the test flavour and the guest programs only: no
# kernel build (make kernels), no Rust or consumer modules.
# Debian's kernels unless KVER= names others, worked out after deps has
# installed them.
run: deps vm-bins
	@k="$${KVER:-$$(scripts/kernels.sh --distro)}"; \
		$(MAKE) --no-print-directory modules-test KVER="$$k" && \
		KVER="$$k" scripts/vm/run.sh

vm-selftest: deps
	@scripts/vm/selftest.sh

vm-planted: vm-deps modules-test
	@k="$$(scripts/kernels.sh --kcsan)"; \
		[ -z "$$k" ] || $(MAKE) --no-print-directory modules-test KVER="$$k"
	@scripts/vm/planted.sh

vm-spec: vm-deps modules-test
	@test -n "$(SPEC)" || { echo "usage: make vm-spec SPEC=tests/vm/<name>.vmtest [KVER=...] [BACKEND=...]" >&2; exit 2; }
	@scripts/vm/run-spec.sh $(SPEC)

vm-kcsan: vm-deps
	@k="$$(scripts/kernels.sh --kcsan)"; \
		test -n "$$k" || { echo "vm-kcsan: no KCSAN kernel: make kernels" >&2; exit 2; }; \
		$(MAKE) --no-print-directory modules-test KVER="$$k" && \
		scripts/vm/run-spec.sh --kcsan $(SPEC)
