// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * hostfloor [SECS [ITERS]]: what the host itself costs to move frames
 * between two processes over the kinds of socket that link two guests
 * (tests/vm/run-vms), the floor under any emulated NIC's figures.
 * make bench (tests/bench/run-bench) runs it and prints its figures as
 * fractions of these.
 *
 * Links, as QEMU 10.0 drives them:
 *  - stream: a Unix stream socket (socketpair) with the framing of QEMU's
 *    stream netdev (net/stream.c, net/net.c net_fill_rstate()): each frame
 *    is preceded by its length as a 4-byte big-endian number, written with
 *    one writev() of both; the reader does large reads (NET_BUFSIZE,
 *    69632 bytes) and splits the frames out of them;
 *  - unixdgram: a Unix datagram socket pair, one send() per frame and one
 *    recv() per datagram (net/dgram.c on inherited descriptors);
 *  - udp: two UDP sockets on 127.0.0.1, one sendto() per frame and one
 *    recv() per datagram (net/dgram.c).
 *
 * Measures, the two processes made by fork(), first both pinned to one
 * core (suffix _1cpu), then each to a core of its own (_2cpu, if there
 * are two): in a VM, waking a process on an idle core costs tens of µs
 * more than on a busy one, so the scheduler's own choice would make the
 * round trips differ run to run by that much.
 *  - LINK_rtt_SIZE_usec: one SIZE-byte frame there and back (64 and 4096),
 *    median of ITERS (default 2000) after 200 for warm-up, in µs, both
 *    processes blocked in read()/recv() while waiting;
 *  - LINK_oneway_MTU_mibps: one process writes frames of the size a full
 *    RoCEv2 packet has at active MTU MTU (1024, 4096) for SECS (default
 *    1.5) seconds, one write per frame; the other reads them; MiB/s of
 *    RoCE payload (MTU bytes per frame) the reader received, from its
 *    first read to the end.  LINK_oneway_MTU_frame_mibps counts whole
 *    frames instead (without the stream's 4-byte length);
 *    udp_oneway_MTU_loss_pct is the share of the datagrams sent that the
 *    reader never got (the host drops them when the reader falls behind).
 * frame_bytes_MTU is the frame size used: Ethernet 14 + IPv4 20 + UDP 8 +
 * BTH 12 + RETH 16 + MTU + ICRC 4 (no FCS: QEMU's netdevs carry none).
 *
 * Prints "hostfloor: KEY VALUE" lines; exits non-zero only if a socket
 * call fails.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NET_BUFSIZE (4096 + 65536)	/* QEMU's include/net/net.h */
#define ROCE_HDRS (14 + 20 + 8 + 12 + 16 + 4)
#define WARMUP 200

enum link { STREAM, UNIXDGRAM, UDP };
static const char *const link_name[] = { "stream", "unixdgram", "udp" };

struct chan {
	enum link link;
	int fd;
	struct sockaddr_in peer;	/* udp */
	size_t have;			/* stream: bytes in buf */
	unsigned char buf[NET_BUFSIZE];
};

static unsigned char frame[NET_BUFSIZE];
static int ncpus, cpu[2];	/* placement: on cpu[0], or cpu[0] and cpu[1] */
static void die(const char *what)
{
	fprintf(stderr, "hostfloor: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Pin this process (the parent: 0, the child: 1) to its core. */
static void pin(int who)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu[ncpus == 2 ? who : 0], &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* Two connected channels of one link kind; the caller forks and each side
 * closes the other's. */
static void chan_pair(enum link link, struct chan *a, struct chan *b)
{
	struct timeval tv = { .tv_sec = 5 };
	socklen_t len = sizeof(a->peer);
	int fds[2];

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	a->link = b->link = link;
	if (link != UDP) {
		if (socketpair(AF_UNIX, link == STREAM ? SOCK_STREAM : SOCK_DGRAM, 0, fds))
			die("socketpair");
		a->fd = fds[0];
		b->fd = fds[1];
		return;
	}
	a->fd = socket(AF_INET, SOCK_DGRAM, 0);
	b->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (a->fd < 0 || b->fd < 0)
		die("socket");
	a->peer.sin_family = AF_INET;
	a->peer.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b->peer = a->peer;
	if (bind(a->fd, (struct sockaddr *)&a->peer, len) ||
	    bind(b->fd, (struct sockaddr *)&b->peer, len))
		die("bind");
	/* Each side's peer is the other's bound address. */
	if (getsockname(b->fd, (struct sockaddr *)&a->peer, &len) ||
	    getsockname(a->fd, (struct sockaddr *)&b->peer, &len))
		die("getsockname");
	/* A lost datagram must not hang a round trip. */
	if (setsockopt(a->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(b->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		die("SO_RCVTIMEO");
}

/* One frame of len bytes (0: the end marker), one system call. */
static void send_frame(struct chan *c, size_t len)
{
	uint32_t be = htonl(len);
	struct iovec iov[2] = { { &be, 4 }, { frame, len } };
	size_t left = 4 + len;
	ssize_t n;

	if (c->link == UDP) {
		if (sendto(c->fd, frame, len, 0, (struct sockaddr *)&c->peer,
			   sizeof(c->peer)) < 0)
			die("sendto");
		return;
	}
	if (c->link == UNIXDGRAM) {
		while (send(c->fd, frame, len, 0) < 0)
			if (errno != EINTR)
				die("send");
		return;
	}
	while (left) {
		n = writev(c->fd, iov, 2);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("writev");
		/* A short write: go on from where it stopped. */
		left -= n;
		while (n > 0 && (size_t)n >= iov[0].iov_len) {
			n -= iov[0].iov_len;
			iov[0] = iov[1];
			iov[1].iov_len = 0;
		}
		iov[0].iov_base = (char *)iov[0].iov_base + n;
		iov[0].iov_len -= n;
	}
}

/* The next frame's length; -1 at the end (EOF, an end marker, or no
 * datagram for 5 s). */
static ssize_t recv_frame(struct chan *c)
{
	uint32_t be;
	size_t len;
	ssize_t n;

	if (c->link != STREAM) {
		do
			n = recv(c->fd, c->buf, sizeof(c->buf), 0);
		while (n < 0 && errno == EINTR);
		if (n < 0 && errno != EAGAIN)
			die("recv");
		return n > 0 ? n : -1;
	}
	for (;;) {
		if (c->have >= 4) {
			memcpy(&be, c->buf, 4);
			len = ntohl(be);
			if (len > sizeof(c->buf) - 4) {
				errno = EPROTO;
				die("frame length");
			}
			if (c->have >= 4 + len) {
				c->have -= 4 + len;
				memmove(c->buf, c->buf + 4 + len, c->have);
				return len ? (ssize_t)len : -1;
			}
		}
		n = read(c->fd, c->buf + c->have, sizeof(c->buf) - c->have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read");
		if (n == 0)
			return -1;
		c->have += n;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The child: echo every frame back until the end. */
static void echo(struct chan *c)
{
	ssize_t len;

	while ((len = recv_frame(c)) > 0)
		send_frame(c, len);
}

static void rtt(enum link link, size_t size, int iters)
{
	static struct chan a, b;
	double *t = calloc(iters, sizeof(*t)), t0;
	int i, status;
	pid_t pid;

	if (!t)
		die("calloc");
	chan_pair(link, &a, &b);
	pid = fork();
	if (pid < 0)
		die("fork");
	pin(pid == 0);
	if (pid == 0) {
		close(a.fd);
		echo(&b);
		_exit(0);
	}
	close(b.fd);
	for (i = -WARMUP; i < iters; i++) {
		t0 = now();
		send_frame(&a, size);
		if (recv_frame(&a) != (ssize_t)size) {
			errno = EPROTO;
			die("round trip");
		}
		if (i >= 0)
			t[i] = now() - t0;
	}
	send_frame(&a, 0);
	close(a.fd);
	waitpid(pid, &status, 0);
	qsort(t, iters, sizeof(*t), cmp_double);
	printf("hostfloor: %s_rtt_%zu_usec_%dcpu %.1f\n", link_name[link], size, ncpus,
	       t[iters / 2] * 1e6);
	free(t);
}

static void oneway(enum link link, size_t mtu, double secs)
{
	static struct chan a, b;
	size_t flen = ROCE_HDRS + mtu;
	unsigned long long sent = 0, got = 0;
	double t0 = 0, t1 = 0, mib;
	int p[2], i, status;
	ssize_t len;
	pid_t pid;

	chan_pair(link, &a, &b);
	if (pipe(p))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	pin(pid == 0);
	if (pid == 0) {	/* the writer */
		double end = now() + secs;

		close(b.fd);
		close(p[0]);
		do {
			for (i = 0; i < 64; i++)
				send_frame(&a, flen);
			sent += 64;
		} while (now() < end);
		for (i = 0; i < (link == UDP ? 20 : 1); i++) {
			send_frame(&a, 0);
			usleep(1000);
		}
		if (write(p[1], &sent, sizeof(sent)) != sizeof(sent))
			die("write");
		_exit(0);
	}
	close(a.fd);
	close(p[1]);
	while ((len = recv_frame(&b)) > 0) {
		if (!got)
			t0 = now();
		got++;
		t1 = now();
	}
	if (read(p[0], &sent, sizeof(sent)) != sizeof(sent))
		die("read");
	waitpid(pid, &status, 0);
	close(b.fd);
	close(p[0]);
	if (got < 2) {
		errno = EPROTO;
		die("no frames");
	}
	/* From the first frame's arrival to the last's: got - 1 frames. */
	mib = (got - 1) / (t1 - t0) / (1 << 20);
	printf("hostfloor: %s_oneway_%zu_mibps_%dcpu %.0f\n", link_name[link], mtu, ncpus,
	       mib * mtu);
	printf("hostfloor: %s_oneway_%zu_frame_mibps_%dcpu %.0f\n", link_name[link], mtu, ncpus,
	       mib * flen);
	if (link == UDP)
		printf("hostfloor: udp_oneway_%zu_loss_pct_%dcpu %.1f\n", mtu, ncpus,
		       100.0 * (sent - got) / sent);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.5;
	int iters = argc > 2 ? atoi(argv[2]) : 2000;
	enum link link;
	cpu_set_t set;
	int i, n = 0;

	if (secs <= 0 || iters <= 0) {
		fprintf(stderr, "usage: hostfloor [SECS [ITERS]]\n");
		return 2;
	}
	/* The first two cores this process may run on. */
	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[n++] = i;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("hostfloor: frame_bytes_1024 %d\n", ROCE_HDRS + 1024);
	printf("hostfloor: frame_bytes_4096 %d\n", ROCE_HDRS + 4096);
	for (ncpus = 1; ncpus <= n; ncpus++) {
		for (link = STREAM; link <= UDP; link++) {
			rtt(link, 64, iters);
			rtt(link, 4096, iters);
			oneway(link, 1024, secs);
			oneway(link, 4096, secs);
		}
	}
	return 0;
}
