/*
 * QEMU qrnic: the fault injection properties (x-drop-ppm, x-dup-ppm,
 * x-reorder-ppm, x-corrupt-ppm, x-fault-seed), x-db-work (an SQ
 * doorbell whose new work is at most this many packets sends them at
 * once, in the doorbell write; 0: the work bottom half always does) and
 * window-kib, x-window-pkts (the caps of the congestion window).  The
 * x- ones are experimental, for tests and measurements; all of them may
 * be set at run time too (qom-set), which takes effect at once; the
 * engine does the injecting (engine/qrnic_fault.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/qdev-properties.h"
#include "net/net.h"
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

/*
 * A count in a range; true if the device is realized, so the caller
 * copies it into the engine at once (under the BQL: the engine is between
 * two calls).
 */
static bool qrnic_set_count(Object *obj, Visitor *v, const char *name,
                            void *opaque, uint32_t lo, uint32_t hi,
                            Error **errp)
{
    uint32_t *ptr = object_field_prop_ptr(obj, opaque);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return false;
    }
    if (val < lo || val > hi) {
        error_setg(errp, "qrnic: property '%s' is %u..%u; got %" PRIu32,
                   name, lo, hi, val);
        return false;
    }
    *ptr = val;
    return DEVICE(obj)->realized;
}

static void qrnic_set_ppm(Object *obj, Visitor *v, const char *name,
                          void *opaque, Error **errp)
{
    if (qrnic_set_count(obj, v, name, opaque, 0, QRNIC_FAULT_PPM_MAX, errp)) {
        qrnic_fault_changed(obj);
    }
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

static void qrnic_set_db_work(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    QrnicState *s = QRNIC(obj);

    if (qrnic_set_count(obj, v, name, opaque, 0, QRNIC_DB_WORK_MAX, errp)) {
        s->eng.db_work = s->db_work;
    }
}

static void qrnic_set_win_kib(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    QrnicState *s = QRNIC(obj);

    if (qrnic_set_count(obj, v, name, opaque, QRNIC_WINDOW_MIN_KIB,
                        QRNIC_ENG_WINDOW_MAX_BYTES / KiB, errp)) {
        s->eng.win_bytes = s->win_kib * KiB;
    }
}

static void qrnic_set_win_pkts(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    QrnicState *s = QRNIC(obj);

    if (qrnic_set_count(obj, v, name, opaque, 2, QRNIC_ENG_WINDOW_MAX_PKTS,
                        errp)) {
        s->eng.win_pkts = s->win_pkts;
    }
}

PropertyInfo qrnic_prop_ppm;
PropertyInfo qrnic_prop_fault_seed;
PropertyInfo qrnic_prop_db_work;
PropertyInfo qrnic_prop_win_kib;
PropertyInfo qrnic_prop_win_pkts;

/*
 * Each starts as a copy of a plain integer property (default, help) that
 * may also be set at run time (qom-set).
 */
static void run_time_prop(PropertyInfo *p, const PropertyInfo *base,
                          const char *description,
                          ObjectPropertyAccessor *get,
                          ObjectPropertyAccessor *set)
{
    *p = *base;
    p->description = description;
    p->get = get;
    p->set = set;
    p->realized_set_allowed = true;
}

void qrnic_fault_props_init(void)
{
    run_time_prop(&qrnic_prop_ppm, &qdev_prop_uint32,
                  "parts per million (0..1000000)",
                  qrnic_get_u32, qrnic_set_ppm);
    run_time_prop(&qrnic_prop_fault_seed, &qdev_prop_uint64,
                  "the same seed, the same faults",
                  qrnic_get_seed, qrnic_set_seed);
    run_time_prop(&qrnic_prop_db_work, &qdev_prop_uint32,
                  "packets an SQ doorbell sends at once (0..16)",
                  qrnic_get_u32, qrnic_set_db_work);
    run_time_prop(&qrnic_prop_win_kib, &qdev_prop_uint32,
                  "congestion window cap, KiB as the host socket counts "
                  "(16..4096)",
                  qrnic_get_u32, qrnic_set_win_kib);
    run_time_prop(&qrnic_prop_win_pkts, &qdev_prop_uint32,
                  "congestion window cap, packets (2..1024)",
                  qrnic_get_u32, qrnic_set_win_pkts);
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
