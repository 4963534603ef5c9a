/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Four threads allocate at once: each keeps its blocks in a global table
   and churns scratch buffers. Counts must be exact, and the stacks must end
   at the thread's start routine. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define PER_THREAD 2000

static void* kept[THREADS][PER_THREAD]; /* global: reachable at exit */

static void* worker(void* arg) {
    long t = (long)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        kept[t][i] = malloc(48 + t); /* KEEP_HERE */
        char* scratch = malloc(300); /* SCRATCH_HERE */
        memset(scratch, i, 300);
        free(scratch);
    }
    return NULL;
}

int main(void) {
    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, (void*)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    return 0;
}
