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

/// What a driver writes: a ring of descriptors from a pool, a user buffer
/// pinned through a cache.
///
/// # Safety
///
/// `dev` is a live DMA-capable device outliving the call.
pub unsafe fn ring_and_pin(
    dev: *mut dmaguard::sys::device,
    gfp_kernel: u32,
    ubuf: usize,
) -> dmaguard::error::Result<u64> {
    use dmaguard::gfp::Gfp;
    use dmaguard::pin::{PinCache, PinOptions};
    use dmaguard::pool::{Pool, PoolOptions};

    // SAFETY: as the caller promised.
    let pool = unsafe { Pool::new(dev, &PoolOptions::new(c"ring", 16)) }?;
    let mut desc = pool.alloc_zeroed(Gfp(gfp_kernel))?;
    let cache = PinCache::new(&PinOptions::default())?;
    let pinned = cache.get(ubuf, 4096, true)?;
    desc.write_u64(0, pinned.sgt_offset())?;
    desc.write_u32(8, pinned.nr_pages() as u32)?;
    Ok(desc.dma_handle())
}
