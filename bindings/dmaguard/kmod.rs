// SPDX-License-Identifier: GPL-2.0
//! The safe layer as a module of a Rust kernel module's own crate: the
//! same files the cargo crate `dmaguard` compiles (`src/lib.rs` is its
//! root there, this file is the root here), without the cargo-only
//! userspace simulation (`src/user.rs`).
//!
//! A kernel module takes it with one line, `bindings/` being reachable
//! from its source directory (a copy or a symlink):
//!
//! ```text
//! #[path = "bindings/dmaguard/kmod.rs"]
//! mod dmaguard;
//! ```
//!
//! at the crate's root and under that name: the macros of `dma.rs` name
//! the layer's functions by the path `$crate::dmaguard::pool`.
//!
//! Pointers to kernel types cross with casts: `sys::device`, `sys::page`
//! and `sys::sg_table` are dmaguard's opaque declarations of the kernel's
//! `struct device`, `struct page` and `struct sg_table`.
//!
//! Pools are counted with the kernel's own `kernel::sync::Arc` (module
//! `sync` below), and the macros of `dma.rs` (`dma_descriptor!`,
//! `dma_read!`, `dma_write!`) are exported at the root of the module's
//! crate: `crate::dma_read!`.

// A private module of the kernel module's crate: not every item is used.
#![allow(dead_code, unreachable_pub)]

/// The raw bindings, generated from the public headers (`make bindings`),
/// with the headers' layout pins as `const` asserts.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    missing_docs,
    clippy::all
)]
pub mod sys {
    include!("../dmaguard-sys/src/bindings.rs");
    include!("../dmaguard-sys/src/layout.rs");
}

/// The counted owner of a pool: the kernel's `Arc`.
pub mod sync {
    pub use kernel::sync::Arc;

    /// A new `Arc`, allocated with `GFP_KERNEL`: process context.
    pub fn new_arc<T>(v: T) -> super::error::Result<Arc<T>> {
        Arc::new(v, kernel::alloc::flags::GFP_KERNEL).map_err(|_| super::error::Error::NoMem)
    }
}

#[path = "src/device.rs"]
pub mod device;
#[path = "src/dma.rs"]
pub mod dma;
#[path = "src/error.rs"]
pub mod error;
#[path = "src/gfp.rs"]
pub mod gfp;
#[path = "src/pin.rs"]
pub mod pin;
#[path = "src/pool.rs"]
pub mod pool;
