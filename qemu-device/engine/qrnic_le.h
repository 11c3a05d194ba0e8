/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: little/big endian loads and stores on byte buffers.
 * Guest structures are little endian, network headers big endian; the
 * engine never casts a guest buffer to a struct pointer.  What it copies
 * into a struct of qrnic_hw.h (admin commands, QP attributes, responses)
 * it reads and writes with qrnic_get*() and qrnic_put*() (qrnic_engine.h).
 */
#ifndef QRNIC_LE_H
#define QRNIC_LE_H

#include <stdint.h>

static inline uint8_t qrnic_ld8(const uint8_t *p)
{
    return p[0];
}

static inline uint16_t qrnic_ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t qrnic_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
           ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t qrnic_ld64(const uint8_t *p)
{
    return (uint64_t)qrnic_ld32(p) | ((uint64_t)qrnic_ld32(p + 4) << 32);
}

static inline void qrnic_st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void qrnic_st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void qrnic_st64(uint8_t *p, uint64_t v)
{
    qrnic_st32(p, (uint32_t)v);
    qrnic_st32(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t qrnic_ld16_be(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t qrnic_ld32_be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
           ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline uint64_t qrnic_ld64_be(const uint8_t *p)
{
    return ((uint64_t)qrnic_ld32_be(p) << 32) | qrnic_ld32_be(p + 4);
}

static inline void qrnic_st16_be(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void qrnic_st32_be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void qrnic_st64_be(uint8_t *p, uint64_t v)
{
    qrnic_st32_be(p, (uint32_t)(v >> 32));
    qrnic_st32_be(p + 4, (uint32_t)v);
}

#endif /* QRNIC_LE_H */
