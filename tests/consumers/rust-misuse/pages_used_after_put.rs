// SPDX-License-Identifier: GPL-2.0
// expect: E0505
// expect-message: cannot move out of `pinned` because it is borrowed

//! The pages of a pinned range used after its put.
//! scripts/abi/consumers.sh builds this module against the CONFIG_RUST
//! kernel and passes only when rustc refuses it with exactly this error.

use kernel::prelude::*;

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

module! {
    type: Misuse,
    name: "dg_misuse_pages_after_put",
    author: "dmaguard developers",
    description: "must not compile: The pages of a pinned range used after its put.",
    license: "GPL",
}

struct Misuse;

impl kernel::Module for Misuse {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let opts = dmaguard::pin::PinOptions::default();
        let cache = dmaguard::pin::PinCache::new(&opts).map_err(|_| EINVAL)?;
        let pinned = cache.get(0x1000_0000, 4096, false).map_err(|_| EFAULT)?;
        let pages = pinned.pages();
        drop(pinned);
        pr_info!("{}\n", pages.len());
        Ok(Misuse)
    }
}
