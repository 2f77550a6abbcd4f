#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make kernel-series: dmaguard's pool core as a patch series for mm/dmapool.c.

    generate.py --src LINUX_TREE --out DIR
    generate.py --src LINUX_TREE --test-file FILE
                              only mm/dmapool_test.c as the series leaves
                              it (built for the baseline kernel as an
                              outside module: the contrast of
                              tests/vm/inkernel/dmapool-contrast.vmtest)
    generate.py --inputs      the files it reads from dmaguard to write the
                              patches (the cache key of the hardened kernel
                              hashes them; not the cover letter's text)

Writes DIR/0000-cover-letter.patch and one patch per step (git
format-patch) against LINUX_TREE (Debian's linux-source-6.12). Everything
comes from the project's sources; nothing of it is kept a second time:

  mm/dmapool.c       the core (c-core/, listed in CORE) renamed to the
                     kernel's names (RENAMES), its functions made static,
                     placed into c-core/platform/mainline/dmapool.c, under
                     the tree's own copyright lines
  mm/dmapool_test.c  the tree's test plus the cases of
                     tests/kernel-series/*.c, inserted at fixed anchors
  messages           scripts/kernel-series/messages/NNNN-*.txt (subject on
                     the first line, then the body)

The output is byte-identical for identical inputs (fixed author and
dates, zero commit ids), so `make check-kernel-series` can regenerate it
and compare. Every edit must apply exactly: a tree or core that changed
under us fails here with a message, never with a silently different file.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "scripts", "kernel-series")

# The core, in the order one file needs it: (path, keep its head comment).
CORE = [
    ("c-core/dg_dma_space.h", False),
    ("c-core/platform/kernel/dg_platform.h", None),  # local_trylock_t only
    ("c-core/pool.h", False),
    ("c-core/chunk.h", False),
    ("c-core/chunk_table.h", True),
    ("c-core/pool_internal.h", False),
    ("c-core/pool_fast.h", False),
    ("c-core/chunk_table.c", False),
    ("c-core/pool.c", True),
    ("c-core/pool_alloc.c", False),
]

# What the module and the unit tests need and mm/dmapool.c does not.
DROP = [
    "dg_pool_alloc", "dg_pool_free", "dg_pool_reclaim", "dg_pool_name",
    "dg_pool_plat", "chunks_visit", "dg_pool_for_each_chunk",
]

# Token renames, longest first where one is a prefix of another.
RENAMES = [
    ("DG_PAGE_SIZE", "PAGE_SIZE"),
    ("DG_NO_NODE", "NUMA_NO_NODE"),
    ("DG_POOL_NAME_LEN", "DMAPOOL_NAME_LEN"),
    ("DG_FREE_OK", "FREE_OK"),
    ("DG_BAD_", "BAD_FREE_"),
    ("DG_", "DMAPOOL_"),
    ("__dg_pool_", "__pool_"),
    ("dg_pool_", "pool_"),
    ("dg_pool", "dma_pool"),
    ("dg_chunk_table", "chunk_table"),
    ("dg_chunk_slot", "chunk_slot"),
    ("dg_chunk_", "chunk_"),
    ("dg_chunk", "dma_chunk"),
    ("dg_table_", "table_"),
    ("dg_pcp_run", "pcp_run"),
    ("dg_pcp", "pool_pcp"),
    ("dg_bad_free", "bad_free"),
    ("dg_bad_names", "bad_free_names"),
    ("dg_dma_", "dma_mem_"),
    ("dg_plat_", "pool_plat_"),
]

# Exact edits of the renamed core text: (old, new); each must match once.
FIXUPS = [
    ('local_trylock_t lock;\t/* see "Locking" in pool.c */',
     'local_trylock_t lock;\t/* see "Locking" below */'),
    ("/* pool_alloc.c */\n", ""),
    ("/* pool.c, for pool_alloc.c (which pool.c never calls) */\n", ""),
    ("table          block address -> chunk (chunk_table.c): free() finds the",
     "table          block address -> chunk (struct chunk_table): free() finds the"),
    ("and on !PREEMPT_RT local_lock() and local_unlock(), which in this\n"
     " * module take a local_trylock_t (it has no local_lock_t; passing one does\n"
     " * not compile).",
     "and on !PREEMPT_RT local_lock() and local_unlock(), which in this\n"
     " * file take a local_trylock_t (it has no local_lock_t; passing one does\n"
     " * not compile)."),
    ("The kernels before 6.16 get it here,", "6.12 lacks it: it is defined here,"),
]

DMA_SPACE_HEAD = """\
/*
 * Chunk memory is "void __dma *": sparse rejects any dereference of it and
 * any cast of it but the two below, so that "no allocator state in
 * device-visible memory, no decision read from it" is checked by a tool.
 */
"""

AUTHOR = "dmaguard developers <dmaguard@localhost>"
DATE = "Sun, 6 Dec 2026 00:00:00 +0000"


def die(msg):
    sys.exit("kernel-series: error: " + msg)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def strip_file(text, path, keep_head):
    """One core file without SPDX line, include guard and includes."""
    lines = text.split("\n")
    if lines and "SPDX-License-Identifier" in lines[0]:
        lines = lines[1:]
    if keep_head is False and lines and lines[0] == "/*":
        end = lines.index(" */")
        lines = lines[end + 1:]
    out = []
    for ln in lines:
        if re.match(r'#include\s+"', ln):
            continue
        if re.match(r"#(ifndef|define) _DMAGUARD_\w+_H\s*$", ln):
            continue
        if re.match(r"#endif /\* _DMAGUARD_\w+_H \*/", ln):
            continue
        out.append(ln)
    return "\n".join(out)


def local_trylock_block(text):
    """The local_trylock_t definitions of the kernel platform, with their comment."""
    start = text.index("#ifndef local_trylock_init")
    end_tag = "#endif /* !local_trylock_init */"
    end = text.index(end_tag) + len(end_tag)
    head = text.rindex("/*\n", 0, start)
    return text[head:end] + "\n"


def drop_debug(text):
    """unifdef -UDG_DEBUG for the one shape the core uses."""
    pat = re.compile(r"#ifdef DG_DEBUG\n(.*?)(?:#else\n(.*?))?#endif\n", re.S)
    return pat.sub(lambda m: m.group(2) or "", text)


def drop_dma_space_force(text):
    pat = re.compile(r"/\* tools/include.*?\n#endif\n", re.S)
    text, n = pat.subn("", text)
    if n != 1:
        die("dg_dma_space.h: the __force block is not where expected")
    return DMA_SPACE_HEAD + text


FUNC_HEAD = re.compile(r"^(?!static\b|typedef\b|#|struct \w+ \{|enum \w+ \{|union\b|\s)"
                       r"[A-Za-z_][\w \*]*?\b(_*dg_\w+)\(", re.M)


def drop_function(text, name):
    """Remove the definition or prototype of @name and the comment above it."""
    pat = re.compile(r"^(?!static\b)[A-Za-z_][\w \*]*?\b" + re.escape(name) + r"\(", re.M)
    found = 0
    while True:
        m = pat.search(text)
        if not m:
            break
        start = m.start()
        # A definition ends at "\n}\n", a prototype at ");\n".
        semi = text.find(");\n", start)
        brace = text.find("\n{\n", start)
        if brace != -1 and (semi == -1 or brace < semi):
            end = text.index("\n}\n", brace) + 3
        else:
            end = semi + 3
        # The comment directly above, if any.
        before = text[:start]
        if before.endswith(" */\n"):
            cstart = before.rfind("\n/*")
            if cstart != -1:
                start = cstart + 1
        text = text[:start] + text[end:]
        found += 1
    return text, found


def drop_static_function(text, name):
    pat = re.compile(r"^static [\w \*]*?\b" + re.escape(name) + r"\(", re.M)
    m = pat.search(text)
    if not m:
        return text, 0
    start = m.start()
    end = text.index("\n}\n", start) + 3
    before = text[:start]
    if before.endswith(" */\n"):
        start = before.rfind("\n/*") + 1
    return text[:start] + text[end:], 1


def build_core():
    """(the address space part, the rest), renamed."""
    parts = []
    for path, keep in CORE:
        text = read(os.path.join(ROOT, path))
        if path.endswith("dg_platform.h"):
            parts.append(local_trylock_block(text))
            continue
        text = strip_file(text, path, keep)
        if path.endswith("dg_dma_space.h"):
            text = drop_dma_space_force(text)
        parts.append(text)
    core = "\n".join(parts[1:])
    core = drop_debug(core)
    for name in DROP:
        core, n = drop_function(core, name)
        if not n:
            core, n = drop_static_function(core, name)
        if not n:
            die("nothing to drop for " + name)
    # Every function is the file's own.
    core = FUNC_HEAD.sub(lambda m: "static " + m.group(0), core)
    for old, new in RENAMES:
        core = re.sub(r"\b" + re.escape(old) if not old.endswith("_")
                      else r"\b" + re.escape(old) + r"(?=\w)", new, core)
    core = re.sub(r"\bvoid \*dev\b", "struct device *dev", core)
    for old, new in FIXUPS:
        if core.count(old) != 1:
            die("fixup does not match exactly once: %r" % old[:60])
        core = core.replace(old, new)
    core = realign(core)
    space = parts[0]
    for old, new in RENAMES:
        space = re.sub(r"\b" + re.escape(old), new, space)
    for text in (space, core):
        if re.search(r"\b_*(dg|DG)_\w+", text):
            die("names left unrenamed: %s" %
                sorted(set(re.findall(r"\b_*(?:dg|DG)_\w+", text))))
    return space, core


def scan_parens(line, stack):
    """Push the column after each '(' of @line onto @stack, pop at ')'."""
    col, in_str, i = 0, None, 0
    while i < len(line):
        c = line[i]
        if in_str:
            if c == "\\":
                i += 1
                col += 1
            elif c == in_str:
                in_str = None
        elif c in "\"'":
            in_str = c
        elif line.startswith("/*", i) or line.startswith("//", i):
            break
        elif c == "(":
            stack.append(col + 1)
        elif c == ")" and stack:
            stack.pop()
        col = (col // 8 + 1) * 8 if c == "\t" else col + 1
        i += 1


def realign(text):
    """Continuation lines aligned with their open parenthesis again.

    The core is aligned as checkpatch wants it; renames move the
    parenthesis, so each line inside an unclosed one (of this line or the
    lines above) is moved to its new column (not in comments or macros).
    """
    out, stack, in_comment = [], [], False
    for ln in text.split("\n"):
        stripped = ln.strip()
        if in_comment:
            in_comment = "*/" not in stripped
        elif stripped.startswith("/*") and "*/" not in stripped:
            in_comment = True
        elif ln.endswith("\\") or stripped.startswith("#"):
            stack = []
        else:
            if stack and stripped:
                col = stack[-1]
                ln = "\t" * (col // 8) + " " * (col % 8) + stripped
            scan_parens(ln, stack)
        out.append(ln)
    return "\n".join(out)


def collapse_blank(text):
    return re.sub(r"\n{3,}", "\n\n", text)


def build_dmapool(tree):
    orig = read(os.path.join(tree, "mm/dmapool.c"))
    tmpl = read(os.path.join(ROOT, "c-core/platform/mainline/dmapool.c"))
    # The tree's SPDX line, title and copyright lines, then our description.
    m = re.match(r"(// SPDX[^\n]*\n/\*\n(?: \*[^\n]*\n)*? \*   Author:[^\n]*\n)", orig)
    if not m:
        die("mm/dmapool.c: the copyright block is not where expected")
    thead = re.match(r"// SPDX[^\n]*\n/\*\n(?: \*[^\n]*\n)*? \* it stands\.\n", tmpl)
    if not thead:
        die("template: head comment is not where expected")
    body = m.group(1) + tmpl[thead.end():]
    space, core = build_core()
    for mark, text in (("/* @dma-space@ */\n", space), ("/* @core@ */\n", core)):
        if body.count(mark) != 1:
            die("template: no single %s line" % mark.strip())
        body = body.replace(mark, text)
    return collapse_blank(body)


def insert_at(text, anchor, block, where="before"):
    if text.count(anchor) != 1:
        die("dmapool_test.c: anchor does not match exactly once: %r" % anchor)
    i = text.index(anchor)
    if where == "after":
        i += len(anchor)
    return text[:i] + block + text[i:]


def test_block(name):
    text = read(os.path.join(ROOT, "tests/kernel-series", name))
    lines = text.split("\n")
    if "SPDX-License-Identifier" in lines[0]:
        lines = lines[1:]
    return "\n".join(lines)


def build_test(tree, step):
    """mm/dmapool_test.c after @step (1: geometry checks, 2: hostile device)."""
    text = read(os.path.join(tree, "mm/dmapool_test.c"))
    anchor_fn = "static void dmapool_test_release(struct device *dev)\n"
    anchor_call = ("\t\tret = dmapool_test_block(&pool_parms[i]);\n"
                   "\t\tif (ret)\n\t\t\tbreak;\n")
    block = test_block("dmapool_test_geometry.c")
    call = ("\t\tret = dmapool_test_geometry(&pool_parms[i]);\n"
            "\t\tif (ret)\n\t\t\tbreak;\n")
    if step >= 2:
        block += "\n" + test_block("dmapool_test_hostile.c")
        call += ("\t\tret = dmapool_test_hostile(&pool_parms[i]);\n"
                 "\t\tif (ret)\n\t\t\tbreak;\n")
    text = insert_at(text, anchor_fn, block.lstrip("\n") + "\n")
    text = insert_at(text, anchor_call, call, "after")
    return text


def git(repo, *args, env=None):
    e = dict(os.environ)
    e.update({
        "GIT_AUTHOR_NAME": AUTHOR.split(" <")[0],
        "GIT_AUTHOR_EMAIL": AUTHOR.split("<")[1].rstrip(">"),
        "GIT_COMMITTER_NAME": AUTHOR.split(" <")[0],
        "GIT_COMMITTER_EMAIL": AUTHOR.split("<")[1].rstrip(">"),
        "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE,
        "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
    })
    if env:
        e.update(env)
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          env=e, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def messages():
    d = os.path.join(HERE, "messages")
    out = []
    for name in sorted(os.listdir(d)):
        if re.match(r"\d{4}-.*\.txt$", name):
            out.append((name, read(os.path.join(d, name))))
    return out


def inputs():
    files = [p for p, _ in CORE]
    files.append("c-core/platform/mainline/dmapool.c")
    for d in ("tests/kernel-series", "scripts/kernel-series/messages"):
        files += sorted(os.path.join(d, n) for n in os.listdir(os.path.join(ROOT, d))
                        if not n.startswith("0000-"))
    files.append("scripts/kernel-series/generate.py")
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src")
    ap.add_argument("--out")
    ap.add_argument("--inputs", action="store_true")
    ap.add_argument("--test-file")
    args = ap.parse_args()
    if args.inputs:
        print("\n".join(inputs()))
        return
    if args.src and args.test_file:
        with open(args.test_file, "w", encoding="utf-8") as fh:
            fh.write(build_test(args.src, 2))
        return
    if not args.src or not args.out:
        ap.error("--src and --out are required")

    msgs = messages()
    steps = {
        "0001": {"mm/dmapool_test.c": lambda: build_test(args.src, 1)},
        "0002": {"mm/dmapool.c": lambda: build_dmapool(args.src),
                 "mm/dmapool_test.c": lambda: build_test(args.src, 2)},
    }
    if [n[:4] for n, _ in msgs if n[:4] != "0000"] != sorted(steps):
        die("messages/ and the steps of generate.py disagree")

    work = tempfile.mkdtemp(prefix="kernel-series.")
    try:
        repo = os.path.join(work, "linux")
        os.makedirs(os.path.join(repo, "mm"))
        for f in ("mm/dmapool.c", "mm/dmapool_test.c"):
            shutil.copy(os.path.join(args.src, f), os.path.join(repo, f))
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        for name, msg in msgs:
            num = name[:4]
            if num == "0000":
                continue
            for f, make in steps[num].items():
                with open(os.path.join(repo, f), "w", encoding="utf-8") as fh:
                    fh.write(make())
            git(repo, "add", "-A")
            with open(os.path.join(work, "msg"), "w", encoding="utf-8") as fh:
                fh.write(msg.rstrip("\n") + "\n\nSigned-off-by: " + AUTHOR + "\n")
            git(repo, "commit", "-q", "-F", os.path.join(work, "msg"))
        if os.path.isdir(args.out):
            shutil.rmtree(args.out)
        os.makedirs(args.out)
        git(repo, "format-patch", "-q", "--zero-commit", "--no-signature",
            "--cover-letter", "--subject-prefix=PATCH", "-o",
            os.path.abspath(args.out), "HEAD~%d" % (len(msgs) - 1))
        cover = dict(msgs)["0000-cover-letter.txt"].split("\n", 1)
        path = os.path.join(args.out, "0000-cover-letter.patch")
        text = read(path)
        text = text.replace("*** SUBJECT HERE ***", cover[0].strip())
        text = text.replace("*** BLURB HERE ***", cover[1].strip())
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    finally:
        shutil.rmtree(work)
    for name in sorted(os.listdir(args.out)):
        print("  SERIES  " + os.path.join(args.out, name))


if __name__ == "__main__":
    main()
