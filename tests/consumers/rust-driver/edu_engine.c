// SPDX-License-Identifier: GPL-2.0
/*
 * The one piece of the Rust example driver in C: 6.12's Rust bindings
 * have no PCI or MMIO functions and keep struct pci_dev opaque, so finding
 * QEMU's edu device (1234:11e8, QEMU's docs/specs/edu.rst), mapping its
 * registers and running its DMA engine are done here, as Rust-for-Linux's
 * helpers do for what Rust cannot reach.
 *
 * The engine copies between a DMA address and the device's own 4 KiB
 * buffer; one copy here is two such transfers (memory to buffer, buffer
 * to memory), each taking 100 ms of the VM's virtual time. Its DMA goes
 * through the machine's IOMMU like any PCI device's.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include "edu_engine.h"

#define EDU_REG_ID	0x00
#define EDU_REG_SRC	0x80
#define EDU_REG_DST	0x88
#define EDU_REG_CNT	0x90
#define EDU_REG_CMD	0x98
#define EDU_CMD_RUN	0x1
#define EDU_CMD_TO_RAM	0x2
#define EDU_BUF		0x40000	/* the device's buffer, as a DMA address */
#define EDU_MAX_LEN	2048	/* QEMU 7.2 refuses a copy ending at 4 KiB */

struct dg_rust_edu {
	struct pci_dev *pdev;
	void __iomem *mmio;
	u16 command;
};

/*
 * The edu device with a reference, memory decoding and bus mastering on
 * (written to the command register: pci_enable_device() would also route
 * an interrupt through ACPI, which costs seconds under TCG and which this
 * polled engine does not use), a 32-bit DMA mask (the device truncates
 * addresses to its dma_mask property) and its registers mapped; NULL
 * without one.
 */
struct dg_rust_edu *dg_rust_example_edu_get(void)
{
	struct dg_rust_edu *edu = kzalloc(sizeof(*edu), GFP_KERNEL);

	if (!edu)
		return NULL;
	edu->pdev = pci_get_device(0x1234, 0x11e8, NULL);
	if (!edu->pdev)
		goto free;
	pci_read_config_word(edu->pdev, PCI_COMMAND, &edu->command);
	pci_write_config_word(edu->pdev, PCI_COMMAND, edu->command |
			      PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	if (dma_set_mask_and_coherent(&edu->pdev->dev, DMA_BIT_MASK(32)))
		goto restore;
	edu->mmio = pci_iomap(edu->pdev, 0, 0);
	if (!edu->mmio)
		goto restore;
	if ((readl(edu->mmio + EDU_REG_ID) & 0xff) == 0xed)
		return edu;
	pci_iounmap(edu->pdev, edu->mmio);
restore:
	pci_write_config_word(edu->pdev, PCI_COMMAND, edu->command);
	pci_dev_put(edu->pdev);
free:
	kfree(edu);
	return NULL;
}

void dg_rust_example_edu_put(struct dg_rust_edu *edu)
{
	pci_iounmap(edu->pdev, edu->mmio);
	pci_write_config_word(edu->pdev, PCI_COMMAND, edu->command);
	pci_dev_put(edu->pdev);
	kfree(edu);
}

struct device *dg_rust_example_edu_dev(struct dg_rust_edu *edu)
{
	return &edu->pdev->dev;
}

/* One transfer between @ram and the start of the buffer, waited for. */
static int edu_xfer(struct dg_rust_edu *edu, bool to_ram, u64 ram, u32 len)
{
	unsigned long end = jiffies + 5 * HZ;

	writeq(to_ram ? EDU_BUF : ram, edu->mmio + EDU_REG_SRC);
	writeq(to_ram ? ram : EDU_BUF, edu->mmio + EDU_REG_DST);
	writeq(len, edu->mmio + EDU_REG_CNT);
	writeq(EDU_CMD_RUN | (to_ram ? EDU_CMD_TO_RAM : 0),
	       edu->mmio + EDU_REG_CMD);
	while (readq(edu->mmio + EDU_REG_CMD) & EDU_CMD_RUN) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(2000, 4000);
	}
	return 0;
}

/*
 * The device copies @len bytes from DMA address @src to DMA address @dst.
 * Process context: sleeps while the transfers run.
 */
int dg_rust_example_edu_copy(struct dg_rust_edu *edu, u64 src, u64 dst,
			     u32 len)
{
	int ret;

	if (!len || len > EDU_MAX_LEN)
		return -EINVAL;
	ret = edu_xfer(edu, false, src, len);
	return ret ? ret : edu_xfer(edu, true, dst, len);
}

/*
 * The DMA address of byte @off of a mapped table, if @len bytes from there
 * lie in one DMA segment; 0 otherwise.
 */
u64 dg_rust_example_dma_at(struct sg_table *sgt, u64 off, u32 len)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (off < sg_dma_len(sg))
			return off + len <= sg_dma_len(sg) ?
				sg_dma_address(sg) + off : 0;
		off -= sg_dma_len(sg);
	}
	return 0;
}
