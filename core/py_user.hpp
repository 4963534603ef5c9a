// SPDX-License-Identifier: GPL-2.0-or-later
// Whether a Python source file is the user's own code or a library's: the
// interpreter's standard library, an installed package, or a pseudo-file
// ("<frozen importlib._bootstrap>", "<string>"). A Python site's headline
// names its innermost frame in the user's code (docs/python.md). Shared by
// the tool's log and memgrow-report; no dependencies.
#pragma once

namespace mg {

namespace py_user_detail {
inline bool contains(const char* s, const char* part) {
    for (; *s; ++s) {
        const char *a = s, *b = part;
        while (*a && *b && *a == *b)
            ++a, ++b;
        if (!*b) return true;
    }
    return false;
}
} // namespace py_user_detail

// A library file: a pseudo-file, a file of an installed package
// (site-packages, dist-packages) or of a standard library (a directory
// named lib/pythonX.Y, wherever the interpreter lives: pyenv, a venv's base,
// /usr/lib).
inline bool python_library_file(const char* file) {
    using py_user_detail::contains;
    if (!file || !*file || *file == '<') return true;
    return contains(file, "/site-packages/") || contains(file, "/dist-packages/") ||
           contains(file, "/lib/python3") || contains(file, "/lib64/python3");
}

// A source file as a person finds it, in every view of a frame (the JSON
// keeps the full path): under an installed package's or a standard
// library's directory, the path from there (`torch/__init__.py`,
// `ctypes/__init__.py`, `json/decoder.py`); anything else by its last
// component (`service.py`, `server.c`). Points into path.
inline const char* shown_file(const char* path) {
    const char* const roots[] = {"/site-packages/", "/dist-packages/", "/lib/python3",
                                 "/lib64/python3"};
    const char* base = path;
    for (const char* p = path; *p; ++p)
        if (*p == '/') base = p + 1;
    const char* from = nullptr; // past the last library directory in the path
    for (const char* root : roots) {
        for (const char* s = path; *s; ++s) {
            const char *a = s, *b = root;
            while (*a && *b && *a == *b)
                ++a, ++b;
            if (*b) continue;
            // lib/python3.X/: past the version's directory too
            if (a[-1] != '/')
                while (*a && *a != '/')
                    ++a;
            if (*a == '/') ++a;
            if (!from || a > from) from = a;
        }
    }
    return from && *from && from <= base ? from : base;
}

} // namespace mg
