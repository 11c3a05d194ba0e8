// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qrnic-isolation udata, and the raw uverbs calls srq-race makes: what a
 * process can send the kernel without the provider, through write() and
 * ioctl() on the context's command file (<rdma/ib_user_verbs.h>).
 *
 * udata: for each command that creates or changes an object the driver's
 * rules on driver data (include/qrnic-abi.h, driver/README.md):
 *  - trailing request bytes the driver does not define, nonzero:
 *    EOPNOTSUPP; the same bytes all zero: accepted (a newer provider may
 *    send fields this driver does not know, only if they are unset);
 *  - a response buffer shorter than the driver's response: EINVAL, not a
 *    response cut short;
 *  - MODIFY_SRQ with IBV_SRQ_MAX_WR through write(), which has no response
 *    for the new ring: EOPNOTSUPP (resizes go through the driver's method).
 * Each created object is destroyed again through write() and must go.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/ib_user_ioctl_cmds.h>

#include <qrnic-abi.h>

#include "rc-isolation.h"

static int uv_write_fd(int fd, uint32_t cmd, void *req, size_t req_len, size_t extra,
		       uint8_t fill, void *resp, size_t resp_len)
{
	uint8_t buf[1024];
	struct ib_uverbs_cmd_hdr *h = (void *)buf;
	size_t len = sizeof(*h) + req_len + extra;
	uint64_t r = (uintptr_t)resp;

	if (len > sizeof(buf) || len % 4 || resp_len % 4)
		die("uv_write: bad lengths %zu/%zu", len, resp_len);
	if (resp_len)
		memcpy(req, &r, sizeof(r));	/* every such command starts with it */
	h->command = cmd;
	h->in_words = len / 4;
	h->out_words = resp_len / 4;
	memcpy(buf + sizeof(*h), req, req_len);
	memset(buf + sizeof(*h) + req_len, fill, extra);
	return write(fd, buf, len) == (ssize_t)len ? 0 : errno;
}

int uv_write(struct ibv_context *ctx, uint32_t cmd, void *req, size_t req_len, size_t extra,
	     uint8_t fill, void *resp, size_t resp_len)
{
	return uv_write_fd(ctx->cmd_fd, cmd, req, req_len, extra, fill, resp, resp_len);
}

int uv_srq_resize(struct ibv_context *ctx, uint32_t srq_handle, uint32_t max_wr)
{
	struct qrnic_ureq_resize_srq req = { .max_wr = max_wr };
	struct qrnic_uresp_resize_srq resp;
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attr[3];
	} c;

	memset(&c, 0, sizeof(c));
	c.hdr.length = sizeof(c);
	c.hdr.object_id = UVERBS_OBJECT_SRQ;
	c.hdr.method_id = QRNIC_IB_METHOD_SRQ_RESIZE;
	c.hdr.num_attrs = 3;
	c.attr[0] = (struct ib_uverbs_attr){ .attr_id = QRNIC_IB_ATTR_SRQ_RESIZE_HANDLE,
					     .flags = UVERBS_ATTR_F_MANDATORY, .data = srq_handle };
	c.attr[1] = (struct ib_uverbs_attr){ .attr_id = QRNIC_IB_ATTR_SRQ_RESIZE_REQ,
					     .len = sizeof(req), .flags = UVERBS_ATTR_F_MANDATORY,
					     .data = (uintptr_t)&req };
	c.attr[2] = (struct ib_uverbs_attr){ .attr_id = QRNIC_IB_ATTR_SRQ_RESIZE_RESP,
					     .len = sizeof(resp), .flags = UVERBS_ATTR_F_MANDATORY,
					     .data = (uintptr_t)&resp };
	return ioctl(ctx->cmd_fd, RDMA_VERBS_IOCTL, &c.hdr) ? errno : 0;
}

int uv_query_srq(struct ibv_context *ctx, uint32_t srq_handle, uint32_t *max_wr,
		 uint32_t *srq_limit)
{
	struct ib_uverbs_query_srq req = { .srq_handle = srq_handle };
	struct ib_uverbs_query_srq_resp resp = { 0 };
	int r = uv_write(ctx, IB_USER_VERBS_CMD_QUERY_SRQ, &req, sizeof(req), 0, 0, &resp,
			 sizeof(resp));

	*max_wr = resp.max_wr;
	*srq_limit = resp.srq_limit;
	return r;
}

int uv_modify_srq(struct ibv_context *ctx, uint32_t srq_handle, uint32_t mask,
		  uint32_t max_wr, uint32_t limit, size_t extra, uint8_t fill)
{
	struct ib_uverbs_modify_srq req = { .srq_handle = srq_handle, .attr_mask = mask,
					    .max_wr = max_wr, .srq_limit = limit };

	return uv_write(ctx, IB_USER_VERBS_CMD_MODIFY_SRQ, &req, sizeof(req), extra, fill, NULL, 0);
}

/* ---- udata ------------------------------------------------------------------- */

struct ut {
	struct rc_dev d;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	struct ibv_qp *qp;	/* RESET: MODIFY_QP to RESET is always allowed */
	uint8_t *buf;
	char dev_path[128];
};

/* One command: how to build it, its responses, how to undo a success. */
struct ucmd {
	const char *name;
	uint32_t cmd;
	size_t req_len, resp_core, resp_drv;
	int fresh_fd;		/* GET_CONTEXT: on a file without a context */
	void (*build)(struct ut *t, void *req);
	int (*undo)(const struct ucmd *k, int fd, const void *resp);
	uint32_t undo_cmd;	/* the command that destroys what it made */
};

static void b_none(struct ut *t, void *req)
{
	(void)t;
	(void)req;
}

static void b_reg_mr(struct ut *t, void *req)
{
	struct ib_uverbs_reg_mr *r = req;

	r->start = r->hca_va = (uintptr_t)t->buf;
	r->length = 4096;
	r->pd_handle = t->d.pd->handle;
	r->access_flags = IBV_ACCESS_LOCAL_WRITE;
}

static void b_srq(struct ut *t, void *req)
{
	struct ib_uverbs_create_srq *r = req;

	r->pd_handle = t->d.pd->handle;
	r->max_wr = 16;
	r->max_sge = 1;
}

static void b_qp(struct ut *t, void *req)
{
	struct ib_uverbs_create_qp *r = req;

	r->pd_handle = t->d.pd->handle;
	r->send_cq_handle = r->recv_cq_handle = t->cq->handle;
	r->max_send_wr = r->max_recv_wr = 4;
	r->max_send_sge = r->max_recv_sge = 1;
	r->qp_type = IBV_QPT_RC;
}

static void b_modify_qp(struct ut *t, void *req)
{
	struct ib_uverbs_modify_qp *r = req;

	r->qp_handle = t->qp->handle;
	r->attr_mask = IBV_QP_STATE;
	r->qp_state = IBV_QPS_RESET;
}

static void b_modify_srq(struct ut *t, void *req)
{
	struct ib_uverbs_modify_srq *r = req;

	r->srq_handle = t->srq->handle;
	r->attr_mask = IBV_SRQ_LIMIT;
	r->srq_limit = 1;
}

static void b_mw(struct ut *t, void *req)
{
	struct ib_uverbs_alloc_mw *r = req;

	r->pd_handle = t->d.pd->handle;
	r->mw_type = IBV_MW_TYPE_1;
}

static void b_ah(struct ut *t, void *req)
{
	struct ib_uverbs_create_ah *r = req;

	r->pd_handle = t->d.pd->handle;
	memcpy(r->attr.grh.dgid, t->d.gid.raw, 16);
	r->attr.grh.sgid_index = t->d.gid_idx;
	r->attr.grh.hop_limit = 64;
	r->attr.is_global = 1;
	r->attr.port_num = 1;
}

/* Undo, through write() as well; every response starts with the handle. */
static int u_context(const struct ucmd *k, int fd, const void *resp)
{
	(void)k;
	(void)fd;
	return close(((const struct ib_uverbs_get_context_resp *)resp)->async_fd) ? errno : 0;
}

/* DEALLOC_PD, DEREG_MR, DEALLOC_MW, DESTROY_AH: the handle alone. */
static int u_dealloc(const struct ucmd *k, int fd, const void *resp)
{
	uint32_t req[2] = { *(const uint32_t *)resp, 0 };

	return uv_write_fd(fd, k->undo_cmd, req, 4, 0, 0, NULL, 0);
}

/* DESTROY_QP, DESTROY_SRQ (one layout): the handle; the answer, events reported. */
static int u_destroy(const struct ucmd *k, int fd, const void *resp)
{
	struct ib_uverbs_destroy_qp req = { .qp_handle = *(const uint32_t *)resp };
	struct ib_uverbs_destroy_qp_resp dr;

	return uv_write_fd(fd, k->undo_cmd, &req, sizeof(req), 0, 0, &dr, sizeof(dr));
}

#define CMD(n, c, req, rc, rd, fresh, b, u, uc) \
	{ n, IB_USER_VERBS_CMD_##c, sizeof(struct req), rc, rd, fresh, b, u, uc }

static const struct ucmd ucmds[] = {
	CMD("GET_CONTEXT", GET_CONTEXT, ib_uverbs_get_context,
	    sizeof(struct ib_uverbs_get_context_resp), sizeof(struct qrnic_uresp_alloc_ucontext),
	    1, b_none, u_context, 0),
	CMD("ALLOC_PD", ALLOC_PD, ib_uverbs_alloc_pd, sizeof(struct ib_uverbs_alloc_pd_resp),
	    sizeof(struct qrnic_uresp_alloc_pd), 0, b_none, u_dealloc, IB_USER_VERBS_CMD_DEALLOC_PD),
	CMD("REG_MR", REG_MR, ib_uverbs_reg_mr, sizeof(struct ib_uverbs_reg_mr_resp), 0, 0,
	    b_reg_mr, u_dealloc, IB_USER_VERBS_CMD_DEREG_MR),
	CMD("CREATE_SRQ", CREATE_SRQ, ib_uverbs_create_srq, sizeof(struct ib_uverbs_create_srq_resp),
	    sizeof(struct qrnic_uresp_create_srq), 0, b_srq, u_destroy,
	    IB_USER_VERBS_CMD_DESTROY_SRQ),
	CMD("CREATE_QP", CREATE_QP, ib_uverbs_create_qp, sizeof(struct ib_uverbs_create_qp_resp),
	    sizeof(struct qrnic_uresp_create_qp), 0, b_qp, u_destroy, IB_USER_VERBS_CMD_DESTROY_QP),
	CMD("ALLOC_MW", ALLOC_MW, ib_uverbs_alloc_mw, sizeof(struct ib_uverbs_alloc_mw_resp), 0, 0,
	    b_mw, u_dealloc, IB_USER_VERBS_CMD_DEALLOC_MW),
	CMD("CREATE_AH", CREATE_AH, ib_uverbs_create_ah, sizeof(struct ib_uverbs_create_ah_resp),
	    sizeof(struct qrnic_uresp_create_ah), 0, b_ah, u_dealloc, IB_USER_VERBS_CMD_DESTROY_AH),
	CMD("MODIFY_QP", MODIFY_QP, ib_uverbs_modify_qp, 0, 0, 0, b_modify_qp, NULL, 0),
	CMD("MODIFY_SRQ (IBV_SRQ_LIMIT)", MODIFY_SRQ, ib_uverbs_modify_srq, 0, 0, 0, b_modify_srq,
	    NULL, 0),
};

static const char *errname(int e)
{
	switch (e) {
	case 0: return "success";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EINVAL: return "EINVAL";
	case ENOSPC: return "ENOSPC";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	default: return strerror(e);
	}
}

/*
 * Run command k with extra bytes of driver data (filled with fill) and a
 * response of resp_len bytes; returns the errno, undoing a success.
 */
static int run(struct ut *t, const struct ucmd *k, size_t extra, uint8_t fill, size_t resp_len)
{
	uint64_t req[64] = { 0 }, resp[64] = { 0 };
	int fd = k->fresh_fd ? open(t->dev_path, O_RDWR | O_CLOEXEC) : t->d.ctx->cmd_fd;
	int r, u = 0;

	if (fd < 0)
		die("udata: open %s: %s", t->dev_path, strerror(errno));
	k->build(t, req);
	r = uv_write_fd(fd, k->cmd, req, k->req_len, extra, fill, resp, resp_len);
	if (!r && k->undo)
		u = k->undo(k, fd, resp);
	if (u)
		not_ok("udata %s: destroying what it created: %s", k->name, errname(u));
	if (k->fresh_fd)
		close(fd);
	return r;
}

static void expect(const struct ucmd *k, const char *what, int got, int want)
{
	if (got == want)
		ok("udata %s: %s: %s", k->name, what, errname(got));
	else
		not_ok("udata %s: %s: %s, want %s", k->name, what, errname(got), errname(want));
}

static void check_cmd(struct ut *t, const struct ucmd *k)
{
	size_t full = k->resp_core + k->resp_drv;

	expect(k, "8 trailing request bytes, nonzero", run(t, k, 8, 0x5a, full), EOPNOTSUPP);
	expect(k, "4 trailing request bytes, nonzero", run(t, k, 4, 0x01, full), EOPNOTSUPP);
	expect(k, "8 trailing request bytes, all zero", run(t, k, 8, 0, full), 0);
	expect(k, "64 trailing request bytes, all zero", run(t, k, 64, 0, full), 0);
	if (!k->resp_drv)
		return;
	expect(k, "response buffer without the driver's part", run(t, k, 0, 0, k->resp_core),
	       EINVAL);
	expect(k, "response buffer one word short", run(t, k, 0, 0, full - 4), EINVAL);
}

static void check_srq_max_wr(struct ut *t)
{
	int r = uv_modify_srq(t->d.ctx, t->srq->handle, IBV_SRQ_MAX_WR, 64, 0, 0, 0);

	if (r == EOPNOTSUPP)
		ok("udata MODIFY_SRQ: IBV_SRQ_MAX_WR through write(): EOPNOTSUPP");
	else
		not_ok("udata MODIFY_SRQ: IBV_SRQ_MAX_WR through write(): %s, want EOPNOTSUPP",
		       errname(r));
	r = uv_modify_srq(t->d.ctx, t->srq->handle, IBV_SRQ_MAX_WR, 64, 0, 8, 0xa5);
	if (r == EOPNOTSUPP)
		ok("udata MODIFY_SRQ: IBV_SRQ_MAX_WR with nonzero trailing bytes: EOPNOTSUPP");
	else
		not_ok("udata MODIFY_SRQ: IBV_SRQ_MAX_WR with nonzero trailing bytes: %s, want EOPNOTSUPP",
		       errname(r));
}

int mode_udata(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC, .cap = { 4, 4, 1, 1, 0 } };
	struct ut t = { 0 };
	size_t i;

	rc_dev_open(&t.d);
	snprintf(t.dev_path, sizeof(t.dev_path), "/dev/infiniband/%s", t.d.ctx->device->dev_name);
	t.buf = rc_alloc(4096);
	t.cq = ibv_create_cq(t.d.ctx, 16, NULL, NULL, 0);
	t.srq = ibv_create_srq(t.d.pd, &sa);
	qa.send_cq = qa.recv_cq = t.cq;
	t.qp = t.cq ? ibv_create_qp(t.d.pd, &qa) : NULL;
	if (!t.srq || !t.qp)
		die("udata: creating the CQ, SRQ and QP: %s", strerror(errno));
	for (i = 0; i < sizeof(ucmds) / sizeof(ucmds[0]); i++)
		check_cmd(&t, &ucmds[i]);
	check_srq_max_wr(&t);
	ibv_destroy_qp(t.qp);
	ibv_destroy_srq(t.srq);
	ibv_destroy_cq(t.cq);
	rc_dev_close(&t.d);
	free(t.buf);
	return 0;
}
