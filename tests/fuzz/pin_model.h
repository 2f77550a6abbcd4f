/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reference model of the pin cache, for fuzz_pin.c: what a get must
 * answer, written from the API's contract and not from the core's code.
 *
 *   - bad input: -EINVAL for length 0, -EOVERFLOW when the range or its
 *     last page wraps, -E2BIG when its pages exceed the byte budget;
 *   - otherwise a success needs every page accessible as asked (readable,
 *     or writable for a write get), as a fresh pin would: a hit after an
 *     mprotect() re-checks; a range not accessible may fail with
 *     -EFAULT, any range with the injected errno, or for the budgets or
 *     the limit;
 *   - -ENOSPC only while handles are held, -ENOMEM only under a limit
 *     (or failure injection);
 *   - the handles held, each with the mm sequence at its get: while the
 *     sequence has not moved, its pages are the frames mapped now.
 */
#ifndef _DMAGUARD_PIN_MODEL_H
#define _DMAGUARD_PIN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include "pincache.h"
#include "dg_user_mm.h"

#define MODEL_PAGES	64
#define MODEL_HANDLES	32

struct model_handle {
	struct dg_pin_handle h;
	unsigned long addr;
	size_t len;
	bool write;
	unsigned long seq;	/* mm sequence at the get */
};

struct pin_model {
	u64 max_bytes;
	u32 max_entries;
	bool limit;		/* a pinned_vm limit is set */
	bool inject;		/* a pin failure is armed */
	int inject_errno;
	struct model_handle held[MODEL_HANDLES];
	unsigned int nheld;
};

/* The errno a get must return before looking at the mm, or 1: none. */
static inline int model_input_errno(const struct pin_model *m,
				    unsigned long addr, size_t len)
{
	unsigned long start, last;

	if (!len)
		return -EINVAL;
	if (addr + len - 1 < addr)
		return -EOVERFLOW;
	last = (addr + len - 1) | (DG_PAGE_SIZE - 1);
	if (last + 1 == 0)
		return -EOVERFLOW;
	start = addr & ~(DG_PAGE_SIZE - 1);
	if (m->max_bytes && (u64)last + 1 - start > m->max_bytes)
		return -E2BIG;
	return 1;
}

/* Can every page of the range be pinned now, as asked? */
static inline bool model_accessible(struct dg_user_mm *mm, unsigned long addr,
				    size_t len, bool write)
{
	unsigned long p, first, last;

	if (addr < DG_USER_MM_BASE)
		return false;
	first = (addr - DG_USER_MM_BASE) / DG_PAGE_SIZE;
	last = (addr + len - 1 - DG_USER_MM_BASE) / DG_PAGE_SIZE;
	if (last >= mm->nr_pages)
		return false;
	for (p = first; p <= last; p++)
		if (mm->pt[p].prot < (write ? DG_PROT_RW : DG_PROT_READ))
			return false;
	return true;
}

/* May a get of an accessible range fail with @err? */
static inline bool model_may_fail(const struct pin_model *m, int err,
				  bool accessible)
{
	if (err == -ENOSPC)
		return m->nheld > 0;
	if (err == -ENOMEM)
		return m->limit || m->inject;
	if (m->inject && err == m->inject_errno)
		return true;
	return !accessible && err == -EFAULT;
}

#endif /* _DMAGUARD_PIN_MODEL_H */
