// SPDX-License-Identifier: GPL-2.0
//! The userspace build's simulated kernel (`c-core/platform/user/`), for
//! tests and examples of the cargo crate: a device, the GFP values of the
//! simulated kernel, and a simulated address space a thread can make its
//! `current->mm`. Not part of the files a kernel module shares.

use core::ffi::{c_int, c_uint, c_ulong, c_void};
use core::ptr::{NonNull, addr_of_mut};

use super::device::Device;
use super::error::{Error, Result};
use super::gfp::Gfp;
use super::sys;

// The userspace platform (c-core/platform/user/dg_platform.h, dg_user.h,
// dg_user_mm.h).
unsafe extern "C" {
    static mut dg_user_dev: sys::device;
    fn dg_user_device_refs(dev: *const sys::device) -> core::ffi::c_long;
    fn dg_user_set_current_mm(mm: *mut c_void);
    fn dg_user_mm_create(nr_pages: c_ulong) -> *mut c_void;
    fn dg_user_mm_addr(page: c_ulong) -> c_ulong;
    fn dg_user_mm_map(mm: *mut c_void, addr: c_ulong, len: usize, prot: c_int) -> c_int;
    fn dg_user_mm_unmap(mm: *mut c_void, addr: c_ulong, len: usize) -> c_int;
    fn dg_user_mm_write(mm: *mut c_void, addr: c_ulong, buf: *const c_void, len: usize) -> c_int;
    fn dg_user_mm_read(mm: *mut c_void, addr: c_ulong, buf: *mut c_void, len: usize) -> c_int;
    fn dg_user_mm_frame(mm: *mut c_void, addr: c_ulong) -> *mut c_void;
    fn dg_user_run_work() -> c_uint;
}

/// `GFP_KERNEL` of the simulated kernel (`dg_platform.h`).
///
/// ```
/// assert_eq!(dmaguard::user::GFP_KERNEL.raw(), 0x01);
/// ```
pub const GFP_KERNEL: Gfp = Gfp(0x01);
/// `GFP_ATOMIC` of the simulated kernel.
///
/// ```
/// assert_eq!(dmaguard::user::GFP_ATOMIC.raw(), 0x02);
/// ```
pub const GFP_ATOMIC: Gfp = Gfp(0x02);
/// `GFP_NOWAIT` of the simulated kernel.
///
/// ```
/// assert_eq!(dmaguard::user::GFP_NOWAIT.raw(), 0x04);
/// ```
pub const GFP_NOWAIT: Gfp = Gfp(0x04);

/// A reference on the simulated kernel's one device, for pools and
/// device-bound caches.
///
/// ```
/// assert!(!dmaguard::user::device().as_ptr().is_null());
/// ```
pub fn device() -> Device {
    // Only the address of the C static is taken: nothing is read.
    let dev = addr_of_mut!(dg_user_dev);
    // SAFETY: the simulated device is a static: it lives forever.
    unsafe { Device::from_raw(dev) }.expect("a static is not NULL")
}

/// References held on the simulated device (`get_device()` less
/// `put_device()`), for tests of who holds it.
///
/// ```
/// let dev = dmaguard::user::device();
/// assert!(dmaguard::user::device_refs() >= 1);
/// # drop(dev);
/// ```
pub fn device_refs() -> i64 {
    // SAFETY: reads the counter of a static device.
    unsafe { dg_user_device_refs(addr_of_mut!(dg_user_dev)) as i64 }
}

/// Run the simulated kernel's queued work items (the pin caches' deferred
/// releases), as its workqueue would; the number run.
///
/// ```
/// assert_eq!(dmaguard::user::run_work(), 0);
/// ```
pub fn run_work() -> u32 {
    // SAFETY: takes no argument; runs what the caches queued.
    unsafe { dg_user_run_work() }
}

/// Protection of simulated pages (`enum dg_user_prot`).
///
/// ```
/// use dmaguard::user::Prot;
/// assert_ne!(Prot::Read, Prot::ReadWrite);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Prot {
    /// Mapped, no access: pins fail with `Error::Fault`.
    None = 1,
    /// Read-only: a write pin fails with `Error::Fault`.
    Read = 2,
    /// Read and write.
    ReadWrite = 3,
}

/// A simulated address space (`struct dg_user_mm`): pages from
/// `addr(0)`, each unmapped or mapped to a 4 KiB frame. It is never freed
/// (a cache keeps its mm alive, as the kernel's keeps the `mm_struct`), so
/// this handle is `Copy` and needs no lifetime.
///
/// ```
/// use dmaguard::user::{Mm, Prot};
/// let mm = Mm::new(2);
/// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
/// mm.write(mm.addr(0) + 1, b"hi")?;
/// let mut buf = [0u8; 2];
/// mm.read(mm.addr(0) + 1, &mut buf)?;
/// assert_eq!(&buf, b"hi");
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Mm {
    ptr: NonNull<c_void>,
}

// SAFETY: the simulated mm is never freed, and every dg_user_mm_* call
// takes the mm's own mutex.
unsafe impl Send for Mm {}
// SAFETY: as for Send.
unsafe impl Sync for Mm {}

impl Mm {
    /// A new address space of `nr_pages` pages, all unmapped.
    ///
    /// # Panics
    ///
    /// When the simulation cannot allocate it.
    ///
    /// ```
    /// let mm = dmaguard::user::Mm::new(16);
    /// assert_eq!(mm.addr(1) - mm.addr(0), 4096);
    /// ```
    pub fn new(nr_pages: usize) -> Mm {
        // SAFETY: plain allocation of the simulation.
        let p = unsafe { dg_user_mm_create(nr_pages as c_ulong) };
        Mm {
            ptr: NonNull::new(p).expect("dg_user_mm_create"),
        }
    }

    /// The user address of page `page`.
    ///
    /// ```
    /// let mm = dmaguard::user::Mm::new(1);
    /// assert_eq!(mm.addr(0) % 4096, 0);
    /// ```
    pub fn addr(&self, page: usize) -> usize {
        // SAFETY: arithmetic only.
        unsafe { dg_user_mm_addr(page as c_ulong) as usize }
    }

    /// Make this the calling thread's `current->mm` (each thread starts
    /// with none, as a kernel thread has none).
    ///
    /// ```
    /// dmaguard::user::Mm::new(1).enter();
    /// ```
    pub fn enter(&self) {
        // SAFETY: the mm lives forever; the C side stores the pointer in a
        // thread-local variable.
        unsafe { dg_user_set_current_mm(self.ptr.as_ptr()) }
    }

    /// mmap(MAP_FIXED) of fresh zeroed frames with `prot`.
    ///
    /// # Errors
    ///
    /// `Error::Inval` for a range outside the address space.
    ///
    /// ```
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// assert!(mm.map(mm.addr(0), 4096, Prot::Read).is_ok());
    /// assert!(mm.map(mm.addr(1), 4096, Prot::Read).is_err());
    /// ```
    pub fn map(&self, addr: usize, len: usize, prot: Prot) -> Result {
        // SAFETY: the C side checks the range.
        Error::from_ret(unsafe {
            dg_user_mm_map(self.ptr.as_ptr(), addr as c_ulong, len, prot as c_int)
        })
    }

    /// munmap(): the notifiers of the range run first, as in the kernel.
    ///
    /// # Errors
    ///
    /// `Error::Inval` for a range outside the address space.
    ///
    /// ```
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::ReadWrite)?;
    /// mm.unmap(mm.addr(0), 4096)?;
    /// assert!(mm.frame(mm.addr(0)).is_null());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn unmap(&self, addr: usize, len: usize) -> Result {
        // SAFETY: the C side checks the range.
        Error::from_ret(unsafe { dg_user_mm_unmap(self.ptr.as_ptr(), addr as c_ulong, len) })
    }

    /// Store `data` at `addr` through the page table, as the process would.
    ///
    /// # Errors
    ///
    /// `Error::Fault` for an address that is not mapped writable.
    ///
    /// ```
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// assert!(mm.write(mm.addr(0), b"x").is_err());
    /// ```
    pub fn write(&self, addr: usize, data: &[u8]) -> Result {
        // SAFETY: `data` is valid for reads of its length; the C side
        // checks the user range.
        Error::from_ret(unsafe {
            dg_user_mm_write(
                self.ptr.as_ptr(),
                addr as c_ulong,
                data.as_ptr().cast(),
                data.len(),
            )
        })
    }

    /// Load `buf.len()` bytes at `addr` through the page table.
    ///
    /// # Errors
    ///
    /// `Error::Fault` for an address that is not mapped readable.
    ///
    /// ```
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// mm.map(mm.addr(0), 4096, Prot::Read)?;
    /// let mut b = [1u8; 4];
    /// mm.read(mm.addr(0), &mut b)?;
    /// assert_eq!(b, [0; 4]);
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn read(&self, addr: usize, buf: &mut [u8]) -> Result {
        // SAFETY: `buf` is valid for writes of its length; the C side
        // checks the user range.
        Error::from_ret(unsafe {
            dg_user_mm_read(
                self.ptr.as_ptr(),
                addr as c_ulong,
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        })
    }

    /// The frame mapped at `addr` now, as the `struct page *` a pin of it
    /// returns; NULL when unmapped.
    ///
    /// ```
    /// use dmaguard::user::{Mm, Prot};
    /// let mm = Mm::new(1);
    /// assert!(mm.frame(mm.addr(0)).is_null());
    /// mm.map(mm.addr(0), 4096, Prot::Read)?;
    /// assert!(!mm.frame(mm.addr(0)).is_null());
    /// # Ok::<(), dmaguard::error::Error>(())
    /// ```
    pub fn frame(&self, addr: usize) -> *mut sys::page {
        // SAFETY: a page table lookup of the simulation.
        unsafe { dg_user_mm_frame(self.ptr.as_ptr(), addr as c_ulong).cast() }
    }
}
