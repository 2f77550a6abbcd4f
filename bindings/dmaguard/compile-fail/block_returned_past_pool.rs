// SPDX-License-Identifier: GPL-2.0
// A function returning a block of a pool that dies with it.
// expect: E0515
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() -> Block<'static> {
    // SAFETY: the simulated device lives forever.
    let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"p", 8)) }.unwrap();
    pool.alloc(GFP_KERNEL).unwrap()
}
