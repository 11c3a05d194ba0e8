/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: page lists in admin commands (struct qrnic_pbl).  The
 * device copies the page addresses once, when the command runs; a list it
 * cannot read is DMA_ERROR, a misaligned page BAD_PARAM.
 */
#include <string.h>
#include "qrnic_rdma.h"
#include "qrnic_le.h"

#define CHUNK 64                /* page addresses read per DMA */

/* Read n little-endian u64 entries at addr into out[]. */
static enum qrnic_cmd_status read_entries(struct qrnic_engine *e, uint64_t addr,
                                          uint64_t *out, uint32_t n)
{
    uint8_t buf[CHUNK * 8];

    while (n) {
        uint32_t k = n < CHUNK ? n : CHUNK, i;

        if (addr + (uint64_t)k * 8 < addr ||
            qrnic_dma_read(e, addr, buf, (size_t)k * 8)) {
            return QRNIC_ST_DMA_ERROR;
        }
        for (i = 0; i < k; i++) {
            out[i] = qrnic_ld64(buf + i * 8);
        }
        out += k;
        n -= k;
        addr += (uint64_t)k * 8;
    }
    return QRNIC_ST_OK;
}

enum qrnic_cmd_status qrnic_pbl_read(struct qrnic_engine *e,
                                     const struct qrnic_pbl *pbl,
                                     uint64_t *pages, uint32_t npages)
{
    uint64_t addr = qrnic_get64(&pbl->addr);
    uint8_t shift = pbl->page_shift;
    uint64_t mask = (1ull << shift) - 1;
    uint32_t i, nleaf;
    enum qrnic_cmd_status st;

    switch (pbl->levels) {
    case QRNIC_PBL_CONTIG:
        if ((addr & mask) ||
            addr + ((uint64_t)npages << shift) < addr) {
            return QRNIC_ST_BAD_PARAM;
        }
        for (i = 0; i < npages; i++) {
            pages[i] = addr + ((uint64_t)i << shift);
        }
        return QRNIC_ST_OK;
    case QRNIC_PBL_LEVEL1:
        st = read_entries(e, addr, pages, npages);
        break;
    case QRNIC_PBL_LEVEL2:
        nleaf = (npages + QRNIC_PBL_PER_PAGE - 1) / QRNIC_PBL_PER_PAGE;
        /*
         * The leaf addresses go in the tail of pages[], then each leaf's
         * entries overwrite from the front: leaf i fills [512 i, ...),
         * which never reaches a leaf address not yet used.
         */
        st = read_entries(e, addr, pages + npages - nleaf, nleaf);
        for (i = 0; st == QRNIC_ST_OK && i < nleaf; i++) {
            uint64_t leaf = pages[npages - nleaf + i];
            uint32_t n = npages - i * QRNIC_PBL_PER_PAGE;

            if (leaf & 4095) {
                return QRNIC_ST_BAD_PARAM;
            }
            n = n < QRNIC_PBL_PER_PAGE ? n : QRNIC_PBL_PER_PAGE;
            st = read_entries(e, leaf, pages + (size_t)i * QRNIC_PBL_PER_PAGE,
                              n);
        }
        break;
    default:
        return QRNIC_ST_BAD_PARAM;
    }
    if (st != QRNIC_ST_OK) {
        return st;
    }
    for (i = 0; i < npages; i++) {
        if ((pages[i] & mask) || pages[i] + mask < pages[i]) {
            return QRNIC_ST_BAD_PARAM;
        }
    }
    return QRNIC_ST_OK;
}
