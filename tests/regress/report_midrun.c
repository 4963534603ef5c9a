/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asks for reports mid-run with MEMGROW_REPORT: one to a named file halfway
   through, one with a garbage name pointer (refused, not a crash). */
#include <stdio.h>
#include <stdlib.h>

#include "memgrow.h"

static void* kept[2000];

int main(void) {
    for (int i = 0; i < 2000; i++) {
        kept[i] = malloc(64); /* ALLOC_HERE */
        if (i == 999) printf("mid report: %d\n", MEMGROW_REPORT("midrun.%p.json"));
    }
    printf("garbage name: %d\n", MEMGROW_REPORT((const char*)0x10));
    return 0;
}
