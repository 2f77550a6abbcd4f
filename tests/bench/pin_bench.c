// SPDX-License-Identifier: GPL-2.0
/*
 * Native benchmark of the pin cache's hit path: dmaguard's core
 * (libdmaguard-core.a, -O2, over the simulated mm of pin_mm.c) against a
 * reference that does only what any range cache must on a hit: an
 * interval tree (the kernel's interval_tree_generic.h) under one spinlock
 * (the userspace platform's, the same as dmaguard's), a reference count
 * taken under it by the get and dropped under it by the put.
 *
 * Per size: the range is mapped and cached once (the miss is not timed);
 * a measurement is ITERS get+put pairs of the whole range on one thread,
 * CPU time; the two alternate measurement by measurement, REPS each after
 * one warm-up, medians. Then two threads hit one cache for MS
 * milliseconds (wall clock), the pairs per second against one thread's:
 * both the same cached range (one entry: the reference's count moves
 * between the CPUs, dmaguard's hold counts are per CPU), then each its
 * own (two entries of one cache: what two submitting threads with their
 * own buffers do). The two threads get two of the platform's CPUs.
 * An idle thread lives from the start: glibc takes its locks without
 * atomics while a process has one thread, the kernel's spinlock always
 * uses one, so both sides pay the kernel's cost in every row.
 *
 *   pin_bench [-r REPS] [-n ITERS] [-m MS] [-s MAX_BYTES]
 *	BENCH pin-native bytes=B ref_ns_per_hit=X dmaguard_ns_per_hit=Y ratio=Y/X
 *	BENCH pin-native same-range|own-range threads=2 bytes=B ratio=D
 *		ref_ratio=R ...	(two threads' rate / one thread's, medians)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pincache.h"
#include "dg_user.h"
#include "dg_user_mm.h"

/* The reference: an interval tree of ranges under one lock. */
struct ref_entry {
	struct rb_node rb;
	unsigned long start, last, subtree_last;
	unsigned long refs;
};

#define REF_START(e)	((e)->start)
#define REF_LAST(e)	((e)->last)
INTERVAL_TREE_DEFINE(struct ref_entry, rb, unsigned long, subtree_last,
		     REF_START, REF_LAST, static, ref_it)

struct ref_cache {
	spinlock_t lock;
	struct rb_root_cached index;
};

static struct ref_entry *ref_get(struct ref_cache *c, unsigned long start,
				 unsigned long last)
{
	struct ref_entry *e;

	spin_lock(&c->lock);
	for (e = ref_it_iter_first(&c->index, start, start); e;
	     e = ref_it_iter_next(e, start, start))
		if (e->last >= last)
			break;
	if (e)
		e->refs++;
	spin_unlock(&c->lock);
	return e;
}

static void ref_put(struct ref_cache *c, struct ref_entry *e)
{
	spin_lock(&c->lock);
	e->refs--;
	spin_unlock(&c->lock);
}

/* One cache of each kind over two ranges of the same size; range 0 is timed. */
struct subject {
	struct dg_pin_cache *dg;
	struct ref_cache ref;
	struct ref_entry entry[2];
	unsigned long addr[2];
	size_t len;
};

static double cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static double wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "pin_bench: %s\n", what);
	exit(1);
}

static void hit_dg(struct subject *s, int k)
{
	struct dg_pin_handle h;

	if (dg_pin_get(s->dg, s->addr[k], s->len, true, &h))
		die("dmaguard get failed");
	dg_pin_put(s->dg, &h);
}

static void hit_ref(struct subject *s, int k)
{
	struct ref_entry *e = ref_get(&s->ref, s->addr[k],
				      s->addr[k] + s->len - 1);

	if (!e)
		die("reference get missed");
	ref_put(&s->ref, e);
}

/* ns per hit (get + put) over @iters, CPU time of this thread. */
static double measure(struct subject *s, bool dg, unsigned long iters)
{
	double t0 = cpu_ns();
	unsigned long i;

	for (i = 0; i < iters; i++) {
		if (dg)
			hit_dg(s, 0);
		else
			hit_ref(s, 0);
	}
	return (cpu_ns() - t0) / iters;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct mt_arg {
	struct subject *s;
	bool dg;
	int k;			/* the range it hits */
	int ms;
	double rate;		/* hits per second of this thread */
	pthread_barrier_t *go;
};

static void *mt_thread(void *p)
{
	struct mt_arg *a = p;
	unsigned long hits = 0;
	double t0, t;

	pthread_barrier_wait(a->go);
	t0 = wall_ns();
	do {
		int k;

		for (k = 0; k < 64; k++) {
			if (a->dg)
				hit_dg(a->s, a->k);
			else
				hit_ref(a->s, a->k);
		}
		hits += 64;
		t = wall_ns();
	} while (t < t0 + a->ms * 1e6);
	a->rate = hits / ((t - t0) / 1e9);
	return NULL;
}

/* Hits per second of @threads threads on one cache for @ms. */
static double mt_rate(struct subject *s, bool dg, int threads, int ms,
		      bool own)
{
	struct mt_arg a[8];
	pthread_barrier_t go;
	pthread_t t[8];
	double total = 0;
	int i;

	pthread_barrier_init(&go, NULL, threads);
	for (i = 0; i < threads; i++) {
		a[i] = (struct mt_arg){ .s = s, .dg = dg, .ms = ms, .go = &go,
					.k = own ? i % 2 : 0 };
		if (pthread_create(&t[i], NULL, mt_thread, &a[i]))
			die("pthread_create");
	}
	for (i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += a[i].rate;
	}
	pthread_barrier_destroy(&go);
	return total;
}

static void *idle_thread(void *arg)
{
	pause();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t idle;
	static const size_t sizes[] = {
		4096, 65536, 1 << 20, 2 << 20, 64 << 20, 1ul << 30,
	};
	unsigned long iters = 200000, max_bytes = 1ul << 30;
	int reps = 9, ms = 300, opt, r, i, k, own;

	while ((opt = getopt(argc, argv, "r:n:m:s:")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 'n':
			iters = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			ms = atoi(optarg);
			break;
		case 's':
			max_bytes = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: pin_bench [-r REPS] [-n ITERS] [-m MS] [-s MAX_BYTES]\n");
			return 2;
		}
	}
	if (reps < 1 || reps > 99)
		die("-r: 1 to 99");
	if (pthread_create(&idle, NULL, idle_thread, NULL))
		die("pthread_create");
	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		size_t len = sizes[i];
		unsigned long pages = len / DG_PAGE_SIZE;
		struct dg_pin_params p = { .node = DG_NO_NODE };
		struct dg_user_mm *mm;
		struct subject s;
		struct dg_pin_handle h;
		double dg[99], ref[99], dgm, refm, r1, r2, d1, d2;

		if (len > max_bytes)
			break;
		mm = dg_user_mm_create(2 * pages);
		if (!mm || dg_user_mm_map(mm, dg_user_mm_addr(0), 2 * len,
					  DG_PROT_RW))
			die("simulated mm");
		memset(&s, 0, sizeof(s));
		p.mm = mm;
		s.dg = dg_pin_cache_create(&p);
		if (!s.dg)
			die("cache");
		s.len = len;
		spin_lock_init(&s.ref.lock);
		s.ref.index = RB_ROOT_CACHED;
		for (k = 0; k < 2; k++) {
			s.addr[k] = dg_user_mm_addr(k * pages);
			/* the miss, not timed: cached from here on */
			if (dg_pin_get(s.dg, s.addr[k], len, true, &h))
				die("first get");
			dg_pin_put(s.dg, &h);
			s.entry[k].start = s.addr[k];
			s.entry[k].last = s.addr[k] + len - 1;
			ref_it_insert(&s.entry[k], &s.ref.index);
		}

		measure(&s, false, iters / 10);
		measure(&s, true, iters / 10);
		for (r = 0; r < reps; r++) {
			ref[r] = measure(&s, false, iters);
			dg[r] = measure(&s, true, iters);
		}
		refm = median(ref, reps);
		dgm = median(dg, reps);
		printf("BENCH pin-native bytes=%zu ref_ns_per_hit=%.1f dmaguard_ns_per_hit=%.1f ratio=%.3f\n",
		       len, refm, dgm, dgm / refm);
		fflush(stdout);
		for (own = 0; len == 65536 && own < 2; own++) {
			for (r = 0; r < reps && r < 5; r++) {
				ref[r] = mt_rate(&s, false, 2, ms, own) /
					 mt_rate(&s, false, 1, ms, own);
				dg[r] = mt_rate(&s, true, 2, ms, own) /
					mt_rate(&s, true, 1, ms, own);
			}
			r2 = median(ref, r);
			d2 = median(dg, r);
			r1 = mt_rate(&s, false, 1, ms, own);
			d1 = mt_rate(&s, true, 1, ms, own);
			printf("BENCH pin-native %s threads=2 bytes=%zu ratio=%.2f ref_ratio=%.2f dmaguard_1thread_hits_per_s=%.0f ref_1thread_hits_per_s=%.0f\n",
			       own ? "own-range" : "same-range", len, d2, r2,
			       d1, r1);
			fflush(stdout);
		}
		for (k = 0; k < 2; k++)
			ref_it_remove(&s.entry[k], &s.ref.index);
		if (dg_pin_cache_destroy(s.dg))
			die("handles left");
		dg_user_run_work();
		dg_user_mm_destroy(mm);
	}
	return 0;
}
