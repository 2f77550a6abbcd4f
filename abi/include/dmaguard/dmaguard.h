/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmaguard public interface: the one header a driver includes.
 *
 * It is the whole surface a driver sees and it is self-contained: kernel
 * code gets its types from <linux/types.h>, every other consumer (bindgen,
 * the userspace build of the core) from <stdint.h>/<stddef.h> and the UAPI
 * <linux/types.h>.
 *
 *   <dmaguard/types.h>  base types, layout asserts, DMAGUARD_OPTS()
 *   <dmaguard/pool.h>   hardened DMA pools (dmaguard_pool_*); managed
 *                       pools (dmaguard_pool_create_managed()) since v1.2;
 *                       dmaguard_pool_zalloc() a function and the DMA
 *                       barriers dmaguard_dma_wmb()/_rmb() since v1.3
 *   <dmaguard/pin.h>    the pinned-page cache (dmaguard_pin_*), since v1.1:
 *                       test for it with DMAGUARD_VERSION_MINOR >= 1 at
 *                       build time and dmaguard_version() at run time;
 *                       puts from any context and the statistics
 *                       bad_puts and prot_checks since v1.4
 *
 * Names: every public identifier starts with dmaguard_ / DMAGUARD_.
 *
 * Versioning: the minor version grows when functions or struct fields are
 * added (old consumers keep working); the major version and the symbol
 * namespace DMAGUARD_V<major> change together, only on an incompatible
 * change, so that a consumer built for another major fails to load.
 * `make abi-check` compares the interface with the committed baseline in
 * abi/baseline/.
 */
#ifndef _DMAGUARD_DMAGUARD_H
#define _DMAGUARD_DMAGUARD_H

#define DMAGUARD_VERSION_MAJOR	1
#define DMAGUARD_VERSION_MINOR	4
/* One number that orders versions: major in the high 16 bits. */
#define DMAGUARD_VERSION_CODE(major, minor)	(((major) << 16) | (minor))
#define DMAGUARD_VERSION \
	DMAGUARD_VERSION_CODE(DMAGUARD_VERSION_MAJOR, DMAGUARD_VERSION_MINOR)

/* Symbol namespace of the exports; it changes with the major version. */
#define DMAGUARD_NS	DMAGUARD_V1

#include <dmaguard/types.h>

#ifdef __KERNEL__
#include <linux/module.h>

/*
 * A consumer module states DMAGUARD_IMPORT_NS() once; without it, modpost
 * refuses to build it and the kernel to load it ("module uses symbol ...
 * from namespace DMAGUARD_V1, but does not import it").
 *
 * MODULE_IMPORT_NS() takes a bare name up to 6.12 and a string from 6.13
 * on, but both only record the modinfo tag "import_ns=<namespace>", which
 * modpost and the module loader read. Recording that tag directly is the
 * same on every kernel: no version test. (The exporting side is version
 * dependent; DG_EXPORT() in c-core/platform/kernel/dg_kernel.h.)
 */
#define DMAGUARD_IMPORT_NS()	MODULE_INFO(import_ns, "DMAGUARD_V1")
#endif /* __KERNEL__ */

/**
 * dmaguard_version() - version of the loaded dmaguard module
 *
 * Return: DMAGUARD_VERSION_CODE(major, minor) of the module that resolved
 * this call, to compare with DMAGUARD_VERSION from the headers a consumer
 * was built against: a consumer may use what its headers declare when the
 * major versions are equal and the module's minor is not smaller.
 *
 * Context: Any context.
 */
unsigned int dmaguard_version(void);

#include <dmaguard/pool.h>
#include <dmaguard/pin.h>

#endif /* _DMAGUARD_DMAGUARD_H */
