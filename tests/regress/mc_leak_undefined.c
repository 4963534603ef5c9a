/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Follows memcheck's leak-segv-jmp.c: a table of 200,000 bytes whose words
   point at the table itself, but for one that holds the only pointer to a
   block of 1,000 bytes. memcheck takes no pointer from memory the program
   marked undefined or inaccessible:

     the slot as written                   1,000 reachable
     VALGRIND_MAKE_MEM_UNDEFINED on it     1,000 definitely lost
     VALGRIND_MAKE_MEM_DEFINED again       1,000 reachable
     marked undefined, then a new block's
     address written there                 the new block reachable, the old
                                           one lost
     VALGRIND_MAKE_MEM_NOACCESS on it      1,000 definitely lost

   (The pages it mprotects behind Valgrind's back are
   leak_unreadable.c's.) */
#include <stdlib.h>
#include "mc_leak.h"

#define SLOTS (200000 / sizeof(char*))
#define SLOT 4000

char** table;

__attribute__((noinline)) static void fill(void) {
    table = calloc(SLOTS, sizeof(char*));
    for (size_t i = 0; i < SLOTS; i++)
        table[i] = (char*)table;
    table[SLOT] = malloc(1000);
}

__attribute__((noinline)) static void rewrite(void) {
    (void)VALGRIND_MAKE_MEM_UNDEFINED(&table[SLOT], sizeof(char*));
    table[SLOT] = malloc(1000);
}

int main(void) {
    fill();
    CLEAR_SCRATCH_REGISTERS;
    say("reachable\n");
    VALGRIND_DO_LEAK_CHECK;
    (void)VALGRIND_MAKE_MEM_UNDEFINED(&table[SLOT], sizeof(char*));
    say("undefined: lost\n");
    VALGRIND_DO_LEAK_CHECK;
    (void)VALGRIND_MAKE_MEM_DEFINED(&table[SLOT], sizeof(char*));
    say("defined again: reachable\n");
    VALGRIND_DO_LEAK_CHECK;
    rewrite();
    CLEAR_SCRATCH_REGISTERS;
    say("written since: the new block reachable\n");
    VALGRIND_DO_LEAK_CHECK;
    (void)VALGRIND_MAKE_MEM_NOACCESS(&table[SLOT], sizeof(char*));
    say("inaccessible: lost\n");
    VALGRIND_DO_LEAK_CHECK;
    PRINT_LEAK_COUNTS("last");
    (void)VALGRIND_MAKE_MEM_DEFINED(&table[SLOT], sizeof(char*));
    free(table[SLOT]);
    free(table);
    return 0;
}
