// SPDX-License-Identifier: GPL-2.0
//! Safe, `no_std` Rust layer over dmaguard's public ABI: hardened DMA
//! pools ([`pool`]) with typed access to their blocks ([`dma`]), and the
//! pinned-page cache ([`pin`]). It allocates only the counted owner
//! (`Arc`) of each pool and cache.
//!
//! One source for two builds. The files `device.rs`, `dma.rs`, `error.rs`,
//! `gfp.rs`, `pool.rs` and `pin.rs` refer to each other, to the raw
//! bindings and to the build's `Arc` only through `super::` paths, so a
//! kernel module compiles the same files as modules of its own crate,
//! mirroring this layout (`kmod.rs`):
//!
//! ```text
//! mod dmaguard {
//!     pub mod sys { /* bindings.rs + layout.rs of dmaguard-sys */ }
//!     pub mod sync { /* kernel::sync::Arc; here: alloc's Arc */ }
//!     #[path = ".../device.rs"] pub mod device;
//!     #[path = ".../dma.rs"] pub mod dma;
//!     #[path = ".../error.rs"] pub mod error;
//!     #[path = ".../gfp.rs"] pub mod gfp;
//!     #[path = ".../pool.rs"] pub mod pool;
//!     #[path = ".../pin.rs"] pub mod pin;
//! }
//! ```
//!
//! The cargo crate (this file) adds [`user`], the userspace build's
//! simulated kernel, for tests and examples.
//!
//! ```
//! use dmaguard::pool::{Pool, PoolOptions};
//! use dmaguard::user::{device, GFP_KERNEL};
//! let pool = Pool::new(&device(), &PoolOptions::new(c"ring", 64))?;
//! let mut desc = pool.alloc_zeroed(GFP_KERNEL)?;
//! let dma = desc.dma_handle();
//! desc.write_as::<u64>(0, dma)?;
//! # Ok::<(), dmaguard::error::Error>(())
//! ```
#![no_std]

/// The raw bindings (`dmaguard-sys`): generated from the public headers.
///
/// ```
/// assert_eq!(core::mem::size_of::<dmaguard::sys::dmaguard_pool_opts>(), 48);
/// // SAFETY: no arguments, any context.
/// assert_eq!(unsafe { dmaguard::sys::dmaguard_version() } >> 16, dmaguard::sys::DMAGUARD_VERSION_MAJOR);
/// ```
pub use dmaguard_sys as sys;

extern crate alloc;

// `$crate::dmaguard::pool` in the macros of dma.rs names this crate's
// `pool` here and the `dmaguard` module of a kernel module's crate there
// (kmod.rs): one path for both roots.
#[doc(hidden)]
pub extern crate self as dmaguard;

/// The counted owner of a pool: `alloc`'s `Arc` in the cargo build, the
/// kernel's `kernel::sync::Arc` in a module (`kmod.rs`).
///
/// ```
/// let a = dmaguard::sync::new_arc(5)?;
/// assert_eq!(*a, 5);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
pub mod sync {
    pub use alloc::sync::Arc;

    /// A new `Arc` (this build's allocation never fails: it aborts).
    ///
    /// # Errors
    ///
    /// None here; `Error::NoMem` in a kernel module.
    pub fn new_arc<T>(v: T) -> super::error::Result<Arc<T>> {
        Ok(Arc::new(v))
    }
}

pub mod device;
pub mod dma;
pub mod error;
pub mod gfp;
pub mod pin;
pub mod pool;
pub mod user;
