/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: the one list of QPs there is, a doubly linked FIFO through
 * links in struct qrnic_qpc (a flag saying whether it is on the list, a
 * previous and a next pointer per list).  QRNIC_QP_LIST_FNS(name, queued,
 * prev, next) defines name_add() (at the tail) and name_del() for the
 * list through those three fields.
 */
#ifndef QRNIC_QP_LIST_H
#define QRNIC_QP_LIST_H

#include <stddef.h>
#include "qrnic_rdma.h"

#define QRNIC_QP_LIST_FNS(name, queued, prev, next)                        \
static inline void name##_add(struct qrnic_qpc_list *l,                      \
                              struct qrnic_qpc *qp)                          \
{                                                                           \
    qp->queued = true;                                                      \
    qp->next = NULL;                                                        \
    qp->prev = l->tail;                                                     \
    if (l->tail) {                                                          \
        l->tail->next = qp;                                                 \
    } else {                                                                \
        l->head = qp;                                                       \
    }                                                                       \
    l->tail = qp;                                                           \
}                                                                           \
static inline void name##_del(struct qrnic_qpc_list *l,                      \
                              struct qrnic_qpc *qp)                          \
{                                                                           \
    if (qp->prev) {                                                         \
        qp->prev->next = qp->next;                                          \
    } else {                                                                \
        l->head = qp->next;                                                 \
    }                                                                       \
    if (qp->next) {                                                         \
        qp->next->prev = qp->prev;                                          \
    } else {                                                                \
        l->tail = qp->prev;                                                 \
    }                                                                       \
    qp->queued = false;                                                     \
    qp->prev = qp->next = NULL;                                             \
}

#endif
