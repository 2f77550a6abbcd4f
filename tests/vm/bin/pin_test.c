// SPDX-License-Identifier: GPL-2.0
/*
 * pin_test: the pin cache seen from a process, through
 * dmaguard_pin_test.ko (/dev/dmaguard_pin_test, ioctls in
 * tests/kmod/dmaguard_pin_test.h). Static (musl), run by
 * tests/vm/pin.vmtest; prints KTAP. Each case checks what the pinned
 * pages hold (read by the CPU through the pages, and by the edu device's
 * DMA when the VM has one) against what the process wrote, after the
 * address space changed under the cache.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "../../kmod/dmaguard_pin_test.h"
#include "vm_status.h"

#define PAGE		4096UL
#define DEV		"/dev/dmaguard_pin_test"
#define NR_CASES	22
/*
 * Polls of 10 ms for what the cache's work item releases: how soon it runs
 * is the scheduler's business (a loaded host, the debug or the rt kernel),
 * that it runs with no further call into the cache is the cache's.
 */
#define WORK_POLLS	6000

static unsigned int ktap_n;
static int case_ok;
static int have_dma;

static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			case_ok = 0;					\
			diag("%s:%d: %s", __func__, __LINE__, #cond);	\
			diag(__VA_ARGS__);				\
		}							\
	} while (0)

static unsigned int failed;

static void result(const char *name)
{
	failed += !case_ok;
	printf("%sok %u %s\n", case_ok ? "" : "not ", ++ktap_n, name);
	fflush(stdout);
}

static void skip(const char *name, const char *why)
{
	printf("ok %u %s # SKIP %s\n", ++ktap_n, name, why);
	fflush(stdout);
}

static int dev_open(unsigned int flags, unsigned long max_bytes)
{
	struct pt_create c = { .flags = flags, .max_bytes = max_bytes };
	int fd = open(DEV, O_RDWR);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, PT_IOC_CREATE, &c)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* 0 and the slot in *g, or -errno. */
static int pin_get(int fd, void *addr, size_t len, int write,
		   struct pt_get *g)
{
	memset(g, 0, sizeof(*g));
	g->addr = (unsigned long)addr;
	g->len = len;
	g->write = write;
	return ioctl(fd, PT_IOC_GET, g) ? -errno : 0;
}

static int pin_put(int fd, unsigned int slot)
{
	__u32 s = slot;

	return ioctl(fd, PT_IOC_PUT, &s) ? -errno : 0;
}

static int pin_read(int fd, unsigned int slot, int how, size_t off,
		    size_t len, void *out)
{
	struct pt_read r = { .slot = slot, .how = how, .off = off,
			     .len = len };

	if (ioctl(fd, PT_IOC_READ, &r))
		return -errno;
	memcpy(out, r.data, len);
	return 0;
}

static struct pt_stats stats(int fd)
{
	struct pt_stats st;

	memset(&st, 0, sizeof(st));
	if (ioctl(fd, PT_IOC_STATS, &st))
		diag("stats: %s", strerror(errno));
	return st;
}

static void fill(void *p, size_t len, unsigned int seed)
{
	unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 12));
}

/*
 * The pinned pages of @slot hold what the process sees at @p: compared
 * through the pages at a few offsets of @len, and by DMA when the device
 * can.
 */
static int same_data(int fd, unsigned int slot, const void *p, size_t len,
		     int dma)
{
	size_t offs[3] = { 0, len / 2, len - 64 }, i;
	unsigned char buf[64];
	int ok = 1;

	for (i = 0; i < 3; i++) {
		if (pin_read(fd, slot, PT_READ_CPU, offs[i], 64, buf) ||
		    memcmp(buf, (const char *)p + offs[i], 64)) {
			diag("cpu read through the pages differs at +%zu",
			     offs[i]);
			ok = 0;
		}
	}
	if (dma && have_dma) {
		if (pin_read(fd, slot, PT_READ_DMA, 0, 64, buf) ||
		    memcmp(buf, p, 64)) {
			diag("device read by DMA differs");
			ok = 0;
		}
	}
	return ok;
}

/*
 * Entries invalidated while unused are released by the cache's work item,
 * or by the next get: a get that fails (page 1 is never mapped) releases
 * what is still waiting, then wait (up to a minute) for a release the
 * work item may have in progress: it is done when the process's locked
 * memory (VmPin, uncharged after the unpin) is what the cache's entries
 * hold. Afterwards the pin counts are exact.
 */
static void settle(int fd)
{
	struct pt_get g;
	int i;

	memset(&g, 0, sizeof(g));
	g.addr = PAGE;
	g.len = PAGE;
	ioctl(fd, PT_IOC_GET, &g);
	for (i = 0; i < WORK_POLLS; i++) {
		if (vm_pin_kb() * 1024 == (long)stats(fd).pinned_bytes)
			return;
		usleep(10000);
	}
	diag("settle: VmPin %ld kB, cache %llu bytes after 60 s", vm_pin_kb(),
	     (unsigned long long)stats(fd).pinned_bytes);
}

static void *map_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A cache's line of debugfs dmaguard/pin_caches: what the cases read. */
struct debugfs_cache {
	unsigned long long handles, bad_puts;
};

#define DEBUGFS_CACHES_MAX	64

/*
 * The caches debugfs dmaguard/pin_caches lists for process @pid (each line
 * names its creator; -1: any), the first DEBUGFS_CACHES_MAX of them into
 * @out (if not NULL). Return: how many, or -1 without the file.
 */
static int debugfs_caches(int pid, struct debugfs_cache *out)
{
	FILE *f = fopen("/sys/kernel/debug/dmaguard/pin_caches", "r");
	unsigned long long v[12];
	char line[512], dev[64];
	int tgid, n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &tgid, dev, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7], &v[8], &v[9], &v[10], &v[11]) == 14 &&
		    (pid < 0 || tgid == pid)) {
			if (out && n < DEBUGFS_CACHES_MAX)
				out[n] = (struct debugfs_cache){
					.handles = v[3], .bad_puts = v[11],
				};
			n++;
		}
	fclose(f);
	return n;
}

/* debugfs dmaguard/pin_caches has a cache of @pid with @handles held. */
static int debugfs_lists(int pid, unsigned long long handles)
{
	struct debugfs_cache c[DEBUGFS_CACHES_MAX];
	int i, n = debugfs_caches(pid, c);

	for (i = 0; i < n && i < DEBUGFS_CACHES_MAX; i++)
		if (c[i].handles == handles)
			return 1;
	return 0;
}

/* miss, hit, sub-range hit; one pin per page; pinned_vm charged. */
static void case_hit_miss(int fd)
{
	size_t len = 16 * PAGE;
	char *p = map_anon(len);
	long net0, net1, pin0;
	struct pt_get g, h, s;
	struct pt_stats st0, st;

	case_ok = 1;
	fill(p, len, 1);
	settle(fd);
	st0 = stats(fd);
	pin0 = vm_pin_kb();
	net0 = net_pins();
	CHECK(!pin_get(fd, p, len, 1, &g), "miss get failed");
	net1 = net_pins();
	CHECK(net1 - net0 == 16, "pins held by a 16-page miss: %ld",
	      net1 - net0);
	CHECK(g.nr_pages == 16 && g.offset == 0, "nr_pages %llu offset %u",
	      (unsigned long long)g.nr_pages, g.offset);
	CHECK(!memcmp(g.head, p, PT_HEAD), "head differs");
	CHECK(vm_pin_kb() - pin0 == 64, "VmPin grew by %ld kB",
	      vm_pin_kb() - pin0);
	CHECK(!pin_get(fd, p, len, 0, &h), "hit get failed");
	CHECK(!pin_get(fd, p + PAGE + 100, 1000, 1, &s), "sub-range failed");
	CHECK(net_pins() == net1, "a hit pinned pages");
	CHECK(s.nr_pages == 1 && s.offset == 100, "sub nr %llu off %u",
	      (unsigned long long)s.nr_pages, s.offset);
	CHECK(!memcmp(s.head, p + PAGE + 100, PT_HEAD), "sub head differs");
	st = stats(fd);
	CHECK(st.misses - st0.misses == 1 && st.hits - st0.hits == 2,
	      "misses +%llu hits +%llu",
	      (unsigned long long)(st.misses - st0.misses),
	      (unsigned long long)(st.hits - st0.hits));
	CHECK(st.handles == 3 && st.pinned_bytes - st0.pinned_bytes == len,
	      "handles %llu bytes +%llu", (unsigned long long)st.handles,
	      (unsigned long long)(st.pinned_bytes - st0.pinned_bytes));
	CHECK(same_data(fd, g.slot, p, len, 1), "data");
	CHECK(debugfs_lists(getpid(), 3), "debugfs pin_caches");
	pin_put(fd, g.slot);
	pin_put(fd, h.slot);
	pin_put(fd, s.slot);
	munmap(p, len);
	st = stats(fd);
	CHECK(st.handles == 0, "handles left %llu",
	      (unsigned long long)st.handles);
	result("hit_miss_subrange");
}

/* munmap, then a new mapping at the same address: the new pages. */
static void case_munmap_remap(int fd)
{
	size_t len = 8 * PAGE;
	char *p = map_anon(len), *q;
	struct pt_get g;
	struct pt_stats st0, st;

	case_ok = 1;
	fill(p, len, 2);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	CHECK(same_data(fd, g.slot, p, len, 1), "before");
	pin_put(fd, g.slot);
	st0 = stats(fd);
	munmap(p, len);
	q = mmap(p, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(q == p, "remap at the same address");
	fill(q, len, 3);
	st = stats(fd);
	CHECK(st.invalidations > st0.invalidations, "no invalidation");
	CHECK(!pin_get(fd, q, len, 1, &g), "get after remap");
	CHECK(stats(fd).misses == st.misses + 1, "not a miss");
	CHECK(same_data(fd, g.slot, q, len, 1), "after remap");
	pin_put(fd, g.slot);
	munmap(q, len);
	result("munmap_remap_same_address");
}

/* mremap moves the range: the old address faults, the new one is fresh. */
static void case_mremap(int fd)
{
	size_t len = 8 * PAGE;
	char *p = map_anon(len), *hole = map_anon(len), *q;
	struct pt_get g;

	case_ok = 1;
	fill(p, len, 4);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	pin_put(fd, g.slot);
	q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, hole);
	CHECK(q == hole, "mremap");
	CHECK(pin_get(fd, p, len, 1, &g) == -EFAULT, "old address still pins");
	fill(q, len, 5);
	CHECK(!pin_get(fd, q, len, 1, &g), "get at the new address");
	CHECK(same_data(fd, g.slot, q, len, 1), "moved data");
	pin_put(fd, g.slot);
	/* and a new mapping where the old one was */
	CHECK(mmap(p, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == p,
	      "map the old address");
	fill(p, len, 6);
	CHECK(!pin_get(fd, p, len, 0, &g), "get at the old address");
	CHECK(same_data(fd, g.slot, p, len, 1), "new data at the old address");
	pin_put(fd, g.slot);
	munmap(p, len);
	munmap(q, len);
	result("mremap");
}

/* MADV_DONTNEED drops the pages: a get afterwards sees the new ones. */
static void case_dontneed(int fd)
{
	size_t len = 8 * PAGE;
	char *p = map_anon(len);
	struct pt_get g;

	case_ok = 1;
	fill(p, len, 7);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	pin_put(fd, g.slot);
	CHECK(!madvise(p, len, MADV_DONTNEED), "madvise");
	fill(p, len, 8);
	CHECK(!pin_get(fd, p, len, 1, &g), "get after DONTNEED");
	CHECK(same_data(fd, g.slot, p, len, 1), "after DONTNEED");
	pin_put(fd, g.slot);
	munmap(p, len);
	result("madv_dontneed");
}

/*
 * After fork, what the parent writes is what its pinned pages hold, and
 * the child's writes never reach them; the fork's write-protection of
 * the parent's range does not empty the cache: both gets after it hit.
 */
static void case_fork(int fd)
{
	size_t len = 8 * PAGE;
	char *p = map_anon(len), *r = map_anon(len);
	struct pt_get g, gr;
	struct pt_stats st0, st;
	int status;
	pid_t pid;

	case_ok = 1;
	fill(p, len, 9);
	fill(r, len, 10);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	/* read-only pins of a range the parent writes after the fork */
	CHECK(!pin_get(fd, r, len, 0, &gr), "get read-only");
	pin_put(fd, g.slot);
	pin_put(fd, gr.slot);
	st0 = stats(fd);
	pid = fork();
	if (!pid) {
		fill(p, len, 11);
		fill(r, len, 12);
		_exit(0);
	}
	fill(p, len, 13);
	fill(r, len, 14);
	waitpid(pid, &status, 0);
	CHECK(!pin_get(fd, p, len, 1, &g), "get after fork");
	CHECK(same_data(fd, g.slot, p, len, 1), "parent's writes");
	CHECK(!pin_get(fd, r, len, 0, &gr), "get read-only after fork");
	CHECK(same_data(fd, gr.slot, r, len, 1), "parent's writes (ro)");
	st = stats(fd);
	diag("fork: hits +%llu, invalidations +%llu, ignored +%llu",
	     (unsigned long long)(st.hits - st0.hits),
	     (unsigned long long)(st.invalidations - st0.invalidations),
	     (unsigned long long)(st.inval_ignored - st0.inval_ignored));
	CHECK(st.hits == st0.hits + 2, "fork emptied the cache");
	CHECK(st.invalidations == st0.invalidations, "fork invalidated");
	pin_put(fd, g.slot);
	pin_put(fd, gr.slot);
	munmap(p, len);
	munmap(r, len);
	result("fork_cow");
}

/* An entry invalidated while held stays pinned until the put. */
static void case_inval_held(int fd)
{
	size_t len = 8 * PAGE;
	char *p = map_anon(len);
	unsigned char copy[8 * 4096];
	struct pt_get g;
	struct pt_stats st;

	case_ok = 1;
	fill(p, len, 15);
	memcpy(copy, p, len);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	munmap(p, len);
	st = stats(fd);
	CHECK(st.entries == 1 && st.entries_indexed == 0 && st.handles == 1,
	      "entries %u indexed %u handles %llu", st.entries,
	      st.entries_indexed, (unsigned long long)st.handles);
	CHECK(same_data(fd, g.slot, copy, len, 1), "held pages changed");
	pin_put(fd, g.slot);	/* hands the entry to the work item */
	settle(fd);
	st = stats(fd);
	CHECK(st.entries == 0 && st.pinned_bytes == 0, "entries %u bytes %llu",
	      st.entries, (unsigned long long)st.pinned_bytes);
	result("invalidate_while_held");
}

/*
 * The last put of an entry invalidated while held, from an interrupt (an
 * I/O completion): the put may not sleep, and releasing may, so the work
 * item releases it. The debug kernel's lockdep and atomic-sleep checks
 * watch the put; then the pins and the charge come back.
 */
static void case_put_in_interrupt(int fd)
{
	size_t len = 4 * PAGE;
	char *p = map_anon(len);
	struct pt_get g;
	struct pt_stats st;
	long pins0, kb0, ret;

	case_ok = 1;
	settle(fd);
	pins0 = net_pins();
	kb0 = vm_pin_kb();
	fill(p, len, 21);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	munmap(p, len);
	ret = ioctl(fd, PT_IOC_PUT_IRQ, &g.slot);
	CHECK(ret == 0 || ret == 1, "put from an interrupt: %ld", ret);
	diag("the put ran in %s", ret == 1 ? "a hard interrupt" : "a softirq");
	settle(fd);
	st = stats(fd);
	CHECK(st.entries == 0 && st.pinned_bytes == 0 && st.handles == 0,
	      "entries %u bytes %llu handles %llu", st.entries,
	      (unsigned long long)st.pinned_bytes,
	      (unsigned long long)st.handles);
	CHECK(net_pins() == pins0 && vm_pin_kb() == kb0,
	      "pins %ld kB %ld, were %ld and %ld", net_pins(), vm_pin_kb(),
	      pins0, kb0);
	result("last_put_in_interrupt");
}

/*
 * A get after an invalidation, while the stale entry is still held: the
 * new entry pins (and maps) the pages the range did not lose, which the
 * held entry still pins and maps too. Both serve their bytes, and the
 * DMA API's debugging (on the debug kernel) has no overlapping mapping
 * to report: cached mappings do their own syncs (there are none to do).
 */
static void case_regain_while_held(int fd)
{
	size_t len = 8 * PAGE;
	char *p = map_anon(len);
	unsigned char old[64], buf[64];
	struct pt_get g, g2;
	struct pt_stats st;

	case_ok = 1;
	fill(p, len, 18);
	memcpy(old, p + 4 * PAGE, sizeof(old));
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	/*
	 * One page of eight goes: the entry is stale, seven pages stay. Not
	 * the first: the DMA API's debugging looks at where each segment
	 * starts, and the first page starts one in both mappings.
	 */
	CHECK(!madvise(p + 4 * PAGE, PAGE, MADV_DONTNEED), "madvise");
	fill(p, len, 19);
	CHECK(!pin_get(fd, p, len, 1, &g2), "get while the stale one is held");
	CHECK(g2.slot != g.slot, "the stale entry served the get");
	CHECK(same_data(fd, g2.slot, p, len, 1), "new entry");
	CHECK(!pin_read(fd, g.slot, PT_READ_CPU, 4 * PAGE, sizeof(buf), buf) &&
	      !memcmp(buf, old, sizeof(buf)), "held entry lost its page");
	CHECK(!pin_read(fd, g.slot, PT_READ_CPU, 0, sizeof(buf), buf) &&
	      !memcmp(buf, p, sizeof(buf)), "shared page differs");
	st = stats(fd);
	CHECK(st.entries == 2 && st.entries_indexed == 1 && st.handles == 2,
	      "entries %u indexed %u handles %llu", st.entries,
	      st.entries_indexed, (unsigned long long)st.handles);
	pin_put(fd, g.slot);
	pin_put(fd, g2.slot);
	munmap(p, len);
	result("regain_while_stale_held");
}

/*
 * mprotect: a get gives what a fresh pin would. PROT_READ under a cached
 * writable entry: a get for write fails (-EFAULT), one for read works;
 * read-write again: a get for write works; PROT_NONE: a read fails.
 */
static void case_protection(int fd)
{
	size_t len = 4 * PAGE;
	char *p = map_anon(len);
	__u64 pc0 = stats(fd).prot_checks;
	struct pt_get g;

	case_ok = 1;
	fill(p, len, 16);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	pin_put(fd, g.slot);
	CHECK(!mprotect(p, len, PROT_READ), "mprotect ro");
	CHECK(pin_get(fd, p, len, 1, &g) == -EFAULT,
	      "get for write of a read-only range did not fail");
	CHECK(stats(fd).prot_checks > pc0, "no protection check counted");
	CHECK(pin_get(fd, p + PAGE, PAGE, 1, &g) == -EFAULT,
	      "sub-range get for write did not fail");
	CHECK(!pin_get(fd, p, len, 0, &g), "get for read");
	CHECK(same_data(fd, g.slot, p, len, 1), "read-only pages");
	pin_put(fd, g.slot);
	CHECK(!mprotect(p, len, PROT_READ | PROT_WRITE), "mprotect rw");
	CHECK(!pin_get(fd, p, len, 1, &g), "get for write after rw");
	fill(p, len, 17);
	CHECK(same_data(fd, g.slot, p, len, 1), "writable pages");
	pin_put(fd, g.slot);
	CHECK(!mprotect(p, len, PROT_NONE), "mprotect none");
	CHECK(pin_get(fd, p, len, 0, &g) == -EFAULT,
	      "get for read of a PROT_NONE range did not fail");
	munmap(p, len);
	result("mprotect_as_a_pin");
}

/*
 * A process that unmaps what the cache holds unused gets its pins and
 * its locked-memory charge back with no further call into the driver
 * (the work item's delay is printed): 64 MiB pinned and put, then munmap,
 * then only reads of /proc.
 */
static void case_munmap_prompt(int fd)
{
	size_t len = 64UL << 20;
	char *p = map_anon(len);
	long pins0, kb0, pins = 0, kb = 0;
	struct pt_get g;
	int i;

	case_ok = 1;
	/* No release of an earlier case's may land inside the counts. */
	settle(fd);
	pins0 = net_pins();
	kb0 = vm_pin_kb();
	CHECK(p, "mmap 64 MiB");
	if (!p) {
		result("munmap_released_promptly");
		return;
	}
	memset(p, 0x5a, len);
	CHECK(!pin_get(fd, p, len, 1, &g), "get 64 MiB");
	pin_put(fd, g.slot);
	CHECK(vm_pin_kb() == kb0 + (long)(len >> 10), "VmPin %ld kB, want %ld",
	      vm_pin_kb(), kb0 + (long)(len >> 10));
	munmap(p, len);
	for (i = 0; i < WORK_POLLS; i++) {
		pins = net_pins();
		kb = vm_pin_kb();
		if (pins == pins0 && kb == kb0)
			break;
		usleep(10000);
	}
	diag("munmap: pins back after %d ms (%ld left), VmPin %ld kB (was %ld)",
	     i * 10, pins - pins0, kb, kb0);
	CHECK(pins == pins0, "%ld pins still held 60 s after munmap",
	      pins - pins0);
	CHECK(kb == kb0, "VmPin %ld kB 60 s after munmap, was %ld", kb, kb0);
	result("munmap_released_promptly");
}

/* bad_puts of this process's (last listed) cache in debugfs, or -1. */
static long debugfs_bad_puts(int pid)
{
	struct debugfs_cache c[DEBUGFS_CACHES_MAX];
	int n = debugfs_caches(pid, c);

	if (n > DEBUGFS_CACHES_MAX)
		n = DEBUGFS_CACHES_MAX;
	return n > 0 ? (long)c[n - 1].bad_puts : -1;
}

/*
 * The same handle put twice, and a forged one: both refused (counted in
 * debugfs, reported once in the log); the entry stays cached, unharmed.
 */
static void case_bad_put(int fd)
{
	size_t len = 2 * PAGE;
	char *p = map_anon(len);
	long bad0 = debugfs_bad_puts(getpid());
	__u64 pub0 = stats(fd).bad_puts;
	struct pt_stats st0;
	struct pt_get g;
	__u32 slot;

	case_ok = 1;
	fill(p, len, 18);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	slot = g.slot;
	CHECK(!ioctl(fd, PT_IOC_BAD_PUT, &slot), "bad put ioctl: %s",
	      strerror(errno));
	CHECK(debugfs_bad_puts(getpid()) == bad0 + 2, "bad_puts %ld, want %ld",
	      debugfs_bad_puts(getpid()), bad0 + 2);
	st0 = stats(fd);
	CHECK(st0.handles == 0, "handles %llu",
	      (unsigned long long)st0.handles);
	CHECK(st0.bad_puts == pub0 + 2, "public bad_puts %llu, want %llu",
	      (unsigned long long)st0.bad_puts, (unsigned long long)pub0 + 2);
	/* still cached, with the same pages */
	CHECK(!pin_get(fd, p, len, 1, &g), "get again");
	CHECK(stats(fd).hits == st0.hits + 1, "not a hit after bad puts");
	CHECK(same_data(fd, g.slot, p, len, 1), "pages after bad puts");
	pin_put(fd, g.slot);
	munmap(p, len);
	result("bad_put_refused");
}

/*
 * Memory pressure: the shrinker gives unused pins back. drop_caches=2
 * runs every shrinker; the unused 8 MiB entry goes, the next get pins
 * again and sees the same data.
 */
static void case_shrinker(int fd)
{
	size_t len = 8UL << 20;
	char *p = map_anon(len);
	struct pt_stats st0, st;
	struct pt_get g;
	int d, i;

	case_ok = 1;
	fill(p, len, 20);
	CHECK(!pin_get(fd, p, len, 1, &g), "get");
	pin_put(fd, g.slot);
	st0 = stats(fd);
	CHECK(st0.entries >= 1, "entries %u", st0.entries);
	d = open("/proc/sys/vm/drop_caches", O_WRONLY);
	CHECK(d >= 0 && write(d, "2", 1) == 1, "drop_caches: %s",
	      strerror(errno));
	if (d >= 0)
		close(d);
	/* evicted now, released by the cache's work item */
	for (i = 0; i < WORK_POLLS; i++) {
		st = stats(fd);
		if (!st.entries && !vm_pin_kb())
			break;
		usleep(10000);
	}
	diag("shrinker: entries %u -> %u after %d ms, evictions +%llu, VmPin %ld kB",
	     st0.entries, st.entries, i * 10,
	     (unsigned long long)(st.evictions - st0.evictions), vm_pin_kb());
	CHECK(st.entries == 0, "%u unused entries left", st.entries);
	CHECK(st.evictions >= st0.evictions + st0.entries, "evictions");
	CHECK(vm_pin_kb() == 0, "VmPin %ld kB", vm_pin_kb());
	CHECK(!pin_get(fd, p, len, 1, &g), "get again");
	CHECK(stats(fd).misses == st.misses + 1, "not a miss after shrinking");
	CHECK(same_data(fd, g.slot, p, len, 1), "pages after shrinking");
	pin_put(fd, g.slot);
	munmap(p, len);
	result("shrinker_gives_pins_back");
}

/* Destroy racing the last puts, from work items on another CPU. */
static void case_destroy_race(void)
{
	size_t len = 16 * PAGE;
	char *p = map_anon(len);
	struct pt_race r = { .addr = (unsigned long)p, .len = len,
			     .rounds = 200 };
	int fd = dev_open(0, 0);

	case_ok = 1;
	CHECK(fd >= 0, "open");
	fill(p, len, 19);
	if (fd >= 0) {
		CHECK(!ioctl(fd, PT_IOC_DESTROY_RACE, &r), "race: %s",
		      strerror(errno));
		diag("destroy race: %u rounds, destroy saw the handle held %llu times",
		     r.rounds, (unsigned long long)r.held);
		close(fd);
	}
	munmap(p, len);
	result("destroy_races_last_puts");
}

static void case_bad_input(int fd)
{
	size_t len = 4 * PAGE;
	char *p = map_anon(len);
	char *none = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	char *ro = map_anon(len);
	struct pt_stats st0, st;
	long net0;
	struct pt_get g;
	int small, ret;

	case_ok = 1;
	/* written, then read-only: real pages, not the shared zero page */
	fill(ro, len, 22);
	CHECK(!mprotect(ro, len, PROT_READ), "mprotect");
	settle(fd);
	st0 = stats(fd);
	net0 = net_pins();
	CHECK(pin_get(fd, p, 0, 0, &g) == -EINVAL, "zero length");
	CHECK(pin_get(fd, (void *)(~0UL - 100), PAGE, 0, &g) == -EOVERFLOW,
	      "wrap");
	CHECK(pin_get(fd, (void *)0xffff888000000000UL, PAGE, 0, &g) ==
	      -EFAULT, "kernel address");
	munmap(p, len);
	CHECK(pin_get(fd, p, len, 0, &g) == -EFAULT, "unmapped");
	CHECK(pin_get(fd, none, len, 0, &g) == -EFAULT, "PROT_NONE");
	CHECK(pin_get(fd, ro, len, 1, &g) == -EFAULT, "read-only for write");
	ret = pin_get(fd, ro, len, 0, &g);
	CHECK(!ret, "read-only for read: %d", ret);
	if (!ret)
		pin_put(fd, g.slot);
	small = dev_open(0, 8 * PAGE);
	CHECK(small >= 0, "small cache");
	p = map_anon(16 * PAGE);
	CHECK(pin_get(small, p, 16 * PAGE, 0, &g) == -E2BIG,
	      "larger than the budget");
	CHECK(!pin_get(small, p, 8 * PAGE, 0, &g), "within the budget");
	close(small);
	munmap(p, 16 * PAGE);
	st = stats(fd);
	CHECK(st.handles == 0 && st.entries == st0.entries + (ret ? 0 : 1),
	      "handles %llu entries %u", (unsigned long long)st.handles,
	      st.entries);
	/* the one good read-only get holds 4 pins; closing small freed 8 */
	CHECK(net_pins() - net0 == (ret ? 0 : 4), "pins held: %ld",
	      net_pins() - net0);
	munmap(none, len);
	munmap(ro, len);
	result("bad_input");
}

/*
 * The byte budget evicts the least recently used unused entry. @main_fd:
 * the main cache, settled first so that no release an earlier case left
 * to the work item (bad_input's munmap) lands inside the counts.
 */
static void case_budget(int main_fd)
{
	int fd = dev_open(PT_BIND_DEV, 8 * PAGE);
	char *p = map_anon(12 * PAGE);
	struct pt_get a, b, c;
	struct pt_stats st;
	long net0;

	case_ok = 1;
	settle(main_fd);
	net0 = net_pins();
	fill(p, 12 * PAGE, 23);
	CHECK(!pin_get(fd, p, 4 * PAGE, 0, &a), "get a");
	CHECK(!pin_get(fd, p + 4 * PAGE, 4 * PAGE, 0, &b), "get b");
	/* both held: no room, nothing evictable */
	CHECK(pin_get(fd, p + 8 * PAGE, 4 * PAGE, 0, &c) == -ENOSPC,
	      "over the budget with everything in use");
	pin_put(fd, a.slot);
	pin_put(fd, b.slot);
	CHECK(!pin_get(fd, p + 4 * PAGE, PAGE, 0, &b), "touch b");
	pin_put(fd, b.slot);
	CHECK(!pin_get(fd, p + 8 * PAGE, 4 * PAGE, 0, &c), "get c");
	st = stats(fd);
	CHECK(st.evictions == 1 && st.pinned_bytes == 8 * PAGE,
	      "evictions %llu bytes %llu", (unsigned long long)st.evictions,
	      (unsigned long long)st.pinned_bytes);
	CHECK(net_pins() - net0 == 8, "pins held %ld", net_pins() - net0);
	/* b stayed (recently used), a went */
	CHECK(!pin_get(fd, p + 4 * PAGE, 4 * PAGE, 0, &b), "b cached");
	CHECK(stats(fd).hits == st.hits + 1, "b was evicted");
	close(fd);
	CHECK(net_pins() == net0, "pins left %ld", net_pins() - net0);
	munmap(p, 12 * PAGE);
	result("budget_lru_evicts");
}

/* Over RLIMIT_MEMLOCK without CAP_IPC_LOCK: -ENOMEM, nothing charged. */
static void case_rlimit(void)
{
	int status, fd;
	pid_t pid;

	case_ok = 1;
	pid = fork();
	if (!pid) {
		struct rlimit rl = { 16 * PAGE, 16 * PAGE };
		char *p = map_anon(32 * PAGE);
		struct pt_get g;
		long pin0;
		int bad = 0;

		fd = dev_open(PT_BIND_DEV, 0);
		if (fd < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    setgid(65534) || setuid(65534))
			_exit(10);
		fill(p, 32 * PAGE, 17);
		pin0 = vm_pin_kb();
		if (pin_get(fd, p, 32 * PAGE, 1, &g) != -ENOMEM)
			bad |= 1;
		if (vm_pin_kb() != pin0)
			bad |= 2;
		if (pin_get(fd, p, 8 * PAGE, 1, &g))
			bad |= 4;
		if (vm_pin_kb() != pin0 + 32)
			bad |= 8;
		if (pin_get(fd, p + 8 * PAGE, 16 * PAGE, 1, &g) != -ENOMEM)
			bad |= 16;
		close(fd);
		if (vm_pin_kb() != pin0)
			bad |= 32;
		_exit(bad);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child status %#x",
	      status);
	result("rlimit_memlock_enomem");
}

/*
 * The process exits with entries, one of them held, while another
 * process keeps the cache's file open: the mm's exit invalidates them
 * all; the held one stays pinned until its put.
 */
static void case_exit_live(void)
{
	int fd = open(DEV, O_RDWR), status, i;
	struct pt_stats st;
	__u32 slot = 0;
	pid_t pid;

	case_ok = 1;
	CHECK(fd >= 0, "open");
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid < 0) {
		close(fd);
		result("exit_with_live_entries");
		return;
	}
	if (!pid) {
		struct pt_create c = { .flags = PT_BIND_DEV };
		char *p = map_anon(16 * PAGE);
		struct pt_get g;

		fill(p, 16 * PAGE, 18);
		if (ioctl(fd, PT_IOC_CREATE, &c) ||
		    pin_get(fd, p, 4 * PAGE, 1, &g) || g.slot != 0 ||
		    pin_get(fd, p + 8 * PAGE, 4 * PAGE, 0, &g))
			_exit(1);
		pin_put(fd, g.slot);
		_exit(0);	/* slot 0 still held */
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child %#x", status);
	st = stats(fd);
	CHECK(st.entries_indexed == 0 && st.handles == 1,
	      "after exit: indexed %u handles %llu entries %u",
	      st.entries_indexed, (unsigned long long)st.handles, st.entries);
	/* another mm may not get from it */
	{
		struct pt_get g;
		char *p = map_anon(PAGE);

		CHECK(pin_get(fd, p, PAGE, 0, &g) == -EFAULT,
		      "get from another mm");
		munmap(p, PAGE);
	}
	CHECK(!ioctl(fd, PT_IOC_PUT, &slot), "put after exit");
	/*
	 * The entries the exit invalidated go with the work item (queued on
	 * the child's CPU, however late it runs), the held one after its put.
	 */
	for (i = 0; i < WORK_POLLS && stats(fd).entries; i++)
		usleep(10000);
	st = stats(fd);
	CHECK(st.handles == 0 && st.entries == 0 && st.pinned_bytes == 0,
	      "handles %llu entries %u bytes %llu",
	      (unsigned long long)st.handles, st.entries,
	      (unsigned long long)st.pinned_bytes);
	CHECK(ioctl(fd, PT_IOC_DESTROY) == 0, "destroy");
	close(fd);
	/* and a process that exits without closing: release cleans up */
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid < 0) {
		result("exit_with_live_entries");
		return;
	}
	if (!pid) {
		char *p = map_anon(8 * PAGE);
		struct pt_get g;
		int f2 = dev_open(PT_BIND_DEV, 0);

		fill(p, 8 * PAGE, 19);
		if (f2 < 0 || pin_get(f2, p, 8 * PAGE, 1, &g) ||
		    pin_get(f2, p, 4 * PAGE, 1, &g))
			_exit(1);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child %#x", status);
	result("exit_with_live_entries");
}

/*
 * Destroy with a handle held: the release after the last put (the work
 * item's) frees the cache. In a child of its own, so that the cache is
 * told apart (debugfs lists it by its creator) from the caches earlier
 * cases left to their deferred reaps: this case once counted dmaguard.ko's
 * references and failed when one of those went during it.
 */
static void case_destroy_held(void)
{
	int status;
	pid_t pid;

	case_ok = 1;
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		int fd = dev_open(PT_BIND_DEV, 0), me = getpid(), i;
		char *p = map_anon(4 * PAGE);
		struct pt_get g;
		long ret;

		CHECK(debugfs_caches(me, NULL) == 1, "caches %d after open",
		      debugfs_caches(me, NULL));
		fill(p, 4 * PAGE, 20);
		CHECK(!pin_get(fd, p, 4 * PAGE, 1, &g), "get");
		ret = ioctl(fd, PT_IOC_DESTROY);
		CHECK(ret == 1, "destroy returned %ld", ret);
		CHECK(debugfs_caches(me, NULL) == 1, "caches %d while held",
		      debugfs_caches(me, NULL));
		CHECK(same_data(fd, g.slot, p, 4 * PAGE, 1),
		      "held after destroy");
		CHECK(!pin_put(fd, g.slot), "last put");
		/* the work item the last put queued releases the entry, then @c */
		for (i = 0; i < WORK_POLLS && debugfs_caches(me, NULL) > 0; i++)
			usleep(10000);
		CHECK(debugfs_caches(me, NULL) == 0, "caches %d after the last put",
		      debugfs_caches(me, NULL));
		close(fd);
		fflush(stdout);
		_exit(!case_ok);
	}
	if (pid > 0) {
		waitpid(pid, &status, 0);
		CHECK(WIFEXITED(status) && !WEXITSTATUS(status), "child %#x",
		      status);
	}
	result("destroy_with_handle_held");
}

/* Set a parameter of dmaguard.ko; 0 or -errno. */
static int dmaguard_param(const char *name, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/sys/module/dmaguard/parameters/%s",
		 name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * An entry left unused ages out (the spec loads dmaguard with aging off;
 * this case sets a period of 1 s): its pins and charge come back with no
 * call of the driver's, counted as an eviction. The main cache's entries
 * may age out meanwhile too, and a release an earlier case left may still
 * be running: the process's VmPin is checked against what the caches
 * hold, not against a figure taken before.
 */
static void case_idle_aging(int main_fd)
{
	size_t len = 4 * PAGE;
	char *p = map_anon(len);
	struct pt_stats st;
	struct pt_get g;
	long held = 0;
	int fd, i;

	case_ok = 1;
	CHECK(!dmaguard_param("pin_idle_secs", "1"), "pin_idle_secs=1");
	fd = dev_open(0, 0);
	fill(p, len, 22);
	CHECK(!pin_get(fd, p, len, 0, &g), "get");
	pin_put(fd, g.slot);
	/* Gone from the index first, then unpinned and uncharged. */
	for (i = 0; i < WORK_POLLS; i++) {
		st = stats(fd);
		held = (long)(stats(main_fd).pinned_bytes >> 10);
		if (!st.entries && !st.pinned_bytes && vm_pin_kb() == held)
			break;
		usleep(10000);
	}
	CHECK(i < WORK_POLLS, "VmPin %ld kB, the caches hold %ld kB",
	      vm_pin_kb(), held);
	st = stats(fd);
	CHECK(st.entries == 0 && st.pinned_bytes == 0 && st.evictions == 1,
	      "entries %u bytes %llu evictions %llu", st.entries,
	      (unsigned long long)st.pinned_bytes,
	      (unsigned long long)st.evictions);
	diag("aged out %d ms after the put (period 1 s)", i * 10);
	CHECK(!dmaguard_param("pin_idle_secs", "0"), "pin_idle_secs=0");
	close(fd);
	munmap(p, len);
	result("idle_entry_ages_out");
}

static int thp_enabled(void)
{
	char buf[128] = "";
	int f = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY);

	if (f < 0)
		return 0;
	if (read(f, buf, sizeof(buf) - 1) < 0)
		buf[0] = 0;
	close(f);
	return !strstr(buf, "[never]");
}

static void case_thp(int fd)
{
	size_t huge = 2UL << 20;
	char *raw = map_anon(2 * huge), *p;
	long pin0, net0;
	struct pt_get g;
	char line[128];
	long kb = 0;
	FILE *f;

	if (!thp_enabled()) {
		munmap(raw, 2 * huge);
		skip("thp_2m", "no transparent huge pages");
		return;
	}
	case_ok = 1;
	p = (char *)(((unsigned long)raw + huge - 1) & ~(huge - 1));
	CHECK(!madvise(p, huge, MADV_HUGEPAGE), "MADV_HUGEPAGE");
	fill(p, huge, 21);
	f = fopen("/proc/self/smaps_rollup", "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "AnonHugePages: %ld", &kb);
	if (f)
		fclose(f);
	diag("AnonHugePages: %ld kB", kb);
	settle(fd);
	pin0 = vm_pin_kb();
	net0 = net_pins();
	CHECK(!pin_get(fd, p, huge, 1, &g), "get 2 MiB");
	CHECK(g.nr_pages == 512, "nr_pages %llu",
	      (unsigned long long)g.nr_pages);
	CHECK(vm_pin_kb() - pin0 == 2048, "VmPin +%ld kB", vm_pin_kb() - pin0);
	CHECK(net_pins() - net0 == 512, "pins held for 2 MiB: %ld",
	      net_pins() - net0);
	CHECK(same_data(fd, g.slot, p, huge, 1), "huge data");
	pin_put(fd, g.slot);
	CHECK(!pin_get(fd, p + huge / 2, 4096, 1, &g), "sub-range of huge");
	CHECK(!memcmp(g.head, p + huge / 2, PT_HEAD), "sub head");
	pin_put(fd, g.slot);
	munmap(raw, 2 * huge);
	result("thp_2m");
}

/* Everything pinned was unpinned, and no cache is left. */
static void case_teardown(int fd)
{
	char line[256];
	int n = 0, i;
	FILE *f;

	case_ok = 1;
	CHECK(ioctl(fd, PT_IOC_DESTROY) == 0, "destroy");
	close(fd);
	/* Releases the work item still has to run (earlier caches' too). */
	for (i = 0; i < WORK_POLLS && debugfs_caches(-1, NULL) > 0; i++)
		usleep(10000);
	CHECK(vmstat("nr_foll_pin_acquired") == vmstat("nr_foll_pin_released"),
	      "nr_foll_pin_acquired %ld != released %ld",
	      vmstat("nr_foll_pin_acquired"), vmstat("nr_foll_pin_released"));
	diag("nr_foll_pin_acquired %ld released %ld",
	     vmstat("nr_foll_pin_acquired"), vmstat("nr_foll_pin_released"));
	CHECK(vm_pin_kb() == 0, "VmPin %ld kB", vm_pin_kb());
	f = fopen("/sys/kernel/debug/dmaguard/pin_caches", "r");
	CHECK(f, "debugfs pin_caches");
	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	CHECK(n == 1, "pin_caches lists %d lines", n);
	result("teardown_no_pins_left");
}

/* Does this boot force bounce buffering (the swiotlb backend)? */
static int bounced(void)
{
	char line[1024] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	return strstr(line, "swiotlb=force") != NULL;
}

int main(void)
{
	struct pt_get g;
	int fd;
	char *p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n1..%d\n", NR_CASES);
	fd = dev_open(PT_BIND_DEV, 0);
	if (fd < 0) {
		printf("Bail out! %s: %s\n", DEV, strerror(-fd));
		return 1;
	}
	p = map_anon(PAGE);
	case_ok = 1;
	CHECK(!pin_get(fd, p, PAGE, 0, &g), "first get");
	have_dma = g.has_dma;
	pin_put(fd, g.slot);
	munmap(p, PAGE);
	diag("device DMA checks: %s; mapping cached: %s (swiotlb=force: %s)",
	     have_dma ? "yes" : "no", g.cached_map ? "yes" : "no",
	     bounced() ? "yes" : "no");
	/* never a cached mapping that needs syncs (bounce buffers) */
	CHECK(g.cached_map == !bounced(), "cached mapping %u, swiotlb %d",
	      g.cached_map, bounced());
	result("mapping_cached_unless_bounced");
	case_hit_miss(fd);
	case_munmap_remap(fd);
	case_mremap(fd);
	case_dontneed(fd);
	case_fork(fd);
	case_inval_held(fd);
	case_put_in_interrupt(fd);
	case_regain_while_held(fd);
	case_protection(fd);
	case_munmap_prompt(fd);
	case_bad_put(fd);
	case_shrinker(fd);
	case_bad_input(fd);
	case_budget(fd);
	case_rlimit();
	case_exit_live();
	case_destroy_held();
	case_destroy_race();
	case_thp(fd);
	case_idle_aging(fd);
	case_teardown(fd);
	return failed ? 1 : 0;
}
