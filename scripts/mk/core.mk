# SPDX-License-Identifier: GPL-2.0
#
# Userspace build of c-core/ (the lib/xarray.c + tools/testing/radix-tree
# pattern): the same sources as dmaguard.ko, over the kernel's own
# userspace headers (tools/include and tools/lib/find_bit.c from the
# linux-source tarball, extracted by scripts/deps.sh) and the userspace
# platform shim. The sanitizer and fuzz flavours check the core's
# invariants after every operation that changes its lists (-DDG_DEBUG). Three flavours: plain -O2 (benchmarks), ASan+UBSan (unit tests),
# and libFuzzer-instrumented (fuzzer, built in fuzz.mk).
#
# libdmaguard.a is the plain core plus the PUBLIC ABI (dmaguard_* of
# abi/include/dmaguard/): the kernel's own exported-interface files of
# abi/shim/, unchanged, over userspace <linux/*.h> shims
# (c-core/platform/user/include/: device, current with a simulated mm,
# access_ok, exports) and abi_user.c. The Rust crates of bindings/ link it.
#
#   make lib            the core libraries, libdmaguard.a and its ASan+UBSan
#                       flavour libdmaguard-san.a (tests/abi/test_public_user)

KTOOLS		:= build/tools/linux/tools
CORE_SRCS	:= c-core/pool.c c-core/pool_alloc.c c-core/chunk_table.c c-core/platform/user/chunk_mem.c \
		   c-core/pincache.c c-core/platform/user/pin_mm.c c-core/platform/user/rcu.c \
		   $(KTOOLS)/lib/find_bit.c $(KTOOLS)/lib/rbtree.c
CORE_HDRS	:= $(wildcard c-core/*.h c-core/platform/user/*.h) \
		   $(wildcard abi/include/dmaguard/*.h)
USER_CPPFLAGS	:= -Ic-core -Ic-core/platform/user -Iabi/include \
		   -I$(KTOOLS)/include -I$(KTOOLS)/arch/x86/include
USER_CFLAGS	:= -std=gnu11 -g -Wall -Wextra -Werror -Wno-unused-parameter \
		   -Wno-sign-compare -Wno-type-limits -fno-strict-aliasing
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all \
		   -fno-omit-frame-pointer -DDG_DEBUG
USER_OUT	:= $(BUILD)/user

# The exported-interface files and what they take from the kernel; built
# with the userspace <linux/*.h> shims first and the kernel glue's
# dg_kernel.h last on the include path.
ABI_LIB_SRCS	:= abi/shim/pool_abi.c abi/shim/pin_abi.c abi/shim/pin_io.c \
		   abi/shim/dg_pool_conv.c \
		   abi/shim/dg_pin_conv.c abi/shim/dg_struct_size.c \
		   c-core/platform/user/abi_user.c
ABI_LIB_HDRS	:= $(CORE_HDRS) $(wildcard abi/shim/*.h \
		   c-core/platform/user/include/linux/*.h) \
		   c-core/platform/kernel/dg_kernel.h
ABI_LIB_CPPFLAGS := -Ic-core/platform/user/include $(USER_CPPFLAGS) -Iabi/shim \
		   -Ic-core/platform/kernel -DKBUILD_MODNAME='"dmaguard"'

.PHONY: lib
$(KTOOLS)/lib/find_bit.c $(KTOOLS)/lib/rbtree.c:
	@scripts/deps.sh
lib: $(USER_OUT)/libdmaguard-core.a $(USER_OUT)/libdmaguard-core-san.a \
	$(USER_OUT)/libdmaguard.a $(USER_OUT)/libdmaguard-san.a

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

$(USER_OUT)/obj-abi/%.o: %.c $(ABI_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ABI_LIB_CPPFLAGS) $(USER_CFLAGS) -O2 -c $< -o $@

$(USER_OUT)/libdmaguard.a: $(CORE_SRCS:%.c=$(USER_OUT)/obj/%.o) \
			   $(ABI_LIB_SRCS:%.c=$(USER_OUT)/obj-abi/%.o)
	rm -f $@ && ar rcs $@ $^

$(USER_OUT)/obj-abi-san/%.o: %.c $(ABI_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(ABI_LIB_CPPFLAGS) $(USER_CFLAGS) -O1 $(SAN_FLAGS) -c $< -o $@

$(USER_OUT)/libdmaguard-san.a: $(CORE_SRCS:%.c=$(USER_OUT)/obj-san/%.o) \
			       $(ABI_LIB_SRCS:%.c=$(USER_OUT)/obj-abi-san/%.o)
	rm -f $@ && ar rcs $@ $^
