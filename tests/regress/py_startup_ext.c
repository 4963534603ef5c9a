/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An extension module that loses blocks while it is imported, as the CUDA
   stack does under `import torch` (issue 45), and keeps a registry that grows
   during its import; then one block lost per request, the program's own
   leak (tests/regress/py_startup_ext.py calls it).

   At the import: a table of 16 nodes dropped (the first definitely lost,
   15 indirectly), one block of 512 bytes and 256 blocks of 16 bytes lost
   from as many stacks: lost at start-up, not leaked. The registry (2,000 names) stays reachable.
   Per request: 64 bytes definitely lost. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

struct node {
    struct node* next;
    char payload[40];
};

static char** registry; /* grows during the import, kept */
static size_t registered;

static void register_name(size_t i) {
    registry = realloc(registry, (registered + 1) * sizeof *registry); /* REGISTRY_GROWS */
    registry[registered] = malloc(32);                                 /* REGISTRY_ENTRY */
    snprintf(registry[registered++], 32, "kernel-%zu", i);
}

static void lose_table(void) {
    struct node* table = NULL;
    for (int i = 0; i < 16; i++) {
        struct node* x = malloc(sizeof *x); /* IMPORT_TABLE_LOST */
        memset(x, 0, sizeof *x);
        x->next = table;
        table = x;
    }
    char* p = malloc(512); /* IMPORT_BLOCK_LOST */
    memset(p, 3, 512);
}

/* 16 bytes lost from each of 256 distinct stacks (the path through
   lose_a and lose_b spells the bits of i): 256 loss records, as the CUDA
   stack's loader loses blocks from many places. */
static void lose_one(unsigned bits, int n);
static void __attribute__((noinline)) lose_a(unsigned bits, int n) {
    lose_one(bits, n);
}
static void __attribute__((noinline)) lose_b(unsigned bits, int n) {
    lose_one(bits, n);
}
static void __attribute__((noinline)) lose_one(unsigned bits, int n) {
    if (n == 0) {
        char* p = malloc(16); /* IMPORT_MANY_LOST */
        if (p) memset(p, 5, 16);
        return;
    }
    if (bits & 1)
        lose_a(bits >> 1, n - 1);
    else
        lose_b(bits >> 1, n - 1);
}

static PyObject* handle(PyObject* self, PyObject* unused) {
    char* p = malloc(64); /* REQUEST_LOST */
    if (p) memset(p, 7, 64);
    (void)self, (void)unused;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"handle", handle, METH_NOARGS, "loses 64 bytes"},
                                {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "startup_ext", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_startup_ext(void) {
    for (size_t i = 0; i < 2000; i++)
        register_name(i);
    lose_table();
    for (unsigned i = 0; i < 256; i++)
        lose_one(i, 8);
    return PyModule_Create(&module);
}
