/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The client requests of memgrow's Python module (python/memgrow), as plain
   functions for ctypes: Python cannot issue a request itself. Each is a
   no-op returning 0 when not running under memgrow. */
#include "memgrow.h"

int memgrow_running(void) {
    return MEMGROW_RUNNING();
}

void memgrow_mark(const char* label) {
    MEMGROW_MARK(label);
}

unsigned long memgrow_leak_check(void) {
    return MEMGROW_LEAK_CHECK();
}

int memgrow_report(const char* file) {
    return MEMGROW_REPORT(file);
}

unsigned long memgrow_live_bytes(void) {
    return MEMGROW_LIVE_BYTES();
}

long memgrow_growth_since(char* top, unsigned long size, int checkpoint) {
    return MEMGROW_GROWTH_SINCE(top, size, checkpoint);
}

/* memgrow-internal: memgrow._mark_at's events (VG_USERREQ__MEMGROW_MARK_AT_EVENT). */
void memgrow_mark_at_event(unsigned long event, unsigned long spec) {
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__MEMGROW_MARK_AT_EVENT, event, spec, 0, 0, 0);
}
