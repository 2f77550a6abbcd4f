// SPDX-License-Identifier: GPL-2.0
//! Who holds the device, and when the C pool is destroyed: the counters
//! of the userspace platform are global, so this binary has one test,
//! which runs alone.
//!
//! A pool and a device-bound pin cache each hold a reference on their
//! device for as long as they live; a pool lives until its last handle
//! and its last block are dropped, in whatever order a driver drops them.

use dmaguard::pin::{PinCache, PinOptions};
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, Mm, Prot, device, device_refs};

unsafe extern "C" {
    static dg_user_reports_err: core::ffi::c_ulong;
}

fn reports() -> u64 {
    // SAFETY: a plain read; this binary's only test runs alone.
    unsafe { core::ptr::addr_of!(dg_user_reports_err).read_volatile() }
}

/// A driver's private data: the pool before the ring, as drivers write it.
struct Driver {
    _pool: Pool,
    ring: Vec<Block>,
}

#[test]
fn device_held_while_pool_or_cache_lives() {
    let refs0 = device_refs();
    let reports0 = reports();
    let dev = device();
    let pool = Pool::new(&dev, &PoolOptions::new(c"refs", 64)).unwrap();
    let ring = (0..4).map(|_| pool.alloc(GFP_KERNEL).unwrap()).collect();
    let drv = Driver { _pool: pool, ring };
    // The caller's reference and the pool's.
    assert_eq!(device_refs(), refs0 + 2);
    drop(dev);
    assert_eq!(device_refs(), refs0 + 1, "the pool holds the device");

    // Struct fields drop in declaration order: the pool handle goes before
    // the ring. The blocks keep pool and device; the last one destroys the
    // pool (no block left in use, so nothing is reported) and puts the
    // device.
    let mut ring = {
        let Driver { _pool, ring } = drv;
        ring
    };
    assert_eq!(device_refs(), refs0 + 1);
    let last = ring.pop().unwrap();
    drop(ring);
    assert_eq!(last.pool().stats().unwrap().blocks_in_use, 1);
    assert_eq!(device_refs(), refs0 + 1);
    drop(last);
    assert_eq!(device_refs(), refs0, "the last block put the device");
    assert_eq!(reports(), reports0, "a clean destroy reports nothing");

    // The pin cache: the same.
    let mm = Mm::new(1);
    mm.map(mm.addr(0), 4096, Prot::ReadWrite).unwrap();
    mm.enter();
    let cache = PinCache::with_device(&device(), &PinOptions::default()).unwrap();
    assert_eq!(device_refs(), refs0 + 1, "the cache holds the device");
    drop(cache.get(mm.addr(0), 4096, true).unwrap());
    drop(cache);
    assert_eq!(device_refs(), refs0);
    let pages_only = PinCache::new(&PinOptions::default()).unwrap();
    assert_eq!(device_refs(), refs0, "a cache without a device holds none");
    drop(pages_only);

    // The last owner races the others: 8 threads drop their blocks while
    // the pool handle is dropped. Whichever goes last destroys the pool,
    // once, after every free: a destroy before a free would report blocks
    // in use and the free would touch a freed pool.
    for round in 0..50 {
        let pool = Pool::new(&device(), &PoolOptions::new(c"race", 48)).unwrap();
        let go = std::sync::Barrier::new(9);
        std::thread::scope(|s| {
            for _ in 0..8 {
                let mine: Vec<Block> = (0..16).map(|_| pool.alloc(GFP_KERNEL).unwrap()).collect();
                let go = &go;
                s.spawn(move || {
                    go.wait();
                    drop(mine);
                });
            }
            let handle = pool;
            go.wait();
            drop(handle);
        });
        assert_eq!(device_refs(), refs0, "round {round}: the pool is gone");
    }
    assert_eq!(reports(), reports0, "no destroy saw a block in use");
}
