# SPDX-License-Identifier: GPL-2.0
"""build/report/index.html of the dmaguard report (make-report.py --html).

One self-contained page: inline CSS, plots as inline SVG made by gnuplot
(scripts/report/*.gp), no external reference, so it opens from disk. Per
kernel: every report spec's REPORT lines, the quick speed tables and plots
(per-row time of kernel dma_pool vs dmaguard, multi-CPU scaling, pin + unpin
vs a cache hit across sizes) and the debugfs statistics; then, when
build/bench/ holds `make bench` results, a "Full benchmark" section.

Each plot is a <figure class="plot" id=...>; <body data-expected-plots>
lists every plot the generator made or tried to make (a gnuplot failure
leaves its figure without an SVG). A script at the end of the page checks
that each of them holds an SVG drawn at a non-zero size, and sets
<body data-plot-check="ok N"> or "missing <ids>": the screenshot test of
`make check` (scripts/report/check-report.sh) reads it with headless
Chromium; a page cut short never runs the script and has no such attribute.
"""
import html
import os
import re
import subprocess
import sys
import tempfile
import time

import report_data as rd

HERE = os.path.dirname(os.path.abspath(__file__))

CSS = '''
body { font: 14px/1.4 sans-serif; margin: 1.5em auto; max-width: 72em;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { border-bottom: 2px solid #2e6db4; padding-bottom: 0.2em; margin-top: 2em; }
h3 { margin: 1.4em 0 0.4em; color: #2e6db4; }
pre { background: #f6f6f6; border: 1px solid #ddd; padding: 0.6em;
      white-space: pre-wrap; font-size: 12px; }
table { border-collapse: collapse; margin: 0.4em 0 0.2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 0.15em 0.6em; text-align: right;
         white-space: nowrap; }
th { background: #eef3fa; }
td:first-child, th:first-child { text-align: left; }
.tbl { overflow-x: auto; }
caption { caption-side: top; text-align: left; font-weight: bold;
          padding: 0.3em 0; }
p.note { margin: 0 0 0.8em; color: #555; font-size: 12px; }
.failed { color: #b00; font-weight: bold; }
.quick { background: #fff7d6; border: 1px solid #e8d27a; padding: 0.4em 0.6em; }
figure.plot { display: inline-block; margin: 0.5em 1em 0.5em 0;
              vertical-align: top; }
figure.plot svg { display: block; }
figure.plot figcaption { font-size: 12px; color: #555; max-width: 620px; }
nav a { margin-right: 1em; }
'''

# The page's own check (see the module comment).
SCRIPT = '''
(function () {
	var ids = (document.body.getAttribute('data-expected-plots') || '')
		.split(' ').filter(function (s) { return s; });
	var bad = [];
	ids.forEach(function (id) {
		var f = document.getElementById(id);
		var svg = f && f.querySelector('svg');
		var r = svg && svg.getBoundingClientRect();
		var marks = svg ? svg.querySelectorAll('path, polyline, polygon, rect').length : 0;
		if (!r || r.width < 100 || r.height < 100 || marks < 5)
			bad.push(id);
	});
	document.body.setAttribute('data-plot-check',
		bad.length ? 'missing ' + bad.join(' ') : 'ok ' + ids.length);
})();
'''

SVG_PROLOG = re.compile(r'^.*?(?=<svg\b)', re.S)


class Page:
	def __init__(self):
		self.parts = []
		self.plots = []
		self.tmp = tempfile.mkdtemp(prefix='dmaguard-report-')

	def add(self, s):
		self.parts.append(s)

	def text(self, s):
		self.add(html.escape(s))

	def tables(self, tables):
		for title, header, rows, note in tables:
			self.add(f'<div class="tbl"><table><caption>{html.escape(title)}'
				 '</caption><tr>')
			self.add(''.join(f'<th>{html.escape(str(h))}</th>' for h in header))
			self.add('</tr>')
			for r in rows:
				self.add('<tr>' + ''.join(f'<td>{html.escape(str(c))}</td>'
							 for c in r) + '</tr>')
			self.add('</table></div>')
			if note:
				self.add(f'<p class="note">{html.escape(note)}</p>')

	def plot(self, gp, title, header, rows, caption):
		"""A figure with the SVG gnuplot draws of rows (gnuplot script
		scripts/report/<gp>.gp), or without one if gnuplot failed."""
		pid = f'plot-{len(self.plots) + 1}-{gp}'
		self.plots.append(pid)
		data = os.path.join(self.tmp, pid + '.dat')
		svg = os.path.join(self.tmp, pid + '.svg')
		with open(data, 'w') as f:
			f.write('# ' + ' '.join(header) + '\n')
			for r in rows:
				f.write(' '.join(str(c) for c in r) + '\n')
		def q(s):
			return "'" + s.replace("'", "") + "'"
		# gnuplot's enhanced text: an underscore would start a subscript
		ttl = q(title.replace('_', '\\\\_'))
		cmd = ['gnuplot', '-e', f'dir={q(HERE)}; data={q(data)}; '
		       f'outfile={q(svg)}; ttl={ttl}', os.path.join(HERE, gp + '.gp')]
		p = subprocess.run(cmd, capture_output=True, text=True)
		body = ''
		if p.returncode == 0 and os.path.exists(svg):
			with open(svg) as f:
				body = SVG_PROLOG.sub('', f.read(), count=1)
		else:
			print(f'make-report: gnuplot failed for {pid}: {p.stderr.strip()}',
			      file=sys.stderr)
		self.add(f'<figure class="plot" id="{pid}">{body}<figcaption>'
			 f'{html.escape(caption)}</figcaption></figure>')


def speed_plots(page, label, bench, which=('rows', 'mt', 'pin')):
	"""The plots of one set of BENCH lines: those of which it has data for."""
	rows, start = rd.pool_rows(bench)
	if 'rows' in which and rows and all(r[5] is not None for r in rows):
		page.plot('pool-rows', f'{label}: pool, 1 CPU',
			  ['row', 'kernel_ns', 'dmaguard_ns'],
			  [(r[0], f'{r[5]:.1f}', f'{r[6]:.1f}') for r in rows],
			  'Per-row time, ns per allocate+free pair (median of '
			  f'{start.get("reps", "?")} measurements of '
			  f'{start.get("rounds", "?")} rounds).')
	mt = rd.pool_mt(bench)
	if 'mt' in which and mt:
		page.plot('pool-mt', f'{label}: all vCPUs on one pool',
			  ['cpus', 'kernel_ops_s', 'dmaguard_ops_s'],
			  [(c, f'{v[0]:.0f}', f'{v[1]:.0f}') for c, v in mt.items()],
			  'Multi-CPU scaling: alloc+free pairs per second of all '
			  'vCPUs together, on one shared pool (median of repeats; '
			  'under TCG on a shared host: see the table).')
	pin = rd.pin_rows(bench)
	if 'pin' in which and pin:
		def ns(v, k, i):
			return v[k][i] if k in v else '-'
		page.plot('pin', f'{label}: pin cache',
			  ['bytes', 'label', 'pin_ns', 'hit_ns', 'map_pin_ns', 'map_hit_ns'],
			  [(n, rd.size_label(n).replace(' ', ''), ns(v, 'pin', 0),
			    ns(v, 'pin', 1), ns(v, 'pin-map@direct', 0),
			    ns(v, 'pin-map@direct', 1)) for n, v in pin.items()],
			  'Per-I/O cost of pin_user_pages_fast + unpin against a '
			  'pin cache hit, by buffer size (dashed: with a DMA '
			  'mapping for the edu device per I/O; medians).')


def kernel_section(page, kver, boots, speed_tables, stats_tables):
	page.add(f'<h2 id="k-{html.escape(kver)}">{html.escape(kver)}</h2>')
	for spec, bs in boots:
		page.add(f'<h3>{html.escape(spec.split("/", 1)[-1])}</h3>')
		for b in bs:
			if b.report:
				page.add('<pre>')
				page.text('\n'.join(b.report))
				page.add('</pre>')
			if b.backend == 'direct':
				speed = speed_tables(b.bench)
				if speed:
					page.add('<p class="quick">Quick run (TCG, few '
						 'repetitions); <code>make bench</code> for '
						 'real numbers.</p>')
					page.tables(speed)
					speed_plots(page, kver, b.bench)
				page.tables(stats_tables(b.debugfs, full=True))
			if b.failed:
				page.add(f'<p class="failed">FAILED ({html.escape(b.name)}):</p><pre>')
				page.text('\n'.join(b.failed))
				page.add('</pre>')


def full_section(page, full):
	when = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(full['when']))
	page.add('<h2 id="bench">Full benchmark (make bench)</h2>')
	page.add(f'<p>From build/bench/ (scripts/bench.sh), last written {when}.</p>')
	for kb in sorted(set(full['rows']) | set(full['mt'])):
		page.add(f'<h3>{html.escape(kb[0])}, {html.escape(kb[1])} backend</h3>')
		label = f'{kb[0]} {kb[1]}'
		speed_plots(page, label, full['rows'].get(kb, []), ('rows',))
		speed_plots(page, label, full['mt'].get(kb, []), ('mt',))
	for kver, bench in sorted(full['pin'].items()):
		page.add(f'<h3>{html.escape(kver)}, pin cache</h3>')
		speed_plots(page, kver, bench, ('pin',))
	for name, text in full['tables']:
		page.add(f'<h3>{html.escape(name)}</h3><pre>')
		page.text(text)
		page.add('</pre>')
	native = [f for k, f in full['native'] if k == 'native' and 'ratio' in f]
	if native:
		page.tables([('native, one thread: dmaguard vs the in-band reference pool',
			      ['size', 'align', 'blocks', 'ref ns', 'dmaguard ns', 'ratio'],
			      [(f.get('size'), f.get('align'), f.get('blocks'),
				f.get('ref_ns_per_pair'), f.get('dmaguard_ns_per_pair'),
				f.get('ratio')) for f in native], None)])


def write(path, report, full, speed_tables, stats_tables):
	page = Page()
	for kver, boots in report:
		kernel_section(page, kver, boots, speed_tables, stats_tables)
	if full:
		full_section(page, full)
	nav = ' '.join(f'<a href="#k-{html.escape(k)}">{html.escape(k)}</a>'
		       for k, _ in report)
	if full:
		nav += ' <a href="#bench">full benchmark</a>'
	try:
		rev = subprocess.run(['git', '-C', rd.TOP, 'describe', '--always',
				      '--dirty'], capture_output=True, text=True,
				     check=True).stdout.strip()
	except (OSError, subprocess.CalledProcessError):
		rev = 'unknown'
	head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
		'<title>dmaguard report</title>'
		f'<style>{CSS}</style></head>\n'
		f'<body data-expected-plots="{" ".join(page.plots)}">\n'
		'<h1>dmaguard report</h1>'
		f'<p>Written {time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, '
		f'tree {html.escape(rev)}, by scripts/report/make-report.py. The '
		'kernel sections come from the boots of tests/vm/report/*.vmtest '
		'in QEMU (TCG) of the last <code>make run</code> (or <code>make '
		'check</code>), logs in build/vm/&lt;kernel&gt;/report/; the full '
		'benchmark from <code>make bench</code>.</p>'
		f'<nav>{nav}</nav>\n')
	tail = f'\n<script>{SCRIPT}</script>\n</body></html>\n'
	os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
	tmp = path + '.tmp'
	with open(tmp, 'w') as f:
		f.write(head + ''.join(page.parts) + tail)
	os.replace(tmp, path)
	for name in os.listdir(page.tmp):
		os.unlink(os.path.join(page.tmp, name))
	os.rmdir(page.tmp)
