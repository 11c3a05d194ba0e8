/*
 * QEMU qrnic: emulated PCIe RoCEv2 RDMA NIC - PCI function
 *
 * BAR0: registers + MSI-X, BAR2: doorbell pages, BAR4: RAM-backed queue
 * memory.  See docs/hardware.md in the qrnic project.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qrnic.h"
#include "trace.h"

/* The property that sets each kind's limit, for messages. */
static const char *const qrnic_obj_max_prop[QRNIC_OBJ_COUNT] = {
    [QRNIC_OBJ_QP] = "max-qps",
    [QRNIC_OBJ_SRQ] = "max-srqs",
    [QRNIC_OBJ_KEY] = "max-keys",
    [QRNIC_OBJ_CQ] = "max-cqs",
    [QRNIC_OBJ_PD] = "max-pds",
};

static bool qrnic_check_props(QrnicState *s, Error **errp)
{
    int k;

    for (k = 0; k < QRNIC_OBJ_COUNT; k++) {
        if (s->obj_max[k] < 1 || s->obj_max[k] > QRNIC_ENG_MAX_OBJECTS) {
            error_setg(errp, "qrnic: property '%s' must be in 1..%u, got %u",
                       qrnic_obj_max_prop[k], QRNIC_ENG_MAX_OBJECTS,
                       s->obj_max[k]);
            return false;
        }
    }
    if (s->mtt_max < 1 || s->mtt_max > QRNIC_ENG_MAX_MTT) {
        error_setg(errp, "qrnic: property 'max-mr-pages' must be in 1..%u, "
                   "got %u", QRNIC_ENG_MAX_MTT, s->mtt_max);
        return false;
    }
    /* A BAR's size is a power of two (pci_register_bar() asserts it). */
    if (s->db_pages < QRNIC_ENG_MIN_DB_PAGES ||
        s->db_pages > QRNIC_ENG_MAX_DB_PAGES || !is_power_of_2(s->db_pages)) {
        error_setg(errp, "qrnic: property 'db-pages' must be a power of two "
                   "in %u..%u, got %u", QRNIC_ENG_MIN_DB_PAGES,
                   QRNIC_ENG_MAX_DB_PAGES, s->db_pages);
        return false;
    }
    if (s->ctx_max_qmem > s->qmem_size) {
        error_setg(errp, "qrnic: property 'ctx-max-qmem' must be at most "
                   "'qmem-size' (%" PRIu64 "), got %" PRIu64, s->qmem_size,
                   s->ctx_max_qmem);
        return false;
    }
    if (s->qmem_size < QRNIC_MIN_QMEM_SIZE ||
        s->qmem_size > QRNIC_MAX_QMEM_SIZE ||
        !is_power_of_2(s->qmem_size)) {
        error_setg(errp, "qrnic: property 'qmem-size' must be a power of two "
                   "in 64 KiB..2 GiB, got %" PRIu64, s->qmem_size);
        return false;
    }
    return true;
}

static void qrnic_init_bars(QrnicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    memory_region_init(&s->bar0, OBJECT(s), "qrnic-bar0", QRNIC_BAR0_SIZE);
    memory_region_init_io(&s->regs, OBJECT(s), &qrnic_regs_ops, s,
                          "qrnic-regs", QRNIC_MSIX_TABLE_OFF);
    memory_region_add_subregion(&s->bar0, 0, &s->regs);
    pci_register_bar(pdev, QRNIC_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->bar0);

    memory_region_init_io(&s->db, OBJECT(s), &qrnic_db_ops, s, "qrnic-db",
                          (uint64_t)s->db_pages * QRNIC_DB_PAGE_SIZE);
    pci_register_bar(pdev, QRNIC_BAR_DB, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->db);
}

static void qrnic_realize(PCIDevice *pdev, Error **errp)
{
    QrnicState *s = QRNIC(pdev);
    DeviceState *dev = DEVICE(pdev);
    int i, ret;

    if (!qrnic_check_props(s, errp)) {
        return;
    }
    pdev->config[PCI_INTERRUPT_PIN] = 0;    /* MSI-X only */

    if (!memory_region_init_ram(&s->qmem, OBJECT(s), "qrnic-qmem",
                                s->qmem_size, errp)) {
        return;
    }
    qrnic_init_bars(s);
    pci_register_bar(pdev, QRNIC_BAR_QMEM, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->qmem);

    ret = msix_init(pdev, QRNIC_NUM_MSIX, &s->bar0, QRNIC_BAR_REGS,
                    QRNIC_MSIX_TABLE_OFF, &s->bar0, QRNIC_BAR_REGS,
                    QRNIC_MSIX_PBA_OFF, 0, errp);
    if (ret < 0) {
        return;
    }
    for (i = 0; i < QRNIC_NUM_MSIX; i++) {
        msix_vector_use(pdev, i);
    }
    ret = pcie_endpoint_cap_init(pdev, 0);
    if (ret < 0) {
        error_setg(errp, "qrnic: cannot add the PCIe capability");
        goto err_msix;
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    qrnic_engine_init(&s->eng, &qrnic_engine_glue_ops, s, s->db_pages,
                      s->conf.macaddr.a);
    for (i = 0; i < QRNIC_OBJ_COUNT; i++) {
        qrnic_objects_set_limit(&s->eng, i, s->obj_max[i]);
    }
    s->eng.mtt_max = s->mtt_max;
    s->eng.db_work = s->db_work;
    s->eng.win_pkts = s->win_pkts;
    memcpy(s->eng.ctx_max, s->ctx_max, sizeof(s->ctx_max));
    s->eng.ctx_max[QRNIC_CTX_QMEM_PAGES] =
        DIV_ROUND_UP(s->ctx_max_qmem, QRNIC_QMEM_PAGE_SIZE);
    if (!qrnic_fault_realize(s, errp)) {
        goto err_pcie;
    }
    if (qrnic_engine_set_qmem(&s->eng, memory_region_get_ram_ptr(&s->qmem),
                              s->qmem_size)) {
        error_setg(errp, "qrnic: cannot track %" PRIu64 " bytes of queue "
                   "memory", s->qmem_size);
        goto err_pcie;
    }
    s->nic = qemu_new_nic(&qrnic_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    s->eng.win_bytes = s->win_kib * KiB;
    qrnic_engine_set_link(&s->eng, !qemu_get_queue(s->nic)->link_down);

    s->work_bh = qemu_bh_new_guarded(qrnic_work_bh, s,
                                     &dev->mem_reentrancy_guard);
    s->timer_bh = qemu_bh_new_guarded(qrnic_timer_bh, s,
                                      &dev->mem_reentrancy_guard);
    s->link_bh = qemu_bh_new_guarded(qrnic_link_bh, s,
                                     &dev->mem_reentrancy_guard);
    s->rdma_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, qrnic_timer_cb, s);
    return;

err_pcie:
    qrnic_engine_fini(&s->eng);
    pcie_cap_exit(pdev);
err_msix:
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->bar0, &s->bar0);
}

static void qrnic_exit(PCIDevice *pdev)
{
    QrnicState *s = QRNIC(pdev);

    qemu_bh_delete(s->work_bh);
    qemu_bh_delete(s->timer_bh);
    qemu_bh_delete(s->link_bh);
    timer_free(s->rdma_timer);
    s->work_bh = NULL;
    s->timer_bh = NULL;
    s->link_bh = NULL;
    s->rdma_timer = NULL;
    qrnic_engine_fini(&s->eng);
    qemu_del_nic(s->nic);
    s->nic = NULL;
    pcie_cap_exit(pdev);
    msix_unuse_all_vectors(pdev);
    msix_uninit(pdev, &s->bar0, &s->bar0);
}

static void qrnic_reset_hold(Object *obj, ResetType type)
{
    qrnic_engine_reset(&QRNIC(obj)->eng);
    trace_qrnic_reset("device reset");
}

static const Property qrnic_properties[] = {
    DEFINE_NIC_PROPERTIES(QrnicState, conf),
    DEFINE_PROP_UINT32("db-pages", QrnicState, db_pages,
                       QRNIC_DEFAULT_DB_PAGES),
    DEFINE_PROP_SIZE("qmem-size", QrnicState, qmem_size,
                     QRNIC_DEFAULT_QMEM_SIZE),
    DEFINE_PROP_UINT32("max-qps", QrnicState, obj_max[QRNIC_OBJ_QP],
                       QRNIC_ENG_DEFAULT_QPS),
    DEFINE_PROP_UINT32("max-cqs", QrnicState, obj_max[QRNIC_OBJ_CQ],
                       QRNIC_ENG_DEFAULT_CQS),
    DEFINE_PROP_UINT32("max-srqs", QrnicState, obj_max[QRNIC_OBJ_SRQ],
                       QRNIC_ENG_DEFAULT_SRQS),
    DEFINE_PROP_UINT32("max-keys", QrnicState, obj_max[QRNIC_OBJ_KEY],
                       QRNIC_ENG_DEFAULT_KEYS),
    DEFINE_PROP_UINT32("max-pds", QrnicState, obj_max[QRNIC_OBJ_PD],
                       QRNIC_ENG_DEFAULT_PDS),
    DEFINE_PROP_UINT32("max-mr-pages", QrnicState, mtt_max,
                       QRNIC_ENG_DEFAULT_MTT),
    DEFINE_PROP_UINT32("ctx-max-pds", QrnicState, ctx_max[QRNIC_CTX_PD], 0),
    DEFINE_PROP_UINT32("ctx-max-cqs", QrnicState, ctx_max[QRNIC_CTX_CQ], 0),
    DEFINE_PROP_UINT32("ctx-max-qps", QrnicState, ctx_max[QRNIC_CTX_QP], 0),
    DEFINE_PROP_UINT32("ctx-max-srqs", QrnicState, ctx_max[QRNIC_CTX_SRQ], 0),
    DEFINE_PROP_UINT32("ctx-max-mrs", QrnicState, ctx_max[QRNIC_CTX_MR], 0),
    DEFINE_PROP_UINT32("ctx-max-mws", QrnicState, ctx_max[QRNIC_CTX_MW], 0),
    DEFINE_PROP_UINT32("ctx-max-mr-pages", QrnicState,
                       ctx_max[QRNIC_CTX_MR_PAGES], 0),
    DEFINE_PROP_SIZE("ctx-max-qmem", QrnicState, ctx_max_qmem, 0),
    DEFINE_PROP_UNSIGNED("x-db-work", QrnicState, db_work,
                         QRNIC_DB_WORK_DEFAULT, qrnic_prop_db_work, uint32_t),
    DEFINE_PROP_UNSIGNED("window-kib", QrnicState, win_kib,
                         QRNIC_WINDOW_DEFAULT_KIB, qrnic_prop_win_kib,
                         uint32_t),
    DEFINE_PROP_UNSIGNED("x-window-pkts", QrnicState, win_pkts,
                         QRNIC_ENG_WINDOW_PKTS, qrnic_prop_win_pkts, uint32_t),
    DEFINE_PROP_UNSIGNED("x-drop-ppm", QrnicState, fault.drop_ppm, 0,
                         qrnic_prop_ppm, uint32_t),
    DEFINE_PROP_UNSIGNED("x-dup-ppm", QrnicState, fault.dup_ppm, 0,
                         qrnic_prop_ppm, uint32_t),
    DEFINE_PROP_UNSIGNED("x-reorder-ppm", QrnicState, fault.reorder_ppm, 0,
                         qrnic_prop_ppm, uint32_t),
    DEFINE_PROP_UNSIGNED("x-corrupt-ppm", QrnicState, fault.corrupt_ppm, 0,
                         qrnic_prop_ppm, uint32_t),
    DEFINE_PROP_UNSIGNED("x-fault-seed", QrnicState, fault.seed, 0,
                         qrnic_prop_fault_seed, uint64_t),
};

/* Device state lives partly in guest RAM rings; migration is not modelled. */
static const VMStateDescription qrnic_vmstate = {
    .name = "qrnic",
    .unmigratable = 1,
};

static void qrnic_class_init(ObjectClass *klass, QrnicClassData *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);

    k->realize = qrnic_realize;
    k->exit = qrnic_exit;
    k->vendor_id = QRNIC_PCI_VENDOR_ID;
    k->device_id = QRNIC_PCI_DEVICE_ID;
    k->subsystem_vendor_id = QRNIC_PCI_SUBSYS_VENDOR_ID;
    k->subsystem_id = QRNIC_PCI_SUBSYS_ID;
    k->revision = QRNIC_PCI_REVISION;
    k->class_id = QRNIC_PCI_CLASS;
    rc->phases.hold = qrnic_reset_hold;
    dc->desc = "qrnic RoCEv2 RDMA NIC (emulated)";
    dc->vmsd = &qrnic_vmstate;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    qrnic_fault_props_init();
    device_class_set_props(dc, qrnic_properties);
}

static const TypeInfo qrnic_info = {
    .name = TYPE_QRNIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(QrnicState),
    .class_init = qrnic_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void qrnic_register_types(void)
{
    type_register_static(&qrnic_info);
}

type_init(qrnic_register_types)
