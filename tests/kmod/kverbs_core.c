// SPDX-License-Identifier: GPL-2.0-only
/*
 * Kernel verbs self-test for qrnic: what a kernel ULP does with the device.
 * Loading the module connects two RC QPs of one device to each other
 * (through the device's own RoCE v2 GID, so frames go through the RDMA
 * engine's loopback), moves data with every opcode, checks each completion
 * and every byte, and cleans up.  Each check prints "ok - ..." or
 * "not ok - ..."; the load fails with -EIO if any check failed, so
 * `modprobe qrnic_kverbs_test` is the test.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "kverbs.h"

static char *ibdev = "qrnic0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to test (default qrnic0)");

/*
 * The device named ibdev, found as a ULP finds devices: a client whose add
 * callback sees each one (ib_device_get_by_name() is gone since 7.0).
 */
static struct ib_device *kt_found;

static int kt_client_add(struct ib_device *dev)
{
	if (!kt_found && !strcmp(dev_name(&dev->dev), ibdev) &&
	    ib_device_try_get(dev))
		kt_found = dev;
	return 0;
}

static void kt_client_remove(struct ib_device *dev, void *client_data)
{
}

static struct ib_client kt_client = {
	.name	= "qrnic_kverbs_test",
	.add	= kt_client_add,
	.remove	= kt_client_remove,
};

static void kt_comp(struct ib_cq *cq, void *ctx)
{
	complete(ctx);
}

/* The first RoCE v2 GID of port 1: the device's own address. */
static int kt_find_gid(struct kt *t)
{
	const struct ib_gid_attr *attr;
	struct ib_port_attr port;
	u16 vlan;
	int i;

	if (ib_query_port(t->dev, 1, &port))
		return -EIO;
	for (i = 0; i < port.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(t->dev, 1, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    !rdma_read_gid_l2_fields(attr, &vlan, t->mac)) {
			t->gid = attr;
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	return -ENOENT;
}

int kt_modify(struct kt *t, int i)
{
	struct kt_side *me = &t->s[i], *peer = &t->s[!i];
	union ib_gid dgid = t->gid->gid;
	struct ib_qp_attr a = {};
	int ret;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC;
	ret = ib_modify_qp(me->qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_1024;
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = 0x100 * (!i + 1);
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&a.ah_attr, 1);
	rdma_ah_set_grh(&a.ah_attr, &dgid, 0, t->gid->index, 64, 0);
	memcpy(a.ah_attr.roce.dmac, t->mac, ETH_ALEN);
	ret = ib_modify_qp(me->qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 0x100 * (i + 1);
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return ib_modify_qp(me->qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* Both QPs from RESET to RTS, connected to each other. */
static int kt_connect(struct kt *t)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = kt_modify(t, i);
		if (ret)
			return ret;
	}
	return 0;
}

/* After an error: both QPs through RESET back to RTS, connected again. */
int kt_reconnect(struct kt *t)
{
	struct ib_qp_attr a = { .qp_state = IB_QPS_RESET };
	int i, ret;

	for (i = 0; i < 2; i++) {
		ret = ib_modify_qp(t->s[i].qp, &a, IB_QP_STATE);
		if (ret)
			return ret;
	}
	return kt_connect(t);
}

/*
 * ib_alloc_pd's global rkey allows remote read and write, not atomics
 * (which the device enforces).  A second DMA MR with remote atomic access,
 * made the way ib_core makes the PD's own, is the atomics' target.
 */
static int kt_atomic_mr(struct kt *t)
{
	struct ib_mr *mr;

	mr = t->dev->ops.get_dma_mr(t->pd, IB_ACCESS_LOCAL_WRITE |
				    IB_ACCESS_REMOTE_ATOMIC);
	if (IS_ERR(mr))
		return PTR_ERR(mr);
	mr->device = t->dev;
	mr->pd = t->pd;
	mr->type = IB_MR_TYPE_DMA;
	mr->uobject = NULL;
	atomic_inc(&t->pd->usecnt);
	t->atomic_mr = mr;
	return 0;
}

static int kt_setup(struct kt *t)
{
	struct ib_qp_init_attr qa = {};
	struct ib_cq_init_attr ca = { .cqe = 64 };
	int i, ret;

	t->pd = ib_alloc_pd(t->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(t->pd))
		return PTR_ERR(t->pd);
	check(t, t->pd->local_dma_lkey && t->pd->unsafe_global_rkey,
	      "PD with a DMA MR (lkey %#x, rkey %#x)",
	      t->pd->local_dma_lkey, t->pd->unsafe_global_rkey);
	ret = kt_atomic_mr(t);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		struct kt_side *s = &t->s[i];

		init_completion(&s->event);
		s->cq = ib_create_cq(t->dev, kt_comp, NULL, &s->event, &ca);
		if (IS_ERR(s->cq))
			return PTR_ERR(s->cq);
		qa.send_cq = s->cq;
		qa.recv_cq = s->cq;
		qa.cap.max_send_wr = 16;
		qa.cap.max_recv_wr = 16;
		qa.cap.max_send_sge = 2;
		qa.cap.max_recv_sge = 2;
		qa.cap.max_inline_data = 64;
		qa.qp_type = IB_QPT_RC;
		qa.sq_sig_type = IB_SIGNAL_REQ_WR;
		s->qp = ib_create_qp(t->pd, &qa);
		if (IS_ERR(s->qp))
			return PTR_ERR(s->qp);
		s->buf = kzalloc(BUF_SIZE, GFP_KERNEL);
		if (!s->buf)
			return -ENOMEM;
		s->dma = ib_dma_map_single(t->dev, s->buf, BUF_SIZE,
					   DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(t->dev, s->dma))
			return -ENOMEM;
	}
	ret = kt_find_gid(t);
	return ret ?: kt_connect(t);
}

static void kt_teardown(struct kt *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct kt_side *s = &t->s[i];

		if (!IS_ERR_OR_NULL(s->qp))
			ib_destroy_qp(s->qp);
		if (!IS_ERR_OR_NULL(s->cq))
			ib_destroy_cq(s->cq);
		if (s->dma && !ib_dma_mapping_error(t->dev, s->dma))
			ib_dma_unmap_single(t->dev, s->dma, BUF_SIZE,
					    DMA_BIDIRECTIONAL);
		kfree(s->buf);
	}
	if (t->gid)
		rdma_put_gid_attr(t->gid);
	if (t->atomic_mr)
		ib_dereg_mr(t->atomic_mr);
	if (!IS_ERR_OR_NULL(t->pd))
		ib_dealloc_pd(t->pd);
}

/*
 * Wait for one completion on side i: arm the CQ, and if nothing is there
 * yet, sleep until the completion event (MSI-X -> EQ -> comp_handler).
 */
int kt_wait(struct kt *t, int i, struct ib_wc *wc, bool *evented)
{
	struct kt_side *s = &t->s[i];
	int n;

	*evented = false;
	for (;;) {
		n = ib_poll_cq(s->cq, 1, wc);
		if (n)
			return n;
		reinit_completion(&s->event);
		if (ib_req_notify_cq(s->cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			continue;
		if (!wait_for_completion_timeout(&s->event,
						 msecs_to_jiffies(WAIT_MS)))
			return 0;
		*evented = true;
	}
}

void kt_sge(struct kt *t, struct ib_sge *sge, int i, u32 off, u32 len)
{
	sge->addr = t->s[i].dma + off;
	sge->length = len;
	sge->lkey = t->pd->local_dma_lkey;
}

void kt_sync(struct kt *t, int i, bool for_cpu)
{
	if (for_cpu)
		ib_dma_sync_single_for_cpu(t->dev, t->s[i].dma, BUF_SIZE,
					   DMA_BIDIRECTIONAL);
	else
		ib_dma_sync_single_for_device(t->dev, t->s[i].dma, BUF_SIZE,
					      DMA_BIDIRECTIONAL);
}

void kt_fill(struct kt *t, int i, u8 seed)
{
	u8 *p = t->s[i].buf;
	int k;

	for (k = 0; k < BUF_SIZE; k++)
		p[k] = seed + k * 7;
	kt_sync(t, i, false);
}

/* SEND_WITH_IMM of 3000 bytes in two SGEs, solicited; a receive in two. */
static void kt_send(struct kt *t)
{
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_wr;
	struct ib_recv_wr rwr = { .wr_id = 11, .num_sge = 2 };
	struct ib_send_wr wr = { .wr_id = 10, .num_sge = 2 };
	struct ib_sge rsge[2], sge[2];
	struct ib_wc wc;
	bool ev;
	int ret;

	kt_fill(t, 0, 1);
	kt_fill(t, 1, 0);
	/* Armed for solicited completions before anything is posted. */
	reinit_completion(&t->s[1].event);
	ret = ib_req_notify_cq(t->s[1].cq, IB_CQ_SOLICITED);
	check(t, !ret, "ib_req_notify_cq(IB_CQ_SOLICITED) (%d)", ret);
	kt_sge(t, &rsge[0], 1, 0, 1000);
	kt_sge(t, &rsge[1], 1, 4096, 3000);
	rwr.sg_list = rsge;
	ret = ib_post_recv(t->s[1].qp, &rwr, &bad_rwr);
	check(t, !ret, "ib_post_recv (%d)", ret);
	kt_sge(t, &sge[0], 0, 0, 1000);
	kt_sge(t, &sge[1], 0, 1000, 2000);
	wr.sg_list = sge;
	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_SOLICITED;
	wr.ex.imm_data = cpu_to_be32(0x1234abcd);
	ret = ib_post_send(t->s[0].qp, &wr, &bad_wr);
	check(t, !ret, "ib_post_send SEND_WITH_IMM (%d)", ret);

	ev = wait_for_completion_timeout(&t->s[1].event,
					 msecs_to_jiffies(WAIT_MS));
	check(t, ev, "the solicited receive raised a completion event");
	ret = ib_req_notify_cq(t->s[1].cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS);
	check(t, ret > 0,
	      "arming with IB_CQ_REPORT_MISSED_EVENTS reports the unpolled CQE (%d)",
	      ret);
	ret = kt_wait(t, 1, &wc, &ev);
	check(t, ret == 1 && wc.status == IB_WC_SUCCESS &&
	      wc.opcode == IB_WC_RECV && wc.wr_id == 11 &&
	      wc.byte_len == 3000 && (wc.wc_flags & IB_WC_WITH_IMM) &&
	      wc.ex.imm_data == cpu_to_be32(0x1234abcd) &&
	      wc.qp == t->s[1].qp,
	      "receive completion: status %d opcode %d byte_len %u imm %#x",
	      ret == 1 ? wc.status : -1, wc.opcode, wc.byte_len,
	      be32_to_cpu(wc.ex.imm_data));
	ret = kt_wait(t, 0, &wc, &ev);
	check(t, ret == 1 && wc.status == IB_WC_SUCCESS &&
	      wc.opcode == IB_WC_SEND && wc.wr_id == 10,
	      "send completion: status %d opcode %d",
	      ret == 1 ? wc.status : -1, wc.opcode);
	kt_sync(t, 1, true);
	check(t, !memcmp(t->s[1].buf, t->s[0].buf, 1000) &&
	      !memcmp(t->s[1].buf + 4096, t->s[0].buf + 1000, 2000),
	      "SEND data arrived in both receive SGEs");
}

/*
 * Post one WR on side from, signalled, with its opcode as wr_id; wait for
 * its completion.  Returns the completion status or a negative errno.
 */
int kt_post_wait(struct kt *t, int from, struct ib_send_wr *wr)
{
	const struct ib_send_wr *bad_wr;
	struct ib_wc wc;
	bool ev;
	int ret;

	wr->wr_id = wr->opcode;
	wr->send_flags |= IB_SEND_SIGNALED;
	ret = ib_post_send(t->s[from].qp, wr, &bad_wr);
	if (ret)
		return ret;
	if (kt_wait(t, from, &wc, &ev) != 1)
		return -ETIMEDOUT;
	return wc.wr_id == wr->opcode ? wc.status : -EIO;
}

/*
 * One signalled RDMA/atomic WR from side from into side !from's buffer,
 * with rkey; returns the completion status or a negative errno.
 */
int kt_rdma(struct kt *t, int from, enum ib_wr_opcode op, u32 loff,
	    u32 roff, u32 len, u64 add_or_cmp, u64 swap, int flags, u32 rkey)
{
	struct ib_atomic_wr awr = {};
	struct ib_rdma_wr rwr = {};
	struct ib_send_wr *wr;
	struct ib_sge sge;

	kt_sge(t, &sge, from, loff, len);
	if (flags & IB_SEND_INLINE)	/* kernel inline data: a virtual address */
		sge.addr = (uintptr_t)t->s[from].buf + loff;
	if (op == IB_WR_ATOMIC_FETCH_AND_ADD || op == IB_WR_ATOMIC_CMP_AND_SWP) {
		awr.remote_addr = t->s[!from].dma + roff;
		awr.rkey = rkey;
		awr.compare_add = add_or_cmp;
		awr.swap = swap;
		wr = &awr.wr;
	} else {
		rwr.remote_addr = t->s[!from].dma + roff;
		rwr.rkey = rkey;
		wr = &rwr.wr;
	}
	wr->opcode = op;
	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags = flags;
	return kt_post_wait(t, from, wr);
}

static void kt_rdma_ops(struct kt *t)
{
	u64 *remote = t->s[1].buf + 6144, *local = t->s[0].buf + 6144;
	u32 rkey = t->pd->unsafe_global_rkey;
	int ret;

	kt_fill(t, 0, 3);
	kt_fill(t, 1, 0);
	ret = kt_rdma(t, 0, IB_WR_RDMA_WRITE, 0, 0, 5000, 0, 0, 0, rkey);
	kt_sync(t, 1, true);
	check(t, !ret && !memcmp(t->s[0].buf, t->s[1].buf, 5000),
	      "RDMA WRITE 5000 bytes through the DMA MR (%d)", ret);

	ret = kt_rdma(t, 0, IB_WR_RDMA_WRITE, 100, 5000, 40, 0, 0,
		      IB_SEND_INLINE, rkey);
	kt_sync(t, 1, true);
	check(t, !ret && !memcmp(t->s[0].buf + 100, t->s[1].buf + 5000, 40),
	      "inline RDMA WRITE 40 bytes (%d)", ret);

	kt_fill(t, 1, 9);
	kt_fill(t, 0, 0);
	ret = kt_rdma(t, 0, IB_WR_RDMA_READ, 0, 1000, 3000, 0, 0, 0, rkey);
	kt_sync(t, 0, true);
	check(t, !ret && !memcmp(t->s[0].buf, t->s[1].buf + 1000, 3000),
	      "RDMA READ 3000 bytes (%d)", ret);

	*remote = 40;
	kt_sync(t, 1, false);
	ret = kt_rdma(t, 0, IB_WR_ATOMIC_FETCH_AND_ADD, 6144, 6144, 8, 2, 0, 0,
		      t->atomic_mr->rkey);
	kt_sync(t, 0, true);
	kt_sync(t, 1, true);
	check(t, !ret && *local == 40 && *remote == 42,
	      "FETCH_AND_ADD: got %llu, memory now %llu (%d)", *local, *remote,
	      ret);
	ret = kt_rdma(t, 0, IB_WR_ATOMIC_CMP_AND_SWP, 6144, 6144, 8, 42, 7, 0,
		      t->atomic_mr->rkey);
	kt_sync(t, 0, true);
	kt_sync(t, 1, true);
	check(t, !ret && *local == 42 && *remote == 7,
	      "CMP_AND_SWP: got %llu, memory now %llu (%d)", *local, *remote,
	      ret);
}

/*
 * Errors: an atomic through the global rkey (no atomic right) gets
 * REM_ACCESS_ERR and changes nothing; a bad lkey gets LOC_PROT_ERR; each
 * QP is then in ERR and flushes what is posted to it.
 */
static void kt_errors(struct kt *t)
{
	u64 *remote = t->s[1].buf + 6144;
	const struct ib_recv_wr *bad_rwr;
	struct ib_recv_wr rwr = { .wr_id = 21, .num_sge = 1 };
	struct ib_send_wr swr = { .wr_id = 20, .num_sge = 1,
				  .opcode = IB_WR_SEND,
				  .send_flags = IB_SEND_SIGNALED };
	const struct ib_send_wr *bad_swr;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;
	struct ib_sge sge;
	struct ib_wc wc;
	bool ev;
	int ret, i;

	*remote = 5;
	kt_sync(t, 1, false);
	ret = kt_rdma(t, 0, IB_WR_ATOMIC_FETCH_AND_ADD, 6144, 6144, 8, 1, 0, 0,
		      t->pd->unsafe_global_rkey);
	kt_sync(t, 1, true);
	check(t, ret == IB_WC_REM_ACCESS_ERR && *remote == 5,
	      "atomic through an rkey without the right: status %d, want IB_WC_REM_ACCESS_ERR; memory %llu",
	      ret, *remote);
	/* The responder moved to ERR as well (a class C error). */
	for (i = 0; i < 2; i++) {
		ret = ib_query_qp(t->s[i].qp, &attr, IB_QP_STATE, &init);
		check(t, !ret && attr.qp_state == IB_QPS_ERR,
		      "QP %d is in ERR after its error (state %d)", i,
		      attr.qp_state);
		kt_sge(t, &sge, i, 0, 64);
		rwr.sg_list = &sge;
		ret = ib_post_recv(t->s[i].qp, &rwr, &bad_rwr);
		ret = ret ?: kt_wait(t, i, &wc, &ev) == 1 ? 0 : -ETIMEDOUT;
		check(t, !ret && wc.status == IB_WC_WR_FLUSH_ERR &&
		      wc.wr_id == 21,
		      "QP %d: a receive posted in ERR is flushed (status %d)",
		      i, ret ? -1 : wc.status);
	}

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RESET;
	ret = ib_modify_qp(t->s[1].qp, &attr, IB_QP_STATE);
	ret = ret ?: kt_modify(t, 1);
	check(t, !ret, "QP 1 back to RTS through RESET (%d)", ret);
	kt_sge(t, &sge, 1, 0, 64);
	sge.lkey ^= 0x5a5a00;
	swr.sg_list = &sge;
	ret = ib_post_send(t->s[1].qp, &swr, &bad_swr);
	ret = ret ?: kt_wait(t, 1, &wc, &ev) == 1 ? 0 : -ETIMEDOUT;
	check(t, !ret && wc.status == IB_WC_LOC_PROT_ERR && wc.wr_id == 20,
	      "bad lkey: status %d, want IB_WC_LOC_PROT_ERR (%d)",
	      ret ? -1 : wc.status, ret);
}

/*
 * CQ depths: up to max_cqe is a user's; a kernel CQ on qrnic stops at
 * 1 << 16 CQEs (one contiguous buffer), beyond max_cqe is EINVAL anywhere.
 */
#define KT_KERNEL_CQ_MAX	BIT(16)

static void kt_cq_limits(struct kt *t)
{
	int max = min_t(int, t->dev->attrs.max_cqe, KT_KERNEL_CQ_MAX);
	struct ib_cq_init_attr ca = { .cqe = max };
	struct ib_cq *cq;

	cq = ib_create_cq(t->dev, NULL, NULL, NULL, &ca);
	check(t, !IS_ERR(cq) && cq->cqe >= max,
	      "a kernel CQ of %d CQEs (%ld)", max,
	      IS_ERR(cq) ? PTR_ERR(cq) : (long)cq->cqe);
	if (!IS_ERR(cq))
		ib_destroy_cq(cq);
	ca.cqe = max + 1;
	cq = ib_create_cq(t->dev, NULL, NULL, NULL, &ca);
	check(t, IS_ERR(cq) && PTR_ERR(cq) == -EINVAL,
	      "a kernel CQ of %d CQEs: %ld, want -EINVAL", max + 1,
	      IS_ERR(cq) ? PTR_ERR(cq) : 0L);
	if (!IS_ERR(cq))
		ib_destroy_cq(cq);
}

static int __init kt_init(void)
{
	struct kt *t;
	int ret, failed;

	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	ret = ib_register_client(&kt_client);
	if (ret) {
		kfree(t);
		return ret;
	}
	t->dev = kt_found;
	if (!t->dev) {
		pr_info("not ok - no RDMA device %s\n", ibdev);
		ib_unregister_client(&kt_client);
		kfree(t);
		return -ENODEV;
	}
	kt_cq_limits(t);
	ret = kt_setup(t);
	check(t, !ret,
	      "%s: PD, two CQs with event handlers, two RC QPs connected to each other (%d)",
	      ibdev, ret);
	if (!ret) {
		kt_send(t);
		kt_rdma_ops(t);
		kt_errors(t);
		ret = kt_reconnect(t);
		check(t, !ret, "both QPs back to RTS after the errors (%d)", ret);
		if (!ret)
			kt_fastreg(t);
	}
	kt_teardown(t);
	ib_device_put(t->dev);
	ib_unregister_client(&kt_client);
	failed = t->failed;
	kfree(t);
	pr_info("# %d check(s) failed\n", failed);
	return failed ? -EIO : 0;
}

static void __exit kt_exit(void)
{
}

module_init(kt_init);
module_exit(kt_exit);
MODULE_DESCRIPTION("qrnic kernel verbs self-test");
MODULE_LICENSE("GPL");
