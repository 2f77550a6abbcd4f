// SPDX-License-Identifier: GPL-2.0
// expect: E0597

//! A pinned range kept past the end of its pin cache.
//! scripts/abi/consumers.sh builds this module against the CONFIG_RUST
//! kernel and passes only when rustc refuses it with exactly this error.

use kernel::prelude::*;

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

module! {
    type: Misuse,
    name: "dg_misuse_pin_outlives",
    author: "dmaguard developers",
    description: "must not compile: A pinned range kept past the end of its pin cache.",
    license: "GPL",
}

struct Misuse;

impl kernel::Module for Misuse {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let pinned;
        {
            let opts = dmaguard::pin::PinOptions::default();
            let cache = dmaguard::pin::PinCache::new(&opts).map_err(|_| EINVAL)?;
            pinned = cache.get(0x1000_0000, 4096, false).map_err(|_| EFAULT)?;
        }
        drop(pinned);
        Ok(Misuse)
    }
}
