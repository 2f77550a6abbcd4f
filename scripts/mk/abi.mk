# SPDX-License-Identifier: GPL-2.0
#
# The stable ABI (abi/include/dmaguard/, abi/shim/, abi/baseline/):
#
#   make abi-check      current headers + dmaguard.ko exports vs the
#                       committed baseline (scripts/abi/abi-check.sh); fails
#                       on any incompatible change, allows added functions,
#                       fields appended to size-carrying structs, reserved
#                       fields put to use
#   make abi-baseline   rewrite abi/baseline/ from the current tree (only
#                       when a change is meant; review the git diff)
#   make abi-planted    the planted incompatible changes, each applied to a
#                       copy of the tree under build/abi-planted/, each must
#                       make abi-check fail (scripts/abi/planted.sh)
#   make abi-unit       userspace unit tests of the struct-size rules and of
#                       the exported functions as C drivers call them
#                       (cmocka, ASan+UBSan)
#   make consumers      out-of-tree consumer modules of tests/consumers/,
#                       per kernel, against dmaguard's Module.symvers; the
#                       .ko files join dmaguard.ko in the guest's $KO for
#                       the VM specs tests/vm/consumer-*.vmtest
#   make kerneldoc      scripts/kernel-doc -none -Wall over the public
#                       headers and every file with exported functions
#
# Check groups: abi (unit tests, abi-check, the Rust bindings of
# bindings.mk, planted changes), consumers and kerneldoc.

ABI_OUT		:= $(BUILD)/abi
ABI_UNIT_SRCS	:= $(sort $(wildcard tests/abi/test_*.c))
ABI_UNIT_BINS	:= $(ABI_UNIT_SRCS:tests/abi/%.c=$(ABI_OUT)/unit/%)
ABI_SHIM_USER	:= abi/shim/dg_struct_size.c abi/shim/dg_pool_conv.c \
		   abi/shim/dg_pin_conv.c
ABI_HDRS	:= $(wildcard abi/include/dmaguard/*.h abi/shim/*.h \
			c-core/*.h c-core/platform/user/*.h)

CHECK_GROUPS	+= abi consumers kerneldoc
CHECK_PREP	+= $(ABI_UNIT_BINS)
VM_DEPS		+= vm-consumers

.PHONY: abi-check abi-baseline abi-planted abi-unit consumers vm-consumers kerneldoc \
	check-abi check-consumers check-kerneldoc

abi-check: deps
	@scripts/abi/abi-check.sh

abi-baseline: deps
	@scripts/abi/abi-check.sh --update

abi-planted: deps
	@scripts/abi/planted.sh

abi-unit: $(ABI_UNIT_BINS)

# core.mk is included before this file; its flags are used in recipes only,
# its library is named in full.
$(ABI_OUT)/unit/test_%: tests/abi/test_%.c $(ABI_SHIM_USER) $(ABI_HDRS) \
			$(BUILD)/user/libdmaguard-core-san.a
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) -Iabi/shim $(USER_CFLAGS) -O1 $(SAN_FLAGS) \
		$< $(ABI_SHIM_USER) -o $@ \
		$(BUILD)/user/libdmaguard-core-san.a -lcmocka -lpthread

# The exported functions as a C driver calls them, against the userspace
# build of the exported-interface files themselves (core.mk).
$(ABI_OUT)/unit/test_public_user: tests/abi/test_public_user.c $(ABI_HDRS) \
				  $(BUILD)/user/libdmaguard-san.a
	@mkdir -p $(dir $@)
	$(CC) $(ABI_LIB_CPPFLAGS) $(USER_CFLAGS) -O1 $(SAN_FLAGS) $< -o $@ \
		$(BUILD)/user/libdmaguard-san.a -lcmocka -lpthread

consumers: deps
	@scripts/abi/consumers.sh build

# As a VM dependency: a consumer that does not build fails its own specs,
# not every boot of check-vm.
vm-consumers: deps
	@scripts/abi/consumers.sh build --keep-going

kerneldoc: deps
	@scripts/abi/kerneldoc.sh

check-abi: deps $(ABI_UNIT_BINS)
	@mkdir -p $(RESULTS) $(ABI_OUT)
	@echo "abi: unit tests of the struct-size rules (ASan+UBSan)"
	@tests/unit/run.sh $(ABI_OUT)/unit.results $(ABI_UNIT_BINS); \
		sed 's#^\(\(not \)\{0,1\}ok - \)unit/#\1abi/unit/#' \
		$(ABI_OUT)/unit.results > $(RESULTS)/abi
	@echo "abi: abi-check against abi/baseline/"
	@scripts/abi/abi-check.sh > $(ABI_OUT)/abi-check.results 2> $(ABI_OUT)/abi-check.log; \
		cat $(ABI_OUT)/abi-check.results | tee -a $(RESULTS)/abi; \
		! grep -q '^not ok' $(ABI_OUT)/abi-check.results || tail -n 40 $(ABI_OUT)/abi-check.log
	@echo "abi: the committed Rust bindings against the headers (drift, coverage, layout)"
	@scripts/check-step.sh abi/bindings $(RESULTS)/abi $(ABI_OUT)/bindings.log -- \
		scripts/bindings/check.sh || true
	@echo "abi: planted incompatible changes on copies (each must fail)"
	@scripts/check-step.sh abi/planted $(RESULTS)/abi $(ABI_OUT)/planted.log -- \
		scripts/abi/planted.sh || true
	@! grep -q '^not ok' $(RESULTS)/abi

# Its own group, so that `make check` builds the consumers (the longest
# part) beside the rest of abi.
check-consumers: deps
	@mkdir -p $(RESULTS) $(ABI_OUT)
	@rm -f $(RESULTS)/consumers
	@echo "consumers: tests/consumers/ built out of tree"
	@scripts/check-step.sh abi/consumers $(RESULTS)/consumers $(ABI_OUT)/consumers.log -- \
		scripts/abi/consumers.sh build

check-kerneldoc: deps
	@mkdir -p $(RESULTS)
	@scripts/abi/kerneldoc.sh > $(RESULTS)/kerneldoc; rc=$$?; \
		cat $(RESULTS)/kerneldoc; exit $$rc
