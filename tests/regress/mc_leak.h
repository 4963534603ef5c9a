/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For the programs that follow memcheck's own leak regression tests
   (memcheck/tests/leak-*.c in Valgrind's source; test_memcheck_leaks.py runs
   each under memcheck and memgrow and compares every LEAK SUMMARY and count):
   memcheck.h, the counts a program reads with VALGRIND_COUNT_LEAKS and
   VALGRIND_COUNT_LEAK_BLOCKS after a quick check, and a way to leave no
   pointer in a scratch register. The counts go out through write(): stdio's
   buffer would be one more block. */
#pragma once
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

/* memcheck.h before 3.21 has no DO_NEW_LEAK_CHECK; the request is the same
   (memcheck 3.19 warns "unknown memcheck leak search deltamode"). */
#ifndef VALGRIND_DO_NEW_LEAK_CHECK
#define VALGRIND_DO_NEW_LEAK_CHECK                                                                 \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__DO_LEAK_CHECK, 0, 3, 0, 0, 0)
#endif

/* Scratch registers may hold a copy of a lost block's address. */
#define CLEAR_SCRATCH_REGISTERS                                                                    \
    __asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"                \
                     "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"                \
                     "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d" ::             \
                         : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory")

/* A quick check, then its figures: "counts WHEN: leaked dubious reachable
   suppressed blocks leaked dubious reachable suppressed". */
#define PRINT_LEAK_COUNTS(when)                                                                    \
    do {                                                                                           \
        unsigned long l = 0, d = 0, r = 0, s = 0, lb = 0, db = 0, rb = 0, sb = 0;                  \
        VALGRIND_DO_QUICK_LEAK_CHECK;                                                              \
        VALGRIND_COUNT_LEAKS(l, d, r, s);                                                          \
        VALGRIND_COUNT_LEAK_BLOCKS(lb, db, rb, sb);                                                \
        char line_[160];                                                                           \
        int n_ =                                                                                   \
            snprintf(line_, sizeof line_, "counts %s: %lu %lu %lu %lu blocks %lu %lu %lu %lu\n",   \
                     when, l, d, r, s, lb, db, rb, sb);                                            \
        if (write(2, line_, n_) != n_) _exit(1);                                                   \
    } while (0)

/* A line in the log between checks, to tell them apart. */
static inline void say(const char* text) {
    if (write(2, text, strlen(text)) < 0) _exit(1);
}
