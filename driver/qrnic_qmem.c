// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic queue memory: BAR4 is RAM inside the device that holds every QP's
 * send and receive rings.  The driver hands out slices of it, page by page,
 * from a bitmap.  Slices are whole CPU pages, aligned to them, so a user
 * mapping of one slice never reaches another.
 */
#include <linux/bitmap.h>
#include <linux/pci.h>

#include "qrnic.h"

#define QRNIC_QMEM_PER_CPU_PAGE	(PAGE_SIZE / QRNIC_QMEM_PAGE_SIZE)

int qrnic_qmem_init(struct qrnic_dev *qdev)
{
	struct qrnic_qmem *qm = &qdev->qmem;
	struct pci_dev *pdev = qdev->pdev;
	u64 npages;

	BUILD_BUG_ON(PAGE_SIZE % QRNIC_QMEM_PAGE_SIZE);

	if (!(pci_resource_flags(pdev, QRNIC_BAR_QMEM) & IORESOURCE_MEM) ||
	    qdev->qmem_len < PAGE_SIZE) {
		dev_err(&pdev->dev, "queue memory BAR missing or too small\n");
		return -ENODEV;
	}
	npages = min_t(u64, qdev->qmem_len / QRNIC_QMEM_PAGE_SIZE,
		       qrnic_rd32(qdev, QRNIC_REG_QMEM_PAGES));
	/* Offsets are 32 bit in CREATE_QP. */
	npages = min_t(u64, npages, U32_MAX / QRNIC_QMEM_PAGE_SIZE);
	npages = rounddown(npages, QRNIC_QMEM_PER_CPU_PAGE);
	if (!npages) {
		dev_err(&pdev->dev, "device reports no queue memory\n");
		return -ENODEV;
	}

	qm->va = pci_iomap_wc(pdev, QRNIC_BAR_QMEM,
			      npages * QRNIC_QMEM_PAGE_SIZE);
	if (!qm->va)
		return -ENOMEM;
	qm->bitmap = bitmap_zalloc(npages, GFP_KERNEL);
	if (!qm->bitmap) {
		pci_iounmap(pdev, qm->va);
		qm->va = NULL;
		return -ENOMEM;
	}
	spin_lock_init(&qm->lock);
	qm->npages = npages;
	qm->used = 0;
	return 0;
}

/* After every QP is gone (ib_unregister_device has returned). */
void qrnic_qmem_uninit(struct qrnic_dev *qdev)
{
	struct qrnic_qmem *qm = &qdev->qmem;

	if (!qm->va)
		return;
	if (qm->used)
		dev_err(&qdev->pdev->dev, "%u queue memory pages still in use\n",
			qm->used);
	bitmap_free(qm->bitmap);
	pci_iounmap(qdev->pdev, qm->va);
	qm->bitmap = NULL;
	qm->va = NULL;
}

static u32 qrnic_qmem_pages(u32 len)
{
	return round_up(DIV_ROUND_UP(len, QRNIC_QMEM_PAGE_SIZE),
			QRNIC_QMEM_PER_CPU_PAGE);
}

/* A slice of at least len bytes; *offset is its BAR4 byte offset. */
int qrnic_qmem_alloc(struct qrnic_dev *qdev, u32 len, u32 *offset)
{
	struct qrnic_qmem *qm = &qdev->qmem;
	u32 n = qrnic_qmem_pages(len);
	unsigned long first;

	if (!qm->va || !n || n > qm->npages)
		return -ENOMEM;

	spin_lock(&qm->lock);
	first = bitmap_find_next_zero_area(qm->bitmap, qm->npages, 0, n,
					   QRNIC_QMEM_PER_CPU_PAGE - 1);
	if (first >= qm->npages) {
		spin_unlock(&qm->lock);
		return -ENOMEM;
	}
	bitmap_set(qm->bitmap, first, n);
	qm->used += n;
	spin_unlock(&qm->lock);

	*offset = first * QRNIC_QMEM_PAGE_SIZE;
	return 0;
}

void qrnic_qmem_free(struct qrnic_dev *qdev, u32 offset, u32 len)
{
	struct qrnic_qmem *qm = &qdev->qmem;
	u32 first = offset / QRNIC_QMEM_PAGE_SIZE;
	u32 n = qrnic_qmem_pages(len);

	if (WARN_ON_ONCE(first >= qm->npages || n > qm->npages - first))
		return;
	spin_lock(&qm->lock);
	bitmap_clear(qm->bitmap, first, n);
	qm->used -= n;
	spin_unlock(&qm->lock);
}
