/*
 * QEMU qrnic: the fault injection properties (x-drop-ppm, x-dup-ppm,
 * x-reorder-ppm, x-corrupt-ppm, x-fault-seed) and x-db-work (an SQ
 * doorbell whose new work is at most this many packets sends them at
 * once, in the doorbell write; 0: the work bottom half always does).
 * Experimental, for tests and measurements: they may be set at run time
 * too (qom-set), which takes effect at once; the engine does the
 * injecting (engine/qrnic_fault.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/qdev-properties.h"
#include "qrnic.h"

static void qrnic_fault_changed(Object *obj)
{
    QrnicState *s = QRNIC(obj);

    /* Realize applies them; the setter ranges them already. */
    if (DEVICE(obj)->realized) {
        qrnic_engine_set_fault(&s->eng, &s->fault);
    }
}

static void qrnic_get_u32(Object *obj, Visitor *v, const char *name,
                          void *opaque, Error **errp)
{
    uint32_t *ptr = object_field_prop_ptr(obj, opaque);

    visit_type_uint32(v, name, ptr, errp);
}

static void qrnic_set_ppm(Object *obj, Visitor *v, const char *name,
                          void *opaque, Error **errp)
{
    uint32_t *ptr = object_field_prop_ptr(obj, opaque);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (val > QRNIC_FAULT_PPM_MAX) {
        error_setg(errp, "qrnic: property '%s' is in parts per million, "
                   "0..%u; got %" PRIu32, name, QRNIC_FAULT_PPM_MAX, val);
        return;
    }
    *ptr = val;
    qrnic_fault_changed(obj);
}

static void qrnic_get_seed(Object *obj, Visitor *v, const char *name,
                           void *opaque, Error **errp)
{
    uint64_t *ptr = object_field_prop_ptr(obj, opaque);

    visit_type_uint64(v, name, ptr, errp);
}

static void qrnic_set_seed(Object *obj, Visitor *v, const char *name,
                           void *opaque, Error **errp)
{
    uint64_t *ptr = object_field_prop_ptr(obj, opaque);

    if (visit_type_uint64(v, name, ptr, errp)) {
        qrnic_fault_changed(obj);
    }
}

/* Under the BQL, between two doorbell writes: the next one sees it. */
static void qrnic_set_db_work(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    uint32_t *ptr = object_field_prop_ptr(obj, opaque);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (val > QRNIC_DB_WORK_MAX) {
        error_setg(errp, "qrnic: property '%s' is a packet count, 0..%u; "
                   "got %" PRIu32, name, QRNIC_DB_WORK_MAX, val);
        return;
    }
    *ptr = val;
    if (DEVICE(obj)->realized) {
        QRNIC(obj)->eng.db_work = val;
    }
}

PropertyInfo qrnic_prop_ppm;
PropertyInfo qrnic_prop_fault_seed;
PropertyInfo qrnic_prop_db_work;

/* Both start as copies of the plain integer properties (defaults, help). */
void qrnic_fault_props_init(void)
{
    qrnic_prop_ppm = qdev_prop_uint32;
    qrnic_prop_ppm.description = "parts per million (0..1000000)";
    qrnic_prop_ppm.get = qrnic_get_u32;
    qrnic_prop_ppm.set = qrnic_set_ppm;
    qrnic_prop_ppm.realized_set_allowed = true;

    qrnic_prop_fault_seed = qdev_prop_uint64;
    qrnic_prop_fault_seed.description = "the same seed, the same faults";
    qrnic_prop_fault_seed.get = qrnic_get_seed;
    qrnic_prop_fault_seed.set = qrnic_set_seed;
    qrnic_prop_fault_seed.realized_set_allowed = true;

    qrnic_prop_db_work = qdev_prop_uint32;
    qrnic_prop_db_work.description = "packets an SQ doorbell sends at once "
                                     "(0..16)";
    qrnic_prop_db_work.get = qrnic_get_u32;
    qrnic_prop_db_work.set = qrnic_set_db_work;
    qrnic_prop_db_work.realized_set_allowed = true;
}

bool qrnic_fault_realize(QrnicState *s, Error **errp)
{
    if (qrnic_engine_set_fault(&s->eng, &s->fault)) {
        error_setg(errp, "qrnic: the x-*-ppm properties are in parts per "
                   "million, 0..%u", QRNIC_FAULT_PPM_MAX);
        return false;
    }
    return true;
}
