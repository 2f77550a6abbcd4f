// SPDX-License-Identifier: GPL-2.0
/*
 * Planted checkpatch fixture: proves that scripts/static/checkpatch.sh
 * sees what checkpatch.pl reports. Not part of the tree scan; the messages
 * it must produce are listed in planted.expected (keep line numbers in
 * step). Never built.
 */
#include <linux/module.h>

static int planted_count;

static int planted_fn(int x)
{
	if (x) {
		return planted_count;
	}
	planted_count = x*2;
	return 0;
}
