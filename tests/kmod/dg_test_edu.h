/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's edu test device (PCI 1234:11e8, QEMU's docs/specs/edu.rst) as a
 * DMA engine for the test modules: it copies up to DG_EDU_XFER bytes at a
 * time between guest memory, at a DMA address, and its own 4 KiB buffer.
 * A transfer runs on its own and takes 100 ms of the VM's virtual time;
 * the DMA command register reads back with DG_EDU_DMA_RUN set until it is
 * done. Its DMA goes through the machine's IOMMU like any PCI device's.
 *
 * The device truncates DMA addresses to its dma_mask property (28 bits by
 * default): the VM specs give it "-device edu,dma_mask=0xffffffff" and the
 * test modules a 32-bit DMA mask (dg_test_dev_get()).
 */
#ifndef _DG_TEST_EDU_H
#define _DG_TEST_EDU_H

#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/pci.h>

#define DG_EDU_VENDOR		0x1234
#define DG_EDU_DEVICE		0x11e8
#define DG_EDU_REG_ID		0x00
#define DG_EDU_REG_DMA_SRC	0x80
#define DG_EDU_REG_DMA_DST	0x88
#define DG_EDU_REG_DMA_CNT	0x90
#define DG_EDU_REG_DMA_CMD	0x98
#define DG_EDU_DMA_RUN		0x1
#define DG_EDU_DMA_TO_RAM	0x2
#define DG_EDU_BUF		0x40000		/* the buffer, as a DMA address */
/*
 * Bytes per transfer. QEMU 7.2's range check refuses (with hw_error(),
 * which aborts QEMU) a transfer that ends exactly at the end of the
 * device's 4 KiB buffer, so no transfer may cover the whole of it.
 */
#define DG_EDU_XFER		2048
#define DG_EDU_TIMEOUT		(5 * HZ)

/**
 * dg_edu_map() - map the edu device's registers and check its identity
 * @pdev: the edu device, memory decoding and bus mastering on
 *
 * Return: the registers (pci_iounmap() them), or NULL.
 */
static inline void __iomem *dg_edu_map(struct pci_dev *pdev)
{
	void __iomem *mmio = pci_iomap(pdev, 0, 0);
	u32 id;

	if (!mmio)
		return NULL;
	id = readl(mmio + DG_EDU_REG_ID);
	if ((id & 0xff) != 0xed) {
		pr_info("# edu: unexpected id %#x\n", id);
		pci_iounmap(pdev, mmio);
		return NULL;
	}
	return mmio;
}

/**
 * dg_edu_dma_start() - start one transfer
 * @mmio: the device's registers
 * @to_ram: from the device's buffer to @ram (else from @ram to the buffer)
 * @ram: the DMA address in guest memory
 * @len: bytes, 1 to DG_EDU_XFER, at the start of the device's buffer
 *
 * Return: 0, or -EINVAL for a bad @len.
 */
static inline int dg_edu_dma_start(void __iomem *mmio, bool to_ram,
				   dma_addr_t ram, u32 len)
{
	if (!len || len > DG_EDU_XFER)
		return -EINVAL;
	writeq(to_ram ? DG_EDU_BUF : ram, mmio + DG_EDU_REG_DMA_SRC);
	writeq(to_ram ? ram : DG_EDU_BUF, mmio + DG_EDU_REG_DMA_DST);
	writeq(len, mmio + DG_EDU_REG_DMA_CNT);
	writeq(DG_EDU_DMA_RUN | (to_ram ? DG_EDU_DMA_TO_RAM : 0),
	       mmio + DG_EDU_REG_DMA_CMD);
	return 0;
}

/* Whether the transfer started last is still running. */
static inline bool dg_edu_dma_busy(void __iomem *mmio)
{
	return readq(mmio + DG_EDU_REG_DMA_CMD) & DG_EDU_DMA_RUN;
}

/**
 * dg_edu_dma() - one transfer, waited for (sleeps)
 * @mmio: the device's registers
 * @to_ram: as for dg_edu_dma_start()
 * @ram: as for dg_edu_dma_start()
 * @len: as for dg_edu_dma_start()
 *
 * Return: 0, -EINVAL, or -ETIMEDOUT if the device did not finish.
 */
static inline int dg_edu_dma(void __iomem *mmio, bool to_ram, dma_addr_t ram,
			     u32 len)
{
	unsigned long end = jiffies + DG_EDU_TIMEOUT;
	int ret = dg_edu_dma_start(mmio, to_ram, ram, len);

	while (!ret && dg_edu_dma_busy(mmio)) {
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		usleep_range(2000, 4000);
	}
	return ret;
}

#endif /* _DG_TEST_EDU_H */
