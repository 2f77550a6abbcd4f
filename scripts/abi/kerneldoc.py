#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# `make kerneldoc` / check group kerneldoc: the kernel's own scripts/kernel-doc
# (from the newest installed linux-headers-*-common, or build/tools/linux)
# run with -none -Wall over the public headers (abi/include/dmaguard/*.h) and
# the ABI shim (abi/shim/*.c, *.h): every warning counts. kernel-doc only
# checks the comments that exist, so a second rule per file asks that every
# function has one: in the public headers every function (static inline
# included), in the shim every non-static function.
#
# One result line per file and rule:
#   ok - kerneldoc/<path>              kernel-doc -none -Wall: 0 warnings
#   ok - kerneldoc/<path>/documented   every function has a kernel-doc block
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DOC_RE = re.compile(r'^ \* (\w+)\(\) - \S', re.M)
HEAD_RE = re.compile(r'^(.*?)\b([A-Za-z_]\w*)\s*\((.*)\)\s*$', re.S)


def find_kernel_doc():
	cands = sorted(glob.glob('/usr/src/linux-headers-*-common/scripts/kernel-doc'),
		       key=lambda p: [int(x) if x.isdigit() else x
				      for x in re.split(r'(\d+)', p)])
	local = os.path.join(TOP, 'build/tools/linux/scripts/kernel-doc')
	if os.path.exists(local):
		cands.append(local)
	return cands[-1] if cands else None


def top_level_items(text):
	"""(head, is_definition) of every file-scope declaration/definition."""
	text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
	text = re.sub(r'//[^\n]*', ' ', text)
	text = re.sub(r'^[ \t]*#(?:[^\n]*\\\n)*[^\n]*', ' ', text, flags=re.M)
	items, cur, depth = [], [], 0
	for ch in text:
		if depth:
			depth += {'{': 1, '}': -1}.get(ch, 0)
			continue
		if ch == '{':
			items.append((''.join(cur), True))
			cur, depth = [], 1
		elif ch == ';':
			items.append((''.join(cur), False))
			cur = []
		else:
			cur.append(ch)
	return items


def undocumented(path, header):
	"""Functions of @path that need a kernel-doc block and have none."""
	with open(path) as f:
		text = f.read()
	documented = set(DOC_RE.findall(text))
	missing = []
	for head, is_def in top_level_items(text):
		head = ' '.join(head.split())
		m = HEAD_RE.match(head)
		if not m or '=' in m.group(1) or m.group(1).startswith('struct {'):
			continue
		name = m.group(2)
		if name[0] == '_' or name.isupper() or not m.group(1).strip():
			continue	# macro invocation or _Static_assert
		static = re.match(r'(?:\w+\s+)*?static\b', m.group(1)) is not None
		if header:
			want = True
		else:
			want = is_def and not static
		if want and name not in documented:
			missing.append(name)
	return missing


PLANTED = """// SPDX-License-Identifier: GPL-2.0
/**
 * planted_half() - a parameter and the return value left undocumented
 * @a: documented
 */
int planted_half(int a, int b)
{
	return a + b;
}

int planted_none(int a)
{
	return a;
}
"""


def selftest(kdoc):
	"""The gate must see a planted missing @b, Return: and kernel-doc block."""
	import tempfile
	with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as f:
		f.write(PLANTED)
	try:
		r = subprocess.run(['perl', kdoc, '-none', '-Wall', f.name],
				   capture_output=True, text=True)
		warns = [ln for ln in r.stderr.splitlines() if 'warning' in ln]
		miss = undocumented(f.name, False)
	finally:
		os.unlink(f.name)
	got = (any("'b' not described" in w for w in warns) and
	       any('return value' in w for w in warns) and miss == ['planted_none'])
	if got:
		return ('ok - kerneldoc/selftest # planted: missing @b, Return: and '
			'kernel-doc block all caught')
	return (f'not ok - kerneldoc/selftest # planted file: {len(warns)} '
		f'warnings, undocumented {miss}')


def main():
	kdoc = find_kernel_doc()
	files = sorted(glob.glob(os.path.join(TOP, 'abi/include/dmaguard/*.h')))
	files += sorted(glob.glob(os.path.join(TOP, 'abi/shim/*.h')))
	files += sorted(glob.glob(os.path.join(TOP, 'abi/shim/*.c')))
	out = []
	if not kdoc:
		print('not ok - kerneldoc/tool # no scripts/kernel-doc found '
		      '(linux-headers-*-common, or build/tools/linux)')
		return 1
	print(f'# kernel-doc: {kdoc}', file=sys.stderr)
	for path in files:
		rel = os.path.relpath(path, TOP)
		r = subprocess.run(['perl', kdoc, '-none', '-Wall', path],
				   capture_output=True, text=True)
		warns = [ln for ln in (r.stderr + r.stdout).splitlines()
			 if 'warning' in ln.lower() or 'error' in ln.lower()]
		for w in warns:
			print('  ' + w, file=sys.stderr)
		if warns or r.returncode:
			out.append(f'not ok - kerneldoc/{rel} # {len(warns)} warnings, exit {r.returncode}')
		else:
			out.append(f'ok - kerneldoc/{rel}')
		miss = undocumented(path, rel.startswith('abi/include/'))
		for m in miss:
			print(f'  {rel}: no kernel-doc for {m}', file=sys.stderr)
		if miss:
			out.append(f'not ok - kerneldoc/{rel}/documented # no kernel-doc: '
				   + ', '.join(miss))
		else:
			out.append(f'ok - kerneldoc/{rel}/documented')
	out.append(selftest(kdoc))
	print('\n'.join(out))
	return 0 if all(ln.startswith('ok') for ln in out) else 1


if __name__ == '__main__':
	sys.exit(main())
