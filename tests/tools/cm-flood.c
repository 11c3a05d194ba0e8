// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cm-flood: many RC connections through rdma_cm (RDMA_PS_TCP) between two
 * hosts, each carrying one message each way.
 *
 *   server:  cm-flood -s -n N [-c] [-b ADDR] [-p PORT] [-S SIZE] [-t SECS]
 *   client:  cm-flood -a SERVER -n N (-c [-w W] | -l) [-b ADDR] [-p PORT] ...
 *
 * -c: the client opens N connections and holds them all at once; once all
 * are established each sends one message and the server answers it on the
 * same connection; then all are disconnected.  -l: N times in a row, one
 * connection is set up, carries one message each way and is torn down;
 * the client prints connections per second and what each step took.
 * Every message's bytes are checked at both ends (the answer is a pattern
 * of the client's index, which travels in the connection's private data).
 * Prints "ok - ..." / "not ok - ..." lines and "# ..." notes; exits 0 only
 * if every check passed, 1 otherwise (also after -t seconds, saying where
 * the connections were), 2 for usage errors.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define FLOOD_MAGIC 0x636d666cu	/* "cmfl" */
#define RESOLVE_MS 5000

/* What a client sends in its connection request's private data. */
struct flood_hello {
	uint32_t magic;
	uint32_t idx;
	uint32_t count;
};

enum conn_state {
	CS_IDLE,
	CS_ADDR,	/* rdma_resolve_addr issued */
	CS_ROUTE,	/* rdma_resolve_route issued */
	CS_CONNECTING,	/* rdma_connect issued, or (server) accepted */
	CS_ESTABLISHED,
	CS_DISCONNECTING,
	CS_DONE,
	CS_NUM
};

static const char *const state_name[CS_NUM] = {
	[CS_IDLE] = "not started",
	[CS_ADDR] = "resolving the address",
	[CS_ROUTE] = "resolving the route",
	[CS_CONNECTING] = "connecting",
	[CS_ESTABLISHED] = "established",
	[CS_DISCONNECTING] = "disconnecting",
	[CS_DONE] = "done",
};

/* The moments a client records per connection (loop mode's figures). */
enum conn_time {
	T_START,	/* before rdma_resolve_addr */
	T_ADDR,		/* ADDR_RESOLVED */
	T_ROUTE,	/* ROUTE_RESOLVED */
	T_QP,		/* QP created, receive posted: rdma_connect next */
	T_EST,		/* ESTABLISHED */
	T_SENT,		/* the message posted */
	T_MSG,		/* both the send's and the answer's completions */
	T_DISC,		/* before rdma_disconnect */
	T_GONE,		/* DISCONNECTED */
	T_END,		/* QP and id destroyed */
	T_NUM
};

struct conn {
	struct rdma_cm_id *id;
	enum conn_state state;
	uint32_t idx;		/* the client's index (server: from the hello) */
	int recv_done, send_done;
	double t[T_NUM];
};

struct flood {
	/* options */
	int server, concurrent, loop, verbose;
	int n, window;
	size_t size;
	const char *peer, *bind_addr, *port;
	double limit;

	double start, deadline;
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct conn *conns;
	uint8_t *seen;		/* server: client indexes already connected */
	struct sockaddr_storage dst, src;

	int started;		/* connections begun (server: requests taken) */
	int established;	/* connections that were established */
	int live;		/* ids held */
	int peak;		/* most established at once */
	int msgs_done, done;
	int sends_posted, flushed_replies;
	int failed;
	double t_all_est, t_all_msg, t_all_done;	/* concurrent phases */
	double qp_sum, accept_sum;			/* server: seconds in calls */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void line(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

static void ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ok(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line("ok - ", fmt, ap);
	va_end(ap);
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	line("# ", fmt, ap);
	va_end(ap);
}

/* A failed check: the run stops at the next turn of the event loop. */
static void fail(struct flood *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct flood *f, const char *fmt, ...)
{
	va_list ap;

	f->failed++;
	va_start(ap, fmt);
	line(f->server ? "not ok - cm-flood server: " : "not ok - cm-flood: ", fmt, ap);
	va_end(ap);
}

static const char *who(const struct flood *f)
{
	return f->server ? "cm-flood server" : "cm-flood";
}

/* Byte j of the message for seed: client messages use 2 * idx + 1,
 * answers 2 * idx + 2, so a message that went to the wrong connection
 * or came back unchanged does not pass. */
static uint8_t pattern(uint32_t seed, size_t j)
{
	uint32_t x = seed * 2654435761u + (uint32_t)j * 40503u + 0x9e37u;

	x ^= x >> 15;
	x *= 2246822519u;
	x ^= x >> 13;
	return x;
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t j;

	for (j = 0; j < len; j++)
		p[j] = pattern(seed, j);
}

/* The offset of the first byte that differs from the pattern, or -1. */
static long mismatch(const uint8_t *p, size_t len, uint32_t seed)
{
	size_t j;

	for (j = 0; j < len; j++)
		if (p[j] != pattern(seed, j))
			return j;
	return -1;
}

static uint8_t *send_buf(struct flood *f, int slot)
{
	return f->buf + (size_t)slot * 2 * f->size;
}

static uint8_t *recv_buf(struct flood *f, int slot)
{
	return send_buf(f, slot) + f->size;
}

static int slot_of(struct flood *f, struct conn *c)
{
	return c - f->conns;
}

/* PD, CQ (with its completion channel) and one MR for every slot's two
 * buffers, made once the first id tells which device carries them. */
static int resources(struct flood *f, struct ibv_context *verbs)
{
	size_t len = (size_t)f->n * 2 * f->size;
	int cqe = 2 * f->n + 16;

	if (f->verbs) {
		if (verbs != f->verbs) {
			fail(f, "a connection came on another device (%s) than the first (%s)",
			     ibv_get_device_name(verbs->device),
			     ibv_get_device_name(f->verbs->device));
			return -1;
		}
		return 0;
	}
	f->verbs = verbs;
	f->pd = ibv_alloc_pd(verbs);
	if (!f->pd) {
		fail(f, "ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	f->cc = ibv_create_comp_channel(verbs);
	if (!f->cc) {
		fail(f, "ibv_create_comp_channel: %s", strerror(errno));
		return -1;
	}
	fcntl(f->cc->fd, F_SETFL, fcntl(f->cc->fd, F_GETFL) | O_NONBLOCK);
	f->cq = ibv_create_cq(verbs, cqe, NULL, f->cc, 0);
	if (!f->cq) {
		fail(f, "ibv_create_cq of %d entries: %s", cqe, strerror(errno));
		return -1;
	}
	if (ibv_req_notify_cq(f->cq, 0)) {
		fail(f, "ibv_req_notify_cq: %s", strerror(errno));
		return -1;
	}
	f->mr = ibv_reg_mr(f->pd, f->buf, len, IBV_ACCESS_LOCAL_WRITE);
	if (!f->mr) {
		fail(f, "ibv_reg_mr of %zu bytes: %s", len, strerror(errno));
		return -1;
	}
	if (f->verbose)
		diag("%s: device %s, CQ of %d entries, %zu bytes registered", who(f),
		     ibv_get_device_name(verbs->device), cqe, len);
	return 0;
}

/* The QP of a connection, its receive posted before anything can arrive. */
static int conn_qp(struct flood *f, struct conn *c)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = f->cq,
		.recv_cq = f->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	int slot = slot_of(f, c);
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(f, slot),
		.length = f->size,
		.lkey = f->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)slot << 1, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	int ret;

	if (rdma_create_qp(c->id, f->pd, &attr)) {
		fail(f, "rdma_create_qp for connection %u (%d established, %d QPs held): %s",
		     c->idx, f->established - f->done, f->live, strerror(errno));
		return -1;
	}
	memset(recv_buf(f, slot), 0, f->size);
	ret = ibv_post_recv(c->id->qp, &wr, &bad);
	if (ret) {
		fail(f, "ibv_post_recv on connection %u: %s", c->idx, strerror(ret));
		return -1;
	}
	return 0;
}

static int conn_send(struct flood *f, struct conn *c, uint32_t seed)
{
	int slot = slot_of(f, c);
	struct ibv_sge sge = {
		.addr = (uintptr_t)send_buf(f, slot),
		.length = f->size,
		.lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uint64_t)slot << 1 | 1,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;
	int ret;

	fill(send_buf(f, slot), f->size, seed);
	ret = ibv_post_send(c->id->qp, &wr, &bad);
	if (ret) {
		fail(f, "ibv_post_send on connection %u: %s", c->idx, strerror(ret));
		return -1;
	}
	c->t[T_SENT] = now_s();
	f->sends_posted++;
	return 0;
}

static int conn_disconnect(struct flood *f, struct conn *c)
{
	c->t[T_DISC] = now_s();
	c->state = CS_DISCONNECTING;
	if (rdma_disconnect(c->id)) {
		fail(f, "rdma_disconnect of connection %u: %s", c->idx, strerror(errno));
		return -1;
	}
	return 0;
}

static void conn_destroy(struct flood *f, struct conn *c)
{
	rdma_destroy_qp(c->id);
	if (rdma_destroy_id(c->id))
		fail(f, "rdma_destroy_id of connection %u: %s", c->idx, strerror(errno));
	c->id = NULL;
	c->state = CS_DONE;
	c->t[T_END] = now_s();
	f->live--;
	f->done++;
}

/* Both completions of a connection are in: the client's message went out
 * and the server's answer came back (client), or the message came and the
 * answer went out (server). */
static void conn_msg_done(struct flood *f, struct conn *c)
{
	c->t[T_MSG] = now_s();
	f->msgs_done++;
	if (f->server)
		return;
	if (f->msgs_done == f->n)
		f->t_all_msg = c->t[T_MSG];
	if (f->loop)
		conn_disconnect(f, c);
}

static void completion(struct flood *f, const struct ibv_wc *wc)
{
	int slot = wc->wr_id >> 1, is_send = wc->wr_id & 1;
	struct conn *c;
	long bad;

	if (slot < 0 || slot >= f->n) {
		fail(f, "a completion with an unknown wr_id %#llx", (unsigned long long)wc->wr_id);
		return;
	}
	c = &f->conns[slot];
	if (wc->status != IBV_WC_SUCCESS) {
		/* The server's answer may be flushed when the client's DREQ
		 * overtakes its ACK; the client checks the answer's bytes. */
		if (f->server && is_send && wc->status == IBV_WC_WR_FLUSH_ERR && c->recv_done) {
			f->flushed_replies++;
			c->send_done = 1;
			conn_msg_done(f, c);
			if (c->state == CS_DISCONNECTING)
				conn_destroy(f, c);
			return;
		}
		fail(f, "connection %u: the %s completed with %s (vendor_err %#x)", c->idx,
		     is_send ? "send" : "receive", ibv_wc_status_str(wc->status), wc->vendor_err);
		return;
	}
	if (is_send) {
		if (wc->opcode != IBV_WC_SEND) {
			fail(f, "connection %u: send completion opcode %d", c->idx, wc->opcode);
			return;
		}
		c->send_done = 1;
	} else {
		uint32_t seed = f->server ? 2 * c->idx + 1 : 2 * c->idx + 2;

		if (wc->opcode != IBV_WC_RECV || wc->byte_len != f->size) {
			fail(f, "connection %u: receive completion opcode %d, %u bytes (want %zu)",
			     c->idx, wc->opcode, wc->byte_len, f->size);
			return;
		}
		bad = mismatch(recv_buf(f, slot), f->size, seed);
		if (bad >= 0) {
			fail(f, "connection %u: the %s's byte %ld is %#x, want %#x", c->idx,
			     f->server ? "message" : "answer", bad, recv_buf(f, slot)[bad],
			     pattern(seed, bad));
			return;
		}
		c->recv_done = 1;
		/* The server answers on the same connection. */
		if (f->server && conn_send(f, c, 2 * c->idx + 2))
			return;
	}
	if (c->recv_done && c->send_done) {
		conn_msg_done(f, c);
		if (f->server && c->state == CS_DISCONNECTING)
			conn_destroy(f, c);
	}
}

static void poll_cq(struct flood *f)
{
	struct ibv_wc wc[32];
	int i, n;

	if (!f->cq)
		return;
	while ((n = ibv_poll_cq(f->cq, 32, wc)) > 0)
		for (i = 0; i < n; i++)
			completion(f, &wc[i]);
	if (n < 0)
		fail(f, "ibv_poll_cq: %d", n);
}

static void cq_event(struct flood *f)
{
	struct ibv_cq *cq;
	unsigned int n = 0;
	void *ctx;

	/* Take the events, arm once, then poll: a device may signal again
	 * at once when armed with completions not yet polled. */
	while (!ibv_get_cq_event(f->cc, &cq, &ctx))
		n++;
	if (n) {
		ibv_ack_cq_events(f->cq, n);
		if (ibv_req_notify_cq(f->cq, 0))
			fail(f, "ibv_req_notify_cq: %s", strerror(errno));
	}
	poll_cq(f);
}

/* ---- client ---- */

static void client_start(struct flood *f)
{
	struct conn *c = &f->conns[f->started];

	c->idx = f->started++;
	c->t[T_START] = now_s();
	if (rdma_create_id(f->ch, &c->id, c, RDMA_PS_TCP)) {
		fail(f, "rdma_create_id for connection %u (%d held): %s", c->idx, f->live,
		     strerror(errno));
		return;
	}
	f->live++;
	c->state = CS_ADDR;
	if (rdma_resolve_addr(c->id, f->bind_addr ? (struct sockaddr *)&f->src : NULL,
			      (struct sockaddr *)&f->dst, RESOLVE_MS))
		fail(f, "rdma_resolve_addr for connection %u: %s", c->idx, strerror(errno));
}

/* Begin connections: in loop mode the next once the last is gone, else
 * until W are being set up at once. */
static void client_pump(struct flood *f)
{
	int setting_up;

	while (!f->failed && f->started < f->n) {
		setting_up = f->started - f->established;
		if (f->loop ? f->started > f->done : setting_up >= f->window)
			break;
		client_start(f);
	}
}

static void client_connect(struct flood *f, struct conn *c)
{
	struct flood_hello hello = {
		.magic = htonl(FLOOD_MAGIC),
		.idx = htonl(c->idx),
		.count = htonl(f->n),
	};
	struct rdma_conn_param param = {
		.private_data = &hello,
		.private_data_len = sizeof(hello),
		.retry_count = 6,
		.rnr_retry_count = 7,
	};

	if (resources(f, c->id->verbs) || conn_qp(f, c))
		return;
	c->t[T_QP] = now_s();
	c->state = CS_CONNECTING;
	if (rdma_connect(c->id, &param))
		fail(f, "rdma_connect of connection %u: %s", c->idx, strerror(errno));
}

static void client_event(struct flood *f, struct conn *c, enum rdma_cm_event_type type,
			 int status)
{
	double t = now_s();
	int i;

	switch (type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		c->t[T_ADDR] = t;
		c->state = CS_ROUTE;
		if (rdma_resolve_route(c->id, RESOLVE_MS))
			fail(f, "rdma_resolve_route for connection %u: %s", c->idx,
			     strerror(errno));
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		c->t[T_ROUTE] = t;
		client_connect(f, c);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		c->t[T_EST] = t;
		c->state = CS_ESTABLISHED;
		f->established++;
		if (f->established - f->done > f->peak)
			f->peak = f->established - f->done;
		if (f->verbose && f->concurrent && f->established % 100 == 0)
			diag("cm-flood: %d established after %.1f s", f->established,
			     t - f->start);
		if (f->loop) {
			conn_send(f, c, 2 * c->idx + 1);
			break;
		}
		if (f->established < f->n)
			break;
		/* All held at once: now each carries its message. */
		f->t_all_est = t;
		for (i = 0; i < f->n && !f->failed; i++)
			conn_send(f, &f->conns[i], 2 * i + 1);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (c->state != CS_DISCONNECTING) {
			fail(f, "connection %u was disconnected by the server while %s", c->idx,
			     state_name[c->state]);
			break;
		}
		c->t[T_GONE] = t;
		conn_destroy(f, c);
		if (f->done == f->n)
			f->t_all_done = now_s();
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		fail(f, "connection %u got %s (status %d%s%s) while %s (%d established, %d held)",
		     c->idx, rdma_event_str(type), status, status < 0 ? ": " : "",
		     status < 0 ? strerror(-status) : "", state_name[c->state],
		     f->established - f->done, f->live);
		break;
	}
}

/* ---- server ---- */

static void server_request(struct flood *f, struct rdma_cm_id *id, const void *pdata,
			   uint8_t plen)
{
	struct flood_hello hello;
	struct rdma_conn_param param = { .rnr_retry_count = 7 };
	struct conn *c;
	double t;

	memset(&hello, 0, sizeof(hello));
	memcpy(&hello, pdata, plen < sizeof(hello) ? plen : sizeof(hello));
	if (plen < sizeof(hello) || ntohl(hello.magic) != FLOOD_MAGIC ||
	    ntohl(hello.idx) >= (uint32_t)f->n || ntohl(hello.count) != (uint32_t)f->n) {
		fail(f, "a connection request without a valid hello (%u bytes of private data, "
		     "index %u of %u; the server expects %d)", plen, ntohl(hello.idx),
		     ntohl(hello.count), f->n);
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	if (f->started >= f->n || f->seen[ntohl(hello.idx)]) {
		fail(f, "connection request %d (client index %u%s): more than -n %d",
		     f->started + 1, ntohl(hello.idx),
		     f->seen[ntohl(hello.idx)] ? ", seen before" : "", f->n);
		rdma_reject(id, NULL, 0);
		rdma_destroy_id(id);
		return;
	}
	c = &f->conns[f->started++];
	c->idx = ntohl(hello.idx);
	f->seen[c->idx] = 1;
	c->id = id;
	id->context = c;
	f->live++;
	if (resources(f, id->verbs))
		return;
	t = now_s();
	if (conn_qp(f, c))
		return;
	f->qp_sum += now_s() - t;
	c->state = CS_CONNECTING;
	t = now_s();
	if (rdma_accept(id, &param)) {
		fail(f, "rdma_accept of connection %u (%d established): %s", c->idx,
		     f->established - f->done, strerror(errno));
		return;
	}
	f->accept_sum += now_s() - t;
}

static void server_event(struct flood *f, struct conn *c, enum rdma_cm_event_type type,
			 int status)
{
	switch (type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		c->state = CS_ESTABLISHED;
		f->established++;
		if (f->established - f->done > f->peak)
			f->peak = f->established - f->done;
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		/* Sends the DREP; the client waits for it. */
		rdma_disconnect(c->id);
		/* Completions the disconnect may have overtaken. */
		poll_cq(f);
		if (!c->recv_done) {
			fail(f, "connection %u was disconnected before its message came", c->idx);
			return;
		}
		/* The client disconnects once it has the answer, but the
		 * answer's own completion (its ACK, or the flush of the QP
		 * the disconnect put in error) may come after the DREQ:
		 * completion() then destroys the connection. */
		c->state = CS_DISCONNECTING;
		if (c->send_done)
			conn_destroy(f, c);
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		fail(f, "connection %u got %s (status %d%s%s) while %s (%d established)", c->idx,
		     rdma_event_str(type), status, status < 0 ? ": " : "",
		     status < 0 ? strerror(-status) : "", state_name[c->state],
		     f->established - f->done);
		break;
	}
}

static void cm_events(struct flood *f)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type type;
	struct rdma_cm_id *id, *listen;
	uint8_t pdata[256], plen;
	int status;

	while (!f->failed && !rdma_get_cm_event(f->ch, &ev)) {
		/* Acknowledge first: rdma_destroy_id waits for every event of
		 * its id to be acknowledged. */
		type = ev->event;
		status = ev->status;
		id = ev->id;
		listen = ev->listen_id;
		plen = ev->param.conn.private_data_len;
		if (plen && type == RDMA_CM_EVENT_CONNECT_REQUEST)
			memcpy(pdata, ev->param.conn.private_data, plen);
		rdma_ack_cm_event(ev);
		if (f->server && type == RDMA_CM_EVENT_CONNECT_REQUEST && listen)
			server_request(f, id, pdata, plen);
		else if (!id->context)
			fail(f, "the listening id got %s (status %d)", rdma_event_str(type),
			     status);
		else if (f->server)
			server_event(f, id->context, type, status);
		else
			client_event(f, id->context, type, status);
	}
	if (!f->failed && errno != EAGAIN)
		fail(f, "rdma_get_cm_event: %s", strerror(errno));
}

/* ---- the run ---- */

/* Where every connection is, for a timeout's message. */
static void report_states(struct flood *f)
{
	int count[CS_NUM] = { 0 }, i;
	char text[512];
	size_t len = 0;

	for (i = 0; i < f->n; i++)
		count[f->conns[i].state]++;
	for (i = 0; i < CS_NUM; i++)
		if (count[i])
			len += snprintf(text + len, sizeof(text) - len, "%s%d %s",
					len ? ", " : "", count[i], state_name[i]);
	diag("%s: connections: %s; messages done %d of %d, sends posted %d", who(f), text,
	     f->msgs_done, f->n, f->sends_posted);
}

static int run(struct flood *f)
{
	struct pollfd pfd[2];
	int disconnecting = 0, ms, i, nfd;

	f->start = now_s();
	f->deadline = f->start + f->limit;
	while (!f->failed && f->done < f->n) {
		if (!f->server)
			client_pump(f);
		/* Concurrent mode: every message done, every connection
		 * still held: disconnect them all. */
		if (f->concurrent && !f->server && !disconnecting && f->msgs_done == f->n) {
			disconnecting = 1;
			for (i = 0; i < f->n && !f->failed; i++)
				conn_disconnect(f, &f->conns[i]);
		}
		if (f->failed)
			break;
		ms = (f->deadline - now_s()) * 1000;
		if (ms <= 0) {
			fail(f, "timed out after %.0f s (-t): %d of %d connections begun, "
			     "%d established (peak %d at once), %d messages each way, "
			     "%d disconnected", f->limit, f->started, f->n, f->established,
			     f->peak, f->msgs_done, f->done);
			report_states(f);
			return 1;
		}
		pfd[0].fd = f->ch->fd;
		pfd[0].events = POLLIN;
		nfd = 1;
		if (f->cc) {
			pfd[1].fd = f->cc->fd;
			pfd[1].events = POLLIN;
			nfd = 2;
		}
		if (poll(pfd, nfd, ms > 1000 ? 1000 : ms) < 0 && errno != EINTR) {
			fail(f, "poll: %s", strerror(errno));
			break;
		}
		cm_events(f);
		if (f->cc && !f->failed)
			cq_event(f);
	}
	if (f->failed) {
		report_states(f);
		return 1;
	}
	return 0;
}

static double ms_mean(struct flood *f, enum conn_time a, enum conn_time b)
{
	double sum = 0;
	int i;

	for (i = 0; i < f->n; i++)
		sum += f->conns[i].t[b] - f->conns[i].t[a];
	return sum * 1000 / f->n;
}

static double ms_max(struct flood *f, enum conn_time a, enum conn_time b)
{
	double m = 0, d;
	int i;

	for (i = 0; i < f->n; i++) {
		d = f->conns[i].t[b] - f->conns[i].t[a];
		if (d > m)
			m = d;
	}
	return m * 1000;
}

static void report(struct flood *f)
{
	double end = now_s();

	if (f->server) {
		ok("cm-flood server: %d connections accepted, each client index once, "
		   "peak %d established at once", f->n, f->peak);
		if (f->concurrent && f->peak != f->n)
			fail(f, "-c: only %d of %d connections were established at once",
			     f->peak, f->n);
		ok("cm-flood server: %d messages checked and answered, %d disconnected%s", f->n,
		   f->done, f->flushed_replies ? " (some answers' completions flushed by the "
		   "disconnect)" : "");
		if (f->flushed_replies)
			diag("cm-flood server: %d answers' send completions were flushed",
			     f->flushed_replies);
		diag("cm-flood server: per connection: rdma_create_qp %.2f ms, rdma_accept "
		     "%.2f ms (means)", f->qp_sum * 1000 / f->n, f->accept_sum * 1000 / f->n);
		return;
	}
	if (f->concurrent) {
		ok("cm-flood: %d connections established and held at once (%d set up at a "
		   "time) in %.2f s: %.1f conns/s", f->n, f->window, f->t_all_est - f->start,
		   f->n / (f->t_all_est - f->start));
		ok("cm-flood: a %zu-byte message each way on each of the %d connections, "
		   "every byte checked, in %.2f s", f->size, f->n, f->t_all_msg - f->t_all_est);
		ok("cm-flood: %d connections disconnected and destroyed in %.2f s", f->n,
		   f->t_all_done - f->t_all_msg);
		diag("cm-flood: per connection (ms, mean / max): resolve_addr %.1f / %.1f, "
		     "resolve_route %.1f / %.1f, create_qp %.1f / %.1f, connect %.1f / %.1f",
		     ms_mean(f, T_START, T_ADDR), ms_max(f, T_START, T_ADDR),
		     ms_mean(f, T_ADDR, T_ROUTE), ms_max(f, T_ADDR, T_ROUTE),
		     ms_mean(f, T_ROUTE, T_QP), ms_max(f, T_ROUTE, T_QP),
		     ms_mean(f, T_QP, T_EST), ms_max(f, T_QP, T_EST));
		diag("cm-flood: total %.2f s", end - f->start);
		return;
	}
	ok("cm-flood: %d connect, message, disconnect cycles in %.2f s: %.2f conns/s",
	   f->n, end - f->start, f->n / (end - f->start));
	diag("cm-flood: per cycle (ms, mean / max): resolve_addr %.1f / %.1f, "
	     "resolve_route %.1f / %.1f, create_qp %.1f / %.1f, connect %.1f / %.1f, "
	     "message %.1f / %.1f, disconnect %.1f / %.1f, destroy %.1f / %.1f",
	     ms_mean(f, T_START, T_ADDR), ms_max(f, T_START, T_ADDR),
	     ms_mean(f, T_ADDR, T_ROUTE), ms_max(f, T_ADDR, T_ROUTE),
	     ms_mean(f, T_ROUTE, T_QP), ms_max(f, T_ROUTE, T_QP),
	     ms_mean(f, T_QP, T_EST), ms_max(f, T_QP, T_EST),
	     ms_mean(f, T_SENT, T_MSG), ms_max(f, T_SENT, T_MSG),
	     ms_mean(f, T_DISC, T_GONE), ms_max(f, T_DISC, T_GONE),
	     ms_mean(f, T_GONE, T_END), ms_max(f, T_GONE, T_END));
}

static int get_addr(const char *host, const char *port, struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *res;
	int ret;

	ret = getaddrinfo(host, port, &hints, &res);
	if (ret) {
		fprintf(stderr, "cm-flood: %s: %s\n", host, gai_strerror(ret));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static int setup(struct flood *f)
{
	f->ch = rdma_create_event_channel();
	if (!f->ch) {
		fail(f, "rdma_create_event_channel: %s", strerror(errno));
		return -1;
	}
	fcntl(f->ch->fd, F_SETFL, fcntl(f->ch->fd, F_GETFL) | O_NONBLOCK);
	f->conns = calloc(f->n, sizeof(*f->conns));
	f->seen = calloc(f->n, 1);
	if (posix_memalign((void **)&f->buf, 4096, (size_t)f->n * 2 * f->size) ||
	    !f->conns || !f->seen) {
		fail(f, "out of memory for %d connections", f->n);
		return -1;
	}
	memset(f->buf, 0, (size_t)f->n * 2 * f->size);
	if (!f->server)
		return 0;
	if (rdma_create_id(f->ch, &f->listen_id, NULL, RDMA_PS_TCP)) {
		fail(f, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	if (rdma_bind_addr(f->listen_id, (struct sockaddr *)&f->src)) {
		fail(f, "rdma_bind_addr %s port %s: %s", f->bind_addr ? f->bind_addr : "any",
		     f->port, strerror(errno));
		return -1;
	}
	/* 0: as many pending requests as rdma_ucm's max_backlog allows. */
	if (rdma_listen(f->listen_id, 0)) {
		fail(f, "rdma_listen: %s", strerror(errno));
		return -1;
	}
	diag("cm-flood server: listening on %s port %s for %d connections",
	     f->bind_addr ? f->bind_addr : "any address", f->port, f->n);
	return 0;
}

static void usage(FILE *out)
{
	fputs("usage: cm-flood -s -n N [-c] [options]               (server)\n"
	      "       cm-flood -a SERVER -n N (-c [-w W] | -l) [options]  (client)\n"
	      "\n"
	      "RC connections through rdma_cm (port space TCP), each carrying a message\n"
	      "from the client and the server's answer, every byte checked at both ends.\n"
	      "  -s          serve N connections, then exit\n"
	      "  -a SERVER   the server's IPv4 address\n"
	      "  -n N        connections (client and server must give the same)\n"
	      "  -c          N connections at once: all established and held, then a message\n"
	      "              each way on each, then all disconnected (server: check that all\n"
	      "              N were established at once)\n"
	      "  -w W        -c: at most W connections being set up at a time (default N)\n"
	      "  -l          N times: connect, a message each way, disconnect; prints\n"
	      "              connections per second and what each step took (the server\n"
	      "              takes -l too: it then does not check how many were held)\n"
	      "  -b ADDR     local address (server: to listen on; client: the source)\n"
	      "  -p PORT     the server's port (default 18950)\n"
	      "  -S SIZE     message bytes (default 64)\n"
	      "  -t SECONDS  give up after this long, saying where the connections were\n"
	      "              (default 600)\n"
	      "  -v          progress notes\n"
	      "Prints ok/not ok lines; exits 0 only if every check passed.\n", out);
}

int main(int argc, char **argv)
{
	struct flood f = { .port = "18950", .size = 64, .limit = 600 };
	int opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "sa:n:cw:lb:p:S:t:vh")) != -1) {
		switch (opt) {
		case 's': f.server = 1; break;
		case 'a': f.peer = optarg; break;
		case 'n': f.n = atoi(optarg); break;
		case 'c': f.concurrent = 1; break;
		case 'w': f.window = atoi(optarg); break;
		case 'l': f.loop = 1; break;
		case 'b': f.bind_addr = optarg; break;
		case 'p': f.port = optarg; break;
		case 'S': f.size = strtoul(optarg, NULL, 0); break;
		case 't': f.limit = atof(optarg); break;
		case 'v': f.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc || f.n < 1 || f.size < 1 || f.size > 1 << 20 || f.limit <= 0 ||
	    f.server == !!f.peer || (f.concurrent && f.loop) ||
	    (!f.server && !f.concurrent && !f.loop) || f.window < 0) {
		usage(stderr);
		return 2;
	}
	if (!f.window || f.window > f.n)
		f.window = f.n;
	if (f.peer && get_addr(f.peer, f.port, &f.dst))
		return 2;
	if (f.bind_addr && get_addr(f.bind_addr, f.server ? f.port : "0", &f.src))
		return 2;
	if (!f.bind_addr) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&f.src;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(atoi(f.port));
	}
	if (!f.server)
		diag("cm-flood: %d connections to %s port %s, %s", f.n, f.peer, f.port,
		     f.loop ? "one after another" : "held at once");
	if (setup(&f) || run(&f))
		return 1;
	report(&f);
	return f.failed ? 1 : 0;
}
