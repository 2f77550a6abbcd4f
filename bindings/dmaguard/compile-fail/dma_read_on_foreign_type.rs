// SPDX-License-Identifier: GPL-2.0
// dma_read! on a type that is not a block, here one with the method name
// the macro once called: it received the macro's projection closure, whose
// body is an unsafe place projection, and could run it on a null pointer
// from a crate that forbids unsafe code. The macro now calls Block's own
// function by path, with an offset and a safe witness: not a Block, no call.
// expect: E0308
// expect-message: mismatched types
#![forbid(unsafe_code)]
use dmaguard::dma::Plain;

dmaguard::dma_descriptor! {
    pub struct Desc {
        pub a: u64,
    }
}

pub struct Fake;

impl Fake {
    pub fn read_field<T, F: Copy>(&self, proj: impl FnOnce(*mut T) -> *mut F) -> Result<F, ()> {
        let _ = proj(core::ptr::null_mut());
        Err(())
    }
}

pub fn f() -> Result<u64, ()> {
    let fake = Fake;
    dmaguard::dma_read!(fake, Desc, a)
}
