// SPDX-License-Identifier: GPL-2.0

//! Example consumer of dmaguard in Rust, written the way a driver is:
//! built out of tree against a kernel with CONFIG_RUST from dmaguard's
//! Module.symvers and the safe layer of `bindings/` (the same source files
//! `cargo test` runs in userspace).
//!
//! It drives a small DMA engine made of QEMU's edu PCI device (1234:11e8):
//! a ring of 32-byte descriptors from a dmaguard pool, each naming a piece
//! of a user buffer (pinned through the pin cache) and a landing block
//! (from a second pool). Its private data, [`EduDriver`], owns the pools,
//! the ring, the pin cache and the I/Os in flight; probe (module init)
//! submits I/Os, a work item on the system workqueue runs the engine and
//! completes them, and the driver's teardown drops it all. The engine's
//! device really moves the bytes: it reads each descriptor and payload by
//! DMA and writes the landing block and the descriptor's status word by
//! DMA, through the VM's IOMMU when it has one. Each step is one KTAP case
//! on the console.

use core::sync::atomic::{AtomicU32, Ordering};
use kernel::bindings;
use kernel::prelude::*;
use kernel::sync::{new_spinlock, Arc, SpinLock};
use kernel::uaccess::UserSlice;
use kernel::workqueue::{self, impl_has_work, new_work, Work, WorkItem};

#[path = "bindings/dmaguard/kmod.rs"]
mod dmaguard;

use dmaguard::device::Device;
use dmaguard::dma::{dma_rmb, dma_wmb, Plain};
use dmaguard::error::Error as DgError;
use dmaguard::gfp::Gfp;
use dmaguard::pin::{PinCache, PinOptions, Pinned};
use dmaguard::pool::{Block, Pool, PoolOptions};
use dmaguard::sys;

module! {
    type: RustExample,
    name: "dmaguard_rust_example",
    author: "dmaguard developers",
    description: "Example out-of-tree Rust driver over the dmaguard v1 ABI (KTAP)",
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

const RING: usize = 16;
const IOS: usize = 6;
const XFER: usize = 256;
const BUF_PAGES: usize = 4;
const BUF_LEN: usize = BUF_PAGES * 4096;
const DESC_SIZE: usize = core::mem::size_of::<Desc>();

crate::dma_descriptor! {
    /// One descriptor of the engine's ring (little-endian fields).
    struct Desc {
        /// Bus address of the next descriptor: the ring is chained.
        next: u64,
        /// Bus address the engine reads the payload from.
        src: u64,
        /// Bus address of the landing block it writes.
        dst: u64,
        /// Payload bytes.
        len: u32,
        /// `OWN` (the engine's), then `DONE` or `ERR` (the engine wrote it).
        ctrl: u32,
    }
}

const OWN: u32 = 1;
const DONE: u32 = 2;
const ERR: u32 = 4;

/// The opaque state of edu_engine.c.
#[repr(C)]
struct EduC {
    _private: [u8; 0],
}

// edu_engine.c: 6.12's Rust bindings have no PCI or MMIO functions.
extern "C" {
    fn dg_rust_example_edu_get() -> *mut EduC;
    fn dg_rust_example_edu_put(edu: *mut EduC);
    fn dg_rust_example_edu_dev(edu: *mut EduC) -> *mut sys::device;
    fn dg_rust_example_edu_copy(edu: *mut EduC, src: u64, dst: u64, len: u32) -> i32;
    fn dg_rust_example_dma_at(sgt: *mut sys::sg_table, off: u64, len: u32) -> u64;
}

/// The edu device, its registers mapped, held until dropped.
struct Edu(core::ptr::NonNull<EduC>);

// SAFETY: the handle is a counted PCI reference and an MMIO mapping, both
// usable from any task; the engine's copies run from one work item at a
// time (a work item never runs concurrently with itself).
unsafe impl Send for Edu {}
// SAFETY: as for Send; `&Edu` is used by the work item only.
unsafe impl Sync for Edu {}

impl Edu {
    fn get() -> Option<Edu> {
        // SAFETY: no arguments; returns an owned handle or NULL.
        core::ptr::NonNull::new(unsafe { dg_rust_example_edu_get() }).map(Edu)
    }

    /// The device's `struct device`, counted for the pools and the cache.
    fn device(&self) -> Option<Device> {
        // SAFETY: `self` holds a reference on the PCI device.
        unsafe { Device::from_raw(dg_rust_example_edu_dev(self.0.as_ptr())) }
    }

    /// The device copies `len` bytes from bus address `src` to `dst`.
    fn copy(&self, src: u64, dst: u64, len: usize) -> bool {
        // SAFETY: a live handle; the C side checks `len` and sleeps.
        unsafe { dg_rust_example_edu_copy(self.0.as_ptr(), src, dst, len as u32) == 0 }
    }
}

impl Drop for Edu {
    fn drop(&mut self) {
        // SAFETY: gives back what `dg_rust_example_edu_get()` returned.
        unsafe { dg_rust_example_edu_put(self.0.as_ptr()) };
    }
}

/// One I/O in flight: its descriptor, the user bytes it reads (pinned
/// until it completes) and the block the engine writes.
struct Io {
    _src: Pinned,
    dst: Block,
    pattern: u8,
}

/// What the submit path and the completion share, under the ring lock:
/// the descriptors, the I/O of each slot, and the slots in flight,
/// `head` (the oldest) up to `tail` (the next to fill).
struct Ring {
    descs: KVec<Block>,
    ios: KVec<Option<Io>>,
    head: usize,
    tail: usize,
}

/// The driver's private data: everything it allocated, in one struct,
/// used from probe, the work item and teardown. Fields drop in this order:
/// the ring (its blocks and pins), the cache, the pools, the device last.
#[pin_data]
struct EduDriver {
    #[pin]
    ring: SpinLock<Ring>,
    #[pin]
    work: Work<EduDriver>,
    cache: PinCache,
    landing: Pool,
    descs: Pool,
    edu: Edu,
    completed: AtomicU32,
    bad: AtomicU32,
}

impl_has_work! {
    impl HasWork<Self> for EduDriver { self.work }
}

fn gfp_kernel() -> Gfp {
    Gfp(bindings::GFP_KERNEL)
}

fn dg(e: DgError) -> Error {
    Error::from_errno(e.to_errno())
}

impl EduDriver {
    /// Probe: the pools, the chained ring, the pin cache.
    fn probe() -> Result<Arc<EduDriver>> {
        let edu = Edu::get().ok_or(ENODEV)?;
        let dev = edu.device().ok_or(ENODEV)?;
        let opts = PoolOptions {
            align: DESC_SIZE,
            boundary: 4096,
            ..PoolOptions::new(c"ex-desc", DESC_SIZE)
        };
        let descs = Pool::new(&dev, &opts).map_err(dg)?;
        let landing = Pool::create(&dev, c"ex-landing", XFER + DESC_SIZE, 64, 0).map_err(dg)?;
        let mut ring = KVec::with_capacity(RING, GFP_KERNEL)?;
        for _ in 0..RING {
            ring.push(descs.alloc_zeroed(gfp_kernel()).map_err(dg)?, GFP_KERNEL)?;
        }
        for i in 0..RING {
            let next = ring[(i + 1) % RING].dma_handle();
            crate::dma_write!(ring[i], Desc, next, next.to_le()).map_err(dg)?;
        }
        let cache = PinCache::with_device(
            &dev,
            &PinOptions {
                max_bytes: 1 << 20,
                ..PinOptions::default()
            },
        )
        .map_err(dg)?;
        let mut ios = KVec::with_capacity(RING, GFP_KERNEL)?;
        for _ in 0..RING {
            ios.push(None, GFP_KERNEL)?;
        }
        Arc::pin_init(
            pin_init!(EduDriver {
                edu,
                descs,
                landing,
                cache,
                ring <- new_spinlock!(Ring { descs: ring, ios, head: 0, tail: 0 }, "ex-ring"),
                work <- new_work!("EduDriver::work"),
                completed: AtomicU32::new(0),
                bad: AtomicU32::new(0),
            }),
            GFP_KERNEL,
        )
    }

    /// Submit one I/O: pin `len` user bytes at `uaddr`, take a landing
    /// block (GFP_ATOMIC: under the ring lock), fill the next descriptor,
    /// then hand it to the engine: its fields before its ownership word.
    fn submit(&self, uaddr: usize, pattern: u8) -> core::result::Result<(), DgError> {
        let src = self.cache.get(uaddr, XFER, false)?;
        let sgt = src.sgt().ok_or(DgError::Inval)?;
        // SAFETY: the cache's mapped table, valid while `src` is held.
        let src_dma = unsafe { dg_rust_example_dma_at(sgt.as_ptr(), src.sgt_offset(), XFER as u32) };
        if src_dma == 0 {
            return Err(DgError::Inval);
        }
        let mut ring = self.ring.lock();
        let slot = ring.tail;
        // A free slot holds no I/O: nothing is put under the lock below.
        if (slot + 1) % RING == ring.head || ring.ios[slot].is_some() {
            return Err(DgError::NoSpc);
        }
        let dst = self.landing.alloc_zeroed(Gfp(bindings::GFP_ATOMIC))?;
        let d = &mut ring.descs[slot];
        crate::dma_write!(*d, Desc, src, src_dma.to_le())?;
        crate::dma_write!(*d, Desc, dst, dst.dma_handle().to_le())?;
        crate::dma_write!(*d, Desc, len, (XFER as u32).to_le())?;
        dma_wmb();
        crate::dma_write!(*d, Desc, ctrl, OWN.to_le())?;
        ring.ios[slot] = Some(Io {
            _src: src,
            dst,
            pattern,
        });
        ring.tail = (slot + 1) % RING;
        Ok(())
    }

    /// The engine: for each descriptor it owns, the device copies the
    /// descriptor itself (32 bytes, from its bus address) and the payload
    /// into the landing block, then writes `DONE` into the descriptor's
    /// `ctrl` word by DMA. The lock is not held while the device runs.
    fn engine(&self, done_word: &Block) {
        let (head, tail) = {
            let ring = self.ring.lock();
            (ring.head, ring.tail)
        };
        let mut slot = head;
        while slot != tail {
            let this = slot;
            slot = (slot + 1) % RING;
            let (desc_dma, src, dst, len) = {
                let ring = self.ring.lock();
                let d = &ring.descs[this];
                if crate::dma_read!(d, Desc, ctrl).map(u32::from_le) != Ok(OWN) {
                    continue;
                }
                dma_rmb();
                let f = |v: core::result::Result<u64, DgError>| v.map(u64::from_le).unwrap_or(0);
                (
                    d.dma_handle(),
                    f(crate::dma_read!(d, Desc, src)),
                    f(crate::dma_read!(d, Desc, dst)),
                    crate::dma_read!(d, Desc, len).map(u32::from_le).unwrap_or(0) as usize,
                )
            };
            let ok = len == XFER
                && self.edu.copy(src, dst, len)
                && self.edu.copy(desc_dma, dst + XFER as u64, DESC_SIZE)
                && self.edu.copy(
                    done_word.dma_handle(),
                    desc_dma + core::mem::offset_of!(Desc, ctrl) as u64,
                    4,
                );
            if !ok {
                let mut ring = self.ring.lock();
                let _ = crate::dma_write!(ring.descs[this], Desc, ctrl, ERR.to_le());
            }
        }
    }

    /// The completion: the I/Os whose descriptor the engine finished, in
    /// order; each landing block must hold the user's bytes and a copy of
    /// its descriptor. Their pins are put and blocks freed outside the
    /// lock (a put may sleep).
    fn complete(&self) {
        let Ok(mut done) = KVec::with_capacity(RING, GFP_KERNEL) else {
            self.bad.fetch_add(1, Ordering::Relaxed);
            return;
        };
        {
            let mut ring = self.ring.lock();
            // `done` has room for every slot: no push below allocates or
            // fails, and no pin is put under the lock.
            while ring.head != ring.tail && done.len() < done.capacity() {
                let slot = ring.head;
                let ctrl = crate::dma_read!(ring.descs[slot], Desc, ctrl).map(u32::from_le);
                if ctrl != Ok(DONE) && ctrl != Ok(ERR) {
                    break;
                }
                dma_rmb();
                let seen = ring.descs[slot].read_as::<Desc>(0);
                let _ = crate::dma_write!(ring.descs[slot], Desc, ctrl, 0);
                ring.head = (slot + 1) % RING;
                match ring.ios[slot].take() {
                    Some(io) => {
                        let _ = done.push((io, ctrl, seen), GFP_ATOMIC);
                    }
                    None => {
                        self.bad.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }
        for (io, ctrl, seen) in done {
            if !self.landed(&io, ctrl, seen) {
                self.bad.fetch_add(1, Ordering::Relaxed);
            }
            // The pin put and the landing block freed before the count
            // says so: the waiter then reads the statistics.
            drop(io);
            self.completed.fetch_add(1, Ordering::Release);
        }
    }

    /// What the device wrote: the payload, then the descriptor as the
    /// driver had handed it over (`ctrl` still `OWN` when it was fetched).
    fn landed(
        &self,
        io: &Io,
        ctrl: core::result::Result<u32, DgError>,
        seen: core::result::Result<Desc, DgError>,
    ) -> bool {
        let mut got = [0u8; XFER];
        if ctrl != Ok(DONE) || io.dst.read(0, &mut got).is_err() {
            return false;
        }
        let payload = got.iter().enumerate().all(|(i, &b)| b == io.pattern ^ i as u8);
        let fetched = io.dst.read_as::<Desc>(XFER);
        let expect = seen.map(|d| Desc {
            ctrl: OWN.to_le(),
            ..d
        });
        payload && fetched.is_ok() && fetched == expect
    }
}

impl WorkItem for EduDriver {
    type Pointer = Arc<EduDriver>;

    fn run(this: Arc<EduDriver>) {
        // The status word the device copies into a finished descriptor.
        let done_word = this.landing.alloc(gfp_kernel()).and_then(|mut b| {
            b.write_as::<u32>(0, DONE.to_le())?;
            Ok(b)
        });
        match done_word {
            Ok(w) => this.engine(&w),
            Err(_) => {
                this.bad.fetch_add(1, Ordering::Relaxed);
            }
        }
        this.complete();
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

/// The ring as probe left it: chained, aligned, within 4 KiB, zeroed.
fn ring_ready(drv: &EduDriver) -> bool {
    let ring = drv.ring.lock();
    for (i, d) in ring.descs.iter().enumerate() {
        let next = crate::dma_read!(d, Desc, next).map(u64::from_le);
        check!(next == Ok(ring.descs[(i + 1) % RING].dma_handle()));
        check!(crate::dma_read!(d, Desc, ctrl) == Ok(0));
        check!(d.dma_handle() % DESC_SIZE as u64 == 0);
        check!(d.dma_handle() / 4096 == (d.dma_handle() + DESC_SIZE as u64 - 1) / 4096);
    }
    let Ok(st) = drv.descs.stats() else { return false };
    check!(st.blocks_in_use == RING as u64 && st.block_size as usize == DESC_SIZE);
    true
}

/// A buffer of the process the driver runs for (insmod's): page `p`,
/// byte `i` holds `pattern(p) ^ i`.
fn pattern(page: usize) -> u8 {
    0x5a ^ (page as u8 * 17)
}

fn user_buffer() -> Option<usize> {
    const PROT_READ_WRITE: usize = 0x1 | 0x2;
    const MAP_PRIVATE_ANONYMOUS: usize = 0x02 | 0x20;

    // SAFETY: a new anonymous mapping in the current process.
    let uaddr = unsafe {
        bindings::vm_mmap(core::ptr::null_mut(), 0, BUF_LEN, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, 0)
    };
    if uaddr >= usize::MAX - 4095 {
        return None;
    }
    let mut writer = UserSlice::new(uaddr, BUF_LEN).writer();
    let mut page = [0u8; 4096];
    for p in 0..BUF_PAGES {
        for (i, b) in page.iter_mut().enumerate() {
            *b = pattern(p) ^ i as u8;
        }
        if writer.write_slice(&page).is_err() {
            return None;
        }
    }
    Some(uaddr)
}

/// I/O `n` reads the first bytes of page `n % BUF_PAGES`: the later ones
/// hit the pin cache.
fn submit_all(drv: &EduDriver, uaddr: usize) -> bool {
    for n in 0..IOS {
        let page = n % BUF_PAGES;
        if let Err(e) = drv.submit(uaddr + page * 4096, pattern(page)) {
            pr_info!("# submit {}: {:?}\n", n, e);
            return false;
        }
    }
    let (Ok(land), Ok(pins)) = (drv.landing.stats(), drv.cache.stats()) else {
        return false;
    };
    pr_info!(
        "# in flight: {} landing blocks, {} pinned handles ({} misses, {} hits)\n",
        land.blocks_in_use,
        pins.handles,
        pins.misses,
        pins.hits
    );
    check!(land.blocks_in_use == IOS as u64);
    check!(pins.handles == IOS as u64);
    check!(pins.misses == BUF_PAGES as u64 && pins.hits == (IOS - BUF_PAGES) as u64);
    true
}

/// Until the work item completed every I/O, at most 120 s (when the
/// system workqueue runs it is the host's business; the spec's timeout
/// is the backstop).
fn wait_completed(drv: &EduDriver) -> bool {
    for _ in 0..12000 {
        if drv.completed.load(Ordering::Acquire) == IOS as u32 {
            break;
        }
        // SAFETY: sleeps; process context.
        unsafe { bindings::msleep(10) };
    }
    let (done, bad) = (drv.completed.load(Ordering::Acquire), drv.bad.load(Ordering::Relaxed));
    pr_info!("# {} of {} I/Os completed by the work item, {} bad\n", done, IOS, bad);
    check!(done == IOS as u32);
    check!(bad == 0);
    true
}

/// After completion: nothing in flight, pins put; the user unmaps the
/// buffer and the cache lets go of it.
fn pins_released(drv: &EduDriver, uaddr: usize) -> bool {
    let (Ok(land), Ok(st)) = (drv.landing.stats(), drv.cache.stats()) else {
        return false;
    };
    check!(land.blocks_in_use == 0);
    check!(st.handles == 0 && st.pinned_bytes == (BUF_PAGES * 4096) as u64);
    // SAFETY: unmaps what user_buffer() mapped in this process.
    check!(unsafe { bindings::vm_munmap(uaddr as _, BUF_LEN) } == 0);
    let Ok(st) = drv.cache.stats() else { return false };
    check!(st.invalidations == BUF_PAGES as u64 && st.entries_indexed == 0);
    true
}

/// What the types cannot prevent gets the C side's answer, not UB: a
/// foreign pair is refused and counted, a bad geometry refused.
fn errors(drv: &EduDriver) -> bool {
    check!(matches!(
        Pool::create(drv.descs.device(), c"ex-zero", 0, 0, 0),
        Err(DgError::Inval)
    ));
    let Ok(mut heap) = KBox::new([0u8; 64], GFP_KERNEL) else { return false };
    // SAFETY: `heap` is no block of any pool, so no owner can be hurt;
    // dmaguard refuses the free and counts it.
    unsafe { drv.landing.free_raw(heap.as_mut_ptr(), 0x1000) };
    let Ok(st) = drv.landing.stats() else { return false };
    check!(st.bad_free_foreign == 1);
    true
}

struct RustExample {
    drv: Option<Arc<EduDriver>>,
}

impl kernel::Module for RustExample {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        pr_info!("KTAP version 1\n");
        pr_info!("1..7\n");
        let mut ktap = Ktap::default();
        ktap.result(version(), "version");
        let drv = match EduDriver::probe() {
            Ok(d) => d,
            Err(e) => {
                pr_info!("# probe: {:?}\n", e);
                ktap.result(false, "probe");
                return Err(e);
            }
        };
        let module = RustExample { drv: Some(drv.clone()) };
        ktap.result(ring_ready(&drv), "probe");
        let uaddr = user_buffer();
        let submitted = uaddr.is_some_and(|u| submit_all(&drv, u));
        ktap.result(submitted, "submit");
        // The engine and the completion run on the system workqueue.
        let queued = workqueue::system().enqueue(drv.clone()).is_ok();
        ktap.result(queued && wait_completed(&drv), "engine_completes_by_dma");
        ktap.result(
            uaddr.is_some_and(|u| pins_released(&drv, u)),
            "pins_released_on_completion_and_munmap",
        );
        ktap.result(errors(&drv), "errors");
        let Ok(st) = drv.descs.stats() else { return Err(EINVAL) };
        ktap.result(
            st.bad_free_foreign + st.bad_free_misaligned + st.bad_free_dma + st.bad_free_double
                == 0,
            "ring_clean",
        );
        pr_info!("# {} of {} cases failed\n", ktap.failed, ktap.cases);
        Ok(module)
    }
}

impl Drop for RustExample {
    /// Teardown, as a driver's remove: let the work item finish, then drop
    /// the driver's data (in `EduDriver`'s field order).
    fn drop(&mut self) {
        if let Some(drv) = self.drv.take() {
            // SAFETY: the work_struct of a live, initialized `Work`.
            unsafe { bindings::flush_work(Work::raw_get(&drv.work)) };
            drop(drv);
        }
    }
}
