// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic address handles.  The device has no AH objects: an AH is the
 * RoCE v2 address vector (struct qrnic_ud_av) kept in memory and copied
 * into every UD send WQE, by post_send for kernel AHs and by the provider
 * for user AHs, which get the destination MAC ib_core resolved back.
 * Kernel AHs may be created in atomic context (no
 * RDMA_CREATE_AH_SLEEPABLE): nothing here sleeps but the user copy.
 */
#include <linux/etherdevice.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

#include <qrnic-abi.h>

#include "qrnic.h"
#include "qrnic_ib.h"

/* Only RoCE v2 GIDs with the destination's IP version can send to it. */
static int qrnic_ah_check(struct qrnic_dev *qdev,
			  const struct rdma_ah_attr *ah_attr)
{
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	bool dst_v4;

	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah_attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
	    sgid_attr->index >= min_t(u32, le32_to_cpu(qdev->attr.gid_tbl_len),
				      U8_MAX + 1))
		return -EINVAL;
	dst_v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	if (dst_v4 != (rdma_gid_attr_network_type(sgid_attr) ==
		       RDMA_NETWORK_IPV4))
		return -EINVAL;
	return 0;
}

int qrnic_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct qrnic_dev *qdev = to_qdev(ibah->device);
	const struct rdma_ah_attr *ah_attr = init_attr->ah_attr;
	struct qrnic_uresp_create_ah resp = {};
	struct qrnic_ah *ah = to_qah(ibah);
	const struct ib_global_route *grh;
	int ret;

	/* No driver data is defined for create_ah requests. */
	ret = qrnic_udata_no_input(udata);
	if (ret)
		return ret;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	ret = qrnic_ah_check(qdev, ah_attr);
	if (ret)
		return ret;
	if (atomic_inc_return(&qdev->num_ah) > QRNIC_MAX_AH) {
		atomic_dec(&qdev->num_ah);
		return -ENOMEM;
	}

	grh = rdma_ah_read_grh(ah_attr);
	memcpy(ah->av.dgid, grh->dgid.raw, sizeof(ah->av.dgid));
	ether_addr_copy(ah->av.dmac, ah_attr->roce.dmac);
	ah->av.sgid_index = grh->sgid_attr->index;
	ah->av.hop_limit = grh->hop_limit;
	ah->av.flow_label = cpu_to_le32(grh->flow_label &
					 QRNIC_FLOW_LABEL_MASK);
	ah->av.traffic_class = grh->traffic_class;
	if (!udata)
		return 0;

	ether_addr_copy(resp.dmac, ah->av.dmac);
	resp.sgid_index = ah->av.sgid_index;
	ret = qrnic_udata_respond(udata, &resp, sizeof(resp));
	if (ret)
		atomic_dec(&qdev->num_ah);
	return ret;
}

int qrnic_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_qdev(ibah->device)->num_ah);
	return 0;
}

int qrnic_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	const struct qrnic_ud_av *av = &to_qah(ibah)->av;
	union ib_gid dgid;

	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah_attr, QRNIC_PORT);
	memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah_attr, &dgid, le32_to_cpu(av->flow_label),
			av->sgid_index, av->hop_limit, av->traffic_class);
	ether_addr_copy(ah_attr->roce.dmac, av->dmac);
	return 0;
}
