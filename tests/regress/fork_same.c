/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Twelve (argv[1]) forked children and their parent end at about the same
   time: with a report path they all write through (/dev/stdout), each
   report must arrive whole (docs/robustness.md, "Where a report goes"). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
    int n = argc > 1 ? atoi(argv[1]) : 12;
    for (int i = 0; i < 2000; i++) {
        char* p = malloc(64 + i % 7);
        memset(p, 1, 8);
    }
    for (int i = 0; i < n; i++)
        if (fork() == 0) {
            for (int j = 0; j < 3000; j++)
                malloc(32 + j % 13);
            sleep(1);
            return 0;
        }
    sleep(1);
    while (wait(0) > 0)
        ;
    return 0;
}
