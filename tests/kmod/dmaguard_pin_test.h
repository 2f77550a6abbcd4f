/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ioctls of dmaguard_pin_test.ko (/dev/dmaguard_pin_test), shared with
 * its guest programs tests/vm/bin/pin_*.c. Each open file is one
 * process's pin cache, with up to PT_SLOTS handles held, and may hold one
 * decoy buffer (PT_IOC_DECOY_*, below).
 */
#ifndef _DMAGUARD_PIN_TEST_H
#define _DMAGUARD_PIN_TEST_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <sys/ioctl.h>
/* musl has no <linux/types.h>; the compiler's own types, as the kernel's */
typedef __UINT8_TYPE__ __u8;
typedef __UINT32_TYPE__ __u32;
typedef __INT32_TYPE__ __s32;
typedef __UINT64_TYPE__ __u64;
#endif

#define PT_SLOTS	32
#define PT_DATA		256
#define PT_HEAD		16

/* pt_create.flags: map the entries for the test device (edu if any). */
#define PT_BIND_DEV	0x1

struct pt_create {
	__u32 flags;
	__u32 max_entries;
	__u64 max_bytes;
};

struct pt_get {
	__u64 addr;		/* in */
	__u64 len;		/* in */
	__u32 write;		/* in */
	__u32 slot;		/* out: for PT_READ and PT_PUT */
	__u64 nr_pages;		/* out */
	__u32 offset;		/* out */
	__u32 has_dma;		/* out: bound to edu: PT_READ_DMA works */
	__u64 dma;		/* out: DMA address of the first byte */
	__u8 head[PT_HEAD];	/* out: first bytes, read through the pages */
	__u32 cached_map;	/* out: the handle came with the entry's sgt */
	__u32 pad;
};

/* pt_read.how */
#define PT_READ_CPU	0	/* kmap_local_page() of the pinned pages */
#define PT_READ_DMA	1	/* the edu device reads them by DMA */

struct pt_read {
	__u32 slot;
	__u32 how;
	__u64 off;		/* from the first byte of the get */
	__u32 len;		/* at most PT_DATA */
	__u32 pad;
	__u8 data[PT_DATA];	/* out */
};

struct pt_stats {
	__u64 hits, misses, invalidations, inval_ignored, evictions, retries;
	__u64 pinned_bytes, handles;
	__u32 entries, entries_indexed;
	__u64 bad_puts, prot_checks;
};

/*
 * PT_IOC_HAMMER: @iters gets and puts of [addr, addr + len) in a row, with
 * the file's lock not held, so that several threads of a process run them
 * at once against one cache (while another changes the mapping).
 */
struct pt_hammer {
	__u64 addr, len;	/* in */
	__u32 iters, write;	/* in */
	__u64 ok, faults, other; /* out: gets that worked, -EFAULT, else */
	__s32 first_err;	/* out: the first "other" errno */
	__u32 again;		/* out: -EAGAIN (invalidations kept racing) */
};

/*
 * PT_IOC_BENCH: the per-I/O cost of [addr, addr + len), median of @reps
 * measurements of @iters each (ns per I/O): pin_user_pages_fast() +
 * unpin_user_pages() (plus, for a cache bound to the device, an sg_table
 * mapped and unmapped with dma_map_sgtable()), against a cache hit
 * (dmaguard_pin_get() + dmaguard_pin_put()).
 */
#define PT_BENCH_MAX_REPS	15
struct pt_bench {
	__u64 addr, len;	/* in */
	__u32 iters, reps;	/* in */
	__u32 write, pad;	/* in */
	__u64 pin_ns, hit_ns;	/* out: medians */
	__u32 mapped, pad2;	/* out: the pin side included the mapping */
};

/*
 * The decoy (tests/kmod/dmaguard_pin_decoy.c): a deliberately UNSAFE
 * pin-once cache, the io_uring fixed-buffer pattern, for the contrast of
 * tests/vm/bin/pin_contrast.c. PT_IOC_DECOY_REGISTER pins a page-aligned
 * range of at most PT_DECOY_MAX bytes and maps it for the device once;
 * PT_IOC_DECOY_READ has the edu device read, by DMA, the bytes "at" a user
 * address inside the registered range: from the pages pinned at
 * registration, whatever the process has mapped there since. One decoy
 * per open file, released (unmapped, unpinned) with the file.
 */
#define PT_DECOY_MAX	(64 * 4096)

struct pt_decoy_reg {
	__u64 addr, len;	/* in: page-aligned */
	__u64 dma;		/* out: DMA address of the first byte */
};

struct pt_decoy_read {
	__u64 addr;		/* in: a user address in the registered range */
	__u32 len;		/* in: at most PT_DATA, in one DMA segment */
	__u32 pad;
	__u8 data[PT_DATA];	/* out: what the device read */
};

/*
 * PT_IOC_DESTROY_RACE: @rounds rounds, each on a cache of its own (not the
 * file's): destroy racing the last put (a work item puts on another CPU),
 * then two last puts racing each other after a destroy. The user range
 * [addr, addr + len) (len >= 4 pages) gives the entries; KASAN and
 * slub_debug watch.
 */
struct pt_race {
	__u64 addr, len;	/* in */
	__u32 rounds, pad;	/* in */
	__u64 held;		/* out: destroys that saw the handle held */
};

#define PT_IOC_CREATE	_IOW('D', 0x40, struct pt_create)
#define PT_IOC_GET	_IOWR('D', 0x41, struct pt_get)
#define PT_IOC_PUT	_IOW('D', 0x42, __u32)
#define PT_IOC_READ	_IOWR('D', 0x43, struct pt_read)
#define PT_IOC_STATS	_IOR('D', 0x44, struct pt_stats)
/* Returns the handles still held (the module's slots are put first). */
#define PT_IOC_DESTROY	_IO('D', 0x45)
/* Put every slot's handle but keep the cache. */
#define PT_IOC_PUT_ALL	_IO('D', 0x46)
#define PT_IOC_HAMMER	_IOWR('D', 0x47, struct pt_hammer)
#define PT_IOC_BENCH	_IOWR('D', 0x48, struct pt_bench)
#define PT_IOC_DECOY_REGISTER	_IOWR('D', 0x49, struct pt_decoy_reg)
#define PT_IOC_DECOY_READ	_IOWR('D', 0x4a, struct pt_decoy_read)
/*
 * Give a slot's handle back, then put a copy of it (the same handle
 * twice) and a forged one: the cache must refuse both.
 */
#define PT_IOC_BAD_PUT	_IOW('D', 0x4b, __u32)
#define PT_IOC_DESTROY_RACE	_IOWR('D', 0x4c, struct pt_race)
/*
 * Put a slot's handle from an interrupt, as an I/O completion would: a
 * hrtimer callback, in hard interrupt context (on PREEMPT_RT, where no
 * spinlock_t may be taken there, in the timer softirq). Returns 1 if it
 * ran in a hard interrupt, 0 if in a softirq.
 */
#define PT_IOC_PUT_IRQ	_IOW('D', 0x4d, __u32)

#endif /* _DMAGUARD_PIN_TEST_H */
