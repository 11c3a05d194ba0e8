// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdma_cm self-test for qrnic: a kernel consumer that connects through the
 * RDMA connection manager instead of exchanging QP numbers by hand.
 *
 * Loading the module (role=both, the default) runs both ends in this host:
 * a listener bound to addr:port and a client that resolves addr:port,
 * connects with private data and is accepted by the listener's new cm_id,
 * each end with its own PD, CQ (ib_alloc_cq) and QP (rdma_create_qp).  The
 * CM MADs go over the GSI QP and the data over the RC QPs, both through the
 * device's loopback.  Each end then sends the other a SEND and a
 * SEND_WITH_IMM, the client RDMA-WRITEs into a server buffer whose address
 * and rkey came in the server's SEND, every byte and completion is checked,
 * and the client disconnects.  role=server runs the listener only and
 * serves one client; role=client connects to peer (another host running
 * role=server).
 *
 * Each check prints "ok - ..." or "not ok - ..."; every wait has a timeout,
 * and the load fails with -EIO if any check failed, so
 * `modprobe qrnic_kcm_test addr=A.B.C.D` is the test.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/completion.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>

#include "kt_compat.h"
#include <rdma/rdma_cm.h>

static char *addr;
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "IPv4 address of this host on the RDMA link (required)");

static ushort port = 18515;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "RDMA_PS_TCP port the listener binds (default 18515)");

static char *role = "both";
module_param(role, charp, 0444);
MODULE_PARM_DESC(role,
		 "both (default: listener and client here), server (listener only) or client (connects to peer)");

static char *peer;
module_param(peer, charp, 0444);
MODULE_PARM_DESC(peer, "role=client: IPv4 address of the host running role=server");

static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "if set, the RDMA device rdma_cm must pick for addr");

#define WAIT_MS		10000	/* each step; generous under TCG */
#define ACCEPT_MS	120000	/* role=server: for the client to come */
#define RESOLVE_MS	5000	/* rdma_resolve_addr/rdma_resolve_route */

/* Each end's buffer: receive slots, send slots, the RDMA WRITE area. */
#define SLOT		2048
#define NR_RX		3	/* two messages and a spare, flushed at the end */
#define NR_TX		3
#define RX_OFF		0
#define TX_OFF		8192
#define MR_OFF		16384
#define MR_LEN		8192
#define BUF_SIZE	(MR_OFF + MR_LEN)

#define MSG0_LEN	1500	/* SEND; the server's starts with a kc_adv */
#define MSG1_LEN	SLOT	/* SEND_WITH_IMM filling a receive slot */
#define WR_OFF		300	/* the client writes WR_LEN bytes at WR_OFF */
#define WR_LEN		5000	/* into the server's area */
#define GUARD		0xa5	/* the rest of the server's area */
#define ADV_MAGIC	0x6b636d31

/* Pattern seeds: message m of end e, the WRITE, the private data. */
#define SEED(e, m)	(0x11 + 0x40 * (e) + 0x13 * (m))
#define SEED_WRITE	0x77
#define SEED_PDATA(e)	(0x29 + (e))
#define IMM(e)		(0x4b434d00 + (e))

enum { SERVER, CLIENT };
#define ROLE_SERVER	BIT(SERVER)
#define ROLE_CLIENT	BIT(CLIENT)

/* Private data of the client's REQ and of the server's REP. */
struct kc_pdata {
	char tag[24];
	__be32 qpn;		/* the sender's QP */
	u8 fill[12];
};

/* What the server's first SEND starts with: where the client may write. */
struct kc_adv {
	__be32 magic;
	__be32 rkey;
	__be64 addr;
	__be32 len;
	__be32 rsvd;
};

struct kc_wr {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
};

#define NR_EV		16	/* RDMA_CM_EVENT_* recorded in a bitmap */
#define EV_ERRORS	(BIT(RDMA_CM_EVENT_ADDR_ERROR) |		\
			 BIT(RDMA_CM_EVENT_ROUTE_ERROR) |		\
			 BIT(RDMA_CM_EVENT_CONNECT_ERROR) |		\
			 BIT(RDMA_CM_EVENT_UNREACHABLE) |		\
			 BIT(RDMA_CM_EVENT_REJECTED) |			\
			 BIT(RDMA_CM_EVENT_DEVICE_REMOVAL))

struct kc_ep {
	const char *name;
	int side;
	struct rdma_cm_id *listen;	/* the server's listener */
	struct rdma_cm_id *id;		/* the client's id or the server's child */
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	u8 *buf;
	u64 dma;
	bool mapped;
	struct kc_wr rx[NR_RX];
	struct kc_wr tx[NR_TX];
	struct kc_adv adv;		/* client: the server's area */

	/* Recorded by the event handler (a workqueue) under lock. */
	spinlock_t lock;
	wait_queue_head_t wq;
	unsigned long seen;		/* BIT(event) for each event seen */
	int status[NR_EV];
	int last;			/* the last event, -1 for none */
	int last_status;
	int requests;			/* CONNECT_REQUESTs */
	struct kc_pdata pdata;		/* REQ's (server) or REP's (client) */
	int pdata_len;
	u32 peer_qpn;			/* the QP number the peer's CM named */
	u8 responder_resources;
	u8 initiator_depth;
};

struct kc {
	struct kc_ep ep[2];
	struct sockaddr_in local;	/* addr:port (client: addr:0) */
	struct sockaddr_in remote;	/* the listener, for the client */
	unsigned int roles;
	int failed;
};

static const char * const kc_ev_names[NR_EV] = {
	[RDMA_CM_EVENT_ADDR_RESOLVED] = "ADDR_RESOLVED",
	[RDMA_CM_EVENT_ADDR_ERROR] = "ADDR_ERROR",
	[RDMA_CM_EVENT_ROUTE_RESOLVED] = "ROUTE_RESOLVED",
	[RDMA_CM_EVENT_ROUTE_ERROR] = "ROUTE_ERROR",
	[RDMA_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
	[RDMA_CM_EVENT_CONNECT_RESPONSE] = "CONNECT_RESPONSE",
	[RDMA_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	[RDMA_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
	[RDMA_CM_EVENT_REJECTED] = "REJECTED",
	[RDMA_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
	[RDMA_CM_EVENT_DISCONNECTED] = "DISCONNECTED",
	[RDMA_CM_EVENT_DEVICE_REMOVAL] = "DEVICE_REMOVAL",
	[RDMA_CM_EVENT_MULTICAST_JOIN] = "MULTICAST_JOIN",
	[RDMA_CM_EVENT_MULTICAST_ERROR] = "MULTICAST_ERROR",
	[RDMA_CM_EVENT_ADDR_CHANGE] = "ADDR_CHANGE",
	[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "TIMEWAIT_EXIT",
};

static const char *kc_ev_name(int ev)
{
	if (ev < 0)
		return "none";
	if (ev < NR_EV && kc_ev_names[ev])
		return kc_ev_names[ev];
	return rdma_event_msg(ev);
}

static __printf(3, 4) bool check(struct kc *t, bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("%s - %pV\n", ok ? "ok" : "not ok", &vaf);
	va_end(args);
	if (!ok)
		t->failed++;
	return ok;
}

static void kc_fill(u8 *p, u32 from, u32 to, u8 seed)
{
	u32 k;

	for (k = from; k < to; k++)
		p[k] = seed + k * 7 + (k >> 8);
}

/* The first offset in [from, to) that does not hold the pattern, or -1. */
static int kc_bad(const u8 *p, u32 from, u32 to, u8 seed)
{
	u32 k;

	for (k = from; k < to; k++)
		if (p[k] != (u8)(seed + k * 7 + (k >> 8)))
			return k;
	return -1;
}

static int kc_bad_guard(const u8 *p, u32 from, u32 to)
{
	u32 k;

	for (k = from; k < to; k++)
		if (p[k] != GUARD)
			return k;
	return -1;
}

/*
 * The CM event handler of every id (the server's child inherits the
 * listener's handler and context).  It only records the event and wakes
 * the module's thread; it destroys nothing, except that a second
 * CONNECT_REQUEST is refused by returning non-zero, which has the core
 * reject it and destroy that child id.
 */
static int kc_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct kc_ep *ep = id->context;
	const struct rdma_conn_param *cp = &ev->param.conn;
	int ret = 0;

	pr_info("# %s: RDMA_CM_EVENT_%s (status %d)\n", ep->name,
		kc_ev_name(ev->event), ev->status);
	spin_lock(&ep->lock);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		ep->requests++;
		if (ep->id) {
			ret = -ECONNREFUSED;
			goto out;
		}
		ep->id = id;
	}
	if ((ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	     ev->event == RDMA_CM_EVENT_ESTABLISHED) && cp->private_data) {
		ep->pdata_len = cp->private_data_len;
		memcpy(&ep->pdata, cp->private_data,
		       min_t(size_t, cp->private_data_len, sizeof(ep->pdata)));
		ep->peer_qpn = cp->qp_num;
		ep->responder_resources = cp->responder_resources;
		ep->initiator_depth = cp->initiator_depth;
	}
	if (ev->event < NR_EV) {
		ep->status[ev->event] = ev->status;
		ep->seen |= BIT(ev->event);
	}
	ep->last = ev->event;
	ep->last_status = ev->status;
out:
	spin_unlock(&ep->lock);
	wake_up(&ep->wq);
	return ret;
}

/* Wait for event want on ep and check it came with status 0. */
static bool kc_event(struct kc *t, struct kc_ep *ep,
		     enum rdma_cm_event_type want, unsigned int ms)
{
	int status, last, last_status;
	bool seen;

	wait_event_timeout(ep->wq,
			   READ_ONCE(ep->seen) & (BIT(want) | EV_ERRORS),
			   msecs_to_jiffies(ms));
	spin_lock(&ep->lock);
	seen = ep->seen & BIT(want);
	status = ep->status[want];
	last = ep->last;
	last_status = ep->last_status;
	spin_unlock(&ep->lock);
	if (seen)
		return check(t, !status, "%s: RDMA_CM_EVENT_%s (status %d)",
			     ep->name, kc_ev_name(want), status);
	return check(t, false,
		     "%s: no RDMA_CM_EVENT_%s (waited up to %u ms; last event %s, status %d)",
		     ep->name, kc_ev_name(want), ms, kc_ev_name(last),
		     last_status);
}

static void kc_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kc_wr *w = container_of(wc->wr_cqe, struct kc_wr, cqe);

	w->wc = *wc;
	complete(&w->done);
}

static void kc_init_wr(struct kc_wr *w)
{
	w->cqe.done = kc_done;
	init_completion(&w->done);
	memset(&w->wc, 0, sizeof(w->wc));
	w->wc.status = -1;
}

/*
 * Wait for w's completion and check it: its status and QP; for a success,
 * its opcode, and for a receive its length and immediate (imm 0: none).
 */
static bool kc_wc(struct kc *t, struct kc_ep *ep, struct kc_wr *w,
		  const char *what, enum ib_wc_status status,
		  enum ib_wc_opcode opcode, u32 len, u32 imm)
{
	bool done = wait_for_completion_timeout(&w->done,
						msecs_to_jiffies(WAIT_MS));
	struct ib_wc *wc = &w->wc;
	bool with_imm = wc->wc_flags & IB_WC_WITH_IMM;
	u32 got_imm = with_imm ? be32_to_cpu(wc->ex.imm_data) : 0;

	if (!done)
		return check(t, false, "%s: no %s completion within %d ms",
			     ep->name, what, WAIT_MS);
	if (status != IB_WC_SUCCESS)
		return check(t, wc->status == status && wc->qp == ep->id->qp,
			     "%s: %s completion: %s (want %s)", ep->name, what,
			     ib_wc_status_msg(wc->status),
			     ib_wc_status_msg(status));
	if (!(opcode & IB_WC_RECV))
		return check(t, wc->status == status && wc->qp == ep->id->qp &&
			     wc->opcode == opcode,
			     "%s: %s completion: status %d opcode %d (want %d %d)",
			     ep->name, what, wc->status, wc->opcode, status,
			     opcode);
	return check(t, wc->status == status && wc->qp == ep->id->qp &&
		     wc->opcode == opcode && wc->byte_len == len &&
		     with_imm == !!imm && got_imm == imm,
		     "%s: %s completion: status %d opcode %d byte_len %u imm %#x (want %d %d %u %#x)",
		     ep->name, what, wc->status, wc->opcode, wc->byte_len,
		     got_imm, status, opcode, len, imm);
}

static void kc_sync(struct kc_ep *ep, bool for_cpu)
{
	if (for_cpu)
		ib_dma_sync_single_for_cpu(ep->dev, ep->dma, BUF_SIZE,
					   DMA_BIDIRECTIONAL);
	else
		ib_dma_sync_single_for_device(ep->dev, ep->dma, BUF_SIZE,
					      DMA_BIDIRECTIONAL);
}

static int kc_post_recv(struct kc_ep *ep, int i)
{
	struct ib_sge sge = {
		.addr = ep->dma + RX_OFF + i * SLOT,
		.length = SLOT,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &ep->rx[i].cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	kc_init_wr(&ep->rx[i]);
	return ib_post_recv(ep->id->qp, &wr, NULL);
}

static int kc_post_send(struct kc_ep *ep, int i, enum ib_wr_opcode op,
			u32 off, u32 len, u64 remote_addr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = ep->dma + off,
		.length = len,
		.lkey = ep->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &ep->tx[i].cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = remote_addr,
		.rkey = rkey,
	};

	if (op == IB_WR_SEND_WITH_IMM)
		wr.wr.ex.imm_data = cpu_to_be32(IMM(ep->side));
	kc_init_wr(&ep->tx[i]);
	return ib_post_send(ep->id->qp, &wr.wr, NULL);
}

/*
 * ep's PD (with the DMA MR ib_core makes for IB_PD_UNSAFE_GLOBAL_RKEY: its
 * rkey lets the peer write the server's buffer), CQ, buffer and RC QP
 * through rdma_create_qp, and its receives posted.
 */
static int kc_resources(struct kc *t, struct kc_ep *ep)
{
	struct ib_qp_init_attr qa = {
		.cap = {
			.max_send_wr = NR_TX,
			.max_recv_wr = NR_RX,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	int i, ret;

	ep->dev = ep->id->device;
	pd = ib_alloc_pd(ep->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (!check(t, !IS_ERR(pd), "%s: ib_alloc_pd with a global rkey (%d)",
		   ep->name, PTR_ERR_OR_ZERO(pd)))
		return -EIO;
	ep->pd = pd;
	cq = ib_alloc_cq(ep->dev, ep, 2 * (NR_RX + NR_TX), 0,
			 IB_POLL_WORKQUEUE);
	if (!check(t, !IS_ERR(cq), "%s: ib_alloc_cq (%d)", ep->name,
		   PTR_ERR_OR_ZERO(cq)))
		return -EIO;
	ep->cq = cq;
	ep->buf = kzalloc(BUF_SIZE, GFP_KERNEL);
	if (ep->buf) {
		ep->dma = ib_dma_map_single(ep->dev, ep->buf, BUF_SIZE,
					    DMA_BIDIRECTIONAL);
		ep->mapped = !ib_dma_mapping_error(ep->dev, ep->dma);
	}
	if (!check(t, ep->mapped, "%s: a %d-byte buffer mapped for DMA",
		   ep->name, BUF_SIZE))
		return -EIO;

	qa.send_cq = ep->cq;
	qa.recv_cq = ep->cq;
	ret = rdma_create_qp(ep->id, ep->pd, &qa);
	if (!check(t, !ret && ep->id->qp,
		   "%s: rdma_create_qp: RC QP %#x on %s port %u (%d)", ep->name,
		   ret ? 0 : ep->id->qp->qp_num, dev_name(&ep->dev->dev),
		   ep->id->port_num, ret))
		return -EIO;
	for (i = 0; i < NR_RX; i++) {
		ret = kc_post_recv(ep, i);
		if (ret)
			break;
	}
	if (!check(t, !ret, "%s: %d receives posted (%d)", ep->name, NR_RX,
		   ret))
		return -EIO;
	return 0;
}

static void kc_make_pdata(struct kc_ep *ep, struct kc_pdata *pd)
{
	memset(pd, 0, sizeof(*pd));
	snprintf(pd->tag, sizeof(pd->tag), "qrnic_kcm_test %s", ep->name);
	pd->qpn = cpu_to_be32(ep->id->qp->qp_num);
	kc_fill(pd->fill, 0, sizeof(pd->fill), SEED_PDATA(ep->side));
}

/* The private data the peer (named from) sent arrived in ep->pdata. */
static bool kc_check_pdata(struct kc *t, struct kc_ep *ep, const char *from,
			   const char *event)
{
	char tag[sizeof(ep->pdata.tag)] = {};
	bool ok;

	snprintf(tag, sizeof(tag), "qrnic_kcm_test %s", from);
	spin_lock(&ep->lock);
	ok = ep->pdata_len >= sizeof(ep->pdata) &&
	     !memcmp(ep->pdata.tag, tag, sizeof(tag)) &&
	     kc_bad(ep->pdata.fill, 0, sizeof(ep->pdata.fill),
		    SEED_PDATA(!ep->side)) < 0 &&
	     be32_to_cpu(ep->pdata.qpn) == ep->peer_qpn && ep->peer_qpn;
	spin_unlock(&ep->lock);
	return check(t, ok,
		     "%s: %s carries the %s's private data (%d bytes, QPN %#x, the CM's %#x)",
		     ep->name, event, from, ep->pdata_len,
		     be32_to_cpu(ep->pdata.qpn), ep->peer_qpn);
}

static bool kc_check_dev(struct kc *t, struct kc_ep *ep, const char *what,
			 struct rdma_cm_id *id)
{
	const char *name = id->device ? dev_name(&id->device->dev) : "none";

	return check(t, id->device && (!ibdev || !strcmp(name, ibdev)),
		     "%s: %s picks %s port %u%s%s", ep->name, what, name,
		     id->port_num, ibdev ? ", want " : "", ibdev ?: "");
}

static bool kc_check_rts(struct kc *t, struct kc_ep *ep)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	int ret;

	ret = ib_query_qp(ep->id->qp, &attr, IB_QP_STATE | IB_QP_DEST_QPN,
			  &init);
	return check(t, !ret && attr.qp_state == IB_QPS_RTS &&
		     attr.dest_qp_num == ep->peer_qpn,
		     "%s: QP %#x is in RTS connected to QP %#x (state %d, dest %#x, %d)",
		     ep->name, ep->id->qp->qp_num, ep->peer_qpn,
		     attr.qp_state, attr.dest_qp_num, ret);
}

/* The server: a listener bound to addr:port. */
static int kc_listen(struct kc *t)
{
	struct kc_ep *s = &t->ep[SERVER];
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, kc_cm_handler, s, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (!check(t, !IS_ERR(id), "server: rdma_create_id (%d)",
		   PTR_ERR_OR_ZERO(id)))
		return -EIO;
	s->listen = id;
	ret = rdma_bind_addr(id, (struct sockaddr *)&t->local);
	if (!check(t, !ret, "server: rdma_bind_addr to %pISpc (%d)", &t->local,
		   ret))
		return -EIO;
	if (!kc_check_dev(t, s, "rdma_bind_addr", id))
		return -EIO;
	ret = rdma_listen(id, 4);
	if (!check(t, !ret, "server: rdma_listen on %pISpc (%d)", &t->local,
		   ret))
		return -EIO;
	return 0;
}

/* The client: resolve the listener's address and route, connect. */
static int kc_connect(struct kc *t)
{
	struct kc_ep *c = &t->ep[CLIENT];
	struct sockaddr_in src = t->local;
	struct rdma_conn_param cp = {};
	struct rdma_cm_id *id;
	struct kc_pdata pd;
	int ret;

	id = rdma_create_id(&init_net, kc_cm_handler, c, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (!check(t, !IS_ERR(id), "client: rdma_create_id (%d)",
		   PTR_ERR_OR_ZERO(id)))
		return -EIO;
	c->id = id;
	src.sin_port = 0;
	ret = rdma_resolve_addr(id, (struct sockaddr *)&src,
				(struct sockaddr *)&t->remote, RESOLVE_MS);
	if (!check(t, !ret, "client: rdma_resolve_addr %pI4 -> %pISpc (%d)",
		   &src.sin_addr, &t->remote, ret))
		return -EIO;
	if (!kc_event(t, c, RDMA_CM_EVENT_ADDR_RESOLVED, WAIT_MS) ||
	    !kc_check_dev(t, c, "rdma_resolve_addr", id))
		return -EIO;
	ret = rdma_resolve_route(id, RESOLVE_MS);
	if (!check(t, !ret, "client: rdma_resolve_route (%d)", ret) ||
	    !kc_event(t, c, RDMA_CM_EVENT_ROUTE_RESOLVED, WAIT_MS))
		return -EIO;
	ret = kc_resources(t, c);
	if (ret)
		return ret;

	kc_make_pdata(c, &pd);
	cp.private_data = &pd;
	cp.private_data_len = sizeof(pd);
	cp.responder_resources = 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	ret = rdma_connect(id, &cp);
	if (!check(t, !ret, "client: rdma_connect with %zu bytes of private data (%d)",
		   sizeof(pd), ret))
		return -EIO;
	return 0;
}

/* The server: the CONNECT_REQUEST's new cm_id gets a QP and is accepted. */
static int kc_accept(struct kc *t)
{
	struct kc_ep *s = &t->ep[SERVER];
	struct rdma_conn_param cp = {};
	struct kc_pdata pd;
	int ret;

	if (!kc_event(t, s, RDMA_CM_EVENT_CONNECT_REQUEST,
		      t->roles & ROLE_CLIENT ? WAIT_MS : ACCEPT_MS))
		return -EIO;
	check(t, s->id && s->id != s->listen,
	      "server: the request comes with a new cm_id");
	if (!s->id || !kc_check_dev(t, s, "the new cm_id", s->id))
		return -EIO;
	kc_check_pdata(t, s, "client", "CONNECT_REQUEST");
	ret = kc_resources(t, s);
	if (ret) {
		rdma_lock_handler(s->id);
		rdma_reject(s->id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		rdma_unlock_handler(s->id);
		return ret;
	}
	kc_make_pdata(s, &pd);
	cp.private_data = &pd;
	cp.private_data_len = sizeof(pd);
	cp.responder_resources = s->initiator_depth;
	cp.initiator_depth = s->responder_resources;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	/* rdma_accept outside the handler: under the handler lock. */
	rdma_lock_handler(s->id);
	ret = rdma_accept(s->id, &cp);
	rdma_unlock_handler(s->id);
	if (!check(t, !ret, "server: rdma_accept with %zu bytes of private data (%d)",
		   sizeof(pd), ret))
		return -EIO;
	return 0;
}

static int kc_client_established(struct kc *t)
{
	struct kc_ep *c = &t->ep[CLIENT];

	if (!kc_event(t, c, RDMA_CM_EVENT_ESTABLISHED, WAIT_MS))
		return -EIO;
	kc_check_pdata(t, c, "server", "ESTABLISHED");
	kc_check_rts(t, c);
	return 0;
}

static int kc_server_established(struct kc *t)
{
	struct kc_ep *s = &t->ep[SERVER];

	if (!kc_event(t, s, RDMA_CM_EVENT_ESTABLISHED, WAIT_MS))
		return -EIO;
	kc_check_rts(t, s);
	return 0;
}

/* Fill ep's two messages; the server's first starts with its area. */
static void kc_fill_messages(struct kc_ep *ep)
{
	u8 *tx = ep->buf + TX_OFF;

	kc_fill(tx, 0, MSG0_LEN, SEED(ep->side, 0));
	kc_fill(tx + SLOT, 0, MSG1_LEN, SEED(ep->side, 1));
	if (ep->side == SERVER) {
		struct kc_adv adv = {
			.magic = cpu_to_be32(ADV_MAGIC),
			.rkey = cpu_to_be32(ep->pd->unsafe_global_rkey),
			.addr = cpu_to_be64(ep->dma + MR_OFF),
			.len = cpu_to_be32(MR_LEN),
		};

		memcpy(tx, &adv, sizeof(adv));
		memset(ep->buf + MR_OFF, GUARD, MR_LEN);
	} else {
		kc_fill(ep->buf + MR_OFF, 0, MR_LEN, SEED_WRITE);
	}
	kc_sync(ep, false);
}

/*
 * Wait for the peer's two messages in ep's first two receive slots and
 * check every byte.  The client takes the server's area from the first.
 */
static int kc_receive(struct kc *t, struct kc_ep *ep)
{
	int peer = !ep->side, bad0, bad1;
	u32 from = 0;
	u8 *rx;

	if (!kc_wc(t, ep, &ep->rx[0], "SEND receive", IB_WC_SUCCESS,
		   IB_WC_RECV, MSG0_LEN, 0) ||
	    !kc_wc(t, ep, &ep->rx[1], "SEND_WITH_IMM receive", IB_WC_SUCCESS,
		   IB_WC_RECV, MSG1_LEN, IMM(peer)))
		return -EIO;
	kc_sync(ep, true);
	rx = ep->buf + RX_OFF;
	if (peer == SERVER) {
		memcpy(&ep->adv, rx, sizeof(ep->adv));
		from = sizeof(ep->adv);
		if (!check(t, be32_to_cpu(ep->adv.magic) == ADV_MAGIC &&
			   be32_to_cpu(ep->adv.len) >= WR_OFF + WR_LEN,
			   "client: the server's SEND names its buffer (addr %#llx, rkey %#x, %u bytes)",
			   be64_to_cpu(ep->adv.addr), be32_to_cpu(ep->adv.rkey),
			   be32_to_cpu(ep->adv.len)))
			return -EIO;
	}
	bad0 = kc_bad(rx, from, MSG0_LEN, SEED(peer, 0));
	bad1 = kc_bad(rx + SLOT, 0, MSG1_LEN, SEED(peer, 1));
	check(t, bad0 < 0 && bad1 < 0,
	      "%s: every byte of the %s's SEND (%d) and SEND_WITH_IMM (%d) is right (first bad byte %d, %d)",
	      ep->name, peer == SERVER ? "server" : "client", MSG0_LEN,
	      MSG1_LEN, bad0, bad1);
	return 0;
}

/* The server sends its area, then its SEND_WITH_IMM. */
static int kc_server_send(struct kc *t)
{
	struct kc_ep *s = &t->ep[SERVER];
	int ret;

	kc_fill_messages(s);
	ret = kc_post_send(s, 0, IB_WR_SEND, TX_OFF, MSG0_LEN, 0, 0);
	ret = ret ?: kc_post_send(s, 1, IB_WR_SEND_WITH_IMM, TX_OFF + SLOT,
				  MSG1_LEN, 0, 0);
	if (!check(t, !ret, "server: SEND and SEND_WITH_IMM posted (%d)", ret))
		return -EIO;
	return 0;
}

/*
 * The client receives the server's messages, then sends its own: a SEND,
 * the RDMA WRITE into the server's area and a SEND_WITH_IMM, which the
 * server receives after the WRITE's data is in place.
 */
static int kc_client_exchange(struct kc *t)
{
	struct kc_ep *c = &t->ep[CLIENT];
	u64 raddr;
	u32 rkey;
	int ret;

	ret = kc_receive(t, c);
	if (ret)
		return ret;
	raddr = be64_to_cpu(c->adv.addr) + WR_OFF;
	rkey = be32_to_cpu(c->adv.rkey);
	kc_fill_messages(c);
	ret = kc_post_send(c, 0, IB_WR_SEND, TX_OFF, MSG0_LEN, 0, 0);
	ret = ret ?: kc_post_send(c, 1, IB_WR_RDMA_WRITE, MR_OFF, WR_LEN, raddr,
				  rkey);
	ret = ret ?: kc_post_send(c, 2, IB_WR_SEND_WITH_IMM, TX_OFF + SLOT,
				  MSG1_LEN, 0, 0);
	if (!check(t, !ret,
		   "client: SEND, RDMA WRITE of %d bytes to %#llx rkey %#x, SEND_WITH_IMM posted (%d)",
		   WR_LEN, raddr, rkey, ret))
		return -EIO;
	if (!kc_wc(t, c, &c->tx[0], "SEND", IB_WC_SUCCESS, IB_WC_SEND, 0, 0) ||
	    !kc_wc(t, c, &c->tx[1], "RDMA WRITE", IB_WC_SUCCESS,
		   IB_WC_RDMA_WRITE, 0, 0) ||
	    !kc_wc(t, c, &c->tx[2], "SEND_WITH_IMM", IB_WC_SUCCESS,
		   IB_WC_SEND, 0, 0))
		return -EIO;
	return 0;
}

static int kc_server_verify(struct kc *t)
{
	struct kc_ep *s = &t->ep[SERVER];
	u8 *area = s->buf + MR_OFF;
	int bad, before, after;

	if (!kc_wc(t, s, &s->tx[0], "SEND", IB_WC_SUCCESS, IB_WC_SEND, 0, 0) ||
	    !kc_wc(t, s, &s->tx[1], "SEND_WITH_IMM", IB_WC_SUCCESS,
		   IB_WC_SEND, 0, 0))
		return -EIO;
	if (kc_receive(t, s))
		return -EIO;
	/* The client's SEND_WITH_IMM, received, came after its WRITE. */
	bad = kc_bad(area + WR_OFF, 0, WR_LEN, SEED_WRITE);
	before = kc_bad_guard(area, 0, WR_OFF);
	after = kc_bad_guard(area, WR_OFF + WR_LEN, MR_LEN);
	check(t, bad < 0 && before < 0 && after < 0,
	      "server: the client's RDMA WRITE put every byte of %d at offset %d and nothing around (first bad byte %d, guard %d, %d)",
	      WR_LEN, WR_OFF, bad, before, after);
	return 0;
}

static int kc_client_disconnect(struct kc *t)
{
	int ret = rdma_disconnect(t->ep[CLIENT].id);

	if (!check(t, !ret, "client: rdma_disconnect (%d)", ret))
		return -EIO;
	return 0;
}

/* The server sees the DREQ as DISCONNECTED and answers it. */
static int kc_server_disconnect(struct kc *t)
{
	struct kc_ep *s = &t->ep[SERVER];
	int ret;

	if (!kc_event(t, s, RDMA_CM_EVENT_DISCONNECTED, WAIT_MS))
		return -EIO;
	check(t, s->requests == 1, "server: exactly one CONNECT_REQUEST (%d)",
	      s->requests);
	ret = rdma_disconnect(s->id);
	if (!check(t, !ret, "server: rdma_disconnect (%d)", ret))
		return -EIO;
	return 0;
}

static int kc_client_disconnected(struct kc *t)
{
	if (!kc_event(t, &t->ep[CLIENT], RDMA_CM_EVENT_DISCONNECTED, WAIT_MS))
		return -EIO;
	return 0;
}

/* Disconnecting moved each QP to ERR: its spare receive is flushed. */
static int kc_flushed(struct kc *t)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct kc_ep *ep = &t->ep[i];

		if (t->roles & BIT(i))
			kc_wc(t, ep, &ep->rx[NR_RX - 1], "spare receive",
			      IB_WC_WR_FLUSH_ERR, 0, 0, 0);
	}
	return 0;
}

static const struct kc_step {
	int (*run)(struct kc *t);
	unsigned int roles;
} kc_steps[] = {
	{ kc_listen, ROLE_SERVER },
	{ kc_connect, ROLE_CLIENT },
	{ kc_accept, ROLE_SERVER },
	{ kc_client_established, ROLE_CLIENT },
	{ kc_server_established, ROLE_SERVER },
	{ kc_server_send, ROLE_SERVER },
	{ kc_client_exchange, ROLE_CLIENT },
	{ kc_server_verify, ROLE_SERVER },
	{ kc_client_disconnect, ROLE_CLIENT },
	{ kc_server_disconnect, ROLE_SERVER },
	{ kc_client_disconnected, ROLE_CLIENT },
	{ kc_flushed, ROLE_SERVER | ROLE_CLIENT },
};

/*
 * QPs first (rdma_destroy_qp), then the ids (the listener before the
 * server's child: after it no handler can set one), CQs, buffers, PDs.
 */
static void kc_teardown(struct kc *t)
{
	struct rdma_cm_id *id;
	int i;

	for (i = 0; i < 2; i++) {
		struct kc_ep *ep = &t->ep[i];

		if (ep->id && ep->id->qp)
			rdma_destroy_qp(ep->id);
	}
	for (i = 0; i < 2; i++) {
		struct kc_ep *ep = &t->ep[i];

		if (ep->listen)
			rdma_destroy_id(ep->listen);
		spin_lock(&ep->lock);
		id = ep->id;
		ep->id = NULL;
		spin_unlock(&ep->lock);
		if (id)
			rdma_destroy_id(id);
	}
	for (i = 0; i < 2; i++) {
		struct kc_ep *ep = &t->ep[i];

		if (ep->cq)
			ib_free_cq(ep->cq);
		if (ep->mapped)
			ib_dma_unmap_single(ep->dev, ep->dma, BUF_SIZE,
					    DMA_BIDIRECTIONAL);
		kfree(ep->buf);
		if (ep->pd)
			ib_dealloc_pd(ep->pd);
	}
}

static int kc_sockaddr(struct sockaddr_in *sin, const char *ip)
{
	if (!ip || !in4_pton(ip, -1, (u8 *)&sin->sin_addr.s_addr, '\0', NULL))
		return -EINVAL;
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	return 0;
}

static int kc_parse(struct kc *t)
{
	if (!role || !strcmp(role, "both"))
		t->roles = ROLE_SERVER | ROLE_CLIENT;
	else if (!strcmp(role, "server"))
		t->roles = ROLE_SERVER;
	else if (!strcmp(role, "client"))
		t->roles = ROLE_CLIENT;
	else
		return -EINVAL;
	if (kc_sockaddr(&t->local, addr))
		return -EINVAL;
	/* Without a server here, the client connects to peer. */
	return kc_sockaddr(&t->remote,
			   t->roles & ROLE_SERVER ? addr : peer);
}

static int __init kc_init(void)
{
	struct kc *t;
	int i, ret, failed;

	t = kzalloc_obj(*t, GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	if (kc_parse(t)) {
		pr_info("not ok - parameters: addr=A.B.C.D (this host), role=both|server|client, peer=A.B.C.D with role=client\n");
		kfree(t);
		return -EINVAL;
	}
	for (i = 0; i < 2; i++) {
		struct kc_ep *ep = &t->ep[i];

		ep->name = i == SERVER ? "server" : "client";
		ep->side = i;
		ep->last = -1;
		spin_lock_init(&ep->lock);
		init_waitqueue_head(&ep->wq);
	}
	if (t->roles & ROLE_SERVER)
		pr_info("# listener on %pISpc\n", &t->local);
	if (t->roles & ROLE_CLIENT)
		pr_info("# client from %pI4 to %pISpc\n", &t->local.sin_addr,
			&t->remote);

	for (i = 0; i < ARRAY_SIZE(kc_steps); i++) {
		if (!(kc_steps[i].roles & t->roles))
			continue;
		ret = kc_steps[i].run(t);
		if (ret) {
			/* A step that stops the test has failed a check. */
			if (!t->failed)
				check(t, false, "step %d stopped (%d)", i, ret);
			break;
		}
	}
	kc_teardown(t);
	failed = t->failed;
	kfree(t);
	pr_info("# %d check(s) failed\n", failed);
	return failed ? -EIO : 0;
}

static void __exit kc_exit(void)
{
}

module_init(kc_init);
module_exit(kc_exit);
MODULE_DESCRIPTION("qrnic rdma_cm kernel consumer self-test");
MODULE_LICENSE("GPL");
