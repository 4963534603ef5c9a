/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A client that ends or behaves badly in one of many ways, after building a
 * list that grows (so each report shows the run up to the end). The red-team
 * test (test_red_team.py) runs every mode under memgrow; segfault.c,
 * underscore_exit.c and bad_frees.c cover the other endings and frees. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct node {
    struct node* next;
    char pad[56];
};
static struct node* head;

static void grow(int n) {
    for (int i = 0; i < n; ++i) {
        struct node* x = malloc(sizeof *x); /* GROW_HERE */
        memset(x, 0, sizeof *x);
        x->next = head;
        head = x;
    }
}

static void* worker(void* arg) {
    (void)arg;
    void** kept = malloc(1000 * sizeof *kept);
    for (int i = 0; i < 1000; ++i)
        kept[i] = malloc(32); /* THREAD_HERE */
    return kept;
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    for (int i = 0; i < 40; ++i)
        grow(100);
    if (!strcmp(mode, "abort")) abort();
    if (!strcmp(mode, "sigkill")) kill(getpid(), SIGKILL);
    if (!strcmp(mode, "sigterm")) raise(SIGTERM);
    if (!strcmp(mode, "fork20")) {
        for (int c = 0; c < 20; ++c)
            if (fork() == 0) {
                grow(10);
                _exit(0);
            }
        for (int c = 0; c < 20; ++c)
            wait(NULL);
    }
    if (!strcmp(mode, "threads8")) {
        pthread_t t[8];
        for (int i = 0; i < 8; ++i)
            pthread_create(&t[i], NULL, worker, NULL);
        for (int i = 0; i < 8; ++i)
            pthread_join(t[i], NULL); /* the kept arrays leak: each thread's result */
    }
    if (!strcmp(mode, "big")) {
        char* p = malloc((size_t)2 << 30);
        printf("2 GiB: %s\n", p ? "allocated" : "refused");
        if (p) p[0] = p[((size_t)2 << 30) - 1] = 1;
        free(p);
    }
    if (!strcmp(mode, "huge")) {
        /* volatile: the compiler would refuse these sizes outright */
        volatile size_t all = (size_t)-1, quarter = (size_t)1 << 62;
        void* keep = malloc(10);
        printf("malloc(-1): %p\n", malloc(all));
        printf("calloc overflow: %p\n", calloc(quarter, 16));
        void* moved = realloc(keep, all);
        printf("realloc(p, -1): %p\n", moved);
        free(moved ? moved : keep);
    }
    printf("%s done\n", mode);
    return 0;
}
