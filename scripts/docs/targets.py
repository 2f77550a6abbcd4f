#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make help: every target, one line each, from the head comments of
Makefile and scripts/mk/*.mk ("#   make <target> [args]   what it does").

    targets.py --help-text      the list `make help` prints
    targets.py --check RESULTS  TAP lines appended to RESULTS: every phony
                                target is described (or internal, below)
                                and every described one exists (nothing
                                stale); planted: a described target that
                                does not exist is caught
"""
import argparse
import glob
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Phony targets that are steps of others, not commands for a user.
INTERNAL = {
    "all": "the default goal, `make` (Makefile's head)",
    "deps": "every target's first prerequisite",
    "check-prep": "the userspace programs several check groups share",
    "vm-bins": "the guest programs of the VM specs",
    "vm-deps": "what the VM targets need before booting",
    "vm-modules": "the modules of every kernel for the VM targets",
    "vm-consumers": "the consumer modules, for the VM specs",
    "modules-test": "`make modules DMAGUARD_TEST_HOOKS=1`, described",
    "fuzz-build": "the fuzzer binaries of make fuzz and check-fuzz",
    "kmod-rust": "the Rust module of the rust specs",
    "unit": "the unit binaries, run by check-unit",
}


def described(files):
    """[(target, its description)] in file order: the text after
    "#   make <target> [args]", continued on the comment lines indented
    under it, up to its first sentence (or 100 characters)."""
    head = re.compile(r"#\s+make ([a-z][a-z0-9-]*)((?: [A-Z_]+=\S*| \[[^]]*\])*)\s*(.*)$")
    out = []
    for path in files:
        cur = None
        with open(path) as f:
            for ln in f:
                m = head.match(ln)
                if m:
                    cur = [m.group(1), m.group(2).strip(), m.group(3).strip()]
                    out.append(cur)
                    continue
                cont = re.match(r"#(\s{6,})(\S.*)$", ln)
                if cur and cont and not ln.lstrip("# ").startswith("make "):
                    cur[2] = (cur[2] + " " + cont.group(2)).strip()
                else:
                    cur = None
    result = []
    for t, args, text in out:
        first = first_clause(text)
        if len(first) > 100:
            first = first[:100].rsplit(" ", 1)[0] + " ..."
        result.append((t, (args + "  " + first).strip()))
    return result


def first_clause(text):
    """@text up to its first ";" or sentence end outside parentheses."""
    depth = 0
    for i, c in enumerate(text):
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth:
            continue
        if c == ";" or (c == "." and text[i + 1:i + 3].strip()[:1].isupper()):
            return text[:i]
    return text.rstrip(".")


def mk_files(top):
    return [os.path.join(top, "Makefile")] + sorted(glob.glob(os.path.join(top, "scripts", "mk", "*.mk")))


def phony(top):
    p = subprocess.run(["make", "-C", top, "-pRrq", "-f", "Makefile", ":"],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       universal_newlines=True)
    names, groups = set(), set()
    for ln in p.stdout.splitlines():
        if ln.startswith(".PHONY:"):
            names.update(ln.split()[1:])
        m = re.match(r"CHECK_GROUPS(?:_FIRST|_LAST)? :?= (.*)", ln)
        if m:
            groups.update(m.group(1).split())
    return names, groups


def judge(top, extra=()):
    """(undescribed, stale) for the tree at @top."""
    desc = described(mk_files(top)) + list(extra)
    names, groups = phony(top)
    have = {t for t, _ in desc}
    # `make check-<group>` is described once, in the Makefile's head.
    undescribed = sorted(n for n in names
                         if n not in have and n not in INTERNAL and
                         not (n.startswith("check-") and n[6:] in groups))
    stale = sorted(t for t in have if t not in names)
    return undescribed, stale


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--help-text", action="store_true")
    ap.add_argument("--check")
    args = ap.parse_args()
    if args.help_text:
        seen = set()
        for t, d in described(mk_files(TOP)):
            if t in seen:
                continue
            seen.add(t)
            print("  make %-16s %s" % (t, d))
        print("  make check-<group>    one check group of make check: %s" %
              " ".join(sorted(phony(TOP)[1])))
        return 0
    if args.check:
        lines = []
        undescribed, stale = judge(TOP)
        lines.append("%sok - docs/targets/described%s" % (
            "not " if undescribed else "",
            " # no description in Makefile or scripts/mk/*.mk: " + " ".join(undescribed)
            if undescribed else ""))
        lines.append("%sok - docs/targets/not-stale%s" % (
            "not " if stale else "",
            " # described, but no such target: " + " ".join(stale) if stale else ""))
        _, stale = judge(TOP, [("no-such-target", "planted")])
        lines.append("%sok - docs/planted/stale-target%s" % (
            "" if stale == ["no-such-target"] else "not ",
            " # caught" if stale == ["no-such-target"] else " # not caught"))
        with open(args.check, "a") as f:
            f.write("\n".join(lines) + "\n")
        print("\n".join(lines))
        return 0 if all(not ln.startswith("not") for ln in lines) else 1
    ap.error("--help-text or --check")


if __name__ == "__main__":
    sys.exit(main())
