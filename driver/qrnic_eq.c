// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic event queues: ring helpers shared by all EQs, and vector 0, which
 * serves admin completions (hard irq) and the async event queue (irq
 * thread, because reporting an event to ib_core may sleep): link, QP, CQ
 * and SRQ events.
 */
#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io-64-nonatomic-lo-hi.h>

#include "qrnic.h"
#include "qrnic_ib.h"

static u32 qrnic_eq_depth(struct qrnic_eq *eq)
{
	return 1U << eq->log_depth;
}

static size_t qrnic_eq_size(struct qrnic_eq *eq)
{
	return qrnic_eq_depth(eq) * sizeof(*eq->ring);
}

/* The entry at ci if the device has written it, else NULL. */
struct qrnic_eqe *qrnic_eq_next(struct qrnic_eq *eq)
{
	struct qrnic_eqe *eqe = &eq->ring[eq->ci & (qrnic_eq_depth(eq) - 1)];
	u32 phase = !((eq->ci >> eq->log_depth) & 1);

	if ((le32_to_cpu(READ_ONCE(eqe->flags)) & QRNIC_EQE_PHASE) != phase)
		return NULL;
	dma_rmb();	/* the entry's payload after its phase bit */
	return eqe;
}

/* Hand consumed entries back to the device (doorbell page 0). */
void qrnic_eq_doorbell(struct qrnic_dev *qdev, struct qrnic_eq *eq)
{
	/* The device keeps 16-bit indexes and rejects anything wider. */
	writeq(eq->eqn | (u64)(u16)eq->ci << 32, qdev->db + QRNIC_DB_EQ);
}

/* Allocate the ring and create the EQ in the device. */
int qrnic_eq_create(struct qrnic_dev *qdev, struct qrnic_eq *eq, u32 log_depth,
		    u8 flags, u16 vector)
{
	struct qrnic_cmd cmd = { .opcode = QRNIC_CMD_CREATE_EQ };
	struct device *dev = &qdev->pdev->dev;
	u32 eqn;
	int ret;

	eq->log_depth = log_depth;
	eq->ci = 0;
	eq->ring = dma_alloc_coherent(dev, qrnic_eq_size(eq), &eq->dma,
				      GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	cmd.create_eq.base = cpu_to_le64(eq->dma);
	cmd.create_eq.log_depth = log_depth;
	cmd.create_eq.flags = flags;
	cmd.create_eq.vector = cpu_to_le16(vector);
	ret = qrnic_aq_exec(qdev, &cmd, &eqn, NULL);
	if (ret) {
		dev_err(dev, "CREATE_EQ (vector %u) failed: %d\n", vector, ret);
		/* Not created: the device never got the ring. */
		dma_free_coherent(dev, qrnic_eq_size(eq), eq->ring, eq->dma);
		eq->ring = NULL;
		return ret;
	}
	eq->eqn = eqn;
	WRITE_ONCE(eq->created, true);
	return 0;
}

void qrnic_eq_destroy(struct qrnic_dev *qdev, struct qrnic_eq *eq)
{
	if (!eq->created)
		return;
	WRITE_ONCE(eq->created, false);
	qrnic_aq_exec_handle(qdev, QRNIC_CMD_DESTROY_EQ, eq->eqn);
}

/* After the device is reset (it may still have had the ring). */
void qrnic_eq_free(struct qrnic_dev *qdev, struct qrnic_eq *eq)
{
	if (!eq->ring)
		return;
	dma_free_coherent(&qdev->pdev->dev, qrnic_eq_size(eq), eq->ring,
			  eq->dma);
	eq->ring = NULL;
}

static irqreturn_t qrnic_async_irq(int irq, void *data)
{
	struct qrnic_dev *qdev = data;
	struct qrnic_eq *eq = &qdev->async_eq;

	qrnic_aq_process(qdev);

	if (READ_ONCE(eq->created) && qrnic_eq_next(eq))
		return IRQ_WAKE_THREAD;
	return IRQ_HANDLED;
}

static irqreturn_t qrnic_async_thread(int irq, void *data)
{
	struct qrnic_dev *qdev = data;
	struct qrnic_eq *eq = &qdev->async_eq;
	struct qrnic_eqe *eqe;
	bool link = false;
	u32 n = 0;

	if (!READ_ONCE(eq->created))
		return IRQ_HANDLED;

	while ((eqe = qrnic_eq_next(eq))) {
		u32 data0 = le32_to_cpu(eqe->data0);
		u32 data1 = le32_to_cpu(eqe->data1);

		switch (eqe->type) {
		case QRNIC_EVENT_LINK:
			link = true;
			break;
		case QRNIC_EVENT_QP_FATAL:
			qrnic_qp_async_event(qdev, data0, IB_EVENT_QP_FATAL,
					     data1);
			break;
		case QRNIC_EVENT_SQ_DRAINED:
			qrnic_qp_async_event(qdev, data0, IB_EVENT_SQ_DRAINED,
					     0);
			break;
		case QRNIC_EVENT_CQ_ERR:
			qrnic_cq_async_event(qdev, data0);
			break;
		case QRNIC_EVENT_SRQ_LIMIT:
			qrnic_srq_async_event(qdev, data0);
			break;
		default:
			dev_dbg(&qdev->pdev->dev,
				"async event %u (%#x, %#x) ignored\n",
				eqe->type, data0, data1);
			break;
		}
		eq->ci++;
		n++;
	}
	if (n)
		qrnic_eq_doorbell(qdev, eq);

	/* STATUS.LINK_UP is the current state; events only say it changed. */
	if (link)
		qrnic_link_update(qdev);
	return IRQ_HANDLED;
}

int qrnic_async_irq_request(struct qrnic_dev *qdev)
{
	struct pci_dev *pdev = qdev->pdev;
	int ret;

	ret = request_threaded_irq(pci_irq_vector(pdev, QRNIC_VEC_ASYNC),
				   qrnic_async_irq, qrnic_async_thread, 0,
				   DRV_NAME "-async", qdev);
	if (ret) {
		dev_err(&pdev->dev, "cannot request the async interrupt: %d\n",
			ret);
		return ret;
	}
	qrnic_aq_set_irq_mode(qdev, true);
	/* Completions that raced with the switch. */
	qrnic_aq_process(qdev);
	return 0;
}

void qrnic_async_irq_free(struct qrnic_dev *qdev)
{
	qrnic_aq_set_irq_mode(qdev, false);
	free_irq(pci_irq_vector(qdev->pdev, QRNIC_VEC_ASYNC), qdev);
}

int qrnic_async_eq_create(struct qrnic_dev *qdev)
{
	return qrnic_eq_create(qdev, &qdev->async_eq, QRNIC_ASYNC_EQ_LOG,
			       QRNIC_EQ_ASYNC, QRNIC_VEC_ASYNC);
}

void qrnic_async_eq_destroy(struct qrnic_dev *qdev)
{
	qrnic_eq_destroy(qdev, &qdev->async_eq);
}

void qrnic_async_eq_free(struct qrnic_dev *qdev)
{
	qrnic_eq_free(qdev, &qdev->async_eq);
}

/*
 * Bring carrier and the RDMA port in line with the device's link and the
 * netdev's state.  Process context.
 */
void qrnic_link_update(struct qrnic_dev *qdev)
{
	struct net_device *netdev = qdev->netdev;
	bool up;

	mutex_lock(&qdev->link_lock);
	up = qrnic_rd32(qdev, QRNIC_REG_STATUS) & QRNIC_STATUS_LINK_UP;
	if (up != qdev->link_up)
		dev_info(&qdev->pdev->dev, "link %s\n", up ? "up" : "down");
	qdev->link_up = up;
	if (qdev->netdev_registered) {
		if (up && qdev->eth_up)
			netif_carrier_on(netdev);
		else
			netif_carrier_off(netdev);
	}
	qrnic_ib_port_event(qdev);
	mutex_unlock(&qdev->link_lock);
}
