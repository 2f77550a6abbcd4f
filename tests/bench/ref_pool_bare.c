// SPDX-License-Identifier: GPL-2.0
/*
 * The in-band reference pool under a pthread_spinlock_t without the
 * interrupt flags: the ref_bare_pool_* functions of ref_pool.h.
 */
#define REF_POOL_SPIN
#define REF_POOL_BARE
#include "ref_pool.c"
