// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic memory windows (QRNIC_CAP0_MW) and fast-registration regions
 * (QRNIC_CAP0_FAST_REG).  Windows are allocated and freed here; binding
 * them is a send WQE that user space posts itself.  A fast-registration
 * region owns a DMA-coherent page list of max_pages entries that
 * map_mr_sg fills; the IB_WR_REG_MR work request hands the device its
 * address (qrnic_post.c), and the device copies it when the WQE runs.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_verbs.h>

#include "qrnic.h"
#include "qrnic_ib.h"
#include "qrnic_compat.h"

int qrnic_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibmw->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ALLOC_MW };
	u32 key;
	int ret;

	/* No driver data is defined for alloc_mw. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	cmd.alloc_mw.pdn = cpu_to_le32(to_qpd(ibmw->pd)->pdn);
	cmd.alloc_mw.type = ibmw->type == IB_MW_TYPE_1 ? QRNIC_MW_TYPE_1 :
							 QRNIC_MW_TYPE_2;
	ret = qrnic_aq_exec(qdev, &cmd, &key, NULL);
	if (ret)
		return ret;
	ibmw->rkey = key;
	return 0;
}

int qrnic_dealloc_mw(struct ib_mw *ibmw)
{
	/* Only a dead device fails: the window is gone either way. */
	qrnic_aq_exec_handle(to_qdev(ibmw->device), QRNIC_CMD_DEALLOC_MW,
			     ibmw->rkey);
	return 0;
}

struct ib_mr *qrnic_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ALLOC_MR };
	struct qrnic_mr *mr;
	int ret;

	if (mr_type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg ||
	    max_num_sg > le32_to_cpu(qdev->attr.max_fast_reg_pages))
		return ERR_PTR(-EINVAL);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pages = dma_alloc_coherent(&qdev->pdev->dev,
				       max_num_sg * sizeof(*mr->pages),
				       &mr->pages_dma, GFP_KERNEL);
	if (!mr->pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	cmd.alloc_mr.pdn = cpu_to_le32(to_qpd(ibpd)->pdn);
	cmd.alloc_mr.max_pages = cpu_to_le32(max_num_sg);
	ret = qrnic_mr_key_cmd(qdev, &cmd, mr);
	if (ret)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	qrnic_free_fast_reg(qdev, mr);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

void qrnic_free_fast_reg(struct qrnic_dev *qdev, struct qrnic_mr *mr)
{
	if (mr->pages)
		dma_free_coherent(&qdev->pdev->dev,
				  mr->max_pages * sizeof(*mr->pages), mr->pages,
				  mr->pages_dma);
	mr->pages = NULL;
}

static int qrnic_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct qrnic_mr *mr = to_qmr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

int qrnic_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct qrnic_mr *mr = to_qmr(ibmr);

	if (ibmr->page_size < BIT(QRNIC_MIN_PAGE_SHIFT) ||
	    ibmr->page_size > BIT(QRNIC_MAX_PAGE_SHIFT))
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, qrnic_set_page);
}

/* IB_WR_REG_MR: the device takes the page list map_mr_sg built. */
int qrnic_build_reg_mr(const struct ib_reg_wr *wr, struct qrnic_sq_wqe *hdr)
{
	struct qrnic_mr *mr = to_qmr(wr->mr);

	if (!mr->pages || !mr->npages ||
	    (wr->access & ~(QRNIC_ACCESS_ALL & ~QRNIC_ACCESS_MW_BIND)))
		return -EINVAL;
	hdr->reg_mr.key = cpu_to_le32(wr->key);
	hdr->reg_mr.access = cpu_to_le32(wr->access);
	hdr->reg_mr.iova = cpu_to_le64(mr->ibmr.iova);
	hdr->reg_mr.length = cpu_to_le64(mr->ibmr.length);
	hdr->reg_mr.pbl_addr = cpu_to_le64(mr->pages_dma);
	hdr->reg_mr.npages = cpu_to_le32(mr->npages);
	hdr->reg_mr.page_shift = ilog2(mr->ibmr.page_size);
	return 0;
}
