/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A "service" for leak checks over vgdb, driven step by step by the test:

     leak_service GO_FILE STOP_FILE

   phase 1: loses 3 blocks of 100 bytes (LOST_HERE) and 1 of 64 bytes
   (ONCE_LOST_HERE), prints "ready 1", spins until GO_FILE exists;
   phase 2: loses 2 more blocks of 100 bytes with the same stack (the loss
   record grows to 500 bytes in 5 blocks) and 1 of 32 bytes at a new line
   (NEW_LOST_HERE), prints "ready 2", spins until STOP_FILE exists; exits.
   The spinning is a busy loop that polls with access(), so Valgrind's
   gdbserver gets control often (--vgdb-poll) without vgdb needing ptrace.

   Lost blocks are allocated in noinline helpers and the dead stack and the
   argument registers are cleared before spinning: a scan mid-run takes the
   running thread's stack and registers as roots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char* kept; /* global: still reachable */

__attribute__((noinline)) static void lose_block(int i) {
    char* p = malloc(100); /* LOST_HERE */
    memset(p, i, 100);
}

__attribute__((noinline)) static void lose_once(void) {
    char* p = malloc(64); /* ONCE_LOST_HERE */
    memset(p, 7, 64);
}

__attribute__((noinline)) static void lose_new(void) {
    char* p = malloc(32); /* NEW_LOST_HERE */
    memset(p, 8, 32);
}

__attribute__((noinline)) static void keep_block(void) {
    kept = malloc(200); /* KEPT_HERE */
    memset(kept, 2, 200);
}

/* Overwrites the dead stack below main's frame, where the helpers kept their
   copies of the pointers, and the argument registers. */
__attribute__((noinline)) static long clear_stack(long a, long b, long c, long d, long e, long f) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
    return a + b + c + d + e + f;
}

/* Busy until `path` exists; gives up (exit 3) after 120 s so that a lost
   test does not leave it spinning. */
__attribute__((noinline)) static void spin_until(const char* path) {
    volatile unsigned long work = 0;
    time_t start = time(NULL);
    while (access(path, F_OK) != 0) {
        for (int k = 0; k < 20000; k++)
            work += k;
        if (time(NULL) - start > 120) exit(3);
    }
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: leak_service GO_FILE STOP_FILE\n");
        return 2;
    }
    keep_block();
    fprintf(stderr, "kept %p\n", (void*)kept); /* for monitor who_points_at */
    for (int phase = 1; phase <= 2; phase++) {
        for (int i = 0; i < (phase == 1 ? 3 : 2); i++)
            lose_block(i); /* BATCH_HERE */
        if (phase == 1)
            lose_once();
        else
            lose_new();
        clear_stack(0, 0, 0, 0, 0, 0);
        printf("ready %d\n", phase);
        fflush(stdout);
        spin_until(argv[phase]);
    }
    return 0;
}
