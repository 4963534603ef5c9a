/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malloc/free churn with random sizes and a small, randomly replaced
   working set: nothing grows. */
#include <stdlib.h>

#define SLOTS 64
static void* slots[SLOTS];

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    srand(7);
    for (int i = 0; i < n; i++) {
        int k = rand() % SLOTS;
        free(slots[k]);
        slots[k] = malloc(16 + rand() % 2048); /* CHURN_HERE */
    }
    for (int k = 0; k < SLOTS; k++)
        free(slots[k]);
    return 0;
}
