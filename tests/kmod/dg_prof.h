/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Markers for the guest instruction profile (scripts/bench/guestprof.c,
 * `make prof-pin`): the QEMU plugin counts what the guest runs between
 * dg_prof_start() and dg_prof_stop(). Each is a nop (8 bytes, a
 * displacement no compiler emits), so the markers cost one instruction
 * when no plugin is loaded and change no register or flag.
 */
#ifndef _DG_PROF_H
#define _DG_PROF_H

static __always_inline void dg_prof_start(void)
{
	asm volatile("nopl 0x4d47dd01(%%rax,%%rax,1)" ::: "memory");
}

static __always_inline void dg_prof_stop(void)
{
	asm volatile("nopl 0x4d47dd02(%%rax,%%rax,1)" ::: "memory");
}

#endif /* _DG_PROF_H */
