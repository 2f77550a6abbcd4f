// SPDX-License-Identifier: GPL-2.0
/* Names the pool's struct through ringdrv.h, calls nothing: no import. */
#include <linux/module.h>
#include "ringdrv.h"

/**
 * ringstat_has_pool() - whether @rd has its pool
 * @rd: the ring
 *
 * Return: true when it has.
 */
bool ringstat_has_pool(const struct ringdrv *rd)
{
	return !!rd->desc_pool;
}
EXPORT_SYMBOL_GPL(ringstat_has_pool);

MODULE_DESCRIPTION("convert-driver fixture: a module naming the struct only");
MODULE_LICENSE("GPL");
