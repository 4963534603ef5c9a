/* Follows memcheck's leak-0.c: a quick check before the program allocated
   anything ("All heap blocks were freed -- no leaks are possible", and the
   counts stay zero), then a live zero-sized block whose only pointer is in a
   register: reachable, one block of 0 bytes. */
#include <stdlib.h>
#include "mc_leak.h"

int main(void) {
    PRINT_LEAK_COUNTS("before");
    register char* p = malloc(0);
    PRINT_LEAK_COUNTS("after");
    free(p);
    return 0;
}
