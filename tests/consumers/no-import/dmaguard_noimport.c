// SPDX-License-Identifier: GPL-2.0
/*
 * A consumer that forgets DMAGUARD_IMPORT_NS(): the kernel must refuse to
 * load it, naming the namespace (tests/vm/consumer-no-import.vmtest).
 * modpost refuses the same mistake at build time; scripts/abi/consumers.sh
 * shows that, then builds it with KBUILD_NSDEPS=1 (modpost -N, the mode of
 * `make nsdeps`) so that the refusal at load time can be shown too.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <dmaguard/dmaguard.h>

/* No DMAGUARD_IMPORT_NS() here: that is the point. */

static int __init noimport_init(void)
{
	pr_info("loaded: dmaguard version 0x%x (must never happen)\n",
		dmaguard_version());
	return 0;
}

static void __exit noimport_exit(void)
{
}

module_init(noimport_init);
module_exit(noimport_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard consumer without the namespace import (must not load)");
