/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An ever-growing list reachable from a global, beside malloc/free churn:
   the list's site is growing, the churn's stable. */
#include <stdlib.h>
#include <string.h>

struct record {
    struct record* next;
    char payload[96];
};

static struct record* all_records; /* global: reachable at exit */

static void remember(int i) {
    struct record* r = malloc(sizeof *r); /* GROW_HERE */
    memset(r->payload, i, sizeof r->payload);
    r->next = all_records;
    all_records = r;
}

static void scratch(int i) {
    char* tmp = malloc(64 + i % 512); /* CHURN_HERE */
    tmp[0] = (char)i;
    free(tmp);
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    for (int i = 0; i < n; i++) {
        remember(i);
        for (int k = 0; k < 4; k++)
            scratch(i + k);
    }
    return 0;
}
