/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One big allocation at start-up, kept for the whole run, then steady
   churn: a start-up cache is not growth. */
#include <stdlib.h>
#include <string.h>

static char* table; /* global: reachable at exit */

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 50000;
    table = malloc(8 << 20); /* BIG_HERE */
    memset(table, 1, 8 << 20);
    for (int i = 0; i < n; i++) {
        char* p = malloc(32 + i % 1000); /* CHURN_HERE */
        p[0] = table[i % (8 << 20)];
        free(p);
    }
    return 0;
}
