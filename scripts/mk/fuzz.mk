# SPDX-License-Identifier: GPL-2.0
#
# libFuzzer targets of the pool core (tests/fuzz/fuzz_pool.c, the driver, and
# tests/fuzz/fuzz_device.c, the hostile device) and of the pin cache core
# (tests/fuzz/fuzz_pin.c over the simulated mm, pin_model.h): clang 14 with
# -fsanitize=fuzzer,address,undefined; the core sources are compiled here
# with fuzzer-no-link instrumentation (coverage feedback from the core).
#
#   make fuzz [FUZZ_SECONDS=300]   fuzz for that long; the growing corpus
#                                  lives in build/fuzz/corpus (seeded from
#                                  tests/fuzz/corpus), crashes go to
#                                  build/fuzz/artifacts/
#   make check-fuzz                replay tests/fuzz/corpus, then a smoke run
#                                  of FUZZ_SMOKE_SECONDS (default 12); the
#                                  same for fuzz_pin from tests/fuzz/corpus-pin
#   make fuzz-pin [FUZZ_SECONDS=300]  fuzz the pin cache
#   make fuzz-repro FUZZ_INPUT=f   run one input (a crash file) verbosely

FUZZ_CC		?= clang
FUZZ_OUT	:= $(BUILD)/fuzz
FUZZ_BIN	:= $(FUZZ_OUT)/fuzz_pool
FUZZ_SECONDS	?= 300
FUZZ_SMOKE_SECONDS ?= 12
FUZZ_SEEDS	:= tests/fuzz/corpus
FUZZ_SRCS	:= tests/fuzz/fuzz_pool.c tests/fuzz/fuzz_device.c
FUZZ_PIN_BIN	:= $(FUZZ_OUT)/fuzz_pin
FUZZ_PIN_SEEDS	:= tests/fuzz/corpus-pin
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
# core.mk (CORE_SRCS) sorts before this file; user flags (USER_CPPFLAGS,
# USER_CFLAGS) come from it too.
FUZZ_CORE_SRCS	:= $(CORE_SRCS)
FUZZ_CORE_OBJS	:= $(FUZZ_CORE_SRCS:%.c=$(FUZZ_OUT)/obj/%.o)
FUZZ_HDRS	:= $(wildcard c-core/*.h c-core/platform/user/*.h) \
		   tests/fuzz/pool_model.h tests/fuzz/fuzz_harness.h \
		   tests/fuzz/pin_model.h tests/fuzz/fuzz_input.h
# -timeout is wall clock: `make check` runs this group at idle priority
# beside the VM boots, so it only catches a hang, never a slow input.
FUZZ_OPTS	:= -max_len=4096 -timeout=300 -rss_limit_mb=2048 \
		   -print_final_stats=1
FUZZ_ENV	:= ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
		   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

CHECK_GROUPS	+= fuzz
CHECK_PREP	+= $(FUZZ_BIN) $(FUZZ_PIN_BIN)

.PHONY: fuzz fuzz-build check-fuzz fuzz-repro fuzz-pin
fuzz-build: $(FUZZ_BIN) $(FUZZ_PIN_BIN)

$(FUZZ_OUT)/obj/%.o: %.c $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -O1 \
		-fsanitize=fuzzer-no-link $(FUZZ_SAN) -DDG_DEBUG -c $< -o $@

$(FUZZ_BIN): $(FUZZ_SRCS) $(FUZZ_CORE_OBJS) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(USER_CPPFLAGS) -Itests/fuzz $(USER_CFLAGS) -O1 \
		-fsanitize=fuzzer $(FUZZ_SAN) $(FUZZ_SRCS) $(FUZZ_CORE_OBJS) -o $@

$(FUZZ_PIN_BIN): tests/fuzz/fuzz_pin.c $(FUZZ_CORE_OBJS) $(FUZZ_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(USER_CPPFLAGS) -Itests/fuzz $(USER_CFLAGS) -O1 -DDG_DEBUG \
		-fsanitize=fuzzer $(FUZZ_SAN) $< $(FUZZ_CORE_OBJS) -o $@

fuzz-pin: $(FUZZ_PIN_BIN)
	@mkdir -p $(FUZZ_OUT)/corpus-pin $(FUZZ_OUT)/artifacts
	cp -n $(FUZZ_PIN_SEEDS)/* $(FUZZ_OUT)/corpus-pin/ 2>/dev/null || true
	$(FUZZ_ENV) $(FUZZ_PIN_BIN) $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_OUT)/artifacts/ $(FUZZ_OUT)/corpus-pin

fuzz: $(FUZZ_BIN)
	@mkdir -p $(FUZZ_OUT)/corpus $(FUZZ_OUT)/artifacts
	cp -n $(FUZZ_SEEDS)/* $(FUZZ_OUT)/corpus/ 2>/dev/null || true
	$(FUZZ_ENV) $(FUZZ_BIN) $(FUZZ_OPTS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FUZZ_OUT)/artifacts/ $(FUZZ_OUT)/corpus

fuzz-repro: $(FUZZ_BIN)
	DG_VERBOSE=1 $(FUZZ_ENV) $(FUZZ_BIN) $(FUZZ_INPUT)

check-fuzz: $(FUZZ_BIN) $(FUZZ_PIN_BIN)
	@mkdir -p $(RESULTS)
	@rc=0; \
	tests/fuzz/check.sh $(RESULTS)/fuzz $(FUZZ_BIN) $(FUZZ_SEEDS) \
		$(FUZZ_SMOKE_SECONDS) $(FUZZ_OUT) "$(FUZZ_OPTS)" || rc=1; \
	tests/fuzz/check.sh $(RESULTS)/fuzz-pin $(FUZZ_PIN_BIN) $(FUZZ_PIN_SEEDS) \
		$(FUZZ_SMOKE_SECONDS) $(FUZZ_OUT)/pin "$(FUZZ_OPTS)" pin_ || rc=1; \
	cat $(RESULTS)/fuzz-pin >> $(RESULTS)/fuzz; rm -f $(RESULTS)/fuzz-pin; \
	exit $$rc
