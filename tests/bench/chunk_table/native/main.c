// SPDX-License-Identifier: GPL-2.0
/*
 * Native side-by-side: the project's chunk table (dg_table_find()) versus
 * the kernel's xarray (xa_load()), same chunks, same lookup sequence, same
 * process; medians of REPS repetitions, interleaved.
 *
 *   xbench [-r reps] [-s chunk_shift] [-m lookups]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "xbench.h"

#define DIRECT_BASE	0xffff888000000000ul
#define VMALLOC_BASE	0xffffc90000000000ul
#define PAGE		4096ul

static unsigned long long rng = 0x9e3779b97f4a7c15ull;
static unsigned long rnd(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return rng;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmpd);
	return n & 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int cmpul(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static int reps = 7;
static unsigned int shift = 14;
static size_t M = 1 << 16;
static volatile unsigned long sink;
static unsigned long dense_k;	/* -D k: span = k * n * chunk size, else 16 GiB */
static unsigned long SPAN;

/* Is addr inside one of the sorted chunk bases? */
static int inside(const unsigned long *sorted, int n, unsigned long addr)
{
	int lo = 0, hi = n - 1, mid;

	while (lo <= hi) {
		mid = (lo + hi) / 2;
		if (sorted[mid] <= addr && addr - sorted[mid] < (1ul << shift))
			return 1;
		if (sorted[mid] > addr)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return 0;
}

static void shuffle(void **v, int n)
{
	for (int i = n - 1; i > 0; i--) {
		int j = rnd() % (i + 1);
		void *t = v[i]; v[i] = v[j]; v[j] = t;
	}
}

static void run_case(const char *keys, unsigned long region, int page_mode,
		     int n)
{
	unsigned long size = 1ul << shift, *bases, *sorted, *hits, *miss;
	void **chunks, **order, *t, *xa_abs, *xa_rel;
	unsigned long sub_rel = region;
	long nodes0;
	double th[4][64], ta[4][64], tr[4][64];
	int i, r, k;

	SPAN = dense_k ? dense_k * n * size : 16ul << 30;
	bases = calloc(n, sizeof(*bases));
	sorted = calloc(n, sizeof(*sorted));
	chunks = calloc(n, sizeof(*chunks));
	order = calloc(n, sizeof(*order));
	hits = calloc(M, sizeof(*hits));
	miss = calloc(M, sizeof(*miss));

	/* distinct slots: of one window (aligned) or two (page mode) */
	for (i = 0; i < n; i++) {
		unsigned long slot, b;
		int dup;

		do {
			if (!page_mode) {
				slot = rnd() % (SPAN / size);
				b = region + slot * size;
			} else {
				slot = rnd() % (SPAN / (2 * size));
				b = region + slot * 2 * size +
				    (rnd() % (size / PAGE)) * PAGE;
			}
			dup = 0;
			for (k = 0; k < i; k++)
				if ((bases[k] >> (shift + page_mode)) ==
				    (b >> (shift + page_mode)))
					dup = 1;
		} while (dup);
		bases[i] = b;
	}
	memcpy(sorted, bases, n * sizeof(*bases));
	qsort(sorted, n, sizeof(*sorted), cmpul);
	/* descriptors allocated in random order, as kmalloc'd ones scatter */
	for (i = 0; i < n; i++)
		chunks[i] = ct_chunk_new(bases[i]);

	t = ct_table_new(shift);
	nodes0 = xb_nr_nodes();
	xa_abs = xb_new();
	for (i = 0; i < n; i++)
		ct_insert(t, chunks[i]);
	for (i = 0; i < n; i++)
		xb_store(xa_abs, bases[i] >> shift, chunks[i]);
	long nodes_abs = xb_nr_nodes() - nodes0;
	nodes0 = xb_nr_nodes();
	xa_rel = xb_new();
	for (i = 0; i < n; i++)
		xb_store(xa_rel, (bases[i] - sub_rel) >> shift, chunks[i]);
	long nodes_rel = xb_nr_nodes() - nodes0;

	for (size_t j = 0; j < M; j++) {
		i = rnd() % n;
		hits[j] = bases[i] + (rnd() % (size / 64)) * 64;
		do
			miss[j] = region + (rnd() % (SPAN / 64)) * 64;
		while (inside(sorted, n, miss[j]));
	}
	/* check: all three agree on every lookup */
	for (size_t j = 0; j < M; j++) {
		void *h = ct_find(t, hits[j]);
		void *a = xb_find2(xa_abs, hits[j], shift, 0);
		void *b = xb_find2(xa_rel, hits[j], shift, sub_rel);

		if (!h || h != a || h != b || ct_find(t, miss[j]) ||
		    xb_find2(xa_abs, miss[j], shift, 0) ||
		    xb_find2(xa_rel, miss[j], shift, sub_rel)) {
			fprintf(stderr, "MISMATCH n=%d j=%zu\n", n, j);
			exit(1);
		}
	}

	/* lookups: hash, xa(abs), xa(rel), interleaved per repetition */
	for (r = 0; r < reps; r++) {
		for (k = 0; k < 4; k++) {
			const unsigned long *a = k & 1 ? miss : hits;
			int dep = k >> 1;
			double t0;

			t0 = now_ns();
			sink += dep ? ct_loop_dep(t, a, M) : ct_loop(t, a, M);
			th[k][r] = (now_ns() - t0) / M;
			t0 = now_ns();
			sink += page_mode ?
				(dep ? xb_loop2_dep : xb_loop2)(xa_abs, a, M, shift, 0) :
				(dep ? xb_loop1_dep : xb_loop1)(xa_abs, a, M, shift, 0);
			ta[k][r] = (now_ns() - t0) / M;
			t0 = now_ns();
			sink += page_mode ?
				(dep ? xb_loop2_dep : xb_loop2)(xa_rel, a, M, shift, sub_rel) :
				(dep ? xb_loop1_dep : xb_loop1)(xa_rel, a, M, shift, sub_rel);
			tr[k][r] = (now_ns() - t0) / M;
		}
	}
	for (k = 0; k < 4; k++) {
		static const char *const kind[] = { "hit", "miss", "hitD", "missD" };
		double h = median(th[k], reps), a = median(ta[k], reps),
		       b = median(tr[k], reps);
		printf("LOOKUP keys=%-7s align=%-5s n=%-5d %-5s hash_ns=%6.2f xa_abs_ns=%6.2f xa_rel_ns=%6.2f ratio_abs=%5.2f ratio_rel=%5.2f\n",
		       keys, page_mode ? "page" : "chunk", n, kind[k],
		       h, a, b, h / a, h / b);
	}
	printf("MEM    keys=%-7s align=%-5s n=%-5d hash_slots=%u used=%u hash_B_per_chunk=%.1f xa_abs_nodes=%ld xa_abs_B_per_chunk=%.1f xa_rel_nodes=%ld xa_rel_B_per_chunk=%.1f (node=%zuB)\n",
	       keys, page_mode ? "page" : "chunk", n, ct_slots(t), ct_used(t),
	       ct_slots(t) * 8.0 / n, nodes_abs, nodes_abs * (double)xb_node_size() / n,
	       nodes_rel, nodes_rel * (double)xb_node_size() / n, xb_node_size());

	/* insert then remove all n, random orders, fresh structures; cycles
	 * per repetition so that every repetition does >= 16384 ops */
	int cycles = n >= 16384 ? 1 : 16384 / n;
	double hi_[64], hr_[64], ai_[64], ar_[64], ri_[64], rr_[64];

	for (i = 0; i < n; i++)
		order[i] = chunks[i];
	for (r = 0; r < reps; r++) {
		double s_hi = 0, s_hr = 0, s_ai = 0, s_ar = 0, s_ri = 0, s_rr = 0;

		for (int c = 0; c < cycles; c++) {
			void *tt = ct_table_new(shift), *x1 = xb_new(), *x2 = xb_new();
			double t0;

			shuffle(order, n);
			t0 = now_ns();
			for (i = 0; i < n; i++)
				ct_insert(tt, order[i]);
			s_hi += now_ns() - t0;
			t0 = now_ns();
			for (i = 0; i < n; i++)
				xb_store(x1, *(unsigned long *)((char *)order[i] + 16) >> shift, order[i]);
			s_ai += now_ns() - t0;
			t0 = now_ns();
			for (i = 0; i < n; i++)
				xb_store(x2, (*(unsigned long *)((char *)order[i] + 16) - sub_rel) >> shift, order[i]);
			s_ri += now_ns() - t0;
			shuffle(order, n);
			t0 = now_ns();
			for (i = 0; i < n; i++)
				ct_remove(tt, order[i]);
			s_hr += now_ns() - t0;
			t0 = now_ns();
			for (i = 0; i < n; i++)
				xb_erase(x1, *(unsigned long *)((char *)order[i] + 16) >> shift);
			s_ar += now_ns() - t0;
			t0 = now_ns();
			for (i = 0; i < n; i++)
				xb_erase(x2, (*(unsigned long *)((char *)order[i] + 16) - sub_rel) >> shift);
			s_rr += now_ns() - t0;
			ct_table_free(tt);
			xb_free(x1);
			xb_free(x2);
		}
		xb_env_sync();
		hi_[r] = s_hi / cycles / n; hr_[r] = s_hr / cycles / n;
		ai_[r] = s_ai / cycles / n; ar_[r] = s_ar / cycles / n;
		ri_[r] = s_ri / cycles / n; rr_[r] = s_rr / cycles / n;
	}
	double a1 = median(hi_, reps), a2 = median(ai_, reps), a3 = median(ri_, reps);
	double b1 = median(hr_, reps), b2 = median(ar_, reps), b3 = median(rr_, reps);
	printf("INSERT keys=%-7s align=%-5s n=%-5d hash_ns=%7.2f xa_abs_ns=%7.2f xa_rel_ns=%7.2f ratio_abs=%5.2f ratio_rel=%5.2f\n",
	       keys, page_mode ? "page" : "chunk", n, a1, a2, a3, a1 / a2, a1 / a3);
	printf("REMOVE keys=%-7s align=%-5s n=%-5d hash_ns=%7.2f xa_abs_ns=%7.2f xa_rel_ns=%7.2f ratio_abs=%5.2f ratio_rel=%5.2f\n",
	       keys, page_mode ? "page" : "chunk", n, b1, b2, b3, b1 / b2, b1 / b3);
	fflush(stdout);

	ct_table_free(t);
	xb_free(xa_abs);
	xb_free(xa_rel);
	xb_env_sync();
	for (i = 0; i < n; i++)
		ct_chunk_free(chunks[i]);
	free(bases); free(sorted); free(chunks); free(order); free(hits); free(miss);
}

int main(int argc, char **argv)
{
	static const int ns[] = { 16, 256, 4096 };
	int opt;

	while ((opt = getopt(argc, argv, "r:s:m:D:")) != -1) {
		if (opt == 'D') dense_k = strtoul(optarg, NULL, 0);
		if (opt == 'r') reps = atoi(optarg);
		else if (opt == 's') shift = atoi(optarg);
		else if (opt == 'm') M = strtoul(optarg, NULL, 0);
	}
	if (reps < 1 || reps > 64 || ct_blocks_offset() != 16) {
		fprintf(stderr, "bad reps or descriptor layout\n");
		return 1;
	}
	xb_env_init();
	{
		double v[64];

		for (int r = 0; r < reps; r++) {
			double t0 = now_ns();

			sink += xb_rcu_loop(M);
			v[r] = (now_ns() - t0) / M;
		}
		printf("INFO span=%s chunk_shift=%u lookups=%zu reps=%d xa_node=%zuB descriptor=%zuB urcu_read_lock+unlock_ns=%.2f\n",
		       dense_k ? "dense" : "16GiB", shift, M, reps, xb_node_size(), ct_desc_bytes(), median(v, reps));
	}
	for (int p = 0; p < 2; p++)
		for (int kk = 0; kk < 2; kk++)
			for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
				run_case(kk ? "vmalloc" : "direct",
					 kk ? VMALLOC_BASE : DIRECT_BASE, p,
					 ns[i]);
	return 0;
}
