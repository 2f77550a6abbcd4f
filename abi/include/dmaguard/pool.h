/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard public interface: hardened DMA pools.
 *
 * The pool calls mirror dma_pool_*() so that converting a driver is a
 * rename, with three differences: no 16-byte minimum block size, no
 * allocator metadata in device-visible memory, and every free is checked.
 * Include <dmaguard/dmaguard.h> rather than this file directly.
 *
 * Errors: dmaguard_pool_create(), dmaguard_pool_create_node() and
 * dmaguard_pool_create_managed() return NULL on any failure, as
 * dma_pool_create() does, so that a converted
 * driver keeps its checks. dmaguard_pool_create_opts() returns an error
 * pointer: its callers need to tell -E2BIG (a struct newer than the module)
 * from -EINVAL. All three take the same path inside the module, with the
 * same checks and the same report (naming the pool and the device).
 *
 * Every exported function is documented here, once; the definitions in
 * abi/shim/ carry no second copy.
 */
#ifndef _DMAGUARD_POOL_H
#define _DMAGUARD_POOL_H

#include <dmaguard/types.h>

#ifdef __KERNEL__
#include <linux/gfp.h>
#endif

/* Opaque: drivers never see the pool's layout. */
struct dmaguard_pool;

/* dmaguard_pool_opts.flags */
/* opts->node is meaningful; without it, the device's node is used. */
#define DMAGUARD_POOL_F_NODE		0x00000001u
/* Every flag this version knows; any other bit is refused (-EINVAL). */
#define DMAGUARD_POOL_F_ALL		0x00000001u

/*
 * Symbol versions (CONFIG_MODVERSIONS) and the size-carrying structs.
 *
 * Appending a field to these structs is a compatible change: "sz" tells
 * the module which version of the struct a caller has. A CRC of
 * dmaguard_pool_create_opts() or dmaguard_pool_get_stats() that covered
 * their layout would move with every appended field, and the kernel would
 * then refuse to load any consumer built against an older Module.symvers
 * ("disagrees about version of symbol"), whatever "sz" says.
 *
 * So the one file that defines and exports dmaguard's calls
 * (abi/shim/pool_abi.c) defines DMAGUARD_SHIM_OPAQUE_STRUCTS and never sees
 * more than "struct dmaguard_pool_opts;": the compiled object holds no
 * layout for either version tool to find. genksyms reads the preprocessed
 * source (up to 6.13, CONFIG_GENKSYMS later); gendwarfksyms reads the
 * object's DWARF (CONFIG_GENDWARFKSYMS, 6.14 on), where a test of
 * __GENKSYMS__, as this header had, hides nothing because the compiler
 * never defines it. No kABI rule is needed either (gendwarfksyms applies
 * those only with --stable, KBUILD_GENDWARFKSYMS_STABLE=1). `make
 * check-abi` checks that object's DWARF and that a grown struct keeps both
 * CRCs. The layout is pinned by the asserts below and by `make abi-check`;
 * an incompatible change moves the exports to namespace DMAGUARD_V2, which
 * no consumer of DMAGUARD_V1 can load against. Consumers never define
 * DMAGUARD_SHIM_OPAQUE_STRUCTS.
 */
#ifndef DMAGUARD_SHIM_OPAQUE_STRUCTS
/**
 * struct dmaguard_pool_opts - how to create a pool (size-carrying)
 * @sz: sizeof(struct dmaguard_pool_opts) as the caller was compiled;
 *	DMAGUARD_OPTS() sets it
 * @flags: DMAGUARD_POOL_F_* bits, 0 for none
 * @name: name for reports and debugfs; copied, at most 31 characters kept
 * @size: size of each block, at least 1 (no 16-byte minimum)
 * @align: alignment of each block, a power of two, or 0 for 1
 * @boundary: power of two no block may cross, or 0 for none; not smaller
 *	than @size
 * @node: NUMA node of the bookkeeping when @flags has DMAGUARD_POOL_F_NODE
 *	(NUMA_NO_NODE, -1, allowed)
 * @__reserved0: must be 0
 *
 * Later versions append fields; a zero field always keeps the v1.0
 * behaviour, so an older (smaller) struct means the same thing to a newer
 * module, and a newer (larger) one is accepted by an older module as long
 * as every field it does not know is zero.
 */
struct dmaguard_pool_opts {
	__u32 sz;
	__u32 flags;
	const char *name;
	__aligned_u64 size;
	__aligned_u64 align;
	__aligned_u64 boundary;
	__s32 node;
	__u32 __reserved0;
};

/* Size of the first version; anything smaller is refused (-EINVAL). */
#define DMAGUARD_POOL_OPTS_SIZE_VER0	48

DMAGUARD_ASSERT_SIZE(dmaguard_pool_opts, 48);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, sz, 0);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, flags, 4);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, name, 8);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, size, 16);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, align, 24);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, boundary, 32);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, node, 40);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_opts, __reserved0, 44);

/**
 * struct dmaguard_pool_stats - snapshot of a pool (size-carrying)
 * @sz: sizeof(struct dmaguard_pool_stats) as the caller was compiled; set
 *	it and zero the rest (DMAGUARD_OPTS() does both)
 * @block_size: block size asked for at creation
 * @stride: distance between consecutive blocks (size rounded up to align)
 * @chunk_size: bytes of DMA memory per chunk
 * @blocks_per_chunk: blocks in one chunk
 * @chunks: chunks currently held
 * @chunks_empty: of which fully free
 * @__reserved0: 0
 * @blocks_in_use: blocks currently allocated
 * @blocks_total: blocks in all chunks held
 * @chunks_allocated: chunks taken from the system since creation
 * @chunks_released: chunks given back since creation
 * @meta_bytes: out-of-line bookkeeping memory, in bytes
 * @bad_free_foreign: rejected frees of a pointer not from this pool
 * @bad_free_misaligned: rejected frees of a pointer inside a chunk but not
 *	at the start of a block
 * @bad_free_dma: rejected frees whose DMA handle did not match the block
 * @bad_free_double: rejected frees of a block that was already free
 */
struct dmaguard_pool_stats {
	__u32 sz;
	__u32 block_size;
	__u32 stride;
	__u32 chunk_size;
	__u32 blocks_per_chunk;
	__u32 chunks;
	__u32 chunks_empty;
	__u32 __reserved0;
	__aligned_u64 blocks_in_use;
	__aligned_u64 blocks_total;
	__aligned_u64 chunks_allocated;
	__aligned_u64 chunks_released;
	__aligned_u64 meta_bytes;
	__aligned_u64 bad_free_foreign;
	__aligned_u64 bad_free_misaligned;
	__aligned_u64 bad_free_dma;
	__aligned_u64 bad_free_double;
};

/* Size of the first version; anything smaller is refused (-EINVAL). */
#define DMAGUARD_POOL_STATS_SIZE_VER0	104

DMAGUARD_ASSERT_SIZE(dmaguard_pool_stats, 104);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, sz, 0);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, block_size, 4);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, stride, 8);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, chunk_size, 12);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, blocks_per_chunk, 16);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, chunks, 20);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, chunks_empty, 24);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, __reserved0, 28);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, blocks_in_use, 32);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, blocks_total, 40);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, chunks_allocated, 48);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, chunks_released, 56);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, meta_bytes, 64);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, bad_free_foreign, 72);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, bad_free_misaligned, 80);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, bad_free_dma, 88);
DMAGUARD_ASSERT_OFFSET(dmaguard_pool_stats, bad_free_double, 96);
#else
struct dmaguard_pool_opts;
struct dmaguard_pool_stats;
#endif /* DMAGUARD_SHIM_OPAQUE_STRUCTS */

/**
 * dmaguard_pool_create() - create a pool of coherent DMA blocks
 * @name: name for reports and debugfs; copied, at most 31 characters kept
 * @dev: device that will do the DMA
 * @size: size of each block, at least 1 (no 16-byte minimum)
 * @align: alignment of each block, a power of two, or 0 for 1
 * @boundary: power of two no block may cross, or 0 for none; not smaller
 *	than @size
 *
 * Context: Process context. May sleep.
 * Return: the pool, or NULL when @dev is NULL, the geometry is invalid
 * (the reason is printed, naming the pool) or memory for the pool's
 * bookkeeping cannot be had.
 */
struct dmaguard_pool *dmaguard_pool_create(const char *name,
					   struct device *dev, size_t size,
					   size_t align, size_t boundary);

/**
 * dmaguard_pool_create_node() - dmaguard_pool_create() with a NUMA node
 * @name: as for dmaguard_pool_create()
 * @dev: as for dmaguard_pool_create()
 * @size: as for dmaguard_pool_create()
 * @align: as for dmaguard_pool_create()
 * @boundary: as for dmaguard_pool_create()
 * @node: node for the pool's bookkeeping memory: NUMA_NO_NODE (-1), or a
 *	possible node (node_possible()); any other value is refused
 *
 * dmaguard_pool_create() is this call with the device's node.
 *
 * Context: Process context. May sleep.
 * Return: the pool, or NULL as for dmaguard_pool_create(), and also when
 * @node is neither NUMA_NO_NODE nor a possible node (reported).
 */
struct dmaguard_pool *dmaguard_pool_create_node(const char *name,
						struct device *dev,
						size_t size, size_t align,
						size_t boundary, int node);

/**
 * dmaguard_pool_create_opts() - create a pool from an options struct
 * @dev: device that will do the DMA
 * @opts: what to create; @opts->sz says which version of the struct the
 *	caller has (see struct dmaguard_pool_opts)
 *
 * The extensible form of dmaguard_pool_create(): new creation options
 * arrive as new fields of struct dmaguard_pool_opts, never as new
 * functions. Since v1.0.
 *
 * Context: Process context. May sleep.
 * Return: the pool, or an error pointer (test with IS_ERR()), never NULL:
 * -EINVAL when @dev or @opts is NULL, @opts->sz is smaller than
 * DMAGUARD_POOL_OPTS_SIZE_VER0, a flag or reserved field is unknown, the
 * node is invalid or the geometry is (the reason is printed);
 * -E2BIG when @opts is larger than this module knows and a field it does
 * not know is not zero; -ENOMEM when the bookkeeping cannot be allocated.
 */
struct dmaguard_pool *
dmaguard_pool_create_opts(struct device *dev,
			  const struct dmaguard_pool_opts *opts);

/**
 * dmaguard_pool_alloc() - allocate one block
 * @pool: the pool
 * @mem_flags: GFP flags; GFP_ATOMIC allowed from any context
 * @handle: where the block's DMA address is stored
 *
 * Blocks of a fresh chunk come out in ascending address order. The block
 * is zeroed when @mem_flags has __GFP_ZERO or init_on_alloc is on.
 *
 * Context: Any context with GFP_ATOMIC or GFP_NOWAIT; process context (may
 * sleep) with GFP_KERNEL. Takes the pool's lock with interrupts disabled.
 * On PREEMPT_RT, where that lock sleeps, not hard interrupt context (as
 * for dma_pool_alloc()).
 * Return: the block's CPU address, or NULL when no memory could be had.
 */
void *dmaguard_pool_alloc(struct dmaguard_pool *pool, gfp_t mem_flags,
			  dma_addr_t *handle);

/**
 * dmaguard_pool_free() - give a block back
 * @pool: the pool it came from
 * @vaddr: its CPU address, as returned by dmaguard_pool_alloc()
 * @dma: its DMA address, as returned by dmaguard_pool_alloc()
 *
 * A free that does not match a live block of @pool (foreign or interior
 * pointer, wrong @dma, double free) is reported once per pool, counted,
 * and not applied: the pool stays consistent.
 *
 * Context: Any context but, on PREEMPT_RT, hard interrupt context. Takes
 * the pool's lock with interrupts disabled.
 */
void dmaguard_pool_free(struct dmaguard_pool *pool, void *vaddr,
			dma_addr_t dma);

/**
 * dmaguard_pool_destroy() - destroy a pool
 * @pool: the pool, or NULL (no-op)
 *
 * Blocks still allocated are reported; their chunks are deliberately
 * leaked so that a late access by a driver or device hits memory that
 * was never handed back to the system. No other call on @pool may run or
 * follow.
 *
 * Context: Process context. May sleep.
 */
void dmaguard_pool_destroy(struct dmaguard_pool *pool);

/**
 * dmaguard_pool_create_managed() - dmaguard_pool_create(), destroyed when
 *	@dev's driver unbinds
 * @name: as for dmaguard_pool_create()
 * @dev: as for dmaguard_pool_create(); a device a driver is binding or
 *	has bound
 * @size: as for dmaguard_pool_create()
 * @align: as for dmaguard_pool_create()
 * @boundary: as for dmaguard_pool_create()
 *
 * The device-managed form, as dmam_pool_create() is of dma_pool_create():
 * the pool is a device resource of @dev and is destroyed (as by
 * dmaguard_pool_destroy()) when the driver unbinds or its probe fails.
 * Since v1.2.
 *
 * Context: Process context. May sleep.
 * Return: as for dmaguard_pool_create().
 */
struct dmaguard_pool *dmaguard_pool_create_managed(const char *name,
						   struct device *dev,
						   size_t size, size_t align,
						   size_t boundary);

/**
 * dmaguard_pool_destroy_managed() - destroy a managed pool before its
 *	device unbinds
 * @pool: from dmaguard_pool_create_managed(), or NULL (no-op)
 *
 * A pool that was not created managed is reported, naming the pool, and
 * left alone. No other call on @pool may run or follow. Since v1.2.
 *
 * Context: Process context. May sleep.
 */
void dmaguard_pool_destroy_managed(struct dmaguard_pool *pool);

/**
 * dmaguard_pool_get_stats() - snapshot of a pool's counters
 * @pool: the pool
 * @st: filled in; the caller sets @st->sz and zeroes the rest
 *	(DMAGUARD_OPTS(dmaguard_pool_stats, st) does both)
 *
 * Fills the fields both the caller and the module know; fields only the
 * caller knows are left zero. @st->sz is not changed. Since v1.0.
 *
 * Context: Any context but, on PREEMPT_RT, hard interrupt context. Takes
 * the pool's lock with interrupts disabled.
 * Return: 0; -EINVAL when @pool or @st is NULL or @st->sz is smaller than
 * DMAGUARD_POOL_STATS_SIZE_VER0; -E2BIG when @st is larger than this
 * module knows and the part it does not know is not zero.
 */
int dmaguard_pool_get_stats(const struct dmaguard_pool *pool,
			    struct dmaguard_pool_stats *st);

/**
 * dmaguard_pool_zalloc() - allocate one zeroed block
 * @pool: the pool
 * @mem_flags: GFP flags, as for dmaguard_pool_alloc()
 * @handle: where the block's DMA address is stored
 *
 * dmaguard_pool_alloc() with __GFP_ZERO. A function since v1.3 (a static
 * inline before), so that consumers which cannot expand the kernel's GFP
 * macros (Rust, whose bindings cannot know __GFP_ZERO's value for a given
 * kernel configuration) zero device memory through the pool rather than
 * with plain CPU stores of their own.
 *
 * Context: as for dmaguard_pool_alloc().
 * Return: as for dmaguard_pool_alloc().
 */
void *dmaguard_pool_zalloc(struct dmaguard_pool *pool, gfp_t mem_flags,
			   dma_addr_t *handle);

/**
 * dmaguard_dma_wmb() - the kernel's dma_wmb() as a function
 *
 * Orders the CPU's stores to coherent DMA memory before later ones: the
 * fields of a descriptor before the store that hands it to the device.
 * For consumers that cannot expand the kernel's barrier macros (Rust); C
 * drivers use dma_wmb() itself. Since v1.3.
 *
 * Context: Any context.
 */
void dmaguard_dma_wmb(void);

/**
 * dmaguard_dma_rmb() - the kernel's dma_rmb() as a function
 *
 * Orders the CPU's loads from coherent DMA memory: the load of a
 * descriptor's ownership or completion field before the loads of the
 * fields the device wrote with it. For consumers that cannot expand the
 * kernel's barrier macros (Rust). Since v1.3.
 *
 * Context: Any context.
 */
void dmaguard_dma_rmb(void);

#endif /* _DMAGUARD_POOL_H */
