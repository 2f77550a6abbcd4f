// SPDX-License-Identifier: GPL-2.0
// A bool read from device memory: the device may write any byte there, and
// a byte other than 0 or 1 is not a bool. read_as takes Plain types only.
// expect: E0277
// expect-message: the trait bound `bool: Plain` is not satisfied
use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

pub fn f() -> bool {
    let pool = Pool::new(&device(), &PoolOptions::new(c"b", 8)).unwrap();
    let block = pool.alloc(GFP_KERNEL).unwrap();
    block.read_as::<bool>(0).unwrap()
}
