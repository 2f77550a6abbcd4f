// SPDX-License-Identifier: GPL-2.0

//! Proof that the debug kernel built by `make kernels` loads out-of-tree
//! Rust modules: a module built against its tree with `M=`, which checks a
//! few things through the kernel crate and reports them as a KTAP document
//! (the VM harness parses it like the C test modules' output).

use kernel::prelude::*;

module! {
    type: RustSmoke,
    name: "dmaguard_rust_smoke",
    author: "dmaguard developers",
    description: "dmaguard: smoke test of out-of-tree Rust modules",
    license: "GPL",
}

struct RustSmoke;

/// Prints one KTAP result line, numbered from 1.
fn report(num: usize, ok: bool, name: &str) {
    if ok {
        pr_info!("ok {} {}\n", num, name);
    } else {
        pr_info!("not ok {} {}\n", num, name);
    }
}

/// A kernel allocation from Rust holds what was written to it.
fn kvec_holds_values() -> Result<bool> {
    let mut v = KVec::new();
    for i in 0..1000u32 {
        v.push(i, GFP_KERNEL)?;
    }
    Ok(v.len() == 1000 && v.iter().map(|&x| u64::from(x)).sum::<u64>() == 499_500)
}

/// A boxed value survives the move into the allocation and back.
fn kbox_round_trip() -> Result<bool> {
    let b = KBox::new([0x5au8; 256], GFP_KERNEL)?;
    Ok(b.iter().all(|&x| x == 0x5a))
}

impl kernel::Module for RustSmoke {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("KTAP version 1\n");
        pr_info!("1..3\n");
        report(1, cfg!(MODULE), "built_as_module");
        report(2, kvec_holds_values()?, "kvec_holds_values");
        report(3, kbox_round_trip()?, "kbox_round_trip");
        Ok(RustSmoke)
    }
}
