// SPDX-License-Identifier: GPL-2.0
//! The pinned-page cache (`<dmaguard/pin.h>`): a [`PinCache`] of the
//! caller's address space, a counted handle whose C cache is destroyed
//! when the last handle and range are gone, and [`Pinned`] ranges that
//! hold their cache, put themselves back when dropped and expose their
//! pages (and DMA mapping) only while held.
//!
//! Shared with the kernel module build: refers to the raw bindings and the
//! other modules only through `super::` paths, and to nothing but `core::`.

use core::marker::PhantomData;
use core::ptr::NonNull;

use super::device::Device;
use super::error::{Error, Result};
use super::sync::{Arc, new_arc};
use super::sys;

/// A snapshot of a cache's counters (`struct dmaguard_pin_stats`).
///
/// ```
/// use dmaguard::pin::{PinCache, PinOptions, PinStats};
/// let mm = dmaguard::user::Mm::new(4);
/// mm.enter();
/// let cache = PinCache::new(&PinOptions::default())?;
/// let st: PinStats = cache.stats()?;
/// assert_eq!(st.entries, 0);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub type PinStats = sys::dmaguard_pin_stats;

/// How to create a pin cache: the fields of `struct dmaguard_pin_opts`.
///
/// ```
/// use dmaguard::pin::PinOptions;
/// let opts = PinOptions { max_entries: 64, ..PinOptions::default() };
/// assert_eq!(opts.max_bytes, 0);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct PinOptions {
    /// Budget of pinned bytes, 0 for none.
    pub max_bytes: u64,
    /// Budget of entries, 0 for none.
    pub max_entries: u32,
    /// NUMA node of the bookkeeping (`Some(-1)`: none); `None`: the
    /// device's.
    pub node: Option<i32>,
}

impl PinOptions {
    fn to_sys(self) -> sys::dmaguard_pin_opts {
        sys::dmaguard_pin_opts {
            sz: core::mem::size_of::<sys::dmaguard_pin_opts>() as u32,
            flags: if self.node.is_some() {
                sys::DMAGUARD_PIN_F_NODE
            } else {
                0
            },
            max_bytes: self.max_bytes,
            max_entries: self.max_entries,
            node: self.node.unwrap_or(0),
        }
    }
}

/// The pin cache of the caller's address space (`current->mm` at
/// creation): a counted handle, the C cache destroyed
/// (`dmaguard_pin_cache_destroy()`) when the last handle and the last
/// [`Pinned`] range are dropped.
///
/// `Send` and `Sync`: the C cache serializes its own state (a spinlock and
/// the mm's notifiers) and several tasks may get and put through one
/// cache concurrently. A get from a task of another address space is
/// refused by the C side (`Error::Fault`), whatever thread calls it.
///
/// ```
/// use dmaguard::pin::{PinCache, PinOptions};
/// use dmaguard::user::{Mm, Prot};
/// let mm = Mm::new(8);
/// mm.map(mm.addr(0), 8 * 4096, Prot::ReadWrite)?;
/// mm.enter();
/// let cache = PinCache::new(&PinOptions::default())?;
/// {
///     let p = cache.get(mm.addr(1) + 100, 5000, true)?;
///     assert_eq!((p.nr_pages(), p.offset()), (2, 100));
/// }
/// let again = cache.get(mm.addr(1), 4096, false)?;
/// assert_eq!(cache.stats()?.hits, 1);
/// # drop(again);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[doc(alias = "dmaguard_pin_cache_destroy")]
#[derive(Clone)]
pub struct PinCache {
    inner: Arc<PinInner>,
}

/// The C cache and its device: destroyed when the last [`PinCache`]
/// handle or [`Pinned`] range drops it.
struct PinInner {
    ptr: NonNull<sys::dmaguard_pin_cache>,
    // Put after the destroy (fields drop after `drop()`): the device
    // outlives every mapping the cache made for it.
    _dev: Option<Device>,
}

// SAFETY: the C cache is not tied to the creating task: any task may put
// and destroy, a get checks the caller's mm itself; its state is under its
// own lock.
unsafe impl Send for PinInner {}
// SAFETY: shared access allows get, put (through `Pinned`) and stats,
// which the C side allows concurrently (its spinlock; misses pin under the
// mm's lock and retry on racing invalidations).
unsafe impl Sync for PinInner {}

impl PinCache {
    /// A cache of the caller's address space whose entries are pinned
    /// pages only, not DMA-mapped (`dmaguard_pin_cache_create()` with no
    /// device). Process context, may sleep.
    ///
    /// # Errors
    ///
    /// `Error::Inval` (a task with no mm, an invalid node),
    /// `Error::NoMem`.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// dmaguard::user::Mm::new(1).enter();
    /// let cache = PinCache::new(&PinOptions { max_entries: 4, ..PinOptions::default() })?;
    /// # drop(cache);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pin_cache_create")]
    pub fn new(opts: &PinOptions) -> Result<PinCache> {
        PinCache::create(None, opts)
    }

    /// A cache of the caller's address space whose entries are also
    /// DMA-mapped for `dev` (`dmaguard_pin_cache_create()`). The cache
    /// holds a reference on the device while it lives.
    ///
    /// # Errors
    ///
    /// As for [`PinCache::new`].
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{device, Mm, Prot};
    /// let mm = Mm::new(2);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::with_device(&device(), &PinOptions::default())?;
    /// assert!(cache.get(mm.addr(0), 4096, true)?.sgt().is_some());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pin_cache_create")]
    pub fn with_device(dev: &Device, opts: &PinOptions) -> Result<PinCache> {
        PinCache::create(Some(dev), opts)
    }

    fn create(dev: Option<&Device>, opts: &PinOptions) -> Result<PinCache> {
        let o = opts.to_sys();
        let raw = dev.map_or(core::ptr::null_mut(), Device::as_ptr);
        // SAFETY: `o` is a complete struct whose `sz` is its size; `raw` is
        // NULL (pages only) or a live device (a reference is held, and the
        // cache keeps one until it is dropped).
        let p = unsafe { sys::dmaguard_pin_cache_create(raw, &o) };
        let inner = PinInner {
            ptr: Error::from_err_ptr(p)?,
            _dev: dev.cloned(),
        };
        Ok(PinCache {
            inner: new_arc(inner)?,
        })
    }

    /// The C handle, for calls this layer does not wrap; it stays owned by
    /// the handles and ranges of this cache.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// dmaguard::user::Mm::new(1).enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert!(!cache.as_ptr().is_null());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn as_ptr(&self) -> *mut sys::dmaguard_pin_cache {
        self.inner.ptr.as_ptr()
    }

    /// The pinned (and, for a cache with a device, mapped) pages of the
    /// user range `uaddr..uaddr + len` of the cache's address space
    /// (`dmaguard_pin_get()`); given back when the [`Pinned`] is dropped.
    /// Process context, in a task of the cache's address space; may sleep.
    ///
    /// # Errors
    ///
    /// `Error::Inval` (`len` 0), `Error::Overflow` (a wrapping range),
    /// `Error::Fault` (unmapped, `PROT_NONE`, read-only with `write`,
    /// kernel addresses, another address space), `Error::TooBig`,
    /// `Error::NoSpc`, `Error::NoMem`, `Error::Again`.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(4);
    /// mm.map(mm.addr(0), 4096, Prot::Read)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert_eq!(cache.get(mm.addr(0), 4096, true).err(), Some(Error::Fault));
    /// assert_eq!(cache.get(mm.addr(0), 4096, false)?.nr_pages(), 1);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pin_get")]
    pub fn get(&self, uaddr: usize, len: usize, write: bool) -> Result<Pinned> {
        // SAFETY: the handle struct is integers and nullable pointers:
        // all-zero is valid, and what the call expects besides `sz`.
        let mut pin: sys::dmaguard_pin = unsafe { core::mem::zeroed() };
        pin.sz = core::mem::size_of::<sys::dmaguard_pin>() as u32;
        // SAFETY: `self` keeps the cache alive; `pin` is zeroed with `sz`
        // set. The C side checks the range and the caller's address space
        // itself.
        let ret = unsafe {
            sys::dmaguard_pin_get(
                self.as_ptr(),
                uaddr as core::ffi::c_ulong,
                len,
                write,
                &mut pin,
            )
        };
        Error::from_ret(ret)?;
        Ok(Pinned {
            cache: self.clone(),
            pin,
            len,
        })
    }

    /// A snapshot of the cache's counters (`dmaguard_pin_cache_stats()`).
    ///
    /// # Errors
    ///
    /// None with this layer's struct size; an errno of the C call
    /// otherwise.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// let p = cache.get(mm.addr(0), 1, false)?;
    /// assert_eq!(cache.stats()?.handles, 1);
    /// drop(p);
    /// assert_eq!(cache.stats()?.handles, 0);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    #[doc(alias = "dmaguard_pin_cache_stats")]
    pub fn stats(&self) -> Result<PinStats> {
        // SAFETY: the stats struct is plain integers: all-zero is valid.
        let mut st: PinStats = unsafe { core::mem::zeroed() };
        st.sz = core::mem::size_of::<PinStats>() as u32;
        // SAFETY: `self` keeps the cache alive; `st` is zeroed with `sz`
        // set.
        Error::from_ret(unsafe { sys::dmaguard_pin_cache_stats(self.as_ptr(), &mut st) })?;
        Ok(st)
    }
}

impl Drop for PinInner {
    /// Release every entry, then the cache (`dmaguard_pin_cache_destroy()`),
    /// when the last handle and the last [`Pinned`] are gone.
    ///
    /// Context: process context; may sleep (it unpins and unmaps).
    fn drop(&mut self) {
        // SAFETY: `self.ptr` is a live cache and this is its last owner:
        // no get can follow and no handle is held (every `Pinned` holds a
        // `PinCache`, and a forgotten `Pinned` leaks its hold, so this
        // never runs then), so the cache is freed now.
        unsafe { sys::dmaguard_pin_cache_destroy(self.ptr.as_ptr()) };
    }
}

/// One get of a user range: its pages stay pinned (and mapped) until this
/// is dropped (`dmaguard_pin_put()`). It holds its cache, so a driver may
/// keep it in its own state until the device is done (a completion in
/// another function); what it exposes (pages, sg_table) borrows it, so it
/// is valid only while it is held.
///
/// ```
/// use dmaguard::pin::{PinCache, PinOptions};
/// use dmaguard::user::{Mm, Prot};
/// let mm = Mm::new(4);
/// mm.map(mm.addr(0), 4 * 4096, Prot::ReadWrite)?;
/// mm.enter();
/// let cache = PinCache::new(&PinOptions::default())?;
/// let p = cache.get(mm.addr(0) + 4000, 200, true)?;
/// assert_eq!(p.pages().len(), 2);
/// assert_eq!(p.pages()[0], mm.frame(mm.addr(0)));
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[doc(alias = "dmaguard_pin_put")]
pub struct Pinned {
    cache: PinCache,
    pin: sys::dmaguard_pin,
    len: usize,
}

// SAFETY: a put may run in any task (`dmaguard_pin_put()`: any context,
// any task); the cache it holds is `Send + Sync`.
unsafe impl Send for Pinned {}
// SAFETY: `&Pinned` only reads the handle's fields; the page array they
// point to does not change while the handle is held.
unsafe impl Sync for Pinned {}

impl Pinned {
    /// The pinned pages, from the one holding the range's first byte
    /// (`nr_pages()` of them); the array belongs to the cache.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(3);
    /// mm.map(mm.addr(0), 3 * 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// let p = cache.get(mm.addr(1), 8192, false)?;
    /// assert_eq!(p.pages()[1], mm.frame(mm.addr(2)));
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn pages(&self) -> &[*mut sys::page] {
        if self.pin.nr_pages == 0 || self.pin.pages.is_null() {
            return &[];
        }
        // SAFETY: a successful get points `pages` to `nr_pages` page
        // pointers owned by the cache entry, which stays pinned and
        // unchanged until our put; the slice borrows `self`, so it cannot
        // outlive the put in `drop`.
        unsafe { core::slice::from_raw_parts(self.pin.pages, self.pin.nr_pages as usize) }
    }

    /// Pages covering the range.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(2);
    /// mm.map(mm.addr(0), 2 * 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert_eq!(cache.get(mm.addr(0) + 4095, 2, false)?.nr_pages(), 2);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn nr_pages(&self) -> usize {
        self.pin.nr_pages as usize
    }

    /// Offset of the range's first byte in `pages()[0]`.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert_eq!(cache.get(mm.addr(0) + 12, 4, false)?.offset(), 12);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn offset(&self) -> usize {
        self.pin.offset as usize
    }

    /// Bytes of the range, as asked.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert_eq!(cache.get(mm.addr(0), 10, false)?.len(), 10);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: a get of 0 bytes fails.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert!(!cache.get(mm.addr(0), 1, false)?.is_empty());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// For a cache bound to a device, the DMA-mapped `sg_table` of the
    /// whole cached entry (kept only where transfers need no sync);
    /// `None` for an unbound cache or a device that needs syncs (swiotlb
    /// bounce buffering, non-coherent): map each transfer's pages then.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::new(&PinOptions::default())?;
    /// assert!(cache.get(mm.addr(0), 1, false)?.sgt().is_none());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn sgt(&self) -> Option<SgTable<'_>> {
        NonNull::new(self.pin.sgt).map(|ptr| SgTable {
            ptr,
            _held: PhantomData,
        })
    }

    /// Byte offset of the range's first byte within `sgt()`'s DMA-mapped
    /// area.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{device, Mm, Prot};
    /// let mm = Mm::new(2);
    /// mm.map(mm.addr(0), 2 * 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::with_device(&device(), &PinOptions::default())?;
    /// let _whole = cache.get(mm.addr(0), 8192, false)?;
    /// assert_eq!(cache.get(mm.addr(1) + 8, 8, false)?.sgt_offset(), 4096 + 8);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn sgt_offset(&self) -> u64 {
        self.pin.sgt_offset
    }
}

/// The DMA-mapped `sg_table` of a held range ([`Pinned::sgt`]): it borrows
/// the [`Pinned`] it came from, so it cannot be kept past the put.
///
/// Its segments are the kernel's `struct scatterlist`, whose layout
/// depends on the kernel's configuration: a driver walks them with its own
/// kernel's bindings from [`SgTable::as_ptr`].
///
/// ```
/// use dmaguard::pin::{PinCache, PinOptions};
/// use dmaguard::user::{device, Mm, Prot};
/// let mm = Mm::new(1);
/// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
/// mm.enter();
/// let cache = PinCache::with_device(&device(), &PinOptions::default())?;
/// let pinned = cache.get(mm.addr(0), 4096, true)?;
/// let sgt = pinned.sgt().expect("a device-bound cache maps its entries");
/// assert!(!sgt.as_ptr().is_null());
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SgTable<'a> {
    ptr: NonNull<sys::sg_table>,
    _held: PhantomData<&'a Pinned>,
}

impl SgTable<'_> {
    /// The kernel's `struct sg_table`. It stays mapped while the range is
    /// held, that is while this value can be used; a copy of the pointer
    /// kept longer dangles.
    ///
    /// ```
    /// use dmaguard::pin::{PinCache, PinOptions};
    /// use dmaguard::user::{device, Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.enter();
    /// let cache = PinCache::with_device(&device(), &PinOptions::default())?;
    /// let pinned = cache.get(mm.addr(0), 64, false)?;
    /// let again = cache.get(mm.addr(0), 4096, false)?;
    /// assert_eq!(pinned.sgt().map(|t| t.as_ptr()), again.sgt().map(|t| t.as_ptr()));
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn as_ptr(&self) -> *mut sys::sg_table {
        self.ptr.as_ptr()
    }
}

impl Drop for Pinned {
    /// Give the handle back (`dmaguard_pin_put()`).
    ///
    /// Context: the put itself never sleeps (a work item releases an entry
    /// invalidated meanwhile); but when this holds the last owner of its
    /// cache, the cache is destroyed here: process context, may sleep.
    fn drop(&mut self) {
        // SAFETY: `self.pin` is the handle of a successful get on
        // `self.cache` (alive: held), put once, here.
        unsafe { sys::dmaguard_pin_put(self.cache.as_ptr(), &mut self.pin) }
    }
}
