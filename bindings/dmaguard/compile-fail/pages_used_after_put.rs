// SPDX-License-Identifier: GPL-2.0
// The page array of a range used after the range was put back (dropped).
// expect: E0505
// expect-message: cannot move out of `pinned` because it is borrowed
use dmaguard::pin::{PinCache, PinOptions};

pub fn f(uaddr: usize) -> usize {
    let cache = PinCache::new(&PinOptions::default()).unwrap();
    let pinned = cache.get(uaddr, 4096, true).unwrap();
    let pages = pinned.pages();
    drop(pinned);
    pages.len()
}
