// SPDX-License-Identifier: GPL-2.0
// A descriptor with a pointer field: a device could forge it.
// expect: E0277
// expect-message: the trait bound `*mut u8: Plain` is not satisfied
use dmaguard::dma::Plain;

dmaguard::dma_descriptor! {
    pub struct WithPointer {
        pub next: *mut u8,
        pub len: u64,
    }
}
