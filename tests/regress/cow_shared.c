/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A forked child writes all of an 8 MiB MAP_SHARED anonymous mapping and
   of a 1 MiB MAP_SHARED file mapping its parent filled: shared mappings
   are never copied on write (the parent sees the child's bytes). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIZE (8 << 20)
#define FILE_SIZE (1 << 20)

int main(void) {
    char* shared = mmap(0, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char path[] = "/tmp/memgrow-cow-shared-XXXXXX";
    int fd = mkstemp(path);
    if (shared == MAP_FAILED || fd < 0 || ftruncate(fd, FILE_SIZE)) return 1;
    unlink(path);
    char* file = mmap(0, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (file == MAP_FAILED) return 1;
    memset(shared, 1, SIZE);
    memset(file, 1, FILE_SIZE);
    if (fork() == 0) {
        memset(shared, 2, SIZE); /* SHARED_WRITE */
        memset(file, 2, FILE_SIZE);
        _exit(0);
    }
    int status;
    wait(&status);
    printf("parent sees %d %d\n", shared[SIZE - 1], file[FILE_SIZE - 1]);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
