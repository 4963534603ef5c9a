/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cow_child.c: what following a forked child's pages costs a store.
 *
 *   cow_child MIB PASSES fork|nofork
 *
 * Fills MIB MiB of heap, then makes PASSES passes of 8-byte stores over it
 * (a read-modify-write of each word, as reference counts are), in a forked
 * child ("fork") or in the process itself ("nofork"), and prints the time
 * of the first pass (every page copied) and of the others (every page
 * already copied: the inline check alone), in CPU time (the shared
 * machine's load moves wall time more). Under memgrow only a forked child's
 * stores are checked: run "fork" with --fork-pages=yes and =no, and the
 * difference is the check's cost.
 *
 * Build: cc -O2 -g -o cow_child cow_child.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void passes(long* words, size_t n, int count) {
    double t0 = now(), t1 = t0;
    for (int p = 0; p < count; p++) {
        for (size_t i = 0; i < n; i++)
            words[i] += (long)i;
        if (p == 0) t1 = now();
    }
    double t2 = now();
    printf("first pass %.3f s, then %.3f s per pass, %.2f ns per store (%zu stores a pass)\n",
           t1 - t0, count > 1 ? (t2 - t1) / (count - 1) : 0.0,
           count > 1 ? (t2 - t1) / (count - 1) / n * 1e9 : 0.0, n);
}

int main(int argc, char** argv) {
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
    int count = argc > 2 ? atoi(argv[2]) : 5;
    int fork_it = argc < 4 || strcmp(argv[3], "nofork") != 0;
    size_t n = mib * 1024 * 1024 / sizeof(long);
    long* words = malloc(n * sizeof(long));
    memset(words, 1, n * sizeof(long));
    if (!fork_it) {
        passes(words, n, count);
        return 0;
    }
    pid_t pid = fork();
    if (pid == 0) {
        passes(words, n, count);
        exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
