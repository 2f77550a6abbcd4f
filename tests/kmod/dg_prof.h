/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Markers for the guest instruction profile (scripts/bench/guestprof.c,
 * `make prof-pin`, `make prof-pool`): the QEMU plugin counts what the
 * guest runs between dg_prof_start(ch) and dg_prof_stop(ch), channels 0
 * and 1 apart. Each is a nop (8 bytes, a displacement no compiler emits),
 * so a marker costs one instruction when no plugin is loaded and changes
 * no register or flag.
 */
#ifndef _DG_PROF_H
#define _DG_PROF_H

/* @ch: 0 or 1, a constant */
static __always_inline void dg_prof_start(const int ch)
{
	asm volatile("nopl %c0(%%rax,%%rax,1)" :: "i" (0x4d47dd01 + 2 * ch)
		     : "memory");
}

static __always_inline void dg_prof_stop(const int ch)
{
	asm volatile("nopl %c0(%%rax,%%rax,1)" :: "i" (0x4d47dd02 + 2 * ch)
		     : "memory");
}

#endif /* _DG_PROF_H */
