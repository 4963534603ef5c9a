/* SPDX-License-Identifier: GPL-2.0-or-later */
/* memcheck.h's leak requests mid-run; test_leak_check.py compares every
   LEAK SUMMARY, loss record and count with memcheck's of the same Valgrind
   release for this program, and with what memcheck reports:

   DO_LEAK_CHECK          still reachable 220 bytes in 3 blocks (KEPT_HERE,
                          TEMP_HERE, FIRST_LOST_HERE); the counts after it
   DO_ADDED_LEAK_CHECK    definitely lost 300 (+300) in 2 (+2): FIRST_LOST_HERE
                          and the first SECOND_LOST_HERE, the only records
                          listed
   DO_CHANGED_LEAK_CHECK  TEMP_HERE's 70 bytes freed, 64 possibly lost
                          (INTERIOR_HERE), the only record listed
   DO_NEW_LEAK_CHECK      (deltamode 3; Valgrind 3.21's) the second
                          SECOND_LOST_HERE lost, the only record listed; the
                          second INTERIOR_HERE block makes its record grow,
                          not new. Before 3.21 memcheck does not know it: a
                          warning, then every record without deltas.
   DO_QUICK_LEAK_CHECK    the summary only; the counts again

   From 3.21 memcheck says "in new loss record" in a delta search for a
   record that had no blocks in the one before.

   The block lost last is still reachable until the next one is lost,
   through the global `last`. Before each check forget() clears the stack
   below main's frame and the scratch registers: a stale copy of a lost
   block's address there (left by memset or malloc, whose replacements differ
   between the tools and between Valgrind's builds) would keep it reachable
   for one tool and not the other. The counts go out through write():
   stdio's buffer would be one more block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>
#include "forget_pointers.h"

static char* kept;
static char* temp;
static char* last;
static char* interior[2];

/* memcheck.h before 3.21 has no DO_NEW_LEAK_CHECK; the request is the same. */
#ifndef VALGRIND_DO_NEW_LEAK_CHECK
#define VALGRIND_DO_NEW_LEAK_CHECK                                                                 \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__DO_LEAK_CHECK, 0, 3, 0, 0, 0)
#endif

__attribute__((noinline)) static void lose_first(void) {
    char* p = malloc(100); /* FIRST_LOST_HERE */
    memset(p, 1, 100);
    last = p;
}

__attribute__((noinline)) static void lose_second(void) {
    char* p = malloc(200); /* SECOND_LOST_HERE */
    memset(p, 2, 200);
    last = p;
}


__attribute__((noinline)) static void counts(const char* when) {
    unsigned long leaked = 0, dubious = 0, reachable = 0, suppressed = 0;
    unsigned long b_leaked = 0, b_dubious = 0, b_reachable = 0, b_suppressed = 0;
    VALGRIND_COUNT_LEAKS(leaked, dubious, reachable, suppressed);
    VALGRIND_COUNT_LEAK_BLOCKS(b_leaked, b_dubious, b_reachable, b_suppressed);
    char line[200];
    int n = snprintf(line, sizeof line, "counts %s: %lu %lu %lu %lu blocks %lu %lu %lu %lu\n", when,
                     leaked, dubious, reachable, suppressed, b_leaked, b_dubious, b_reachable,
                     b_suppressed);
    if (write(1, line, n) != n) abort();
}

int main(void) {
    counts("before");
    kept = malloc(50); /* KEPT_HERE */
    temp = malloc(70); /* TEMP_HERE */
    lose_first();
    forget();
    VALGRIND_DO_LEAK_CHECK;
    counts("first");
    lose_second();
    lose_second();
    forget();
    VALGRIND_DO_ADDED_LEAK_CHECK;
    free(temp);
    /* One allocation stack for both interior blocks: the second makes the
       record grow. */
    for (int i = 0; i < 2; i++) {
        interior[i] = (char*)malloc(64) + 8; /* INTERIOR_HERE */
        if (i == 0) {
            forget();
            VALGRIND_DO_CHANGED_LEAK_CHECK;
        }
    }
    last = NULL;
    forget();
    VALGRIND_DO_NEW_LEAK_CHECK;
    forget();
    VALGRIND_DO_QUICK_LEAK_CHECK;
    counts("last");
    return 0;
}
