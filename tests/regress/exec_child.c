/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A parent that runs itself again through fork and exec: with
   --trace-children=yes both are under memgrow, and each must write its own
   report even when the report name has no %p. With "direct" it execs itself
   without forking, as a wrapper does. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char* kept[100];

int main(int argc, char** argv) {
    int child = argc > 1 && !strcmp(argv[1], "child");
    for (int i = 0; i < 100; i++) {
        kept[i] = malloc(child ? 200 : 100); /* ALLOC_HERE */
        memset(kept[i], 0, child ? 200 : 100);
    }
    if (child) return 0;
    if (argc > 1 && !strcmp(argv[1], "direct")) {
        execl(argv[0], argv[0], "child", (char*)0);
        return 127;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execl(argv[0], argv[0], "child", (char*)0);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return !WIFEXITED(status) || WEXITSTATUS(status);
}
