/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An extension's registry in its static data (as torch's and pybind11's
   point at the objects they wrapped): remember() keeps a reference to an
   object in a static array of its .bss, large enough that most of it lies
   in the anonymous mapping past the file. Driven by
   tests/regress/py_registry_ext.py, whose module globals also hold some of
   the objects: a Python way wins where there is one (docs/holders.md). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define SLOTS 16384
static PyObject* registry_slots[SLOTS];
static Py_ssize_t registry_used;

static PyObject* remember(PyObject* self, PyObject* obj) {
    (void)self;
    if (registry_used == SLOTS) Py_RETURN_NONE;
    Py_INCREF(obj);
    registry_slots[registry_used++] = obj;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"remember", remember, METH_O, "keeps a reference to obj in the extension's static data"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "registry_ext", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_registry_ext(void) {
    return PyModule_Create(&module);
}
