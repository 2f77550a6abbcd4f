// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark: dmaguard's core (-O2) against the in-band reference
 * pool (ref_pool.c, the algorithm of the kernel's dma_pool since 6.4),
 * over the same userspace platform, each side paying what the kernel's
 * locks cost (scripts/mk/bench.mk): built as pool_bench, the core's
 * per-CPU cache lock costs a local_lock_irqsave() (flags saved, no
 * atomic; it excludes nothing, so one thread only) and the reference
 * takes a spinlock with the flags saved, as spin_lock_irqsave(); built as
 * pool_bench_mt (the multi-thread runs, -t), the cache lock is a real one.
 *
 * Protocol, per row (that of the kernel's mm/dmapool_test.c): a
 * measurement is ROUNDS rounds of "allocate BLOCKS blocks, then free them
 * all in allocation order". Both pools are created once per row and
 * reused; one untimed warm-up measurement each, then REPS measurements of
 * each; medians. By default the two pools alternate round by round within
 * a measurement, each round timed on its own, so that both see the same
 * noise from the rest of the machine; -W alternates whole measurements
 * (reference, dmaguard, reference, ...) instead.
 *
 * Times are CPU time of the benchmark thread (-w: wall clock).
 *
 *   pool_bench [-r REPS] [-n ROUNDS] [-R ROW] [-W] [-w] [-P|-N]
 *	BENCH native size=S align=A blocks=N ref=spinlock ref_ns_per_pair=X
 *	      dmaguard_ns_per_pair=Y ratio=Y/X
 *	BENCH native ref=spinlock geomean=G
 *	(-P: the reference under the platform's lock instead, ref=mutex;
 *	-N: under the spinlock without the flags, ref=spinlock-noirq)
 *	BENCH native-meta size=S ref_bytes_per_block=.. dmaguard_bytes_per_block=..
 *	BENCH native-fixed size=S pcp_bytes_per_cpu=.. pcp_bytes_at_256_cpus=..
 *	BENCH native-reps size=S mode=M ratios=r1,r2,.. median_rep_ratio=R
 *   pool_bench_mt -t THREADS[,THREADS..] [-r REPS] [-m MS]
 *	multi-thread mode (pool_bench_mt.c): every thread on one pool,
 *	batches of 16 64-byte blocks for MS (300) ms, REPS (5) repetitions
 *	BENCH native-mt threads=N size=64 ref_ops=X dmaguard_ops=Y ratio=Y/X
 *   pool_bench -c ref|dmaguard -R ROW [-n ROUNDS]
 *	callgrind mode, run under valgrind --tool=callgrind
 *	--instr-atstart=no: one untimed warm-up round, then ROUNDS rounds
 *	with instrumentation on; prints "CALLGRIND pairs=P" so that the
 *	caller divides callgrind's total Ir by P.
 */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include "pool.h"
#include "dg_user.h"
#include "ref_pool.h"
#include "pool_bench.h"

#ifdef DG_USER_PCP_KERNEL_COST
#define LOCAL_LOCK_COST	"trylock"	/* the kernel's cost: preempt count, a flag */
#else
#define LOCAL_LOCK_COST	"atomic"	/* a real lock: one atomic exchange */
#endif

struct row {
	size_t size, align, boundary;
	unsigned int blocks;
};

static const struct row rows[] = {
	{ 16, 16, 0, 8192 },
	{ 64, 64, 0, 8192 },
	{ 256, 256, 0, 8192 },
	{ 1024, 1024, 0, 2048 },
	{ 4096, 4096, 0, 1024 },
	{ 68, 32, 4096, 8192 },
};
#define NR_ROWS		(sizeof(rows) / sizeof(rows[0]))

struct blk {
	void *v;
	dma_addr_t dma;
};

static struct blk *buf;

/*
 * The reference: by default the in-band pool under a spinlock with the
 * flags saved, what the kernel's dma_pool takes (ref_spin_pool_*); -P:
 * under the platform's lock, a pthread mutex (ref_pool_*), whose atomics
 * glibc elides while the process has one thread: a second opinion,
 * labelled ref=mutex; -N: the spinlock without the flags
 * (ref_bare_pool_*), labelled ref=spinlock-noirq: the kernel's pool as if
 * its interrupt toggle were free, which userspace cannot model exactly
 * (popf where the kernel has cli and sti).
 */
enum ref_kind { REF_SPIN, REF_PLAT, REF_BARE };
static enum ref_kind ref_kind;

#define REF_ROUND(name, pool)						\
static __attribute__((__noinline__)) int name(void *p, unsigned int n)	\
{									\
	unsigned int i;							\
									\
	for (i = 0; i < n; i++) {					\
		buf[i].v = pool##_alloc(p, GFP_KERNEL, &buf[i].dma);	\
		if (!buf[i].v)						\
			return -1;					\
	}								\
	for (i = 0; i < n; i++)						\
		pool##_free(p, buf[i].v, buf[i].dma);			\
	return 0;							\
}
REF_ROUND(ref_spin_round, ref_spin_pool)
REF_ROUND(ref_plat_round, ref_pool)
REF_ROUND(ref_bare_round, ref_bare_pool)

static int ref_round(void *p, unsigned int n)
{
	switch (ref_kind) {
	case REF_PLAT:
		return ref_plat_round(p, n);
	case REF_BARE:
		return ref_bare_round(p, n);
	default:
		return ref_spin_round(p, n);
	}
}

static const char *ref_name(void)
{
	static const char * const names[] = {
		[REF_SPIN] = "spinlock", [REF_PLAT] = "mutex",
		[REF_BARE] = "spinlock-noirq",
	};

	return names[ref_kind];
}

static void *ref_create(const struct row *r)
{
	switch (ref_kind) {
	case REF_PLAT:
		return ref_pool_create("ref", NULL, r->size, r->align,
				       r->boundary);
	case REF_BARE:
		return ref_bare_pool_create("ref", NULL, r->size, r->align,
					    r->boundary);
	default:
		return ref_spin_pool_create("ref", NULL, r->size, r->align,
					    r->boundary);
	}
}

static void ref_destroy(void *p)
{
	switch (ref_kind) {
	case REF_PLAT:
		ref_pool_destroy(p);
		break;
	case REF_BARE:
		ref_bare_pool_destroy(p);
		break;
	default:
		ref_spin_pool_destroy(p);
	}
}

static void ref_meta(void *p, size_t *meta, size_t *blocks)
{
	switch (ref_kind) {
	case REF_PLAT:
		ref_pool_meta(p, meta, blocks);
		break;
	case REF_BARE:
		ref_bare_pool_meta(p, meta, blocks);
		break;
	default:
		ref_spin_pool_meta(p, meta, blocks);
	}
}

static __attribute__((__noinline__)) int dg_round(struct dg_pool *p,
					      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		buf[i].v = (void __force *)dg_pool_alloc(p, GFP_KERNEL,
							 &buf[i].dma);
		if (!buf[i].v)
			return -1;
	}
	for (i = 0; i < n; i++)
		dg_pool_free(p, (void __dma __force *)buf[i].v, buf[i].dma);
	return 0;
}

/*
 * CPU time of this thread by default: time the machine spends running
 * other processes (a shared 2-CPU host running TCG guests, say) is not
 * charged to the pool that happened to be measured. -w: wall clock.
 */
static clockid_t bench_clock = CLOCK_THREAD_CPUTIME_ID;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void round_or_die(void *rp, struct dg_pool *dp,
			 unsigned int n)
{
	if (rp ? ref_round(rp, n) : dg_round(dp, n)) {
		fprintf(stderr, "pool_bench: allocation failed\n");
		exit(1);
	}
}

/*
 * One measurement of each pool, made together: rounds alternate between
 * the pools (which goes first alternates too), each timed on its own.
 */
static void measure_pair(void *rp, struct dg_pool *dp,
			 unsigned int n, unsigned int rounds, double *rt,
			 double *dt)
{
	double t0, t1, t2;
	unsigned int i;
	bool dg_first;

	*rt = *dt = 0;
	for (i = 0; i < rounds; i++) {
		dg_first = i & 1;
		t0 = now_ns();
		round_or_die(dg_first ? NULL : rp, dp, n);
		t1 = now_ns();
		round_or_die(dg_first ? rp : NULL, dp, n);
		t2 = now_ns();
		*rt += dg_first ? t2 - t1 : t1 - t0;
		*dt += dg_first ? t1 - t0 : t2 - t1;
	}
}

static double measure(void *rp, struct dg_pool *dp,
		      unsigned int n, unsigned int rounds)
{
	double t0 = now_ns();
	unsigned int i;

	for (i = 0; i < rounds; i++)
		if (rp ? ref_round(rp, n) : dg_round(dp, n)) {
			fprintf(stderr, "pool_bench: allocation failed\n");
			exit(1);
		}
	return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void pools_create(const struct row *r, void **rp,
			 struct dg_pool **dp)
{
	struct dg_pool_params prm = {
		.name = "bench", .size = r->size, .align = r->align,
		.boundary = r->boundary, .node = DG_NO_NODE,
	};

	*rp = ref_create(r);
	*dp = dg_pool_create(&prm);
	if (!*rp || !*dp) {
		fprintf(stderr, "pool_bench: cannot create pools for size %zu\n",
			r->size);
		exit(1);
	}
}

static bool whole;	/* -W: alternate whole measurements, not rounds */

static double bench_row(const struct row *r, unsigned int reps,
			unsigned int rounds)
{
	double rt[BENCH_MAX_REPS], dt[BENCH_MAX_REPS], pr[BENCH_MAX_REPS];
	double rm, dm, pairs;
	struct dg_pool_stats st;
	void *rp;
	struct dg_pool *dp;
	size_t rmeta, rblocks;
	unsigned int i;

	pools_create(r, &rp, &dp);
	measure(rp, NULL, r->blocks, rounds);	/* warm-up */
	measure(NULL, dp, r->blocks, rounds);
	for (i = 0; i < reps; i++) {
		if (whole) {
			rt[i] = measure(rp, NULL, r->blocks, rounds);
			dt[i] = measure(NULL, dp, r->blocks, rounds);
		} else {
			measure_pair(rp, dp, r->blocks, rounds, &rt[i], &dt[i]);
		}
		pr[i] = dt[i] / rt[i];
	}
	printf("BENCH native-reps size=%zu ref=%s mode=%s ratios=", r->size,
	       ref_name(), whole ? "whole" : "interleave");
	for (i = 0; i < reps; i++)
		printf("%s%.3f", i ? "," : "", pr[i]);
	printf(" median_rep_ratio=%.3f\n", bench_median(pr, reps));
	pairs = (double)rounds * r->blocks;
	rm = bench_median(rt, reps) / pairs;
	dm = bench_median(dt, reps) / pairs;
	printf("BENCH native size=%zu align=%zu blocks=%u ref=%s ref_ns_per_pair=%.2f dmaguard_ns_per_pair=%.2f ratio=%.3f\n",
	       r->size, r->align, r->blocks, ref_name(), rm, dm, dm / rm);
	dg_pool_get_stats(dp, &st);
	ref_meta(rp, &rmeta, &rblocks);
	printf("BENCH native-meta size=%zu ref_bytes_per_block=%.2f dmaguard_bytes_per_block=%.2f\n",
	       r->size, (double)rmeta / rblocks,
	       (double)st.meta_bytes / st.blocks_total);
	/* The per-CPU caches: a fixed cost per pool and possible CPU. */
	printf("BENCH native-fixed size=%zu pcp_bytes_per_cpu=%llu pcp_bytes_at_256_cpus=%llu\n",
	       r->size, (unsigned long long)st.pcp_bytes / num_possible_cpus(),
	       (unsigned long long)st.pcp_bytes / num_possible_cpus() * 256);
	fflush(stdout);
	ref_destroy(rp);
	if (dg_pool_destroy(dp)) {
		fprintf(stderr, "pool_bench: dmaguard pool had live blocks\n");
		exit(1);
	}
	return dm / rm;
}

static int callgrind_mode(const char *which, const struct row *r,
			  unsigned int rounds)
{
	void *rp;
	struct dg_pool *dp;
	bool ref = !strcmp(which, "ref");

	if (!ref && strcmp(which, "dmaguard")) {
		fprintf(stderr, "pool_bench: -c ref|dmaguard\n");
		return 2;
	}
	pools_create(r, &rp, &dp);
	/* Warm-up: pools populated, so only the steady state is counted. */
	measure(ref ? rp : NULL, dp, r->blocks, 1);
	CALLGRIND_START_INSTRUMENTATION;
	measure(ref ? rp : NULL, dp, r->blocks, rounds);
	CALLGRIND_STOP_INSTRUMENTATION;
	printf("CALLGRIND pool=%s size=%zu pairs=%llu\n", which, r->size,
	       (unsigned long long)rounds * r->blocks);
	ref_destroy(rp);
	dg_pool_destroy(dp);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int reps = 0, rounds = 100, i, nrow = 0, ms = 300;
	const char *cg = NULL, *threads = NULL;
	double logsum = 0;
	int opt, only = -1;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "r:n:R:c:Wwt:m:PN")) != -1) {
		switch (opt) {
		case 'P':
			ref_kind = REF_PLAT;
			break;
		case 'N':
			ref_kind = REF_BARE;
			break;
		case 't':
			threads = optarg;
			break;
		case 'm':
			ms = atoi(optarg);
			break;
		case 'w':
			bench_clock = CLOCK_MONOTONIC;
			break;
		case 'W':
			whole = true;
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'n':
			rounds = atoi(optarg);
			break;
		case 'R':
			only = atoi(optarg);
			break;
		case 'c':
			cg = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-r reps] [-n rounds] [-R row] [-W] [-w] [-P|-N] [-c ref|dmaguard] [-t threads,.. [-m ms]]\n",
				argv[0]);
			return 2;
		}
	}
	if (threads) {
#ifdef DG_USER_PCP_KERNEL_COST
		/* This build's per-CPU cache lock excludes nothing. */
		fprintf(stderr, "pool_bench: -t: run pool_bench_mt\n");
		return 2;
#endif
		return bench_mt(threads, reps ? reps : 5, ms);
	}
	if (!reps)
		reps = 9;
	if (!reps || reps > BENCH_MAX_REPS || !rounds || only >= (int)NR_ROWS) {
		fprintf(stderr, "pool_bench: bad arguments\n");
		return 2;
	}
	buf = calloc(8192, sizeof(*buf));
	if (!buf)
		return 1;
	if (cg) {
		if (only < 0) {
			fprintf(stderr, "pool_bench: -c needs -R ROW\n");
			return 2;
		}
		return callgrind_mode(cg, &rows[only], rounds);
	}

	/* Stay on one CPU: no migrations in the middle of a measurement. */
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		for (i = 0; i < CPU_SETSIZE && !CPU_ISSET(i, &set); i++)
			;
		CPU_ZERO(&set);
		CPU_SET(i, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	printf("BENCH native-start reps=%u rounds=%u ref=%s local_lock=%s mode=%s clock=%s init_on_alloc=%d\n",
	       reps, rounds, ref_name(), LOCAL_LOCK_COST,
	       whole ? "whole" : "interleave",
	       bench_clock == CLOCK_MONOTONIC ? "wall" : "thread-cpu",
	       dg_user_init_on_alloc);
	for (i = 0; i < NR_ROWS; i++) {
		if (only >= 0 && only != (int)i)
			continue;
		logsum += log(bench_row(&rows[i], reps, rounds));
		nrow++;
	}
	printf("BENCH native ref=%s geomean=%.3f\n", ref_name(),
	       exp(logsum / nrow));
	return 0;
}
