/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A forked child grows a 4 MiB private mapping it inherited to 8 MiB with
   mremap (MREMAP_MAYMOVE, so that it moves) and writes the inherited half:
   the moved pages are still shared with the parent, and copied then. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE (4 << 20)

int main(void) {
    char* pool = mmap(0, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pool == MAP_FAILED) return 1;
    /* A page just above it (unless one is there already), so that the
       mapping cannot grow in place. */
    mmap(pool + SIZE, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    memset(pool, 5, SIZE);
    if (fork() == 0) {
        char* r = mremap(pool, SIZE, 2 * SIZE, MREMAP_MAYMOVE);
        if (r == MAP_FAILED) _exit(1);
        memset(r, 6, SIZE); /* MOVED_WRITE */
        printf("child moved %d\n", r != pool);
        fflush(stdout);
        _exit(0);
    }
    int status;
    wait(&status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
