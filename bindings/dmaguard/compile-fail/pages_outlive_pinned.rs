// SPDX-License-Identifier: GPL-2.0
// The page array of a pinned range kept after the range was put.
// expect: E0597
// expect-message: `pinned` does not live long enough
use dmaguard::pin::{PinCache, PinOptions};

pub fn f(uaddr: usize) -> usize {
    let cache = PinCache::new(&PinOptions::default()).unwrap();
    let pages;
    {
        let pinned = cache.get(uaddr, 4096, true).unwrap();
        pages = pinned.pages();
    }
    pages.len()
}
