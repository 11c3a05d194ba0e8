// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic ib_device: RoCE v2 port on top of the qrnic net_device; device and
 * port queries, GID programming, user contexts with their doorbell page, PDs.
 * QP, CQ and MR verbs are not offered yet (ib_core answers EOPNOTSUPP).
 */
#include <linux/etherdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <qrnic-abi.h>

#include "qrnic.h"

#define QRNIC_PORT		1

enum qrnic_mmap_type {
	QRNIC_MMAP_DB,		/* a doorbell page in BAR2, uncached */
};

struct qrnic_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;
	enum qrnic_mmap_type type;
};

struct qrnic_ucontext {
	struct ib_ucontext ibucontext;
	u32 uctx_id;
	u32 db_page;
	struct rdma_user_mmap_entry *db_entry;
};

struct qrnic_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static struct qrnic_ucontext *to_quctx(struct ib_ucontext *uctx)
{
	return container_of(uctx, struct qrnic_ucontext, ibucontext);
}

static struct qrnic_pd *to_qpd(struct ib_pd *pd)
{
	return container_of(pd, struct qrnic_pd, ibpd);
}

static struct qrnic_user_mmap_entry *
to_qentry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct qrnic_user_mmap_entry, rdma_entry);
}

/* ---- device and port ----------------------------------------------------- */

static int qrnic_query_device_verb(struct ib_device *ibdev,
				   struct ib_device_attr *attr,
				   struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibdev);
	const struct qrnic_dev_attr *a = &qdev->attr;

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	attr->fw_ver = a->fw_version;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = a->max_mr_size;
	attr->page_size_cap = a->page_size_cap;
	attr->vendor_id = qdev->pdev->vendor;
	attr->vendor_part_id = qdev->pdev->device;
	attr->hw_ver = qdev->pdev->revision;
	attr->max_qp = a->max_qp;
	attr->max_qp_wr = a->max_qp_wr;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT;
	attr->max_send_sge = a->max_sge;
	attr->max_recv_sge = a->max_sge;
	attr->max_sge_rd = a->max_sge;
	attr->max_cq = a->max_cq;
	attr->max_cqe = a->max_cqe;
	attr->max_mr = a->max_mr;
	attr->max_pd = a->max_pd;
	attr->max_qp_rd_atom = a->max_qp_rd_atom;
	attr->max_qp_init_rd_atom = a->max_qp_init_rd_atom;
	attr->max_res_rd_atom = min_t(u64, (u64)a->max_qp * a->max_qp_rd_atom,
				      INT_MAX);
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;
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
	attr->gid_tbl_len = qdev->attr.gid_tbl_len;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->ip_gids = true;
	attr->max_msg_sz = min_t(u64, qdev->attr.max_mr_size, SZ_2G);
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

	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = qdev->attr.gid_tbl_len;
	immutable->pkey_tbl_len = 1;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
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
	u32 fw = to_qdev(ibdev)->attr.fw_version;

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

	cmd.add_gid.index = attr->index;
	cmd.add_gid.type = QRNIC_GID_TYPE_ROCE_V2;
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

	cmd.del_gid.index = attr->index;
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		ibdev_err(&qdev->ibdev, "DEL_GID %u failed: %d\n",
			  attr->index, ret);
	return ret;
}

/* ---- user contexts and mmap -------------------------------------------- */

static struct rdma_user_mmap_entry *
qrnic_mmap_entry_insert(struct ib_ucontext *uctx, phys_addr_t address,
			size_t length, enum qrnic_mmap_type type, u64 *key)
{
	struct qrnic_user_mmap_entry *entry;
	int ret;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;
	entry->address = address;
	entry->type = type;
	ret = rdma_user_mmap_entry_insert(uctx, &entry->rdma_entry, length);
	if (ret) {
		kfree(entry);
		return NULL;
	}
	*key = rdma_user_mmap_get_offset(&entry->rdma_entry);
	return &entry->rdma_entry;
}

static int qrnic_dealloc_uctx_cmd(struct qrnic_dev *qdev, u32 uctx_id)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_DEALLOC_UCTX };
	int ret;

	cmd.dealloc_uctx.uctx = uctx_id;
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		ibdev_err(&qdev->ibdev, "DEALLOC_UCTX %u failed: %d\n",
			  uctx_id, ret);
	return ret;
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

	ret = qrnic_aq_exec(qdev, &cmd, &uctx->uctx_id, &uctx->db_page);
	if (ret)
		return ret;
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
	resp.max_inline = qdev->attr.max_inline;
	ret = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (ret)
		goto err_entry;
	return 0;

err_entry:
	rdma_user_mmap_entry_remove(uctx->db_entry);
err_dealloc:
	qrnic_dealloc_uctx_cmd(qdev, uctx->uctx_id);
	return ret;
}

static void qrnic_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct qrnic_ucontext *uctx = to_quctx(ibuctx);

	rdma_user_mmap_entry_remove(uctx->db_entry);
	qrnic_dealloc_uctx_cmd(to_qdev(ibuctx->device), uctx->uctx_id);
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

static void qrnic_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	kfree(to_qentry(rdma_entry));
}

/* ---- protection domains ------------------------------------------------ */

static int qrnic_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ALLOC_PD };
	struct qrnic_pd *pd = to_qpd(ibpd);
	struct qrnic_ucontext *uctx;
	int ret;

	uctx = rdma_udata_to_drv_context(udata, struct qrnic_ucontext,
					 ibucontext);
	cmd.alloc_pd.uctx = uctx ? uctx->uctx_id : 0;
	ret = qrnic_aq_exec(qdev, &cmd, &pd->pdn, NULL);
	if (ret)
		return ret;

	if (udata) {
		struct qrnic_uresp_alloc_pd resp = { .pdn = pd->pdn };

		ret = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (ret) {
			struct qrnic_cmd dcmd = { .opcode = QRNIC_CMD_DEALLOC_PD };

			dcmd.dealloc_pd.pdn = pd->pdn;
			qrnic_aq_exec(qdev, &dcmd, NULL, NULL);
			return ret;
		}
	}
	return 0;
}

static int qrnic_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibpd->device);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_DEALLOC_PD };
	int ret;

	cmd.dealloc_pd.pdn = to_qpd(ibpd)->pdn;
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	/* ib_core has checked the PD is unused: only a dead device fails. */
	if (ret)
		ibdev_err(&qdev->ibdev, "DEALLOC_PD %u failed: %d\n",
			  cmd.dealloc_pd.pdn, ret);
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
	ibdev->num_comp_vectors = 1;
	ibdev->dev.parent = &qdev->pdev->dev;
	strscpy(ibdev->node_desc, "qrnic RoCE v2 NIC", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &qrnic_dev_ops);

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
