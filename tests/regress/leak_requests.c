/* memcheck.h's leak requests mid-run; test_leak_check.py compares every
   LEAK SUMMARY, loss record and count with memcheck's for this program, and
   with what memcheck reports:

   DO_LEAK_CHECK          still reachable 220 bytes in 3 blocks (KEPT_HERE,
                          TEMP_HERE, FIRST_LOST_HERE); the counts after it
   DO_ADDED_LEAK_CHECK    definitely lost 300 (+300) in 2 (+2): FIRST_LOST_HERE
                          and one SECOND_LOST_HERE, the only records listed
   DO_CHANGED_LEAK_CHECK  TEMP_HERE's 70 bytes freed, 64 possibly lost
                          (INTERIOR_HERE), the only record listed
   DO_QUICK_LEAK_CHECK    the summary only; the counts again

   The block lost last before a check is still reachable in it, through a
   stale copy memcheck finds as well. memgrow sees one more reachable block
   than memcheck until exit: libc's copy of the environment its preload
   extends. The counts go out through write(): stdio's buffer would be one
   more block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>

static char* kept;
static char* temp;
static char* interior;

__attribute__((noinline)) static void lose_first(void) {
    char* p = malloc(100); /* FIRST_LOST_HERE */
    memset(p, 1, 100);
}

__attribute__((noinline)) static void lose_second(void) {
    char* p = malloc(200); /* SECOND_LOST_HERE */
    memset(p, 2, 200);
}

__attribute__((noinline)) static void clear_stack(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
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
    clear_stack();
    VALGRIND_DO_LEAK_CHECK;
    counts("first");
    lose_second();
    lose_second();
    clear_stack();
    VALGRIND_DO_ADDED_LEAK_CHECK;
    free(temp);
    interior = (char*)malloc(64) + 8; /* INTERIOR_HERE */
    clear_stack();
    VALGRIND_DO_CHANGED_LEAK_CHECK;
    clear_stack();
    VALGRIND_DO_QUICK_LEAK_CHECK;
    counts("last");
    return 0;
}
