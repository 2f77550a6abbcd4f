#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The dmaguard report, from the boots of tests/vm/report/*.vmtest that the
# VM harness left in build/vm/<kver>/report/ (scripts/vm/run.sh, `make
# run`; or `make check`'s vm group) and, when present, `make bench`'s
# build/bench/. Reading: scripts/report/report_data.py; HTML and plots:
# scripts/report/report_html.py.
#
#   make-report.py [--text] [--html FILE] [--kernel V]...
#
# --text   print the report: per kernel, every report spec's REPORT lines
#          in spec name order (a boot under another DMA backend than
#          direct adds its "[<backend>] ..." lines only), then the tables of
#          the machine-readable lines of its log (BENCH: the quick speed
#          run; DEBUGFS: debugfs statistics), and why a boot failed
# --html   write the self-contained HTML page (inline CSS and SVG plots
#          from gnuplot, no external reference) to FILE
# --kernel the kernels to report (default: every kernel with report boots
#          in build/vm/)
# Exit status: 1 if a report boot failed or is missing, 2 on bad usage.
import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_data as rd  # noqa: E402

def table(header, rows, indent='     '):
	"""Right-aligned columns (the first left-aligned) as text lines."""
	cells = [header] + [[str(c) for c in r] for r in rows]
	w = [max(len(r[i]) for r in cells) for i in range(len(header))]
	out = []
	for r in cells:
		out.append(indent + '  '.join(
			c.ljust(w[i]) if i == 0 else c.rjust(w[i])
			for i, c in enumerate(r)).rstrip())
	return out


def fmt(x, spec='.2f'):
	return '-' if x is None else format(x, spec)


def geomean(v):
	import math
	v = [x for x in v if x]
	return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def speed_tables(bench):
	"""The quick speed tables of one boot's BENCH lines: [(title, header,
	rows, note)]."""
	out = []
	rows, start = rd.pool_rows(bench)
	if rows:
		g = geomean([r[7] for r in rows])
		out.append((
			f'pool, 1 CPU: kernel dma_pool vs dmaguard, time of '
			f'{start.get("rounds", "?")} rounds of "allocate every block, '
			f'free them all" (median of {start.get("reps", "?")})',
			['size/align', 'blocks', 'kernel us', 'dmaguard us',
			 'dmaguard/kernel'],
			[(r[0], r[2], r[3], r[4], fmt(r[7], '.3f')) for r in rows],
			f'geomean dmaguard/kernel time {fmt(g, ".3f")}; below 1: '
			'dmaguard faster'))
	mt = rd.pool_mt(bench)
	if mt:
		any_mt = next(iter(mt.values()))
		out.append((
			f'pool, all vCPUs on one shared pool: {any_mt[3]}-byte '
			f'alloc+free pairs per second (median of {any_mt[5]} x '
			f'{any_mt[4]} ms)',
			['vCPUs', 'kernel ops/s', 'dmaguard ops/s', 'dmaguard/kernel'],
			[(c, f'{k:.0f}', f'{d:.0f}', f'{r:.3f}')
			 for c, (k, d, r, *_rest) in mt.items()],
			'a throughput ratio: above 1, dmaguard does more'))
	pin = rd.pin_rows(bench)
	if pin:
		kinds = sorted({k for v in pin.values() for k in v},
			       key=lambda k: (k != 'pin', k))
		header = ['size']
		for k in kinds:
			what = '' if k == 'pin' else ' +map' + (
				'' if k == 'pin-map@direct' else k[len('pin-map'):])
			header += [f'pin{what} ns', f'hit{what} ns', 'pin/hit']
		rows = []
		for n, v in pin.items():
			thp = any(x[2] for x in v.values())
			row = [rd.size_label(n) + (' THP' if thp else '')]
			for k in kinds:
				p, h = v[k][:2] if k in v else (None, None)
				row += [fmt(p, 'd'), fmt(h, 'd'),
					f'{p / h:.1f}x' if p and h else '-']
			rows.append(row)
		out.append((
			'pin cache, per I/O: pin_user_pages_fast + unpin vs a cache '
			'hit (get + put), medians',
			header, rows,
			'+map: with dma_map_sgtable() for the edu device per I/O vs '
			'a cache mapping once'))
	return out


STATS_COLUMNS = {
	'pools': ['size', 'chunk_size', 'blocks_in_use', 'blocks_total',
		  'chunks', 'chunks_released', 'meta_bytes', 'pcp_bytes',
		  'bad_frees'],
	'pin_caches': ['device', 'entries', 'pinned_bytes', 'hits', 'misses',
		       'invalidations', 'evictions', 'retries'],
}


def stats_tables(debugfs, full=False):
	"""The DEBUGFS tables of one boot: [(title, header, rows, note)], a
	"when" column first. Not full: the columns of STATS_COLUMNS (bad_frees:
	the sum of the bad_* counters)."""
	out = []
	for name, t in debugfs.items():
		if not t['rows']:
			continue
		h = t['header'] or []
		want = h if full else STATS_COLUMNS.get(name, h)
		rows = []
		for label, vals in t['rows']:
			d = dict(zip(h, vals))
			d['bad_frees'] = str(sum(int(d[k]) for k in h
						 if k.startswith('bad_') and d[k].isdigit()))
			rows.append([label] + ([d.get(c, '-') for c in want] if h
					       else [' '.join(vals)]))
		out.append((f'debugfs {name} (/sys/kernel/debug/dmaguard/{name})',
			    ['when'] + (want if h else ['value']), rows, None))
	return out


def tables_text(tables):
	out = []
	for title, header, rows, note in tables:
		out.append(f'   {title}:')
		out += table(header, rows)
		if note:
			out.append(f'     ({note})')
	return out


def boot_text(boot):
	out = ['   ' + r for r in boot.report]
	if boot.backend == 'direct':
		out += tables_text(speed_tables(boot.bench) + stats_tables(boot.debugfs))
	if boot.failed:
		where = f', log {os.path.relpath(boot.log, rd.TOP)}' if boot.log else ''
		out.append(f'   FAILED ({boot.name}{where}):')
		out += ['     ' + f for f in boot.failed]
	return out


def main():
	ap = argparse.ArgumentParser(description='the dmaguard report')
	ap.add_argument('--text', action='store_true')
	ap.add_argument('--html')
	ap.add_argument('--kernel', action='append', default=[])
	ap.add_argument('--vm-out', default=os.path.join(rd.TOP, 'build/vm'))
	ap.add_argument('--bench-out', default=os.path.join(rd.TOP, 'build/bench'))
	args = ap.parse_args()
	specs = rd.report_specs()
	if not specs:
		print('make-report: no tests/vm/report/*.vmtest', file=sys.stderr)
		return 2
	kernels = args.kernel or rd.kernels_with_reports(args.vm_out)
	full = rd.full_bench(args.bench_out) if args.html else None
	if not kernels:
		print(f'make-report: no report boots in {args.vm_out} (make run)',
		      file=sys.stderr)
		if not full:
			return 1
	report = [(k, rd.kernel_boots(args.vm_out, k, specs)) for k in kernels]
	failed = any(b.failed for _, boots in report for _, bs in boots for b in bs)
	if args.text:
		print('dmaguard report')
		print('===============')
		for kver, boots in report:
			print(f'\n-- {kver}')
			for _, bs in boots:
				for b in bs:
					print('\n'.join(boot_text(b)))
	if args.html:
		import report_html
		report_html.write(args.html, report, full, speed_tables,
				  stats_tables)
		if args.text:
			print(f'\nHTML report: {os.path.relpath(args.html)}')
	return 1 if failed or not kernels else 0


if __name__ == '__main__':
	sys.exit(main())
