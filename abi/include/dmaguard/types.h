/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard public interface: base types and ABI helpers shared by every
 * public header. Self-contained: kernel code gets its types from
 * <linux/types.h>; every other consumer (bindgen, the userspace build of
 * the core, the ABI probe of scripts/abi/) from <linux/types.h> of the
 * UAPI headers plus <stddef.h>/<stdint.h>.
 *
 * Rules every public struct follows (checked by `make abi-check`):
 *  - fixed-width fields only (__u32, __s32, __aligned_u64, pointers), no
 *    implicit padding (static asserts below each struct pin size and
 *    offsets);
 *  - a struct that may grow starts with "__u32 sz", set by the caller to
 *    sizeof() of the struct it was compiled with; new fields are only ever
 *    appended, and a zero field always means "the v1.0 behaviour";
 *  - reserved fields are named __reserved<N>, must be zero, and may later
 *    be renamed into real fields of the same size and offset.
 */
#ifndef _DMAGUARD_TYPES_H
#define _DMAGUARD_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#else
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>
/*
 * dmaguard's own userspace build of the core reads the kernel's
 * tools/include, whose <linux/types.h> already has a gfp_t.
 */
#ifndef _TOOLS_LINUX_TYPES_H_
typedef unsigned int __bitwise gfp_t;	/* as in the kernel */
#endif
typedef __UINT64_TYPE__ dma_addr_t;	/* uint64_t, as the core's user build */
#endif

struct device;

/* Layout pins: static_assert() of <linux/build_bug.h>, C11 or C++. */
#define DMAGUARD_ASSERT(cond, msg)	static_assert(cond, msg)

/* Pin the offset of one member of a public struct. */
#define DMAGUARD_ASSERT_OFFSET(type, member, off)			\
	DMAGUARD_ASSERT(__builtin_offsetof(struct type, member) == (off),	\
			"ABI: offset of " #type "." #member " moved")

/* Pin the size of a public struct. */
#define DMAGUARD_ASSERT_SIZE(type, size)				\
	DMAGUARD_ASSERT(sizeof(struct type) == (size),			\
			"ABI: size of struct " #type " changed")

/**
 * DMAGUARD_OPTS() - declare a size-carrying struct, zeroed, with sz set
 * @type: struct tag, e.g. dmaguard_pool_opts
 * @name: variable name
 * @...: designated initializers of the fields to set
 *
 * Every field not named is zero, which always means "default".
 */
#define DMAGUARD_OPTS(type, name, ...)					\
	struct type name = {						\
		.sz = sizeof(struct type),				\
		__VA_ARGS__						\
	}

#endif /* _DMAGUARD_TYPES_H */
