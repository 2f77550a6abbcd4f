// SPDX-License-Identifier: GPL-2.0
// The DMA-mapped sg_table of a pinned range kept after the range was put.
// expect: E0597
// expect-message: `pinned` does not live long enough
use dmaguard::pin::{PinCache, PinOptions};

pub fn f(uaddr: usize) -> bool {
    let cache = PinCache::new(&PinOptions::default()).unwrap();
    let sgt;
    {
        let pinned = cache.get(uaddr, 4096, true).unwrap();
        sgt = pinned.sgt();
    }
    sgt.is_some()
}
