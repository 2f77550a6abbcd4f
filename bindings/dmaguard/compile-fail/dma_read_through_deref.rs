// SPDX-License-Identifier: GPL-2.0
// A field reached through a Deref impl is not a field of the descriptor:
// the accessor would run the caller's code on block memory.
// expect: E0609
// expect-message: no field `x` on type `Outer`
use core::ops::{Deref, DerefMut};
use dmaguard::dma::Plain;
use dmaguard::pool::Pool;
use dmaguard::user::{GFP_KERNEL, device};

dmaguard::dma_descriptor! {
    pub struct Outer {
        pub a: u64,
    }
}

pub struct Inner {
    pub x: u64,
}

impl Deref for Outer {
    type Target = Inner;
    fn deref(&self) -> &Inner {
        unimplemented!()
    }
}

impl DerefMut for Outer {
    fn deref_mut(&mut self) -> &mut Inner {
        unimplemented!()
    }
}

pub fn f() -> u64 {
    let pool = Pool::for_type::<Outer>(&device(), c"p").unwrap();
    let b = pool.alloc(GFP_KERNEL).unwrap();
    dmaguard::dma_read!(b, Outer, x).unwrap()
}
