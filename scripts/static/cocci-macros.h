/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extra macro hints for spatch (--macro-file), used by
 * scripts/static/coccicheck.sh. spatch treats the byte-order helpers as
 * opaque "known macros" and does not parse their arguments, so a pointer
 * laundered through cpu_to_le64((u64)ptr) would go unseen; as identities
 * their arguments are parsed like any expression.
 */
#define cpu_to_le16(x) (x)
#define cpu_to_le32(x) (x)
#define cpu_to_le64(x) (x)
#define cpu_to_be16(x) (x)
#define cpu_to_be32(x) (x)
#define cpu_to_be64(x) (x)
#define le16_to_cpu(x) (x)
#define le32_to_cpu(x) (x)
#define le64_to_cpu(x) (x)
#define be16_to_cpu(x) (x)
#define be32_to_cpu(x) (x)
#define be64_to_cpu(x) (x)
#define lower_32_bits(x) (x)
#define upper_32_bits(x) (x)
/*
 * Fixed-width kernel types, so that a double cast such as
 * (u64)(uintptr_t)ptr parses without the kernel's headers.
 */
#define u8 unsigned char
#define u16 unsigned short
#define u32 unsigned int
#define u64 unsigned long long
#define s8 signed char
#define s16 short
#define s32 int
#define s64 long long
#define uintptr_t unsigned long
/*
 * The core's invariant check is a statement-like macro; spatch takes
 * "VM_WARN_ON_ONCE(word);" after declarations for one more declaration.
 */
#define VM_WARN_ON_ONCE(cond) ((void)(cond))
/* Function attributes spatch does not know before an enum return type. */
#define __cold
#define noinline
