/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of test_mw and test_fastreg (see keys_util.h). */
#include <string.h>
#include "keys_util.h"
#include "qrnic_le.h"

bool kpair_new(struct kpair *k, uint8_t type)
{
    uint8_t st;
    int i;

    for (i = 0; i < 2; i++) {
        k->cq[i] = node_create_cq(&nodes[i], 7);
        k->qp[i] = k->cq[i] ? node_create_qp_type(&nodes[i], type, k->cq[i],
                                                  k->cq[i], 5, 7, 5, 6, &st) :
                   NULL;
        if (!k->qp[i]) {
            return false;
        }
    }
    if (type == QRNIC_QPT_RC) {
        return qp_connect(k->qp[0], k->qp[1], 3, 14, 3, 3, 1) &&
               qp_connect(k->qp[1], k->qp[0], 3, 14, 3, 3, 1);
    }
    for (i = 0; i < 2; i++) {
        struct qrnic_qp_attr a;

        memset(&a, 0, sizeof(a));
        a.qp_state = QRNIC_QPS_INIT;
        a.port_num = 1;
        a.access_flags = QRNIC_ACCESS_REMOTE_WRITE;
        if (qp_modify(k->qp[i], QRNIC_QP_ATTR_STATE |
                      QRNIC_QP_ATTR_PKEY_INDEX | QRNIC_QP_ATTR_PORT |
                      QRNIC_QP_ATTR_ACCESS_FLAGS, &a)) {
            return false;
        }
        a.qp_state = QRNIC_QPS_RTR;
        a.path_mtu = 3;
        a.dest_qpn = k->qp[!i]->qpn;
        a.rq_psn = 77;
        a.hop_limit = 64;
        memcpy(a.dgid, nodes[!i].gid, 16);
        memcpy(a.dmac, nodes[!i].mac, 6);
        if (qp_modify(k->qp[i], QRNIC_QP_ATTR_STATE | QRNIC_QP_ATTR_AV |
                      QRNIC_QP_ATTR_PATH_MTU | QRNIC_QP_ATTR_DEST_QPN |
                      QRNIC_QP_ATTR_RQ_PSN, &a)) {
            return false;
        }
        a.qp_state = QRNIC_QPS_RTS;
        a.sq_psn = 77;
        if (qp_modify(k->qp[i], QRNIC_QP_ATTR_STATE | QRNIC_QP_ATTR_SQ_PSN,
                      &a)) {
            return false;
        }
    }
    return true;
}

uint8_t key_alloc_mw(struct node *n, uint32_t pdn, uint8_t type,
                     uint32_t *key)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_MW);

    c.alloc_mw.pdn = pdn;
    c.alloc_mw.type = type;
    return node_cmd(n, &c, key);
}

uint8_t key_dealloc_mw(struct node *n, uint32_t key)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DEALLOC_MW);

    c.dealloc_mw.key = key;
    return node_cmd(n, &c, NULL);
}

uint8_t key_alloc_mr(struct node *n, uint32_t pdn, uint32_t max_pages,
                     uint32_t *key)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_ALLOC_MR);

    c.alloc_mr.pdn = pdn;
    c.alloc_mr.max_pages = max_pages;
    return node_cmd(n, &c, key);
}

uint8_t key_dereg(struct node *n, uint32_t key)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_DEREG_MR);

    c.dereg_mr.key = key;
    return node_cmd(n, &c, NULL);
}

struct qrnic_res_counts key_res(struct node *n)
{
    struct qrnic_cmd c = harness_cmd(QRNIC_CMD_QUERY_RES);
    uint64_t a = node_alloc(n, sizeof(struct qrnic_res_counts), 64);
    struct qrnic_res_counts r;

    c.query_res.resp_addr = a;
    if (node_cmd(n, &c, NULL) != QRNIC_ST_OK) {
        memset(&r, 0xff, sizeof(r));
        return r;
    }
    memcpy(&r, node_ptr(n, a), sizeof(r));
    return r;
}

/* The header into the QP's next SQ slot (no SGEs), then the doorbell. */
static void post_raw(struct hqp *qp, const struct qrnic_sq_wqe *w)
{
    uint32_t stride = 1u << qp->log_ss;
    uint8_t *slot = qp->n->d.qmem + qp->sq_off +
                    (qp->sq_pi & ((1u << qp->log_sq) - 1)) * stride;

    memset(slot, 0, stride);
    memcpy(slot, w, sizeof(*w));
    qp->sq_pi++;
    qp_ring_sq(qp);
}

static struct qrnic_sq_wqe wqe_head(uint64_t wr_id, uint8_t opcode)
{
    struct qrnic_sq_wqe w;

    memset(&w, 0, sizeof(w));
    w.wr_id = wr_id;
    w.opcode = opcode;
    w.flags = QRNIC_WQE_F_SIGNALED;
    return w;
}

void post_bind(struct hqp *qp, uint64_t wr_id, uint32_t mw_key,
               uint32_t new_key, uint64_t addr, uint64_t len,
               uint32_t mr_key, uint32_t access)
{
    struct qrnic_sq_wqe w = wqe_head(wr_id, QRNIC_WR_BIND_MW);

    w.bind_mw.mw_key = mw_key;
    w.bind_mw.new_key = new_key;
    w.bind_mw.addr = addr;
    w.bind_mw.length = len;
    w.bind_mw.mr_key = mr_key;
    w.bind_mw.access = access;
    post_raw(qp, &w);
}

void post_reg_mr(struct hqp *qp, uint64_t wr_id, uint32_t key,
                 uint32_t access, uint64_t iova, uint64_t len,
                 uint64_t pbl_addr, uint32_t npages, uint8_t shift)
{
    struct qrnic_sq_wqe w = wqe_head(wr_id, QRNIC_WR_REG_MR);

    w.reg_mr.key = key;
    w.reg_mr.access = access;
    w.reg_mr.iova = iova;
    w.reg_mr.length = len;
    w.reg_mr.pbl_addr = pbl_addr;
    w.reg_mr.npages = npages;
    w.reg_mr.page_shift = shift;
    post_raw(qp, &w);
}

void post_local_inv(struct hqp *qp, uint64_t wr_id, uint32_t key)
{
    struct qrnic_sq_wqe w = wqe_head(wr_id, QRNIC_WR_LOCAL_INV);

    qrnic_st32((uint8_t *)&w.imm_data, key);     /* little endian */
    post_raw(qp, &w);
}

void post_send_inv(struct hqp *qp, uint64_t wr_id, uint64_t addr,
                   uint32_t len, uint32_t lkey, uint32_t key)
{
    struct hwr wr = mkwr(wr_id, QRNIC_WR_SEND_WITH_INV, addr, len, lkey);

    qrnic_st32((uint8_t *)&wr.imm, key);
    qp_post_send(qp, &wr, true);
}

void post_rdma(struct hqp *qp, uint64_t wr_id, uint8_t opcode, uint64_t addr,
               uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
    struct hwr wr = mkwr(wr_id, opcode, addr, len, lkey);

    wr.remote_addr = raddr;
    wr.rkey = rkey;
    qp_post_send(qp, &wr, true);
}

struct hwc next_wc(struct hcq *cq)
{
    struct hwc wc;

    if (!harness_wait_cqe(cq, &wc, now_ns + 2 * SEC)) {
        memset(&wc, 0xff, sizeof(wc));
    }
    return wc;
}

uint8_t qp_state_of(struct hqp *qp)
{
    struct qrnic_qp_attr a;

    return qp_query(qp, &a) == QRNIC_ST_OK ? a.qp_state : 0xff;
}

uint8_t kpair_write(struct kpair *k, struct hmr *src, uint64_t wr_id,
                    uint32_t len, uint64_t raddr, uint32_t rkey, uint32_t seed)
{
    mr_fill(src, src->iova, len, seed);
    post_rdma(k->qp[0], wr_id, QRNIC_WR_RDMA_WRITE, src->iova, len, src->key,
              raddr, rkey);
    return next_wc(k->cq[0]).status;
}
