/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared state of the pool fuzzer (tests/fuzz/): fuzz_pool.c decodes the
 * input and drives the operations; fuzz_device.c is the hostile device
 * that scribbles chunk memory and checks what the pool wrote to it. The
 * reference model is pool_model.h.
 */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

/* Checking loops need no coverage feedback: keep them fast. */
#define NOCOV	__attribute__((no_sanitize("coverage"), __noinline__))

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pool.h"
#include "dg_user.h"
#include "pool_model.h"
#include "fuzz_input.h"

#define NPOOLS		3
#define DECOY_SIZE	8192
#define PATTERN_SIZE	4096

struct slot {
	struct dg_pool *pool;
	struct model_pool m;
};

/* Bytes a pool call may have written: the block it handed out or took. */
struct allowed {
	const unsigned char *p;
	size_t n;
};

/* fuzz_pool.c */
extern struct slot slots[NPOOLS];
extern unsigned long op_nr;
extern const char *op_name;

#define CHECK(cond, ...)	FUZZ_CHECK("fuzz_pool", cond, __VA_ARGS__)

/* fuzz_device.c: the decoy buffer a device may aim forged pointers at */
extern unsigned char decoy[DECOY_SIZE];

NOCOV void decoy_fill(void);
NOCOV void decoy_check(void);
NOCOV uint64_t forged_word(uint64_t r);
NOCOV void scribble_mode(uint8_t mode);
NOCOV void verify_untouched(const struct allowed *paint,
			    const struct allowed *zero);

#endif /* FUZZ_HARNESS_H */
