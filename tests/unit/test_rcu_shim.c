// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace RCU shim (c-core/platform/user/rcu.c) that the pin
 * cache's lock-free hits run on in these tests: a grace period waits for
 * every read section begun before it, nested ones too, and for no
 * section begun after it; threads that exit leave the registry. Were it
 * to return early, ASan could not see the pin cache free an entry under
 * a lock-free hit, so the shim is tested on its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <unistd.h>
#include <cmocka.h>

#include "dg_pin_plat.h"

static int stage;		/* the reader's progress */
static int left_section;	/* set by the reader just before unlocking */

static void wait_stage(int s)
{
	while (__atomic_load_n(&stage, __ATOMIC_ACQUIRE) < s)
		usleep(100);
}

static void *reader(void *arg)
{
	bool nested = arg;
	unsigned long gp;

	rcu_read_lock();
	if (nested)
		rcu_read_lock();
	gp = __atomic_load_n(&dg_rcu_gp, __ATOMIC_ACQUIRE);
	__atomic_store_n(&stage, 1, __ATOMIC_RELEASE);
	/*
	 * Stay until the updater's grace period began, whatever the
	 * scheduler does: the section below must begin after it, or the
	 * updater would rightly wait for it while it waits for stage 3.
	 */
	while (__atomic_load_n(&dg_rcu_gp, __ATOMIC_ACQUIRE) == gp)
		usleep(100);
	usleep(50 * 1000);	/* the updater is waiting meanwhile */
	if (nested)
		rcu_read_unlock();	/* still inside the outer section */
	usleep(20 * 1000);
	__atomic_store_n(&left_section, 1, __ATOMIC_RELAXED);
	rcu_read_unlock();
	/* a section begun after the grace period: not waited for */
	rcu_read_lock();
	wait_stage(3);
	rcu_read_unlock();
	return NULL;
}

static void waits_for(bool nested)
{
	pthread_t t;

	__atomic_store_n(&stage, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&left_section, 0, __ATOMIC_RELAXED);
	assert_int_equal(pthread_create(&t, NULL, reader, (void *)nested), 0);
	wait_stage(1);
	/*
	 * Returns once the first section ended, though the reader sits in a
	 * second one, begun after, until stage 3 (were it waited for, this
	 * would hang: run.sh's timeout makes that a failure).
	 */
	synchronize_rcu();
	assert_int_equal(__atomic_load_n(&left_section, __ATOMIC_RELAXED), 1);
	__atomic_store_n(&stage, 3, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
}

static void waits_for_a_section(void **state)
{
	waits_for(false);
}

static void waits_for_the_outer_section(void **state)
{
	waits_for(true);
}

/* The thread of the sections above has exited: nothing to wait for. */
static void exited_threads_leave(void **state)
{
	synchronize_rcu();
	rcu_read_lock();
	rcu_read_unlock();
	synchronize_rcu();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(waits_for_a_section),
		cmocka_unit_test(waits_for_the_outer_section),
		cmocka_unit_test(exited_threads_leave),
	};

	return cmocka_run_group_tests_name("rcu_shim", tests, NULL, NULL);
}
