// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * qrnic-isolation: what a hostile unprivileged user in one guest must not
 * be able to do to another user's process or to the kernel (issue 25).
 * tests/vm/isolation.sh runs the subcommands as users 1001 (the victim)
 * and 1002 (the attacker); each prints TAP-style "ok - ..." /
 * "not ok - ..." lines with what it measured and exits non-zero if a
 * check failed.  See usage().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rc-isolation.h"

struct rc_opts opt = { .gid_idx = -1, .timeout = 60 };
struct iso_opts iso = { .threads = 4, .iters = 200, .qps = 12, .timeout = 0, .runs = 5,
			.limit = -1 };

static void usage(FILE *f)
{
	fputs("usage: qrnic-isolation [options] SUBCOMMAND [ARG]\n"
	      "\n"
	      "Subcommands (one guest; tests/vm/isolation.sh runs them as two users):\n"
	      "  srq-race        N threads resize one SRQ M times each, through ibv_modify_srq and\n"
	      "                  straight through the driver's resize method (bypassing the\n"
	      "                  provider's lock), while a thread posts receives; every call returns\n"
	      "                  0, EBUSY or EINVAL; then the SRQ, resized once more through the\n"
	      "                  provider, carries SENDs of a loopback pair (data checked) and both\n"
	      "                  the provider and the kernel report the last resize's depth; last, a\n"
	      "                  second SRQ is destroyed while threads resize it\n"
	      "  fill            the victim: RC loopback pair, SRQ, UD QP; inline SENDs and WRITEs\n"
	      "                  whose payload, wr_ids and addresses carry a marker; counts the marker\n"
	      "                  in its own rings; writes --ready, holds until --release\n"
	      "  scan            the attacker: --qps QPs and some SRQs of the victim's sizes and\n"
	      "                  others; before posting anything reads every byte of every mapping of\n"
	      "                  the uverbs device (doorbell page, queue slices): all must be 0\n"
	      "  bar4 WHAT       (root, iomem=relaxed) the device's whole queue memory through\n"
	      "                  sysfs resource4: prints the pages holding the marker, kernel-pointer\n"
	      "                  words or anything nonzero\n"
	      "  quota KIND      allocate KIND (pd cq qp srq mr mw qmem mr-pages ctx ctx-cgroup xrcd\n"
	      "                  xrc-tgt) until refused: ENOMEM (ctx-cgroup, in an rdma cgroup:\n"
	      "                  EAGAIN) at exactly --limit, every device quota refusal counted in\n"
	      "                  ctx_over_quota (xrcd: the driver's limit, none); writes --ready,\n"
	      "                  holds until --release\n"
	      "  victim          one of each kind (PD, CQ, QP, SRQ, MR, MW) and a SEND/RECV of a\n"
	      "                  loopback pair through the SRQ, data checked\n"
	      "  victim-xrc      an XRC domain, an XRC SRQ and an XRC_TGT QP of its own\n"
	      "  freeze-attacker --qps K RC QPs (timeout --timeout, retry_cnt 7, rnr_retry 7) whose\n"
	      "                  peers stay in RESET (--destroyed: are destroyed), a 1 MiB RDMA WRITE\n"
	      "                  posted on each; none may complete while the victim measures\n"
	      "  freeze-victim   32 RDMA WRITEs of 16 KiB on its own loopback pair, timed alone, then\n"
	      "                  --runs times while the attacker's QPs are stuck; bound checked\n"
	      "  udata           raw write() commands with nonzero trailing driver data\n"
	      "                  (EOPNOTSUPP), zero trailing data (success), short responses\n"
	      "                  (EINVAL); MODIFY_SRQ with IBV_SRQ_MAX_WR through write (EOPNOTSUPP)\n"
	      "\n"
	      "Options:\n"
	      "  -d IBDEV        RDMA device ($QRNIC_IBDEV)\n"
	      "  -s DIR          rendezvous directory of freeze-victim and freeze-attacker\n"
	      "  -T TAG          prefix of the rendezvous files (default: freeze)\n"
	      "  -i IDX          0: the victim, 1: the attacker (freeze)\n"
	      "  -t SECONDS      longest wait for any one event (default 60)\n"
	      "  -v              more notes\n"
	      "  --threads N     srq-race: resizing threads (4)\n"
	      "  --iters M       srq-race: resizes per thread (200)\n"
	      "  --qps N         scan: QPs (12); freeze-attacker: stuck QPs (12, or --attackers)\n"
	      "  --timeout T     freeze-attacker: the QPs' timeout exponent, 0 (infinite)..31 (0)\n"
	      "  --destroyed     freeze-attacker: destroy the peers instead of leaving them in RESET\n"
	      "  --runs R        freeze-victim: timed runs under attack (5)\n"
	      "  --limit N       quota: the device's limit for the kind (the probe's dmesg line)\n"
	      "  --xrcd FILE     quota xrcd: the first domain is FILE's (created); xrc-tgt: the\n"
	      "                  QPs go into FILE's domain (another process's), not a new one\n"
	      "  --ready FILE    written once set up (fill, scan, quota)\n"
	      "  --release FILE  hold everything until FILE exists (fill, scan, quota)\n", f);
}

enum { O_THREADS = 256, O_ITERS, O_QPS, O_TIMEOUT, O_DESTROYED, O_RUNS, O_LIMIT, O_READY,
       O_RELEASE, O_XRCD };

static const struct option long_opts[] = {
	{ "threads", required_argument, NULL, O_THREADS },
	{ "iters", required_argument, NULL, O_ITERS },
	{ "qps", required_argument, NULL, O_QPS },
	{ "attackers", required_argument, NULL, O_QPS },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "destroyed", no_argument, NULL, O_DESTROYED },
	{ "runs", required_argument, NULL, O_RUNS },
	{ "limit", required_argument, NULL, O_LIMIT },
	{ "ready", required_argument, NULL, O_READY },
	{ "release", required_argument, NULL, O_RELEASE },
	{ "xrcd", required_argument, NULL, O_XRCD },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

static int parse_opts(int argc, char **argv)
{
	int c;

	while ((c = getopt_long(argc, argv, "d:s:T:i:t:vh", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd': opt.ibdev = optarg; break;
		case 's': opt.share = optarg; break;
		case 'T': opt.tag = optarg; break;
		case 'i': opt.idx = atoi(optarg); break;
		case 't': opt.timeout = atof(optarg); break;
		case 'v': opt.verbose = 1; break;
		case O_THREADS: iso.threads = atoi(optarg); break;
		case O_ITERS: iso.iters = atoi(optarg); break;
		case O_QPS: iso.qps = atoi(optarg); break;
		case O_TIMEOUT: iso.timeout = atoi(optarg); break;
		case O_DESTROYED: iso.destroyed = 1; break;
		case O_RUNS: iso.runs = atoi(optarg); break;
		case O_LIMIT: iso.limit = atol(optarg); break;
		case O_READY: iso.ready = optarg; break;
		case O_RELEASE: iso.release = optarg; break;
		case O_XRCD: iso.xrcd = optarg; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (iso.threads < 1 || iso.threads > 64 || iso.iters < 1 || iso.qps < 1 ||
	    iso.qps > 256 || iso.timeout < 0 || iso.timeout > 31 || iso.runs < 1) {
		fprintf(stderr, "qrnic-isolation: option out of range\n");
		return -1;
	}
	return 0;
}

static int dispatch(const char *mode, const char *arg)
{
	static const struct { const char *name; int (*fn)(void); } modes[] = {
		{ "srq-race", mode_srq_race }, { "fill", mode_fill }, { "scan", mode_scan },
		{ "victim", mode_victim }, { "freeze-victim", mode_freeze_victim },
		{ "freeze-attacker", mode_freeze_attacker }, { "udata", mode_udata },
		{ "victim-xrc", mode_victim_xrc },
	};
	size_t i;

	if (!strcmp(mode, "quota") || !strcmp(mode, "bar4")) {
		if (!arg) {
			usage(stderr);
			return 2;
		}
		return !strcmp(mode, "quota") ? mode_quota(arg) : mode_bar4(arg);
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(mode, modes[i].name))
			return modes[i].fn();
	fprintf(stderr, "qrnic-isolation: unknown subcommand '%s'\n", mode);
	usage(stderr);
	return 2;
}

int main(int argc, char **argv)
{
	int r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opt.ibdev = rc_env("QRNIC_IBDEV");
	if (parse_opts(argc, argv))
		return 2;
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (!opt.tag)
		opt.tag = "freeze";
	srand48(getpid() ^ time(NULL));
	r = dispatch(argv[optind], optind + 1 < argc ? argv[optind + 1] : NULL);
	if (r == 2)
		return 2;
	return r || rc_failures ? 1 : 0;
}

/* ---- shared helpers ------------------------------------------------------- */

int iso_pair(struct rc_dev *d, struct rc_conn *a, struct rc_conn *b, const char *name,
	     int depth, struct ibv_srq *srq)
{
	struct rc_qp_params p;
	char n[64];

	rc_default_params(&p);
	p.max_send_wr = p.max_recv_wr = depth;
	p.max_inline = 64;
	snprintf(n, sizeof(n), "%s-a", name);
	if (rc_conn_create(a, d, n, &p))
		return -1;
	p.srq = srq;
	snprintf(n, sizeof(n), "%s-b", name);
	if (rc_conn_create(b, d, n, &p))
		return -1;
	return rc_conn_loopback(a, b);
}

int iso_send_check(struct rc_conn *a, struct rc_conn *b, struct ibv_mr *mr, void *src,
		   uint32_t len, uint64_t recv_wr_id, const char *what)
{
	struct ibv_sge sge = { (uintptr_t)src, len, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x5e4d, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct rc_want sw = { 0x5e4d, IBV_WC_SUCCESS, IBV_WC_SEND, 0, 0, 0, 0 };
	struct rc_want rw = { recv_wr_id, IBV_WC_SUCCESS, IBV_WC_RECV, 1, len, 0, 0 };

	if (ibv_post_send(a->qp, &wr, &bad)) {
		not_ok("%s: ibv_post_send: %s", what, strerror(errno));
		return -1;
	}
	if (rc_expect(a->scq, a->local.qpn, &sw, what) ||
	    rc_expect(b->rcq, b->local.qpn, &rw, what)) {
		not_ok("%s: SEND of %u bytes: completions wrong or missing", what, len);
		return -1;
	}
	return 0;
}

long iso_hw_counter(struct rc_dev *d, const char *name)
{
	/* ib_core answers from a copy up to its lifespan old (10 ms): wait
	 * that out, so the value is the device's after what came before. */
	struct timespec nap = { 0, 50000000 };
	char path[256];
	long v = -1;
	FILE *f;

	nanosleep(&nap, NULL);
	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 ibv_get_device_name(d->ctx->device), name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

int iso_write_file(const char *path, const char *text)
{
	char tmp[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) || rename(tmp, path)) {
		not_ok("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int iso_wait_file(const char *path, double seconds)
{
	double end = now_s() + seconds;
	struct timespec nap = { 0, 20000000 };

	while (access(path, F_OK)) {
		if (now_s() > end)
			return -1;
		nanosleep(&nap, NULL);
	}
	return 0;
}

void iso_hold(const char *what)
{
	/* The script decides how long: as long as a whole scenario at most. */
	if (iso.release && iso_wait_file(iso.release, 3600))
		not_ok("%s: %s never appeared", what, iso.release);
}
