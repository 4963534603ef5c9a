/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One block allocated and freed at once, 300 times from one line, then 150
   times from another (issue 43, B12): nothing is ever live across two
   calls. Each block's own bytes carry the bytes clock over the buckets'
   ends; sampled with the block in flight, the site was a plateau holding
   0 bytes. */
#include <stdlib.h>

static void churn(void) {
    void* t = malloc(4096); /* CHURN_NONE_LIVE */
    free(t);
}

int main(void) {
    for (int i = 0; i < 300; i++)
        churn();
    for (int i = 0; i < 150; i++)
        churn();
    return 0;
}
