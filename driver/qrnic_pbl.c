// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic page lists: the DMA addresses of a pinned user buffer, as
 * CREATE_CQ and REG_MR take them.  Up to QRNIC_PBL_PER_PAGE pages go in one
 * flat array (LEVEL1); more go in 4 KiB leaf pages whose addresses form
 * the top array (LEVEL2).  The device copies the list while the command
 * runs, so the list is released right after it.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "qrnic.h"
#include "qrnic_ib.h"

#define QRNIC_PBL_LEAF_SIZE	(QRNIC_PBL_PER_PAGE * sizeof(__le64))

static int qrnic_pbl_alloc_leaves(struct qrnic_dev *qdev,
				  struct qrnic_pbl_buf *buf, u32 nleaves)
{
	struct device *dev = &qdev->pdev->dev;
	u32 i;

	buf->leaves = kcalloc(nleaves, sizeof(*buf->leaves), GFP_KERNEL);
	buf->leaf_dma = kcalloc(nleaves, sizeof(*buf->leaf_dma), GFP_KERNEL);
	if (!buf->leaves || !buf->leaf_dma)
		return -ENOMEM;
	for (i = 0; i < nleaves; i++) {
		buf->leaves[i] = dma_alloc_coherent(dev, QRNIC_PBL_LEAF_SIZE,
						    &buf->leaf_dma[i],
						    GFP_KERNEL);
		if (!buf->leaves[i])
			return -ENOMEM;
		buf->nleaves++;
		buf->top[i] = cpu_to_le64(buf->leaf_dma[i]);
	}
	return 0;
}

/*
 * Describe umem in blocks of pgsz bytes.  Fills *pbl for the command;
 * release *buf with qrnic_pbl_release() once the command has run.
 */
int qrnic_pbl_build(struct qrnic_dev *qdev, struct ib_umem *umem,
		    unsigned long pgsz, struct qrnic_pbl *pbl,
		    struct qrnic_pbl_buf *buf)
{
	struct device *dev = &qdev->pdev->dev;
	struct ib_block_iter biter;
	size_t npages;
	u32 nleaves;
	size_t i = 0;
	int ret;

	memset(buf, 0, sizeof(*buf));
	npages = ib_umem_num_dma_blocks(umem, pgsz);
	if (!npages || npages > U32_MAX)
		return -EINVAL;

	nleaves = npages > QRNIC_PBL_PER_PAGE ?
		  DIV_ROUND_UP(npages, QRNIC_PBL_PER_PAGE) : 0;
	buf->top_size = (nleaves ? nleaves : npages) * sizeof(*buf->top);
	buf->top = dma_alloc_coherent(dev, buf->top_size, &buf->top_dma,
				      GFP_KERNEL);
	if (!buf->top)
		return -ENOMEM;
	if (nleaves) {
		ret = qrnic_pbl_alloc_leaves(qdev, buf, nleaves);
		if (ret) {
			qrnic_pbl_release(qdev, buf);
			return ret;
		}
	}

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		u64 addr = rdma_block_iter_dma_address(&biter);

		if (WARN_ON_ONCE(i >= npages))
			break;
		if (nleaves)
			buf->leaves[i / QRNIC_PBL_PER_PAGE]
				   [i % QRNIC_PBL_PER_PAGE] = cpu_to_le64(addr);
		else
			buf->top[i] = cpu_to_le64(addr);
		i++;
	}

	pbl->addr = cpu_to_le64(buf->top_dma);
	pbl->npages = cpu_to_le32(npages);
	pbl->levels = nleaves ? QRNIC_PBL_LEVEL2 : QRNIC_PBL_LEVEL1;
	pbl->page_shift = order_base_2(pgsz);
	pbl->rsvd = 0;
	return 0;
}

void qrnic_pbl_release(struct qrnic_dev *qdev, struct qrnic_pbl_buf *buf)
{
	struct device *dev = &qdev->pdev->dev;
	u32 i;

	for (i = 0; i < buf->nleaves; i++)
		dma_free_coherent(dev, QRNIC_PBL_LEAF_SIZE, buf->leaves[i],
				  buf->leaf_dma[i]);
	kfree(buf->leaves);
	kfree(buf->leaf_dma);
	if (buf->top)
		dma_free_coherent(dev, buf->top_size, buf->top, buf->top_dma);
	memset(buf, 0, sizeof(*buf));
}
