# SPDX-License-Identifier: GPL-2.0
#
# Userspace build of c-core/ (the lib/xarray.c + tools/testing/radix-tree
# pattern): the same sources as dmaguard.ko, over the userspace platform
# shim. Three flavours: plain -O2 (benchmarks), ASan+UBSan (unit tests),
# and libFuzzer-instrumented (fuzzer, built in fuzz.mk).

CORE_SRCS	:= c-core/pool.c c-core/chunk_table.c c-core/platform/user/chunk_mem.c
CORE_HDRS	:= $(wildcard c-core/*.h c-core/platform/user/*.h) \
		   $(wildcard abi/include/dmaguard/*.h)
USER_CPPFLAGS	:= -Ic-core -Ic-core/platform/user -Iabi/include
USER_CFLAGS	:= -std=gnu11 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		   -Wno-sign-compare -fno-strict-aliasing
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer
USER_OUT	:= $(BUILD)/user

.PHONY: lib
lib: $(USER_OUT)/libdmaguard-core.a $(USER_OUT)/libdmaguard-core-san.a

$(USER_OUT)/obj/%.o: %.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -O2 -c $< -o $@

$(USER_OUT)/obj-san/%.o: %.c $(CORE_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(USER_CPPFLAGS) $(USER_CFLAGS) -O1 $(SAN_FLAGS) -c $< -o $@

$(USER_OUT)/libdmaguard-core.a: $(CORE_SRCS:%.c=$(USER_OUT)/obj/%.o)
	rm -f $@ && ar rcs $@ $^

$(USER_OUT)/libdmaguard-core-san.a: $(CORE_SRCS:%.c=$(USER_OUT)/obj-san/%.o)
	rm -f $@ && ar rcs $@ $^
