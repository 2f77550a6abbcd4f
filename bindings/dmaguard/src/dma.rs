// SPDX-License-Identifier: GPL-2.0
//! Typed access to device-visible memory: the [`Plain`] types a block may
//! be read and written as, the [`dma_descriptor!`](crate::dma_descriptor)
//! macro that declares a descriptor and proves it plain at compile time,
//! the field accessors [`dma_read!`](crate::dma_read) and
//! [`dma_write!`](crate::dma_write), and the DMA barriers.
//!
//! A device may write a block at any time, so no Rust reference to block
//! memory is ever made: a read or write is one volatile access of a plain
//! value through a raw pointer, checked against the block's bounds and the
//! value's alignment. Plain types make every access sound whatever the
//! device left there: every bit pattern is a value, and there are no
//! padding bytes to leak or pointers to forge.
//!
//! Shared with the kernel module build: refers to the raw bindings only
//! through `super::` paths, and to nothing but `core::`. The macros are
//! exported at the root of the crate that compiles this file: `dmaguard::`
//! in the cargo build, the driver's own `crate::` in a kernel module; they
//! name [`Plain`] unqualified, so the caller imports it.

use super::sys;

/// Plain data: a `Copy` type that any bit pattern is a valid value of,
/// without padding bytes, pointers or references; what device memory may
/// be read and written as (Rust-for-Linux's `FromBytes + AsBytes`).
///
/// Implemented for the fixed-size integers and arrays of plain types;
/// descriptor structs get it from [`dma_descriptor!`](crate::dma_descriptor),
/// which checks both conditions at compile time.
///
/// # Safety
///
/// Every bit pattern of `size_of::<Self>()` bytes is a valid value, and
/// the type has no padding (every byte of a value is part of a field).
///
/// ```
/// use dmaguard::dma::Plain;
/// fn plain<T: Plain>() {}
/// plain::<u64>();
/// plain::<[u32; 4]>();
/// ```
pub unsafe trait Plain: Copy + 'static {}

macro_rules! plain_ints {
    ($($t:ty),*) => {
        // SAFETY: integers: every bit pattern is a value, no padding.
        $(unsafe impl Plain for $t {})*
    };
}
plain_ints!(u8, u16, u32, u64, i8, i16, i32, i64);

// SAFETY: an array has no padding between elements of a plain type (its
// stride is the element's size) and every pattern of each is valid.
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// Declare a `#[repr(C)]` descriptor struct of plain fields, and make it
/// [`Plain`]: compilation fails for a field that is not plain (a pointer,
/// a reference, a `bool`: E0277) and for a struct with padding (E0080).
///
/// [`Plain`] must be in scope where the macro is used.
///
/// ```
/// use dmaguard::dma::Plain;
/// dmaguard::dma_descriptor! {
///     /// One entry of an imaginary engine's ring.
///     pub struct Desc {
///         pub next: u64,
///         pub buf: u64,
///         pub len: u32,
///         pub flags: u32,
///     }
/// }
/// assert_eq!(core::mem::size_of::<Desc>(), 24);
/// ```
#[macro_export]
macro_rules! dma_descriptor {
    (
        $(#[doc = $doc:expr])*
        $vis:vis struct $name:ident {
            $($(#[doc = $fdoc:expr])* $fvis:vis $field:ident : $fty:ty),+ $(,)?
        }
    ) => {
        // Only doc attributes are accepted: `#[repr(packed)]`, `#[cfg]` or
        // another `#[repr]` would change the layout the checks below see.
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis struct $name {
            $($(#[doc = $fdoc])* $fvis $field: $fty),+
        }

        const _: () = {
            // Fails to compile (E0277) for a field type that is not Plain.
            const fn plain_size<T: Plain>() -> usize {
                ::core::mem::size_of::<T>()
            }
            // Every field is a field of the struct itself.
            $(let _ = ::core::mem::offset_of!($name, $field);)+
            // Fails to evaluate (E0080) when the fields leave padding.
            ::core::assert!(
                ::core::mem::size_of::<$name>() == 0 $(+ plain_size::<$fty>())+,
                ::core::concat!(
                    ::core::stringify!($name),
                    " has padding: reorder or pad its fields explicitly"
                )
            );
        };

        // SAFETY: `#[repr(C)]` and nothing else, every field is Plain
        // (checked above), and the fields' sizes add up to the struct's
        // size: no padding.
        unsafe impl Plain for $name {}
    };
}

/// Read one field of a descriptor in a block: `dma_read!(block, Desc,
/// field)` is a `Result` of the field's value, one volatile load. `block`
/// is a place of type [`Block`](crate::pool::Block) (a binding, an
/// element, `*r` for a reference); nothing else is accepted.
///
/// ```
/// use dmaguard::dma::Plain;
/// use dmaguard::pool::Pool;
/// use dmaguard::user::{device, GFP_KERNEL};
/// dmaguard::dma_descriptor! { struct Desc { addr: u64, len: u32, own: u32 } }
/// let pool = Pool::for_type::<Desc>(&device(), c"ring")?;
/// let mut d = pool.alloc_zeroed(GFP_KERNEL)?;
/// dmaguard::dma_write!(d, Desc, len, 512)?;
/// assert_eq!(dmaguard::dma_read!(d, Desc, len)?, 512);
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[macro_export]
macro_rules! dma_read {
    ($block:expr, $ty:ty, $field:ident) => {
        // By path, not by method name: only a block is accepted. The
        // offset of a field of `$ty` itself (never one through a Deref),
        // and a safe witness of its type, which nothing calls.
        $crate::dmaguard::pool::Block::read_field_at::<$ty, _>(
            &$block,
            ::core::mem::offset_of!($ty, $field),
            |d: &$ty| &d.$field,
        )
    };
}

/// Write one field of a descriptor in a block: `dma_write!(block, Desc,
/// field, value)` is a `Result`, one volatile store. The block is borrowed
/// mutably.
///
/// ```
/// use dmaguard::dma::Plain;
/// use dmaguard::pool::Pool;
/// use dmaguard::user::{device, GFP_KERNEL};
/// dmaguard::dma_descriptor! { struct Desc { addr: u64, len: u32, own: u32 } }
/// let pool = Pool::for_type::<Desc>(&device(), c"ring")?;
/// let mut d = pool.alloc_zeroed(GFP_KERNEL)?;
/// dmaguard::dma_write!(d, Desc, addr, 0x1000)?;
/// dmaguard::dma::dma_wmb(); // the fields before the ownership bit
/// dmaguard::dma_write!(d, Desc, own, 1)?;
/// assert_eq!(d.read_as::<Desc>(0)?, Desc { addr: 0x1000, len: 0, own: 1 });
/// # Ok::<(), dmaguard::error::Error>(())
/// ```
#[macro_export]
macro_rules! dma_write {
    ($block:expr, $ty:ty, $field:ident, $val:expr) => {
        // As `dma_read!`; `&mut`: a shared borrow of a block cannot write.
        $crate::dmaguard::pool::Block::write_field_at::<$ty, _>(
            &mut $block,
            ::core::mem::offset_of!($ty, $field),
            |d: &$ty| &d.$field,
            $val,
        )
    };
}

/// The kernel's `dma_wmb()`: the CPU's earlier stores to coherent DMA
/// memory are seen by the device before its later ones (a descriptor's
/// fields before the store that hands it over).
///
/// ```
/// dmaguard::dma::dma_wmb();
/// ```
pub fn dma_wmb() {
    // SAFETY: no arguments, any context (`<dmaguard/pool.h>`).
    unsafe { sys::dmaguard_dma_wmb() }
}

/// The kernel's `dma_rmb()`: the CPU's earlier loads from coherent DMA
/// memory complete before its later ones (the completion flag before the
/// fields the device wrote with it).
///
/// ```
/// dmaguard::dma::dma_rmb();
/// ```
pub fn dma_rmb() {
    // SAFETY: no arguments, any context (`<dmaguard/pool.h>`).
    unsafe { sys::dmaguard_dma_rmb() }
}
