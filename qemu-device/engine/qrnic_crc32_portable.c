/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic engine: qrnic_crc32_le() for hosts other than x86-64 (see
 * qemu-device/meson.build): the table version of qrnic_crc32.c alone.
 */
#include "qrnic_roce.h"

uint32_t qrnic_crc32_le(uint32_t crc, const uint8_t *p, size_t len)
{
    return qrnic_crc32_le_table(crc, p, len);
}

bool qrnic_crc32_le_accelerated(void)
{
    return false;
}
