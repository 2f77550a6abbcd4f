// SPDX-License-Identifier: GPL-2.0
/// Convert a driver from the kernel's dma_pool to dmaguard.
///
/// dmaguard_pool_* mirrors dma_pool_* argument for argument, so the
/// conversion is a rename: the five calls, struct dma_pool, the include,
/// plus DMAGUARD_IMPORT_NS() after MODULE_LICENSE() so that the module may
/// use the DMAGUARD_V1 symbol namespace. Differences a converted driver
/// may notice: no 16-byte minimum block size, and bad frees are reported
/// and refused instead of corrupting the pool.
///
/// Managed pools become dmaguard's managed pools (since v1.2):
/// dmam_pool_create/dmam_pool_destroy to dmaguard_pool_create_managed/
/// dmaguard_pool_destroy_managed, same arguments.
///
// Confidence: High
// Options: --no-includes --include-headers
// Usage: spatch -D patch --sp-file dma_pool-to-dmaguard.cocci --in-place x.c

virtual patch
virtual report
virtual no_import
virtual import_only

@calls depends on patch@
@@
(
- dma_pool_create
+ dmaguard_pool_create
|
- dma_pool_create_node
+ dmaguard_pool_create_node
|
- dma_pool_alloc
+ dmaguard_pool_alloc
|
- dma_pool_zalloc
+ dmaguard_pool_zalloc
|
- dma_pool_free
+ dmaguard_pool_free
|
- dma_pool_destroy
+ dmaguard_pool_destroy
|
- dmam_pool_create
+ dmaguard_pool_create_managed
|
- dmam_pool_destroy
+ dmaguard_pool_destroy_managed
)
  (...)

@types depends on patch@
@@
- struct dma_pool
+ struct dmaguard_pool

@inc_replace depends on patch && (calls || types)@
@@
- #include <linux/dmapool.h>
+ #include <dmaguard/dmaguard.h>

@inc_have depends on patch@
@@
 #include <dmaguard/dmaguard.h>

@inc_add depends on patch && (calls || types) && !inc_replace && !inc_have@
@@
 #include <linux/module.h>
+ #include <dmaguard/dmaguard.h>

// no <linux/module.h> (a file that only allocates, a header): after the
// last <...> include
@inc_last depends on patch && (calls || types) && !inc_replace && !inc_have &&
  !inc_add@
@@
 #include <...>
+ #include <dmaguard/dmaguard.h>

// only local includes (mvsas's mv_init.c): after the last of them
@inc_local depends on patch && (calls || types) && !inc_replace && !inc_have &&
  !inc_add && !inc_last@
@@
 #include "..."
+ #include <dmaguard/dmaguard.h>

@ns_have depends on patch || import_only@
declarer name DMAGUARD_IMPORT_NS;
@@
DMAGUARD_IMPORT_NS();

@ns_add depends on patch && !no_import && (calls || types) && !ns_have@
declarer name MODULE_LICENSE;
expression E;
@@
MODULE_LICENSE(E);
+DMAGUARD_IMPORT_NS();

// -D import_only: the module's import, after MODULE_LICENSE() in a file
// that may have no pool call (xhci.c for xhci-hcd); a conversion of a
// whole module (scripts/convert-driver.py) runs -D patch -D no_import on
// every file, then this on the one file of each module with the license.
@ns_license depends on import_only && !ns_have@
declarer name MODULE_LICENSE;
expression E;
@@
MODULE_LICENSE(E);
+DMAGUARD_IMPORT_NS();

@ns_inc_have depends on ns_license@
@@
 #include <dmaguard/dmaguard.h>

@ns_inc_add depends on ns_license && !ns_inc_have@
@@
 #include <...>
+ #include <dmaguard/dmaguard.h>

@ns_inc_local depends on ns_license && !ns_inc_have && !ns_inc_add@
@@
 #include "..."
+ #include <dmaguard/dmaguard.h>

@report_calls depends on report@
identifier fn =~ "^dmam?_pool_(create|create_node|alloc|zalloc|free|destroy)$";
position p;
@@
fn@p(...)

@script:python depends on report@
fn << report_calls.fn;
p << report_calls.p;
@@
new = "dmaguard_" + fn[5:] + "_managed" if fn.startswith("dmam_") else "dmaguard_" + fn[4:]
print("%s:%s:%s: dma_pool-to-dmaguard: %s(): the kernel's dma_pool keeps its free list in DMA memory; use %s() (spatch -D patch converts)"
      % (p[0].file, p[0].line, p[0].column, fn, new))
