// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace platform: bookkeeping and chunk memory for the host build of
 * the core. Every allocation is counted (leak checks) and any one can be
 * made to fail (failure injection).
 */
#include <assert.h>
#include <malloc.h>
#include "dg_platform.h"
#include "dg_user.h"
#include "pool.h"

unsigned long dg_user_ticks;
bool dg_user_init_on_alloc = true;
bool dg_user_init_on_free;
bool dg_user_lazy_unmap;
bool dg_user_verbose;
unsigned long dg_user_reports_again;
unsigned long dg_user_reports_err;
unsigned long dg_user_cpu_visits;
unsigned long dg_user_pcp_busy;

struct dg_user_counters dg_user_count;

/* Fail the allocation that brings the count to fail_at (0: never). */
static unsigned long fail_at;
static unsigned long alloc_calls;

void dg_user_fail_nth_alloc(unsigned long nth)
{
	alloc_calls = 0;
	fail_at = nth;
}

bool dg_user_fail_reached(void)
{
	return fail_at &&
	       __atomic_load_n(&alloc_calls, __ATOMIC_RELAXED) >= fail_at;
}

/* Counters are atomic: pool_grow() allocates without the pool lock. */
static void count(long *c, long d)
{
	__atomic_fetch_add(c, d, __ATOMIC_RELAXED);
}

static bool should_fail(void)
{
	return fail_at &&
	       __atomic_add_fetch(&alloc_calls, 1, __ATOMIC_RELAXED) == fail_at;
}

void *kzalloc_node(size_t size, gfp_t gfp, int node)
{
	void *p;

	(void)gfp;
	(void)node;
	if (should_fail())
		return NULL;
	/* kmalloc() objects of a cache line or more start on one. */
	p = size >= SMP_CACHE_BYTES ? memalign(SMP_CACHE_BYTES, size) :
				      malloc(size);
	if (p) {
		memset(p, 0, size);
		count(&dg_user_count.meta_live, 1);
	}
	return p;
}

void kfree(void *p)
{
	if (p)
		count(&dg_user_count.meta_live, -1);
	free(p);
}

size_t ksize(void *p)
{
	return malloc_usable_size(p);
}

/*
 * Chunk memory. DG_MEM_REMAP, the default, plays an IOMMU in translation
 * mode: the CPU address is page aligned at a varying page phase (a vmap()
 * address), the bus address comes from a separate IOVA space and is page
 * aligned, one time in four also aligned to the size (real IOVAs are),
 * otherwise at a varying page phase. DG_MEM_DIRECT plays the direct
 * mapping: both aligned to the size, bus = CPU + DG_USER_DMA_OFFSET.
 * Every live allocation is recorded, so that tests can translate between
 * the two spaces and a free with the wrong size or bus address aborts.
 */
enum dg_user_mem_mode dg_user_mem_mode = DG_MEM_REMAP;

#define REMAP_PHASES	16

struct chunk_rec {
	struct chunk_rec *next;
	void *raw;
	char *cpu;
	dma_addr_t dma;
	size_t size;
};

static struct chunk_rec *recs;
static int recs_locked;	/* a test-and-set lock: sparse-clean, no initializer */

static void recs_lock(void)
{
	while (__atomic_exchange_n(&recs_locked, 1, __ATOMIC_ACQUIRE))
		;
}

static void recs_unlock(void)
{
	__atomic_store_n(&recs_locked, 0, __ATOMIC_RELEASE);
}
static unsigned long remap_seq;
static dma_addr_t iova_next = 0x40000000ull;

static bool chunk_place(struct chunk_rec *r, size_t size)
{
	unsigned long n, phase;

	if (dg_user_mem_mode == DG_MEM_DIRECT) {
		r->raw = aligned_alloc(size, size);
		r->cpu = r->raw;
		if (r->raw)
			r->dma = (dma_addr_t)(uintptr_t)r->raw + DG_USER_DMA_OFFSET;
		return r->raw;
	}
	n = __atomic_fetch_add(&remap_seq, 1, __ATOMIC_RELAXED);
	phase = (n * 7 + 1) % REMAP_PHASES;
	r->raw = aligned_alloc(DG_PAGE_SIZE, size + REMAP_PHASES * DG_PAGE_SIZE);
	if (!r->raw)
		return false;
	/* Page aligned, never aligned to a size of two pages or more. */
	r->cpu = (char *)r->raw + phase * DG_PAGE_SIZE;
	if (!(((uintptr_t)r->cpu / DG_PAGE_SIZE) & 1))
		r->cpu += DG_PAGE_SIZE;
	recs_lock();
	if (n % 4 == 0)
		iova_next = ALIGN(iova_next, roundup_pow_of_two(size));
	else
		iova_next += ((n * 5) % REMAP_PHASES + 1) * DG_PAGE_SIZE;
	r->dma = iova_next;
	iova_next += size;
	recs_unlock();
	return true;
}

void __dma *dg_chunk_mem_alloc(void *dev, size_t size, dma_addr_t *dma,
			       gfp_t gfp)
{
	struct chunk_rec *r;

	(void)dev;
	(void)gfp;
	if (should_fail())
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	if (!chunk_place(r, size)) {
		free(r);
		return NULL;
	}
	r->size = size;
	memset(r->cpu, 0, size);	/* dma_alloc_coherent() zeroes too */
	recs_lock();
	r->next = recs;
	recs = r;
	recs_unlock();
	*dma = r->dma;
	count(&dg_user_count.chunks_live, 1);
	count(&dg_user_count.chunk_bytes_live, (long)size);
	return (void __dma __force *)r->cpu;
}

void dg_chunk_mem_free(void *dev, size_t size, void __dma *mem,
		       dma_addr_t dma)
{
	struct chunk_rec **pp, *r;

	(void)dev;
	recs_lock();
	for (pp = &recs; (r = *pp); pp = &r->next)
		if (r->cpu == (char __force *)mem)
			break;
	if (r)
		*pp = r->next;
	recs_unlock();
	if (!r || r->dma != dma || r->size != size) {
		fprintf(stderr, "dg_chunk_mem_free: %p (dma %#llx, %zu bytes) was not allocated so\n",
			(void __force *)mem, (unsigned long long)dma, size);
		abort();
	}
	count(&dg_user_count.chunks_live, -1);
	count(&dg_user_count.chunk_bytes_live, -(long)size);
	free(r->raw);
	free(r);
}

/* Find the allocation holding @p (CPU) or @dma (bus); test-only, O(n). */
static struct chunk_rec *rec_find(const void *p, dma_addr_t dma)
{
	struct chunk_rec *r;

	for (r = recs; r; r = r->next)
		if (p ? (uintptr_t)p - (uintptr_t)r->cpu < r->size :
			dma - r->dma < r->size)
			return r;
	return NULL;
}

dma_addr_t dg_user_bus_of(const void *p)
{
	struct chunk_rec *r;
	dma_addr_t dma = 0;

	recs_lock();
	r = rec_find(p, 0);
	if (r)
		dma = r->dma + ((const char *)p - r->cpu);
	recs_unlock();
	return dma;
}

void *dg_user_cpu_of(dma_addr_t dma)
{
	struct chunk_rec *r;
	void *p = NULL;

	recs_lock();
	r = rec_find(NULL, dma);
	if (r)
		p = r->cpu + (dma - r->dma);
	recs_unlock();
	return p;
}

void dg_user_chunk_release(const void *p)
{
	struct chunk_rec *r;

	recs_lock();
	r = rec_find(p, 0);
	recs_unlock();
	if (!r) {
		fprintf(stderr, "dg_user_chunk_release: %p is no chunk memory\n", p);
		abort();
	}
	dg_chunk_mem_free(NULL, r->size, (void __dma __force *)r->cpu, r->dma);
}

/* "CPUs": a thread's slot, round robin at first use (dg_platform.h). */
static int next_cpu;
#ifndef DG_USER_PCP_KERNEL_COST
__thread int dg_user_cpu_id = -1;
#else
__thread int dg_user_cpu_id;	/* one thread: dg_user_this_cpu() */
/* The stand-ins of preempt_count and a pending reschedule (never set). */
__thread int dg_user_preempt_count;
int dg_user_need_resched;

void dg_user_preempt_schedule(void)
{
	dg_user_need_resched = 0;
}
#endif

/* This thread's slot, and its unit's distance (the kernel's this_cpu_off). */
__thread unsigned long dg_user_cpu_off;

static void set_cpu_id(int cpu)
{
	dg_user_cpu_id = cpu;
	dg_user_cpu_off = (unsigned long)cpu * DG_USER_PCPU_UNIT;
}

int dg_user_first_cpu(void)
{
	set_cpu_id(__atomic_fetch_add(&next_cpu, 1, __ATOMIC_RELAXED) %
		   DG_USER_CPUS);
	return dg_user_cpu_id;
}

void dg_user_set_cpu(int cpu)
{
	set_cpu_id(cpu % DG_USER_CPUS);
}

#ifndef DG_USER_PCP_KERNEL_COST
__thread void (*dg_user_pcp_irq)(void *arg);
static __thread void *pcp_irq_arg;

void dg_user_pcp_interrupt(void (*fn)(void *arg), void *arg)
{
	pcp_irq_arg = arg;
	dg_user_pcp_irq = fn;
}

void dg_user_pcp_run_irq(void)
{
	void (*fn)(void *arg) = dg_user_pcp_irq;

	bool was = dg_user_in_irq;

	dg_user_pcp_irq = NULL;
	dg_user_in_irq = true;
	fn(pcp_irq_arg);
	dg_user_in_irq = was;
}
#endif

__thread bool dg_user_in_irq;

/* Run @fn on @cpu's slot, counted as a visit. */
static void *visit_cpu(int cpu, void *(*fn)(void *arg), void *arg)
{
	int was = dg_user_this_cpu();
	void *ret;

	__atomic_fetch_add(&dg_user_cpu_visits, 1, __ATOMIC_RELAXED);
	set_cpu_id(cpu);
	ret = fn(arg);
	set_cpu_id(was);
	return ret;
}

struct work_call {
	long (*fn)(void *arg);
	void *arg;
};

static void *work_call_fn(void *data)
{
	struct work_call *w = data;

	return (void *)w->fn(w->arg);
}

long work_on_cpu(int cpu, long (*fn)(void *arg), void *arg)
{
	struct work_call w = { fn, arg };

	assert(!dg_user_in_irq);	/* it sleeps */
	return (long)visit_cpu(cpu, work_call_fn, &w);
}

struct ipi_call {
	void (*fn)(void *info);
	void *info;
};

/* An IPI's handler runs in an interrupt there. */
static void *ipi_call_fn(void *data)
{
	struct ipi_call *c = data;
	bool was = dg_user_in_irq;

	dg_user_in_irq = true;
	c->fn(c->info);
	dg_user_in_irq = was;
	return NULL;
}

void on_each_cpu_cond(bool (*cond)(int cpu, void *info),
		      void (*fn)(void *info), void *info, bool wait)
{
	struct ipi_call c = { fn, info };
	int cpu;

	assert(!dg_user_in_irq);	/* as the kernel's: interrupts on */
	for (cpu = 0; cpu < DG_USER_CPUS; cpu++)
		if (!cond || cond(cpu, info))
			visit_cpu(cpu, ipi_call_fn, &c);
}

void *dg_user_percpu_alloc(size_t size)
{
	assert(size <= DG_USER_PCPU_UNIT);
	return kzalloc_node(DG_USER_PCPU_UNIT * DG_USER_CPUS, GFP_KERNEL,
			    DG_NO_NODE);
}

void dg_user_percpu_free(void *p)
{
	kfree(p);
}

static void *reclaim_thread(void *arg)
{
	struct dg_pool_plat *plat = arg;
	struct dg_pool *pool = dg_pool_from_plat(plat);

	while (__atomic_load_n(&plat->reclaim_run, __ATOMIC_ACQUIRE)) {
		dg_pool_reclaim(pool, 0, 0);
		__atomic_fetch_add(&plat->reclaim_passes, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

int dg_user_reclaim_start(struct dg_pool *pool)
{
	struct dg_pool_plat *plat = dg_pool_plat(pool);
	int err;

	if (plat->reclaim_started)
		return 0;
	plat->reclaim_run = 1;
	err = pthread_create(&plat->reclaim_thread, NULL, reclaim_thread, plat);
	if (!err)
		plat->reclaim_started = true;
	return err;
}

unsigned long dg_user_reclaim_passes(struct dg_pool *pool)
{
	return __atomic_load_n(&dg_pool_plat(pool)->reclaim_passes,
			       __ATOMIC_ACQUIRE);
}

/* Destroy: the reclaim thread, if any, is stopped and waited for. */
void dg_plat_fini(struct dg_pool_plat *plat)
{
	if (!plat->reclaim_started)
		return;
	__atomic_store_n(&plat->reclaim_run, 0, __ATOMIC_RELEASE);
	pthread_join(plat->reclaim_thread, NULL);
	plat->reclaim_started = false;
}
