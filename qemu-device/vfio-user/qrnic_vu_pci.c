/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qrnic-vfio-user's PCI configuration space (see qrnic_vu_pci.h), laid
 * out as QEMU lays out the in-QEMU device's: MSI-X first at 0x40, then
 * the Express capability, which heads the list.  The client (QEMU's
 * vfio-pci) virtualizes BARs and the MSI-X capability itself; the server
 * still keeps them as a device would, so a write of all ones to a BAR
 * reads back its size.
 */
#include <linux/pci_regs.h>
#include <stdint.h>
#include <string.h>
#include "qrnic_hw.h"
#include "qrnic_vu_pci.h"

#define MSIX_CAP        0x40
#define EXP_CAP         0x4c
#define DEVCAP2_EXT_FMT 0x00100000      /* extended Fmt field supported */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void init_bar(struct qvu_pci *p, int bar, uint64_t size,
                     uint32_t flags)
{
    uint64_t mask = ~(size - 1);
    uint8_t *w = p->wmask + PCI_BASE_ADDRESS_0 + 4 * bar;

    p->bar_size[bar] = size;
    put32(p->config + PCI_BASE_ADDRESS_0 + 4 * bar,
          flags | PCI_BASE_ADDRESS_MEM_TYPE_64);
    put32(w, (uint32_t)mask & PCI_BASE_ADDRESS_MEM_MASK);
    put32(w + 4, (uint32_t)(mask >> 32));
}

static void init_msix(struct qvu_pci *p)
{
    uint8_t *c = p->config + MSIX_CAP;

    c[PCI_CAP_LIST_ID] = PCI_CAP_ID_MSIX;
    c[PCI_CAP_LIST_NEXT] = 0;
    put16(c + PCI_MSIX_FLAGS, QRNIC_NUM_MSIX - 1);
    put32(c + PCI_MSIX_TABLE, QRNIC_MSIX_TABLE_OFF | QRNIC_BAR_REGS);
    put32(c + PCI_MSIX_PBA, QRNIC_MSIX_PBA_OFF | QRNIC_BAR_REGS);
    put16(p->wmask + MSIX_CAP + PCI_MSIX_FLAGS,
          PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
}

/* A version 2 endpoint, x1 at 2.5 GT/s, as QEMU's pcie_cap_init() makes. */
static void init_express(struct qvu_pci *p)
{
    uint8_t *c = p->config + EXP_CAP;

    c[PCI_CAP_LIST_ID] = PCI_CAP_ID_EXP;
    c[PCI_CAP_LIST_NEXT] = MSIX_CAP;
    put16(c + PCI_EXP_FLAGS, 2 | PCI_EXP_TYPE_ENDPOINT << 4);
    put32(c + PCI_EXP_DEVCAP, PCI_EXP_DEVCAP_EXT_TAG | PCI_EXP_DEVCAP_RBER);
    put32(c + PCI_EXP_LNKCAP, PCI_EXP_LNKCAP_ASPM_L0S | 1u << 4 | 1u);
    put16(c + PCI_EXP_LNKSTA, 1u << 4 | 1u);
    put32(c + PCI_EXP_DEVCAP2,
          DEVCAP2_EXT_FMT | PCI_EXP_DEVCAP2_EE_PREFIX);
    put16(p->wmask + EXP_CAP + PCI_EXP_DEVCTL,
          PCI_EXP_DEVCTL_CERE | PCI_EXP_DEVCTL_NFERE | PCI_EXP_DEVCTL_FERE |
          PCI_EXP_DEVCTL_URRE | PCI_EXP_DEVCTL_RELAX_EN |
          PCI_EXP_DEVCTL_PAYLOAD | PCI_EXP_DEVCTL_READRQ);
}

void qvu_pci_init(struct qvu_pci *p, uint64_t db_bytes, uint64_t qmem_bytes)
{
    uint8_t *c = p->config;

    memset(p, 0, sizeof(*p));
    put16(c + PCI_VENDOR_ID, QRNIC_PCI_VENDOR_ID);
    put16(c + PCI_DEVICE_ID, QRNIC_PCI_DEVICE_ID);
    put16(c + PCI_STATUS, PCI_STATUS_CAP_LIST);
    c[PCI_REVISION_ID] = QRNIC_PCI_REVISION;
    put16(c + PCI_CLASS_DEVICE, QRNIC_PCI_CLASS);
    put16(c + PCI_SUBSYSTEM_VENDOR_ID, QRNIC_PCI_SUBSYS_VENDOR_ID);
    put16(c + PCI_SUBSYSTEM_ID, QRNIC_PCI_SUBSYS_ID);
    c[PCI_CAPABILITY_LIST] = EXP_CAP;
    put16(p->wmask + PCI_COMMAND, PCI_COMMAND_IO | PCI_COMMAND_MEMORY |
          PCI_COMMAND_MASTER | PCI_COMMAND_SERR | PCI_COMMAND_INTX_DISABLE);
    init_bar(p, QRNIC_BAR_REGS, QRNIC_BAR0_SIZE, 0);
    init_bar(p, QRNIC_BAR_DB, db_bytes, 0);
    init_bar(p, QRNIC_BAR_QMEM, qmem_bytes, PCI_BASE_ADDRESS_MEM_PREFETCH);
    init_msix(p);
    init_express(p);
}

void qvu_pci_read(const struct qvu_pci *p, uint64_t off, void *buf,
                  uint32_t len)
{
    memcpy(buf, p->config + off, len);
}

/* Bits outside the write mask keep their value, as a device's would. */
void qvu_pci_write(struct qvu_pci *p, uint64_t off, const void *buf,
                   uint32_t len)
{
    const uint8_t *b = buf;
    uint32_t i;

    for (i = 0; i < len; i++) {
        uint8_t m = p->wmask[off + i];

        p->config[off + i] = (uint8_t)((p->config[off + i] & ~m) | (b[i] & m));
    }
}
