/* An extension module that loses blocks while it is imported, as the CUDA
   stack does under `import torch` (issue 45), and keeps a registry that grows
   during its import; then one block lost per request, the program's own
   leak (tests/regress/py_startup_ext.py calls it).

   At the import: a table of 16 nodes dropped (the first definitely lost,
   15 indirectly) and one block of 512 bytes lost: lost at start-up, not
   leaked. The registry (2,000 names) stays reachable. Per request: 64
   bytes definitely lost. */
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
    return PyModule_Create(&module);
}
