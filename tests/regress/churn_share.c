/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the churn is (issue 45): one line allocates and frees at once most
   of the bytes the run allocates (CHURN_MOST: 100 MB in blocks of 4 KiB, a
   peak of one block), another 400 KB the same way (CHURN_SOME: under 1% of
   the run's bytes, in a folded group that keeps its line), and a table is
   kept. Nothing is live at the end but the table. */
#include <stdlib.h>
#include <string.h>

static char* table[64];

__attribute__((noinline)) static void churn_most(void) {
    char* p = malloc(4096); /* CHURN_MOST */
    memset(p, 1, 4096);
    free(p);
}

__attribute__((noinline)) static void churn_some(void) {
    char* p = malloc(4096); /* CHURN_SOME */
    memset(p, 2, 4096);
    free(p);
}

int main(void) {
    for (int i = 0; i < 64; i++)
        table[i] = malloc(100); /* KEPT_TABLE */
    for (int i = 0; i < 25000; i++)
        churn_most();
    for (int i = 0; i < 100; i++)
        churn_some();
    return table[0] == NULL;
}
