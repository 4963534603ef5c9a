/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-delta.c: full checks that list what changed since
   the one before (DO_ADDED_LEAK_CHECK, DO_CHANGED_LEAK_CHECK,
   DO_NEW_LEAK_CHECK), a block lost and found again by moving its only
   pointer off its start and back. The summaries carry memcheck's changes
   ("(+10)"). */
#include <stdlib.h>
#include "mc_leak.h"

char* ten;
char* twenty_one;
char* pair[2];
char* later[2];

__attribute__((noinline)) static void steps(void) {
    ten = malloc(10);
    say("10 bytes reachable\n");
    VALGRIND_DO_LEAK_CHECK;
    say("nothing added\n");
    VALGRIND_DO_ADDED_LEAK_CHECK;
    ten--;
    twenty_one = malloc(21);
    say("+10 lost, +21 reachable\n");
    VALGRIND_DO_ADDED_LEAK_CHECK;
    for (int i = 0; i < 2; i++)
        pair[i] = malloc(32 + i);
    say("+65 reachable\n");
    VALGRIND_DO_ADDED_LEAK_CHECK;
    ten++;
    say("+10 reachable\n");
    VALGRIND_DO_ADDED_LEAK_CHECK;
    ten--;
    say("-10 reachable, +10 lost\n");
    VALGRIND_DO_CHANGED_LEAK_CHECK;
    ten++;
    say("-10 lost, +10 reachable\n");
    VALGRIND_DO_CHANGED_LEAK_CHECK;
    pair[0]--;
    say("32 lost, 33 reachable\n");
    VALGRIND_DO_CHANGED_LEAK_CHECK;
    for (int i = 0; i < 2; i++)
        later[i] = malloc(42 + i);
    later[0]--;
    say("42 lost, 43 reachable: new\n");
    VALGRIND_DO_NEW_LEAK_CHECK;
    later[1]--;
    say("nothing new\n");
    VALGRIND_DO_NEW_LEAK_CHECK;
}

int main(void) {
    PRINT_LEAK_COUNTS("before");
    steps();
    PRINT_LEAK_COUNTS("after");
    return 0;
}
