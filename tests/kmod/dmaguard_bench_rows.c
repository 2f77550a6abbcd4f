// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_bench, single-CPU rows: the kernel's dma_pool against dmaguard
 * with the protocol of the kernel's mm/dmapool_test.c, in one boot.
 *
 * A measurement is @rounds rounds of "allocate @blocks blocks with
 * GFP_KERNEL, then free them all in allocation order", timed as a whole
 * with ktime_get_ns().
 * For each row both pools are created once, with the same parameters on
 * the same device (bench_dev, see dmaguard_bench_main.c), and reused: one
 * untimed warm-up measurement each, then @reps measurements of each, and
 * the medians are printed. By default (interleave=1) the two pools
 * alternate round by round inside each measurement (measure_pair());
 * with interleave=0 whole measurements alternate, kernel, dmaguard,
 * kernel, ..., each right after one untimed round on its pool
 * (measure_one()).
 * With fresh=1 both pools are instead created before and destroyed after
 * every measurement (warm-up included), so every timed run also pays for
 * populating its pool, as mainline's test does. Round-by-round
 * alternation cancels host noise that whole-measurement alternation
 * leaves in (a TCG guest's clock is the host's, and the host may be
 * running other guests): on a loaded 2-CPU host, the five per-repetition
 * ratios of the 16-byte row on 6.12 spread over 0.52-1.29 with whole
 * measurements alternating, 0.83-0.95 with rounds alternating.
 *
 * Lines (after the pr_fmt prefix; the ratios are time ratios, lower is
 * better for dmaguard):
 *
 *   BENCH start kernel=K reps=N rounds=N mode=M backend=B device=D
 *   BENCH pool kernel=K size=S align=A blocks=N kernel_us=M dmaguard_us=M
 *         ratio=R
 *   BENCH meta kernel=K size=S bytes_per_block=X.XX
 *   BENCH reps kernel=K size=S mode=M kernel_us=a,b,.. dmaguard_us=a,b,..
 *         dg_chunks_allocated=C dg_chunks_released=C
 *         (reuse mode: dmaguard chunks allocated and released since the
 *         pool's creation, i.e. re-populations after reclaim)
 *   BENCH pairs kernel=K size=S rounds=N median_round_ratio=R p25=.. p75=..
 *         kernel_round_min_ns=.. dmaguard_round_min_ns=.. min_ratio=..
 *         (interleave=1: quartiles of the per-round-pair ratios, and the
 *         fastest round of each pool: two estimates that a busy host
 *         disturbs less than the medians of whole measurements)
 *
 * bytes_per_block is dmaguard's out-of-line bookkeeping (allocator sizes)
 * over the blocks its chunks hold, sampled with all @blocks allocated.
 *
 * With keep_pools=1 (reuse mode only) each row's dmaguard pool, all its
 * blocks freed, stays alive until the module is unloaded, so that
 * /sys/kernel/debug/dmaguard/pools shows what the workload left in it
 * (`make run` prints that table).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/utsname.h>
#include "dg_test_dev.h"	/* dmaguard.h, pool.h */
#include "dmaguard_bench.h"
#include "dg_prof.h"

static unsigned int reps = 5;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "Timed measurements per pool and row (1-31)");

static unsigned int rounds = 100;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "Allocate-all/free-all rounds per measurement");

static bool fresh;
module_param(fresh, bool, 0444);
MODULE_PARM_DESC(fresh, "Create both pools anew for every measurement");

static bool interleave = true;
module_param(interleave, bool, 0444);
MODULE_PARM_DESC(interleave,
		 "Alternate the pools round by round within each measurement");

static int row = -1;
module_param(row, int, 0444);
MODULE_PARM_DESC(row, "Run only this row (0-5), -1 for all");

static bool keep_pools;
module_param(keep_pools, bool, 0444);
MODULE_PARM_DESC(keep_pools,
		 "Keep each row's dmaguard pool until unload (its debugfs statistics)");

struct bench_row {
	size_t size;
	size_t align;
	size_t boundary;
	unsigned int blocks;
};

static const struct bench_row bench_rows[] = {
	{ 16, 16, 0, 8192 },
	{ 64, 64, 0, 8192 },
	{ 256, 256, 0, 8192 },
	{ 1024, 1024, 0, 2048 },
	{ 4096, 4096, 0, 1024 },
	{ 68, 32, 4096, 8192 },
};

struct bench_block {
	void *vaddr;
	dma_addr_t dma;
};

/* The two pools of a row, behind one pair of calls. */
struct bench_pools {
	struct dma_pool *kpool;
	struct dmaguard_pool *dpool;
};

static struct bench_block *blocks_buf;

/* keep_pools=1: the rows' dmaguard pools, destroyed by bench_rows_exit(). */
static struct dmaguard_pool *kept_pools[ARRAY_SIZE(bench_rows)];

/*
 * interleave=1: dmaguard/kernel time ratio of each pair of adjacent
 * rounds (x 10000), over all timed measurements of a row. A round the
 * host preempted spoils one pair, not a whole measurement, so the median
 * pair ratio is a robust second estimate on a busy host.
 */
static u32 *pair_ratio;
static unsigned int nr_pairs;
/* Fastest round of each pool: the least disturbed by the host. */
static u64 k_round_min, d_round_min;

static int pools_create(struct bench_pools *bp, const struct bench_row *r)
{
	bp->kpool = dma_pool_create("dg_bench_kernel", bench_dev, r->size,
				    r->align, r->boundary);
	bp->dpool = dmaguard_pool_create("dg_bench", bench_dev, r->size,
					 r->align, r->boundary);
	if (bp->kpool && bp->dpool)
		return 0;
	dma_pool_destroy(bp->kpool);
	dmaguard_pool_destroy(bp->dpool);
	bp->kpool = NULL;
	bp->dpool = NULL;
	return -ENOMEM;
}

static void pools_destroy(struct bench_pools *bp)
{
	dma_pool_destroy(bp->kpool);
	dmaguard_pool_destroy(bp->dpool);
	bp->kpool = NULL;
	bp->dpool = NULL;
}

/* Profile channels (make prof-pool): 0 the kernel's pool, 1 dmaguard's. */
static int kernel_round(struct dma_pool *pool, unsigned int n)
{
	unsigned int i;

	dg_prof_start(0);
	for (i = 0; i < n; i++) {
		blocks_buf[i].vaddr = dma_pool_alloc(pool, GFP_KERNEL,
						     &blocks_buf[i].dma);
		if (!blocks_buf[i].vaddr)
			goto fail;
	}
	for (i = 0; i < n; i++)
		dma_pool_free(pool, blocks_buf[i].vaddr, blocks_buf[i].dma);
	dg_prof_stop(0);
	return 0;
fail:
	dg_prof_stop(0);
	while (i--)
		dma_pool_free(pool, blocks_buf[i].vaddr, blocks_buf[i].dma);
	return -ENOMEM;
}

static int dmaguard_round(struct dmaguard_pool *pool, unsigned int n)
{
	unsigned int i;

	dg_prof_start(1);
	for (i = 0; i < n; i++) {
		blocks_buf[i].vaddr = dmaguard_pool_alloc(pool, GFP_KERNEL,
							  &blocks_buf[i].dma);
		if (!blocks_buf[i].vaddr)
			goto fail;
	}
	for (i = 0; i < n; i++)
		dmaguard_pool_free(pool, blocks_buf[i].vaddr,
				   blocks_buf[i].dma);
	dg_prof_stop(1);
	return 0;
fail:
	dg_prof_stop(1);
	while (i--)
		dmaguard_pool_free(pool, blocks_buf[i].vaddr,
				   blocks_buf[i].dma);
	return -ENOMEM;
}

/* One measurement of one pool; returns microseconds or a negative errno. */
static s64 measure(struct bench_pools *bp, bool dg, unsigned int n)
{
	u64 t0, t1;
	unsigned int i;
	int ret = 0;

	t0 = ktime_get_ns();
	for (i = 0; i < rounds && !ret; i++) {
		ret = dg ? dmaguard_round(bp->dpool, n) :
			   kernel_round(bp->kpool, n);
		if (need_resched())
			cond_resched();
	}
	t1 = ktime_get_ns();
	if (ret)
		return ret;
	return div_u64(t1 - t0, NSEC_PER_USEC);
}

/* dmaguard's bookkeeping per block with all @n blocks allocated. */
static int sample_meta(struct dmaguard_pool *pool, unsigned int n,
		       u64 *centi_bytes)
{
	struct dg_pool_stats st;
	unsigned int i;

	for (i = 0; i < n; i++) {
		blocks_buf[i].vaddr = dmaguard_pool_alloc(pool, GFP_KERNEL,
							  &blocks_buf[i].dma);
		if (!blocks_buf[i].vaddr)
			break;
	}
	dg_pool_get_stats(dg_test_core(pool), &st);
	while (i--)
		dmaguard_pool_free(pool, blocks_buf[i].vaddr,
				   blocks_buf[i].dma);
	if (!st.blocks_total || st.blocks_in_use != n)
		return -ENOMEM;
	*centi_bytes = div64_u64(st.meta_bytes * 100 + st.blocks_total / 2,
				 st.blocks_total);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* One measurement of one side, creating the pools first in fresh mode. */
static s64 measure_one(struct bench_pools *bp, const struct bench_row *r,
		       bool dg)
{
	s64 us;

	if (fresh) {
		if (pools_create(bp, r))
			return -ENOMEM;
	} else {
		/*
		 * One untimed round first: dmaguard gives chunks that stayed
		 * empty for reclaim_delay_ms back to the system, and the
		 * other pool's measurement in between can be longer than
		 * that; mainline's protocol runs its rounds back to back and
		 * never sees such a gap. Re-populate untimed (both pools,
		 * alike); the BENCH reps line counts the chunks it took.
		 */
		if (dg ? dmaguard_round(bp->dpool, r->blocks) :
			 kernel_round(bp->kpool, r->blocks))
			return -ENOMEM;
	}
	us = measure(bp, dg, r->blocks);
	if (fresh)
		pools_destroy(bp);
	return us;
}

/*
 * interleave=1: one measurement of each pool, made together. Rounds
 * alternate between the pools (which one goes first alternates too) and
 * each round is timed on its own; each pool's time is the sum of its
 * rounds. Both pools then see the same host noise (TCG guests share the
 * host's CPUs), which whole-measurement alternation cannot promise.
 */
static int measure_pair(struct bench_pools *bp, const struct bench_row *r,
			s64 *k_us, s64 *d_us, bool record)
{
	u64 t0, t1, t2, k = 0, d = 0, kr, dr;
	unsigned int i;
	bool dg_first;
	int ret = 0;

	if (fresh) {
		if (pools_create(bp, r))
			return -ENOMEM;
	} else {
		/* Untimed round each, as in measure_one(). */
		ret = kernel_round(bp->kpool, r->blocks);
		if (!ret)
			ret = dmaguard_round(bp->dpool, r->blocks);
	}
	for (i = 0; i < rounds && !ret; i++) {
		dg_first = i & 1;
		t0 = ktime_get_ns();
		ret = dg_first ? dmaguard_round(bp->dpool, r->blocks) :
				 kernel_round(bp->kpool, r->blocks);
		t1 = ktime_get_ns();
		if (!ret)
			ret = dg_first ? kernel_round(bp->kpool, r->blocks) :
					 dmaguard_round(bp->dpool, r->blocks);
		t2 = ktime_get_ns();
		k += dg_first ? t2 - t1 : t1 - t0;
		d += dg_first ? t1 - t0 : t2 - t1;
		if (record && t1 > t0 && t2 > t1) {
			kr = dg_first ? t2 - t1 : t1 - t0;
			dr = dg_first ? t1 - t0 : t2 - t1;
			pair_ratio[nr_pairs++] = (u32)min_t(u64, U32_MAX,
				div64_u64(dr * 10000, kr));
			k_round_min = min(k_round_min, kr);
			d_round_min = min(d_round_min, dr);
		}
		if (need_resched())
			cond_resched();
	}
	if (fresh)
		pools_destroy(bp);
	*k_us = div_u64(k, NSEC_PER_USEC);
	*d_us = div_u64(d, NSEC_PER_USEC);
	return ret;
}

/* One row's timings and their printed lists: rows run one at a time. */
static struct {
	s64 k_us[BENCH_MAX_REPS], d_us[BENCH_MAX_REPS];
	char kl[BENCH_MAX_REPS * 12], dl[BENCH_MAX_REPS * 12];
} row_out;

static int bench_row(const struct bench_row *r)
{
	s64 *k_us = row_out.k_us, *d_us = row_out.d_us, km, dm, us;
	char *kl = row_out.kl, *dl = row_out.dl;
	const char *kver = init_utsname()->release;
	struct dg_pool_stats st = { };
	struct bench_pools bp = { };
	u64 meta, ratio;
	unsigned int i;
	int ret;

	ret = pools_create(&bp, r);
	if (ret)
		return ret;
	ret = sample_meta(bp.dpool, r->blocks, &meta);
	if (ret)
		goto out;
	if (fresh)
		pools_destroy(&bp);

	/* Warm-up, untimed: both pools populated (reuse mode), caches hot. */
	if (interleave) {
		nr_pairs = 0;
		k_round_min = U64_MAX;
		d_round_min = U64_MAX;
		ret = measure_pair(&bp, r, &km, &dm, false);
		for (i = 0; i < reps && !ret; i++)
			ret = measure_pair(&bp, r, &k_us[i], &d_us[i], true);
		if (ret)
			goto out;
		goto done;
	}
	ret = -ENOMEM;
	if (measure_one(&bp, r, false) < 0 || measure_one(&bp, r, true) < 0)
		goto out;

	for (i = 0; i < reps; i++) {
		us = measure_one(&bp, r, false);
		if (us < 0)
			goto out;
		k_us[i] = us;
		us = measure_one(&bp, r, true);
		if (us < 0)
			goto out;
		d_us[i] = us;
	}
done:
	if (!fresh)
		dg_pool_get_stats(dg_test_core(bp.dpool), &st);

	km = bench_median(k_us, reps);
	dm = bench_median(d_us, reps);
	ratio = km ? div64_u64((u64)dm * 1000 + km / 2, km) : 0;
	pr_info("BENCH pool kernel=%s size=%zu align=%zu blocks=%u kernel_us=%lld dmaguard_us=%lld ratio=%llu.%03llu\n",
		kver, r->size, r->align, r->blocks, km, dm, ratio / 1000,
		ratio % 1000);
	pr_info("BENCH meta kernel=%s size=%zu bytes_per_block=%llu.%02llu\n",
		kver, r->size, meta / 100, meta % 100);
	bench_format_list(kl, sizeof(row_out.kl), k_us, reps);
	bench_format_list(dl, sizeof(row_out.dl), d_us, reps);
	pr_info("BENCH reps kernel=%s size=%zu mode=%s%s kernel_us=%s dmaguard_us=%s dg_chunks_allocated=%llu dg_chunks_released=%llu\n",
		kver, r->size, fresh ? "fresh" : "reuse",
		interleave ? "+interleave" : "", kl, dl,
		st.chunks_allocated, st.chunks_released);
	if (interleave && nr_pairs) {
		sort(pair_ratio, nr_pairs, sizeof(*pair_ratio), cmp_u32, NULL);
		i = pair_ratio[nr_pairs / 2];
		ratio = div64_u64(d_round_min * 10000 + k_round_min / 2,
				  k_round_min);
		pr_info("BENCH pairs kernel=%s size=%zu rounds=%u median_round_ratio=%u.%04u p25=%u.%04u p75=%u.%04u kernel_round_min_ns=%llu dmaguard_round_min_ns=%llu min_ratio=%llu.%04llu\n",
			kver, r->size, nr_pairs, i / 10000, i % 10000,
			pair_ratio[nr_pairs / 4] / 10000,
			pair_ratio[nr_pairs / 4] % 10000,
			pair_ratio[nr_pairs * 3 / 4] / 10000,
			pair_ratio[nr_pairs * 3 / 4] % 10000,
			k_round_min, d_round_min, ratio / 10000,
			ratio % 10000);
	}
	ret = 0;
	if (keep_pools && !fresh) {
		kept_pools[r - bench_rows] = bp.dpool;
		bp.dpool = NULL;
	}
out:
	pools_destroy(&bp);
	if (ret)
		pr_err("BENCH error kernel=%s size=%zu: %d\n", kver, r->size,
		       ret);
	return ret;
}

int bench_rows_run(void)
{
	unsigned int i, max_blocks = 0;
	int ret = 0, err;

	if (!reps || reps > BENCH_MAX_REPS || !rounds) {
		pr_err("reps must be 1-%d and rounds at least 1\n",
		       BENCH_MAX_REPS);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(bench_rows); i++)
		max_blocks = max(max_blocks, bench_rows[i].blocks);
	blocks_buf = kvcalloc(max_blocks, sizeof(*blocks_buf), GFP_KERNEL);
	pair_ratio = kvcalloc((size_t)reps * rounds, sizeof(*pair_ratio),
			      GFP_KERNEL);
	ret = -ENOMEM;
	if (!blocks_buf || !pair_ratio)
		goto out_free;

	pr_info("BENCH start kernel=%s reps=%u rounds=%u mode=%s%s backend=%s device=%s\n",
		init_utsname()->release, reps, rounds,
		fresh ? "fresh" : "reuse", interleave ? "+interleave" : "",
		bench_backend, dev_name(bench_dev));
	ret = 0;
	for (i = 0; i < ARRAY_SIZE(bench_rows); i++) {
		if (row >= 0 && row != i)
			continue;
		err = bench_row(&bench_rows[i]);
		if (err && !ret)
			ret = err;
	}
out_free:
	kvfree(pair_ratio);
	kvfree(blocks_buf);
	pair_ratio = NULL;
	blocks_buf = NULL;
	return ret;
}

bool bench_rows_kept(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_rows); i++)
		if (kept_pools[i])
			return true;
	return false;
}

void bench_rows_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_rows); i++) {
		dmaguard_pool_destroy(kept_pools[i]);
		kept_pools[i] = NULL;
	}
}
