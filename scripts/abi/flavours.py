#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The two flavours of dmaguard.ko (./Kbuild) for one kernel, from their
# Module.symvers and .ko files (called by scripts/abi/abi-check.sh):
#
#   abi/flavours/<kver>/production    the production module exports in
#                                     namespace DMAGUARD_V1 only: no
#                                     DMAGUARD_INTERNAL test hook
#   abi/flavours/<kver>/test-hooks    the test flavour exports the hooks, in
#                                     DMAGUARD_INTERNAL and nowhere else
#   abi/flavours/<kver>/same-v1       both export the same DMAGUARD_V1
#                                     symbols with the same CRCs (a driver
#                                     built against one loads with the other)
#   abi/flavours/<kver>/no-variables  every export of either flavour is a
#                                     function (nm type T): no exported data
#
# Usage: flavours.py KVER PROD_SYMVERS PROD_KO TEST_SYMVERS TEST_KO
import subprocess
import sys


def symvers(path):
	"""{symbol: (crc, namespace)} of dmaguard's exports in a Module.symvers."""
	out = {}
	with open(path) as f:
		for line in f:
			cols = line.rstrip('\n').split('\t')
			if len(cols) < 4:
				continue
			ns = cols[4] if len(cols) > 4 else ''
			out[cols[1]] = (cols[0], ns.strip('"'))
	return out


def text_symbols(ko):
	"""Names nm lists as global text (T) in a module."""
	r = subprocess.run(['nm', '--defined-only', ko], capture_output=True,
			   text=True, check=True)
	return {f[2] for f in (ln.split() for ln in r.stdout.splitlines())
		if len(f) == 3 and f[1] == 'T'}


def main():
	kver, psym, pko, tsym, tko = sys.argv[1:6]
	pre = f'abi/flavours/{kver}'
	prod, test = symvers(psym), symvers(tsym)
	lines = []

	bad = sorted(s for s, (_, ns) in prod.items() if ns != 'DMAGUARD_V1')
	if bad:
		lines.append(f'not ok - {pre}/production # exports outside DMAGUARD_V1: '
			     + ', '.join(f'{s} ({prod[s][1] or "no namespace"})' for s in bad))
	elif not prod:
		lines.append(f'not ok - {pre}/production # no export at all in {psym}')
	else:
		lines.append(f'ok - {pre}/production # {len(prod)} exports, all in DMAGUARD_V1, '
			     'no DMAGUARD_INTERNAL')

	hooks = sorted(s for s, (_, ns) in test.items() if ns == 'DMAGUARD_INTERNAL')
	other = sorted(s for s, (_, ns) in test.items()
		       if ns not in ('DMAGUARD_V1', 'DMAGUARD_INTERNAL'))
	if not hooks or other:
		lines.append(f'not ok - {pre}/test-hooks # {len(hooks)} DMAGUARD_INTERNAL '
			     f'exports; outside both namespaces: {other}')
	else:
		lines.append(f'ok - {pre}/test-hooks # DMAGUARD_INTERNAL: ' + ', '.join(hooks))

	v1p = {s: v for s, v in prod.items() if v[1] == 'DMAGUARD_V1'}
	v1t = {s: v for s, v in test.items() if v[1] == 'DMAGUARD_V1'}
	if v1p != v1t:
		diff = sorted(s for s in set(v1p) | set(v1t) if v1p.get(s) != v1t.get(s))
		lines.append(f'not ok - {pre}/same-v1 # differ: ' + ', '.join(diff))
	else:
		lines.append(f'ok - {pre}/same-v1 # {len(v1p)} DMAGUARD_V1 exports, same CRCs')

	data = []
	for ko, exp in ((pko, prod), (tko, test)):
		text = text_symbols(ko)
		data += [s for s in exp if s not in text]
	if data:
		lines.append(f'not ok - {pre}/no-variables # exported but not a function: '
			     + ', '.join(sorted(set(data))))
	else:
		lines.append(f'ok - {pre}/no-variables # every export of both flavours is a function')

	print('\n'.join(lines))
	return 0 if all(ln.startswith('ok') for ln in lines) else 1


if __name__ == '__main__':
	sys.exit(main())
