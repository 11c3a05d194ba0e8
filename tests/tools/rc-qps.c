// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check qps COUNT [READY_FILE GO_FILE]: one user context holds COUNT RC
 * QPs at once.  Each is created with the smallest rings (one WQE each way)
 * on one shared CQ and moved to INIT; while all of them exist, two more
 * QPs connected to each other on this device carry an RDMA WRITE and a
 * SEND whose bytes are checked (the newest QPNs work as the first did).
 * With READY_FILE, it then writes READY_FILE and waits for GO_FILE (so
 * several processes hold theirs at the same time); then every QP is
 * destroyed.  Prints the time each step took per QP (the admin path's
 * cost: create, modify, destroy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc-common.h"

#define CHECK_LEN 4096

static int write_file(const char *path, const char *text)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

static int wait_file(const char *path, double timeout)
{
	double end = now_s() + timeout;

	while (access(path, F_OK)) {
		if (now_s() > end)
			return -1;
		usleep(100000);
	}
	return 0;
}

/* An RDMA WRITE and a SEND between two fresh QPs of this device. */
static int data_check(struct rc_dev *d, int count)
{
	struct rc_qp_params p;
	struct rc_conn a, b;
	struct ibv_mr *mr;
	uint8_t *buf;
	int ret = -1;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	buf = rc_alloc(3 * CHECK_LEN);
	mr = rc_reg(d, buf, 3 * CHECK_LEN, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	rc_default_params(&p);
	if (rc_conn_create(&a, d, "qps-a", &p) || rc_conn_create(&b, d, "qps-b", &p) ||
	    rc_conn_loopback(&a, &b)) {
		not_ok("qps: a connected QP pair beside %d QPs", count);
		goto out;
	}
	pat_fill(buf, CHECK_LEN, a.local.qpn);
	{
		struct ibv_sge sge = { (uintptr_t)buf, CHECK_LEN, mr->lkey };
		struct ibv_sge rsge = { (uintptr_t)buf + 2 * CHECK_LEN, CHECK_LEN, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 }, *rbad;
		struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;
		struct rc_want ww = { 1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0, 0, 0, 0 };
		struct rc_want sw = { 3, IBV_WC_SUCCESS, IBV_WC_SEND, 0, 0, 0, 0 };
		struct rc_want rw = { 2, IBV_WC_SUCCESS, IBV_WC_RECV, 1, CHECK_LEN, 0, 0 };

		wr.wr.rdma.remote_addr = (uintptr_t)buf + CHECK_LEN;
		wr.wr.rdma.rkey = mr->rkey;
		if (ibv_post_recv(b.qp, &rwr, &rbad) || ibv_post_send(a.qp, &wr, &bad) ||
		    rc_expect(a.scq, a.local.qpn, &ww, "qps: WRITE")) {
			not_ok("qps: RDMA WRITE between QPs 0x%x and 0x%x beside %d QPs",
			       a.local.qpn, b.local.qpn, count);
			goto out;
		}
		wr.wr_id = 3;
		wr.opcode = IBV_WR_SEND;
		if (ibv_post_send(a.qp, &wr, &bad) || rc_expect(a.scq, a.local.qpn, &sw, "qps: SEND") ||
		    rc_expect(b.rcq, b.local.qpn, &rw, "qps: RECV")) {
			not_ok("qps: SEND between QPs 0x%x and 0x%x beside %d QPs",
			       a.local.qpn, b.local.qpn, count);
			goto out;
		}
	}
	if (pat_check(buf + CHECK_LEN, CHECK_LEN, a.local.qpn, "qps: WRITE's bytes") ||
	    pat_check(buf + 2 * CHECK_LEN, CHECK_LEN, a.local.qpn, "qps: SEND's bytes")) {
		not_ok("qps: the data the QP pair moved beside %d QPs", count);
		goto out;
	}
	ok("qps: QPs 0x%x and 0x%x, beside %d QPs, carry a %d-byte RDMA WRITE and SEND intact",
	   a.local.qpn, b.local.qpn, count, CHECK_LEN);
	ret = 0;
out:
	rc_conn_destroy(&a);
	rc_conn_destroy(&b);
	ibv_dereg_mr(mr);
	free(buf);
	return ret;
}

static int qpn_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

int mode_qps(int count, const char *ready_file, const char *go_file)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC, .cap = { 1, 1, 1, 1, 0 } };
	struct ibv_qp **qp;
	uint32_t *qpn;
	struct rc_dev d;
	struct ibv_cq *cq;
	double t0, t1, t2, t3;
	int i, made = 0, inited = 0, gone = 0, dup = 0, err = 0;

	qp = calloc(count, sizeof(*qp));
	qpn = calloc(count, sizeof(*qpn));
	if (!qp || !qpn)
		die("qps: no memory for %d QPs", count);
	rc_dev_open(&d);
	cq = ibv_create_cq(d.ctx, 64, NULL, NULL, 0);
	if (!cq)
		die("qps: ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = cq;

	t0 = now_s();
	for (made = 0; made < count; made++) {
		qp[made] = ibv_create_qp(d.pd, &ia);
		if (!qp[made]) {
			err = errno;
			break;
		}
		qpn[made] = qp[made]->qp_num;
	}
	t1 = now_s();
	if (made == count)
		ok("qps: %d RC QPs created in one context, %.0f us each", count,
		   (t1 - t0) * 1e6 / count);
	else
		not_ok("qps: ibv_create_qp failed after %d of %d QPs: %s", made, count,
		       strerror(err));
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	for (inited = 0; inited < made; inited++) {
		if (ibv_modify_qp(qp[inited], &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
			err = errno;
			break;
		}
	}
	t2 = now_s();
	if (made && inited == made)
		ok("qps: all %d moved to INIT, %.0f us each", made, (t2 - t1) * 1e6 / made);
	else if (made)
		not_ok("qps: ibv_modify_qp to INIT failed at QP %d of %d: %s", inited, made,
		       strerror(err));
	qsort(qpn, made, sizeof(*qpn), qpn_cmp);
	for (i = 1; i < made; i++)
		dup += qpn[i] == qpn[i - 1];
	if (dup)
		not_ok("qps: %d QP numbers handed out twice", dup);
	else if (made)
		ok("qps: %d distinct QP numbers, 0x%x..0x%x", made, qpn[0], qpn[made - 1]);
	data_check(&d, made);

	if (ready_file) {
		char text[64];

		snprintf(text, sizeof(text), "%d\n", made);
		if (write_file(ready_file, text))
			not_ok("qps: writing %s: %s", ready_file, strerror(errno));
		if (wait_file(go_file, opt.timeout))
			not_ok("qps: %s did not appear within %.0f s", go_file, opt.timeout);
	}
	t2 = now_s();
	for (i = 0; i < made; i++) {
		if (ibv_destroy_qp(qp[i]))
			err = errno;
		else
			gone++;
	}
	t3 = now_s();
	if (gone == made)
		ok("qps: all %d destroyed, %.0f us each", made, made ? (t3 - t2) * 1e6 / made : 0.0);
	else
		not_ok("qps: ibv_destroy_qp failed for %d of %d QPs: %s", made - gone, made,
		       strerror(err));
	if (ibv_destroy_cq(cq))
		not_ok("qps: ibv_destroy_cq: %s", strerror(errno));
	rc_dev_close(&d);
	free(qp);
	free(qpn);
	return made == count ? 0 : 1;
}
