// SPDX-License-Identifier: GPL-2.0
//! Every pool call of the public ABI through the safe layer, against the
//! userspace build of the same C files (libdmaguard.a): creation variants
//! and their refusals, alloc/alloc_zeroed/free by drop, the stats, the
//! counted handle (blocks keep their pool and its device alive), typed
//! access, and the misuse types cannot prevent (raw pairs that are not
//! live blocks: the C error and its counter, no UB).

use dmaguard::dma::{Plain, dma_rmb, dma_wmb};
use dmaguard::error::Error;
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::sys;
use dmaguard::user::{GFP_ATOMIC, GFP_KERNEL, GFP_NOWAIT, device};

fn pool(size: usize, align: usize, boundary: usize) -> Pool {
    let opts = PoolOptions {
        align,
        boundary,
        ..PoolOptions::new(c"test", size)
    };
    Pool::new(&device(), &opts).expect("pool")
}

#[test]
fn version_matches_headers() {
    // SAFETY: no arguments, any context.
    let v = unsafe { sys::dmaguard_version() };
    assert_eq!(
        v,
        sys::DMAGUARD_VERSION_MAJOR << 16 | sys::DMAGUARD_VERSION_MINOR
    );
}

#[test]
fn create_variants() {
    let dev = device();
    let a = Pool::create(&dev, c"legacy", 24, 8, 0).unwrap();
    let b = Pool::create_node(&dev, c"node", 24, 8, 0, -1).unwrap();
    let c = Pool::create_node(&dev, c"node0", 24, 8, 0, 0).unwrap();
    let d = pool(24, 8, 0);
    for p in [&a, &b, &c, &d] {
        let st = p.stats().unwrap();
        assert_eq!((st.block_size, st.stride), (24, 24));
        assert_eq!((st.chunks, st.blocks_in_use, st.blocks_total), (0, 0, 0));
        assert_eq!(p.block_size(), 24);
    }
    let opts = PoolOptions {
        node: Some(0),
        ..PoolOptions::new(c"opts-node", 8)
    };
    assert!(Pool::new(&dev, &opts).is_ok());
}

#[test]
fn invalid_geometry_is_inval() {
    let dev = device();
    let bad = [
        (0, 0, 0),       // no size
        (8, 3, 0),       // alignment not a power of two
        (64, 0, 32),     // boundary smaller than the size
        (8, 0, 100),     // boundary not a power of two
        (8, 1 << 40, 0), // alignment beyond any chunk
    ];
    for (size, align, boundary) in bad {
        let opts = PoolOptions {
            align,
            boundary,
            ..PoolOptions::new(c"bad", size)
        };
        assert_eq!(
            Pool::new(&dev, &opts).err(),
            Some(Error::Inval),
            "{size} {align} {boundary}"
        );
        assert_eq!(
            Pool::create(&dev, c"bad", size, align, boundary).err(),
            Some(Error::Inval)
        );
        assert_eq!(
            Pool::create_node(&dev, c"bad", size, align, boundary, -1).err(),
            Some(Error::Inval)
        );
    }
    // Impossible nodes are refused by C; a zero-sized type has no pool.
    assert_eq!(
        Pool::create_node(&dev, c"n", 8, 0, 0, 5).err(),
        Some(Error::Inval)
    );
    let opts = PoolOptions {
        node: Some(7),
        ..PoolOptions::new(c"n", 8)
    };
    assert_eq!(Pool::new(&dev, &opts).err(), Some(Error::Inval));
    assert_eq!(
        Pool::for_type::<[u64; 0]>(&dev, c"zst").err(),
        Some(Error::Inval)
    );
}

#[test]
fn alloc_free_and_stats() {
    let p = pool(48, 16, 4096);
    let mut blocks: Vec<Block> = Vec::new();
    for gfp in [GFP_KERNEL, GFP_ATOMIC, GFP_NOWAIT] {
        blocks.push(p.alloc(gfp).unwrap());
    }
    let st = p.stats().unwrap();
    assert_eq!(st.blocks_in_use, 3);
    assert_eq!(st.stride, 48);
    assert_eq!(st.chunks, 1);
    assert_eq!(st.chunks_allocated, 1);
    assert_eq!(st.blocks_total, st.blocks_per_chunk as u64);
    let mut handles: Vec<u64> = blocks.iter().map(|b| b.dma_handle()).collect();
    for b in &blocks {
        assert_eq!(b.dma_handle() % 16, 0);
        assert_eq!(b.as_ptr() as usize % 16, 0);
        // No block crosses the 4096 boundary.
        assert_eq!(b.dma_handle() / 4096, (b.dma_handle() + 47) / 4096);
        assert_eq!(b.len(), 48);
        assert!(!b.is_empty());
    }
    handles.sort();
    handles.dedup();
    assert_eq!(handles.len(), 3);
    drop(blocks.pop());
    assert_eq!(p.stats().unwrap().blocks_in_use, 2);
    drop(blocks);
    let st = p.stats().unwrap();
    assert_eq!(st.blocks_in_use, 0);
    assert_eq!(
        st.bad_free_foreign + st.bad_free_misaligned + st.bad_free_dma + st.bad_free_double,
        0
    );
}

#[test]
fn many_blocks_many_chunks() {
    let p = pool(1000, 0, 0);
    let per_chunk = {
        let _b = p.alloc(GFP_KERNEL).unwrap();
        p.stats().unwrap().blocks_per_chunk as usize
    };
    let blocks: Vec<_> = (0..per_chunk * 3 + 1)
        .map(|_| p.alloc(GFP_KERNEL).unwrap())
        .collect();
    let st = p.stats().unwrap();
    assert_eq!(st.blocks_in_use as usize, blocks.len());
    assert_eq!(st.chunks, 4);
    drop(blocks);
    assert_eq!(p.stats().unwrap().blocks_in_use, 0);
}

#[test]
fn block_access() {
    let p = pool(16, 8, 0);
    let mut b = p.alloc_zeroed(GFP_KERNEL).unwrap();
    let mut buf = [0xaau8; 16];
    b.read(0, &mut buf).unwrap();
    assert_eq!(buf, [0; 16]);
    b.write(3, b"dmaguard").unwrap();
    b.write_as::<u32>(12, 0x1234_5678).unwrap();
    b.read(3, &mut buf[..8]).unwrap();
    assert_eq!(&buf[..8], b"dmaguard");
    assert_eq!(b.read_as::<u32>(12).unwrap(), 0x1234_5678);
    b.write_as::<u64>(0, 0x0102_0304_0506_0708).unwrap();
    assert_eq!(b.read_as::<u64>(0).unwrap(), 0x0102_0304_0506_0708);
    assert_eq!(b.read_as::<[u8; 2]>(14).unwrap(), [0x34, 0x12]);
    // The CPU address sees the same bytes (volatile, as a device would).
    // SAFETY: inside the live block.
    assert_eq!(
        unsafe { core::ptr::read_volatile(b.as_ptr().add(12).cast::<u32>()) },
        0x1234_5678
    );
    // Out of range, overflowing and misaligned accesses are refused.
    assert_eq!(b.read(10, &mut buf[..7]), Err(Error::Inval));
    assert_eq!(b.write(16, &[1]), Err(Error::Inval));
    assert_eq!(b.write(usize::MAX, &[1, 2]), Err(Error::Inval));
    assert_eq!(b.read_as::<u64>(9), Err(Error::Inval));
    assert_eq!(b.read_as::<u64>(16), Err(Error::Inval));
    assert_eq!(b.read_as::<[u64; 3]>(0), Err(Error::Inval));
    assert_eq!(b.write_as::<u32>(2, 0), Err(Error::Inval));
    assert_eq!(b.write_as::<u32>(16, 0), Err(Error::Inval));
    // Zero-length accesses at the end are fine.
    assert_eq!(b.read(16, &mut []), Ok(()));
}

dmaguard::dma_descriptor! {
    /// A ring entry of an imaginary engine: 24 bytes, no padding.
    struct Desc {
        next: u64,
        buf: u64,
        len: u32,
        own: u32,
    }
}

#[test]
fn typed_fields() {
    let p = Pool::for_type::<Desc>(&device(), c"desc").unwrap();
    assert_eq!(p.block_size(), 24);
    let mut d = p.alloc_zeroed(GFP_KERNEL).unwrap();
    assert_eq!(
        d.read_as::<Desc>(0).unwrap(),
        Desc {
            next: 0,
            buf: 0,
            len: 0,
            own: 0
        }
    );
    dmaguard::dma_write!(d, Desc, next, 0x1000).unwrap();
    dmaguard::dma_write!(d, Desc, len, 512).unwrap();
    dma_wmb();
    dmaguard::dma_write!(d, Desc, own, 1).unwrap();
    // Each field lands at its C offset.
    assert_eq!(d.read_as::<u64>(0).unwrap(), 0x1000);
    assert_eq!(d.read_as::<u32>(16).unwrap(), 512);
    assert_eq!(d.read_as::<u32>(20).unwrap(), 1);
    // The "device" completes: clears own, then the CPU reads the rest.
    d.write_as::<u32>(20, 0).unwrap();
    assert_eq!(dmaguard::dma_read!(d, Desc, own).unwrap(), 0);
    dma_rmb();
    assert_eq!(dmaguard::dma_read!(d, Desc, len).unwrap(), 512);
    // A whole descriptor, written and read back as one value.
    let full = Desc {
        next: 1,
        buf: 2,
        len: 3,
        own: 4,
    };
    d.write_as(0, full).unwrap();
    assert_eq!(d.read_as::<Desc>(0).unwrap(), full);
    // A block too small for the type: every field access is refused.
    let small = pool(16, 8, 0);
    let mut s = small.alloc(GFP_KERNEL).unwrap();
    assert_eq!(dmaguard::dma_read!(s, Desc, next), Err(Error::Inval));
    assert_eq!(dmaguard::dma_write!(s, Desc, own, 1), Err(Error::Inval));
}

#[test]
fn field_offset_outside_is_refused() {
    let p = Pool::for_type::<Desc>(&device(), c"proj").unwrap();
    let mut d = p.alloc_zeroed(GFP_KERNEL).unwrap();
    // Offsets that leave the descriptor or misalign are errors, not
    // accesses: safe code cannot reach past the block through them.
    fn own(t: &Desc) -> &u32 {
        &t.own
    }
    fn next(t: &Desc) -> &u64 {
        &t.next
    }
    assert_eq!(d.read_field_at::<Desc, u32>(24, own), Err(Error::Inval));
    assert_eq!(
        d.write_field_at::<Desc, u64>(usize::MAX - 7, next, 1),
        Err(Error::Inval)
    );
    assert_eq!(d.read_field_at::<Desc, u64>(20, next), Err(Error::Inval));
    assert_eq!(d.read_field_at::<Desc, u32>(2, own), Err(Error::Inval));
    assert_eq!(d.write_field_at::<Desc, u32>(20, own, 7), Ok(()));
    assert_eq!(dmaguard::dma_read!(d, Desc, own), Ok(7));
}

fn plain<T: Plain>() -> usize {
    core::mem::size_of::<T>()
}

#[test]
fn plain_types() {
    assert_eq!(plain::<Desc>(), 24);
    assert_eq!(plain::<[Desc; 2]>(), 48);
    assert_eq!(plain::<[i16; 3]>(), 6);
}

/// What a driver keeps in its private data: the pool and the ring of
/// blocks allocated from it, side by side (the borrowing API of v1 could
/// not express this struct).
struct Driver {
    pool: Pool,
    ring: Vec<Block>,
}

impl Driver {
    fn probe(n: usize) -> Driver {
        let pool = Pool::for_type::<Desc>(&device(), c"drv").unwrap();
        let ring = (0..n)
            .map(|_| pool.alloc_zeroed(GFP_KERNEL).unwrap())
            .collect();
        Driver { pool, ring }
    }
}

#[test]
fn blocks_keep_their_pool_alive() {
    let drv = Driver::probe(8);
    assert_eq!(drv.pool.stats().unwrap().blocks_in_use, 8);
    // The driver struct is taken apart in the wrong order: the pool handle
    // first. The blocks keep the C pool alive (tests/device_refs.rs counts
    // the destroy and the device's references).
    let Driver { pool, mut ring } = drv;
    let raw = pool.as_ptr();
    drop(pool);
    let b = ring.pop().unwrap();
    assert_eq!(b.pool().as_ptr(), raw);
    assert_eq!(b.pool().stats().unwrap().blocks_in_use, 8);
    drop(ring);
    assert_eq!(b.pool().stats().unwrap().blocks_in_use, 1);
}

#[test]
fn clones_share_one_pool() {
    let p = pool(32, 0, 0);
    let q = p.clone();
    assert!(p.same_pool(&q));
    let b = q.alloc(GFP_KERNEL).unwrap();
    assert!(b.pool().same_pool(&p));
    assert_eq!(p.stats().unwrap().blocks_in_use, 1);
    drop(q);
    drop(b);
    assert_eq!(p.stats().unwrap().blocks_in_use, 0);
}

#[test]
fn foreign_pairs_are_refused_and_counted() {
    let p = pool(64, 64, 0);
    let other = pool(64, 64, 0);
    let keep = p.alloc(GFP_KERNEL).unwrap();
    let mut local = [0u8; 64];
    // SAFETY: none of these pairs is a live block of `p`: the C side
    // refuses each by arithmetic (it never touches the memory).
    unsafe {
        p.free_raw(local.as_mut_ptr(), 0x1000);
        p.free_raw(core::ptr::null_mut(), 0);
        p.free_raw(usize::MAX as *mut u8, u64::MAX);
    }
    let st = p.stats().unwrap();
    assert_eq!(st.bad_free_foreign, 3);
    assert_eq!(st.blocks_in_use, 1);
    // A block of another pool is foreign to this one.
    let (ov, od) = other.alloc(GFP_KERNEL).unwrap().into_raw();
    // SAFETY: the pair is held by no Block; for `p` it is foreign.
    unsafe { p.free_raw(ov.as_ptr(), od) };
    assert_eq!(p.stats().unwrap().bad_free_foreign, 4);
    assert_eq!(other.stats().unwrap().blocks_in_use, 1);
    // SAFETY: the pair is held by no Block and no device.
    unsafe { other.free_raw(ov.as_ptr(), od) };
    assert_eq!(other.stats().unwrap().blocks_in_use, 0);

    // Interior pointer, wrong DMA address, double free of a raw pair.
    let (v, d) = p.alloc(GFP_KERNEL).unwrap().into_raw();
    // SAFETY: the pair came out of into_raw: held by no Block; the bad
    // variants are not blocks.
    unsafe {
        p.free_raw(v.as_ptr().add(1), d + 1);
        p.free_raw(v.as_ptr(), d ^ 0x40);
        p.free_raw(v.as_ptr(), d);
        p.free_raw(v.as_ptr(), d);
    }
    let st = p.stats().unwrap();
    assert_eq!(
        (st.bad_free_misaligned, st.bad_free_dma, st.bad_free_double),
        (1, 1, 1)
    );
    assert_eq!(st.blocks_in_use, 1);
    // The pool is still consistent: the kept block frees normally.
    drop(keep);
    assert_eq!(p.stats().unwrap().blocks_in_use, 0);
    assert!(p.alloc(GFP_KERNEL).is_ok());
}

#[test]
fn pools_and_blocks_cross_threads() {
    let p = pool(32, 0, 0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..200 {
                    let mut b = p.alloc(GFP_ATOMIC).unwrap();
                    b.write(0, &[1; 32]).unwrap();
                }
            });
        }
    });
    let b = p.alloc(GFP_KERNEL).unwrap();
    std::thread::scope(|s| {
        s.spawn(move || drop(b));
    });
    let st = p.stats().unwrap();
    assert_eq!(st.blocks_in_use, 0);
    assert_eq!(st.bad_free_foreign + st.bad_free_double, 0);
}

#[test]
fn errno_mapping() {
    let all = [
        (Error::Inval, -22),
        (Error::TooBig, -7),
        (Error::NoMem, -12),
        (Error::Fault, -14),
        (Error::Again, -11),
        (Error::NoSpc, -28),
        (Error::Overflow, -75),
        (Error::Other(-5), -5),
    ];
    for (e, n) in all {
        assert_eq!(e.to_errno(), n);
        assert_eq!(Error::from_errno(n), e);
        assert_eq!(Error::from_errno(-n), e);
    }
    assert_eq!(
        Error::from_err_ptr((-4095isize) as *mut u8),
        Err(Error::Other(-4095))
    );
    assert!(Error::from_err_ptr((-4096isize) as *mut u8).is_ok());
    assert_eq!(
        Error::from_err_ptr(core::ptr::null_mut::<u8>()),
        Err(Error::Inval)
    );
}
