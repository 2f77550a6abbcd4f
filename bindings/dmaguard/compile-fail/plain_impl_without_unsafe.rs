// SPDX-License-Identifier: GPL-2.0
// Declaring a type plain by hand is a promise the compiler cannot check:
// it takes `unsafe impl`.
// expect: E0200
// expect-message: the trait `Plain` requires an `unsafe impl` declaration
use dmaguard::dma::Plain;

#[derive(Clone, Copy)]
pub struct Flag(pub bool);

impl Plain for Flag {}
