/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A forked child writes 2 MiB of an inherited 8 MiB array (from the heap, or
   "static": in the program's data), then execs /bin/true: its report (with
   what it copied) is written at the exec. With "plain", the child execs at
   once, as a spawned command does: it writes no report. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIB (1 << 20)

static char in_data[8 * MIB];

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "heap";
    char* data = strcmp(mode, "static") ? malloc(8 * MIB) : in_data; /* ARRAY_HERE */
    memset(data, 1, 8 * MIB);
    pid_t pid = fork();
    if (pid == 0) {
        if (strcmp(mode, "plain"))
            for (int i = 0; i < 2 * MIB; i += 4096)
                data[i + 7] = 3; /* WRITE_HERE */
        execl("/bin/true", "true", (char*)0);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    if (data != in_data) free(data);
    return !WIFEXITED(status) || WEXITSTATUS(status);
}
