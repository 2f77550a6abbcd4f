// SPDX-License-Identifier: GPL-2.0
// A block kept past the scope of its pool.
// expect: E0597
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() {
    let block: Block<'_>;
    {
        // SAFETY: the simulated device lives forever.
        let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"p", 8)) }.unwrap();
        block = pool.alloc(GFP_KERNEL).unwrap();
    }
    drop(block);
}
