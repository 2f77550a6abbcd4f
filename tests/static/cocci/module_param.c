// SPDX-License-Identifier: GPL-2.0
/*
 * Planted fixture for semantic-patches/module-param-read-once.cocci:
 * writable module parameters read plainly and with READ_ONCE(), next to
 * read-only ones. Never built, never loaded; the reports it must produce
 * are listed in module_param.expected (keep line numbers in step).
 */
#include <linux/module.h>
#include <linux/stat.h>

static unsigned int fx_ro = 5;
module_param(fx_ro, uint, 0444);
static unsigned int fx_rw = 5;
module_param(fx_rw, uint, 0644);
MODULE_PARM_DESC(fx_rw, "writable, octal");
static bool fx_rw_sym;
module_param(fx_rw_sym, bool, 0200 | S_IRUSR);
static int fx_rw_mac;
module_param(fx_rw_mac, int, S_IWUSR);

static int fx_use(int *out)
{
	unsigned int once = READ_ONCE(fx_rw);	/* fine */
	unsigned int ro = fx_ro;		/* fine: read-only */

	WRITE_ONCE(fx_rw, once + 1);		/* fine */
	*out = fx_rw_mac;			/* reported */
	if (fx_rw_sym)				/* reported */
		return once + ro;
	return fx_rw;				/* reported */
}
