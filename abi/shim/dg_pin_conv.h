/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Translation between the public pin cache structs (<dmaguard/pin.h>) and
 * the core's (c-core/pincache.h). Plain C over dg_platform.h.
 */
#ifndef _DMAGUARD_PIN_CONV_H
#define _DMAGUARD_PIN_CONV_H

#include <dmaguard/pin.h>
#include "pincache.h"

int dg_pin_opts_parse(const struct dmaguard_pin_opts *caller, int node,
		      struct dg_pin_params *p);
int dg_pin_handle_check(const struct dmaguard_pin *caller);
void dg_pin_handle_out(struct dmaguard_pin *caller,
		       const struct dg_pin_handle *h);
u64 dg_pin_handle_cookie(struct dmaguard_pin *caller);
int dg_pin_stats_out(struct dmaguard_pin_stats *caller,
		     const struct dg_pin_stats *cs);

#endif /* _DMAGUARD_PIN_CONV_H */
