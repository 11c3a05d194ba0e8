/*
 * QTest testcase for the qrnic RoCEv2 RDMA NIC
 *
 * Plays the driver's first steps through the PCI bus: identity and BARs in
 * config space, the BAR0 registers, the reset/enable handshake and a few
 * admin commands, good and bad, through the admin queue in guest RAM.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/units.h"
#include "libqtest.h"
#include "libqos/pci-pc.h"
#include "libqos/malloc-pc.h"
#include "hw/pci/pci_regs.h"
#include "hw/net/qrnic/engine/qrnic_hw.h"

#define QRNIC_TEST_DEVFN        QPCI_DEVFN(4, 0)
/* Non-default sizes, so that the BARs and registers show they follow. */
#define QRNIC_TEST_DB_PAGES     32
#define QRNIC_TEST_QMEM_SIZE    (8 * MiB)
#define QRNIC_TEST_AQ_LOG       2
#define QRNIC_TEST_TIMEOUT_US   (5 * G_USEC_PER_SEC)

typedef struct QrnicTest {
    QTestState *qts;
    QGuestAllocator alloc;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar0;
    uint64_t sq, cq;
    uint16_t pi, ci;
} QrnicTest;

static void qrnic_test_start(QrnicTest *t)
{
    memset(t, 0, sizeof(*t));
    t->qts = qtest_initf("-machine q35 -nodefaults "
                         "-device qrnic,bus=pcie.0,addr=04.0,"
                         "db-pages=%d,qmem-size=%" PRIu64,
                         QRNIC_TEST_DB_PAGES, (uint64_t)QRNIC_TEST_QMEM_SIZE);
    pc_alloc_init(&t->alloc, t->qts, ALLOC_NO_FLAGS);
    t->bus = qpci_new_pc(t->qts, &t->alloc);
    t->dev = qpci_device_find(t->bus, QRNIC_TEST_DEVFN);
    g_assert_nonnull(t->dev);
}

static void qrnic_test_map(QrnicTest *t)
{
    qpci_device_enable(t->dev);
    t->bar0 = qpci_iomap(t->dev, QRNIC_BAR_REGS, NULL);
}

static void qrnic_test_stop(QrnicTest *t)
{
    g_free(t->dev);
    qpci_free_pc(t->bus);
    alloc_destroy(&t->alloc);
    qtest_quit(t->qts);
}

static uint32_t qrnic_reg(QrnicTest *t, uint32_t off)
{
    return qpci_io_readl(t->dev, t->bar0, off);
}

static void qrnic_set_reg(QrnicTest *t, uint32_t off, uint32_t val)
{
    qpci_io_writel(t->dev, t->bar0, off, val);
}

static void qrnic_set_reg64(QrnicTest *t, uint32_t off, uint64_t val)
{
    qrnic_set_reg(t, off, (uint32_t)val);
    qrnic_set_reg(t, off + 4, val >> 32);
}

/* Steps 2-4 of the bring-up handshake (docs: "Bring-up handshake"). */
static void qrnic_enable(QrnicTest *t, uint32_t aq_log)
{
    size_t depth = 1u << QRNIC_TEST_AQ_LOG;

    qrnic_set_reg(t, QRNIC_REG_CTRL, QRNIC_CTRL_RESET);
    g_assert_cmphex(qrnic_reg(t, QRNIC_REG_CTRL) & QRNIC_CTRL_RESET, ==, 0);
    g_assert_cmphex(qrnic_reg(t, QRNIC_REG_STATUS) & ~QRNIC_STATUS_LINK_UP,
                    ==, 0);

    t->sq = guest_alloc(&t->alloc, depth * QRNIC_CMD_SIZE);
    t->cq = guest_alloc(&t->alloc, depth * QRNIC_ACQE_SIZE);
    qtest_memset(t->qts, t->cq, 0, depth * QRNIC_ACQE_SIZE);
    t->pi = t->ci = 0;
    qrnic_set_reg64(t, QRNIC_REG_AQ_SQ_BASE_LO, t->sq);
    qrnic_set_reg64(t, QRNIC_REG_AQ_CQ_BASE_LO, t->cq);
    qrnic_set_reg(t, QRNIC_REG_AQ_LOG_DEPTH, aq_log);
    qrnic_set_reg(t, QRNIC_REG_CTRL, QRNIC_CTRL_ENABLE);
}

/*
 * Posts @cmd, waits for its completion (the phase bit flips on each pass
 * through the ring) and returns its status; the result in *@result0.
 */
static uint8_t qrnic_admin(QrnicTest *t, struct qrnic_cmd *cmd,
                           uint32_t *result0)
{
    size_t depth = 1u << QRNIC_TEST_AQ_LOG;
    uint16_t cookie = 0x100 + t->pi;
    uint32_t phase = (t->ci / depth) & 1 ? 0 : QRNIC_ADMIN_CQE_PHASE;
    uint64_t slot = t->cq + (t->ci % depth) * QRNIC_ACQE_SIZE;
    gint64 deadline = g_get_monotonic_time() + QRNIC_TEST_TIMEOUT_US;
    struct qrnic_cqe_admin cqe;

    cmd->cookie = cpu_to_le16(cookie);
    qtest_memwrite(t->qts, t->sq + (t->pi % depth) * QRNIC_CMD_SIZE,
                   cmd, sizeof(*cmd));
    t->pi++;
    qrnic_set_reg(t, QRNIC_REG_AQ_DB, t->pi);

    for (;;) {
        qtest_memread(t->qts, slot, &cqe, sizeof(cqe));
        if ((le32_to_cpu(cqe.flags) & QRNIC_ADMIN_CQE_PHASE) == phase ||
            g_get_monotonic_time() > deadline) {
            break;
        }
        g_usleep(1000);
    }
    g_assert_cmphex(le32_to_cpu(cqe.flags) & QRNIC_ADMIN_CQE_PHASE, ==, phase);
    g_assert_cmphex(le16_to_cpu(cqe.cookie), ==, cookie);
    g_assert_cmphex(cqe.opcode, ==, cmd->opcode);
    t->ci++;
    qrnic_set_reg(t, QRNIC_REG_AQ_CQ_CI, t->ci);
    if (result0) {
        *result0 = le32_to_cpu(cqe.result0);
    }
    return cqe.status;
}

static void test_pci_config(void)
{
    QrnicTest t;
    uint8_t exp, msix;

    qrnic_test_start(&t);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_VENDOR_ID), ==,
                    QRNIC_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_DEVICE_ID), ==,
                    QRNIC_PCI_DEVICE_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_SUBSYSTEM_VENDOR_ID), ==,
                    QRNIC_PCI_SUBSYS_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_SUBSYSTEM_ID), ==,
                    QRNIC_PCI_SUBSYS_ID);
    g_assert_cmphex(qpci_config_readw(t.dev, PCI_CLASS_DEVICE), ==,
                    QRNIC_PCI_CLASS);
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_REVISION_ID), ==,
                    QRNIC_PCI_REVISION);
    /* MSI-X only: no INTx pin */
    g_assert_cmphex(qpci_config_readb(t.dev, PCI_INTERRUPT_PIN), ==, 0);

    exp = qpci_find_capability(t.dev, PCI_CAP_ID_EXP, 0);
    g_assert_cmphex(exp, !=, 0);
    msix = qpci_find_capability(t.dev, PCI_CAP_ID_MSIX, 0);
    g_assert_cmphex(msix, !=, 0);
    g_assert_cmpuint((qpci_config_readw(t.dev, msix + PCI_MSIX_FLAGS) &
                      PCI_MSIX_FLAGS_QSIZE) + 1, ==, QRNIC_NUM_MSIX);
    g_assert_cmphex(qpci_config_readl(t.dev, msix + PCI_MSIX_TABLE), ==,
                    QRNIC_MSIX_TABLE_OFF | QRNIC_BAR_REGS);
    g_assert_cmphex(qpci_config_readl(t.dev, msix + PCI_MSIX_PBA), ==,
                    QRNIC_MSIX_PBA_OFF | QRNIC_BAR_REGS);
    qrnic_test_stop(&t);
}

static void check_bar(QrnicTest *t, int barno, uint64_t size, bool prefetch)
{
    uint64_t got;
    uint32_t flags;

    qpci_iomap(t->dev, barno, &got);
    g_assert_cmphex(got, ==, size);
    flags = qpci_config_readl(t->dev, PCI_BASE_ADDRESS_0 + 4 * barno);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_SPACE, ==,
                    PCI_BASE_ADDRESS_SPACE_MEMORY);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_MEM_TYPE_MASK, ==,
                    PCI_BASE_ADDRESS_MEM_TYPE_64);
    g_assert_cmphex(flags & PCI_BASE_ADDRESS_MEM_PREFETCH, ==,
                    prefetch ? PCI_BASE_ADDRESS_MEM_PREFETCH : 0);
}

static void test_bars(void)
{
    QrnicTest t;
    QPCIBar qmem;
    uint64_t qmem_size;

    qrnic_test_start(&t);
    check_bar(&t, QRNIC_BAR_REGS, QRNIC_BAR0_SIZE, false);
    check_bar(&t, QRNIC_BAR_DB, QRNIC_TEST_DB_PAGES * QRNIC_DB_PAGE_SIZE,
              false);
    check_bar(&t, QRNIC_BAR_QMEM, QRNIC_TEST_QMEM_SIZE, true);

    /* BAR4, the queue memory, is RAM */
    qrnic_test_map(&t);
    qmem = qpci_iomap(t.dev, QRNIC_BAR_QMEM, &qmem_size);
    qpci_io_writeq(t.dev, qmem, qmem_size - 8, 0x1122334455667788ULL);
    g_assert_cmphex(qpci_io_readq(t.dev, qmem, qmem_size - 8), ==,
                    0x1122334455667788ULL);
    qrnic_test_stop(&t);
}

static void test_registers(void)
{
    QrnicTest t;

    qrnic_test_start(&t);
    qrnic_test_map(&t);
    g_assert_cmphex(qrnic_reg(&t, QRNIC_REG_ID), ==, QRNIC_ID_MAGIC);
    g_assert_cmpuint(qrnic_reg(&t, QRNIC_REG_VERSION) >> 16, ==,
                     QRNIC_VERSION_MAJOR);
    g_assert_cmphex(qrnic_reg(&t, QRNIC_REG_CAP0) & QRNIC_CAP0_RC, ==,
                    QRNIC_CAP0_RC);
    g_assert_cmpuint(qrnic_reg(&t, QRNIC_REG_NUM_MSIX), ==, QRNIC_NUM_MSIX);
    g_assert_cmpuint(qrnic_reg(&t, QRNIC_REG_DB_PAGES), ==,
                     QRNIC_TEST_DB_PAGES);
    g_assert_cmpuint(qrnic_reg(&t, QRNIC_REG_QMEM_PAGES), ==,
                     QRNIC_TEST_QMEM_SIZE / QRNIC_QMEM_PAGE_SIZE);
    g_assert_cmpuint(qrnic_reg(&t, QRNIC_REG_AQ_MAX_LOG), ==,
                     QRNIC_AQ_MAX_LOG);
    g_assert_cmphex(qrnic_reg(&t, QRNIC_REG_STATUS) & QRNIC_STATUS_READY,
                    ==, 0);
    qrnic_test_stop(&t);
}

static void test_enable_bad_depth(void)
{
    QrnicTest t;

    qrnic_test_start(&t);
    qrnic_test_map(&t);
    qrnic_enable(&t, 0);
    g_assert_cmphex(qrnic_reg(&t, QRNIC_REG_STATUS) &
                    (QRNIC_STATUS_READY | QRNIC_STATUS_FATAL), ==,
                    QRNIC_STATUS_FATAL);
    g_assert_cmpuint(qrnic_reg(&t, QRNIC_REG_INIT_ERR), ==,
                     QRNIC_INIT_ERR_AQ_DEPTH);
    qrnic_test_stop(&t);
}

static void test_admin_commands(void)
{
    QrnicTest t;
    struct qrnic_cmd cmd;
    struct qrnic_dev_attr attr;
    uint64_t resp;
    uint32_t pdn;
    int i;

    qrnic_test_start(&t);
    qrnic_test_map(&t);
    qrnic_enable(&t, QRNIC_TEST_AQ_LOG);
    g_assert_cmphex(qrnic_reg(&t, QRNIC_REG_STATUS) &
                    (QRNIC_STATUS_READY | QRNIC_STATUS_FATAL), ==,
                    QRNIC_STATUS_READY);

    resp = guest_alloc(&t.alloc, sizeof(attr));
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = QRNIC_CMD_QUERY_DEVICE;
    cmd.query_device.resp_addr = cpu_to_le64(resp);
    g_assert_cmpuint(qrnic_admin(&t, &cmd, NULL), ==, QRNIC_ST_OK);
    qtest_memread(t.qts, resp, &attr, sizeof(attr));
    g_assert_cmpuint(le32_to_cpu(attr.max_qp), >, 0);
    g_assert_cmpuint(le32_to_cpu(attr.max_mtu), ==, QRNIC_MAX_MTU);

    /* Bad commands get an error status and no side effects */
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = QRNIC_CMD_MAX;
    g_assert_cmpuint(qrnic_admin(&t, &cmd, NULL), ==, QRNIC_ST_BAD_OPCODE);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = QRNIC_CMD_SET_MTU;
    cmd.set_mtu.mtu = cpu_to_le32(QRNIC_MAX_MTU + 1);
    g_assert_cmpuint(qrnic_admin(&t, &cmd, NULL), ==, QRNIC_ST_BAD_PARAM);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = QRNIC_CMD_DEALLOC_PD;
    cmd.dealloc_pd.pdn = cpu_to_le32(1);
    g_assert_cmpuint(qrnic_admin(&t, &cmd, NULL), ==, QRNIC_ST_BAD_HANDLE);

    /* More commands than ring entries: the phase bit flips */
    for (i = 0; i < 2 << QRNIC_TEST_AQ_LOG; i++) {
        memset(&cmd, 0, sizeof(cmd));
        cmd.opcode = QRNIC_CMD_ALLOC_PD;
        g_assert_cmpuint(qrnic_admin(&t, &cmd, &pdn), ==, QRNIC_ST_OK);
        memset(&cmd, 0, sizeof(cmd));
        cmd.opcode = QRNIC_CMD_DEALLOC_PD;
        cmd.dealloc_pd.pdn = cpu_to_le32(pdn);
        g_assert_cmpuint(qrnic_admin(&t, &cmd, NULL), ==, QRNIC_ST_OK);
    }
    guest_free(&t.alloc, resp);
    qrnic_test_stop(&t);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/qrnic/pci-config", test_pci_config);
    qtest_add_func("/qrnic/bars", test_bars);
    qtest_add_func("/qrnic/registers", test_registers);
    qtest_add_func("/qrnic/enable-bad-depth", test_enable_bad_depth);
    qtest_add_func("/qrnic/admin-commands", test_admin_commands);

    return g_test_run();
}
