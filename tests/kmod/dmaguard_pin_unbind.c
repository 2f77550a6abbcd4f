// SPDX-License-Identifier: GPL-2.0
/*
 * dmaguard_pin_unbind.ko: a PCI driver for QEMU's edu device that keeps a
 * pin cache bound to it, as a driver of user-buffer DMA would, and
 * destroys it in remove(), as pin.h asks: unbinding the device through
 * sysfs while a process holds handles and idle, DMA-mapped entries must
 * give every pin and mapping back (DMA-API debugging on the debug kernel
 * reports any mapping left at unbind). Driven by tests/vm/bin/pin_unbind.c
 * through /dev/dmaguard_pin_unbind (ioctls in dmaguard_pin_unbind.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/uaccess.h>
#include <dmaguard/dmaguard.h>
#include "dg_test_edu.h"
#include "dmaguard_pin_unbind.h"

DMAGUARD_IMPORT_NS();

/* The bound device, its cache and the handles held: under pu_lock. */
static DEFINE_MUTEX(pu_lock);
static struct pci_dev *pu_pdev;
static u16 pu_command;
static struct dmaguard_pin_cache *pu_cache;
static struct dmaguard_pin pu_slot[PU_SLOTS];
static bool pu_used[PU_SLOTS];
static unsigned int pu_removes;
static unsigned long pu_held_at_destroy;

static int pu_get(void __user *arg)
{
	struct dmaguard_pin_opts opts = { .sz = sizeof(opts) };
	struct pu_get in;
	int i, ret;

	if (copy_from_user(&in, arg, sizeof(in)))
		return -EFAULT;
	if (!pu_pdev)
		return -ENODEV;
	for (i = 0; i < PU_SLOTS && pu_used[i]; i++)
		;
	if (i == PU_SLOTS)
		return -ENOSPC;
	if (!pu_cache) {
		/* in the process's context: the cache serves its mm */
		pu_cache = dmaguard_pin_cache_create(&pu_pdev->dev, &opts);
		if (IS_ERR(pu_cache)) {
			ret = PTR_ERR(pu_cache);
			pu_cache = NULL;
			return ret;
		}
	}
	memset(&pu_slot[i], 0, sizeof(pu_slot[i]));
	pu_slot[i].sz = sizeof(pu_slot[i]);
	ret = dmaguard_pin_get(pu_cache, in.addr, in.len, true, &pu_slot[i]);
	if (ret)
		return ret;
	pu_used[i] = true;
	in.slot = i;
	in.mapped = !!pu_slot[i].sgt;
	return copy_to_user(arg, &in, sizeof(in)) ? -EFAULT : 0;
}

static int pu_put(void __user *arg)
{
	u32 slot;

	if (get_user(slot, (u32 __user *)arg))
		return -EFAULT;
	if (slot >= PU_SLOTS || !pu_used[slot] || !pu_cache)
		return -EINVAL;
	dmaguard_pin_put(pu_cache, &pu_slot[slot]);
	pu_used[slot] = false;
	return 0;
}

static int pu_state(void __user *arg)
{
	struct dmaguard_pin_stats st = { .sz = sizeof(st) };
	struct pu_state out = {
		.bound = !!pu_pdev,
		.removes = pu_removes,
		.held_at_destroy = pu_held_at_destroy,
	};
	int ret;

	if (pu_cache) {
		ret = dmaguard_pin_cache_stats(pu_cache, &st);
		if (ret)
			return ret;
		out.pinned_bytes = st.pinned_bytes;
		out.entries = st.entries;
	}
	return copy_to_user(arg, &out, sizeof(out)) ? -EFAULT : 0;
}

static long pu_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	long ret;

	mutex_lock(&pu_lock);
	switch (cmd) {
	case PU_IOC_GET:
		ret = pu_get(uarg);
		break;
	case PU_IOC_PUT:
		ret = pu_put(uarg);
		break;
	case PU_IOC_STATE:
		ret = pu_state(uarg);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&pu_lock);
	return ret;
}

static const struct file_operations pu_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = pu_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice pu_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "dmaguard_pin_unbind",
	.fops = &pu_fops,
	.mode = 0600,
};

/*
 * Memory decoding and bus mastering by the command register, not
 * pci_enable_device() (see dg_test_dev_get()): no interrupt is used.
 */
static int pu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret)
		return ret;
	mutex_lock(&pu_lock);
	pci_read_config_word(pdev, PCI_COMMAND, &pu_command);
	pci_write_config_word(pdev, PCI_COMMAND, pu_command |
			      PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	pu_pdev = pdev;
	mutex_unlock(&pu_lock);
	dev_info(&pdev->dev, "bound\n");
	return 0;
}

/* What pin.h asks of a driver: its handles back, then the cache, here. */
static void pu_remove(struct pci_dev *pdev)
{
	int i;

	mutex_lock(&pu_lock);
	for (i = 0; i < PU_SLOTS; i++) {
		if (pu_used[i])
			dmaguard_pin_put(pu_cache, &pu_slot[i]);
		pu_used[i] = false;
	}
	pu_held_at_destroy = dmaguard_pin_cache_destroy(pu_cache);
	pu_cache = NULL;
	pu_removes++;
	pci_write_config_word(pdev, PCI_COMMAND, pu_command);
	pu_pdev = NULL;
	mutex_unlock(&pu_lock);
	dev_info(&pdev->dev, "removed: %lu handles held at destroy\n",
		 pu_held_at_destroy);
}

static const struct pci_device_id pu_ids[] = {
	{ PCI_DEVICE(DG_EDU_VENDOR, DG_EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, pu_ids);

static struct pci_driver pu_driver = {
	.name = "dmaguard_pin_unbind",
	.id_table = pu_ids,
	.probe = pu_probe,
	.remove = pu_remove,
};

static int __init pu_init(void)
{
	int ret = misc_register(&pu_misc);

	if (ret)
		return ret;
	ret = pci_register_driver(&pu_driver);
	if (ret)
		misc_deregister(&pu_misc);
	return ret;
}

static void __exit pu_exit(void)
{
	pci_unregister_driver(&pu_driver);
	misc_deregister(&pu_misc);
}

module_init(pu_init);
module_exit(pu_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dmaguard pin cache bound to a PCI device that is unbound");
