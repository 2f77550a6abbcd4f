// SPDX-License-Identifier: GPL-2.0
// expect: E0505

//! A pool dropped while one of its blocks is alive.
//! scripts/abi/consumers.sh builds this module against the CONFIG_RUST
//! kernel and passes only when rustc refuses it with exactly this error.

use kernel::bindings;
use kernel::prelude::*;

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

use dmaguard::gfp::Gfp;

module! {
    type: Misuse,
    name: "dg_misuse_drop_pool",
    author: "dmaguard developers",
    description: "must not compile: A pool dropped while one of its blocks is alive.",
    license: "GPL",
}

struct Misuse;

impl kernel::Module for Misuse {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: NULL is refused by dmaguard (Err), never dereferenced.
        let pool = unsafe { dmaguard::pool::Pool::create(core::ptr::null_mut(), c"m", 32, 0, 0) }
            .map_err(|_| EINVAL)?;
        let block = pool.alloc(Gfp(bindings::GFP_KERNEL)).map_err(|_| ENOMEM)?;
        drop(pool);
        drop(block);
        Ok(Misuse)
    }
}
