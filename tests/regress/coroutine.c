/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Allocations made on a stack of the program's own (a ucontext coroutine):
   their stacks must still name the coroutine's function. */
#include <stdlib.h>
#include <ucontext.h>

#define N 1000
static ucontext_t main_ctx, co_ctx;
static void* kept[N];

static void body(void) {
    for (int i = 0; i < N; i++) {
        kept[i] = malloc(40); /* CO_ALLOC_HERE */
        swapcontext(&co_ctx, &main_ctx);
    }
}

int main(void) {
    char* stack = malloc(256 * 1024);
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = stack;
    co_ctx.uc_stack.ss_size = 256 * 1024;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, body, 0);
    for (int i = 0; i < N; i++)
        swapcontext(&main_ctx, &co_ctx);
    return 0;
}
