// SPDX-License-Identifier: GPL-2.0
// A pinned range used after its cache was dropped (destroyed).
// expect: E0505
use dmaguard::pin::{PinCache, PinOptions};

pub fn f(uaddr: usize) {
    let cache = PinCache::new(&PinOptions::default()).unwrap();
    let pinned = cache.get(uaddr, 4096, true).unwrap();
    drop(cache);
    let _ = pinned.nr_pages();
}
