// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic memory regions: user regions (pinned, described to the device by
 * a page list in the largest page size the region allows; ibv_rereg_mr
 * describes them anew under the same key) and the DMA MR that ib_core asks
 * for on every kernel PD.  The device allocates the key; it serves as lkey
 * and rkey.  Fast-registration regions: qrnic_mw.c.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_umem.h>

#include "qrnic.h"
#include "qrnic_ib.h"
#include "qrnic_compat.h"

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

/* REG_MR or ALLOC_MR: the key the device allocates is lkey and rkey. */
int qrnic_mr_key_cmd(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
		     struct qrnic_mr *mr)
{
	int ret;

	ret = qrnic_aq_exec(qdev, cmd, &mr->key, NULL);
	if (ret)
		return ret;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

/* The region as REG_MR and REREG_MR describe it (same places: qrnic_hw.h) */
static void qrnic_mr_cmd_describe(struct qrnic_cmd *cmd,
				  const struct qrnic_pbl *pbl, u64 iova,
				  u64 length, u32 pdn, u32 access)
{
	cmd->reg_mr.pbl = *pbl;
	cmd->reg_mr.iova = cpu_to_le64(iova);
	cmd->reg_mr.length = cpu_to_le64(length);
	cmd->reg_mr.pdn = cpu_to_le32(pdn);
	cmd->reg_mr.access = cpu_to_le32(access);
}

static int qrnic_reg_mr_cmd(struct qrnic_dev *qdev, struct qrnic_mr *mr,
			    const struct qrnic_pbl *pbl, u64 iova, u64 length,
			    u32 pdn, u32 access)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_REG_MR };

	qrnic_mr_cmd_describe(&cmd, pbl, iova, length, pdn, access);
	return qrnic_mr_key_cmd(qdev, &cmd, mr);
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
	mr = kzalloc_obj(*mr, GFP_KERNEL);
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

/*
 * The page list of umem (pinned by the caller) at iova, in the largest
 * page size the region allows; the device copies it when the command
 * runs, after which the caller releases pbuf.
 */
static int qrnic_umem_pbl(struct qrnic_dev *qdev, struct ib_umem *umem,
			  u64 iova, unsigned long *pgsz, struct qrnic_pbl *pbl,
			  struct qrnic_pbl_buf *pbuf)
{
	u64 pgsz_cap = le64_to_cpu(qdev->attr.page_size_cap);
	u32 max_pages = le32_to_cpu(qdev->attr.max_mr_pages);

	*pgsz = ib_umem_find_best_pgsz(umem, pgsz_cap & QRNIC_MR_PGSZ_MASK,
				       iova);
	if (!*pgsz)
		return -EINVAL;
	if (max_pages && ib_umem_num_dma_blocks(umem, *pgsz) > max_pages)
		return -EINVAL;
	return qrnic_pbl_build(qdev, umem, *pgsz, pbl, pbuf);
}

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

	/* No driver data is defined for reg_user_mr. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ERR_PTR(ret);
	ret = qrnic_mr_access(qdev, access, &flags);
	if (ret)
		return ERR_PTR(ret);
	if (!length || length > le64_to_cpu(qdev->attr.max_mr_size))
		return ERR_PTR(-EINVAL);

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = qrnic_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		ret = PTR_ERR(mr->umem);
		goto err_free;
	}

	ret = qrnic_umem_pbl(qdev, mr->umem, virt_addr, &pgsz, &pbl, &pbuf);
	if (ret)
		goto err_umem;
	ret = qrnic_reg_mr_cmd(qdev, mr, &pbl, virt_addr, length,
			       to_qpd(ibpd)->pdn, flags);
	qrnic_pbl_release(qdev, &pbuf);
	if (ret)
		goto err_umem;

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

/* REREG_MR: the region under key described anew, as by REG_MR. */
static int qrnic_rereg_mr_cmd(struct qrnic_dev *qdev, u32 key,
			      const struct qrnic_pbl *pbl, u64 iova, u64 length,
			      u32 pdn, u32 access)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_REREG_MR };

	qrnic_mr_cmd_describe(&cmd, pbl, iova, length, pdn, access);
	cmd.rereg_mr.key = cpu_to_le32(key);
	return qrnic_aq_exec(qdev, &cmd, NULL, NULL);
}

#define QRNIC_REREG_FLAGS	(IB_MR_REREG_TRANS | IB_MR_REREG_PD | \
				 IB_MR_REREG_ACCESS)

/*
 * ibv_rereg_mr (devices with QRNIC_CAP0_REREG_MR): REREG_MR gives the
 * region its new page list, range, PD and rights under the key it has,
 * so lkey and rkey stay and the same ib_mr carries on (NULL tells ib_core
 * so; it moves the PD's use count and, for a new translation, iova and
 * length).  A new translation pins the new range; keeping it reuses the
 * pinned pages unless they were pinned read only and the new rights
 * write.  The device reads the new page list before it lets go of the
 * old one, and refuses with nothing changed (BAD_STATE, -EBUSY, while
 * windows are bound to the region), so on every failure the region is
 * as it was and the pages it had stay pinned; after success the old
 * ones are released, the device no longer reaching them.
 */
struct ib_mr *qrnic_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibmr->device);
	struct qrnic_mr *mr = to_qmr(ibmr);
	struct ib_umem *umem = mr->umem;
	struct ib_pd *pd = ibmr->pd;
	struct qrnic_pbl_buf pbuf;
	u64 iova = ibmr->iova;
	u64 len = ibmr->length;
	struct qrnic_pbl pbl;
	unsigned long pgsz;
	u32 hw_access;
	int ret;

	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ERR_PTR(ret);
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
		if (!length || length > le64_to_cpu(qdev->attr.max_mr_size))
			return ERR_PTR(-EINVAL);
		umem = qrnic_umem_get(ibmr->device, start, length, access);
		iova = virt_addr;
		len = length;
	} else if (ib_access_writable(access) && !umem->writable) {
		umem = qrnic_umem_get(ibmr->device, umem->address,
				      umem->length, access);
	}
	if (IS_ERR(umem))
		return ERR_CAST(umem);

	ret = qrnic_umem_pbl(qdev, umem, iova, &pgsz, &pbl, &pbuf);
	if (ret)
		goto err_umem;
	ret = qrnic_rereg_mr_cmd(qdev, mr->key, &pbl, iova, len,
				 to_qpd(pd)->pdn, hw_access);
	qrnic_pbl_release(qdev, &pbuf);
	if (ret)
		goto err_umem;

	if (umem != mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
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
