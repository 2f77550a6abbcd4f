// SPDX-License-Identifier: GPL-2.0
// A block goes back to its pool only by its drop; the one call that takes
// an address and a handle, free_raw(), is unsafe: without `unsafe` it does
// not compile, whichever pool the pair came from (the caller's promise
// that it is this pool's block is what the unsafe block states).
// expect: E0133
// expect-message: call to unsafe function `Pool::free_raw` is unsafe
use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() {
    let a = Pool::new(&device(), &PoolOptions::new(c"a", 8)).unwrap();
    let (vaddr, dma) = a.alloc(GFP_KERNEL).unwrap().into_raw();
    a.free_raw(vaddr.as_ptr(), dma);
}
