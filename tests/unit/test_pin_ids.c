// SPDX-License-Identifier: GPL-2.0
/*
 * Pin cache ids: a handle names its entry by an id, a slot in the cache's
 * id array, which puts read without the lock. The array starts at
 * DG_PIN_IDS_MIN slots and doubles when full, also while puts run on
 * other threads (TSan in test_pin_ids-tsan); freed ids are given out
 * again, lowest first; a put of an id past the array, of a free id or
 * of a reused id with the old generation is refused.
 */
#include <pthread.h>
#include "dg_pin_test.h"
#include "pincache_internal.h"

/* More entries than two doublings of the array hold. */
#define MANY		(4 * DG_PIN_IDS_MIN + 3)

static struct dg_pin_handle h[MANY];

/* One page per entry, each its own range: MANY live entries, all held. */
static void get_all(void)
{
	unsigned int i;

	for (i = 0; i < MANY; i++)
		h[i] = dgp_get(dgp_va(i % DGP_PAGES, 0), PG, i >= DGP_PAGES);
}

static void ids_grow_and_reuse(void **state)
{
	struct dg_pin_handle stale, junk = { 0 };
	unsigned int i, j, scanned;

	get_all();
	/* every entry has its own id, 1..MANY: no id 0, none twice */
	for (i = 0; i < MANY; i++) {
		assert_in_range(pin_cookie_id(h[i].cookie), 1, MANY);
		for (j = 0; j < i; j++)
			assert_int_not_equal(pin_cookie_id(h[i].cookie),
					     pin_cookie_id(h[j].cookie));
	}
	assert_int_equal(dgp_stats().handles, MANY);

	/* a freed id is the next one given out, of a new generation */
	stale = h[10];
	assert_int_equal(dg_pin_put(dgp.c, &h[10]), 0);
	assert_int_equal(dg_pin_cache_evict(dgp.c, 2 * MANY, &scanned), 1);
	dg_user_run_work();
	h[10] = dgp_get(dgp_va(10, 0), 2 * PG, false);
	assert_int_equal(pin_cookie_id(h[10].cookie), pin_cookie_id(stale.cookie));
	assert_int_not_equal(pin_cookie_gen(h[10].cookie),
			     pin_cookie_gen(stale.cookie));
	assert_int_equal(dg_pin_put(dgp.c, &stale), -EINVAL);

	/* past the array, a free id, id 0 */
	junk.cookie = stale.cookie | (DG_PIN_IDS_MAX - 1);
	assert_int_equal(dg_pin_put(dgp.c, &junk), -EINVAL);
	junk.cookie = (stale.cookie & ~(u64)(DG_PIN_IDS_MAX - 1)) | (MANY + 1);
	assert_int_equal(dg_pin_put(dgp.c, &junk), -EINVAL);
	junk.cookie = stale.cookie & ~(u64)(DG_PIN_IDS_MAX - 1);
	assert_int_equal(dg_pin_put(dgp.c, &junk), -EINVAL);
	assert_int_equal(dgp_stats().bad_puts, 4);

	for (i = 0; i < MANY; i++)
		assert_int_equal(dg_pin_put(dgp.c, &h[i]), 0);
	assert_int_equal(dgp_stats().handles, 0);
}

static pthread_barrier_t go;

/* A full array: ids 1 .. 2 * DG_PIN_IDS_MIN - 1 (id 0 is never used). */
#define FIRST		(2 * DG_PIN_IDS_MIN - 1)

/* Puts of the first entries while the main thread's gets grow the array. */
static void *put_first(void *arg)
{
	unsigned int i;

	(void)arg;
	pthread_barrier_wait(&go);
	for (i = 0; i < FIRST; i++)
		assert_int_equal(dg_pin_put(dgp.c, &h[i]), 0);
	return NULL;
}

static void puts_race_growth(void **state)
{
	unsigned int i, round;
	pthread_t t;

	for (round = 0; round < 20; round++) {
		for (i = 0; i < FIRST; i++)
			h[i] = dgp_get(dgp_va(i, 0), PG, false);
		assert_int_equal(pthread_barrier_init(&go, NULL, 2), 0);
		assert_int_equal(pthread_create(&t, NULL, put_first, NULL), 0);
		pthread_barrier_wait(&go);
		/* the first of these doubles the array, puts or not */
		for (i = FIRST; i < MANY; i++)
			h[i] = dgp_get(dgp_va(i % DGP_PAGES, 0), PG,
				       i >= DGP_PAGES);
		pthread_join(t, NULL);
		pthread_barrier_destroy(&go);
		for (i = FIRST; i < MANY; i++)
			assert_int_equal(dg_pin_put(dgp.c, &h[i]), 0);
		assert_int_equal(dgp_stats().handles, 0);
		assert_int_equal(dgp_stats().bad_puts, 0);
		/* a fresh cache: its array starts small again */
		dgp_recreate(0, 0, NULL);
	}
}

/*
 * An id's generation moves at each entry that takes it, and the array's
 * growth keeps it: a handle of an earlier entry of the id stays refused.
 */
static void generation_kept_when_array_grows(void **state)
{
	struct dg_pin_handle first, again;
	unsigned int i, scanned;

	first = dgp_get(dgp_va(0, 0), PG, false);
	assert_int_equal(pin_cookie_id(first.cookie), 1);
	again = first;
	assert_int_equal(dg_pin_put(dgp.c, &first), 0);
	dg_pin_cache_evict(dgp.c, 2, &scanned);
	dg_user_run_work();
	/* id 1 again, then two doublings of the array */
	get_all();
	assert_int_equal(pin_cookie_id(h[0].cookie), 1);
	assert_int_equal(pin_cookie_gen(h[0].cookie),
			 pin_cookie_gen(again.cookie) + 1);
	for (i = 0; i < MANY; i++)
		assert_int_equal(dg_pin_put(dgp.c, &h[i]), 0);
	dg_pin_cache_evict(dgp.c, 2 * MANY, &scanned);
	dg_user_run_work();
	assert_int_equal(dgp_stats().entries, 0);
	h[0] = dgp_get(dgp_va(0, 0), PG, false);
	assert_int_equal(pin_cookie_id(h[0].cookie), 1);
	assert_int_equal(pin_cookie_gen(h[0].cookie),
			 pin_cookie_gen(again.cookie) + 2);
	assert_int_equal(dg_pin_put(dgp.c, &again), -EINVAL);
	assert_int_equal(dg_pin_put(dgp.c, &h[0]), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		DGP_TEST(ids_grow_and_reuse),
		DGP_TEST(puts_race_growth),
		DGP_TEST(generation_kept_when_array_grows),
	};

	return cmocka_run_group_tests_name("pin_ids", tests, NULL, NULL);
}
