/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A parent builds a 32 MB structure (32,768 records of 1 KiB) and forks
   three children: two read half of it each, counting their reads in each
   record as a reference count would, and one writes nothing. Each reader
   prints how many pages its half spans, for the test to compare with what
   memgrow says it copied. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define RECORDS 32768

struct record {
    long reads;
    char payload[1024 - sizeof(long)];
};

static struct record* records[RECORDS];

static void build(void) {
    for (int i = 0; i < RECORDS; i++) {
        records[i] = malloc(sizeof(struct record)); /* BUILD_HERE */
        records[i]->reads = 0;
        records[i]->payload[0] = (char)i;
    }
}

static long read_half(int half) {
    long sum = 0;
    for (int i = half * RECORDS / 2; i < (half + 1) * RECORDS / 2; i++) {
        records[i]->reads++; /* READ_HERE */
        sum += records[i]->payload[0];
    }
    return sum;
}

/* Distinct pages of the records of one half (each record's first and last
   byte; records are allocated in address order, so pages repeat only next
   to each other). */
static long pages_of_half(int half) {
    long n = 0, last = -1;
    for (int i = half * RECORDS / 2; i < (half + 1) * RECORDS / 2; i++) {
        unsigned long a = (unsigned long)records[i];
        long first = (long)(a >> 12), end = (long)((a + sizeof(struct record) - 1) >> 12);
        for (long p = first; p <= end; p++)
            if (p != last) n++, last = p;
    }
    return n;
}

int main(void) {
    build();
    for (int child = 0; child < 3; child++) {
        pid_t pid = fork(); /* FORK_HERE */
        if (pid == 0) {
            if (child < 2) {
                long sum = read_half(child);
                printf("reader %d pid %d pages %ld sum %ld\n", child, (int)getpid(),
                       pages_of_half(child), sum);
            } else {
                printf("idle pid %d\n", (int)getpid());
            }
            fflush(stdout);
            exit(0);
        }
        waitpid(pid, NULL, 0); /* one at a time: their output stays in order */
    }
    return 0;
}
