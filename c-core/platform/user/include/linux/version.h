/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/version.h> for the exported-interface files: the
 * simulated kernel is a 6.13, the first whose symbol namespaces are
 * strings (dg_kernel.h), which module.h checks.
 */
#ifndef _DMAGUARD_USER_LINUX_VERSION_H
#define _DMAGUARD_USER_LINUX_VERSION_H

#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + (c))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 13, 0)

#endif /* _DMAGUARD_USER_LINUX_VERSION_H */
