/* memcheck.h's addressability requests, as a program annotated for
   memcheck sends them (test_addressability.py). */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/memcheck.h>

int main(void) {
    volatile char* p = malloc(64); /* ALLOC_64 */
    VALGRIND_MAKE_MEM_NOACCESS(p + 32, 32);
    p[40] = 1; /* WRITE_NOACCESS */
    VALGRIND_MAKE_MEM_UNDEFINED(p + 32, 32);
    p[41] = 1; /* WRITE_UNDEFINED_OK */
    VALGRIND_MAKE_MEM_NOACCESS(p + 48, 16);
    unsigned long bad = VALGRIND_CHECK_MEM_IS_ADDRESSABLE(p, 64); /* CHECK_HERE */
    unsigned long good = VALGRIND_CHECK_MEM_IS_ADDRESSABLE(p, 48);
    printf("first bad at +%ld, whole %s\n", bad ? (long)(bad - (unsigned long)p) : -1L,
           good ? "bad" : "ok");
    VALGRIND_MAKE_MEM_DEFINED(p + 48, 16);
    free((void*)p);
    return 0;
}
