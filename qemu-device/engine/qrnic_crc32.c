/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: CRC-32 (IEEE 802.3 polynomial 0x04C11DB7, bit reflected,
 * i.e. 0xEDB88320 right-shifting), with no implicit pre- or post-
 * inversion, like Linux's crc32_le().
 */
#include "qrnic_roce.h"

static uint32_t crc_table[256];
static bool crc_table_ready;

static void crc_table_init(void)
{
    uint32_t i, j, c;

    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++) {
            c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
        }
        crc_table[i] = c;
    }
    crc_table_ready = true;
}

uint32_t qrnic_crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
    size_t i;

    if (!crc_table_ready) {
        crc_table_init();
    }
    for (i = 0; i < len; i++) {
        crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    }
    return crc;
}
