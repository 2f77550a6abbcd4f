// SPDX-License-Identifier: GPL-2.0
/*
 * pin_race: two threads get and put through one pin cache
 * (dmaguard_pin_test.ko's PT_IOC_HAMMER, which runs without the file's
 * lock) while a third unmaps, remaps and DONTNEEDs the same pages, at
 * least MIN_ROUNDS times. Run with two vCPUs by tests/vm/pin.vmtest;
 * the kernel's own checks (lockdep, KASAN, the VM verdict's WARN scan) and
 * the counts below decide. Prints KTAP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "../../kmod/dmaguard_pin_test.h"

#define PAGE		4096UL
#define WINDOW		16		/* pages */
#define ITERS		3000		/* gets per getter and batch */
#define MIN_ROUNDS	50		/* changes the race needs, at least */

static int fd;
static char *win;
static volatile int stop;
static volatile unsigned long rounds;
static volatile int getters_in;	/* getters that have started */

struct getter {
	struct pt_hammer h;
	unsigned long ok, faults, again, other, iters;
	int ret;
};

/* The cache has seen an invalidation of an entry it held. */
static int invalidated(void)
{
	struct pt_stats st;

	return !ioctl(fd, PT_IOC_STATS, &st) && st.invalidations;
}

/*
 * Batches of ITERS gets until the changer has made MIN_ROUNDS changes and
 * the cache has seen one of them invalidate an entry (the race this
 * exists for, which a late changer once missed): two getters looping in
 * the kernel can starve it on two vCPUs, for as long as the host likes
 * (the spec's timeout is the backstop).
 */
static void *getter(void *arg)
{
	struct getter *g = arg;
	int b;

	__atomic_add_fetch(&getters_in, 1, __ATOMIC_SEQ_CST);
	for (b = 0; !g->ret &&
	     (!b || rounds < MIN_ROUNDS || !invalidated()); b++) {
		g->h.ok = g->h.faults = g->h.other = 0;
		g->ret = ioctl(fd, PT_IOC_HAMMER, &g->h) ? -errno : 0;
		g->ok += g->h.ok;
		g->faults += g->h.faults;
		g->again += g->h.again;
		g->other += g->h.other;
		g->iters += ITERS;
		/* a CPU for the changer, whose start the getters can outrun */
		if (rounds < MIN_ROUNDS || !invalidated())
			sched_yield();
	}
	return NULL;
}

/*
 * Unmap, remap and DONTNEED pages of the window until the getters end.
 * Changes count only once both getters run: a changer that made its
 * rounds before they started would leave them a batch with no race.
 */
static void *changer(void *arg)
{
	unsigned long page;
	unsigned int seed = 7;
	char *p;

	(void)arg;

	while (!stop && getters_in < 2)
		sched_yield();
	while (!stop) {
		page = rand_r(&seed) % WINDOW;
		p = win + page * PAGE;
		switch (rand_r(&seed) % 3) {
		case 0:
			munmap(p, PAGE);
			if (mmap(p, PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
				 -1, 0) == MAP_FAILED)
				return NULL;
			break;
		case 1:
			madvise(p, PAGE, MADV_DONTNEED);
			break;
		default:
			break;
		}
		memset(p, (int)rounds, PAGE);
		rounds++;
	}
	return NULL;
}

int main(void)
{
	struct pt_create c = { 0 };
	struct getter g[2];
	struct pt_stats st;
	pthread_t t[3];
	int i, ok = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..1\n");
	fd = open("/dev/dmaguard_pin_test", O_RDWR);
	win = mmap(NULL, WINDOW * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || win == MAP_FAILED || ioctl(fd, PT_IOC_CREATE, &c)) {
		printf("Bail out! setup: %s\n", strerror(errno));
		return 1;
	}
	memset(win, 1, WINDOW * PAGE);
	/* Overlapping ranges: entries are shared, hit and invalidated. */
	for (i = 0; i < 2; i++) {
		memset(&g[i], 0, sizeof(g[i]));
		g[i].h.addr = (unsigned long)win + i * 4 * PAGE;
		g[i].h.len = 8 * PAGE + i * 100;
		g[i].h.iters = ITERS;
		g[i].h.write = i;
	}
	if (pthread_create(&t[2], NULL, changer, NULL) ||
	    pthread_create(&t[0], NULL, getter, &g[0]) ||
	    pthread_create(&t[1], NULL, getter, &g[1])) {
		printf("Bail out! pthread_create\n");
		return 1;
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	stop = 1;
	pthread_join(t[2], NULL);
	if (ioctl(fd, PT_IOC_STATS, &st))
		ok = 0;
	for (i = 0; i < 2; i++) {
		printf("# getter %d: ret %d, %lu gets, %lu -EFAULT, %lu -EAGAIN, %lu other (first %d) of %lu\n",
		       i, g[i].ret, g[i].ok, g[i].faults, g[i].again,
		       g[i].other, g[i].h.first_err, g[i].iters);
		/* -EAGAIN: documented, when invalidations keep racing a miss */
		if (g[i].ret || g[i].other || !g[i].ok ||
		    g[i].ok + g[i].faults + g[i].again != g[i].iters)
			ok = 0;
	}
	printf("# changer: %lu rounds; cache: %llu hits, %llu misses, %llu invalidations, %llu retries\n",
	       rounds, (unsigned long long)st.hits,
	       (unsigned long long)st.misses,
	       (unsigned long long)st.invalidations,
	       (unsigned long long)st.retries);
	/* The race must have happened: gets missed after invalidations. */
	if (!rounds || !st.invalidations || !st.misses || st.handles)
		ok = 0;
	/* Each -EAGAIN ended a run of retries the cache counted. */
	if (g[0].again + g[1].again > st.retries)
		ok = 0;
	if (ioctl(fd, PT_IOC_DESTROY))
		ok = 0;
	close(fd);
	printf("%sok 1 concurrent_get_put_vs_remap\n", ok ? "" : "not ");
	return !ok;
}
