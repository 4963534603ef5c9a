/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reads and writes one element past the end and one before the start of
   heap blocks of several sizes (after memcheck's badrw and malloc1), and
   loads partly out of a block (memcheck's partial_load). Built -O0: every
   access below is a load or store of the element's size. */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    volatile char* c = malloc(10);
    volatile short* s = malloc(10);
    volatile int* i = malloc(80);
    volatile long* l = malloc(176);
    long sum = 0;
    sum += c[10]; /* READ_AFTER_1 */
    c[-1] = 1;    /* WRITE_BEFORE_1 */
    sum += s[5];  /* READ_AFTER_2 */
    s[-1] = 2;    /* WRITE_BEFORE_2 */
    sum += i[20]; /* READ_AFTER_4 */
    i[-1] = 3;    /* WRITE_BEFORE_4 */
    sum += l[22]; /* READ_AFTER_8 */
    l[-1] = 4;    /* WRITE_BEFORE_8 */
    /* An aligned word whose last 4 bytes are past the end: no error with
       --partial-loads-ok=yes; an unaligned one always is. */
    volatile long* p = malloc(12);
    sum += p[1];                            /* PARTIAL_ALIGNED */
    sum += *(volatile long*)((char*)p + 6); /* PARTIAL_UNALIGNED */
    printf("sum %ld\n", sum);
    free((void*)c);
    free((void*)s);
    free((void*)i);
    free((void*)l);
    free((void*)p);
    return 0;
}
