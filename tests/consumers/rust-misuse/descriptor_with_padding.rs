// SPDX-License-Identifier: GPL-2.0
// expect: E0080
// expect-message: Padded has padding: reorder or pad its fields explicitly

//! A descriptor with padding (3 bytes after flags).
//! scripts/abi/consumers.sh builds this module against the CONFIG_RUST
//! kernel and passes only when rustc refuses it with exactly this error.

use kernel::prelude::*;

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

module! {
    type: Misuse,
    name: "dg_misuse_padding",
    author: "dmaguard developers",
    description: "must not compile: A descriptor with padding (3 bytes after flags).",
    license: "GPL",
}

struct Misuse;

use dmaguard::dma::Plain;

crate::dma_descriptor! {
    struct Padded {
        flags: u8,
        len: u32,
    }
}

impl kernel::Module for Misuse {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("{}\n", core::mem::size_of::<Padded>());
        Ok(Misuse)
    }
}
