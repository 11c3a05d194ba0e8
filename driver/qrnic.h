/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * qrnic: driver for the emulated qrnic RoCEv2 NIC.
 * Shared definitions of the driver's parts.
 */
#ifndef QRNIC_H
#define QRNIC_H

#include <linux/types.h>
#include <linux/idr.h>
#include <linux/pci.h>
#include <linux/netdevice.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/completion.h>
#include <linux/u64_stats_sync.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <qrnic_hw.h>

#define DRV_NAME		"qrnic"

#define QRNIC_VEC_ASYNC		0	/* admin queue + async EQ */
#define QRNIC_VEC_ETH		1	/* Ethernet TX and RX */
#define QRNIC_VEC_CEQ0		2	/* first completion EQ */
#define QRNIC_MIN_VECS		(QRNIC_VEC_CEQ0 + 1)

#define QRNIC_ASYNC_EQ_LOG	10	/* QP and CQ events as well as link */
#define QRNIC_CEQ_LOG		10
#define QRNIC_AQ_TIMEOUT_MS	5000

/* Module parameters, validated in module init. */
extern unsigned int qrnic_aq_log_depth;
extern unsigned int qrnic_eth_ring_log;

struct qrnic_aq_ctx {
	struct completion done;
	struct qrnic_cqe_admin cqe;
	u8 seq;			/* high byte of the cookie */
	bool busy;
};

struct qrnic_aq {
	struct qrnic_cmd *sq;
	dma_addr_t sq_dma;
	struct qrnic_cqe_admin *cq;
	dma_addr_t cq_dma;
	u32 log_depth;
	u32 depth;
	u32 pi;			/* free running command producer index */
	u32 ci;			/* free running completion consumer index */
	spinlock_t lock;	/* rings, indexes, contexts */
	struct semaphore slots;	/* commands in flight <= depth */
	struct qrnic_aq_ctx *ctx;
	bool use_irq;
	bool dead;		/* a command timed out: the device is gone */
};

struct qrnic_eq {
	struct qrnic_eqe *ring;
	dma_addr_t dma;
	u32 log_depth;
	u32 ci;			/* free running */
	u32 eqn;
	bool created;
};

/* A completion event queue and its MSI-X vector. */
struct qrnic_ceq {
	struct qrnic_eq eq;
	struct qrnic_dev *qdev;
	unsigned int vec;
	bool irq_requested;
	char name[32];
};

/* BAR4 queue memory: a bitmap of QRNIC_QMEM_PAGE_SIZE pages. */
struct qrnic_qmem {
	spinlock_t lock;		/* bitmap */
	unsigned long *bitmap;
	u32 npages;
	u32 used;
	void __iomem *va;		/* the whole BAR, write-combining */
};

struct qrnic_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

struct qrnic_ring_stats {
	u64 packets;
	u64 bytes;
	u64 errors;
	u64 dropped;
	struct u64_stats_sync syncp;
};

struct qrnic_eth_ring {
	struct qrnic_eth_desc *desc;
	dma_addr_t dma;
	struct qrnic_eth_buf *bufs;
	u32 depth;
	u16 pi;			/* free running, as the device sees it */
	u16 ci;
	struct qrnic_ring_stats stats;
};

struct qrnic_dev {
	struct ib_device ibdev;		/* first: allocated by ib_alloc_device */
	struct pci_dev *pdev;
	struct net_device *netdev;

	void __iomem *regs;		/* BAR0 */
	void __iomem *db;		/* BAR2 page 0, the kernel's doorbells */
	resource_size_t db_start;	/* BAR2 bus address, for user mappings */
	resource_size_t db_len;
	resource_size_t qmem_start;	/* BAR4: queue memory */
	resource_size_t qmem_len;

	u32 cap0;
	u32 num_db_pages;
	u32 aq_max_log;
	struct qrnic_dev_attr attr;	/* QUERY_DEVICE */

	int nvecs;
	spinlock_t intr_lock;		/* intr_mask */
	u32 intr_mask;

	struct qrnic_aq aq;
	struct qrnic_eq async_eq;
	struct qrnic_ceq *ceqs;		/* vectors QRNIC_VEC_CEQ0.. */
	u32 num_ceqs;

	/* RDMA objects (with QRNIC_CAP0_RC) */
	struct qrnic_qmem qmem;
	struct xarray cq_xa;		/* cqn -> struct qrnic_cq */
	struct xarray qp_xa;		/* qpn -> struct qrnic_qp */
	struct xarray srq_xa;		/* srqn -> struct qrnic_srq */
	struct ida xrcd_ida;		/* XRC domain numbers (the driver's) */
	atomic_t num_ah;		/* software AHs, <= QRNIC_MAX_AH */

	/* Ethernet */
	struct napi_struct napi;
	struct qrnic_eth_ring tx;
	struct qrnic_eth_ring rx;
	u32 rx_buf_len;
	bool eth_up;			/* rings set up in the device */

	/* link state, serialised by link_lock */
	struct mutex link_lock;
	bool link_up;			/* device's view (STATUS.LINK_UP) */
	bool port_active;		/* last state reported to ib_core */
	bool ib_registered;
	bool netdev_registered;
};

static inline struct qrnic_dev *to_qdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct qrnic_dev, ibdev);
}

static inline u32 qrnic_rd32(struct qrnic_dev *qdev, u32 reg)
{
	return readl(qdev->regs + reg);
}

static inline void qrnic_wr32(struct qrnic_dev *qdev, u32 reg, u32 val)
{
	writel(val, qdev->regs + reg);
}

void qrnic_intr_mask(struct qrnic_dev *qdev, unsigned int vec, bool masked);

/* qrnic_aq.c: admin queue */
int qrnic_aq_alloc(struct qrnic_dev *qdev);
void qrnic_aq_free(struct qrnic_dev *qdev);
void qrnic_aq_program(struct qrnic_dev *qdev);
void qrnic_aq_process(struct qrnic_dev *qdev);
void qrnic_aq_set_irq_mode(struct qrnic_dev *qdev, bool use_irq);
int qrnic_aq_exec(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
		  u32 *result0, u32 *result1);
int qrnic_aq_get_slot(struct qrnic_dev *qdev);
void qrnic_aq_put_slot(struct qrnic_dev *qdev);
int qrnic_aq_exec_atomic(struct qrnic_dev *qdev, struct qrnic_cmd *cmd,
			 u32 *result0, u32 *result1);
int qrnic_aq_exec_handle(struct qrnic_dev *qdev, u8 opcode, u32 handle);
int qrnic_query_device(struct qrnic_dev *qdev);

/* qrnic_eq.c: event queues, the async EQ and vector 0 */
int qrnic_eq_create(struct qrnic_dev *qdev, struct qrnic_eq *eq, u32 log_depth,
		    u8 flags, u16 vector);
void qrnic_eq_destroy(struct qrnic_dev *qdev, struct qrnic_eq *eq);
void qrnic_eq_free(struct qrnic_dev *qdev, struct qrnic_eq *eq);
struct qrnic_eqe *qrnic_eq_next(struct qrnic_eq *eq);
void qrnic_eq_doorbell(struct qrnic_dev *qdev, struct qrnic_eq *eq);
int qrnic_async_irq_request(struct qrnic_dev *qdev);
void qrnic_async_irq_free(struct qrnic_dev *qdev);
int qrnic_async_eq_create(struct qrnic_dev *qdev);
void qrnic_async_eq_destroy(struct qrnic_dev *qdev);
void qrnic_async_eq_free(struct qrnic_dev *qdev);
void qrnic_link_update(struct qrnic_dev *qdev);

/* qrnic_ceq.c: completion event queues, vectors QRNIC_VEC_CEQ0.. */
int qrnic_ceqs_create(struct qrnic_dev *qdev);
void qrnic_ceqs_destroy(struct qrnic_dev *qdev);
void qrnic_ceqs_free(struct qrnic_dev *qdev);

/* qrnic_qmem.c: queue memory (BAR4) pages */
int qrnic_qmem_init(struct qrnic_dev *qdev);
void qrnic_qmem_uninit(struct qrnic_dev *qdev);
int qrnic_qmem_alloc(struct qrnic_dev *qdev, u32 len, u32 *offset);
void qrnic_qmem_free(struct qrnic_dev *qdev, u32 offset, u32 len);

/* qrnic_netdev.c: Ethernet */
int qrnic_netdev_init(struct qrnic_dev *qdev);
void qrnic_netdev_uninit(struct qrnic_dev *qdev);

/* qrnic_verbs.c: ib_device */
int qrnic_ib_register(struct qrnic_dev *qdev);
void qrnic_ib_unregister(struct qrnic_dev *qdev);
void qrnic_ib_port_event(struct qrnic_dev *qdev);

#endif /* QRNIC_H */
