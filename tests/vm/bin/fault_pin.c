// SPDX-License-Identifier: GPL-2.0
/*
 * fault_pin: allocation failures injected at every step of each pin cache
 * entry point, as syzkaller injects them: the n-th fault-injection site
 * the call reaches fails (the task's /proc/thread-self/fail-nth, written
 * just before the ioctl; failslab, fail_page_alloc and fail_function on
 * dmaguard's pin, notifier and mapping points, armed by the spec), for
 * n = 1, 2, 3, ... until the call runs through without one.
 *
 * Each round runs in a new process (so the first notifier of an mm, made
 * on its first get, is faulted too), on a cache bound to the edu device
 * (so a miss maps its pages), through dmaguard_pin_test.ko. After the
 * call, unfaulted: a failed call returned its documented error and left
 * nothing (no entry, no handle, no pinned bytes, VmPin back where it was);
 * the next call works and reads what the process wrote; after the cache
 * is destroyed VmPin is 0. The spec then checks the system's pin counters
 * and kmemleak. Prints KTAP: one case per entry point, with the sweep's
 * table line (faults injected, errors returned, recovered).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "../../kmod/dmaguard_pin_test.h"
#include "vm_status.h"

#define DEV		"/dev/dmaguard_pin_test"
#define PAGE		4096UL
#define MAX_ROUNDS	400

/* What a round's child tells its parent (exit status). */
enum round_result {
	ROUND_CLEAN = 0,	/* no fault reached the call, all consistent */
	ROUND_ERROR = 1,	/* a fault, the documented error, consistent */
	ROUND_RECOVERED = 2,	/* a fault the call recovered from */
	ROUND_BAD = 3,		/* anything else (printed) */
};

/* The calls under test. */
enum op { OP_CREATE, OP_GET, OP_PUT, OP_DESTROY };

struct sweep {
	const char *name;
	unsigned long pages;	/* of the buffer */
	enum op op;
	int allocates;		/* so the sweep must make it fail */
};

static int fail_fd = -1;

static void set_nth(unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	if (pwrite(fail_fd, s, len, 0) != len)
		_exit(ROUND_BAD);
}

/* Whether the fault set by set_nth() was injected (fail-nth reads 0). */
static int injected(void)
{
	char s[16] = "";

	if (pread(fail_fd, s, sizeof(s) - 1, 0) <= 0)
		_exit(ROUND_BAD);
	return atoi(s) == 0;
}

static int create(int fd)
{
	struct pt_create c = { .flags = PT_BIND_DEV };

	return ioctl(fd, PT_IOC_CREATE, &c);
}

static int get(int fd, char *buf, unsigned long len, struct pt_get *g)
{
	memset(g, 0, sizeof(*g));
	g->addr = (unsigned long)buf;
	g->len = len;
	g->write = 1;
	return ioctl(fd, PT_IOC_GET, g);
}

/* @op on the file @fd (of @buf, @len for a get): the ioctl's result. */
static int call(enum op op, int fd, char *buf, unsigned long len)
{
	struct pt_get g;
	__u32 slot = 0;

	switch (op) {
	case OP_CREATE:
		return create(fd);
	case OP_GET:
		return get(fd, buf, len, &g);
	case OP_PUT:
		return ioctl(fd, PT_IOC_PUT, &slot);
	default:
		return ioctl(fd, PT_IOC_DESTROY);
	}
}

#define BAD(...) do { printf("# " __VA_ARGS__); printf("\n"); \
		      fflush(stdout); _exit(ROUND_BAD); } while (0)

/* The cache holds nothing: no entry, handle or pinned byte. */
static void check_empty(int fd, long pin0, unsigned int n)
{
	struct pt_stats st;

	if (ioctl(fd, PT_IOC_STATS, &st))
		BAD("round %u: no stats (errno %d)", n, errno);
	if (st.entries || st.handles || st.pinned_bytes)
		BAD("round %u: after a failed call: %u entries, %llu handles, %llu pinned bytes",
		    n, st.entries, (unsigned long long)st.handles,
		    (unsigned long long)st.pinned_bytes);
	if (vm_pin_kb() != pin0)
		BAD("round %u: VmPin %ld kB, %ld before", n, vm_pin_kb(), pin0);
}

/* A get of the buffer works and reads what this process wrote there. */
static void check_get(int fd, char *buf, unsigned long len, unsigned int n)
{
	struct pt_get g;
	__u32 slot;

	if (get(fd, buf, len, &g))
		BAD("round %u: the next get failed (errno %d)", n, errno);
	if (memcmp(g.head, buf, PT_HEAD))
		BAD("round %u: the pinned pages do not hold what was written",
		    n);
	slot = g.slot;
	if (ioctl(fd, PT_IOC_PUT, &slot))
		BAD("round %u: put failed (errno %d)", n, errno);
}

/* One round, in its own process: see enum round_result. */
static int round_child(const struct sweep *s, unsigned int n)
{
	unsigned long len = s->pages * PAGE, i;
	long pin0 = vm_pin_kb(), net0 = net_pins();
	int fd, ret, err, hit;
	struct pt_get g;
	char *buf;

	fail_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	fd = open(DEV, O_RDWR);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fail_fd < 0 || fd < 0 || buf == MAP_FAILED || pin0 < 0)
		BAD("round %u: setup (errno %d, VmPin %ld)", n, errno, pin0);
	/* Every page present: the faults land in the cache, not in GUP. */
	for (i = 0; i < len; i += PAGE)
		snprintf(buf + i, PAGE, "page %lu of round %u", i / PAGE, n);
	if (s->op != OP_CREATE && create(fd))
		BAD("round %u: create (errno %d)", n, errno);
	if ((s->op == OP_PUT || s->op == OP_DESTROY) &&
	    get(fd, buf, len, &g))
		BAD("round %u: get (errno %d)", n, errno);
	if (s->op == OP_DESTROY && call(OP_PUT, fd, buf, len))
		BAD("round %u: put (errno %d)", n, errno);

	set_nth(n);
	ret = call(s->op, fd, buf, len);
	err = errno;
	hit = injected();
	set_nth(0);

	if (ret && (!hit || err != ENOMEM))
		BAD("round %u: returned errno %d (fault injected: %d)", n, err,
		    hit);
	if (s->op == OP_CREATE && ret) {
		struct pt_stats st;

		/* Nothing made: the file has no cache yet. */
		if (ioctl(fd, PT_IOC_STATS, &st) != -1 || errno != ENOENT)
			BAD("round %u: a failed create left a cache", n);
		if (create(fd))
			BAD("round %u: the next create failed (errno %d)", n,
			    errno);
	}
	if (s->op == OP_GET && ret)
		check_empty(fd, pin0, n);
	if (s->op == OP_GET && !ret && call(OP_PUT, fd, buf, len))
		BAD("round %u: put failed (errno %d)", n, errno);
	if (s->op != OP_DESTROY) {
		check_get(fd, buf, len, n);
		if (ioctl(fd, PT_IOC_DESTROY))
			BAD("round %u: destroy held handles", n);
	}
	if (vm_pin_kb() != pin0)
		BAD("round %u: VmPin %ld kB after destroy, %ld before", n,
		    vm_pin_kb(), pin0);
	/* A destroy with no handle held unpins at once. */
	if (net_pins() != net0)
		BAD("round %u: %ld pages still pinned after destroy", n,
		    net_pins() - net0);
	close(fd);
	if (!hit)
		return ROUND_CLEAN;
	return ret ? ROUND_ERROR : ROUND_RECOVERED;
}

static const struct sweep sweeps[] = {
	{ "pin_cache_create", 4, OP_CREATE, 1 },
	/* A miss: entry, page array, pins, notifier, sg table, mapping. */
	{ "pin_get_miss", 16, OP_GET, 1 },
	/* More than one pin_user_pages_fast() call (DG_PIN_BATCH, 512). */
	{ "pin_get_miss_partial_pin", 520, OP_GET, 1 },
	{ "pin_put", 4, OP_PUT, 0 },
	{ "pin_cache_destroy", 4, OP_DESTROY, 0 },
};

int main(void)
{
	unsigned int i, n, nr = sizeof(sweeps) / sizeof(sweeps[0]), failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%u\n", nr);
	for (i = 0; i < nr; i++) {
		unsigned int count[4] = { 0 };
		int ok = 1, status;
		pid_t pid;

		for (n = 1; n <= MAX_ROUNDS; n++) {
			pid = fork();
			if (pid < 0) {
				printf("# fork: errno %d\n", errno);
				ok = 0;
				break;
			}
			if (pid == 0)
				_exit(round_child(&sweeps[i], n));
			if (waitpid(pid, &status, 0) != pid ||
			    !WIFEXITED(status) ||
			    WEXITSTATUS(status) > ROUND_BAD) {
				printf("# round %u: the child did not exit\n",
				       n);
				ok = 0;
				break;
			}
			count[WEXITSTATUS(status)]++;
			if (WEXITSTATUS(status) == ROUND_BAD)
				ok = 0;
			if (!ok || WEXITSTATUS(status) == ROUND_CLEAN)
				break;
		}
		/* Faults alone do not tell: kmemleak's allocations count. */
		if (sweeps[i].allocates && !count[ROUND_ERROR]) {
			printf("# no call failed: is fault injection armed?\n");
			ok = 0;
		}
		if (n > MAX_ROUNDS) {
			printf("# still faulted after %u rounds\n", MAX_ROUNDS);
			ok = 0;
		}
		printf("# %s: faults=%u errors=%u recovered=%u\n",
		       sweeps[i].name, count[ROUND_ERROR] + count[ROUND_RECOVERED],
		       count[ROUND_ERROR], count[ROUND_RECOVERED]);
		printf("%sok %u %s\n", ok ? "" : "not ", i + 1, sweeps[i].name);
		failed += !ok;
	}
	return failed != 0;
}
