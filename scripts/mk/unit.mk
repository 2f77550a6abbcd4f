# SPDX-License-Identifier: GPL-2.0
#
# Userspace unit tests of the core (cmocka, liburing style: one program per
# tests/unit/test_*.c), built with ASan+UBSan against the sanitizer flavour
# of the core library. `make check-unit` runs them all and writes
# build/results/unit, one line per cmocka case: ok - unit/<program>/<case>.
# `make unit` only builds them.

UNIT_SRCS	:= $(sort $(wildcard tests/unit/test_*.c))
UNIT_OUT	:= $(BUILD)/unit
UNIT_BINS	:= $(UNIT_SRCS:tests/unit/%.c=$(UNIT_OUT)/%)
# The threads smokes, the lifetime races and the RCU shim once more under
# ThreadSanitizer, with the core sources compiled into them (TSan and ASan
# do not mix in one library).
UNIT_TSAN_BIN	:= $(UNIT_OUT)/test_pool_threads-tsan $(UNIT_OUT)/test_pin_threads-tsan \
		   $(UNIT_OUT)/test_pin_lifetime-tsan $(UNIT_OUT)/test_pin_ids-tsan \
		   $(UNIT_OUT)/test_rcu_shim-tsan \
		   $(UNIT_OUT)/test_pool_destroy_race-tsan
UNIT_CORE_SRCS	:= $(CORE_SRCS)
# core.mk (CORE_SRCS, the libraries) sorts before this file.
UNIT_LIB	:= $(BUILD)/user/libdmaguard-core-san.a
UNIT_HDRS	:= $(wildcard c-core/*.h c-core/platform/user/*.h) \
		   tests/unit/dg_test.h tests/unit/dg_pin_test.h
UNIT_LDLIBS	:= -lcmocka -lpthread

CHECK_GROUPS	+= unit
CHECK_PREP	+= $(UNIT_BINS) $(UNIT_TSAN_BIN)

.PHONY: unit check-unit
unit: $(UNIT_BINS) $(UNIT_TSAN_BIN)

$(UNIT_OUT)/test_%: tests/unit/test_%.c $(UNIT_HDRS) $(UNIT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -O1 $(SAN_FLAGS) $< -o $@ \
		$(UNIT_LIB) $(UNIT_LDLIBS)

$(UNIT_OUT)/%-tsan: tests/unit/%.c $(UNIT_CORE_SRCS) $(UNIT_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -O1 -fsanitize=thread -DDG_DEBUG -DROUNDS=100 $< \
		$(UNIT_CORE_SRCS) -o $@ $(UNIT_LDLIBS)

check-unit: $(UNIT_BINS) $(UNIT_TSAN_BIN)
	@mkdir -p $(RESULTS)
	@echo "unit: $(words $(UNIT_BINS)) programs (ASan+UBSan), $(words $(UNIT_TSAN_BIN)) (TSan)"
	@TSAN_OPTIONS="halt_on_error=1" \
		tests/unit/run.sh $(RESULTS)/unit $(UNIT_BINS) $(UNIT_TSAN_BIN)
