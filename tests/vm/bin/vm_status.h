/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs of tests/vm/bin/ read of their own process in
 * /proc/self/status, and of the system's pins in /proc/vmstat.
 */
#ifndef _DMAGUARD_VM_STATUS_H
#define _DMAGUARD_VM_STATUS_H

#include <stdio.h>
#include <string.h>

/* VmPin of /proc/self/status, in kB (mm->pinned_vm), or -1. */
static inline long vm_pin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* A counter of /proc/vmstat, the per-CPU deltas folded first; or -1. */
static inline long vmstat(const char *key)
{
	char name[64];
	long v, found = -1;
	FILE *f = fopen("/proc/sys/vm/stat_refresh", "w");

	/* without the fold the counters lag */
	if (f) {
		fputs("1", f);
		fclose(f);
	}
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", name, &v) == 2)
		if (!strcmp(name, key))
			found = v;
	fclose(f);
	return found;
}

/* Pins held now, system-wide. */
static inline long net_pins(void)
{
	return vmstat("nr_foll_pin_acquired") - vmstat("nr_foll_pin_released");
}

#endif /* _DMAGUARD_VM_STATUS_H */
