// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic memory regions: user regions (pinned, described to the device by
 * a page list in the largest page size the region allows) and the DMA MR
 * that ib_core asks for on every kernel PD.  The device allocates the key;
 * it serves as lkey and rkey.  Fast-registration regions: qrnic_mw.c.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>

#include "qrnic.h"
#include "qrnic_ib.h"

/* Hints the device has no use for; everything else it must implement. */
#define QRNIC_ACCESS_IGNORED	(IB_ACCESS_RELAXED_ORDERING | \
				 IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)

static int qrnic_mr_access(struct qrnic_dev *qdev, int access, u32 *out)
{
	u32 flags = access & ~QRNIC_ACCESS_IGNORED;

	if (flags & ~QRNIC_ACCESS_ALL)
		return -EOPNOTSUPP;
	if ((flags & IB_ACCESS_REMOTE_ATOMIC) &&
	    !(qdev->cap0 & QRNIC_CAP0_ATOMIC))
		return -EOPNOTSUPP;
	if ((flags & QRNIC_ACCESS_MW_BIND) && !(qdev->cap0 & QRNIC_CAP0_MW))
		return -EOPNOTSUPP;
	if ((flags & QRNIC_ACCESS_FLUSH_GLOBAL) &&
	    !(qdev->cap0 & QRNIC_CAP0_FLUSH))
		return -EOPNOTSUPP;
	*out = flags;
	return 0;
}

static int qrnic_reg_mr_cmd(struct qrnic_dev *qdev, struct qrnic_mr *mr,
			    const struct qrnic_pbl *pbl, u64 iova, u64 length,
			    u32 pdn, u32 access)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_REG_MR };
	int ret;

	cmd.reg_mr.pbl = *pbl;
	cmd.reg_mr.iova = iova;
	cmd.reg_mr.length = length;
	cmd.reg_mr.pdn = pdn;
	cmd.reg_mr.access = access;
	ret = qrnic_aq_exec(qdev, &cmd, &mr->key, NULL);
	if (ret)
		return ret;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

/* The DMA address space itself, for kernel PDs (ib_alloc_pd). */
struct ib_mr *qrnic_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_pbl pbl = {
		.levels = QRNIC_PBL_PHYS,
		.page_shift = QRNIC_MIN_PAGE_SHIFT,
	};
	struct qrnic_mr *mr;
	u32 flags;
	int ret;

	ret = qrnic_mr_access(qdev, access, &flags);
	if (ret)
		return ERR_PTR(ret);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	ret = qrnic_reg_mr_cmd(qdev, mr, &pbl, 0, U64_MAX, to_qpd(ibpd)->pdn,
			       flags);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	return &mr->ibmr;
}

/* Page sizes a page list may use: what the device reports, 4 KiB..1 GiB. */
#define QRNIC_MR_PGSZ_MASK	GENMASK_ULL(QRNIC_MAX_PAGE_SHIFT, \
					    QRNIC_MIN_PAGE_SHIFT)

struct ib_mr *qrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_pbl_buf pbuf;
	struct qrnic_pbl pbl;
	unsigned long pgsz;
	struct qrnic_mr *mr;
	u32 flags;
	int ret;

	ret = qrnic_mr_access(qdev, access, &flags);
	if (ret)
		return ERR_PTR(ret);
	if (!length || length > qdev->attr.max_mr_size)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}

	pgsz = ib_umem_find_best_pgsz(mr->umem, qdev->attr.page_size_cap &
				      QRNIC_MR_PGSZ_MASK, virt_addr);
	if (!pgsz) {
		ret = -EINVAL;
		goto err_umem;
	}
	if (qdev->attr.max_mr_pages &&
	    ib_umem_num_dma_blocks(mr->umem, pgsz) > qdev->attr.max_mr_pages) {
		ret = -EINVAL;
		goto err_umem;
	}

	ret = qrnic_pbl_build(qdev, mr->umem, pgsz, &pbl, &pbuf);
	if (ret)
		goto err_umem;
	ret = qrnic_reg_mr_cmd(qdev, mr, &pbl, virt_addr, length,
			       to_qpd(ibpd)->pdn, flags);
	qrnic_pbl_release(qdev, &pbuf);
	if (ret)
		goto err_umem;

	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	mr->ibmr.page_size = pgsz;
	return &mr->ibmr;

err_umem:
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(ret);
}

int qrnic_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibmr->device);
	struct qrnic_mr *mr = to_qmr(ibmr);
	int ret;

	ret = qrnic_aq_exec_handle(qdev, QRNIC_CMD_DEREG_MR, mr->key);
	if (qrnic_destroy_kept(ret))
		return ret;
	ib_umem_release(mr->umem);
	qrnic_free_fast_reg(qdev, mr);
	kfree(mr);
	return 0;
}
