/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between the kernel glue files of dmaguard.ko; not public. */
#ifndef _DMAGUARD_KERNEL_H
#define _DMAGUARD_KERNEL_H

#include <linux/atomic.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/version.h>
#include "pool.h"

/*
 * Symbol namespaces: unquoted up to 6.12, a string from 6.13 on. The one
 * place that knows; the public header has the matching import macro.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define DG_EXPORT(sym)		EXPORT_SYMBOL_NS_GPL(sym, "DMAGUARD_V1")
#define DG_EXPORT_INTERNAL(sym)	EXPORT_SYMBOL_NS_GPL(sym, "DMAGUARD_INTERNAL")
#else
#define DG_EXPORT(sym)		EXPORT_SYMBOL_NS_GPL(sym, DMAGUARD_V1)
#define DG_EXPORT_INTERNAL(sym)	EXPORT_SYMBOL_NS_GPL(sym, DMAGUARD_INTERNAL)
#endif

/* shrinker_alloc() and shrinker_register() replaced register_shrinker(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define DG_SHRINKER_ALLOC	1
#else
#define DG_SHRINKER_ALLOC	0
#endif

extern atomic_long_t dg_chunk_bytes;
#ifdef DMAGUARD_TEST_HOOKS
extern bool dg_test_chunks_fail;
#endif

/* A node a caller may name: NUMA_NO_NODE or a possible node. */
static inline bool dg_node_valid(int node)
{
	return node == NUMA_NO_NODE ||
	       (node >= 0 && node < MAX_NUMNODES && node_possible(node));
}

void dg_registry_add(struct dg_pool *pool);
void dg_registry_del(struct dg_pool *pool);

#endif /* _DMAGUARD_KERNEL_H */
