// SPDX-License-Identifier: GPL-2.0-only
/*
 * qrnic completion event queues: one EQ per MSI-X vector from
 * QRNIC_VEC_CEQ0 on, each a completion vector of the ib_device.  The hard
 * irq drains the EQ and calls the completion handler of each CQ named.
 */
#include <linux/interrupt.h>

#include "qrnic.h"
#include "qrnic_ib.h"

static irqreturn_t qrnic_ceq_irq(int irq, void *data)
{
	struct qrnic_ceq *ceq = data;
	struct qrnic_dev *qdev = ceq->qdev;
	struct qrnic_eq *eq = &ceq->eq;
	struct qrnic_eqe *eqe;
	u32 n = 0;

	if (!READ_ONCE(eq->created))
		return IRQ_HANDLED;

	/* At most a ring's worth: the device waits for the doorbell. */
	while ((eqe = qrnic_eq_next(eq))) {
		u8 type = eqe->type;
		u32 cqn = le32_to_cpu(eqe->data0);

		eq->ci++;
		n++;
		if (type == QRNIC_EVENT_CQ)
			qrnic_cq_comp_event(qdev, cqn);
		else
			dev_dbg_ratelimited(&qdev->pdev->dev,
					    "completion EQ %u: event %u ignored\n",
					    eq->eqn, type);
	}
	if (n)
		qrnic_eq_doorbell(qdev, eq);
	return IRQ_HANDLED;
}

static int qrnic_ceq_create(struct qrnic_dev *qdev, struct qrnic_ceq *ceq,
			    u32 idx)
{
	struct pci_dev *pdev = qdev->pdev;
	int ret;

	ceq->qdev = qdev;
	ceq->vec = QRNIC_VEC_CEQ0 + idx;
	snprintf(ceq->name, sizeof(ceq->name), DRV_NAME "-ceq%u", idx);

	ret = request_irq(pci_irq_vector(pdev, ceq->vec), qrnic_ceq_irq, 0,
			  ceq->name, ceq);
	if (ret) {
		dev_err(&pdev->dev, "cannot request interrupt %s: %d\n",
			ceq->name, ret);
		return ret;
	}
	ceq->irq_requested = true;

	ret = qrnic_eq_create(qdev, &ceq->eq, QRNIC_CEQ_LOG, 0, ceq->vec);
	if (ret)
		return ret;
	qrnic_intr_mask(qdev, ceq->vec, false);
	return 0;
}

/*
 * One CEQ per vector beyond the async and Ethernet ones.  On failure the
 * caller unwinds with qrnic_ceqs_destroy() and, after the device reset,
 * qrnic_ceqs_free().
 */
int qrnic_ceqs_create(struct qrnic_dev *qdev)
{
	u32 i, n = qdev->nvecs - QRNIC_VEC_CEQ0;
	int ret;

	qdev->ceqs = kcalloc(n, sizeof(*qdev->ceqs), GFP_KERNEL);
	if (!qdev->ceqs)
		return -ENOMEM;
	qdev->num_ceqs = n;

	for (i = 0; i < n; i++) {
		ret = qrnic_ceq_create(qdev, &qdev->ceqs[i], i);
		if (ret)
			return ret;
	}
	return 0;
}

/* Stop the vectors and destroy the EQs; the rings stay until the reset. */
void qrnic_ceqs_destroy(struct qrnic_dev *qdev)
{
	struct qrnic_ceq *ceq;
	u32 i;

	for (i = 0; i < qdev->num_ceqs; i++) {
		ceq = &qdev->ceqs[i];
		if (!ceq->irq_requested)
			continue;
		qrnic_intr_mask(qdev, ceq->vec, true);
		qrnic_eq_destroy(qdev, &ceq->eq);
		free_irq(pci_irq_vector(qdev->pdev, ceq->vec), ceq);
		ceq->irq_requested = false;
	}
}

/* After the device is reset. */
void qrnic_ceqs_free(struct qrnic_dev *qdev)
{
	u32 i;

	for (i = 0; i < qdev->num_ceqs; i++)
		qrnic_eq_free(qdev, &qdev->ceqs[i].eq);
	kfree(qdev->ceqs);
	qdev->ceqs = NULL;
	qdev->num_ceqs = 0;
}
