// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fast registration, as a storage ULP (nvme-rdma, iSER, NFS/RDMA) uses it:
 * side 1 owns a region over a scatter list of separate pages, the first
 * one entered at an offset, registered with IB_WR_REG_MR on its send
 * queue; side 0 reaches it with RDMA WRITE and READ through the rkey, and
 * side 1 sends from it through the lkey.  Then each way a key stops
 * working: LOCAL_INV, re-registration under a new key byte (the old rkey
 * is refused, the new one works), a registration without remote write,
 * and SEND_WITH_INV from the peer (the receive completion names the key).
 * After each refusal both QPs are in ERR and are connected again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "kverbs.h"

#define KF_PAGES	4
#define KF_FIRST_OFF	512	/* the first entry starts inside its page */
#define KF_LAST_LEN	1000	/* and the last ends inside its page */
#define KF_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ)

struct kf {
	struct ib_mr *mr;
	struct page *page[KF_PAGES];
	struct scatterlist sg[KF_PAGES];
	int nents;			/* mapped entries, 0 if not mapped */
	u32 len;			/* bytes the region covers */
};

/* Byte off of the region: page and offset within the scatter list. */
static u8 *kf_byte(struct kf *f, u32 off)
{
	int i;

	for (i = 0; i < KF_PAGES; i++) {
		if (off < f->sg[i].length)
			return page_address(f->page[i]) + f->sg[i].offset + off;
		off -= f->sg[i].length;
	}
	return NULL;
}

/* ib_core has no sg sync helper; software devices need none. */
static void kf_sync(struct kt *t, struct kf *f, bool for_cpu)
{
	if (ib_uses_virt_dma(t->dev))
		return;
	if (for_cpu)
		dma_sync_sg_for_cpu(t->dev->dma_device, f->sg, KF_PAGES,
				    DMA_BIDIRECTIONAL);
	else
		dma_sync_sg_for_device(t->dev->dma_device, f->sg, KF_PAGES,
				       DMA_BIDIRECTIONAL);
}

static void kf_fill(struct kt *t, struct kf *f, u8 seed)
{
	u32 k;

	for (k = 0; k < f->len; k++)
		*kf_byte(f, k) = seed ^ (k * 13);
	kf_sync(t, f, false);
}

/* Does the region at off hold len bytes equal to buf? */
static bool kf_equal(struct kt *t, struct kf *f, u32 off, const u8 *buf,
		     u32 len)
{
	u32 k;

	kf_sync(t, f, true);
	for (k = 0; k < len; k++)
		if (*kf_byte(f, off + k) != buf[k])
			return false;
	return true;
}

static int kf_setup(struct kt *t, struct kf *f)
{
	int i, n;

	f->mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG, 2 * KF_PAGES);
	if (IS_ERR(f->mr))
		return PTR_ERR(f->mr);
	sg_init_table(f->sg, KF_PAGES);
	for (i = 0; i < KF_PAGES; i++) {
		u32 off = i == 0 ? KF_FIRST_OFF : 0;
		u32 len = i == KF_PAGES - 1 ? KF_LAST_LEN : PAGE_SIZE - off;

		f->page[i] = alloc_page(GFP_KERNEL);
		if (!f->page[i])
			return -ENOMEM;
		sg_set_page(&f->sg[i], f->page[i], len, off);
		f->len += len;
	}
	n = ib_dma_map_sg(t->dev, f->sg, KF_PAGES, DMA_BIDIRECTIONAL);
	if (n <= 0)
		return -ENOMEM;
	f->nents = n;
	return 0;
}

static void kf_teardown(struct kt *t, struct kf *f)
{
	int i, ret;

	if (f->nents)
		ib_dma_unmap_sg(t->dev, f->sg, KF_PAGES, DMA_BIDIRECTIONAL);
	for (i = 0; i < KF_PAGES; i++)
		if (f->page[i])
			__free_page(f->page[i]);
	if (!IS_ERR_OR_NULL(f->mr)) {
		ret = ib_dereg_mr(f->mr);
		check(t, !ret, "fast-reg: ib_dereg_mr (%d)", ret);
	}
}

/* Map the scatter list and post IB_WR_REG_MR on side 1 with key byte key. */
static int kf_register(struct kt *t, struct kf *f, u8 key, int access)
{
	struct ib_reg_wr wr = {};
	int n;

	n = ib_map_mr_sg(f->mr, f->sg, f->nents, NULL, PAGE_SIZE);
	if (n != f->nents)
		return n < 0 ? n : -EIO;
	ib_update_fast_reg_key(f->mr, key);
	wr.wr.opcode = IB_WR_REG_MR;
	wr.mr = f->mr;
	wr.key = f->mr->rkey;
	wr.access = access;
	return kt_post_wait(t, 1, &wr.wr);
}

static int kf_invalidate(struct kt *t, u32 rkey)
{
	struct ib_send_wr wr = { .opcode = IB_WR_LOCAL_INV };

	wr.ex.invalidate_rkey = rkey;
	return kt_post_wait(t, 1, &wr);
}

/* RDMA WRITE or READ of len bytes between side 0's buffer and the region. */
static int kf_rdma(struct kt *t, struct kf *f, enum ib_wr_opcode op,
		   u32 off, u32 len, u32 rkey)
{
	struct ib_rdma_wr wr = {};
	struct ib_sge sge;

	kt_sge(t, &sge, 0, 0, len);
	wr.wr.opcode = op;
	wr.wr.sg_list = &sge;
	wr.wr.num_sge = 1;
	wr.remote_addr = f->mr->iova + off;
	wr.rkey = rkey;
	return kt_post_wait(t, 0, &wr.wr);
}

/*
 * A write through rkey must be refused and change nothing; both QPs are
 * then in ERR and are connected again.
 */
static void kf_refused(struct kt *t, struct kf *f, u32 rkey, const char *why)
{
	u8 before;
	int ret;

	kf_sync(t, f, true);
	before = *kf_byte(f, 100);
	kt_fill(t, 0, 0x3c);
	ret = kf_rdma(t, f, IB_WR_RDMA_WRITE, 0, 200, rkey);
	kf_sync(t, f, true);
	check(t, ret == IB_WC_REM_ACCESS_ERR && *kf_byte(f, 100) == before,
	      "fast-reg: RDMA WRITE through rkey %#x %s: status %d, want IB_WC_REM_ACCESS_ERR; region unchanged",
	      rkey, why, ret);
	ret = kt_reconnect(t);
	check(t, !ret, "fast-reg: both QPs connected again (%d)", ret);
}

/* Side 1 SENDs 2000 bytes from the region through its lkey. */
static void kf_send_from(struct kt *t, struct kf *f)
{
	const struct ib_recv_wr *bad_rwr;
	struct ib_recv_wr rwr = { .wr_id = 31, .num_sge = 1 };
	struct ib_send_wr wr = { .opcode = IB_WR_SEND, .num_sge = 1 };
	struct ib_sge rsge, sge = { .length = 2000 };
	struct ib_wc wc;
	bool ev;
	int ret;

	kt_fill(t, 0, 0);
	kt_sge(t, &rsge, 0, 0, BUF_SIZE);
	rwr.sg_list = &rsge;
	ret = ib_post_recv(t->s[0].qp, &rwr, &bad_rwr);
	sge.addr = f->mr->iova + 3000;
	sge.lkey = f->mr->lkey;
	wr.sg_list = &sge;
	ret = ret ?: kt_post_wait(t, 1, &wr);
	check(t, !ret, "fast-reg: SEND of 2000 bytes through the region's lkey (%d)",
	      ret);
	ret = kt_wait(t, 0, &wc, &ev);
	kt_sync(t, 0, true);
	check(t, ret == 1 && wc.status == IB_WC_SUCCESS && wc.byte_len == 2000 &&
	      kf_equal(t, f, 3000, t->s[0].buf, 2000),
	      "fast-reg: the peer received the region's bytes 3000..4999 (status %d)",
	      ret == 1 ? wc.status : -1);
}

/* Side 0 SEND_WITH_INV of side 1's rkey; side 1's receive names it. */
static void kf_send_with_inv(struct kt *t, struct kf *f)
{
	const struct ib_recv_wr *bad_rwr;
	struct ib_recv_wr rwr = { .wr_id = 41, .num_sge = 1 };
	struct ib_send_wr wr = { .opcode = IB_WR_SEND_WITH_INV, .num_sge = 1 };
	struct ib_sge rsge, sge;
	u32 rkey = f->mr->rkey;
	struct ib_wc wc;
	bool ev;
	int ret;

	kt_sge(t, &rsge, 1, 0, 256);
	rwr.sg_list = &rsge;
	ret = ib_post_recv(t->s[1].qp, &rwr, &bad_rwr);
	kt_sge(t, &sge, 0, 0, 64);
	wr.sg_list = &sge;
	wr.ex.invalidate_rkey = rkey;
	ret = ret ?: kt_post_wait(t, 0, &wr);
	check(t, !ret, "fast-reg: SEND_WITH_INV of rkey %#x (%d)", rkey, ret);
	ret = kt_wait(t, 1, &wc, &ev);
	check(t, ret == 1 && wc.status == IB_WC_SUCCESS &&
	      wc.opcode == IB_WC_RECV && wc.wr_id == 41 && wc.byte_len == 64 &&
	      (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
	      wc.ex.invalidate_rkey == rkey,
	      "fast-reg: the receive completion says IB_WC_WITH_INVALIDATE of %#x (status %d flags %#x key %#x)",
	      rkey, ret == 1 ? wc.status : -1, wc.wc_flags,
	      wc.ex.invalidate_rkey);
	kf_refused(t, f, rkey, "after SEND_WITH_INV");
}

static void kf_run(struct kt *t, struct kf *f)
{
	u8 key = ib_inc_rkey(f->mr->rkey) & 0xff;
	u32 old;
	int ret;

	check(t, f->mr->type == IB_MR_TYPE_MEM_REG,
	      "fast-reg: ib_alloc_mr(IB_MR_TYPE_MEM_REG, %d)", 2 * KF_PAGES);
	kf_fill(t, f, 0x21);
	ret = kf_register(t, f, key, KF_ACCESS);
	check(t, !ret && f->mr->length == f->len &&
	      f->mr->iova == sg_dma_address(&f->sg[0]),
	      "fast-reg: IB_WR_REG_MR over %d scattered pages, %u bytes from offset %d (status %d)",
	      KF_PAGES, f->len, KF_FIRST_OFF, ret);
	if (ret)
		return;

	kt_fill(t, 0, 0x5e);
	ret = kf_rdma(t, f, IB_WR_RDMA_WRITE, 1000, 6000, f->mr->rkey);
	check(t, !ret && kf_equal(t, f, 1000, t->s[0].buf, 6000),
	      "fast-reg: peer RDMA WRITE of 6000 bytes across three pages (%d)",
	      ret);
	kt_fill(t, 0, 0);
	ret = kf_rdma(t, f, IB_WR_RDMA_READ, f->len - 5000, 5000, f->mr->rkey);
	kt_sync(t, 0, true);
	check(t, !ret && kf_equal(t, f, f->len - 5000, t->s[0].buf, 5000),
	      "fast-reg: peer RDMA READ of the region's last 5000 bytes (%d)",
	      ret);
	kf_send_from(t, f);
	ret = kf_rdma(t, f, IB_WR_RDMA_WRITE, f->len - 1, 2, f->mr->rkey);
	check(t, ret == IB_WC_REM_ACCESS_ERR,
	      "fast-reg: a WRITE one byte past the region: status %d, want IB_WC_REM_ACCESS_ERR",
	      ret);
	ret = kt_reconnect(t);
	check(t, !ret, "fast-reg: both QPs connected again (%d)", ret);

	ret = kf_invalidate(t, f->mr->rkey);
	check(t, !ret, "fast-reg: IB_WR_LOCAL_INV (status %d)", ret);
	kf_refused(t, f, f->mr->rkey, "after LOCAL_INV");

	old = f->mr->rkey;
	ret = kf_register(t, f, ++key, KF_ACCESS);
	check(t, !ret && f->mr->rkey != old && (f->mr->rkey & 0xff) == key,
	      "fast-reg: registered again with key byte %#x: rkey %#x (status %d)",
	      key, f->mr->rkey, ret);
	kf_refused(t, f, old, "(the old key byte)");
	kt_fill(t, 0, 0x77);
	ret = kf_rdma(t, f, IB_WR_RDMA_WRITE, 0, 4000, f->mr->rkey);
	check(t, !ret && kf_equal(t, f, 0, t->s[0].buf, 4000),
	      "fast-reg: RDMA WRITE through the new rkey (%d)", ret);
	kf_send_with_inv(t, f);

	ret = kf_register(t, f, ++key, IB_ACCESS_LOCAL_WRITE |
			  IB_ACCESS_REMOTE_READ);
	check(t, !ret, "fast-reg: registered read-only for the peer (status %d)",
	      ret);
	kf_refused(t, f, f->mr->rkey, "without IB_ACCESS_REMOTE_WRITE");
	kt_fill(t, 0, 0);
	ret = kf_rdma(t, f, IB_WR_RDMA_READ, 0, 3000, f->mr->rkey);
	kt_sync(t, 0, true);
	check(t, !ret && kf_equal(t, f, 0, t->s[0].buf, 3000),
	      "fast-reg: RDMA READ through the read-only rkey (%d)", ret);
	ret = kf_invalidate(t, f->mr->rkey);
	check(t, !ret, "fast-reg: IB_WR_LOCAL_INV before dereg (status %d)", ret);
}

void kt_fastreg(struct kt *t)
{
	struct ib_device_attr *a = &t->dev->attrs;
	struct kf f = {};
	struct ib_mr *mr;
	int ret;

	check(t, (a->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS) &&
	      a->max_fast_reg_page_list_len >= 256,
	      "fast-reg: IB_DEVICE_MEM_MGT_EXTENSIONS, max_fast_reg_page_list_len %u",
	      a->max_fast_reg_page_list_len);
	mr = ib_alloc_mr(t->pd, IB_MR_TYPE_MEM_REG,
			 a->max_fast_reg_page_list_len + 1);
	check(t, IS_ERR(mr) && PTR_ERR(mr) == -EINVAL,
	      "fast-reg: ib_alloc_mr past max_fast_reg_page_list_len: %ld, want -EINVAL",
	      IS_ERR(mr) ? PTR_ERR(mr) : 0L);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);

	ret = kf_setup(t, &f);
	check(t, !ret, "fast-reg: region and %d scattered pages mapped (%d)",
	      KF_PAGES, ret);
	if (!ret)
		kf_run(t, &f);
	kf_teardown(t, &f);
}
