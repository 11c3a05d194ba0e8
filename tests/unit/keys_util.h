/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What test_mw and test_fastreg share on the rc harness: the key commands
 * (ALLOC_MW, DEALLOC_MW, ALLOC_MR, DEREG_MR, QUERY_RES), the WQEs that
 * move no data (BIND_MW, REG_MR, LOCAL_INV) written as a provider would,
 * fresh connected QP pairs with CQs of their own, and waiting for one
 * completion.
 */
#ifndef QRNIC_TEST_KEYS_UTIL_H
#define QRNIC_TEST_KEYS_UTIL_H

#include "rc_harness.h"

#define MS 1000000ull
#define SEC 1000000000ull

/* A connected RC (or UC) pair: a[] on node 0, b on node 1. */
struct kpair {
    struct hcq *cq[2];
    struct hqp *qp[2];
};

/* New QPs (and CQs) on both nodes, connected; false if anything failed. */
bool kpair_new(struct kpair *k, uint8_t type);

uint8_t key_alloc_mw(struct node *n, uint32_t pdn, uint8_t type,
                     uint32_t *key);
uint8_t key_dealloc_mw(struct node *n, uint32_t key);
uint8_t key_alloc_mr(struct node *n, uint32_t pdn, uint32_t max_pages,
                     uint32_t *key);
uint8_t key_dereg(struct node *n, uint32_t key);
/* QUERY_RES; all ones if the command failed. */
struct qrnic_res_counts key_res(struct node *n);

/* Raw send WQE headers into the QP's next slot; rung. */
void post_bind(struct hqp *qp, uint64_t wr_id, uint32_t mw_key,
               uint32_t new_key, uint64_t addr, uint64_t len,
               uint32_t mr_key, uint32_t access);
void post_reg_mr(struct hqp *qp, uint64_t wr_id, uint32_t key,
                 uint32_t access, uint64_t iova, uint64_t len,
                 uint64_t pbl_addr, uint32_t npages, uint8_t shift);
void post_local_inv(struct hqp *qp, uint64_t wr_id, uint32_t key);
/* A signalled SEND_WITH_INV of len bytes at addr (lkey) invalidating key. */
void post_send_inv(struct hqp *qp, uint64_t wr_id, uint64_t addr,
                   uint32_t len, uint32_t lkey, uint32_t key);
/* A signalled one-SGE RDMA op (WRITE, READ) to raddr/rkey. */
void post_rdma(struct hqp *qp, uint64_t wr_id, uint8_t opcode, uint64_t addr,
               uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey);

/* The next completion of cq (within 2 s of virtual time); else all 0xff. */
struct hwc next_wc(struct hcq *cq);
/*
 * Node 0 RDMA-WRITEs len bytes of src (filled from seed) to raddr/rkey on
 * node 1; the completion status.
 */
uint8_t kpair_write(struct kpair *k, struct hmr *src, uint64_t wr_id,
                    uint32_t len, uint64_t raddr, uint32_t rkey, uint32_t seed);
uint8_t qp_state_of(struct hqp *qp);
/* The key with another key byte (the same index). */
static inline uint32_t key_next(uint32_t key)
{
    return (key & ~0xffu) | ((key + 1) & 0xffu);
}

#endif
