// SPDX-License-Identifier: GPL-2.0
// expect: E0597

//! A block kept past the end of its pool.
//! scripts/abi/consumers.sh builds this module against the CONFIG_RUST
//! kernel and passes only when rustc refuses it with exactly this error.

use kernel::bindings;
use kernel::prelude::*;

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

use dmaguard::gfp::Gfp;

module! {
    type: Misuse,
    name: "dg_misuse_block_outlives",
    author: "dmaguard developers",
    description: "must not compile: A block kept past the end of its pool.",
    license: "GPL",
}

struct Misuse;

impl kernel::Module for Misuse {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let block;
        {
            // SAFETY: NULL is refused by dmaguard (Err), never dereferenced.
            let pool =
                unsafe { dmaguard::pool::Pool::create(core::ptr::null_mut(), c"m", 32, 0, 0) }
                    .map_err(|_| EINVAL)?;
            block = pool.alloc(Gfp(bindings::GFP_KERNEL)).map_err(|_| ENOMEM)?;
        }
        drop(block);
        Ok(Misuse)
    }
}
