/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace <linux/module.h> for the exported-interface files of abi/shim/
 * (scripts/mk/core.mk, libdmaguard.a): an export is a plain external
 * symbol of the library. Shadows tools/include's module.h, which only has
 * module_param(); the ABI files are the only ones built with this
 * directory on the include path.
 */
#ifndef _DMAGUARD_USER_LINUX_MODULE_H
#define _DMAGUARD_USER_LINUX_MODULE_H

#include <linux/build_bug.h>
#include <linux/compiler.h>

/*
 * A declaration, so that "DG_EXPORT(sym);" stays one at file scope: the
 * symbol must exist and the namespace be a string (version.h: 6.13 on).
 */
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	\
	static_assert(sizeof(typeof(sym) *) && sizeof(ns) > 1, "export " #sym)

/* The kernel's module.h brings kernel.h's might_sleep() (dg_platform.h's). */
#ifndef might_sleep
#define might_sleep()		do { } while (0)
#endif

#endif /* _DMAGUARD_USER_LINUX_MODULE_H */
