// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache lifetime: a destroy racing the last puts, two last puts
 * racing each other, and a destroy racing puts, invalidations and the
 * deferred reap all at once, never touch freed memory (ASan here, TSan in
 * test_pin_lifetime-tsan) and leave nothing pinned, charged or allocated.
 * Puts of handles the cache does not hold (a copy put twice, a handle of
 * a released entry or of another cache, garbage) are refused, counted
 * and reported once per cache, and change nothing.
 */
#include <pthread.h>
#include "dg_pin_test.h"
#include "pincache_internal.h"

#ifndef ROUNDS
#define ROUNDS		300
#endif

static pthread_barrier_t go;

struct racer {
	struct dg_pin_handle *h;
	unsigned int nr;
	unsigned long held;	/* what destroy said */
};

static void *put_all(void *arg)
{
	struct racer *r = arg;
	unsigned int i;

	pthread_barrier_wait(&go);
	for (i = 0; i < r->nr; i++)
		assert_int_equal(dg_pin_put(dgp.c, &r->h[i]), 0);
	return NULL;
}

static void *destroy(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(&go);
	r->held = dg_pin_cache_destroy(dgp.c);
	return NULL;
}

/* Idle entries give destroy something to release after it unlocks. */
static void fill_idle(unsigned long first, unsigned long n)
{
	struct dg_pin_handle h;
	unsigned long i;

	for (i = 0; i < n; i++) {
		h = dgp_get(dgp_va(first + 2 * i, 0), 2 * PG, i & 1);
		dg_pin_put(dgp.c, &h);
	}
}

/* The end of one round: the cache is gone, nothing is left. */
static void round_done(void)
{
	dg_user_run_work();
	dgp.c = NULL;
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp.mm->pinned_vm, 0);
	assert_int_equal(dgp.mm->notifiers_live, 0);
	assert_int_equal(dg_user_count.meta_live, dgp.meta_base);
	dgp.c = dgp_cache(0, 0, NULL);
	assert_non_null(dgp.c);
}

/* The last put, run from inside a release of the cache's (one shot). */
static struct dg_pin_handle *put_in_release;

static void put_hook(struct dg_user_mm *mm, void *arg)
{
	struct dg_pin_handle *h = put_in_release;

	if (!h)
		return;
	put_in_release = NULL;
	dg_pin_put(dgp.c, h);
}

/*
 * Deterministically: the last put lands while destroy is still releasing
 * the idle entries (at its first unpin), then while the deferred reap is
 * releasing the entry of another last put (it queues the reap again).
 */
static void last_put_inside_release(void **state)
{
	struct dg_pin_handle a, b;
	struct dg_pin_cache *c = dgp.c;

	dgp.mm->unpin_hook = put_hook;
	a = dgp_get(dgp_va(100, 0), 4 * PG, true);
	fill_idle(0, 8);
	put_in_release = &a;
	assert_int_equal(dg_pin_cache_destroy(c), 1);
	assert_null(put_in_release);		/* the put ran inside */
	round_done();

	a = dgp_get(dgp_va(100, 0), 4 * PG, true);
	b = dgp_get(dgp_va(120, 0), 4 * PG, false);
	assert_int_equal(dg_pin_cache_destroy(dgp.c), 2);
	put_in_release = &b;
	dg_pin_put(dgp.c, &a);			/* queues the reap */
	assert_non_null(put_in_release);
	assert_int_equal(dg_user_run_work(), 2);	/* b's put inside a's */
	assert_null(put_in_release);
	dgp.mm->unpin_hook = NULL;
	round_done();
}

/* destroy on one thread, the last put on another: whoever ends frees. */
static void destroy_races_last_put(void **state)
{
	struct dg_pin_handle h;
	struct racer d = { 0 }, p = { .h = &h, .nr = 1 };
	pthread_t a, b;
	int i;

	assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
	for (i = 0; i < ROUNDS; i++) {
		h = dgp_get(dgp_va(200, 0), 4 * PG, true);
		fill_idle(0, 32);
		assert_int_equal(pthread_create(&a, NULL, destroy, &d), 0);
		assert_int_equal(pthread_create(&b, NULL, put_all, &p), 0);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		assert_true(d.held <= 1);
		round_done();
	}
	pthread_barrier_destroy(&go);
}

/* Destroyed with two handles held; their puts race on two threads. */
static void two_last_puts_race(void **state)
{
	struct dg_pin_handle h[2];
	struct racer p0 = { .h = &h[0], .nr = 1 }, p1 = { .h = &h[1], .nr = 1 };
	pthread_t a, b;
	int i;

	assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
	for (i = 0; i < ROUNDS; i++) {
		h[0] = dgp_get(dgp_va(0, 0), 32 * PG, true);
		h[1] = dgp_get(dgp_va(100, 0), 32 * PG, false);
		assert_int_equal(dg_pin_cache_destroy(dgp.c), 2);
		assert_int_equal(pthread_create(&a, NULL, put_all, &p0), 0);
		assert_int_equal(pthread_create(&b, NULL, put_all, &p1), 0);
		pthread_join(a, NULL);
		pthread_join(b, NULL);
		round_done();
	}
	pthread_barrier_destroy(&go);
}

static bool churn_done;

/* munmap and mmap again under the entries, as another thread would. */
static void *churn(void *arg)
{
	unsigned long page = 0;

	pthread_barrier_wait(&go);
	while (!__atomic_load_n(&churn_done, __ATOMIC_ACQUIRE)) {
		dg_user_mm_map(dgp.mm, dgp_va(page, 0), 2 * PG, DG_PROT_RW);
		page = (page + 2) % 64;
	}
	return NULL;
}

/*
 * The workqueue: runs the reaps the invalidations and puts queue, and
 * the agings (each pass a period, so entries age out under the racers).
 */
static void *worker(void *arg)
{
	pthread_barrier_wait(&go);
	while (!__atomic_load_n(&churn_done, __ATOMIC_ACQUIRE)) {
		dg_user_run_work();
		dg_user_run_aging();
	}
	return NULL;
}

/*
 * Destroy racing puts, invalidations (held and idle entries), the
 * deferred reap and the aging, all at once.
 */
static void destroy_races_everything(void **state)
{
	struct dg_pin_handle h[8];
	struct racer d = { 0 }, p = { .h = h, .nr = 8 };
	pthread_t t[4];
	int i, k;

	assert_int_equal(pthread_barrier_init(&go, NULL, 4), 0);
	for (i = 0; i < ROUNDS / 4; i++) {
		for (k = 0; k < 8; k++)
			h[k] = dgp_get(dgp_va(8 * k, 0), 4 * PG, k & 1);
		fill_idle(1, 30);
		__atomic_store_n(&churn_done, false, __ATOMIC_RELEASE);
		assert_int_equal(pthread_create(&t[0], NULL, destroy, &d), 0);
		assert_int_equal(pthread_create(&t[1], NULL, put_all, &p), 0);
		assert_int_equal(pthread_create(&t[2], NULL, churn, NULL), 0);
		assert_int_equal(pthread_create(&t[3], NULL, worker, NULL), 0);
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		__atomic_store_n(&churn_done, true, __ATOMIC_RELEASE);
		pthread_join(t[2], NULL);
		pthread_join(t[3], NULL);
		assert_true(d.held <= 8);
		round_done();
	}
	pthread_barrier_destroy(&go);
}

/*
 * Handles the cache does not hold: refused with -EINVAL, counted, one
 * report per cache, and the entries' real holders are untouched.
 */
static void bad_puts_refused(void **state)
{
	unsigned long errs = dg_user_reports_err;
	struct dg_pin_handle a, b, x, copy, stale, foreign, junk;
	struct dg_pin_cache *other;
	struct dg_pin_params p = { .mm = dgp.mm, .node = DG_NO_NODE };

	a = dgp_get(dgp_va(0, 0), 4 * PG, true);
	b = dgp_get(dgp_va(1, 0), PG, true);		/* a hit: same entry */
	assert_int_equal(a.cookie, b.cookie);
	copy = a;
	assert_int_equal(dg_pin_put(dgp.c, &a), 0);
	assert_int_equal(dg_pin_put(dgp.c, &copy), 0);	/* b's reference */
	/* a third put of that entry: none held any more */
	assert_int_equal(dg_pin_put(dgp.c, &b), -EINVAL);
	assert_int_equal(dgp_pins(0), 1);		/* still cached */

	/* a handle of an entry released since */
	stale = dgp_get(dgp_va(20, 0), PG, false);
	copy = stale;
	assert_int_equal(dg_pin_put(dgp.c, &stale), 0);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(20, 0), PG), 0);
	dg_user_run_work();
	assert_int_equal(dg_pin_put(dgp.c, &copy), -EINVAL);

	/* another cache's handle, whose id this cache also uses */
	other = dg_pin_cache_create(&p);
	assert_non_null(other);
	foreign = dgp_get(dgp_va(30, 0), PG, false);	/* ours, held: id 2 */
	assert_int_equal(dg_pin_get(other, dgp_va(40, 0), PG, false, &x), 0);
	assert_int_equal(dg_pin_get(other, dgp_va(42, 0), PG, false, &a), 0);
	assert_int_equal(pin_cookie_id(a.cookie), pin_cookie_id(foreign.cookie));
	copy = a;
	assert_int_equal(dg_pin_put(dgp.c, &copy), -EINVAL);
	assert_int_equal(dgp_pins(30), 1);
	assert_int_equal(dgp_pins(42), 1);
	assert_int_equal(dg_pin_put(other, &x), 0);
	assert_int_equal(dg_pin_put(other, &a), 0);
	assert_int_equal(dg_pin_cache_destroy(other), 0);

	/* garbage */
	junk.cookie = 0xdead0000beefull;
	assert_int_equal(dg_pin_put(dgp.c, &junk), -EINVAL);
	junk.cookie = 0;
	assert_int_equal(dg_pin_put(dgp.c, &junk), -EINVAL);

	assert_int_equal(dgp_stats().bad_puts, 5);
	assert_int_equal(dgp_stats().handles, 1);
	assert_int_equal(dg_user_reports_err, errs + 1);	/* once */
	assert_int_equal(dg_pin_put(dgp.c, &foreign), 0);
	assert_int_equal(dgp_stats().handles, 0);
}

/*
 * A handle is counted on the CPU its get ran on, and its put gives it
 * back there, wherever the put runs. So a copy put twice is refused while
 * its CPU counts no other handle, even with the entry held on other CPUs,
 * and a stale entry held on several CPUs goes at the last put of all.
 */
static void handles_counted_per_cpu(void **state)
{
	struct dg_pin_handle a, b, b2, copy;

	dg_user_set_cpu(1);
	a = dgp_get(dgp_va(0, 0), 2 * PG, true);	/* the miss */
	dg_user_set_cpu(2);
	b = dgp_get(dgp_va(0, 0), 2 * PG, true);	/* hits */
	b2 = dgp_get(dgp_va(0, 0), PG, false);
	assert_int_equal(pin_cookie_cpu(a.cookie), 1);
	assert_int_equal(pin_cookie_cpu(b.cookie), 2);
	assert_int_equal(pin_cookie_cpu(b2.cookie), 2);
	assert_int_equal(pin_cookie_id(a.cookie), pin_cookie_id(b.cookie));
	assert_int_equal(dgp_stats().hits, 2);
	assert_int_equal(dgp_stats().handles, 3);

	/* put on CPU 3: CPU 1's handle goes back */
	dg_user_set_cpu(3);
	copy = a;
	assert_int_equal(dg_pin_put(dgp.c, &a), 0);
	assert_int_equal(dgp_stats().handles, 2);
	assert_int_equal(dg_pin_put(dgp.c, &copy), -EINVAL);
	/* a real handle's cookie naming a CPU that holds none, or none at all */
	copy = b;
	copy.cookie = (b.cookie & ~DG_PIN_COOKIE_CPU_MASK) |
		      (u64)3 << DG_PIN_COOKIE_ID_BITS;
	assert_int_equal(dg_pin_put(dgp.c, &copy), -EINVAL);
	copy = b;
	copy.cookie = (b.cookie & ~DG_PIN_COOKIE_CPU_MASK) |
		      (u64)DG_USER_CPUS << DG_PIN_COOKIE_ID_BITS;
	assert_int_equal(dg_pin_put(dgp.c, &copy), -EINVAL);
	assert_int_equal(dgp_stats().bad_puts, 3);
	assert_int_equal(dgp_stats().handles, 2);

	/* stale, held on CPUs 1 and 2 (twice): pinned until the last put */
	dg_user_set_cpu(1);
	a = dgp_get(dgp_va(0, 0), 2 * PG, true);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(0, 0), 2 * PG), 0);
	dg_user_run_work();
	assert_int_equal(dgp_stats().entries_indexed, 0);
	assert_int_equal(dgp_stats().handles, 3);
	dg_user_set_cpu(0);
	assert_int_equal(dg_pin_put(dgp.c, &b), 0);
	assert_int_equal(dg_pin_put(dgp.c, &a), 0);
	dg_user_run_work();
	assert_int_equal(dgp.mm->pins_live, 2);
	assert_int_equal(dgp_stats().handles, 1);
	assert_int_equal(dg_pin_put(dgp.c, &b2), 0);
	dg_user_run_work();
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp_stats().entries, 0);
	assert_int_equal(dgp_stats().bad_puts, 3);
}

static struct dg_pin_handle landing;
static long landing_left;
static bool landing_met_unlinked;

/*
 * Another CPU's put of @landing, right after the unlinking's first
 * exchange (CPU 0's count, which @landing's get was counted on).
 */
static void put_during_unlink(void)
{
	struct dg_pin_entry *e = NULL;
	struct dg_pin_ids *ids = dgp.c->ids;

	e = ids->slot[pin_cookie_id(landing.cookie)];
	landing_met_unlinked = pin_cookie_cpu(landing.cookie) == 0 &&
			       atomic_long_read(per_cpu_ptr(e->holds, 0)) ==
			       DG_PIN_UNLINKED &&
			       atomic_long_read(per_cpu_ptr(e->holds, 1)) !=
			       DG_PIN_UNLINKED;
	landing_left = pin_cookie_unhold(dgp.c, landing.cookie, &e);
}

/* Have @h put during the next unlinking. */
static void land_during_next_unlink(struct dg_pin_handle h)
{
	landing = h;
	landing_left = -2;
	landing_met_unlinked = false;
	dg_user_xchg_hook = put_during_unlink;
}

/* It ran, between the exchanges, and was taken (the bias was there). */
static void assert_landed(void)
{
	assert_null(dg_user_xchg_hook);
	assert_true(landing_met_unlinked);
	assert_true(landing_left > 0);
}

/*
 * A put that meets its CPU's count exchanged, while the unlinking has yet
 * to sum the others, is taken lock-free (the bias keeps the entry's count
 * from 0) and is neither refused nor the release; the entry goes at the
 * last handle's put.
 */
static void put_lands_during_unlink(void **state)
{
	struct dg_pin_handle b;

	dg_user_set_cpu(0);
	landing = dgp_get(dgp_va(0, 0), 2 * PG, true);
	dg_user_set_cpu(1);
	b = dgp_get(dgp_va(0, 0), 2 * PG, true);
	/* the unlinking exchanges CPU 0's count first */
	land_during_next_unlink(landing);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(0, 0), 2 * PG), 0);
	assert_landed();
	dg_user_run_work();
	assert_int_equal(dgp_stats().handles, 1);
	assert_int_equal(dgp_stats().bad_puts, 0);
	assert_int_equal(dgp.mm->pins_live, 2);
	assert_int_equal(dg_pin_put(dgp.c, &b), 0);
	dg_user_run_work();
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp_stats().entries, 0);
}

/*
 * A copy put twice that lands there takes the count below the handles
 * held: the unlinking counts and reports it, and releases the entry,
 * which nothing holds.
 */
static void copy_put_twice_during_unlink(void **state)
{
	unsigned long errs = dg_user_reports_err;
	struct dg_pin_handle a;

	dg_user_set_cpu(0);
	a = dgp_get(dgp_va(0, 0), 2 * PG, true);
	land_during_next_unlink(a);
	assert_int_equal(dg_pin_put(dgp.c, &a), 0);
	assert_int_equal(dg_user_mm_unmap(dgp.mm, dgp_va(0, 0), 2 * PG), 0);
	assert_landed();
	dg_user_run_work();
	assert_int_equal(dgp_stats().bad_puts, 1);
	assert_int_equal(dg_user_reports_err, errs + 1);
	assert_int_equal(dgp_stats().handles, 0);
	assert_int_equal(dgp.mm->pins_live, 0);
	assert_int_equal(dgp_stats().entries, 0);
}

/*
 * The same, when a hit's protection re-check drops the entry it holds:
 * the copy takes the hit's count, so the unlinking finds none and sends
 * the entry to the reap (the hit's own give-back is then refused), where
 * it used to be left pinned for good.
 */
static void copy_put_twice_during_recheck(void **state)
{
	struct dg_pin_handle a, copy, h;

	dg_user_set_cpu(0);
	a = dgp_get(dgp_va(0, 0), 2 * PG, true);
	copy = a;
	assert_int_equal(dg_pin_put(dgp.c, &a), 0);
	assert_int_equal(dg_user_mm_protect(dgp.mm, dgp_va(0, 0), 2 * PG,
					    DG_PROT_READ), 0);
	land_during_next_unlink(copy);
	/* the hit holds it on CPU 0, re-checks, and it may not be written */
	assert_int_equal(dg_pin_get(dgp.c, dgp_va(0, 0), 2 * PG, true, &h),
			 -EFAULT);
	assert_landed();
	dg_user_run_work();
	assert_int_equal(dgp_stats().prot_checks, 1);
	assert_int_equal(dgp_stats().handles, 0);
	assert_int_equal(dgp_stats().entries, 0);
	assert_int_equal(dgp.mm->pins_live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(last_put_inside_release),
		DGP_TEST(destroy_races_last_put),
		DGP_TEST(two_last_puts_race),
		DGP_TEST(destroy_races_everything),
		DGP_TEST(bad_puts_refused),
		DGP_TEST(handles_counted_per_cpu),
		DGP_TEST(put_lands_during_unlink),
		DGP_TEST(copy_put_twice_during_unlink),
		DGP_TEST(copy_put_twice_during_recheck),
	};

	return cmocka_run_group_tests_name("pin_lifetime", tests, NULL, NULL);
}
