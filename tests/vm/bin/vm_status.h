/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the guest programs of tests/vm/bin/ read of their own process in
 * /proc/self/status.
 */
#ifndef _DMAGUARD_VM_STATUS_H
#define _DMAGUARD_VM_STATUS_H

#include <stdio.h>

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

#endif /* _DMAGUARD_VM_STATUS_H */
