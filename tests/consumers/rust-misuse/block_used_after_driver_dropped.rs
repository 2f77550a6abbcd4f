// SPDX-License-Identifier: GPL-2.0
// expect: E0505

//! A ring block used after its driver struct was dropped.
//! scripts/abi/consumers.sh builds this module against the CONFIG_RUST
//! kernel and passes only when rustc refuses it with exactly this error.

use kernel::prelude::*;

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

module! {
    type: Misuse,
    name: "dg_misuse_after_driver",
    author: "dmaguard developers",
    description: "must not compile: A ring block used after its driver struct was dropped.",
    license: "GPL",
}

struct Misuse;

use dmaguard::device::Device;
use dmaguard::gfp::Gfp;
use dmaguard::pool::{Block, Pool};

struct Driver {
    _pool: Pool,
    ring: KVec<Block>,
}

impl kernel::Module for Misuse {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: NULL is allowed (None), never dereferenced.
        let dev = unsafe { Device::from_raw(core::ptr::null_mut()) }.ok_or(ENODEV)?;
        let pool = Pool::create(&dev, c"m", 32, 0, 0).map_err(|_| EINVAL)?;
        let mut ring = KVec::new();
        let block = pool
            .alloc(Gfp(kernel::bindings::GFP_KERNEL))
            .map_err(|_| ENOMEM)?;
        ring.push(block, GFP_KERNEL)?;
        let drv = Driver { _pool: pool, ring };
        let desc = &drv.ring[0];
        drop(drv);
        pr_info!("{}\n", desc.dma_handle());
        Ok(Misuse)
    }
}
