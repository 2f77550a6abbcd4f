// SPDX-License-Identifier: GPL-2.0
// A pool dropped (destroyed) while one of its blocks is alive.
// expect: E0505
use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() {
    // SAFETY: the simulated device lives forever.
    let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"p", 8)) }.unwrap();
    let block = pool.alloc(GFP_KERNEL).unwrap();
    drop(pool);
    drop(block);
}
