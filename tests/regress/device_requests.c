/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reports device-side allocations through memgrow's client requests, the
   way the CUDA wrappers do: a growing pool of "device" blocks that never
   come back, and a managed buffer allocated and freed. Runs natively too
   (the requests are no-ops there). */
#include <stdint.h>

#include "memgrow.h"

#define N 400
static uintptr_t handles[N]; /* the addresses the "driver" handed out */

static void device_alloc(uintptr_t addr, unsigned long size) {
    MEMGROW_DEVICE_ALLOC(addr, size, MEMGROW_SPACE_DEVICE, 1, MEMGROW_API_DRIVER); /* DEVICE_HERE */
}

int main(void) {
    for (int i = 0; i < N; i++) {
        handles[i] = 0x700000000000ull + (uintptr_t)i * 0x100000;
        device_alloc(handles[i], 1 << 20);
        MEMGROW_DEVICE_ALLOC(0x7f0000000000ull, 4096, MEMGROW_SPACE_MANAGED, 0,
                             MEMGROW_API_RUNTIME);
        MEMGROW_DEVICE_FREE(0x7f0000000000ull, MEMGROW_SPACE_MANAGED, MEMGROW_API_RUNTIME);
    }
    /* A free of an address never allocated is refused (returns 0). */
    return MEMGROW_DEVICE_FREE(0x1234, MEMGROW_SPACE_DEVICE, MEMGROW_API_DRIVER) != 0;
}
