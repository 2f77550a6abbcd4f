// SPDX-License-Identifier: GPL-2.0
/*
 * Grace periods of the userspace RCU shim (dg_user_rcu.h): a registry of
 * reading threads, each publishing the grace-period number it reads
 * under. synchronize_rcu() bumps the number and waits for every thread
 * that still reads under an older one; membarrier(2) makes each running
 * thread's section-entry store visible before the number is read, so
 * readers need no fence of their own.
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/membarrier.h>
#include "dg_user_rcu.h"

__thread struct dg_rcu_reader *dg_rcu_me;
unsigned long dg_rcu_gp = 1;
bool dg_rcu_reader_fences = true;

static pthread_mutex_t registry_lock;	/* set up by rcu_setup() */
static struct dg_rcu_reader *registry;
static pthread_key_t reader_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/* Once registered, the expedited barrier cannot fail. */
static void barrier_all(void)
{
	if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		abort();
}

/* A thread that exits leaves the registry (it reads nothing any more). */
static void reader_exit(void *p)
{
	struct dg_rcu_reader **pp, *r = p;

	pthread_mutex_lock(&registry_lock);
	for (pp = &registry; *pp; pp = &(*pp)->next) {
		if (*pp == r) {
			*pp = r->next;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	dg_rcu_me = NULL;	/* a later destructor may read again */
	free(r);
}

static void rcu_setup(void)
{
	if (pthread_mutex_init(&registry_lock, NULL) ||
	    pthread_key_create(&reader_key, reader_exit))
		abort();
#ifndef DG_RCU_TSAN
	if (!membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED))
		__atomic_store_n(&dg_rcu_reader_fences, false,
				 __ATOMIC_RELAXED);
#endif
}

/**
 * dg_rcu_register() - add the calling thread to the readers
 *
 * At its first rcu_read_lock(); it leaves at its exit.
 *
 * Return: the thread's reader state.
 */
struct dg_rcu_reader *dg_rcu_register(void)
{
	struct dg_rcu_reader *r;

	pthread_once(&once, rcu_setup);
	r = calloc(1, sizeof(*r));
	if (!r || pthread_setspecific(reader_key, r))
		abort();
	pthread_mutex_lock(&registry_lock);
	r->next = registry;
	registry = r;
	pthread_mutex_unlock(&registry_lock);
	dg_rcu_me = r;
	return r;
}

/**
 * synchronize_rcu() - wait until every read section begun before it ends
 *
 * Context: not inside a read section; may sleep.
 */
void synchronize_rcu(void)
{
	struct dg_rcu_reader *r;
	unsigned long gp, seen;

	pthread_once(&once, rcu_setup);
	pthread_mutex_lock(&registry_lock);
	/* The updater's unlinking before the readers' entry stores... */
	if (!__atomic_load_n(&dg_rcu_reader_fences, __ATOMIC_RELAXED))
		barrier_all();
#ifndef DG_RCU_TSAN
	else
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
	gp = __atomic_add_fetch(&dg_rcu_gp, 1, __ATOMIC_SEQ_CST);
	/* ...and each running reader's entry store before these loads. */
	if (!__atomic_load_n(&dg_rcu_reader_fences, __ATOMIC_RELAXED))
		barrier_all();
	for (r = registry; r; r = r->next) {
		for (;;) {
			seen = __atomic_load_n(&r->gp, __ATOMIC_SEQ_CST);
			if (!seen || seen >= gp)
				break;
			sched_yield();
		}
	}
	pthread_mutex_unlock(&registry_lock);
}
