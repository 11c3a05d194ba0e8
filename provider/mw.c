// SPDX-License-Identifier: GPL-2.0 or OpenIB.org BSD (MIT) See COPYING file
/*
 * libqrnic: memory windows.  The kernel allocates and frees them; binding
 * is a BIND_MW send WQE (type 2 through ibv_post_send or ibv_wr_bind_mw,
 * type 1 through ibv_bind_mw, which posts the same WQE and gives the
 * window its new rkey).  The device checks the window, the region, the
 * range and the rights when the WQE runs; a bad bind completes with
 * IBV_WC_MW_BIND_ERR.
 */
#include <errno.h>
#include <stdlib.h>

#include "qrnic.h"

struct ibv_mw *qrnic_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int qrnic_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * Fill a BIND_MW WQE: window mw gets rkey (its index, a new key byte) over
 * info's range of info->mr; a zero length unbinds a type 1 window.
 */
int qrnic_set_bind(struct qrnic_sq_wqe *hdr, struct ibv_mw *mw, uint32_t rkey,
		   const struct ibv_mw_bind_info *info)
{
	/* Local write means nothing for a window (rxe ignores it too). */
	unsigned int access = info->mw_access_flags & ~IBV_ACCESS_LOCAL_WRITE;

	if (!mw || QRNIC_KEY_INDEX(rkey) != QRNIC_KEY_INDEX(mw->rkey) ||
	    (info->length && !info->mr) || (access & ~QRNIC_ACCESS_REMOTE))
		return EINVAL;
	hdr->bind_mw.mw_key = htole32(mw->rkey);
	hdr->bind_mw.new_key = htole32(rkey);
	hdr->bind_mw.addr = htole64(info->addr);
	hdr->bind_mw.length = htole64(info->length);
	hdr->bind_mw.mr_key = htole32(info->mr ? info->mr->lkey : 0);
	hdr->bind_mw.access = htole32(access);
	return 0;
}

/* Type 1: a BIND_MW WQE on qp; the window's rkey changes when it posts. */
int qrnic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		  struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
	};
	struct ibv_send_wr *bad;
	int ret;

	if (!mw || mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = qrnic_post_send_mw(qp, &wr, &bad, true);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
