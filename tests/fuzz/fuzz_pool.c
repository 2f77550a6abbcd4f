// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the pool core, with a hostile device.
 *
 * The input drives a sequence of operations over up to three pools whose
 * geometry comes from the input too (invalid geometries included, to
 * exercise create's checks): alloc, legitimate free, misuse frees (double,
 * interior, foreign, wrong dma, arbitrary pointers into chunks), reclaim
 * with the clock moved, destroy and recreate, failure injection, and
 * init_on_alloc / init_on_free switched on and off.
 *
 * Between every two operations a simulated device (fuzz_device.c)
 * overwrites every byte of every chunk (dg_pool_for_each_chunk) with
 * input-derived data: random bytes, all-ones, zeros, or forged pointers
 * (into a decoy buffer, at live blocks, into the chunks themselves). The
 * pool must not care.
 *
 * Everything is checked against the reference model of pool_model.h: an
 * allocation is inside a chunk of its pool, at a block start, aligned, not
 * across a boundary, with dma the bus address of vaddr, not live and
 * not overlapping a live block, zeroed when it must be; every free gets the
 * model's verdict; stats, report counters and leak counters agree; the
 * decoy buffer is never written. A disagreement aborts (a crash for
 * libFuzzer), with a line on stderr saying what.
 *
 * This file decodes the input and drives the operations; fuzz_device.c
 * holds the device and the checks of DMA memory contents; fuzz_harness.h
 * the state they share.
 */
#include "fuzz_harness.h"

#define MAX_OPS		1500
/* Keep a pool's DMA memory small enough for fast scribbling. */
#define POOL_BYTES_CAP	(1536 * 1024ul)
#define NR_KINDS	18	/* operation kinds, see the switch below */

struct slot slots[NPOOLS];
static bool armed;		/* a failure injection is pending */
static unsigned long want_again, want_err;
unsigned long op_nr;
const char *op_name = "start";
static bool trace;		/* FUZZ_TRACE=1: one line per operation */

/* Index of the first byte of p[0..n) that is not @c, or -1. */
NOCOV static long first_not(const unsigned char *p, size_t n, unsigned char c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != c)
			return (long)i;
	return -1;
}

/* A live block of @m overlapping [v, v + m->size), or -1. */
NOCOV static long overlap(const struct model_pool *m, const unsigned char *v)
{
	unsigned int i;

	for (i = 0; i < m->nlive; i++)
		if (v < m->live[i].v + m->size && m->live[i].v < v + m->size)
			return (long)i;
	return -1;
}

/* Chunk snapshot into the model. */
static void chunk_cb(void *arg, void __dma *mem, size_t len, dma_addr_t dma)
{
	struct model_pool *m = arg;

	CHECK(m->nchunks < MODEL_MAX_CHUNKS, "too many chunks");
	m->chunks[m->nchunks].mem = (unsigned char *)mem;
	m->chunks[m->nchunks].len = len;
	m->chunks[m->nchunks].dma = dma;
	m->nchunks++;
}

static void snapshot(struct slot *s)
{
	s->m.nchunks = 0;
	dg_pool_for_each_chunk(s->pool, chunk_cb, &s->m);
}

static void scribble(struct input *in)
{
	scribble_mode(get8(in));
}

/* Everything the stats and counters must say about a pool. */
NOCOV static void check_pool(struct slot *s)
{
	struct dg_pool_stats st;
	unsigned int i;
	int b;

	dg_pool_get_stats(s->pool, &st);
	snapshot(s);
	CHECK(st.blocks_in_use == s->m.nlive, "in use %llu, model %u",
	      (unsigned long long)st.blocks_in_use, s->m.nlive);
	CHECK(st.chunks == s->m.nchunks, "chunks %u, walk %u", st.chunks,
	      s->m.nchunks);
	CHECK(st.size == s->m.size && st.stride == s->m.stride,
	      "geometry %u/%u", st.size, st.stride);
	CHECK(st.chunk_size == s->m.chunk_size, "chunk size changed");
	CHECK(st.blocks_total == (u64)st.chunks * st.blocks_per_chunk,
	      "blocks_total");
	CHECK(st.blocks_in_use <= st.blocks_total, "in use > total");
	CHECK(st.chunks_empty <= st.chunks, "empty > chunks");
	for (b = 1; b < DG_BAD_NR; b++)
		CHECK(st.bad_frees[b] == s->m.bad[b], "bad_frees[%d] %llu, model %llu",
		      b, (unsigned long long)st.bad_frees[b],
		      (unsigned long long)s->m.bad[b]);
	for (i = 0; i < s->m.nchunks; i++) {
		const struct model_chunk *c = &s->m.chunks[i];

		CHECK(c->len == st.chunk_size, "chunk len %zu", c->len);
		CHECK(c->dma == dg_user_bus_of(c->mem), "chunk dma");
	}
	/* every live block is still inside a chunk of its pool */
	for (i = 0; i < s->m.nlive; i++)
		CHECK(model_find_chunk(&s->m, s->m.live[i].v),
		      "live block %p lost its chunk", (void *)s->m.live[i].v);
}

static void check_counters(void)
{
	CHECK(dg_user_reports_again == want_again, "reports_again %lu, want %lu",
	      dg_user_reports_again, want_again);
	CHECK(dg_user_reports_err == want_err, "reports_err %lu, want %lu",
	      dg_user_reports_err, want_err);
}

static size_t pick_size(struct input *in)
{
	uint8_t mode = get8(in);

	switch (mode % 8) {
	case 0:
		return get8(in) % 64 + 1;
	case 1:
		return get16(in) % 4096 + 1;
	case 2:
		return 1ul << (get8(in) % 21);
	case 3:
		return get32(in) % (4u << 20);
	case 4:
		return mode & 0x80 ? 0 : 1;
	case 5:
		return get64(in);
	default:
		return get8(in) % 256 + 1;
	}
}

static size_t pick_pow2ish(struct input *in, size_t size)
{
	uint8_t mode = get8(in);

	switch (mode % 8) {
	case 0:
	case 1:
		return 0;
	case 2:
		return get16(in);		/* mostly not a power of two */
	case 3:
		return size ? 1ul << (63 - __builtin_clzl(size)) : 1;
	case 4:
		return size && size <= (1ul << 40) ? roundup_pow_of_two(size) : 1;
	default:
		return 1ul << (get8(in) % 23);
	}
}

static void op_create(struct slot *s, struct input *in);

NOCOV static void release_leaked(struct slot *s)
{
	unsigned int i, k;

	for (i = 0; i < s->m.nchunks; i++) {
		const struct model_chunk *c = &s->m.chunks[i];

		for (k = 0; k < s->m.nlive; k++)
			if (s->m.live[k].v >= c->mem &&
			    s->m.live[k].v < c->mem + c->len)
				break;
		if (k < s->m.nlive)
			dg_user_chunk_release(c->mem);
	}
}

static void op_destroy(struct slot *s)
{
	long chunks0 = dg_user_count.chunks_live;
	unsigned int with_live = 0, i, k, ret;
	struct dg_pool_stats st;

	if (!s->pool)
		return;
	snapshot(s);
	for (i = 0; i < s->m.nchunks; i++) {
		for (k = 0; k < s->m.nlive; k++)
			if (s->m.live[k].v >= s->m.chunks[i].mem &&
			    s->m.live[k].v < s->m.chunks[i].mem +
					     s->m.chunks[i].len)
				break;
		with_live += k < s->m.nlive;
	}
	dg_pool_get_stats(s->pool, &st);
	ret = dg_pool_destroy(s->pool);
	s->pool = NULL;
	CHECK(ret == s->m.nlive, "destroy returned %u, model %u live", ret,
	      s->m.nlive);
	if (ret)
		want_err++;
	CHECK(dg_user_count.chunks_live == chunks0 - (long)(s->m.nchunks -
							  with_live +
							  st.chunks_parked),
	      "destroy freed %ld chunks, want %u", chunks0 -
	      dg_user_count.chunks_live,
	      s->m.nchunks - with_live + st.chunks_parked);
	/* the live blocks' memory is still there: the driver may touch it */
	for (k = 0; k < s->m.nlive; k++)
		memset(s->m.live[k].v, 0x6b, s->m.size);
	release_leaked(s);
	s->m.used = false;
	s->m.nlive = 0;
}

static void op_create(struct slot *s, struct input *in)
{
	size_t size, align, boundary;
	const char *name = "fz";
	struct dg_pool_params p;
	struct dg_pool_stats st;
	bool valid;

	op_destroy(s);
	size = pick_size(in);
	align = pick_pow2ish(in, get8(in) % 4 ? 8 : size);
	boundary = pick_pow2ish(in, size);
	if (get8(in) == 0xff)
		name = NULL;
	valid = model_params_valid(name, size, align, boundary);
	p = (struct dg_pool_params){
		.name = name, .size = size, .align = align,
		.boundary = boundary, .node = DG_NO_NODE,
	};
	s->pool = dg_pool_create(&p);
	if (trace)
		fprintf(stderr, "  create(%zu, %zu, %zu) -> %p\n", size, align,
			boundary, (void *)s->pool);
	if (!valid) {
		CHECK(!s->pool, "invalid create accepted: size %zu align %zu boundary %zu",
		      size, align, boundary);
		want_err++;
		return;
	}
	if (!s->pool) {
		CHECK(armed, "valid create failed: size %zu align %zu boundary %zu",
		      size, align, boundary);
		armed = false;
		dg_user_fail_nth_alloc(0);
		return;
	}
	dg_pool_get_stats(s->pool, &st);
	model_init(&s->m, size, align, boundary, st.chunk_size);
	CHECK(st.chunk_size >= size && model_pow2(st.chunk_size),
	      "chunk size %u", st.chunk_size);
	CHECK(st.blocks_per_chunk ==
	      model_blocks_per_chunk(&s->m, st.chunk_size),
	      "blocks per chunk %u, model %zu", st.blocks_per_chunk,
	      model_blocks_per_chunk(&s->m, st.chunk_size));
}

static void op_alloc(struct slot *s, struct input *in)
{
	struct model_pool *m = &s->m;
	uint8_t f = get8(in);
	gfp_t gfp = (f & 1 ? GFP_ATOMIC : GFP_KERNEL) |
		    (f & 2 ? __GFP_ZERO : 0);
	bool zero = dg_user_init_on_alloc || (gfp & __GFP_ZERO);
	const struct model_chunk *c;
	struct dg_pool_stats st;
	unsigned char *v;
	dma_addr_t dma = 0;
	size_t off, i;

	if (m->nlive >= MODEL_MAX_LIVE)
		return;
	dg_pool_get_stats(s->pool, &st);
	if (st.blocks_in_use == st.blocks_total &&
	    (u64)(st.chunks + 1) * st.chunk_size > POOL_BYTES_CAP &&
	    (st.chunks || st.chunk_size > POOL_BYTES_CAP))
		return;
	v = (unsigned char *)dg_pool_alloc(s->pool, gfp, &dma);
	{
		struct allowed z = { v, v ? m->stride : 0 };

		verify_untouched(NULL, &z);
	}
	if (!v) {
		CHECK(armed, "alloc failed without an injected failure");
		armed = false;
		dg_user_fail_nth_alloc(0);
		return;
	}
	snapshot(s);
	c = model_find_chunk(m, v);
	CHECK(c, "alloc returned %p, outside every chunk", (void *)v);
	off = (size_t)(v - c->mem);
	CHECK(off + m->size <= c->len, "block runs past its chunk");
	CHECK(model_is_block(m, off, c->len), "alloc returned offset %zu, not a block start",
	      off);
	CHECK(dma == dg_user_bus_of(v), "dma %llx for %p",
	      (unsigned long long)dma, (void *)v);
	CHECK(dma == c->dma + off, "dma not chunk dma + offset");
	/* Bus address aligned; CPU address up to a page (pool.h). */
	CHECK((uintptr_t)v % min(m->align, DG_PAGE_SIZE) == 0 &&
	      dma % m->align == 0, "misaligned block");
	if (m->boundary)
		CHECK(dma / m->boundary == (dma + m->size - 1) / m->boundary,
		      "block crosses a boundary");
	i = (size_t)overlap(m, v);
	CHECK(i == (size_t)-1, "alloc returned %p, overlapping live block %p",
	      (void *)v, (void *)m->live[i].v);
	if (zero)
		CHECK(first_not(v, m->size, 0) < 0, "block not zeroed (byte %ld)",
		      first_not(v, m->size, 0));
	/* the driver writes its data */
	memset(v, 0x3d, m->size);
	model_add_live(m, v, dma);
}

/*
 * Free (@v, @dma) and compare with the model's verdict. The bytes at @v
 * (when inside a chunk) are painted first: a rejected free must not write
 * them, an accepted one zeroes them only under init_on_free.
 */
static void expect_free(struct slot *s, void *v, dma_addr_t dma)
{
	struct model_pool *m = &s->m;
	const struct model_chunk *c;
	enum dg_bad_free want, got;
	unsigned char *p = v, paint;
	size_t len = 0;
	int k;

	snapshot(s);
	want = model_classify(m, v, dma);
	c = model_find_chunk(m, v);
	if (c) {
		len = (size_t)(c->mem + c->len - p);
		len = len < m->size ? len : m->size;
		memset(p, 0x77, len);
	}
	got = dg_pool_free(s->pool, v, dma);
	{
		struct allowed pt = { p, len };
		struct allowed z = { p, got == DG_FREE_OK ? m->stride : 0 };

		verify_untouched(&pt, &z);
	}
	if (trace)
		fprintf(stderr, "  free(%p, %llx) -> %d\n", v,
			(unsigned long long)dma, got);
	CHECK(got == want, "free(%p, %llx) gave %d, model says %d", v,
	      (unsigned long long)dma, got, want);
	paint = got == DG_FREE_OK && dg_user_init_on_free ? 0 : 0x77;
	CHECK(first_not(p, len, paint) < 0,
	      "free (verdict %d, init_on_free %d): byte %ld is not %#x", got,
	      dg_user_init_on_free, first_not(p, len, paint), paint);
	if (got == DG_FREE_OK) {
		k = model_live_index(m, v);
		model_remove_live(m, (unsigned int)k);
		return;
	}
	m->bad[got]++;
	if (m->reported) {
		want_again++;
	} else {
		want_err++;
		m->reported = true;
	}
}

static void op_free(struct slot *s, struct input *in)
{
	uint16_t k = get16(in);

	if (!s->m.nlive)
		return;
	k %= s->m.nlive;
	expect_free(s, s->m.live[k].v, s->m.live[k].dma);
}

static void op_bad_double(struct slot *s, struct input *in)
{
	unsigned int n = s->m.nfreed < MODEL_MAX_FREED ? s->m.nfreed :
			 MODEL_MAX_FREED;
	struct model_blk b;

	if (!n)
		return;
	b = s->m.freed[get8(in) % n];
	expect_free(s, b.v, b.dma);
}

static void op_bad_interior(struct slot *s, struct input *in)
{
	uint32_t d = get32(in);
	struct model_blk b;

	if (!s->m.nlive)
		return;
	b = s->m.live[(d >> 16) % s->m.nlive];
	d = (d & 0xffff) % (s->m.stride > 1 ? s->m.stride - 1 : 1) + 1;
	expect_free(s, b.v + d, get8(in) & 1 ? b.dma : b.dma + d);
}

static void op_bad_foreign(struct slot *s, struct input *in)
{
	uint8_t mode = get8(in);
	const struct slot *o = &slots[(mode >> 4) % NPOOLS];
	unsigned char local[16];
	void *v;

	switch ((mode & 0xf) % 6) {
	case 0:
		v = NULL;
		break;
	case 1:
		v = decoy + get16(in) % DECOY_SIZE;
		break;
	case 2:
		v = local;
		break;
	case 3:
		if (o->pool && o->m.nlive) {
			v = o->m.live[get16(in) % o->m.nlive].v;
			break;
		}
		v = decoy;
		break;
	case 4:
		v = (void *)(uintptr_t)get64(in);
		break;
	default:
		v = (void *)(uintptr_t)forged_word(get64(in));
		break;
	}
	expect_free(s, v, dg_user_bus_of(v));
}

static void op_bad_dma(struct slot *s, struct input *in)
{
	uint64_t x = get64(in);
	struct model_blk b;

	if (!s->m.nlive)
		return;
	b = s->m.live[(x >> 48) % s->m.nlive];
	x &= 0xffffffffffffull;
	expect_free(s, b.v, b.dma ^ (x ? x : 1));
}

/* Any pointer into any chunk, with a right or wrong dma: model decides. */
static void op_free_anywhere(struct slot *s, struct input *in)
{
	uint32_t r = get32(in);
	uint8_t how = get8(in);
	const struct model_chunk *c;
	size_t off;
	dma_addr_t dma;

	snapshot(s);
	if (!s->m.nchunks)
		return;
	c = &s->m.chunks[r % s->m.nchunks];
	off = (r >> 8) % c->len;
	if (how & 1)	/* snap to a multiple of the stride */
		off -= off % s->m.stride;
	dma = c->dma + off;
	if (how & 2)
		dma += (how >> 2) + 1;
	expect_free(s, c->mem + off, dma);
}

static void op_reclaim(struct slot *s, struct input *in)
{
	unsigned long min_age;
	unsigned int keep, n;
	struct dg_pool_stats a, b;
	long chunks0 = dg_user_count.chunks_live;

	dg_user_ticks += get8(in);
	min_age = get8(in) % 64;
	if (min_age > 48)
		min_age = 0;
	keep = get8(in) % 4;
	/* Reclaim drains the CPUs' caches first; count after that. */
	dg_pool_drain(s->pool);
	dg_pool_get_stats(s->pool, &a);
	n = dg_pool_reclaim(s->pool, min_age, keep);
	verify_untouched(NULL, NULL);
	dg_pool_get_stats(s->pool, &b);
	CHECK(n <= a.chunks_empty, "released %u of %u empty", n,
	      a.chunks_empty);
	CHECK(b.chunks == a.chunks - n && b.chunks_empty == a.chunks_empty - n,
	      "chunk counts after reclaim");
	CHECK(b.chunks_released == a.chunks_released + n, "chunks_released");
	/* Parked allocations (atomic callers could not free them) go too. */
	CHECK(b.chunks_parked == 0, "reclaim left %u parked", b.chunks_parked);
	CHECK(dg_user_count.chunks_live == chunks0 - (long)(n + a.chunks_parked),
	      "reclaim freed %ld chunks, said %u (+%u parked)",
	      chunks0 - dg_user_count.chunks_live, n, a.chunks_parked);
	CHECK(b.chunks_empty >= (keep < a.chunks_empty ? keep : a.chunks_empty),
	      "reclaim kept %u empty chunks, keep %u", b.chunks_empty, keep);
	if (!min_age)
		CHECK(b.chunks_empty ==
		      (keep < a.chunks_empty ? keep : a.chunks_empty),
		      "reclaim(0, %u) left %u of %u empty chunks", keep,
		      b.chunks_empty, a.chunks_empty);
}

static void reset_all(void)
{
	int k;

	for (k = 0; k < NPOOLS; k++)
		op_destroy(&slots[k]);
	armed = false;
	dg_user_fail_nth_alloc(0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	dg_user_verbose = getenv("DG_VERBOSE") != NULL;
	trace = getenv("FUZZ_TRACE") != NULL;
	decoy_fill();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct slot *s;
	uint8_t op, kind;
	int k;

	want_again = dg_user_reports_again;
	want_err = dg_user_reports_err;
	dg_user_init_on_alloc = true;
	dg_user_init_on_free = false;
	dg_user_ticks = 1000;
	op_nr = 0;
	op_name = "create0";
	op_create(&slots[0], &in);

	for (op_nr = 1; in.n && op_nr < MAX_OPS; op_nr++) {
		op = get8(&in);
		s = &slots[(op >> 5) % NPOOLS];
		kind = (op & 0x1f) % NR_KINDS;
		if (!s->pool && kind != 15)
			kind = 15;		/* create it first */
		switch (kind) {
		case 0: case 1: case 2: case 3:
			op_name = "alloc";
			op_alloc(s, &in);
			break;
		case 4: case 5: case 6:
			op_name = "free";
			op_free(s, &in);
			break;
		case 7:
			op_name = "double";
			op_bad_double(s, &in);
			break;
		case 8:
			op_name = "interior";
			op_bad_interior(s, &in);
			break;
		case 9:
			op_name = "foreign";
			op_bad_foreign(s, &in);
			break;
		case 10:
			op_name = "wrong_dma";
			op_bad_dma(s, &in);
			break;
		case 11:
			op_name = "anywhere";
			op_free_anywhere(s, &in);
			break;
		case 12:
			op_name = "reclaim";
			op_reclaim(s, &in);
			break;
		case 13:
			op_name = "inject";
			k = get8(&in);
			if (k & 1) {
				armed = true;
				dg_user_fail_nth_alloc(1 + get8(&in) % 8);
			} else if (k & 2) {
				dg_user_init_on_free = !dg_user_init_on_free;
			} else {
				dg_user_init_on_alloc = !dg_user_init_on_alloc;
			}
			break;
		case 14:
			op_name = "destroy";
			op_destroy(s);
			break;
		case 16:
			op_name = "alloc_many";
			for (k = get8(&in) % 64 + 1; k > 0; k--) {
				op_alloc(s, &in);
				scribble_mode((uint8_t)(op_nr + k));
			}
			break;
		case 17:
			op_name = "free_many";
			for (k = get8(&in) % 64 + 1; k > 0 && s->m.nlive; k--) {
				op_free(s, &in);
				scribble_mode((uint8_t)(op_nr + k));
			}
			break;
		default:
			op_name = "create";
			op_create(s, &in);
			break;
		}
		if (trace)
			fprintf(stderr, "op %lu %s slot %ld: %s, %u live\n",
				op_nr, op_name, (long)(s - slots),
				s->pool ? "pool" : "no pool", s->m.nlive);
		op_name = "check";
		for (k = 0; k < NPOOLS; k++)
			if (slots[k].pool)
				check_pool(&slots[k]);
		check_counters();
		decoy_check();
		op_name = "scribble";
		scribble(&in);
	}
	op_name = "teardown";
	reset_all();
	check_counters();
	CHECK(dg_user_count.meta_live == 0, "meta_live %ld after teardown",
	      dg_user_count.meta_live);
	CHECK(dg_user_count.chunks_live == 0, "chunks_live %ld after teardown",
	      dg_user_count.chunks_live);
	CHECK(dg_user_count.chunk_bytes_live == 0, "chunk_bytes_live %ld",
	      dg_user_count.chunk_bytes_live);
	return 0;
}
