#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Convert a whole driver directory from dma_pool to dmaguard.

Usage: convert-driver.py [--modules M1,M2] DRIVER_DIR OUT_DIR
       (make convert DRIVER= OUT=)

Copies DRIVER_DIR (a directory of a kernel source tree, with its Makefile
or Kbuild) to OUT_DIR and converts the copy. Every rewrite is done by
semantic-patches/dma_pool-to-dmaguard.cocci; this script only decides
which files each of its modes runs on:

1. -D patch -D no_import on every .c and .h that names the kernel's pool
   (files that only allocate or free from a pool created elsewhere, and
   headers that hold the pool pointer, included);
2. -D import_only on the one file of each module that has MODULE_LICENSE(),
   for every module that calls dmaguard (in its objects, the .c files they
   include or a local header's inline function): one namespace import per
   module. The modules and their objects are read from the Makefile.

--modules: only the files of these modules (names as the Makefile gives
them, relative to DRIVER_DIR) and the local files they include.

Managed pools (dmam_pool_*) become dmaguard's (dmaguard_pool_*_managed,
ABI v1.2). Prints one line per file and module; exit 1 when something was
left to a human.
"""

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

DMAGUARD_CALL = re.compile(r"\bdmaguard_pool_[a-z_]+\s*\(")
POOL_NAME = re.compile(
    r"\b(dma_pool_(create|create_node|alloc|zalloc|free|destroy)\s*\(|"
    r"dmam_pool_(create|destroy)\s*\(|struct\s+dma_pool\b)")
LICENSE = re.compile(r"^\s*MODULE_LICENSE\s*\(", re.M)
LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# obj-y, obj-m, obj-$(CONFIG_X) ... += a.o b/  and  foo-y/-objs/-$(X) += ...
# (also $(CONFIG_X:m=y), as ixgbe's FCoE objects)
OBJ_LINE = re.compile(
    r"^\s*obj-(y|m|\$\(([A-Za-z0-9_]+)(?::[^)]*)?\))\s*[:+]?=(.*)$")
PART_LINE = re.compile(
    r"^\s*([A-Za-z0-9_.-]+)-(?:y|objs|\$\([A-Za-z0-9_]+(?::[^)]*)?\))"
    r"\s*[:+]?=(.*)$")
NOT_MODULES = {"obj", "ccflags", "asflags", "ldflags", "subdir", "always",
               "hostprogs", "extra", "lib", "targets", "clean"}


def code(text):
    """text without its comments (a comment may name the pool)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def makefile_lines(dirpath):
    """Logical lines of the directory's Kbuild or Makefile (joined)."""
    for name in ("Kbuild", "Makefile"):
        path = os.path.join(dirpath, name)
        if os.path.isfile(path):
            text = re.sub(r"\\\n", " ", read(path))
            return [line.split("#", 1)[0] for line in text.splitlines()]
    return []


def modules_of(top, configs=None):
    """{module name: [its .c files]} for top and the subdirectories its
    Makefiles descend into, paths relative to top; @configs, if given, gets
    {module name: the CONFIG_ symbol of its obj- line, or "y"/"m"}."""
    modules = {}
    todo = [""]
    while todo:
        rel = todo.pop()
        names, parts = [], {}
        for line in makefile_lines(os.path.join(top, rel)):
            m = OBJ_LINE.match(line)
            if m:
                for word in m.group(3).split():
                    if word.endswith("/"):
                        todo.append(os.path.join(rel, word.rstrip("/")))
                    elif word.endswith(".o"):
                        names.append(word[:-2])
                        if configs is not None:
                            configs[os.path.join(rel, word[:-2])] = \
                                m.group(2) or m.group(1)
                continue
            m = PART_LINE.match(line)
            if m and m.group(1) not in NOT_MODULES:
                parts.setdefault(m.group(1), []).extend(
                    w[:-2] for w in m.group(2).split() if w.endswith(".o"))
        for name in names:
            objs = parts.get(name) or [name]
            modules[os.path.join(rel, name)] = [
                os.path.normpath(os.path.join(rel, o + ".c")) for o in objs]
    return modules


def with_included(top, files):
    """files plus the local files they #include (.c and .h), transitively."""
    seen, todo = set(), list(files)
    while todo:
        rel = todo.pop()
        if rel in seen or not os.path.isfile(os.path.join(top, rel)):
            continue
        seen.add(rel)
        for inc in LOCAL_INCLUDE.findall(read(os.path.join(top, rel))):
            todo.append(os.path.normpath(
                os.path.join(os.path.dirname(rel), inc)))
    return seen


def spatch(rule, modes, paths):
    """The rule on each file alone (files given together would share the
    rule's dependencies: an include found in one would count for all)."""
    cmd = ["spatch", "--very-quiet", "--no-includes", "--in-place",
           "--sp-file", rule]
    for mode in modes:
        cmd += ["-D", mode]

    def one(path):
        res = subprocess.run(cmd + [path], capture_output=True, text=True,
                             check=False)
        if res.returncode:
            sys.stderr.write(f"{path}: {res.stdout}{res.stderr}")
        return res.returncode == 0

    with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
        return all(list(ex.map(one, paths)))


def main():
    args = sys.argv[1:]
    only = None
    if len(args) == 4 and args[0] == "--modules":
        only = set(args[1].split(","))
        args = args[2:]
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n", 2)[1])
    src, out = (os.path.abspath(p) for p in args)
    rule = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "semantic-patches", "dma_pool-to-dmaguard.cocci")
    if not os.path.isdir(src):
        sys.exit(f"convert: {src}: not a directory")
    if os.path.exists(out) and os.listdir(out):
        sys.exit(f"convert: {out}: exists and is not empty")
    shutil.copytree(src, out, dirs_exist_ok=True, symlinks=True)

    sources = []
    for dirpath, _, files in os.walk(out):
        for name in files:
            if name.endswith((".c", ".h")):
                sources.append(os.path.relpath(os.path.join(dirpath, name),
                                               out))
    sources.sort()
    text = {rel: read(os.path.join(out, rel)) for rel in sources}
    modules = modules_of(out)
    members = {mod: with_included(out, objs) for mod, objs in modules.items()}

    left = 0
    if only is not None:
        unknown = only - set(members)
        if unknown:
            sys.exit(f"convert: no module {', '.join(sorted(unknown))} "
                     f"in {src}")
        members = {m: f for m, f in members.items() if m in only}
        chosen = set().union(*members.values())
        sources = [r for r in sources if r in chosen]
    todo = [r for r in sources if POOL_NAME.search(code(text[r]))]
    if todo and not spatch(rule, ["patch", "no_import"],
                           [os.path.join(out, r) for r in todo]):
        sys.exit("convert: spatch failed")
    converted, calls = set(), set()
    for rel in todo:
        after = read(os.path.join(out, rel))
        if POOL_NAME.search(code(after)):
            print(f"left    {rel}: a dma_pool name the rule did not convert")
            left += 1
        elif after != text[rel]:
            converted.add(rel)
            if DMAGUARD_CALL.search(code(after)):
                calls.add(rel)
            print(f"convert {rel}")

    # A module whose files (or headers) only name the struct needs no import.
    for mod, files in sorted(members.items()):
        if not files & calls:
            continue
        lic = sorted(f for f in files if f.endswith(".c") and
                     LICENSE.search(read(os.path.join(out, f))))
        if not lic:
            print(f"left    {mod}: converted, but no file of it has "
                  "MODULE_LICENSE() for the namespace import")
            left += 1
            continue
        if not spatch(rule, ["import_only"], [os.path.join(out, lic[0])]):
            sys.exit("convert: spatch failed")
        ns = sum(read(os.path.join(out, f)).count("DMAGUARD_IMPORT_NS()")
                 for f in files if os.path.isfile(os.path.join(out, f)))
        print(f"module  {mod}: import in {lic[0]} ({ns} in the module)")
        if ns != 1:
            left += 1
    print(f"convert: {len(converted)} files converted, {left} left to a "
          "human")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
