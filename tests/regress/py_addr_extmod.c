/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A Python extension module with a C extension author's two addressability
   bugs, built by test_addressability.py against each interpreter's headers
   and called by tests/regress/py_addr_extmod.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

static PyObject* off_by_one(PyObject* self, PyObject* arg) {
    long n = PyLong_AsLong(arg);
    volatile char* p = malloc((size_t)n);
    int v = p[n]; /* EXTMOD_OFF_BY_ONE */
    free((void*)p);
    (void)self;
    return PyLong_FromLong(v);
}

static PyObject* after_free(PyObject* self, PyObject* unused) {
    volatile int* p = malloc(40);
    free((void*)p);
    (void)self, (void)unused;
    return PyLong_FromLong(p[3]); /* EXTMOD_AFTER_FREE */
}

static PyMethodDef methods[] = {
    {"off_by_one", off_by_one, METH_O, NULL},
    {"after_free", after_free, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "addr_extmod", NULL, -1, methods};

PyMODINIT_FUNC PyInit_addr_extmod(void) {
    return PyModule_Create(&module);
}
