#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the lock-prefixed (atomic) instructions a callgrind run executed.

    locked-instructions.py CALLGRIND_OUT

CALLGRIND_OUT must come from valgrind --tool=callgrind --dump-instr=yes
--compress-pos=no --compress-strings=no (one cost line per instruction
address). Every object named in it is disassembled with objdump; an
instruction is atomic when it has a lock prefix, or is an xchg with a
memory operand (implicitly locked on x86). Prints the executed count of
each kind and their sum: "locked=N lock_prefix=N xchg_mem=N".
"""
import re
import subprocess
import sys



def atomic_addresses(obj):
    """Addresses of obj's atomic instructions: {addr: kind}."""
    out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', obj],
                         capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r'^\s*([0-9a-f]+):\s+(.*)$', line)
        if not m:
            continue
        text = m.group(2).strip()
        if text.startswith('lock '):
            found[int(m.group(1), 16)] = 'lock_prefix'
        elif re.match(r'xchg\s+\S*\(', text) or re.match(r'xchg\s+%\w+,.*\(', text):
            found[int(m.group(1), 16)] = 'xchg_mem'
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    counts = {'lock_prefix': 0, 'xchg_mem': 0}
    atomics = {}
    skip_next = False
    with open(sys.argv[1]) as f:
        for line in f:
            if line.startswith('ob='):
                obj = line[3:].strip()
                if obj not in atomics:
                    try:
                        atomics[obj] = atomic_addresses(obj)
                    except (OSError, subprocess.CalledProcessError):
                        atomics[obj] = {}
                cur = atomics[obj]
                continue
            if line.startswith('calls='):
                # the next line is the call's inclusive cost: not ours
                skip_next = True
                continue
            if not line.startswith('0x'):
                continue
            if skip_next:
                skip_next = False
                continue
            parts = line.split()
            kind = cur.get(int(parts[0], 16))
            if kind and len(parts) >= 3:
                counts[kind] += int(parts[2])
    print(f"locked={counts['lock_prefix'] + counts['xchg_mem']} "
          f"lock_prefix={counts['lock_prefix']} xchg_mem={counts['xchg_mem']}")


if __name__ == '__main__':
    main()
