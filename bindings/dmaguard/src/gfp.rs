// SPDX-License-Identifier: GPL-2.0
//! Allocation flags, as the caller's kernel defines them.
//!
//! The values of `GFP_KERNEL`, `GFP_ATOMIC` and `__GFP_ZERO` depend on the
//! kernel's version and configuration, so this layer names none: the
//! caller passes its own (a kernel module: `bindings::GFP_KERNEL` of the
//! `kernel` crate; userspace: the simulated kernel's, see
//! `dmaguard::user` in the cargo crate). Shared with the kernel module
//! build: refers to nothing but `super::` and `core::`.

/// Raw `gfp_t` flags for an allocation.
///
/// ```
/// use dmaguard::gfp::Gfp;
/// let flags = Gfp(0x01);
/// assert_eq!(flags.raw(), 0x01);
/// assert_eq!(Gfp::from_raw(0x01), flags);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gfp(pub super::sys::gfp_t);

impl Gfp {
    /// Flags from the raw value of the caller's kernel.
    ///
    /// ```
    /// use dmaguard::gfp::Gfp;
    /// assert_eq!(Gfp::from_raw(2).0, 2);
    /// ```
    pub const fn from_raw(raw: super::sys::gfp_t) -> Gfp {
        Gfp(raw)
    }

    /// The raw value, as C's `gfp_t`.
    ///
    /// ```
    /// use dmaguard::gfp::Gfp;
    /// assert_eq!(Gfp(4).raw(), 4);
    /// ```
    pub const fn raw(self) -> super::sys::gfp_t {
        self.0
    }
}
