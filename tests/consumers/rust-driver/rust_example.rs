// SPDX-License-Identifier: GPL-2.0

//! Example consumer of dmaguard in Rust: the twin of the C example driver
//! (tests/consumers/c-driver), built out of tree against a kernel with
//! CONFIG_RUST from dmaguard's Module.symvers and the safe layer of
//! `bindings/` (the same source files `cargo test` runs in userspace).
//!
//! It plays the driver of an imaginary DMA engine whose descriptors are
//! 32-byte, 32-aligned records chained into a ring by bus address: it
//! creates a descriptor pool, fills a ring, checks what the pool promises,
//! reads the pool's statistics and gives everything back by dropping it.
//! Then it pins a buffer of its process (insmod's) through the pin cache.
//! Each step is one KTAP case on the console. Its device is QEMU's edu PCI
//! device (1234:11e8), so that the pools sit behind the VM's IOMMU when it
//! has one.
//!
//! The lifetimes do the bookkeeping the C driver does by hand: a block
//! cannot outlive its pool, a pinned range cannot outlive its cache
//! (tests/consumers/rust-misuse/ shows rustc refusing both).

use core::ptr::NonNull;
use kernel::prelude::*;
use kernel::uaccess::UserSlice;
use kernel::{bindings, new_spinlock};

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

use dmaguard::error::Error as DgError;
use dmaguard::gfp::Gfp;
use dmaguard::pin::{PinCache, PinOptions, Pinned};
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::sys;

module! {
    type: RustExample,
    name: "dmaguard_rust_example",
    author: "dmaguard developers",
    description: "Example out-of-tree Rust consumer of the dmaguard v1 ABI (KTAP)",
    license: "GPL",
}

// DMAGUARD_IMPORT_NS() of <dmaguard/dmaguard.h>: the `module!` macro of
// 6.12 has no field for it, so the modinfo string is written as C's
// MODULE_INFO(import_ns, "DMAGUARD_V1") writes it for a loadable module.
// `used(compiler)`, as `module!` has it: a plain `#[used]` also marks the
// section SHF_GNU_RETAIN, a separate .modinfo that modpost does not read in
// a single-object module.
#[link_section = ".modinfo"]
#[used(compiler)]
static DMAGUARD_IMPORT_NS: [u8; 22] = *b"import_ns=DMAGUARD_V1\0";

const RING: usize = 512;
const DESC: usize = 32;
const BOUNDARY: u64 = 4096;
const PIN_PAGES: usize = 4;
const PIN_LEN: usize = PIN_PAGES * 4096;

// edu_lookup.c: 6.12's Rust bindings have no PCI functions.
extern "C" {
    fn dg_rust_example_edu_get() -> *mut sys::device;
    fn dg_rust_example_edu_put(dev: *mut sys::device);
}

/// A reference on QEMU's edu PCI device, dropped with the driver.
struct Edu(NonNull<sys::device>);

// SAFETY: a counted reference on a device may be dropped by any task.
unsafe impl Send for Edu {}
// SAFETY: the driver only reads the device pointer through `&Edu`.
unsafe impl Sync for Edu {}

impl Edu {
    /// The edu device, its DMA limited to 32 bits as the VM specs ask.
    fn get() -> Option<Edu> {
        // SAFETY: no arguments; returns a counted reference or NULL.
        let edu = Edu(NonNull::new(unsafe { dg_rust_example_edu_get() })?);
        let dev = edu.0.as_ptr().cast::<bindings::device>();
        // SAFETY: `dev` is the live device of the reference just taken.
        let ret = unsafe {
            bindings::dma_set_mask(dev, 0xffff_ffff)
                | bindings::dma_set_coherent_mask(dev, 0xffff_ffff)
        };
        (ret == 0).then_some(edu)
    }

    /// The device, as dmaguard's opaque declaration of it.
    fn dg_dev(&self) -> *mut sys::device {
        self.0.as_ptr()
    }
}

impl Drop for Edu {
    fn drop(&mut self) {
        // SAFETY: gives back the reference `dg_rust_example_edu_get()` took.
        unsafe { dg_rust_example_edu_put(self.0.as_ptr()) };
    }
}

/// KTAP results, numbered from 1.
#[derive(Default)]
struct Ktap {
    cases: u32,
    failed: u32,
}

impl Ktap {
    fn result(&mut self, ok: bool, name: &str) {
        self.cases += 1;
        if ok {
            pr_info!("ok {} {}\n", self.cases, name);
        } else {
            self.failed += 1;
            pr_info!("not ok {} {}\n", self.cases, name);
        }
    }
}

/// Says which check failed, then makes the case fail.
macro_rules! check {
    ($cond:expr) => {
        if !$cond {
            pr_info!("# line {}: failed: {}\n", line!(), stringify!($cond));
            return false;
        }
    };
}

/// The value of a dmaguard call, or the case fails naming the error.
macro_rules! dg {
    ($call:expr) => {
        match $call {
            Ok(v) => v,
            Err(e) => {
                pr_info!(
                    "# line {}: {} failed: {:?}\n",
                    line!(),
                    stringify!($call),
                    e
                );
                return false;
            }
        }
    };
}

fn gfp_kernel() -> Gfp {
    Gfp(bindings::GFP_KERNEL)
}

fn version() -> bool {
    // SAFETY: no arguments, no state.
    let v = unsafe { sys::dmaguard_version() };
    pr_info!(
        "# module version {}.{}, built against {}.{}\n",
        v >> 16,
        v & 0xffff,
        sys::DMAGUARD_VERSION_MAJOR,
        sys::DMAGUARD_VERSION_MINOR
    );
    check!(v >> 16 == sys::DMAGUARD_VERSION_MAJOR);
    check!(v & 0xffff >= sys::DMAGUARD_VERSION_MINOR);
    true
}

/// The ring: blocks owned by a vector, chained by bus address.
fn ring_alloc<'a>(pool: &'a Pool, ring: &mut KVec<Block<'a>>) -> bool {
    for _ in 0..RING {
        let d = dg!(pool.alloc(gfp_kernel()));
        check!(d.dma_handle() % DESC as u64 == 0);
        check!(d.as_ptr() as usize % DESC == 0);
        check!(d.dma_handle() / BOUNDARY == (d.dma_handle() + DESC as u64 - 1) / BOUNDARY);
        check!(ring.push(d, GFP_KERNEL).is_ok());
    }
    let mut dma = KVec::with_capacity(RING, GFP_KERNEL).unwrap_or_default();
    for d in ring.iter() {
        check!(dma.push(d.dma_handle(), GFP_KERNEL).is_ok());
    }
    // The engine's descriptor: next (le64), buf (le64), len, flags, cookie.
    for (i, d) in ring.iter_mut().enumerate() {
        dg!(d.write_u64(0, dma[(i + 1) % RING].to_le()));
        dg!(d.write_u64(8, 0));
        dg!(d.write_u32(16, (i as u32).to_le()));
        dg!(d.write_u32(20, 0));
        dg!(d.write_u64(24, (0xd000_0000u64 + i as u64).to_le()));
    }
    // No two descriptors overlap, and every one kept its contents.
    dma.sort_unstable();
    check!(dma.windows(2).all(|w| w[1] - w[0] >= DESC as u64));
    for (i, d) in ring.iter().enumerate() {
        check!(u64::from_le(dg!(d.read_u64(0))) == ring[(i + 1) % RING].dma_handle());
        check!(u32::from_le(dg!(d.read_u32(16))) == i as u32);
        check!(u64::from_le(dg!(d.read_u64(24))) == 0xd000_0000 + i as u64);
    }
    true
}

fn stats(pool: &Pool, in_use: u64) -> bool {
    let st = dg!(pool.stats());
    pr_info!(
        "# stats: block {} stride {} chunk {}, {}/{} blocks in {} chunks, {} bytes out of line\n",
        st.block_size,
        st.stride,
        st.chunk_size,
        st.blocks_in_use,
        st.blocks_total,
        st.chunks,
        st.meta_bytes
    );
    check!(st.sz as usize == core::mem::size_of_val(&st));
    check!(st.block_size as usize == DESC && st.stride as usize == DESC);
    check!(st.blocks_in_use == in_use && st.blocks_total >= in_use);
    check!(
        st.bad_free_foreign + st.bad_free_misaligned + st.bad_free_dma + st.bad_free_double == 0
    );
    true
}

/// Descriptors are refilled under the driver's spinlock: GFP_ATOMIC.
fn atomic(pool: &Pool) -> bool {
    let lock = match KBox::pin_init(new_spinlock!(0u32), GFP_KERNEL) {
        Ok(l) => l,
        Err(_) => return false,
    };
    let got = {
        let mut guard = lock.lock();
        let blocks: [Option<Block<'_>>; 8] =
            core::array::from_fn(|_| pool.alloc(Gfp(bindings::GFP_ATOMIC)).ok());
        *guard = blocks.iter().flatten().count() as u32;
        // The blocks go back here, still under the lock.
        *guard as usize
    };
    check!(got == 8);
    true
}

/// The extensible form, and zeroing of a reused block.
fn opts_zalloc(edu: &Edu) -> bool {
    let opts = PoolOptions {
        align: 64,
        ..PoolOptions::new(c"ex-cmd", 200)
    };
    // SAFETY: the edu device outlives the pool (dropped at the end here).
    let pool = dg!(unsafe { Pool::new(edu.dg_dev(), &opts) });
    let mut b = dg!(pool.alloc(gfp_kernel()));
    dg!(b.write(0, &[0xa5; 200]));
    drop(b);
    let b = dg!(pool.alloc_zeroed(gfp_kernel()));
    let mut buf = [0xffu8; 200];
    dg!(b.read(0, &mut buf));
    check!(b.len() == 200 && b.dma_handle() % 64 == 0);
    check!(buf.iter().all(|&x| x == 0));
    true
}

/// What the types cannot prevent gets the C side's answer, not UB.
fn errors(edu: &Edu) -> bool {
    // SAFETY (all three): the edu device outlives each pool.
    check!(matches!(
        unsafe { Pool::create(edu.dg_dev(), c"ex-zero", 0, 0, 0) },
        Err(DgError::Inval)
    ));
    let odd = PoolOptions {
        align: 24,
        ..PoolOptions::new(c"ex-odd", 32)
    };
    check!(matches!(
        unsafe { Pool::new(edu.dg_dev(), &odd) },
        Err(DgError::Inval)
    ));
    let pool = dg!(unsafe { Pool::create(edu.dg_dev(), c"ex-foreign", 64, 64, 0) });
    let b = dg!(pool.alloc(gfp_kernel()));
    // A foreign handle: memory of the kernel heap, never a block of the
    // pool. dmaguard checks every free against its own chunks.
    let mut heap = match KBox::new([0u8; 64], GFP_KERNEL) {
        Ok(h) => h,
        Err(_) => return false,
    };
    // SAFETY: `heap` is no block of any pool, so no owner can be hurt;
    // dmaguard refuses the free and counts it.
    unsafe { pool.free_raw(heap.as_mut_ptr(), b.dma_handle()) };
    let st = dg!(pool.stats());
    check!(st.bad_free_foreign == 1 && st.blocks_in_use == 1);
    drop(b);
    check!(dg!(pool.stats()).blocks_in_use == 0);
    true
}

/// The pinned pages hold what the process wrote: byte i is (u8)i.
fn pages_hold_pattern(pin: &Pinned<'_>) -> bool {
    for (n, &page) in pin.pages().iter().enumerate() {
        // SAFETY: a page of the pinned range, pinned while `pin` lives.
        let v = unsafe { bindings::kmap_local_page(page.cast()) }.cast::<u8>();
        // SAFETY: a mapped page of 4096 bytes, unmapped right after.
        let ok = (0..4096).all(|i| unsafe { v.add(i).read() } == (n * 4096 + i) as u8);
        // SAFETY: the mapping made above.
        unsafe { bindings::kunmap_local(v.cast()) };
        if !ok {
            return false;
        }
    }
    true
}

fn pin_steps(cache: &PinCache, uaddr: usize) -> bool {
    {
        let pin = dg!(cache.get(uaddr, PIN_LEN, true));
        check!(pin.nr_pages() == PIN_PAGES && pin.offset() == 0);
        check!(pages_hold_pattern(&pin));
        let sgt = match pin.sgt() {
            Some(s) => s,
            None => return false,
        };
        // SAFETY: the cache's mapped sg_table, valid while `sgt` (which
        // borrows `pin`) lives.
        let sgl = unsafe { (*sgt.as_ptr().cast::<bindings::sg_table>()).sgl };
        // SAFETY: the first segment of that table.
        check!(unsafe { (*sgl).dma_length } >= 4096);
        let part = dg!(cache.get(uaddr + 4096 + 8, 100, false));
        check!(part.pages()[0] == pin.pages()[1] && part.offset() == 8);
    }
    let st = dg!(cache.stats());
    check!(st.misses == 1 && st.hits == 1 && st.handles == 0);
    check!(st.pinned_bytes == PIN_LEN as u64);
    // The process unmaps the buffer: no longer cached (the pins go at the
    // next call or at destroy), nothing held.
    // SAFETY: unmaps what pin_user_buffer() mapped in this process.
    check!(unsafe { bindings::vm_munmap(uaddr as _, PIN_LEN) } == 0);
    let st = dg!(cache.stats());
    check!(st.invalidations == 1 && st.entries_indexed == 0);
    true
}

/// Pin a buffer of the process the driver runs for (insmod's, here).
fn pin_user_buffer(edu: &Edu) -> bool {
    const PROT_READ_WRITE: usize = 0x1 | 0x2;
    const MAP_PRIVATE_ANONYMOUS: usize = 0x02 | 0x20;

    // SAFETY: a new anonymous mapping in the current process.
    let uaddr = unsafe {
        bindings::vm_mmap(
            core::ptr::null_mut(),
            0,
            PIN_LEN,
            PROT_READ_WRITE,
            MAP_PRIVATE_ANONYMOUS,
            0,
        )
    };
    check!(uaddr < usize::MAX - 4095);
    let mut pattern = [0u8; 4096];
    let mut writer = UserSlice::new(uaddr, PIN_LEN).writer();
    for page in 0..PIN_PAGES {
        for (i, b) in pattern.iter_mut().enumerate() {
            *b = (page * 4096 + i) as u8;
        }
        check!(writer.write_slice(&pattern).is_ok());
    }
    let opts = PinOptions {
        max_bytes: 1 << 20,
        ..PinOptions::default()
    };
    // SAFETY: the edu device outlives the cache (dropped at the end here).
    let cache = match unsafe { PinCache::with_device(edu.dg_dev(), &opts) } {
        Ok(c) => c,
        Err(e) => {
            pr_info!("# pin cache: {:?}\n", e);
            // SAFETY: unmaps what was mapped above.
            unsafe { bindings::vm_munmap(uaddr as _, PIN_LEN) };
            return false;
        }
    };
    pin_steps(&cache, uaddr)
}

/// The ring cases share one pool; the ring borrows it.
fn ring_cases(ktap: &mut Ktap, edu: &Edu) {
    // SAFETY: the edu device outlives the pool, dropped at the end here.
    let pool = unsafe { Pool::create(edu.dg_dev(), c"ex-desc", DESC, DESC, BOUNDARY as usize) };
    let pool = match pool {
        Ok(p) => p,
        Err(e) => {
            pr_info!("# pool: {:?}\n", e);
            for name in ["ring_alloc", "stats", "atomic", "ring_free"] {
                ktap.result(false, name);
            }
            return;
        }
    };
    let mut ring = KVec::new();
    let ok = ring_alloc(&pool, &mut ring);
    ktap.result(ok, "ring_alloc");
    ktap.result(ok && stats(&pool, RING as u64), "stats");
    ktap.result(ok && atomic(&pool) && stats(&pool, RING as u64), "atomic");
    drop(ring);
    ktap.result(ok && stats(&pool, 0), "ring_free");
}

struct RustExample;

impl kernel::Module for RustExample {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("KTAP version 1\n");
        pr_info!("1..8\n");
        let edu = Edu::get().ok_or(ENODEV)?;
        let mut ktap = Ktap::default();
        ktap.result(version(), "version");
        ring_cases(&mut ktap, &edu);
        ktap.result(opts_zalloc(&edu), "opts_zalloc");
        ktap.result(errors(&edu), "errors");
        ktap.result(pin_user_buffer(&edu), "pin_user_buffer");
        pr_info!("# {} of {} cases failed\n", ktap.failed, ktap.cases);
        Ok(RustExample)
    }
}
