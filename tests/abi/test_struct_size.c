// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the size-carrying struct rules (abi/shim/dg_struct_size.c)
 * and of the pool translation built on them (abi/shim/dg_pool_conv.c), in
 * userspace under ASan+UBSan. Every caller struct lives in a heap buffer of
 * exactly the size the caller claims, so any read or write past it is an
 * ASan error, not a silent pass.
 *
 * Cases, for both directions (options in, stats out):
 *   equal size; smaller (older) struct zero-extended; smaller than
 *   version 0 -> -EINVAL; larger (newer) with zero tail accepted; larger
 *   with a non-zero byte anywhere in the unknown tail -> -E2BIG; errors
 *   leave the destination untouched; absurd sizes refused.
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
#include "dg_pool_conv.h"
#include "dg_user.h"

/* A module's view of a struct: version 0 is 16 bytes, current 24. */
#define V0	16
#define CUR	24

static unsigned char *filled(size_t n, unsigned char seed)
{
	unsigned char *p = malloc(n ? n : 1);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i + 1);
	return p;
}

static void assert_bytes(const unsigned char *p, size_t from, size_t to,
			 unsigned char v)
{
	for (; from < to; from++)
		assert_int_equal(p[from], v);
}

/* ---- copy in: the caller's struct into the module's ---- */

static void in_equal_size(void **state)
{
	unsigned char *src = filled(CUR, 1), dst[CUR];

	memset(dst, 0xaa, sizeof(dst));
	assert_int_equal(dg_struct_copy_in(dst, CUR, src, CUR, V0), 0);
	assert_memory_equal(dst, src, CUR);
	free(src);
}

static void in_older_zero_extended(void **state)
{
	size_t n;

	/* Every size from version 0 up to the current one. */
	for (n = V0; n <= CUR; n++) {
		unsigned char *src = filled(n, 7), dst[CUR];

		memset(dst, 0xaa, sizeof(dst));
		assert_int_equal(dg_struct_copy_in(dst, CUR, src, n, V0), 0);
		assert_memory_equal(dst, src, n);
		assert_bytes(dst, n, CUR, 0);
		free(src);
	}
}

static void in_smaller_than_ver0(void **state)
{
	size_t n;

	for (n = 0; n < V0; n++) {
		unsigned char *src = filled(n, 3), dst[CUR];

		memset(dst, 0xaa, sizeof(dst));
		assert_int_equal(dg_struct_copy_in(dst, CUR, src, n, V0),
				 -EINVAL);
		assert_bytes(dst, 0, CUR, 0xaa);
		free(src);
	}
}

static void in_newer_zero_tail(void **state)
{
	size_t n;

	for (n = CUR + 1; n <= CUR + 64; n++) {
		unsigned char *src = filled(n, 5), dst[CUR];

		memset(src + CUR, 0, n - CUR);
		memset(dst, 0xaa, sizeof(dst));
		assert_int_equal(dg_struct_copy_in(dst, CUR, src, n, V0), 0);
		assert_memory_equal(dst, src, CUR);
		free(src);
	}
}

static void in_newer_nonzero_tail(void **state)
{
	size_t n = CUR + 40, bad;

	/* One non-zero byte, at every position of the unknown tail. */
	for (bad = CUR; bad < n; bad++) {
		unsigned char *src = filled(n, 9), dst[CUR];

		memset(src + CUR, 0, n - CUR);
		src[bad] = 0x01;
		memset(dst, 0xaa, sizeof(dst));
		assert_int_equal(dg_struct_copy_in(dst, CUR, src, n, V0),
				 -E2BIG);
		assert_bytes(dst, 0, CUR, 0xaa);
		free(src);
	}
}

static void in_absurd_size(void **state)
{
	unsigned char src[CUR] = { 0 }, dst[CUR];

	/* Refused before a single byte past the struct is read. */
	assert_int_equal(dg_struct_copy_in(dst, CUR, src, DG_SZ_MAX + 1, V0),
			 -E2BIG);
	assert_int_equal(dg_struct_copy_in(dst, CUR, src, 0xffffffffu, V0),
			 -E2BIG);
}

/* ---- copy out: the module's struct into the caller's ---- */

static void out_equal_size(void **state)
{
	unsigned char *dst = calloc(1, CUR), *src = filled(CUR, 2);

	assert_int_equal(dg_struct_copy_out(dst, CUR, src, CUR, V0), 0);
	assert_memory_equal(dst, src, CUR);
	free(dst);
	free(src);
}

static void out_older_prefix_only(void **state)
{
	size_t n;

	for (n = V0; n < CUR; n++) {
		unsigned char *dst = calloc(1, n), *src = filled(CUR, 4);

		/* ASan: dst is exactly n bytes; nothing may land past it. */
		assert_int_equal(dg_struct_copy_out(dst, n, src, CUR, V0), 0);
		assert_memory_equal(dst, src, n);
		free(dst);
		free(src);
	}
}

static void out_smaller_than_ver0(void **state)
{
	size_t n;

	for (n = 0; n < V0; n++) {
		unsigned char *dst = malloc(n ? n : 1), *src = filled(CUR, 4);

		memset(dst, 0xaa, n);
		assert_int_equal(dg_struct_copy_out(dst, n, src, CUR, V0),
				 -EINVAL);
		assert_bytes(dst, 0, n, 0xaa);
		free(dst);
		free(src);
	}
}

static void out_newer_zero_tail(void **state)
{
	size_t n = CUR + 32;
	unsigned char *dst = calloc(1, n), *src = filled(CUR, 6);

	assert_int_equal(dg_struct_copy_out(dst, n, src, CUR, V0), 0);
	assert_memory_equal(dst, src, CUR);
	assert_bytes(dst, CUR, n, 0);
	free(dst);
	free(src);
}

static void out_newer_nonzero_tail(void **state)
{
	size_t n = CUR + 32, bad;

	for (bad = CUR; bad < n; bad++) {
		unsigned char *dst = calloc(1, n), *src = filled(CUR, 6);

		dst[bad] = 0x80;
		assert_int_equal(dg_struct_copy_out(dst, n, src, CUR, V0),
				 -E2BIG);
		assert_bytes(dst, 0, bad, 0);
		free(dst);
		free(src);
	}
}

/* ---- the pool options: the real struct through dg_pool_opts_in() ---- */

/* A "v1.1" caller: the v1.0 struct plus a field this module does not know. */
struct opts_next {
	struct dmaguard_pool_opts v0;
	__aligned_u64 future;
};

static struct dmaguard_pool_opts *opts_of(size_t sz)
{
	struct dmaguard_pool_opts *o = calloc(1, sz);

	assert_non_null(o);
	/* Only touch the fields that fit in sz bytes. */
	o->sz = (__u32)sz;
	if (sz >= offsetof(struct dmaguard_pool_opts, size) + 8)
		o->size = 64;
	if (sz >= sizeof(o->name) + offsetof(struct dmaguard_pool_opts, name))
		o->name = "t";
	return o;
}

static void opts_current(void **state)
{
	DMAGUARD_OPTS(dmaguard_pool_opts, in, .name = "p", .size = 64,
		      .align = 64, .boundary = 4096);
	struct dmaguard_pool_opts o;
	struct dg_pool_params p;
	const char *why;

	assert_int_equal(in.sz, DMAGUARD_POOL_OPTS_SIZE_VER0);
	assert_int_equal(dg_pool_opts_in(&o, &in, &why), 0);
	dg_pool_opts_params(&o, (void *)0x1, 3, &p);
	assert_string_equal(p.name, "p");
	assert_int_equal(p.size, 64);
	assert_int_equal(p.align, 64);
	assert_int_equal(p.boundary, 4096);
	assert_int_equal(p.node, 3);	/* no DMAGUARD_POOL_F_NODE: default */
	assert_ptr_equal(p.dev, (void *)0x1);

	in.flags = DMAGUARD_POOL_F_NODE;
	in.node = -1;
	assert_int_equal(dg_pool_opts_in(&o, &in, &why), 0);
	dg_pool_opts_params(&o, NULL, 3, &p);
	assert_int_equal(p.node, -1);
}

static void opts_too_small(void **state)
{
	size_t n;

	for (n = 4; n < DMAGUARD_POOL_OPTS_SIZE_VER0; n += 4) {
		struct dmaguard_pool_opts *in = opts_of(n), o;
		const char *why;

		assert_int_equal(dg_pool_opts_in(&o, in, &why), -EINVAL);
		assert_non_null(why);
		free(in);
	}
}

static void opts_newer(void **state)
{
	struct opts_next *in = calloc(1, sizeof(*in));
	struct dmaguard_pool_opts o;
	const char *why;

	in->v0.sz = sizeof(*in);
	in->v0.name = "n";
	in->v0.size = 32;
	assert_int_equal(dg_pool_opts_in(&o, &in->v0, &why), 0);
	assert_int_equal(o.size, 32);
	in->future = 1;
	assert_int_equal(dg_pool_opts_in(&o, &in->v0, &why), -E2BIG);
	free(in);
}

static void opts_bad_fields(void **state)
{
	DMAGUARD_OPTS(dmaguard_pool_opts, in, .name = "p", .size = 64);
	struct dmaguard_pool_opts o;
	const char *why;

	assert_int_equal(dg_pool_opts_in(&o, NULL, &why), -EINVAL);
	in.flags = 0x80000000u;
	assert_int_equal(dg_pool_opts_in(&o, &in, &why), -EINVAL);
	assert_string_equal(why, "unknown flag in opts->flags");
	in.flags = 0;
	in.__reserved0 = 1;
	assert_int_equal(dg_pool_opts_in(&o, &in, &why), -EINVAL);
	assert_string_equal(why, "reserved field of opts not zero");
}

/* ---- the pool stats: a real pool of the userspace core ---- */

struct stats_next {
	struct dmaguard_pool_stats v0;
	__aligned_u64 future[3];
};

static struct dg_pool *mkpool(void)
{
	struct dg_pool_params p = {
		.name = "abi-stats", .dev = NULL, .size = 64, .align = 64,
		.boundary = 0, .node = -1,
	};
	struct dg_pool *pool = dg_pool_create(&p);

	assert_non_null(pool);
	return pool;
}

static void stats_fields(void **state)
{
	struct dg_pool *pool = mkpool();
	struct dmaguard_pool_stats *st = calloc(1, sizeof(*st));
	struct dg_pool_stats cs;
	void __dma *b[3];
	dma_addr_t d[3];
	int i;

	for (i = 0; i < 3; i++)
		assert_non_null(b[i] = dg_pool_alloc(pool, GFP_KERNEL, &d[i]));
	dg_pool_free(pool, b[2], d[2]);
	dg_user_verbose = 0;
	dg_pool_free(pool, b[2], d[2]);			/* double */
	dg_pool_free(pool, b[1], d[1] + 1);		/* wrong dma */
	dg_pool_free(pool, (void __dma *)((char __force *)b[0] + 1), d[0] + 1);
	dg_pool_get_stats(pool, &cs);

	st->sz = sizeof(*st);
	assert_int_equal(dg_pool_stats_out(st, &cs), 0);
	assert_int_equal(st->sz, sizeof(*st));
	assert_int_equal(st->block_size, 64);
	assert_int_equal(st->stride, 64);
	assert_int_equal(st->chunk_size, cs.chunk_size);
	assert_int_equal(st->blocks_per_chunk, cs.blocks_per_chunk);
	assert_int_equal(st->blocks_in_use, 2);
	assert_int_equal(st->blocks_total, cs.blocks_total);
	assert_int_equal(st->chunks, 1);
	assert_int_equal(st->chunks_allocated, 1);
	assert_int_equal(st->meta_bytes, cs.meta_bytes);
	assert_true(st->meta_bytes > 0);
	assert_int_equal(st->bad_free_double, 1);
	assert_int_equal(st->bad_free_dma, 1);
	assert_int_equal(st->bad_free_misaligned, 1);
	assert_int_equal(st->bad_free_foreign, 0);
	assert_int_equal(st->__reserved0, 0);

	dg_pool_free(pool, b[0], d[0]);
	dg_pool_free(pool, b[1], d[1]);
	assert_int_equal(dg_pool_destroy(pool), 0);
	free(st);
}

static void stats_sizes(void **state)
{
	struct dg_pool *pool = mkpool();
	struct dg_pool_stats cs;
	struct stats_next *big = calloc(1, sizeof(*big));
	struct dmaguard_pool_stats *st;
	size_t n;

	dg_pool_get_stats(pool, &cs);

	/* Smaller than version 0: refused, untouched. */
	for (n = 4; n < DMAGUARD_POOL_STATS_SIZE_VER0; n += 4) {
		st = calloc(1, n);
		st->sz = (__u32)n;
		assert_int_equal(dg_pool_stats_out(st, &cs), -EINVAL);
		assert_int_equal(st->sz, n);
		free(st);
	}
	assert_int_equal(dg_pool_stats_out(NULL, &cs), -EINVAL);

	/* Newer caller, zero tail: filled, tail stays zero, sz kept. */
	big->v0.sz = sizeof(*big);
	assert_int_equal(dg_pool_stats_out(&big->v0, &cs), 0);
	assert_int_equal(big->v0.sz, sizeof(*big));
	assert_int_equal(big->v0.block_size, 64);
	assert_int_equal(big->future[0] | big->future[1] | big->future[2], 0);

	/* Newer caller, garbage in the tail: refused, untouched. */
	memset(big, 0, sizeof(*big));
	big->v0.sz = sizeof(*big);
	big->future[2] = 42;
	assert_int_equal(dg_pool_stats_out(&big->v0, &cs), -E2BIG);
	assert_int_equal(big->v0.block_size, 0);

	assert_int_equal(dg_pool_destroy(pool), 0);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(in_equal_size),
		cmocka_unit_test(in_older_zero_extended),
		cmocka_unit_test(in_smaller_than_ver0),
		cmocka_unit_test(in_newer_zero_tail),
		cmocka_unit_test(in_newer_nonzero_tail),
		cmocka_unit_test(in_absurd_size),
		cmocka_unit_test(out_equal_size),
		cmocka_unit_test(out_older_prefix_only),
		cmocka_unit_test(out_smaller_than_ver0),
		cmocka_unit_test(out_newer_zero_tail),
		cmocka_unit_test(out_newer_nonzero_tail),
		cmocka_unit_test(opts_current),
		cmocka_unit_test(opts_too_small),
		cmocka_unit_test(opts_newer),
		cmocka_unit_test(opts_bad_fields),
		cmocka_unit_test(stats_fields),
		cmocka_unit_test(stats_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
