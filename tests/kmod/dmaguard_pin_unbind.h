/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ioctls of dmaguard_pin_unbind.ko (/dev/dmaguard_pin_unbind), shared
 * with tests/vm/bin/pin_unbind.c: one pin cache bound to the edu device
 * the module drives as a PCI driver, created at the first get after each
 * bind, destroyed by remove().
 */
#ifndef _DMAGUARD_PIN_UNBIND_H
#define _DMAGUARD_PIN_UNBIND_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/ioctl.h>
#else
#include <sys/ioctl.h>
typedef __UINT32_TYPE__ __u32;
typedef __UINT64_TYPE__ __u64;
#endif

#define PU_SLOTS	8

struct pu_get {
	__u64 addr;		/* in */
	__u64 len;		/* in */
	__u32 slot;		/* out */
	__u32 mapped;		/* out: the handle has a DMA mapping */
};

struct pu_state {
	__u32 bound;		/* a device is bound to the driver */
	__u32 removes;		/* remove() calls so far */
	__u64 held_at_destroy;	/* what the last remove()'s destroy said */
	__u64 pinned_bytes;	/* the cache's, 0 without one */
	__u32 entries;
	__u32 pad;
};

#define PU_IOC_GET	_IOWR('u', 1, struct pu_get)
#define PU_IOC_PUT	_IOW('u', 2, __u32)
#define PU_IOC_STATE	_IOR('u', 3, struct pu_state)

#endif /* _DMAGUARD_PIN_UNBIND_H */
