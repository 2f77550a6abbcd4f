// SPDX-License-Identifier: GPL-2.0
//! Errors of dmaguard's calls: the kernel's errno values as an enum.
//!
//! Shared with the kernel module build: refers to nothing but `core::`
//! (see `lib.rs` for the module layout both builds use).

use core::fmt;
use core::ptr::NonNull;

/// The errno values dmaguard's public calls return (the asm-generic
/// numbers, the same in the kernel and in the userspace build).
const EINVAL: i32 = 22;
const E2BIG: i32 = 7;
const ENOMEM: i32 = 12;
const EFAULT: i32 = 14;
const EAGAIN: i32 = 11;
const ENOSPC: i32 = 28;
const EOVERFLOW: i32 = 75;
/// Error pointers hold `-MAX_ERRNO..=-1` (`include/linux/err.h`).
const MAX_ERRNO: usize = 4095;

/// A failed dmaguard call, by the errno it returned.
///
/// ```
/// use dmaguard::error::Error;
/// assert_eq!(Error::from_errno(-22), Error::Inval);
/// assert_eq!(Error::TooBig.to_errno(), -7);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// `-EINVAL`: an argument, a geometry or a struct size is invalid.
    Inval,
    /// `-E2BIG`: a struct larger than the module knows with a non-zero
    /// unknown part, or a range larger than a pin cache's byte budget.
    TooBig,
    /// `-ENOMEM`: no memory (for pins, also over `RLIMIT_MEMLOCK`).
    NoMem,
    /// `-EFAULT`: an address the caller's address space cannot pin.
    Fault,
    /// `-EAGAIN`: invalidations kept racing a pin.
    Again,
    /// `-ENOSPC`: the entries in use fill a pin cache's budget.
    NoSpc,
    /// `-EOVERFLOW`: a range that wraps around the address space.
    Overflow,
    /// Any other errno, negative as the C calls return it.
    Other(i32),
}

impl Error {
    /// The error of an errno, negative as C returns it (a positive one is
    /// read the same way).
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// assert_eq!(Error::from_errno(-12), Error::NoMem);
    /// assert_eq!(Error::from_errno(12), Error::NoMem);
    /// assert_eq!(Error::from_errno(-5), Error::Other(-5));
    /// ```
    pub const fn from_errno(errno: i32) -> Error {
        let e = if errno < 0 {
            errno.wrapping_neg()
        } else {
            errno
        };
        match e {
            EINVAL => Error::Inval,
            E2BIG => Error::TooBig,
            ENOMEM => Error::NoMem,
            EFAULT => Error::Fault,
            EAGAIN => Error::Again,
            ENOSPC => Error::NoSpc,
            EOVERFLOW => Error::Overflow,
            _ => Error::Other(e.wrapping_neg()),
        }
    }

    /// The negative errno, as a kernel function returns it.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// assert_eq!(Error::Fault.to_errno(), -14);
    /// assert_eq!(Error::Other(-5).to_errno(), -5);
    /// ```
    pub const fn to_errno(self) -> i32 {
        match self {
            Error::Inval => -EINVAL,
            Error::TooBig => -E2BIG,
            Error::NoMem => -ENOMEM,
            Error::Fault => -EFAULT,
            Error::Again => -EAGAIN,
            Error::NoSpc => -ENOSPC,
            Error::Overflow => -EOVERFLOW,
            Error::Other(e) => e,
        }
    }

    /// `Ok(())` for a C return value of 0, the error of a negative one.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// assert_eq!(Error::from_ret(0), Ok(()));
    /// assert_eq!(Error::from_ret(-28), Err(Error::NoSpc));
    /// ```
    pub const fn from_ret(ret: i32) -> Result {
        if ret == 0 {
            Ok(())
        } else {
            Err(Error::from_errno(ret))
        }
    }

    /// A pointer returned by a C call that returns error pointers (never
    /// NULL): `Ok` with it, or the errno it encodes. NULL, which such a
    /// call does not return, is read as `Error::Inval`.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// let p = (-12isize) as *mut u8;
    /// assert_eq!(Error::from_err_ptr(p), Err(Error::NoMem));
    /// let mut x = 0u8;
    /// assert!(Error::from_err_ptr(&mut x as *mut u8).is_ok());
    /// ```
    pub fn from_err_ptr<T>(ptr: *mut T) -> Result<NonNull<T>> {
        let v = ptr as usize;
        if v > usize::MAX - MAX_ERRNO {
            // -MAX_ERRNO..=-1: fits an i32.
            Err(Error::from_errno(v as isize as i32))
        } else {
            NonNull::new(ptr).ok_or(Error::Inval)
        }
    }
}

impl fmt::Display for Error {
    /// The errno's name, e.g. `EINVAL`.
    ///
    /// ```
    /// use dmaguard::error::Error;
    /// // In a no_std build, write it with core::fmt::Write.
    /// # extern crate std;
    /// assert_eq!(std::format!("{}", Error::Inval), "EINVAL");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Inval => f.write_str("EINVAL"),
            Error::TooBig => f.write_str("E2BIG"),
            Error::NoMem => f.write_str("ENOMEM"),
            Error::Fault => f.write_str("EFAULT"),
            Error::Again => f.write_str("EAGAIN"),
            Error::NoSpc => f.write_str("ENOSPC"),
            Error::Overflow => f.write_str("EOVERFLOW"),
            Error::Other(e) => write!(f, "errno {}", e),
        }
    }
}

/// The result of a dmaguard call.
///
/// ```
/// use dmaguard::error::{Error, Result};
/// fn check(len: usize) -> Result<usize> {
///     if len == 0 { Err(Error::Inval) } else { Ok(len) }
/// }
/// assert_eq!(check(0), Err(Error::Inval));
/// ```
pub type Result<T = ()> = core::result::Result<T, Error>;
