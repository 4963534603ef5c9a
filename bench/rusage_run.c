/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rusage_run.c: run a command, report its wall time and peak RSS.
 *
 *   rusage_run RESULT_FILE PROGRAM [ARGS...]
 *
 * Forks and execs PROGRAM, waits for it with wait4(), and writes one line to
 * RESULT_FILE: "<seconds> <ru_maxrss KiB> <exit code or -signal> <CPU
 * seconds>" (user and system time of the command's tree: on a machine
 * shared with other work it moves less than the wall time). The command's
 * stdin, stdout and stderr are this process's.
 *
 * bench/run.py measures through this helper instead of forking the command
 * from Python: Linux carries a process's peak RSS across fork and exec, so a
 * command forked from the Python interpreter would report at least the
 * interpreter's RSS. This process is small, so the peak RSS reported is the
 * command's own. wait4() gives the rusage of the child together with all the
 * descendants it waited for; ru_maxrss is the largest RSS of any single
 * process in that tree.
 *
 * The exit status of rusage_run itself is 0 when the measurement was made
 * (whatever PROGRAM's status; a PROGRAM that cannot be started reports 127
 * in RESULT_FILE), 126 when the measurement failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s RESULT_FILE PROGRAM [ARGS...]\n", argv[0]);
        return 126;
    }
    FILE* res = fopen(argv[1], "w");
    if (!res) {
        fprintf(stderr, "rusage_run: cannot write %s: %s\n", argv[1], strerror(errno));
        return 126;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("rusage_run: fork");
        return 126;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "rusage_run: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage ru;
    pid_t r;
    do
        r = wait4(pid, &status, 0, &ru);
    while (r < 0 && errno == EINTR);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (r < 0) {
        perror("rusage_run: wait4");
        return 126;
    }
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
    double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    fprintf(res, "%.6f %ld %d %.6f\n", secs, ru.ru_maxrss, code, cpu);
    return fclose(res) == 0 ? 0 : 126;
}
