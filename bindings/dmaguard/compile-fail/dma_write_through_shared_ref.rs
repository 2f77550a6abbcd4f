// SPDX-License-Identifier: GPL-2.0
// dma_write! through a shared borrow of its block: a descriptor store
// needs the block borrowed mutably.
// expect: E0596
// expect-message: cannot borrow `*shared` as mutable, as it is behind a `&` reference
use dmaguard::dma::Plain;
use dmaguard::pool::Pool;
use dmaguard::user::{GFP_KERNEL, device};

dmaguard::dma_descriptor! {
    pub struct Desc {
        pub a: u64,
    }
}

pub fn f() {
    let pool = Pool::for_type::<Desc>(&device(), c"p").unwrap();
    let block = pool.alloc_zeroed(GFP_KERNEL).unwrap();
    let shared = &block;
    dmaguard::dma_write!(*shared, Desc, a, 1).unwrap();
}
