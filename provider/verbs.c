// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: control-path verbs, each one a uverbs command to qrnic.ko.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qrnic.h"
#include "qrnic_abi.h"

int qrnic_query_device_ex(struct ibv_context *ibctx,
			  const struct ibv_query_device_ex_input *input,
			  struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/* fw_ver is the device's QRNIC fw_version: major << 16 | minor. */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u", (unsigned int)(fw >> 16) & 0xffff,
		 (unsigned int)fw & 0xffff);
	return 0;
}

int qrnic_query_port(struct ibv_context *ibctx, uint8_t port,
		     struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *qrnic_alloc_pd(struct ibv_context *ibctx)
{
	struct qrnic_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct qrnic_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibv_pd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}

	pd->pdn = resp.pdn;
	return &pd->ibv_pd;
}

int qrnic_dealloc_pd(struct ibv_pd *ibpd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(to_qpd(ibpd));
	return 0;
}

/* The address vector of a UD WQE, without dest_qpn and qkey. */
static void qrnic_ah_set_av(struct qrnic_ud_av *av,
			    const struct ibv_ah_attr *attr, const uint8_t *dmac)
{
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, attr->grh.dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, dmac, sizeof(av->dmac));
	av->sgid_index = attr->grh.sgid_index;
	av->hop_limit = attr->grh.hop_limit;
	av->flow_label = htole32(attr->grh.flow_label & 0xfffff);
	av->traffic_class = attr->grh.traffic_class;
}

/*
 * RoCE addresses are GIDs: the AH must carry a GRH.  The kernel checks the
 * attributes and resolves the destination MAC; the provider keeps the
 * address vector its UD WQEs carry.
 */
struct ibv_ah *qrnic_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct qrnic_create_ah_resp resp = {};
	struct qrnic_ah *ah;
	int ret;

	if (!attr->is_global) {
		errno = EINVAL;
		return NULL;
	}

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}

	qrnic_ah_set_av(&ah->av, attr, resp.dmac);
	return &ah->ibv_ah;
}

int qrnic_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;

	free(to_qah(ibah));
	return 0;
}
