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
	atomic_init(&pd->refcount, 1);
	return &pd->ibv_pd;
}

static int qrnic_dealloc_parent_domain(struct qrnic_pd *parent_domain)
{
	if (atomic_load(&parent_domain->refcount) > 1)
		return EBUSY;

	atomic_fetch_sub(&parent_domain->protection_domain->refcount, 1);
	if (parent_domain->td)
		atomic_fetch_sub(&parent_domain->td->refcount, 1);
	free(parent_domain);
	return 0;
}

int qrnic_dealloc_pd(struct ibv_pd *ibpd)
{
	struct qrnic_pd *pd = to_qpd(ibpd);
	int ret;

	if (pd->protection_domain)
		return qrnic_dealloc_parent_domain(pd);

	/* Parent domains over it still use its handle. */
	if (atomic_load(&pd->refcount) > 1)
		return EBUSY;

	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

struct ibv_td *qrnic_alloc_td(struct ibv_context *ibctx,
			      struct ibv_td_init_attr *attr)
{
	struct qrnic_td *td;

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}

	td = calloc(1, sizeof(*td));
	if (!td) {
		errno = ENOMEM;
		return NULL;
	}
	td->ibv_td.context = ibctx;
	atomic_init(&td->refcount, 1);
	return &td->ibv_td;
}

int qrnic_dealloc_td(struct ibv_td *ibtd)
{
	struct qrnic_td *td = to_qtd(ibtd);

	if (atomic_load(&td->refcount) > 1)
		return EBUSY;
	free(td);
	return 0;
}

/*
 * ibv_alloc_parent_domain: a PD of this context (not another parent
 * domain), optionally a thread domain, the application's allocators and
 * its pd_context.  With IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS both
 * callbacks must be given; the allocator may answer
 * IBV_ALLOCATOR_USE_DEFAULT for the provider's own allocation.
 */
struct ibv_pd *qrnic_alloc_parent_domain(struct ibv_context *ibctx,
					 struct ibv_parent_domain_init_attr *attr)
{
	struct qrnic_pd *parent_domain;

	if (ibv_check_alloc_parent_domain(attr))
		return NULL;
	if (!check_comp_mask(attr->comp_mask,
			     IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT) ||
	    attr->pd->context != ibctx ||
	    to_qpd(attr->pd)->protection_domain ||
	    (attr->td && attr->td->context != ibctx) ||
	    ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}

	parent_domain = calloc(1, sizeof(*parent_domain));
	if (!parent_domain) {
		errno = ENOMEM;
		return NULL;
	}

	ibv_initialize_parent_domain(&parent_domain->ibv_pd, attr->pd);
	parent_domain->protection_domain = to_qpd(attr->pd);
	parent_domain->pdn = parent_domain->protection_domain->pdn;
	atomic_init(&parent_domain->refcount, 1);
	if (attr->td) {
		parent_domain->td = to_qtd(attr->td);
		atomic_fetch_add(&parent_domain->td->refcount, 1);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		parent_domain->alloc = attr->alloc;
		parent_domain->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		parent_domain->pd_context = attr->pd_context;
	atomic_fetch_add(&parent_domain->protection_domain->refcount, 1);
	return &parent_domain->ibv_pd;
}

/*
 * A CQ, QP or SRQ created through a parent domain holds it: the parent
 * domain it is, referenced, or NULL for a plain PD.
 */
struct qrnic_pd *qrnic_parent_domain_get(struct ibv_pd *ibpd)
{
	struct qrnic_pd *parent_domain = to_qparent_domain(ibpd);

	if (parent_domain)
		atomic_fetch_add(&parent_domain->refcount, 1);
	return parent_domain;
}

void qrnic_parent_domain_put(struct qrnic_pd *parent_domain)
{
	if (parent_domain)
		atomic_fetch_sub(&parent_domain->refcount, 1);
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
	av->flow_label = htole32(attr->grh.flow_label & QRNIC_FLOW_LABEL_MASK);
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

/*
 * An XRC domain lives in the kernel (its number the driver's): the
 * provider keeps the verbs object only.
 */
struct ibv_xrcd *qrnic_open_xrcd(struct ibv_context *ibctx,
				 struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int ret;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;

	ret = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

int qrnic_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int ret;

	ret = ibv_cmd_close_xrcd(xrcd);
	if (ret)
		return ret;

	free(xrcd);
	return 0;
}
