// SPDX-License-Identifier: GPL-2.0
/*
 * The one piece of the Rust example driver in C: 6.12's Rust bindings
 * have no PCI functions and keep struct pci_dev opaque (no &pdev->dev
 * from Rust), so finding QEMU's edu device and its struct device is done
 * here, as the Rust-for-Linux helpers do for static inline functions.
 */
#include <linux/pci.h>
#include "edu_lookup.h"

/* The edu device (1234:11e8), with a reference; NULL if the VM has none. */
struct device *dg_rust_example_edu_get(void)
{
	struct pci_dev *pdev = pci_get_device(0x1234, 0x11e8, NULL);

	return pdev ? &pdev->dev : NULL;
}

/* Drops the reference dg_rust_example_edu_get() took. */
void dg_rust_example_edu_put(struct device *dev)
{
	pci_dev_put(to_pci_dev(dev));
}
