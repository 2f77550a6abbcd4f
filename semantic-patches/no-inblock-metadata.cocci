// SPDX-License-Identifier: GPL-2.0
/// No kernel metadata in device-visible memory.
///
/// Memory from dmaguard_pool_alloc/zalloc, dma_pool_alloc/zalloc,
/// dma_alloc_coherent, dmam_alloc_coherent and dma_alloc_attrs (and, inside
/// dmaguard's core, dg_chunk_mem_alloc and dg_pool_alloc) can be read and
/// written by the device at any time. A kernel pointer, list head or
/// other kernel bookkeeping kept there lets a hostile or buggy device steer
/// the kernel (mainline dma_pool's in-block free list is the example).
/// Reported:
///  - a struct type holding pointers or list heads used for such memory
///    (the allocation assigned to it, or a cast of the memory to it);
///  - a pointer stored into such memory (by assignment, through a cast to
///    an integer, or by memcpy of a pointer variable);
///  - list_add/list_add_tail/INIT_LIST_HEAD and friends on it.
/// Where the memory lives: a local variable is followed within the
/// function of its allocation, a global or a struct field (ring->desc)
/// through the whole file, a local pointer derived from it (d =
/// &ring->desc[i]) within its function.
///
// Confidence: High for the stores and list operations, Medium for struct
// types (only definitions visible to spatch are known).
// Options: --no-includes --include-headers

virtual report

@initialize:python@
@@
import re

# (file, kind, key, function, indexed): kind "var" (key = name, function =
# scope or None for globals) or "field" (key = member name, anywhere in the
# file); indexed when the memory is an element (bufs[i] = alloc()).
dma_exprs = []
# (file, struct name) of structs that hold pointers or list heads
ptr_structs = set()

def toks(s):
    return re.findall(r'[A-Za-z_]\w*|\d\w*|->|\S', str(s))

def remember(pos, e, local, indexed=False):
    t = toks(e)
    p = pos[0]
    fn = p.current_element if local else None
    # bufs[i] = alloc(): the DMA pointer is the element, not bufs itself
    if t and t[-1] == ']':
        depth = 0
        for j in range(len(t) - 1, -1, -1):
            depth += {']': 1, '[': -1}.get(t[j], 0)
            if depth == 0:
                t = t[:j]
                indexed = True
                break
    if len(t) >= 2 and t[-2] in ('->', '.'):
        dma_exprs.append((p.file, 'field', t[-1], None, indexed))
    elif len(t) == 1:
        dma_exprs.append((p.file, 'var', t[0], fn, indexed))

def skip_index(t, i):
    """t[i] is a key; return the index of its last token, past one [...]
    group when the key is an indexed one, or None when that is missing."""
    if i + 1 >= len(t) or t[i + 1] != '[':
        return None
    depth = 0
    for j in range(i + 1, len(t)):
        depth += {'[': 1, ']': -1}.get(t[j], 0)
        if depth == 0:
            return j
    return None

def dma_hits(pos, e):
    """Tokens of e, and for each place e names DMA memory the index of the
    last token of that name (past the subscript of an indexed one)."""
    t = toks(e)
    p = pos[0]
    hits = []
    for (f, kind, key, fn, indexed) in dma_exprs:
        if f != p.file:
            continue
        for i, x in enumerate(t):
            if x != key:
                continue
            before = t[i - 1] if i > 0 else ''
            after = t[i + 1] if i + 1 < len(t) else ''
            if after == '(':
                continue
            if kind == 'field' and before not in ('->', '.'):
                continue
            if kind == 'var' and (before in ('->', '.') or
                                  (fn is not None and fn != p.current_element)):
                continue
            end = skip_index(t, i) if indexed else i
            if end is not None:
                hits.append(end)
    return t, hits

def uses_dma(pos, e):
    return bool(dma_hits(pos, e)[1])

def writes_dma(pos, lhs):
    """lhs is a place inside DMA memory, not the pointer variable itself."""
    t, hits = dma_hits(pos, lhs)
    return any(i < len(t) - 1 or t[0] == '*' for i in hits)

def emit(pos, msg):
    p = pos[0]
    print("%s:%s:%s: no-inblock-metadata: %s" % (p.file, p.line, p.column, msg))

// ---- where DMA memory goes -------------------------------------------

@alloc_local@
identifier fn =~ "^(dmaguard_pool_alloc|dmaguard_pool_zalloc|dma_pool_alloc|dma_pool_zalloc|dma_alloc_coherent|dmam_alloc_coherent|dma_alloc_attrs|dg_chunk_mem_alloc|dg_pool_alloc)$";
local idexpression V;
position pa;
@@
V = fn@pa(...)

@script:python@
V << alloc_local.V;
pa << alloc_local.pa;
@@
remember(pa, V, True)

@alloc_global@
identifier fn =~ "^(dmaguard_pool_alloc|dmaguard_pool_zalloc|dma_pool_alloc|dma_pool_zalloc|dma_alloc_coherent|dmam_alloc_coherent|dma_alloc_attrs|dg_chunk_mem_alloc|dg_pool_alloc)$";
global idexpression G;
position pa;
@@
G = fn@pa(...)

@script:python@
G << alloc_global.G;
pa << alloc_global.pa;
@@
remember(pa, G, False)

@alloc_field@
identifier fn =~ "^(dmaguard_pool_alloc|dmaguard_pool_zalloc|dma_pool_alloc|dma_pool_zalloc|dma_alloc_coherent|dmam_alloc_coherent|dma_alloc_attrs|dg_chunk_mem_alloc|dg_pool_alloc)$";
expression E;
identifier fld;
position pa;
@@
(
E->fld = fn@pa(...)
|
E.fld = fn@pa(...)
)

@script:python@
fld << alloc_field.fld;
pa << alloc_field.pa;
@@
dma_exprs.append((pa[0].file, 'field', str(fld), None, False))

@alloc_index@
identifier fn =~ "^(dmaguard_pool_alloc|dmaguard_pool_zalloc|dma_pool_alloc|dma_pool_zalloc|dma_alloc_coherent|dmam_alloc_coherent|dma_alloc_attrs|dg_chunk_mem_alloc|dg_pool_alloc)$";
expression E, I;
position pa;
@@
E[I] = fn@pa(...)

@script:python@
E << alloc_index.E;
pa << alloc_index.pa;
@@
remember(pa, E, True, True)

// A local pointer into DMA memory is DMA memory too (one level):
// d = &ring->desc[i], req = (struct req *)blk, p = blk + off.
@alias@
local idexpression V;
type T;
T *E;
position p;
@@
V@p = E

@script:python@
V << alias.V;
E << alias.E;
p << alias.p;
@@
if uses_dma(p, E) and toks(E)[-1] != ')':
    remember(p, V, True)

// ---- struct types that hold kernel pointers ----------------------------

@holds_ptr@
identifier S, f;
type T;
position ps;
@@
struct S@ps {
  ...
(
  T *f;
|
  T (*f)(...);
|
  struct list_head f;
|
  struct hlist_node f;
|
  struct hlist_head f;
|
  struct rb_node f;
)
  ...
};

@script:python@
S << holds_ptr.S;
ps << holds_ptr.ps;
@@
ptr_structs.add((ps[0].file, "struct " + str(S)))

// ---- reports ------------------------------------------------------------

@typed_alloc depends on report@
identifier fn =~ "^(dmaguard_pool_alloc|dmaguard_pool_zalloc|dma_pool_alloc|dma_pool_zalloc|dma_alloc_coherent|dmam_alloc_coherent|dma_alloc_attrs|dg_chunk_mem_alloc|dg_pool_alloc)$";
type T;
T *E;
position pa;
@@
E = fn@pa(...)

@script:python@
T << typed_alloc.T;
pa << typed_alloc.pa;
@@
t = " ".join(toks(T))
if (pa[0].file, t) in ptr_structs:
    emit(pa, "%s holds pointers or list heads: it must not live in DMA memory" % t)

@struct_cast depends on report disable drop_cast@
type T;
expression E;
position p;
@@
 (T *@p)E

@script:python@
T << struct_cast.T;
E << struct_cast.E;
p << struct_cast.p;
@@
t = " ".join(toks(T))
if (p[0].file, t) in ptr_structs and uses_dma(p, E):
    emit(p, "DMA memory cast to %s, which holds pointers or list heads" % t)

@ptr_store depends on report disable drop_cast@
expression L, E;
type T, T2;
T *P;
position p;
@@
(
L@p = &E
|
L@p = (T2 *)E
|
L@p = P
|
L@p = <+... (T2)P ...+>
)

@script:python@
L << ptr_store.L;
p << ptr_store.p;
@@
if writes_dma(p, L):
    emit(p, "kernel pointer stored in DMA memory")

@ptr_copy depends on report@
identifier cp =~ "^(memcpy|memmove)$";
expression D, N;
type T;
T *P;
position p;
@@
cp@p(D, &P, N)

@script:python@
D << ptr_copy.D;
p << ptr_copy.p;
@@
if uses_dma(p, D):
    emit(p, "kernel pointer copied into DMA memory")

@list_op depends on report@
expression list es;
identifier op =~ "^(list_add|list_add_tail|list_add_rcu|list_add_tail_rcu|list_move|list_move_tail|list_splice|list_splice_init|list_splice_tail|list_splice_tail_init|list_replace|INIT_LIST_HEAD|hlist_add_head|hlist_add_head_rcu|hlist_add_before|hlist_add_behind|INIT_HLIST_NODE|INIT_HLIST_HEAD|llist_add)$";
position p;
@@
op@p(es)

@script:python@
op << list_op.op;
es << list_op.es;
p << list_op.p;
@@
if uses_dma(p, es):
    emit(p, "%s() on DMA memory: list links are kernel pointers" % op)
