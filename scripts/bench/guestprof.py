#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Name the blocks of a guest instruction profile (guestprof.c's output).

Usage: guestprof.py PROFILE SYMBOLS... [--channel N] [--per SYMBOL] [--top N]

SYMBOLS are files of kallsyms lines ("ADDR TYPE NAME [MODULE]"): the
kernel's System.map for a guest booted with nokaslr, and the guest's
/proc/kallsyms lines of the modules (in a serial log, other lines are
skipped). --per divides by the runs of SYMBOL's first block, so a
function's share reads as instructions per call of SYMBOL. --channel
picks the markers' channel (tests/kmod/dg_prof.h), 0 by default.
"""
import argparse
import bisect
import collections
import re
import sys

SYM = re.compile(r'([0-9a-f]{16}) [tTwW] (\S+)(?:\s+\[(\S+)\])?\s*$')


def load_symbols(paths):
	syms = {}
	for path in paths:
		with open(path, errors='replace') as f:
			for line in f:
				m = SYM.search(line.replace('\r', ''))
				if not m:
					continue
				addr = int(m.group(1), 16)
				if addr:
					name = m.group(2)
					if m.group(3):
						name += ' [' + m.group(3) + ']'
					syms.setdefault(addr, name)
	addrs = sorted(syms)
	return addrs, [syms[a] for a in addrs]


def main():
	ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
	ap.add_argument('profile')
	ap.add_argument('symbols', nargs='+')
	ap.add_argument('--per', help='divide by the calls of this function')
	ap.add_argument('--top', type=int, default=40)
	ap.add_argument('--channel', type=int, choices=(0, 1), default=0)
	a = ap.parse_args()

	addrs, names = load_symbols(a.symbols)
	if not addrs:
		sys.exit('guestprof: no symbol in ' + ' '.join(a.symbols))
	per_sym = collections.Counter()
	entry_runs = collections.Counter()
	starts = 0
	total = 0
	with open(a.profile) as f:
		for line in f:
			w = line.split()
			if w[0] == 'start':
				starts = int(w[1 + a.channel])
				continue
			vaddr, insns = int(w[0], 16), int(w[1])
			execs = int(w[2 + a.channel])
			if not execs:
				continue
			i = bisect.bisect_right(addrs, vaddr) - 1
			name = names[i] if i >= 0 else '?'
			per_sym[name] += insns * execs
			total += insns * execs
			if i >= 0 and addrs[i] == vaddr:
				entry_runs[name] += execs
	if not total:
		sys.exit('guestprof: nothing counted (no marker ran?)')
	calls = 0
	if a.per:
		calls = sum(n for s, n in entry_runs.items()
			    if s == a.per or s.startswith(a.per + ' ['))
		if not calls:
			sys.exit(f'guestprof: {a.per} never entered')
	print(f'# {total} instructions between {starts} start markers' +
	      (f', {calls} calls of {a.per}: {total / calls:.1f} a call' if calls else ''))
	hdr = 'per call' if calls else 'count'
	print(f'{hdr:>10} {"share":>6}  function')
	for name, n in per_sym.most_common(a.top):
		v = f'{n / calls:10.1f}' if calls else f'{n:10d}'
		print(f'{v} {100 * n / total:5.1f}%  {name}')


if __name__ == '__main__':
	main()
