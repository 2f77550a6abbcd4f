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
    ('spinlock_t lock;\t\t/* see "Locking" in pool.c */',
     'spinlock_t lock;\t\t/* see "Locking" below */'),
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


def strip_file(text, keep_head):
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


def drop_definition(text, name, what="all"):
    """Remove @name's definition and prototypes ("all"), or its prototypes
    only ("prototypes"), each with the comment directly above it.
    Return: (text, how many were removed)."""
    pat = re.compile(r"^[A-Za-z_][\w \*]*?\b" + re.escape(name) + r"\(", re.M)
    found, pos = 0, 0
    while True:
        m = pat.search(text, pos)
        if not m:
            break
        start = m.start()
        # A definition ends at "\n}\n", a prototype at ");\n".
        semi = text.find(");\n", start)
        brace = text.find("\n{\n", start)
        if brace != -1 and (semi == -1 or brace < semi):
            if what == "prototypes":
                pos = brace
                continue
            end = text.index("\n}\n", brace) + 3
        else:
            end = semi + 3
        before = text[:start]
        if before.endswith(" */\n"):
            cstart = before.rfind("\n/*")
            if cstart != -1:
                start = cstart + 1
        text = text[:start] + text[end:]
        pos = start
        found += 1
    return text, found


def rename(text):
    """dmaguard's names to the kernel's (RENAMES); a prefix only renames
    where a name goes on after it."""
    for old, new in RENAMES:
        pat = r"\b" + re.escape(old) + (r"(?=\w)" if old.endswith("_") else "")
        text = re.sub(pat, new, text)
    return text


def edit(text, old, new, count=1):
    """Replace @old, which must occur exactly @count times, by @new."""
    if text.count(old) != count:
        die("edit does not match %d time(s): %r" % (count, old[:70]))
    return text.replace(old, new)


def cut(text, first, last, new=""):
    """Replace from @first (which must occur once) through the first @last
    after it by @new."""
    if text.count(first) != 1:
        die("cut does not start exactly once: %r" % first[:70])
    i = text.index(first)
    j = text.find(last, i)
    if j == -1:
        die("cut does not end: %r" % last[:70])
    return text[:i] + new + text[j + len(last):]


# The allocator before its per-CPU caches (patch 0002): what the caches
# alone need goes, the chunk paths that caches are bypassed to become the
# allocation and the free, the "live" bitmap goes (a block not free in
# its chunk is live), and the text that speaks of caches says what is left.
PCP_DROP = [
    "pcp_trylock", "run_hand_out", "run_usable", "__pool_alloc", "run_index",
    "__pool_free", "run_chunk", "run_set", "run_flush", "pcp_flush",
    "pcp_refill", "pcp_drain_irq", "pcp_has_blocks", "pool_steal",
    "pool_alloc_slow", "run_holds", "pool_find_chunk", "pcp_find_chunk",
    "run_takes", "run_add", "pcp_put", "pool_free_slow", "pcp_drain_taken",
    "pcp_drain", "pool_drain", "pool_cpu_dead", "chunk_live", "pool_inverse",
]
PCP_PROTOTYPES = ["pool_alloc_bypass", "pool_free_bypass", "pool_bad_free"]
PCP_CUTS = [
    ("/*\n * Per-CPU caches of free blocks, in runs:", "\tstruct pcp_run freed;\n};\n", ""),
    ("\t/*\n\t * Read without the lock by every allocation and free: geometry,",
     "\tu64 stride_inv;\n", "\t/* Fixed at creation. */\n"),
    (" * Per-CPU caches: frees go to the CPU's cache", "visits no CPU.\n *\n", ""),
    (" * Locking: a CPU's cache is a local_trylock_t", "allocated or freed under either lock.\n",
     " * Locking: pool->lock is taken with interrupts saved (pools are used from\n"
     " * hard interrupts) and guards the lists, the table, the counters and the\n"
     " * descriptors. No memory is allocated or freed under it.\n"),
    ("\tfor_each_possible_cpu(cpu)\n\t\tlocal_trylock_init", "/* runs never set have gen 0 */\n", ""),
    ("\t/*\n\t * Cached blocks are free; summed", "\t}\n", ""),
    ("\t/* 0 is the gen of runs never set", "+ 1 ?: 1);\n", ""),
    ("\t/*\n\t * The new gen hides the victims", "\t\tsynchronize_rcu();\n", ""),
    ("\tint cpu;\n\n\t/*\n\t * A reclaim queued by the last frees", "pool_cpu_dead(pool, cpu);\n", "\n"),
]
PCP_EDITS = [
    ("\tu64 cache_bypass;\t\t/* operations past a cache in use */\n", ""),
    ("\tu64 pcp_bytes;\t\t/* the per-CPU caches, a fixed cost per pool */\n", ""),
    ("\t/* allocations and frees an interrupt made past its CPU's cache */\n"
     "\tu64 cache_bypass;\n", ""),
    ("\t * map_words words of \"free in the chunk\" bits (pool lock), then\n"
     "\t * map_words words of \"held by a driver\" bits, set and cleared with\n"
     "\t * atomic bitops by CPUs that do not hold the pool lock: a block is\n"
     "\t * free in its chunk, in a CPU's cache, or live, and only a live\n"
     "\t * block may be freed.\n",
     "\t * map_words words of \"free in the chunk\" bits: a block whose bit\n"
     "\t * is clear is live, and only a live block may be freed.\n"),
    (" * tombstones. Lookups only serve the frees that miss their CPU's \"last\n"
     " * chunk\", so a probe may read the descriptors it passes and a slot stays\n"
     " * one word. The pool keeps the table at most half full and serialises\n"
     " * every call with its lock.",
     " * tombstones. A probe reads the descriptors it passes, so that a slot\n"
     " * stays one word. The pool keeps the table at most half full and\n"
     " * serialises every call with its lock."),
    ("\tu32 shift;\n\tint cpu;\n", ""),
    ("\tpool->pcp = alloc_percpu(struct pool_pcp);\n", ""),
    (" || !pool->pcp) {", ") {"),
    ("\t\tfree_percpu(pool->pcp);\n", ""),
    ("\tfree_percpu(pool->pcp);\n", ""),
    ("\tstruct pool_pcp *pcp;\n\tunsigned long flags;\n\tu64 cached = 0;\n\tint cpu;\n",
     "\tunsigned long flags;\n"),
    ("pool->in_use > cached ? pool->in_use - cached : 0;", "pool->in_use;"),
    ("\tst->pcp_bytes = (u64)num_possible_cpus() * sizeof(struct pool_pcp);\n", ""),
    ("\tst->cache_bypass = pool->cache_bypass;\n", ""),
    ("2 * pool->map_words * sizeof(long)", "pool->map_words * sizeof(long)"),
    ("\tset_bit(idx, chunk_live(pool, chunk));\n", ""),
    ("return pool_steal(pool, gfp, dma);", "return NULL;", 2),
    ("/*\n * An allocation from an interrupt inside this CPU's cache section: a block\n"
     " * straight from the chunks.\n */\nstatic noinline void __dma *pool_alloc_bypass(",
     "/* A block of the first partial chunk, or of a new one. */\n"
     "static void __dma *__pool_alloc("),
    ("\tpool->cache_bypass++;\n\tmem = ", "\tmem = "),
    ("\t\tpool->cache_bypass++;\n", ""),
    ("/*\n * A free from an interrupt inside this CPU's cache section: the block goes\n"
     " * back to its chunk, found, checked and freed under the pool lock (which\n"
     " * keeps a reclaim from freeing the chunk meanwhile).\n */\n"
     "static noinline enum bad_free pool_free_bypass(",
     "/*\n * The block goes back to its chunk, found, checked and freed under the\n"
     " * pool lock (which keeps a reclaim from freeing the chunk meanwhile).\n */\n"
     "static enum bad_free __pool_free("),
    ("if (likely(!bad) &&\n\t    unlikely(!test_and_clear_bit(idx, chunk_live(pool, chunk))))",
     "if (likely(!bad) && unlikely(test_bit(idx, chunk->map)))"),
    (" * Context: any context; O(1) under the pool lock, after a sum over the\n"
     " * CPUs' caches taken without it.\n",
     " * Context: any context; O(1) under the pool lock.\n"),
    ("return pool_bad_free(pool, NULL, bad, vaddr, dma);",
     "return pool_bad_free(pool, bad, vaddr, dma);"),
    (" * Count and report a free that is not applied; gives @pcp (or NULL) back.\n",
     " * Count and report a free that is not applied.\n"),
    ("\tif (pcp)\n\t\tlocal_unlock(&pool->pcp->lock);\n", ""),
    (" * parked. No CPU is visited: cached blocks keep their chunks, so the\n"
     " * background reclaim never disturbs a CPU. A pool whose IOMMU invalidates\n",
     " * parked. A pool whose IOMMU invalidates\n"),
]
PCP_WORDS = re.compile(r"pcp|run_|cache_bypass|chunks_gen|local_trylock|"
                       r"local_unlock|[Pp]er-CPU|chunk_live|synchronize_rcu")


def without_pcp(core):
    """The renamed core as patch 0002 has it: no per-CPU caches."""
    for name in PCP_DROP:
        core, n = drop_definition(core, name)
        if not n:
            die("nothing to drop for " + name)
    for name in PCP_PROTOTYPES:
        core, n = drop_definition(core, name, "prototypes")
        if n != 1:
            die("no single prototype of " + name)
    for first, last, new in PCP_CUTS:
        core = cut(core, first, last, new)
    for e in PCP_EDITS:
        core = edit(core, *e)
    core = re.sub(r"(pool_bad_free\(struct dma_pool \*pool,\n)\s*struct pool_pcp \*pcp,\n",
                  r"\1\t", core)
    left = sorted(set(m.group(0) for m in PCP_WORDS.finditer(core)))
    if left:
        die("patch 0002 still speaks of the caches: %s" % left)
    return core


def build_core(percpu=True):
    """(the address space part, the rest), renamed; without the per-CPU
    caches unless @percpu."""
    parts = []
    for path, keep in CORE:
        text = read(os.path.join(ROOT, path))
        if path.endswith("dg_platform.h"):
            if percpu:
                parts.append(local_trylock_block(text))
            continue
        text = strip_file(text, keep)
        if path.endswith("dg_dma_space.h"):
            text = drop_dma_space_force(text)
        parts.append(text)
    core = "\n".join(parts[1:])
    core = drop_debug(core)
    for name in DROP:
        core, n = drop_definition(core, name)
        if not n:
            die("nothing to drop for " + name)
    # Every function is the file's own.
    core = FUNC_HEAD.sub(lambda m: "static " + m.group(0), core)
    core = rename(core)
    core = re.sub(r"\bvoid \*dev\b", "struct device *dev", core)
    for old, new in FIXUPS:
        # Some are of text only the caches have; the full core checks all.
        if percpu or old in core:
            core = edit(core, old, new)
    if not percpu:
        core = without_pcp(core)
    core = realign(core)
    space = rename(parts[0])
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


# The template's part of the caches: the CPU hotplug callback.
PCP_TEMPLATE_CUTS = [
    ("/*\n * A CPU went offline:", "core_initcall(dmapool_init);\n", ""),
]
PCP_INCLUDES = ["cpuhotplug", "cpumask", "hardirq", "local_lock", "percpu",
                "rcupdate", "smp"]


def build_dmapool(tree, percpu=True):
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
    space, core = build_core(percpu)
    if not percpu:
        for first, last, new in PCP_TEMPLATE_CUTS:
            body = cut(body, first, last, new)
        for name in PCP_INCLUDES:
            body = edit(body, "#include <linux/%s.h>\n" % name, "")
    for mark, text in (("/* @dma-space@ */\n", space), ("/* @core@ */\n", core)):
        if body.count(mark) != 1:
            die("template: no single %s line" % mark.strip())
        body = body.replace(mark, text)
    return collapse_blank(body).rstrip("\n") + "\n"


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
        "0002": {"mm/dmapool.c": lambda: build_dmapool(args.src, False),
                 "mm/dmapool_test.c": lambda: build_test(args.src, 2)},
        "0003": {"mm/dmapool.c": lambda: build_dmapool(args.src)},
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
