// SPDX-License-Identifier: GPL-2.0
//! The pin cache types against the userspace build of the pin cache
//! (c-core/pincache.c over the simulated mm of pin_mm.c) and the same
//! exported-interface file as the kernel's (abi/shim/pin_abi.c): hits,
//! misses, stats, invalidation by unmap + map, puts on drop, refusals.
//! Each test thread makes its own simulated mm its `current->mm`.

use core::ffi::{c_long, c_ulong};

use dmaguard::error::Error;
use dmaguard::pin::{PinCache, PinOptions, Pinned};
use dmaguard::sys;
use dmaguard::user::{Mm, Prot, device};

const PAGE: usize = 4096;

/// Test-only mirror of `struct dg_user_frame` (dg_user_mm.h): what a
/// `struct page *` of the userspace build points to.
#[repr(C)]
struct Frame {
    data: [u8; PAGE],
    pins: c_long,
    write_pins: c_long,
    mapped: bool,
    id: c_ulong,
}

/// (pins, serial number) of a frame a pin returned or the mm maps.
fn frame(p: *mut sys::page) -> (i64, u64) {
    assert!(!p.is_null());
    let f = p.cast::<Frame>();
    // SAFETY: the frame is pinned (or mapped) while the caller looks at
    // it; plain reads of its counters.
    unsafe {
        (
            core::ptr::addr_of!((*f).pins).read_volatile(),
            core::ptr::addr_of!((*f).id).read_volatile(),
        )
    }
}

fn mm_rw(pages: usize) -> Mm {
    let mm = Mm::new(pages);
    mm.map(mm.addr(0), pages * PAGE, Prot::ReadWrite).unwrap();
    mm.enter();
    mm
}

fn cache() -> PinCache {
    PinCache::new(&PinOptions::default()).unwrap()
}

#[test]
fn miss_then_hits_and_put_on_drop() {
    let mm = mm_rw(8);
    let c = cache();
    let p = c.get(mm.addr(2) + 10, 2 * PAGE, true).unwrap();
    assert_eq!((p.nr_pages(), p.offset(), p.len()), (3, 10, 2 * PAGE));
    for (i, &pg) in p.pages().iter().enumerate() {
        assert_eq!(pg, mm.frame(mm.addr(2 + i)));
        assert_eq!(frame(pg).0, 1);
    }
    assert!(p.sgt().is_none());
    let st = c.stats().unwrap();
    assert_eq!((st.misses, st.hits, st.entries, st.handles), (1, 0, 1, 1));
    assert_eq!(st.pinned_bytes, 3 * PAGE as u64);
    // A sub-range is a hit on the same entry, same pages.
    let q = c.get(mm.addr(3), 100, false).unwrap();
    assert_eq!(q.pages()[0], p.pages()[1]);
    assert_eq!(c.stats().unwrap().hits, 1);
    assert_eq!(c.stats().unwrap().handles, 2);
    drop(q);
    drop(p);
    let st = c.stats().unwrap();
    assert_eq!((st.handles, st.entries), (0, 1), "put, still cached");
    assert_eq!(frame(mm.frame(mm.addr(2))).0, 1, "the cache keeps its pin");
    // Cached: another get is a hit with no new pin.
    let r = c.get(mm.addr(2), PAGE, true).unwrap();
    assert_eq!(c.stats().unwrap().hits, 2);
    assert_eq!(frame(r.pages()[0]).0, 1);
    drop(r);
    drop(c);
    assert_eq!(frame(mm.frame(mm.addr(2))).0, 0, "destroy unpins");
}

#[test]
fn unmap_and_map_invalidate() {
    let mm = mm_rw(4);
    mm.write(mm.addr(1), b"old").unwrap();
    let c = cache();
    let old_id = {
        let p = c.get(mm.addr(1), PAGE, true).unwrap();
        frame(p.pages()[0]).1
    };
    mm.unmap(mm.addr(1), PAGE).unwrap();
    mm.map(mm.addr(1), PAGE, Prot::ReadWrite).unwrap();
    let st = c.stats().unwrap();
    assert_eq!(
        (st.invalidations, st.entries_indexed),
        (1, 0),
        "stale: no get finds it"
    );
    let p = c.get(mm.addr(1), PAGE, true).unwrap();
    let st = c.stats().unwrap();
    assert_eq!((st.misses, st.hits), (2, 0), "the next get is a miss");
    let (pins, id) = frame(p.pages()[0]);
    assert_ne!(id, old_id, "new pages after the remap");
    assert_eq!(pins, 1);
    assert_eq!(p.pages()[0], mm.frame(mm.addr(1)));
    let mut buf = [1u8; 3];
    mm.read(mm.addr(1), &mut buf).unwrap();
    assert_eq!(buf, [0; 3], "a fresh zeroed frame");
}

#[test]
fn invalidated_while_held_stays_pinned_until_put() {
    let mm = mm_rw(2);
    let c = cache();
    let p = c.get(mm.addr(0), 2 * PAGE, true).unwrap();
    let held = p.pages()[0];
    mm.unmap(mm.addr(0), 2 * PAGE).unwrap();
    let st = c.stats().unwrap();
    assert_eq!(
        (st.entries, st.entries_indexed, st.invalidations),
        (1, 0, 1)
    );
    assert_eq!(frame(held).0, 1, "DMA in flight keeps its pages");
    assert_eq!(c.get(mm.addr(0), PAGE, false).err(), Some(Error::Fault));
    drop(p);
    // the put hands the entry to the work item, which releases it
    assert_eq!(frame(held).0, 1);
    // (at least ours: other tests may have queued theirs)
    assert!(dmaguard::user::run_work() >= 1);
    let st = c.stats().unwrap();
    assert_eq!((st.entries, st.pinned_bytes, st.handles), (0, 0, 0));
}

#[test]
fn refusals() {
    let mm = Mm::new(8);
    mm.map(mm.addr(0), 2 * PAGE, Prot::ReadWrite).unwrap();
    mm.map(mm.addr(2), PAGE, Prot::Read).unwrap();
    mm.map(mm.addr(3), PAGE, Prot::None).unwrap();
    mm.enter();
    let c = cache();
    let a = mm.addr(0);
    assert_eq!(c.get(a, 0, false).err(), Some(Error::Inval));
    assert_eq!(
        c.get(usize::MAX - 10, 100, false).err(),
        Some(Error::Overflow)
    );
    assert_eq!(
        c.get(mm.addr(5), 1, false).err(),
        Some(Error::Fault),
        "unmapped"
    );
    assert_eq!(
        c.get(mm.addr(2), 1, true).err(),
        Some(Error::Fault),
        "read-only"
    );
    assert_eq!(
        c.get(mm.addr(3), 1, false).err(),
        Some(Error::Fault),
        "PROT_NONE"
    );
    assert_eq!(
        c.get(0xffff_8880_0000_0000, 1, false).err(),
        Some(Error::Fault),
        "kernel"
    );
    assert!(c.get(mm.addr(2), 1, false).is_ok(), "read-only, read");
    let st = c.stats().unwrap();
    assert_eq!(
        (st.entries, st.handles, st.pinned_bytes),
        (1, 0, PAGE as u64)
    );

    let small = PinCache::new(&PinOptions {
        max_bytes: PAGE as u64,
        max_entries: 1,
        node: None,
    })
    .unwrap();
    assert_eq!(small.get(a, 2 * PAGE, false).err(), Some(Error::TooBig));
    let held = small.get(a, PAGE, false).unwrap();
    assert_eq!(small.get(a + PAGE, PAGE, false).err(), Some(Error::NoSpc));
    drop(held);
    // The unused entry is evicted for the next one.
    let next = small.get(a + PAGE, PAGE, false).unwrap();
    assert_eq!(small.stats().unwrap().evictions, 1);
    drop(next);

    let bad_node = PinOptions {
        node: Some(3),
        ..PinOptions::default()
    };
    assert_eq!(PinCache::new(&bad_node).err(), Some(Error::Inval));
    let no_node = PinOptions {
        node: Some(-1),
        ..PinOptions::default()
    };
    assert!(PinCache::new(&no_node).is_ok());
}

#[test]
fn no_mm_no_cache() {
    // A fresh thread has no mm, as a kernel thread.
    std::thread::spawn(|| {
        assert_eq!(
            PinCache::new(&PinOptions::default()).err(),
            Some(Error::Inval)
        );
    })
    .join()
    .unwrap();
}

#[test]
fn other_address_space_is_refused() {
    let mm = mm_rw(2);
    let c = cache();
    let mine = c.get(mm.addr(0), PAGE, false).unwrap();
    std::thread::scope(|s| {
        // Another thread: no mm, then another mm; neither may get, even a
        // hit. A put from any task is fine.
        s.spawn(|| {
            assert_eq!(c.get(mm.addr(0), PAGE, false).err(), Some(Error::Fault));
            let other = Mm::new(2);
            other.map(other.addr(0), 2 * PAGE, Prot::ReadWrite).unwrap();
            other.enter();
            assert_eq!(c.get(mm.addr(0), PAGE, false).err(), Some(Error::Fault));
            drop(mine);
        });
    });
    let st = c.stats().unwrap();
    assert_eq!((st.handles, st.hits), (0, 0));
}

#[test]
fn device_bound_cache_maps() {
    let mm = mm_rw(4);
    let c = PinCache::with_device(&device(), &PinOptions::default()).unwrap();
    let whole = c.get(mm.addr(0), 4 * PAGE, true).unwrap();
    assert!(whole.sgt().is_some());
    assert_eq!(whole.sgt_offset(), 0);
    let part = c.get(mm.addr(2) + 5, 10, true).unwrap();
    assert_eq!(part.sgt(), whole.sgt(), "the entry's table");
    assert_eq!(part.sgt_offset(), 2 * PAGE as u64 + 5);
    assert_eq!(part.pages()[0], whole.pages()[2]);
}

#[test]
fn many_handles_then_destroy() {
    let mm = mm_rw(16);
    let c = cache();
    let held: Vec<Pinned> = (0..16)
        .map(|i| c.get(mm.addr(i), PAGE, i % 2 == 0).unwrap())
        .collect();
    let st = c.stats().unwrap();
    assert_eq!((st.entries, st.handles, st.misses), (16, 16, 16));
    assert_eq!(st.pinned_bytes, 16 * PAGE as u64);
    drop(held);
    assert_eq!(c.stats().unwrap().handles, 0);
    let f0 = mm.frame(mm.addr(0));
    assert_eq!(frame(f0).0, 1);
    drop(c);
    assert_eq!(frame(f0).0, 0);
}

/// What a driver does: the range pinned for an I/O is kept in the
/// driver's state past the function that pinned it, and may outlive the
/// cache handle the driver dropped meanwhile; the last of them destroys
/// the cache and unpins.
#[test]
fn ranges_keep_their_cache_alive() {
    let mm = mm_rw(4);
    let c = cache();
    let in_flight: Vec<Pinned> = (0..2)
        .map(|i| c.get(mm.addr(i), PAGE, true).unwrap())
        .collect();
    let f0 = mm.frame(mm.addr(0));
    let again = c.clone();
    drop(c);
    assert_eq!(again.stats().unwrap().handles, 2);
    drop(again);
    // No handle of the cache is left, but the ranges hold it: still pinned.
    assert_eq!(frame(f0).0, 1);
    assert_eq!(in_flight[0].pages()[0], f0);
    drop(in_flight);
    assert_eq!(frame(f0).0, 0, "the last range destroyed the cache");
}
