// SPDX-License-Identifier: GPL-2.0
// A block of the driver's ring used after the driver struct is dropped.
// expect: E0505
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub struct Driver {
    pub pool: Pool,
    pub ring: Vec<Block>,
}

pub fn f() -> u64 {
    let pool = Pool::new(&device(), &PoolOptions::new(c"p", 8)).unwrap();
    let ring = vec![pool.alloc(GFP_KERNEL).unwrap()];
    let drv = Driver { pool, ring };
    let desc = &drv.ring[0];
    drop(drv);
    desc.dma_handle()
}
