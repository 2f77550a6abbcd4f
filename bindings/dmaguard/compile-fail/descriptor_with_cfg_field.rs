// SPDX-License-Identifier: GPL-2.0
// A field under `#[cfg]`: configured out, the struct's layout is not the
// one the device sees in every build. The macro takes doc attributes only.
// expect: no-rules
// expect-message: no rules expected `cfg`
use dmaguard::dma::Plain;

dmaguard::dma_descriptor! {
    pub struct Desc {
        pub addr: u64,
        #[cfg(debug_assertions)]
        pub len: u32,
        pub own: u32,
    }
}
