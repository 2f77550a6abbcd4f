#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# The size-carrying structs must not enter the symbol versions of the calls
# taking them (<dmaguard/pool.h>). gendwarfksyms (CONFIG_GENDWARFKSYMS,
# 6.14 on) computes a CRC from the DWARF of the object that exports the
# symbol, so that object's DWARF may know the structs by name only: a
# DW_TAG_structure_type with DW_AT_declaration, no members, no size. This
# reads the DWARF of every object of a dmaguard.ko build that exports one of
# the calls (a __ksymtab_<name> or __export_symbol_<name> symbol) and prints one line per kernel
# (called by scripts/abi/abi-check.sh):
#
#   ok - abi/dwarf-opaque/<kver> # <object>: declarations only
#
# Usage: dwarf-opaque.py KVER BUILD_SRC_DIR
import os
import re
import subprocess
import sys

STRUCTS = ('dmaguard_pool_opts', 'dmaguard_pool_stats',
	   'dmaguard_pin_opts', 'dmaguard_pin', 'dmaguard_pin_stats')
CALLS = ('dmaguard_pool_create_opts', 'dmaguard_pool_get_stats',
	 'dmaguard_pin_cache_create', 'dmaguard_pin_get',
	 'dmaguard_pin_put', 'dmaguard_pin_cache_stats')


def exporters(src):
	"""Objects of dmaguard.ko (its kbuild .mod list) that export a call."""
	found = {}
	with open(os.path.join(src, 'dmaguard.mod')) as f:
		objs = f.read().split()
	for o in objs:
		path = o if os.path.isabs(o) else os.path.join(src, o)
		r = subprocess.run(['nm', path], capture_output=True, text=True)
		names = {ln.split()[-1] for ln in r.stdout.splitlines() if ln.strip()}
		# __ksymtab_<sym> up to 6.4, __export_symbol_<sym> later
		calls = [c for c in CALLS if f'__ksymtab_{c}' in names or
			 f'__export_symbol_{c}' in names]
		if calls:
			found[path] = calls
	return found


def struct_dies(obj):
	"""[(name, attributes)] of the structure DIEs named in STRUCTS."""
	r = subprocess.run(['readelf', '--wide', '--debug-dump=info', obj],
			   capture_output=True, text=True, check=True)
	dies, cur = [], None
	for ln in r.stdout.splitlines():
		m = re.match(r'\s*<\d+><[0-9a-f]+>: Abbrev Number: \d+ \((\w+)\)', ln)
		if m:
			cur = {'tag': m.group(1), 'attrs': {}}
			dies.append(cur)
			continue
		m = re.match(r'\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s*(.*)', ln)
		if m and cur is not None:
			cur['attrs'][m.group(1)] = m.group(2)
	out = []
	for d in dies:
		if d['tag'] != 'DW_TAG_structure_type':
			continue
		name = d['attrs'].get('DW_AT_name', '').split(': ')[-1].strip()
		if name in STRUCTS:
			out.append((name, d['attrs']))
	return out


def main():
	kver, src = sys.argv[1:3]
	objs = exporters(src)
	if not objs:
		print(f'not ok - abi/dwarf-opaque/{kver} # no object under {src} exports '
		      + ' or '.join(CALLS))
		return 1
	bad, seen = [], 0
	for obj, calls in sorted(objs.items()):
		for name, attrs in struct_dies(obj):
			seen += 1
			if 'DW_AT_declaration' not in attrs or 'DW_AT_byte_size' in attrs:
				bad.append(f'{os.path.relpath(obj, src)}: struct {name} '
					   f'defined (size {attrs.get("DW_AT_byte_size", "?")})')
	rels = ', '.join(os.path.relpath(o, src) for o in sorted(objs))
	if bad:
		print(f'not ok - abi/dwarf-opaque/{kver} # ' + '; '.join(bad)
		      + ': gendwarfksyms would version the layout')
		return 1
	if not seen:
		print(f'not ok - abi/dwarf-opaque/{kver} # {rels}: no DWARF of the '
		      'structs at all (built without debug info?)')
		return 1
	print(f'ok - abi/dwarf-opaque/{kver} # {rels}: the size-carrying structs '
	      'are declarations only in the DWARF gendwarfksyms would read')
	return 0


if __name__ == '__main__':
	sys.exit(main())
