/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace side of the platform shim (the tools/testing/radix-tree
 * pattern): just enough of the kernel's vocabulary for the core to build
 * unchanged as a host library. Chunk memory comes from aligned_alloc()
 * with made-up bus addresses; see chunk_mem.c for failure injection and
 * the hooks tests use to play a hostile device.
 */
#ifndef _DMAGUARD_PLATFORM_USER_H
#define _DMAGUARD_PLATFORM_USER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef unsigned int gfp_t;
typedef uint64_t dma_addr_t;

#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

#include "dg_dma_space.h"

#define GFP_KERNEL		0x01u
#define GFP_ATOMIC		0x02u
#define GFP_NOWAIT		0x04u
#define __GFP_ZERO		0x100u

#define DG_PAGE_SIZE		4096ul
#define DG_NO_NODE		(-1)
#define BITS_PER_LONG		(8 * (int)sizeof(long))

#ifndef __always_inline
#define __always_inline		inline __attribute__((always_inline))
#endif
#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define ALIGN(x, a)		(((x) + (a) - 1) & ~((__typeof__(x))(a) - 1))
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define struct_size(p, member, n) \
	(sizeof(*(p)) + sizeof((p)->member[0]) * (size_t)(n))
#define __must_hold(x)
#define __releases(x)
#define noinline		__attribute__((noinline))
#define __cold			__attribute__((cold))
#define BUILD_BUG_ON(c)		_Static_assert(!(c), #c)

static inline unsigned long __ffs(unsigned long w)
{
	return (unsigned long)__builtin_ctzl(w);
}

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

static inline int ilog2(unsigned long n)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(n);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1 : 1ul << (ilog2(n - 1) + 1);
}

static inline int order_base_2(unsigned long n)
{
	return n <= 1 ? 0 : ilog2(n - 1) + 1;
}

/*
 * list_head: only the type, for the pool's registry link (owner_link),
 * which the core initialises and never walks; the chunk lists are dg_ring.
 */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

/* Lock: a test-and-set spinlock, as cheap as the kernel's uncontended. */
typedef struct {
	int locked;
} dg_lock_t;

static inline void dg_lock_init(dg_lock_t *l)
{
	l->locked = 0;
}

static inline void dg_user_lock(dg_lock_t *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			__builtin_ia32_pause();
}

static inline void dg_user_unlock(dg_lock_t *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#define dg_lock_irqsave(l, flags)	((void)(flags), dg_user_lock(l))
#define dg_unlock_irqrestore(l, flags)	((void)(flags), dg_user_unlock(l))

/* Bookkeeping allocations (chunk_mem.c: counted, can be made to fail). */
void *dg_kzalloc_node(size_t size, gfp_t gfp, int node);
void dg_kfree(void *p);
size_t dg_ksize(void *p);

/* Time in ticks: tests move it by hand. */
extern unsigned long dg_user_ticks;
#define dg_now()			(dg_user_ticks)

/* init_on_alloc of the simulated kernel; on, as in Debian's config. */
extern bool dg_user_init_on_alloc;
#define dg_want_zero(gfp) \
	(dg_user_init_on_alloc || ((gfp) & __GFP_ZERO))
/* init_on_free of the simulated kernel; off, as in Debian's config. */
extern bool dg_user_init_on_free;
#define dg_want_zero_on_free()		(dg_user_init_on_free)
/* glibc's memset() uses vector stores: inline zeroing only pays to 64 B. */
#define DG_ZERO_INLINE_MAX		64u
#define dg_gfp_may_sleep(gfp)		(!!((gfp) & GFP_KERNEL))

void __dma *dg_chunk_mem_alloc(void *dev, size_t size, dma_addr_t *dma,
			       gfp_t gfp);
void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma);

/* Reports are counted; printed only when DG_VERBOSE is set. */
extern unsigned long dg_user_reports_first;
extern unsigned long dg_user_reports_again;
extern unsigned long dg_user_reports_err;
extern bool dg_user_verbose;
#define dg_report_first(fmt, ...) do { \
	dg_user_reports_first++; \
	if (dg_user_verbose) \
		fprintf(stderr, "WARNING: dmaguard: " fmt "\n", ##__VA_ARGS__); \
} while (0)
#define dg_report_again(fmt, ...) do { \
	dg_user_reports_again++; \
	if (dg_user_verbose) \
		fprintf(stderr, "dmaguard: " fmt "\n", ##__VA_ARGS__); \
} while (0)
#define dg_err(fmt, ...) do { \
	dg_user_reports_err++; \
	if (dg_user_verbose) \
		fprintf(stderr, "dmaguard: " fmt "\n", ##__VA_ARGS__); \
} while (0)
#define dg_info(fmt, ...) do { \
	if (dg_user_verbose) \
		fprintf(stderr, "dmaguard: " fmt "\n", ##__VA_ARGS__); \
} while (0)

#endif /* _DMAGUARD_PLATFORM_USER_H */
