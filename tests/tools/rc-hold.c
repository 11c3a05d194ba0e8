// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check hold READY_FILE: create a user context with a PD, three CQs (one
 * on a completion channel), three MRs (4 KiB, 64 KiB, 4 MiB) and three QPs
 * (RESET; INIT with receives posted; RTS with sends in flight to a QPN that
 * does not exist on the peer, so they are being retried), write what was
 * created to READY_FILE and sleep until killed.  The test kills it with
 * SIGKILL and checks that the kernel and device free everything.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rc-common.h"

#define FAKE_QPN 0xfffff0

int mode_hold(const char *ready_file)
{
	static const size_t mr_len[3] = { 4096, 65536, 4u << 20 };
	struct rc_dev d;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq[3];
	struct ibv_mr *mr[3];
	struct ibv_qp *qp[3];
	uint8_t *buf[3];
	struct ibv_qp_attr qa;
	char tmp[512], text[256];
	FILE *f;
	int i, j, rts = 0;

	rc_dev_open(&d);
	ch = ibv_create_comp_channel(d.ctx);
	if (!ch)
		die("ibv_create_comp_channel: %s", strerror(errno));
	for (i = 0; i < 3; i++) {
		cq[i] = ibv_create_cq(d.ctx, 64, NULL, i == 2 ? ch : NULL, 0);
		if (!cq[i])
			die("ibv_create_cq: %s", strerror(errno));
	}
	if (ibv_req_notify_cq(cq[2], 0))
		die("ibv_req_notify_cq: %s", strerror(errno));
	for (i = 0; i < 3; i++) {
		buf[i] = rc_alloc(mr_len[i]);
		memset(buf[i], i + 1, mr_len[i]);
		mr[i] = rc_reg(&d, buf[i], mr_len[i], IBV_ACCESS_LOCAL_WRITE |
			       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	}
	for (i = 0; i < 3; i++) {
		struct ibv_qp_init_attr ia = { .send_cq = cq[i], .recv_cq = cq[i], .qp_type = IBV_QPT_RC,
					       .cap = { 16, 16, 1, 1, 0 }, .sq_sig_all = 1 };

		qp[i] = ibv_create_qp(d.pd, &ia);
		if (!qp[i])
			die("ibv_create_qp: %s", strerror(errno));
	}
	/* qp[1], qp[2]: INIT, receives posted. */
	for (i = 1; i < 3; i++) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_INIT;
		qa.port_num = 1;
		qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		if (ibv_modify_qp(qp[i], &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
			die("modify QP to INIT: %s", strerror(errno));
		for (j = 0; j < 8; j++) {
			struct ibv_sge sge = { (uintptr_t)(buf[2] + j * 4096), 4096, mr[2]->lkey };
			struct ibv_recv_wr wr = { .wr_id = j, .sg_list = &sge, .num_sge = 1 }, *bad;

			if (ibv_post_recv(qp[i], &wr, &bad))
				die("ibv_post_recv: %s", strerror(errno));
		}
	}
	/* qp[2]: RTS towards a QPN the peer does not have; with timeout 20
	 * (4.3 s) and retry_cnt 7 its sends are still being retried when the
	 * process is killed. */
	if (opt.peer_ip) {
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTR;
		qa.path_mtu = d.port.active_mtu;
		qa.dest_qp_num = FAKE_QPN;
		qa.rq_psn = 0;
		qa.max_dest_rd_atomic = 1;
		qa.min_rnr_timer = 12;
		qa.ah_attr.is_global = 1;
		if (rc_gid_for_ipv4(opt.peer_ip, &qa.ah_attr.grh.dgid))
			die("bad peer address %s", opt.peer_ip);
		qa.ah_attr.grh.sgid_index = d.gid_idx;
		qa.ah_attr.grh.hop_limit = 64;
		qa.ah_attr.port_num = 1;
		if (ibv_modify_qp(qp[2], &qa, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
			die("modify QP to RTR: %s", strerror(errno));
		memset(&qa, 0, sizeof(qa));
		qa.qp_state = IBV_QPS_RTS;
		qa.timeout = 20;
		qa.retry_cnt = 7;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = 1;
		if (ibv_modify_qp(qp[2], &qa, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
			die("modify QP to RTS: %s", strerror(errno));
		for (j = 0; j < 4; j++) {
			struct ibv_sge sge = { (uintptr_t)(buf[1] + j * 8192), 8192, mr[1]->lkey };
			struct ibv_send_wr wr = { .wr_id = j, .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND }, *bad;

			if (ibv_post_send(qp[2], &wr, &bad))
				die("ibv_post_send: %s", strerror(errno));
		}
		rts = 1;
	}
	snprintf(text, sizeof(text), "ctx 1 pd 1 cq 3 qp 3 mr 3 rts %d pid %d\n", rts, (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", ready_file);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, ready_file))
		die("cannot write %s: %s", ready_file, strerror(errno));
	for (;;)
		pause();
}
