// SPDX-License-Identifier: GPL-2.0
// A caller's own `assert!` does not switch the padding check off: the
// macro names core's.
// expect: E0080
// expect-message: Padded has padding: reorder or pad its fields explicitly
use dmaguard::dma::Plain;

macro_rules! assert {
    ($($t:tt)*) => {};
}

dmaguard::dma_descriptor! {
    pub struct Padded {
        pub flags: u8,
        pub len: u32,
    }
}
