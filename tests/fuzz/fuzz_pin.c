// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the pin cache core, over the simulated mm.
 *
 * The input drives gets (good and bad ranges, read and write), puts in
 * any order, mapping changes (mmap, munmap, mprotect, MADV_DONTNEED, NUMA
 * hints: each through the mm's notifiers), device and process accesses,
 * evictions, reaps, a pinned_vm limit, pin failure injection, and cache
 * re-creation with new budgets (also with handles held: the destroy must
 * count them, and their puts release them). Checked against pin_model.h
 * after every operation: each get's answer; each handle's pages are the
 * frames mapped while no invalidation came since its get, and stay alive
 * and pinned (writably for a write get) until its put; the cache's own
 * invariants (dg_pin_cache_check()); and at the end, with every handle
 * put and the cache destroyed, no pin, charge, mapping, notifier or
 * bookkeeping allocation is left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dg_user.h"
#include "pin_model.h"
#include "fuzz_input.h"

#define MAX_OPS		400
#define NOCOV		__attribute__((no_sanitize("coverage"), __noinline__))

static unsigned long op_nr;
static const char *op_name = "start";
static struct dg_user_mm *mm;
static struct dg_pin_cache *cache;
static struct pin_model m;
static int dev_cookie;
static bool use_dev;

#define CHECK(cond, ...)	FUZZ_CHECK("fuzz_pin", cond, __VA_ARGS__)

static void new_cache(void)
{
	struct dg_pin_params p = {
		.mm = mm, .dev = use_dev ? &dev_cookie : NULL,
		.max_bytes = m.max_bytes, .max_entries = m.max_entries,
		.node = DG_NO_NODE,
	};

	cache = dg_pin_cache_create(&p);
	CHECK(cache, "create failed");
}

/* Every handle held: pages alive and pinned, current while seq unmoved. */
NOCOV static void check_handles(void)
{
	unsigned int i, k;

	for (i = 0; i < m.nheld; i++) {
		const struct model_handle *mh = &m.held[i];
		unsigned long page = (mh->addr - DG_USER_MM_BASE) / DG_PAGE_SIZE;

		for (k = 0; k < mh->h.nr_pages; k++) {
			struct dg_user_frame *f = mh->h.pages[k];

			CHECK(f->pins > 0, "handle %u page %u not pinned", i, k);
			CHECK(!mh->write || f->write_pins > 0,
			      "write handle %u page %u pinned read-only", i, k);
			CHECK(mm->seq != mh->seq || f == mm->pt[page + k].frame,
			      "handle %u page %u is not the mapped frame", i, k);
		}
	}
}

NOCOV static void check_all(void)
{
	struct dg_pin_stats st;

	dg_pin_cache_check(cache);
	dg_pin_get_stats(cache, &st);
	CHECK(st.handles == m.nheld, "handles %llu, model %u",
	      (unsigned long long)st.handles, m.nheld);
	CHECK(st.entries_indexed <= st.entries, "indexed > entries");
	CHECK((u64)mm->pinned_vm * DG_PAGE_SIZE == st.pinned_bytes,
	      "pinned_vm %ld pages, cache %llu bytes", mm->pinned_vm,
	      (unsigned long long)st.pinned_bytes);
	CHECK(mm->maps_live <= (long)st.entries, "maps %ld", mm->maps_live);
	check_handles();
}

static void pick_range(struct input *in, unsigned long *addr, size_t *len)
{
	uint8_t mode = get8(in);

	*addr = dg_user_mm_addr(get8(in) % MODEL_PAGES) + get16(in) % DG_PAGE_SIZE;
	switch (mode % 8) {
	case 0:
		*len = 0;
		break;
	case 1:		/* wraps, or past the end of the mm */
		*addr = ~0ul - get16(in);
		*len = get16(in) + 1;
		break;
	case 2:
		*len = (size_t)get16(in) * DG_PAGE_SIZE;
		break;
	case 3:
		*addr = get16(in);	/* a "kernel" or unmapped address */
		*len = get8(in) + 1;
		break;
	default:
		*len = 1 + get16(in) % (6 * DG_PAGE_SIZE);
		break;
	}
}

static void op_get(struct input *in)
{
	struct model_handle mh;
	bool write = get8(in) & 1, acc;
	int err, want;

	op_name = "get";
	pick_range(in, &mh.addr, &mh.len);
	mh.write = write;
	mh.seq = mm->seq;
	want = model_input_errno(&m, mh.addr, mh.len);
	acc = want == 1 && model_accessible(mm, mh.addr, mh.len, write);
	err = dg_pin_get(cache, mh.addr, mh.len, write, &mh.h);
	if (want != 1) {
		CHECK(err == want, "err %d, want %d", err, want);
	} else if (err) {
		CHECK(model_may_fail(&m, err, acc), "err %d (accessible %d)",
		      err, acc);
	} else {
		CHECK(acc, "success on a range a fresh pin would refuse");
	}
	if (m.inject) {
		m.inject = false;
		mm->fail_page = ULONG_MAX;
	}
	if (err)
		return;
	CHECK(mh.h.offset == mh.addr % DG_PAGE_SIZE, "offset");
	CHECK(mh.h.nr_pages == (mh.h.offset + mh.len + DG_PAGE_SIZE - 1) /
	      DG_PAGE_SIZE, "nr_pages");
	CHECK(!use_dev || mh.h.map, "no mapping");
	if (m.nheld == MODEL_HANDLES) {
		dg_pin_put(cache, &mh.h);
		return;
	}
	m.held[m.nheld++] = mh;
}

static void op_put(struct input *in)
{
	unsigned int i;

	op_name = "put";
	if (!m.nheld)
		return;
	i = get8(in) % m.nheld;
	dg_pin_put(cache, &m.held[i].h);
	m.held[i] = m.held[--m.nheld];
}

static void op_change(struct input *in, int kind)
{
	unsigned long addr = dg_user_mm_addr(get8(in) % MODEL_PAGES);
	size_t len = (get8(in) % 8 + 1) * DG_PAGE_SIZE;
	int prot = get8(in) % 4;

	if (addr + len > dg_user_mm_addr(MODEL_PAGES))
		len = dg_user_mm_addr(MODEL_PAGES) - addr;
	switch (kind) {
	case 0:
		op_name = "mmap";
		dg_user_mm_map(mm, addr, len, prot);
		break;
	case 1:
		op_name = "munmap";
		dg_user_mm_unmap(mm, addr, len);
		break;
	case 2:
		op_name = "mprotect";
		dg_user_mm_protect(mm, addr, len, prot);
		break;
	case 3:
		op_name = "dontneed";
		dg_user_mm_dontneed(mm, addr, len);
		break;
	case 4:
		op_name = "numa_hint";
		dg_user_mm_numa_hint(mm, addr, len);
		break;
	default:
		op_name = "fork";
		dg_user_mm_fork(mm, addr, len);
		break;
	}
}

/* The device writes through a handle; the process must see it if current. */
NOCOV static void op_dma(struct input *in)
{
	struct model_handle *mh;
	unsigned char v = get8(in), got;

	op_name = "dma";
	if (!m.nheld)
		return;
	mh = &m.held[get8(in) % m.nheld];
	((struct dg_user_frame *)mh->h.pages[0])->data[mh->h.offset] = v;
	/* mprotect() may have made it unreadable: the mapping is the same */
	if (mm->seq == mh->seq && !dg_user_mm_read(mm, mh->addr, &got, 1))
		CHECK(got == v, "process reads %#x, device wrote %#x", got, v);
}

static void op_recreate(struct input *in)
{
	unsigned long held;

	op_name = "recreate";
	held = dg_pin_cache_destroy(cache);
	CHECK(held == m.nheld, "destroy says %lu held, model %u", held,
	      m.nheld);
	/* the handles stay valid until put; put them now */
	while (m.nheld) {
		check_handles();
		dg_pin_put(cache, &m.held[--m.nheld].h);
	}
	/* the last puts handed their entries (and the cache) to the reap */
	dg_user_run_work();
	CHECK(!mm->pins_live && !mm->pinned_vm && !mm->maps_live &&
	      !mm->notifiers_live, "left behind: pins %ld vm %ld maps %ld",
	      mm->pins_live, mm->pinned_vm, mm->maps_live);
	m.max_bytes = (u64)(get8(in) % 24) * DG_PAGE_SIZE;
	m.max_entries = get8(in) % 6;
	use_dev = get8(in) & 1;
	new_cache();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	long meta = dg_user_count.meta_live;
	unsigned int i, scanned;
	uint8_t op;

	dg_user_verbose = getenv("DG_VERBOSE") != NULL;
	memset(&m, 0, sizeof(m));
	use_dev = false;
	mm = dg_user_mm_create(MODEL_PAGES);
	CHECK(mm, "mm");
	dg_user_mm_map(mm, dg_user_mm_addr(0), MODEL_PAGES * DG_PAGE_SIZE,
		       DG_PROT_RW);
	new_cache();
	for (op_nr = 0; op_nr < MAX_OPS && in.n; op_nr++) {
		op = get8(&in);
		switch (op % 14) {
		case 0: case 1: case 2: case 3:
			op_get(&in);
			break;
		case 4: case 5:
			op_put(&in);
			break;
		case 6: case 7: case 8: case 9:
			op_change(&in, get8(&in) % 6);
			break;
		case 10:
			op_name = "evict";
			dg_pin_cache_evict(cache, get8(&in) % 4, &scanned);
			if (get8(&in) & 1) {
				op_name = "reap";
				dg_user_run_work();
			}
			break;
		case 11:
			op_name = "limit";
			m.limit = get8(&in) & 1;
			mm->pinned_limit = m.limit ? get8(&in) % 32 : -1;
			m.inject = get8(&in) % 4 == 0;
			m.inject_errno = -(int)(get8(&in) % 5 + 1);
			mm->fail_page = m.inject ? get8(&in) % MODEL_PAGES :
						   ULONG_MAX;
			mm->fail_errno = m.inject_errno;
			break;
		case 12:
			op_dma(&in);
			break;
		default:
			op_recreate(&in);
			break;
		}
		check_all();
	}
	op_name = "end";
	if (get8(&in) & 1 && m.nheld) {
		op_recreate(&in);	/* destroy with handles held */
	} else {
		for (i = 0; i < m.nheld; i++)
			dg_pin_put(cache, &m.held[i].h);
		m.nheld = 0;
	}
	CHECK(dg_pin_cache_destroy(cache) == 0, "handles left");
	dg_user_run_work();	/* a queued reap holds the cache until it runs */
	CHECK(dg_user_count.meta_live == meta, "bookkeeping leaked: %ld",
	      dg_user_count.meta_live - meta);
	dg_user_mm_destroy(mm);		/* aborts on anything left */
	return 0;
}
