/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/uaccess.h> for the exported-interface files: x86-64's
 * access_ok(), a range below TASK_SIZE_MAX (47-bit user space, one guard
 * page), where the simulated address spaces live (DG_USER_MM_BASE).
 */
#ifndef _DMAGUARD_USER_LINUX_UACCESS_H
#define _DMAGUARD_USER_LINUX_UACCESS_H

#include <stdbool.h>
#include <stddef.h>

#define DG_USER_TASK_SIZE_MAX	((1ul << 47) - 4096)

static inline bool dg_user_access_ok(unsigned long addr, size_t size)
{
	return size <= DG_USER_TASK_SIZE_MAX &&
	       addr <= DG_USER_TASK_SIZE_MAX - size;
}

#define access_ok(addr, size)	dg_user_access_ok((unsigned long)(addr), (size))

#endif /* _DMAGUARD_USER_LINUX_UACCESS_H */
