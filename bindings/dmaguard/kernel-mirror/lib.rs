// SPDX-License-Identifier: GPL-2.0
//! The safe layer the way a kernel module includes it: the shared files as
//! modules of the module's own `no_std` crate, the raw bindings as a plain
//! module `sys` (no `dmaguard-sys` crate, no cargo, no `std`). Compiled by
//! scripts/bindings/rust-check.sh with Debian's rustc (the kernel's), in
//! edition 2021 as Kbuild does, with the kernel's main Rust lints.
//!
//! `mod dmaguard` is bindings/dmaguard/kmod.rs, the very file a kernel
//! module names (tests/consumers/rust-driver/ does).
#![no_std]

#[path = "../kmod.rs"]
pub mod dmaguard;

use dmaguard::dma::Plain;

crate::dma_descriptor! {
    /// A ring entry, as a driver declares it.
    pub struct Desc {
        /// Bus address of the data.
        pub buf: u64,
        /// Bytes.
        pub len: u32,
        /// 1: owned by the device.
        pub own: u32,
    }
}

/// What a driver keeps: its pool, the ring allocated from it, a pin cache.
pub struct Driver {
    pool: dmaguard::pool::Pool,
    ring: [dmaguard::pool::Block; 2],
    cache: dmaguard::pin::PinCache,
}

impl Driver {
    /// Probe: the pool, the ring and the cache, kept together.
    ///
    /// # Safety
    ///
    /// `dev` is a live DMA-capable device the caller holds a reference on.
    pub unsafe fn probe(
        dev: *mut dmaguard::sys::device,
        gfp_kernel: u32,
    ) -> dmaguard::error::Result<Self> {
        use dmaguard::gfp::Gfp;
        // SAFETY: as the caller promised.
        let dev = unsafe { dmaguard::device::Device::from_raw(dev) }
            .ok_or(dmaguard::error::Error::Inval)?;
        let pool = dmaguard::pool::Pool::for_type::<Desc>(&dev, c"ring")?;
        let ring = [
            pool.alloc_zeroed(Gfp(gfp_kernel))?,
            pool.alloc_zeroed(Gfp(gfp_kernel))?,
        ];
        let cache =
            dmaguard::pin::PinCache::with_device(&dev, &dmaguard::pin::PinOptions::default())?;
        Ok(Driver { pool, ring, cache })
    }

    /// Submit: pin a user buffer, fill a descriptor, then hand it over.
    pub fn submit(&mut self, slot: usize, ubuf: usize) -> dmaguard::error::Result<u64> {
        let pinned = self.cache.get(ubuf, 4096, true)?;
        let d = &mut self.ring[slot];
        crate::dma_write!(*d, Desc, buf, pinned.sgt_offset())?;
        crate::dma_write!(*d, Desc, len, 4096)?;
        dmaguard::dma::dma_wmb();
        crate::dma_write!(*d, Desc, own, 1)?;
        Ok(d.dma_handle())
    }

    /// Completion (another function, as an interrupt or work item is).
    pub fn complete(&self, slot: usize) -> dmaguard::error::Result<bool> {
        let done = crate::dma_read!(self.ring[slot], Desc, own)? == 0;
        dmaguard::dma::dma_rmb();
        Ok(done && self.pool.stats()?.blocks_in_use == 2)
    }
}
