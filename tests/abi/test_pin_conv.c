// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pin cache translation (abi/shim/dg_pin_conv.c), in
 * userspace under ASan+UBSan: each caller struct lives in a heap buffer
 * of exactly the size it claims.
 *
 * Cases: options of every size (older refused below version 0, newer
 * accepted with a zero tail, -E2BIG otherwise), unknown flags, the node
 * flag; the handle struct checked before a get (same size rules), filled
 * and taken back once; stats of every size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <cmocka.h>

#include "dg_struct_size.h"
#include "dg_pin_conv.h"

/* A zeroed caller struct of @size bytes whose first u32 says so. */
static void *caller(size_t size)
{
	unsigned char *p = calloc(1, size);

	assert_non_null(p);
	*(__u32 *)p = (__u32)size;
	return p;
}

static void opts_sizes(void **state)
{
	struct dmaguard_pin_opts *o = caller(sizeof(*o));
	struct dg_pin_params p;
	unsigned char *big;

	o->max_bytes = 1 << 20;
	o->max_entries = 7;
	assert_int_equal(dg_pin_opts_parse(o, 3, &p), 0);
	assert_int_equal(p.max_bytes, 1 << 20);
	assert_int_equal(p.max_entries, 7);
	assert_int_equal(p.node, 3);
	assert_null(p.mm);
	assert_null(p.dev);
	o->flags = DMAGUARD_PIN_F_NODE;
	o->node = -1;
	assert_int_equal(dg_pin_opts_parse(o, 3, &p), 0);
	assert_int_equal(p.node, -1);
	o->flags = 0x80;
	assert_int_equal(dg_pin_opts_parse(o, 3, &p), -EINVAL);
	o->flags = 0;
	o->sz = DMAGUARD_PIN_OPTS_SIZE_VER0 - 4;
	assert_int_equal(dg_pin_opts_parse(o, 3, &p), -EINVAL);
	assert_int_equal(dg_pin_opts_parse(NULL, 3, &p), -EINVAL);
	free(o);

	big = caller(sizeof(*o) + 8);
	assert_int_equal(dg_pin_opts_parse((void *)big, 0, &p), 0);
	big[sizeof(*o) + 7] = 1;
	assert_int_equal(dg_pin_opts_parse((void *)big, 0, &p), -E2BIG);
	free(big);
}

static void handle_round_trip(void **state)
{
	struct dmaguard_pin *pin = caller(sizeof(*pin));
	void *pages[2] = { (void *)0x1000, (void *)0x2000 };
	struct dg_pin_handle h = {
		.cookie = 0xe0, .pages = pages, .nr_pages = 2,
		.offset = 100, .map = (void *)0x5a, .map_offset = 4196,
	};

	assert_int_equal(dg_pin_handle_check(pin), 0);
	dg_pin_handle_out(pin, &h);
	assert_int_equal(pin->sz, sizeof(*pin));
	assert_int_equal((uintptr_t)pin->priv, h.cookie);
	assert_ptr_equal(pin->pages, pages);
	assert_int_equal(pin->nr_pages, 2);
	assert_int_equal(pin->offset, 100);
	assert_ptr_equal(pin->sgt, h.map);
	assert_int_equal(pin->sgt_offset, 4196);
	/* taken back once: a second put finds nothing */
	assert_int_equal(dg_pin_handle_cookie(pin), h.cookie);
	assert_int_equal(dg_pin_handle_cookie(pin), 0);
	assert_int_equal(dg_pin_handle_cookie(NULL), 0);
	free(pin);
}

static void handle_sizes(void **state)
{
	unsigned char *big = caller(DMAGUARD_PIN_SIZE_VER0 + 16);
	struct dmaguard_pin *small = caller(DMAGUARD_PIN_SIZE_VER0 - 8);
	struct dg_pin_handle h = { .cookie = 0xe0, .nr_pages = 1 };

	assert_int_equal(dg_pin_handle_check(NULL), -EINVAL);
	assert_int_equal(dg_pin_handle_check(small), -EINVAL);
	/* no get fills it: a cookie of id 0, refused by the core */
	assert_int_equal(dg_pin_handle_cookie(small), 1ull << 32);
	assert_int_equal(dg_pin_handle_check((void *)big), 0);
	dg_pin_handle_out((void *)big, &h);
	assert_int_equal((uintptr_t)((struct dmaguard_pin *)big)->priv, h.cookie);
	assert_int_equal(big[DMAGUARD_PIN_SIZE_VER0 + 15], 0);
	big[DMAGUARD_PIN_SIZE_VER0 + 15] = 1;
	assert_int_equal(dg_pin_handle_check((void *)big), -E2BIG);
	*(__u32 *)big = DG_SZ_MAX + 1;
	assert_int_equal(dg_pin_handle_check((void *)big), -E2BIG);
	free(big);
	free(small);
}

static void stats_sizes(void **state)
{
	struct dg_pin_stats cs = {
		.hits = 1, .misses = 2, .invalidations = 3, .inval_ignored = 4,
		.evictions = 5, .retries = 6, .pinned_bytes = 7,
		.entries = 8, .entries_indexed = 9, .handles = 10,
		.bad_puts = 11, .prot_checks = 12,
	};
	struct dmaguard_pin_stats *st = caller(sizeof(*st));
	unsigned char *big = caller(sizeof(*st) + 8);

	assert_int_equal(dg_pin_stats_out(st, &cs), 0);
	assert_int_equal(st->sz, sizeof(*st));
	assert_int_equal(st->hits, 1);
	assert_int_equal(st->misses, 2);
	assert_int_equal(st->invalidations, 3);
	assert_int_equal(st->inval_ignored, 4);
	assert_int_equal(st->evictions, 5);
	assert_int_equal(st->retries, 6);
	assert_int_equal(st->pinned_bytes, 7);
	assert_int_equal(st->entries, 8);
	assert_int_equal(st->entries_indexed, 9);
	assert_int_equal(st->handles, 10);
	assert_int_equal(st->bad_puts, 11);
	assert_int_equal(st->prot_checks, 12);
	assert_int_equal(st->__reserved0, 0);
	/* a caller of v1.1 to v1.3: the first version's fields only */
	memset(st, 0, sizeof(*st));
	st->sz = DMAGUARD_PIN_STATS_SIZE_VER0;
	assert_int_equal(dg_pin_stats_out(st, &cs), 0);
	assert_int_equal(st->handles, 10);
	assert_int_equal(st->bad_puts, 0);
	st->sz = sizeof(*st);
	st->sz = DMAGUARD_PIN_STATS_SIZE_VER0 - 8;
	assert_int_equal(dg_pin_stats_out(st, &cs), -EINVAL);
	assert_int_equal(dg_pin_stats_out(NULL, &cs), -EINVAL);
	assert_int_equal(dg_pin_stats_out((void *)big, &cs), 0);
	big[sizeof(*st) + 3] = 1;
	assert_int_equal(dg_pin_stats_out((void *)big, &cs), -E2BIG);
	free(st);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(opts_sizes),
		cmocka_unit_test(handle_round_trip),
		cmocka_unit_test(handle_sizes),
		cmocka_unit_test(stats_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
