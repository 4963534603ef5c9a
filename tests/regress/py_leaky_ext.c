/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A C extension with the two leaks C-extension authors make, called once per
   "request" by tests/regress/py_leaky_ext.py: a malloc whose pointer is
   dropped, and a reference returned once too often. Both are lost before
   teardown begins: leaked (and growing), whatever teardown does after. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>
#include <string.h>

static PyObject* lose_malloc(PyObject* self, PyObject* unused) {
    char* p = malloc(64); /* MALLOC_LEAK_HERE */
    if (p) memset(p, 7, 64);
    (void)self, (void)unused;
    Py_RETURN_NONE;
}

/* A bytes object is not tracked by the GC: once the caller drops its
   reference, nothing points at it. */
static PyObject* lose_reference(PyObject* self, PyObject* unused) {
    PyObject* b = PyBytes_FromStringAndSize(NULL, 48); /* REF_LEAK_HERE */
    (void)self, (void)unused;
    if (!b) return NULL;
    memset(PyBytes_AS_STRING(b), 1, 48);
    Py_INCREF(b); /* one reference too many */
    return b;
}

static PyMethodDef methods[] = {
    {"lose_malloc", lose_malloc, METH_NOARGS, "mallocs 64 bytes and drops them"},
    {"lose_reference", lose_reference, METH_NOARGS, "returns a new bytes object, leaking a reference"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "leaky_ext", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_leaky_ext(void) {
    return PyModule_Create(&module);
}
