#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS POST_BUILD hook (dkms.conf), run by `dkms build` in its build
# directory after the module is built: keep the Module.symvers of this
# build next to DKMS's copy of the module, in
# /var/lib/dkms/dmaguard/<version>/<kernel>/<arch>/Module.symvers, because
# DKMS deletes its build directory and an out-of-tree driver that uses
# dmaguard needs the file for modpost (KBUILD_EXTRA_SYMBOLS=).
# Usage (from dkms.conf): dkms-post-build.sh KERNELVER ARCH
set -eu
kernelver=$1
arch=$2
cp Module.symvers "../$kernelver/$arch/Module.symvers"
