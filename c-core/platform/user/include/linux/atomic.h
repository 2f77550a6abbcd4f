/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/atomic.h> for the exported-interface files: they only
 * name atomic_long_t (dg_kernel.h), which tools/include's types.h has.
 * Shadows tools/include's atomic.h, whose x86 bitops clash with the
 * atomic ones of dg_platform.h.
 */
#ifndef _DMAGUARD_USER_LINUX_ATOMIC_H
#define _DMAGUARD_USER_LINUX_ATOMIC_H

#include <linux/types.h>

#endif /* _DMAGUARD_USER_LINUX_ATOMIC_H */
