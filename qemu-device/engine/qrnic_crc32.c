/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: CRC-32 (IEEE 802.3 polynomial 0x04C11DB7, bit reflected,
 * i.e. 0xEDB88320 right-shifting), with no implicit pre- or post-
 * inversion, like Linux's crc32_le().  Every RoCE byte sent or received
 * goes through it (the ICRC).  This file has the table version, eight
 * bytes at a time through eight derived tables ("slicing by 8").
 * qrnic_crc32_le() and qrnic_crc32_le_accelerated() come from one of two
 * files, picked by the build for the host (qemu-device/meson.build,
 * tests/unit/Makefile, tests/fuzz/Makefile): qrnic_crc32_clmul.c on
 * x86-64 (PCLMULQDQ folding when the CPU has it, else this table) or
 * qrnic_crc32_portable.c everywhere else (this table only).
 */
#include "qrnic_roce.h"

static uint32_t crc_table[8][256];
static bool crc_table_ready;

static void crc_table_init(void)
{
    uint32_t i, j, c;

    for (i = 0; i < 256; i++) {
        c = i;
        for (j = 0; j < 8; j++) {
            c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
        }
        crc_table[0][i] = c;
    }
    for (i = 0; i < 256; i++) {
        for (j = 1; j < 8; j++) {
            c = crc_table[j - 1][i];
            crc_table[j][i] = (c >> 8) ^ crc_table[0][c & 0xff];
        }
    }
    crc_table_ready = true;
}

uint32_t qrnic_crc32_le_table(uint32_t crc, const uint8_t *p, size_t len)
{
    if (!crc_table_ready) {
        crc_table_init();
    }
    while (len >= 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                             (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);

        crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
              crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^
              crc_table[3][p[4]] ^ crc_table[2][p[5]] ^
              crc_table[1][p[6]] ^ crc_table[0][p[7]];
        p += 8;
        len -= 8;
    }
    while (len--) {
        crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    }
    return crc;
}
