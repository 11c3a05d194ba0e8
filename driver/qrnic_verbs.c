// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic ib_device: RoCE v2 port on top of the qrnic net_device; device and
 * port queries, GID programming, user contexts and their mmaps (doorbell
 * page, QP and SRQ queue memory), PDs, and registration.  The RC verbs (CQ,
 * MR, QP, kernel data path, counters) live in their own files and are
 * offered when the device has QRNIC_CAP0_RC; UD and GSI QPs, AHs and with
 * them MADs and the CM when it has QRNIC_CAP0_UD as well; SRQs with
 * QRNIC_CAP0_SRQ, UC QPs with QRNIC_CAP0_UC, UD multicast with
 * QRNIC_CAP0_MCAST, resize_cq with QRNIC_CAP0_RESIZE_CQ, XRC domains (and
 * with them XRC SRQs and QPs) with QRNIC_CAP0_XRC.
 */
#include <linux/etherdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <qrnic-abi.h>

#include "qrnic.h"
#include "qrnic_compat.h"
#include "qrnic_ib.h"

/* ---- device and port ----------------------------------------------------- */

static int qrnic_query_device_verb(struct ib_device *ibdev,
				   struct ib_device_attr *attr,
				   struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibdev);
	const struct qrnic_dev_attr *a = &qdev->attr;
	int ret;

	/* No driver data is defined for query_device either way. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;

	attr->fw_ver = le32_to_cpu(a->fw_version);
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = le64_to_cpu(a->max_mr_size);
	attr->page_size_cap = le64_to_cpu(a->page_size_cap);
	attr->vendor_id = qdev->pdev->vendor;
	attr->vendor_part_id = qdev->pdev->device;
	attr->hw_ver = qdev->pdev->revision;
	attr->max_qp = le32_to_cpu(a->max_qp);
	attr->max_qp_wr = min_t(u32, le32_to_cpu(a->max_qp_wr),
				1U << QRNIC_QP_MAX_LOG);
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT;
	if (qdev->cap0 & QRNIC_CAP0_RC)
		attr->device_cap_flags |= IB_DEVICE_RC_RNR_NAK_GEN |
					  IB_DEVICE_CURR_QP_STATE_MOD;
	attr->max_send_sge = min_t(u32, le32_to_cpu(a->max_sge), QRNIC_MAX_SGE);
	attr->max_recv_sge = min_t(u32, le32_to_cpu(a->max_recv_sge),
				   QRNIC_MAX_RECV_SGE);
	attr->max_sge_rd = attr->max_send_sge;
	attr->max_cq = le32_to_cpu(a->max_cq);
	attr->max_cqe = min_t(u32, le32_to_cpu(a->max_cqe),
			      1U << QRNIC_CQ_MAX_LOG);
	attr->max_mr = le32_to_cpu(a->max_mr);
	attr->max_pd = le32_to_cpu(a->max_pd);
	attr->max_qp_rd_atom = min_t(u32, le32_to_cpu(a->max_qp_rd_atom),
				     QRNIC_MAX_RD_ATOMIC);
	attr->max_qp_init_rd_atom = min_t(u32,
					  le32_to_cpu(a->max_qp_init_rd_atom),
					  QRNIC_MAX_RD_ATOMIC);
	attr->max_res_rd_atom = min_t(u64, (u64)le32_to_cpu(a->max_qp) *
					   attr->max_qp_rd_atom, INT_MAX);
	attr->atomic_cap = qdev->cap0 & QRNIC_CAP0_ATOMIC ? IB_ATOMIC_HCA :
							    IB_ATOMIC_NONE;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
	if (qrnic_has_ud(qdev))
		attr->max_ah = QRNIC_MAX_AH;
	if (qrnic_has_srq(qdev)) {
		attr->max_srq = le32_to_cpu(a->max_srq) ?:
				QRNIC_MAX_SRQ_UNREPORTED;
		attr->max_srq_wr = attr->max_qp_wr;
		attr->max_srq_sge = attr->max_recv_sge;
	}
	if (qrnic_has_mw(qdev)) {
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
		attr->max_mw = le32_to_cpu(a->max_mw);
	}
	if (qrnic_has_fast_reg(qdev)) {
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		attr->max_fast_reg_page_list_len =
			le32_to_cpu(a->max_fast_reg_pages);
	}
	if (qrnic_has_srq(qdev) && (qdev->cap0 & QRNIC_CAP0_SRQ_RESIZE))
		attr->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	if (qrnic_has_xrc(qdev))
		attr->device_cap_flags |= IB_DEVICE_XRC;
	qrnic_query_device_flush(qdev, attr);
	if (qrnic_has_mcast(qdev)) {
		attr->max_mcast_grp = QRNIC_MAX_MCAST_GROUPS;
		attr->max_mcast_qp_attach = QRNIC_MAX_MCAST_QPS;
		attr->max_total_mcast_qp_attach = QRNIC_MAX_MCAST_GROUPS *
						  QRNIC_MAX_MCAST_QPS;
	}
	return 0;
}

static int qrnic_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct qrnic_dev *qdev = to_qdev(ibdev);
	unsigned int mtu = READ_ONCE(qdev->netdev->mtu);

	if (READ_ONCE(qdev->port_active)) {
		attr->state = IB_PORT_ACTIVE;
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	} else {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = READ_ONCE(qdev->link_up) ?
				   IB_PORT_PHYS_STATE_LINK_UP :
				   IB_PORT_PHYS_STATE_DISABLED;
	}
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = min(ib_mtu_int_to_enum(mtu), IB_MTU_4096);
	attr->gid_tbl_len = le32_to_cpu(qdev->attr.gid_tbl_len);
	attr->port_cap_flags = IB_PORT_DEVICE_MGMT_SUP;
	if (qrnic_has_ud(qdev))
		attr->port_cap_flags |= IB_PORT_CM_SUP;
	attr->ip_gids = true;
	attr->max_msg_sz = QRNIC_MAX_MSG_SIZE;
	attr->pkey_tbl_len = 1;
	attr->bad_pkey_cntr = 0;
	attr->qkey_viol_cntr = 0;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->lmc = 0;
	attr->max_vl_num = 1;
	attr->active_width = IB_WIDTH_1X;
	attr->active_speed = IB_SPEED_EDR;	/* 25 Gb/s per lane */
	return 0;
}

static int qrnic_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct qrnic_dev *qdev = to_qdev(ibdev);

	immutable->gid_tbl_len = le32_to_cpu(qdev->attr.gid_tbl_len);
	immutable->pkey_tbl_len = 1;
	if (qrnic_has_ud(qdev)) {
		/* RoCE v2 with QP1: ib_mad, ib_cm and rdma_cm use the port. */
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
		return 0;
	}
	/*
	 * A device without UD has no GSI QP: RoCE v2 without MAD/CM, since
	 * claiming them makes ib_mad fail loudly on every probe.
	 */
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP |
				    RDMA_CORE_CAP_ETH_AH;
	immutable->max_mad_size = 0;
	return 0;
}

static enum rdma_link_layer qrnic_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int qrnic_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void qrnic_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u32 fw = le32_to_cpu(to_qdev(ibdev)->attr.fw_version);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u", fw >> 16, fw & 0xffff);
}

/* ---- GIDs ---------------------------------------------------------------- */

static int qrnic_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct qrnic_dev *qdev = to_qdev(attr->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ADD_GID };
	int ret;

	/* The port only announces RoCE v2, so the core adds nothing else. */
	if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	cmd.add_gid.index = cpu_to_le32(attr->index);
	cmd.add_gid.type = cpu_to_le32(QRNIC_GID_TYPE_ROCE_V2);
	memcpy(cmd.add_gid.gid, attr->gid.raw, sizeof(cmd.add_gid.gid));
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		ibdev_err(&qdev->ibdev, "ADD_GID %u failed: %d\n",
			  attr->index, ret);
	return ret;
}

static int qrnic_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct qrnic_dev *qdev = to_qdev(attr->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_DEL_GID };
	int ret;

	cmd.del_gid.index = cpu_to_le32(attr->index);
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		ibdev_err(&qdev->ibdev, "DEL_GID %u failed: %d\n",
			  attr->index, ret);
	return ret;
}

/* ---- user contexts and mmap -------------------------------------------- */

struct rdma_user_mmap_entry *
qrnic_mmap_entry_insert(struct ib_ucontext *uctx, phys_addr_t address,
			size_t length, enum qrnic_mmap_type type, u64 *key)
{
	struct qrnic_user_mmap_entry *entry;
	int ret;

	entry = kzalloc_obj(*entry, GFP_KERNEL);
	if (!entry)
		return NULL;
	entry->address = address;
	entry->length = length;
	entry->type = type;
	ret = rdma_user_mmap_entry_insert(uctx, &entry->rdma_entry, length);
	if (ret) {
		kfree(entry);
		return NULL;
	}
	*key = rdma_user_mmap_get_offset(&entry->rdma_entry);
	return &entry->rdma_entry;
}

static void qrnic_dev_uctx_release(struct kref *ref)
{
	struct qrnic_dev_uctx *dctx = container_of(ref, struct qrnic_dev_uctx,
						   ref);

	qrnic_aq_exec_handle(dctx->qdev, QRNIC_CMD_DEALLOC_UCTX, dctx->id);
	kfree(dctx);
}

static void qrnic_dev_uctx_put(struct qrnic_dev_uctx *dctx)
{
	kref_put(&dctx->ref, qrnic_dev_uctx_release);
}

static int qrnic_alloc_ucontext(struct ib_ucontext *ibuctx,
				struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibuctx->device);
	struct qrnic_ucontext *uctx = to_quctx(ibuctx);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ALLOC_UCTX };
	struct qrnic_uresp_alloc_ucontext resp = {};
	phys_addr_t db_addr;
	int ret;

	/*
	 * A doorbell page is 4 KiB: a mapping of one larger CPU page would
	 * reach other contexts' doorbells, so such kernels get kernel verbs
	 * only.
	 */
	if (PAGE_SIZE != QRNIC_DB_PAGE_SIZE) {
		dev_warn_once(&qdev->pdev->dev,
			      "user verbs need %u-byte pages, not %lu\n",
			      QRNIC_DB_PAGE_SIZE, PAGE_SIZE);
		return -EOPNOTSUPP;
	}
	/* The request's fields are all reserved. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	uctx->dev_uctx = kzalloc_obj(*uctx->dev_uctx, GFP_KERNEL);
	if (!uctx->dev_uctx)
		return -ENOMEM;
	ret = qrnic_aq_exec(qdev, &cmd, &uctx->uctx_id, &uctx->db_page);
	if (ret) {
		kfree(uctx->dev_uctx);
		return ret;
	}
	kref_init(&uctx->dev_uctx->ref);
	uctx->dev_uctx->qdev = qdev;
	uctx->dev_uctx->id = uctx->uctx_id;
	if (!uctx->db_page || uctx->db_page >= qdev->num_db_pages) {
		ibdev_err(&qdev->ibdev, "ALLOC_UCTX: bad doorbell page %u\n",
			  uctx->db_page);
		ret = -EIO;
		goto err_dealloc;
	}

	db_addr = qdev->db_start + (phys_addr_t)uctx->db_page * QRNIC_DB_PAGE_SIZE;
	uctx->db_entry = qrnic_mmap_entry_insert(ibuctx, db_addr,
						 QRNIC_DB_PAGE_SIZE, QRNIC_MMAP_DB,
						 &resp.db_mmap_key);
	if (!uctx->db_entry) {
		ret = -ENOMEM;
		goto err_dealloc;
	}

	resp.db_page_index = uctx->db_page;
	resp.uctx_id = uctx->uctx_id;
	resp.max_inline = le32_to_cpu(qdev->attr.max_inline);
	ret = qrnic_udata_respond(udata, &resp, sizeof(resp));
	if (ret)
		goto err_entry;
	return 0;

err_entry:
	rdma_user_mmap_entry_remove(uctx->db_entry);
err_dealloc:
	qrnic_dev_uctx_put(uctx->dev_uctx);
	return ret;
}

/* The device context goes with its last XRC domain (qrnic_dev_uctx). */
static void qrnic_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct qrnic_ucontext *uctx = to_quctx(ibuctx);

	rdma_user_mmap_entry_remove(uctx->db_entry);
	qrnic_dev_uctx_put(uctx->dev_uctx);
}

/*
 * Device removal with the context still open: ib_core zaps the context's
 * mappings and destroys its objects through the normal verbs; the device
 * holds nothing else for it.  Having this lets removal proceed instead of
 * waiting for user space to close the device.
 */
static void qrnic_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

static int qrnic_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct qrnic_user_mmap_entry *entry;
	pgprot_t prot;
	int ret;

	rdma_entry = rdma_user_mmap_entry_get(ibuctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_qentry(rdma_entry);

	switch (entry->type) {
	case QRNIC_MMAP_DB:
		prot = pgprot_noncached(vma->vm_page_prot);
		break;
	case QRNIC_MMAP_QMEM:
		prot = pgprot_writecombine(vma->vm_page_prot);
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	ret = rdma_user_mmap_io(ibuctx, vma, PHYS_PFN(entry->address),
				rdma_entry->npages * PAGE_SIZE, prot, rdma_entry);
out:
	rdma_user_mmap_entry_put(rdma_entry);
	return ret;
}

/*
 * The entry's last reference is gone: no mapping reaches its pages any
 * more.  Only now may a QP's or SRQ's queue memory be handed out again.
 */
static void qrnic_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct qrnic_user_mmap_entry *entry = to_qentry(rdma_entry);
	struct qrnic_dev *qdev = to_qdev(rdma_entry->ucontext->device);

	if (entry->type == QRNIC_MMAP_QMEM)
		qrnic_qmem_free(qdev, entry->address - qdev->qmem_start,
				entry->length);
	kfree(entry);
}

/* ---- protection domains ------------------------------------------------ */

static int qrnic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ALLOC_PD };
	struct qrnic_pd *pd = to_qpd(ibpd);
	int ret;

	/* No driver data is defined for alloc_pd requests. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	if (udata && udata->outlen < sizeof(struct qrnic_uresp_alloc_pd))
		return -EINVAL;
	cmd.alloc_pd.uctx = cpu_to_le32(qrnic_uctx_id(udata));
	ret = qrnic_aq_exec(qdev, &cmd, &pd->pdn, NULL);
	if (ret)
		return ret;

	if (udata) {
		struct qrnic_uresp_alloc_pd resp = { .pdn = pd->pdn };

		ret = qrnic_udata_respond(udata, &resp, sizeof(resp));
		if (ret) {
			qrnic_aq_exec_handle(qdev, QRNIC_CMD_DEALLOC_PD,
					     pd->pdn);
			return ret;
		}
	}
	return 0;
}

static int qrnic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	/* ib_core has checked the PD is unused: only a dead device fails. */
	qrnic_aq_exec_handle(to_qdev(ibpd->device), QRNIC_CMD_DEALLOC_PD,
			     to_qpd(ibpd)->pdn);
	return 0;
}

/* ---- XRC domains --------------------------------------------------------- */

/*
 * An XRC domain is a number the driver picks; the device has no command
 * for domains and only compares the numbers XRC SRQs and XRC_TGT QPs name.
 * ib_core creates XRC_TGT QPs without the creator's context, so they count
 * against the context that allocated their domain (its owner), and a
 * context may allocate as many domains as it may hold PDs.
 */
static int qrnic_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibxrcd->device);
	struct qrnic_xrcd *xrcd = to_qxrcd(ibxrcd);
	struct qrnic_ucontext *uctx;
	u32 max;
	int ret;

	/* No driver data is defined for XRC domains. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	uctx = rdma_udata_to_drv_context(udata, struct qrnic_ucontext,
					 ibucontext);
	if (uctx) {
		xrcd->owner = uctx->dev_uctx;
		max = le32_to_cpu(qdev->attr.ctx_max[QRNIC_CTX_PD]);
		if (atomic_inc_return(&xrcd->owner->xrcds) > max) {
			ret = -ENOMEM;
			goto err_count;
		}
	}
	ret = ida_alloc_range(&qdev->xrcd_ida, 1, QRNIC_XRCD_MASK, GFP_KERNEL);
	if (ret < 0)
		goto err_count;
	xrcd->xrcdn = ret;
	if (xrcd->owner)
		kref_get(&xrcd->owner->ref);
	return 0;

err_count:
	if (xrcd->owner)
		atomic_dec(&xrcd->owner->xrcds);
	return ret;
}

/* ib_core has checked that no SRQ or QP of the domain is left. */
static int qrnic_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct qrnic_xrcd *xrcd = to_qxrcd(ibxrcd);

	ida_free(&to_qdev(ibxrcd->device)->xrcd_ida, xrcd->xrcdn);
	if (xrcd->owner) {
		atomic_dec(&xrcd->owner->xrcds);
		qrnic_dev_uctx_put(xrcd->owner);
	}
	return 0;
}

/* ---- registration -------------------------------------------------------- */

static const struct ib_device_ops qrnic_dev_ops = {
	.owner			= THIS_MODULE,
	.driver_id		= RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver		= QRNIC_UVERBS_ABI_VERSION,

	.add_gid		= qrnic_add_gid,
	.alloc_pd		= qrnic_alloc_pd,
	.alloc_ucontext		= qrnic_alloc_ucontext,
	.dealloc_pd		= qrnic_dealloc_pd,
	.dealloc_ucontext	= qrnic_dealloc_ucontext,
	.disassociate_ucontext	= qrnic_disassociate_ucontext,
	.del_gid		= qrnic_del_gid,
	.get_dev_fw_str		= qrnic_get_dev_fw_str,
	.get_link_layer		= qrnic_get_link_layer,
	.get_port_immutable	= qrnic_get_port_immutable,
	.mmap			= qrnic_mmap,
	.mmap_free		= qrnic_mmap_free,
	.query_device		= qrnic_query_device_verb,
	.query_pkey		= qrnic_query_pkey,
	.query_port		= qrnic_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, qrnic_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, qrnic_ucontext, ibucontext),
};

/* RC queue pairs, CQs and MRs, for devices with QRNIC_CAP0_RC. */
static const struct ib_device_ops qrnic_rc_ops = {
	.alloc_hw_port_stats	= qrnic_alloc_hw_port_stats,
	.create_cq		= qrnic_create_cq,
	.create_qp		= qrnic_create_qp,
	.dereg_mr		= qrnic_dereg_mr,
	.destroy_cq		= qrnic_destroy_cq,
	.destroy_qp		= qrnic_destroy_qp,
	.get_dma_mr		= qrnic_get_dma_mr,
	.get_hw_stats		= qrnic_get_hw_stats,
	.modify_qp		= qrnic_modify_qp,
	.poll_cq		= qrnic_poll_cq,
	.post_recv		= qrnic_post_recv,
	.post_send		= qrnic_post_send,
	.query_qp		= qrnic_query_qp,
	.reg_user_mr		= qrnic_reg_user_mr_op,
	.req_notify_cq		= qrnic_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, qrnic_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, qrnic_qp, ibqp),
};

/* Address handles, for devices with UD QPs (qrnic_has_ud()). */
static const struct ib_device_ops qrnic_ud_ops = {
	.create_ah		= qrnic_create_ah,
	.create_user_ah		= qrnic_create_ah,
	.destroy_ah		= qrnic_destroy_ah,
	.query_ah		= qrnic_query_ah,

	INIT_RDMA_OBJ_SIZE(ib_ah, qrnic_ah, ibah),
};

/* Shared receive queues, for devices with QRNIC_CAP0_SRQ (qrnic_has_srq()). */
static const struct ib_device_ops qrnic_srq_ops = {
	.create_srq		= qrnic_create_srq,
	.destroy_srq		= qrnic_destroy_srq,
	.modify_srq		= qrnic_modify_srq,
	.post_srq_recv		= qrnic_post_srq_recv,
	.query_srq		= qrnic_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, qrnic_srq, ibsrq),
};

/* XRC domains, for devices with qrnic_has_xrc(). */
static const struct ib_device_ops qrnic_xrc_ops = {
	.alloc_xrcd		= qrnic_alloc_xrcd,
	.dealloc_xrcd		= qrnic_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, qrnic_xrcd, ibxrcd),
};

/* UD multicast groups, for devices with qrnic_has_mcast(). */
static const struct ib_device_ops qrnic_mcast_ops = {
	.attach_mcast		= qrnic_attach_mcast,
	.detach_mcast		= qrnic_detach_mcast,
};

/* Memory windows, for devices with qrnic_has_mw(). */
static const struct ib_device_ops qrnic_mw_ops = {
	.alloc_mw		= qrnic_alloc_mw,
	.dealloc_mw		= qrnic_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, qrnic_mw, ibmw),
};

/* Fast-registration regions, for devices with qrnic_has_fast_reg(). */
static const struct ib_device_ops qrnic_fast_reg_ops = {
	.alloc_mr		= qrnic_alloc_mr,
	.map_mr_sg		= qrnic_map_mr_sg,
};

/* ibv_rereg_mr, for RC devices with QRNIC_CAP0_REREG_MR. */
static const struct ib_device_ops qrnic_rereg_mr_ops = {
	.rereg_user_mr		= qrnic_rereg_user_mr,
};

/* Called with link_lock held whenever link, carrier or netdev state moved. */
void qrnic_ib_port_event(struct qrnic_dev *qdev)
{
	bool active = qdev->link_up && qdev->eth_up;
	struct ib_event ev = {};

	lockdep_assert_held(&qdev->link_lock);
	if (active == qdev->port_active)
		return;
	WRITE_ONCE(qdev->port_active, active);
	if (!qdev->ib_registered)
		return;
	ev.device = &qdev->ibdev;
	ev.element.port_num = QRNIC_PORT;
	ev.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

int qrnic_ib_register(struct qrnic_dev *qdev)
{
	struct ib_device *ibdev = &qdev->ibdev;
	u8 *guid = (u8 *)&ibdev->node_guid;
	int ret;

	if (!qdev->attr.gid_tbl_len) {
		dev_err(&qdev->pdev->dev, "device reports an empty GID table\n");
		return -EINVAL;
	}

	addrconf_addr_eui48(guid, qdev->netdev->dev_addr);
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = qdev->num_ceqs;
	ibdev->dev.parent = &qdev->pdev->dev;
	strscpy(ibdev->node_desc, "qrnic RoCE v2 NIC", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &qrnic_dev_ops);
	if (qdev->cap0 & QRNIC_CAP0_RC)
		ib_set_device_ops(ibdev, &qrnic_rc_ops);
	if (qrnic_has_ud(qdev))
		ib_set_device_ops(ibdev, &qrnic_ud_ops);
	if (qrnic_has_srq(qdev))
		ib_set_device_ops(ibdev, &qrnic_srq_ops);
	if (qrnic_has_xrc(qdev))
		ib_set_device_ops(ibdev, &qrnic_xrc_ops);
	if (qrnic_has_mcast(qdev))
		ib_set_device_ops(ibdev, &qrnic_mcast_ops);
	if (qrnic_has_resize_cq(qdev))
		qrnic_set_resize_cq_ops(ibdev);
	if (qrnic_has_mw(qdev))
		ib_set_device_ops(ibdev, &qrnic_mw_ops);
	if (qrnic_has_fast_reg(qdev))
		ib_set_device_ops(ibdev, &qrnic_fast_reg_ops);
	if ((qdev->cap0 & QRNIC_CAP0_RC) && (qdev->cap0 & QRNIC_CAP0_REREG_MR))
		ib_set_device_ops(ibdev, &qrnic_rereg_mr_ops);
	if (qrnic_has_srq(qdev) && (qdev->cap0 & QRNIC_CAP0_SRQ_RESIZE))
		ibdev->driver_def = qrnic_srq_uapi_defs;

	ret = ib_device_set_netdev(ibdev, qdev->netdev, QRNIC_PORT);
	if (ret) {
		dev_err(&qdev->pdev->dev, "ib_device_set_netdev failed: %d\n",
			ret);
		return ret;
	}

	ret = ib_register_device(ibdev, DRV_NAME "%d", &qdev->pdev->dev);
	if (ret) {
		dev_err(&qdev->pdev->dev, "ib_register_device failed: %d\n",
			ret);
		/* drop the netdev reference before the netdev goes */
		ib_device_set_netdev(ibdev, NULL, QRNIC_PORT);
		return ret;
	}

	mutex_lock(&qdev->link_lock);
	qdev->ib_registered = true;
	mutex_unlock(&qdev->link_lock);
	return 0;
}

void qrnic_ib_unregister(struct qrnic_dev *qdev)
{
	mutex_lock(&qdev->link_lock);
	qdev->ib_registered = false;
	mutex_unlock(&qdev->link_lock);
	ib_unregister_device(&qdev->ibdev);
}
