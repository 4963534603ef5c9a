/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A C extension's bugs, called from Python through ctypes
   (test_addressability.py builds it as a shared object). */
#include <stdlib.h>

int off_by_one(int n) {
    volatile char* p = malloc(n);
    int v = p[n]; /* EXT_OFF_BY_ONE */
    free((void*)p);
    return v;
}

int after_free(void) {
    volatile int* p = malloc(40);
    free((void*)p);
    return p[3]; /* EXT_AFTER_FREE */
}
