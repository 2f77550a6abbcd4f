// SPDX-License-Identifier: GPL-2.0
//! Safe, `no_std`, allocation-free Rust layer over dmaguard's public ABI:
//! hardened DMA pools ([`pool`]) and the pinned-page cache ([`pin`]).
//!
//! One source for two builds. The files `error.rs`, `gfp.rs`, `pool.rs` and
//! `pin.rs` refer to each other and to the raw bindings only through
//! `super::` paths, so a kernel module compiles the same files as modules
//! of its own crate, mirroring this layout:
//!
//! ```text
//! mod dmaguard {
//!     pub mod sys { /* bindings.rs + layout.rs of dmaguard-sys */ }
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
//! // SAFETY: the userspace build's device lives forever.
//! let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"ring", 64)) }?;
//! let mut desc = pool.alloc_zeroed(GFP_KERNEL)?;
//! desc.write_u64(0, desc.dma_handle())?;
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

pub mod error;
pub mod gfp;
pub mod pin;
pub mod pool;
pub mod user;
