/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal test reporting: one "ok - NAME" / "not ok - NAME" line per check. */
#ifndef QRNIC_TEST_TAP_H
#define QRNIC_TEST_TAP_H

#include <stdio.h>

extern int tap_failures;

#define CHECK(cond, ...)                                            \
    do {                                                            \
        int c_ = !!(cond);                                          \
        if (c_) {                                                   \
            printf("ok - ");                                        \
        } else {                                                    \
            printf("not ok - ");                                    \
            tap_failures++;                                         \
        }                                                           \
        printf(__VA_ARGS__);                                        \
        if (!c_) {                                                  \
            printf(" (%s:%d: %s)", __FILE__, __LINE__, #cond);      \
        }                                                           \
        printf("\n");                                               \
    } while (0)

#define CHECK_EQ(got, want, ...)                                    \
    do {                                                            \
        unsigned long long g_ = (unsigned long long)(got);          \
        unsigned long long w_ = (unsigned long long)(want);         \
        if (g_ == w_) {                                             \
            printf("ok - ");                                        \
        } else {                                                    \
            printf("not ok - ");                                    \
            tap_failures++;                                         \
        }                                                           \
        printf(__VA_ARGS__);                                        \
        if (g_ != w_) {                                             \
            printf(" (got 0x%llx, want 0x%llx)", g_, w_);           \
        }                                                           \
        printf("\n");                                               \
    } while (0)

#define TAP_DONE() (tap_failures ? 1 : 0)

#endif
