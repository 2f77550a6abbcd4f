// SPDX-License-Identifier: GPL-2.0
// The correct twin of every fixture here: the harness compiles this the
// same way, and it must compile (so a failing fixture fails for its own
// reason, not for the harness).
// expect: ok
use dmaguard::pin::{PinCache, PinOptions};
use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f(uaddr: usize) -> usize {
    // SAFETY: the simulated device lives forever.
    let pool = unsafe { Pool::new(device(), &PoolOptions::new(c"p", 8)) }.unwrap();
    let mut block = pool.alloc(GFP_KERNEL).unwrap();
    block.write_u32(0, 1).unwrap();
    drop(block);
    drop(pool);
    let cache = PinCache::new(&PinOptions::default()).unwrap();
    let n = {
        let pinned = cache.get(uaddr, 4096, true).unwrap();
        pinned.pages().len()
    };
    drop(cache);
    n
}
