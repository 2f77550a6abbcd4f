#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make docs / make check-docs: the API reference from the public headers.

    check.py --build OUT      abi/docs/ -> OUT (HTML; sphinx-build -W,
                              the kernel's kernel-doc directive)
    check.py --check RESULTS  build into build/docs/html and judge it, TAP
                              lines into RESULTS

The check: the build has no warning; every function dmaguard.ko exports
(abi/baseline/exports.txt) and every struct of the public headers has
its entry (an anchor "c.<name>") in api.html; the page renders in
headless Chromium (scripts/report/check-page.py's screenshot test: not
blank). Planted: a copy of the tree whose pool.h lost the kernel-doc of
dmaguard_pool_free() must fail the coverage test.
"""
import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SPHINX = "/usr/bin/sphinx-build"	# Debian's python3-sphinx, not a venv's


def build(top, out):
    """sphinx-build -W of top/abi/docs into out: (ok, its output)."""
    if os.path.isdir(out):
        shutil.rmtree(out)
    p = subprocess.run([SPHINX, "-W", "-q", "-b", "html",
                        os.path.join(top, "abi", "docs"), out],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return p.returncode == 0, p.stdout.strip()


def public_names(top):
    """Exported functions and the public headers' structs."""
    names = []
    with open(os.path.join(top, "abi", "baseline", "exports.txt")) as f:
        for ln in f:
            if ln.strip() and not ln.startswith("#"):
                names.append(ln.split()[0])
    inc = os.path.join(top, "abi", "include", "dmaguard")
    for h in sorted(os.listdir(inc)):
        with open(os.path.join(inc, h)) as f:
            names += re.findall(r"^struct (dmaguard_\w+) \{", f.read(), re.M)
    return sorted(set(names))


def missing(top, out):
    with open(os.path.join(out, "api.html")) as f:
        html = f.read()
    return [n for n in public_names(top) if 'id="c.%s"' % n not in html]


def render(page, png):
    """check-page.py's screenshot test: (ok, what it saw)."""
    spec = importlib.util.spec_from_file_location(
        "check_page", os.path.join(TOP, "scripts", "report", "check-page.py"))
    cp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cp)
    rc, _ = cp.render(page, png)
    if rc or not os.path.exists(png):
        return False, "chromium exited %d" % rc
    colours, ink = cp.ink(png)
    ok = colours >= 4 and ink >= cp.MIN_INK
    return ok, "%d colours, %.1f%% ink" % (colours, 100 * ink)


def planted(work):
    """A tree whose pool.h lost one function's kernel-doc."""
    tree = os.path.join(work, "tree")
    shutil.copytree(os.path.join(TOP, "abi"), os.path.join(tree, "abi"))
    os.makedirs(os.path.join(tree, "build"))
    os.symlink(os.path.join(TOP, "build", "tools"),
               os.path.join(tree, "build", "tools"))
    h = os.path.join(tree, "abi", "include", "dmaguard", "pool.h")
    with open(h) as f:
        text = f.read()
    text, n = re.subn(r"/\*\*\n \* dmaguard_pool_free\(\).*?\*/\n", "", text,
                      flags=re.S)
    if n != 1:
        return None
    with open(h, "w") as f:
        f.write(text)
    out = os.path.join(work, "planted-html")
    build(tree, out)
    return missing(tree, out)


def check(results):
    lines = []

    def tap(ok, name, why=""):
        lines.append("%sok - docs/%s%s" % ("" if ok else "not ", name,
                                            " # " + why if why else ""))
        print(lines[-1])

    out = os.path.join(TOP, "build", "docs", "html")
    ok, log = build(TOP, out)
    tap(ok, "build", "" if ok else log.splitlines()[-1] if log else "failed")
    if ok:
        gone = missing(TOP, out)
        tap(not gone, "coverage", "%d public names" % len(public_names(TOP))
            if not gone else "not in api.html: " + " ".join(gone))
        ok, saw = render(os.path.join(out, "api.html"),
                         os.path.join(TOP, "build", "docs", "api.png"))
        tap(ok, "render", saw)
    work = tempfile.mkdtemp(prefix="dg-docs-")
    try:
        gone = planted(work)
        tap(gone == ["dmaguard_pool_free"], "planted/undocumented-export",
            "caught: %s" % gone if gone else "the coverage test passed it")
    finally:
        shutil.rmtree(work)
    with open(results, "w") as f:
        f.write("\n".join(lines) + "\n")
    return all(not ln.startswith("not ok") for ln in lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build")
    ap.add_argument("--check")
    args = ap.parse_args()
    if args.build:
        ok, log = build(TOP, args.build)
        if log:
            print(log)
        if ok:
            print("  DOCS    " + os.path.join(args.build, "index.html"))
        return 0 if ok else 1
    if args.check:
        return 0 if check(args.check) else 1
    ap.error("--build or --check")


if __name__ == "__main__":
    sys.exit(main())
