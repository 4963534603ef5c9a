/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A forked child whose only write to the 1 MiB buffer it inherited is a
   read() of 512 KiB into it: the kernel's write copies the pages too. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    char* buf = malloc(1 << 20); /* BUFFER_HERE */
    memset(buf, 1, 1 << 20);
    if (fork() == 0) {
        int fd = open("/dev/zero", O_RDONLY);
        ssize_t n = read(fd, buf, 1 << 19); /* READ_SYSCALL */
        _exit(n == 1 << 19 ? 0 : 1);
    }
    int status;
    wait(&status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
