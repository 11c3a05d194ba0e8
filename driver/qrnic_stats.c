// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic hw counters (rdma statistic, sysfs hw_counters): the device's
 * transport counters (QUERY_STATS) followed by its resource counts
 * (QUERY_RES), read fresh on every query.
 */
#include <linux/dma-mapping.h>
#include <rdma/ib_verbs.h>

#include "qrnic.h"
#include "qrnic_ib.h"

enum qrnic_res_stat {
	QRNIC_RES_UCTX = QRNIC_STAT_COUNT,
	QRNIC_RES_PD,
	QRNIC_RES_CQ,
	QRNIC_RES_QP,
	QRNIC_RES_MR,
	QRNIC_RES_MR_PAGES,
	QRNIC_RES_SRQ,
	QRNIC_RES_MW,
	QRNIC_RES_CQ_PAGES,
	QRNIC_HW_STATS_NUM
};

static const struct rdma_stat_desc qrnic_stat_descs[] = {
	[QRNIC_STAT_TX_ROCE_PKTS].name		= "tx_roce_pkts",
	[QRNIC_STAT_RX_ROCE_PKTS].name		= "rx_roce_pkts",
	[QRNIC_STAT_RX_ICRC_ERR].name		= "rx_icrc_err",
	[QRNIC_STAT_RX_BAD_PKT].name		= "rx_bad_pkt",
	[QRNIC_STAT_RETRANS_PKTS].name		= "retrans_pkts",
	[QRNIC_STAT_ACK_TIMEOUTS].name		= "ack_timeouts",
	[QRNIC_STAT_SEQ_NAKS_RX].name		= "seq_naks_rx",
	[QRNIC_STAT_SEQ_NAKS_TX].name		= "seq_naks_tx",
	[QRNIC_STAT_RNR_NAKS_RX].name		= "rnr_naks_rx",
	[QRNIC_STAT_RNR_NAKS_TX].name		= "rnr_naks_tx",
	[QRNIC_STAT_DUP_REQS].name		= "dup_reqs",
	[QRNIC_STAT_REM_ACCESS_ERRS].name	= "rem_access_errs",
	[QRNIC_STAT_CQ_OVERFLOWS].name		= "cq_overflows",
	[QRNIC_STAT_RX_QKEY_ERR].name		= "rx_qkey_err",
	[QRNIC_STAT_RX_UD_NO_RQE].name		= "rx_ud_no_rqe",
	[QRNIC_STAT_FAULT_DROP_TX].name		= "fault_drop_tx",
	[QRNIC_STAT_FAULT_DROP_RX].name		= "fault_drop_rx",
	[QRNIC_STAT_FAULT_DUP_TX].name		= "fault_dup_tx",
	[QRNIC_STAT_FAULT_DUP_RX].name		= "fault_dup_rx",
	[QRNIC_STAT_FAULT_REORDER_TX].name	= "fault_reorder_tx",
	[QRNIC_STAT_FAULT_REORDER_RX].name	= "fault_reorder_rx",
	[QRNIC_STAT_FAULT_CORRUPT_TX].name	= "fault_corrupt_tx",
	[QRNIC_STAT_FAULT_CORRUPT_RX].name	= "fault_corrupt_rx",
	[QRNIC_STAT_CTX_OVER_QUOTA].name	= "ctx_over_quota",
	[QRNIC_STAT_BACKLOG_DROP].name		= "backlog_drop",
	[QRNIC_RES_UCTX].name			= "res_uctx",
	[QRNIC_RES_PD].name			= "res_pd",
	[QRNIC_RES_CQ].name			= "res_cq",
	[QRNIC_RES_QP].name			= "res_qp",
	[QRNIC_RES_MR].name			= "res_mr",
	[QRNIC_RES_MR_PAGES].name		= "res_mr_pages",
	[QRNIC_RES_SRQ].name			= "res_srq",
	[QRNIC_RES_MW].name			= "res_mw",
	[QRNIC_RES_CQ_PAGES].name		= "res_cq_pages",
};

static_assert(ARRAY_SIZE(qrnic_stat_descs) == QRNIC_HW_STATS_NUM);

/* Both responses in one DMA buffer. */
struct qrnic_stats_buf {
	struct qrnic_stats_resp stats;
	struct qrnic_res_counts res;
};

struct rdma_hw_stats *qrnic_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	return rdma_alloc_hw_stats_struct(qrnic_stat_descs, QRNIC_HW_STATS_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int qrnic_query_stats(struct qrnic_dev *qdev, dma_addr_t dma)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_QUERY_STATS };
	int ret;

	cmd.query_stats.resp_addr =
		cpu_to_le64(dma + offsetof(struct qrnic_stats_buf, stats));
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		return ret;

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = QRNIC_CMD_QUERY_RES;
	cmd.query_res.resp_addr =
		cpu_to_le64(dma + offsetof(struct qrnic_stats_buf, res));
	return qrnic_aq_exec(qdev, &cmd, NULL, NULL);
}

int qrnic_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct qrnic_dev *qdev = to_qdev(ibdev);
	struct device *dev = &qdev->pdev->dev;
	struct qrnic_stats_buf *buf;
	dma_addr_t dma;
	int i, ret;

	buf = dma_alloc_coherent(dev, sizeof(*buf), &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = qrnic_query_stats(qdev, dma);
	if (ret)
		goto out;

	for (i = 0; i < QRNIC_STAT_COUNT; i++)
		stats->value[i] = le64_to_cpu(buf->stats.v[i]);
	stats->value[QRNIC_RES_UCTX] = le32_to_cpu(buf->res.uctx);
	stats->value[QRNIC_RES_PD] = le32_to_cpu(buf->res.pd);
	stats->value[QRNIC_RES_CQ] = le32_to_cpu(buf->res.cq);
	stats->value[QRNIC_RES_QP] = le32_to_cpu(buf->res.qp);
	stats->value[QRNIC_RES_MR] = le32_to_cpu(buf->res.mr);
	stats->value[QRNIC_RES_MR_PAGES] = le32_to_cpu(buf->res.mr_pages);
	stats->value[QRNIC_RES_SRQ] = le32_to_cpu(buf->res.srq);
	stats->value[QRNIC_RES_MW] = le32_to_cpu(buf->res.mw);
	stats->value[QRNIC_RES_CQ_PAGES] = le32_to_cpu(buf->res.cq_pages);
	ret = QRNIC_HW_STATS_NUM;
out:
	dma_free_coherent(dev, sizeof(*buf), buf, dma);
	return ret;
}
