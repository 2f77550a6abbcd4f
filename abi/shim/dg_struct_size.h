/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Size-carrying structs (the copy_struct_from_user() rules, for structs
 * passed between modules): the one place that decides whether a caller's
 * struct of some size may be used, shared by every exported function that
 * takes one. Plain C with no includes at all, so the same file builds into
 * dmaguard.ko and into the userspace unit tests (tests/abi/).
 */
#ifndef _DMAGUARD_STRUCT_SIZE_H
#define _DMAGUARD_STRUCT_SIZE_H

/*
 * Errors, as negative errno values. The numbers are those of the kernel
 * and of glibc on Linux; dg_pool_abi.c asserts they equal EINVAL/E2BIG.
 */
#define DG_SZ_EINVAL	22
#define DG_SZ_E2BIG	7

/*
 * No public struct will ever be this large: a bigger size is a caller bug
 * (garbage in "sz"), refused before any byte past the struct is read.
 */
#define DG_SZ_MAX	4096

int dg_struct_tail_is_zero(const void *p, __SIZE_TYPE__ from,
			   __SIZE_TYPE__ to);

/**
 * dg_struct_check() - whether a caller's struct of some size may be used
 * @p: the caller's struct
 * @size: its size as the caller says (its "sz" field)
 * @known: sizeof() the struct as this module knows it
 * @ver0_size: size of the first version of the struct
 *
 * The rule both copies apply, and callers that read or fill the struct in
 * place: no smaller than the first version, and no byte this module does
 * not know may be set. Inline: the usual caller passes a struct of the
 * size this module knows, and every pin cache get checks one.
 *
 * Return: 0; -DG_SZ_EINVAL when @size is smaller than @ver0_size;
 * -DG_SZ_E2BIG when the unknown tail of @p is not zero, or @size is larger
 * than DG_SZ_MAX.
 */
static inline int dg_struct_check(const void *p, __SIZE_TYPE__ size,
				  __SIZE_TYPE__ known,
				  __SIZE_TYPE__ ver0_size)
{
	if (size < ver0_size)
		return -DG_SZ_EINVAL;
	if (size > DG_SZ_MAX)
		return -DG_SZ_E2BIG;
	if (size > known && !dg_struct_tail_is_zero(p, known, size))
		return -DG_SZ_E2BIG;
	return 0;
}

int dg_struct_copy_in(void *dst, __SIZE_TYPE__ dst_size, const void *src,
		      __SIZE_TYPE__ src_size, __SIZE_TYPE__ ver0_size);
int dg_struct_copy_out(void *dst, __SIZE_TYPE__ dst_size, const void *src,
		       __SIZE_TYPE__ src_size, __SIZE_TYPE__ ver0_size);

#endif /* _DMAGUARD_STRUCT_SIZE_H */
