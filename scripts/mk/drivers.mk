# SPDX-License-Identifier: GPL-2.0
#
# Real drivers on dmaguard (README "Converting a driver"):
#   make convert DRIVER=<dir> OUT=<dir>
#                      a driver directory of a kernel tree converted from
#                      dma_pool to dmaguard (scripts/convert-driver.py)
#   make real-drivers  every dma_pool user in drivers/ of Debian's
#                      linux-source-6.12 and -6.1, converted and built out
#                      of tree against Debian's kernel of that series: a
#                      table per kernel, also in
#                      build/real-drivers/<kver>/table.md (about 20
#                      minutes a kernel)
# Check group real-drivers: a fixed sample of those modules (SCSI,
# network, crypto, DMA engines, Bluetooth, NVMe, USB host), one line each.
#   make vm-drivers    the kernel's NVMe and xHCI drivers, converted, for
#                      tests/vm/nvme.vmtest, xhci.vmtest and BENCH nvme
#                      (scripts/vm-drivers.py; a VM dependency)

.PHONY: convert real-drivers check-real-drivers vm-drivers
VM_DEPS		+= vm-drivers

vm-drivers: deps
	@scripts/vm-drivers.py --keep-going

convert: deps
	@test -n "$(DRIVER)" -a -n "$(OUT)" || \
		{ echo "usage: make convert DRIVER=<driver dir> OUT=<new dir>"; exit 2; }
	@scripts/convert-driver.py "$(DRIVER)" "$(OUT)"

real-drivers: deps
	@scripts/real-drivers.py

check-real-drivers: deps
	@mkdir -p $(RESULTS)
	@scripts/real-drivers.py --sample > $(RESULTS)/real-drivers; rc=$$?; \
		cat $(RESULTS)/real-drivers; exit $$rc

CHECK_GROUPS	+= real-drivers
