/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcheck.h's addressability requests, as a program annotated for
   memcheck sends them (test_addressability.py). */
#include <stdio.h>
#include <stdlib.h>
#include <valgrind/memcheck.h>

/* memcheck's describe-block: a frame's array marked NOACCESS and left so
   when the frame returns; the frames after it reuse that memory. */
__attribute__((noinline)) static void dead_frame_noaccess(void) {
    char zone[0x1000];
    (void)VALGRIND_CREATE_BLOCK(zone, sizeof zone, "dead frame zone");
    (void)VALGRIND_MAKE_MEM_NOACCESS(zone, sizeof zone);
    ((volatile char*)zone)[0] = 'x'; /* WRITE_DEAD_FRAME */
}

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

    /* A named range (memcheck's describe-block): errors in it say its name. */
    char zone[256];
    int handle = VALGRIND_CREATE_BLOCK(zone, sizeof zone, "magic foople zone"); /* CREATE_HERE */
    VALGRIND_MAKE_MEM_NOACCESS(zone + 128, 128);
    ((volatile char*)zone)[130] = 'x'; /* WRITE_ZONE */
    VALGRIND_MAKE_MEM_UNDEFINED(zone + 128, 128);
    int discarded = VALGRIND_DISCARD(handle);
    int again = VALGRIND_DISCARD(handle);
    printf("block %d discarded %d again %d\n", handle, discarded, again);
    dead_frame_noaccess();
    printf("after the dead frame\n");
    return 0;
}
