// SPDX-License-Identifier: GPL-2.0
//! A counted reference on a `struct device` (`get_device()` /
//! `put_device()`): what a [`Pool`](super::pool::Pool) and a device-bound
//! [`PinCache`](super::pin::PinCache) hold, so that the device they
//! allocate and map for outlives them whatever the driver drops first.
//!
//! Shared with the kernel module build: the two calls are the driver
//! core's exports there and the userspace platform's counted stand-ins
//! (`c-core/platform/user/abi_user.c`) in the cargo build.

use core::ptr::NonNull;

use super::sys;

// The driver core's reference counting (<linux/device.h>), the same
// symbols in both builds.
unsafe extern "C" {
    fn get_device(dev: *mut sys::device) -> *mut sys::device;
    fn put_device(dev: *mut sys::device);
}

/// A counted reference on a device: cloned with `get_device()`, dropped
/// with `put_device()`.
///
/// ```
/// use dmaguard::user::{device, device_refs};
/// let dev = device();
/// let again = dev.clone();
/// assert_eq!(again.as_ptr(), dev.as_ptr());
/// assert!(device_refs() >= 2); // exact counts: tests/device_refs.rs
/// ```
pub struct Device {
    ptr: NonNull<sys::device>,
}

// SAFETY: a counted reference may be taken, used and dropped by any task;
// `put_device()` may be called from any context that may sleep, and the
// driver core serializes the release.
unsafe impl Send for Device {}
// SAFETY: `&Device` only reads the pointer and takes more references.
unsafe impl Sync for Device {}

impl Device {
    /// Take a new reference on `dev`; `None` for NULL.
    ///
    /// # Safety
    ///
    /// `dev` is NULL or points to a `struct device` on which the caller
    /// holds a reference (or that is otherwise alive) for the duration of
    /// the call, such as the device a probe was given.
    ///
    /// ```
    /// use dmaguard::device::Device;
    /// let dev = dmaguard::user::device();
    /// // SAFETY: `dev` holds a reference for the call.
    /// let same = unsafe { Device::from_raw(dev.as_ptr()) }.unwrap();
    /// assert_eq!(same.as_ptr(), dev.as_ptr());
    /// // SAFETY: NULL is allowed.
    /// assert!(unsafe { Device::from_raw(core::ptr::null_mut()) }.is_none());
    /// ```
    pub unsafe fn from_raw(dev: *mut sys::device) -> Option<Device> {
        let ptr = NonNull::new(dev)?;
        // SAFETY: `dev` is a live device, as the caller promised.
        unsafe { get_device(ptr.as_ptr()) };
        Some(Device { ptr })
    }

    /// The device, for C calls; it stays referenced while `self` lives.
    ///
    /// ```
    /// assert!(!dmaguard::user::device().as_ptr().is_null());
    /// ```
    pub fn as_ptr(&self) -> *mut sys::device {
        self.ptr.as_ptr()
    }
}

impl Clone for Device {
    fn clone(&self) -> Self {
        // SAFETY: `self` holds a reference: the device is alive.
        unsafe { get_device(self.ptr.as_ptr()) };
        Device { ptr: self.ptr }
    }
}

impl Drop for Device {
    /// Context: process context (the last put may release the device).
    fn drop(&mut self) {
        // SAFETY: gives back the reference `self` holds, once.
        unsafe { put_device(self.ptr.as_ptr()) };
    }
}
