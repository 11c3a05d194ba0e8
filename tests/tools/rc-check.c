// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rc-check: RC verbs checks between two test guests (or one, for "hold").
 * Prints TAP-style "ok - ..." / "not ok - ..." lines and "# ..." notes;
 * exits 0 only if every check passed.  See usage().
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rc-common.h"

struct rc_opts opt = { .gid_idx = -1, .timeout = 60 };

static void usage(FILE *f)
{
	fputs("usage: rc-check [options] MODE [ARG]\n"
	      "\n"
	      "Modes (two guests run the same mode; guest 0 is the requester in errors/gone):\n"
	      "  integrity        every opcode (SEND, SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM,\n"
	      "                   RDMA_READ, ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD), inline data,\n"
	      "                   1-3 SGEs, signalled and unsignalled, post lists, 1 B .. 1 MiB+17,\n"
	      "                   both directions; every byte and completion checked\n"
	      "  errors           bad lkey, stale rkey, rkey without write access, out-of-bounds\n"
	      "                   WRITE/READ, RNR with rnr_retry 0, receive too small; a healthy\n"
	      "                   QP pair carries data after each case\n"
	      "  gone GO_FILE     connect; guest 1 leaves; guest 0 waits for GO_FILE (created once\n"
	      "                   the peer is gone) and expects IBV_WC_RETRY_EXC_ERR\n"
	      "  mw               memory windows, each guest in turn the owner: type 1 (ibv_bind_mw)\n"
	      "                   and type 2 (IBV_WR_BIND_MW) windows carry WRITE/READ; accesses\n"
	      "                   past a window, after unbind, LOCAL_INV, SEND_WITH_INV (the receive\n"
	      "                   reports the rkey) and ibv_dealloc_mw fail with REM_ACCESS_ERR;\n"
	      "                   bad binds fail with MW_BIND_ERR; ibv_dereg_mr of an MR with\n"
	      "                   bound windows fails\n"
	      "  soak             mixed traffic for -D seconds, both guests requester and responder\n"
	      "                   at once: per round (plan drawn from the seed -S, the same in both\n"
	      "                   guests) 1..-q QPs active, about 1 in 5 destroyed and connected\n"
	      "                   anew, up to 12 random operations per QP and direction: SEND,\n"
	      "                   SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ,\n"
	      "                   CMP_AND_SWP, FETCH_AND_ADD of 1 B .. 1 MiB+4 KiB (most below\n"
	      "                   256 B), 3 in 4 signalled; every completion and every byte of both\n"
	      "                   guests' regions (payloads, results, guard and fill bytes) checked;\n"
	      "                   prints the figures (rounds, QPs, operations, bytes checked)\n"
	      "  hold READY_FILE  one guest: create PD, CQs, MRs, QPs (one with sends in flight),\n"
	      "                   write READY_FILE, sleep until killed\n"
	      "  qps COUNT [READY_FILE GO_FILE]\n"
	      "                   one guest: COUNT RC QPs of the smallest rings in one context,\n"
	      "                   moved to INIT; two more beside them carry a checked WRITE and\n"
	      "                   SEND; with READY_FILE: write it, wait for GO_FILE; then destroy\n"
	      "                   all; prints the microseconds per create, modify, destroy\n"
	      "\n"
	      "Options (defaults from the guest environment run-vms sets):\n"
	      "  -d IBDEV    RDMA device ($QRNIC_IBDEV)\n"
	      "  -g INDEX    GID index (default: the RoCE v2 GID of $QRNIC_IP)\n"
	      "  -i IDX      this guest's index, 0 or 1 ($QRNIC_IDX)\n"
	      "  -s DIR      rendezvous directory shared by both guests ($QRNIC_SHARE)\n"
	      "  -T TAG      prefix of the rendezvous files (default: the mode); both guests\n"
	      "              must use the same TAG, and a new one for each run in one boot\n"
	      "  -p IP       the peer's IPv4 address (first of $QRNIC_PEER_IPS)\n"
	      "  -t SECONDS  longest wait for any one event (default 60)\n"
	      "  -v          more notes\n"
	      "  -D SECONDS  soak: how long (default 60); both guests must give the same\n"
	      "  -S SEED     soak: the plan's seed (default 1); both guests must give the same\n"
	      "  -q QPS      soak: most QPs at once, 1..64 (default 8); both the same\n", f);
}

int main(int argc, char **argv)
{
	const char *mode, *peers = rc_env("QRNIC_PEER_IPS");
	static char peer[64];
	int c, r, soak_qps = 8;
	double soak_secs = 60;
	unsigned long long soak_seed = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opt.ibdev = rc_env("QRNIC_IBDEV");
	opt.share = rc_env("QRNIC_SHARE");
	opt.idx = rc_env("QRNIC_IDX") ? atoi(rc_env("QRNIC_IDX")) : 0;
	if (peers) {
		snprintf(peer, sizeof(peer), "%s", peers);
		peer[strcspn(peer, " ")] = 0;
		opt.peer_ip = peer;
	}
	while ((c = getopt(argc, argv, "d:g:i:s:T:p:t:vhD:S:q:")) != -1) {
		switch (c) {
		case 'd': opt.ibdev = optarg; break;
		case 'g': opt.gid_idx = atoi(optarg); break;
		case 'i': opt.idx = atoi(optarg); break;
		case 's': opt.share = optarg; break;
		case 'T': opt.tag = optarg; break;
		case 'p': opt.peer_ip = optarg; break;
		case 't': opt.timeout = atof(optarg); break;
		case 'v': opt.verbose = 1; break;
		case 'D': soak_secs = atof(optarg); break;
		case 'S': soak_seed = strtoull(optarg, NULL, 0); break;
		case 'q': soak_qps = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	mode = argv[optind];
	if (!opt.tag)
		opt.tag = mode;
	if (opt.idx != 0 && opt.idx != 1) {
		fprintf(stderr, "rc-check: guest index must be 0 or 1\n");
		return 2;
	}
	srand48(getpid() ^ time(NULL));

	if (!strcmp(mode, "hold")) {
		if (optind + 1 >= argc) {
			usage(stderr);
			return 2;
		}
		return mode_hold(argv[optind + 1]);
	}
	if (!strcmp(mode, "qps")) {
		if (optind + 1 >= argc || atoi(argv[optind + 1]) < 1 ||
		    (optind + 2 < argc && optind + 3 >= argc)) {
			usage(stderr);
			return 2;
		}
		r = mode_qps(atoi(argv[optind + 1]), optind + 2 < argc ? argv[optind + 2] : NULL,
			     optind + 3 < argc ? argv[optind + 3] : NULL);
		return r || rc_failures ? 1 : 0;
	}
	if (!opt.share) {
		fprintf(stderr, "rc-check: no rendezvous directory (-s or $QRNIC_SHARE)\n");
		return 2;
	}
	if (!strcmp(mode, "integrity")) {
		r = mode_integrity();
	} else if (!strcmp(mode, "errors")) {
		r = mode_errors();
	} else if (!strcmp(mode, "soak")) {
		r = mode_soak(soak_secs, soak_seed, soak_qps);
	} else if (!strcmp(mode, "mw")) {
		r = mode_mw();
	} else if (!strcmp(mode, "gone")) {
		if (optind + 1 >= argc) {
			usage(stderr);
			return 2;
		}
		r = mode_gone(argv[optind + 1]);
	} else {
		fprintf(stderr, "rc-check: unknown mode '%s'\n", mode);
		usage(stderr);
		return 2;
	}
	return r || rc_failures ? 1 : 0;
}
