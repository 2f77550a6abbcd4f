/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/nodemask.h> for the exported-interface files: the
 * simulated kernel has one NUMA node, node 0 (tools/include's numa.h has
 * MAX_NUMNODES 1).
 */
#ifndef _DMAGUARD_USER_LINUX_NODEMASK_H
#define _DMAGUARD_USER_LINUX_NODEMASK_H

#include <linux/numa.h>

#define node_possible(node)	((node) == 0)

#endif /* _DMAGUARD_USER_LINUX_NODEMASK_H */
