/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A forked child's store that starts on a page it copied and ends on one
   it still shares: both pages are copied, the second by that store. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    char* buf = aligned_alloc(4096, 4 * 4096); /* BUFFER_HERE */
    memset(buf, 1, 4 * 4096);
    if (fork() == 0) {
        buf[4096] = 2;                                 /* copies page 1 */
        *(volatile uint64_t*)(buf + 2 * 4096 - 4) = 3; /* CROSSING_STORE: pages 1 and 2 */
        _exit(0);
    }
    int status;
    wait(&status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
