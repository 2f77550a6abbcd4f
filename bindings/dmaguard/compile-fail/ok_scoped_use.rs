// SPDX-License-Identifier: GPL-2.0
// The correct twin of every fixture here: the harness compiles this the
// same way, and it must compile (so a failing fixture fails for its own
// reason, not for the harness). A driver struct owning its pool and its
// ring, a block that outlives the pool handle, a plain descriptor.
// expect: ok
use dmaguard::dma::Plain;
use dmaguard::pin::{PinCache, PinOptions};
use dmaguard::pool::{Block, Pool};
use dmaguard::user::{GFP_KERNEL, device};

dmaguard::dma_descriptor! {
    pub struct Desc {
        pub buf: u64,
        pub len: u32,
        pub own: u32,
    }
}

pub struct Driver {
    pub pool: Pool,
    pub ring: Vec<Block>,
    pub cache: PinCache,
}

pub fn probe() -> Driver {
    let pool = Pool::for_type::<Desc>(&device(), c"p").unwrap();
    let ring = vec![pool.alloc_zeroed(GFP_KERNEL).unwrap()];
    let cache = PinCache::new(&PinOptions::default()).unwrap();
    Driver { pool, ring, cache }
}

pub fn outlives_handle() -> Block {
    let pool = Pool::for_type::<Desc>(&device(), c"p").unwrap();
    pool.alloc(GFP_KERNEL).unwrap()
}

pub fn submit(drv: &mut Driver, uaddr: usize) -> usize {
    let d = &mut drv.ring[0];
    dmaguard::dma_write!(*d, Desc, len, 4096).unwrap();
    dmaguard::dma::dma_wmb();
    dmaguard::dma_write!(*d, Desc, own, 1).unwrap();
    let pinned = drv.cache.get(uaddr, 4096, true).unwrap();
    pinned.pages().len()
}
