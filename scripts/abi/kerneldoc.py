#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# `make kerneldoc` / check group kerneldoc: the kernel's own scripts/kernel-doc
# (from the newest installed linux-headers-*-common, or build/tools/linux)
# run with -none -Wall over the public headers (abi/include/dmaguard/*.h) and
# the ABI shim (abi/shim/*.c, *.h): every warning counts. kernel-doc only
# checks the comments that exist, so more rules ask that every function has
# one, in one place:
#
#  - the public interface is documented in the public headers, and only
#    there: every function they declare (static inline included) has a
#    kernel-doc block with a "Context:" line (which context may call it,
#    whether it sleeps, which lock it takes), and its definition in the
#    shim (DG_EXPORT) carries none;
#  - every other non-static function of the shim, the DMAGUARD_INTERNAL
#    test hooks (DG_EXPORT_INTERNAL) included, is documented at its
#    definition, and not again in a shim header; the hooks also need a
#    "Context:" line;
#  - no function is documented twice among all these files.
#
# One result line per file and rule, and two for the whole set:
#   ok - kerneldoc/<path>              kernel-doc -none -Wall: 0 warnings
#   ok - kerneldoc/<path>/documented   every function it should document
#                                      has a kernel-doc block (with Context:
#                                      where due), none it should not
#   ok - kerneldoc/exports             every DG_EXPORT() has its kernel-doc,
#                                      with Context:, in a public header
#   ok - kerneldoc/once                no function documented twice
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DOC_RE = re.compile(r'^ \* (\w+)\(\) - \S', re.M)
BLOCK_RE = re.compile(r'^/\*\*\n \* (\w+)\(\) - .*?\*/', re.M | re.S)
CONTEXT_RE = re.compile(r'^ \* Context: \S', re.M)
EXPORT_RE = re.compile(r'^DG_EXPORT\((\w+)\);', re.M)
INTERNAL_RE = re.compile(r'^DG_EXPORT_INTERNAL\((\w+)\);', re.M)
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


def doc_blocks(text):
	"""{function: its kernel-doc block} of a file."""
	return {m.group(1): m.group(0) for m in BLOCK_RE.finditer(text)}


def undocumented(path, header, exports=frozenset()):
	"""Problems of @path's kernel-doc placement, as short strings.
	@exports: names DG_EXPORT()ed by other files (defined in @path)."""
	with open(path) as f:
		text = f.read()
	blocks = doc_blocks(text)
	documented = set(DOC_RE.findall(text))
	exported = set(EXPORT_RE.findall(text)) | exports
	internal = set(INTERNAL_RE.findall(text))
	missing = []
	for name in sorted(exported & documented):
		missing.append(f'{name} (documented at its definition: the public '
			       'header has it)')
	for name in sorted(internal):
		if name in blocks and not CONTEXT_RE.search(blocks[name]):
			missing.append(f'{name} (no Context: line)')
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
			want = is_def and not static and name not in exported
		if want and name not in documented:
			missing.append(name)
		elif want and header and not CONTEXT_RE.search(blocks.get(name, '')):
			missing.append(f'{name} (no Context: line)')
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


PLANTED_HEADER = """/* SPDX-License-Identifier: GPL-2.0 */
/**
 * planted_ctx() - documented, but no context
 *
 * Return: 0.
 */
int planted_ctx(void);
"""

PLANTED_SHIM = """// SPDX-License-Identifier: GPL-2.0
/**
 * planted_ctx() - a second copy at the definition
 *
 * Context: Any context.
 * Return: 0.
 */
int planted_ctx(void)
{
	return 0;
}
DG_EXPORT(planted_ctx);

/**
 * planted_hook() - a test hook without a context
 *
 * Return: 0.
 */
int planted_hook(void)
{
	return 0;
}
DG_EXPORT_INTERNAL(planted_hook);
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
	with tempfile.NamedTemporaryFile('w', suffix='.h', delete=False) as f:
		f.write(PLANTED_HEADER)
	with tempfile.NamedTemporaryFile('w', suffix='.c', delete=False) as g:
		g.write(PLANTED_SHIM)
	try:
		hmiss = undocumented(f.name, True)
		smiss = undocumented(g.name, False)
		twice = documented_twice([f.name, g.name])
	finally:
		os.unlink(f.name)
		os.unlink(g.name)
	got = (any("'b' not described" in w for w in warns) and
	       any('return value' in w for w in warns) and miss == ['planted_none'])
	got2 = (hmiss == ['planted_ctx (no Context: line)'] and
		smiss == ['planted_ctx (documented at its definition: the public '
			  'header has it)', 'planted_hook (no Context: line)'] and
		twice == ['planted_ctx'])
	if got and got2:
		return ('ok - kerneldoc/selftest # planted: missing @b, Return:, '
			'kernel-doc block, Context: line, and a second copy at an '
			'export all caught')
	return (f'not ok - kerneldoc/selftest # planted files: {len(warns)} '
		f'warnings, undocumented {miss}, header {hmiss}, shim {smiss}, '
		f'twice {twice}')


def documented_twice(paths):
	"""Functions with a kernel-doc block in more than one of @paths."""
	seen = {}
	for path in paths:
		with open(path) as f:
			for name in set(DOC_RE.findall(f.read())):
				seen[name] = seen.get(name, 0) + 1
	return sorted(n for n, c in seen.items() if c > 1)


def exports_documented(headers, shims):
	"""DG_EXPORT()ed names without a kernel-doc block in a public header."""
	docs = {}
	for path in headers:
		with open(path) as f:
			docs.update(doc_blocks(f.read()))
	missing = []
	for path in shims:
		with open(path) as f:
			for name in EXPORT_RE.findall(f.read()):
				if name not in docs:
					missing.append(f'{name} (no kernel-doc)')
				elif not CONTEXT_RE.search(docs[name]):
					missing.append(f'{name} (no Context: line)')
	return sorted(missing)


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
	# pin_abi.c exports calls that pin_io.c defines
	exports = set()
	for path in files:
		if path.endswith('.c'):
			with open(path) as f:
				exports.update(EXPORT_RE.findall(f.read()))
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
		header = rel.startswith('abi/include/')
		miss = undocumented(path, header, frozenset() if header else exports)
		for m in miss:
			print(f'  {rel}: no kernel-doc for {m}', file=sys.stderr)
		if miss:
			out.append(f'not ok - kerneldoc/{rel}/documented # kernel-doc missing or misplaced: '
				   + ', '.join(miss))
		else:
			out.append(f'ok - kerneldoc/{rel}/documented')
	headers = [p for p in files if '/abi/include/' in p]
	shims = [p for p in files if p.endswith('.c')]
	miss = exports_documented(headers, shims)
	if miss:
		out.append('not ok - kerneldoc/exports # not documented in a public '
			   'header: ' + ', '.join(miss))
	else:
		out.append('ok - kerneldoc/exports # every DG_EXPORT() documented, with '
			   'Context:, in abi/include/dmaguard/')
	twice = documented_twice(files)
	if twice:
		out.append('not ok - kerneldoc/once # documented more than once: '
			   + ', '.join(twice))
	else:
		out.append('ok - kerneldoc/once # no function documented twice')
	out.append(selftest(kdoc))
	print('\n'.join(out))
	return 0 if all(ln.startswith('ok') for ln in out) else 1


if __name__ == '__main__':
	sys.exit(main())
