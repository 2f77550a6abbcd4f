// SPDX-License-Identifier: GPL-2.0
//
// GENERATED FILE, do not edit: `make bindings` (scripts/bindings/generate.sh)
// ran bindgen 0.60.1 as:
//   bindgen --use-core --ctypes-prefix core::ffi --no-layout-tests --size_t-is-usize --rust-target 1.47 --allowlist-function dmaguard_.\* --allowlist-type dmaguard_.\* --allowlist-var DMAGUARD_.\* --opaque-type device --opaque-type page --opaque-type sg_table \
//     abi/include/dmaguard/dmaguard.h -- -Iabi/include
// Plain items only (no inner attributes): usable as a crate's body
// (dmaguard-sys) or as a module of a kernel crate.

pub const DMAGUARD_VERSION_MAJOR: u32 = 1;
pub const DMAGUARD_VERSION_MINOR: u32 = 4;
pub const DMAGUARD_POOL_F_NODE: u32 = 1;
pub const DMAGUARD_POOL_F_ALL: u32 = 1;
pub const DMAGUARD_POOL_OPTS_SIZE_VER0: u32 = 48;
pub const DMAGUARD_POOL_STATS_SIZE_VER0: u32 = 104;
pub const DMAGUARD_PIN_F_NODE: u32 = 1;
pub const DMAGUARD_PIN_F_ALL: u32 = 1;
pub const DMAGUARD_PIN_OPTS_SIZE_VER0: u32 = 24;
pub const DMAGUARD_PIN_SIZE_VER0: u32 = 48;
pub const DMAGUARD_PIN_STATS_SIZE_VER0: u32 = 80;
pub type __s32 = core::ffi::c_int;
pub type __u32 = core::ffi::c_uint;
pub type __u64 = core::ffi::c_ulonglong;
pub type gfp_t = core::ffi::c_uint;
pub type dma_addr_t = core::ffi::c_ulong;
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct device {
    _unused: [u8; 0],
}
extern "C" {
    #[doc = " dmaguard_version() - version of the loaded dmaguard module"]
    #[doc = ""]
    #[doc = " Return: DMAGUARD_VERSION_CODE(major, minor) of the module that resolved"]
    #[doc = " this call, to compare with DMAGUARD_VERSION from the headers a consumer"]
    #[doc = " was built against: a consumer may use what its headers declare when the"]
    #[doc = " major versions are equal and the module's minor is not smaller."]
    #[doc = ""]
    #[doc = " Context: Any context."]
    pub fn dmaguard_version() -> core::ffi::c_uint;
}
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pool {
    _unused: [u8; 0],
}
#[doc = " struct dmaguard_pool_opts - how to create a pool (size-carrying)"]
#[doc = " @sz: sizeof(struct dmaguard_pool_opts) as the caller was compiled;"]
#[doc = "\tDMAGUARD_OPTS() sets it"]
#[doc = " @flags: DMAGUARD_POOL_F_* bits, 0 for none"]
#[doc = " @name: name for reports and debugfs; copied, at most 31 characters kept"]
#[doc = " @size: size of each block, at least 1 (no 16-byte minimum)"]
#[doc = " @align: alignment of each block, a power of two, or 0 for 1"]
#[doc = " @boundary: power of two no block may cross, or 0 for none; not smaller"]
#[doc = "\tthan @size"]
#[doc = " @node: NUMA node of the bookkeeping when @flags has DMAGUARD_POOL_F_NODE"]
#[doc = "\t(NUMA_NO_NODE, -1, allowed)"]
#[doc = " @__reserved0: must be 0"]
#[doc = ""]
#[doc = " Later versions append fields; a zero field always keeps the v1.0"]
#[doc = " behaviour, so an older (smaller) struct means the same thing to a newer"]
#[doc = " module, and a newer (larger) one is accepted by an older module as long"]
#[doc = " as every field it does not know is zero."]
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pool_opts {
    pub sz: __u32,
    pub flags: __u32,
    pub name: *const core::ffi::c_char,
    pub size: __u64,
    pub align: __u64,
    pub boundary: __u64,
    pub node: __s32,
    pub __reserved0: __u32,
}
#[doc = " struct dmaguard_pool_stats - snapshot of a pool (size-carrying)"]
#[doc = " @sz: sizeof(struct dmaguard_pool_stats) as the caller was compiled; set"]
#[doc = "\tit and zero the rest (DMAGUARD_OPTS() does both)"]
#[doc = " @block_size: block size asked for at creation"]
#[doc = " @stride: distance between consecutive blocks (size rounded up to align)"]
#[doc = " @chunk_size: bytes of DMA memory per chunk"]
#[doc = " @blocks_per_chunk: blocks in one chunk"]
#[doc = " @chunks: chunks currently held"]
#[doc = " @chunks_empty: of which fully free"]
#[doc = " @__reserved0: 0"]
#[doc = " @blocks_in_use: blocks currently allocated"]
#[doc = " @blocks_total: blocks in all chunks held"]
#[doc = " @chunks_allocated: chunks taken from the system since creation"]
#[doc = " @chunks_released: chunks given back since creation"]
#[doc = " @meta_bytes: out-of-line bookkeeping memory, in bytes"]
#[doc = " @bad_free_foreign: rejected frees of a pointer not from this pool"]
#[doc = " @bad_free_misaligned: rejected frees of a pointer inside a chunk but not"]
#[doc = "\tat the start of a block"]
#[doc = " @bad_free_dma: rejected frees whose DMA handle did not match the block"]
#[doc = " @bad_free_double: rejected frees of a block that was already free"]
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pool_stats {
    pub sz: __u32,
    pub block_size: __u32,
    pub stride: __u32,
    pub chunk_size: __u32,
    pub blocks_per_chunk: __u32,
    pub chunks: __u32,
    pub chunks_empty: __u32,
    pub __reserved0: __u32,
    pub blocks_in_use: __u64,
    pub blocks_total: __u64,
    pub chunks_allocated: __u64,
    pub chunks_released: __u64,
    pub meta_bytes: __u64,
    pub bad_free_foreign: __u64,
    pub bad_free_misaligned: __u64,
    pub bad_free_dma: __u64,
    pub bad_free_double: __u64,
}
extern "C" {
    #[doc = " dmaguard_pool_create() - create a pool of coherent DMA blocks"]
    #[doc = " @name: name for reports and debugfs; copied, at most 31 characters kept"]
    #[doc = " @dev: device that will do the DMA"]
    #[doc = " @size: size of each block, at least 1 (no 16-byte minimum)"]
    #[doc = " @align: alignment of each block, a power of two, or 0 for 1"]
    #[doc = " @boundary: power of two no block may cross, or 0 for none; not smaller"]
    #[doc = "\tthan @size"]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    #[doc = " Return: the pool, or NULL when @dev is NULL, the geometry is invalid"]
    #[doc = " (the reason is printed, naming the pool) or memory for the pool's"]
    #[doc = " bookkeeping cannot be had."]
    pub fn dmaguard_pool_create(
        name: *const core::ffi::c_char,
        dev: *mut device,
        size: usize,
        align: usize,
        boundary: usize,
    ) -> *mut dmaguard_pool;
}
extern "C" {
    #[doc = " dmaguard_pool_create_node() - dmaguard_pool_create() with a NUMA node"]
    #[doc = " @name: as for dmaguard_pool_create()"]
    #[doc = " @dev: as for dmaguard_pool_create()"]
    #[doc = " @size: as for dmaguard_pool_create()"]
    #[doc = " @align: as for dmaguard_pool_create()"]
    #[doc = " @boundary: as for dmaguard_pool_create()"]
    #[doc = " @node: node for the pool's bookkeeping memory: NUMA_NO_NODE (-1), or a"]
    #[doc = "\tpossible node (node_possible()); any other value is refused"]
    #[doc = ""]
    #[doc = " dmaguard_pool_create() is this call with the device's node."]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    #[doc = " Return: the pool, or NULL as for dmaguard_pool_create(), and also when"]
    #[doc = " @node is neither NUMA_NO_NODE nor a possible node (reported)."]
    pub fn dmaguard_pool_create_node(
        name: *const core::ffi::c_char,
        dev: *mut device,
        size: usize,
        align: usize,
        boundary: usize,
        node: core::ffi::c_int,
    ) -> *mut dmaguard_pool;
}
extern "C" {
    #[doc = " dmaguard_pool_create_opts() - create a pool from an options struct"]
    #[doc = " @dev: device that will do the DMA"]
    #[doc = " @opts: what to create; @opts->sz says which version of the struct the"]
    #[doc = "\tcaller has (see struct dmaguard_pool_opts)"]
    #[doc = ""]
    #[doc = " The extensible form of dmaguard_pool_create(): new creation options"]
    #[doc = " arrive as new fields of struct dmaguard_pool_opts, never as new"]
    #[doc = " functions. Since v1.0."]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    #[doc = " Return: the pool, or an error pointer (test with IS_ERR()), never NULL:"]
    #[doc = " -EINVAL when @dev or @opts is NULL, @opts->sz is smaller than"]
    #[doc = " DMAGUARD_POOL_OPTS_SIZE_VER0, a flag or reserved field is unknown, the"]
    #[doc = " node is invalid or the geometry is (the reason is printed);"]
    #[doc = " -E2BIG when @opts is larger than this module knows and a field it does"]
    #[doc = " not know is not zero; -ENOMEM when the bookkeeping cannot be allocated."]
    pub fn dmaguard_pool_create_opts(
        dev: *mut device,
        opts: *const dmaguard_pool_opts,
    ) -> *mut dmaguard_pool;
}
extern "C" {
    #[doc = " dmaguard_pool_alloc() - allocate one block"]
    #[doc = " @pool: the pool"]
    #[doc = " @mem_flags: GFP flags; GFP_ATOMIC allowed from any context"]
    #[doc = " @handle: where the block's DMA address is stored"]
    #[doc = ""]
    #[doc = " Blocks of a fresh chunk come out in ascending address order. The block"]
    #[doc = " is zeroed when @mem_flags has __GFP_ZERO or init_on_alloc is on."]
    #[doc = ""]
    #[doc = " Context: Any context with GFP_ATOMIC or GFP_NOWAIT; process context (may"]
    #[doc = " sleep) with GFP_KERNEL. Takes the pool's lock with interrupts disabled."]
    #[doc = " On PREEMPT_RT, where that lock sleeps, not hard interrupt context (as"]
    #[doc = " for dma_pool_alloc())."]
    #[doc = " Return: the block's CPU address, or NULL when no memory could be had."]
    pub fn dmaguard_pool_alloc(
        pool: *mut dmaguard_pool,
        mem_flags: gfp_t,
        handle: *mut dma_addr_t,
    ) -> *mut core::ffi::c_void;
}
extern "C" {
    #[doc = " dmaguard_pool_free() - give a block back"]
    #[doc = " @pool: the pool it came from"]
    #[doc = " @vaddr: its CPU address, as returned by dmaguard_pool_alloc()"]
    #[doc = " @dma: its DMA address, as returned by dmaguard_pool_alloc()"]
    #[doc = ""]
    #[doc = " A free that does not match a live block of @pool (foreign or interior"]
    #[doc = " pointer, wrong @dma, double free) is reported once per pool, counted,"]
    #[doc = " and not applied: the pool stays consistent."]
    #[doc = ""]
    #[doc = " Context: Any context but, on PREEMPT_RT, hard interrupt context. Takes"]
    #[doc = " the pool's lock with interrupts disabled."]
    pub fn dmaguard_pool_free(
        pool: *mut dmaguard_pool,
        vaddr: *mut core::ffi::c_void,
        dma: dma_addr_t,
    );
}
extern "C" {
    #[doc = " dmaguard_pool_destroy() - destroy a pool"]
    #[doc = " @pool: the pool, or NULL (no-op)"]
    #[doc = ""]
    #[doc = " Blocks still allocated are reported; their chunks are deliberately"]
    #[doc = " leaked so that a late access by a driver or device hits memory that"]
    #[doc = " was never handed back to the system. No other call on @pool may run or"]
    #[doc = " follow."]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    pub fn dmaguard_pool_destroy(pool: *mut dmaguard_pool);
}
extern "C" {
    #[doc = " dmaguard_pool_create_managed() - dmaguard_pool_create(), destroyed when"]
    #[doc = "\t@dev's driver unbinds"]
    #[doc = " @name: as for dmaguard_pool_create()"]
    #[doc = " @dev: as for dmaguard_pool_create(); a device a driver is binding or"]
    #[doc = "\thas bound"]
    #[doc = " @size: as for dmaguard_pool_create()"]
    #[doc = " @align: as for dmaguard_pool_create()"]
    #[doc = " @boundary: as for dmaguard_pool_create()"]
    #[doc = ""]
    #[doc = " The device-managed form, as dmam_pool_create() is of dma_pool_create():"]
    #[doc = " the pool is a device resource of @dev and is destroyed (as by"]
    #[doc = " dmaguard_pool_destroy()) when the driver unbinds or its probe fails."]
    #[doc = " Since v1.2."]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    #[doc = " Return: as for dmaguard_pool_create()."]
    pub fn dmaguard_pool_create_managed(
        name: *const core::ffi::c_char,
        dev: *mut device,
        size: usize,
        align: usize,
        boundary: usize,
    ) -> *mut dmaguard_pool;
}
extern "C" {
    #[doc = " dmaguard_pool_destroy_managed() - destroy a managed pool before its"]
    #[doc = "\tdevice unbinds"]
    #[doc = " @pool: from dmaguard_pool_create_managed(), or NULL (no-op)"]
    #[doc = ""]
    #[doc = " A pool that was not created managed is reported, naming the pool, and"]
    #[doc = " left alone. No other call on @pool may run or follow. Since v1.2."]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    pub fn dmaguard_pool_destroy_managed(pool: *mut dmaguard_pool);
}
extern "C" {
    #[doc = " dmaguard_pool_get_stats() - snapshot of a pool's counters"]
    #[doc = " @pool: the pool"]
    #[doc = " @st: filled in; the caller sets @st->sz and zeroes the rest"]
    #[doc = "\t(DMAGUARD_OPTS(dmaguard_pool_stats, st) does both)"]
    #[doc = ""]
    #[doc = " Fills the fields both the caller and the module know; fields only the"]
    #[doc = " caller knows are left zero. @st->sz is not changed. Since v1.0."]
    #[doc = ""]
    #[doc = " Context: Any context but, on PREEMPT_RT, hard interrupt context. Takes"]
    #[doc = " the pool's lock with interrupts disabled."]
    #[doc = " Return: 0; -EINVAL when @pool or @st is NULL or @st->sz is smaller than"]
    #[doc = " DMAGUARD_POOL_STATS_SIZE_VER0; -E2BIG when @st is larger than this"]
    #[doc = " module knows and the part it does not know is not zero."]
    pub fn dmaguard_pool_get_stats(
        pool: *const dmaguard_pool,
        st: *mut dmaguard_pool_stats,
    ) -> core::ffi::c_int;
}
extern "C" {
    #[doc = " dmaguard_pool_zalloc() - allocate one zeroed block"]
    #[doc = " @pool: the pool"]
    #[doc = " @mem_flags: GFP flags, as for dmaguard_pool_alloc()"]
    #[doc = " @handle: where the block's DMA address is stored"]
    #[doc = ""]
    #[doc = " dmaguard_pool_alloc() with __GFP_ZERO. A function since v1.3 (a static"]
    #[doc = " inline before), so that consumers which cannot expand the kernel's GFP"]
    #[doc = " macros (Rust, whose bindings cannot know __GFP_ZERO's value for a given"]
    #[doc = " kernel configuration) zero device memory through the pool rather than"]
    #[doc = " with plain CPU stores of their own."]
    #[doc = ""]
    #[doc = " Context: as for dmaguard_pool_alloc()."]
    #[doc = " Return: as for dmaguard_pool_alloc()."]
    pub fn dmaguard_pool_zalloc(
        pool: *mut dmaguard_pool,
        mem_flags: gfp_t,
        handle: *mut dma_addr_t,
    ) -> *mut core::ffi::c_void;
}
extern "C" {
    #[doc = " dmaguard_dma_wmb() - the kernel's dma_wmb() as a function"]
    #[doc = ""]
    #[doc = " Orders the CPU's stores to coherent DMA memory before later ones: the"]
    #[doc = " fields of a descriptor before the store that hands it to the device."]
    #[doc = " For consumers that cannot expand the kernel's barrier macros (Rust); C"]
    #[doc = " drivers use dma_wmb() itself. Since v1.3."]
    #[doc = ""]
    #[doc = " Context: Any context."]
    pub fn dmaguard_dma_wmb();
}
extern "C" {
    #[doc = " dmaguard_dma_rmb() - the kernel's dma_rmb() as a function"]
    #[doc = ""]
    #[doc = " Orders the CPU's loads from coherent DMA memory: the load of a"]
    #[doc = " descriptor's ownership or completion field before the loads of the"]
    #[doc = " fields the device wrote with it. For consumers that cannot expand the"]
    #[doc = " kernel's barrier macros (Rust). Since v1.3."]
    #[doc = ""]
    #[doc = " Context: Any context."]
    pub fn dmaguard_dma_rmb();
}
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pin_cache {
    _unused: [u8; 0],
}
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct page {
    _unused: [u8; 0],
}
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct sg_table {
    _unused: [u8; 0],
}
#[doc = " struct dmaguard_pin_opts - how to create a pin cache (size-carrying)"]
#[doc = " @sz: sizeof(struct dmaguard_pin_opts) as the caller was compiled;"]
#[doc = "\tDMAGUARD_OPTS() sets it"]
#[doc = " @flags: DMAGUARD_PIN_F_* bits, 0 for none"]
#[doc = " @max_bytes: budget of pinned bytes, 0 for none; a range larger than it"]
#[doc = "\tis refused (-E2BIG), unused entries are evicted to stay within it"]
#[doc = " @max_entries: budget of entries, 0 for none"]
#[doc = " @node: NUMA node of the bookkeeping when @flags has DMAGUARD_PIN_F_NODE"]
#[doc = "\t(NUMA_NO_NODE, -1, allowed)"]
#[doc = ""]
#[doc = " Later versions append fields; a zero field always keeps the v1.1"]
#[doc = " behaviour."]
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pin_opts {
    pub sz: __u32,
    pub flags: __u32,
    pub max_bytes: __u64,
    pub max_entries: __u32,
    pub node: __s32,
}
#[doc = " struct dmaguard_pin - one get of a user range (size-carrying)"]
#[doc = " @sz: sizeof(struct dmaguard_pin) as the caller was compiled; set it and"]
#[doc = "\tzero the rest before dmaguard_pin_get() (DMAGUARD_OPTS() does both)"]
#[doc = " @offset: of the range's first byte in the first page of @pages"]
#[doc = " @priv: the module's, for dmaguard_pin_put(); do not touch"]
#[doc = " @pages: the pinned pages, from the one holding the first byte; the"]
#[doc = "\tarray belongs to the cache"]
#[doc = " @nr_pages: pages covering the range"]
#[doc = " @sgt: for a cache bound to a device, the DMA-mapped sg_table of the"]
#[doc = "\twhole cached entry, mapped DMA_BIDIRECTIONAL for a @write get's"]
#[doc = "\tentry and DMA_TO_DEVICE otherwise; a cache keeps a mapping only"]
#[doc = "\twhere transfers need no dma_sync_*() call (coherent, no bounce"]
#[doc = "\tbuffers), so none is needed. NULL for an unbound cache, and for a"]
#[doc = "\tdevice that needs syncs (swiotlb bounce buffering, as in"]
#[doc = "\tconfidential-computing guests; a non-coherent device): map the"]
#[doc = "\tpages of each transfer yourself then, and sync them as usual"]
#[doc = " @sgt_offset: byte offset of the range's first byte within @sgt's"]
#[doc = "\tDMA-mapped area (walk its DMA segments to find the address)"]
#[doc = ""]
#[doc = " Valid from a successful dmaguard_pin_get() to its dmaguard_pin_put()."]
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pin {
    pub sz: __u32,
    pub offset: __u32,
    pub priv_: *mut core::ffi::c_void,
    pub pages: *mut *mut page,
    pub nr_pages: __u64,
    pub sgt: *mut sg_table,
    pub sgt_offset: __u64,
}
#[doc = " struct dmaguard_pin_stats - snapshot of a pin cache (size-carrying)"]
#[doc = " @sz: sizeof(struct dmaguard_pin_stats) as the caller was compiled; set"]
#[doc = "\tit and zero the rest (DMAGUARD_OPTS() does both)"]
#[doc = " @entries: entries holding pins now"]
#[doc = " @entries_indexed: of which a get can still find (the others are stale,"]
#[doc = "\twaiting for their last put)"]
#[doc = " @__reserved0: 0"]
#[doc = " @hits: gets served by a cached entry"]
#[doc = " @misses: gets that found none (failed ones too)"]
#[doc = " @invalidations: entries made stale by changes of the address space"]
#[doc = " @inval_ignored: notifications that left the pages mapped (protection"]
#[doc = "\tchanges, fork): no entry dropped"]
#[doc = " @evictions: entries dropped for the budgets"]
#[doc = " @retries: misses redone because an invalidation raced them"]
#[doc = " @pinned_bytes: bytes pinned (or being pinned) now"]
#[doc = " @handles: gets not yet put"]
#[doc = " @bad_puts: puts refused: of handles the cache did not hold (since v1.4)"]
#[doc = " @prot_checks: hits that re-checked the range's VMAs after a protection"]
#[doc = "\tchange (since v1.4)"]
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct dmaguard_pin_stats {
    pub sz: __u32,
    pub entries: __u32,
    pub entries_indexed: __u32,
    pub __reserved0: __u32,
    pub hits: __u64,
    pub misses: __u64,
    pub invalidations: __u64,
    pub inval_ignored: __u64,
    pub evictions: __u64,
    pub retries: __u64,
    pub pinned_bytes: __u64,
    pub handles: __u64,
    pub bad_puts: __u64,
    pub prot_checks: __u64,
}
extern "C" {
    #[doc = " dmaguard_pin_cache_create() - create the pin cache of the caller's mm"]
    #[doc = " @dev: device the entries are DMA-mapped for, or NULL for pages only"]
    #[doc = " @opts: budgets and flags; @opts->sz says which version of the struct"]
    #[doc = "\tthe caller has (see struct dmaguard_pin_opts)"]
    #[doc = ""]
    #[doc = " The cache serves current->mm: every dmaguard_pin_get() on it must run"]
    #[doc = " in a task of that address space (a system call of the process, not a"]
    #[doc = " work item). Since v1.1."]
    #[doc = ""]
    #[doc = " Context: Process context, in a task with an mm. May sleep."]
    #[doc = " Return: the cache, or an error pointer (never NULL): -EINVAL when @opts"]
    #[doc = " is NULL, too small, has an unknown flag or an invalid node, or the"]
    #[doc = " caller has no mm; -E2BIG when @opts is larger than this module knows"]
    #[doc = " and a field it does not know is not zero; -ENOMEM."]
    pub fn dmaguard_pin_cache_create(
        dev: *mut device,
        opts: *const dmaguard_pin_opts,
    ) -> *mut dmaguard_pin_cache;
}
extern "C" {
    #[doc = " dmaguard_pin_cache_destroy() - release every entry, then the cache"]
    #[doc = " @c: the cache, or NULL (no-op)"]
    #[doc = ""]
    #[doc = " Entries no handle holds are unmapped, unpinned and uncharged now. A"]
    #[doc = " cache bound to a device holds DMA mappings of it: destroy it before the"]
    #[doc = " device goes (in the driver's remove(), after the last transfer). A"]
    #[doc = " handle still held (a driver bug, reported) keeps its entry until its"]
    #[doc = " dmaguard_pin_put(), and the last such put frees the cache. No get may"]
    #[doc = " follow. Works whether or not the process still exists."]
    #[doc = ""]
    #[doc = " Context: Process context. May sleep."]
    #[doc = " Return: the number of handles still held; 0 when the cache is gone."]
    pub fn dmaguard_pin_cache_destroy(c: *mut dmaguard_pin_cache) -> core::ffi::c_ulong;
}
extern "C" {
    #[doc = " dmaguard_pin_get() - the pinned (and mapped) pages of a user range"]
    #[doc = " @c: the cache"]
    #[doc = " @uaddr: first byte, a user address of the cache's mm; a tagged pointer"]
    #[doc = "\t(arm64 TBI/MTE, x86 LAM) is untagged first, as pin_user_pages_fast()"]
    #[doc = "\tdoes, so an invalidation of the range reaches its entry"]
    #[doc = " @len: bytes, not 0"]
    #[doc = " @write: the device will write to the range (pinned writable)"]
    #[doc = " @pin: filled in; the caller sets @pin->sz and zeroes the rest"]
    #[doc = ""]
    #[doc = " A hit returns a cached entry covering the range, a miss pins (and maps)"]
    #[doc = " the page-aligned range covering it. The pages are the ones mapped at"]
    #[doc = " the time of the get; hold the handle for as long as DMA may touch them."]
    #[doc = " A hit on a range that starts where a cached entry starts (a driver"]
    #[doc = " reusing its buffers) takes no lock; other hits take the cache's"]
    #[doc = " spinlock. The first hit after a protection change of the range checks"]
    #[doc = " its VMAs (under the mmap lock) as a pin would. Nothing stays pinned on"]
    #[doc = " error. Since v1.1."]
    #[doc = ""]
    #[doc = " Context: Process context, in a task of the cache's mm. May sleep."]
    #[doc = " Return: 0; -EINVAL for a NULL argument, a @len of 0 or a bad"]
    #[doc = " @pin->sz; -EOVERFLOW for a range that wraps; -EFAULT for kernel,"]
    #[doc = " unmapped or PROT_NONE addresses, read-only ones with @write, or a call"]
    #[doc = " from another mm; -E2BIG for a range larger than the byte budget or"]
    #[doc = " than 1 GiB;"]
    #[doc = " -ENOSPC when the entries in use fill a budget (or 2^24 - 1 entries are"]
    #[doc = " not yet released, as many as handles can name); -ENOMEM (also over"]
    #[doc = " RLIMIT_MEMLOCK, after the cache's unused entries were given back);"]
    #[doc = " -EAGAIN when invalidations kept racing the pinning."]
    pub fn dmaguard_pin_get(
        c: *mut dmaguard_pin_cache,
        uaddr: core::ffi::c_ulong,
        len: usize,
        write: bool,
        pin: *mut dmaguard_pin,
    ) -> core::ffi::c_int;
}
extern "C" {
    #[doc = " dmaguard_pin_put() - give back a handle of dmaguard_pin_get()"]
    #[doc = " @c: the cache"]
    #[doc = " @pin: the handle; its pages may not be used after this"]
    #[doc = ""]
    #[doc = " The entry stays cached unless it was invalidated meanwhile: then a"]
    #[doc = " work item unmaps, unpins and uncharges it soon after the last put (a"]
    #[doc = " put never waits for that). A handle the cache does not hold (put"]
    #[doc = " already, through a copy; of an entry released since; of another cache;"]
    #[doc = " garbage) is refused: reported once per cache, counted, never applied."]
    #[doc = " Two handles on one entry from gets that ran on one CPU, or any two on"]
    #[doc = " an entry gone stale since (invalidated, evicted while in use, or its"]
    #[doc = " cache destroyed), cannot be told apart: putting one twice"]
    #[doc = " while the other is held gives back the other's reference, so put each"]
    #[doc = " handle once (the put clears @pin, so a second put of @pin itself is a"]
    #[doc = " no-op). What is checked: that the handle names an entry of @c by its"]
    #[doc = " id and the id's generation (27 bits: a stale copy could match again"]
    #[doc = " only once 2^27 more entries took its id), and that the entry is held"]
    #[doc = " on the CPU its get ran on (the handle names it; the put may run"]
    #[doc = " anywhere), or, once it went stale, held at all. @c itself cannot be"]
    #[doc = " checked: a put on a cache already freed (destroyed, and its last entry"]
    #[doc = " released) is a use-after-free, as any call on it."]
    #[doc = " After dmaguard_pin_cache_destroy(), the release that follows the last"]
    #[doc = " put frees the cache. Takes no lock unless it hands the entry to the work"]
    #[doc = " item or refuses the handle (then the cache's spinlock, interrupts"]
    #[doc = " saved). Since v1.1."]
    #[doc = ""]
    #[doc = " Context: Any context: process, softirq or hard interrupt (an I/O"]
    #[doc = " completion), any task. Never sleeps."]
    pub fn dmaguard_pin_put(c: *mut dmaguard_pin_cache, pin: *mut dmaguard_pin);
}
extern "C" {
    #[doc = " dmaguard_pin_cache_stats() - snapshot of a cache's counters"]
    #[doc = " @c: the cache"]
    #[doc = " @st: filled in; the caller sets @st->sz and zeroes the rest"]
    #[doc = ""]
    #[doc = " Since v1.1."]
    #[doc = ""]
    #[doc = " Context: Process context. Takes the cache's spinlock."]
    #[doc = " Return: 0; -EINVAL when @c or @st is NULL or @st->sz is smaller than"]
    #[doc = " DMAGUARD_PIN_STATS_SIZE_VER0; -E2BIG when @st is larger than this"]
    #[doc = " module knows and the part it does not know is not zero."]
    pub fn dmaguard_pin_cache_stats(
        c: *mut dmaguard_pin_cache,
        st: *mut dmaguard_pin_stats,
    ) -> core::ffi::c_int;
}
