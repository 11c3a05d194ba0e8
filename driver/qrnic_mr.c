// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic memory regions: user regions (pinned, described to the device by
 * a page list in the largest page size the region allows; ibv_rereg_mr
 * registers them again under a new key) and the DMA MR that ib_core asks
 * for on every kernel PD.  The device allocates the key; it serves as lkey
 * and rkey.  Fast-registration regions: qrnic_mw.c.
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

static int qrnic_reg_mr_cmd(struct qrnic_dev *qdev, const struct qrnic_pbl *pbl,
			    u64 iova, u64 length, u32 pdn, u32 access, u32 *key)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_REG_MR };

	cmd.reg_mr.pbl = *pbl;
	cmd.reg_mr.iova = iova;
	cmd.reg_mr.length = length;
	cmd.reg_mr.pdn = pdn;
	cmd.reg_mr.access = access;
	return qrnic_aq_exec(qdev, &cmd, key, NULL);
}

/* The device's key serves as lkey and rkey. */
static void qrnic_mr_set_key(struct qrnic_mr *mr, u32 key)
{
	mr->key = key;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
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
	u32 flags, key;
	int ret;

	ret = qrnic_mr_access(qdev, access, &flags);
	if (ret)
		return ERR_PTR(ret);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	ret = qrnic_reg_mr_cmd(qdev, &pbl, 0, U64_MAX, to_qpd(ibpd)->pdn,
			       flags, &key);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	qrnic_mr_set_key(mr, key);
	return &mr->ibmr;
}

/* Page sizes a page list may use: what the device reports, 4 KiB..1 GiB. */
#define QRNIC_MR_PGSZ_MASK	GENMASK_ULL(QRNIC_MAX_PAGE_SHIFT, \
					    QRNIC_MIN_PAGE_SHIFT)

/*
 * Register umem (pinned by the caller) at iova under a new key: a page list
 * in the largest page size the region allows, which the device copies.
 */
static int qrnic_reg_umem(struct qrnic_dev *qdev, struct ib_umem *umem,
			  u64 iova, u64 length, u32 pdn, u32 flags,
			  unsigned long *pgsz, u32 *key)
{
	struct qrnic_pbl_buf pbuf;
	struct qrnic_pbl pbl;
	int ret;

	*pgsz = ib_umem_find_best_pgsz(umem, qdev->attr.page_size_cap &
				       QRNIC_MR_PGSZ_MASK, iova);
	if (!*pgsz)
		return -EINVAL;
	if (qdev->attr.max_mr_pages &&
	    ib_umem_num_dma_blocks(umem, *pgsz) > qdev->attr.max_mr_pages)
		return -EINVAL;

	ret = qrnic_pbl_build(qdev, umem, *pgsz, &pbl, &pbuf);
	if (ret)
		return ret;
	ret = qrnic_reg_mr_cmd(qdev, &pbl, iova, length, pdn, flags, key);
	qrnic_pbl_release(qdev, &pbuf);
	return ret;
}

struct ib_mr *qrnic_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access,
				struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_mr *mr;
	unsigned long pgsz;
	u32 flags, key;
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

	ret = qrnic_reg_umem(qdev, mr->umem, virt_addr, length,
			     to_qpd(ibpd)->pdn, flags, &pgsz, &key);
	if (ret)
		goto err_umem;

	qrnic_mr_set_key(mr, key);
	mr->access = access;
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

/* DEREG_MR of one key; BAD_STATE (windows bound) is -EBUSY, not logged. */
static int qrnic_dereg_key(struct qrnic_dev *qdev, u32 key)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_DEREG_MR };
	int ret;

	cmd.dereg_mr.key = key;
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret && ret != -EBUSY)
		dev_err(&qdev->pdev->dev, "DEREG_MR %#x failed: %d\n", key,
			ret);
	return ret;
}

#define QRNIC_REREG_FLAGS	(IB_MR_REREG_TRANS | IB_MR_REREG_PD | \
				 IB_MR_REREG_ACCESS)

/*
 * ibv_rereg_mr, without a device command of its own: the region is
 * registered again, with what the flags change, under a new key, and only
 * then is the old key deregistered.  The same ib_mr carries on with the
 * new key (NULL tells ib_core so; it moves the PD's use count and, for a
 * new translation, iova and length).  Until the old key is gone nothing
 * has changed, so every failure leaves the region as it was, old key and
 * all: in particular the device refuses to deregister a region windows
 * are bound to (BAD_STATE), and rereg answers -EBUSY.  A new translation
 * pins the new range; keeping the translation reuses the pinned pages
 * unless they were pinned read only and the new rights write.
 */
struct ib_mr *qrnic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibmr->device);
	struct qrnic_mr *mr = to_qmr(ibmr);
	struct ib_umem *umem = mr->umem;
	struct ib_pd *pd = ibmr->pd;
	u64 iova = ibmr->iova;
	u64 len = ibmr->length;
	unsigned long pgsz;
	u32 hw_access, key;
	int ret;

	if (!flags || (flags & ~QRNIC_REREG_FLAGS) || !umem)
		return ERR_PTR(-EINVAL);
	if (flags & IB_MR_REREG_PD)
		pd = ibpd;
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	ret = qrnic_mr_access(qdev, access, &hw_access);
	if (ret)
		return ERR_PTR(ret);

	if (flags & IB_MR_REREG_TRANS) {
		if (!length || length > qdev->attr.max_mr_size)
			return ERR_PTR(-EINVAL);
		umem = ib_umem_get(ibmr->device, start, length, access);
		iova = virt_addr;
		len = length;
	} else if (ib_access_writable(access) && !umem->writable) {
		umem = ib_umem_get(ibmr->device, umem->address, umem->length,
				   access);
	}
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	ret = qrnic_reg_umem(qdev, umem, iova, len, to_qpd(pd)->pdn,
			     hw_access, &pgsz, &key);
	if (ret)
		goto err_umem;
	ret = qrnic_dereg_key(qdev, mr->key);
	if (ret) {
		qrnic_dereg_key(qdev, key);
		goto err_umem;
	}

	if (umem != mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
	qrnic_mr_set_key(mr, key);
	mr->access = access;
	ibmr->iova = iova;
	ibmr->length = len;
	ibmr->page_size = pgsz;
	return NULL;

err_umem:
	if (umem != mr->umem)
		ib_umem_release(umem);
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
