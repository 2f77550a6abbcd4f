/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The address space of device-visible memory.
 *
 * Chunk and block memory is typed "void __dma *" inside the core. sparse
 * (make sparse) then rejects any dereference of it, any cast of it to a
 * struct pointer and any mixing with ordinary pointers, which is how the
 * promise "no allocator metadata in DMA memory, no decision read from it"
 * is checked by a machine. The only sanctioned ways out are
 * dg_dma_zero() below and the __force casts in the ABI shim that hand a
 * block to its driver.
 */
#ifndef _DMAGUARD_DMA_SPACE_H
#define _DMAGUARD_DMA_SPACE_H

#ifdef __CHECKER__
#define __dma	__attribute__((noderef, address_space(__dma)))
#else
#define __dma
#endif

/* tools/include (the userspace build) leaves __force empty for sparse. */
#ifdef __CHECKER__
#undef __force
#define __force	__attribute__((force))
#elif !defined(__force)
#define __force
#endif

/*
 * The address of DMA memory as a number, for alignment checks and hash
 * keys: the one sanctioned way from __dma to an integer (sparse is run
 * with -Wcast-from-as, so any other cast is reported).
 */
static inline unsigned long dg_dma_addr(const void __dma *mem)
{
	return (__force unsigned long)mem;
}

/* Clear a block for its next user; the one write the core makes to it. */
static inline void dg_dma_zero(void __dma *mem, size_t len)
{
	memset((void __force *)mem, 0, len);
}

#endif /* _DMAGUARD_DMA_SPACE_H */
