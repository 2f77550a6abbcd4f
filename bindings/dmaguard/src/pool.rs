// SPDX-License-Identifier: GPL-2.0
//! Hardened DMA pools (`<dmaguard/pool.h>`). A [`Pool`] is a counted
//! handle: clones share one C pool, and every [`Block`] holds one, so a
//! driver keeps its pool and the blocks it allocated side by side in its
//! own struct, and the C pool is destroyed when the last of them goes. A
//! block can only be freed into the pool it came from (its drop), and
//! its memory is only read and written as [`Plain`] values (see
//! [`dma`](super::dma)).
//!
//! Shared with the kernel module build: refers to the raw bindings and the
//! other modules only through `super::` paths, and to nothing but `core::`
//! and the build's `Arc` (`super::sync`: the kernel's `kernel::sync::Arc`
//! in a module, `alloc`'s in the cargo crate).

use core::ffi::CStr;
use core::mem::{align_of, size_of};
use core::ptr::{self, NonNull};

use super::device::Device;
use super::dma::Plain;
use super::error::{Error, Result};
use super::gfp::Gfp;
use super::sync::{Arc, new_arc};
use super::sys;

/// A DMA (bus) address, as the device sees a block.
///
/// ```
/// use dmaguard::pool::{DmaAddr, Pool, PoolOptions};
/// use dmaguard::user::{GFP_KERNEL, device};
/// let pool = Pool::new(&device(), &PoolOptions::new(c"d", 8))?;
/// let dma: DmaAddr = pool.alloc(GFP_KERNEL)?.dma_handle();
/// assert_ne!(dma, 0);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub type DmaAddr = sys::dma_addr_t;

/// A snapshot of a pool's counters (`struct dmaguard_pool_stats`).
///
/// ```
/// use dmaguard::pool::{Pool, PoolOptions, PoolStats};
/// let pool = Pool::new(&dmaguard::user::device(), &PoolOptions::new(c"doc", 64))?;
/// let st: PoolStats = pool.stats()?;
/// assert_eq!(st.block_size, 64);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub type PoolStats = sys::dmaguard_pool_stats;

/// How to create a pool: the fields of `struct dmaguard_pool_opts`.
///
/// ```
/// use dmaguard::pool::PoolOptions;
/// let opts = PoolOptions { align: 64, boundary: 4096, ..PoolOptions::new(c"ring", 48) };
/// assert_eq!(opts.node, None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PoolOptions<'a> {
    /// Name for reports and debugfs; copied, at most 31 characters kept.
    pub name: &'a CStr,
    /// Size of each block, at least 1.
    pub size: usize,
    /// Alignment of each block, a power of two, or 0 for 1.
    pub align: usize,
    /// Power of two no block may cross, or 0 for none; not below `size`.
    pub boundary: usize,
    /// NUMA node of the bookkeeping (`Some(-1)`: none); `None`: the
    /// device's.
    pub node: Option<i32>,
}

impl<'a> PoolOptions<'a> {
    /// Blocks of `size` bytes, no alignment or boundary, the device's node.
    ///
    /// ```
    /// use dmaguard::pool::PoolOptions;
    /// let opts = PoolOptions::new(c"desc", 16);
    /// assert_eq!((opts.size, opts.align, opts.boundary), (16, 0, 0));
    /// ```
    pub const fn new(name: &'a CStr, size: usize) -> Self {
        PoolOptions {
            name,
            size,
            align: 0,
            boundary: 0,
            node: None,
        }
    }

    fn to_sys(self) -> sys::dmaguard_pool_opts {
        sys::dmaguard_pool_opts {
            sz: core::mem::size_of::<sys::dmaguard_pool_opts>() as u32,
            flags: if self.node.is_some() {
                sys::DMAGUARD_POOL_F_NODE
            } else {
                0
            },
            name: self.name.as_ptr(),
            size: self.size as u64,
            align: self.align as u64,
            boundary: self.boundary as u64,
            node: self.node.unwrap_or(0),
            __reserved0: 0,
        }
    }
}

/// The C pool and what it needs to live: destroyed when the last
/// [`Pool`] handle or [`Block`] drops it.
struct PoolInner {
    ptr: NonNull<sys::dmaguard_pool>,
    block_size: usize,
    // Dropped after the destroy above it in `drop()`: the device outlives
    // every chunk the pool allocated for it.
    dev: Device,
}

// SAFETY: the C pool serializes every call but create and destroy under
// its own lock, from any thread (`<dmaguard/pool.h>`, Context lines); the
// destroy runs once, in the last owner's drop.
unsafe impl Send for PoolInner {}
// SAFETY: as for Send: shared access only allocates, frees and reads the
// counters, which take the pool's lock.
unsafe impl Sync for PoolInner {}

impl Drop for PoolInner {
    /// Destroy the pool (`dmaguard_pool_destroy()`), then put the device.
    /// Blocks given out by [`Block::into_raw`] and never freed are
    /// reported by the C side and their chunks leaked, as for C drivers.
    ///
    /// Context: process context; may sleep.
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is a live pool; this is its last owner (no
        // handle or block refers to it any more), so no call can run or
        // follow.
        unsafe { sys::dmaguard_pool_destroy(self.ptr.as_ptr()) }
    }
}

/// A hardened pool of coherent DMA blocks for one device: a counted
/// handle (cloning it is cheap), the C pool destroyed when the last handle
/// and the last [`Block`] are gone (`dmaguard_pool_destroy()`). It holds a
/// reference on its device.
///
/// `Send` and `Sync`: every call on a pool but create and destroy takes
/// the pool's lock (a spinlock, interrupts off), so blocks may be
/// allocated and freed from any thread and any context the C calls allow.
///
/// The one thing the types do not check is the context of the last drop:
/// the destroy sleeps, so whichever of the handles and blocks goes last
/// must go in process context (a driver drops its blocks, then its pool,
/// in remove).
///
/// ```
/// use dmaguard::pool::{Block, Pool, PoolOptions};
/// use dmaguard::user::{device, GFP_KERNEL};
/// // What a driver keeps in its private data: the pool and its ring.
/// struct Ring {
///     pool: Pool,
///     descs: Vec<Block>,
/// }
/// let pool = Pool::new(&device(), &PoolOptions::new(c"ring", 32))?;
/// let descs = (0..4).map(|_| pool.alloc(GFP_KERNEL)).collect::<Result<_, _>>()?;
/// let ring = Ring { pool, descs };
/// assert_eq!(ring.pool.stats()?.blocks_in_use, 4);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[doc(alias = "dmaguard_pool_destroy")]
#[derive(Clone)]
pub struct Pool {
    inner: Arc<PoolInner>,
}

impl Pool {
    /// Create a pool from options (`dmaguard_pool_create_opts()`), with
    /// the exact errno on failure. Process context; may sleep.
    ///
    /// # Errors
    ///
    /// `Error::Inval` (invalid geometry or node), `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// let dev = dmaguard::user::device();
    /// let bad = Pool::new(&dev, &PoolOptions { align: 3, ..PoolOptions::new(c"x", 8) });
    /// assert_eq!(bad.err(), Some(Error::Inval));
    /// ```
    #[doc(alias = "dmaguard_pool_create_opts")]
    pub fn new(dev: &Device, opts: &PoolOptions<'_>) -> Result<Pool> {
        let o = opts.to_sys();
        // SAFETY: `o` is a complete, zero-tailed struct whose `sz` is its
        // size; `o.name` points to a NUL-terminated string that lives
        // across the call (the pool copies it); `dev` is a live device
        // (a reference is held), which the pool keeps one of until it is
        // destroyed.
        let p = unsafe { sys::dmaguard_pool_create_opts(dev.as_ptr(), &o) };
        Pool::wrap(Error::from_err_ptr(p)?, dev)
    }

    /// A pool whose blocks are one `T` each: its size and alignment.
    ///
    /// # Errors
    ///
    /// As for [`Pool::new`]; `Error::Inval` for a zero-sized `T`.
    ///
    /// ```
    /// use dmaguard::pool::Pool;
    /// let pool = Pool::for_type::<[u64; 4]>(&dmaguard::user::device(), c"quad")?;
    /// assert_eq!(pool.block_size(), 32);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn for_type<T: Plain>(dev: &Device, name: &CStr) -> Result<Pool> {
        let opts = PoolOptions {
            align: align_of::<T>(),
            ..PoolOptions::new(name, size_of::<T>())
        };
        Pool::new(dev, &opts)
    }

    /// Create a pool the `dma_pool_create()` way
    /// (`dmaguard_pool_create()`): the device's NUMA node.
    ///
    /// # Errors
    ///
    /// The C call returns NULL for every failure (an invalid geometry, no
    /// memory) without saying which: all are `Error::Inval` here. Use
    /// [`Pool::new`] for the errno.
    ///
    /// ```
    /// use dmaguard::pool::Pool;
    /// let pool = Pool::create(&dmaguard::user::device(), c"legacy", 24, 8, 0)?;
    /// assert_eq!(pool.block_size(), 24);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_create")]
    pub fn create(
        dev: &Device,
        name: &CStr,
        size: usize,
        align: usize,
        boundary: usize,
    ) -> Result<Pool> {
        // SAFETY: `name` is NUL-terminated and outlives the call (the pool
        // copies it); `dev` is live, as in `new`.
        let p = unsafe {
            sys::dmaguard_pool_create(name.as_ptr(), dev.as_ptr(), size, align, boundary)
        };
        Pool::wrap(NonNull::new(p).ok_or(Error::Inval)?, dev)
    }

    /// [`Pool::create`] with the node of the bookkeeping
    /// (`dmaguard_pool_create_node()`); -1 for none.
    ///
    /// # Errors
    ///
    /// As for [`Pool::create`], also for a node that is not possible.
    ///
    /// ```
    /// use dmaguard::pool::Pool;
    /// let pool = Pool::create_node(&dmaguard::user::device(), c"numa", 64, 64, 0, -1)?;
    /// assert_eq!(pool.block_size(), 64);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_create_node")]
    pub fn create_node(
        dev: &Device,
        name: &CStr,
        size: usize,
        align: usize,
        boundary: usize,
        node: i32,
    ) -> Result<Pool> {
        // SAFETY: as in `create`.
        let p = unsafe {
            sys::dmaguard_pool_create_node(name.as_ptr(), dev.as_ptr(), size, align, boundary, node)
        };
        Pool::wrap(NonNull::new(p).ok_or(Error::Inval)?, dev)
    }

    /// Take ownership of a freshly created pool: read its block size, put
    /// it in its counted owner.
    fn wrap(ptr: NonNull<sys::dmaguard_pool>, dev: &Device) -> Result<Pool> {
        let mut inner = PoolInner {
            ptr,
            block_size: 0,
            dev: dev.clone(),
        };
        // On error, dropping `inner` destroys the pool.
        inner.block_size = stats_of(ptr)?.block_size as usize;
        Ok(Pool {
            inner: new_arc(inner)?,
        })
    }

    /// The C handle, for calls this layer does not wrap; it stays owned by
    /// the handles and blocks of this pool.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// let pool = Pool::new(&dmaguard::user::device(), &PoolOptions::new(c"raw", 8))?;
    /// assert!(!pool.as_ptr().is_null());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn as_ptr(&self) -> *mut sys::dmaguard_pool {
        self.inner.ptr.as_ptr()
    }

    /// The device the pool allocates for.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// let dev = dmaguard::user::device();
    /// let pool = Pool::new(&dev, &PoolOptions::new(c"dev", 8))?;
    /// assert_eq!(pool.device().as_ptr(), dev.as_ptr());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.inner.dev
    }

    /// Whether `self` and `other` are handles of the same C pool.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// let dev = dmaguard::user::device();
    /// let a = Pool::new(&dev, &PoolOptions::new(c"a", 8))?;
    /// let b = Pool::new(&dev, &PoolOptions::new(c"b", 8))?;
    /// assert!(a.same_pool(&a.clone()) && !a.same_pool(&b));
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn same_pool(&self, other: &Pool) -> bool {
        self.as_ptr() == other.as_ptr()
    }

    /// Size of each block, as asked at creation.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// let pool = Pool::new(&dmaguard::user::device(), &PoolOptions::new(c"b", 3))?;
    /// assert_eq!(pool.block_size(), 3);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn block_size(&self) -> usize {
        self.inner.block_size
    }

    /// Allocate one block (`dmaguard_pool_alloc()`); it is freed into this
    /// pool when dropped, and keeps the pool alive until then. `gfp` as for
    /// the C call: an atomic value from any context, a sleeping one
    /// (`GFP_KERNEL`) in process context only.
    ///
    /// # Errors
    ///
    /// `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_ATOMIC};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"a", 16))?;
    /// let a = pool.alloc(GFP_ATOMIC)?;
    /// let b = pool.alloc(GFP_ATOMIC)?;
    /// assert_ne!(a.dma_handle(), b.dma_handle());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_alloc")]
    pub fn alloc(&self, gfp: Gfp) -> Result<Block> {
        let mut dma: DmaAddr = 0;
        // SAFETY: `self` keeps the pool alive; `dma` is a valid place for
        // the handle.
        let vaddr = unsafe { sys::dmaguard_pool_alloc(self.as_ptr(), gfp.raw(), &mut dma) };
        self.block(vaddr, dma)
    }

    /// Allocate one zeroed block (`dmaguard_pool_zalloc()`): the C side
    /// zeroes it, before the block is handed out.
    ///
    /// # Errors
    ///
    /// `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"z", 8))?;
    /// let b = pool.alloc_zeroed(GFP_KERNEL)?;
    /// assert_eq!(b.read_as::<u64>(0)?, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_zalloc")]
    pub fn alloc_zeroed(&self, gfp: Gfp) -> Result<Block> {
        let mut dma: DmaAddr = 0;
        // SAFETY: as in `alloc`.
        let vaddr = unsafe { sys::dmaguard_pool_zalloc(self.as_ptr(), gfp.raw(), &mut dma) };
        self.block(vaddr, dma)
    }

    /// The owner of what an alloc call returned.
    fn block(&self, vaddr: *mut core::ffi::c_void, dma: DmaAddr) -> Result<Block> {
        let vaddr = NonNull::new(vaddr.cast::<u8>()).ok_or(Error::NoMem)?;
        Ok(Block {
            pool: self.clone(),
            vaddr,
            dma,
        })
    }

    /// A snapshot of the pool's counters (`dmaguard_pool_get_stats()`).
    ///
    /// # Errors
    ///
    /// None with this layer's struct size; an errno of the C call
    /// otherwise.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"s", 8))?;
    /// let _b = pool.alloc(GFP_KERNEL)?;
    /// assert_eq!(pool.stats()?.blocks_in_use, 1);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_get_stats")]
    pub fn stats(&self) -> Result<PoolStats> {
        stats_of(self.inner.ptr)
    }

    /// Hand a raw (CPU address, DMA address) pair back to the pool
    /// (`dmaguard_pool_free()`), e.g. one a [`Block::into_raw`] gave out.
    ///
    /// The C side checks every free by address arithmetic, without
    /// touching the memory: a pair that is not a live block of this pool
    /// (foreign, interior, wrong DMA address, already free, a block of
    /// another pool) is reported, counted in the stats (`bad_free_*`) and
    /// not applied.
    ///
    /// # Safety
    ///
    /// This is `unsafe` because a pair that *is* a live block of this pool
    /// is freed, whoever holds it: the pair must not belong to a live
    /// [`Block`] (whose later accesses and drop would then hit a block the
    /// pool may have handed to someone else), nor to memory a device may
    /// still access. Any other pair, however wrong, is safe to pass.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"f", 8))?;
    /// let (vaddr, dma) = pool.alloc(GFP_KERNEL)?.into_raw();
    /// // SAFETY: the pair is no longer held by a Block, and no device has it.
    /// unsafe { pool.free_raw(vaddr.as_ptr(), dma) };
    /// assert_eq!(pool.stats()?.blocks_in_use, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_free")]
    pub unsafe fn free_raw(&self, vaddr: *mut u8, dma: DmaAddr) {
        // SAFETY: `self` keeps the pool alive; the pair is checked by the
        // C side and, by the caller's promise, owned by no one else.
        unsafe { sys::dmaguard_pool_free(self.as_ptr(), vaddr.cast(), dma) }
    }
}

/// `dmaguard_pool_get_stats()` of a live pool.
fn stats_of(ptr: NonNull<sys::dmaguard_pool>) -> Result<PoolStats> {
    // SAFETY: the stats struct is plain integers: all-zero is valid.
    let mut st: PoolStats = unsafe { core::mem::zeroed() };
    st.sz = size_of::<PoolStats>() as u32;
    // SAFETY: `ptr` is a live pool (its caller owns it); `st` is a zeroed
    // struct with `sz` set, as the call requires.
    Error::from_ret(unsafe { sys::dmaguard_pool_get_stats(ptr.as_ptr(), &mut st) })?;
    Ok(st)
}

/// One block of a [`Pool`]: device-visible memory, freed into its pool
/// when dropped, keeping the pool alive until then.
///
/// Its memory is shared with the device, so this type never makes a Rust
/// reference to it: reads and writes are volatile accesses of [`Plain`]
/// values through raw pointers, bounds and alignment checked, and writes
/// need `&mut self`.
///
/// ```
/// use dmaguard::pool::{Pool, PoolOptions};
/// use dmaguard::user::{device, GFP_KERNEL};
/// let pool = Pool::new(&device(), &PoolOptions::new(c"desc", 16))?;
/// let mut desc = pool.alloc_zeroed(GFP_KERNEL)?;
/// desc.write_as::<u64>(0, 0x1000)?;
/// desc.write(8, b"abcd")?;
/// let mut buf = [0u8; 4];
/// desc.read(8, &mut buf)?;
/// assert_eq!(&buf, b"abcd");
/// drop(pool); // the block keeps the C pool alive
/// assert_eq!(desc.pool().stats()?.blocks_in_use, 1);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub struct Block {
    pool: Pool,
    vaddr: NonNull<u8>,
    dma: DmaAddr,
}

// SAFETY: a block is freed through its pool, which allows frees from any
// thread (`Pool: Sync`); its memory is accessed only through volatile
// raw-pointer accesses, writes through `&mut self`.
unsafe impl Send for Block {}
// SAFETY: `&Block` only allows volatile reads and reading the addresses.
unsafe impl Sync for Block {}

impl Block {
    /// The DMA address to give the device.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions { align: 64, ..PoolOptions::new(c"d", 64) })?;
    /// assert_eq!(pool.alloc(GFP_KERNEL)?.dma_handle() % 64, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn dma_handle(&self) -> DmaAddr {
        self.dma
    }

    /// The pool the block is freed into.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"o", 8))?;
    /// assert!(pool.alloc(GFP_KERNEL)?.pool().same_pool(&pool));
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// Bytes in the block: the pool's block size.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"l", 5))?;
    /// assert_eq!(pool.alloc(GFP_KERNEL)?.len(), 5);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.pool.block_size()
    }

    /// Always false: a block has at least one byte.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"e", 1))?;
    /// assert!(!pool.alloc(GFP_KERNEL)?.is_empty());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The CPU address, for code that must hand it on (e.g. to C); the
    /// block stays owned by `self`. Accesses through it are the caller's
    /// to justify.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions { align: 8, ..PoolOptions::new(c"p", 8) })?;
    /// assert_eq!(pool.alloc(GFP_KERNEL)?.as_ptr() as usize % 8, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn as_ptr(&self) -> *mut u8 {
        self.vaddr.as_ptr()
    }

    /// Give up ownership: the (CPU address, DMA address) pair, no longer
    /// freed on drop; give it back with [`Pool::free_raw`] (or leave it to
    /// the pool's destroy, which reports it).
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"r", 8))?;
    /// let (vaddr, dma) = pool.alloc(GFP_KERNEL)?.into_raw();
    /// assert_eq!(pool.stats()?.blocks_in_use, 1);
    /// // SAFETY: the pair is held by no Block and no device.
    /// unsafe { pool.free_raw(vaddr.as_ptr(), dma) };
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn into_raw(self) -> (NonNull<u8>, DmaAddr) {
        let pair = (self.vaddr, self.dma);
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never dropped: its pool handle is moved out
        // once and dropped here, the pair goes to the caller.
        drop(unsafe { ptr::read(&this.pool) });
        pair
    }

    /// The in-block pointer to `n` bytes at `offset` aligned for `align`,
    /// or `Error::Inval` when they do not fit or are misaligned.
    fn at(&self, offset: usize, n: usize, align: usize) -> Result<*mut u8> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len() => {}
            _ => return Err(Error::Inval),
        }
        // `offset <= len()`, so the pointer stays inside the block.
        let p = self.vaddr.as_ptr().wrapping_add(offset);
        // `align` is a power of two (an alignment).
        if (p as usize) & (align - 1) != 0 {
            return Err(Error::Inval);
        }
        Ok(p)
    }

    /// One volatile load of a plain `T` at `offset` (native byte order).
    ///
    /// # Errors
    ///
    /// `Error::Inval` when it does not fit the block or is misaligned.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions { align: 8, ..PoolOptions::new(c"r", 16) })?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write_as::<[u32; 2]>(8, [7, 9])?;
    /// assert_eq!(b.read_as::<u32>(12)?, 9);
    /// assert!(b.read_as::<u64>(12).is_err());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn read_as<T: Plain>(&self, offset: usize) -> Result<T> {
        let p = self.at(offset, size_of::<T>(), align_of::<T>())?;
        // SAFETY: inside the live block and aligned (`at()`); any bits are
        // a valid `T` (`Plain`).
        Ok(unsafe { ptr::read_volatile(p.cast::<T>()) })
    }

    /// One volatile store of a plain `T` at `offset`.
    ///
    /// # Errors
    ///
    /// `Error::Inval` when it does not fit the block or is misaligned.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions { align: 4, ..PoolOptions::new(c"w", 4) })?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write_as::<u32>(0, 0xdead_beef)?;
    /// assert!(b.write_as::<u32>(1, 0).is_err());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn write_as<T: Plain>(&mut self, offset: usize, val: T) -> Result {
        let p = self.at(offset, size_of::<T>(), align_of::<T>())?;
        // SAFETY: inside the live block and aligned (`at()`); `T` has no
        // padding to leak (`Plain`); `&mut self` keeps other writers of
        // this layer out.
        unsafe { ptr::write_volatile(p.cast::<T>(), val) };
        Ok(())
    }

    /// The `F` at byte `off` of the block's `T` (at offset 0), checked to
    /// lie wholly inside that `T` and be aligned for `F`.
    fn field_at<T: Plain, F: Plain>(&self, off: usize) -> Result<*mut F> {
        let base = self.at(0, size_of::<T>(), align_of::<T>())?.cast::<u8>();
        let f = base.wrapping_add(off).cast::<F>();
        match off.checked_add(size_of::<F>()) {
            Some(end) if end <= size_of::<T>() && (f as usize) & (align_of::<F>() - 1) == 0 => {
                Ok(f)
            }
            _ => Err(Error::Inval),
        }
    }

    /// One volatile load of the field at byte `off` of the block's `T` (at
    /// offset 0); what [`dma_read!`](crate::dma_read) expands to, with
    /// `off` from `offset_of!`. `field` only names the field's type: it is
    /// never called (safe code, so nothing a caller passes runs here); any
    /// `off` is checked.
    ///
    /// # Errors
    ///
    /// `Error::Inval` when the block is too small for a `T`, misaligned
    /// for it, or the `F` at `off` is not wholly inside it and aligned.
    pub fn read_field_at<T: Plain, F: Plain>(&self, off: usize, field: fn(&T) -> &F) -> Result<F> {
        let _ = field;
        let f = self.field_at::<T, F>(off)?;
        // SAFETY: inside the live block and aligned (`field_at()`); any
        // bits are a valid `F` (`Plain`).
        Ok(unsafe { ptr::read_volatile(f) })
    }

    /// One volatile store to the field at byte `off` of the block's `T`;
    /// what [`dma_write!`](crate::dma_write) expands to.
    ///
    /// # Errors
    ///
    /// As for [`Block::read_field_at`].
    pub fn write_field_at<T: Plain, F: Plain>(
        &mut self,
        off: usize,
        field: fn(&T) -> &F,
        val: F,
    ) -> Result {
        let _ = field;
        let f = self.field_at::<T, F>(off)?;
        // SAFETY: inside the live block and aligned (`field_at()`); `&mut
        // self` keeps other writers of this layer out.
        unsafe { ptr::write_volatile(f, val) };
        Ok(())
    }

    /// Copy `buf.len()` bytes from the block at `offset` (volatile, byte by
    /// byte: the device may write them meanwhile).
    ///
    /// # Errors
    ///
    /// `Error::Inval` when the range does not fit the block.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"rd", 4))?;
    /// let b = pool.alloc_zeroed(GFP_KERNEL)?;
    /// let mut buf = [1u8; 4];
    /// b.read(0, &mut buf)?;
    /// assert_eq!(buf, [0; 4]);
    /// assert!(b.read(1, &mut buf).is_err());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn read(&self, offset: usize, buf: &mut [u8]) -> Result {
        let p = self.at(offset, buf.len(), 1)?;
        for (i, b) in buf.iter_mut().enumerate() {
            // SAFETY: `at()` checked that the bytes lie inside the block,
            // which is live while `self` is; volatile and through a raw
            // pointer, as the device may access it.
            *b = unsafe { ptr::read_volatile(p.add(i)) };
        }
        Ok(())
    }

    /// Copy `data` into the block at `offset` (volatile, byte by byte).
    ///
    /// # Errors
    ///
    /// `Error::Inval` when the range does not fit the block.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// let pool = Pool::new(&device(), &PoolOptions::new(c"wr", 4))?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write(0, &[1, 2, 3, 4])?;
    /// assert!(b.write(2, &[0; 3]).is_err());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn write(&mut self, offset: usize, data: &[u8]) -> Result {
        let p = self.at(offset, data.len(), 1)?;
        for (i, b) in data.iter().enumerate() {
            // SAFETY: as in `read()`; `&mut self` keeps other writers of
            // this layer out.
            unsafe { ptr::write_volatile(p.add(i), *b) };
        }
        Ok(())
    }
}

impl Drop for Block {
    /// Free the block into its pool (`dmaguard_pool_free()`), then drop
    /// the block's hold on the pool (the last one destroys it).
    ///
    /// Context: any, but hard interrupt context on PREEMPT_RT (the pool's
    /// lock sleeps there), as for `dmaguard_pool_free()`; process context
    /// when this is the pool's last owner.
    fn drop(&mut self) {
        // SAFETY: the pair is a live block of `self.pool` (alive: held),
        // owned by `self` alone and freed once, here.
        unsafe { sys::dmaguard_pool_free(self.pool.as_ptr(), self.vaddr.as_ptr().cast(), self.dma) }
    }
}
