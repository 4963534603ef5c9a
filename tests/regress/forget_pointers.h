/* SPDX-License-Identifier: GPL-2.0-or-later */
/* For programs that compare leak checks with memcheck's: leaves no stale
   pointer below the caller's frame or in a scratch register, where one
   tool's string functions might have left a copy that keeps a block
   reachable for it and not for the other. */
#pragma once
#include <stddef.h>

__attribute__((noinline)) static void forget(void) {
    volatile char buf[16384];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = 0;
#if defined(__x86_64__)
    __asm__ volatile("xor %%eax, %%eax\n\txor %%ecx, %%ecx\n\txor %%edx, %%edx\n\t"
                     "xor %%esi, %%esi\n\txor %%edi, %%edi\n\txor %%r8d, %%r8d\n\t"
                     "xor %%r9d, %%r9d\n\txor %%r10d, %%r10d\n\txor %%r11d, %%r11d" ::
                         : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
#endif
}
