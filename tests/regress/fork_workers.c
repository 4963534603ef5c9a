/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A parent that forks two workers; each process allocates and exits.
   Each process must write its own report. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char* kept[1000];

static void work(int n, int size) {
    for (int i = 0; i < n; i++) {
        kept[i % 1000] = malloc(size); /* WORK_HERE */
        memset(kept[i % 1000], 1, size);
    }
}

int main(void) {
    work(100, 64);
    for (int w = 0; w < 2; w++) {
        pid_t pid = fork();
        if (pid == 0) {
            work(500 + w * 100, 128);
            exit(0);
        }
    }
    int status, failed = 0;
    while (wait(&status) > 0)
        failed |= !WIFEXITED(status) || WEXITSTATUS(status);
    return failed;
}
