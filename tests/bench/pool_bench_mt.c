// SPDX-License-Identifier: GPL-2.0
/*
 * Native multi-thread benchmark (pool_bench -t N,M,...): the protocol of
 * the in-VM pool-mt measurement (tests/kmod/dmaguard_bench_mt.c) with
 * pthreads, dmaguard's core against the in-band reference pool.
 *
 * A measurement: N threads, thread i bound to the i-th CPU this process
 * may run on (modulo their number), all on ONE pool of 64-byte blocks
 * (aligned to 64). Each thread loops "allocate a batch of 16 blocks, free
 * them in allocation order" and counts alloc+free pairs per completed
 * batch. The threads and the main thread meet at a barrier; the main
 * thread then sleeps for the measurement's duration (wall clock) and sets
 * the stop flag, which every thread reads before each batch.
 *
 * Three pools, created once per thread count and reused, one untimed
 * warm-up measurement each, then REPS measurements of each in rotating
 * order; medians:
 *   ref       ref_spin_pool_*: the reference locked with a
 *             pthread_spinlock_t, the kind of lock the kernel's dma_pool
 *             takes (a spinlock, whatever the userspace platform's is);
 *   dmaguard  the core, with the userspace platform's lock (spinlock_t of
 *             the kernel's tools/include: a pthread mutex);
 *   ref-plat  ref_pool_*: the reference with the platform's lock, the
 *             one dmaguard takes (a second opinion: only the algorithms
 *             differ).
 *
 *	BENCH native-mt-start threads=.. ms=.. reps=.. batch=16 size=64
 *	      host_cpus=.. ref_lock=pthread_spinlock_t platform_lock=L
 *	BENCH native-mt threads=N size=64 ref_ops=X dmaguard_ops=Y ratio=Y/X
 *	BENCH native-mt-platform-lock threads=N size=64 ref_ops=X
 *	      dmaguard_ops=Y ratio=Y/X
 *	BENCH native-mt-reps threads=N ref_ops=a,b,.. dmaguard_ops=..
 *	      ref_platform_lock_ops=..
 *	BENCH native-mt-cpu threads=N ref_ops_per_cpu_ms=X
 *	      dmaguard_ops_per_cpu_ms=Y ratio=Y/X
 *
 * The last line divides each measurement's operations by the CPU time its
 * threads got (CLOCK_THREAD_CPUTIME_ID, spinning on a lock included): a
 * second opinion on a machine where other processes take CPUs away from
 * the benchmark for parts of a measurement.
 *
 * ratio: dmaguard's operations over the reference's, higher is better
 * for dmaguard. More threads than CPUs time-share them: a thread may be
 * preempted while holding a pool's spinlock, and the others then spin
 * until the scheduler runs it again; the output says how many CPUs there
 * are.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include "pool.h"
#include "dg_user.h"
#include "ref_pool.h"
#include "pool_bench.h"

/* The type behind the platform's lock, for the output. */
#define MT_STR(x)	#x
#define MT_XSTR(x)	MT_STR(x)
#ifdef spin_lock_init
#define MT_PLATFORM_LOCK	MT_XSTR(spinlock_t)
#else
#define MT_PLATFORM_LOCK	"dg_lock_t"
#endif

#define MT_SIZE		64
#define MT_BATCH	16
#define MT_MAX_THREADS	64

enum mt_kind { MT_REF_SPIN, MT_DG, MT_REF_PLAT, MT_KINDS };

struct mt_pools {
	struct ref_spin_pool *rsp;
	struct dg_pool *dp;
	struct ref_pool *rp;
};

struct mt_run {
	const struct mt_pools *pools;
	enum mt_kind kind;
	pthread_barrier_t start;
	int stop;		/* read and written with __atomic builtins */
};

struct mt_thread {
	struct mt_run *run;
	pthread_t tid;
	unsigned long ops;
	double cpu_ns;
	bool failed;
};

static double thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void *mt_alloc(const struct mt_run *r, dma_addr_t *dma)
{
	switch (r->kind) {
	case MT_DG:
		return (void __force *)dg_pool_alloc(r->pools->dp, GFP_KERNEL,
						     dma);
	case MT_REF_SPIN:
		return ref_spin_pool_alloc(r->pools->rsp, GFP_KERNEL, dma);
	default:
		return ref_pool_alloc(r->pools->rp, GFP_KERNEL, dma);
	}
}

static inline void mt_free(const struct mt_run *r, void *v, dma_addr_t dma)
{
	switch (r->kind) {
	case MT_DG:
		dg_pool_free(r->pools->dp, (void __dma __force *)v, dma);
		break;
	case MT_REF_SPIN:
		ref_spin_pool_free(r->pools->rsp, v, dma);
		break;
	default:
		ref_pool_free(r->pools->rp, v, dma);
		break;
	}
}

static void *mt_thread_fn(void *arg)
{
	struct mt_thread *t = arg;
	struct mt_run *r = t->run;
	void *v[MT_BATCH];
	dma_addr_t d[MT_BATCH];
	unsigned long ops = 0;
	unsigned int i, n;
	double t0;

	pthread_barrier_wait(&r->start);
	t0 = thread_cpu_ns();
	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED)) {
		for (n = 0; n < MT_BATCH; n++) {
			v[n] = mt_alloc(r, &d[n]);
			if (!v[n])
				break;
		}
		for (i = 0; i < n; i++)
			mt_free(r, v[i], d[i]);
		if (n < MT_BATCH) {
			t->failed = true;
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELAXED);
			break;
		}
		ops += MT_BATCH;
	}
	t->ops = ops;
	t->cpu_ns = thread_cpu_ns() - t0;
	return NULL;
}

static cpu_set_t allowed;	/* the CPUs this process may run on */

/* The @i-th allowed CPU, modulo their number. */
static int mt_cpu(unsigned int i)
{
	int cpu, n = CPU_COUNT(&allowed);

	i %= n;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &allowed) && !i--)
			return cpu;
	return 0;
}

/*
 * One measurement: operations of all @n threads on one pool; *@cpu_ms:
 * the CPU time they got.
 */
static unsigned long mt_measure(const struct mt_pools *pools,
				enum mt_kind kind, unsigned int n,
				unsigned int ms, double *cpu_ms)
{
	struct mt_thread th[MT_MAX_THREADS];
	struct mt_run run = { .pools = pools, .kind = kind };
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	unsigned long ops = 0;
	pthread_attr_t attr;
	cpu_set_t one;
	unsigned int i;

	*cpu_ms = 0;
	pthread_barrier_init(&run.start, NULL, n + 1);
	for (i = 0; i < n; i++) {
		th[i] = (struct mt_thread){ .run = &run };
		pthread_attr_init(&attr);
		CPU_ZERO(&one);
		CPU_SET(mt_cpu(i), &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		if (pthread_create(&th[i].tid, &attr, mt_thread_fn, &th[i])) {
			fprintf(stderr, "pool_bench: pthread_create failed\n");
			exit(1);
		}
		pthread_attr_destroy(&attr);
	}
	pthread_barrier_wait(&run.start);
	while (nanosleep(&ts, &ts))
		;
	__atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++) {
		pthread_join(th[i].tid, NULL);
		if (th[i].failed) {
			fprintf(stderr, "pool_bench: allocation failed\n");
			exit(1);
		}
		ops += th[i].ops;
		*cpu_ms += th[i].cpu_ns / 1e6;
	}
	pthread_barrier_destroy(&run.start);
	return ops;
}

static void mt_print_list(const char *key, const double *v, unsigned int n)
{
	unsigned int i;

	printf(" %s=", key);
	for (i = 0; i < n; i++)
		printf("%s%.0f", i ? "," : "", v[i]);
}

static void mt_threads(unsigned int n, unsigned int reps, unsigned int ms)
{
	struct dg_pool_params prm = {
		.name = "bench-mt", .size = MT_SIZE, .align = MT_SIZE,
		.node = DG_NO_NODE,
	};
	double ops[MT_KINDS][BENCH_MAX_REPS], med[MT_KINDS], cpu_ms;
	double per_cpu[MT_KINDS][BENCH_MAX_REPS], med_cpu[MT_KINDS];
	struct mt_pools pools;
	unsigned int i, j, k;

	pools.rsp = ref_spin_pool_create("ref-spin", NULL, MT_SIZE, MT_SIZE, 0);
	pools.rp = ref_pool_create("ref", NULL, MT_SIZE, MT_SIZE, 0);
	pools.dp = dg_pool_create(&prm);
	if (!pools.rsp || !pools.rp || !pools.dp) {
		fprintf(stderr, "pool_bench: cannot create the pools\n");
		exit(1);
	}
	for (k = 0; k < MT_KINDS; k++)		/* warm-up */
		mt_measure(&pools, k, n, ms, &cpu_ms);
	for (i = 0; i < reps; i++)
		for (j = 0; j < MT_KINDS; j++) {
			k = (i + j) % MT_KINDS;
			ops[k][i] = mt_measure(&pools, k, n, ms, &cpu_ms);
			per_cpu[k][i] = ops[k][i] / cpu_ms;
		}
	printf("BENCH native-mt-reps threads=%u", n);
	mt_print_list("ref_ops", ops[MT_REF_SPIN], reps);
	mt_print_list("dmaguard_ops", ops[MT_DG], reps);
	mt_print_list("ref_platform_lock_ops", ops[MT_REF_PLAT], reps);
	printf("\n");
	for (k = 0; k < MT_KINDS; k++) {
		med[k] = bench_median(ops[k], reps);
		med_cpu[k] = bench_median(per_cpu[k], reps);
	}
	printf("BENCH native-mt threads=%u size=%d ref_ops=%.0f dmaguard_ops=%.0f ratio=%.3f\n",
	       n, MT_SIZE, med[MT_REF_SPIN], med[MT_DG],
	       med[MT_DG] / med[MT_REF_SPIN]);
	printf("BENCH native-mt-platform-lock threads=%u size=%d ref_ops=%.0f dmaguard_ops=%.0f ratio=%.3f\n",
	       n, MT_SIZE, med[MT_REF_PLAT], med[MT_DG],
	       med[MT_DG] / med[MT_REF_PLAT]);
	printf("BENCH native-mt-cpu threads=%u ref_ops_per_cpu_ms=%.0f dmaguard_ops_per_cpu_ms=%.0f ratio=%.3f\n",
	       n, med_cpu[MT_REF_SPIN], med_cpu[MT_DG],
	       med_cpu[MT_DG] / med_cpu[MT_REF_SPIN]);
	fflush(stdout);
	ref_spin_pool_destroy(pools.rsp);
	ref_pool_destroy(pools.rp);
	if (dg_pool_destroy(pools.dp)) {
		fprintf(stderr, "pool_bench: dmaguard pool had live blocks\n");
		exit(1);
	}
}

int bench_mt(const char *threads, unsigned int reps, unsigned int ms)
{
	char *list = strdup(threads), *tok, *save = NULL;
	long n;

	if (!list || !ms || sched_getaffinity(0, sizeof(allowed), &allowed))
		return 2;
	printf("BENCH native-mt-start threads=%s ms=%u reps=%u batch=%d size=%d host_cpus=%d ref_lock=pthread_spinlock_t platform_lock=%s\n",
	       threads, ms, reps, MT_BATCH, MT_SIZE, CPU_COUNT(&allowed),
	       MT_PLATFORM_LOCK);
	if (strcmp(MT_PLATFORM_LOCK, "pthread_spinlock_t"))
		printf("# dmaguard takes the platform's lock (%s), the reference of native-mt a pthread_spinlock_t: that line compares the locks too; native-mt-platform-lock has the platform's lock on both sides\n",
		       MT_PLATFORM_LOCK);
	printf("# this machine lets the benchmark run on %d CPUs: more threads time-share them\n",
	       CPU_COUNT(&allowed));
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		n = strtol(tok, NULL, 10);
		if (n < 1 || n > MT_MAX_THREADS) {
			fprintf(stderr, "pool_bench: -t takes 1-%d threads\n",
				MT_MAX_THREADS);
			free(list);
			return 2;
		}
		mt_threads(n, reps, ms);
	}
	free(list);
	return 0;
}
