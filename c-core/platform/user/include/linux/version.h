/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/version.h> for the exported-interface files: the
 * simulated kernel is a 6.12, the newest kernel dmaguard builds for here
 * (scripts/kernels.sh), so version tests take that side.
 */
#ifndef _DMAGUARD_USER_LINUX_VERSION_H
#define _DMAGUARD_USER_LINUX_VERSION_H

#define KERNEL_VERSION(a, b, c)	(((a) << 16) + ((b) << 8) + ((c) > 255 ? 255 : (c)))
#define LINUX_VERSION_CODE	KERNEL_VERSION(6, 12, 0)

#endif /* _DMAGUARD_USER_LINUX_VERSION_H */
