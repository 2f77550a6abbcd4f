// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_fault: allocation failures injected at every step of each pool
 * entry point, as syzkaller injects them. The task's fail_nth (the field
 * /proc/thread-self/fail-nth sets) is n for the call under test only: the
 * n-th fault-injection site the call reaches fails (failslab,
 * fail_page_alloc, and fail_function on dmaguard's own allocation points:
 * the spec arms them), for n = 1, 2, 3, ... until the call runs through
 * without one. Setup and checks run with it 0.
 *
 * Each round, on one CPU: the faulted call returns its documented error
 * or succeeds (a fault something recovered from: the code, or the debug
 * kernel's own tools, whose allocations inside the call count too, as
 * kmemleak's bookkeeping, which falls back to a reserve); then, unfaulted,
 * the object is consistent (its statistics add up, the next call works),
 * and once the round's pools are destroyed no chunk memory is held.
 * kmemleak (the spec's end-of-boot scan) finds anything else left behind.
 * One KTAP case per entry point; its diagnostic is a line of the sweep's
 * table: faults injected, errors returned, calls that succeeded anyway.
 * A sweep of a call that allocates must make it fail at least once. A
 * destroy allocates nothing: its sweep is one unfaulted round.
 *
 * Needs CONFIG_FAULT_INJECTION (the debug kernel), and two CPUs for the
 * first allocation on a second CPU.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/numa.h>
#include <linux/sched.h>
#include "dg_test_dev.h"
#include "dg_test_hooks.h"

DMAGUARD_IMPORT_NS();
DG_TEST_IMPORT_INTERNAL();

#define DGF_MAX_ROUNDS	200
#define DGF_MAX_BLOCKS	4096
#define DGF_DIAG	8

/* One round of a sweep: what setup made, what the faulted call made. */
struct dgf_round {
	struct dmaguard_pool *pool;
	void *blk[DGF_MAX_BLOCKS];
	dma_addr_t dma[DGF_MAX_BLOCKS];
	unsigned int held;	/* blocks in blk[] */
	unsigned int chunks;	/* chunks the pool had before the call */
	bool managed;
	long ret;		/* the call's: 0 or a negative errno */
};

/**
 * struct dgf_sweep - one entry point under fault
 * @name: the KTAP case
 * @setup: unfaulted; 0 or an error (the case fails)
 * @call: the call under test, faulted; 0 or a negative errno
 * @errors: the errors @call may return, 0-terminated
 * @check: unfaulted, after @call: whether the object is consistent and
 *	its next call works
 * @allocates: @call allocates, so the sweep must make it fail (a sweep
 *	that fails none where it should proves nothing; faults alone do not
 *	tell, kmemleak's own allocations inside the call take some)
 */
struct dgf_sweep {
	const char *name;
	int (*setup)(struct dgf_round *r);
	long (*call)(struct dgf_round *r);
	long errors[3];
	bool (*check)(struct dgf_round *r);
	bool allocates;
};

static struct dg_test_dev dgf_td;
static struct cpumask dgf_cpus;	/* the task's own, restored after a round */
static struct dg_ktap dgf_ktap;
static unsigned int dgf_diag;
static struct dgf_round *dgf_r;

#define EXPECT(ok, cond, fmt, ...) \
	DG_EXPECT(ok, dgf_diag, cond, fmt, ##__VA_ARGS__)

/* The task's fail_nth, what /proc/thread-self/fail-nth reads and writes. */
#ifdef CONFIG_FAULT_INJECTION
static void dgf_set_nth(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

static unsigned int dgf_nth(void)
{
	return READ_ONCE(current->fail_nth);
}
#else
static void dgf_set_nth(unsigned int n)
{
}

static unsigned int dgf_nth(void)
{
	return 0;
}
#endif

static bool dgf_stats_add_up(struct dgf_round *r, bool *ok)
{
	struct dmaguard_pool_stats st;

	EXPECT(*ok, !dg_test_stats(r->pool, &st), "no stats");
	EXPECT(*ok, st.blocks_in_use == r->held,
	       "blocks_in_use %llu, %u held", st.blocks_in_use, r->held);
	EXPECT(*ok, st.blocks_total == (u64)st.chunks * st.blocks_per_chunk,
	       "blocks_total %llu, %u chunks of %u", st.blocks_total,
	       st.chunks, st.blocks_per_chunk);
	EXPECT(*ok, st.chunks_allocated - st.chunks_released == st.chunks,
	       "chunks %u, allocated %llu released %llu", st.chunks,
	       st.chunks_allocated, st.chunks_released);
	return *ok;
}

/* Unfaulted: take @n more blocks into r->blk[]. */
static int dgf_take(struct dgf_round *r, unsigned int n)
{
	while (n--) {
		if (r->held == DGF_MAX_BLOCKS)
			return -ENOSPC;
		r->blk[r->held] = dmaguard_pool_alloc(r->pool, GFP_KERNEL,
						      &r->dma[r->held]);
		if (!r->blk[r->held])
			return -ENOMEM;
		r->held++;
	}
	return 0;
}

static u32 dgf_chunks(struct dgf_round *r)
{
	struct dmaguard_pool_stats st;

	return dg_test_stats(r->pool, &st) ? 0 : st.chunks;
}

/* Unfaulted: give every block in r->blk[] back. */
static void dgf_give_back(struct dgf_round *r)
{
	while (r->held) {
		r->held--;
		dmaguard_pool_free(r->pool, r->blk[r->held], r->dma[r->held]);
	}
}

/* Unfaulted: give every block back and destroy the pool. */
static void dgf_teardown(struct dgf_round *r)
{
	dgf_give_back(r);
	if (r->managed)
		dmaguard_pool_destroy_managed(r->pool);
	else
		dmaguard_pool_destroy(r->pool);
	r->pool = NULL;
	r->managed = false;
}

/* Whether a pool works: a block taken, written and given back. */
static bool dgf_pool_works(struct dgf_round *r)
{
	bool ok = true;

	EXPECT(ok, !dgf_take(r, 1), "the next alloc failed");
	if (ok)
		memset(r->blk[r->held - 1], 0xa5, 64);
	return dgf_stats_add_up(r, &ok);
}

static int dgf_no_setup(struct dgf_round *r)
{
	return 0;
}

static long dgf_created(struct dgf_round *r)
{
	return r->pool ? 0 : -ENOMEM;
}

static long dgf_create(struct dgf_round *r)
{
	r->pool = dmaguard_pool_create("dgf", dgf_td.dev, 64, 64, 0);
	return dgf_created(r);
}

static long dgf_create_node(struct dgf_round *r)
{
	r->pool = dmaguard_pool_create_node("dgf", dgf_td.dev, 100, 32, 4096,
					    first_online_node);
	return dgf_created(r);
}

static long dgf_create_managed(struct dgf_round *r)
{
	r->managed = true;
	r->pool = dmaguard_pool_create_managed("dgf", dgf_td.dev, 512, 512,
					       0);
	return dgf_created(r);
}

static long dgf_create_opts(struct dgf_round *r)
{
	struct dmaguard_pool_opts o = {
		.sz = sizeof(o), .name = "dgf", .size = 24, .align = 8,
		.node = NUMA_NO_NODE,
	};
	struct dmaguard_pool *p = dmaguard_pool_create_opts(dgf_td.dev, &o);

	if (IS_ERR(p))
		return PTR_ERR(p);
	r->pool = p;
	return 0;
}

/*
 * After a create: a pool made works. A failed one returned no pool; what
 * it may have left behind, kmemleak's scan at the end of the boot finds.
 */
static bool dgf_check_create(struct dgf_round *r)
{
	return r->ret || dgf_pool_works(r);
}

/* A pool of @size-byte blocks with @chunks full chunks. */
static int dgf_setup_chunks(struct dgf_round *r, size_t size, u32 chunks)
{
	struct dmaguard_pool_stats st;
	int err;

	r->pool = dmaguard_pool_create("dgf", dgf_td.dev, size, size, 0);
	if (!r->pool)
		return -ENOMEM;
	err = dgf_take(r, 1);
	if (err || dg_test_stats(r->pool, &st))
		return err ?: -EINVAL;
	err = dgf_take(r, chunks * st.blocks_per_chunk - 1);
	r->chunks = dgf_chunks(r);
	return err ?: (r->chunks == chunks ? 0 : -EINVAL);
}

/* A pool whose chunk is full: the next alloc grows it. */
static int dgf_setup_full(struct dgf_round *r)
{
	return dgf_setup_chunks(r, 256, 1);
}

/*
 * A pool whose next chunk grows its chunk table: DG_TABLE_MIN_SLOTS (16)
 * slots take a seventh chunk, not an eighth (chunk_table.h).
 */
static int dgf_setup_table(struct dgf_round *r)
{
	return dgf_setup_chunks(r, 4096, 7);
}

static long dgf_alloc(struct dgf_round *r)
{
	void *b = dmaguard_pool_alloc(r->pool, GFP_KERNEL, &r->dma[r->held]);

	if (!b)
		return -ENOMEM;
	r->blk[r->held++] = b;
	return 0;
}

/* After an alloc: no chunk from a failed one, the pool works. */
static bool dgf_check_alloc(struct dgf_round *r)
{
	bool ok = true;

	if (r->ret)
		EXPECT(ok, dgf_chunks(r) == r->chunks,
		       "a failed alloc left %u chunks, %u before",
		       dgf_chunks(r), r->chunks);
	return dgf_pool_works(r) && ok;
}

/*
 * A pool whose chunk this CPU filled: the next CPU's first alloc finds
 * its cache empty and the pool full, and grows it.
 */
static int dgf_setup_other_cpu(struct dgf_round *r)
{
	unsigned int cpu = cpumask_next(raw_smp_processor_id(),
					cpu_online_mask);
	int err;

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	err = dgf_setup_chunks(r, 64, 1);
	/* The faulted call runs on @cpu; dgf_run() restores the task's CPUs. */
	return err ?: set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

/* A pool with chunks and blocks given back: everything destroy frees. */
static int dgf_setup_used(struct dgf_round *r)
{
	int err;

	r->pool = dmaguard_pool_create("dgf", dgf_td.dev, 128, 64, 0);
	if (!r->pool)
		return -ENOMEM;
	err = dgf_take(r, 200);
	dgf_give_back(r);
	return err;
}

static long dgf_destroy(struct dgf_round *r)
{
	dmaguard_pool_destroy(r->pool);
	r->pool = NULL;
	return 0;
}

static bool dgf_check_destroyed(struct dgf_round *r)
{
	return true;
}

static const struct dgf_sweep dgf_sweeps[] = {
	{ "pool_create", dgf_no_setup, dgf_create, { -ENOMEM },
	  dgf_check_create, true },
	{ "pool_create_node", dgf_no_setup, dgf_create_node, { -ENOMEM },
	  dgf_check_create, true },
	{ "pool_create_managed", dgf_no_setup, dgf_create_managed,
	  { -ENOMEM }, dgf_check_create, true },
	{ "pool_create_opts", dgf_no_setup, dgf_create_opts, { -ENOMEM },
	  dgf_check_create, true },
	{ "alloc_growth", dgf_setup_full, dgf_alloc, { -ENOMEM },
	  dgf_check_alloc, true },
	{ "alloc_table_growth", dgf_setup_table, dgf_alloc, { -ENOMEM },
	  dgf_check_alloc, true },
	{ "alloc_first_on_cpu", dgf_setup_other_cpu, dgf_alloc, { -ENOMEM },
	  dgf_check_alloc, true },
	{ "pool_destroy", dgf_setup_used, dgf_destroy, { 0 },
	  dgf_check_destroyed, false },
};

static bool dgf_error_documented(const struct dgf_sweep *s, long ret)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(s->errors) && s->errors[i]; i++)
		if (ret == s->errors[i])
			return true;
	return false;
}

/* Sweep n = 1, 2, ... over @s until its call meets no fault. */
static void dgf_run(const struct dgf_sweep *s)
{
	unsigned int n, faults = 0, errors = 0, recovered = 0;
	long base = dg_test_chunk_bytes();
	struct dgf_round *r = dgf_r;
	bool ok = true, injected;
	long bytes;

	dgf_diag = DGF_DIAG;
	for (n = 1; n <= DGF_MAX_ROUNDS; n++) {
		memset(r, 0, sizeof(*r));
		/*
		 * A round on one CPU: a task that moved while it filled a
		 * pool would leave blocks in the first CPU's cache and take
		 * a chunk more than the setup counts on.
		 */
		set_cpus_allowed_ptr(current,
				     cpumask_of(raw_smp_processor_id()));
		EXPECT(ok, !s->setup(r), "round %u: setup failed", n);
		if (!ok) {
			set_cpus_allowed_ptr(current, &dgf_cpus);
			if (r->pool)
				dgf_teardown(r);
			break;
		}
		dgf_set_nth(n);
		r->ret = s->call(r);
		injected = !dgf_nth();
		dgf_set_nth(0);
		set_cpus_allowed_ptr(current, &dgf_cpus);

		if (injected) {
			faults++;
			if (r->ret)
				errors++;
			else
				recovered++;
		}
		EXPECT(ok, !r->ret || (injected && dgf_error_documented(s, r->ret)),
		       "round %u: returned %ld (fault injected: %d)", n,
		       r->ret, injected);
		EXPECT(ok, s->check(r), "round %u: inconsistent after %ld", n,
		       r->ret);
		if (r->pool)
			dgf_teardown(r);
		bytes = dg_test_chunk_bytes();
		EXPECT(ok, bytes == base, "round %u: %ld chunk bytes left", n,
		       bytes - base);
		if (!injected || !ok)
			break;
	}
	EXPECT(ok, n <= DGF_MAX_ROUNDS, "still faulted after %u rounds",
	       DGF_MAX_ROUNDS);
	EXPECT(ok, errors || !s->allocates,
	       "no call failed: is fault injection armed?");
	pr_info("# %s: faults=%u errors=%u recovered=%u leaks=%ld\n", s->name,
		faults, errors, recovered, dg_test_chunk_bytes() - base);
	dg_ktap_result(&dgf_ktap, ok, s->name);
}

static int __init dgf_init(void)
{
	int i, err;

	if (!IS_ENABLED(CONFIG_FAULT_INJECTION))
		return -EOPNOTSUPP;
	cpumask_copy(&dgf_cpus, current->cpus_ptr);
	dgf_r = kvzalloc(sizeof(*dgf_r), GFP_KERNEL);
	if (!dgf_r)
		return -ENOMEM;
	err = dg_test_dev_get(&dgf_td, "dmaguard_fault");
	if (err) {
		kvfree(dgf_r);
		return err;
	}
	dg_ktap_begin(&dgf_ktap, ARRAY_SIZE(dgf_sweeps));
	for (i = 0; i < ARRAY_SIZE(dgf_sweeps); i++)
		dgf_run(&dgf_sweeps[i]);
	dg_test_dev_put(&dgf_td);
	kvfree(dgf_r);
	return 0;
}

static void __exit dgf_exit(void)
{
}

module_init(dgf_init);
module_exit(dgf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard pool entry points under injected allocation failures (KTAP)");
