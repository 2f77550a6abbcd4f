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
//! Pointers to kernel types cross with casts: `sys::device`, `sys::page`
//! and `sys::sg_table` are dmaguard's opaque declarations of the kernel's
//! `struct device`, `struct page` and `struct sg_table`.

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

#[path = "src/error.rs"]
pub mod error;
#[path = "src/gfp.rs"]
pub mod gfp;
#[path = "src/pin.rs"]
pub mod pin;
#[path = "src/pool.rs"]
pub mod pool;
