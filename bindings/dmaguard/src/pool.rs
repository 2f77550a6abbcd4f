// SPDX-License-Identifier: GPL-2.0
//! Hardened DMA pools (`<dmaguard/pool.h>`): a [`Pool`] destroys itself
//! when dropped, a [`Block`] frees itself when dropped and borrows its pool,
//! so it cannot outlive it.
//!
//! Shared with the kernel module build: refers to the raw bindings and the
//! other modules only through `super::` paths, and to nothing but `core::`.

use core::ffi::CStr;
use core::ptr::{self, NonNull};

use super::error::{Error, Result};
use super::gfp::Gfp;
use super::sys;

/// A DMA (bus) address, as the device sees a block.
///
/// ```
/// use dmaguard::pool::{DmaAddr, Pool, PoolOptions};
/// use dmaguard::user::{GFP_KERNEL, device};
/// // SAFETY: the userspace build's device lives forever.
/// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"d", 8)) }?;
/// let dma: DmaAddr = pool.alloc(GFP_KERNEL)?.dma_handle();
/// assert_ne!(dma, 0);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub type DmaAddr = sys::dma_addr_t;

/// A snapshot of a pool's counters (`struct dmaguard_pool_stats`).
///
/// ```
/// use dmaguard::pool::{Pool, PoolOptions, PoolStats};
/// let pool = unsafe { Pool::new(dmaguard::user::device(), &PoolOptions::new(c"doc", 64)) }?;
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

/// A hardened pool of coherent DMA blocks for one device; destroyed when
/// dropped (`dmaguard_pool_destroy()`).
///
/// `Send` and `Sync`: every call on a pool but create and destroy takes
/// the pool's lock (a spinlock, interrupts off), so blocks may be
/// allocated and freed from any thread and any context the C calls allow.
///
/// ```
/// use dmaguard::pool::{Pool, PoolOptions};
/// use dmaguard::user::{device, GFP_KERNEL};
/// // SAFETY: the userspace build's device lives forever.
/// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"ring", 32)) }?;
/// let block = pool.alloc(GFP_KERNEL)?;
/// assert_eq!(block.len(), 32);
/// drop(block);
/// assert_eq!(pool.stats()?.blocks_in_use, 0);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[doc(alias = "dmaguard_pool_destroy")]
pub struct Pool {
    ptr: NonNull<sys::dmaguard_pool>,
    block_size: usize,
}

// SAFETY: the C pool serializes every call but create and destroy under
// its own lock, from any thread (`<dmaguard/pool.h>`, Context lines); the
// handle is not tied to the creating thread.
unsafe impl Send for Pool {}
// SAFETY: as for Send: `&Pool` only allows alloc, free (through `Block`)
// and stats, which take the pool's lock.
unsafe impl Sync for Pool {}

impl Pool {
    /// Create a pool from options (`dmaguard_pool_create_opts()`), with
    /// the exact errno on failure.
    ///
    /// # Safety
    ///
    /// `dev` is NULL (refused: `Error::Inval`) or points to a live
    /// `struct device` that can do DMA and outlives the pool: the pool
    /// allocates and frees coherent DMA memory for it until dropped.
    ///
    /// # Errors
    ///
    /// `Error::Inval` (NULL `dev`, invalid geometry or node),
    /// `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// let dev = dmaguard::user::device();
    /// // SAFETY: the userspace build's device lives forever.
    /// let bad = unsafe { Pool::new(dev, &PoolOptions { align: 3, ..PoolOptions::new(c"x", 8) }) };
    /// assert_eq!(bad.err(), Some(Error::Inval));
    /// ```
    #[doc(alias = "dmaguard_pool_create_opts")]
    pub unsafe fn new(dev: *mut sys::device, opts: &PoolOptions<'_>) -> Result<Pool> {
        let o = opts.to_sys();
        // SAFETY: `o` is a complete, zero-tailed struct whose `sz` is its
        // size; `o.name` points to a NUL-terminated string that lives
        // across the call (the pool copies it); `dev` is as the caller
        // promised.
        let p = unsafe { sys::dmaguard_pool_create_opts(dev, &o) };
        Pool::wrap(Error::from_err_ptr(p)?)
    }

    /// Create a pool the `dma_pool_create()` way
    /// (`dmaguard_pool_create()`): the device's NUMA node.
    ///
    /// # Safety
    ///
    /// As for [`Pool::new`].
    ///
    /// # Errors
    ///
    /// The C call returns NULL for every failure (a NULL `dev`, an
    /// invalid geometry, no memory) without saying which: all are
    /// `Error::Inval` here. Use [`Pool::new`] for the errno.
    ///
    /// ```
    /// use dmaguard::pool::Pool;
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::create(dmaguard::user::device(), c"legacy", 24, 8, 0) }?;
    /// assert_eq!(pool.block_size(), 24);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_create")]
    pub unsafe fn create(
        dev: *mut sys::device,
        name: &CStr,
        size: usize,
        align: usize,
        boundary: usize,
    ) -> Result<Pool> {
        // SAFETY: `name` is NUL-terminated and outlives the call (the pool
        // copies it); `dev` is as the caller promised.
        let p = unsafe { sys::dmaguard_pool_create(name.as_ptr(), dev, size, align, boundary) };
        Pool::wrap(NonNull::new(p).ok_or(Error::Inval)?)
    }

    /// [`Pool::create`] with the node of the bookkeeping
    /// (`dmaguard_pool_create_node()`); -1 for none.
    ///
    /// # Safety
    ///
    /// As for [`Pool::new`].
    ///
    /// # Errors
    ///
    /// As for [`Pool::create`], also for a node that is not possible.
    ///
    /// ```
    /// use dmaguard::pool::Pool;
    /// let dev = dmaguard::user::device();
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::create_node(dev, c"numa", 64, 64, 0, -1) }?;
    /// assert_eq!(pool.block_size(), 64);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_create_node")]
    pub unsafe fn create_node(
        dev: *mut sys::device,
        name: &CStr,
        size: usize,
        align: usize,
        boundary: usize,
        node: i32,
    ) -> Result<Pool> {
        // SAFETY: as in `create`.
        let p = unsafe {
            sys::dmaguard_pool_create_node(name.as_ptr(), dev, size, align, boundary, node)
        };
        Pool::wrap(NonNull::new(p).ok_or(Error::Inval)?)
    }

    /// Take ownership of a freshly created pool: read its block size.
    fn wrap(ptr: NonNull<sys::dmaguard_pool>) -> Result<Pool> {
        let mut pool = Pool { ptr, block_size: 0 };
        // On error, dropping `pool` destroys it.
        pool.block_size = pool.stats()?.block_size as usize;
        Ok(pool)
    }

    /// The C handle, for calls this layer does not wrap; it stays owned by
    /// `self`.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(dmaguard::user::device(), &PoolOptions::new(c"raw", 8)) }?;
    /// assert!(!pool.as_ptr().is_null());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn as_ptr(&self) -> *mut sys::dmaguard_pool {
        self.ptr.as_ptr()
    }

    /// Size of each block, as asked at creation.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(dmaguard::user::device(), &PoolOptions::new(c"b", 3)) }?;
    /// assert_eq!(pool.block_size(), 3);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn block_size(&self) -> usize {
        self.block_size
    }

    /// Allocate one block (`dmaguard_pool_alloc()`); it is freed when
    /// dropped. `gfp` as for the C call: an atomic value from any context,
    /// a sleeping one (`GFP_KERNEL`) in process context only.
    ///
    /// # Errors
    ///
    /// `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_ATOMIC};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"a", 16)) }?;
    /// let a = pool.alloc(GFP_ATOMIC)?;
    /// let b = pool.alloc(GFP_ATOMIC)?;
    /// assert_ne!(a.dma_handle(), b.dma_handle());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_alloc")]
    pub fn alloc(&self, gfp: Gfp) -> Result<Block<'_>> {
        let mut dma: DmaAddr = 0;
        // SAFETY: `self.ptr` is a live pool (destroyed only in drop);
        // `dma` is a valid place for the handle.
        let vaddr = unsafe { sys::dmaguard_pool_alloc(self.ptr.as_ptr(), gfp.raw(), &mut dma) };
        let vaddr = NonNull::new(vaddr.cast::<u8>()).ok_or(Error::NoMem)?;
        Ok(Block {
            pool: self,
            vaddr,
            dma,
        })
    }

    /// Allocate one zeroed block: the Rust equivalent of the `static
    /// inline` `dmaguard_pool_zalloc()`, which bindgen cannot bind. It
    /// zeroes the block itself rather than adding `__GFP_ZERO`, whose value
    /// depends on the kernel's configuration.
    ///
    /// # Errors
    ///
    /// `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"z", 8)) }?;
    /// let b = pool.alloc_zeroed(GFP_KERNEL)?;
    /// assert_eq!(b.read_u64(0)?, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_zalloc")]
    pub fn alloc_zeroed(&self, gfp: Gfp) -> Result<Block<'_>> {
        let block = self.alloc(gfp)?;
        // SAFETY: the block was just allocated: `len()` bytes from `vaddr`
        // are ours, and neither the device nor any other thread has its
        // address yet.
        unsafe { ptr::write_bytes(block.vaddr.as_ptr(), 0, block.len()) };
        Ok(block)
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
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"s", 8)) }?;
    /// let _b = pool.alloc(GFP_KERNEL)?;
    /// assert_eq!(pool.stats()?.blocks_in_use, 1);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_get_stats")]
    pub fn stats(&self) -> Result<PoolStats> {
        // SAFETY: the stats struct is plain integers: all-zero is valid.
        let mut st: PoolStats = unsafe { core::mem::zeroed() };
        st.sz = core::mem::size_of::<PoolStats>() as u32;
        // SAFETY: `self.ptr` is a live pool; `st` is a zeroed struct with
        // `sz` set, as the call requires.
        Error::from_ret(unsafe { sys::dmaguard_pool_get_stats(self.ptr.as_ptr(), &mut st) })?;
        Ok(st)
    }

    /// Hand a raw (CPU address, DMA address) pair back to the pool
    /// (`dmaguard_pool_free()`), e.g. one a [`Block::into_raw`] gave out.
    ///
    /// The C side checks every free by address arithmetic, without
    /// touching the memory: a pair that is not a live block of this pool
    /// (foreign, interior, wrong DMA address, already free) is reported,
    /// counted in the stats (`bad_free_*`) and not applied.
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
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"f", 8)) }?;
    /// let (vaddr, dma) = pool.alloc(GFP_KERNEL)?.into_raw();
    /// // SAFETY: the pair is no longer held by a Block, and no device has it.
    /// unsafe { pool.free_raw(vaddr.as_ptr(), dma) };
    /// assert_eq!(pool.stats()?.blocks_in_use, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pool_free")]
    pub unsafe fn free_raw(&self, vaddr: *mut u8, dma: DmaAddr) {
        // SAFETY: `self.ptr` is a live pool; the pair is checked by the C
        // side and, by the caller's promise, owned by no one else.
        unsafe { sys::dmaguard_pool_free(self.ptr.as_ptr(), vaddr.cast(), dma) }
    }
}

impl Drop for Pool {
    /// Destroy the pool (`dmaguard_pool_destroy()`). No [`Block`] can be
    /// alive (they borrow the pool); blocks given out by
    /// [`Block::into_raw`] and never freed are reported by the C side and
    /// their chunks leaked, as it does for C drivers.
    ///
    /// Context: process context; may sleep.
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is a live pool, and no other call on it can
        // run or follow: `&mut self`, and no `Block` borrows it.
        unsafe { sys::dmaguard_pool_destroy(self.ptr.as_ptr()) }
    }
}

/// One block of a [`Pool`]: device-visible memory, freed when dropped.
///
/// It borrows its pool, so it cannot outlive it. Its memory is shared with
/// the device, so this type never makes a Rust reference to it: reads and
/// writes are volatile accesses through raw pointers, and writes need
/// `&mut self`.
///
/// ```
/// use dmaguard::pool::{Pool, PoolOptions};
/// use dmaguard::user::{device, GFP_KERNEL};
/// // SAFETY: the userspace build's device lives forever.
/// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"desc", 16)) }?;
/// let mut desc = pool.alloc_zeroed(GFP_KERNEL)?;
/// desc.write_u64(0, 0x1000)?;
/// desc.write(8, b"abcd")?;
/// let mut buf = [0u8; 4];
/// desc.read(8, &mut buf)?;
/// assert_eq!(&buf, b"abcd");
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub struct Block<'a> {
    pool: &'a Pool,
    vaddr: NonNull<u8>,
    dma: DmaAddr,
}

// SAFETY: a block is freed through its pool, which allows frees from any
// thread (`Pool: Sync`); its memory is accessed only through volatile
// raw-pointer accesses, writes through `&mut self`.
unsafe impl Send for Block<'_> {}
// SAFETY: `&Block` only allows volatile reads and reading the addresses.
unsafe impl Sync for Block<'_> {}

impl Block<'_> {
    /// The DMA address to give the device.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions { align: 64, ..PoolOptions::new(c"d", 64) }) }?;
    /// assert_eq!(pool.alloc(GFP_KERNEL)?.dma_handle() % 64, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn dma_handle(&self) -> DmaAddr {
        self.dma
    }

    /// Bytes in the block: the pool's block size.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"l", 5)) }?;
    /// assert_eq!(pool.alloc(GFP_KERNEL)?.len(), 5);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.pool.block_size
    }

    /// Always false: a block has at least one byte.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"e", 1)) }?;
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
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions { align: 8, ..PoolOptions::new(c"p", 8) }) }?;
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
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"r", 8)) }?;
    /// let (vaddr, dma) = pool.alloc(GFP_KERNEL)?.into_raw();
    /// assert_eq!(pool.stats()?.blocks_in_use, 1);
    /// // SAFETY: the pair is held by no Block and no device.
    /// unsafe { pool.free_raw(vaddr.as_ptr(), dma) };
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn into_raw(self) -> (NonNull<u8>, DmaAddr) {
        let pair = (self.vaddr, self.dma);
        core::mem::forget(self);
        pair
    }

    /// The in-block pointer to `n` bytes at `offset` aligned for `align`,
    /// or `Error::Inval` when they do not fit or are misaligned.
    fn at(&self, offset: usize, n: usize, align: usize) -> Result<*mut u8> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len() => {}
            _ => return Err(Error::Inval),
        }
        // `offset < len()`, so the pointer stays inside the block.
        let p = self.vaddr.as_ptr().wrapping_add(offset);
        // `align` is a power of two (an alignment).
        if (p as usize) & (align - 1) != 0 {
            return Err(Error::Inval);
        }
        Ok(p)
    }

    /// One volatile load of an integer `T` at `offset` (private: `T` is
    /// only ever `u32` or `u64`, for which every bit pattern is valid).
    fn load<T: Copy>(&self, offset: usize) -> Result<T> {
        let p = self.at(
            offset,
            core::mem::size_of::<T>(),
            core::mem::align_of::<T>(),
        )?;
        // SAFETY: inside the live block and aligned (`at()`); any bits are
        // a valid integer.
        Ok(unsafe { ptr::read_volatile(p.cast::<T>()) })
    }

    /// One volatile store of an integer `T` at `offset`.
    fn store<T: Copy>(&mut self, offset: usize, val: T) -> Result {
        let p = self.at(
            offset,
            core::mem::size_of::<T>(),
            core::mem::align_of::<T>(),
        )?;
        // SAFETY: inside the live block and aligned (`at()`); `&mut self`
        // keeps other writers of this layer out.
        unsafe { ptr::write_volatile(p.cast::<T>(), val) };
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
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"rd", 4)) }?;
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
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"wr", 4)) }?;
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

    /// One volatile, naturally aligned 32-bit load at `offset` (native
    /// byte order).
    ///
    /// # Errors
    ///
    /// `Error::Inval` when it does not fit the block or is misaligned.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions { align: 8, ..PoolOptions::new(c"r32", 8) }) }?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write_u32(4, 7)?;
    /// assert_eq!(b.read_u32(4)?, 7);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn read_u32(&self, offset: usize) -> Result<u32> {
        self.load(offset)
    }

    /// One volatile, naturally aligned 32-bit store at `offset`.
    ///
    /// # Errors
    ///
    /// `Error::Inval` when it does not fit the block or is misaligned.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions { align: 4, ..PoolOptions::new(c"w32", 4) }) }?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write_u32(0, 0xdead_beef)?;
    /// assert!(b.write_u32(1, 0).is_err());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn write_u32(&mut self, offset: usize, val: u32) -> Result {
        self.store(offset, val)
    }

    /// One volatile, naturally aligned 64-bit load at `offset`.
    ///
    /// # Errors
    ///
    /// `Error::Inval` when it does not fit the block or is misaligned.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions { align: 8, ..PoolOptions::new(c"r64", 16) }) }?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write_u64(8, u64::MAX)?;
    /// assert_eq!(b.read_u64(8)?, u64::MAX);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn read_u64(&self, offset: usize) -> Result<u64> {
        self.load(offset)
    }

    /// One volatile, naturally aligned 64-bit store at `offset`.
    ///
    /// # Errors
    ///
    /// `Error::Inval` when it does not fit the block or is misaligned.
    ///
    /// ```
    /// use dmaguard::pool::{Pool, PoolOptions};
    /// use dmaguard::user::{device, GFP_KERNEL};
    /// // SAFETY: the userspace build's device lives forever.
    /// let pool = unsafe { Pool::new(device(), &PoolOptions { align: 8, ..PoolOptions::new(c"w64", 8) }) }?;
    /// let mut b = pool.alloc(GFP_KERNEL)?;
    /// b.write_u64(0, 1)?;
    /// assert!(b.write_u64(8, 1).is_err());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn write_u64(&mut self, offset: usize, val: u64) -> Result {
        self.store(offset, val)
    }
}

impl Drop for Block<'_> {
    /// Free the block (`dmaguard_pool_free()`).
    ///
    /// Context: any, but hard interrupt context on PREEMPT_RT (the pool's
    /// lock sleeps there), as for `dmaguard_pool_free()`.
    fn drop(&mut self) {
        // SAFETY: the pair is a live block of `self.pool` (alive: it is
        // borrowed), owned by `self` alone and freed once, here.
        unsafe {
            sys::dmaguard_pool_free(self.pool.ptr.as_ptr(), self.vaddr.as_ptr().cast(), self.dma)
        }
    }
}
