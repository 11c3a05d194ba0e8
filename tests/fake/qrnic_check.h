/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine's invariants, checked by tests and fuzz targets. */
#ifndef QRNIC_CHECK_H
#define QRNIC_CHECK_H

#include "qrnic_engine.h"

/*
 * Internal consistency (ring indices, windows, counts); NULL if it holds,
 * else what is wrong.  For tests and fuzzers, after every step.
 */
const char *qrnic_engine_check(const struct qrnic_engine *e);

#endif
