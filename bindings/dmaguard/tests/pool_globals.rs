// SPDX-License-Identifier: GPL-2.0
//! Pool behaviour read from the simulated kernel's global state (its own
//! test binary, one test: nothing else runs meanwhile): alloc_zeroed
//! really zeroes when the kernel does not (init_on_alloc off), and a pool
//! dropped with a block given away by into_raw keeps that chunk and
//! reports it, as the C side does for C drivers.
//!
//! Test-only declarations of the userspace platform's globals
//! (c-core/platform/user/dg_platform.h, dg_user.h).

use dmaguard::pool::{Pool, PoolOptions};
use dmaguard::user::{GFP_KERNEL, device};

#[repr(C)]
struct DgUserCounters {
    meta_live: core::ffi::c_long,
    chunks_live: core::ffi::c_long,
    chunk_bytes_live: core::ffi::c_long,
}

unsafe extern "C" {
    static mut dg_user_init_on_alloc: bool;
    static dg_user_reports_err: core::ffi::c_ulong;
    static dg_user_count: DgUserCounters;
}

fn counters() -> (i64, i64, u64) {
    // SAFETY: plain reads; this binary's only test runs alone.
    unsafe {
        (
            core::ptr::addr_of!(dg_user_count.chunks_live).read_volatile(),
            core::ptr::addr_of!(dg_user_count.meta_live).read_volatile(),
            core::ptr::addr_of!(dg_user_reports_err).read_volatile(),
        )
    }
}

#[test]
fn zeroing_and_destroy_with_live_blocks() {
    // SAFETY: one test in this binary: no concurrent access.
    unsafe { core::ptr::addr_of_mut!(dg_user_init_on_alloc).write(false) };
    let (chunks0, meta0, reports0) = counters();
    {
        let p = Pool::new(&device(), &PoolOptions::new(c"zero", 64)).unwrap();
        let mut b = p.alloc(GFP_KERNEL).unwrap();
        let addr = b.as_ptr();
        b.write(0, &[0xa5; 64]).unwrap();
        drop(b);
        // The same block comes back (this CPU's cache), still dirty with
        // a plain alloc ...
        let b = p.alloc(GFP_KERNEL).unwrap();
        assert_eq!(b.as_ptr(), addr);
        let mut buf = [0u8; 64];
        b.read(0, &mut buf).unwrap();
        assert_eq!(buf, [0xa5; 64]);
        drop(b);
        // ... and zeroed by alloc_zeroed.
        let b = p.alloc_zeroed(GFP_KERNEL).unwrap();
        assert_eq!(b.as_ptr(), addr);
        b.read(0, &mut buf).unwrap();
        assert_eq!(buf, [0; 64]);
        drop(b);
        assert_eq!(counters().0, chunks0 + 1);
        // A block given away and never freed: the drop of the pool
        // reports it and keeps its chunk.
        let _leaked = p.alloc(GFP_KERNEL).unwrap().into_raw();
        assert_eq!(p.stats().unwrap().blocks_in_use, 1);
    }
    let (chunks1, meta1, reports1) = counters();
    assert_eq!(chunks1, chunks0 + 1, "the chunk of the live block is kept");
    assert_eq!(meta1, meta0, "the pool's bookkeeping is freed");
    assert_eq!(reports1, reports0 + 1, "the destroy is reported");
    {
        let p = Pool::new(&device(), &PoolOptions::new(c"clean", 64)).unwrap();
        drop(p.alloc(GFP_KERNEL).unwrap());
    }
    assert_eq!(
        counters(),
        (chunks1, meta1, reports1),
        "a clean pool leaves nothing"
    );
    // SAFETY: as above.
    unsafe { core::ptr::addr_of_mut!(dg_user_init_on_alloc).write(true) };
}
