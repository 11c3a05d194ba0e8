/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: qrnic_crc32_le() for x86-64 hosts (GCC or clang), built
 * only there (see qemu-device/meson.build).  On CPUs with PCLMULQDQ,
 * buffers of 64 bytes or more are folded 64 bytes at a time with
 * carry-less multiplies, and the tail (under 16 bytes) goes through
 * qrnic_crc32_le_table() (qrnic_crc32.c), as does everything on CPUs
 * without it.
 */
#include "qrnic_roce.h"
#include <immintrin.h>

/*
 * Folding constants, bit reflected and shifted left by one as the
 * reflected carry-less product needs: x^(512+32), x^(512-32) mod P (fold
 * 64 bytes ahead), x^(128+32), x^(128-32) mod P (fold 16 bytes ahead),
 * x^64 mod P (64 to 32 bits), then Barrett reduction with
 * mu = x^64 / P and P itself (33 bits each, reflected).
 */
#define K_512_LO    0x154442bd4ull
#define K_512_HI    0x1c6e41596ull
#define K_128_LO    0x1751997d0ull
#define K_128_HI    0x0ccaa009eull
#define K_64        0x163cd6124ull
#define BARRETT_P   0x1db710641ull
#define BARRETT_MU  0x1f7011641ull

#define PCLMUL __attribute__((target("pclmul,sse2")))

/* x folded over 128 bits onto next: x.lo * k.lo ^ x.hi * k.hi ^ next. */
static inline PCLMUL __m128i fold(__m128i x, __m128i k, __m128i next)
{
    return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
                                       _mm_clmulepi64_si128(x, k, 0x11)),
                         next);
}

static inline PCLMUL __m128i load(const uint8_t *p)
{
    return _mm_loadu_si128((const __m128i *)p);
}

/* len >= 64; returns the CRC of the whole multiple of 16 bytes consumed. */
static PCLMUL uint32_t crc32_clmul(uint32_t crc, const uint8_t *p,
                                   size_t *lenp)
{
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
    __m128i k = _mm_set_epi64x(K_512_HI, K_512_LO);
    __m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128((int)crc));
    __m128i x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
    __m128i t;
    size_t len = *lenp - 64;

    p += 64;
    for (; len >= 64; p += 64, len -= 64) {
        x0 = fold(x0, k, load(p));
        x1 = fold(x1, k, load(p + 16));
        x2 = fold(x2, k, load(p + 32));
        x3 = fold(x3, k, load(p + 48));
    }
    k = _mm_set_epi64x(K_128_HI, K_128_LO);
    x0 = fold(x0, k, x1);
    x0 = fold(x0, k, x2);
    x0 = fold(x0, k, x3);
    for (; len >= 16; p += 16, len -= 16) {
        x0 = fold(x0, k, load(p));
    }
    *lenp = len;

    /* 128 -> 64 bits: lo * x^(128-32) ^ hi. */
    x0 = _mm_xor_si128(_mm_clmulepi64_si128(x0, k, 0x10),
                       _mm_srli_si128(x0, 8));
    /* 64 -> 32 bits (kept in bits 32..63). */
    t = _mm_and_si128(x0, mask32);
    x0 = _mm_xor_si128(_mm_srli_si128(x0, 4),
                       _mm_clmulepi64_si128(t, _mm_cvtsi64_si128(K_64), 0x00));
    /* Barrett: q = (x.lo32 * mu).lo32, crc = (x ^ q * P) >> 32. */
    k = _mm_set_epi64x(BARRETT_MU, BARRETT_P);
    t = _mm_and_si128(x0, mask32);
    t = _mm_clmulepi64_si128(t, k, 0x10);
    t = _mm_and_si128(t, mask32);
    t = _mm_clmulepi64_si128(t, k, 0x00);
    x0 = _mm_xor_si128(x0, t);
    return (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(x0, 4));
}

static bool have_pclmul(void)
{
    static int have = -1;

    if (have < 0) {
        __builtin_cpu_init();
        have = __builtin_cpu_supports("pclmul") ? 1 : 0;
    }
    return have;
}

uint32_t qrnic_crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
    if (len >= 64 && have_pclmul()) {
        size_t rest = len;

        crc = crc32_clmul(crc, p, &rest);
        p += len - rest;
        len = rest;
    }
    return qrnic_crc32_le_table(crc, p, len);
}

bool qrnic_crc32_le_accelerated(void)
{
    return have_pclmul();
}
