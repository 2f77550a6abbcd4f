// SPDX-License-Identifier: GPL-2.0
/*
 * pin_unbind: the edu device is unbound from dmaguard_pin_unbind.ko
 * (through sysfs, as an administrator or a hot-unplug would) while this
 * process holds a handle and an idle, DMA-mapped entry of the pin cache
 * bound to it. The driver's remove() puts its handles and destroys the
 * cache: every pin goes (VmPin 0, the cache's destroy says nothing was
 * held), a get after it fails with ENODEV, and after a bind a new cache
 * works. Static (musl), run by tests/vm/pin.vmtest; prints KTAP.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include "../../kmod/dmaguard_pin_unbind.h"
#include "vm_status.h"

#define DRV	"/sys/bus/pci/drivers/dmaguard_pin_unbind"
#define MIB	(1UL << 20)

static int fails;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("# failed: %s (errno %d)\n", what, errno);
		fails++;
	}
}

/* The PCI address of the device bound to the driver, or "" for none. */
static void bound_device(char *name, size_t n)
{
	struct dirent *d;
	DIR *dir = opendir(DRV);

	name[0] = 0;
	while (dir && (d = readdir(dir)))
		if (strchr(d->d_name, ':') && strlen(d->d_name) < n)
			strcpy(name, d->d_name);
	if (dir)
		closedir(dir);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, s, strlen(s)) == (ssize_t)strlen(s) ? 0 : -1;
	close(fd);
	return ret;
}

static int get(int fd, void *p, size_t len, struct pu_get *g)
{
	memset(g, 0, sizeof(*g));
	g->addr = (unsigned long)p;
	g->len = len;
	return ioctl(fd, PU_IOC_GET, g);
}

static void result(int n, const char *name)
{
	printf("%sok %d %s\n", fails ? "not " : "", n, name);
	fails = 0;
}

int main(void)
{
	struct pu_state st;
	struct pu_get g;
	char dev[256];
	char *buf;
	int fd;

	printf("KTAP version 1\n1..3\n");
	buf = mmap(NULL, 2 * MIB, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/dmaguard_pin_unbind", O_RDWR);
	bound_device(dev, sizeof(dev));
	if (buf == MAP_FAILED || fd < 0 || !dev[0]) {
		printf("# setup: buf %p fd %d device '%s'\n", buf, fd, dev);
		printf("not ok 1 live_cache\nnot ok 2 unbind_releases\nnot ok 3 rebind\n");
		return 1;
	}
	memset(buf, 0x5a, 2 * MIB);

	/* an idle entry (mapped when the device needs no syncs), a handle */
	check(!get(fd, buf, MIB, &g), "get 1 MiB");
	printf("# idle entry mapped: %u\n", g.mapped);
	check(!ioctl(fd, PU_IOC_PUT, &g.slot), "put");
	check(!get(fd, buf + MIB, 64 << 10, &g), "get 64 KiB, held");
	check(!ioctl(fd, PU_IOC_STATE, &st) && st.entries == 2 &&
	      st.pinned_bytes == MIB + (64 << 10), "two entries cached");
	check(vm_pin_kb() == 1024 + 64, "VmPin 1088 kB");
	printf("# VmPin %ld kB, device %s\n", vm_pin_kb(), dev);
	result(1, "live_cache");

	check(!write_file(DRV "/unbind", dev), "unbind");
	check(!ioctl(fd, PU_IOC_STATE, &st), "state");
	check(!st.bound && st.removes == 1, "remove() ran");
	check(st.held_at_destroy == 0, "destroy found no handle held");
	check(vm_pin_kb() == 0, "VmPin 0 kB after the unbind");
	errno = 0;
	check(get(fd, buf, MIB, &g) && errno == ENODEV, "get: ENODEV");
	printf("# after unbind: VmPin %ld kB, held at destroy %llu\n",
	       vm_pin_kb(), (unsigned long long)st.held_at_destroy);
	result(2, "unbind_releases");

	check(!write_file(DRV "/bind", dev), "bind");
	check(!get(fd, buf, MIB, &g), "get on a new cache");
	check(!ioctl(fd, PU_IOC_PUT, &g.slot), "put");
	check(vm_pin_kb() == 1024, "VmPin 1024 kB");
	result(3, "rebind");
	close(fd);
	return 0;
}
