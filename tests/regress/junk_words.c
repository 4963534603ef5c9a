/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Blocks held through interior pointers from an array sized to the run
   (`inner[i] = p + 17`, filled to its last slot: no bound), and 65,536 random
   words, some of which happen to point into the blocks. The random words are
   scattered over their array, which bounds nothing: the site grows
   (docs/holders.md).

     junk_words [N], N at most 3,000 */
#include <stdint.h>
#include <stdlib.h>

#define INNER 3000
#define JUNK 65536
static uintptr_t junk[JUNK] = {1}; /* initialised data: scanned before inner */
static char* inner[INNER];
static uint64_t state = 88172645463325252ull;

static uint64_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : INNER;
    if (n > INNER) n = INNER;
    for (int i = 0; i < JUNK; i++)
        junk[i] = next();
    for (int i = 0; i < n; i++) {
        char* p = malloc(64); /* JUNK_BLOCK */
        inner[i] = p + 17;
        junk[next() % JUNK] = (uintptr_t)(p + 5); /* a random word into it */
        free(malloc(200));
    }
    return 0;
}
