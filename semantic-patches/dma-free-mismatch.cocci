// SPDX-License-Identifier: GPL-2.0
/// Frees of DMA memory that do not match the allocation of the block.
///
/// 1. Wrong dma handle: a block freed with the dma handle of another
///    allocation (two blocks, their handles swapped in an error path or a
///    copy-pasted free). dma_pool frees the wrong block or corrupts its
///    free list; dmaguard refuses the free and leaks the block;
///    dma_free_coherent unmaps the wrong range.
/// 2. Wrong family: a block freed with a function of another allocator
///    (dmaguard_pool_alloc'd memory given to dma_pool_free, the typical
///    half-converted driver; pool memory given to dma_free_coherent; a
///    devm-managed dmam_alloc_coherent block freed with dma_free_coherent,
///    or the reverse). dma_alloc_attrs and dma_alloc_coherent count as one
///    family (the latter is the former with no attributes).
///
/// Inside dmaguard's core the same holds for dg_pool_alloc/dg_pool_free
/// and dg_chunk_mem_alloc/dg_chunk_mem_free.
///
/// A block is followed by the text of the expression it was stored in: a
/// local variable within its function, a global or struct field (ring->buf,
/// priv->desc[i]) through the file. A free with no allocation of the same
/// expression in sight is not judged.
///
// Confidence: High for (2), Medium for (1) (handles copied into other
// variables are not followed; a handle is only judged wrong when it is
// the handle of another allocation).
// Options: --no-includes --include-headers

virtual report

@initialize:python@
@@
import re

# (file, scope, block tokens) -> list of (handle tokens, family, alloc fn, line)
allocs = {}

FAMILY = {
    'dmaguard_pool_alloc': 'dmaguard', 'dmaguard_pool_zalloc': 'dmaguard',
    'dmaguard_pool_free': 'dmaguard',
    'dma_pool_alloc': 'dma_pool', 'dma_pool_zalloc': 'dma_pool',
    'dma_pool_free': 'dma_pool',
    'dma_alloc_coherent': 'coherent', 'dma_free_coherent': 'coherent',
    'dmam_alloc_coherent': 'managed', 'dmam_free_coherent': 'managed',
    # dma_alloc_coherent() is dma_alloc_attrs(..., 0): one family
    'dma_alloc_attrs': 'coherent', 'dma_free_attrs': 'coherent',
    # inside the dmaguard core
    'dg_pool_alloc': 'dg_pool', 'dg_pool_free': 'dg_pool',
    'dg_chunk_mem_alloc': 'dg_chunk', 'dg_chunk_mem_free': 'dg_chunk',
}

def pretty(t):
    out = ''
    for i, x in enumerate(t):
        if i and re.match(r'\w', x) and re.match(r'\w', t[i - 1][-1]):
            out += ' '
        out += x
    return out

def toks(s):
    return tuple(re.findall(r'[A-Za-z_]\w*|\d\w*|->|\S', str(s)))

def scope(pos, t):
    # A bare identifier is a local or parameter: its function is its scope.
    return pos[0].current_element if len(t) == 1 else None

def record(fn, pos, v, d):
    t = toks(v)
    key = (pos[0].file, scope(pos, t), t)
    allocs.setdefault(key, []).append((toks(d), FAMILY[str(fn)], str(fn),
                                       pos[0].line))

def lookup(pos, t):
    return allocs.get((pos[0].file, scope(pos, t), t), [])

def check_free(fn, pos, v, d):
    tv, td = toks(v), toks(d)
    mine = lookup(pos, tv)
    if not mine:
        return
    p = pos[0]
    fam = FAMILY[str(fn)]
    if all(a[1] != fam for a in mine):
        # name the closest allocation above the free, else the first one
        before = [a for a in mine if a[3] <= p.line]
        a = max(before, key=lambda x: x[3]) if before else mine[0]
        print("%s:%s:%s: dma-free-mismatch: %s freed with %s() but allocated with %s() (line %s)"
              % (p.file, p.line, p.column, pretty(tv), fn, a[2], a[3]))
        return
    if any(a[0] == td for a in mine if a[1] == fam):
        return
    for (key, lst) in allocs.items():
        f, sc, blk = key
        if f != p.file or blk == tv or (sc is not None and sc != p.current_element):
            continue
        for a in lst:
            if a[0] == td:
                print("%s:%s:%s: dma-free-mismatch: %s freed with dma handle %s, which belongs to %s (allocated line %s)"
                      % (p.file, p.line, p.column, pretty(tv), pretty(td),
                         pretty(blk), a[3]))
                return

@pool_alloc@
identifier fn =~ "^(dmaguard_pool_alloc|dmaguard_pool_zalloc|dma_pool_alloc|dma_pool_zalloc|dg_pool_alloc)$";
expression V, P, G, D;
position p;
@@
V = fn@p(P, G, &D)

@script:python@
fn << pool_alloc.fn;
p << pool_alloc.p;
V << pool_alloc.V;
D << pool_alloc.D;
@@
record(fn, p, V, D)

@coherent_alloc@
identifier fn =~ "^(dma_alloc_coherent|dmam_alloc_coherent|dma_alloc_attrs|dg_chunk_mem_alloc)$";
expression V, DEV, S, D;
expression list rest;
position p;
@@
V = fn@p(DEV, S, &D, rest)

@script:python@
fn << coherent_alloc.fn;
p << coherent_alloc.p;
V << coherent_alloc.V;
D << coherent_alloc.D;
@@
record(fn, p, V, D)

@pool_free depends on report@
identifier fn =~ "^(dmaguard_pool_free|dma_pool_free|dg_pool_free)$";
expression V, P, D;
position p;
@@
fn@p(P, V, D)

@script:python@
fn << pool_free.fn;
p << pool_free.p;
V << pool_free.V;
D << pool_free.D;
@@
check_free(fn, p, V, D)

@coherent_free depends on report@
identifier fn =~ "^(dma_free_coherent|dmam_free_coherent|dma_free_attrs|dg_chunk_mem_free)$";
expression V, DEV, S, D;
expression list rest;
position p;
@@
fn@p(DEV, S, V, D, rest)

@script:python@
fn << coherent_free.fn;
p << coherent_free.p;
V << coherent_free.V;
D << coherent_free.D;
@@
check_free(fn, p, V, D)
