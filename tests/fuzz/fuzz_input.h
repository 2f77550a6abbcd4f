/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: reading the input a byte at a time (0
 * once it runs out), and the check that aborts with the operation it
 * failed in (a crash for libFuzzer).
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct input {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t get8(struct input *in)
{
	uint8_t v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static inline uint16_t get16(struct input *in)
{
	return (uint16_t)(get8(in) | get8(in) << 8);
}

static inline uint32_t get32(struct input *in)
{
	return (uint32_t)get16(in) | (uint32_t)get16(in) << 16;
}

static inline uint64_t get64(struct input *in)
{
	return (uint64_t)get32(in) | (uint64_t)get32(in) << 32;
}

/* @op_nr and @op_name: the target's current operation. */
#define FUZZ_CHECK(prog, cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, prog ": op %lu (%s): check failed: %s: ", \
			op_nr, op_name, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		abort(); \
	} \
} while (0)

#endif /* FUZZ_INPUT_H */
