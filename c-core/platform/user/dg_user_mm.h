/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulated address space of the userspace pin platform (pin_mm.c).
 *
 * A range of nr_pages virtual pages from DG_USER_MM_BASE, each unmapped or
 * mapped to a malloc'd 4 KiB frame with a protection. Frames carry a pin
 * count; an unmapped frame lives on while pinned. Every change of the
 * page table first calls the notifiers it overlaps, under the mm lock
 * (the kernel's mmu_interval_notifier: invalidate before the PTEs
 * change), with a new sequence number; protection changes are reported
 * as the kernel reports them: mprotect and NUMA hinting as
 * MMU_NOTIFY_PROTECTION_VMA, fork's write-protection of a copy-on-write
 * range as MMU_NOTIFY_PROTECTION_PAGE (dg_pin_event).
 */
#ifndef _DMAGUARD_USER_MM_H
#define _DMAGUARD_USER_MM_H

#include <pthread.h>
#include "dg_pin_plat.h"

#define DG_USER_MM_BASE		0x7f0000000000ul

enum dg_user_prot {
	DG_UNMAPPED = 0,	/* no VMA: pins fail with -EFAULT */
	DG_PROT_NONE,		/* mapped, no access: -EFAULT */
	DG_PROT_READ,		/* a write pin fails with -EFAULT */
	DG_PROT_RW,
};

/* A page frame: what a struct page * of a pin points to here. */
struct dg_user_frame {
	unsigned char data[4096];
	long pins;
	long write_pins;	/* of which FOLL_WRITE */
	bool mapped;
	unsigned long id;	/* serial number, never reused */
};

struct dg_user_pte {
	struct dg_user_frame *frame;
	u8 prot;
};

struct dg_user_mm {
	pthread_mutex_t lock;	/* the page table, notifiers, counters */
	unsigned long nr_pages;
	struct dg_user_pte *pt;
	struct list_head notifiers;
	unsigned long seq;	/* moves at every change of the mapping */
	/* pinned_vm against a limit of pages (< 0: none, CAP_IPC_LOCK) */
	long pinned_vm, pinned_limit;
	long frames_live, pins_live, maps_live, notifiers_live;
	unsigned long pin_calls, unchanged_events;
	/* failure injection: pinning page fail_page returns fail_errno */
	unsigned long fail_page;
	int fail_errno;
	int map_errno;		/* the next DMA map returns it, once */
	int charge_errno;	/* charging returns it while set */
	/* called (mm lock held) at each pin call, for race tests */
	void (*pin_hook)(struct dg_user_mm *mm, void *arg);
	void *pin_hook_arg;
	/* called (no lock held) at each unpin call, for lifetime tests */
	void (*unpin_hook)(struct dg_user_mm *mm, void *arg);
	void *unpin_hook_arg;
	/* called (no lock held) after each permission check, for races */
	void (*allows_hook)(struct dg_user_mm *mm, void *arg);
	void *allows_hook_arg;
};

/* A DMA mapping cookie of the simulated device. */
struct dg_user_map {
	unsigned long nr_pages;
	u64 iova;
	void **pages;
};

struct dg_user_mm *dg_user_mm_create(unsigned long nr_pages);
void dg_user_mm_destroy(struct dg_user_mm *mm);
unsigned long dg_user_mm_addr(unsigned long page);

/* mmap(MAP_FIXED): fresh zeroed frames. 0 or -EINVAL. */
int dg_user_mm_map(struct dg_user_mm *mm, unsigned long addr, size_t len,
		   enum dg_user_prot prot);
int dg_user_mm_unmap(struct dg_user_mm *mm, unsigned long addr, size_t len);
/* mprotect(): same frames; a protection-only notifier event. */
int dg_user_mm_protect(struct dg_user_mm *mm, unsigned long addr, size_t len,
		       enum dg_user_prot prot);
/* NUMA hinting: nothing changes, the notifiers hear a protection event. */
void dg_user_mm_numa_hint(struct dg_user_mm *mm, unsigned long addr,
			  size_t len);
/*
 * fork() of a copy-on-write range: the parent's pinned pages stay mapped
 * and writable (the child gets copies), the notifiers hear a PTE
 * write-protection event.
 */
void dg_user_mm_fork(struct dg_user_mm *mm, unsigned long addr, size_t len);
/*
 * Run the deferred work queued so far (pin caches' reaps), as the
 * kernel's workqueue would: returns how many items ran.
 */
unsigned int dg_user_run_work(void);
/* Items queued and not run yet. */
unsigned int dg_user_work_pending(void);
/*
 * Run every aging queued now, as if its period had passed (each queues
 * its next); the number run.
 */
unsigned int dg_user_run_aging(void);
/* MADV_DONTNEED: the frames go, zeroed ones come in their place. */
int dg_user_mm_dontneed(struct dg_user_mm *mm, unsigned long addr,
			size_t len);
/* The process stores and loads through its page table: 0 or -EFAULT. */
int dg_user_mm_write(struct dg_user_mm *mm, unsigned long addr,
		     const void *buf, size_t len);
int dg_user_mm_read(struct dg_user_mm *mm, unsigned long addr, void *buf,
		    size_t len);
/* The frame mapped at @addr now, or NULL. */
struct dg_user_frame *dg_user_mm_frame(struct dg_user_mm *mm,
				       unsigned long addr);
unsigned long dg_user_mm_seq(struct dg_user_mm *mm);

#endif /* _DMAGUARD_USER_MM_H */
