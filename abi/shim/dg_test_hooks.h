/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For dmaguard's in-kernel test modules (tests/kmod/) only. The hooks of
 * dg_test_hooks.c exist in the test flavour of dmaguard.ko alone
 * (DMAGUARD_TEST_HOOKS=1), exported in namespace DMAGUARD_INTERNAL; the
 * core calls exported there too (dg_pool_for_each_chunk(), dg_pool_free(),
 * dg_pool_reclaim()) are declared in c-core/pool.h. Statistics come from
 * the public dmaguard_pool_get_stats(), through the helpers below.
 */
#ifndef _DMAGUARD_TEST_HOOKS_H
#define _DMAGUARD_TEST_HOOKS_H

#include <linux/string.h>
#include <dmaguard/dmaguard.h>
#include "pool.h"

long dg_test_chunk_bytes(void);
int dg_test_in_cache_section(struct dg_pool *pool, void (*fn)(void *arg),
			     void *arg);
void dg_test_fail_chunks(bool fail);

/**
 * dg_test_stats() - a pool's statistics, through the public call
 * @pool: the pool
 * @st: filled in (zeroed first, @st->sz set to this build's size)
 *
 * Context: Any context.
 * Return: what dmaguard_pool_get_stats() returns, 0 on success.
 */
static inline int dg_test_stats(const struct dmaguard_pool *pool,
				struct dmaguard_pool_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	return dmaguard_pool_get_stats(pool, st);
}

/**
 * dg_test_bad_frees() - one bad-free counter of a statistics snapshot
 * @st: the snapshot
 * @kind: which kind of bad free, as dg_pool_free() reports it
 *
 * Return: the public counter of that kind; 0 for DG_FREE_OK.
 */
static inline u64 dg_test_bad_frees(const struct dmaguard_pool_stats *st,
				    enum dg_bad_free kind)
{
	switch (kind) {
	case DG_BAD_FOREIGN:
		return st->bad_free_foreign;
	case DG_BAD_MISALIGNED:
		return st->bad_free_misaligned;
	case DG_BAD_DMA:
		return st->bad_free_dma;
	case DG_BAD_DOUBLE:
		return st->bad_free_double;
	default:
		return 0;
	}
}

#endif /* _DMAGUARD_TEST_HOOKS_H */
