#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernel-doc gate of the ABI files: see scripts/abi/kerneldoc.py.
exec python3 "$(dirname "$0")/kerneldoc.py" "$@"
