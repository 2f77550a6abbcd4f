// SPDX-License-Identifier: GPL-2.0
// Freeing a block into another pool: a block is freed only by its drop,
// into its own pool; the one call that takes a pair is unsafe.
// expect: E0133
use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() {
    let a = Pool::new(&device(), &PoolOptions::new(c"a", 8)).unwrap();
    let b = Pool::new(&device(), &PoolOptions::new(c"b", 8)).unwrap();
    let (vaddr, dma) = a.alloc(GFP_KERNEL).unwrap().into_raw();
    b.free_raw(vaddr.as_ptr(), dma);
}
