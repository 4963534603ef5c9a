/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-0.c: a quick check before the program allocated
   anything ("All heap blocks were freed -- no leaks are possible", and the
   counts stay zero), then a live zero-sized block whose only pointer is in a
   register: reachable, one block of 0 bytes. Then (memgrow's addition) a
   full check once it is freed: "All heap blocks were freed" again, and the
   counts keep the figures of the check before; the next delta check's
   summary compares with that one too, and its loss records are all new
   (memcheck forgot them). */
#include <stdlib.h>
#include "mc_leak.h"

char* kept;

int main(void) {
    PRINT_LEAK_COUNTS("before");
    register char* p = malloc(0);
    PRINT_LEAK_COUNTS("after");
    free(p);
    VALGRIND_DO_LEAK_CHECK;
    PRINT_LEAK_COUNTS("freed");
    kept = malloc(10);
    VALGRIND_DO_ADDED_LEAK_CHECK;
    free(kept);
    return 0;
}
