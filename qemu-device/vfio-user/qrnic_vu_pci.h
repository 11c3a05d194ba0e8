/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's PCI configuration space: the identity, BARs and
 * capabilities the in-QEMU device has (MSI-X in BAR0 at
 * QRNIC_MSIX_TABLE_OFF, a PCI Express endpoint capability), read and
 * written through the vfio-user config region.
 */
#ifndef QRNIC_VU_PCI_H
#define QRNIC_VU_PCI_H

#include <stdint.h>

#define QVU_PCI_CONFIG_SIZE 4096

struct qvu_pci {
    uint8_t config[QVU_PCI_CONFIG_SIZE];
    uint8_t wmask[QVU_PCI_CONFIG_SIZE];     /* bits a write may change */
    uint64_t bar_size[6];                   /* the even BAR of a pair */
};

/* BAR sizes: BAR0 the registers, BAR2 the doorbells, BAR4 queue memory. */
void qvu_pci_init(struct qvu_pci *p, uint64_t db_bytes, uint64_t qmem_bytes);
void qvu_pci_read(const struct qvu_pci *p, uint64_t off, void *buf,
                  uint32_t len);
void qvu_pci_write(struct qvu_pci *p, uint64_t off, const void *buf,
                   uint32_t len);

#endif
