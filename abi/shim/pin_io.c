// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_pin_get() and dmaguard_pin_put(), the pin cache's per-I/O
 * calls. This file sees the public structs' layouts and the core's
 * entries (pincache_internal.h), so that a hit and a put each run as
 * one function, calling into the core only when they need its lock.
 * They are exported from pin_abi.c, which does not see the layouts (see
 * <dmaguard/pool.h> on why), and documented in <dmaguard/pin.h>.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <dmaguard/dmaguard.h>
#include "dg_platform.h"
#include "dg_kernel.h"
#include "dg_pin_conv.h"
#include "pincache_internal.h"

int dmaguard_pin_get(struct dmaguard_pin_cache *cache, unsigned long uaddr,
		     size_t len, bool write, struct dmaguard_pin *pin)
{
	struct dg_pin_cache *c = (struct dg_pin_cache *)cache;
	struct dg_pin_handle h;
	struct dg_pin_entry *e;
	unsigned int cpu;
	int ret;

	might_sleep();
	if (!c)
		return -EINVAL;
	ret = dg_pin_handle_check(pin);
	if (ret)
		return ret;
	/* A hit must not hand another address space's pages out either. */
	if (current->mm != dg_pin_cache_plat(c)->mm)
		return -EFAULT;
	/*
	 * A tagged pointer (arm64 TBI/MTE, x86 LAM) is keyed untagged, as
	 * GUP pins and invalidations name it; this is current's mm.
	 */
	uaddr = untagged_addr(uaddr);
	/* Kernel addresses: refused before anything is charged or tracked. */
	if (len && uaddr + len - 1 >= uaddr &&
	    !access_ok((void __user *)uaddr, len))
		return -EFAULT;
	e = __dg_pin_get(c, uaddr, len, write, &cpu);
	if (IS_ERR(e))
		return PTR_ERR(e);
	pin_fill_handle(e, cpu, uaddr, len, &h);
	dg_pin_handle_out(pin, &h);
	return 0;
}

void dmaguard_pin_put(struct dmaguard_pin_cache *cache,
		      struct dmaguard_pin *pin)
{
	struct dg_pin_cache *c = (struct dg_pin_cache *)cache;
	struct dg_pin_handle h = { .cookie = dg_pin_handle_cookie(pin) };

	if (!c || !h.cookie)
		return;
	/* A handle the cache does not hold is reported and counted there. */
	__dg_pin_put(c, &h);
}
