#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Condense native/results-native*.txt and vm/results-guest.txt into tables."""
import re, os
here = os.getcwd()  # build/bench/chunk_table (run.sh)
def kv(line):
    return dict(re.findall(r'(\w+)=\s*([^\s]+)', line))
def native(path, title):
    rows = [l for l in open(path)]
    print(f"== {title} ({os.path.relpath(path, here)}) ==")
    print(rows[0].strip())
    print(f"{'op':6} {'keys':7} {'align':5} {'N':>5} | {'hash':>7} {'xa_abs':>7} {'xa_rel':>7} | {'h/xa_abs':>8} {'h/xa_rel':>8}")
    for l in rows:
        if l.startswith(('LOOKUP', 'INSERT', 'REMOVE')):
            d = kv(l); op = l.split()[0].lower()
            if op == 'lookup':
                op = l.split()[4]
            print(f"{op:6} {d['keys']:7} {d['align']:5} {d['n']:>5} | {float(d['hash_ns']):7.2f} {float(d['xa_abs_ns']):7.2f} {float(d['xa_rel_ns']):7.2f} | {float(d['ratio_abs']):8.2f} {float(d['ratio_rel']):8.2f}")
    print(f"{'mem':6} {'keys':7} {'align':5} {'N':>5} | hash slots(used) B/chunk | xa_abs nodes B/chunk | xa_rel nodes B/chunk")
    for l in rows:
        if l.startswith('MEM'):
            d = kv(l)
            print(f"{'mem':6} {d['keys']:7} {d['align']:5} {d['n']:>5} | {d['hash_slots']:>6}({d['used']:>5}) {float(d['hash_B_per_chunk']):6.1f} | {d['xa_abs_nodes']:>6} {float(d['xa_abs_B_per_chunk']):7.1f} | {d['xa_rel_nodes']:>6} {float(d['xa_rel_B_per_chunk']):7.1f}")
    print()
def guest(path):
    print(f"== guest kernel, QEMU TCG ({os.path.relpath(path, here)}) ==")
    for l in open(path):
        if 'start' in l: print(l.strip())
    print(f"{'op':6} {'keys':7} {'align':5} {'N':>5} | {'hash':>7} {'xa_abs':>8} {'xa_rel':>8} | {'h/xa_abs':>8} {'h/xa_rel':>8}")
    for l in open(path):
        if ' op=' in l:
            d = kv(l)
            print(f"{d['op']:6} {d['keys']:7} {d['align']:5} {d['n']:>5} | {float(d['hash_ns']):7.2f} {float(d['xa_ns']):8.2f} {float(d['xa_rel_ns']):8.2f} | {float(d['ratio']):8.2f} {float(d['ratio_rel']):8.2f}")
    print()
native(os.path.join(here, 'native/results-native.txt'), 'native, chunk 16 KiB')
native(os.path.join(here, 'native/results-native-64k.txt'), 'native, chunk 64 KiB')
native(os.path.join(here, 'native/results-native-dense.txt'), 'native, chunk 16 KiB, DENSE: chunks in a span of 4*N chunks')
native(os.path.join(here, 'native/results-native-run2.txt'), 'native, chunk 16 KiB, second run (machine loaded: load avg ~4)')
guest(os.path.join(here, 'vm/results-guest.txt'))
