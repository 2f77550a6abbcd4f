// SPDX-License-Identifier: GPL-2.0
/* The kernel's own lib/xarray.c over the radix-tree harness's userspace
 * headers (tools/testing/shared), as xarray-shared.c builds it but
 * without XA_DEBUG (the kernel does not define it either). */
#include "shared.h"
#include "../../../lib/xarray.c"
