// SPDX-License-Identifier: GPL-2.0
//! The part of the kernel's `kernel` crate (6.12) that `kmod.rs` uses, with
//! the kernel's signatures, so that the kernel mirror (lib.rs) type-checks
//! without a kernel tree: `kernel::sync::Arc` and `kernel::alloc::flags`.
//! The real crate is what tests/consumers/rust-driver builds against.
#![no_std]

extern crate alloc as rust_alloc;

/// `kernel::alloc`: allocation flags and the allocation error.
pub mod alloc {
    /// `kernel::alloc::AllocError`.
    #[derive(Debug)]
    pub struct AllocError;

    /// `kernel::alloc::Flags`: a `gfp_t`.
    #[derive(Clone, Copy, Debug)]
    pub struct Flags(pub u32);

    /// `kernel::alloc::flags`.
    pub mod flags {
        /// `GFP_KERNEL` (the value does not matter here).
        pub const GFP_KERNEL: super::Flags = super::Flags(0);
    }
}

/// `kernel::sync`: the kernel's `Arc`.
pub mod sync {
    use core::ops::Deref;

    /// `kernel::sync::Arc`: `new()` is fallible and takes flags.
    pub struct Arc<T: ?Sized>(rust_alloc::sync::Arc<T>);

    impl<T> Arc<T> {
        /// `Arc::new(contents, flags)`.
        ///
        /// # Errors
        ///
        /// Never here; `AllocError` in the kernel.
        pub fn new(
            contents: T,
            _flags: crate::alloc::Flags,
        ) -> Result<Self, crate::alloc::AllocError> {
            Ok(Arc(rust_alloc::sync::Arc::new(contents)))
        }
    }

    impl<T: ?Sized> Clone for Arc<T> {
        fn clone(&self) -> Self {
            Arc(self.0.clone())
        }
    }

    impl<T: ?Sized> Deref for Arc<T> {
        type Target = T;

        fn deref(&self) -> &T {
            &self.0
        }
    }
}
