# SPDX-License-Identifier: GPL-2.0
"""What the dmaguard report is made of, read from the VM harness's files.

make-report.py (the text of `make run` and build/report/index.html) and
report_html.py use it. Per kernel and report spec (tests/vm/report/*.vmtest),
the boots the harness left in build/vm/<kver>/report/: <spec>.{log,results,
report} for the direct DMA backend, <spec>@<backend>.* for the others
(scripts/vm/vmtest.py). From each boot's console log (up to the final dmesg
dump, which repeats it) the machine-readable lines:

  BENCH <kind> key=value...         tests/kmod/dmaguard_bench_*.c,
                                    tests/vm/bin/pin_bench.c
  DEBUGFS <table> header: <line>    the header of a debugfs table
  DEBUGFS <table> <label>: <line>   one of its rows, <label> saying when
                                    or of what it was read

and from build/bench/ (scripts/bench.sh, `make bench`) the full benchmark.
"""
import collections
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, 'scripts/vm'))
sys.dont_write_bytecode = True
import vmtest  # noqa: E402  (parse_spec: a spec's kernels: and backends:)

ANSI = re.compile(r'\x1b(?:\[[0-9;?]*[A-Za-z]|[@-Z\\-_c])')
TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\] ?')
LINE = re.compile(r'^(?:[^\s:][^:]*: )?(BENCH|DEBUGFS) (\S+) ?(.*)$')
DMESG_BEGIN = 'DMAGUARD-VM: dmesg begin'

Boot = collections.namedtuple(
	'Boot', 'name backend log report results failed bench debugfs')


def fields(text):
	"""The key=value words of a BENCH line, as a dict."""
	return dict(w.split('=', 1) for w in text.split() if '=' in w)


def read_lines(path):
	try:
		with open(path, 'rb') as f:
			data = f.read().decode('utf-8', 'replace')
	except OSError:
		return None
	return [ANSI.sub('', ln.rstrip('\r')) for ln in data.split('\n')]


def console_lines(path):
	"""BENCH (kind, fields) and DEBUGFS tables of one console log."""
	bench, debugfs = [], collections.OrderedDict()
	for ln in read_lines(path) or []:
		if ln.startswith(DMESG_BEGIN):
			break
		m = LINE.match(TIMESTAMP.sub('', ln))
		if not m:
			continue
		what, kind, rest = m.groups()
		if what == 'BENCH':
			bench.append((kind, fields(rest)))
			continue
		label, sep, row = rest.partition(': ')
		if not sep:
			continue
		t = debugfs.setdefault(kind, {'header': None, 'rows': []})
		if label == 'header':
			t['header'] = t['header'] or row.split()
		else:
			t['rows'].append((label, row.split()))
	return bench, debugfs


def read_boot(out, spec, backend):
	"""One boot of a report spec, or None when the harness left nothing."""
	name = spec if backend == 'direct' else f'{spec}@{backend}'
	base = os.path.join(out, name)
	results = read_lines(base + '.results')
	log = base + '.log'
	if results is None and not os.path.exists(log):
		return None
	if results is None:
		results = [f'not ok - {name} # harness wrote no result (see {log})']
	results = [r for r in results if r]
	report = [r for r in read_lines(base + '.report') or [] if r]
	if backend != 'direct':
		# Another backend adds its "[<backend>] ..." lines only.
		report = [r for r in report if r.startswith(f'[{backend}]')]
	failed = [r[len('not ok - '):] for r in results if r.startswith('not ok')]
	bench, debugfs = console_lines(log)
	return Boot(name, backend, log, report, results, failed, bench, debugfs)


def report_specs():
	"""(name, parsed spec) of tests/vm/report/*.vmtest, in name order."""
	specs = []
	for path in sorted(glob.glob(os.path.join(TOP, 'tests/vm/report/*.vmtest'))):
		name = 'report/' + os.path.basename(path)[:-len('.vmtest')]
		specs.append((name, vmtest.parse_spec(path)))
	return specs


def kernel_boots(vm_out, kver, specs):
	"""[(spec name, [Boot, ...])] of one kernel: the direct boot first (a
	missing one is a failure, unless the spec skips this kernel), then any
	other backend's boot the harness left."""
	out = os.path.join(vm_out, kver)
	res = []
	for name, spec in specs:
		if spec['kernels'] and not spec['kernels'].search(kver):
			continue
		boots = []
		direct = read_boot(out, name, 'direct')
		if direct is None:
			direct = Boot(name, 'direct', None, [], [], [
				f'{name} # not booted on this kernel (no {out}/{name}.results)'],
				[], {})
		boots.append(direct)
		for backend in (spec['backends'] or []):
			if backend != 'direct':
				b = read_boot(out, name, backend)
				if b:
					boots.append(b)
		res.append((name, boots))
	return res


def kernels_with_reports(vm_out):
	"""Kernels under vm_out with report boots, in version order."""
	def key(v):
		return [int(x) if x.isdigit() else x for x in re.split(r'(\d+)', v)]
	return sorted((os.path.basename(os.path.dirname(d)) for d in
		       glob.glob(os.path.join(vm_out, '*', 'report'))), key=key)


# ---- the quick speed measurements and the statistics of one boot ----

def median(v):
	v = sorted(v)
	n = len(v)
	return (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2) if n else None


def pool_rows(bench):
	"""[(label, size, blocks, kernel_us, dmaguard_us, kernel_ns_per_pair,
	dmaguard_ns_per_pair, ratio)] of the BENCH pool lines, plus the
	measurement parameters (reps, rounds) of the BENCH start line."""
	start = next((f for k, f in bench if k == 'start'), {})
	rounds = int(start.get('rounds', 0) or 0)
	rows = []
	for kind, f in bench:
		if kind != 'pool' or 'kernel_us' not in f:
			continue
		size, align, blocks = f['size'], f['align'], int(f['blocks'])
		label = f'{size}/{align}' + ('/4096' if size == '68' else '')
		k, d = int(f['kernel_us']), int(f['dmaguard_us'])
		pairs = blocks * rounds
		rows.append((label, int(size), blocks, k, d,
			     k * 1000 / pairs if pairs else None,
			     d * 1000 / pairs if pairs else None,
			     d / k if k else None))
	return rows, start


def pool_mt(bench):
	"""{cpus: (kernel_ops_per_s, dmaguard_ops_per_s, ratio, size, ms, reps)}
	of the BENCH pool-mt lines (ratio = dmaguard / kernel, higher is
	better); the last line per vCPU count wins."""
	reps = {f.get('cpus'): f for k, f in bench if k == 'pool-mt-reps'}
	res = {}
	for kind, f in bench:
		if kind != 'pool-mt':
			continue
		r = reps.get(f['cpus'], {})
		ms = int(r.get('ms', 0) or 0)
		scale = 1000 / ms if ms else 1
		n = len(r.get('kernel_ops', '').split(',')) if r else 0
		res[int(f['cpus'])] = (int(f['kernel_ops']) * scale,
				       int(f['dmaguard_ops']) * scale,
				       float(f['ratio']), f.get('size'), ms, n)
	return dict(sorted(res.items()))


def pin_rows(bench):
	"""{bytes: {'pin': (pin_ns, hit_ns, thp), 'pin-map@<backend>': ...}}
	of the BENCH pin and pin-map lines."""
	res = {}
	for kind, f in bench:
		if kind in ('pin', 'pin-map') and 'pin_unpin_ns' in f:
			if kind == 'pin-map':
				kind += '@' + f.get('backend', 'direct')
			res.setdefault(int(f['bytes']), {})[kind] = (
				int(f['pin_unpin_ns']), int(f['hit_ns']),
				f.get('thp') == '1')
	return dict(sorted(res.items()))


def size_label(n):
	for unit, div in (('MiB', 1 << 20), ('KiB', 1 << 10)):
		if n >= div and n % div == 0:
			return f'{n // div} {unit}'
	return f'{n} B'


# ---- build/bench/ (make bench) ----

def full_bench(bench_out):
	"""What `make bench` left in bench_out: {'rows': {(kver, backend): bench},
	'mt': {(kver, backend): bench of all vCPU counts}, 'pin': {kver:
	bench}, 'native': bench, 'tables': [(file, text)], 'when': mtime}, or
	None when there is nothing."""
	res = {'rows': {}, 'mt': {}, 'pin': {}, 'native': [], 'tables': [],
	       'when': 0}

	def load(path):
		res['when'] = max(res['when'], os.path.getmtime(path))
		out = []
		for ln in read_lines(path) or []:
			m = LINE.match(ln)
			if m and m.group(1) == 'BENCH':
				out.append((m.group(2), fields(m.group(3))))
		return out

	pat = os.path.join(bench_out, 'vm', '*', 'bench-*-smp*.bench')
	for path in sorted(glob.glob(pat)):
		kver = os.path.basename(os.path.dirname(path))
		m = re.match(r'bench-(.+)-smp(\d+)\.bench$', os.path.basename(path))
		if not m:
			continue
		lines = load(path)
		if m.group(2) == '1':
			res['rows'][(kver, m.group(1))] = lines
		res['mt'].setdefault((kver, m.group(1)), []).extend(lines)
	path = os.path.join(bench_out, 'pin.bench')
	if os.path.exists(path):
		for kind, f in load(path):
			res['pin'].setdefault(f.get('kernel', '?'), []).append((kind, f))
	path = os.path.join(bench_out, 'native.bench')
	if os.path.exists(path):
		res['native'] = load(path)
	for name in ('vm-rows.txt', 'vm-mt.txt', 'pin.txt'):
		path = os.path.join(bench_out, name)
		if os.path.exists(path):
			res['when'] = max(res['when'], os.path.getmtime(path))
			res['tables'].append((name, '\n'.join(read_lines(path)).strip()))
	if not (res['rows'] or res['mt'] or res['pin'] or res['native'] or res['tables']):
		return None
	return res
