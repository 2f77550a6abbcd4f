// SPDX-License-Identifier: GPL-2.0
//
// GENERATED FILE, do not edit: `make bindings` (scripts/bindings/generate.sh)
// from the DMAGUARD_ASSERT_SIZE()/DMAGUARD_ASSERT_OFFSET() lines of
// abi/include/dmaguard/*.h: the sizes and offsets C is pinned to,
// checked at compile time against bindings.rs. A module body, as
// bindings.rs is (it names the structs unqualified).

// pin.h
const _: () = assert!(core::mem::size_of::<dmaguard_pin_opts>() == 24);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_opts, sz) == 0);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_opts, flags) == 4);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_opts, max_bytes) == 8);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_opts, max_entries) == 16);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_opts, node) == 20);
const _: () = assert!(core::mem::size_of::<dmaguard_pin>() == 48);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, sz) == 0);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, offset) == 4);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, priv_) == 8);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, pages) == 16);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, nr_pages) == 24);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, sgt) == 32);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin, sgt_offset) == 40);
const _: () = assert!(core::mem::size_of::<dmaguard_pin_stats>() == 96);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, sz) == 0);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, entries) == 4);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, entries_indexed) == 8);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, __reserved0) == 12);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, hits) == 16);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, misses) == 24);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, invalidations) == 32);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, inval_ignored) == 40);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, evictions) == 48);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, retries) == 56);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, pinned_bytes) == 64);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, handles) == 72);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, bad_puts) == 80);
const _: () = assert!(core::mem::offset_of!(dmaguard_pin_stats, prot_checks) == 88);

// pool.h
const _: () = assert!(core::mem::size_of::<dmaguard_pool_opts>() == 48);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, sz) == 0);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, flags) == 4);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, name) == 8);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, size) == 16);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, align) == 24);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, boundary) == 32);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, node) == 40);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_opts, __reserved0) == 44);
const _: () = assert!(core::mem::size_of::<dmaguard_pool_stats>() == 104);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, sz) == 0);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, block_size) == 4);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, stride) == 8);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, chunk_size) == 12);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, blocks_per_chunk) == 16);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, chunks) == 20);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, chunks_empty) == 24);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, __reserved0) == 28);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, blocks_in_use) == 32);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, blocks_total) == 40);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, chunks_allocated) == 48);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, chunks_released) == 56);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, meta_bytes) == 64);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, bad_free_foreign) == 72);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, bad_free_misaligned) == 80);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, bad_free_dma) == 88);
const _: () = assert!(core::mem::offset_of!(dmaguard_pool_stats, bad_free_double) == 96);
