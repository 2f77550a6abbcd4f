// SPDX-License-Identifier: GPL-2.0
// Only doc attributes are taken: `#[repr(packed)]` (or `#[cfg]` on a
// field) would change the layout the macro checks.
// expect: no-rules
// expect-message: no rules expected `repr`
use dmaguard::dma::Plain;

dmaguard::dma_descriptor! {
    #[repr(packed)]
    pub struct Packed {
        pub flags: u8,
        pub len: u32,
    }
}
