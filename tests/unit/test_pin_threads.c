// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache concurrency smoke: two threads get and put ranges of a small
 * window while a third remaps, unmaps, DONTNEEDs and NUMA-hints pages of
 * it, for a bounded number of rounds. A get must return the pages mapped
 * at some moment during it: when no invalidation happened from before
 * the get to after it (the mm's sequence did not move), its pages must be
 * exactly the frames mapped now. The getters move between CPUs, so that
 * puts run on others than their gets; every put must be taken.
 * Afterwards every pin, charge and notifier is given back. Built with
 * ASan+UBSan like the others, and with TSan (test_pin_threads-tsan)
 * where the data races are the check.
 *
 * What the race covers depends on how the threads were scheduled (a
 * getter at idle priority may get nothing done before the changer ends),
 * so nothing asserts it: the hit and the invalidation the smoke must have
 * been able to meet are made, and checked, before the threads start.
 */
#include <pthread.h>
#include <sched.h>
#include "dg_pin_test.h"

#ifndef ROUNDS
#define ROUNDS		3000	/* changes of the mapping */
#endif
#define WINDOW		32	/* pages the threads fight over */

struct worker {
	unsigned int seed;
	unsigned long gets, faults, stale, other, refused;
};

static bool done;
/* All three start together: a changer done before a getter ran proves nothing. */
static pthread_barrier_t start;

/* Are @h's pages the frames mapped now? Under the mm lock, seq unmoved. */
static bool current_since(const struct dg_pin_handle *h, unsigned long addr,
			  unsigned long seq)
{
	unsigned long i, page = (addr - DG_USER_MM_BASE) / PG;
	bool ok = true;

	pthread_mutex_lock(&dgp.mm->lock);
	if (dgp.mm->seq == seq)
		for (i = 0; i < h->nr_pages; i++)
			ok &= h->pages[i] == dgp.mm->pt[page + i].frame;
	pthread_mutex_unlock(&dgp.mm->lock);
	return ok;
}

static void *getter(void *arg)
{
	struct worker *w = arg;
	struct dg_pin_handle h[4];
	unsigned long addr, seq;
	int r, k, n = 0, err;
	size_t len;

	pthread_barrier_wait(&start);
	/* until the changer is done, bounded in case it starves */
	for (r = 0; r < 20 * ROUNDS &&
	     !__atomic_load_n(&done, __ATOMIC_ACQUIRE); r++) {
		addr = dgp_va(rand_r(&w->seed) % WINDOW, rand_r(&w->seed) % PG);
		len = 1 + rand_r(&w->seed) % (4 * PG);
		if (addr + len > dgp_va(WINDOW, 0))
			len = dgp_va(WINDOW, 0) - addr;
		seq = dg_user_mm_seq(dgp.mm);
		err = dg_pin_get(dgp.c, addr, len, rand_r(&w->seed) & 1, &h[n]);
		if (!err) {
			w->gets++;
			/* two devices write through it: no UAF (ASan) */
			__atomic_fetch_xor(&((struct dg_user_frame *)
					     h[n].pages[0])->data[PG - 1], 1,
					   __ATOMIC_RELAXED);
			if (!current_since(&h[n], addr, seq))
				w->stale++;
			n++;
		} else if (err == -EFAULT || err == -EAGAIN) {
			w->faults++;
		} else {
			w->other++;
		}
		/* migrated: the next calls run on another CPU */
		if (rand_r(&w->seed) % 4 == 0)
			dg_user_set_cpu(rand_r(&w->seed));
		/* hold up to four handles, put them in a scrambled order */
		while (n && (n == 4 || rand_r(&w->seed) % 3 == 0)) {
			k = rand_r(&w->seed) % n;
			if (dg_pin_put(dgp.c, &h[k]))
				w->refused++;
			h[k] = h[--n];
		}
	}
	while (n)
		if (dg_pin_put(dgp.c, &h[--n]))
			w->refused++;
	return NULL;
}

static void *changer(void *arg)
{
	unsigned int seed = 99, scanned;
	unsigned long page;
	size_t len;
	int r;

	pthread_barrier_wait(&start);
	for (r = 0; r < ROUNDS; r++) {
		page = rand_r(&seed) % WINDOW;
		len = (1 + rand_r(&seed) % 3) * PG;
		if (page * PG + len > WINDOW * PG)
			len = (WINDOW - page) * PG;
		switch (rand_r(&seed) % 6) {
		case 0:
			dg_user_mm_unmap(dgp.mm, dgp_va(page, 0), len);
			break;
		case 1:
			dg_user_mm_dontneed(dgp.mm, dgp_va(page, 0), len);
			break;
		case 2:
			dg_user_mm_numa_hint(dgp.mm, dgp_va(page, 0), len);
			break;
		default:
			dg_user_mm_map(dgp.mm, dgp_va(page, 0), len, DG_PROT_RW);
			break;
		}
		if (rand_r(&seed) % 8 == 0)
			dg_pin_cache_evict(dgp.c, 2, &scanned);
		sched_yield();
	}
	__atomic_store_n(&done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void threads(void **state)
{
	struct worker w[2] = { { .seed = 1 }, { .seed = 2 } };
	struct dg_pin_handle h;
	struct dg_pin_stats st;
	pthread_t t[3];
	int i;

	dgp_recreate(24 * PG, 12, NULL);
	/* A hit, then an invalidation of the entry it hit. */
	h = dgp_get(dgp_va(3, 0), 2 * PG, true);
	dg_pin_put(dgp.c, &h);
	h = dgp_get(dgp_va(3, 0), 2 * PG, true);
	dgp_assert_current(&h, dgp_va(3, 0));
	dg_pin_put(dgp.c, &h);
	dg_user_mm_map(dgp.mm, dgp_va(4, 0), PG, DG_PROT_RW);
	st = dgp_stats();
	assert_int_equal(st.hits, 1);
	assert_int_equal(st.invalidations, 1);

	__atomic_store_n(&done, false, __ATOMIC_RELEASE);
	assert_int_equal(pthread_barrier_init(&start, NULL, 3), 0);
	assert_int_equal(pthread_create(&t[2], NULL, changer, NULL), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, getter, &w[i]), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&start);

	st = dgp_stats();
	for (i = 0; i < 2; i++) {
		assert_int_equal(w[i].stale, 0);
		assert_int_equal(w[i].refused, 0);
	}
	assert_int_equal(st.bad_puts, 0);
	print_message("# gets %lu+%lu, faults %lu+%lu, other %lu+%lu, hits %llu, misses %llu, invalidations %llu, retries %llu, evictions %llu\n",
		      w[0].gets, w[1].gets, w[0].faults, w[1].faults,
		      w[0].other, w[1].other, (unsigned long long)st.hits,
		      (unsigned long long)st.misses,
		      (unsigned long long)st.invalidations,
		      (unsigned long long)st.retries,
		      (unsigned long long)st.evictions);
	assert_int_equal(st.handles, 0);
	assert_int_equal(dgp.mm->pinned_vm * PG, st.pinned_bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(threads),
	};

	return cmocka_run_group_tests_name("pin_threads", tests, NULL, NULL);
}
