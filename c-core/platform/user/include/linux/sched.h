/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/sched.h> for the exported-interface files: `current`
 * is a per-thread task whose mm is a simulated address space (pin_mm.c,
 * dg_user_mm.h), NULL until the thread sets one with
 * dg_user_set_current_mm(), as a kernel thread has none.
 */
#ifndef _DMAGUARD_USER_LINUX_SCHED_H
#define _DMAGUARD_USER_LINUX_SCHED_H

#include <sys/types.h>

struct dg_user_mm;

struct task_struct {
	struct dg_user_mm *mm;
	pid_t tgid;
};

struct task_struct *dg_user_current(void);
void dg_user_set_current_mm(struct dg_user_mm *mm);

#define current			(dg_user_current())

static inline pid_t task_tgid_nr(struct task_struct *tsk)
{
	return tsk->tgid;
}

#endif /* _DMAGUARD_USER_LINUX_SCHED_H */
