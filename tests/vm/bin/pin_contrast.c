// SPDX-License-Identifier: GPL-2.0
/*
 * pin_contrast: the pin-cache contrast of `make run`, run by
 * tests/vm/report/20-pincache.vmtest. Static (musl).
 *
 * One process, one open file of /dev/dmaguard_pin_test (ioctls in
 * tests/kmod/dmaguard_pin_test.h), two caches side by side: the decoy, a
 * deliberately unsafe pin-once cache (the io_uring fixed-buffer pattern,
 * tests/kmod/dmaguard_pin_decoy.c), and dmaguard's pin cache bound to the
 * edu device. The process fills a buffer with pattern A and registers it
 * with both; the edu device reads "the buffer at that address" by DMA
 * through each. Then the process munmaps the buffer, maps new memory at
 * the same address (MAP_FIXED), writes pattern B, and the device reads
 * through each cache again: the decoy hands it the old pages (pattern A,
 * stale), dmaguard's cache, invalidated by the munmap, pins the new ones
 * (pattern B).
 *
 * Prints "REPORT ..." lines (in words, and one "REPORT pincontrast
 * key=value ..." line) and exits 0 only if dmaguard's cache delivered the
 * new data AND the decoy showed the stale read (else the demo proves
 * nothing), the munmap invalidated dmaguard's entry and, before it, both
 * caches gave the device what the process wrote.
 *
 * "pin_contrast --planted-late-register" is the planted failure of that
 * last check: the decoy is registered only after the remap, so it pins the
 * new pages and is not stale; the run must then fail, saying so. Its lines
 * start with "PLANTED" instead of "REPORT" (they are not the report).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include "../../kmod/dmaguard_pin_test.h"

#define PAGE		4096UL
#define BUF_PAGES	4
#define BUF_LEN		(BUF_PAGES * PAGE)
#define DEV		"/dev/dmaguard_pin_test"
#define PAT_LEN		16

static const char pat_a[PAT_LEN + 1] = "pattern A (old) ";
static const char pat_b[PAT_LEN + 1] = "pattern B (new) ";

/* The device reads these windows of the buffer: its first and last bytes. */
static const size_t windows[] = { 0, BUF_LEN - PT_DATA };
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_WINDOWS	ARRAY_SIZE(windows)

/* What the device read in one pass over the windows. */
struct seen {
	char pattern;		/* 'A', 'B', '?' (neither, or mixed), 'E' */
	char head[PAT_LEN + 1];	/* its first bytes, printable */
	int err;		/* errno of a failed ioctl */
};

static int failed;
static const char *tag = "REPORT";	/* the lines' first word */

static void fail(const char *fmt, const char *what)
{
	fprintf(stderr, "pin_contrast: FAIL: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
	failed = 1;
}

static void fill(char *p, const char *pat)
{
	size_t i;

	for (i = 0; i < BUF_LEN; i++)
		p[i] = pat[i % PAT_LEN];
}

/* Whether @len bytes read at offset @off of the buffer are all of @pat. */
static int holds(const unsigned char *got, size_t off, size_t len,
		 const char *pat)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (got[i] != (unsigned char)pat[(off + i) % PAT_LEN])
			return 0;
	return 1;
}

/* Fold one window's bytes into @s. */
static void note(struct seen *s, unsigned int w, const unsigned char *got)
{
	char p = holds(got, windows[w], PT_DATA, pat_a) ? 'A' :
		 holds(got, windows[w], PT_DATA, pat_b) ? 'B' : '?';
	size_t i;

	if (!w) {
		s->pattern = p;
		for (i = 0; i < PAT_LEN; i++)
			s->head[i] = got[i] >= 0x20 && got[i] < 0x7f ?
				     got[i] : '.';
		s->head[PAT_LEN] = 0;
	} else if (s->pattern != p) {
		s->pattern = '?';
	}
}

static void ioctl_failed(struct seen *s, const char *what)
{
	s->err = errno;
	s->pattern = 'E';
	fprintf(stderr, "pin_contrast: %s: %s\n", what, strerror(errno));
}

/* dmaguard's cache: get the range at @addr, the device reads it, put. */
static struct seen via_dmaguard(int fd, char *addr)
{
	struct seen s = { .pattern = 'E' };
	struct pt_get g = { .addr = (unsigned long)addr, .len = BUF_LEN };
	struct pt_read r;
	unsigned int w;
	__u32 slot;

	if (ioctl(fd, PT_IOC_GET, &g)) {
		ioctl_failed(&s, "dmaguard get");
		return s;
	}
	for (w = 0; w < NR_WINDOWS; w++) {
		memset(&r, 0, sizeof(r));
		r.slot = g.slot;
		r.how = PT_READ_DMA;
		r.off = windows[w];
		r.len = PT_DATA;
		if (ioctl(fd, PT_IOC_READ, &r)) {
			ioctl_failed(&s, "dmaguard DMA read");
			break;
		}
		note(&s, w, r.data);
	}
	slot = g.slot;
	if (ioctl(fd, PT_IOC_PUT, &slot))
		ioctl_failed(&s, "dmaguard put");
	return s;
}

/* The decoy: the device reads "the registered buffer at @addr". */
static struct seen via_decoy(int fd, char *addr)
{
	struct seen s = { .pattern = 'E' };
	struct pt_decoy_read r;
	unsigned int w;

	for (w = 0; w < NR_WINDOWS; w++) {
		memset(&r, 0, sizeof(r));
		r.addr = (unsigned long)addr + windows[w];
		r.len = PT_DATA;
		if (ioctl(fd, PT_IOC_DECOY_READ, &r)) {
			ioctl_failed(&s, "decoy DMA read");
			break;
		}
		note(&s, w, r.data);
	}
	return s;
}

static struct pt_stats stats(int fd)
{
	struct pt_stats st;

	memset(&st, 0, sizeof(st));
	if (ioctl(fd, PT_IOC_STATS, &st))
		fail("stats: %s", strerror(errno));
	return st;
}

/* The key=value word for what the device read after the remap. */
static const char *verdict(const struct seen *s)
{
	switch (s->pattern) {
	case 'A':
		return "stale";
	case 'B':
		return "fresh";
	case 'E':
		return "error";
	default:
		return "other";
	}
}

static void report_decoy(const struct seen *s)
{
	const char *who = "=> pin-once cache (io_uring fixed-buffer pattern): after munmap+mmap at the same address the device read";

	printf("%s ", tag);
	if (s->pattern == 'A')
		printf("%s the OLD pages (stale data, pattern A: \"%s\")\n",
		       who, s->head);
	else if (s->pattern == 'B')
		printf("%s the new data (\"%s\"): the decoy did not show the stale read, the demo proves nothing\n",
		       who, s->head);
	else
		printf("%s neither pattern (%s, \"%s\")\n", who,
		       s->err ? strerror(s->err) : "mixed or other bytes",
		       s->head);
}

static void report_dmaguard(const struct seen *s, const struct pt_stats *st,
			    unsigned long long inval_by_munmap)
{
	const char *who = "=> dmaguard pin cache: the device read";

	printf("%s ", tag);
	if (s->pattern == 'B')
		printf("%s the NEW data (pattern B: \"%s\")", who, s->head);
	else if (s->pattern == 'A')
		printf("%s the OLD pages (stale data, pattern A: \"%s\"): dmaguard failed", who,
		       s->head);
	else
		printf("%s neither pattern (%s, \"%s\")", who,
		       s->err ? strerror(s->err) : "mixed or other bytes",
		       s->head);
	printf("; invalidations=%llu (%llu by the munmap%s) hits=%llu misses=%llu\n",
	       (unsigned long long)st->invalidations, inval_by_munmap,
	       inval_by_munmap ? ": the entry was dropped, the next get pinned the pages now mapped there" : "",
	       (unsigned long long)st->hits, (unsigned long long)st->misses);
}

/* Register [@addr, + BUF_LEN) with the decoy: pinned and mapped once. */
static int decoy_register(int fd, char *addr)
{
	struct pt_decoy_reg reg = { .addr = (unsigned long)addr,
				    .len = BUF_LEN };

	if (ioctl(fd, PT_IOC_DECOY_REGISTER, &reg)) {
		perror("pin_contrast: decoy register");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct pt_create c = { .flags = PT_BIND_DEV };
	struct pt_stats st0, st1, st2;
	struct seen dg[3], decoy[2];
	int late = argc > 1 && !strcmp(argv[1], "--planted-late-register");
	struct utsname u;
	char *p, *q;
	int fd;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	fd = open(DEV, O_RDWR);
	if (fd < 0 || ioctl(fd, PT_IOC_CREATE, &c)) {
		perror("pin_contrast: " DEV);
		return 1;
	}
	p = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("pin_contrast: mmap");
		return 1;
	}
	fill(p, pat_a);
	if (late)
		tag = "PLANTED";
	else if (decoy_register(fd, p))
		return 1;
	/* Before: both caches give the device what the process wrote. */
	dg[0] = via_dmaguard(fd, p);	/* a miss: pins and maps */
	dg[1] = via_dmaguard(fd, p);	/* a hit */
	decoy[0] = late ? (struct seen){ .pattern = 'A' } : via_decoy(fd, p);
	st0 = stats(fd);

	/* The buffer goes away; new memory at the same address. */
	if (munmap(p, BUF_LEN)) {
		perror("pin_contrast: munmap");
		return 1;
	}
	q = mmap(p, BUF_LEN, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (q != p) {
		perror("pin_contrast: mmap at the same address");
		return 1;
	}
	st1 = stats(fd);
	fill(q, pat_b);
	if (late && decoy_register(fd, q))
		return 1;

	/* After: "the buffer at that address" again, through each cache. */
	dg[2] = via_dmaguard(fd, q);
	decoy[1] = via_decoy(fd, q);
	st2 = stats(fd);

	printf("%s pin-cache contrast: a process fills a %lu KiB buffer with pattern A and registers it with two caches of one driver; the edu device reads it by DMA through each: both give it pattern A\n",
	       tag, BUF_LEN >> 10);
	printf("%s then the process munmaps the buffer, maps new memory at the same address (MAP_FIXED), writes pattern B, and the device reads \"the buffer at that address\" again:\n",
	       tag);
	report_decoy(&decoy[1]);
	report_dmaguard(&dg[2], &st2,
			(unsigned long long)(st1.invalidations -
					     st0.invalidations));
	printf("%s pincontrast kernel=%s decoy=%s dmaguard=%s invalidations=%llu\n",
	       tag, u.release, verdict(&decoy[1]), verdict(&dg[2]),
	       (unsigned long long)st2.invalidations);

	if (dg[0].pattern != 'A' || dg[1].pattern != 'A')
		fail("%s", "before the munmap, dmaguard's cache did not give the device pattern A");
	if (decoy[0].pattern != 'A')
		fail("%s", "before the munmap, the decoy did not give the device pattern A");
	if (st0.hits < 1 || st0.invalidations)
		fail("%s", "before the munmap: expected a hit and no invalidation");
	if (st1.invalidations <= st0.invalidations)
		fail("%s", "the munmap did not invalidate dmaguard's entry");
	if (dg[2].pattern != 'B')
		fail("%s", "dmaguard's cache did not give the device the new data");
	if (decoy[1].pattern != 'A')
		fail("%s", "the decoy did not show the stale read: the contrast proves nothing");
	/* Release: dmaguard's cache destroyed, the decoy unmapped and unpinned. */
	if (close(fd))
		fail("close: %s", strerror(errno));
	return failed;
}
