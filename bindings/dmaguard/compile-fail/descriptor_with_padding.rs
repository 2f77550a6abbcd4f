// SPDX-License-Identifier: GPL-2.0
// A descriptor with padding (3 bytes after `flags`): its padding would be
// written to the device as whatever the stack held.
// expect: E0080
// expect-message: Padded has padding: reorder or pad its fields explicitly
use dmaguard::dma::Plain;

dmaguard::dma_descriptor! {
    pub struct Padded {
        pub flags: u8,
        pub len: u32,
    }
}
