// SPDX-License-Identifier: GPL-2.0
// Writing device memory through a shared borrow of its block.
// expect: E0596
// expect-message: cannot borrow `*shared` as mutable, as it is behind a `&` reference
use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() {
    let pool = Pool::new(&device(), &PoolOptions::new(c"p", 8)).unwrap();
    let block = pool.alloc(GFP_KERNEL).unwrap();
    let shared = &block;
    shared.write_as::<u32>(0, 1).unwrap();
}
