// SPDX-License-Identifier: GPL-2.0
/*
 * pin_bench: the per-I/O cost of pinning a user buffer, as a driver
 * without the cache pays it (pin_user_pages_fast() + unpin_user_pages()),
 * against a dmaguard pin cache hit (get + put), measured by
 * dmaguard_pin_test.ko's PT_IOC_BENCH in the same boot, same buffer:
 * medians of repeated runs. For 4 KiB, 64 KiB, 1 MiB and a 2 MiB THP
 * range (when the kernel has THP), one line each:
 *
 *   BENCH pin kernel=K bytes=N thp=0|1 pin_unpin_ns=M hit_ns=M ratio=R
 *
 * then the same with the cache bound to the edu device, the pin side
 * mapping and unmapping an sg_table with dma_map_sgtable() per I/O and
 * the cache mapping once (backend = the VM's DMA backend; a buffer the
 * device reads, DMA_TO_DEVICE):
 *
 *   BENCH pin-map kernel=K backend=B bytes=N thp=0|1 pin_unpin_ns=M ...
 *
 * ratio = hit / pin_unpin: below 1 the cache is cheaper.
 * Usage: pin_bench [quick] [stats]
 *   quick   few repetitions (make check, make run)
 *   stats   after each measurement, while its cache is alive, print the
 *           cache's row of /sys/kernel/debug/dmaguard/pin_caches (and the
 *           header once) as "DEBUGFS pin_caches <what>: <line>"
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
#include <sys/utsname.h>
#include "../../kmod/dmaguard_pin_test.h"

#define KIB	1024UL
#define MIB	(1024 * KIB)

static int quick, stats;
static const char *backend = "direct";
static struct utsname uts;

/*
 * 2 MiB, aligned, made a huge page if the kernel can: THP enabled, and
 * (where the kernel has smaps) the process's AnonHugePages show it.
 */
static char *map_thp(int *thp)
{
	char *p = mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char line[128], *a;
	long kb = -1;
	FILE *f;

	*thp = 0;
	f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (f && fgets(line, sizeof(line), f) && !strstr(line, "[never]"))
		*thp = 1;
	if (f)
		fclose(f);
	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((unsigned long)p + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(a, 2 * MIB, MADV_HUGEPAGE);
	memset(a, 0x5a, 2 * MIB);
	f = fopen("/proc/self/smaps_rollup", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb >= 0)
		*thp = kb >= 2048;
	return a;
}

/* stats: this process's row of the pin_caches table, @what naming it. */
static void print_stats(const char *what)
{
	static int header_done;
	char line[512];
	FILE *f = fopen("/sys/kernel/debug/dmaguard/pin_caches", "r");
	int n = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (!n++) {
			if (!header_done++)
				printf("DEBUGFS pin_caches header: %s", line);
		} else if (atoi(line) == getpid()) {
			printf("DEBUGFS pin_caches %s: %s", what, line);
		}
	}
	if (f)
		fclose(f);
	else
		printf("# no /sys/kernel/debug/dmaguard/pin_caches: %s\n",
		       strerror(errno));
}

static int bench(int bound, unsigned long bytes, int want_thp)
{
	struct pt_create c = { .flags = bound ? PT_BIND_DEV : 0 };
	struct pt_bench b = { 0 };
	int fd, thp = 0, ret = 0;
	char *buf;

	if (want_thp) {
		buf = map_thp(&thp);
		if (!buf || !thp) {
			printf("# %lu bytes: no transparent huge page here, skipped\n",
			       bytes);
			return 0;
		}
	} else {
		buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			return -errno;
		memset(buf, 0x5a, bytes);
	}
	fd = open("/dev/dmaguard_pin_test", O_RDWR);
	if (fd < 0 || ioctl(fd, PT_IOC_CREATE, &c)) {
		ret = -errno;
		goto out;
	}
	b.addr = (unsigned long)buf;
	b.len = bytes;
	/*
	 * The device writes the buffer (FOLL_WRITE); when mapped, it reads
	 * it (DMA_TO_DEVICE): the cache's mapping of the same pages stays
	 * alive while the no-cache side maps them again, which DMA-API
	 * debugging allows only for mappings the device does not write.
	 */
	b.write = !bound;
	b.reps = quick ? 3 : 9;
	/* About the same time per size: fewer I/Os of the big ranges. */
	b.iters = (quick ? 64 : 512) * 64 * KIB / (bytes + 60 * KIB);
	if (!b.iters)
		b.iters = 1;
	if (ioctl(fd, PT_IOC_BENCH, &b)) {
		ret = -errno;
		goto out;
	}
	if (bound && !b.mapped) {
		printf("# no device to map for: pin-map rows skipped\n");
		goto out;
	}
	printf("BENCH %s kernel=%s%s%s bytes=%lu thp=%d pin_unpin_ns=%llu hit_ns=%llu ratio=%.4f\n",
	       bound ? "pin-map" : "pin", uts.release,
	       bound ? " backend=" : "", bound ? backend : "", bytes, thp,
	       (unsigned long long)b.pin_ns, (unsigned long long)b.hit_ns,
	       b.pin_ns ? (double)b.hit_ns / b.pin_ns : 0.0);
	if (stats) {
		char what[64];

		snprintf(what, sizeof(what), "%s %lu%s", bound ? "pin-map" : "pin",
			 bytes, thp ? " thp" : "");
		print_stats(what);
	}
out:
	if (fd >= 0)
		close(fd);
	munmap(buf, want_thp ? 2 * MIB : bytes);
	return ret;
}

int main(int argc, char **argv)
{
	static const unsigned long sizes[] = { 4 * KIB, 64 * KIB, MIB };
	unsigned int i;
	int bound, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "quick")) {
			quick = 1;
		} else if (!strcmp(argv[i], "stats")) {
			stats = 1;
		} else {
			fprintf(stderr, "usage: pin_bench [quick] [stats]\n");
			return 2;
		}
	}
	if (getenv("BACKEND"))
		backend = getenv("BACKEND");
	uname(&uts);
	for (bound = 0; bound < 2; bound++) {
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			ret = bench(bound, sizes[i], 0);
			if (ret) {
				printf("BENCH error %lu bytes: %s\n", sizes[i],
				       strerror(-ret));
				return 1;
			}
		}
		ret = bench(bound, 2 * MIB, 1);
		if (ret) {
			printf("BENCH error 2 MiB THP: %s\n", strerror(-ret));
			return 1;
		}
	}
	return 0;
}
