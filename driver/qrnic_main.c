// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic: PCI driver for the emulated qrnic RoCEv2 NIC (QEMU -device qrnic).
 * Probe/remove, bring-up handshake, interrupt vectors, module parameters.
 */
#include <linux/module.h>
#include <linux/iopoll.h>
#include <linux/interrupt.h>

#include "qrnic.h"

#define QRNIC_RESET_TIMEOUT_US	(2 * USEC_PER_SEC)
#define QRNIC_ENABLE_TIMEOUT_US	(2 * USEC_PER_SEC)
#define QRNIC_POLL_US		1000

unsigned int qrnic_aq_log_depth = 5;
module_param_named(aq_log_depth, qrnic_aq_log_depth, uint, 0444);
MODULE_PARM_DESC(aq_log_depth, "log2 of the admin queue depth (2..8, default 5)");

unsigned int qrnic_eth_ring_log = 8;
module_param_named(eth_ring_log, qrnic_eth_ring_log, uint, 0444);
MODULE_PARM_DESC(eth_ring_log, "log2 of the Ethernet TX/RX ring size (6..12, default 8)");

void qrnic_intr_mask(struct qrnic_dev *qdev, unsigned int vec, bool masked)
{
	unsigned long flags;

	spin_lock_irqsave(&qdev->intr_lock, flags);
	if (masked)
		qdev->intr_mask |= BIT(vec);
	else
		qdev->intr_mask &= ~BIT(vec);
	qrnic_wr32(qdev, QRNIC_REG_INTR_MASK, qdev->intr_mask);
	spin_unlock_irqrestore(&qdev->intr_lock, flags);
}

static int qrnic_reset(struct qrnic_dev *qdev)
{
	u32 ctrl;
	int ret;

	qrnic_wr32(qdev, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
	ret = readl_poll_timeout(qdev->regs + QRNIC_REG_CTRL, ctrl,
				 !(ctrl & QRNIC_CTRL_RESET), QRNIC_POLL_US,
				 QRNIC_RESET_TIMEOUT_US);
	if (ret)
		dev_err(&qdev->pdev->dev,
			"device reset timed out (CTRL %#x, STATUS %#x)\n",
			ctrl, qrnic_rd32(qdev, QRNIC_REG_STATUS));
	return ret;
}

static int qrnic_enable(struct qrnic_dev *qdev)
{
	u32 status;
	int ret;

	qrnic_wr32(qdev, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
	ret = readl_poll_timeout(qdev->regs + QRNIC_REG_STATUS, status,
				 status & (QRNIC_STATUS_READY |
					   QRNIC_STATUS_FATAL),
				 QRNIC_POLL_US, QRNIC_ENABLE_TIMEOUT_US);
	if (ret) {
		dev_err(&qdev->pdev->dev,
			"device did not become ready (STATUS %#x)\n", status);
		return ret;
	}
	if (status & QRNIC_STATUS_FATAL) {
		dev_err(&qdev->pdev->dev,
			"device failed to enable: STATUS %#x, INIT_ERR %u\n",
			status, qrnic_rd32(qdev, QRNIC_REG_INIT_ERR));
		return -EIO;
	}
	return 0;
}

/* Identity and capability registers, before touching anything else. */
static int qrnic_check_id(struct qrnic_dev *qdev)
{
	struct device *dev = &qdev->pdev->dev;
	u32 id, version;

	id = qrnic_rd32(qdev, QRNIC_REG_ID);
	if (id != QRNIC_ID_MAGIC) {
		dev_err(dev, "bad ID register %#x (want %#x)\n", id,
			QRNIC_ID_MAGIC);
		return -ENODEV;
	}
	version = qrnic_rd32(qdev, QRNIC_REG_VERSION);
	if (version >> 16 != QRNIC_VERSION_MAJOR) {
		dev_err(dev, "unsupported interface version %u.%u (driver: %u.x)\n",
			version >> 16, version & 0xffff, QRNIC_VERSION_MAJOR);
		return -ENODEV;
	}

	qdev->cap0 = qrnic_rd32(qdev, QRNIC_REG_CAP0);
	qdev->num_db_pages = qrnic_rd32(qdev, QRNIC_REG_DB_PAGES);
	qdev->aq_max_log = qrnic_rd32(qdev, QRNIC_REG_AQ_MAX_LOG);
	if (!(qdev->cap0 & QRNIC_CAP0_ETH) || !(qdev->cap0 & QRNIC_CAP0_ROCE_V2)) {
		dev_err(dev, "device lacks Ethernet or RoCE v2 (CAP0 %#x)\n",
			qdev->cap0);
		return -ENODEV;
	}
	if (qdev->aq_max_log < 1 || qdev->aq_max_log > QRNIC_AQ_MAX_LOG)
		qdev->aq_max_log = QRNIC_AQ_MAX_LOG;
	if (!qdev->num_db_pages ||
	    (u64)qdev->num_db_pages * QRNIC_DB_PAGE_SIZE > qdev->db_len) {
		dev_err(dev, "bad doorbell page count %u for a %pa byte BAR\n",
			qdev->num_db_pages, &qdev->db_len);
		return -ENODEV;
	}
	dev_info(dev, "qrnic interface %u.%u, CAP0 %#x, %u doorbell pages, %u queue memory pages\n",
		 version >> 16, version & 0xffff, qdev->cap0,
		 qdev->num_db_pages, qrnic_rd32(qdev, QRNIC_REG_QMEM_PAGES));
	return 0;
}

static int qrnic_map_bars(struct qrnic_dev *qdev)
{
	struct pci_dev *pdev = qdev->pdev;

	if (!(pci_resource_flags(pdev, QRNIC_BAR_REGS) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, QRNIC_BAR_REGS) < QRNIC_BAR0_SIZE ||
	    !(pci_resource_flags(pdev, QRNIC_BAR_DB) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, QRNIC_BAR_DB) < QRNIC_DB_PAGE_SIZE) {
		dev_err(&pdev->dev, "unexpected BAR layout\n");
		return -ENODEV;
	}

	qdev->regs = pci_iomap(pdev, QRNIC_BAR_REGS, QRNIC_BAR0_SIZE);
	if (!qdev->regs)
		return -ENOMEM;
	/* The kernel only rings page 0; user pages are mapped by mmap(). */
	qdev->db = pci_iomap(pdev, QRNIC_BAR_DB, QRNIC_DB_PAGE_SIZE);
	if (!qdev->db) {
		pci_iounmap(pdev, qdev->regs);
		qdev->regs = NULL;
		return -ENOMEM;
	}
	qdev->db_start = pci_resource_start(pdev, QRNIC_BAR_DB);
	qdev->db_len = pci_resource_len(pdev, QRNIC_BAR_DB);
	qdev->qmem_start = pci_resource_start(pdev, QRNIC_BAR_QMEM);
	qdev->qmem_len = pci_resource_len(pdev, QRNIC_BAR_QMEM);
	return 0;
}

static void qrnic_unmap_bars(struct qrnic_dev *qdev)
{
	pci_iounmap(qdev->pdev, qdev->db);
	pci_iounmap(qdev->pdev, qdev->regs);
	qdev->db = NULL;
	qdev->regs = NULL;
}

/*
 * Vector 0: admin + async EQ, 1: Ethernet, 2..: one completion EQ each, as
 * many as there are CPUs (and the device has vectors and EQs for), spread
 * over the CPUs.
 */
static int qrnic_alloc_vectors(struct qrnic_dev *qdev)
{
	struct irq_affinity affd = { .pre_vectors = QRNIC_VEC_CEQ0 };
	struct pci_dev *pdev = qdev->pdev;
	u32 num_eq = le32_to_cpu(qdev->attr.num_eq);
	u32 hw, ceqs;
	int ret;

	hw = min_t(u32, qrnic_rd32(qdev, QRNIC_REG_NUM_MSIX), QRNIC_NUM_MSIX);
	ceqs = num_online_cpus();
	if (hw > QRNIC_VEC_CEQ0)
		ceqs = min(ceqs, hw - QRNIC_VEC_CEQ0);
	if (num_eq > 1)
		ceqs = min(ceqs, num_eq - 1);
	ceqs = max(ceqs, 1U);

	ret = pci_alloc_irq_vectors_affinity(pdev, QRNIC_MIN_VECS,
					     QRNIC_VEC_CEQ0 + ceqs,
					     PCI_IRQ_MSIX | PCI_IRQ_AFFINITY,
					     &affd);
	if (ret < 0) {
		dev_err(&pdev->dev, "cannot allocate %d MSI-X vectors (device has %u): %d\n",
			QRNIC_MIN_VECS, hw, ret);
		return ret;
	}
	qdev->nvecs = ret;
	return 0;
}

/*
 * Each step below has its undo; probe unwinds through them and remove
 * calls them all, in reverse order.
 */
static int qrnic_pci_enable(struct pci_dev *pdev)
{
	int ret;

	ret = pci_enable_device(pdev);
	if (ret) {
		dev_err(&pdev->dev, "cannot enable PCI device: %d\n", ret);
		return ret;
	}
	ret = pci_request_regions(pdev, DRV_NAME);
	if (ret) {
		dev_err(&pdev->dev, "cannot request regions: %d\n", ret);
		goto err_disable;
	}
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err(&pdev->dev, "no usable 64-bit DMA: %d\n", ret);
		goto err_release;
	}
	return 0;

err_release:
	pci_clear_master(pdev);
	pci_release_regions(pdev);
err_disable:
	pci_disable_device(pdev);
	return ret;
}

static void qrnic_pci_disable(struct pci_dev *pdev)
{
	pci_clear_master(pdev);
	pci_release_regions(pdev);
	pci_disable_device(pdev);
}

static void qrnic_hw_uninit(struct qrnic_dev *qdev)
{
	/* After the reset the device no longer touches our memory. */
	qrnic_reset(qdev);
	qrnic_ceqs_free(qdev);
	qrnic_async_eq_free(qdev);
	qrnic_aq_free(qdev);
	qrnic_qmem_uninit(qdev);
}

/* Queue memory, the admin queue and the handshake up to READY. */
static int qrnic_hw_init(struct qrnic_dev *qdev)
{
	int ret;

	if (qdev->cap0 & QRNIC_CAP0_RC) {
		ret = qrnic_qmem_init(qdev);
		if (ret)
			return ret;
	}

	ret = qrnic_aq_alloc(qdev);
	if (ret)
		goto err_qmem;
	ret = qrnic_reset(qdev);
	if (ret)
		goto err_aq;
	/* Everything masked until its handler is in place. */
	qdev->intr_mask = GENMASK(QRNIC_NUM_MSIX - 1, 0) & ~BIT(QRNIC_VEC_ASYNC);
	qrnic_wr32(qdev, QRNIC_REG_INTR_MASK, qdev->intr_mask);
	qrnic_aq_program(qdev);
	ret = qrnic_enable(qdev);
	if (ret)
		goto err_reset;

	/* Polled: interrupts are not set up yet. */
	ret = qrnic_query_device(qdev);
	if (ret)
		goto err_reset;
	return 0;

err_reset:
	qrnic_hw_uninit(qdev);
	return ret;
err_aq:
	qrnic_aq_free(qdev);
err_qmem:
	qrnic_qmem_uninit(qdev);
	return ret;
}

static void qrnic_eqs_destroy(struct qrnic_dev *qdev)
{
	qrnic_ceqs_destroy(qdev);
	qrnic_async_eq_destroy(qdev);
	qrnic_async_irq_free(qdev);
	pci_free_irq_vectors(qdev->pdev);
}

/* The vectors, the async EQ and the completion EQs. */
static int qrnic_eqs_create(struct qrnic_dev *qdev)
{
	int ret;

	ret = qrnic_alloc_vectors(qdev);
	if (ret)
		return ret;

	ret = qrnic_async_irq_request(qdev);
	if (ret)
		goto err_vectors;
	ret = qrnic_async_eq_create(qdev);
	if (ret)
		goto err_irq;
	ret = qrnic_ceqs_create(qdev);
	if (ret)
		qrnic_eqs_destroy(qdev);
	return ret;

err_irq:
	qrnic_async_irq_free(qdev);
err_vectors:
	pci_free_irq_vectors(qdev->pdev);
	return ret;
}

static void qrnic_dev_free(struct qrnic_dev *qdev)
{
	pci_set_drvdata(qdev->pdev, NULL);
	ida_destroy(&qdev->xrcd_ida);
	xa_destroy(&qdev->srq_xa);
	xa_destroy(&qdev->qp_xa);
	xa_destroy(&qdev->cq_xa);
	mutex_destroy(&qdev->link_lock);
	ib_dealloc_device(&qdev->ibdev);
}

static int qrnic_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct qrnic_dev *qdev;
	int ret;

	qdev = ib_alloc_device(qrnic_dev, ibdev);
	if (!qdev)
		return -ENOMEM;
	qdev->pdev = pdev;
	pci_set_drvdata(pdev, qdev);
	spin_lock_init(&qdev->intr_lock);
	mutex_init(&qdev->link_lock);
	xa_init_flags(&qdev->cq_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&qdev->qp_xa, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&qdev->srq_xa, XA_FLAGS_LOCK_IRQ);
	ida_init(&qdev->xrcd_ida);

	ret = qrnic_pci_enable(pdev);
	if (ret)
		goto err_free;
	ret = qrnic_map_bars(qdev);
	if (ret)
		goto err_pci;
	ret = qrnic_check_id(qdev);
	if (ret)
		goto err_unmap;
	ret = qrnic_hw_init(qdev);
	if (ret)
		goto err_unmap;
	ret = qrnic_eqs_create(qdev);
	if (ret)
		goto err_hw;

	ret = qrnic_netdev_init(qdev);
	if (ret)
		goto err_eqs;
	ret = qrnic_ib_register(qdev);
	if (ret)
		goto err_netdev;

	/* Pick up the link state the device had before the EQ existed. */
	qrnic_link_update(qdev);
	dev_info(&pdev->dev, "%s and %s ready, MAC %pM\n",
		 qdev->netdev->name, dev_name(&qdev->ibdev.dev),
		 qdev->netdev->dev_addr);
	return 0;

err_netdev:
	qrnic_netdev_uninit(qdev);
err_eqs:
	qrnic_eqs_destroy(qdev);
err_hw:
	qrnic_hw_uninit(qdev);
err_unmap:
	qrnic_unmap_bars(qdev);
err_pci:
	qrnic_pci_disable(pdev);
err_free:
	qrnic_dev_free(qdev);
	return ret;
}

static void qrnic_remove(struct pci_dev *pdev)
{
	struct qrnic_dev *qdev = pci_get_drvdata(pdev);

	/* Destroys every RDMA object, user space's included. */
	qrnic_ib_unregister(qdev);
	qrnic_netdev_uninit(qdev);
	qrnic_eqs_destroy(qdev);
	qrnic_hw_uninit(qdev);
	qrnic_unmap_bars(qdev);
	qrnic_pci_disable(pdev);
	qrnic_dev_free(qdev);
}

static const struct pci_device_id qrnic_pci_ids[] = {
	{ PCI_DEVICE_SUB(QRNIC_PCI_VENDOR_ID, QRNIC_PCI_DEVICE_ID,
			 QRNIC_PCI_SUBSYS_VENDOR_ID, QRNIC_PCI_SUBSYS_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, qrnic_pci_ids);

static struct pci_driver qrnic_pci_driver = {
	.name		= DRV_NAME,
	.id_table	= qrnic_pci_ids,
	.probe		= qrnic_probe,
	.remove		= qrnic_remove,
};

static bool qrnic_param_ok(const char *name, unsigned int val,
			   unsigned int min, unsigned int max)
{
	if (val >= min && val <= max)
		return true;
	pr_err(DRV_NAME ": %s=%u out of range %u..%u\n", name, val, min, max);
	return false;
}

static int __init qrnic_init(void)
{
	if (!qrnic_param_ok("aq_log_depth", qrnic_aq_log_depth, 2,
			    QRNIC_AQ_MAX_LOG) ||
	    !qrnic_param_ok("eth_ring_log", qrnic_eth_ring_log, 6,
			    QRNIC_ETH_MAX_LOG))
		return -EINVAL;
	return pci_register_driver(&qrnic_pci_driver);
}

static void __exit qrnic_exit(void)
{
	pci_unregister_driver(&qrnic_pci_driver);
}

module_init(qrnic_init);
module_exit(qrnic_exit);

MODULE_DESCRIPTION("qrnic emulated RoCEv2 NIC");
MODULE_LICENSE("GPL");
