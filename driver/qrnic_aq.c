// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic admin queue: a command ring and a completion ring in coherent DMA
 * memory.  Every command carries a cookie naming its waiting context (low
 * byte: context index, high byte: sequence number, so a completion that
 * arrives after its waiter gave up is recognised and dropped).  Completions
 * are reaped from the vector 0 interrupt, or by polling before the
 * interrupt is set up and for commands issued under a spinlock.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/ktime.h>

#include "qrnic.h"

#define QRNIC_COOKIE(idx, seq)	((u16)((seq) << 8 | (idx)))
#define QRNIC_COOKIE_IDX(c)	((c) & 0xff)
#define QRNIC_COOKIE_SEQ(c)	((u8)((c) >> 8))

#define QRNIC_CMD_NAME(name, ...) \
	[QRNIC_CMD_##name] = #name,

static const char * const qrnic_cmd_names[] = {
	QRNIC_CMD_LIST(QRNIC_CMD_NAME)
};

#undef QRNIC_CMD_NAME

static const char *qrnic_cmd_name(u8 opcode)
{
	if (opcode < ARRAY_SIZE(qrnic_cmd_names) && qrnic_cmd_names[opcode])
		return qrnic_cmd_names[opcode];
	return "UNKNOWN";
}

static int qrnic_status_to_errno(u8 status)
{
	switch (status) {
	case QRNIC_ST_OK:
		return 0;
	case QRNIC_ST_BAD_OPCODE:
		return -EOPNOTSUPP;
	case QRNIC_ST_BAD_PARAM:
		return -EINVAL;
	case QRNIC_ST_NO_RESOURCES:
	case QRNIC_ST_OVER_QUOTA:	/* the context's share is used up */
		return -ENOMEM;
	case QRNIC_ST_BAD_HANDLE:
		return -ENOENT;
	case QRNIC_ST_BAD_STATE:
		return -EBUSY;
	case QRNIC_ST_DMA_ERROR:
		return -EFAULT;
	default:
		return -EIO;
	}
}

int qrnic_aq_alloc(struct qrnic_dev *qdev)
{
	struct qrnic_aq *aq = &qdev->aq;
	struct device *dev = &qdev->pdev->dev;
	u32 i;

	aq->log_depth = min(qrnic_aq_log_depth, qdev->aq_max_log);
	if (aq->log_depth < qrnic_aq_log_depth)
		dev_info(dev, "admin queue depth limited to 2^%u by the device\n",
			 aq->log_depth);
	aq->depth = 1U << aq->log_depth;

	aq->ctx = kcalloc(aq->depth, sizeof(*aq->ctx), GFP_KERNEL);
	if (!aq->ctx)
		return -ENOMEM;
	for (i = 0; i < aq->depth; i++)
		init_completion(&aq->ctx[i].done);

	aq->sq = dma_alloc_coherent(dev, aq->depth * sizeof(*aq->sq),
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		goto err_ctx;
	aq->cq = dma_alloc_coherent(dev, aq->depth * sizeof(*aq->cq),
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq)
		goto err_sq;

	spin_lock_init(&aq->lock);
	sema_init(&aq->slots, aq->depth);
	aq->pi = 0;
	aq->ci = 0;
	aq->use_irq = false;
	aq->dead = false;
	return 0;

err_sq:
	dma_free_coherent(dev, aq->depth * sizeof(*aq->sq), aq->sq, aq->sq_dma);
	aq->sq = NULL;
err_ctx:
	kfree(aq->ctx);
	aq->ctx = NULL;
	return -ENOMEM;
}

/* Only after the device is reset: it must no longer write the rings. */
void qrnic_aq_free(struct qrnic_dev *qdev)
{
	struct qrnic_aq *aq = &qdev->aq;
	struct device *dev = &qdev->pdev->dev;

	if (aq->cq)
		dma_free_coherent(dev, aq->depth * sizeof(*aq->cq), aq->cq,
				  aq->cq_dma);
	if (aq->sq)
		dma_free_coherent(dev, aq->depth * sizeof(*aq->sq), aq->sq,
				  aq->sq_dma);
	kfree(aq->ctx);
	aq->cq = NULL;
	aq->sq = NULL;
	aq->ctx = NULL;
}

/* Program the ring registers; called between RESET and ENABLE. */
void qrnic_aq_program(struct qrnic_dev *qdev)
{
	struct qrnic_aq *aq = &qdev->aq;

	memset(aq->sq, 0, aq->depth * sizeof(*aq->sq));
	memset(aq->cq, 0, aq->depth * sizeof(*aq->cq));
	aq->pi = 0;
	aq->ci = 0;

	qrnic_wr32(qdev, QRNIC_REG_AQ_SQ_BASE_LO, lower_32_bits(aq->sq_dma));
	qrnic_wr32(qdev, QRNIC_REG_AQ_SQ_BASE_HI, upper_32_bits(aq->sq_dma));
	qrnic_wr32(qdev, QRNIC_REG_AQ_CQ_BASE_LO, lower_32_bits(aq->cq_dma));
	qrnic_wr32(qdev, QRNIC_REG_AQ_CQ_BASE_HI, upper_32_bits(aq->cq_dma));
	qrnic_wr32(qdev, QRNIC_REG_AQ_LOG_DEPTH, aq->log_depth);
}

/*
 * Reap completions.  The device writes entry ci % depth with PHASE = 1 on
 * the first pass through the ring, 0 on the second, and so on.
 */
static void __qrnic_aq_process(struct qrnic_dev *qdev)
{
	struct qrnic_aq *aq = &qdev->aq;
	u32 start = aq->ci;

	lockdep_assert_held(&aq->lock);

	for (;;) {
		struct qrnic_cqe_admin *cqe = &aq->cq[aq->ci & (aq->depth - 1)];
		u32 phase = !((aq->ci >> aq->log_depth) & 1);
		struct qrnic_aq_ctx *ctx;
		u16 cookie;
		u32 idx;

		if ((le32_to_cpu(READ_ONCE(cqe->flags)) &
		     QRNIC_ADMIN_CQE_PHASE) != phase)
			break;
		dma_rmb();	/* the rest of the entry after its phase bit */

		cookie = le16_to_cpu(cqe->cookie);
		idx = QRNIC_COOKIE_IDX(cookie);
		aq->ci++;
		if (idx >= aq->depth || !aq->ctx[idx].busy ||
		    aq->ctx[idx].seq != QRNIC_COOKIE_SEQ(cookie)) {
			dev_dbg(&qdev->pdev->dev,
				"stale admin completion, cookie %#x\n", cookie);
			continue;
		}
		ctx = &aq->ctx[idx];
		ctx->cqe = *cqe;
		complete(&ctx->done);
	}

	if (aq->ci != start)
		qrnic_wr32(qdev, QRNIC_REG_AQ_CQ_CI, aq->ci);
}

void qrnic_aq_process(struct qrnic_dev *qdev)
{
	unsigned long flags;

	spin_lock_irqsave(&qdev->aq.lock, flags);
	__qrnic_aq_process(qdev);
	spin_unlock_irqrestore(&qdev->aq.lock, flags);
}

void qrnic_aq_set_irq_mode(struct qrnic_dev *qdev, bool use_irq)
{
	unsigned long flags;

	spin_lock_irqsave(&qdev->aq.lock, flags);
	qdev->aq.use_irq = use_irq;
	spin_unlock_irqrestore(&qdev->aq.lock, flags);
}

static struct qrnic_aq_ctx *qrnic_aq_post(struct qrnic_dev *qdev,
					  struct qrnic_cmd *cmd)
{
	struct qrnic_aq *aq = &qdev->aq;
	struct qrnic_aq_ctx *ctx = NULL;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&aq->lock, flags);
	for (i = 0; i < aq->depth; i++) {
		if (!aq->ctx[i].busy) {
			ctx = &aq->ctx[i];
			break;
		}
	}
	/* The semaphore guarantees a free context. */
	if (WARN_ON_ONCE(!ctx)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return NULL;
	}
	ctx->busy = true;
	ctx->seq++;
	reinit_completion(&ctx->done);
	cmd->cookie = cpu_to_le16(QRNIC_COOKIE(i, ctx->seq));
	memcpy(&aq->sq[aq->pi & (aq->depth - 1)], cmd, sizeof(*cmd));
	aq->pi++;
	/* writel orders the ring write before the doorbell */
	qrnic_wr32(qdev, QRNIC_REG_AQ_DB, aq->pi);
	spin_unlock_irqrestore(&aq->lock, flags);
	return ctx;
}

/* Wait for completion; returns true if ctx->cqe is valid. */
static bool qrnic_aq_wait(struct qrnic_dev *qdev, struct qrnic_aq_ctx *ctx)
{
	unsigned long timeout = msecs_to_jiffies(QRNIC_AQ_TIMEOUT_MS);
	unsigned long deadline = jiffies + timeout;

	if (READ_ONCE(qdev->aq.use_irq)) {
		if (wait_for_completion_timeout(&ctx->done, timeout))
			return true;
	} else {
		while (time_before(jiffies, deadline)) {
			qrnic_aq_process(qdev);
			if (completion_done(&ctx->done))
				return true;
			usleep_range(50, 200);
		}
	}
	/* Last chance, in case an interrupt got lost. */
	qrnic_aq_process(qdev);
	return completion_done(&ctx->done);
}

/*
 * A posted command is over: free its context and map its status.  done
 * says whether its completion arrived; if not, the device is gone.
 */
static int qrnic_aq_finish(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
			   struct qrnic_aq_ctx *ctx, bool done,
			   u32 *result0, u32 *result1)
{
	struct qrnic_aq *aq = &qdev->aq;
	struct qrnic_cqe_admin cqe;
	unsigned long flags;
	int ret;

	/*
	 * Copy the completion before the context is free: the next command
	 * may take it, and its completion overwrite ctx->cqe, as soon as the
	 * lock is dropped.
	 */
	spin_lock_irqsave(&aq->lock, flags);
	done = done || completion_done(&ctx->done);
	cqe = ctx->cqe;
	ctx->busy = false;
	if (!done)
		aq->dead = true;
	spin_unlock_irqrestore(&aq->lock, flags);

	if (!done) {
		dev_err(&qdev->pdev->dev,
			"admin command %s timed out after %u ms, status %#x\n",
			qrnic_cmd_name(cmd->opcode), QRNIC_AQ_TIMEOUT_MS,
			qrnic_rd32(qdev, QRNIC_REG_STATUS));
		return -ETIMEDOUT;
	}

	ret = qrnic_status_to_errno(cqe.status);
	if (ret) {
		dev_dbg(&qdev->pdev->dev, "admin command %s failed: status %u\n",
			qrnic_cmd_name(cmd->opcode), cqe.status);
		return ret;
	}
	if (result0)
		*result0 = le32_to_cpu(cqe.result0);
	if (result1)
		*result1 = le32_to_cpu(cqe.result1);
	return 0;
}

/*
 * Take a command slot for qrnic_aq_exec_atomic(); may sleep.  0 or a
 * negative errno; qrnic_aq_put_slot() gives it back.
 */
int qrnic_aq_get_slot(struct qrnic_dev *qdev)
{
	struct qrnic_aq *aq = &qdev->aq;

	might_sleep();
	if (READ_ONCE(aq->dead))
		return -EIO;
	if (down_timeout(&aq->slots, msecs_to_jiffies(QRNIC_AQ_TIMEOUT_MS)))
		return -ETIMEDOUT;
	return 0;
}

void qrnic_aq_put_slot(struct qrnic_dev *qdev)
{
	up(&qdev->aq.slots);
}

/*
 * Execute one admin command and wait for it.  Fills in the cookie.
 * Returns 0 or a negative errno mapped from the device status.
 */
int qrnic_aq_exec(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
		  u32 *result0, u32 *result1)
{
	struct qrnic_aq_ctx *ctx;
	bool done;
	int ret;

	ret = qrnic_aq_get_slot(qdev);
	if (ret)
		return ret;

	ctx = qrnic_aq_post(qdev, cmd);
	if (!ctx) {
		qrnic_aq_put_slot(qdev);
		return -EIO;
	}

	done = qrnic_aq_wait(qdev, ctx);
	ret = qrnic_aq_finish(qdev, cmd, ctx, done, result0, result1);
	qrnic_aq_put_slot(qdev);
	return ret;
}

/*
 * Execute one admin command without sleeping, on a slot the caller took
 * with qrnic_aq_get_slot(): for a command that must run while the caller
 * holds a spinlock.  Busy-waits for the completion, reaping the completion
 * ring itself (the interrupt may be held off on this CPU).
 */
int qrnic_aq_exec_atomic(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
			 u32 *result0, u32 *result1)
{
	ktime_t deadline = ktime_add_ms(ktime_get(), QRNIC_AQ_TIMEOUT_MS);
	struct qrnic_aq_ctx *ctx;
	bool done;

	if (READ_ONCE(qdev->aq.dead))
		return -EIO;
	ctx = qrnic_aq_post(qdev, cmd);
	if (!ctx)
		return -EIO;

	for (;;) {
		qrnic_aq_process(qdev);
		done = completion_done(&ctx->done);
		if (done || ktime_after(ktime_get(), deadline))
			break;
		udelay(2);
	}
	return qrnic_aq_finish(qdev, cmd, ctx, done, result0, result1);
}

/* The commands whose one argument is a 32-bit handle: their arm is just that. */
static_assert(sizeof_field(struct qrnic_cmd, destroy_eq) == sizeof(__le32));
static_assert(sizeof_field(struct qrnic_cmd, dealloc_uctx) == sizeof(__le32));
static_assert(sizeof_field(struct qrnic_cmd, dealloc_pd) == sizeof(__le32));
static_assert(sizeof_field(struct qrnic_cmd, destroy_cq) == sizeof(__le32));
static_assert(sizeof_field(struct qrnic_cmd, dereg_mr) == sizeof(__le32));
static_assert(sizeof_field(struct qrnic_cmd, destroy_qp) == sizeof(__le32));

/*
 * Execute a command that takes only a handle (DESTROY_EQ, DEALLOC_UCTX,
 * DEALLOC_PD, DESTROY_CQ, DEREG_MR, DESTROY_QP); log a failure.
 */
int qrnic_aq_exec_handle(struct qrnic_dev *qdev, u8 opcode, u32 handle)
{
	struct qrnic_cmd cmd = { .opcode = opcode };
	__le32 le_handle = cpu_to_le32(handle);
	int ret;

	memcpy(cmd.raw, &le_handle, sizeof(le_handle));
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		dev_err(&qdev->pdev->dev, "%s %#x failed: %d\n",
			qrnic_cmd_name(opcode), handle, ret);
	return ret;
}

int qrnic_query_device(struct qrnic_dev *qdev)
{
	struct device *dev = &qdev->pdev->dev;
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_QUERY_DEVICE };
	struct qrnic_dev_attr *attr;
	dma_addr_t dma;
	int ret;

	attr = dma_alloc_coherent(dev, sizeof(*attr), &dma, GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	cmd.query_device.resp_addr = cpu_to_le64(dma);
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (!ret) {
		qdev->attr = *attr;
		dev_info(dev, "%u user contexts, each at most %u PDs, %u CQs, %u QPs, %u SRQs, %u MRs, %u MWs, %u queue memory pages, %u MR pages\n",
			 le32_to_cpu(attr->max_uctx),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_PD]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_CQ]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_QP]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_SRQ]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_MR]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_MW]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_QMEM_PAGES]),
			 le32_to_cpu(attr->ctx_max[QRNIC_CTX_MR_PAGES]));
	} else {
		dev_err(dev, "QUERY_DEVICE failed: %d\n", ret);
	}
	dma_free_coherent(dev, sizeof(*attr), attr, dma);
	return ret;
}
