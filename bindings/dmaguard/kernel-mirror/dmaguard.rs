// SPDX-License-Identifier: GPL-2.0
//! dmaguard, as a kernel module's `mod dmaguard` (in its own file, so that
//! `#[path]` and `include!` are relative to this file's directory).

/// The generated bindings and layout asserts, one plain module.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    dead_code,
    missing_docs,
    clippy::all
)]
pub mod sys {
    include!("../../dmaguard-sys/src/bindings.rs");
    include!("../../dmaguard-sys/src/layout.rs");
}
#[path = "../src/error.rs"]
pub mod error;
#[path = "../src/gfp.rs"]
pub mod gfp;
#[path = "../src/pin.rs"]
pub mod pin;
#[path = "../src/pool.rs"]
pub mod pool;
