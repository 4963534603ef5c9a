/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Makes the dynamic linker work on heap strings of every length: dlopen()
   of library names (found and not) held in malloc'd blocks, searched along
   an LD_LIBRARY_PATH of heap-copied directories. Run with a stripped copy of
   ld.so as its interpreter (test_addressability.py), whose own word-at-a-
   time string code then reads past those blocks' ends. With an argument,
   also calls strlen on a block with no terminator: the program's own
   overflow, which must still be reported. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* heap_copy(const char* s) {
    size_t n = strlen(s) + 1;
    char* p = malloc(n);
    memcpy(p, s, n);
    return p;
}

int main(int argc, char** argv) {
    int opened = 0;
    for (int len = 1; len <= 40; ++len) {
        char name[64];
        snprintf(name, sizeof name, "libmg-absent-%.*s.so", len,
                 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP");
        char* heap_name = heap_copy(name);
        void* h = dlopen(heap_name, RTLD_NOW);
        if (h) dlclose(h);
        free(heap_name);
    }
    static const char* const found[] = {"libm.so.6",  "libdl.so.2",   "libpthread.so.0",
                                        "librt.so.1", "libutil.so.1", "libresolv.so.2"};
    for (unsigned k = 0; k < sizeof found / sizeof *found; ++k) {
        char* heap_name = heap_copy(found[k]);
        void* h = dlopen(heap_name, RTLD_NOW | RTLD_GLOBAL);
        if (h) {
            ++opened;
            if (dlsym(h, "mg_no_such_symbol")) ++opened;
        }
        free(heap_name);
    }
    if (argc > 1) {
        char* unterminated = malloc(13);
        memset(unterminated, 'x', 13);
        opened += (int)strlen(unterminated) & 1; /* OWN_STRLEN */
        free(unterminated);
    }
    printf("opened %d\n", opened);
    return 0;
}
