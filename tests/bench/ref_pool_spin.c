// SPDX-License-Identifier: GPL-2.0
/*
 * The in-band reference pool again, locked with a pthread_spinlock_t:
 * the ref_spin_pool_* functions of ref_pool.h.
 */
#define REF_POOL_SPIN
#include "ref_pool.c"
