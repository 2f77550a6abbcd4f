// SPDX-License-Identifier: GPL-2.0
/*
 * Size-carrying structs: see dg_struct_size.h. No includes on purpose:
 * memcpy()/memset() come from the compiler builtins, which both the kernel
 * and libc provide.
 */
#include "dg_struct_size.h"

/**
 * dg_struct_tail_is_zero() - whether a caller's struct has no unknown bytes
 * @p: the caller's struct
 * @from: first byte this module does not know
 * @to: the caller's size
 *
 * The slow part of dg_struct_check(), for a struct larger than known.
 *
 * Return: 1 when bytes [@from, @to) of @p are all zero, else 0.
 */
int dg_struct_tail_is_zero(const void *p, __SIZE_TYPE__ from,
			   __SIZE_TYPE__ to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from])
			return 0;
	return 1;
}

/**
 * dg_struct_copy_in() - take a caller's struct of any version
 * @dst: the module's struct, @dst_size bytes
 * @dst_size: sizeof() the struct as this module knows it
 * @src: the caller's struct
 * @src_size: its size as the caller says (its "sz" field)
 * @ver0_size: size of the first version of the struct
 *
 * A smaller (older) struct is copied and zero-extended: fields the caller
 * does not know read as 0, which always means the old behaviour. A larger
 * (newer) one is accepted only if every byte this module does not know is
 * zero. On error @dst is left untouched.
 *
 * Return: 0; -DG_SZ_EINVAL when @src_size is smaller than @ver0_size;
 * -DG_SZ_E2BIG when the unknown tail of @src is not zero, or @src_size is
 * larger than DG_SZ_MAX.
 */
int dg_struct_copy_in(void *dst, __SIZE_TYPE__ dst_size, const void *src,
		      __SIZE_TYPE__ src_size, __SIZE_TYPE__ ver0_size)
{
	int ret = dg_struct_check(src, src_size, dst_size, ver0_size);

	if (ret)
		return ret;
	if (src_size > dst_size)
		src_size = dst_size;
	__builtin_memcpy(dst, src, src_size);
	if (src_size < dst_size)
		__builtin_memset((unsigned char *)dst + src_size, 0,
				 dst_size - src_size);
	return 0;
}

/**
 * dg_struct_copy_out() - fill a caller's struct of any version
 * @dst: the caller's struct; it comes zeroed except for its "sz" field
 * @dst_size: its size as the caller says (its "sz" field)
 * @src: the module's filled-in struct
 * @src_size: sizeof() the struct as this module knows it
 * @ver0_size: size of the first version of the struct
 *
 * Copies the part both sides know. A smaller (older) caller struct gets
 * its prefix; a larger (newer) one must have a zero tail beyond what this
 * module knows, which stays zero. Bytes of @src beyond @dst_size are
 * dropped. On error @dst is left untouched.
 *
 * Return: 0; -DG_SZ_EINVAL when @dst_size is smaller than @ver0_size;
 * -DG_SZ_E2BIG when the part of @dst this module does not know is not
 * zero, or @dst_size is larger than DG_SZ_MAX.
 */
int dg_struct_copy_out(void *dst, __SIZE_TYPE__ dst_size, const void *src,
		       __SIZE_TYPE__ src_size, __SIZE_TYPE__ ver0_size)
{
	int ret = dg_struct_check(dst, dst_size, src_size, ver0_size);

	if (ret)
		return ret;
	__builtin_memcpy(dst, src, dst_size < src_size ? dst_size : src_size);
	return 0;
}
