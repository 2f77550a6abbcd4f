// SPDX-License-Identifier: GPL-2.0
// A crate that forbids unsafe code reads and writes descriptor fields:
// the accessors' expansion holds no unsafe block of the caller's.
// expect: ok
#![forbid(unsafe_code)]
use dmaguard::dma::Plain;
use dmaguard::pool::Pool;
use dmaguard::user::{GFP_KERNEL, device};

dmaguard::dma_descriptor! {
    pub struct Desc {
        pub a: u64,
        pub b: u32,
        pub c: u32,
    }
}

pub fn f(pool: &Pool) -> dmaguard::error::Result<u32> {
    let mut d = pool.alloc_zeroed(GFP_KERNEL)?;
    dmaguard::dma_write!(d, Desc, b, 7)?;
    let _ = device();
    dmaguard::dma_read!(d, Desc, b)
}
