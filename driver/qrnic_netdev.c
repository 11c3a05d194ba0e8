// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic Ethernet: one TX and one RX descriptor ring on MSI-X vector 1,
 * serviced by NAPI.  The hard irq masks the vector in INTR_MASK; the poll
 * unmasks it when done (the device then fires again if work arrived).
 */
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/interrupt.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/if_vlan.h>

#include "qrnic.h"

#define QRNIC_TX_WAKE_THRESH	(MAX_SKB_FRAGS + 2)

struct qrnic_netdev_priv {
	struct qrnic_dev *qdev;
};

static struct qrnic_dev *qrnic_from_netdev(struct net_device *netdev)
{
	struct qrnic_netdev_priv *priv = netdev_priv(netdev);

	return priv->qdev;
}

static u32 qrnic_ring_used(struct qrnic_eth_ring *ring)
{
	return (u16)(READ_ONCE(ring->pi) - READ_ONCE(ring->ci));
}

static u32 qrnic_ring_free(struct qrnic_eth_ring *ring)
{
	return ring->depth - qrnic_ring_used(ring);
}

static void qrnic_db_tx(struct qrnic_dev *qdev)
{
	writeq(qdev->tx.pi, qdev->db + QRNIC_DB_ETH_TX);
}

static void qrnic_db_rx(struct qrnic_dev *qdev)
{
	writeq(qdev->rx.pi, qdev->db + QRNIC_DB_ETH_RX);
}

/* ---- rings ------------------------------------------------------------- */

static int qrnic_ring_alloc(struct qrnic_dev *qdev, struct qrnic_eth_ring *ring)
{
	struct device *dev = &qdev->pdev->dev;

	ring->depth = 1U << qrnic_eth_ring_log;
	ring->pi = 0;
	ring->ci = 0;
	ring->bufs = kcalloc(ring->depth, sizeof(*ring->bufs), GFP_KERNEL);
	if (!ring->bufs)
		return -ENOMEM;
	ring->desc = dma_alloc_coherent(dev, ring->depth * sizeof(*ring->desc),
					&ring->dma, GFP_KERNEL);
	if (!ring->desc) {
		kfree(ring->bufs);
		ring->bufs = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void qrnic_ring_free_mem(struct qrnic_dev *qdev,
				struct qrnic_eth_ring *ring)
{
	if (ring->desc)
		dma_free_coherent(&qdev->pdev->dev,
				  ring->depth * sizeof(*ring->desc),
				  ring->desc, ring->dma);
	kfree(ring->bufs);
	ring->desc = NULL;
	ring->bufs = NULL;
}

/* Release every buffer still owned by a ring (device no longer uses it). */
static void qrnic_ring_drain(struct qrnic_dev *qdev,
			     struct qrnic_eth_ring *ring,
			     enum dma_data_direction dir)
{
	u32 i;

	for (i = 0; i < ring->depth; i++) {
		struct qrnic_eth_buf *buf = &ring->bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(&qdev->pdev->dev, buf->dma, buf->len, dir);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
}

/*
 * A ring slot's skb and its mapping, in the driver's books and the
 * descriptor; the caller writes the descriptor's flags.
 */
static void qrnic_eth_slot_set(struct qrnic_eth_buf *buf,
			       struct qrnic_eth_desc *desc,
			       struct sk_buff *skb, dma_addr_t dma, u32 len)
{
	buf->skb = skb;
	buf->dma = dma;
	buf->len = len;
	desc->addr = cpu_to_le64(dma);
	desc->len = cpu_to_le16(len);
	desc->rsvd = 0;
}

static int qrnic_rx_post_one(struct qrnic_dev *qdev)
{
	struct qrnic_eth_ring *rx = &qdev->rx;
	u32 idx = rx->pi & (rx->depth - 1);
	struct qrnic_eth_buf *buf = &rx->bufs[idx];
	struct qrnic_eth_desc *desc = &rx->desc[idx];
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = netdev_alloc_skb_ip_align(qdev->netdev, qdev->rx_buf_len);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(&qdev->pdev->dev, skb->data, qdev->rx_buf_len,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(&qdev->pdev->dev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	qrnic_eth_slot_set(buf, desc, skb, dma, qdev->rx_buf_len);
	/* the device must see a complete descriptor without DONE */
	dma_wmb();
	desc->flags = 0;
	rx->pi++;
	return 0;
}

/* Fill the RX ring; returns the number of buffers posted. */
static u32 qrnic_rx_refill(struct qrnic_dev *qdev)
{
	struct qrnic_eth_ring *rx = &qdev->rx;
	u32 n = 0;

	while (qrnic_ring_free(rx)) {
		if (qrnic_rx_post_one(qdev)) {
			u64_stats_update_begin(&rx->stats.syncp);
			rx->stats.dropped++;
			u64_stats_update_end(&rx->stats.syncp);
			break;
		}
		n++;
	}
	if (n)
		qrnic_db_rx(qdev);	/* writeq orders the ring writes */
	return n;
}

/* ---- NAPI ---------------------------------------------------------------- */

static void qrnic_tx_complete(struct qrnic_dev *qdev, int budget)
{
	struct qrnic_eth_ring *tx = &qdev->tx;
	struct net_device *netdev = qdev->netdev;
	u64 packets = 0, bytes = 0, errors = 0;

	while (tx->ci != READ_ONCE(tx->pi)) {
		u32 idx = tx->ci & (tx->depth - 1);
		struct qrnic_eth_desc *desc = &tx->desc[idx];
		struct qrnic_eth_buf *buf = &tx->bufs[idx];
		u16 flags = le16_to_cpu(READ_ONCE(desc->flags));

		if (!(flags & QRNIC_ETH_DONE))
			break;
		dma_rmb();

		dma_unmap_single(&qdev->pdev->dev, buf->dma, buf->len,
				 DMA_TO_DEVICE);
		if (flags & QRNIC_ETH_ERR) {
			errors++;
		} else {
			packets++;
			bytes += buf->len;
		}
		napi_consume_skb(buf->skb, budget);
		buf->skb = NULL;
		/* no stale DONE for the next lap through the ring */
		desc->flags = 0;
		WRITE_ONCE(tx->ci, tx->ci + 1);
	}

	if (packets || errors) {
		u64_stats_update_begin(&tx->stats.syncp);
		tx->stats.packets += packets;
		tx->stats.bytes += bytes;
		tx->stats.errors += errors;
		u64_stats_update_end(&tx->stats.syncp);
	}

	/* Pairs with the barrier in qrnic_start_xmit(). */
	smp_mb();
	if (unlikely(netif_queue_stopped(netdev)) &&
	    qrnic_ring_free(tx) >= QRNIC_TX_WAKE_THRESH)
		netif_wake_queue(netdev);
}

static int qrnic_rx_poll(struct qrnic_dev *qdev, int budget)
{
	struct qrnic_eth_ring *rx = &qdev->rx;
	struct net_device *netdev = qdev->netdev;
	u64 packets = 0, bytes = 0, errors = 0;
	int done = 0;

	while (done < budget && rx->ci != rx->pi) {
		u32 idx = rx->ci & (rx->depth - 1);
		struct qrnic_eth_desc *desc = &rx->desc[idx];
		struct qrnic_eth_buf *buf = &rx->bufs[idx];
		struct sk_buff *skb;
		u16 flags = le16_to_cpu(READ_ONCE(desc->flags));
		u32 len;

		if (!(flags & QRNIC_ETH_DONE))
			break;
		dma_rmb();
		len = le16_to_cpu(desc->len);

		skb = buf->skb;
		buf->skb = NULL;
		dma_unmap_single(&qdev->pdev->dev, buf->dma, buf->len,
				 DMA_FROM_DEVICE);
		desc->flags = 0;
		rx->ci++;
		done++;

		if ((flags & QRNIC_ETH_ERR) || len < ETH_HLEN || len > buf->len) {
			errors++;
			dev_kfree_skb_any(skb);
			continue;
		}
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, netdev);
		packets++;
		bytes += len;
		napi_gro_receive(&qdev->napi, skb);
	}

	if (done) {
		u64_stats_update_begin(&rx->stats.syncp);
		rx->stats.packets += packets;
		rx->stats.bytes += bytes;
		rx->stats.errors += errors;
		u64_stats_update_end(&rx->stats.syncp);
	}

	qrnic_rx_refill(qdev);
	/* Out of memory with nothing posted: keep polling to retry. */
	if (!qrnic_ring_used(rx))
		return budget;
	return done;
}

static int qrnic_napi_poll(struct napi_struct *napi, int budget)
{
	struct qrnic_dev *qdev = container_of(napi, struct qrnic_dev, napi);
	int done;

	qrnic_tx_complete(qdev, budget);
	done = qrnic_rx_poll(qdev, budget);
	if (done < budget && napi_complete_done(napi, done))
		qrnic_intr_mask(qdev, QRNIC_VEC_ETH, false);
	return min(done, budget);
}

static irqreturn_t qrnic_eth_irq(int irq, void *data)
{
	struct qrnic_dev *qdev = data;

	qrnic_intr_mask(qdev, QRNIC_VEC_ETH, true);
	napi_schedule(&qdev->napi);
	return IRQ_HANDLED;
}

/* ---- net_device_ops --------------------------------------------------- */

static u32 qrnic_rx_buf_len(unsigned int mtu)
{
	return mtu + ETH_HLEN + VLAN_HLEN;
}

static int qrnic_eth_up(struct qrnic_dev *qdev)
{
	struct net_device *netdev = qdev->netdev;
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ETH_SETUP };
	int ret;

	qdev->rx_buf_len = qrnic_rx_buf_len(netdev->mtu);
	ret = qrnic_ring_alloc(qdev, &qdev->tx);
	if (ret)
		return ret;
	ret = qrnic_ring_alloc(qdev, &qdev->rx);
	if (ret)
		goto err_tx;

	/* Descriptors are written before the device knows the ring. */
	while (qrnic_ring_free(&qdev->rx)) {
		ret = qrnic_rx_post_one(qdev);
		if (ret)
			goto err_rx;
	}

	cmd.eth_setup.tx_base = cpu_to_le64(qdev->tx.dma);
	cmd.eth_setup.rx_base = cpu_to_le64(qdev->rx.dma);
	cmd.eth_setup.tx_log_depth = qrnic_eth_ring_log;
	cmd.eth_setup.rx_log_depth = qrnic_eth_ring_log;
	cmd.eth_setup.vector = cpu_to_le16(QRNIC_VEC_ETH);
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret) {
		netdev_err(netdev, "ETH_SETUP failed: %d\n", ret);
		goto err_rx;
	}

	napi_enable(&qdev->napi);
	qrnic_db_rx(qdev);
	qrnic_intr_mask(qdev, QRNIC_VEC_ETH, false);

	mutex_lock(&qdev->link_lock);
	qdev->eth_up = true;
	mutex_unlock(&qdev->link_lock);
	return 0;

err_rx:
	qrnic_ring_drain(qdev, &qdev->rx, DMA_FROM_DEVICE);
	qrnic_ring_free_mem(qdev, &qdev->rx);
err_tx:
	qrnic_ring_free_mem(qdev, &qdev->tx);
	return ret;
}

static void qrnic_eth_down(struct qrnic_dev *qdev)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_ETH_TEARDOWN };
	int ret;

	if (!qdev->eth_up)	/* never came back after an MTU change */
		return;
	mutex_lock(&qdev->link_lock);
	qdev->eth_up = false;
	mutex_unlock(&qdev->link_lock);

	qrnic_intr_mask(qdev, QRNIC_VEC_ETH, true);
	synchronize_irq(pci_irq_vector(qdev->pdev, QRNIC_VEC_ETH));
	napi_disable(&qdev->napi);
	/* a last poll may have unmasked it again */
	qrnic_intr_mask(qdev, QRNIC_VEC_ETH, true);

	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret)
		netdev_err(qdev->netdev, "ETH_TEARDOWN failed: %d\n", ret);

	qrnic_ring_drain(qdev, &qdev->tx, DMA_TO_DEVICE);
	qrnic_ring_drain(qdev, &qdev->rx, DMA_FROM_DEVICE);
	qrnic_ring_free_mem(qdev, &qdev->tx);
	qrnic_ring_free_mem(qdev, &qdev->rx);
}

static int qrnic_open(struct net_device *netdev)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);
	int ret;

	ret = qrnic_eth_up(qdev);
	if (ret)
		return ret;
	netif_start_queue(netdev);
	qrnic_link_update(qdev);
	return 0;
}

static int qrnic_stop(struct net_device *netdev)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);

	netif_tx_disable(netdev);
	qrnic_eth_down(qdev);
	qrnic_link_update(qdev);
	return 0;
}

static netdev_tx_t qrnic_start_xmit(struct sk_buff *skb,
				    struct net_device *netdev)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);
	struct qrnic_eth_ring *tx = &qdev->tx;
	struct qrnic_eth_desc *desc;
	struct qrnic_eth_buf *buf;
	dma_addr_t dma;
	u32 idx;

	if (eth_skb_pad(skb))		/* frees the skb on failure */
		goto dropped;
	if (skb_linearize(skb))
		goto drop;
	if (unlikely(skb->len > QRNIC_ETH_MAX_FRAME))
		goto drop;

	if (unlikely(!qrnic_ring_free(tx))) {
		/* The queue is stopped before the ring fills up. */
		netif_stop_queue(netdev);
		return NETDEV_TX_BUSY;
	}

	dma = dma_map_single(&qdev->pdev->dev, skb->data, skb->len,
			     DMA_TO_DEVICE);
	if (dma_mapping_error(&qdev->pdev->dev, dma))
		goto drop;

	idx = tx->pi & (tx->depth - 1);
	buf = &tx->bufs[idx];
	desc = &tx->desc[idx];
	qrnic_eth_slot_set(buf, desc, skb, dma, skb->len);
	desc->flags = 0;
	skb_tx_timestamp(skb);
	/* publish the slot to qrnic_tx_complete() only once it is filled */
	smp_wmb();
	WRITE_ONCE(tx->pi, tx->pi + 1);

	if (unlikely(qrnic_ring_free(tx) < QRNIC_TX_WAKE_THRESH)) {
		netif_stop_queue(netdev);
		/* Pairs with the barrier in qrnic_tx_complete(). */
		smp_mb();
		if (qrnic_ring_free(tx) >= QRNIC_TX_WAKE_THRESH)
			netif_wake_queue(netdev);
	}

	if (!netdev_xmit_more() || netif_queue_stopped(netdev))
		qrnic_db_tx(qdev);	/* writeq orders the descriptor */
	return NETDEV_TX_OK;

drop:
	dev_kfree_skb_any(skb);
dropped:
	u64_stats_update_begin(&tx->stats.syncp);
	tx->stats.dropped++;
	u64_stats_update_end(&tx->stats.syncp);
	return NETDEV_TX_OK;
}

static int qrnic_set_mac_address(struct net_device *netdev, void *p)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_SET_MAC };
	struct sockaddr *addr = p;
	int ret;

	ret = eth_prepare_mac_addr_change(netdev, p);
	if (ret)
		return ret;
	memcpy(cmd.set_mac.mac, addr->sa_data, ETH_ALEN);
	ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
	if (ret) {
		netdev_err(netdev, "SET_MAC failed: %d\n", ret);
		return ret;
	}
	eth_commit_mac_addr_change(netdev, p);
	return 0;
}

static int qrnic_set_mtu(struct qrnic_dev *qdev, unsigned int mtu)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_SET_MTU };

	cmd.set_mtu.mtu = cpu_to_le32(mtu);
	return qrnic_aq_exec(qdev, &cmd, NULL, NULL);
}

static int qrnic_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);
	bool running = netif_running(netdev);
	int ret;

	ret = qrnic_set_mtu(qdev, new_mtu);
	if (ret) {
		netdev_err(netdev, "SET_MTU %d failed: %d\n", new_mtu, ret);
		return ret;
	}
	if (!running) {
		WRITE_ONCE(netdev->mtu, new_mtu);
		return 0;
	}

	/* RX buffers are sized for the MTU: rebuild the rings. */
	netif_tx_disable(netdev);
	qrnic_eth_down(qdev);
	WRITE_ONCE(netdev->mtu, new_mtu);
	ret = qrnic_eth_up(qdev);
	if (ret)
		netdev_err(netdev, "cannot restart after MTU change: %d\n", ret);
	else
		netif_wake_queue(netdev);
	qrnic_link_update(qdev);
	return ret;
}

static void qrnic_ring_stats_read(struct qrnic_ring_stats *s, u64 *packets,
				  u64 *bytes, u64 *errors, u64 *dropped)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		*packets = s->packets;
		*bytes = s->bytes;
		*errors = s->errors;
		*dropped = s->dropped;
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

static void qrnic_get_stats64(struct net_device *netdev,
			      struct rtnl_link_stats64 *stats)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);

	qrnic_ring_stats_read(&qdev->rx.stats, &stats->rx_packets,
			      &stats->rx_bytes, &stats->rx_errors,
			      &stats->rx_dropped);
	qrnic_ring_stats_read(&qdev->tx.stats, &stats->tx_packets,
			      &stats->tx_bytes, &stats->tx_errors,
			      &stats->tx_dropped);
}

static const struct net_device_ops qrnic_netdev_ops = {
	.ndo_open		= qrnic_open,
	.ndo_stop		= qrnic_stop,
	.ndo_start_xmit		= qrnic_start_xmit,
	.ndo_set_mac_address	= qrnic_set_mac_address,
	.ndo_change_mtu		= qrnic_change_mtu,
	.ndo_get_stats64	= qrnic_get_stats64,
	.ndo_validate_addr	= eth_validate_addr,
};

static void qrnic_get_drvinfo(struct net_device *netdev,
			      struct ethtool_drvinfo *info)
{
	struct qrnic_dev *qdev = qrnic_from_netdev(netdev);
	u32 fw = le32_to_cpu(qdev->attr.fw_version);

	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(qdev->pdev), sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u",
		 fw >> 16, fw & 0xffff);
}

static const struct ethtool_ops qrnic_ethtool_ops = {
	.get_drvinfo	= qrnic_get_drvinfo,
	.get_link	= ethtool_op_get_link,
};

/* ---- probe/remove ------------------------------------------------------ */

static void qrnic_read_mac(struct qrnic_dev *qdev, u8 *mac)
{
	u32 lo = qrnic_rd32(qdev, QRNIC_REG_MAC_LO);
	u32 hi = qrnic_rd32(qdev, QRNIC_REG_MAC_HI);

	mac[0] = lo;
	mac[1] = lo >> 8;
	mac[2] = lo >> 16;
	mac[3] = lo >> 24;
	mac[4] = hi;
	mac[5] = hi >> 8;
}

int qrnic_netdev_init(struct qrnic_dev *qdev)
{
	u32 max_mtu = le32_to_cpu(qdev->attr.max_mtu);
	struct pci_dev *pdev = qdev->pdev;
	struct qrnic_netdev_priv *priv;
	struct net_device *netdev;
	u8 mac[ETH_ALEN];
	int ret;

	netdev = alloc_etherdev(sizeof(*priv));
	if (!netdev)
		return -ENOMEM;
	priv = netdev_priv(netdev);
	priv->qdev = qdev;
	qdev->netdev = netdev;
	SET_NETDEV_DEV(netdev, &pdev->dev);
	netdev->netdev_ops = &qrnic_netdev_ops;
	netdev->ethtool_ops = &qrnic_ethtool_ops;
	netdev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = QRNIC_MAX_MTU;
	if (max_mtu >= ETH_MIN_MTU && max_mtu < QRNIC_MAX_MTU)
		netdev->max_mtu = max_mtu;
	u64_stats_init(&qdev->tx.stats.syncp);
	u64_stats_init(&qdev->rx.stats.syncp);

	qrnic_read_mac(qdev, mac);
	if (is_valid_ether_addr(mac)) {
		eth_hw_addr_set(netdev, mac);
	} else {
		struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_SET_MAC };

		dev_info(&pdev->dev, "no valid MAC address (%pM), using a random one\n",
			 mac);
		eth_hw_addr_random(netdev);
		memcpy(cmd.set_mac.mac, netdev->dev_addr, ETH_ALEN);
		ret = qrnic_aq_exec(qdev, &cmd, NULL, NULL);
		if (ret)
			goto err_free;
	}

	ret = qrnic_set_mtu(qdev, netdev->mtu);
	if (ret) {
		dev_err(&pdev->dev, "SET_MTU failed: %d\n", ret);
		goto err_free;
	}

	netif_napi_add(netdev, &qdev->napi, qrnic_napi_poll);
	qrnic_intr_mask(qdev, QRNIC_VEC_ETH, true);
	ret = request_irq(pci_irq_vector(pdev, QRNIC_VEC_ETH), qrnic_eth_irq, 0,
			  DRV_NAME "-eth", qdev);
	if (ret) {
		dev_err(&pdev->dev, "cannot request the Ethernet interrupt: %d\n",
			ret);
		goto err_napi;
	}

	netif_carrier_off(netdev);
	ret = register_netdev(netdev);
	if (ret) {
		dev_err(&pdev->dev, "register_netdev failed: %d\n", ret);
		goto err_irq;
	}
	mutex_lock(&qdev->link_lock);
	qdev->netdev_registered = true;
	mutex_unlock(&qdev->link_lock);
	return 0;

err_irq:
	free_irq(pci_irq_vector(pdev, QRNIC_VEC_ETH), qdev);
err_napi:
	netif_napi_del(&qdev->napi);
err_free:
	free_netdev(netdev);
	qdev->netdev = NULL;
	return ret;
}

void qrnic_netdev_uninit(struct qrnic_dev *qdev)
{
	mutex_lock(&qdev->link_lock);
	qdev->netdev_registered = false;
	mutex_unlock(&qdev->link_lock);
	unregister_netdev(qdev->netdev);	/* stops it if running */
	free_irq(pci_irq_vector(qdev->pdev, QRNIC_VEC_ETH), qdev);
	netif_napi_del(&qdev->napi);
	free_netdev(qdev->netdev);
	qdev->netdev = NULL;
}
